//! A browser's DevTools HTTP address resolved to its WebSocket URL, with a blocking
//! `GET /json/version` on a std socket (the exchange itself is the driver's, sans-IO).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

use cdp_supervisor_driver::endpoint::HTTP_TIMEOUT;
use cdp_supervisor_driver::endpoint::{with_port, Endpoint, EndpointError, JsonVersion};

/// The browser's WebSocket URL for `endpoint`: a `ws://` URL as is, `http://host:port`
/// through `/json/version`. Blocks up to about [`HTTP_TIMEOUT`] per step.
///
/// ```
/// use cdp_supervisor_chromium::resolve;
/// assert_eq!(resolve("ws://127.0.0.1:9/devtools/browser/b").as_deref(), Ok("ws://127.0.0.1:9/devtools/browser/b"));
/// let refused = resolve("http://127.0.0.1:9").unwrap_err(); // nothing listens on port 9
/// assert!(refused.message.contains("--remote-debugging-port"));
/// ```
pub fn resolve(endpoint: &str) -> Result<String, EndpointError> {
    let authority = match Endpoint::parse(endpoint)? {
        Endpoint::WebSocket(url) => return Ok(url),
        Endpoint::DevTools { authority } => authority,
    };
    let mut lookup = JsonVersion::new(endpoint, &authority);
    let addrs = with_port(&authority)
        .to_socket_addrs()
        .map_err(|e| lookup.failed(format!("cannot resolve {authority}: {e}")))?;
    let mut stream = addrs
        .into_iter()
        .find_map(|addr| TcpStream::connect_timeout(&addr, HTTP_TIMEOUT).ok())
        .ok_or_else(|| lookup.failed(format!("cannot connect to {authority}")))?;
    let _ = stream.set_read_timeout(Some(HTTP_TIMEOUT));
    stream
        .write_all(lookup.request().as_bytes())
        .map_err(|e| lookup.failed(format!("cannot send GET /json/version: {e}")))?;
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream
            .read(&mut chunk)
            .map_err(|e| lookup.failed(format!("cannot read /json/version: {e}")))?;
        if let Some(url) = lookup.received(chunk.get(..n).unwrap_or_default()) {
            return url;
        }
    }
}
