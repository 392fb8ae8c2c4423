//! The tab's network requests: a ring of the last [`MAX_NETWORK_REQUESTS`] per tab, fed by
//! the `Network` domain of the page session and every OOPIF session (see
//! [rules](crate::manual::rules), network requests).
//!
//! Each request gets an `index` when it is first seen: 1 for the tab's first, counting up,
//! never reused, so a reader lists "since the last call" by passing the last index it saw
//! ([`crate::Supervisor::network_requests`]) and names one request by it
//! ([`crate::Supervisor::network_request`], [`crate::Supervisor::network_body`]). A redirect
//! ends its hop (status 3xx, `redirected_to`) and starts a new entry for the next URL
//! (`redirected_from`), so a chain is read by following the indexes. URLs and headers are
//! stored redacted ([`crate::redact`]): a secret is never kept.

pub(crate) mod events;

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::redact::redact_url;
use events::{HeaderList, NetworkEvent, ResponsePayload};

/// Requests kept per tab (a ring: the oldest goes, in flight or not).
pub const MAX_NETWORK_REQUESTS: usize = 200;
/// Bytes of header names and values kept per request and direction; later headers are
/// dropped and `headers_truncated` says so.
pub const MAX_HEADER_BYTES: usize = 4_096;
/// Bytes of a URL kept (a `data:` URL can be megabytes); longer ones are cut with `…`.
pub const MAX_URL_BYTES: usize = 2_048;
/// Bytes of a body [`read_body`] hands over; longer ones are cut and flagged.
pub const MAX_BODY_BYTES: usize = 65_536;

/// Bytes Chromium keeps of a session's response bodies, in all and per resource, for
/// `Network.getResponseBody` (Chromium's defaults are far larger; a tab keeps only what
/// an agent may still ask for).
pub const BODY_BUFFER_BYTES: (u32, u32) = (8 << 20, 1 << 20);

/// The params of `Network.enable`: small body buffers ([`BODY_BUFFER_BYTES`]) and no
/// request body inside `requestWillBeSent` (it is read on demand).
pub(crate) fn enable_params() -> Option<Box<serde_json::value::RawValue>> {
    #[derive(Serialize)]
    struct Enable {
        #[serde(rename = "maxTotalBufferSize")]
        total: u32,
        #[serde(rename = "maxResourceBufferSize")]
        resource: u32,
        #[serde(rename = "maxPostDataSize")]
        post_data: u32,
    }
    serde_json::value::to_raw_value(&Enable {
        total: BODY_BUFFER_BYTES.0,
        resource: BODY_BUFFER_BYTES.1,
        post_data: 0,
    })
    .ok()
}

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestState {
    /// Sent, not finished.
    Pending,
    /// Its body arrived (`loadingFinished`).
    Finished,
    /// It failed (`loadingFailed`): see `failure`.
    Failed,
    /// Answered with a redirect: the next hop is `redirected_to`.
    Redirected,
}

/// One request of the tab, as listed.
///
/// ```
/// use cdp_supervisor::network::{NetworkRequest, RequestState};
/// let r = NetworkRequest::example();
/// assert_eq!((r.index, r.state, r.status), (1, RequestState::Finished, Some(200)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkRequest {
    /// 1 for the tab's first request, counting up; never reused.
    pub index: u64,
    /// `GET`, `POST`, ...
    pub method: String,
    /// The URL, redacted (query values, userinfo and fragment).
    pub url: String,
    /// Chromium's resource type: `Document`, `Stylesheet`, `Image`, `Script`, `XHR`,
    /// `Fetch`, `Other`, ... (empty when Chromium named none).
    pub resource_type: String,
    /// The HTTP status, once a response came.
    pub status: Option<u16>,
    /// The status line's text (`Not Found`); may be empty over HTTP/2.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub status_text: String,
    /// The response's MIME type.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mime_type: String,
    /// The frame that made it (documents, subresources, XHR), if Chromium named one.
    pub frame_id: Option<String>,
    /// The session it was seen on (an OOPIF's own session for its subresources).
    pub session_id: String,
    /// What started it: `parser`, `script`, `preload`, `redirect`, `other`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiator_type: Option<String>,
    /// The initiator's URL (redacted), or its script's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiator_url: Option<String>,
    /// When it was seen, in seconds on the embedder's clock.
    pub started_at: f64,
    /// When it finished, failed or redirected.
    pub finished_at: Option<f64>,
    /// Bytes received over the network (headers and body, encoded), once finished.
    pub encoded_data_length: Option<u64>,
    /// Chromium's error text for a failed request (`net::ERR_NAME_NOT_RESOLVED`,
    /// `net::ERR_ABORTED`, ...), with a blocked reason when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Served from the memory, disk or prefetch cache, or by a service worker.
    pub from_cache: bool,
    /// It has a request body (`browser_network_request` / `network` with `index` reads it).
    pub has_post_data: bool,
    /// The hop before it, when it is the target of a redirect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirected_from: Option<u64>,
    /// The hop after it, when it answered with a redirect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirected_to: Option<u64>,
    /// Where it stands.
    pub state: RequestState,
}

impl NetworkRequest {
    /// A finished `GET` of a page, for examples.
    pub fn example() -> NetworkRequest {
        NetworkRequest {
            index: 1,
            method: "GET".into(),
            url: "http://127.0.0.1:8000/".into(),
            resource_type: "Document".into(),
            status: Some(200),
            status_text: "OK".into(),
            mime_type: "text/html".into(),
            frame_id: Some("F".into()),
            session_id: "S".into(),
            initiator_type: Some("other".into()),
            initiator_url: None,
            started_at: 1.0,
            finished_at: Some(1.1),
            encoded_data_length: Some(512),
            failure: None,
            from_cache: false,
            has_post_data: false,
            redirected_from: None,
            redirected_to: None,
            state: RequestState::Finished,
        }
    }

    /// A successful static resource (image, font, stylesheet, script, media, manifest):
    /// what a listing leaves out unless asked (as Playwright MCP's `static` does).
    ///
    /// ```
    /// use cdp_supervisor::network::NetworkRequest;
    /// let mut r = NetworkRequest::example();
    /// assert!(!r.is_static_success());
    /// r.resource_type = "Image".into();
    /// assert!(r.is_static_success());
    /// r.status = Some(404);
    /// assert!(!r.is_static_success());
    /// ```
    pub fn is_static_success(&self) -> bool {
        const STATIC: &[&str] = &[
            "Image",
            "Font",
            "Stylesheet",
            "Script",
            "Media",
            "Manifest",
            "TextTrack",
        ];
        STATIC.contains(&self.resource_type.as_str())
            && self.failure.is_none()
            && self.status.is_none_or(|s| s < 400)
    }
}

/// A header, its credential values redacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// As Chromium spelled it.
    pub name: String,
    /// The value, or `<redacted>` for a credential.
    pub value: String,
}

/// One request with its headers ([`crate::Supervisor::network_request`]).
///
/// ```
/// use cdp_supervisor::network::{NetworkRequest, NetworkRequestDetail};
/// let d = NetworkRequestDetail { request: NetworkRequest::example(), request_headers: vec![],
///     response_headers: vec![], headers_truncated: false };
/// assert!(serde_json::to_string(&d)?.contains(r#""index":1"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkRequestDetail {
    /// The request as listed.
    #[serde(flatten)]
    pub request: NetworkRequest,
    /// The request's headers (as the page sent them; credentials redacted).
    pub request_headers: Vec<Header>,
    /// The response's headers, once a response came.
    pub response_headers: Vec<Header>,
    /// Some headers were left out over [`MAX_HEADER_BYTES`].
    pub headers_truncated: bool,
}

/// Which body to read ([`crate::Supervisor::network_body`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPart {
    /// The response's (`Network.getResponseBody`).
    Response,
    /// The request's (`Network.getRequestPostData`).
    Request,
}

impl BodyPart {
    /// The CDP method that reads it.
    pub fn method(self) -> &'static str {
        match self {
            BodyPart::Response => "Network.getResponseBody",
            BodyPart::Request => "Network.getRequestPostData",
        }
    }
}

/// A body as handed over: at most [`MAX_BODY_BYTES`] of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkBody {
    /// The text, or base64 when `base64_encoded` (a binary body).
    pub text: String,
    /// `text` is base64.
    pub base64_encoded: bool,
    /// The body was longer and `text` is its start.
    pub truncated: bool,
    /// The whole body's length in bytes of `text`'s encoding, before any cut.
    pub length: usize,
}

/// Reads the reply of [`crate::Supervisor::network_body`]'s command (the JSON text its
/// `CommandFinished` carries): the body, cut at [`MAX_BODY_BYTES`] on a character
/// boundary. `None` when the reply holds no body.
///
/// ```
/// use cdp_supervisor::network::read_body;
/// let b = read_body(r#"{"body":"hello","base64Encoded":false}"#);
/// assert_eq!(b.map(|b| (b.text, b.truncated, b.length)), Some(("hello".into(), false, 5)));
/// assert_eq!(read_body(r#"{"postData":"a=1"}"#).map(|b| b.text), Some("a=1".into()));
/// assert!(read_body("not json").is_none());
/// ```
pub fn read_body(result_json: &str) -> Option<NetworkBody> {
    #[derive(Deserialize)]
    struct Reply {
        #[serde(default)]
        body: Option<String>,
        #[serde(default, rename = "postData")]
        post_data: Option<String>,
        #[serde(default, rename = "base64Encoded")]
        base64_encoded: bool,
    }
    let reply: Reply = serde_json::from_str(result_json).ok()?;
    let mut text = reply.body.or(reply.post_data)?;
    let length = text.len();
    let truncated = cut(&mut text, MAX_BODY_BYTES);
    Some(NetworkBody {
        text,
        base64_encoded: reply.base64_encoded,
        truncated,
        length,
    })
}

/// Cuts `text` to at most `max` bytes on a character boundary; whether it cut.
fn cut(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.truncate(at);
    true
}

/// One entry of the ring.
#[derive(Debug)]
struct Entry {
    request: NetworkRequest,
    /// Chromium's request id, unique within its session.
    request_id: String,
    request_headers: HeaderList,
    response_headers: HeaderList,
    /// The session whose `loadingFinished` came last: it holds the body (an OOPIF's
    /// document is requested on its parent's session and finishes on its own).
    body_session: String,
}

/// The ring of a tab's requests and the index of those in flight.
///
/// Bounds: [`MAX_NETWORK_REQUESTS`] entries (the oldest goes); `in_flight` only names
/// entries still in the ring (an evicted one leaves it), so it is bounded by the ring.
#[derive(Debug, Default)]
pub(crate) struct NetworkLog {
    entries: VecDeque<Entry>,
    /// (session, request id) → index, for requests not yet finished or failed.
    in_flight: HashMap<(String, String), u64>,
    last_index: u64,
}

impl NetworkLog {
    /// A `Network.*` event of `session` at `now`. Unknown request ids (a request evicted,
    /// or seen before the log started) are ignored.
    pub fn on_event(&mut self, now: f64, session: &str, event: &mut NetworkEvent<'_>) {
        match event {
            NetworkEvent::RequestWillBeSent(ev) => {
                let key = (session.to_owned(), ev.request_id.to_string());
                let mut from = None;
                let next = self.last_index + 1;
                if let Some(redirect) = ev.redirect_response.as_deref() {
                    // The same id goes on with the next hop: close this one first.
                    if let Some(index) = self.in_flight.remove(&key) {
                        if let Some(e) = self.get_mut(index) {
                            apply_response(e, redirect);
                            e.request.state = RequestState::Redirected;
                            e.request.finished_at = Some(now);
                            e.request.redirected_to = Some(next);
                            e.request.encoded_data_length =
                                Some(bytes(redirect.encoded_data_length));
                            from = Some(index);
                        }
                    }
                }
                let initiator = ev.initiator.as_ref();
                let request = NetworkRequest {
                    index: self.last_index + 1,
                    method: ev.request.method.to_string(),
                    url: shown_url(&ev.request.url),
                    resource_type: ev.kind.as_deref().unwrap_or("").to_owned(),
                    status: None,
                    status_text: String::new(),
                    mime_type: String::new(),
                    frame_id: ev.frame_id.as_deref().map(str::to_owned),
                    session_id: session.to_owned(),
                    initiator_type: initiator.map(|i| i.kind.to_string()),
                    initiator_url: initiator.and_then(|i| i.url()).map(shown_url),
                    started_at: now,
                    finished_at: None,
                    encoded_data_length: None,
                    failure: None,
                    from_cache: false,
                    has_post_data: ev.request.has_post_data,
                    redirected_from: from,
                    redirected_to: None,
                    state: RequestState::Pending,
                };
                let entry = Entry {
                    request,
                    request_id: key.1.clone(),
                    request_headers: std::mem::take(&mut ev.request.headers),
                    response_headers: HeaderList::default(),
                    body_session: session.to_owned(),
                };
                self.push(entry);
                self.in_flight.insert(key, self.last_index);
            }
            NetworkEvent::ResponseReceived(ev) => {
                if let Some(e) = self.in_flight_entry(session, &ev.request_id) {
                    apply_response(e, &ev.response);
                    if let Some(kind) = ev.kind.as_deref() {
                        kind.clone_into(&mut e.request.resource_type);
                    }
                    e.response_headers = std::mem::take(&mut ev.response.headers);
                }
            }
            NetworkEvent::LoadingFinished(ev) => {
                if let Some(index) = self.finish(session, &ev.request_id) {
                    if let Some(e) = self.get_mut(index) {
                        session.clone_into(&mut e.body_session);
                        e.request.state = RequestState::Finished;
                        e.request.finished_at = Some(now);
                        e.request.encoded_data_length = Some(bytes(ev.encoded_data_length));
                    }
                }
            }
            NetworkEvent::LoadingFailed(ev) => {
                if let Some(index) = self.finish(session, &ev.request_id) {
                    if let Some(e) = self.get_mut(index) {
                        e.request.state = RequestState::Failed;
                        e.request.finished_at = Some(now);
                        let mut text = ev.error_text.to_string();
                        if let Some(reason) = ev.blocked_reason.as_deref() {
                            text.push_str(&format!(" (blocked: {reason})"));
                        }
                        if ev.canceled && !text.contains("ABORTED") {
                            text.push_str(" (canceled)");
                        }
                        e.request.failure = Some(text);
                        if let (true, Some(kind)) =
                            (e.request.resource_type.is_empty(), ev.kind.as_deref())
                        {
                            kind.clone_into(&mut e.request.resource_type);
                        }
                    }
                }
            }
            NetworkEvent::ServedFromCache(ev) => {
                if let Some(e) = self.in_flight_entry(session, &ev.request_id) {
                    e.request.from_cache = true;
                }
            }
        }
    }

    /// The requests after index `after`, oldest first.
    pub fn since(&self, after: u64) -> Vec<NetworkRequest> {
        let skip = self
            .entries
            .front()
            .map_or(0, |first| after.saturating_sub(first.request.index - 1));
        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
        self.entries
            .iter()
            .skip(skip)
            .map(|e| e.request.clone())
            .collect()
    }

    /// One request with its headers, if still in the ring.
    pub fn detail(&self, index: u64) -> Option<NetworkRequestDetail> {
        let e = self.get(index)?;
        Some(NetworkRequestDetail {
            request: e.request.clone(),
            request_headers: e.request_headers.headers.clone(),
            response_headers: e.response_headers.headers.clone(),
            headers_truncated: e.request_headers.truncated || e.response_headers.truncated,
        })
    }

    /// The session and Chromium request id a body is read with.
    pub fn body_source(&self, index: u64) -> Option<(&str, &str)> {
        let e = self.get(index)?;
        Some((e.body_session.as_str(), e.request_id.as_str()))
    }

    /// The requests kept, and those in flight.
    #[cfg(test)]
    pub fn len(&self) -> (usize, usize) {
        (self.entries.len(), self.in_flight.len())
    }

    /// Adds an entry, evicting the oldest over the bound.
    fn push(&mut self, mut entry: Entry) {
        self.last_index += 1;
        entry.request.index = self.last_index;
        if self.entries.len() >= MAX_NETWORK_REQUESTS {
            if let Some(old) = self.entries.pop_front() {
                let key = (old.request.session_id, old.request_id);
                if self.in_flight.get(&key) == Some(&old.request.index) {
                    self.in_flight.remove(&key);
                }
            }
        }
        self.entries.push_back(entry);
    }

    fn position(&self, index: u64) -> Option<usize> {
        let first = self.entries.front()?.request.index;
        usize::try_from(index.checked_sub(first)?).ok()
    }

    fn get(&self, index: u64) -> Option<&Entry> {
        self.entries.get(self.position(index)?)
    }

    fn get_mut(&mut self, index: u64) -> Option<&mut Entry> {
        let at = self.position(index)?;
        self.entries.get_mut(at)
    }

    fn in_flight_entry(&mut self, session: &str, request_id: &str) -> Option<&mut Entry> {
        let key = self.in_flight_key(session, request_id)?;
        let index = *self.in_flight.get(&key)?;
        self.get_mut(index)
    }

    /// Takes a request out of flight: its index.
    fn finish(&mut self, session: &str, request_id: &str) -> Option<u64> {
        let key = self.in_flight_key(session, request_id)?;
        self.in_flight.remove(&key)
    }

    /// The in-flight key of `request_id` seen on `session`, else on another session of
    /// the tab: an OOPIF's document is requested on its parent's session and answered on
    /// its own (at most [`MAX_NETWORK_REQUESTS`] keys to look at, and only then).
    fn in_flight_key(&self, session: &str, request_id: &str) -> Option<(String, String)> {
        let key = (session.to_owned(), request_id.to_owned());
        if self.in_flight.contains_key(&key) {
            return Some(key);
        }
        self.in_flight
            .keys()
            .find(|(_, id)| id == request_id)
            .cloned()
    }
}

/// A response's status, type and cache flags onto its entry.
fn apply_response(e: &mut Entry, r: &ResponsePayload<'_>) {
    // A status is a small integer; anything else (a hostile reply) is left unknown.
    e.request.status = (r.status >= 0.0 && r.status <= f64::from(u16::MAX))
        .then_some(r.status as u16)
        .filter(|s| *s > 0);
    r.status_text
        .as_ref()
        .clone_into(&mut e.request.status_text);
    r.mime_type.as_ref().clone_into(&mut e.request.mime_type);
    if r.from_disk_cache || r.from_prefetch_cache || r.from_service_worker {
        e.request.from_cache = true;
    }
}

/// A byte count from CDP's number (a float), clamped to what a `u64` holds.
fn bytes(n: f64) -> u64 {
    if n.is_finite() && n > 0.0 {
        n.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

/// A URL as stored: redacted, then cut at [`MAX_URL_BYTES`].
fn shown_url(url: &str) -> String {
    let mut shown = redact_url(url);
    if cut(&mut shown, MAX_URL_BYTES) {
        shown.push('…');
    }
    shown
}

/// The ring's rules, fed parsed events as Chromium sends them.
#[cfg(test)]
mod tests {
    use super::events::{deserialize, NetworkEvent};
    use super::*;

    fn feed(log: &mut NetworkLog, now: f64, session: &str, method: &str, params: &str) {
        let mut de = serde_json::Deserializer::from_str(params);
        let parsed = deserialize(method, &mut de);
        if let Ok(Some(mut ev)) = parsed {
            log.on_event(now, session, &mut ev);
        }
    }

    fn sent(log: &mut NetworkLog, session: &str, id: &str, url: &str, frame: &str) {
        let p = format!(
            r#"{{"requestId":"{id}","loaderId":"L","documentURL":"{url}","request":{{"url":"{url}","method":"GET","headers":{{"Accept":"*/*"}},"initialPriority":"High"}},"timestamp":1.0,"wallTime":2.0,"initiator":{{"type":"parser","url":"http://127.0.0.1/"}},"type":"Fetch","frameId":"{frame}"}}"#
        );
        feed(log, 1.0, session, "Network.requestWillBeSent", &p);
    }

    fn response(log: &mut NetworkLog, session: &str, id: &str, status: u16) {
        let p = format!(
            r#"{{"requestId":"{id}","loaderId":"L","timestamp":1.1,"type":"Fetch","response":{{"url":"u","status":{status},"statusText":"X","headers":{{"Set-Cookie":"sid=SECRET","Content-Type":"text/plain"}},"mimeType":"text/plain","connectionReused":false,"connectionId":1,"encodedDataLength":100,"securityState":"neutral"}},"frameId":"F"}}"#
        );
        feed(log, 1.1, session, "Network.responseReceived", &p);
    }

    fn finished(log: &mut NetworkLog, session: &str, id: &str) {
        let p = format!(r#"{{"requestId":"{id}","timestamp":1.2,"encodedDataLength":321}}"#);
        feed(log, 1.2, session, "Network.loadingFinished", &p);
    }

    #[test]
    fn a_request_goes_from_sent_to_finished() {
        let mut log = NetworkLog::default();
        sent(&mut log, "S", "1", "http://127.0.0.1/a", "F");
        response(&mut log, "S", "1", 200);
        finished(&mut log, "S", "1");
        let all = log.since(0);
        assert_eq!(all.len(), 1);
        let r = &all[0];
        assert_eq!(
            (r.index, r.state, r.status),
            (1, RequestState::Finished, Some(200))
        );
        assert_eq!(r.encoded_data_length, Some(321));
        assert_eq!(r.frame_id.as_deref(), Some("F"));
        assert_eq!(r.initiator_type.as_deref(), Some("parser"));
        assert_eq!((r.started_at, r.finished_at), (1.0, Some(1.2)));
        assert_eq!(log.len(), (1, 0));
    }

    #[test]
    fn the_ring_keeps_the_last_requests_and_forgets_their_flight() {
        let mut log = NetworkLog::default();
        for i in 0..(MAX_NETWORK_REQUESTS + 50) {
            sent(&mut log, "S", &i.to_string(), "http://h/x", "F");
        }
        let (kept, in_flight) = log.len();
        assert_eq!(kept, MAX_NETWORK_REQUESTS);
        assert_eq!(
            in_flight, MAX_NETWORK_REQUESTS,
            "evicted entries leave the in-flight map"
        );
        let all = log.since(0);
        assert_eq!(all.first().map(|r| r.index), Some(51));
        assert_eq!(all.last().map(|r| r.index), Some(250));
        // An evicted request finishing is ignored; a kept one is found.
        finished(&mut log, "S", "0");
        finished(&mut log, "S", "249");
        assert_eq!(
            log.detail(250).map(|d| d.request.state),
            Some(RequestState::Finished)
        );
        assert!(log.detail(50).is_none());
        // Since the last call.
        assert_eq!(log.since(248).len(), 2);
        assert!(log.since(250).is_empty());
        assert!(log.since(u64::MAX).is_empty());
    }

    #[test]
    fn secrets_never_reach_the_ring() {
        let mut log = NetworkLog::default();
        let p = r#"{"requestId":"1","request":{"url":"http://u:pw@127.0.0.1/api?key=SECRET&x=1#frag","method":"POST","headers":{"Authorization":"Bearer SECRET","Cookie":"a=SECRET","Proxy-Authorization":"Basic SECRET","X-Trace":"ok"},"hasPostData":true},"type":"XHR","frameId":"F","initiator":{"type":"script","stack":{"callFrames":[{"url":"http://127.0.0.1/app.js?token=SECRET","lineNumber":1}]}}}"#;
        feed(&mut log, 1.0, "S", "Network.requestWillBeSent", p);
        response(&mut log, "S", "1", 200);
        let d = log.detail(1).unwrap();
        let text = serde_json::to_string(&d).unwrap();
        assert!(!text.contains("SECRET"), "{text}");
        assert!(!text.contains("pw@"), "{text}");
        assert_eq!(
            d.request.url,
            "http://<redacted>@127.0.0.1/api?key=<redacted>&x=<redacted>#<redacted>"
        );
        assert_eq!(
            d.request.initiator_url.as_deref(),
            Some("http://127.0.0.1/app.js?token=<redacted>")
        );
        assert!(d.request.has_post_data);
        assert!(d
            .request_headers
            .iter()
            .any(|h| h.name == "X-Trace" && h.value == "ok"));
        assert!(d
            .response_headers
            .iter()
            .any(|h| h.name == "Set-Cookie" && h.value == REDACTED_VALUE));
    }

    const REDACTED_VALUE: &str = crate::redact::REDACTED;

    #[test]
    fn a_redirect_ends_its_hop_and_starts_the_next() {
        let mut log = NetworkLog::default();
        sent(&mut log, "S", "7", "http://127.0.0.1/old", "F");
        let p = r#"{"requestId":"7","request":{"url":"http://127.0.0.1/new","method":"GET","headers":{}},"type":"Document","frameId":"F","redirectResponse":{"url":"http://127.0.0.1/old","status":302,"statusText":"Found","headers":{"Location":"/new"},"mimeType":"","encodedDataLength":50}}"#;
        feed(&mut log, 1.5, "S", "Network.requestWillBeSent", p);
        response(&mut log, "S", "7", 200);
        finished(&mut log, "S", "7");
        let all = log.since(0);
        assert_eq!(all.len(), 2);
        assert_eq!(
            (all[0].state, all[0].status),
            (RequestState::Redirected, Some(302))
        );
        assert_eq!(all[0].redirected_to, Some(2));
        assert_eq!(all[0].finished_at, Some(1.5));
        assert_eq!(
            (all[1].state, all[1].status),
            (RequestState::Finished, Some(200))
        );
        assert_eq!(all[1].redirected_from, Some(1));
        assert_eq!(all[1].url, "http://127.0.0.1/new");
    }

    #[test]
    fn failures_and_cache_are_told() {
        let mut log = NetworkLog::default();
        sent(&mut log, "S", "1", "http://nowhere.invalid/", "F");
        feed(
            &mut log,
            2.0,
            "S",
            "Network.loadingFailed",
            r#"{"requestId":"1","timestamp":2,"type":"Fetch","errorText":"net::ERR_NAME_NOT_RESOLVED","canceled":false}"#,
        );
        sent(&mut log, "S", "2", "http://127.0.0.1/blocked", "F");
        feed(
            &mut log,
            2.0,
            "S",
            "Network.loadingFailed",
            r#"{"requestId":"2","timestamp":2,"type":"Image","errorText":"net::ERR_BLOCKED_BY_CLIENT","canceled":false,"blockedReason":"inspector"}"#,
        );
        sent(&mut log, "S", "3", "http://127.0.0.1/cached.png", "F");
        feed(
            &mut log,
            2.0,
            "S",
            "Network.requestServedFromCache",
            r#"{"requestId":"3"}"#,
        );
        let all = log.since(0);
        assert_eq!(all[0].state, RequestState::Failed);
        assert_eq!(
            all[0].failure.as_deref(),
            Some("net::ERR_NAME_NOT_RESOLVED")
        );
        assert_eq!(
            all[1].failure.as_deref(),
            Some("net::ERR_BLOCKED_BY_CLIENT (blocked: inspector)")
        );
        assert!(all[2].from_cache);
        // A 404 is a finished request with its status, not a failure.
        sent(&mut log, "S", "4", "http://127.0.0.1/missing", "F");
        response(&mut log, "S", "4", 404);
        finished(&mut log, "S", "4");
        let r = log.detail(4).unwrap().request;
        assert_eq!(
            (r.state, r.status, r.failure),
            (RequestState::Finished, Some(404), None)
        );
    }

    #[test]
    fn the_same_request_id_on_two_sessions_is_two_requests() {
        let mut log = NetworkLog::default();
        sent(&mut log, "PAGE", "1", "http://127.0.0.1/", "TOP");
        sent(&mut log, "OOPIF", "1", "http://localhost/frame", "CHILD");
        response(&mut log, "OOPIF", "1", 404);
        let all = log.since(0);
        assert_eq!(all[0].status, None);
        assert_eq!(
            (all[1].status, all[1].frame_id.as_deref()),
            (Some(404), Some("CHILD"))
        );
        assert_eq!(log.body_source(2), Some(("OOPIF", "1")));
    }

    #[test]
    fn headers_are_bounded() {
        let mut log = NetworkLog::default();
        let many: Vec<String> = (0..500)
            .map(|i| format!(r#""H{i}":"{}""#, "v".repeat(40)))
            .collect();
        let p = format!(
            r#"{{"requestId":"1","request":{{"url":"http://h/","method":"GET","headers":{{{}}}}}}}"#,
            many.join(",")
        );
        feed(&mut log, 1.0, "S", "Network.requestWillBeSent", &p);
        let d = log.detail(1).unwrap();
        assert!(d.headers_truncated);
        let bytes: usize = d
            .request_headers
            .iter()
            .map(|h| h.name.len() + h.value.len())
            .sum();
        assert!(bytes <= MAX_HEADER_BYTES, "{bytes}");
        assert!(!d.request_headers.is_empty());
    }

    #[test]
    fn long_urls_and_bodies_are_cut() {
        let mut log = NetworkLog::default();
        let url = format!("data:text/plain,{}", "é".repeat(MAX_URL_BYTES));
        sent(&mut log, "S", "1", &url, "F");
        let r = &log.since(0)[0];
        assert!(r.url.len() <= MAX_URL_BYTES + '…'.len_utf8() && r.url.ends_with('…'));
        let body = serde_json::json!({"body": "é".repeat(MAX_BODY_BYTES), "base64Encoded": false});
        let b = read_body(&body.to_string()).unwrap();
        assert!(b.truncated && b.text.len() <= MAX_BODY_BYTES);
        assert_eq!(b.length, 2 * MAX_BODY_BYTES);
    }

    #[test]
    fn hostile_and_unknown_network_messages_never_panic() {
        let mut log = NetworkLog::default();
        let cases = [
            ("Network.requestWillBeSent", "{}"),
            ("Network.requestWillBeSent", r#"{"requestId":1}"#),
            (
                "Network.requestWillBeSent",
                r#"{"requestId":"1","request":{"url":"","headers":{"a":1,"b":null,"c":[1],"d":{"e":2}}}}"#,
            ),
            (
                "Network.requestWillBeSent",
                r#"{"requestId":"2","request":{"url":"x"},"redirectResponse":{"status":-5}}"#,
            ),
            (
                "Network.responseReceived",
                r#"{"requestId":"1","response":{"status":1e300,"headers":"no"}}"#,
            ),
            (
                "Network.responseReceived",
                r#"{"requestId":"1","response":{"status":1e300}}"#,
            ),
            (
                "Network.loadingFinished",
                r#"{"requestId":"1","encodedDataLength":-1}"#,
            ),
            (
                "Network.loadingFinished",
                r#"{"requestId":"nobody","encodedDataLength":1e400}"#,
            ),
            ("Network.loadingFailed", r#"{"requestId":"2"}"#),
            ("Network.requestServedFromCache", "[]"),
            (
                "Network.dataReceived",
                r#"{"requestId":"1","dataLength":5}"#,
            ),
            (
                "Network.webSocketCreated",
                r#"{"requestId":"9","url":"ws://h"}"#,
            ),
            ("Network.somethingNew", "null"),
        ];
        for (method, params) in cases {
            feed(&mut log, 1.0, "S", method, params);
        }
        let all = log.since(0);
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].status, None, "an absurd status stays unknown");
        assert_eq!(all[0].encoded_data_length, Some(0));
        assert!(log.detail(0).is_none() && log.detail(u64::MAX).is_none());
        assert!(read_body("{}").is_none() && read_body("[1]").is_none());
    }

    #[test]
    fn events_the_log_skips_parse_to_nothing() {
        let mut de = serde_json::Deserializer::from_str(r#"{"requestId":"1","dataLength":5}"#);
        assert!(matches!(
            deserialize("Network.dataReceived", &mut de),
            Ok(None)
        ));
        let mut de = serde_json::Deserializer::from_str(r#"{"requestId":"1"}"#);
        assert!(matches!(
            deserialize("Network.requestServedFromCache", &mut de),
            Ok(Some(NetworkEvent::ServedFromCache(_)))
        ));
    }

    #[test]
    fn an_oopif_document_requested_on_its_parent_finishes_on_its_own_session() {
        let mut log = NetworkLog::default();
        sent(
            &mut log,
            "PAGE",
            "LOADER",
            "http://localhost/frame",
            "CHILD",
        );
        response(&mut log, "PAGE", "LOADER", 200);
        finished(&mut log, "OOPIF", "LOADER");
        let r = &log.since(0)[0];
        assert_eq!(r.state, RequestState::Finished);
        assert_eq!(r.session_id, "PAGE", "listed where it was seen");
        assert_eq!(
            log.body_source(1),
            Some(("OOPIF", "LOADER")),
            "its body is read where it finished"
        );
        assert_eq!(log.len(), (1, 0));
    }
}
