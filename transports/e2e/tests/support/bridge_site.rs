//! The pages of the dialog-bridge tests, served on loopback as two sites
//! (different sites: 127.0.0.1 and localhost): a top page on `http://127.0.0.1:P` with a `srcdoc` iframe and a cross-site
//! iframe on `http://localhost:P` (an OOPIF) that nests one back on `127.0.0.1` (an OOPIF
//! inside an OOPIF); a page whose CSP forbids `connect-src`; a page that forges bridge
//! requests.
//!
//! The cross-site iframes use scheme-relative URLs (`//host:P/cross`), so the same pages
//! work behind the https relay of `tls_relay.rs`: there the `Host` is the relay's port
//! and every frame loads over https through it.
//!
//! Every frame defines `ask(kind, message, default)`, which calls `alert`, `confirm` or
//! `prompt` from a timer (so the evaluation that calls it returns at once) and appends
//! `{kind, type, value}` of the return value to `window.__results` (`undefined` becomes
//! type `"undefined"`, value `null`).

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response, Server};

/// The script every frame runs.
pub const FRAME_SCRIPT: &str = r#"
window.__results = [];
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__violations.push(e.violatedDirective);
});
window.ask = function (kind, msg, def) {
  setTimeout(function () {
    var r;
    if (kind === 'alert') r = alert(msg);
    else if (kind === 'confirm') r = confirm(msg);
    else r = def === undefined ? prompt(msg) : prompt(msg, def);
    window.__results.push({kind: kind, type: typeof r, value: r === undefined ? null : r});
  }, 0);
  return 'scheduled';
};
"#;

/// A page without the bridge's token: a `fetch` and a synchronous XHR to the bridge
/// host, their statuses (or errors) in `window.__forged`.
pub const FORGE_SCRIPT: &str = r#"
window.__forged = {};
window.forge = function () {
  var url = 'http://bridge.invalid/?k=confirm&m=pay';
  try {
    var x = new XMLHttpRequest();
    x.open('GET', url + '&via=xhr', false);
    x.send();
    window.__forged.xhr = x.status;
  } catch (e) { window.__forged.xhr = 'error: ' + e.name; }
  fetch(url + '&via=fetch').then(
    function (r) { window.__forged.fetch = r.status; },
    function (e) { window.__forged.fetch = 'error: ' + e.name; });
  return 'forged';
};
"#;

fn page(title: &str, head: &str, body: &str, script: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8>{head}<title>{title}</title></head>\
         <body><script>{FRAME_SCRIPT}{script}</script><h1>{title}</h1>{body}</body></html>"
    )
}

fn handle(req: &Request) -> Response {
    let other = other_host(&req.host);
    match req.path.split('?').next().unwrap_or("/") {
        "/" => {
            let srcdoc = page("srcdoc", "", "", "")
                .replace('&', "&amp;")
                .replace('"', "&quot;");
            Response::html(page(
                "bridge top",
                "",
                &format!(
                    "<iframe id=same srcdoc=\"{srcdoc}\"></iframe>\
                     <iframe id=cross src=\"//{other}/cross\"></iframe>"
                ),
                "",
            ))
        }
        "/cross" => Response::html(page(
            "bridge cross",
            "",
            &format!("<iframe id=nested src=\"//{other}/nested\"></iframe>"),
            "",
        )),
        "/nested" => Response::html(page("bridge nested", "", "", "")),
        // Inline script allowed, every connection forbidden: the bridge's XHR cannot go.
        "/csp" => Response::html(page(
            "bridge csp",
            "<meta http-equiv=Content-Security-Policy content=\"default-src 'self'; script-src 'unsafe-inline'; connect-src 'none'\">",
            "",
            "",
        )),
        // A sandboxed srcdoc iframe without `allow-modals`: natively its dialogs are
        // ignored (they return at once). The top page asks it with `postMessage` and keeps
        // its answers in `window.__sandboxed`.
        "/sandbox" => {
            let inner = "<script>addEventListener('message', function (e) {\
                 var r = confirm(e.data); parent.postMessage({answer: r}, '*'); });</script>"
                .replace('&', "&amp;")
                .replace('"', "&quot;");
            Response::html(page(
                "bridge sandbox",
                "",
                &format!("<iframe id=boxed sandbox=allow-scripts srcdoc=\"{inner}\"></iframe>"),
                "window.__sandboxed = []; addEventListener('message', function (e) { \
                 window.__sandboxed.push(e.data.answer); });",
            ))
        }
        "/forge" => Response::html(page("bridge forge", "", "", FORGE_SCRIPT)),
        _ => Response::not_found(),
    }
}

/// The bridge test site; stops when dropped.
pub struct BridgeSite {
    server: Server,
}

impl BridgeSite {
    pub fn start() -> BridgeSite {
        BridgeSite {
            server: Server::start(handle).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }

    /// The plain-HTTP port (what the https relay forwards to).
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// `http://localhost:P{path}`, the other site.
    pub fn cross_url(&self, path: &str) -> String {
        self.server.url("localhost", path)
    }
}
