//! The client handle: usable from any thread, it talks to the I/O thread ([`crate::io`])
//! over a std channel. Every method only asks; the driver decides. The methods both
//! transports share are written once (`cdp_supervisor_driver::client_api!`); what is
//! left here is this transport's own: the channels, the thread, `stop`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

#[cfg(feature = "launch")]
use cdp_supervisor_chromium::Browser;
use cdp_supervisor_driver::{Clock, LoopDriver, Request};

use crate::{ClientError, ClientEvent, CommandUpdate, Options};

/// A handle to a supervised tab over a blocking WebSocket.
///
/// `connect` and `launch` return once the page is live (or blocked by a dialog an
/// earlier client left open: then [`Client::recover`] releases it), within
/// [`Options::connect_timeout`]; a command sent while the page re-attaches after a
/// reconnect waits for it within its own deadline. The example (it runs against a real
/// Chromium) shows the methods below; each says what it adds.
///
/// ```
/// use cdp_supervisor_blocking::{act, Client, ClientError, CommandUpdate, DialogAction, DialogPolicy, Evaluation, Options};
/// use serde_json::json;
/// use std::time::Duration;
/// let wait = Duration::from_secs(10);
/// let client = Client::launch(Options::default())?;          // headless Chromium, page live
/// let events = client.subscribe()?;                          // a snapshot, then every event
/// client.command(None, "Page.navigate", json!({"url": "data:text/html,<title>Hi</title>"}), wait)?;
/// client.wait_for(wait, "the title", |s| s.frame_tree.top.as_ref().is_some_and(|t| t.url.starts_with("data:")))?;
/// // An evaluate answers within its budget: a stuck script is stopped, the frame stays usable.
/// assert_eq!(client.evaluate(Evaluation::new("6 * 7"))?.value, 42);
/// let stuck = Evaluation::new("while(true){}").within(Duration::from_millis(500));
/// assert_eq!(client.evaluate(stuck).err().map(|e| e.code()), Some("timeout"));
/// assert_eq!(client.evaluate(Evaluation::new("'usable'"))?.value, "usable");
/// // A dialog blocks an evaluate: the command learns it at once, the agent answers it.
/// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "confirm('ok?')"}), wait)?;
/// let blocked = pending.next_update(wait)?;                   // at once, before any answer
/// let dialog_id = client.snapshot()?.pending_dialogs[0].id.clone();
/// assert_eq!(blocked, CommandUpdate::Blocked { dialog_id: dialog_id.clone() });
/// client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id))?;
/// assert!(pending.wait()?.contains("true"));
/// // An agent action: its result is the page once settled, with a screenshot.
/// let navigate = act::Action::Navigate { url: "data:text/html,<title>Bye</title><button>OK</button>".into() };
/// let result = client.act(navigate, act::ActOptions::default())?;
/// assert_eq!((result.title.as_str(), result.navigated, result.settled), ("Bye", true, true));
/// assert!(result.screenshot.is_some());
/// // The accessibility outline with refs; a ref's node is reachable on its frame's session.
/// let ok = client.ax_snapshot(Default::default())?.refs.into_iter().find(|r| r.role == "button");
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

cdp_supervisor_driver::client_api! {
    async: [], await: [], channel: mpsc::channel, try_send: send,
    example: "the example on [`Client`]", launch: Browser::launch(),
}

impl Client {
    fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        let clock = Clock::start();
        let timeout = options.connect_timeout;
        let subscriber = events.map(Client::subscriber);
        let mut run = LoopDriver::for_client(options, clock.wall_at_start(), subscriber)?;
        let (url, ws) = crate::io::open_first(endpoint, run.headers())?;
        run.connected(clock.now(), &url);
        let (requests, rx) = mpsc::channel();
        let (endpoint, wake) = (endpoint.to_owned(), requests.clone());
        let thread = std::thread::Builder::new()
            .name("cdp-supervisor-io".into())
            .spawn(move || crate::io::run(run, clock, ws, endpoint, rx, wake))
            .map_err(|e| ClientError::connect(&url, format!("cannot start the I/O thread: {e}")))?;
        let client = Client {
            requests,
            thread: Mutex::new(Some(thread)),
            #[cfg(feature = "launch")]
            browser: None,
        };
        client.ask(|reply| Request::WaitAttached { timeout, reply })??;
        Ok(client)
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

/// The next item of `rx` within `wait`, `None` if none came.
fn recv_within<T>(rx: &Receiver<T>, wait: Duration) -> Result<Option<T>, ClientError> {
    match rx.recv_timeout(wait) {
        Ok(item) => Ok(Some(item)),
        Err(RecvTimeoutError::Timeout) => Ok(None),
        Err(RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
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
