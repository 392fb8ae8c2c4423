//! The pages of the accessibility snapshot tests, on loopback as two sites: a top page on
//! `http://127.0.0.1:P` with a heading, a `srcdoc` iframe with a checkbox, and a
//! cross-site iframe on `http://localhost:P` (an OOPIF) with a button that nests one more
//! cross-site iframe (an OOPIF inside an OOPIF) with a link; `/many?n=35`: 35 iframes
//! each with a button; `/big?n=600`: the same four frames with `n` buttons each.

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>\
         <body>{body}</body></html>"
    )
}

fn attr(html: &str) -> String {
    html.replace('&', "&amp;").replace('"', "&quot;")
}

fn count(path: &str, default: usize) -> usize {
    path.split_once("n=")
        .and_then(|(_, n)| n.split('&').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
        .min(5_000)
}

fn many_buttons(label: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("<button>{label} {i}</button>"))
        .collect()
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    let route = req.path.split('?').next().unwrap_or("/");
    let n = count(&req.path, 0);
    let extra = |label: &str| many_buttons(label, n);
    let q = if n > 0 {
        format!("?n={n}")
    } else {
        String::new()
    };
    match route {
        "/" | "/big" => {
            let srcdoc = attr(&page(
                "srcdoc",
                &format!("<label><input type=checkbox id=agree> Agree</label>{}", extra("same")),
            ));
            Response::html(page(
                "ax top",
                &format!(
                    "<h1 id=title>Welcome</h1>{}<iframe id=same srcdoc=\"{srcdoc}\"></iframe>\
                     <iframe id=cross src=\"http://{other}/cross{q}\"></iframe>",
                    extra("top")
                ),
            ))
        }
        "/cross" => Response::html(page(
            "ax cross",
            &format!(
                "<button id=go>Go</button>{}<iframe id=nested src=\"http://{other}/nested{q}\"></iframe>",
                extra("cross")
            ),
        )),
        "/nested" => Response::html(page(
            "ax nested",
            &format!("<a id=deep href=\"#deep\">Deep link</a>{}", extra("nested")),
        )),
        "/many" => {
            let n = count(&req.path, 35);
            let frames: String = (0..n)
                .map(|i| {
                    let inner = attr(&page("f", &format!("<button>Button {i}</button>")));
                    format!("<iframe name=f{i} srcdoc=\"{inner}\"></iframe>")
                })
                .collect();
            Response::html(page("many", &frames))
        }
        _ => Response::not_found(),
    }
}

/// The accessibility test site; stops when dropped.
pub struct AxSite {
    server: Server,
}

impl AxSite {
    pub fn start() -> AxSite {
        AxSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }
}
