//! The client handle: usable from any thread, it talks to the I/O thread ([`crate::io`])
//! over a std channel.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[cfg(feature = "launch")]
use cdp_supervisor_chromium::Browser;
use cdp_supervisor_driver::cdp_supervisor::{ClosedDialog, DialogError};
use cdp_supervisor_driver::{
    command_result, ClientError, ClientEvent, Clock, CommandUpdate, DialogAction, DialogPolicy,
    LoopDriver, Options, Reply, Request, Snapshot,
};

/// A handle to a supervised tab over a blocking WebSocket.
///
/// `connect` and `launch` return once the page is live (or blocked by a dialog an
/// earlier client left open: then [`Client::recover`] releases it), within
/// [`Options::connect_timeout`]; a command sent while the page re-attaches after a
/// reconnect waits for it within its own deadline.
///
/// ```
/// use cdp_supervisor_blocking::{Client, Options};
/// use std::time::Duration;
/// let client = Client::launch(Options::default())?;          // headless Chromium, page live
/// client.command(None, "Page.navigate", serde_json::json!({"url": "data:text/html,<title>Hi</title>"}),
///     Duration::from_secs(10))?;
/// let snapshot = client.snapshot()?;
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
    #[cfg(feature = "launch")]
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
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "alert('hi')"}), Duration::from_secs(10))?;
    /// if let CommandUpdate::Blocked { dialog_id } = pending.next_update(Duration::from_secs(5))? {
    ///     client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id))?;
    /// }
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "1 + 1"}), Duration::from_secs(10))?;
    /// let result = pending.wait()?; // CDP's `result` object as JSON text
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let client = Client::connect("http://127.0.0.1:9222", Options::default())?; // page live on return
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None)
    }

    /// Like [`Client::connect`], with a subscriber registered before the first message,
    /// so that it sees every event from the start (no initial snapshot is sent).
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let (events_tx, events) = std::sync::mpsc::channel();
    /// let client = Client::connect_with_events("ws://127.0.0.1:9222/devtools/browser/ID", Options::default(), events_tx)?;
    /// let first = events.recv_timeout(Duration::from_secs(5)); // ClientEvent::Connected
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn connect_with_events(
        endpoint: &str,
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, Some(events))
    }

    /// Launches a headless Chromium ([`Browser::launch`]) and connects to it; the browser
    /// is closed when the client drops.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let client = Client::launch(Options::default())?;
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
    pub fn launch(options: Options) -> Result<Client, ClientError> {
        Client::launch_with(options, None)
    }

    /// [`Client::launch`] with an initial subscriber as in [`Client::connect_with_events`].
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let (events_tx, events) = std::sync::mpsc::channel();
    /// let client = Client::launch_with_events(Options::default(), events_tx)?;
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
    pub fn launch_with_events(
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::launch_with(options, Some(events))
    }

    #[cfg(feature = "launch")]
    fn launch_with(
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        let browser = Browser::launch().map_err(|e| ClientError::Launch(Box::new(e)))?;
        let mut client = Client::start(browser.ws_url(), options, events)?;
        client.browser = Some(browser);
        Ok(client)
    }

    fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        let clock = Clock::start();
        let connect_timeout = options.connect_timeout;
        let mut run = LoopDriver::for_client(options, clock.wall_at_start())?;
        if let Some(tx) = events {
            run.add_subscriber(Box::new(move |e| tx.send(e).is_ok()));
        }
        let (url, ws) = crate::io::open(endpoint)?;
        run.connected(clock.now(), &url);
        let (requests, rx) = mpsc::channel();
        let endpoint = endpoint.to_owned();
        let thread = std::thread::Builder::new()
            .name("cdp-supervisor-io".into())
            .spawn(move || crate::io::run(run, clock, ws, endpoint, rx))
            .map_err(|e| ClientError::Connect {
                url,
                error: format!("cannot start the I/O thread: {e}"),
            })?;
        let client = Client {
            requests,
            thread: Mutex::new(Some(thread)),
            #[cfg(feature = "launch")]
            browser: None,
        };
        client.ask(|reply| Request::WaitAttached {
            timeout: connect_timeout,
            reply,
        })??;
        Ok(client)
    }

    /// The browser this client launched, if it did.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let client = Client::launch(Options::default())?;
    /// println!("DevTools at {}", client.browser().map(|b| b.http_url()).unwrap_or_default());
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
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

    /// The current snapshot.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let snapshot = client.snapshot()?;
    /// println!("{} frames listed", snapshot.frame_tree.children.len());
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot)
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`),
    /// and returns at once; see [`PendingCommand`]. `params` must be a JSON object
    /// (or null for none).
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let pending = client.start_command(Some("FRAME_ID"), "Runtime.evaluate", json!({"expression": "document.title"}), Duration::from_secs(10))?;
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        let (tx, rx) = mpsc::channel();
        let updates = Box::new(move |u| {
            let _ = tx.send(u);
        });
        let request = Request::command(frame_id, method, params, timeout, updates);
        self.requests
            .send(request)
            .map_err(|_| ClientError::Closed)?;
        Ok(PendingCommand { updates: rx })
    }

    /// Sends a command and waits for CDP's `result` object. A dialog that blocks it does
    /// not end the wait (use [`Client::start_command`] to learn of that at once).
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let title = client.command(Some("FRAME_ID"), "Runtime.evaluate",
    ///     json!({"expression": "document.title", "returnByValue": true}), Duration::from_secs(10))?;
    /// println!("{}", title["result"]["value"]);
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let pending = self.start_command(frame_id, method, params, timeout)?;
        Ok(command_result(&pending.wait()?))
    }

    /// Answers a dialog and waits until Chromium closed it.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let closed = client.respond_dialog(DialogAction::Accept, Some("typed text"), None)?;
    /// println!("{} closed by {:?}", closed.id, closed.closed_by);
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn respond_dialog(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<ClosedDialog, ClientError> {
        let outcome = self.ask(|reply| Request::dialog(action, prompt_text, dialog_id, reply))?;
        Ok(outcome?)
    }

    /// Answers every pending dialog; one outcome per dialog.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// for outcome in client.settle(DialogAction::Dismiss)? {
    ///     println!("{outcome:?}");
    /// }
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply })
    }

    /// Releases a blocked page and waits for the navigation's result.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// if client.snapshot()?.page.is_some_and(|p| p.state == PageState::Blocked) {
    ///     client.recover()?;
    /// }
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn recover(&self) -> Result<serde_json::Value, ClientError> {
        let (tx, rx) = mpsc::channel();
        self.requests
            .send(Request::Recover(Box::new(move |u| {
                let _ = tx.send(u);
            })))
            .map_err(|_| ClientError::Closed)?;
        Ok(command_result(&PendingCommand { updates: rx }.wait()?))
    }

    /// Changes the dialog policy for dialogs opened from now on.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// client.set_policy(DialogPolicy::AutoDismiss)?;
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.requests
            .send(Request::SetPolicy(policy))
            .map_err(|_| ClientError::Closed)
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call. The channel is unbounded: read it, or drop it.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let events = client.subscribe()?;
    /// let first = events.recv(); // ClientEvent::Snapshot, then every event
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// let snapshot = client.wait_for(Duration::from_secs(20), "two frames", |s| s.frame_tree.children.len() >= 2)?;
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
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
    /// dialog left open wedges the tab) and for commands in flight to finish,
    /// closes the socket (which detaches) and joins the I/O thread. Calling it again
    /// does nothing.
    ///
    /// ```no_run
    /// use cdp_supervisor_blocking::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # let client = Client::launch(Options::default())?;
    /// client.stop()?; // dismisses pending dialogs, detaches
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
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
}
