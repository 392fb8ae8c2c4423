//! The page of the network tests, served on loopback as two sites: a top page on
//! `127.0.0.1:P` that fetches a missing path (404) and an API with a key in its query and
//! an `Authorization` header, and holds a cross-site iframe (`localhost:P`, an OOPIF) that
//! fetches data of its own. The top page's title becomes `done` once its fetches ended.

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

/// The key in the API's query, never to be shown.
pub const SECRET_KEY: &str = "KEY0123secret";
/// The `Authorization` header's value, never to be shown.
pub const SECRET_AUTH: &str = "Bearer TOKEN456secret";

fn data(kind: &'static str, body: &str) -> Response {
    Response {
        content_type: kind,
        ..Response::html(body)
    }
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/" => Response::html(format!(
            "<!doctype html><title>network</title>\
             <iframe src=\"//{other}/frame\" width=300 height=100></iframe>\
             <script>Promise.all([\
               fetch('/missing').then(r => r.text()),\
               fetch('/api?key={SECRET_KEY}', {{headers: {{Authorization: '{SECRET_AUTH}'}}}}).then(r => r.text()),\
             ]).then(() => document.title = 'done');</script>"
        )),
        "/frame" => Response::html(
            "<!doctype html><title>frame</title>\
             <script>fetch('/frame-data').then(r => r.text()).then(t => document.title = t)</script>",
        ),
        "/frame-data" => data("text/plain", "data of the frame"),
        "/api" => data("application/json", r#"{"answer":42}"#),
        _ => Response::not_found(),
    }
}

/// The network test site; stops when dropped.
pub struct NetworkSite {
    server: Server,
}

impl NetworkSite {
    pub fn start() -> NetworkSite {
        NetworkSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }
}
