//! The built-in demo site of `cdp-supervise watch --demo`, also served by the end-to-end
//! tests: a top page on `http://127.0.0.1:P` with a same-origin `srcdoc` iframe and a
//! cross-site iframe on `http://localhost:P` (an OOPIF: two hosts are two sites) that nests one more
//! cross-site iframe back on `127.0.0.1` (an OOPIF inside an OOPIF).
//!
//! Every frame defines `raise(kind, message, delay_ms)`, which opens an `alert`,
//! `confirm` or `prompt` from a timer (so the script that calls it is not blocked) and
//! keeps the answer in `window.last` and `window.results`; it also reports the answer
//! with `console.error("[demo] ...")`, which shows up as a `console_error` diff. Frames
//! forward `postMessage({raise, msg, to})` so the top page can drive the others.
//!
//! With `?demo=1` the top page raises a dialog every 8 s, cycling through the frames and
//! the kinds, and arms `beforeunload` (which Chromium shows only after a user
//! gesture). Other paths: `/many?n=N` (N srcdoc iframes), `/deep?max=M` (a chain of
//! cross-site iframes M deep), `/title?t=T` (an empty page titled T).

use std::io;

use crate::serve::{Request, Response, Server};

/// Seconds between the demo's dialogs.
///
/// ```
/// assert!(cdp_supervise::demo::DEMO_INTERVAL_S > 0);
/// ```
pub const DEMO_INTERVAL_S: u32 = 8;

/// The demo site on a loopback server; stops when dropped.
///
/// ```
/// let site = cdp_supervise::demo::DemoSite::start()?;
/// assert_eq!(site.top_url(false), format!("http://127.0.0.1:{}/", site.port()));
/// assert_eq!(site.cross_url("/cross"), format!("http://localhost:{}/cross", site.port()));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DemoSite {
    server: Server,
}

impl DemoSite {
    /// Serves the site on `127.0.0.1` (reachable as `localhost` too) on a free port.
    pub fn start() -> io::Result<DemoSite> {
        Ok(DemoSite {
            server: Server::start(handle)?,
        })
    }

    /// The top page: `http://127.0.0.1:P/`, with timers when `timers` is true.
    pub fn top_url(&self, timers: bool) -> String {
        self.server
            .url("127.0.0.1", if timers { "/?demo=1" } else { "/" })
    }

    /// `path` on the top page's site, `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }

    /// `path` on the other site, `http://localhost:P{path}`.
    pub fn cross_url(&self, path: &str) -> String {
        self.server.url("localhost", path)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.server.port()
    }
}

/// The script every frame runs (see the module docs).
///
/// ```
/// assert!(cdp_supervise::demo::FRAME_SCRIPT.contains("window.raise"));
/// ```
pub const FRAME_SCRIPT: &str = r#"
window.last = 'none';
window.results = [];
window.raise = function (kind, msg, delay) {
  window.last = 'pending';
  setTimeout(function () {
    var r;
    if (kind === 'alert') { alert(msg); r = 'alerted'; }
    else if (kind === 'confirm') { r = confirm(msg); }
    else { r = prompt(msg, 'default text'); }
    window.last = r;
    window.results.push(r);
    console.error('[demo] ' + kind + ' in ' + window.frameLabel + ' returned ' + JSON.stringify(r));
  }, delay || 0);
  return 'scheduled';
};
window.armBeforeUnload = function () {
  window.onbeforeunload = function (e) { e.preventDefault(); e.returnValue = ''; return ''; };
  return 'armed';
};
addEventListener('message', function (e) {
  var d = e.data || {};
  if (!d.raise) return;
  if (d.to === window.frameLabel) { raise(d.raise, d.msg, 0); return; }
  for (var i = 0; i < frames.length; i++) frames[i].postMessage(d, '*');
});
"#;

fn page(title: &str, label: &str, body: &str, extra_script: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>\
         <body><script>window.frameLabel = '{label}';{FRAME_SCRIPT}{extra_script}</script>\
         <h1>{title}</h1>{body}</body></html>"
    )
}

/// The other site's `host:port` for a request to `host:port`: `localhost` and
/// `127.0.0.1` on the same port are two sites, so an iframe of one in the other is an
/// OOPIF.
///
/// ```
/// use cdp_supervise::demo::other_host;
/// assert_eq!(other_host("127.0.0.1:8080"), "localhost:8080");
/// assert_eq!(other_host("localhost:8080"), "127.0.0.1:8080");
/// ```
pub fn other_host(host: &str) -> String {
    let port = host.rsplit_once(':').map_or("80", |(_, p)| p);
    if host.starts_with("localhost") {
        format!("127.0.0.1:{port}")
    } else {
        format!("localhost:{port}")
    }
}

fn query<'a>(path: &'a str, key: &str) -> Option<&'a str> {
    let (_, q) = path.split_once('?')?;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == key).then_some(v)
    })
}

fn buttons(label: &str) -> String {
    ["alert", "confirm", "prompt"]
        .iter()
        .map(|k| format!("<button onclick=\"raise('{k}', '{k} from {label}')\">{k}</button> "))
        .collect()
}

const DEMO_TIMERS: &str = r#"
var targets = ['top', 'srcdoc', 'cross', 'nested'];
var kinds = ['alert', 'confirm', 'prompt'];
var step = 0;
armBeforeUnload();
setInterval(function () {
  var to = targets[step % targets.length], kind = kinds[step % kinds.length];
  step++;
  var msg = 'demo ' + kind + ' #' + step + ' from ' + to;
  if (to === 'top') raise(kind, msg, 0);
  else for (var i = 0; i < frames.length; i++) frames[i].postMessage({raise: kind, msg: msg, to: to}, '*');
}, INTERVAL);
"#;

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    let route = req.path.split('?').next().unwrap_or("/");
    match route {
        "/" => {
            let srcdoc = page("srcdoc frame", "srcdoc", &buttons("srcdoc"), "")
                .replace('&', "&amp;")
                .replace('"', "&quot;");
            let body = format!(
                "{}<p>Dialogs open from timers when ?demo=1; results go to the console.</p>\
                 <iframe id=same name=same srcdoc=\"{srcdoc}\"></iframe>\
                 <iframe id=cross name=cross src=\"http://{other}/cross\"></iframe>",
                buttons("top")
            );
            let timers = if query(&req.path, "demo") == Some("1") {
                DEMO_TIMERS.replace("INTERVAL", &(DEMO_INTERVAL_S * 1000).to_string())
            } else {
                String::new()
            };
            Response::html(page("cdp-supervise demo", "top", &body, &timers))
        }
        "/cross" => Response::html(page(
            "cross frame",
            "cross",
            &format!(
                "{}<iframe id=nested name=nested src=\"http://{other}/nested\"></iframe>",
                buttons("cross")
            ),
            "",
        )),
        "/nested" => Response::html(page("nested frame", "nested", &buttons("nested"), "")),
        "/many" => {
            let n: usize = query(&req.path, "n")
                .and_then(|n| n.parse().ok())
                .unwrap_or(35)
                .min(200);
            let frames: String = (0..n)
                .map(|i| format!("<iframe name=f{i} srcdoc=\"frame {i}\"></iframe>"))
                .collect();
            Response::html(page("many frames", "top", &frames, ""))
        }
        "/deep" => {
            let level: u32 = query(&req.path, "level")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let max: u32 = query(&req.path, "max")
                .and_then(|n| n.parse().ok())
                .unwrap_or(3)
                .min(10);
            let child = if level < max {
                format!(
                    "<iframe src=\"http://{other}/deep?level={}&amp;max={max}\"></iframe>",
                    level + 1
                )
            } else {
                String::new()
            };
            Response::html(page(
                &format!("deep {level}"),
                &format!("deep{level}"),
                &child,
                "",
            ))
        }
        "/title" => {
            let t = query(&req.path, "t").unwrap_or("untitled");
            Response::html(page(t, "title", "", ""))
        }
        _ => Response::not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_link_across_sites() {
        let top = handle(&Request {
            path: "/".into(),
            host: "127.0.0.1:5".into(),
        });
        assert!(top.body.contains("http://localhost:5/cross"));
        assert!(!top.body.contains("setInterval"));
        let cross = handle(&Request {
            path: "/cross".into(),
            host: "localhost:5".into(),
        });
        assert!(cross.body.contains("http://127.0.0.1:5/nested"));
        let demo = handle(&Request {
            path: "/?demo=1".into(),
            host: "127.0.0.1:5".into(),
        });
        assert!(demo.body.contains("8000"));
    }
}
