//! The pages of the agent-action tests, served on loopback as two sites: a top page on
//! `http://127.0.0.1:P` with a link, buttons, a form and a tall spacer, and a cross-site
//! iframe on `http://localhost:P` (an OOPIF) that nests one back on `127.0.0.1` (an OOPIF
//! inside an OOPIF), inside a scrolled box.
//!
//! Every button's handler counts its clicks in `window.clicked` and writes a `console.log`
//! and a `console.error` naming its frame.

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

const RAISE: &str = "window.raise = function (kind, msg) { setTimeout(function () { \
    window.last = kind === 'confirm' ? confirm(msg) : alert(msg); }, 0); return 'scheduled'; };";

fn page(title: &str, body: &str, script: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <style>body{{margin:0}}</style></head><body><script>window.clicked = 0; {RAISE}{script}</script>{body}</body></html>"
    )
}

fn button(id: &str, who: &str) -> String {
    format!(
        "<button id={id} style=\"width:120px;height:40px\" onclick=\"window.clicked++; \
         console.log('{who} log'); console.error('{who} error')\">{id}</button>"
    )
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/" => Response::html(page(
            "act top",
            &format!(
                "<a id=link href=/second style=\"position:absolute;left:0;top:0;width:200px;height:40px;display:block\">second</a>\
                 <button id=alert style=\"position:absolute;left:0;top:50px;width:200px;height:40px\" onclick=\"alert('hello')\">alert</button>\
                 <div style=\"position:absolute;left:0;top:100px\">{top}</div>\
                 <form action=/submitted style=\"position:absolute;left:0;top:150px\"><input id=q name=q></form>\
                 <div style=\"position:absolute;left:300px;top:0;\"><iframe id=cross src=\"//{other}/cross\" \
                   style=\"margin:40px;border:5px solid black;width:400px;height:300px\"></iframe></div>\
                 <div style=\"height:4000px\"></div><div id=far>far below</div>",
                top = button("top", "top"),
            ),
            "",
        )),
        "/cross" => Response::html(page(
            "act cross",
            &format!(
                "{}<input id=inp><div id=box style=\"height:150px;overflow:auto\">\
                 <div style=\"height:100px\"></div>\
                 <iframe id=nested src=\"//{other}/nested\" style=\"margin:20px;border:3px solid;width:200px;height:100px\"></iframe>\
                 <div style=\"height:400px\"></div></div>",
                button("btn", "cross")
            ),
            "",
        )),
        "/nested" => Response::html(page("act nested", &button("nbtn", "nested"), "")),
        "/second" => Response::html(page("second page", "<p>second</p>", "")),
        "/submitted" => Response::html(page("submitted", "<p>thanks</p>", "")),
        // Static and cacheable, so that Chromium keeps them in its back/forward cache; each
        // says on `pageshow` whether it was restored from there.
        "/bf1" | "/bf2" => {
            let name = req.path.trim_start_matches('/');
            let script = "addEventListener('pageshow', function (e) { \
                 window.restored = e.persisted; console.log('pageshow persisted=' + e.persisted); });";
            Response::html(page(&format!("page {name}"), &format!("<h1>{name}</h1>"), script))
                .cacheable()
        }
        _ => Response::not_found(),
    }
}

/// The action test site; stops when dropped.
pub struct ActSite {
    server: Server,
}

impl ActSite {
    pub fn start() -> ActSite {
        ActSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }
}

/// Whether `data` (base64) is a WebP image, and its size.
pub fn webp_size(data: &str) -> Option<(u32, u32)> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    if bytes.get(0..4)? != b"RIFF" || bytes.get(8..12)? != b"WEBP" {
        return None;
    }
    let le = |i: usize, n: usize| -> u32 {
        (0..n).fold(0, |acc, k| acc | (u32::from(bytes[i + k]) << (8 * k)))
    };
    match bytes.get(12..16)? {
        b"VP8X" => Some((le(24, 3) + 1, le(27, 3) + 1)),
        b"VP8 " => Some((le(26, 2) & 0x3fff, le(28, 2) & 0x3fff)),
        b"VP8L" => {
            let b = le(21, 4);
            Some(((b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1))
        }
        _ => None,
    }
}
