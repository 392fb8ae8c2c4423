//! The I/O thread: does what the [`LoopDriver`] says, nothing more.
//!
//! std cannot wait on a socket and a channel at once, so a read blocks at most
//! [`POLL_INTERVAL`] and the requests that arrived meanwhile are taken after it.

use std::io::ErrorKind;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

use cdp_supervisor_driver::endpoint::{tcp_address, HTTP_TIMEOUT};
#[cfg(not(feature = "launch"))]
use cdp_supervisor_driver::endpoint::{Endpoint, EndpointError};
use cdp_supervisor_driver::limits::{MAX_MESSAGE_SIZE, READ_BUFFER_SIZE};
use cdp_supervisor_driver::{Action, ClientError, Clock, LoopDriver, Request};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The longest the I/O thread blocks in a read, so that requests are taken promptly.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

pub(crate) type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

/// The TCP stream under the WebSocket (under TLS for `wss://`), for its timeouts.
fn tcp(ws: &mut Ws) -> Option<&TcpStream> {
    match ws.get_ref() {
        MaybeTlsStream::Plain(s) => Some(s),
        #[cfg(feature = "tls")]
        MaybeTlsStream::Rustls(s) => Some(s.get_ref()),
        _ => None,
    }
}

/// The thread's body.
pub(crate) fn run(
    mut run: LoopDriver,
    clock: Clock,
    ws: Ws,
    endpoint: String,
    requests: Receiver<Request>,
) {
    let mut socket = Some(ws);
    loop {
        loop {
            match requests.try_recv() {
                Ok(r) => run.request(clock.now(), r),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    run.requests_closed(clock.now());
                    break;
                }
            }
        }
        let lost = match (run.poll_action(clock.now()), socket.as_mut()) {
            (Action::Write(text), Some(ws)) => ws
                .send(Message::text(text))
                .err()
                .map(|e| format!("writing to the WebSocket failed: {e}")),
            (Action::Read { timeout }, Some(ws)) => {
                let wait = timeout.map_or(POLL_INTERVAL, |t| t.min(POLL_INTERVAL));
                if let Some(tcp) = tcp(ws) {
                    let _ = tcp.set_read_timeout(Some(wait.max(Duration::from_millis(1))));
                }
                match ws.read() {
                    Ok(Message::Text(text)) => {
                        run.message(clock.now(), text.as_str());
                        None
                    }
                    Ok(Message::Close(frame)) => {
                        Some(format!("the browser closed the WebSocket ({frame:?})"))
                    }
                    Ok(_) => None,
                    Err(tungstenite::Error::Io(e))
                        if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
                    {
                        None
                    }
                    Err(e) => Some(format!("the WebSocket failed: {e}")),
                }
            }
            (Action::Write(_) | Action::Read { .. }, None) => Some("no WebSocket".into()),
            (Action::Sleep { timeout }, _) => {
                std::thread::sleep(timeout.min(POLL_INTERVAL));
                None
            }
            (Action::Connect, _) => {
                let opened = open(&endpoint).map(|(url, ws)| {
                    socket = Some(ws);
                    url
                });
                run.connect_outcome(clock.now(), opened);
                None
            }
            (Action::Close, _) => {
                if let Some(ws) = socket.as_mut() {
                    close(ws);
                }
                socket = None;
                run.closed(clock.now());
                None
            }
            (Action::Exit, _) => return,
        };
        if let Some(error) = lost {
            socket = None;
            run.connection_lost(clock.now(), error);
        }
    }
}

/// Resolves `endpoint` and opens the WebSocket.
pub(crate) fn open(endpoint: &str) -> Result<(String, Ws), ClientError> {
    let url = resolve(endpoint)?;
    let err = |error| ClientError::connect(&url, error);
    let address = tcp_address(&url, cfg!(feature = "tls"), "cdp-supervisor-blocking");
    let address = address.map_err(err)?;
    let stream = connect_tcp(&address).map_err(err)?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_SIZE))
        .max_frame_size(Some(MAX_MESSAGE_SIZE))
        .read_buffer_size(READ_BUFFER_SIZE);
    // Plain for ws://; for wss://, rustls with the system's roots (SSL_CERT_FILE when set).
    #[cfg(feature = "tls")]
    let opened = tungstenite::client_tls_with_config(url.as_str(), stream, Some(config), None);
    #[cfg(not(feature = "tls"))]
    let opened = tungstenite::client::client_with_config(
        url.as_str(),
        MaybeTlsStream::Plain(stream),
        Some(config),
    );
    let (ws, _response) = opened.map_err(|e| err(handshake_error(e)))?;
    Ok((url, ws))
}

/// A handshake failure in words; a certificate the roots do not vouch for says so plainly.
fn handshake_error(
    e: tungstenite::HandshakeError<tungstenite::ClientHandshake<MaybeTlsStream<TcpStream>>>,
) -> String {
    match e {
        tungstenite::HandshakeError::Failure(e) => tls_error(e),
        tungstenite::HandshakeError::Interrupted(_) => "the WebSocket handshake timed out".into(),
    }
}

cdp_supervisor_driver::tls_error_fn!();

/// The WebSocket URL of `endpoint`, asking `/json/version` for an `http://` one.
fn resolve(endpoint: &str) -> Result<String, ClientError> {
    #[cfg(feature = "launch")]
    return Ok(cdp_supervisor_chromium::resolve(endpoint)?);
    #[cfg(not(feature = "launch"))]
    match Endpoint::parse(endpoint)? {
        Endpoint::WebSocket(url) => Ok(url),
        Endpoint::DevTools { .. } => Err(EndpointError::no_lookup(endpoint).into()),
    }
}

/// A TCP connection to `authority` with [`HTTP_TIMEOUT`] for connect, reads and writes.
fn connect_tcp(authority: &str) -> Result<TcpStream, String> {
    let addrs = authority
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?;
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

/// Closes cleanly: waits briefly for the browser's close reply.
fn close(ws: &mut Ws) {
    let _ = ws.close(None);
    if let Some(tcp) = tcp(ws) {
        let _ = tcp.set_read_timeout(Some(Duration::from_millis(200)));
    }
    let end = Instant::now() + Duration::from_millis(500);
    while Instant::now() < end && ws.read().is_ok() {}
}
