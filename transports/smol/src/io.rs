//! The client's task: does what the [`LoopDriver`] says, racing a socket read, a
//! request and the deadline where it says to wait.

use std::time::Duration;

use async_tungstenite::tungstenite::client::IntoClientRequest;
use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::{self, Message};
use async_tungstenite::WebSocketStream;
use cdp_supervisor_driver::endpoint::{tcp_address, Endpoint, HTTP_TIMEOUT};
use cdp_supervisor_driver::headers::CdpHeaders;
use cdp_supervisor_driver::limits::{MAX_MESSAGE_SIZE, READ_BUFFER_SIZE};
use cdp_supervisor_driver::refusal::{broken_stream, Refusal, DRAIN_TIMEOUT, MAX_DRAIN};
use cdp_supervisor_driver::{Action, ClientError, Clock, LoopDriver, Request};
use smol::channel::Receiver;
use smol::future::FutureExt;
use smol::net::TcpStream;
use smol::stream::StreamExt;
use smol::Timer;

pub(crate) type Ws = WebSocketStream<async_tungstenite::smol::ClientStream<TcpStream>>;

/// What woke the task.
enum Wake {
    Message(Option<Result<Message, tungstenite::Error>>),
    Request(Option<Request>),
    Timer,
}

/// The task's body.
pub(crate) async fn run(
    mut run: LoopDriver,
    clock: Clock,
    requests: Receiver<Request>,
    endpoint: String,
    ws: Ws,
) {
    let mut socket = Some(ws);
    loop {
        while let Ok(r) = requests.try_recv() {
            run.request(clock.now(), r);
        }
        if requests.is_closed() {
            run.requests_closed(clock.now());
        }
        let action = run.poll_action(clock.now());
        let request = next_request(&requests, run.is_requests_closed());
        let lost = match (action, socket.as_mut()) {
            (Action::Exit, _) => return,
            (Action::Close, _) => {
                if let Some(mut ws) = socket.take() {
                    let _ = ws.close(None).await;
                }
                run.closed(clock.now());
                None
            }
            (Action::Write(text), Some(ws)) => ws
                .send(Message::text(text))
                .await
                .err()
                .map(|e| format!("writing to the WebSocket failed: {e}")),
            (Action::Read { timeout }, Some(ws)) => {
                let read = async { Wake::Message(ws.next().await) };
                match read.or(request).or(timer(timeout)).await {
                    Wake::Message(Some(Ok(Message::Text(text)))) => {
                        run.message(clock.now(), text.as_str());
                        None
                    }
                    Wake::Message(Some(Ok(Message::Close(frame)))) => {
                        Some(format!("the browser closed the WebSocket ({frame:?})"))
                    }
                    Wake::Message(Some(Ok(_))) | Wake::Request(None) | Wake::Timer => None,
                    // An abrupt end is no broken protocol: only garbage in the stream is.
                    Wake::Message(Some(Err(tungstenite::Error::Protocol(
                        e @ tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
                    )))) => Some(format!("the WebSocket failed: {e}")),
                    Wake::Message(Some(Err(tungstenite::Error::Protocol(e)))) => {
                        Some(broken_stream(&e.to_string()))
                    }
                    Wake::Message(Some(Err(e))) => Some(format!("the WebSocket failed: {e}")),
                    Wake::Message(None) => Some("the WebSocket ended".into()),
                    Wake::Request(Some(r)) => {
                        run.request(clock.now(), r);
                        None
                    }
                }
            }
            (Action::Write(_) | Action::Read { .. }, None) => Some("no WebSocket".into()),
            (Action::Sleep { timeout }, _) => {
                if let Wake::Request(Some(r)) = request.or(timer(Some(timeout))).await {
                    run.request(clock.now(), r);
                }
                None
            }
            (Action::Disconnect, _) => {
                socket = None;
                None
            }
            (Action::Connect, _) => {
                let opened = open(&endpoint, run.headers()).await.map(|(url, ws)| {
                    socket = Some(ws);
                    url
                });
                run.connect_outcome(clock.now(), opened);
                None
            }
        };
        if let Some(error) = lost {
            socket = None;
            run.connection_lost(clock.now(), error);
        }
    }
}

/// The next request; never, once every handle is gone.
async fn next_request(requests: &Receiver<Request>, closed: bool) -> Wake {
    if closed {
        smol::future::pending::<()>().await;
    }
    Wake::Request(requests.recv().await.ok())
}

/// Fires after `timeout`; never for `None` (a `Timer` past `Instant`'s range never
/// fires).
async fn timer(timeout: Option<Duration>) -> Wake {
    Timer::after(timeout.unwrap_or(Duration::MAX)).await;
    Wake::Timer
}

/// [`open`], and once more after the server's `Retry-After` when it answered that it is
/// busy: the first connect of a client.
pub(crate) async fn open_first(
    endpoint: &str,
    headers: &CdpHeaders,
) -> Result<(String, Ws), ClientError> {
    match open(endpoint, headers).await {
        Err(e) => match e.refusal().and_then(Refusal::retry_delay) {
            Some(delay) => {
                Timer::after(delay).await;
                open(endpoint, headers).await
            }
            None => Err(e),
        },
        opened => opened,
    }
}

/// Why a handshake failed.
enum Failed {
    /// Before or during it: the error's words.
    Io(String),
    /// The server refused it with an HTTP status (its reply read to the end).
    Refused(Refusal),
}

/// Resolves `endpoint` and opens the WebSocket, sending `headers` on the lookup and the
/// upgrade. A `ws://` URL with an IP address needs no helper thread. A refused upgrade
/// is read to its end before the socket closes, and answered with its code
/// ([`Refusal`]).
pub(crate) async fn open(
    endpoint: &str,
    headers: &CdpHeaders,
) -> Result<(String, Ws), ClientError> {
    let url = resolve(endpoint, headers).await?;
    let err = |error| ClientError::connect(&url, error);
    let address = tcp_address(&url, cfg!(feature = "tls"), "cdp-supervisor-smol");
    let address = address.map_err(err)?;
    let request = upgrade_request(&url, headers).map_err(err)?;
    let handshake = async {
        let tcp = TcpStream::connect(address.as_str())
            .await
            .map_err(|e| Failed::Io(format!("cannot connect to {address}: {e}")))?;
        let _ = tcp.set_nodelay(true);
        // A second handle on the socket, to read a refusal to its end once the handshake
        // has given up its own.
        let spare = tcp.clone();
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE_SIZE))
            .max_frame_size(Some(MAX_MESSAGE_SIZE))
            .read_buffer_size(READ_BUFFER_SIZE);
        // Plain for ws://; for wss://, rustls with the system's roots (SSL_CERT_FILE when set).
        let opened = async_tungstenite::smol::client_async_tls_with_connector_and_config(
            request,
            tcp,
            None,
            Some(config),
        )
        .await;
        match opened {
            Ok((ws, _)) => Ok(ws),
            Err(tungstenite::Error::Http(response)) => {
                drain(spare).await;
                let retry_after = response.headers().get("retry-after");
                let retry_after = retry_after.and_then(|v| v.to_str().ok());
                let status = response.status();
                let reason = status.canonical_reason().unwrap_or("");
                Err(Failed::Refused(Refusal::new(
                    status.as_u16(),
                    reason,
                    retry_after,
                )))
            }
            Err(e) => Err(Failed::Io(tls_error(e))),
        }
    };
    let late = async {
        Timer::after(HTTP_TIMEOUT).await;
        Err(Failed::Io(format!(
            "no WebSocket handshake within {HTTP_TIMEOUT:?}"
        )))
    };
    match handshake.or(late).await {
        Ok(ws) => Ok((url, ws)),
        Err(Failed::Io(e)) => Err(err(e)),
        Err(Failed::Refused(refusal)) => Err(ClientError::refused(&url, refusal)),
    }
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
async fn drain(mut tcp: TcpStream) {
    use smol::io::AsyncReadExt;
    let _ = tcp.shutdown(std::net::Shutdown::Write);
    let read_all = async {
        let mut chunk = [0u8; 4096];
        let mut read = 0;
        while read < MAX_DRAIN {
            match tcp.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read += n,
            }
        }
    };
    read_all
        .or(async {
            Timer::after(DRAIN_TIMEOUT).await;
        })
        .await;
}

cdp_supervisor_driver::tls_error_fn!();

/// The WebSocket URL of `endpoint`: a `ws://` URL needs no I/O (and no helper thread);
/// an `http(s)://` address is asked for it on a helper thread (a blocking HTTP GET).
async fn resolve(endpoint: &str, headers: &CdpHeaders) -> Result<String, ClientError> {
    match Endpoint::parse(endpoint)? {
        #[cfg(feature = "launch")]
        Endpoint::DevTools { .. } => {
            let (endpoint, headers) = (endpoint.to_owned(), headers.clone());
            let lookup = move || cdp_supervisor_chromium::resolve_with(&endpoint, &headers);
            Ok(smol::unblock(lookup).await?)
        }
        _ => {
            let _ = headers;
            Ok(cdp_supervisor_driver::endpoint::ws_url(endpoint)?)
        }
    }
}
