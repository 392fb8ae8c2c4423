//! The client's task: does what the [`LoopDriver`] says, racing a socket read, a
//! request and the deadline where it says to wait.

use std::future::Future;
use std::time::Duration;

use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::{self, Message};
use async_tungstenite::WebSocketStream;
use cdp_supervisor_driver::endpoint::{
    with_port, ws_authority, Endpoint, JsonVersion, HTTP_TIMEOUT,
};
use cdp_supervisor_driver::limits::{MAX_MESSAGE_SIZE, READ_BUFFER_SIZE};
use cdp_supervisor_driver::{Action, ClientError, Clock, LoopDriver, Request};
use smol::channel::Receiver;
use smol::future::FutureExt;
use smol::io::{AsyncReadExt, AsyncWriteExt};
use smol::net::TcpStream;
use smol::stream::StreamExt;
use smol::Timer;

pub(crate) type Ws = WebSocketStream<TcpStream>;

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
                let (url, ws) = match open(&endpoint).await {
                    Ok(opened) => opened,
                    Err(e) => {
                        run.connect_failed(clock.now(), e.to_string());
                        continue;
                    }
                };
                socket = Some(ws);
                run.connected(clock.now(), &url);
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

/// Fires after `timeout`; never for `None`.
async fn timer(timeout: Option<Duration>) -> Wake {
    match timeout {
        Some(t) => Timer::after(t).await,
        None => Timer::never().await,
    };
    Wake::Timer
}

/// `io`, or an error when it takes longer than [`HTTP_TIMEOUT`].
async fn within<T>(what: &str, io: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    let late = async {
        Timer::after(HTTP_TIMEOUT).await;
        Err(format!("no {what} within {HTTP_TIMEOUT:?}"))
    };
    io.or(late).await
}

/// Resolves `endpoint` and opens the WebSocket. A `ws://` URL with an IP address needs
/// no helper thread.
pub(crate) async fn open(endpoint: &str) -> Result<(String, Ws), ClientError> {
    let url = resolve(endpoint).await?;
    let err = |error: String| ClientError::Connect {
        url: url.clone(),
        error,
    };
    let authority = ws_authority(&url).map_err(err)?;
    let handshake = async {
        let tcp = TcpStream::connect(with_port(authority))
            .await
            .map_err(|e| format!("cannot connect to {authority}: {e}"))?;
        let _ = tcp.set_nodelay(true);
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE_SIZE))
            .max_frame_size(Some(MAX_MESSAGE_SIZE))
            .read_buffer_size(READ_BUFFER_SIZE);
        async_tungstenite::client_async_with_config(url.as_str(), tcp, Some(config))
            .await
            .map(|(ws, _)| ws)
            .map_err(|e| e.to_string())
    };
    let ws = within("WebSocket handshake", handshake)
        .await
        .map_err(err)?;
    Ok((url, ws))
}

/// The WebSocket URL of `endpoint`, asking `/json/version` for an `http://` one.
async fn resolve(endpoint: &str) -> Result<String, ClientError> {
    let authority = match Endpoint::parse(endpoint)? {
        Endpoint::WebSocket(url) => return Ok(url),
        Endpoint::DevTools { authority } => authority,
    };
    let mut lookup = JsonVersion::new(endpoint, &authority);
    let request = lookup.request();
    let errors = lookup.clone();
    let exchange = async move {
        let mut tcp = TcpStream::connect(with_port(&authority))
            .await
            .map_err(|e| format!("cannot connect to {authority}: {e}"))?;
        tcp.write_all(request.as_bytes())
            .await
            .map_err(|e| format!("cannot send GET /json/version: {e}"))?;
        let mut chunk = [0u8; 4096];
        loop {
            let n = tcp
                .read(&mut chunk)
                .await
                .map_err(|e| format!("cannot read /json/version: {e}"))?;
            if let Some(outcome) = lookup.received(&chunk[..n]) {
                return Ok(outcome);
            }
        }
    };
    let outcome = within("reply from /json/version", exchange)
        .await
        .map_err(|e| errors.failed(e))?;
    Ok(outcome?)
}
