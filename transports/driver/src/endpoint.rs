//! Browser endpoints: a `ws://` or `wss://` URL as is, or an `http://host:port` DevTools address
//! whose WebSocket URL is read from `/json/version`. Parsing and the HTTP exchange are
//! here, sans-IO; the transport opens the TCP connection and moves the bytes.

use std::time::Duration;

use crate::headers::CdpHeaders;
use crate::refusal::Refusal;

/// How long connecting and reading `/json/version` may take.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest `/json/version` reply accepted.
const MAX_REPLY: usize = 1 << 20;

/// Why an endpoint could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("browser endpoint {}: {message}", redact_url(.endpoint))]
pub struct EndpointError {
    /// The endpoint given, its credentials redacted ([`redact_url`]), so that neither
    /// `Display` nor `Debug` shows a secret.
    pub endpoint: String,
    /// What went wrong and what to do.
    pub message: String,
    /// The server refused the lookup with an HTTP status that has a meaning of its own
    /// (`unauthorized`, `busy`, `not_found`, ...): [`Refusal::code`] is the error's code.
    pub refusal: Option<Refusal>,
}

/// What stands for a redacted part of a URL.
pub const REDACTED: &str = cdp_supervisor::redact::REDACTED;

/// `url` with its credentials removed, for every log line, error message and trace:
/// the userinfo (`ws://user:password@host`) becomes `<redacted>@`, each query value
/// (`?apiKey=...`, `?token=...`, any) and the fragment become `<redacted>` (the names
/// stay, to tell which URL it was). Hosted browsers put their keys there. Pure; never
/// panics; a string with nothing to redact comes back unchanged. The core's
/// [`cdp_supervisor::redact::redact_url`], which also redacts the network listing.
///
/// ```
/// use cdp_supervisor_driver::endpoint::redact_url;
/// assert_eq!(redact_url("ws://u:p@h:1/x?apiKey=SECRET&b"), "ws://<redacted>@h:1/x?apiKey=<redacted>&b");
/// assert_eq!(redact_url("ws://h:1/devtools/browser/abc"), "ws://h:1/devtools/browser/abc");
/// assert_eq!(redact_url("h:1/x#tok"), "h:1/x#<redacted>");
/// ```
pub fn redact_url(url: &str) -> String {
    cdp_supervisor::redact::redact_url(url)
}

/// Whether [`redact_url`] changes `url` (it holds credentials or a query).
///
/// ```
/// assert!(cdp_supervisor_driver::endpoint::has_secrets("ws://h/x?token=t"));
/// assert!(!cdp_supervisor_driver::endpoint::has_secrets("ws://h/x"));
/// ```
pub fn has_secrets(url: &str) -> bool {
    redact_url(url) != url
}

/// What an endpoint names.
///
/// ```
/// use cdp_supervisor_driver::endpoint::Endpoint;
/// assert_eq!(Endpoint::parse("ws://h:1/x")?, Endpoint::WebSocket("ws://h:1/x".into()));
/// assert_eq!(Endpoint::parse("http://h:9222/any")?, Endpoint::DevTools { authority: "h:9222".into() });
/// assert_eq!(Endpoint::parse("https://h:9222")?, Endpoint::DevTools { authority: "h:9222".into() });
/// assert_eq!(Endpoint::parse("wss://h/x?apiKey=k")?, Endpoint::WebSocket("wss://h/x?apiKey=k".into()));
/// assert!(Endpoint::parse("ftp://h").unwrap_err().message.contains("ws://"));
/// # Ok::<(), cdp_supervisor_driver::endpoint::EndpointError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A browser WebSocket URL, used as is.
    WebSocket(String),
    /// A DevTools HTTP address (`host:port`): ask [`JsonVersion`] for the WebSocket URL
    /// (over TLS for `https://`: [`JsonVersion::tls`]).
    DevTools {
        /// `host:port`.
        authority: String,
    },
}

impl Endpoint {
    /// Parses `ws://...`, `wss://...` (hosted browsers, TLS) or `http(s)://host:port[/path]`
    /// (the path is ignored).
    pub fn parse(endpoint: &str) -> Result<Endpoint, EndpointError> {
        if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
            return Ok(Endpoint::WebSocket(endpoint.to_owned()));
        }
        let err = |message: &str| EndpointError {
            endpoint: redact_url(endpoint),
            message: message.to_owned(),
            refusal: None,
        };
        let Some(rest) = endpoint
            .strip_prefix("http://")
            .or_else(|| endpoint.strip_prefix("https://"))
        else {
            return Err(err(
                "expected ws://HOST:PORT/devtools/browser/ID, wss://..., or http(s)://HOST:PORT",
            ));
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        // Userinfo is never sent (nor printed): the DevTools address is host:port.
        let authority = authority
            .rsplit_once('@')
            .map_or(authority, |(_, host)| host);
        Ok(Endpoint::DevTools {
            authority: authority.to_owned(),
        })
    }
}

/// The WebSocket URL of `endpoint` for a transport built without a lookup (its `launch`
/// feature off): a `ws://` or `wss://` URL as is, an `http(s)://` address refused
/// ([`EndpointError::no_lookup`]).
///
/// ```
/// use cdp_supervisor_driver::endpoint::ws_url;
/// assert_eq!(ws_url("ws://h:1/x").as_deref(), Ok("ws://h:1/x"));
/// assert!(ws_url("http://h:1").unwrap_err().message.contains("`launch` feature"));
/// ```
pub fn ws_url(endpoint: &str) -> Result<String, EndpointError> {
    match Endpoint::parse(endpoint)? {
        Endpoint::WebSocket(url) => Ok(url),
        Endpoint::DevTools { .. } => Err(EndpointError::no_lookup(endpoint)),
    }
}

impl EndpointError {
    /// For a transport built without a lookup (its `launch` feature off): `endpoint` is
    /// an `http://` address it cannot resolve.
    ///
    /// ```
    /// let e = cdp_supervisor_driver::endpoint::EndpointError::no_lookup("http://h:1");
    /// assert!(e.message.contains("ws://"));
    /// ```
    pub fn no_lookup(endpoint: &str) -> EndpointError {
        EndpointError {
            endpoint: redact_url(endpoint),
            message: "resolving an http(s):// address needs the transport's `launch` feature (cdp-supervisor-chromium); pass the browser's ws:// or wss:// URL instead".into(),
            refusal: None,
        }
    }
}

/// Splits `ws://host:port/path?query` (or `wss://`) into `("host:port", "/path?query")`;
/// the authority ends at the first `/`, `?` or `#` (hosted browsers' URLs often have a
/// query and no path: `wss://host?apiKey=...`).
///
/// ```
/// use cdp_supervisor_driver::endpoint::split_ws_url;
/// assert_eq!(split_ws_url("ws://127.0.0.1:9222/devtools/browser/abc"),
///     Some(("127.0.0.1:9222", "/devtools/browser/abc")));
/// assert_eq!(split_ws_url("wss://h?k=v"), Some(("h", "?k=v")));
/// assert_eq!(split_ws_url("http://x"), None);
/// ```
pub fn split_ws_url(url: &str) -> Option<(&str, &str)> {
    let rest = url
        .strip_prefix("ws://")
        .or_else(|| url.strip_prefix("wss://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    // Userinfo is not sent in a WebSocket handshake's Host: keep only the host.
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if authority.is_empty() {
        return None;
    }
    Some((authority, if path.is_empty() { "/" } else { path }))
}

/// The `host:port` of a `ws://` or `wss://` URL, or why it is not one.
///
/// ```
/// use cdp_supervisor_driver::endpoint::ws_authority;
/// assert_eq!(ws_authority("ws://h:1/x"), Ok("h:1"));
/// assert_eq!(ws_authority("wss://u:p@h?apiKey=k"), Ok("h"));
/// assert!(ws_authority("http://h:1").is_err());
/// ```
pub fn ws_authority(url: &str) -> Result<&str, String> {
    split_ws_url(url)
        .map(|(authority, _)| authority)
        .ok_or_else(|| "not a ws:// or wss://HOST[:PORT][/PATH] URL".to_owned())
}

/// The `host:port` to open a TCP connection to for a WebSocket URL, with the scheme's
/// default port (80, or 443 for `wss://`), and whether it needs TLS.
///
/// ```
/// use cdp_supervisor_driver::endpoint::ws_address;
/// assert_eq!(ws_address("wss://h?apiKey=k"), Ok(("h:443".into(), true)));
/// assert_eq!(ws_address("ws://h:9/x"), Ok(("h:9".into(), false)));
/// ```
pub fn ws_address(url: &str) -> Result<(String, bool), String> {
    let authority = ws_authority(url)?;
    let tls = url.starts_with("wss://");
    Ok((
        with_default_port(authority, if tls { 443 } else { 80 }),
        tls,
    ))
}

fn with_default_port(authority: &str, port: u16) -> String {
    let has_port = authority.rsplit_once(':').is_some_and(|(host, p)| {
        p.parse::<u16>().is_ok() && (!host.starts_with('[') || host.ends_with(']'))
    });
    if has_port {
        authority.to_owned()
    } else {
        format!("{authority}:{port}")
    }
}

/// `authority` with port 80 added when it names none.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::endpoint::with_port("h"), "h:80");
/// assert_eq!(cdp_supervisor_driver::endpoint::with_port("h:9"), "h:9");
/// ```
pub fn with_port(authority: &str) -> String {
    with_default_port(authority, 80)
}

/// The `GET /json/version` exchange, sans-IO: write [`JsonVersion::request`] to a TCP
/// connection to the authority, hand every chunk read to [`JsonVersion::received`] (an
/// empty chunk at the end of the stream) until it returns the WebSocket URL or why not.
///
/// ```
/// use cdp_supervisor_driver::endpoint::JsonVersion;
/// let mut lookup = JsonVersion::new("http://h:1", "h:1");
/// assert!(lookup.request().starts_with("GET /json/version HTTP/1.1\r\n"));
/// let body = r#"{"webSocketDebuggerUrl":"ws://h:1/devtools/browser/b"}"#;
/// let reply = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}", body.len());
/// assert_eq!(lookup.received(reply.as_bytes()), Some(Ok("ws://h:1/devtools/browser/b".into())));
/// ```
#[derive(Clone)]
pub struct JsonVersion {
    /// Redacted.
    endpoint: String,
    authority: String,
    /// The query the user gave (it may hold a key): it carries over to the WebSocket URL.
    query: Option<String>,
    /// Asked over TLS (`https://`).
    tls: bool,
    headers: CdpHeaders,
    reply: Vec<u8>,
}

impl std::fmt::Debug for JsonVersion {
    /// The endpoint redacted, the headers by name: no secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonVersion")
            .field("endpoint", &self.endpoint)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl JsonVersion {
    /// The exchange for `endpoint`, whose DevTools address is `authority` (over TLS when
    /// `endpoint` is `https://`).
    pub fn new(endpoint: &str, authority: &str) -> JsonVersion {
        let before_fragment = endpoint.split('#').next().unwrap_or(endpoint);
        let query = before_fragment
            .split_once('?')
            .map(|(_, q)| q.to_owned())
            .filter(|q| !q.is_empty());
        JsonVersion {
            endpoint: redact_url(endpoint),
            authority: authority.to_owned(),
            query,
            tls: endpoint.starts_with("https://"),
            headers: CdpHeaders::default(),
            reply: Vec::new(),
        }
    }

    /// The lookup sending `headers` too (`--cdp-header`: hosted browsers check their key
    /// on `/json/version` as on the upgrade).
    ///
    /// ```
    /// use cdp_supervisor_driver::{endpoint::JsonVersion, headers::CdpHeaders};
    /// let mut headers = CdpHeaders::default();
    /// headers.push("Authorization", "Bearer K")?;
    /// let lookup = JsonVersion::new("http://h:1", "h:1").with_headers(&headers);
    /// assert!(lookup.request().contains("\r\nAuthorization: Bearer K\r\n"));
    /// assert!(!format!("{lookup:?}").contains("Bearer K"));
    /// # Ok::<(), String>(())
    /// ```
    pub fn with_headers(mut self, headers: &CdpHeaders) -> JsonVersion {
        self.headers = headers.clone();
        self
    }

    /// Whether the exchange goes over TLS (`https://`).
    pub fn tls(&self) -> bool {
        self.tls
    }

    /// The `host:port` to connect to: the authority, with port 443 (TLS) or 80 added when
    /// it names none.
    ///
    /// ```
    /// use cdp_supervisor_driver::endpoint::JsonVersion;
    /// assert_eq!(JsonVersion::new("https://h", "h").address(), "h:443");
    /// assert_eq!(JsonVersion::new("http://h:9222", "h:9222").address(), "h:9222");
    /// ```
    pub fn address(&self) -> String {
        with_default_port(&self.authority, if self.tls { 443 } else { 80 })
    }

    /// The server name to verify the certificate against: the authority's host.
    ///
    /// ```
    /// use cdp_supervisor_driver::endpoint::JsonVersion;
    /// assert_eq!(JsonVersion::new("https://h.example:9", "h.example:9").host(), "h.example");
    /// assert_eq!(JsonVersion::new("https://[::1]:9", "[::1]:9").host(), "::1");
    /// ```
    pub fn host(&self) -> &str {
        let address = self.authority.as_str();
        let host = match address.rsplit_once(':') {
            Some((host, port)) if port.parse::<u16>().is_ok() => host,
            _ => address,
        };
        host.trim_start_matches('[').trim_end_matches(']')
    }

    /// The error for an I/O failure `what` (connecting, writing, reading) with its cause:
    /// a TLS certificate the roots do not vouch for says so and what to do
    /// ([`untrusted_certificate`]), anything else is [`JsonVersion::failed`].
    ///
    /// ```
    /// use cdp_supervisor_driver::endpoint::JsonVersion;
    /// let lookup = JsonVersion::new("http://h:1", "h:1");
    /// let e = lookup.io_failed("cannot read /json/version", &std::io::Error::other("reset"));
    /// assert!(e.message.starts_with("cannot read /json/version: reset;"), "{}", e.message);
    /// ```
    pub fn io_failed(&self, what: &str, e: &std::io::Error) -> EndpointError {
        let cause = e
            .get_ref()
            .map(|inner| inner as &(dyn std::error::Error + 'static));
        match cause.and_then(untrusted_certificate) {
            Some(message) => self.error(message),
            None => self.failed(format!("{what}: {e}")),
        }
    }

    /// The error for a lookup this build cannot make: `https://` without TLS.
    pub fn needs_tls(&self, transport: &str) -> EndpointError {
        self.error(format!(
            "an https:// DevTools address needs TLS, which this build leaves out: enable the `tls` feature of {transport}"
        ))
    }

    /// The request to write.
    pub fn request(&self) -> String {
        format!(
            "GET /json/version HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n{}\r\n",
            self.authority,
            self.headers.request_lines()
        )
    }

    /// The error for an I/O failure `what` (connecting, writing, reading).
    pub fn failed(&self, what: impl std::fmt::Display) -> EndpointError {
        self.error(format!(
            "{what}; is the browser running with --remote-debugging-port on that address?"
        ))
    }

    /// Takes the next chunk of the reply (empty: the stream ended). `Some` once the
    /// exchange is over. Chromium may keep the connection open despite
    /// `Connection: close`, so the reply is complete once `Content-Length` bytes are in.
    pub fn received(&mut self, chunk: &[u8]) -> Option<Result<String, EndpointError>> {
        let ended = chunk.is_empty();
        self.reply.extend_from_slice(chunk);
        if self.reply.len() > MAX_REPLY {
            return Some(Err(
                self.failed("GET /json/version: the reply is over 1 MiB")
            ));
        }
        let Some(head_end) = self.reply.windows(4).position(|w| w == b"\r\n\r\n") else {
            return ended.then(|| Err(self.failed("GET /json/version: the reply is not HTTP")));
        };
        let head = String::from_utf8_lossy(self.reply.get(..head_end).unwrap_or_default());
        let raw_body = self.reply.get(head_end + 4..).unwrap_or_default();
        let length = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())
                .flatten()
        });
        // Content-Length counts bytes: cut the bytes, then decode (a cut inside a
        // character, from a lying header, becomes U+FFFD instead of a panic).
        let body = match length {
            Some(n) if raw_body.len() >= n => raw_body.get(..n).unwrap_or(raw_body),
            // Closed before Content-Length was reached, or no Content-Length: take what came.
            _ if ended => raw_body,
            _ => return None,
        };
        let body = String::from_utf8_lossy(body);
        Some(self.parse(&head, &body))
    }

    fn parse(&self, head: &str, body: &str) -> Result<String, EndpointError> {
        let status = head.lines().next().unwrap_or("");
        let mut words = status.splitn(3, ' ');
        let code = words.nth(1).and_then(|c| c.parse::<u16>().ok());
        if code != Some(200) {
            let refusal = code.map(|code| {
                let retry_after = header(head, "retry-after");
                Refusal::new(code, words.next().unwrap_or(""), retry_after)
            });
            return Err(match refusal {
                Some(r) if r.code() != "refused" => EndpointError {
                    refusal: Some(r.clone()),
                    ..self.error(format!("GET /json/version: {r}"))
                },
                _ => self.failed(format!("GET /json/version answered {status:?}")),
            });
        }
        let json: serde_json::Value = serde_json::from_str(body).map_err(|e| {
            self.error(format!(
                "/json/version is not JSON ({e}); is this a DevTools port?"
            ))
        })?;
        match json.get("webSocketDebuggerUrl").and_then(|v| v.as_str()) {
            Some(url) => self.carried_over(url).ok_or_else(|| {
                self.error(format!(
                    "/json/version advertises {:?}, which is not a ws:// or wss:// URL",
                    redact_url(url)
                ))
            }),
            None => Err(self.error(
                "/json/version has no webSocketDebuggerUrl; is this a DevTools port?".into(),
            )),
        }
    }

    /// The WebSocket URL to open for the `advertised` one: its path, on the host the user
    /// gave, with the user's query (its key) added. A server may advertise its own inside
    /// address and drop the key (a hosted browser behind a proxy); Chromium writes the Host
    /// it was asked with, so for it nothing changes. Asked over TLS (a TLS front), the
    /// WebSocket goes over TLS too.
    fn carried_over(&self, advertised: &str) -> Option<String> {
        let (_, path) = split_ws_url(advertised)?;
        let scheme = if self.tls || advertised.starts_with("wss://") {
            "wss"
        } else {
            "ws"
        };
        let mut url = format!("{scheme}://{}{path}", self.authority);
        if let Some(query) = &self.query {
            let advertised_query = path.split_once('?').map_or("", |(_, q)| q);
            let fresh: Vec<&str> = query
                .split('&')
                .filter(|pair| {
                    let name = pair.split('=').next().unwrap_or("");
                    !advertised_query
                        .split('&')
                        .any(|a| a.split('=').next() == Some(name))
                })
                .collect();
            if !fresh.is_empty() {
                url.push(if path.contains('?') { '&' } else { '?' });
                url.push_str(&fresh.join("&"));
            }
        }
        Some(url)
    }

    fn error(&self, message: String) -> EndpointError {
        EndpointError {
            endpoint: self.endpoint.clone(),
            message,
            refusal: None,
        }
    }
}

/// The value of header `name` (lower case) in an HTTP reply's head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then_some(v.trim())
    })
}

/// The words for a failed TLS handshake of a `wss://` endpoint when `cause` (the error
/// under the WebSocket library's, as the transport found it) is rustls refusing the
/// server's certificate: what is wrong and what to do. `None` for any other error.
///
/// ```
/// use cdp_supervisor_driver::endpoint::untrusted_certificate;
/// let io = std::io::Error::other("connection reset");
/// assert_eq!(untrusted_certificate(&io), None);
/// ```
pub fn untrusted_certificate(cause: &(dyn std::error::Error + 'static)) -> Option<String> {
    #[cfg(feature = "tls")]
    if let Some(rustls::Error::InvalidCertificate(why)) = cause.downcast_ref::<rustls::Error>() {
        return Some(format!(
            "the server's TLS certificate is not trusted ({why:?}); add its CA to the system's roots or name a PEM file of CAs in SSL_CERT_FILE"
        ));
    }
    let _ = cause;
    None
}

/// Writes a transport's `fn tls_error(e: tungstenite::Error) -> String`: a failed
/// WebSocket handshake in words, [`untrusted_certificate`]'s when rustls refused the
/// server's certificate (hidden: both transports speak tungstenite, which this crate does
/// not depend on; `tungstenite` and the `tls` feature are the caller's): a transport's
/// I/O module writes `cdp_supervisor_driver::tls_error_fn!();`.
#[doc(hidden)]
#[macro_export]
macro_rules! tls_error_fn {
    () => {
        /// A handshake failure in words; a certificate the roots do not vouch for says so
        /// plainly.
        fn tls_error(e: tungstenite::Error) -> String {
            // rustls's verdict arrives as the TLS error itself or inside the stream's I/O
            // error, depending on where the handshake was when it failed.
            let cause: Option<&(dyn std::error::Error + 'static)> = match &e {
                #[cfg(feature = "tls")]
                tungstenite::Error::Tls(tungstenite::error::TlsError::Rustls(inner)) => {
                    Some(&**inner)
                }
                tungstenite::Error::Io(io) => io.get_ref().map(|inner| inner as _),
                _ => None,
            };
            cause
                .and_then($crate::endpoint::untrusted_certificate)
                .unwrap_or_else(|| e.to_string())
        }
    };
}

/// The `host:port` a transport opens a TCP connection to for the WebSocket `url`
/// ([`ws_address`]). A `wss://` URL is refused, saying which feature to turn on, when
/// `transport` was built without TLS (`tls`: whether its `tls` feature is on).
///
/// ```
/// use cdp_supervisor_driver::endpoint::tcp_address;
/// assert_eq!(tcp_address("ws://h:9/x", false, "my-transport"), Ok("h:9".into()));
/// assert_eq!(tcp_address("wss://h", true, "my-transport"), Ok("h:443".into()));
/// let refused = tcp_address("wss://h", false, "my-transport").unwrap_err();
/// assert!(refused.ends_with("enable the `tls` feature of my-transport"), "{refused}");
/// ```
pub fn tcp_address(url: &str, tls: bool, transport: &str) -> Result<String, String> {
    match ws_address(url)? {
        (_, true) if !tls => Err(format!(
            "wss:// needs TLS, which this build leaves out: enable the `tls` feature of {transport}"
        )),
        (address, _) => Ok(address),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server behind a proxy advertises its inside address without the key: the host
    /// and the key the user gave carry over; a 401/429 lookup has its code.
    #[test]
    fn key_and_host_carry_over_and_refusals_have_codes() {
        let reply = |url: &str| {
            let body = format!(r#"{{"webSocketDebuggerUrl":"{url}"}}"#);
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let mut l = JsonVersion::new("https://cloud.example?token=K&x=1", "cloud.example");
        let got = l.received(reply("ws://0.0.0.0:3000?x=2").as_bytes());
        assert_eq!(got, Some(Ok("wss://cloud.example?x=2&token=K".into())));
        let mut l = JsonVersion::new("http://h:1?token=K", "h:1");
        let got = l.received(reply("ws://127.0.0.1:3000/devtools/browser/b").as_bytes());
        assert_eq!(got, Some(Ok("ws://h:1/devtools/browser/b?token=K".into())));
        assert!(!format!("{l:?}").contains("K\""));
        for (status, code) in [(401, "unauthorized"), (429, "busy"), (404, "not_found")] {
            let mut l = JsonVersion::new("http://h:1?token=SECRET", "h:1");
            let head =
                format!("HTTP/1.1 {status} X\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n");
            let e = l.received(head.as_bytes()).unwrap().unwrap_err();
            assert_eq!(e.refusal.as_ref().map(|r| r.code()), Some(code));
            assert!(!e.to_string().contains("SECRET"), "{e}");
        }
    }

    #[test]
    fn splits_ws_urls() {
        assert_eq!(split_ws_url("ws://[::1]:9"), Some(("[::1]:9", "/")));
        assert_eq!(split_ws_url("ws:///x"), None);
        assert_eq!(split_ws_url("ws://u:p@h:1/x?k=v"), Some(("h:1", "/x?k=v")));
    }

    #[test]
    fn a_lookup_over_tls_answers_a_wss_url() {
        let reply = |url: &str| {
            let body = format!(r#"{{"webSocketDebuggerUrl":"{url}"}}"#);
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let mut l = JsonVersion::new("https://h:9?k=v", "h:9");
        assert!(l.tls());
        let got = l.received(reply("ws://h:9/devtools/browser/b").as_bytes());
        // The user's query (a key) carries over.
        assert_eq!(got, Some(Ok("wss://h:9/devtools/browser/b?k=v".into())));
        // A front that already says wss:// is taken as is; plain http:// is never upgraded.
        let mut l = JsonVersion::new("https://h", "h");
        let got = l.received(reply("wss://h/devtools/browser/b").as_bytes());
        assert_eq!(got, Some(Ok("wss://h/devtools/browser/b".into())));
        let mut l = JsonVersion::new("http://h:9", "h:9");
        let got = l.received(reply("ws://h:9/devtools/browser/b").as_bytes());
        assert_eq!(got, Some(Ok("ws://h:9/devtools/browser/b".into())));
        assert!(l.needs_tls("t").message.contains("`tls` feature of t"));
    }

    #[test]
    fn multibyte_bodies_never_split() {
        // "é" is two bytes; a Content-Length that cuts it, or counts it in characters.
        for n in 0..40 {
            let body = r#"{"webSocketDebuggerUrl":"ws://h/é"}"#;
            let reply = format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n{body}");
            let mut l = JsonVersion::new("http://h:1", "h:1");
            let _ = l.received(reply.as_bytes());
            let _ = l.received(b"");
        }
        let body = r#"{"webSocketDebuggerUrl":"ws://h/é"}"#;
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut l = JsonVersion::new("http://h:1", "h:1");
        assert_eq!(l.received(reply.as_bytes()), Some(Ok("ws://h:1/é".into())));
    }

    #[test]
    fn redaction_hides_userinfo_and_query_values() {
        // The rule itself is the core's (tested there); here, that the driver's errors use it.
        assert_eq!(
            redact_url("ws://u:p@h:1/?k=v"),
            "ws://<redacted>@h:1/?k=<redacted>"
        );
        let e = EndpointError::no_lookup("http://a:b@h:1/?k=v");
        assert!(!e.to_string().contains("a:b") && !e.to_string().contains("=v"));
    }

    #[test]
    fn others_are_refused() {
        assert!(Endpoint::parse("ftp://h").is_err());
        assert!(Endpoint::parse("file:///h").is_err());
        assert_eq!(
            Endpoint::parse("http://u:p@h:1?token=T"),
            Ok(Endpoint::DevTools {
                authority: "h:1".into()
            })
        );
    }

    #[test]
    fn reply_in_pieces_without_length_and_errors() {
        let mut l = JsonVersion::new("http://h:1", "h:1");
        assert_eq!(l.received(b"HTTP/1.1 200 OK\r\n"), None);
        assert_eq!(
            l.received(b"\r\n{\"webSocketDebuggerUrl\":\"ws://a/b\"}"),
            None
        );
        // The host the user gave carries over.
        assert_eq!(l.received(b""), Some(Ok("ws://h:1/b".into())));
        let mut l = JsonVersion::new("http://h:1", "h:1");
        let e = l.received(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        assert!(e.unwrap().unwrap_err().message.contains("404"));
        let mut l = JsonVersion::new("http://h:1", "h:1");
        assert!(l.received(b"garbage").is_none());
        assert!(l
            .received(b"")
            .unwrap()
            .unwrap_err()
            .message
            .contains("not HTTP"));
        let mut l = JsonVersion::new("http://h:1", "h:1");
        let e = l.received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
        assert!(e
            .unwrap()
            .unwrap_err()
            .message
            .contains("no webSocketDebuggerUrl"));
    }
}
