//! The dialog bridge (see [rules](crate::manual::rules), the dialog bridge): for remote browsers whose CDP proxy closes native dialogs
//! before anyone can answer them.
//!
//! A script replaces `alert`, `confirm` and `prompt` with a synchronous XHR to a reserved
//! host on the page's own scheme; `Fetch` pauses that request on the frame's session
//! (see [chromium_facts](crate::manual::chromium_facts), Fetch interception is per session), the supervisor turns it into a pending dialog, and the answer is the
//! request's response, which the script turns into the return value.
//!
//! This module is the pure part: the script, the `Fetch.enable` patterns, recognizing a
//! bridge request (exact host, secret token) and encoding the answer.

use std::borrow::Cow;

use base64::Engine as _;
use percent_encoding::percent_decode_str;
use serde::Serialize;

use crate::wire::to_raw;

/// The reserved host the script calls. `.invalid` never resolves (RFC 2606), so a request
/// that escapes interception fails instead of reaching the network.
pub const BRIDGE_HOST: &str = "bridge.invalid";

#[doc(hidden)] // internal: the bridge classifier, public for tests and fuzzing
/// A bridge request the supervisor recognized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BridgeRequest {
    /// Not for the bridge host: let it continue.
    NotBridge,
    /// For the bridge host without the right token: a page forging dialogs.
    Forged,
    /// A dialog to show.
    Dialog {
        /// `alert`, `confirm` or `prompt`.
        kind: String,
        /// The message.
        message: String,
        /// The prompt's default text.
        default_prompt: String,
    },
}

/// The script installed on every page and OOPIF session.
///
/// - Everything it calls (`XMLHttpRequest`'s methods and getters, `Reflect.apply`,
///   `encodeURIComponent`, `JSON.parse`, `Date.now`, the native dialogs) is captured when it
///   is installed, before the page's own scripts run, so a page that patches them later
///   can neither read the exchange nor change it.
/// - The token travels in a POST body, never in the URL: URLs show up in Resource Timing
///   (`performance.getEntries()`), bodies do not. A `text/plain` POST is a CORS "simple
///   request", so there is no preflight.
/// - A frame with an opaque origin (sandboxed without `allow-same-origin`) keeps the
///   native functions: the sandbox decides whether it may show dialogs, not the bridge.
/// - When the request cannot be sent at all (CSP `connect-src`, mixed content), the native
///   dialog is used, never a silent `false`. A request that reached the supervisor and
///   failed later (its frame is being torn down and Chromium let the paused request fall
///   through to the network) returns the dismissal instead: a native dialog raised in a
///   dying frame can crash Chromium 156. Chromium tells the two apart in Resource Timing:
///   a refused request's entry has zero duration (measured on Chromium 156).
///
/// In a document that was already loaded when the supervisor attached, the script runs
/// after the page's scripts, which may have patched those functions first.
///
/// ```
/// let s = cdp_supervisor::bridge::script("tok123");
/// assert!(s.contains("tok123") && s.contains(cdp_supervisor::bridge::BRIDGE_HOST));
/// ```
pub fn script(token: &str) -> String {
    // serde_json gives a correctly escaped JS string literal.
    let token = serde_json::to_string(token).unwrap_or_else(|_| "\"\"".into());
    let host = serde_json::to_string(BRIDGE_HOST).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"(() => {{
  if (window.__cdpSupervisorBridge) return;
  Object.defineProperty(window, '__cdpSupervisorBridge', {{ value: true }});
  const TOKEN = {token}, HOST = {host};
  const W = window, XHR = W.XMLHttpRequest, P = XHR.prototype, apply = Reflect.apply;
  const open = P.open, send = P.send;
  const getter = (name) => Object.getOwnPropertyDescriptor(P, name).get;
  const status = getter('status'), responseText = getter('responseText');
  const enc = encodeURIComponent, parse = JSON.parse, str = String;
  const clock = W.performance, now = () => apply(clock.now, clock, []);
  const timings = clock.getEntriesByName;
  const native = {{ alert: W.alert, confirm: W.confirm, prompt: W.prompt }};
  const ORIGIN = str(W.origin);
  const OPAQUE = ORIGIN === 'null';
  const ENDPOINT = (ORIGIN.slice(0, 6) === 'https:' ? 'https:' : 'http:') + '//' + HOST + '/';
  const DISMISSED = {{ accept: false, text: null }};
  const FAST_FAIL_MS = 30;
  // Whether a failed request was refused before it left (CSP, mixed content): Chromium
  // gives it a resource-timing entry of zero duration, while one that reached the
  // supervisor and failed later (its frame is being torn down, the paused request fell
  // through to the network) took time. Without an entry (the page filled or cleared the
  // buffer), a fast failure counts as refused.
  const refused = (started) => {{
    const seen = apply(timings, clock, [ENDPOINT]);
    const last = seen[seen.length - 1];
    return last && last.startTime >= started ? last.duration === 0 : now() - started < FAST_FAIL_MS;
  }};
  // The answer {{accept, text}}, or null: show the native dialog.
  const ask = (kind, message, def) => {{
    if (OPAQUE) return null;
    const started = now();
    try {{
      const x = new XHR();
      apply(open, x, ['POST', ENDPOINT, false]);
      apply(send, x, ['t=' + enc(TOKEN) + '&k=' + kind + '&m=' + enc(message) + '&d=' + enc(def)]);
      if (apply(status, x, []) !== 200) return DISMISSED;
      return parse(apply(responseText, x, []));
    }} catch (e) {{
      return refused(started) ? null : DISMISSED;
    }}
  }};
  const text = (v) => (v === undefined ? '' : str(v));
  W.alert = function (m) {{
    const r = ask('alert', text(m), '');
    return r === null ? apply(native.alert, this, arguments) : undefined;
  }};
  W.confirm = function (m) {{
    const r = ask('confirm', text(m), '');
    return r === null ? apply(native.confirm, this, arguments) : r.accept === true;
  }};
  W.prompt = function (m, d) {{
    const r = ask('prompt', text(m), text(d));
    if (r === null) return apply(native.prompt, this, arguments);
    return r.accept === true ? str(r.text === null || r.text === undefined ? '' : r.text) : null;
  }};
}})()"#
    )
}

/// The token inside a script made by [`script`] (the string literal after `TOKEN = `),
/// e.g. to replay a recorded bridge session with the token it used.
///
/// ```
/// use cdp_supervisor::bridge::{script, token_in_script};
/// assert_eq!(token_in_script(&script("a\"b")).as_deref(), Some("a\"b"));
/// assert_eq!(token_in_script("alert(1)"), None);
/// ```
pub fn token_in_script(source: &str) -> Option<String> {
    let (_, rest) = source.split_once("const TOKEN = ")?;
    serde_json::Deserializer::from_str(rest)
        .into_iter::<String>()
        .next()?
        .ok()
}

#[derive(Serialize)]
struct Pattern<'a> {
    #[serde(rename = "urlPattern")]
    url_pattern: &'a str,
    #[serde(rename = "requestStage")]
    request_stage: &'a str,
}

#[derive(Serialize)]
struct FetchEnableParams<'a> {
    patterns: [Pattern<'a>; 2],
}

/// `Fetch.enable` params that pause only requests to the bridge host, both schemes.
pub(crate) fn fetch_enable_params() -> Option<Box<serde_json::value::RawValue>> {
    let http = format!("http://{BRIDGE_HOST}/*");
    let https = format!("https://{BRIDGE_HOST}/*");
    to_raw(&FetchEnableParams {
        patterns: [
            Pattern {
                url_pattern: &http,
                request_stage: "Request",
            },
            Pattern {
                url_pattern: &https,
                request_stage: "Request",
            },
        ],
    })
}

#[doc(hidden)] // internal: the bridge classifier, public for tests and fuzzing
/// Recognizes a paused request: the host must be exactly [`BRIDGE_HOST`] (not a suffix,
/// not with a port or user), the path `/`, and the token `t` right. The fields
/// (`t`, `k`, `m`, `d`, URL-encoded) come from the POST `body` the script sends, else from
/// the URL's query (older recordings); the first occurrence of each wins.
///
/// ```
/// use cdp_supervisor::bridge::{classify, BridgeRequest, BRIDGE_HOST};
/// let url = format!("http://{BRIDGE_HOST}/");
/// let body = "t=s3cret&k=prompt&m=Name%3F&d=Bob";
/// assert_eq!(classify(&url, Some(body), "s3cret"), BridgeRequest::Dialog {
///     kind: "prompt".into(), message: "Name?".into(), default_prompt: "Bob".into() });
/// assert_eq!(classify(&url, Some(body), "other"), BridgeRequest::Forged);
/// assert_eq!(classify("http://evil.test/", Some(body), "s3cret"), BridgeRequest::NotBridge);
/// ```
pub fn classify(url: &str, body: Option<&str>, token: &str) -> BridgeRequest {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    let Some(rest) = rest else {
        return BridgeRequest::NotBridge;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    if !authority.eq_ignore_ascii_case(BRIDGE_HOST) {
        return BridgeRequest::NotBridge;
    }
    let rest = rest.split('#').next().unwrap_or("");
    let query = match rest {
        "" | "/" => "",
        other => match other.strip_prefix("/?") {
            Some(q) => q,
            None => return BridgeRequest::Forged,
        },
    };
    let (mut t, mut k, mut m, mut d) = (None, None, None, None);
    let pairs = body.unwrap_or("").split('&').chain(query.split('&'));
    for pair in pairs.filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let slot = match name {
            "t" => &mut t,
            "k" => &mut k,
            "m" => &mut m,
            "d" => &mut d,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(decode(value));
        }
    }
    // An empty configured token never matches: a bridge without a secret accepts nothing.
    if token.is_empty() || t.as_deref() != Some(token) {
        return BridgeRequest::Forged;
    }
    let kind = match k.as_deref() {
        Some(kind @ ("alert" | "confirm" | "prompt")) => kind.to_owned(),
        _ => return BridgeRequest::Forged,
    };
    BridgeRequest::Dialog {
        kind,
        message: m.map(Cow::into_owned).unwrap_or_default(),
        default_prompt: d.map(Cow::into_owned).unwrap_or_default(),
    }
}

/// The body of a paused request: `postData`, else the concatenated base64
/// `postDataEntries` (newer Chromium), decoded lossily.
pub(crate) fn request_body(
    post_data: Option<&str>,
    entries: &[Option<Cow<'_, str>>],
) -> Option<String> {
    if let Some(p) = post_data {
        return Some(p.to_owned());
    }
    if entries.is_empty() {
        return None;
    }
    let mut bytes = Vec::new();
    for e in entries.iter().flatten() {
        if let Ok(b) = base64::engine::general_purpose::STANDARD.decode(e.as_bytes()) {
            bytes.extend(b);
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn decode(value: &str) -> Cow<'_, str> {
    percent_decode_str(value).decode_utf8_lossy()
}

#[derive(Serialize)]
struct Answer<'a> {
    accept: bool,
    text: Option<&'a str>,
}

#[derive(Serialize)]
struct Header<'a> {
    name: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct FulfillParams<'a> {
    #[serde(rename = "requestId")]
    request_id: &'a str,
    #[serde(rename = "responseCode")]
    response_code: u16,
    #[serde(rename = "responseHeaders")]
    response_headers: [Header<'a>; 2],
    body: String,
}

#[doc(hidden)] // internal: public for tests
/// The body the script decodes: `{"accept":bool,"text":string|null}`.
///
/// ```
/// assert_eq!(cdp_supervisor::bridge::answer_body(true, Some("hi")), r#"{"accept":true,"text":"hi"}"#);
/// ```
pub fn answer_body(accept: bool, text: Option<&str>) -> String {
    serde_json::to_string(&Answer { accept, text }).unwrap_or_default()
}

/// `Fetch.fulfillRequest` params answering a bridge request with `status` and `body`.
pub(crate) fn fulfill_params(
    request_id: &str,
    status: u16,
    body: &str,
) -> Option<Box<serde_json::value::RawValue>> {
    to_raw(&FulfillParams {
        request_id,
        response_code: status,
        // The XHR is cross-origin (the page's origin to the bridge host): allow it.
        response_headers: [
            Header {
                name: "Access-Control-Allow-Origin",
                value: "*",
            },
            Header {
                name: "Content-Type",
                value: "application/json",
            },
        ],
        body: base64::engine::general_purpose::STANDARD.encode(body),
    })
}

#[derive(Serialize)]
struct RequestIdParams<'a> {
    #[serde(rename = "requestId")]
    request_id: &'a str,
}

/// `Fetch.continueRequest` params.
pub(crate) fn continue_params(request_id: &str) -> Option<Box<serde_json::value::RawValue>> {
    to_raw(&RequestIdParams { request_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_must_match_exactly() {
        let tok = "t0k";
        for url in [
            format!("http://{BRIDGE_HOST}.evil.test/?t=t0k&k=alert"),
            format!("http://evil.test/{BRIDGE_HOST}/?t=t0k&k=alert"),
            format!("http://x{BRIDGE_HOST}/?t=t0k&k=alert"),
            format!("http://{BRIDGE_HOST}:80/?t=t0k&k=alert"),
            format!("http://user@{BRIDGE_HOST}/?t=t0k&k=alert"),
            format!("ftp://{BRIDGE_HOST}/?t=t0k&k=alert"),
            format!("data:text/plain,{BRIDGE_HOST}"),
        ] {
            assert_eq!(classify(&url, None, tok), BridgeRequest::NotBridge, "{url}");
        }
        let ok = format!("https://{}/?t=t0k&k=alert&m=x", BRIDGE_HOST.to_uppercase());
        assert!(matches!(
            classify(&ok, None, tok),
            BridgeRequest::Dialog { .. }
        ));
    }

    #[test]
    fn token_is_required_and_exact() {
        let base = format!("http://{BRIDGE_HOST}/?k=confirm&m=x");
        assert_eq!(classify(&base, None, "abc"), BridgeRequest::Forged);
        assert_eq!(
            classify(&format!("{base}&t=ab"), None, "abc"),
            BridgeRequest::Forged
        );
        assert_eq!(
            classify(&format!("{base}&t=abcd"), None, "abc"),
            BridgeRequest::Forged
        );
        assert_eq!(
            classify(&format!("{base}&t="), None, ""),
            BridgeRequest::Forged
        );
        // The first t wins: a page cannot append its own.
        assert_eq!(
            classify(&format!("{base}&t=no&t=abc"), None, "abc"),
            BridgeRequest::Forged
        );
        assert!(matches!(
            classify(&format!("{base}&t=abc"), None, "abc"),
            BridgeRequest::Dialog { .. }
        ));
        assert_eq!(
            classify(
                &format!("http://{BRIDGE_HOST}/?t=abc&k=beforeunload"),
                None,
                "abc"
            ),
            BridgeRequest::Forged
        );
    }

    #[test]
    fn decodes_what_encode_uri_component_makes() {
        let url = format!("http://{BRIDGE_HOST}/?t=k&k=prompt&m=%C3%A9%20%26%3D%3F&d=%F0%9F%98%80");
        assert_eq!(
            classify(&url, None, "k"),
            BridgeRequest::Dialog {
                kind: "prompt".into(),
                message: "é &=?".into(),
                default_prompt: "😀".into()
            }
        );
        // Broken escapes decode lossily, never panic.
        let url = format!("http://{BRIDGE_HOST}/?t=k&k=alert&m=%E2%82&d=%zz%");
        assert!(matches!(
            classify(&url, None, "k"),
            BridgeRequest::Dialog { .. }
        ));
    }

    #[test]
    fn body_fields_come_first_and_the_url_may_be_bare() {
        let url = format!("http://{BRIDGE_HOST}/");
        let ok = classify(&url, Some("t=abc&k=confirm&m=pay"), "abc");
        assert!(matches!(ok, BridgeRequest::Dialog { ref message, .. } if message == "pay"));
        // A page cannot override the body's token through the query.
        let url_t = format!("http://{BRIDGE_HOST}/?t=abc");
        assert_eq!(
            classify(&url_t, Some("t=no&k=alert"), "abc"),
            BridgeRequest::Forged
        );
        assert_eq!(classify(&url, None, "abc"), BridgeRequest::Forged);
        assert_eq!(
            classify(
                &format!("http://{BRIDGE_HOST}/x"),
                Some("t=abc&k=alert"),
                "abc"
            ),
            BridgeRequest::Forged
        );
    }

    #[test]
    fn body_from_post_data_entries() {
        let b64 = base64::engine::general_purpose::STANDARD.encode("t=a&k=alert");
        let entries = [Some(Cow::Owned(b64))];
        assert_eq!(request_body(None, &entries).as_deref(), Some("t=a&k=alert"));
        assert_eq!(request_body(Some("x"), &entries).as_deref(), Some("x"));
        assert_eq!(request_body(None, &[]), None);
    }

    #[test]
    fn fulfill_body_is_base64_json() {
        let p = fulfill_params("r1", 200, &answer_body(false, None)).unwrap();
        let v: serde_json::Value = serde_json::from_str(p.get()).unwrap();
        let body = base64::engine::general_purpose::STANDARD
            .decode(v["body"].as_str().unwrap())
            .unwrap();
        assert_eq!(body, br#"{"accept":false,"text":null}"#);
        assert_eq!(v["responseCode"], 200);
        assert_eq!(v["requestId"], "r1");
    }

    #[test]
    fn script_escapes_the_token() {
        let s = script("a'\"</script>\\");
        assert!(s.contains(r#""a'\"</script>\\""#));
    }
}
