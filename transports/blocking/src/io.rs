//! The I/O thread: does what the [`LoopDriver`] says, nothing more. std cannot wait on a
//! socket and a channel at once: the thread waits on its requests, and a watcher thread
//! `peek`s a dup of the TCP socket and sends [`Request::Wake`] when bytes came; the thread
//! reads without blocking until the socket is empty, then lets the watcher peek again.

use std::io::ErrorKind;
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use cdp_supervisor_driver::endpoint::{tcp_address, HTTP_TIMEOUT};
use cdp_supervisor_driver::headers::CdpHeaders;
use cdp_supervisor_driver::limits::{MAX_MESSAGE_SIZE, READ_BUFFER_SIZE};
use cdp_supervisor_driver::refusal::{broken_stream, Refusal, DRAIN_TIMEOUT, MAX_DRAIN};
use cdp_supervisor_driver::{Action, ClientError, Clock, LoopDriver, Request};
use tungstenite::client::IntoClientRequest;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

pub(crate) type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

/// The TCP stream under the WebSocket (under TLS for `wss://`).
fn tcp(ws: &Ws) -> Option<&TcpStream> {
    match ws.get_ref() {
        MaybeTlsStream::Plain(s) => Some(s),
        #[cfg(feature = "tls")]
        MaybeTlsStream::Rustls(s) => Some(s.get_ref()),
        _ => None,
    }
}

/// A WebSocket and its watcher, which is told to peek again through `drained`.
struct Socket {
    ws: Ws,
    drained: Sender<()>,
}

impl Socket {
    fn watch(ws: Ws, wake: &Sender<Request>) -> Result<Socket, String> {
        let tcp = tcp(&ws).ok_or("no TCP socket under the WebSocket")?;
        let _ = tcp.set_read_timeout(None); // the watcher peeks as long as the socket is quiet
        let peer = tcp
            .try_clone()
            .map_err(|e| format!("cannot watch the socket: {e}"))?;
        let (drained, peek_again) = mpsc::channel::<()>();
        let wake = wake.clone();
        let watcher = move || loop {
            match peer.peek(&mut [0u8; 1]) {
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // Closed or failed: one last wake, so that the loop reads why.
                Ok(0) | Err(_) => return drop(wake.send(Request::Wake)),
                Ok(_) if wake.send(Request::Wake).is_err() || peek_again.recv().is_err() => return,
                Ok(_) => {}
            }
        };
        let spawned = std::thread::Builder::new().name("cdp-supervisor-watch".into());
        spawned
            .spawn(watcher)
            .map_err(|e| format!("cannot start the socket watcher: {e}"))?;
        Ok(Socket { ws, drained })
    }

    /// Reads every message already there, without blocking; why the socket is lost, if it is.
    fn drain(&mut self, run: &mut LoopDriver, clock: &Clock) -> Option<String> {
        let _ = tcp(&self.ws).map(|t| t.set_nonblocking(true));
        let lost = loop {
            match self.ws.read() {
                Ok(Message::Text(text)) => run.message(clock.now(), text.as_str()),
                Ok(Message::Close(frame)) => {
                    break Some(format!("the browser closed the WebSocket ({frame:?})"))
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e)) if e.kind() == ErrorKind::WouldBlock => break None,
                // An abrupt end is no broken protocol: only garbage in the stream is.
                Err(tungstenite::Error::Protocol(
                    e @ tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
                )) => break Some(format!("the WebSocket failed: {e}")),
                Err(tungstenite::Error::Protocol(e)) => break Some(broken_stream(&e.to_string())),
                Err(e) => break Some(format!("the WebSocket failed: {e}")),
            }
        };
        let _ = tcp(&self.ws).map(|t| t.set_nonblocking(false));
        let _ = self.drained.send(());
        lost
    }
}

impl Drop for Socket {
    /// Ends the watcher's `peek` (its dup keeps the connection open otherwise).
    fn drop(&mut self) {
        let _ = tcp(&self.ws).map(|t| t.shutdown(Shutdown::Both));
    }
}

/// The thread's body. `wake` is a sender of the request channel, for the watchers.
pub(crate) fn run(
    mut run: LoopDriver,
    clock: Clock,
    ws: Ws,
    endpoint: String,
    requests: Receiver<Request>,
    wake: Sender<Request>,
) {
    let mut readable = false;
    // One request (or wake) within `wait`, if any. The channel never disconnects (`wake`).
    let take = |run: &mut LoopDriver, readable: &mut bool, wait| {
        match requests.recv_timeout(wait) {
            Ok(Request::Wake) => *readable = true,
            Ok(r) => run.request(clock.now(), r),
            Err(_) => return false,
        }
        true
    };
    let mut socket = Socket::watch(ws, &wake)
        .map_err(|e| run.connection_lost(clock.now(), e))
        .ok();
    loop {
        while take(&mut run, &mut readable, Duration::ZERO) {}
        let lost = match (run.poll_action(clock.now()), socket.as_mut()) {
            (Action::Write(text), Some(s)) => {
                s.ws.send(Message::text(text))
                    .err()
                    .map(|e| format!("writing to the WebSocket failed: {e}"))
            }
            (Action::Read { .. }, Some(s)) if readable => {
                readable = false;
                s.drain(&mut run, &clock)
            }
            // A quiet socket and no deadline: the watcher or a request wakes it.
            (Action::Read { timeout }, _) => {
                take(
                    &mut run,
                    &mut readable,
                    timeout.unwrap_or(Duration::from_secs(3600)),
                );
                None
            }
            (Action::Sleep { timeout }, _) => {
                take(&mut run, &mut readable, timeout);
                None
            }

            (Action::Write(_), None) => Some("no WebSocket".into()),
            (Action::Disconnect, _) => {
                socket = None;
                None
            }
            (Action::Connect, _) => {
                let opened = open(&endpoint, run.headers()).and_then(|(url, ws)| {
                    let watched =
                        Socket::watch(ws, &wake).map_err(|e| ClientError::connect(&url, e));
                    socket = Some(watched?);
                    Ok(url)
                });
                run.connect_outcome(clock.now(), opened);
                None
            }
            (Action::Close, _) => {
                if let Some(s) = socket.as_mut() {
                    close(&mut s.ws);
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

/// [`open`], and once more after the server's `Retry-After` when it answered that it is
/// busy: the first connect of a client.
pub(crate) fn open_first(
    endpoint: &str,
    headers: &CdpHeaders,
) -> Result<(String, Ws), ClientError> {
    match open(endpoint, headers) {
        Err(e) => match e.refusal().and_then(Refusal::retry_delay) {
            Some(delay) => {
                std::thread::sleep(delay);
                open(endpoint, headers)
            }
            None => Err(e),
        },
        opened => opened,
    }
}

/// Resolves `endpoint` and opens the WebSocket, sending `headers` on the lookup and the
/// upgrade. A refused upgrade is read to its end before the socket closes, and answered
/// with its code ([`Refusal`]).
pub(crate) fn open(endpoint: &str, headers: &CdpHeaders) -> Result<(String, Ws), ClientError> {
    let url = resolve(endpoint, headers)?;
    let err = |error| ClientError::connect(&url, error);
    let address = tcp_address(&url, cfg!(feature = "tls"), "cdp-supervisor-blocking");
    let address = address.map_err(err)?;
    let stream = connect_tcp(&address).map_err(err)?;
    // A second handle on the socket, to read a refusal to its end once the handshake
    // has given up its own.
    let spare = stream.try_clone().ok();
    let request = upgrade_request(&url, headers).map_err(err)?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_SIZE))
        .max_frame_size(Some(MAX_MESSAGE_SIZE))
        .read_buffer_size(READ_BUFFER_SIZE);
    // Plain for ws://; for wss://, rustls with the system's roots (SSL_CERT_FILE when set).
    #[cfg(feature = "tls")]
    let opened = tungstenite::client_tls_with_config(request, stream, Some(config), None);
    #[cfg(not(feature = "tls"))]
    let stream = MaybeTlsStream::Plain(stream);
    #[cfg(not(feature = "tls"))]
    let opened = tungstenite::client::client_with_config(request, stream, Some(config));
    let (ws, _response) = opened.map_err(|e| match e {
        tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response)) => {
            drain(spare);
            let retry_after = response.headers().get("retry-after");
            let retry_after = retry_after.and_then(|v| v.to_str().ok());
            let status = response.status();
            let reason = status.canonical_reason().unwrap_or("");
            ClientError::refused(&url, Refusal::new(status.as_u16(), reason, retry_after))
        }
        tungstenite::HandshakeError::Failure(e) => err(tls_error(e)),
        tungstenite::HandshakeError::Interrupted(_) => err("the handshake timed out".into()),
    })?;
    Ok((url, ws))
}

/// The upgrade request for `url` with the extra `headers`. Its errors quote neither the
/// URL nor a header value (both may hold a key).
fn upgrade_request(
    url: &str,
    headers: &CdpHeaders,
) -> Result<tungstenite::handshake::client::Request, String> {
    let mut request = url
        .into_client_request()
        .map_err(|_| "not a valid WebSocket URL".to_owned())?;
    headers.append_to(request.headers_mut())?;
    Ok(request)
}

/// Reads what is left of a refused handshake's reply until the server closes (after
/// saying it will send nothing more), at most [`DRAIN_TIMEOUT`] and [`MAX_DRAIN`] bytes:
/// closing with unread bytes resets the connection, which some servers do not survive.
fn drain(spare: Option<TcpStream>) {
    let Some(mut tcp) = spare else { return };
    let _ = tcp.shutdown(Shutdown::Write);
    let end = Instant::now() + DRAIN_TIMEOUT;
    let mut chunk = [0u8; 4096];
    let mut read = 0;
    while read < MAX_DRAIN {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() || tcp.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match std::io::Read::read(&mut tcp, &mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
    }
}

cdp_supervisor_driver::tls_error_fn!();

/// The WebSocket URL of `endpoint`, asking `/json/version` for an `http(s)://` one (with
/// the extra `headers`).
fn resolve(endpoint: &str, headers: &CdpHeaders) -> Result<String, ClientError> {
    #[cfg(feature = "launch")]
    return Ok(cdp_supervisor_chromium::resolve_with(endpoint, headers)?);
    #[cfg(not(feature = "launch"))]
    {
        let _ = headers;
        Ok(cdp_supervisor_driver::endpoint::ws_url(endpoint)?)
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
                // Bounds the handshake; `Socket::watch` lifts the read timeout after it.
                let _ = stream.set_read_timeout(Some(HTTP_TIMEOUT));
                let _ = stream.set_write_timeout(Some(HTTP_TIMEOUT));
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
    let _ = tcp(ws).map(|t| t.set_read_timeout(Some(Duration::from_millis(200))));
    let end = Instant::now() + Duration::from_millis(500);
    while Instant::now() < end && ws.read().is_ok() {}
}
