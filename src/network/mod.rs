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

#[cfg(test)]
mod tests;
