//! Browser endpoints: a `ws://` or `wss://` URL as is, or an `http://host:port` DevTools address
//! whose WebSocket URL is read from `/json/version`. Parsing and the HTTP exchange are
//! here, sans-IO; the transport opens the TCP connection and moves the bytes.

use std::time::Duration;

/// How long connecting and reading `/json/version` may take.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest `/json/version` reply accepted.
const MAX_REPLY: usize = 1 << 20;

/// Why an endpoint could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("browser endpoint {endpoint}: {message}")]
pub struct EndpointError {
    /// The endpoint given.
    pub endpoint: String,
    /// What went wrong and what to do.
    pub message: String,
}

/// What an endpoint names.
///
/// ```
/// use cdp_supervisor_driver::endpoint::Endpoint;
/// assert_eq!(Endpoint::parse("ws://h:1/x")?, Endpoint::WebSocket("ws://h:1/x".into()));
/// assert_eq!(Endpoint::parse("http://h:9222/any")?, Endpoint::DevTools { authority: "h:9222".into() });
/// assert_eq!(Endpoint::parse("wss://h/x?apiKey=k")?, Endpoint::WebSocket("wss://h/x?apiKey=k".into()));
/// assert!(Endpoint::parse("https://h:9222").unwrap_err().message.contains("wss://"));
/// # Ok::<(), cdp_supervisor_driver::endpoint::EndpointError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A browser WebSocket URL, used as is.
    WebSocket(String),
    /// A DevTools HTTP address (`host:port`): ask [`JsonVersion`] for the WebSocket URL.
    DevTools {
        /// `host:port`.
        authority: String,
    },
}

impl Endpoint {
    /// Parses `ws://...`, `wss://...` (hosted browsers, TLS) or `http://host:port[/path]`
    /// (the path is ignored).
    pub fn parse(endpoint: &str) -> Result<Endpoint, EndpointError> {
        if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
            return Ok(Endpoint::WebSocket(endpoint.to_owned()));
        }
        let err = |message: &str| EndpointError {
            endpoint: endpoint.to_owned(),
            message: message.to_owned(),
        };
        if endpoint.starts_with("https://") {
            return Err(err(
                "an https:// DevTools address is not looked up; give the browser's wss:// WebSocket URL (hosted browsers list it as their CDP or connect URL)",
            ));
        }
        let Some(rest) = endpoint.strip_prefix("http://") else {
            return Err(err(
                "expected ws://HOST:PORT/devtools/browser/ID or http://HOST:PORT",
            ));
        };
        let authority = rest.split('/').next().unwrap_or("");
        Ok(Endpoint::DevTools {
            authority: authority.to_owned(),
        })
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
            endpoint: endpoint.to_owned(),
            message: "resolving an http:// address needs the transport's `launch` feature (cdp-supervisor-chromium); pass the browser's ws:// URL instead".into(),
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
#[derive(Debug, Clone)]
pub struct JsonVersion {
    endpoint: String,
    authority: String,
    reply: Vec<u8>,
}

impl JsonVersion {
    /// The exchange for `endpoint`, whose DevTools address is `authority`.
    pub fn new(endpoint: &str, authority: &str) -> JsonVersion {
        JsonVersion {
            endpoint: endpoint.to_owned(),
            authority: authority.to_owned(),
            reply: Vec::new(),
        }
    }

    /// The request to write.
    pub fn request(&self) -> String {
        format!(
            "GET /json/version HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
            self.authority
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
        let text = String::from_utf8_lossy(&self.reply).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            return ended.then(|| Err(self.failed("GET /json/version: the reply is not HTTP")));
        };
        let length = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())
                .flatten()
        });
        let body = match length {
            Some(n) if body.len() >= n => body.get(..n).unwrap_or(body),
            // Closed before Content-Length was reached, or no Content-Length: take what came.
            _ if ended => body,
            _ => return None,
        };
        Some(self.parse(head, body))
    }

    fn parse(&self, head: &str, body: &str) -> Result<String, EndpointError> {
        let status = head.lines().next().unwrap_or("");
        if status.split_whitespace().nth(1) != Some("200") {
            return Err(self.failed(format!("GET /json/version answered {status:?}")));
        }
        let json: serde_json::Value = serde_json::from_str(body).map_err(|e| {
            self.error(format!(
                "/json/version is not JSON ({e}); is this a DevTools port?"
            ))
        })?;
        match json.get("webSocketDebuggerUrl").and_then(|v| v.as_str()) {
            Some(url) => Ok(url.to_owned()),
            None => Err(self.error(
                "/json/version has no webSocketDebuggerUrl; is this a DevTools port?".into(),
            )),
        }
    }

    fn error(&self, message: String) -> EndpointError {
        EndpointError {
            endpoint: self.endpoint.clone(),
            message,
        }
    }
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

/// The endpoint as it may be shown in a log line, an error or a trace: userinfo and the
/// query (where hosted browsers put their keys) replaced by `***`.
///
/// ```
/// use cdp_supervisor_driver::endpoint::redact_url;
/// assert_eq!(redact_url("wss://u:p@host/x?apiKey=SECRET"), "wss://***@host/x?***");
/// assert_eq!(redact_url("ws://127.0.0.1:9222/devtools/browser/b"), "ws://127.0.0.1:9222/devtools/browser/b");
/// ```
pub fn redact_url(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let (without_query, query) = url.split_at(cut);
    let query = if query.is_empty() { "" } else { "?***" };
    match without_query.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            match authority.rsplit_once('@') {
                Some((_, host)) => format!("{scheme}://***@{host}{path}{query}"),
                None => format!("{scheme}://{authority}{path}{query}"),
            }
        }
        None => "(an endpoint that is not a URL)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ws_urls() {
        assert_eq!(split_ws_url("ws://[::1]:9"), Some(("[::1]:9", "/")));
        assert_eq!(split_ws_url("ws:///x"), None);
    }

    #[test]
    fn others_are_refused() {
        assert!(Endpoint::parse("ftp://h").is_err());
        assert!(Endpoint::parse("https://h").is_err());
    }

    #[test]
    fn reply_in_pieces_without_length_and_errors() {
        let mut l = JsonVersion::new("http://h:1", "h:1");
        assert_eq!(l.received(b"HTTP/1.1 200 OK\r\n"), None);
        assert_eq!(
            l.received(b"\r\n{\"webSocketDebuggerUrl\":\"ws://a/b\"}"),
            None
        );
        assert_eq!(l.received(b""), Some(Ok("ws://a/b".into())));
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
