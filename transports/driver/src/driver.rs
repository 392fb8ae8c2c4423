//! The part of a run loop that is the same for every transport: the [`Supervisor`], the
//! optional trace [`Recorder`], and the bookkeeping that routes the core's events to the
//! callers waiting for them and to subscribers.
//!
//! [`LoopDriver`](crate::LoopDriver) feeds it (`connected`, `message`, `timeout`,
//! `request`, `disconnected`) and hands out what [`Driver::poll_transmit`] returns. The
//! driver makes no decision about dialogs or frames: that is the core's job. Callers are answered
//! through boxed callbacks so that each transport can use its own channels (std or
//! async).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use cdp_supervisor::ax::{AxError, AxOptions, AxSnapshot};
use cdp_supervisor::network::{BodyPart, NetworkRequest, NetworkRequestDetail};
use cdp_supervisor::{
    ClosedDialog, CommandError, CommandId, Config, DialogAction, DialogError, DialogPolicy, Diff,
    EvalError, EvalValue, Evaluation, Event, PageInfo, PageState, PendingDialog, Snapshot,
    Supervisor, TabInfo, TabState,
};
use serde_json::value::RawValue;

use crate::record::Recorder;
use crate::ClientError;

/// How long a planned stop waits for settled dialogs to close.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::SETTLE_TIMEOUT, cdp_supervisor_driver::Options::default().settle_timeout);
/// ```
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long `connect` and `launch` wait for the page to be live (default of
/// [`Options::connect_timeout`]).
///
/// ```
/// assert_eq!(cdp_supervisor_driver::CONNECT_TIMEOUT.as_secs(), 15);
/// ```
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// What an embedder can set when connecting, for both transports.
///
/// ```
/// use cdp_supervisor_driver::{DialogPolicy, Options};
/// let mut options = Options::default();
/// options.config.policy = DialogPolicy::AutoDismiss;
/// options.reconnect = false;
/// assert_eq!(options.settle_timeout.as_secs(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    /// The supervisor's configuration (policy, timeouts, bounds, the dialog bridge).
    /// With `bridge` on and an empty token, both transports fill in a random
    /// token ([`crate::token::random_token`]); a token of the embedder's own is kept.
    pub config: Config,
    /// Record every frame in both directions to this trace file.
    pub record: Option<PathBuf>,
    /// Reconnect with [`crate::backoff`] after the socket drops (default true).
    pub reconnect: bool,
    /// How long a planned stop waits for settled dialogs to close and commands in flight
    /// to finish (default 2 s).
    pub settle_timeout: Duration,
    /// How long `connect` and `launch` wait for the page to be attached and live before
    /// they fail, saying what did not happen (default 15 s).
    pub connect_timeout: Duration,
    /// Probe the browser after this long without a message from it, and treat the
    /// connection as lost when the probe goes unanswered (`None`: never; default
    /// [`HEARTBEAT`]). See [`HEARTBEAT_DEADLINE`](crate::HEARTBEAT_DEADLINE).
    pub heartbeat: Option<Duration>,
    /// Extra headers for the WebSocket upgrade and the `/json/version` lookup (a hosted
    /// browser's `Authorization`); `Debug` shows their names only.
    pub headers: crate::headers::CdpHeaders,
}

/// The default silence after which the heartbeat probes the browser.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::HEARTBEAT.as_secs(), 15);
/// assert_eq!(cdp_supervisor_driver::Options::default().heartbeat, Some(cdp_supervisor_driver::HEARTBEAT));
/// ```
pub const HEARTBEAT: Duration = Duration::from_secs(15);

impl Default for Options {
    fn default() -> Self {
        Options {
            config: Config::default(),
            record: None,
            reconnect: true,
            settle_timeout: SETTLE_TIMEOUT,
            connect_timeout: CONNECT_TIMEOUT,
            heartbeat: Some(HEARTBEAT),
            headers: Default::default(),
        }
    }
}

/// What a subscriber receives.
///
/// ```
/// use cdp_supervisor_driver::ClientEvent;
/// let event = ClientEvent::Connected { url: "ws://h:1/b".into(), reconnected: false };
/// assert!(matches!(event, ClientEvent::Connected { reconnected: false, .. }));
/// ```
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
        /// The WebSocket URL, its credentials redacted
        /// ([`redact_url`](crate::endpoint::redact_url)).
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
///
/// ```
/// use cdp_supervisor_driver::CommandUpdate;
/// let done = CommandUpdate::Finished(Ok("{}".into()));
/// assert_ne!(done, CommandUpdate::Blocked { dialog_id: "d-1".into() });
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CommandUpdate {
    /// A dialog opened that keeps the command from completing.
    Blocked {
        /// The dialog.
        dialog_id: String,
    },
    /// The outcome: CDP's `result` object as JSON text, or why not.
    Finished(Result<String, CommandError>),
}

/// A one-shot answer to a caller.
///
/// ```
/// let reply: cdp_supervisor_driver::Reply<u32> = Box::new(|n| assert_eq!(n, 7));
/// reply(7);
/// ```
pub type Reply<T> = Box<dyn FnOnce(T) + Send>;
/// Where a command's updates go.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// let mut updates: cdp_supervisor_driver::Updates = Box::new(move |u| drop(tx.send(u)));
/// updates(cdp_supervisor_driver::CommandUpdate::Blocked { dialog_id: "d-1".into() });
/// assert!(rx.try_recv().is_ok());
/// ```
pub type Updates = Box<dyn FnMut(CommandUpdate) + Send>;
/// A subscriber; returns false once it is gone, and is then dropped.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// let mut subscriber: cdp_supervisor_driver::Subscriber = Box::new(move |e| tx.send(e).is_ok());
/// drop(rx);
/// assert!(!subscriber(cdp_supervisor_driver::ClientEvent::GaveUp { error: "x".into() }));
/// ```
pub type Subscriber = Box<dyn FnMut(ClientEvent) -> bool + Send>;
/// The outcome of answering one dialog.
///
/// ```
/// use cdp_supervisor_driver::{cdp_supervisor::DialogError, DialogOutcome};
/// let outcome: DialogOutcome = Err(DialogError::NotAttached);
/// assert!(outcome.is_err());
/// ```
pub type DialogOutcome = Result<ClosedDialog, DialogError>;

/// A caller's request to the run loop.
///
/// ```
/// use cdp_supervisor_driver::{LoopDriver, Request};
/// let mut run = LoopDriver::new(&Default::default(), 0.0)?;
/// run.request(0.0, Request::Snapshot(Box::new(|s| assert!(s.pending_dialogs.is_empty()))));
/// # Ok::<(), std::io::Error>(())
/// ```
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
    /// Release a blocked page.
    Recover(Updates),
    /// Answer a dialog.
    Dialog {
        /// Accept or dismiss.
        action: DialogAction,
        /// A prompt's text.
        prompt_text: Option<String>,
        /// Which dialog; `None` for the single pending one.
        dialog_id: Option<String>,
        /// A file chooser's files (with `Accept`): each checked to be a readable file,
        /// made canonical, then checked by the core against the upload roots.
        files: Option<Vec<String>>,
        /// An `http_auth` dialog's user name and password (with `Accept`).
        credentials: Option<(String, cdp_supervisor::http_auth::Password)>,
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
    /// Answer once the page is attached: `live`, or `blocked` by a dialog an earlier
    /// client left open (then `recover` releases it); after `timeout`, an error that says
    /// what did not happen. What `connect` and `launch` wait for.
    WaitAttached {
        /// How long at most.
        timeout: Duration,
        /// The outcome.
        reply: Reply<Result<(), ClientError>>,
    },
    /// Settle dialogs (dismiss), wait for them to close, disconnect, end the loop.
    Stop(Reply<()>),
    /// Evaluate a script or an element function under one budget
    /// ([`Supervisor::evaluate`]); the outcome comes within the budget.
    Evaluate {
        /// What, where, within which budget.
        evaluation: Evaluation,
        /// The outcome.
        reply: Reply<EvalOutcome>,
    },
    /// An accessibility snapshot of the whole tab, OOPIFs included.
    AxSnapshot {
        /// Its budgets and scope.
        options: AxOptions,
        /// The outcome.
        reply: Reply<Result<AxSnapshot, AxError>>,
    },
    /// Run an agent action; the reply is its result once settled and captured.
    Act {
        /// The action.
        action: cdp_supervisor::act::Action,
        /// Its budget and whether to take a screenshot.
        options: cdp_supervisor::act::ActOptions,
        /// The outcome.
        reply: Reply<ActOutcome>,
    },
    /// Nothing to do: it wakes a transport's loop that waits on its requests (the blocking
    /// transport's socket watcher says so when the socket has bytes to read).
    Wake,
    /// Every tab, in the order they became known ([`Supervisor::tabs`]).
    Tabs(Reply<Vec<TabInfo>>),
    /// The tab's console lines of every level from index `since` on
    /// ([`Supervisor::console_since`]).
    Console {
        /// The first index wanted (the last answer's `next`).
        since: u64,
        /// The lines, or `no_such_tab`.
        reply: Reply<Result<cdp_supervisor::ConsoleSince, ClientError>>,
    },
    /// Open a tab at `url` in browser context `context_id` (`None`: the default one);
    /// answered once it is listed and attached (it is then the current tab).
    NewTab {
        /// Where.
        url: String,
        /// In which browser context ([`Request::CreateContext`]); `None`: the default.
        context_id: Option<String>,
        /// The new tab, or why not.
        reply: Reply<Result<TabInfo, ClientError>>,
    },
    /// Create a browser context ([`Supervisor::create_context`]); it finishes with
    /// `{"browserContextId": ...}`.
    CreateContext(Updates),
    /// Dispose a browser context ([`Supervisor::dispose_context`]); it finishes once its
    /// tabs are gone.
    DisposeContext {
        /// Which.
        context_id: String,
        /// Where its progress goes.
        updates: Updates,
    },
    /// Send `method` to the browser itself, on no session
    /// ([`Supervisor::browser_command`]).
    BrowserCommand {
        /// The CDP method.
        method: String,
        /// Its params, a JSON object.
        params: Option<Box<RawValue>>,
        /// How long it may take.
        timeout: Duration,
        /// Where its progress goes.
        updates: Updates,
    },
    /// Make a tab current (and bring it to the front).
    SelectTab {
        /// Which.
        tab_id: String,
        /// The tab as it is now, or why not.
        reply: Reply<Result<TabInfo, ClientError>>,
    },
    /// Close a tab (`None`: the current one); `force` skips its `beforeunload` handler.
    CloseTab {
        /// Which.
        tab_id: Option<String>,
        /// `Target.closeTarget` instead of `Page.close`.
        force: bool,
        /// Whether it closed, or the dialog it raised.
        reply: Reply<Result<ClosedTab, ClientError>>,
    },
    /// The tab's network requests above index `after`
    /// ([`Supervisor::network_requests`]).
    NetworkRequests {
        /// The last index the caller saw (0: every request kept).
        after: u64,
        /// The requests, oldest first.
        reply: Reply<Result<Vec<NetworkRequest>, CommandError>>,
    },
    /// One network request with its headers ([`Supervisor::network_request`]).
    NetworkRequest {
        /// Its index, as listed.
        index: u64,
        /// The request.
        reply: Reply<Result<NetworkRequestDetail, CommandError>>,
    },
    /// Read a request's body ([`Supervisor::network_body`]); it finishes with CDP's
    /// reply, read with [`cdp_supervisor::network::read_body`].
    NetworkBody {
        /// Its index, as listed.
        index: u64,
        /// The response's body or the request's.
        part: BodyPart,
        /// Where its progress goes.
        updates: Updates,
    },
    /// `request`, aimed at tab `tab_id` instead of the current tab (see
    /// [`Request::in_tab`]).
    InTab {
        /// The tab.
        tab_id: String,
        /// What to do there.
        request: Box<Request>,
    },
}

/// The outcome of closing a tab: it is gone, or its page asked to stay (`beforeunload`).
///
/// ```
/// use cdp_supervisor_driver::ClosedTab;
/// let gone = ClosedTab { tab_id: "T".into(), closed: true, dialog: None };
/// assert!(gone.closed && gone.dialog.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedTab {
    /// The tab.
    pub tab_id: String,
    /// It is gone. False: its page stayed (a `beforeunload` dialog dismissed, or pending in
    /// `dialog`), or it did not close within the setup timeout.
    pub closed: bool,
    /// The `beforeunload` dialog the close raised, pending: accepting it closes the tab,
    /// dismissing it keeps the page.
    pub dialog: Option<PendingDialog>,
}

/// The outcome of an evaluate: its value as JSON, or a typed error with a stable `code()`.
///
/// ```
/// use cdp_supervisor_driver::{cdp_supervisor::EvalValue, EvalOutcome};
/// let outcome: EvalOutcome = Ok(EvalValue::undefined());
/// assert!(outcome.is_ok());
/// ```
pub type EvalOutcome = Result<EvalValue, EvalError>;

/// The outcome of an agent action.
///
/// ```
/// use cdp_supervisor_driver::{ActOutcome, ClientError};
/// let outcome: ActOutcome = Err(ClientError::Closed);
/// assert!(outcome.is_err());
/// ```
pub type ActOutcome = Result<cdp_supervisor::act::ActResult, ClientError>;

impl Request {
    /// This request aimed at tab `tab_id` (`None`: the current tab, the request as it is).
    /// It matters to commands, evaluate, actions, accessibility snapshots, dialog answers
    /// (`None` there: any tab's dialog) and recover; the others are browser-wide.
    ///
    /// ```
    /// use cdp_supervisor_driver::Request;
    /// let r = Request::Recover(Box::new(|_| {})).in_tab(Some("T"));
    /// assert_eq!(format!("{r:?}"), "InTab(Recover)");
    /// assert_eq!(format!("{:?}", Request::Recover(Box::new(|_| {})).in_tab(None)), "Recover");
    /// ```
    pub fn in_tab(self, tab_id: Option<&str>) -> Request {
        match tab_id {
            Some(t) => Request::InTab {
                tab_id: t.to_owned(),
                request: Box::new(self),
            },
            None => self,
        }
    }

    /// [`Request::Command`] from a client's arguments; `params` must be a JSON object (or
    /// null for none).
    ///
    /// ```
    /// use cdp_supervisor_driver::Request;
    /// use std::time::Duration;
    /// let r = Request::command(None, "Page.reload", serde_json::json!({}), Duration::from_secs(5), Box::new(|_| {}));
    /// assert_eq!(format!("{r:?}"), "Command");
    /// ```
    pub fn command(
        frame_id: Option<&str>,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
        updates: Updates,
    ) -> Request {
        Request::Command {
            frame_id: frame_id.map(str::to_owned),
            method: method.to_owned(),
            params: raw_params(params),
            timeout,
            updates,
        }
    }

    /// [`Request::BrowserCommand`] from a client's arguments; `params` must be a JSON
    /// object (or null for none).
    ///
    /// ```
    /// use cdp_supervisor_driver::Request;
    /// use std::time::Duration;
    /// let r = Request::browser_command("Target.getBrowserContexts", serde_json::Value::Null, Duration::from_secs(5), Box::new(|_| {}));
    /// assert_eq!(format!("{r:?}"), "BrowserCommand");
    /// ```
    pub fn browser_command(
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
        updates: Updates,
    ) -> Request {
        Request::BrowserCommand {
            method: method.to_owned(),
            params: raw_params(params),
            timeout,
            updates,
        }
    }

    /// [`Request::Dialog`] from a client's arguments.
    ///
    /// ```
    /// use cdp_supervisor_driver::{DialogAction, Request};
    /// let r = Request::dialog(DialogAction::Accept, Some("yes"), None, Box::new(|_| {}));
    /// assert_eq!(format!("{r:?}"), "Dialog");
    /// ```
    pub fn dialog(
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
        reply: Reply<DialogOutcome>,
    ) -> Request {
        Request::Dialog {
            action,
            prompt_text: prompt_text.map(str::to_owned),
            dialog_id: dialog_id.map(str::to_owned),
            files: None,
            credentials: None,
            reply,
        }
    }

    /// [`Request::Dialog`] signing in to an `http_auth` dialog.
    ///
    /// ```
    /// use cdp_supervisor_driver::Request;
    /// let r = Request::sign_in("alice", "secret", None, Box::new(|_| {}));
    /// assert_eq!(format!("{r:?}"), "Dialog");
    /// ```
    pub fn sign_in(
        username: &str,
        password: &str,
        dialog_id: Option<&str>,
        reply: Reply<DialogOutcome>,
    ) -> Request {
        Request::Dialog {
            action: DialogAction::Accept,
            prompt_text: None,
            dialog_id: dialog_id.map(str::to_owned),
            files: None,
            credentials: Some((
                username.to_owned(),
                cdp_supervisor::http_auth::Password::new(password),
            )),
            reply,
        }
    }

    /// [`Request::Dialog`] accepting a file chooser with `files` (absolute paths; each
    /// must be a readable file under an allowed upload root).
    ///
    /// ```
    /// use cdp_supervisor_driver::Request;
    /// let r = Request::upload(vec!["/srv/up/a.txt".into()], None, Box::new(|_| {}));
    /// assert_eq!(format!("{r:?}"), "Dialog");
    /// ```
    pub fn upload(
        files: Vec<String>,
        dialog_id: Option<&str>,
        reply: Reply<DialogOutcome>,
    ) -> Request {
        Request::Dialog {
            action: DialogAction::Accept,
            prompt_text: None,
            dialog_id: dialog_id.map(str::to_owned),
            files: Some(files),
            credentials: None,
            reply,
        }
    }
}

/// A command's params as sent: none for null (the core refuses what is not an object).
fn raw_params(params: serde_json::Value) -> Option<Box<RawValue>> {
    match params {
        serde_json::Value::Null => None,
        params => serde_json::value::to_raw_value(&params).ok(),
    }
}

/// A finished command's `result` text as JSON (`null` if it is not JSON).
///
/// ```
/// assert_eq!(cdp_supervisor_driver::command_result(r#"{"a":1}"#)["a"], 1);
/// assert!(cdp_supervisor_driver::command_result("oops").is_null());
/// ```
pub fn command_result(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or(serde_json::Value::Null)
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
            Request::WaitAttached { .. } => "WaitAttached",
            Request::Stop(_) => "Stop",
            Request::Evaluate { .. } => "Evaluate",
            Request::AxSnapshot { .. } => "AxSnapshot",
            Request::Act { .. } => "Act",
            Request::Wake => "Wake",
            Request::Tabs(_) => "Tabs",
            Request::Console { .. } => "Console",
            Request::NewTab { .. } => "NewTab",
            Request::CreateContext(_) => "CreateContext",
            Request::DisposeContext { .. } => "DisposeContext",
            Request::BrowserCommand { .. } => "BrowserCommand",
            Request::SelectTab { .. } => "SelectTab",
            Request::CloseTab { .. } => "CloseTab",
            Request::NetworkRequests { .. } => "NetworkRequests",
            Request::NetworkRequest { .. } => "NetworkRequest",
            Request::NetworkBody { .. } => "NetworkBody",
            Request::InTab { request, .. } => return write!(f, "InTab({request:?})"),
        };
        f.write_str(name)
    }
}

/// A command sent while no page is attached (connecting, or re-attaching after a
/// reconnect): it waits for the attach within its own deadline.
struct HeldCommand {
    deadline: f64,
    tab_id: Option<String>,
    frame_id: Option<String>,
    method: String,
    params: Option<Box<RawValue>>,
    updates: Updates,
}

/// A caller of [`Request::WaitAttached`].
struct AttachWaiter {
    deadline: f64,
    timeout: Duration,
    reply: Reply<Result<(), ClientError>>,
}

/// A caller of [`Request::NewTab`]: first its `Target.createTarget` (by command id), then
/// the new tab's listing.
struct Opening {
    deadline: f64,
    /// The new tab's id, once `Target.createTarget` answered.
    target: Option<String>,
    reply: Reply<Result<TabInfo, ClientError>>,
}

/// A caller of [`Request::CloseTab`], until the tab is gone or its page asks to stay.
struct Closing {
    deadline: f64,
    tab_id: String,
    /// The close command, until it finished.
    command: Option<u64>,
    /// The `beforeunload` dialog the close raised, once it opened.
    dialog: Option<PendingDialog>,
    /// The page stayed: that dialog was dismissed.
    stayed: bool,
    /// The close command failed, and the tab is still there.
    failed: Option<CommandError>,
    reply: Reply<Result<ClosedTab, ClientError>>,
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
    evaluations: HashMap<u64, Reply<EvalOutcome>>,
    /// Callers waiting for an accessibility snapshot, by its id.
    ax_snapshots: HashMap<u64, Reply<Result<AxSnapshot, AxError>>>,
    /// Callers waiting for an action's result, by the action's id.
    acts: HashMap<u64, Reply<ActOutcome>>,
    settles: Vec<SettleGroup>,
    subscribers: Vec<Subscriber>,
    settle_timeout: Duration,
    /// The callers waiting for a planned stop (the core decides when it is done).
    stopping: Option<Vec<Reply<()>>>,
    connected: bool,
    /// The page as the last `page` diff showed it.
    page: Option<PageInfo>,
    /// Commands waiting for the page to attach.
    held: Vec<HeldCommand>,
    /// Callers waiting for the page to attach.
    attach_waiters: Vec<AttachWaiter>,
    /// The time of the last input.
    now: f64,
    /// Reconnecting failed for good: nothing attaches any more.
    gave_up: bool,
    /// The tab the request being applied names (`None`: the current tab).
    tab: Option<String>,
    /// Callers of `new_tab`, by their `Target.createTarget`'s id until it answers, then
    /// waiting for the tab to be listed.
    openings: HashMap<u64, Opening>,
    /// Callers of `close_tab`.
    closings: Vec<Closing>,
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
    ///
    pub fn new(options: &Options) -> std::io::Result<Driver> {
        let recorder = match &options.record {
            Some(path) => Some(Recorder::create(path)?),
            None => None,
        };
        let mut config = options.config.clone();
        config.upload_roots = crate::upload::canonical_roots(&config.upload_roots);
        if let Some(downloads) = &mut config.downloads {
            // The driver gives each completed file its name (file I/O is the driver's).
            downloads.embedder_renames = true;
            std::fs::create_dir_all(&downloads.dir)?;
        }
        Ok(Driver {
            sup: Supervisor::new(config),
            recorder,
            commands: HashMap::new(),
            dialogs: HashMap::new(),
            evaluations: HashMap::new(),
            ax_snapshots: HashMap::new(),
            acts: HashMap::new(),
            settles: Vec::new(),
            subscribers: Vec::new(),
            settle_timeout: options.settle_timeout,
            stopping: None,
            connected: false,
            page: None,
            held: Vec::new(),
            attach_waiters: Vec::new(),
            now: 0.0,
            gave_up: false,
            tab: None,
            openings: HashMap::new(),
            closings: Vec::new(),
        })
    }

    /// The core's answer for a dialog request; files are checked on disk first (the core
    /// touches no file; see [`crate::upload`]).
    fn answer_for(
        &self,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
        files: Option<Vec<String>>,
    ) -> Result<cdp_supervisor::Answer, DialogError> {
        let Some(files) = files.filter(|_| action == DialogAction::Accept) else {
            return Ok(cdp_supervisor::Answer::new(action, prompt_text));
        };
        match crate::upload::checked_files(&files) {
            Ok(files) => Ok(cdp_supervisor::Answer::Files { files }),
            Err(reason) => {
                let chooser = || {
                    let pending = self.sup.snapshot().pending_dialogs;
                    let mut choosers = pending
                        .into_iter()
                        .filter(|d| d.kind == cdp_supervisor::DialogKind::FileChooser);
                    match (choosers.next(), choosers.next()) {
                        (Some(one), None) => one.id,
                        _ => "(none named)".to_owned(),
                    }
                };
                Err(DialogError::UploadRefused {
                    dialog_id: dialog_id.map_or_else(chooser, str::to_owned),
                    reason,
                })
            }
        }
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
        self.now = now;
        self.connected = true;
        if let Some(r) = self.recorder.as_mut() {
            log_io(r.connect_to(url));
        }
        self.broadcast(ClientEvent::Connected {
            url: crate::endpoint::redact_url(url),
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
        self.gave_up = true;
        self.release_all();
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

    /// One text frame from the browser. A message the core refuses is logged to stderr
    /// when `CDP_SUPERVISE_DEBUG` is set; it never stops the loop.
    pub fn message(&mut self, now: f64, text: &str) {
        self.now = now;
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
        self.now = now;
        if self.sup.poll_timeout().is_some_and(|t| t <= now) {
            self.sup.handle_timeout(now);
            self.dispatch();
        }
        self.expire(now);
    }

    /// The core's next deadline (on the clock passed in).
    pub fn next_deadline(&self) -> Option<f64> {
        let held = self.held.iter().map(|h| h.deadline);
        let waiters = self.attach_waiters.iter().map(|w| w.deadline);
        let openings = self.openings.values().map(|o| o.deadline);
        let closings = self.closings.iter().map(|c| c.deadline);
        self.sup
            .poll_timeout()
            .into_iter()
            .chain(held)
            .chain(waiters)
            .chain(openings)
            .chain(closings)
            .reduce(f64::min)
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
        self.now = now;
        match request {
            Request::Snapshot(reply) => reply(self.sup.snapshot()),
            Request::Command {
                frame_id,
                method,
                params,
                timeout,
                updates,
            } => {
                let deadline = now + timeout.as_secs_f64();
                self.send_command(HeldCommand {
                    deadline,
                    tab_id: self.tab.clone(),
                    frame_id,
                    method,
                    params,
                    updates,
                });
            }
            Request::WaitAttached { timeout, reply } => {
                if self.is_attached() {
                    reply(Ok(()));
                } else if self.gave_up || self.stopping.is_some() {
                    reply(Err(ClientError::Closed));
                } else {
                    self.attach_waiters.push(AttachWaiter {
                        deadline: now + timeout.as_secs_f64(),
                        timeout,
                        reply,
                    });
                }
            }
            Request::Recover(mut updates) => match self.sup.recover_in(now, self.tab.as_deref()) {
                Ok(id) => {
                    self.commands.insert(id.0, updates);
                }
                Err(e) => updates(CommandUpdate::Finished(Err(e))),
            },
            Request::Dialog {
                action,
                prompt_text,
                dialog_id,
                files,
                credentials,
                reply,
            } => match credentials
                .filter(|_| action == DialogAction::Accept)
                .map(|(username, password)| {
                    Ok(cdp_supervisor::Answer::Credentials { username, password })
                })
                .unwrap_or_else(|| {
                    self.answer_for(action, prompt_text.as_deref(), dialog_id.as_deref(), files)
                })
                .and_then(|answer| {
                    self.sup.respond_dialog_in(
                        now,
                        self.tab.as_deref(),
                        answer,
                        dialog_id.as_deref(),
                    )
                }) {
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
            Request::Evaluate { evaluation, reply } => {
                match self.sup.evaluate_in(now, self.tab.as_deref(), &evaluation) {
                    Ok(id) => {
                        self.evaluations.insert(id.0, reply);
                    }
                    Err(e) => reply(Err(e)),
                }
            }
            Request::Act {
                action,
                options,
                reply,
            } => match self.sup.act_in(now, self.tab.as_deref(), action, options) {
                Ok(id) => {
                    self.acts.insert(id.0, reply);
                }
                Err(e) => reply(Err(e.into())),
            },
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
            Request::AxSnapshot { options, reply } => {
                match self.sup.ax_snapshot_in(now, self.tab.as_deref(), options) {
                    Ok(id) => {
                        self.ax_snapshots.insert(id.0, reply);
                    }
                    Err(e) => reply(Err(e)),
                }
            }
            Request::Stop(reply) => match self.stopping.as_mut() {
                Some(replies) => replies.push(reply),
                None => {
                    // The core settles pending dialogs and says when to close.
                    self.sup
                        .begin_stop(now, Some(DialogAction::Dismiss), self.settle_timeout);
                    self.stopping = Some(vec![reply]);
                }
            },
            Request::Wake => {}
            Request::Tabs(reply) => reply(self.sup.tabs()),
            Request::Console { since, reply } => reply(
                self.sup
                    .console_since(self.tab.as_deref(), since)
                    .map_err(ClientError::from),
            ),
            Request::NewTab {
                url,
                context_id,
                reply,
            } => match self
                .sup
                .new_tab_in_context(now, &url, context_id.as_deref())
            {
                Ok(id) => {
                    let deadline = now + 2.0 * self.sup.config().setup_timeout.as_secs_f64();
                    let opening = Opening {
                        deadline,
                        target: None,
                        reply,
                    };
                    self.openings.insert(id.0, opening);
                }
                Err(e) => reply(Err(e.into())),
            },
            Request::CreateContext(updates) => {
                let sent = self.sup.create_context(now);
                self.track_command(sent, updates);
            }
            Request::DisposeContext {
                context_id,
                updates,
            } => {
                let sent = self.sup.dispose_context(now, &context_id);
                self.track_command(sent, updates);
            }
            Request::BrowserCommand {
                method,
                params,
                timeout,
                updates,
            } => {
                let sent = self
                    .sup
                    .browser_command(now, &method, params.as_deref(), timeout);
                self.track_command(sent, updates);
            }
            Request::SelectTab { tab_id, reply } => {
                let outcome = self.sup.select_tab(now, &tab_id).map(|()| {
                    let tabs = self.sup.tabs();
                    tabs.into_iter().find(|t| t.tab_id == tab_id)
                });
                match outcome {
                    Ok(Some(tab)) => reply(Ok(tab)),
                    Ok(None) => reply(Err(CommandError::NoSuchTab { tab_id }.into())),
                    Err(e) => reply(Err(e.into())),
                }
            }
            Request::CloseTab {
                tab_id,
                force,
                reply,
            } => {
                let named = tab_id.or_else(|| self.tab.clone());
                let closed = self.sup.close_tab(now, named.as_deref(), force);
                let tab_id = named.or_else(|| self.sup.current_tab().map(str::to_owned));
                match (tab_id, closed) {
                    (_, Err(e)) => reply(Err(e.into())),
                    (None, Ok(_)) => reply(Err(CommandError::NotAttached.into())),
                    (Some(tab_id), Ok(id)) => self.closings.push(Closing {
                        deadline: now + 2.0 * self.sup.config().setup_timeout.as_secs_f64(),
                        tab_id,
                        command: Some(id.0),
                        dialog: None,
                        stayed: false,
                        failed: None,
                        reply,
                    }),
                }
            }
            Request::NetworkRequests { after, reply } => {
                reply(self.sup.network_requests(self.tab.as_deref(), after))
            }
            Request::NetworkRequest { index, reply } => {
                reply(self.sup.network_request(self.tab.as_deref(), index))
            }
            Request::NetworkBody {
                index,
                part,
                updates,
            } => {
                let timeout = self.sup.config().setup_timeout;
                let sent = self
                    .sup
                    .network_body(now, self.tab.as_deref(), index, part, timeout);
                self.track_command(sent, updates);
            }
            Request::InTab { tab_id, request } => {
                let outer = self.tab.replace(tab_id);
                self.request(now, *request);
                self.tab = outer;
            }
        }
        self.dispatch();
    }

    /// Starts a planned stop without a caller to answer (the client handle went away).
    pub fn begin_stop(&mut self, now: f64) {
        if self.stopping.is_none() {
            self.request(now, Request::Stop(Box::new(|()| {})));
        }
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
        self.release_all();
        if let Some(replies) = self.stopping.take() {
            for reply in replies {
                reply(());
            }
        }
    }

    /// A command the core sent (its updates wait for its outcome), or why it did not.
    fn track_command(&mut self, sent: Result<CommandId, CommandError>, mut updates: Updates) {
        match sent {
            Ok(id) => {
                self.commands.insert(id.0, updates);
            }
            Err(e) => updates(CommandUpdate::Finished(Err(e))),
        }
    }

    /// Sends a command, or holds it while no page is attached and one may still attach
    /// (connecting, re-attaching after a reconnect): held, it waits for the attach within
    /// its own deadline instead of failing at once.
    fn send_command(&mut self, command: HeldCommand) {
        let HeldCommand {
            deadline,
            tab_id,
            frame_id,
            method,
            params,
            mut updates,
        } = command;
        // A float-to-integer `as` saturates (NaN is zero): never a panic.
        let left = Duration::from_micros(((deadline - self.now).max(0.0) * 1e6) as u64);
        match self.sup.command_in(
            self.now,
            tab_id.as_deref(),
            frame_id.as_deref(),
            &method,
            params.as_deref(),
            left,
        ) {
            Ok(id) => {
                self.commands.insert(id.0, updates);
            }
            Err(CommandError::NotAttached)
                if !self.gave_up && self.stopping.is_none() && deadline > self.now =>
            {
                self.held.push(HeldCommand {
                    deadline,
                    tab_id,
                    frame_id,
                    method,
                    params,
                    updates,
                });
            }
            Err(e) => updates(CommandUpdate::Finished(Err(e))),
        }
    }

    /// Whether the page is attached: `live`, or `blocked` (then `recover` releases it).
    fn is_attached(&self) -> bool {
        self.page
            .as_ref()
            .is_some_and(|p| matches!(p.state, PageState::Live | PageState::Blocked))
    }

    /// The page attached: held commands go out, waiters are answered.
    fn attached(&mut self) {
        for waiter in std::mem::take(&mut self.attach_waiters) {
            (waiter.reply)(Ok(()));
        }
        for command in std::mem::take(&mut self.held) {
            self.send_command(command);
        }
    }

    /// Held commands and attach waiters whose deadline passed fail, saying what did not
    /// happen.
    fn expire(&mut self, now: f64) {
        let (late, held) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.deadline <= now);
        self.held = held;
        for mut command in late {
            (command.updates)(CommandUpdate::Finished(Err(CommandError::NotAttached)));
        }
        let (late, waiting): (Vec<_>, _) = std::mem::take(&mut self.attach_waiters)
            .into_iter()
            .partition(|w| w.deadline <= now);
        self.attach_waiters = waiting;
        for waiter in late {
            let error = ClientError::NotLive {
                after: waiter.timeout,
                why: self.why_not_attached(),
            };
            (waiter.reply)(Err(error));
        }
        self.check_tabs(now);
    }

    /// Why the page is not attached, and what to do.
    fn why_not_attached(&self) -> String {
        if !self.connected {
            return "the WebSocket to the browser is not open (it is reconnecting)".into();
        }
        match &self.page {
            None => "no page target to attach to: open a tab in the browser, or check Config::target_id".into(),
            Some(p) => match p.state {
                PageState::Attaching => format!("page {} is still attaching: Page.enable got no reply (a dialog left open by an earlier client blocks it; call recover())", p.target_id),
                PageState::Crashed => format!("page {} crashed; call recover()", p.target_id),
                PageState::Detached => format!("page {} is gone (its tab was closed)", p.target_id),
                PageState::Live | PageState::Blocked => "it attached just now".into(),
            },
        }
    }

    /// Nothing will attach any more: held commands and waiters fail.
    fn release_all(&mut self) {
        for mut command in std::mem::take(&mut self.held) {
            (command.updates)(CommandUpdate::Finished(Err(CommandError::NotAttached)));
        }
        for waiter in std::mem::take(&mut self.attach_waiters) {
            (waiter.reply)(Err(ClientError::Closed));
        }
        for (_, reply) in std::mem::take(&mut self.acts) {
            reply(Err(ClientError::Closed));
        }
        for (_, opening) in std::mem::take(&mut self.openings) {
            (opening.reply)(Err(ClientError::Closed));
        }
        for closing in std::mem::take(&mut self.closings) {
            (closing.reply)(Err(ClientError::Closed));
        }
    }

    fn broadcast(&mut self, event: ClientEvent) {
        self.subscribers.retain_mut(|s| s(event.clone()));
    }

    /// Routes every queued event of the core.
    fn dispatch(&mut self) {
        self.route_events();
        if self.is_attached() && !(self.held.is_empty() && self.attach_waiters.is_empty()) {
            self.attached();
            self.route_events();
        }
        if !(self.openings.is_empty() && self.closings.is_empty()) {
            self.check_tabs(self.now);
        }
    }

    /// Answers the callers of `new_tab` whose tab is listed and attached, and of
    /// `close_tab` whose tab is gone or whose page asked to stay; past their deadline,
    /// with what is known.
    fn check_tabs(&mut self, now: f64) {
        if self.openings.is_empty() && self.closings.is_empty() {
            return;
        }
        let tabs = self.sup.tabs();
        let listed = |id: &str| tabs.iter().find(|t| t.tab_id == id);
        let done: Vec<u64> = self
            .openings
            .iter()
            .filter(|(_, o)| {
                let tab = o.target.as_deref().and_then(listed);
                tab.is_some_and(|t| t.state != TabState::Attaching) || o.deadline <= now
            })
            .map(|(id, _)| *id)
            .collect();
        for id in done {
            let Some(opening) = self.openings.remove(&id) else {
                continue;
            };
            let outcome = match opening.target.as_deref().and_then(listed) {
                // Past the deadline, a tab still attaching is answered as it is.
                Some(tab) => Ok(tab.clone()),
                None => Err(ClientError::timeout(
                    "the new tab to be listed",
                    self.sup.config().setup_timeout * 2,
                )),
            };
            (opening.reply)(outcome);
        }
        let (finished, waiting): (Vec<Closing>, Vec<Closing>) = std::mem::take(&mut self.closings)
            .into_iter()
            .partition(|c| {
                listed(&c.tab_id).is_none()
                    || c.failed.is_some()
                    || c.stayed
                    || c.dialog.is_some()
                    || c.deadline <= now
            });
        self.closings = waiting;
        for closing in finished {
            let closed = listed(&closing.tab_id).is_none();
            let outcome = match closing.failed {
                Some(e) if !closed => Err(ClientError::Command(e)),
                _ => Ok(ClosedTab {
                    tab_id: closing.tab_id,
                    closed,
                    dialog: closing.dialog.filter(|_| !closed),
                }),
            };
            (closing.reply)(outcome);
        }
    }

    fn route_events(&mut self) {
        let mut fatal = None;
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
                    self.tab_command_finished(id.0, outcome);
                }
                Event::DialogAnswered { id, outcome } => {
                    if let Some(reply) = self.dialogs.remove(&id.0) {
                        reply(outcome.clone());
                    }
                    self.settled(id.0, outcome.clone());
                }
                Event::Evaluated { id, outcome } => {
                    if let Some(reply) = self.evaluations.remove(&id.0) {
                        reply(outcome.clone());
                    }
                }
                Event::AxSnapshot { id, outcome } => {
                    if let Some(reply) = self.ax_snapshots.remove(&id.0) {
                        reply(outcome.clone());
                    }
                }
                Event::ActFinished { id, outcome } => {
                    if let Some(reply) = self.acts.remove(&id.0) {
                        reply(outcome.clone().map(|r| *r).map_err(ClientError::from));
                    }
                }
                Event::Warning(warning) => {
                    debug(&format!("warning: {warning}"));
                    // Nothing can be supervised on this connection: end, never sit idle.
                    if warning.is_fatal() && !self.gave_up {
                        fatal = Some(warning.to_string());
                    }
                }
                Event::DownloadCompleted {
                    id,
                    file_path,
                    suggested_filename,
                } => {
                    let saved = crate::downloads::save(file_path, suggested_filename);
                    self.sup.download_saved(self.now, id, saved);
                }
                Event::Diff(Diff::DialogOpened { dialog }) => {
                    // A close's `beforeunload`: the page asks whether to leave.
                    let policy = self.sup.policy();
                    for c in &mut self.closings {
                        if dialog.tab_id.as_deref() == Some(c.tab_id.as_str())
                            && policy == DialogPolicy::MustRespond
                        {
                            c.dialog.get_or_insert_with(|| dialog.clone());
                        }
                    }
                }
                Event::Diff(Diff::DialogClosed { dialog }) => {
                    for c in &mut self.closings {
                        if dialog.tab_id.as_deref() == Some(c.tab_id.as_str()) && !dialog.accepted {
                            c.stayed = true;
                        }
                    }
                }
                // The current tab's page entry (another tab's diff, or a new current tab).
                Event::Diff(Diff::Page { .. } | Diff::CurrentTab { .. }) => {
                    self.page = self.sup.page()
                }
                _ => {}
            }
            self.broadcast(ClientEvent::Event(event));
        }
        if let Some(error) = fatal {
            self.gave_up(error);
        }
    }

    /// A `new_tab`'s `Target.createTarget` or a `close_tab`'s close finished.
    fn tab_command_finished(&mut self, id: u64, outcome: &Result<String, CommandError>) {
        if let Some(opening) = self.openings.get_mut(&id) {
            let target = outcome.as_ref().map(|text| {
                crate::command_result(text)
                    .get("targetId")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            });
            match target {
                Ok(Some(target)) => opening.target = Some(target),
                Ok(None) => {
                    if let Some(o) = self.openings.remove(&id) {
                        let e = CommandError::Cdp {
                            method: "Target.createTarget".into(),
                            code: 0,
                            message: "the reply names no targetId".into(),
                        };
                        (o.reply)(Err(ClientError::Command(e)));
                    }
                }
                Err(e) => {
                    if let Some(o) = self.openings.remove(&id) {
                        (o.reply)(Err(ClientError::Command(e.clone())));
                    }
                }
            }
        }
        for c in &mut self.closings {
            if c.command == Some(id) {
                c.command = None;
                // The close's reply can lose the race with the tab's detach (which fails
                // its commands): only a tab still listed makes this a failure.
                c.failed = outcome.as_ref().err().cloned();
            }
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
fn debug(message: &str) {
    if std::env::var_os("CDP_SUPERVISE_DEBUG").is_some() {
        eprintln!("cdp-supervisor: {message}");
    }
}

fn log_io(result: std::io::Result<()>) {
    if let Err(e) = result {
        eprintln!("cdp-supervisor: writing the trace failed: {e}");
    }
}
