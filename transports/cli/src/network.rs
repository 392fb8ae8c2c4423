//! Network requests on both faces: the sidecar's `network` command and the MCP tools
//! `browser_network_requests` / `browser_network_request` (Playwright MCP's names and
//! arguments). The requests are the core's ring of each tab's last 200
//! ([`cdp_supervisor::network`]), URLs and credential headers already redacted there;
//! this module keeps each reader's place ("since the last call") and writes the answers.

use std::collections::HashMap;
use std::sync::Arc;

use cdp_supervisor::network::{
    BodyPart, NetworkBody, NetworkRequest, NetworkRequestDetail, RequestState,
};
use cdp_supervisor_blocking::{Client, ClientError};
use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::mcp::CallError;

/// Tabs a reader keeps its place in; past it the place of the tab read longest ago goes
/// (that tab's next listing starts again from what it keeps).
const MAX_TABS: usize = 256;

/// Where one reader (a sidecar connection, an MCP session) stands in each tab's requests.
///
/// ```
/// use cdp_supervise::network::Cursors;
/// let mut c = Cursors::default();
/// assert_eq!(c.after("T"), 0);
/// c.saw("T", 7);
/// assert_eq!(c.after("T"), 7);
/// ```
#[derive(Debug, Default)]
pub struct Cursors {
    /// Tab id → (the last index listed, when it was listed, as a count of listings).
    by_tab: HashMap<String, (u64, u64)>,
    listings: u64,
}

impl Cursors {
    /// The last index listed in `tab` (0: none yet).
    pub fn after(&self, tab: &str) -> u64 {
        self.by_tab.get(tab).map_or(0, |c| c.0)
    }

    /// Records that `tab` was listed up to `index`.
    pub fn saw(&mut self, tab: &str, index: u64) {
        self.listings += 1;
        if !self.by_tab.contains_key(tab) && self.by_tab.len() >= MAX_TABS {
            let oldest = self
                .by_tab
                .iter()
                .min_by_key(|(_, c)| c.1)
                .map(|(t, _)| t.clone());
            if let Some(t) = oldest {
                self.by_tab.remove(&t);
            }
        }
        let entry = self.by_tab.entry(tab.to_owned()).or_insert((0, 0));
        *entry = (entry.0.max(index), self.listings);
    }
}

/// The parts of one request `browser_network_request` shows (`part`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Everything.
    All,
    /// The request's headers.
    RequestHeaders,
    /// The request's body.
    RequestBody,
    /// The response's headers.
    ResponseHeaders,
    /// The response's body.
    ResponseBody,
}

impl Part {
    fn shows(self, other: Part) -> bool {
        self == Part::All || self == other
    }
}

/// A parsed network tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkCall {
    /// `browser_network_requests {static?, filter?}`.
    List {
        /// Also successful static resources (images, fonts, scripts, stylesheets).
        include_static: bool,
        /// Only URLs containing this text (case-insensitive).
        filter: Option<String>,
    },
    /// `browser_network_request {index, part?}`.
    One {
        /// The index, as listed.
        index: u64,
        /// What to show.
        part: Part,
    },
}

/// Reads the arguments of `browser_network_requests` or `browser_network_request`.
///
/// ```
/// use cdp_supervise::network::{parse, NetworkCall, Part};
/// let args = serde_json::json!({"index": 3, "part": "response-body"});
/// let call = parse("browser_network_request", args.as_object().unwrap_or(&Default::default()));
/// assert_eq!(call, Ok(NetworkCall::One { index: 3, part: Part::ResponseBody }));
/// ```
pub fn parse(tool: &str, args: &Map<String, Value>) -> Result<NetworkCall, CallError> {
    let bad = |m: &str| CallError::BadArgument(m.to_owned());
    if tool == "browser_network_requests" {
        let include_static = match args.get("static").or_else(|| args.get("includeStatic")) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("`static` must be true or false")),
        };
        let filter = match args.get("filter") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.len() <= 1_000 => Some(s.clone()).filter(|s| !s.is_empty()),
            Some(_) => {
                return Err(bad(
                    "`filter` must be a string (part of the URL) of at most 1000 bytes",
                ))
            }
        };
        return Ok(NetworkCall::List {
            include_static,
            filter,
        });
    }
    let index = match args.get("index") {
        Some(v) => v.as_u64().filter(|n| *n >= 1),
        None => None,
    }
    .ok_or_else(|| bad("`index` is required: the request's number (1-based) as browser_network_requests lists it"))?;
    let part = match args.get("part") {
        None | Some(Value::Null) => Part::All,
        Some(Value::String(s)) => match s.as_str() {
            "request-headers" => Part::RequestHeaders,
            "request-body" => Part::RequestBody,
            "response-headers" => Part::ResponseHeaders,
            "response-body" => Part::ResponseBody,
            _ => return Err(bad(
                "`part` must be request-headers, request-body, response-headers or response-body",
            )),
        },
        Some(_) => return Err(bad("`part` must be a string")),
    };
    Ok(NetworkCall::One { index, part })
}

/// `browser_network_requests`'s parts.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "kebab-case")]
#[allow(dead_code)] // A schema only: its values are read by `parse`.
enum PartName {
    RequestHeaders,
    RequestBody,
    ResponseHeaders,
    ResponseBody,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Requests {
    /// Whether to include successful static resources (images, fonts, scripts, stylesheets, media). Defaults to false.
    #[serde(rename = "static")]
    include_static: Option<bool>,
    /// Only requests whose URL contains this text (case-insensitive).
    filter: Option<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Request {
    /// The request's number (1-based) as browser_network_requests lists it.
    index: u64,
    /// Only this part; omitted: all of them.
    part: Option<PartName>,
}

fn tool(name: &'static str, description: &'static str, schema: Arc<JsonObject>) -> Tool {
    Tool::new(name, description, schema)
}

/// The two network tools, for `tools/list`.
///
/// ```
/// let tools = cdp_supervise::network::tools();
/// assert_eq!(tools[0].name, "browser_network_requests");
/// ```
pub fn tools() -> Vec<Tool> {
    vec![
        tool("browser_network_requests", "The current tab's network requests since the last call (its last 200 are kept), every frame's, cross-origin iframes included: method, URL, status or failure, type and frame, numbered for browser_network_request. Query values in URLs are redacted.", schema_for_type::<Requests>()),
        tool("browser_network_request", "One network request by its number: its frame, timing and size, request and response headers (credentials redacted), and its bodies (the first 64 KiB).", schema_for_type::<Request>()),
    ]
}

/// The tab a call names, resolved (`None`: the current tab), for the reader's place.
fn tab_of(client: &Client, tab: Option<&str>) -> Result<String, ClientError> {
    if let Some(t) = tab {
        return Ok(t.to_owned());
    }
    let tabs = client.tabs()?;
    tabs.into_iter()
        .find(|t| t.current)
        .map(|t| t.tab_id)
        .ok_or(ClientError::Command(
            cdp_supervisor::CommandError::NotAttached,
        ))
}

/// Lists `tab`'s requests since the reader's last listing (or after `after` when given),
/// and moves its place: (the tab, the requests).
pub fn list_since(
    client: &Client,
    cursors: &mut Cursors,
    tab: Option<&str>,
    after: Option<u64>,
) -> Result<(String, Vec<NetworkRequest>), ClientError> {
    let tab = tab_of(client, tab)?;
    let after = after.unwrap_or_else(|| cursors.after(&tab));
    let requests = client.network_requests_in(Some(&tab), after)?;
    if let Some(last) = requests.last() {
        cursors.saw(&tab, last.index);
    }
    Ok((tab, requests))
}

/// One request with its headers and the bodies asked for; a body that cannot be read is
/// `Err` with why (Chromium no longer holds it, the request failed, ...).
pub struct Detail {
    /// The request and its headers.
    pub detail: NetworkRequestDetail,
    /// The response's body, when asked.
    pub response_body: Option<Result<Option<NetworkBody>, String>>,
    /// The request's body, when asked and it has one.
    pub request_body: Option<Result<Option<NetworkBody>, String>>,
}

/// Reads request `index` of `tab` and, as `part` says, its bodies.
pub fn detail(
    client: &Client,
    tab: Option<&str>,
    index: u64,
    part: Part,
) -> Result<Detail, ClientError> {
    let detail = client.network_request_in(tab, index)?;
    let read = |p: BodyPart| {
        client
            .network_body_in(tab, index, p)
            .map_err(|e| e.to_string())
    };
    let r = &detail.request;
    let response_body =
        (part.shows(Part::ResponseBody) && has_response_body(r)).then(|| read(BodyPart::Response));
    let request_body =
        (part.shows(Part::RequestBody) && r.has_post_data).then(|| read(BodyPart::Request));
    Ok(Detail {
        detail,
        response_body,
        request_body,
    })
}

/// Whether a response came that may have a body (a redirect's and a failure's have none;
/// a body still arriving may be readable already).
fn has_response_body(r: &NetworkRequest) -> bool {
    r.status.is_some() && matches!(r.state, RequestState::Finished | RequestState::Pending)
}

/// A body as JSON for the sidecar: `{text, base64_encoded, truncated, length}`, `null`
/// for none, `{"error": ...}` when it could not be read.
fn body_json(body: &Option<Result<Option<NetworkBody>, String>>) -> Value {
    match body {
        None | Some(Ok(None)) => Value::Null,
        Some(Ok(Some(b))) => serde_json::to_value(b).unwrap_or(Value::Null),
        Some(Err(e)) => json!({ "error": e }),
    }
}

/// The sidecar's `network` result: `{"tab_id", "requests": [...]}` since the last call, or
/// with `index` `{"tab_id", "request": {..., "request_headers", "response_headers",
/// "response_body", "request_body"}}`.
pub fn sidecar_result(
    client: &Client,
    cursors: &mut Cursors,
    tab: Option<&str>,
    index: Option<u64>,
    after: Option<u64>,
) -> Result<Map<String, Value>, ClientError> {
    let mut obj = Map::new();
    match index {
        None => {
            let (tab, requests) = list_since(client, cursors, tab, after)?;
            obj.insert("tab_id".into(), json!(tab));
            obj.insert(
                "requests".into(),
                serde_json::to_value(requests).unwrap_or(Value::Null),
            );
        }
        Some(index) => {
            let d = detail(client, tab, index, Part::All)?;
            let mut request = serde_json::to_value(&d.detail).unwrap_or(Value::Null);
            request["response_body"] = body_json(&d.response_body);
            request["request_body"] = body_json(&d.request_body);
            obj.insert("request".into(), request);
        }
    }
    Ok(obj)
}

/// One request as a line of the MCP listing.
///
/// ```
/// use cdp_supervisor::network::NetworkRequest;
/// let line = cdp_supervise::network::line(&NetworkRequest::example(), "F");
/// assert_eq!(line, "[1] GET http://127.0.0.1:8000/ => [200] OK (Document, top frame F, 512 B, 100 ms)");
/// ```
pub fn line(r: &NetworkRequest, top_frame: &str) -> String {
    let outcome = match (&r.failure, r.status, r.state) {
        (Some(f), _, _) => format!("failed: {f}"),
        (None, Some(s), _) => format!("[{s}] {}", r.status_text).trim_end().to_owned(),
        (None, None, _) => "pending".to_owned(),
    };
    let mut about = Vec::new();
    if !r.resource_type.is_empty() {
        about.push(r.resource_type.clone());
    }
    match r.frame_id.as_deref() {
        Some(f) if f == top_frame => about.push(format!("top frame {f}")),
        Some(f) => about.push(format!("frame {f}")),
        None => {}
    }
    if r.from_cache {
        about.push("from cache".into());
    }
    if let Some(n) = r.encoded_data_length {
        about.push(format!("{n} B"));
    }
    if let Some(end) = r.finished_at {
        about.push(format!(
            "{:.0} ms",
            ((end - r.started_at) * 1000.0).max(0.0)
        ));
    }
    if let Some(to) = r.redirected_to {
        about.push(format!("redirected to [{to}]"));
    }
    format!(
        "[{}] {} {} => {outcome} ({})",
        r.index,
        r.method,
        r.url,
        about.join(", ")
    )
}

/// `browser_network_requests`: the listing since the last call, as text.
pub fn list_text(
    client: &Client,
    cursors: &mut Cursors,
    tab: Option<&str>,
    include_static: bool,
    filter: Option<&str>,
) -> Result<String, ClientError> {
    let (tab, requests) = list_since(client, cursors, tab, None)?;
    let needle = filter.map(str::to_lowercase);
    let mut left_out = 0;
    let mut text = String::new();
    for r in &requests {
        let wanted = include_static || !r.is_static_success();
        let matches = needle
            .as_deref()
            .is_none_or(|n| r.url.to_lowercase().contains(n));
        if wanted && matches {
            text.push_str(&line(r, &tab));
            text.push('\n');
        } else if !wanted && matches {
            left_out += 1;
        }
    }
    let mut head = if text.is_empty() {
        "No network requests since the last call".to_owned()
    } else {
        "Network requests since the last call".to_owned()
    };
    if left_out > 0 {
        head.push_str(&format!(
            " ({left_out} successful static resources left out: pass static: true)"
        ));
    }
    Ok(if text.is_empty() {
        format!("{head}.")
    } else {
        format!("{head}:\n{}", text.trim_end())
    })
}

/// `browser_network_request`: one request, as text.
pub fn request_text(
    client: &Client,
    tab: Option<&str>,
    index: u64,
    part: Part,
) -> Result<String, ClientError> {
    let tab_id = tab_of(client, tab)?;
    let d = detail(client, Some(&tab_id), index, part)?;
    let r = &d.detail.request;
    let mut text = line(r, &tab_id);
    if part == Part::All {
        text.push_str(&format!(
            "\nFrame: {} (session {})",
            r.frame_id.as_deref().unwrap_or("unknown"),
            r.session_id
        ));
        if let Some(kind) = &r.initiator_type {
            text.push_str(&format!(
                "\nInitiator: {kind}{}",
                r.initiator_url
                    .as_deref()
                    .map(|u| format!(" {u}"))
                    .unwrap_or_default()
            ));
        }
        if let Some(from) = r.redirected_from {
            text.push_str(&format!("\nRedirected from [{from}]"));
        }
        if !r.mime_type.is_empty() {
            text.push_str(&format!("\nMIME type: {}", r.mime_type));
        }
    }
    let headers = |title: &str, list: &[cdp_supervisor::network::Header]| {
        let mut s = format!("\n{title}:");
        if list.is_empty() {
            s.push_str(" none");
        }
        for h in list {
            s.push_str(&format!("\n  {}: {}", h.name, h.value));
        }
        s
    };
    if part.shows(Part::RequestHeaders) {
        text.push_str(&headers("Request headers", &d.detail.request_headers));
    }
    if part.shows(Part::RequestBody) {
        text.push_str(&body_text("Request body", &d.request_body, r.has_post_data));
    }
    if part.shows(Part::ResponseHeaders) {
        text.push_str(&headers("Response headers", &d.detail.response_headers));
    }
    if d.detail.headers_truncated && part != Part::RequestBody && part != Part::ResponseBody {
        text.push_str("\n(some headers left out: over 4 KiB)");
    }
    if part.shows(Part::ResponseBody) {
        text.push_str(&body_text(
            "Response body",
            &d.response_body,
            has_response_body(r),
        ));
    }
    Ok(text)
}

fn body_text(
    title: &str,
    body: &Option<Result<Option<NetworkBody>, String>>,
    expected: bool,
) -> String {
    match body {
        None if !expected => format!("\n{title}: none"),
        None | Some(Ok(None)) => format!("\n{title}: not available"),
        Some(Err(e)) => format!("\n{title}: not available ({e})"),
        Some(Ok(Some(b))) => {
            let how = match (b.base64_encoded, b.truncated) {
                (true, true) => format!(
                    " (base64, the first {} of {} bytes)",
                    b.text.len(),
                    b.length
                ),
                (true, false) => " (base64)".to_owned(),
                (false, true) => format!(" (the first {} of {} bytes)", b.text.len(), b.length),
                (false, false) => String::new(),
            };
            format!("\n{title}{how}:\n{}", b.text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_with_aliases_and_bad_ones_are_named() {
        let m = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            parse(
                "browser_network_requests",
                &m(json!({"includeStatic": true, "filter": "api"}))
            ),
            Ok(NetworkCall::List {
                include_static: true,
                filter: Some("api".into())
            })
        );
        assert_eq!(
            parse("browser_network_requests", &m(json!({}))),
            Ok(NetworkCall::List {
                include_static: false,
                filter: None
            })
        );
        for bad in [
            json!({}),
            json!({"index": 0}),
            json!({"index": "1"}),
            json!({"index": 1, "part": "all"}),
        ] {
            assert!(matches!(
                parse("browser_network_request", &m(bad)),
                Err(CallError::BadArgument(_))
            ));
        }
        assert!(parse("browser_network_requests", &m(json!({"static": "yes"}))).is_err());
    }

    #[test]
    fn the_cursor_is_bounded() {
        let mut c = Cursors::default();
        for t in 0..(MAX_TABS + 10) {
            c.saw(&t.to_string(), 1);
        }
        assert_eq!(c.by_tab.len(), MAX_TABS);
        assert_eq!(c.after("0"), 0, "the tab read longest ago went");
        c.saw("x", 5);
        c.saw("x", 3);
        assert_eq!(c.after("x"), 5, "never back");
    }

    #[test]
    fn lines_say_failures_frames_and_redirects() {
        let mut r = NetworkRequest::example();
        r.failure = Some("net::ERR_FAILED".into());
        r.frame_id = Some("CHILD".into());
        r.finished_at = None;
        r.encoded_data_length = None;
        assert_eq!(
            line(&r, "TOP"),
            "[1] GET http://127.0.0.1:8000/ => failed: net::ERR_FAILED (Document, frame CHILD)"
        );
        r.failure = None;
        r.status = Some(302);
        r.status_text = String::new();
        r.redirected_to = Some(2);
        assert!(line(&r, "TOP").contains("=> [302] (Document, frame CHILD, redirected to [2])"));
    }
}
