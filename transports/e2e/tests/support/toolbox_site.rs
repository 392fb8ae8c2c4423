//! The pages of the toolbox tests (wait, back/forward, resize, find), served on loopback as
//! two sites: the top page `/wait` on `http://127.0.0.1:P` with a cross-site iframe `/late`
//! on `http://localhost:P` (an OOPIF); three static, cacheable pages `/h1` `/h2` `/h3` for
//! the back/forward cache. Also used by the sidecar's test (`transports/cli/tests`).
//!
//! - `/wait` shows "Loading the shop"; `window.unload(ms)` removes it after `ms`. It keeps
//!   `window.narrow`: whether `matchMedia('(max-width: 600px)')` matches, as the page sees it.
//! - `/late` has a heading "Inside the frame" and a button "Frame button" that counts its
//!   clicks in `window.clicked`; `window.later(ms)` appends "Arrived late" after `ms` and
//!   keeps when (`window.appearedAt`, `Date.now()`).
//! - `/h1`..`/h3` record on `pageshow` whether they were restored (`window.restored`).

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response};

use super::site::Site;

fn page(title: &str, body: &str, script: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <style>body{{margin:0}}</style></head><body>{body}<script>{script}</script></body></html>"
    )
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/wait" => Response::html(page(
            "toolbox top",
            &format!(
                "<h1>Toolbox</h1><p id=loading>Loading the shop</p>\
                 <iframe id=late src=\"//{other}/late\" style=\"width:400px;height:200px\"></iframe>"
            ),
            "window.unload = function (ms) { setTimeout(function () { \
                 var l = document.getElementById('loading'); if (l) l.remove(); }, ms); return ms; }; \
             var mq = matchMedia('(max-width: 600px)'); window.narrow = mq.matches; \
             mq.addEventListener('change', function (e) { window.narrow = e.matches; \
                 console.log('narrow=' + e.matches); });",
        )),
        "/late" => Response::html(page(
            "toolbox frame",
            "<h2>Inside the frame</h2><button id=fb onclick=\"window.clicked++\">Frame button</button>",
            "window.clicked = 0; window.later = function (ms) { setTimeout(function () { \
                 var p = document.createElement('p'); p.textContent = 'Arrived late'; \
                 document.body.appendChild(p); window.appearedAt = Date.now(); }, ms); return ms; };",
        )),
        "/h1" | "/h2" | "/h3" => {
            let name = req.path.trim_start_matches('/');
            let script = "window.restored = false; addEventListener('pageshow', function (e) { \
                 window.restored = e.persisted; });";
            Response::html(page(&format!("history {name}"), &format!("<h1>{name}</h1>"), script))
                .cacheable()
        }
        _ => Response::not_found(),
    }
}

/// Starts the site.
pub fn start() -> Site {
    Site::serve(handle)
}
