//! The pages of the file chooser and download tests, on loopback as two sites: a top page
//! on `http://127.0.0.1:P` with a single and a `multiple` file input and a cross-site
//! iframe on `http://localhost:P` (an OOPIF) with a file input of its own. Each input's
//! `change` handler appends `input:name:size` for every file to `window.seen`.
//!
//! Fixed places (top-level CSS pixels): the single input at (0,0)-(150,40), the multiple
//! one at (0,50)-(150,90), the iframe's input at (0,120)-(150,160).
//!
//! `/downloads` has three download controls: a `download` link to a 20 000-byte
//! `/file.bin` at (0,0)-(150,40), a button that downloads a 3 000-byte blob as `made.txt`
//! at (0,50)-(150,90), and a `download` link to a 2 MB `/big.bin` at (0,100)-(150,140).
//!
//! `/permissions` has two buttons that ask for a permission: the position
//! (`getCurrentPosition`; the error code or `position` goes to `window.geo`) at
//! (0,0)-(150,40), and notifications (`Notification.requestPermission`; the state goes to
//! `window.notif`) at (0,50)-(150,90).

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

const SEEN: &str = "window.seen = []; for (const i of document.querySelectorAll('input[type=file]')) \
    i.addEventListener('change', e => { for (const f of e.target.files) seen.push(i.id + ':' + f.name + ':' + f.size); });";

fn input(id: &str, top: u32, multiple: bool) -> String {
    let multiple = if multiple { " multiple" } else { "" };
    format!(
        "<input type=file id={id}{multiple} style=\"position:absolute;left:0;top:{top}px;width:150px;height:40px\">"
    )
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <style>body{{margin:0}} iframe{{border:0}}</style></head><body>{body}<script>{SEEN}</script></body></html>"
    )
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/" => Response::html(page(
            "upload top",
            &format!(
                "{}{}<iframe id=cross src=\"//{other}/cross\" \
                 style=\"position:absolute;left:0;top:120px;width:300px;height:100px\"></iframe>",
                input("single", 0, false),
                input("multi", 50, true),
            ),
        )),
        "/cross" => Response::html(page("upload cross", &input("inner", 0, false))),
        "/downloads" => Response::html(page(
            "downloads",
            "<a id=att href=/file.bin download style=\"position:absolute;left:0;top:0;width:150px;height:40px;display:block\">att</a>\
             <button id=blob style=\"position:absolute;left:0;top:50px;width:150px;height:40px\" \
               onclick=\"const a = document.createElement('a'); a.href = window.URL.createObjectURL(new Blob(['x'.repeat(3000)])); \
               a.download = 'made.txt'; document.body.appendChild(a); a.click()\">blob</button>\
             <a id=big href=/big.bin download style=\"position:absolute;left:0;top:100px;width:150px;height:40px;display:block\">big</a>",
        )),
        "/permissions" => Response::html(page(
            "permissions",
            "<button id=geo style=\"position:absolute;left:0;top:0;width:150px;height:40px\" \
               onclick=\"navigator.geolocation.getCurrentPosition(() => window.geo = 'position', \
               e => window.geo = e.code, {timeout: 2000})\">geo</button>\
             <button id=notif style=\"position:absolute;left:0;top:50px;width:150px;height:40px\" \
               onclick=\"Notification.requestPermission().then(s => window.notif = s)\">notif</button>",
        )),
        "/file.bin" => Response::html("y".repeat(20_000)),
        "/big.bin" => Response::html("z".repeat(2_000_000)),
        _ => Response::not_found(),
    }
}

/// The upload test site; stops when dropped.
pub struct UploadSite {
    server: Server,
}

impl UploadSite {
    pub fn start() -> UploadSite {
        UploadSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }
}
