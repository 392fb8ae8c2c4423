//! # cdp-supervisor-smol
//!
//! An async transport for [`cdp_supervisor`] on [smol](https://docs.rs/smol): one task
//! owns an async-tungstenite WebSocket and the supervisor, and races a socket read, the
//! core's next deadline and the request channel. A [`Client`] handle talks to it over
//! `smol::channel`s. The I/O helpers (launching Chromium, resolving endpoints, recording
//! traces, the reconnect policy, the request plumbing) are the blocking crate's, re-used
//! here, so both transports behave the same.
//!
//! ```no_run
//! use cdp_supervisor_smol::{Client, Options};
//! use std::time::Duration;
//! smol::block_on(async {
//!     let client = Client::launch(Options::default()).await?;
//!     client.command(None, "Page.navigate", serde_json::json!({"url": "https://example.com"}),
//!         Duration::from_secs(10)).await?;
//!     let snapshot = client.snapshot().await?;
//!     println!("{} frames, {} dialogs pending", snapshot.frame_tree.children.len(),
//!         snapshot.pending_dialogs.len());
//!     client.stop().await                               // settles dialogs, detaches
//! })?;
//! # Ok::<(), cdp_supervisor_smol::ClientError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::{self, Message};
use async_tungstenite::WebSocketStream;
use cdp_supervisor::{ClosedDialog, DialogError};
use cdp_supervisor_blocking::backoff::ReconnectSchedule;
use cdp_supervisor_blocking::client::{raw_params, ws_config};
use cdp_supervisor_blocking::driver::{unix_now, Driver, Reply, Request};
use cdp_supervisor_blocking::endpoint::{resolve, split_ws_url, HTTP_TIMEOUT};
use cdp_supervisor_blocking::token::fill_bridge_token;
use smol::channel::{self, Receiver, Sender};
use smol::future::FutureExt;
use smol::net::TcpStream;
use smol::stream::StreamExt;
use smol::{LocalExecutor, Task, Timer};

pub use cdp_supervisor;
pub use cdp_supervisor::{DialogAction, DialogPolicy, Snapshot};
pub use cdp_supervisor_blocking::{Browser, ClientError, ClientEvent, CommandUpdate, Options};

type Ws = WebSocketStream<TcpStream>;

/// A handle to a supervised tab over an async WebSocket, driven by a task on smol's
/// global executor (or on a `LocalExecutor`: [`Client::connect_local`]). Call [`Client::stop`] before dropping it; a dropped client stops its
/// task in the background.
#[derive(Debug)]
pub struct Client {
    requests: Sender<Request>,
    task: Mutex<Option<Task<()>>>,
    // Last: dropped after the task was told to stop.
    browser: Option<Browser>,
}

/// A command sent with [`Client::start_command`]: zero or more `Blocked` updates, then
/// exactly one `Finished`.
#[derive(Debug)]
pub struct PendingCommand {
    updates: Receiver<CommandUpdate>,
}

impl PendingCommand {
    /// The next update, waiting at most `timeout`.
    pub async fn next_update(&self, timeout: Duration) -> Result<CommandUpdate, ClientError> {
        let update = async { self.updates.recv().await.map_err(|_| ClientError::Closed) };
        let late = async {
            Timer::after(timeout).await;
            Err(ClientError::Timeout {
                what: "a command update".into(),
                after: timeout,
            })
        };
        update.or(late).await
    }

    /// Waits for the outcome: CDP's `result` object as JSON text. The core's deadline
    /// bounds the wait.
    pub async fn wait(self) -> Result<String, ClientError> {
        loop {
            match self.updates.recv().await {
                Ok(CommandUpdate::Blocked { .. }) => continue,
                Ok(CommandUpdate::Finished(outcome)) => return outcome.map_err(Into::into),
                Err(_) => return Err(ClientError::Closed),
            }
        }
    }
}

impl Client {
    /// Connects to a browser endpoint (`ws://...` or `http://host:port`) and attaches to
    /// its first page (or `options.config.target_id`).
    pub async fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None, None, None).await
    }

    /// Like [`Client::connect_with_events`] (the subscriber is optional), but the client's
    /// task is spawned on `executor` instead of smol's global executor (which runs on
    /// threads of its own). With a `ws://` URL no helper thread is used either, so many
    /// clients can share the one thread that runs `executor` (`benches/many_tabs.rs`
    /// runs 1 000 that way). The client makes progress only while `executor` is run.
    pub async fn connect_local(
        executor: &LocalExecutor<'_>,
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, events, None, Some(executor)).await
    }

    /// Like [`Client::connect`], with a subscriber registered before the first message,
    /// so that it sees every event from the start (no initial snapshot is sent).
    pub async fn connect_with_events(
        endpoint: &str,
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, Some(events), None, None).await
    }

    /// Launches a headless Chromium ([`Browser::launch`]) and connects to it; the browser
    /// is closed when the client drops.
    pub async fn launch(options: Options) -> Result<Client, ClientError> {
        let browser = smol::unblock(Browser::launch).await?;
        let url = browser.ws_url().to_owned();
        Client::start(&url, options, None, Some(browser), None).await
    }

    async fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
        browser: Option<Browser>,
        executor: Option<&LocalExecutor<'_>>,
    ) -> Result<Client, ClientError> {
        let mut options = options;
        // SPEC §6.5: the bridge needs a secret the page cannot guess.
        fill_bridge_token(&mut options.config).map_err(ClientError::BridgeToken)?;
        let mut driver = Driver::new(&options).map_err(ClientError::Record)?;
        if let Some(tx) = events {
            driver.add_subscriber(Box::new(move |e| tx.try_send(e).is_ok()));
        }
        let (url, ws) = open(endpoint.to_owned()).await?;
        let (tx, rx) = channel::unbounded();
        let run = run(driver, ws, url, endpoint.to_owned(), rx, options.reconnect);
        let task = match executor {
            Some(executor) => executor.spawn(run),
            None => smol::spawn(run),
        };
        Ok(Client {
            requests: tx,
            task: Mutex::new(Some(task)),
            browser,
        })
    }

    /// The browser this client launched, if it did.
    pub fn browser(&self) -> Option<&Browser> {
        self.browser.as_ref()
    }

    async fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(Reply<T>) -> Request,
    ) -> Result<T, ClientError> {
        let (tx, rx) = channel::bounded(1);
        let reply: Reply<T> = Box::new(move |v| {
            let _ = tx.try_send(v);
        });
        self.requests
            .send(make(reply))
            .await
            .map_err(|_| ClientError::Closed)?;
        rx.recv().await.map_err(|_| ClientError::Closed)
    }

    /// The current snapshot (SPEC §9).
    pub async fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot).await
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`), SPEC
    /// §6.7, and returns at once; see [`PendingCommand`]. `params` must be a JSON object
    /// (or null for none).
    pub async fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        let (tx, rx) = channel::unbounded();
        self.requests
            .send(Request::Command {
                frame_id: frame_id.map(str::to_owned),
                method: method.to_owned(),
                params: raw_params(params),
                timeout,
                updates: Box::new(move |u| {
                    let _ = tx.try_send(u);
                }),
            })
            .await
            .map_err(|_| ClientError::Closed)?;
        Ok(PendingCommand { updates: rx })
    }

    /// Sends a command and waits for CDP's `result` object.
    pub async fn command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let pending = self
            .start_command(frame_id, method, params, timeout)
            .await?;
        let text = pending.wait().await?;
        Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
    }

    /// Answers a dialog (SPEC §6.3) and waits until Chromium closed it.
    pub async fn respond_dialog(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<ClosedDialog, ClientError> {
        let prompt_text = prompt_text.map(str::to_owned);
        let dialog_id = dialog_id.map(str::to_owned);
        self.ask(|reply| Request::Dialog {
            action,
            prompt_text,
            dialog_id,
            reply,
        })
        .await?
        .map_err(Into::into)
    }

    /// Answers every pending dialog; one outcome per dialog.
    pub async fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply }).await
    }

    /// Releases a blocked page (SPEC §6.8) and waits for the navigation's result.
    pub async fn recover(&self) -> Result<serde_json::Value, ClientError> {
        let (tx, rx) = channel::unbounded();
        self.requests
            .send(Request::Recover(Box::new(move |u| {
                let _ = tx.try_send(u);
            })))
            .await
            .map_err(|_| ClientError::Closed)?;
        let text = PendingCommand { updates: rx }.wait().await?;
        Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
    }

    /// Changes the dialog policy for dialogs opened from now on.
    pub async fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.requests
            .send(Request::SetPolicy(policy))
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call. The channel is unbounded: read it, or drop it.
    pub async fn subscribe(&self) -> Result<Receiver<ClientEvent>, ClientError> {
        let (tx, rx) = channel::unbounded();
        self.ask(|registered| Request::Subscribe {
            subscriber: Box::new(move |e| tx.try_send(e).is_ok()),
            registered,
        })
        .await?;
        Ok(rx)
    }

    /// Waits until `done` holds for the snapshot, checking again after every event.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        what: &str,
        mut done: impl FnMut(&Snapshot) -> bool,
    ) -> Result<Snapshot, ClientError> {
        let events = self.subscribe().await?;
        let end = Instant::now() + timeout;
        loop {
            let snapshot = self.snapshot().await?;
            if done(&snapshot) {
                return Ok(snapshot);
            }
            let next = async { events.recv().await.map_err(|_| ClientError::Closed) };
            let late = async {
                Timer::at(end).await;
                Err(ClientError::Timeout {
                    what: what.to_owned(),
                    after: timeout,
                })
            };
            next.or(late).await?;
            while events.try_recv().is_ok() {}
        }
    }

    /// A planned stop: dismisses pending dialogs, waits up to 2 s for them to close (a
    /// dialog left open wedges the tab, fact 11) and for commands in flight to finish,
    /// closes the socket (which detaches) and waits for the task. Calling it again does
    /// nothing.
    pub async fn stop(&self) -> Result<(), ClientError> {
        let _ = self.ask(Request::Stop).await;
        let task = self.task.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = task {
            t.await;
        }
        Ok(())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Cannot await here: the task sees its request channel close, stops as planned
        // and ends on its own.
        if let Some(t) = self.task.lock().ok().and_then(|mut t| t.take()) {
            t.detach();
        }
    }
}

/// Resolves `endpoint` (an `http://` one off the executor: a blocking HTTP GET; a `ws://`
/// URL needs no I/O, so no helper thread) and opens the WebSocket.
async fn open(endpoint: String) -> Result<(String, Ws), ClientError> {
    let url = if endpoint.starts_with("ws://") {
        resolve(&endpoint)?
    } else {
        smol::unblock(move || resolve(&endpoint)).await?
    };
    let err = |error: String| ClientError::Connect {
        url: url.clone(),
        error,
    };
    let (authority, _) =
        split_ws_url(&url).ok_or_else(|| err("not a ws://HOST:PORT/PATH URL".into()))?;
    let connect = async {
        let tcp = TcpStream::connect(authority)
            .await
            .map_err(|e| format!("cannot connect to {authority}: {e}"))?;
        let _ = tcp.set_nodelay(true);
        async_tungstenite::client_async_with_config(url.as_str(), tcp, Some(ws_config()))
            .await
            .map(|(ws, _)| ws)
            .map_err(|e| e.to_string())
    };
    let late = async {
        Timer::after(HTTP_TIMEOUT).await;
        Err(format!("no WebSocket handshake within {HTTP_TIMEOUT:?}"))
    };
    let ws = connect.or(late).await.map_err(err)?;
    Ok((url, ws))
}

/// What woke the loop.
enum Wake {
    Message(Option<Result<Message, tungstenite::Error>>),
    Request(Option<Request>),
    Timer,
}

/// The I/O task: the same steps as the blocking transport's thread, with the socket
/// read, the deadline and the request channel raced instead of polled.
async fn run(
    mut driver: Driver,
    ws: Ws,
    url: String,
    endpoint: String,
    requests: Receiver<Request>,
    reconnect: bool,
) {
    let mut socket = Some(ws);
    driver.connected(unix_now(), &url, false);
    let mut schedule = ReconnectSchedule::new();
    let mut handles_gone = false;
    loop {
        let now = unix_now();
        while let Ok(r) = requests.try_recv() {
            driver.request(now, r);
        }
        if requests.is_closed() && !handles_gone {
            // Every handle is gone: stop as planned.
            handles_gone = true;
            driver.begin_stop(now);
        }
        if driver.stop_ready(now) {
            if let Some(mut ws) = socket.take() {
                let _ = flush(&mut driver, &mut ws).await;
                let _ = ws.close(None).await;
            }
            driver.finish_stop(unix_now());
            return;
        }
        let deadline = driver.next_deadline(); // includes a planned stop's grace deadline
        let timer = match deadline {
            Some(d) => match Duration::try_from_secs_f64((d - now).max(0.0)) {
                Ok(left) => Timer::after(left),
                Err(_) => Timer::never(),
            },
            None => Timer::never(),
        };
        let next_request = async {
            if handles_gone {
                smol::future::pending::<()>().await;
            }
            Wake::Request(requests.recv().await.ok())
        };
        let mut lost: Option<String> = None;
        match socket.as_mut() {
            Some(ws) => {
                if let Err(e) = flush(&mut driver, ws).await {
                    lost = Some(e);
                } else {
                    let read = async { Wake::Message(ws.next().await) };
                    let fire = async {
                        timer.await;
                        Wake::Timer
                    };
                    match read.or(next_request).or(fire).await {
                        Wake::Message(Some(Ok(Message::Text(text)))) => {
                            driver.message(unix_now(), text.as_str())
                        }
                        Wake::Message(Some(Ok(Message::Close(frame)))) => {
                            lost = Some(format!("the browser closed the WebSocket ({frame:?})"))
                        }
                        Wake::Message(Some(Ok(_))) => {}
                        Wake::Message(Some(Err(e))) => {
                            lost = Some(format!("the WebSocket failed: {e}"))
                        }
                        Wake::Message(None) => lost = Some("the WebSocket ended".into()),
                        Wake::Request(Some(r)) => driver.request(unix_now(), r),
                        Wake::Request(None) | Wake::Timer => {}
                    }
                }
            }
            None => {
                let due = schedule.due();
                let wait = async {
                    Timer::at(due).await;
                    Wake::Timer
                };
                match next_request.or(wait).await {
                    Wake::Request(Some(r)) => driver.request(unix_now(), r),
                    Wake::Timer => match open(endpoint.clone()).await {
                        Ok((u, ws)) => {
                            socket = Some(ws);
                            schedule.succeeded();
                            driver.connected(unix_now(), &u, true);
                        }
                        Err(e) => {
                            if let Err(why) = schedule.failed(&e.to_string()) {
                                driver.gave_up(why);
                                return;
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
        if let Some(error) = lost {
            socket = None;
            if !driver.connection_lost(unix_now(), error, reconnect) {
                return;
            }
            schedule.lost();
        }
        driver.timeout(unix_now());
    }
}

async fn flush(driver: &mut Driver, ws: &mut Ws) -> Result<(), String> {
    while let Some(json) = driver.poll_transmit() {
        ws.send(Message::text(json))
            .await
            .map_err(|e| format!("writing to the WebSocket failed: {e}"))?;
    }
    Ok(())
}
