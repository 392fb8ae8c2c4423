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
use cdp_supervisor::act::ActResult;
use cdp_supervisor::downloads::DownloadState;

/// The small downloads of `/downloads`: where to click (y), the name each is saved as,
/// its size.
pub const SMALL_DOWNLOADS: [(f64, &str, u64); 2] =
    [(20.0, "file.bin", 20_000), (70.0, "made.txt", 3_000)];

/// Checks that the click `r` named one completed download `name` of `size` bytes, saved as
/// `dir/name`, and that the file is there.
pub fn assert_saved(r: &ActResult, dir: &std::path::Path, name: &str, size: u64) {
    let [d] = r.downloads.as_slice() else {
        panic!("{name}: one download named by the click: {r:?}");
    };
    assert_eq!(d.state, DownloadState::Completed, "{d:?}");
    assert_eq!(d.suggested_filename, name);
    assert_eq!(d.received_bytes, size);
    let path = d.path.as_deref().unwrap();
    assert_eq!(
        path,
        dir.join(name).to_string_lossy(),
        "saved under its name"
    );
    assert_eq!(std::fs::metadata(path).unwrap().len(), size);
}

/// The console line (`level: text`) the supervisor's script wrote in `r` when the page
/// asked for permission `name`.
pub fn asked_for(r: &ActResult, name: &str) -> Option<String> {
    let needle = format!("the page asked for permission \"{name}\"");
    r.console
        .iter()
        .find(|l| l.text.contains(&needle))
        .map(|l| format!("{}: {}", l.level, l.text))
}

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
