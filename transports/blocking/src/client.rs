//! The client handle: usable from any thread, it talks to the I/O thread ([`crate::io`])
//! over a std channel. Every method only asks; the driver decides.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[cfg(feature = "launch")]
use cdp_supervisor_chromium::Browser;
use cdp_supervisor_driver::cdp_supervisor::act::{ActOptions, ActResult, Action};
use cdp_supervisor_driver::cdp_supervisor::ax::{AxOptions, AxSnapshot};
use cdp_supervisor_driver::cdp_supervisor::evaluate::{MAX_EVAL_TIMEOUT, TRANSPORT_MARGIN};
use cdp_supervisor_driver::cdp_supervisor::{ClosedDialog, DialogError, EvalValue, Evaluation};
use cdp_supervisor_driver::{command_result, Clock, LoopDriver, Reply, Request, Updates};

use crate::{ClientError, ClientEvent, CommandUpdate, DialogAction, DialogPolicy, Options};
use crate::{Snapshot, Value};

/// A handle to a supervised tab over a blocking WebSocket.
///
/// `connect` and `launch` return once the page is live (or blocked by a dialog an
/// earlier client left open: then [`Client::recover`] releases it), within
/// [`Options::connect_timeout`]; a command sent while the page re-attaches after a
/// reconnect waits for it within its own deadline. The example (it runs against a real
/// Chromium) shows the methods below; each says what it adds.
///
/// ```
/// use cdp_supervisor_blocking::{Client, ClientError, CommandUpdate, DialogAction, DialogPolicy, Options};
/// use serde_json::json;
/// use std::time::Duration;
/// let wait = Duration::from_secs(10);
/// let client = Client::launch(Options::default())?;          // headless Chromium, page live
/// let events = client.subscribe()?;                          // a snapshot, then every event
/// client.command(None, "Page.navigate", json!({"url": "data:text/html,<title>Hi</title>"}), wait)?;
/// client.wait_for(wait, "the title", |s| s.frame_tree.top.as_ref().is_some_and(|t| t.url.starts_with("data:")))?;
/// // A dialog blocks an evaluate: the command learns it at once, the agent answers it.
/// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "confirm('ok?')"}), wait)?;
/// let blocked = pending.next_update(wait)?;                   // at once, before any answer
/// let dialog_id = client.snapshot()?.pending_dialogs[0].id.clone();
/// assert_eq!(blocked, CommandUpdate::Blocked { dialog_id: dialog_id.clone() });
/// client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id))?;
/// assert!(pending.wait()?.contains("true"));
/// // The accessibility outline with refs; a ref's node is reachable on its frame's session.
/// client.command(None, "Page.navigate", json!({"url": "data:text/html,<button>OK</button>"}), wait)?;
/// let mut ok = None;
/// for _ in 0..50 {                                           // until the document is parsed
///     ok = client.ax_snapshot(Default::default())?.refs.into_iter().find(|r| r.role == "button");
///     if ok.is_some() { break; }
///     std::thread::sleep(Duration::from_millis(100));
/// }
/// let ok = ok.ok_or(ClientError::Timeout { what: "the button's ref".into(), after: wait })?;
/// client.command(Some(&ok.frame_id), "DOM.resolveNode", json!({"backendNodeId": ok.backend_node_id}), wait)?;
/// client.set_policy(DialogPolicy::AutoDismiss)?;
/// assert!(client.settle(DialogAction::Dismiss)?.is_empty()); // nothing pending
/// assert!(events.try_iter().count() > 1);
/// assert!(client.browser().is_some());
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
/// exactly one `Finished` (see the example on [`Client`]).
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
        while let Ok(update) = self.updates.recv() {
            if let CommandUpdate::Finished(outcome) = update {
                return Ok(outcome?);
            }
        }
        Err(ClientError::Closed)
    }
}

impl Client {
    /// Connects to a browser endpoint (`ws://...` or `http://host:port`) and returns once
    /// its first page (or `options.config.target_id`) is attached.
    pub fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None)
    }

    /// [`Client::connect`] with a subscriber registered before the first message, so
    /// that it sees every event from the start (no initial snapshot is sent).
    pub fn connect_with_events(
        endpoint: &str,
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, Some(events))
    }

    /// Launches a headless Chromium ([`Browser::launch`]) and connects to it; the browser
    /// is closed when the client drops.
    #[cfg(feature = "launch")]
    pub fn launch(options: Options) -> Result<Client, ClientError> {
        Client::launch_with(options, None)
    }

    /// [`Client::launch`] with an initial subscriber as in [`Client::connect_with_events`].
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
        let timeout = options.connect_timeout;
        let subscriber = events.map(|tx| Box::new(move |e| tx.send(e).is_ok()) as _);
        let mut run = LoopDriver::for_client(options, clock.wall_at_start(), subscriber)?;
        let (url, ws) = crate::io::open(endpoint)?;
        run.connected(clock.now(), &url);
        let (requests, rx) = mpsc::channel();
        let endpoint = endpoint.to_owned();
        let thread = std::thread::Builder::new()
            .name("cdp-supervisor-io".into())
            .spawn(move || crate::io::run(run, clock, ws, endpoint, rx))
            .map_err(|e| ClientError::Connect {
                url: cdp_supervisor_driver::endpoint::redact_url(&url),
                error: format!("cannot start the I/O thread: {e}"),
            })?;
        let client = Client {
            requests,
            thread: Mutex::new(Some(thread)),
            #[cfg(feature = "launch")]
            browser: None,
        };
        client.ask(|reply| Request::WaitAttached { timeout, reply })??;
        Ok(client)
    }

    /// The browser this client launched, if it did.
    #[cfg(feature = "launch")]
    pub fn browser(&self) -> Option<&Browser> {
        self.browser.as_ref()
    }

    fn send(&self, request: Request) -> Result<(), ClientError> {
        self.requests.send(request).map_err(|_| ClientError::Closed)
    }

    fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(Reply<T>) -> Request,
    ) -> Result<T, ClientError> {
        let (tx, rx) = mpsc::channel();
        self.send(make(Box::new(move |v| drop(tx.send(v)))))?;
        rx.recv().map_err(|_| ClientError::Closed)
    }

    fn pending(
        &self,
        make: impl FnOnce(Updates) -> Request,
    ) -> Result<PendingCommand, ClientError> {
        let (tx, updates) = mpsc::channel();
        self.send(make(Box::new(move |u| drop(tx.send(u)))))?;
        Ok(PendingCommand { updates })
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot)
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`) and
    /// returns at once; see [`PendingCommand`]. `params` must be a JSON object (or null
    /// for none).
    pub fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        self.pending(|updates| Request::command(frame_id, method, params, timeout, updates))
    }

    /// Sends a command and waits for CDP's `result` object. A dialog that blocks it does
    /// not end the wait (use [`Client::start_command`] to learn of that at once).
    pub fn command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let pending = self.start_command(frame_id, method, params, timeout)?;
        Ok(command_result(&pending.wait()?))
    }

    /// Evaluates a script, or a function on an element, in any frame under one budget
    /// (`evaluation.timeout`): the value as JSON, or [`ClientError::Evaluate`] whose
    /// `code()` says why (`timeout`, `exception`, `blocked`, `stale_ref`, ...). It always
    /// answers within the budget: a stuck script is terminated and the frame stays usable.
    ///
    /// ```
    /// use cdp_supervisor_blocking::{Client, ClientError, Evaluation, Options};
    /// use std::time::Duration;
    /// let client = Client::launch(Options::default())?;
    /// assert_eq!(client.evaluate(Evaluation::new("6 * 7"))?.value, 42);
    /// let stuck = Evaluation::new("while(true){}").within(Duration::from_millis(500));
    /// assert_eq!(client.evaluate(stuck).err().map(|e| e.code()), Some("timeout"));
    /// assert_eq!(client.evaluate(Evaluation::new("'usable'"))?.value, "usable");
    /// # Ok::<(), ClientError>(())
    /// ```
    pub fn evaluate(&self, evaluation: Evaluation) -> Result<EvalValue, ClientError> {
        let wait = evaluation.timeout.min(MAX_EVAL_TIMEOUT) + TRANSPORT_MARGIN;
        let (tx, rx) = mpsc::channel();
        self.send(Request::Evaluate {
            evaluation,
            reply: Box::new(move |v| drop(tx.send(v))),
        })?;
        match rx.recv_timeout(wait) {
            Ok(outcome) => Ok(outcome?),
            Err(RecvTimeoutError::Timeout) => Err(ClientError::Timeout {
                what: "the evaluate's outcome".into(),
                after: wait,
            }),
            Err(RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
        }
    }

    /// Answers a dialog (`None`: the single pending one) and waits until Chromium closed
    /// it.
    pub fn respond_dialog(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<ClosedDialog, ClientError> {
        Ok(self.ask(|reply| Request::dialog(action, prompt_text, dialog_id, reply))??)
    }

    /// Runs an agent action (navigate, click, type, press, scroll, back, reload) and waits
    /// for its result: the page after it settled, the console lines it caused, a
    /// screenshot. A dialog it opens ends it at once (answer it, then act again).
    ///
    /// ```
    /// use cdp_supervisor_blocking::{act::{ActOptions, Action}, Client, Options};
    /// let client = Client::launch(Options::default())?;
    /// let action = Action::Navigate { url: "data:text/html,<title>Hi</title>".into() };
    /// let result = client.act(action, ActOptions::default())?;
    /// assert_eq!((result.title.as_str(), result.navigated, result.settled), ("Hi", true, true));
    /// assert!(result.screenshot.is_some());
    /// # Ok::<(), cdp_supervisor_blocking::ClientError>(())
    /// ```
    pub fn act(&self, action: Action, options: ActOptions) -> Result<ActResult, ClientError> {
        self.ask(|reply| Request::Act {
            action,
            options,
            reply,
        })?
    }

    /// Answers every pending dialog; one outcome per dialog.
    pub fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply })
    }

    /// Releases a page blocked by a dialog left open (a navigation to its URL) and waits
    /// for the navigation's result.
    pub fn recover(&self) -> Result<Value, ClientError> {
        Ok(command_result(&self.pending(Request::Recover)?.wait()?))
    }

    /// An accessibility snapshot of the whole tab, OOPIFs included: the outline with a ref
    /// on each node an agent acts on, and the frames left out with why. Refs stay the same
    /// across snapshots for unchanged nodes; resolve one with `DOM.resolveNode
    /// {backendNodeId}` on its frame (`ref.frame_id`), see the example on [`Client`].
    pub fn ax_snapshot(&self, options: AxOptions) -> Result<AxSnapshot, ClientError> {
        Ok(self.ask(|reply| Request::AxSnapshot { options, reply })??)
    }

    /// Changes the dialog policy for dialogs opened from now on.
    pub fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.send(Request::SetPolicy(policy))
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call (it returns once registered). The channel is unbounded:
    /// read it, or drop it.
    pub fn subscribe(&self) -> Result<Receiver<ClientEvent>, ClientError> {
        let (tx, rx) = mpsc::channel();
        let subscriber = Box::new(move |e| tx.send(e).is_ok());
        self.ask(|registered| Request::Subscribe {
            subscriber,
            registered,
        })?;
        Ok(rx)
    }

    /// Waits until `done` holds for the snapshot, checking again after every event, at
    /// most `timeout`; the error names `what`.
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
            match events.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(_) => while events.try_recv().is_ok() {},
                Err(RecvTimeoutError::Timeout) => {
                    let what = what.to_owned();
                    return Err(ClientError::Timeout {
                        what,
                        after: timeout,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => return Err(ClientError::Closed),
            }
        }
    }

    /// A planned stop: dismisses pending dialogs, waits up to 2 s for them to close (a
    /// dialog left open wedges the tab) and for commands in flight to finish, closes the
    /// socket (which detaches) and joins the I/O thread. Calling it again does nothing.
    pub fn stop(&self) -> Result<(), ClientError> {
        let _ = self.ask(Request::Stop);
        if let Some(thread) = self.thread.lock().ok().and_then(|mut t| t.take()) {
            let _ = thread.join();
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
