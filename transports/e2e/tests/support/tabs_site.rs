//! The pages of the tab tests, served on loopback as two sites (`127.0.0.1:P` and
//! `localhost:P`): an opener whose link and buttons open tabs, a popup with a counter,
//! and a popup whose first inline script raises an `alert`.
//!
//! The opener's controls, each 200 x 40 CSS pixels at the left edge (click their centres,
//! [`TabsSite::LINK`] and the other points):
//! - a `target=_blank` link to `/popup?via=blank` (a same-site tab, `noopener`);
//! - `window.open('/popup?via=open')` (a same-site popup that can reach its opener);
//! - `window.open('/alert-popup')` (same site: its alert stalls the opener too; Chromium facts:
//!   "Tabs that share a renderer");
//! - `window.open('//localhost:P/alert-popup')` (cross-site: it stalls nothing else);
//! - a counter, `window.count`.
//!
//! `/leave` arms `beforeunload`; its button (at [`TabsSite::LINK`]) gives the gesture
//! Chromium wants before it asks.

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

fn page(title: &str, body: &str, script: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <style>body{{margin:0}} a,button{{position:absolute;left:0;width:200px;height:40px;display:block}}</style>\
         </head><body><script>{script}</script>{body}</body></html>"
    )
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/" => Response::html(page(
            "opener",
            &format!(
                "<a id=blank target=_blank href=/popup?via=blank style=top:0>blank</a>\
                 <button id=open style=top:50px onclick=\"window.open('/popup?via=open')\">open</button>\
                 <button id=alertpop style=top:100px onclick=\"window.open('/alert-popup')\">alert popup</button>\
                 <button id=crosspop style=top:150px onclick=\"window.open('//{other}/alert-popup')\">cross popup</button>\
                 <button id=count style=top:200px onclick=\"window.count++\">count</button>"
            ),
            "window.count = 0;",
        )),
        "/popup" => Response::html(page(
            "popup",
            "<button id=hit style=top:0 onclick=\"window.hits++; console.log('popup hit')\">hit</button>",
            "window.hits = 0;",
        )),
        // The alert runs before anything else of the page: a supervisor that resumed the
        // popup before setting it up would miss it.
        "/alert-popup" => Response::html(page(
            "alerting popup",
            "<p>after the alert</p>",
            "alert('first script of ' + location.host); window.after = 'resumed';",
        )),
        // Asks before it goes (Chromium shows it only after a user gesture: click `stay`).
        "/leave" => Response::html(page(
            "leave",
            "<button id=stay style=top:0 onclick=\"window.armed = true\">stay</button>",
            "window.onbeforeunload = function (e) { e.preventDefault(); e.returnValue = ''; };",
        )),
        _ => Response::not_found(),
    }
}

/// The tab test site; stops when dropped.
pub struct TabsSite {
    server: Server,
}

impl TabsSite {
    /// The link's centre (a `target=_blank` tab).
    pub const LINK: (f64, f64) = (100.0, 20.0);
    /// The `window.open` button's centre.
    pub const OPEN: (f64, f64) = (100.0, 70.0);
    /// The same-site alerting popup's button.
    pub const ALERT_POPUP: (f64, f64) = (100.0, 120.0);
    /// The cross-site alerting popup's button.
    pub const CROSS_POPUP: (f64, f64) = (100.0, 170.0);
    /// The counter's button.
    pub const COUNT: (f64, f64) = (100.0, 220.0);

    pub fn start() -> TabsSite {
        TabsSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }

    /// `http://localhost:P{path}`, the other site.
    pub fn cross_url(&self, path: &str) -> String {
        self.server.url("localhost", path)
    }
}
