//! Browser endpoints: a `ws://` URL as is, or an `http://host:port` DevTools address
//! resolved through `/json/version` (SPEC §8), with a raw HTTP/1.1 GET on a std socket.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long connecting and reading `/json/version` may take.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an endpoint could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointError {
    /// The endpoint given.
    pub endpoint: String,
    /// What went wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for EndpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "browser endpoint {}: {}", self.endpoint, self.message)
    }
}

impl std::error::Error for EndpointError {}

/// The browser's WebSocket URL for `endpoint`: `ws://...` is returned as is;
/// `http://host:port` (path ignored) is asked for `webSocketDebuggerUrl` at
/// `/json/version`.
pub fn resolve(endpoint: &str) -> Result<String, EndpointError> {
    let err = |message: String| EndpointError {
        endpoint: endpoint.to_owned(),
        message,
    };
    if endpoint.starts_with("ws://") {
        return Ok(endpoint.to_owned());
    }
    if endpoint.starts_with("wss://") || endpoint.starts_with("https://") {
        return Err(err(
            "TLS endpoints are not supported; use ws:// or http:// (tunnel TLS locally if needed)"
                .into(),
        ));
    }
    let Some(rest) = endpoint.strip_prefix("http://") else {
        return Err(err(
            "expected ws://HOST:PORT/devtools/browser/ID or http://HOST:PORT".into(),
        ));
    };
    let authority = rest.split('/').next().unwrap_or("");
    let body = http_get(authority, "/json/version").map_err(|e| {
        err(format!(
            "{e}; is the browser running with --remote-debugging-port on that address?"
        ))
    })?;
    let json: serde_json::Value = serde_json::from_str(&body).map_err(|e| {
        err(format!(
            "/json/version is not JSON ({e}); is this a DevTools port?"
        ))
    })?;
    match json.get("webSocketDebuggerUrl").and_then(|v| v.as_str()) {
        Some(url) => Ok(url.to_owned()),
        None => Err(err(
            "/json/version has no webSocketDebuggerUrl; is this a DevTools port?".into(),
        )),
    }
}

/// Splits `ws://host:port/path` into `("host:port", "/path")`.
pub fn split_ws_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("ws://")?;
    let slash = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(slash);
    if authority.is_empty() {
        return None;
    }
    Some((authority, if path.is_empty() { "/" } else { path }))
}

/// Opens a TCP connection to `authority` (`host:port`, port 80 when absent) with
/// [`HTTP_TIMEOUT`] for connect, reads and writes.
pub fn connect_tcp(authority: &str) -> Result<TcpStream, String> {
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let addrs: Vec<_> = with_port
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?
        .collect();
    let mut last = format!("{authority} resolves to no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, HTTP_TIMEOUT) {
            Ok(stream) => {
                stream
                    .set_read_timeout(Some(HTTP_TIMEOUT))
                    .and_then(|()| stream.set_write_timeout(Some(HTTP_TIMEOUT)))
                    .map_err(|e| format!("cannot configure the socket to {addr}: {e}"))?;
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(last)
}

fn http_get(authority: &str, path: &str) -> Result<String, String> {
    let mut stream = connect_tcp(authority)?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("cannot send GET {path}: {e}"))?;
    // Read until the headers and Content-Length bytes are in: Chromium's DevTools
    // server may keep the connection open despite `Connection: close`.
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(body) = complete_body(&raw)? {
            return Ok(body);
        }
        if raw.len() > 1 << 20 {
            return Err(format!("GET {path}: the reply is over 1 MiB"));
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) => return Err(format!("cannot read the reply to GET {path}: {e}")),
        }
    }
    // Closed before Content-Length was reached, or no Content-Length: take what came.
    let text = String::from_utf8_lossy(&raw);
    match text.split_once("\r\n\r\n") {
        Some((head, body)) => {
            check_status(head, path)?;
            Ok(body.to_owned())
        }
        None => Err(format!("GET {path}: the reply is not HTTP")),
    }
}

fn check_status(head: &str, path: &str) -> Result<(), String> {
    let status = head.lines().next().unwrap_or("");
    if status.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(format!(
            "GET /json/version answered {status:?} (for {path})"
        ))
    }
}

/// The body once `raw` holds the headers and `Content-Length` bytes of it.
fn complete_body(raw: &[u8]) -> Result<Option<String>, String> {
    let text = String::from_utf8_lossy(raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return Ok(None);
    };
    let length = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse::<usize>().ok())
            .flatten()
    });
    match length {
        Some(n) if body.len() >= n => {
            check_status(head, "/json/version")?;
            Ok(Some(body[..n].to_owned()))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ws_urls() {
        assert_eq!(
            split_ws_url("ws://127.0.0.1:9222/devtools/browser/abc"),
            Some(("127.0.0.1:9222", "/devtools/browser/abc"))
        );
        assert_eq!(split_ws_url("ws://[::1]:9"), Some(("[::1]:9", "/")));
        assert_eq!(split_ws_url("http://x"), None);
    }

    #[test]
    fn ws_passes_through_and_others_are_refused() {
        assert_eq!(resolve("ws://h:1/x").unwrap(), "ws://h:1/x");
        assert!(resolve("wss://h/x").unwrap_err().message.contains("TLS"));
        assert!(resolve("ftp://h").is_err());
    }
}
