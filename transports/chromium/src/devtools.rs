//! A browser's DevTools HTTP address resolved to its WebSocket URL, with a blocking
//! `GET /json/version` on a std socket, over TLS for `https://` with the `tls` feature
//! (the exchange itself is the driver's, sans-IO).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

use cdp_supervisor_driver::endpoint::HTTP_TIMEOUT;
use cdp_supervisor_driver::endpoint::{Endpoint, EndpointError, JsonVersion};
use cdp_supervisor_driver::headers::CdpHeaders;

/// The browser's WebSocket URL for `endpoint`: a `ws://` or `wss://` URL as is,
/// `http://host:port` through `/json/version`, and `https://host:port` the same over TLS
/// (the `tls` feature; the system's roots, or the PEM file of CAs in `SSL_CERT_FILE`),
/// answering a `wss://` URL. Blocks up to about [`HTTP_TIMEOUT`] per step.
///
/// ```
/// use cdp_supervisor_chromium::resolve;
/// assert_eq!(resolve("ws://127.0.0.1:9/devtools/browser/b").as_deref(), Ok("ws://127.0.0.1:9/devtools/browser/b"));
/// let refused = resolve("http://127.0.0.1:9").unwrap_err(); // nothing listens on port 9
/// assert!(refused.message.contains("--remote-debugging-port"));
/// ```
pub fn resolve(endpoint: &str) -> Result<String, EndpointError> {
    resolve_with(endpoint, &CdpHeaders::default())
}

/// [`resolve`], sending `headers` with the `/json/version` request (a hosted browser's
/// `Authorization`). The key and the host the user gave carry over to the WebSocket URL
/// when the server advertises its own address; a refusal (401, 429, 404) has its code
/// ([`EndpointError::refusal`]).
///
/// ```
/// use cdp_supervisor_chromium::resolve_with;
/// use cdp_supervisor_driver::headers::CdpHeaders;
/// let mut headers = CdpHeaders::default();
/// headers.push("Authorization", "Bearer SECRET")?;
/// let refused = resolve_with("http://127.0.0.1:9", &headers).unwrap_err();
/// assert!(!refused.to_string().contains("SECRET"));
/// # Ok::<(), String>(())
/// ```
pub fn resolve_with(endpoint: &str, headers: &CdpHeaders) -> Result<String, EndpointError> {
    let authority = match Endpoint::parse(endpoint)? {
        Endpoint::WebSocket(url) => return Ok(url),
        Endpoint::DevTools { authority, .. } => authority,
    };
    let mut lookup = JsonVersion::new(endpoint, &authority).with_headers(headers);
    if lookup.tls() && !cfg!(feature = "tls") {
        return Err(lookup.needs_tls("cdp-supervisor-chromium (a transport's `tls` turns it on)"));
    }
    let address = lookup.address();
    let addrs = address
        .to_socket_addrs()
        .map_err(|e| lookup.failed(format!("cannot resolve {address}: {e}")))?;
    let tcp = addrs
        .into_iter()
        .find_map(|addr| TcpStream::connect_timeout(&addr, HTTP_TIMEOUT).ok())
        .ok_or_else(|| lookup.failed(format!("cannot connect to {address}")))?;
    let _ = tcp.set_read_timeout(Some(HTTP_TIMEOUT));
    let _ = tcp.set_write_timeout(Some(HTTP_TIMEOUT));
    #[cfg(feature = "tls")]
    if lookup.tls() {
        let stream = tls::client(&lookup, tcp)?;
        return exchange(&mut lookup, stream);
    }
    exchange(&mut lookup, tcp)
}

/// Writes the request and reads the reply until the lookup is over.
fn exchange(
    lookup: &mut JsonVersion,
    mut stream: impl Read + Write,
) -> Result<String, EndpointError> {
    let request = lookup.request();
    if let Err(e) = stream.write_all(request.as_bytes()) {
        return Err(lookup.io_failed("cannot send GET /json/version", &e));
    }
    let mut chunk = [0u8; 4096];
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e) => return Err(lookup.io_failed("cannot read /json/version", &e)),
        };
        if let Some(url) = lookup.received(chunk.get(..n).unwrap_or_default()) {
            return url;
        }
    }
}

#[cfg(feature = "tls")]
mod tls {
    use std::net::TcpStream;
    use std::sync::Arc;

    use cdp_supervisor_driver::endpoint::{EndpointError, JsonVersion};
    use rustls::pki_types::ServerName;
    use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

    /// A TLS client on `tcp` for the lookup's host, trusting the system's roots (or the
    /// CAs of `SSL_CERT_FILE`), as the transports' `wss://` does.
    pub fn client(
        lookup: &JsonVersion,
        tcp: TcpStream,
    ) -> Result<StreamOwned<ClientConnection, TcpStream>, EndpointError> {
        let mut roots = RootCertStore::empty();
        for cert in rustls_native_certs::load_native_certs().certs {
            let _ = roots.add(cert); // one unreadable root must not refuse the rest
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| lookup.failed(format!("cannot set up TLS: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = ServerName::try_from(lookup.host().to_owned()).map_err(|e| {
            lookup.failed(format!("{:?} is no TLS server name: {e}", lookup.host()))
        })?;
        let connection = ClientConnection::new(Arc::new(config), name)
            .map_err(|e| lookup.failed(format!("cannot start TLS: {e}")))?;
        Ok(StreamOwned::new(connection, tcp))
    }
}
