//! The client's task: does what the [`LoopDriver`] says, racing a socket read, a
//! request and the deadline where it says to wait.

use std::time::Duration;

use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::{self, Message};
use async_tungstenite::WebSocketStream;
use cdp_supervisor_driver::endpoint::{tcp_address, Endpoint, HTTP_TIMEOUT};
use cdp_supervisor_driver::limits::{MAX_MESSAGE_SIZE, READ_BUFFER_SIZE};
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
            (Action::Connect, _) => {
                let opened = open(&endpoint).await.map(|(url, ws)| {
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

/// Resolves `endpoint` and opens the WebSocket. A `ws://` URL with an IP address needs
/// no helper thread.
pub(crate) async fn open(endpoint: &str) -> Result<(String, Ws), ClientError> {
    let url = resolve(endpoint).await?;
    let err = |error| ClientError::connect(&url, error);
    let address = tcp_address(&url, cfg!(feature = "tls"), "cdp-supervisor-smol");
    let address = address.map_err(err)?;
    let handshake = async {
        let tcp = TcpStream::connect(address.as_str())
            .await
            .map_err(|e| format!("cannot connect to {address}: {e}"))?;
        let _ = tcp.set_nodelay(true);
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE_SIZE))
            .max_frame_size(Some(MAX_MESSAGE_SIZE))
            .read_buffer_size(READ_BUFFER_SIZE);
        // Plain for ws://; for wss://, rustls with the system's roots (SSL_CERT_FILE when set).
        async_tungstenite::smol::client_async_tls_with_connector_and_config(
            url.as_str(),
            tcp,
            None,
            Some(config),
        )
        .await
        .map(|(ws, _)| ws)
        .map_err(tls_error)
    };
    let late = async {
        Timer::after(HTTP_TIMEOUT).await;
        Err(format!("no WebSocket handshake within {HTTP_TIMEOUT:?}"))
    };
    let ws = handshake.or(late).await.map_err(err)?;
    Ok((url, ws))
}

cdp_supervisor_driver::tls_error_fn!();

/// The WebSocket URL of `endpoint`: a `ws://` URL needs no I/O (and no helper thread);
/// an `http(s)://` address is asked for it on a helper thread (a blocking HTTP GET).
async fn resolve(endpoint: &str) -> Result<String, ClientError> {
    match Endpoint::parse(endpoint)? {
        #[cfg(feature = "launch")]
        Endpoint::DevTools { .. } => {
            let endpoint = endpoint.to_owned();
            Ok(smol::unblock(move || cdp_supervisor_chromium::resolve(&endpoint)).await?)
        }
        _ => Ok(cdp_supervisor_driver::endpoint::ws_url(endpoint)?),
    }
}
