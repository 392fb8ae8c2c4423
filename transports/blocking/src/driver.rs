//! The part of a run loop that is the same for every transport: the [`Supervisor`], the
//! optional trace [`Recorder`], and the bookkeeping that routes the core's events to the
//! callers waiting for them and to subscribers.
//!
//! A transport owns the socket and the clock. It feeds the driver (`connected`,
//! `message`, `timeout`, `request`, `disconnected`) and writes what
//! [`Driver::poll_transmit`] returns. The driver makes no decision about dialogs or
//! frames: that is the core's job. Callers are answered through boxed callbacks so that
//! each transport can use its own channels (std or async).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cdp_supervisor::{
    ClosedDialog, CommandError, Config, DialogAction, DialogError, DialogPolicy, Event, Snapshot,
    Supervisor,
};
use serde_json::value::RawValue;

use crate::record::Recorder;

/// How long a planned stop waits for settled dialogs to close (fact 11).
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(2);

/// The current time as the core wants it: UNIX seconds.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// What an embedder can set when connecting, for both transports.
#[derive(Debug, Clone)]
pub struct Options {
    /// The supervisor's configuration (policy, timeouts, bounds, the dialog bridge).
    /// With `bridge` on and an empty token, both transports fill in a random
    /// token ([`crate::token::random_token`]); a token of the embedder's own is kept.
    pub config: Config,
    /// Record every frame in both directions to this trace file (SPEC §7).
    pub record: Option<PathBuf>,
    /// Reconnect with [`crate::backoff`] after the socket drops (default true).
    pub reconnect: bool,
    /// How long a planned stop waits for settled dialogs to close and commands in flight
    /// to finish (default 2 s).
    pub settle_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            config: Config::default(),
            record: None,
            reconnect: true,
            settle_timeout: SETTLE_TIMEOUT,
        }
    }
}

/// What a subscriber receives.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// The state at the moment of subscribing; the first item of
    /// `subscribe()`, so that it plus the following diffs give the current state.
    Snapshot(Snapshot),
    /// An event of the core: a diff, a command blocked or finished, a dialog answered, a
    /// warning.
    Event(Event),
    /// The WebSocket is open (again); the supervisor attaches to the tab.
    Connected {
        /// The WebSocket URL.
        url: String,
        /// True after a reconnect.
        reconnected: bool,
    },
    /// The WebSocket closed unexpectedly; the transport retries with backoff.
    ConnectionLost {
        /// Why.
        error: String,
    },
    /// Reconnecting failed [`crate::backoff::MAX_FAILURES`] times in a row, or reconnect
    /// is off: the client is closed.
    GaveUp {
        /// The last error.
        error: String,
    },
}

/// A command's progress: zero or more `Blocked`, then exactly one `Finished`.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandUpdate {
    /// A dialog opened that keeps the command from completing (SPEC §6.4).
    Blocked {
        /// The dialog.
        dialog_id: String,
    },
    /// The outcome: CDP's `result` object as JSON text, or why not.
    Finished(Result<String, CommandError>),
}

/// A one-shot answer to a caller.
pub type Reply<T> = Box<dyn FnOnce(T) + Send>;
/// Where a command's updates go.
pub type Updates = Box<dyn FnMut(CommandUpdate) + Send>;
/// A subscriber; returns false once it is gone, and is then dropped.
pub type Subscriber = Box<dyn FnMut(ClientEvent) -> bool + Send>;
/// The outcome of answering one dialog.
pub type DialogOutcome = Result<ClosedDialog, DialogError>;

/// A caller's request to the run loop.
pub enum Request {
    /// The current snapshot.
    Snapshot(Reply<Snapshot>),
    /// Send `method` into the session of `frame_id` (top frame when `None`).
    Command {
        /// The frame.
        frame_id: Option<String>,
        /// The CDP method.
        method: String,
        /// Its params, a JSON object.
        params: Option<Box<RawValue>>,
        /// How long it may take.
        timeout: Duration,
        /// Where its progress goes.
        updates: Updates,
    },
    /// Release a blocked page (SPEC §6.8).
    Recover(Updates),
    /// Answer a dialog (SPEC §6.3).
    Dialog {
        /// Accept or dismiss.
        action: DialogAction,
        /// A prompt's text.
        prompt_text: Option<String>,
        /// Which dialog; `None` for the single pending one.
        dialog_id: Option<String>,
        /// The outcome.
        reply: Reply<DialogOutcome>,
    },
    /// Answer every pending dialog.
    Settle {
        /// Accept or dismiss.
        action: DialogAction,
        /// One outcome per dialog answered.
        reply: Reply<Vec<DialogOutcome>>,
    },
    /// Change the dialog policy.
    SetPolicy(DialogPolicy),
    /// Add a subscriber; it first gets a [`ClientEvent::Snapshot`]. `registered` is
    /// called once it is in place, so the caller knows no later event is missed.
    Subscribe {
        /// The subscriber.
        subscriber: Subscriber,
        /// Called once registered.
        registered: Reply<()>,
    },
    /// Settle dialogs (dismiss), wait for them to close, disconnect, end the loop.
    Stop(Reply<()>),
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Request::Snapshot(_) => "Snapshot",
            Request::Command { .. } => "Command",
            Request::Recover(_) => "Recover",
            Request::Dialog { .. } => "Dialog",
            Request::Settle { .. } => "Settle",
            Request::SetPolicy(_) => "SetPolicy",
            Request::Subscribe { .. } => "Subscribe",
            Request::Stop(_) => "Stop",
        };
        f.write_str(name)
    }
}

struct SettleGroup {
    waiting: Vec<u64>,
    outcomes: Vec<DialogOutcome>,
    reply: Option<Reply<Vec<DialogOutcome>>>,
}

/// The supervisor plus the callers waiting on it. See the module docs.
pub struct Driver {
    sup: Supervisor,
    recorder: Option<Recorder>,
    commands: HashMap<u64, Updates>,
    dialogs: HashMap<u64, Reply<DialogOutcome>>,
    settles: Vec<SettleGroup>,
    subscribers: Vec<Subscriber>,
    settle_timeout: Duration,
    /// The callers waiting for a planned stop (the core decides when it is done).
    stopping: Option<Vec<Reply<()>>>,
    connected: bool,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("sup", &self.sup)
            .field("connected", &self.connected)
            .finish_non_exhaustive()
    }
}

impl Driver {
    /// A driver for a fresh supervisor; creates the trace file if `options.record` is set.
    /// The transports fill in the bridge token before ([`crate::token`]).
    pub fn new(options: &Options) -> std::io::Result<Driver> {
        let recorder = match &options.record {
            Some(path) => Some(Recorder::create(path)?),
            None => None,
        };
        Ok(Driver {
            sup: Supervisor::new(options.config.clone()),
            recorder,
            commands: HashMap::new(),
            dialogs: HashMap::new(),
            settles: Vec::new(),
            subscribers: Vec::new(),
            settle_timeout: options.settle_timeout,
            stopping: None,
            connected: false,
        })
    }

    /// The supervisor, for reading.
    pub fn supervisor(&self) -> &Supervisor {
        &self.sup
    }

    /// Adds a subscriber that gets every event from now on, without the initial snapshot
    /// (for the first subscriber, registered before connecting).
    pub fn add_subscriber(&mut self, subscriber: Subscriber) {
        self.subscribers.push(subscriber);
    }

    /// The WebSocket to `url` opened.
    pub fn connected(&mut self, now: f64, url: &str, reconnected: bool) {
        self.connected = true;
        if let Some(r) = self.recorder.as_mut() {
            log_io(r.connect());
        }
        self.broadcast(ClientEvent::Connected {
            url: url.to_owned(),
            reconnected,
        });
        self.sup.handle_connected(now);
        self.dispatch();
    }

    /// The WebSocket closed; `error` is `None` for a planned close.
    pub fn disconnected(&mut self, now: f64, error: Option<String>) {
        if !self.connected {
            return;
        }
        self.connected = false;
        if let Some(r) = self.recorder.as_mut() {
            log_io(r.disconnect());
        }
        self.sup.handle_disconnected(now);
        // Anything queued was meant for the old connection's sessions.
        while self.sup.poll_transmit().is_some() {}
        if let Some(error) = error {
            self.broadcast(ClientEvent::ConnectionLost { error });
        }
        self.dispatch();
    }

    /// Reconnecting failed for good.
    pub fn gave_up(&mut self, error: String) {
        self.broadcast(ClientEvent::GaveUp { error });
    }

    /// The WebSocket failed with `error`: the core learns it, subscribers get
    /// `ConnectionLost`, and without `reconnect` also `GaveUp`. Returns whether to try
    /// reconnecting.
    pub fn connection_lost(&mut self, now: f64, error: String, reconnect: bool) -> bool {
        debug(&format!("connection lost: {error}"));
        self.disconnected(now, Some(error.clone()));
        if !reconnect {
            self.gave_up(format!("{error}; reconnect is off"));
        }
        reconnect
    }

    /// Whether the WebSocket is open.
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// One text frame from the browser. A message the core refuses is logged to stderr
    /// when `CDP_SUPERVISE_DEBUG` is set; it never stops the loop.
    pub fn message(&mut self, now: f64, text: &str) {
        if let Some(r) = self.recorder.as_mut() {
            log_io(r.incoming(text));
        }
        if let Err(e) = self.sup.handle_message(now, text) {
            debug(&format!("ignored message: {e}"));
        }
        self.dispatch();
    }

    /// Fires the core's timers when due; cheap to call often.
    pub fn timeout(&mut self, now: f64) {
        if self.sup.poll_timeout().is_some_and(|t| t <= now) {
            self.sup.handle_timeout(now);
            self.dispatch();
        }
    }

    /// The core's next deadline (UNIX seconds).
    pub fn next_deadline(&self) -> Option<f64> {
        self.sup.poll_timeout()
    }

    /// The next message to write to the socket (recorded as it is handed out).
    pub fn poll_transmit(&mut self) -> Option<String> {
        let cmd = self.sup.poll_transmit()?;
        if let Some(r) = self.recorder.as_mut() {
            log_io(r.outgoing(&cmd.json));
        }
        Some(cmd.json)
    }

    /// Applies a caller's request.
    pub fn request(&mut self, now: f64, request: Request) {
        match request {
            Request::Snapshot(reply) => reply(self.sup.snapshot()),
            Request::Command {
                frame_id,
                method,
                params,
                timeout,
                mut updates,
            } => match self.sup.command(
                now,
                frame_id.as_deref(),
                &method,
                params.as_deref(),
                timeout,
            ) {
                Ok(id) => {
                    self.commands.insert(id.0, updates);
                }
                Err(e) => updates(CommandUpdate::Finished(Err(e))),
            },
            Request::Recover(mut updates) => match self.sup.recover(now) {
                Ok(id) => {
                    self.commands.insert(id.0, updates);
                }
                Err(e) => updates(CommandUpdate::Finished(Err(e))),
            },
            Request::Dialog {
                action,
                prompt_text,
                dialog_id,
                reply,
            } => match self.sup.respond_dialog(
                now,
                cdp_supervisor::Answer::new(action, prompt_text.as_deref()),
                dialog_id.as_deref(),
            ) {
                Ok(id) => {
                    self.dialogs.insert(id.0, reply);
                }
                Err(e) => reply(Err(e)),
            },
            Request::Settle { action, reply } => {
                let ids = self.sup.settle_dialogs(now, action);
                if ids.is_empty() {
                    reply(Vec::new());
                } else {
                    self.settles.push(SettleGroup {
                        waiting: ids.into_iter().map(|i| i.0).collect(),
                        outcomes: Vec::new(),
                        reply: Some(reply),
                    });
                }
            }
            Request::SetPolicy(policy) => self.sup.set_policy(policy),
            Request::Subscribe {
                mut subscriber,
                registered,
            } => {
                if subscriber(ClientEvent::Snapshot(self.sup.snapshot())) {
                    self.subscribers.push(subscriber);
                }
                registered(());
            }
            Request::Stop(reply) => match self.stopping.as_mut() {
                Some(replies) => replies.push(reply),
                None => {
                    // The core settles pending dialogs (fact 11) and says when to close.
                    self.sup
                        .begin_stop(now, Some(DialogAction::Dismiss), self.settle_timeout);
                    self.stopping = Some(vec![reply]);
                }
            },
        }
        self.dispatch();
    }

    /// Starts a planned stop without a caller to answer (the client handle went away).
    pub fn begin_stop(&mut self, now: f64) {
        if self.stopping.is_none() {
            self.request(now, Request::Stop(Box::new(|()| {})));
        }
    }

    /// Whether a stop was asked for.
    pub fn is_stopping(&self) -> bool {
        self.stopping.is_some()
    }

    /// Whether a stop is ready to close the socket: the core says so
    /// ([`Supervisor::ready_to_close`]), or the socket is gone anyway. `now` moves the
    /// core's clock so a passed grace deadline counts.
    pub fn stop_ready(&mut self, now: f64) -> bool {
        if self.stopping.is_none() {
            return false;
        }
        if !self.connected {
            return true;
        }
        self.sup.handle_timeout(now);
        self.dispatch();
        self.sup.ready_to_close()
    }

    /// The socket was closed for the stop: fail what is left and answer the stoppers.
    pub fn finish_stop(&mut self, now: f64) {
        self.disconnected(now, None);
        if let Some(replies) = self.stopping.take() {
            for reply in replies {
                reply(());
            }
        }
    }

    fn broadcast(&mut self, event: ClientEvent) {
        self.subscribers.retain_mut(|s| s(event.clone()));
    }

    /// Routes every queued event of the core.
    fn dispatch(&mut self) {
        while let Some(event) = self.sup.poll_event() {
            match &event {
                Event::CommandBlocked { id, dialog_id } => {
                    if let Some(updates) = self.commands.get_mut(&id.0) {
                        updates(CommandUpdate::Blocked {
                            dialog_id: dialog_id.clone(),
                        });
                    }
                }
                Event::CommandFinished { id, outcome } => {
                    if let Some(mut updates) = self.commands.remove(&id.0) {
                        updates(CommandUpdate::Finished(outcome.clone()));
                    }
                }
                Event::DialogAnswered { id, outcome } => {
                    if let Some(reply) = self.dialogs.remove(&id.0) {
                        reply(outcome.clone());
                    }
                    self.settled(id.0, outcome.clone());
                }
                Event::Warning(warning) => debug(&format!("warning: {warning}")),
                _ => {}
            }
            self.broadcast(ClientEvent::Event(event));
        }
    }

    fn settled(&mut self, id: u64, outcome: DialogOutcome) {
        let Some(i) = self.settles.iter().position(|g| g.waiting.contains(&id)) else {
            return;
        };
        let group = &mut self.settles[i]; // found just above
        group.waiting.retain(|w| *w != id);
        group.outcomes.push(outcome);
        if group.waiting.is_empty() {
            let mut group = self.settles.remove(i);
            if let Some(reply) = group.reply.take() {
                reply(std::mem::take(&mut group.outcomes));
            }
        }
    }
}

/// Logs to stderr when `CDP_SUPERVISE_DEBUG` is set (the transports' debug level).
pub fn debug(message: &str) {
    if std::env::var_os("CDP_SUPERVISE_DEBUG").is_some() {
        eprintln!("cdp-supervisor: {message}");
    }
}

fn log_io(result: std::io::Result<()>) {
    if let Err(e) = result {
        eprintln!("cdp-supervisor: writing the trace failed: {e}");
    }
}
