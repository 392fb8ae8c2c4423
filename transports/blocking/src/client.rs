//! The blocking transport: one I/O thread owns the socket and the [`Driver`]; a
//! [`Client`] handle, usable from any thread, talks to it over a std channel.
//!
//! The loop: write what the core queued, read one frame with a timeout of at most 20 ms
//! (or less when the core's next deadline is sooner), feed it in, fire due timers, take
//! the requests that arrived. The short timeout is how the thread notices requests: std
//! has no way to wait on a socket and a channel at once.

use std::io::ErrorKind;
use std::net::TcpStream;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cdp_supervisor::{ClosedDialog, DialogAction, DialogError, DialogPolicy, Snapshot};
use serde_json::value::RawValue;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use crate::backoff::ReconnectSchedule;
use crate::driver::{unix_now, ClientEvent, CommandUpdate, Driver, Options, Reply, Request};
use crate::endpoint::{connect_tcp, resolve, split_ws_url};
use crate::error::ClientError;
use crate::launch::Browser;
use crate::token::fill_bridge_token;

/// The longest the I/O thread blocks in a read, so that requests are taken promptly.
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// WebSocket message and frame cap: large enough for full-page screenshots.
pub const MAX_MESSAGE_SIZE: usize = 256 << 20;

/// The WebSocket configuration both transports use.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_SIZE))
        .max_frame_size(Some(MAX_MESSAGE_SIZE))
        // The default 128 KiB read buffer was most of a supervised tab's memory (the
        // many-tabs benchmark); large messages still grow their own buffer.
        .read_buffer_size(READ_BUFFER_SIZE)
}

/// The WebSocket read buffer per connection.
pub const READ_BUFFER_SIZE: usize = 8 * 1024;

type Ws = WebSocket<TcpStream>;

/// A handle to a supervised tab over a blocking WebSocket.
///
/// ```no_run
/// use cdp_supervisor_blocking::{Client, Options};
/// use std::time::Duration;
/// let client = Client::launch(Options::default())?;          // headless Chromium
/// client.command(None, "Page.navigate", serde_json::json!({"url": "https://example.com"}),
///     Duration::from_secs(10))?;
/// let snapshot = client.snapshot()?;                         // SPEC §9
/// for dialog in &snapshot.pending_dialogs {
///     println!("{} says {:?}", dialog.frame_id, dialog.message);
/// }
/// client.stop()?;                                            // settles dialogs, detaches
/// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
/// ```
#[derive(Debug)]
pub struct Client {
    requests: Sender<Request>,
    thread: Mutex<Option<JoinHandle<()>>>,
    // Declared last: dropped after `Drop::drop` has stopped and joined the I/O thread.
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
    pub fn next_update(&self, timeout: Duration) -> Result<CommandUpdate, ClientError> {
        self.updates.recv_timeout(timeout).map_err(|e| match e {
            RecvTimeoutError::Timeout => ClientError::Timeout {
                what: "a command update".into(),
                after: timeout,
            },
            RecvTimeoutError::Disconnected => ClientError::Closed,
        })
    }

    /// Waits for the outcome: CDP's `result` object as JSON text. The core's deadline
    /// bounds the wait.
    pub fn wait(self) -> Result<String, ClientError> {
        loop {
            match self.updates.recv() {
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
    pub fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None, None)
    }

    /// Like [`Client::connect`], with a subscriber registered before the first message,
    /// so that it sees every event from the start (no initial snapshot is sent).
    pub fn connect_with_events(
        endpoint: &str,
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, Some(events), None)
    }

    /// Launches a headless Chromium ([`Browser::launch`]) and connects to it; the browser
    /// is closed when the client drops.
    pub fn launch(options: Options) -> Result<Client, ClientError> {
        Client::launch_with_events_opt(options, None)
    }

    /// [`Client::launch`] with an initial subscriber as in [`Client::connect_with_events`].
    pub fn launch_with_events(
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::launch_with_events_opt(options, Some(events))
    }

    fn launch_with_events_opt(
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        let browser = Browser::launch()?;
        let url = browser.ws_url().to_owned();
        Client::start(&url, options, events, Some(browser))
    }

    fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
        browser: Option<Browser>,
    ) -> Result<Client, ClientError> {
        let mut options = options;
        // SPEC §6.5: the bridge needs a secret the page cannot guess.
        fill_bridge_token(&mut options.config).map_err(ClientError::BridgeToken)?;
        let mut driver = Driver::new(&options).map_err(ClientError::Record)?;
        if let Some(tx) = events {
            driver.add_subscriber(Box::new(move |e| tx.send(e).is_ok()));
        }
        let url = resolve(endpoint)?;
        let ws = open_ws(&url)?;
        let (tx, rx) = mpsc::channel();
        let endpoint = endpoint.to_owned();
        let reconnect = options.reconnect;
        let thread = std::thread::Builder::new()
            .name("cdp-supervisor-io".into())
            .spawn(move || run(driver, ws, url, endpoint, rx, reconnect))
            .map_err(|e| ClientError::Connect {
                url: "(thread)".into(),
                error: format!("cannot start the I/O thread: {e}"),
            })?;
        Ok(Client {
            requests: tx,
            thread: Mutex::new(Some(thread)),
            browser,
        })
    }

    /// The browser this client launched, if it did.
    pub fn browser(&self) -> Option<&Browser> {
        self.browser.as_ref()
    }

    fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(Reply<T>) -> Request,
    ) -> Result<T, ClientError> {
        let (tx, rx) = mpsc::channel();
        let reply: Reply<T> = Box::new(move |v| {
            let _ = tx.send(v);
        });
        self.requests
            .send(make(reply))
            .map_err(|_| ClientError::Closed)?;
        rx.recv().map_err(|_| ClientError::Closed)
    }

    /// The current snapshot (SPEC §9).
    pub fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot)
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`), SPEC
    /// §6.7, and returns at once; see [`PendingCommand`]. `params` must be a JSON object
    /// (or null for none).
    pub fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        let params = raw_params(params);
        let (tx, rx) = mpsc::channel();
        self.requests
            .send(Request::Command {
                frame_id: frame_id.map(str::to_owned),
                method: method.to_owned(),
                params,
                timeout,
                updates: Box::new(move |u| {
                    let _ = tx.send(u);
                }),
            })
            .map_err(|_| ClientError::Closed)?;
        Ok(PendingCommand { updates: rx })
    }

    /// Sends a command and waits for CDP's `result` object. A dialog that blocks it does
    /// not end the wait (use [`Client::start_command`] to learn of that at once).
    pub fn command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let text = self
            .start_command(frame_id, method, params, timeout)?
            .wait()?;
        Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
    }

    /// Answers a dialog (SPEC §6.3) and waits until Chromium closed it.
    pub fn respond_dialog(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<ClosedDialog, ClientError> {
        self.ask(|reply| Request::Dialog {
            action,
            prompt_text: prompt_text.map(str::to_owned),
            dialog_id: dialog_id.map(str::to_owned),
            reply,
        })?
        .map_err(Into::into)
    }

    /// Answers every pending dialog; one outcome per dialog.
    pub fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply })
    }

    /// Releases a blocked page (SPEC §6.8) and waits for the navigation's result.
    pub fn recover(&self) -> Result<serde_json::Value, ClientError> {
        let (tx, rx) = mpsc::channel();
        self.requests
            .send(Request::Recover(Box::new(move |u| {
                let _ = tx.send(u);
            })))
            .map_err(|_| ClientError::Closed)?;
        let text = PendingCommand { updates: rx }.wait()?;
        Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
    }

    /// Changes the dialog policy for dialogs opened from now on.
    pub fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.requests
            .send(Request::SetPolicy(policy))
            .map_err(|_| ClientError::Closed)
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call. The channel is unbounded: read it, or drop it.
    pub fn subscribe(&self) -> Result<Receiver<ClientEvent>, ClientError> {
        let (tx, rx) = mpsc::channel();
        // Returns once registered: every event after this call is delivered.
        self.ask(|registered| Request::Subscribe {
            subscriber: Box::new(move |e| tx.send(e).is_ok()),
            registered,
        })?;
        Ok(rx)
    }

    /// Waits until `done` holds for the snapshot, checking again after every event.
    pub fn wait_for(
        &self,
        timeout: Duration,
        what: &str,
        mut done: impl FnMut(&Snapshot) -> bool,
    ) -> Result<Snapshot, ClientError> {
        let events = self.subscribe()?;
        let end = Instant::now() + timeout;
        loop {
            let snapshot = self.snapshot()?;
            if done(&snapshot) {
                return Ok(snapshot);
            }
            let left = end.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(_) => while events.try_recv().is_ok() {},
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        what: what.to_owned(),
                        after: timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => return Err(ClientError::Closed),
            }
        }
    }

    /// A planned stop: dismisses pending dialogs, waits up to 2 s for them to close (a
    /// dialog left open wedges the tab, fact 11) and for commands in flight to finish,
    /// closes the socket (which detaches) and joins the I/O thread. Calling it again
    /// does nothing.
    pub fn stop(&self) -> Result<(), ClientError> {
        let _ = self.ask(Request::Stop);
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = thread {
            let _ = t.join();
        }
        Ok(())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// `params` as raw JSON for the core; `null` means none.
pub fn raw_params(params: serde_json::Value) -> Option<Box<RawValue>> {
    if params.is_null() {
        return None;
    }
    serde_json::value::to_raw_value(&params).ok()
}

/// Opens the WebSocket to a `ws://` URL with [`ws_config`].
fn open_ws(url: &str) -> Result<Ws, ClientError> {
    let err = |error: String| ClientError::Connect {
        url: url.to_owned(),
        error,
    };
    let (authority, _) =
        split_ws_url(url).ok_or_else(|| err("not a ws://HOST:PORT/PATH URL".into()))?;
    let stream = connect_tcp(authority).map_err(err)?;
    let (ws, _response) = tungstenite::client::client_with_config(url, stream, Some(ws_config()))
        .map_err(|e| err(e.to_string()))?;
    Ok(ws)
}

fn close_ws(ws: &mut Ws) {
    let _ = ws.close(None);
    let _ = ws
        .get_mut()
        .set_read_timeout(Some(Duration::from_millis(200)));
    // Wait briefly for the browser's close reply so the close is clean.
    let end = Instant::now() + Duration::from_millis(500);
    while Instant::now() < end {
        match ws.read() {
            Ok(_) => continue,
            Err(_) => break,
        }
    }
}

fn read_timeout(driver: &Driver, now: f64) -> Duration {
    let deadline = driver.next_deadline(); // includes a planned stop's grace deadline
    let until = deadline.map_or(POLL_INTERVAL, |d| {
        Duration::from_secs_f64((d - now).clamp(0.0, POLL_INTERVAL.as_secs_f64()))
    });
    until.max(Duration::from_millis(1))
}

/// The I/O thread.
fn run(
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
    loop {
        let now = unix_now();
        loop {
            match requests.try_recv() {
                Ok(r) => driver.request(now, r),
                Err(TryRecvError::Empty) => break,
                // Every handle is gone: stop as planned.
                Err(TryRecvError::Disconnected) => {
                    driver.begin_stop(now);
                    break;
                }
            }
        }
        if driver.stop_ready(now) {
            if let Some(mut s) = socket.take() {
                let _ = flush_transmits(&mut driver, &mut s);
                close_ws(&mut s);
            }
            driver.finish_stop(unix_now());
            return;
        }
        let mut lost: Option<String> = None;
        match socket.as_mut() {
            Some(s) => {
                if let Err(e) = flush_transmits(&mut driver, s) {
                    lost = Some(e);
                } else {
                    let _ = s
                        .get_mut()
                        .set_read_timeout(Some(read_timeout(&driver, now)));
                    match s.read() {
                        Ok(Message::Text(text)) => driver.message(unix_now(), text.as_str()),
                        Ok(Message::Close(frame)) => {
                            lost = Some(format!("the browser closed the WebSocket ({frame:?})"))
                        }
                        Ok(_) => {}
                        Err(tungstenite::Error::Io(e))
                            if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                        Err(e) => lost = Some(format!("the WebSocket failed: {e}")),
                    }
                }
            }
            None => {
                let due = schedule.due();
                let wait = due.saturating_duration_since(Instant::now());
                if !wait.is_zero() {
                    std::thread::sleep(wait.min(POLL_INTERVAL));
                } else {
                    match resolve(&endpoint)
                        .map_err(|e| e.to_string())
                        .and_then(|u| open_ws(&u).map(|ws| (u, ws)).map_err(|e| e.to_string()))
                    {
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
                    }
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

fn flush_transmits(driver: &mut Driver, ws: &mut Ws) -> Result<(), String> {
    while let Some(json) = driver.poll_transmit() {
        ws.send(Message::text(json))
            .map_err(|e| format!("writing to the WebSocket failed: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_is_shareable_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<Client>();
        send::<PendingCommand>();
    }

    #[test]
    fn read_timeout_is_short_and_positive() {
        let driver = Driver::new(&Options::default()).unwrap();
        assert_eq!(read_timeout(&driver, 0.0), POLL_INTERVAL);
    }
}
