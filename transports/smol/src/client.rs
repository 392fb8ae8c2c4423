//! The client handle: it talks to the client's task ([`crate::io`]) over
//! `smol::channel`s.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cdp_supervisor_driver::{command_result, Clock, LoopDriver, Reply, Request, Updates};
use smol::channel::{self, Receiver, Sender};
use smol::future::FutureExt;
use smol::{LocalExecutor, Task, Timer};

use crate::cdp_supervisor::act::{ActOptions, ActResult, Action};
use crate::cdp_supervisor::ax::{AxOptions, AxSnapshot};
use crate::cdp_supervisor::evaluate::{MAX_EVAL_TIMEOUT, TRANSPORT_MARGIN};
use crate::cdp_supervisor::{ClosedDialog, DialogError, EvalValue, Evaluation};
#[cfg(feature = "launch")]
use crate::Browser;
use crate::{ClientError, ClientEvent, CommandUpdate, DialogAction, DialogPolicy, Options};
use crate::{Snapshot, Value};

/// A handle to a supervised tab over an async WebSocket, driven by a task on smol's
/// global executor (or on a `LocalExecutor`: [`Client::connect_local`]). Call
/// [`Client::stop`] before dropping it; a dropped client stops its task in the background.
/// The crate's example (it runs against a real Chromium) shows the methods below.
#[derive(Debug)]
pub struct Client {
    task: Mutex<Option<Task<()>>>,
    requests: Sender<Request>,
    #[cfg(feature = "launch")]
    browser: Option<Browser>, // last: dropped after the task was told to stop
}

/// The updates of a command sent with [`Client::start_command`], as the blocking
/// transport's `PendingCommand` gives them: any number of `Blocked`, then one `Finished`
/// (see the crate's example).
#[derive(Debug)]
pub struct PendingCommand {
    updates: Receiver<CommandUpdate>,
}

impl PendingCommand {
    /// The next update, waiting at most `timeout`.
    pub async fn next_update(&self, timeout: Duration) -> Result<CommandUpdate, ClientError> {
        let update = async { self.updates.recv().await.map_err(|_| ClientError::Closed) };
        in_time(
            Instant::now() + timeout,
            timeout,
            "a command update",
            update,
        )
        .await
    }

    /// Waits for the outcome: CDP's `result` object as JSON text. The core's deadline
    /// bounds the wait.
    pub async fn wait(self) -> Result<String, ClientError> {
        while let Ok(update) = self.updates.recv().await {
            if let CommandUpdate::Finished(outcome) = update {
                return Ok(outcome?);
            }
        }
        Err(ClientError::Closed)
    }
}

impl Client {
    /// Connects to a browser endpoint (`ws://...` or `http://host:port`) and attaches to
    /// its first page (or `options.config.target_id`).
    pub async fn connect(endpoint: &str, options: Options) -> Result<Client, ClientError> {
        Client::start(endpoint, options, None, None).await
    }

    /// Like [`Client::connect`], with a subscriber registered before the first message,
    /// so that it sees every event from the start (no initial snapshot is sent).
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
    #[cfg(feature = "launch")]
    pub async fn launch(options: Options) -> Result<Client, ClientError> {
        Client::launch_with(options, None).await
    }

    /// [`Client::launch`] with an initial subscriber as in [`Client::connect_with_events`].
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
        let timeout = options.connect_timeout;
        let subscriber = events.map(|tx| Box::new(move |e| tx.try_send(e).is_ok()) as _);
        let mut run = LoopDriver::for_client(options, clock.wall_at_start(), subscriber)?;
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
        client
            .ask(|reply| Request::WaitAttached { timeout, reply })
            .await??;
        Ok(client)
    }

    /// The browser this client launched, if it did.
    #[cfg(feature = "launch")]
    pub fn browser(&self) -> Option<&Browser> {
        self.browser.as_ref()
    }

    async fn send(&self, request: Request) -> Result<(), ClientError> {
        let sent = self.requests.send(request).await;
        sent.map_err(|_| ClientError::Closed)
    }

    async fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(Reply<T>) -> Request,
    ) -> Result<T, ClientError> {
        let (tx, answer) = channel::bounded(1);
        self.send(make(Box::new(move |v| drop(tx.try_send(v)))))
            .await?;
        answer.recv().await.map_err(|_| ClientError::Closed)
    }

    async fn pending(
        &self,
        make: impl FnOnce(Updates) -> Request,
    ) -> Result<PendingCommand, ClientError> {
        let (tx, updates) = channel::unbounded();
        self.send(make(Box::new(move |u| drop(tx.try_send(u)))))
            .await?;
        Ok(PendingCommand { updates })
    }

    /// The current snapshot.
    pub async fn snapshot(&self) -> Result<Snapshot, ClientError> {
        self.ask(Request::Snapshot).await
    }

    /// Sends `method` into the session of `frame_id` (the top frame when `None`) and
    /// returns at once; see [`PendingCommand`]. `params` must be a JSON object (or null
    /// for none).
    pub async fn start_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<PendingCommand, ClientError> {
        let request = |updates| Request::command(frame_id, method, params, timeout, updates);
        self.pending(request).await
    }

    /// Sends a command and waits for CDP's `result` object.
    pub async fn command(
        &self,
        frame_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let pending = self.start_command(frame_id, method, params, timeout);
        Ok(command_result(&pending.await?.wait().await?))
    }

    /// Evaluates a script, or a function on an element, in any frame under one budget
    /// (`evaluation.timeout`), as the blocking transport's `Client::evaluate` does: the
    /// value as JSON, or [`ClientError::Evaluate`] whose `code()` says why. It always
    /// answers within the budget: a stuck script is terminated and the frame stays usable.
    ///
    /// ```
    /// use cdp_supervisor_smol::{Client, ClientError, Evaluation, Options};
    /// smol::block_on(async {
    ///     let client = Client::launch(Options::default()).await?;
    ///     assert_eq!(client.evaluate(Evaluation::new("6 * 7")).await?.value, 42);
    ///     client.stop().await
    /// })?;
    /// # Ok::<(), ClientError>(())
    /// ```
    pub async fn evaluate(&self, evaluation: Evaluation) -> Result<EvalValue, ClientError> {
        let wait = evaluation.timeout.min(MAX_EVAL_TIMEOUT) + TRANSPORT_MARGIN;
        let (tx, answer) = channel::bounded(1);
        self.send(Request::Evaluate {
            evaluation,
            reply: Box::new(move |v| drop(tx.try_send(v))),
        })
        .await?;
        let outcome = async { answer.recv().await.map_err(|_| ClientError::Closed) };
        let outcome = in_time(
            Instant::now() + wait,
            wait,
            "the evaluate's outcome",
            outcome,
        );
        Ok(outcome.await??)
    }

    /// Answers a dialog (`None`: the single pending one) and waits until Chromium closed
    /// it.
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
    pub async fn settle(
        &self,
        action: DialogAction,
    ) -> Result<Vec<Result<ClosedDialog, DialogError>>, ClientError> {
        self.ask(|reply| Request::Settle { action, reply }).await
    }

    /// Releases a page blocked by a dialog left open (a navigation to its URL) and waits
    /// for the navigation's result.
    pub async fn recover(&self) -> Result<Value, ClientError> {
        let pending = self.pending(Request::Recover).await?;
        Ok(command_result(&pending.wait().await?))
    }

    /// An accessibility snapshot of the whole tab, OOPIFs included: the outline with a ref
    /// on each node an agent acts on, and the frames left out with why. Refs stay the same
    /// across snapshots for unchanged nodes; resolve one with `DOM.resolveNode
    /// {backendNodeId}` on its frame (`ref.frame_id`), see the crate's example.
    pub async fn ax_snapshot(&self, options: AxOptions) -> Result<AxSnapshot, ClientError> {
        Ok(self
            .ask(|reply| Request::AxSnapshot { options, reply })
            .await??)
    }

    /// Runs an agent action (navigate, click, type, press, scroll, back, reload) and waits
    /// for its result: the page after it settled, the console lines it caused, a
    /// screenshot. A dialog it opens ends it at once (answer it, then act again).
    ///
    /// ```
    /// use cdp_supervisor_smol::{act::{ActOptions, Action}, Client, Options};
    /// smol::block_on(async {
    ///     let client = Client::launch(Options::default()).await?;
    ///     let action = Action::Navigate { url: "data:text/html,<title>Hi</title>".into() };
    ///     let result = client.act(action, ActOptions::default()).await?;
    ///     assert_eq!((result.title.as_str(), result.navigated), ("Hi", true));
    ///     Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// })?;
    /// # Ok::<(), cdp_supervisor_smol::ClientError>(())
    /// ```
    pub async fn act(&self, action: Action, options: ActOptions) -> Result<ActResult, ClientError> {
        self.ask(|reply| Request::Act {
            action,
            options,
            reply,
        })
        .await?
    }

    /// Changes the dialog policy for dialogs opened from now on.
    pub async fn set_policy(&self, policy: DialogPolicy) -> Result<(), ClientError> {
        self.send(Request::SetPolicy(policy)).await
    }

    /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
    /// event after this call (it returns once registered). The channel is unbounded:
    /// read it, or drop it.
    pub async fn subscribe(&self) -> Result<Receiver<ClientEvent>, ClientError> {
        let (tx, rx) = channel::unbounded();
        let subscriber = Box::new(move |e| tx.try_send(e).is_ok());
        let registered = self.ask(|registered| Request::Subscribe {
            subscriber,
            registered,
        });
        registered.await?;
        Ok(rx)
    }

    /// Waits until `done` holds for the snapshot, checking again after every event, at
    /// most `timeout`; the error names `what`.
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
            in_time(end, timeout, what, next).await?;
            while events.try_recv().is_ok() {}
        }
    }

    /// A planned stop: dismisses pending dialogs, waits up to 2 s for them to close (a
    /// dialog left open wedges the tab) and for commands in flight to finish,
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

/// `io`, or a [`ClientError::Timeout`] naming `what` at `end` (`after` the wait
/// began).
async fn in_time<T>(
    end: Instant,
    after: Duration,
    what: &str,
    io: impl Future<Output = Result<T, ClientError>>,
) -> Result<T, ClientError> {
    let late = async {
        Timer::at(end).await;
        let what = what.to_owned();
        Err(ClientError::Timeout { what, after })
    };
    io.or(late).await
}
