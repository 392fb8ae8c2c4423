//! The [`Supervisor`]: the one owner of state, driven by `handle_*` and drained by `poll_*`.
//!
//! Follow a message: [`Supervisor::handle_message`] parses the [`Envelope`], a reply goes to
//! `Supervisor::on_reply` (matched by id alone, fact 17), an event to
//! `Supervisor::on_event`, which calls the handler for its method here (targets, frames,
//! console) or in `dialog_flow.rs` (dialogs). Handlers change the tables and push diffs
//! and commands onto the output queues.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::bridge::{self, BridgeRequest};
use crate::cdp::{self, CdpEvent};
use crate::command::{blocked_by_dialogs, CommandId, CommandsInFlight, InFlight, Purpose};
use crate::console::{console_level, exception_text};
use crate::dialog::{DialogAction, DialogPolicy, DialogSource, Dialogs};
use crate::error::{CommandError, DialogError, InputError};
use crate::frame::{Frames, DEFAULT_MAX_FRAMES};
use crate::session::{Session, Sessions, TargetKind, DEFAULT_MAX_SESSIONS};
use crate::snapshot::{
    build_frame_tree, push_ring, ClosedBy, ClosedDialog, ConsoleEntry, ConsoleLevel, Diff,
    FrameInfo, PageInfo, PageState, Snapshot, MAX_CONSOLE_ERRORS,
};
use crate::wire::{to_raw, CdpError, Envelope, OutgoingCommand};

pub use crate::limits::DEFAULT_MAX_COMMANDS_IN_FLIGHT;

/// How the supervisor behaves. `Config::default()` is the SPEC's defaults.
///
/// ```
/// use cdp_supervisor::{Config, DialogPolicy};
/// use std::time::Duration;
/// let config = Config { policy: DialogPolicy::AutoDismiss, dialog_timeout: Duration::from_secs(5), ..Config::default() };
/// assert_eq!(config.max_frames, 10_000);
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    /// The tab to supervise; `None` picks the first target of type `page` (fact 1).
    pub target_id: Option<String>,
    /// The dialog policy at start (SPEC §6.1).
    pub policy: DialogPolicy,
    /// When the watchdog dismisses a `must_respond` dialog (default 300 s).
    pub dialog_timeout: Duration,
    /// Deadline of the supervisor's own commands and of dialog answers (default 10 s).
    pub setup_timeout: Duration,
    /// A page whose `Page.enable` gets no reply within this is reported `blocked`
    /// (fact 11; default 5 s).
    pub enable_timeout: Duration,
    /// Frames tracked at most; beyond it the oldest-known frame other than the top is
    /// dropped with its subtree (default 10 000).
    pub max_frames: usize,
    /// Sessions tracked at most; a child attaching beyond it is resumed and detached at
    /// once, untracked (default 10 000).
    pub max_sessions: usize,
    /// Embedder commands in flight at most; one more fails at once (default 1 024).
    pub max_commands_in_flight: usize,
    /// Run the dialog bridge (SPEC §6.5) on every page and OOPIF session.
    pub bridge: bool,
    /// The bridge's secret: only requests carrying it become dialogs. It must be
    /// unguessable (the transports fill it from the OS's random source); with an empty
    /// token the bridge accepts nothing and dialogs fall back to native.
    pub bridge_token: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_id: None,
            policy: DialogPolicy::MustRespond,
            dialog_timeout: Duration::from_secs(300),
            setup_timeout: Duration::from_secs(10),
            enable_timeout: Duration::from_secs(5),
            max_frames: DEFAULT_MAX_FRAMES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_commands_in_flight: DEFAULT_MAX_COMMANDS_IN_FLIGHT,
            bridge: false,
            bridge_token: String::new(),
        }
    }
}

/// What the supervisor tells the embedder, drained with [`Supervisor::poll_event`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// One change to the snapshot (SPEC §9).
    Diff(Diff),
    /// A command in flight cannot complete while this dialog shows (SPEC §6.4). It still
    /// ends later in exactly one [`Event::CommandFinished`].
    CommandBlocked {
        /// The command.
        id: CommandId,
        /// The dialog in its way.
        dialog_id: String,
    },
    /// The one final outcome of a command from [`Supervisor::command`] or
    /// [`Supervisor::recover`]: CDP's `result` object as JSON text, or why not.
    CommandFinished {
        /// The command.
        id: CommandId,
        /// The outcome.
        outcome: Result<String, CommandError>,
    },
    /// The one final outcome of [`Supervisor::respond_dialog`]: the closed dialog, or why
    /// it is still pending.
    DialogAnswered {
        /// The answer's id, as `respond_dialog` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<ClosedDialog, DialogError>,
    },
    /// Something the embedder may want to log: a set-up command failed, no page target
    /// was found, a child was refused over the cap.
    Warning {
        /// What happened, in words.
        message: String,
    },
}

/// One item of output, for embedders that drain everything through one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Write this command's `json` to the socket.
    Transmit(OutgoingCommand),
    /// Tell the client.
    Event(Event),
    /// Nothing more for now; call [`Supervisor::handle_timeout`] at this time (if any),
    /// or earlier when a message arrives.
    Timeout(Option<f64>),
}

/// Where the page's attach stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PagePhase {
    /// `Target.attachToTarget` sent, no session yet.
    Attaching,
    /// Session known.
    Attached,
    /// `Inspector.targetCrashed` on the page session.
    Crashed,
    /// Session gone, or connection lost.
    Detached,
}

/// Where the page session's `Page.enable` stands (fact 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EnableState {
    Pending,
    /// No reply within `enable_timeout`: the page is reported blocked until it answers.
    Overdue,
    Done,
}

#[derive(Debug, Clone)]
struct PageTrack {
    target_id: String,
    session_id: Option<String>,
    phase: PagePhase,
    enable: EnableState,
    /// The top frame's URL, for `recover`.
    url: String,
}

/// The sans-IO supervisor of one Chromium tab. See the crate docs for the run loop.
///
/// ```
/// use cdp_supervisor::{Config, Output, Supervisor};
/// let mut sup = Supervisor::new(Config::default());
/// sup.handle_connected(0.0);
/// let first = sup.poll_output();
/// assert!(matches!(first, Output::Transmit(cmd) if cmd.method == "Target.getTargets"));
/// ```
#[derive(Debug)]
pub struct Supervisor {
    config: Config,
    policy: DialogPolicy,
    /// The latest time given; never goes back.
    now: f64,
    last_command_id: u64,
    page: Option<PageTrack>,
    last_page_info: Option<PageInfo>,
    pub(crate) sessions: Sessions,
    pub(crate) frames: Frames,
    pub(crate) dialogs: Dialogs,
    console_errors: VecDeque<Arc<ConsoleEntry>>,
    pub(crate) commands_in_flight: CommandsInFlight,
    transmits: VecDeque<OutgoingCommand>,
    events: VecDeque<Event>,
    /// The bridge script, built once from the token (`None` without the bridge).
    bridge_script: Option<String>,
    /// A planned stop's grace deadline (SPEC §6.8), once `begin_stop` was called.
    stop_deadline: Option<f64>,
}

impl Supervisor {
    /// A supervisor with nothing attached. Call [`Supervisor::handle_connected`] once the
    /// WebSocket to the browser is open.
    pub fn new(config: Config) -> Self {
        Supervisor {
            now: 0.0,
            last_command_id: 0,
            page: None,
            last_page_info: None,
            sessions: Sessions::default(),
            frames: Frames::default(),
            dialogs: Dialogs::default(),
            console_errors: VecDeque::new(),
            commands_in_flight: CommandsInFlight::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            bridge_script: config.bridge.then(|| bridge::script(&config.bridge_token)),
            stop_deadline: None,
            policy: config.policy,
            config,
        }
    }

    // ---- input ---------------------------------------------------------------------

    /// The WebSocket to the browser endpoint is open: list targets and attach (fact 1).
    pub fn handle_connected(&mut self, now: f64) {
        self.advance(now);
        self.send(
            None,
            "Target.getTargets",
            None,
            Purpose::GetTargets,
            self.config.setup_timeout,
        );
        self.update_page();
    }

    /// The WebSocket closed (SPEC §6.8): every command in flight fails, pending dialogs
    /// close `remote`, sessions and frames are cleared. The page is remembered so that the
    /// next [`Supervisor::handle_connected`] re-attaches the same tab.
    pub fn handle_disconnected(&mut self, now: f64) {
        self.advance(now);
        let all = self.commands_in_flight.take_all();
        for (id, cmd) in all {
            let method = cmd.method.clone();
            self.fail_command(id, cmd, CommandError::Disconnected { method });
        }
        self.clear_tab();
        if let Some(p) = self.page.as_mut() {
            p.session_id = None;
            p.phase = PagePhase::Detached;
        }
        self.update_page();
    }

    /// One WebSocket text frame from the browser.
    ///
    /// A message that cannot be applied returns an [`InputError`] and leaves the state
    /// consistent; nothing panics, whatever the input.
    pub fn handle_message(&mut self, now: f64, text: &str) -> Result<(), InputError> {
        self.advance(now);
        let envelope = Envelope::parse(text).map_err(|e| classify_parse_error(text, e))?;
        let result = self.handle_envelope(envelope);
        self.update_page();
        result
    }

    /// Fires what is due at `now`: command deadlines, the page's `Page.enable` bound and
    /// dialog watchdogs. Spurious calls do nothing.
    pub fn handle_timeout(&mut self, now: f64) {
        self.advance(now);
        let now = self.now;
        for (id, mut cmd) in self.commands_in_flight.take_expired(now) {
            if cmd.purpose == Purpose::PageEnable {
                // Fact 11: the reply may still come after a recovery; keep waiting for it.
                if let Some(p) = self.page.as_mut() {
                    if p.enable == EnableState::Pending {
                        p.enable = EnableState::Overdue;
                    }
                }
                cmd.deadline = f64::INFINITY;
                self.commands_in_flight.insert(id, cmd);
                continue;
            }
            let method = cmd.method.clone();
            let after_s = now - cmd.sent_at;
            self.fail_command(id, cmd, CommandError::Timeout { method, after_s });
        }
        self.fire_watchdogs(now);
        self.update_page();
    }

    /// The entry point shared by [`Supervisor::handle_message`] and trace replay (which
    /// rewrites reply ids without re-serializing).
    pub(crate) fn handle_envelope(&mut self, mut env: Envelope<'_>) -> Result<(), InputError> {
        if let Some(id) = env.id {
            return self.on_reply(id, env.result, env.error);
        }
        let Some(method) = env.method.clone() else {
            return Err(InputError::NeitherIdNorMethod);
        };
        match env.take_event() {
            Ok(Some(event)) => self.on_event(&method, env.session_id.as_deref(), event),
            // Events the supervisor does not use were skipped unparsed.
            Ok(None) => Ok(()),
            Err(e) => Err(InputError::BadParams {
                method: method.into_owned(),
                error: e.to_string(),
            }),
        }
    }

    /// Like [`Supervisor::handle_message`], for replay: the envelope is parsed already.
    pub(crate) fn handle_envelope_at(
        &mut self,
        now: f64,
        env: Envelope<'_>,
    ) -> Result<(), InputError> {
        self.advance(now);
        let result = self.handle_envelope(env);
        self.update_page();
        result
    }

    // ---- output --------------------------------------------------------------------

    /// The next command to write to the socket.
    pub fn poll_transmit(&mut self) -> Option<OutgoingCommand> {
        self.transmits.pop_front()
    }

    /// The next event for the client.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Supervisor::handle_timeout`] must be called next, if anything is pending.
    pub fn poll_timeout(&self) -> Option<f64> {
        let commands = self
            .commands_in_flight
            .next_deadline()
            .filter(|t| t.is_finite());
        let watchdogs = self
            .dialogs
            .pending
            .iter()
            .filter(|d| d.answer.is_none())
            .filter_map(|d| d.watchdog_at)
            .reduce(f64::min);
        // A stop's grace deadline, until it has passed (then the stop is ready).
        let stop = self.stop_deadline.filter(|d| *d > self.now);
        [commands, watchdogs, stop]
            .into_iter()
            .flatten()
            .reduce(f64::min)
    }

    /// Transmits first, then events, then the next deadline: drain until `Timeout`.
    pub fn poll_output(&mut self) -> Output {
        if let Some(t) = self.poll_transmit() {
            return Output::Transmit(t);
        }
        if let Some(e) = self.poll_event() {
            return Output::Event(e);
        }
        Output::Timeout(self.poll_timeout())
    }

    // ---- the embedder's calls ------------------------------------------------------

    /// Sends `method` into the session that owns `frame_id` (SPEC §6.7); `None` means the
    /// top frame. Its outcome arrives as exactly one [`Event::CommandFinished`], within
    /// `timeout` at the latest.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor, CommandError};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.command(0.0, None, "Runtime.evaluate", None, Duration::from_secs(1)).unwrap_err();
    /// assert_eq!(err, CommandError::NotAttached);
    /// ```
    pub fn command(
        &mut self,
        now: f64,
        frame_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.advance(now);
        if let Some(p) = params {
            if !p.get().trim_start().starts_with('{') {
                return Err(CommandError::ParamsNotObject {
                    method: method.to_owned(),
                });
            }
        }
        let session = self.route(frame_id, method)?;
        if let Some(s) = self.sessions.get(&session) {
            if s.crashed {
                return Err(CommandError::SessionGone {
                    method: method.to_owned(),
                    session_id: session,
                    reason: "crashed".into(),
                });
            }
        }
        if self.commands_in_flight.embedder_count() >= self.config.max_commands_in_flight {
            return Err(CommandError::TooManyInFlight {
                limit: self.config.max_commands_in_flight,
            });
        }
        let id = self.send(Some(&session), method, params, Purpose::User, timeout);
        self.report_blocked(id);
        Ok(CommandId(id))
    }

    /// Releases a blocked page (SPEC §6.8, facts 11 and 15): `Page.navigate` to its current
    /// URL on the page session. The outcome arrives as [`Event::CommandFinished`].
    pub fn recover(&mut self, now: f64) -> Result<CommandId, CommandError> {
        self.advance(now);
        let (session, url) = match &self.page {
            Some(PageTrack {
                session_id: Some(s),
                url,
                ..
            }) => (s.clone(), url.clone()),
            _ => return Err(CommandError::NotAttached),
        };
        let url = if url.is_empty() {
            "about:blank".to_owned()
        } else {
            url
        };
        // A page blocked in a bridge dialog cannot navigate until it is answered.
        if let Some(top) = self.page_target_id().map(str::to_owned) {
            self.give_up_bridge_dialogs_in_subtree(&top);
        }
        let params = to_raw(&cdp::NavigateParams { url: &url });
        let id = self.send(
            Some(&session),
            "Page.navigate",
            params.as_deref(),
            Purpose::User,
            self.config.setup_timeout,
        );
        Ok(CommandId(id))
    }

    /// Starts a planned stop (SPEC §6.8). A dialog left open wedges the tab for the next
    /// client (fact 11), so every pending dialog is answered with `settle` first; then the
    /// stop waits until no dialog is pending and no command or answer of the embedder is in
    /// flight (a command a dialog blocked gets its real reply once the dialog closes), for
    /// `grace` at most. [`Supervisor::ready_to_close`] says when to close the socket;
    /// [`Supervisor::poll_timeout`] includes the grace deadline.
    ///
    /// ```
    /// use cdp_supervisor::{Config, DialogAction, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// sup.begin_stop(0.0, Some(DialogAction::Dismiss), Duration::from_secs(2));
    /// assert!(sup.ready_to_close()); // nothing pending
    /// ```
    pub fn begin_stop(&mut self, now: f64, settle: Option<DialogAction>, grace: Duration) {
        self.advance(now);
        if let Some(action) = settle {
            self.settle_dialogs(now, action);
        }
        if self.stop_deadline.is_none() {
            self.stop_deadline = Some(self.now + grace.as_secs_f64());
        }
    }

    /// Whether a planned stop may close the socket now: nothing left to wait for, or its
    /// grace time is up. False when no stop was begun.
    pub fn ready_to_close(&self) -> bool {
        match self.stop_deadline {
            Some(deadline) => {
                self.now >= deadline
                    || (!self.has_pending_dialogs()
                        && self.commands_in_flight.embedder_count() == 0)
            }
            None => false,
        }
    }

    /// Changes the dialog policy; it applies to dialogs opened afterwards (SPEC §6.1).
    pub fn set_policy(&mut self, policy: DialogPolicy) {
        self.policy = policy;
    }

    /// The current dialog policy.
    pub fn policy(&self) -> DialogPolicy {
        self.policy
    }

    /// The whole observable state (SPEC §9).
    pub fn snapshot(&self) -> Snapshot {
        let frames = self.frames.in_order();
        Snapshot {
            pending_dialogs: self
                .dialogs
                .pending
                .iter()
                .map(|d| d.info.clone())
                .collect(),
            recent_dialogs: self.dialogs.recent.iter().cloned().collect(),
            frame_tree: build_frame_tree(
                self.page.as_ref().map(|p| p.target_id.as_str()),
                frames.map(|f| &f.info),
            ),
            console_errors: self
                .console_errors
                .iter()
                .map(|e| ConsoleEntry::clone(e))
                .collect(),
            page: self.page_info(),
        }
    }

    /// The page session, once attached.
    pub fn page_session_id(&self) -> Option<&str> {
        self.page.as_ref().and_then(|p| p.session_id.as_deref())
    }

    /// Sizes of the internal tables, for bounds checks in tests and benchmarks.
    pub fn table_sizes(&self) -> TableSizes {
        TableSizes {
            frames: self.frames.len(),
            sessions: self.sessions.len(),
            commands_in_flight: self.commands_in_flight.len(),
            pending_dialogs: self.dialogs.pending.len(),
            recent_dialogs: self.dialogs.recent.len(),
            console_errors: self.console_errors.len(),
            queued_transmits: self.transmits.len(),
            queued_events: self.events.len(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    // ---- replies -------------------------------------------------------------------

    fn on_reply(
        &mut self,
        id: u64,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Result<(), InputError> {
        let Some(cmd) = self.commands_in_flight.remove(id) else {
            return Err(InputError::UnknownReply { id });
        };
        // `Ok(None)`: a reply with neither result nor error, read as an empty result.
        let outcome: Result<Option<&RawValue>, CdpError> = match (result, error) {
            (_, Some(e)) => Err(serde_json::from_str(e.get()).unwrap_or(CdpError {
                code: 0,
                message: e.get().to_owned(),
            })),
            (r, None) => Ok(r),
        };
        match cmd.purpose.clone() {
            Purpose::User => {
                let outcome = outcome
                    .map(|r| r.map_or("{}", RawValue::get).to_owned())
                    .map_err(|e| CommandError::Cdp {
                        method: cmd.method.clone(),
                        code: e.code,
                        message: e.message,
                    });
                self.events.push_back(Event::CommandFinished {
                    id: CommandId(id),
                    outcome,
                });
                Ok(())
            }
            Purpose::DialogAnswer { .. } => {
                self.on_dialog_answer_reply(id, cmd, outcome);
                Ok(())
            }
            Purpose::GetTargets => match outcome {
                Ok(r) => self.on_targets(r),
                Err(e) => {
                    self.warn(format!("Target.getTargets failed: {}", e.message));
                    Ok(())
                }
            },
            Purpose::AttachPage => match outcome {
                Ok(r) => {
                    let res: cdp::AttachToTargetResult<'_> = parse("Target.attachToTarget", r)?;
                    self.on_page_attached(&res.session_id);
                    Ok(())
                }
                Err(e) => {
                    self.warn(format!("attaching to the page failed: {}", e.message));
                    if let Some(p) = self.page.as_mut() {
                        p.phase = PagePhase::Detached;
                    }
                    Ok(())
                }
            },
            Purpose::PageEnable => {
                if let Some(p) = self.page.as_mut() {
                    if p.session_id == cmd.session_id {
                        p.enable = EnableState::Done;
                    }
                }
                Ok(())
            }
            Purpose::FrameTree => match (outcome, cmd.session_id) {
                (Ok(r), Some(session)) => self.on_frame_tree(&session, r),
                (Err(e), _) => {
                    self.warn(format!("Page.getFrameTree failed: {}", e.message));
                    Ok(())
                }
                (Ok(_), None) => Ok(()),
            },
            Purpose::Quiet => Ok(()),
            Purpose::Setup => {
                if let Err(e) = outcome {
                    self.warn(format!(
                        "{} on session {} failed: {}",
                        cmd.method,
                        cmd.session_id.as_deref().unwrap_or("(browser)"),
                        e.message
                    ));
                }
                Ok(())
            }
        }
    }

    /// Ends a command that got no reply: by purpose, an event for the embedder or a warning.
    pub(crate) fn fail_command(&mut self, id: u64, cmd: InFlight, error: CommandError) {
        match cmd.purpose {
            Purpose::User => self.events.push_back(Event::CommandFinished {
                id: CommandId(id),
                outcome: Err(error),
            }),
            Purpose::DialogAnswer {
                dialog_id,
                closed,
                report,
                ..
            } => self.finish_dialog_answer(id, &dialog_id, closed.map(|c| *c), Err(error), report),
            Purpose::Quiet => {}
            _ => {
                // A set-up command whose session or connection went is moot, not news.
                if !matches!(
                    error,
                    CommandError::Disconnected { .. } | CommandError::SessionGone { .. }
                ) {
                    self.warn(format!("set-up command {error}"));
                }
            }
        }
    }

    fn on_targets(&mut self, result: Option<&RawValue>) -> Result<(), InputError> {
        let targets: cdp::GetTargetsResult<'_> = parse("Target.getTargets", result)?;
        let pages: Vec<&cdp::TargetInfo<'_>> = targets
            .target_infos
            .iter()
            .filter(|t| t.kind == "page")
            .collect();
        // Re-attach the tab we had, else the configured one, else the first page (fact 1).
        let wanted = self
            .page
            .as_ref()
            .map(|p| p.target_id.clone())
            .or_else(|| self.config.target_id.clone());
        let chosen = match &wanted {
            Some(w) => pages.iter().find(|t| t.target_id == w.as_str()),
            None => pages.first(),
        };
        let Some(chosen) = chosen else {
            self.warn(match wanted {
                Some(w) => format!("target {w} is not among the browser's pages; open it or pass another target id"),
                None => "the browser has no page target to supervise; open a tab".to_owned(),
            });
            if let Some(p) = self.page.as_mut() {
                p.phase = PagePhase::Detached;
            }
            return Ok(());
        };
        let target_id = chosen.target_id.to_string();
        let url = chosen.url.as_deref().unwrap_or("").to_owned();
        self.page = Some(PageTrack {
            target_id: target_id.clone(),
            session_id: None,
            phase: PagePhase::Attaching,
            enable: EnableState::Pending,
            url,
        });
        let params = to_raw(&cdp::AttachToTargetParams {
            target_id: &target_id,
            flatten: true,
        });
        self.send(
            None,
            "Target.attachToTarget",
            params.as_deref(),
            Purpose::AttachPage,
            self.config.setup_timeout,
        );
        Ok(())
    }

    /// The page session is known (from the attach reply or the browser-level
    /// `attachedToTarget`, whichever comes first): set it up (fact 1).
    fn on_page_attached(&mut self, session_id: &str) {
        let Some(page) = self.page.as_mut() else {
            return;
        };
        if page.session_id.as_deref() == Some(session_id) || page.phase != PagePhase::Attaching {
            return;
        }
        page.session_id = Some(session_id.to_owned());
        page.phase = PagePhase::Attached;
        page.enable = EnableState::Pending;
        let session = Session::new(&page.target_id, TargetKind::Page, None);
        self.sessions.insert(session_id, session);
        let s = Some(session_id);
        self.send(
            s,
            "Page.enable",
            None,
            Purpose::PageEnable,
            self.config.enable_timeout,
        );
        self.set_up_domains(session_id);
    }

    /// `Runtime.enable`, `Page.getFrameTree` and `Target.setAutoAttach` on a page or iframe
    /// session, pipelined (fact 2). `Page.enable` is sent by the caller before.
    fn set_up_domains(&mut self, session_id: &str) {
        let s = Some(session_id);
        let t = self.config.setup_timeout;
        self.send(s, "Runtime.enable", None, Purpose::Setup, t);
        self.send(s, "Page.getFrameTree", None, Purpose::FrameTree, t);
        let auto_attach = to_raw(&cdp::SetAutoAttachParams {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: true,
        });
        self.send(
            s,
            "Target.setAutoAttach",
            auto_attach.as_deref(),
            Purpose::Setup,
            t,
        );
        if let Some(source) = self.bridge_script.clone() {
            // SPEC §6.5: for new documents, for the loaded one, and Fetch for the bridge
            // host only, all before the child is resumed (fact 12).
            let add = to_raw(&cdp::AddScriptParams {
                source: &source,
                run_immediately: true,
            });
            self.send(
                s,
                "Page.addScriptToEvaluateOnNewDocument",
                add.as_deref(),
                Purpose::Setup,
                t,
            );
            let eval = to_raw(&cdp::EvaluateParams {
                expression: &source,
            });
            self.send(s, "Runtime.evaluate", eval.as_deref(), Purpose::Quiet, t);
            let fetch = bridge::fetch_enable_params();
            self.send(s, "Fetch.enable", fetch.as_deref(), Purpose::Setup, t);
        }
    }

    fn on_frame_tree(
        &mut self,
        session_id: &str,
        result: Option<&RawValue>,
    ) -> Result<(), InputError> {
        if !self.sessions.contains(session_id) {
            return Ok(());
        }
        let tree: cdp::GetFrameTreeResult<'_> = parse("Page.getFrameTree", result)?;
        // Iterative walk: a hostile deep tree cannot overflow the stack (serde_json already
        // caps nesting at 128).
        let mut stack = vec![&tree.frame_tree];
        while let Some(node) = stack.pop() {
            self.upsert_frame(session_id, &node.frame, false);
            for child in node.child_frames.iter().rev() {
                stack.push(child);
            }
        }
        Ok(())
    }

    // ---- events --------------------------------------------------------------------

    fn on_event(
        &mut self,
        method: &str,
        session: Option<&str>,
        event: CdpEvent<'_>,
    ) -> Result<(), InputError> {
        use CdpEvent as E;
        let event = match event {
            E::AttachedToTarget(ev) => return self.on_attached_to_target(session, &ev),
            E::DetachedFromTarget(ev) => {
                // The params name the session; the envelope may be the browser (the page
                // session itself) or a parent. Unknown ones were dropped with their frame.
                self.on_detached_from_target(&ev.session_id);
                return Ok(());
            }
            other => other,
        };
        let Some(session) = session.filter(|s| self.sessions.contains(s)) else {
            return Err(InputError::UnknownSession {
                method: method.to_owned(),
                session_id: session.unwrap_or("(browser)").to_owned(),
            });
        };
        match event {
            E::FrameAttached(ev) => {
                self.on_frame_attached(session, &ev.frame_id, &ev.parent_frame_id)
            }
            E::FrameNavigated(ev) => self.upsert_frame(session, &ev.frame, true),
            E::NavigatedWithinDocument(ev) => {
                let id = ev.frame_id.to_string();
                self.update_frame(&id, |f| f.url = ev.url.to_string());
                self.note_top_url(&id);
            }
            E::FrameDetached(ev) => {
                self.on_frame_detached(session, &ev.frame_id, ev.reason.as_deref())
            }
            E::DialogOpening(ev) => self.on_dialog_opening(&ev),
            E::DialogClosed(ev) => self.on_dialog_closed(&ev),
            E::ExecutionContextCreated(ev) => {
                if let Some(frame) = ev.context.aux_data.and_then(|a| a.frame_id) {
                    if let Some(s) = self.sessions.get_mut(session) {
                        s.add_context(ev.context.id, &frame);
                    }
                }
            }
            E::ExecutionContextDestroyed(ev) => {
                if let Some(s) = self.sessions.get_mut(session) {
                    s.contexts.retain(|(c, _)| *c != ev.execution_context_id);
                }
            }
            E::ExecutionContextsCleared => {
                if let Some(s) = self.sessions.get_mut(session) {
                    s.contexts.clear();
                }
            }
            E::ConsoleApiCalled(ev) => {
                if let (Some(level), Some(text)) = (console_level(&ev), ev.text) {
                    self.record_console(session, level, text, ev.execution_context_id);
                }
            }
            E::ExceptionThrown(ev) => {
                let text = exception_text(&ev.exception_details);
                let ctx = ev.exception_details.execution_context_id;
                self.record_console(session, ConsoleLevel::Exception, text, ctx);
            }
            E::RequestPaused(ev) => self.on_request_paused(session, &ev),
            E::FrameStartedNavigating(ev) => {
                // A frame blocked in a bridge dialog's synchronous XHR cannot commit a
                // navigation; answer first (the native equivalent is closed by Chromium).
                let same_document = matches!(
                    ev.navigation_type.as_deref(),
                    Some("sameDocument" | "historySameDocument")
                );
                if !same_document {
                    self.give_up_bridge_dialogs_in_subtree(&ev.frame_id);
                }
            }
            E::FrameSubtreeWillBeDetached(ev) => {
                // Before the frame's session goes and Chromium lets its paused request fall
                // through to the network.
                self.give_up_bridge_dialogs_in_subtree(&ev.frame_id);
            }
            E::TargetCrashed => self.on_crashed(session),
            E::InspectorDetached(ev) => {
                self.warn(format!("session {session} detached: {}", ev.reason));
                self.on_detached_from_target(session);
            }
            E::AttachedToTarget(_) | E::DetachedFromTarget(_) => {}
        }
        Ok(())
    }

    fn on_attached_to_target(
        &mut self,
        parent: Option<&str>,
        ev: &cdp::AttachedToTarget<'_>,
    ) -> Result<(), InputError> {
        let child = ev.session_id.as_ref();
        let Some(parent) = parent else {
            // Browser level: the page we asked for (attachToTarget's own event).
            let ours = self
                .page
                .as_ref()
                .is_some_and(|p| p.target_id == ev.target_info.target_id.as_ref());
            if ours && ev.target_info.kind == "page" {
                self.on_page_attached(child);
            }
            return Ok(());
        };
        if self.sessions.contains(child) {
            return Ok(()); // a repeated event: already set up
        }
        if !self.sessions.contains(parent) {
            // Never leave a frame frozen (fact 2), even one we cannot place.
            self.resume_if_waiting(child, ev.waiting_for_debugger);
            return Err(InputError::UnknownSession {
                method: "Target.attachedToTarget".into(),
                session_id: parent.to_owned(),
            });
        }
        let kind_name = ev.target_info.kind.as_ref();
        if kind_name == "service_worker" {
            // Fact 14: resume, then detach (staying attached keeps it alive).
            self.resume_if_waiting(child, ev.waiting_for_debugger);
            self.detach_child(parent, child);
            return Ok(());
        }
        if self.sessions.len() >= self.config.max_sessions {
            self.resume_if_waiting(child, ev.waiting_for_debugger);
            self.detach_child(parent, child);
            self.warn(format!(
                "session cap of {} reached: {kind_name} target {} resumed and detached untracked",
                self.config.max_sessions, ev.target_info.target_id
            ));
            return Ok(());
        }
        let target_id = ev.target_info.target_id.to_string();
        let kind = TargetKind::from_cdp(kind_name);
        self.sessions.insert(
            child,
            Session::new(&target_id, kind, Some(parent.to_owned())),
        );
        if kind == TargetKind::Iframe {
            self.frame_became_oopif(
                &target_id,
                child,
                ev.target_info.parent_frame_id.as_deref(),
                ev.target_info.url.as_deref().unwrap_or(""),
            );
            // Fact 2: set-up pipelined, then resume last.
            self.send(
                Some(child),
                "Page.enable",
                None,
                Purpose::Setup,
                self.config.setup_timeout,
            );
            self.set_up_domains(child);
        }
        self.resume_if_waiting(child, ev.waiting_for_debugger);
        Ok(())
    }

    fn resume_if_waiting(&mut self, session_id: &str, waiting: bool) {
        if waiting {
            self.send(
                Some(session_id),
                "Runtime.runIfWaitingForDebugger",
                None,
                Purpose::Setup,
                self.config.setup_timeout,
            );
        }
    }

    fn detach_child(&mut self, parent: &str, child: &str) {
        let params = to_raw(&cdp::DetachFromTargetParams { session_id: child });
        self.send(
            Some(parent),
            "Target.detachFromTarget",
            params.as_deref(),
            Purpose::Setup,
            self.config.setup_timeout,
        );
    }

    /// `Target.detachedFromTarget` (or `Inspector.detached`) for a tracked session.
    fn on_detached_from_target(&mut self, session_id: &str) {
        if !self.sessions.contains(session_id) {
            return;
        }
        if self.page_session_id() == Some(session_id) {
            self.on_page_gone("detached");
            return;
        }
        // An OOPIF whose session goes while its frame stays went back in-process: keep the
        // frame, owned by the parent's session, and drop what its old document held.
        if let Some(s) = self.sessions.get(session_id) {
            if s.kind == TargetKind::Iframe {
                let frame_id = s.target_id.to_string();
                let parent = s.parent.clone().unwrap_or_default();
                let owned_here = self
                    .frames
                    .get(&frame_id)
                    .is_some_and(|f| f.info.session_id.as_deref() == Some(session_id));
                if owned_here {
                    let old_children = self.frames.descendants(&frame_id);
                    self.drop_frames(old_children);
                    self.frames.set_owner(&frame_id, &parent);
                    self.update_frame(&frame_id, |f| {
                        f.is_oopif = false;
                        f.session_id = None;
                    });
                }
            }
        }
        let gone = self.sessions.self_and_descendants(session_id);
        self.drop_sessions(&gone, "detached");
    }

    /// The page session itself went away (detached or crashed beyond use).
    fn on_page_gone(&mut self, reason: &str) {
        let all: Vec<String> = self.sessions.by_id.keys().map(|k| k.to_string()).collect();
        for (id, cmd) in self.commands_in_flight.take_on_sessions(&all) {
            let error = CommandError::SessionGone {
                method: cmd.method.clone(),
                session_id: cmd.session_id.clone().unwrap_or_default(),
                reason: reason.to_owned(),
            };
            self.fail_command(id, cmd, error);
        }
        self.clear_tab();
        if let Some(p) = self.page.as_mut() {
            p.session_id = None;
            p.phase = PagePhase::Detached;
        }
    }

    /// Closes pending dialogs `remote`, removes every frame and session.
    fn clear_tab(&mut self) {
        while !self.dialogs.pending.is_empty() {
            self.close_dialog(0, ClosedBy::Remote, false, None);
        }
        let removed: Vec<String> = self
            .frames
            .in_order()
            .map(|f| f.info.frame_id.clone())
            .collect();
        for frame_id in removed {
            self.events
                .push_back(Event::Diff(Diff::FrameRemoved { frame_id }));
        }
        self.frames.clear();
        self.sessions.clear();
    }

    /// `Fetch.requestPaused` (only the bridge enables Fetch): a bridge request with the
    /// right token becomes a dialog; a forged one gets an error status; anything else
    /// continues. Each paused request gets exactly one answer, on its own session.
    fn on_request_paused(&mut self, session: &str, ev: &cdp::RequestPaused<'_>) {
        let request_id = ev.request_id.as_ref();
        let t = self.config.setup_timeout;
        let classified = if self.bridge_script.is_some() {
            let entries: Vec<Option<std::borrow::Cow<'_, str>>> = ev
                .request
                .post_data_entries
                .iter()
                .map(|e| e.bytes.clone())
                .collect();
            let body = bridge::request_body(ev.request.post_data.as_deref(), &entries);
            bridge::classify(&ev.request.url, body.as_deref(), &self.config.bridge_token)
        } else {
            BridgeRequest::NotBridge
        };
        match classified {
            BridgeRequest::NotBridge => {
                let params = bridge::continue_params(request_id);
                self.send(
                    Some(session),
                    "Fetch.continueRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    t,
                );
            }
            BridgeRequest::Forged => {
                let params = bridge::fulfill_params(request_id, 403, r#"{"error":"forbidden"}"#);
                self.send(
                    Some(session),
                    "Fetch.fulfillRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    t,
                );
                self.warn(format!(
                    "refused a bridge request without the supervisor's token (frame {}): a page tried to forge a dialog",
                    ev.frame_id.as_deref().unwrap_or("?")
                ));
            }
            BridgeRequest::Dialog {
                kind,
                message,
                default_prompt,
            } => {
                let frame_id = ev
                    .frame_id
                    .as_deref()
                    .or(self.page_target_id())
                    .unwrap_or("")
                    .to_owned();
                let url = self
                    .frames
                    .get(&frame_id)
                    .map(|f| f.info.url.clone())
                    .unwrap_or_default();
                let source = DialogSource::Bridge {
                    session_id: session.to_owned(),
                    request_id: request_id.to_owned(),
                };
                self.open_dialog(kind, message, default_prompt, frame_id, url, source);
            }
        }
    }

    fn on_crashed(&mut self, session_id: &str) {
        let is_page = self.page_session_id() == Some(session_id);
        if let Some(s) = self.sessions.get_mut(session_id) {
            s.crashed = true;
        }
        // Fact 18: commands on a crashed session are never answered.
        let sessions = vec![session_id.to_owned()];
        for (id, cmd) in self.commands_in_flight.take_on_sessions(&sessions) {
            let error = CommandError::SessionGone {
                method: cmd.method.clone(),
                session_id: session_id.to_owned(),
                reason: "crashed".into(),
            };
            self.fail_command(id, cmd, error);
        }
        if is_page {
            if let Some(p) = self.page.as_mut() {
                p.phase = PagePhase::Crashed;
            }
            // Every dialog of the tab is over; a bridge request paused on an OOPIF session
            // whose renderer lives on still gets its one answer.
            while !self.dialogs.pending.is_empty() {
                self.give_up_dialog(0);
            }
        } else {
            for f in self.frames.owned_by(&sessions) {
                self.close_dialogs_of_frame(&f);
            }
        }
    }

    // ---- frames --------------------------------------------------------------------

    fn on_frame_attached(&mut self, session: &str, frame_id: &str, parent_id: &str) {
        if frame_id == parent_id {
            return;
        }
        if self.frames.get(frame_id).is_some() {
            self.update_frame(frame_id, |f| f.parent_frame_id = Some(parent_id.to_owned()));
            return;
        }
        self.insert_frame(
            FrameInfo {
                frame_id: frame_id.to_owned(),
                parent_frame_id: Some(parent_id.to_owned()),
                url: String::new(),
                origin: String::new(),
                name: String::new(),
                is_oopif: false,
                session_id: None,
            },
            session,
        );
    }

    /// `frameNavigated` (`navigated` true) or a `getFrameTree` node: add or update the frame.
    /// A navigation drops the frame's old descendants (fact 5).
    fn upsert_frame(&mut self, session: &str, frame: &cdp::PageFrame<'_>, navigated: bool) {
        let id = frame.id.as_ref();
        let mut url = frame.url.to_string();
        if let Some(fragment) = frame.url_fragment.as_deref() {
            url.push_str(fragment);
        }
        let origin = frame.security_origin.as_deref().unwrap_or("").to_owned();
        let name = frame.name.as_deref().unwrap_or("").to_owned();
        let parent = frame.parent_id.as_deref().filter(|p| *p != id);
        // The root frame of an iframe session is that OOPIF (fact 2).
        let own_root = self
            .sessions
            .get(session)
            .is_some_and(|s| s.kind == TargetKind::Iframe && &*s.target_id == id);
        if self.frames.get(id).is_some() {
            if navigated {
                let old_children = self.frames.descendants(id);
                self.drop_frames(old_children);
                // Native dialogs get their own close from Chromium; bridge ones do not.
                self.give_up_bridge_dialogs_of_frame(id);
            }
            if own_root {
                self.frames.set_owner(id, session);
            }
            self.update_frame(id, |f| {
                f.url = url;
                f.origin = origin;
                f.name = name;
                if let Some(p) = parent {
                    f.parent_frame_id = Some(p.to_owned());
                }
                if own_root {
                    f.is_oopif = true;
                    f.session_id = Some(session.to_owned());
                }
            });
        } else {
            self.insert_frame(
                FrameInfo {
                    frame_id: id.to_owned(),
                    parent_frame_id: parent.map(str::to_owned),
                    url,
                    origin,
                    name,
                    is_oopif: own_root,
                    session_id: own_root.then(|| session.to_owned()),
                },
                session,
            );
        }
        if navigated && self.page.as_ref().is_some_and(|p| p.target_id == id) {
            if let Some(p) = self.page.as_mut() {
                // A crashed tab that navigates has a new renderer.
                if p.phase == PagePhase::Crashed {
                    p.phase = PagePhase::Attached;
                }
            }
            if let Some(s) = self.page_session_id().map(str::to_owned) {
                if let Some(sess) = self.sessions.get_mut(&s) {
                    sess.crashed = false;
                }
            }
        }
        self.note_top_url(id);
    }

    /// An iframe target attached: its frame is now an OOPIF owned by `session` (fact 2),
    /// whether or not the `swap` detach came first (fact 3).
    fn frame_became_oopif(
        &mut self,
        frame_id: &str,
        session: &str,
        parent: Option<&str>,
        url: &str,
    ) {
        let parent = parent.filter(|p| *p != frame_id);
        if self.frames.get(frame_id).is_some() {
            self.frames.set_owner(frame_id, session);
            self.update_frame(frame_id, |f| {
                f.is_oopif = true;
                f.session_id = Some(session.to_owned());
                if f.parent_frame_id.is_none() {
                    f.parent_frame_id = parent.map(str::to_owned);
                }
            });
        } else {
            self.insert_frame(
                FrameInfo {
                    frame_id: frame_id.to_owned(),
                    parent_frame_id: parent.map(str::to_owned),
                    url: url.to_owned(),
                    origin: String::new(),
                    name: String::new(),
                    is_oopif: true,
                    session_id: Some(session.to_owned()),
                },
                session,
            );
        }
    }

    fn on_frame_detached(&mut self, session: &str, frame_id: &str, reason: Option<&str>) {
        let keep = match reason {
            // Fact 3: the in-process frame became (or stopped being) an OOPIF: keep it.
            Some("swap") => true,
            Some(_) => false,
            // Older builds send no reason: a frame owned by another session is a swap.
            None => self
                .frames
                .get(frame_id)
                .is_some_and(|f| f.is_oopif_owned_elsewhere(session)),
        };
        if keep || self.frames.get(frame_id).is_none() {
            return;
        }
        let mut gone = vec![frame_id.to_owned()];
        gone.extend(self.frames.descendants(frame_id));
        self.drop_frames(gone);
    }

    fn insert_frame(&mut self, info: FrameInfo, owner_session: &str) {
        let top = self.page.as_ref().map(|p| p.target_id.clone());
        // Bound (SPEC §6.6): evict the oldest-known frame other than the top, with its subtree.
        while self.frames.len() >= self.config.max_frames.max(1) {
            let Some(victim) = self.frames.oldest_except(top.as_deref()) else {
                return;
            };
            let mut gone = vec![victim.clone()];
            gone.extend(self.frames.descendants(&victim));
            self.drop_frames(gone);
        }
        self.events.push_back(Event::Diff(Diff::FrameAdded {
            frame: info.clone(),
        }));
        self.frames.insert(info, owner_session.to_owned());
    }

    /// Applies `change` to a frame's info and emits `frame_updated` if anything changed.
    fn update_frame(&mut self, frame_id: &str, change: impl FnOnce(&mut FrameInfo)) {
        if let Some((before, after)) = self.frames.change(frame_id, change) {
            if after != before {
                self.events
                    .push_back(Event::Diff(Diff::FrameUpdated { frame: after }));
            }
        }
    }

    fn note_top_url(&mut self, frame_id: &str) {
        let url = self.frames.get(frame_id).map(|f| f.info.url.clone());
        if let (Some(p), Some(url)) = (self.page.as_mut(), url) {
            if p.target_id == frame_id {
                p.url = url;
            }
        }
    }

    /// Removes frames (parents before children), closing their dialogs `remote` and
    /// dropping the sessions of OOPIFs among them with the sessions nested below (fact 5).
    pub(crate) fn drop_frames(&mut self, ids: Vec<String>) {
        let mut gone_sessions = Vec::new();
        for id in ids {
            let Some(frame) = self.frames.remove(&id) else {
                continue;
            };
            self.events.push_back(Event::Diff(Diff::FrameRemoved {
                frame_id: id.clone(),
            }));
            self.close_dialogs_of_frame(&id);
            if let Some(s) = frame.info.session_id {
                gone_sessions.extend(self.sessions.self_and_descendants(&s));
            }
        }
        if !gone_sessions.is_empty() {
            self.drop_sessions(&gone_sessions, "detached");
        }
    }

    /// Removes sessions: their commands fail, the frames they still own go.
    fn drop_sessions(&mut self, ids: &[String], reason: &str) {
        let removed: Vec<String> = ids
            .iter()
            .filter(|id| self.sessions.by_id.remove(id.as_str()).is_some())
            .cloned()
            .collect();
        if removed.is_empty() {
            return;
        }
        for (id, cmd) in self.commands_in_flight.take_on_sessions(&removed) {
            let error = CommandError::SessionGone {
                method: cmd.method.clone(),
                session_id: cmd.session_id.clone().unwrap_or_default(),
                reason: reason.to_owned(),
            };
            self.fail_command(id, cmd, error);
        }
        // A bridge dialog whose session went can never be answered (SPEC §6.5).
        while let Some(i) = self.dialogs.pending.iter().position(|d| {
            matches!(&d.source, DialogSource::Bridge { session_id, .. } if removed.contains(session_id))
        }) {
            self.close_dialog(i, ClosedBy::Remote, false, None);
        }
        let orphaned = self.frames.owned_by(&removed);
        let mut gone = Vec::new();
        for f in orphaned {
            if !gone.contains(&f) {
                gone.push(f.clone());
                gone.extend(self.frames.descendants(&f));
            }
        }
        self.drop_frames(gone);
    }

    // ---- console -------------------------------------------------------------------

    fn record_console(
        &mut self,
        session: &str,
        level: ConsoleLevel,
        text: String,
        context: Option<i64>,
    ) {
        let Some((session_id, s)) = self.sessions.get_with_id(session) else {
            return;
        };
        let frame_id = context
            .and_then(|c| s.context_frame(c))
            .cloned()
            .or_else(|| match s.kind {
                TargetKind::Page | TargetKind::Iframe => Some(s.target_id.clone()),
                _ => None,
            });
        let entry = Arc::new(ConsoleEntry {
            level,
            text,
            frame_id,
            session_id: Some(Arc::clone(session_id)),
            at: self.now,
        });
        push_ring(
            &mut self.console_errors,
            Arc::clone(&entry),
            MAX_CONSOLE_ERRORS,
        );
        self.events
            .push_back(Event::Diff(Diff::ConsoleError { entry }));
    }

    // ---- plumbing ------------------------------------------------------------------

    /// Time never goes back; a NaN or earlier time counts as the latest one. Embedder
    /// calls move time too, without firing timers (that is `handle_timeout`'s job).
    pub(crate) fn advance(&mut self, now: f64) {
        if now > self.now {
            self.now = now;
        }
    }

    pub(crate) fn now(&self) -> f64 {
        self.now
    }

    /// Queues a command and tracks it until its reply or deadline.
    pub(crate) fn send(
        &mut self,
        session_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        purpose: Purpose,
        timeout: Duration,
    ) -> u64 {
        self.last_command_id += 1;
        let id = self.last_command_id;
        let cmd = OutgoingCommand::new(id, method, params, session_id);
        self.commands_in_flight.insert(
            id,
            InFlight {
                session_id: session_id.map(str::to_owned),
                method: method.to_owned(),
                deadline: self.now + timeout.as_secs_f64(),
                sent_at: self.now,
                purpose,
                blocked_by: None,
            },
        );
        self.transmits.push_back(cmd);
        id
    }

    pub(crate) fn emit(&mut self, event: Event) {
        self.events.push_back(event);
    }

    pub(crate) fn warn(&mut self, message: String) {
        self.events.push_back(Event::Warning { message });
    }

    /// Reports `id` blocked by the newest pending dialog, if one shows and the command
    /// cannot complete while it does (SPEC §6.4).
    pub(crate) fn report_blocked(&mut self, id: u64) {
        let Some(dialog_id) = self.dialogs.pending.last().map(|d| d.info.id.clone()) else {
            return;
        };
        let Some(cmd) = self.commands_in_flight.get_mut(id) else {
            return;
        };
        if cmd.purpose == Purpose::User
            && blocked_by_dialogs(&cmd.method, cmd.session_id.as_deref())
            && cmd.blocked_by.as_deref() != Some(dialog_id.as_str())
        {
            cmd.blocked_by = Some(dialog_id.clone());
            self.events.push_back(Event::CommandBlocked {
                id: CommandId(id),
                dialog_id,
            });
        }
    }

    pub(crate) fn page_session(&self) -> Option<String> {
        self.page_session_id().map(str::to_owned)
    }

    pub(crate) fn page_target_id(&self) -> Option<&str> {
        self.page.as_ref().map(|p| p.target_id.as_str())
    }

    /// Emits a `page` diff when the page entry changed. Runs after every input, so it
    /// compares in place and builds a new entry only on a change.
    fn update_page(&mut self) {
        let unchanged = match (&self.page, &self.last_page_info) {
            (None, None) => true,
            (Some(p), Some(last)) => {
                let (state, reason) = self.page_state(p);
                last.target_id == p.target_id
                    && last.session_id == p.session_id
                    && last.state == state
                    && last.reason == reason
            }
            _ => false,
        };
        if !unchanged {
            let info = self.page_info();
            self.last_page_info = info.clone();
            self.events
                .push_back(Event::Diff(Diff::Page { page: info }));
        }
    }

    fn page_info(&self) -> Option<PageInfo> {
        let p = self.page.as_ref()?;
        let (state, reason) = self.page_state(p);
        Some(PageInfo {
            target_id: p.target_id.clone(),
            session_id: p.session_id.clone(),
            state,
            reason,
        })
    }

    /// The page's state, and why when it is blocked.
    fn page_state(&self, p: &PageTrack) -> (PageState, Option<String>) {
        match (p.phase, p.enable) {
            (PagePhase::Detached, _) => (PageState::Detached, None),
            (PagePhase::Crashed, _) => (PageState::Crashed, None),
            (PagePhase::Attaching, _) | (PagePhase::Attached, EnableState::Pending) => {
                (PageState::Attaching, None)
            }
            (PagePhase::Attached, EnableState::Overdue) => (
                PageState::Blocked,
                Some(format!(
                    "page_unresponsive: Page.enable got no reply within {} s, likely a dialog left open by an earlier client (fact 11); call recover",
                    self.config.enable_timeout.as_secs_f64()
                )),
            ),
            (PagePhase::Attached, EnableState::Done) => {
                match self.dialogs.pending.iter().find(|d| d.wedged) {
                    Some(d) => (
                        PageState::Blocked,
                        Some(format!(
                            "dialog_wedged: {} can no longer be answered (fact 15); call recover",
                            d.info.id
                        )),
                    ),
                    None => (PageState::Live, None),
                }
            }
        }
    }

    /// SPEC §6.7: the session a command for `frame_id` goes to.
    fn route(&self, frame_id: Option<&str>, method: &str) -> Result<String, CommandError> {
        let page_session = self.page_session().ok_or(CommandError::NotAttached)?;
        let Some(frame_id) = frame_id else {
            return Ok(page_session);
        };
        let frame = self
            .frames
            .get(frame_id)
            .ok_or_else(|| CommandError::UnknownFrame {
                frame_id: frame_id.to_owned(),
            })?;
        if let (true, Some(s)) = (frame.info.is_oopif, frame.info.session_id.as_ref()) {
            return Ok(s.clone());
        }
        let is_top = self.page_target_id() == Some(frame_id);
        if !is_top && EVALUATING_METHODS.contains(&method) {
            return Err(CommandError::NotAnOopif {
                frame_id: frame_id.to_owned(),
                method: method.to_owned(),
                session_id: frame.owner_session.clone(),
            });
        }
        Ok(frame.owner_session.clone())
    }
}

/// Methods that run script in a session's default context (SPEC §6.7).
const EVALUATING_METHODS: &[&str] = &[
    "Runtime.evaluate",
    "Runtime.compileScript",
    "Runtime.runScript",
];

/// Sizes of the supervisor's tables (see [`Supervisor::table_sizes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableSizes {
    /// Known frames.
    pub frames: usize,
    /// Tracked sessions.
    pub sessions: usize,
    /// Commands in flight (the supervisor's own included).
    pub commands_in_flight: usize,
    /// Pending dialogs.
    pub pending_dialogs: usize,
    /// Recent dialogs.
    pub recent_dialogs: usize,
    /// Console errors.
    pub console_errors: usize,
    /// Transmits not yet polled.
    pub queued_transmits: usize,
    /// Events not yet polled.
    pub queued_events: usize,
}

/// Parses params (or a result) into `T`; absent params count as `{}`.
pub(crate) fn parse<'a, T: Deserialize<'a>>(
    method: &str,
    params: Option<&'a RawValue>,
) -> Result<T, InputError> {
    let text = params.map(RawValue::get).unwrap_or("{}");
    serde_json::from_str(text).map_err(|e| InputError::BadParams {
        method: method.to_owned(),
        error: e.to_string(),
    })
}

impl crate::frame::Frame {
    fn is_oopif_owned_elsewhere(&self, session: &str) -> bool {
        self.info.is_oopif && self.owner_session != session
    }
}

/// A message that did not parse: if its envelope is fine, blame the params of its method.
fn classify_parse_error(text: &str, error: serde_json::Error) -> InputError {
    #[derive(Deserialize)]
    struct Lazy<'a> {
        #[serde(default, borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
        #[serde(default, borrow)]
        #[allow(dead_code)] // only its validity matters
        params: Option<&'a RawValue>,
    }
    match serde_json::from_str::<Lazy<'_>>(text) {
        Ok(Lazy {
            method: Some(method),
            ..
        }) if text.trim_start().starts_with('{') => InputError::BadParams {
            method: method.into_owned(),
            error: error.to_string(),
        },
        _ => InputError::Malformed {
            error: error.to_string(),
        },
    }
}
