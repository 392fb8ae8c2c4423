//! The client handle: it talks to the client's task ([`crate::io`]) over
//! `smol::channel`s.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cdp_supervisor_driver::{command_result, Clock, LoopDriver, Reply, Request};
use smol::channel::{self, Receiver, Sender};
use smol::future::FutureExt;
use smol::{LocalExecutor, Task, Timer};

use crate::cdp_supervisor::{ClosedDialog, DialogError};
#[cfg(feature = "launch")]
use crate::Browser;
use crate::{
    ClientError, ClientEvent, CommandUpdate, DialogAction, DialogPolicy, Options, Snapshot,
};

/// A handle to a supervised tab over an async WebSocket, driven by a task on smol's
/// global executor (or on a `LocalExecutor`: [`Client::connect_local`]). Call
/// [`Client::stop`] before dropping it; a dropped client stops its task in the background.
#[derive(Debug)]
pub struct Client {
    task: Mutex<Option<Task<()>>>,
    requests: Sender<Request>,
    #[cfg(feature = "launch")]
    browser: Option<Browser>, // last: dropped after the task was told to stop
}

/// The updates of a command sent with [`Client::start_command`], as the blocking
/// transport's `PendingCommand` gives them: any number of `Blocked`, then one `Finished`.
#[derive(Debug)]
pub struct PendingCommand {
    updates: Receiver<CommandUpdate>,
}

impl PendingCommand {
    /// The next update, waiting at most `timeout`.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "alert('hi')"}), Duration::from_secs(10)).await?;
    /// if let CommandUpdate::Blocked { dialog_id } = pending.next_update(Duration::from_secs(5)).await? {
    ///     client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id)).await?;
    /// }
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let pending = client.start_command(None, "Runtime.evaluate", json!({"expression": "1 + 1"}), Duration::from_secs(10)).await?;
    /// let result = pending.wait().await?; // CDP's `result` object as JSON text
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// let client = Client::connect("http://127.0.0.1:9222", Options::default()).await?; // page live on return
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None, None).await
    }

    /// Like [`Client::connect`], with a subscriber registered before the first message,
    /// so that it sees every event from the start (no initial snapshot is sent).
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// let (events_tx, events) = smol::channel::unbounded();
    /// let client = Client::connect_with_events("ws://127.0.0.1:9222/devtools/browser/ID", Options::default(), events_tx).await?;
    /// let first = events.recv().await; // ClientEvent::Connected
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn connect_with_events(
        endpoint: &str,
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::start(endpoint, options, Some(events), None).await
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
        Client::start(endpoint, options, events, Some(executor)).await
    }

    /// Launches a headless Chromium ([`Browser::launch`], on a helper thread) and
    /// connects to it; the browser is closed when the client drops.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// let client = Client::launch(Options::default()).await?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
    pub async fn launch(options: Options) -> Result<Client, ClientError> {
        Client::launch_with(options, None).await
    }

    /// [`Client::launch`] with an initial subscriber as in [`Client::connect_with_events`].
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// let (events_tx, events) = smol::channel::unbounded();
    /// let client = Client::launch_with_events(Options::default(), events_tx).await?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
    pub async fn launch_with_events(
        options: Options,
        events: Sender<ClientEvent>,
    ) -> Result<Client, ClientError> {
        Client::launch_with(options, Some(events)).await
    }

    #[cfg(feature = "launch")]
    async fn launch_with(
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        let browser = smol::unblock(Browser::launch)
            .await
            .map_err(|e| ClientError::Launch(Box::new(e)))?;
        let mut client = Client::start(browser.ws_url(), options, events, None).await?;
        client.browser = Some(browser);
        Ok(client)
    }

    async fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
        executor: Option<&LocalExecutor<'_>>,
    ) -> Result<Client, ClientError> {
        let clock = Clock::start();
        let connect_timeout = options.connect_timeout;
        let mut run = LoopDriver::for_client(options, clock.wall_at_start())?;
        if let Some(tx) = events {
            run.add_subscriber(Box::new(move |e| tx.try_send(e).is_ok()));
        }
        let (url, ws) = crate::io::open(endpoint).await?;
        run.connected(clock.now(), &url);
        let (requests, rx) = channel::unbounded();
        let task = crate::io::run(run, clock, rx, endpoint.to_owned(), ws);
        let task = match executor {
            Some(executor) => executor.spawn(task),
            None => smol::spawn(task),
        };
        let client = Client {
            requests,
            task: Mutex::new(Some(task)),
            #[cfg(feature = "launch")]
            browser: None,
        };
        let attached = client.ask(|reply| Request::WaitAttached {
            timeout: connect_timeout,
            reply,
        });
        attached.await??;
        Ok(client)
    }

    /// The browser this client launched, if it did.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// let client = Client::launch(Options::default()).await?;
    /// println!("DevTools at {}", client.browser().map(|b| b.http_url()).unwrap_or_default());
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    #[cfg(feature = "launch")]
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

    /// The current snapshot.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let snapshot = client.snapshot().await?;
    /// println!("{} frames listed", snapshot.frame_tree.children.len());
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot).await
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`),
    /// and returns at once; see [`PendingCommand`]. `params` must be a JSON object
    /// (or null for none).
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let pending = client.start_command(Some("FRAME_ID"), "Runtime.evaluate", json!({"expression": "document.title"}), Duration::from_secs(10)).await?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        let (tx, updates) = channel::unbounded();
        let to_caller = Box::new(move |u| drop(tx.try_send(u)));
        let request = Request::command(frame_id, method, params, timeout, to_caller);
        let sent = self.requests.send(request).await;
        sent.map_err(|_| ClientError::Closed)?;
        Ok(PendingCommand { updates })
    }

    /// Sends a command and waits for CDP's `result` object.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let title = client.command(Some("FRAME_ID"), "Runtime.evaluate",
    ///     json!({"expression": "document.title", "returnByValue": true}), Duration::from_secs(10)).await?;
    /// println!("{}", title["result"]["value"]);
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
        Ok(command_result(&pending.wait().await?))
    }

    /// Answers a dialog and waits until Chromium closed it.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let closed = client.respond_dialog(DialogAction::Accept, Some("typed text"), None).await?;
    /// println!("{} closed by {:?}", closed.id, closed.closed_by);
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn respond_dialog(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<ClosedDialog, ClientError> {
        let request = |reply| Request::dialog(action, prompt_text, dialog_id, reply);
        Ok(self.ask(request).await??)
    }

    /// Answers every pending dialog; one outcome per dialog.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// for outcome in client.settle(DialogAction::Dismiss).await? {
    ///     println!("{outcome:?}");
    /// }
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply }).await
    }

    /// Releases a blocked page and waits for the navigation's result.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// if client.snapshot().await?.page.is_some_and(|p| p.state == PageState::Blocked) {
    ///     client.recover().await?;
    /// }
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn recover(&self) -> Result<serde_json::Value, ClientError> {
        let (tx, rx) = channel::unbounded();
        self.requests
            .send(Request::Recover(Box::new(move |u| {
                let _ = tx.try_send(u);
            })))
            .await
            .map_err(|_| ClientError::Closed)?;
        Ok(command_result(
            &PendingCommand { updates: rx }.wait().await?,
        ))
    }

    /// Changes the dialog policy for dialogs opened from now on.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// client.set_policy(DialogPolicy::AutoDismiss).await?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.requests
            .send(Request::SetPolicy(policy))
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call. The channel is unbounded: read it, or drop it.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let events = client.subscribe().await?;
    /// let first = events.recv().await; // ClientEvent::Snapshot, then every event
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// let snapshot = client.wait_for(Duration::from_secs(20), "two frames", |s| s.frame_tree.children.len() >= 2).await?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
    /// dialog left open wedges the tab) and for commands in flight to finish,
    /// closes the socket (which detaches) and waits for the task. Calling it again does
    /// nothing.
    ///
    /// ```no_run
    /// use cdp_supervisor_smol::{cdp_supervisor::PageState, Client, CommandUpdate, DialogAction, DialogPolicy, Options};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// # smol::block_on(async {
    /// # let client = Client::launch(Options::default()).await?;
    /// client.stop().await?; // dismisses pending dialogs, detaches
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(()) })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
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
