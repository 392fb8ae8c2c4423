//! The page of the "a dialog blocks its renderer" tests, on loopback as five sites in four
//! renderers (`*.localhost` names resolve to loopback in Chromium, each its own site):
//!
//! - `T` `http://127.0.0.1:P/`, the top, with iframes `A` and `S`;
//! - `A` `http://localhost:P/frame-a`, an OOPIF, with iframes `N` and `M`;
//! - `N` `http://127.0.0.1:P/frame-n`, an OOPIF nested in `A`, back on the top's site, so in
//!   the top's renderer;
//! - `M` `http://m.localhost:P/frame-m`, an OOPIF nested in `A`, a site of its own;
//! - `S` `http://s.localhost:P/frame-s`, an OOPIF beside `A`, a site of its own.
//!
//! Each page sets `window.frameLabel` and shows a button named "`LABEL` button".

use cdp_supervise::serve::{Request, Response, Server};

fn page(label: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{label}</title></head>\
         <body><script>window.frameLabel = '{label}';</script><button>{label} button</button>{body}</body></html>"
    )
}

fn handle(req: &Request) -> Response {
    let port = req.host.rsplit_once(':').map_or("80", |(_, p)| p);
    let frame =
        |host: &str, path: &str| format!("<iframe src=\"http://{host}:{port}{path}\"></iframe>");
    match req.path.split('?').next().unwrap_or("/") {
        "/" => Response::html(page(
            "T",
            &(frame("localhost", "/frame-a") + &frame("s.localhost", "/frame-s")),
        )),
        "/frame-a" => Response::html(page(
            "A",
            &(frame("127.0.0.1", "/frame-n") + &frame("m.localhost", "/frame-m")),
        )),
        "/frame-n" => Response::html(page("N", "")),
        "/frame-m" => Response::html(page("M", "")),
        "/frame-s" => Response::html(page("S", "")),
        _ => Response::not_found(),
    }
}

/// The site; stops when dropped.
pub struct RendererSite {
    server: Server,
}

impl RendererSite {
    pub fn start() -> RendererSite {
        RendererSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// The top page, `http://127.0.0.1:P/`.
    pub fn top_url(&self) -> String {
        self.server.url("127.0.0.1", "/")
    }
}

/// The frames' labels, in the order the tests raise a dialog in each.
pub const LABELS: [&str; 5] = ["T", "A", "N", "M", "S"];

/// The labels whose frames a dialog in `label`'s frame blocks: those of its renderer.
pub fn blocked_with(label: &str) -> &'static [&'static str] {
    match label {
        "T" | "N" => &["T", "N"],
        "A" => &["A"],
        "M" => &["M"],
        _ => &["S"],
    }
}
