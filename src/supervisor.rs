//! The [`Supervisor`]: the one owner of state, and a dispatcher. Driven by `handle_*`,
//! drained by `poll_*`.
//!
//! Follow a message: [`Supervisor::handle_message`] parses the [`Envelope`]; a reply goes
//! to `on_reply` (matched by id alone) and from there to its owner by `Purpose`: the
//! embedder, the `Dialogs` component, or a flow; an event goes to `on_event`, which hands
//! it to the component whose rule it is (`Tab` for targets, frames and the console,
//! `Dialogs` for dialogs and the bridge, `lifecycle.rs` for targets and frames coming and
//! going), then offers it to the flows. Every component writes to the one `Outbox`.
//! Removals cascade through one worklist (`cascade.rs`). The agent calls (evaluate, act,
//! accessibility snapshot, fresh ref) check and start their flow in `flow/begin.rs`.

use std::time::Duration;

use serde_json::value::RawValue;

use crate::ax::{AxError, AxOptions, ResolvedRef};
use crate::bridge;
use crate::cascade::{Cascade, Removal};
use crate::cdp::{self, CdpEvent};
use crate::command::{CommandId, Purpose};
use crate::config::Config;
use crate::dialog::{Answer, DialogAction, DialogPolicy};
use crate::dialogs::Dialogs;
use crate::error::{CommandError, DialogError, InputError};
use crate::evaluate::{EvalError, Evaluation};
use crate::event::{Event, Output, Warning};
use crate::flow::attach::{AttachFlow, ATTACH};
use crate::flow::ax_snapshot;
use crate::flow::{AnyFlow, FlowStatus, Flows};
use crate::outbox::Outbox;
use crate::snapshot::{build_frame_tree, Snapshot};
use crate::tab::{PagePhase, Tab};
use crate::wire::{classify_parse_error, to_raw, CdpError, Envelope, OutgoingCommand};

#[doc(hidden)]
pub use crate::limits::TableSizes;
pub use crate::limits::DEFAULT_MAX_COMMANDS_IN_FLIGHT;
pub(crate) use crate::wire::parse;

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
    /// The clock, command ids, commands in flight and output queues.
    out: Outbox,
    /// The page, sessions, frames and console.
    tab: Tab,
    /// Every dialog rule.
    dialogs: Dialogs,
    /// Multi-step jobs; the attach flow runs for the supervisor's life.
    flows: Flows,
    /// The bridge script, built once from the token (`None` without the bridge).
    bridge_script: Option<String>,
    /// A planned stop's grace deadline, once `begin_stop` was called.
    stop_deadline: Option<f64>,
    /// `config.enable_timeout` in seconds, converted once: the page entry is checked
    /// after every input, and the conversion is a division.
    enable_timeout_s: f64,
}

impl Supervisor {
    /// A supervisor with nothing attached. Call [`Supervisor::handle_connected`] once the
    /// WebSocket to the browser is open.
    pub fn new(config: Config) -> Self {
        let mut flows = Flows::default();
        flows.start(ATTACH, AnyFlow::Attach(AttachFlow::default()));
        Supervisor {
            out: Outbox::default(),
            tab: Tab::default(),
            dialogs: Dialogs::new(config.policy, config.dialog_timeout, config.setup_timeout),
            flows,
            bridge_script: config.bridge.as_ref().map(|b| bridge::script(&b.token)),
            stop_deadline: None,
            enable_timeout_s: config.enable_timeout.as_secs_f64(),
            config,
        }
    }

    // ---- input -----------------------------------------------------------------------

    /// The WebSocket to the browser endpoint is open: list targets and attach.
    pub fn handle_connected(&mut self, now: f64) {
        self.out.advance(now);
        self.cascade().with_attach(|flow, ctx| flow.start(ctx));
        self.update_page();
    }

    /// The WebSocket closed: every command in flight fails, pending dialogs close
    /// `remote`, sessions and frames are cleared. The page is remembered so that the next
    /// [`Supervisor::handle_connected`] re-attaches the same tab.
    pub fn handle_disconnected(&mut self, now: f64) {
        self.out.advance(now);
        for (id, cmd) in self.out.commands_in_flight.take_all() {
            let method = cmd.method.clone();
            self.cascade()
                .fail_command(id, cmd, CommandError::Disconnected { method });
        }
        self.cascade().clear_tab();
        self.tab.set_phase(PagePhase::Detached);
        self.update_page();
    }

    /// One WebSocket text frame from the browser.
    ///
    /// A message that cannot be applied returns an [`InputError`] and leaves the state
    /// consistent; nothing panics, whatever the input.
    pub fn handle_message(&mut self, now: f64, text: &str) -> Result<(), InputError> {
        self.out.advance(now);
        let mut envelope = Envelope::empty();
        envelope
            .read(text)
            .map_err(|e| classify_parse_error(text, e))?;
        let result = self.handle_envelope(&mut envelope);
        self.update_page();
        result
    }

    /// Fires what is due at `now`: command deadlines, the flows' deadlines (the page's
    /// `Page.enable` bound) and dialog watchdogs. Spurious calls do nothing.
    pub fn handle_timeout(&mut self, now: f64) {
        self.out.advance(now);
        let now = self.out.now();
        for (id, cmd) in self.out.commands_in_flight.take_expired(now) {
            let method = cmd.method.clone();
            let after_s = now - cmd.sent_at;
            self.cascade()
                .fail_command(id, cmd, CommandError::Timeout { method, after_s });
        }
        for id in self.flows.ids() {
            if self
                .flows
                .get_mut(id)
                .and_then(|f| f.deadline())
                .is_some_and(|d| d <= now)
            {
                self.cascade()
                    .with_flow(id, |flow, ctx| flow.on_timeout(ctx, now));
            }
        }
        self.dialogs
            .fire_watchdogs(&mut self.out, self.tab.view(), now);
        self.update_page();
    }

    /// The entry point shared by [`Supervisor::handle_message`] and trace replay (which
    /// rewrites reply ids without re-serializing).
    pub(crate) fn handle_envelope(&mut self, env: &mut Envelope<'_>) -> Result<(), InputError> {
        if let Some(id) = env.id {
            return self.on_reply(id, env.result, env.error);
        }
        let Some(method) = env.method.as_deref() else {
            return Err(InputError::NeitherIdNorMethod);
        };
        match env.params.event_mut(method) {
            Ok(Some(event)) => self.on_event(method, env.session_id.as_deref(), event),
            // Events the supervisor does not use were skipped unparsed.
            Ok(None) => Ok(()),
            Err(e) => Err(InputError::BadParams {
                method: method.to_owned(),
                error: e.to_string(),
            }),
        }
    }

    /// Like [`Supervisor::handle_message`], for replay: the envelope is parsed already.
    pub(crate) fn handle_envelope_at(
        &mut self,
        now: f64,
        env: &mut Envelope<'_>,
    ) -> Result<(), InputError> {
        self.out.advance(now);
        let result = self.handle_envelope(env);
        self.update_page();
        result
    }

    // ---- output ----------------------------------------------------------------------

    /// The next command to write to the socket.
    pub fn poll_transmit(&mut self) -> Option<OutgoingCommand> {
        self.out.transmits.pop_front()
    }

    /// The next event for the embedder.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.out.events.pop_front()
    }

    /// When [`Supervisor::handle_timeout`] must be called next, if anything is pending.
    pub fn poll_timeout(&self) -> Option<f64> {
        // Asked after every input: a plain fold, in this order, of what is pending.
        let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let commands = self.out.commands_in_flight.next_deadline();
        let next = min(commands, self.flows.next_deadline());
        let next = min(next, self.dialogs.next_watchdog());
        // A stop's grace deadline, until it has passed (then the stop is ready).
        min(next, self.stop_deadline.filter(|d| *d > self.out.now()))
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

    // ---- the embedder's calls --------------------------------------------------------

    /// Sends `method` into the session that owns `frame_id`; `None` means the top frame
    /// (see [`crate::manual::rules`], routing). Its outcome arrives as exactly one
    /// [`Event::CommandFinished`], within `timeout` at the latest.
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
        self.out.advance(now);
        if let Some(p) = params {
            if !p.get().trim_start().starts_with('{') {
                return Err(CommandError::ParamsNotObject {
                    method: method.to_owned(),
                });
            }
        }
        let session = self.tab.route_command(frame_id, method)?;
        let limit = self.config.max_commands_in_flight;
        if self.out.commands_in_flight.embedder_count() >= limit {
            return Err(CommandError::TooManyInFlight { limit });
        }
        let id = self
            .out
            .send(Some(&session), method, params, Purpose::User, timeout);
        if let Some(dialog) = self.dialogs.newest_pending() {
            self.out.report_blocked(id, dialog);
        }
        Ok(CommandId(id))
    }

    /// Evaluates a script, or a function on an element, in any frame under one budget (see
    /// [`crate::evaluate`] and [`crate::manual::rules`], evaluate). Its outcome arrives as
    /// exactly one [`Event::Evaluated`] within the budget; what cannot start (no such
    /// frame, a stale ref, a dialog already in the way, ...) is refused at once.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Evaluation, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.evaluate(0.0, &Evaluation::new("1 + 1")).unwrap_err();
    /// assert_eq!(err.code(), "not_attached");
    /// ```
    pub fn evaluate(&mut self, now: f64, request: &Evaluation) -> Result<CommandId, EvalError> {
        self.out.advance(now);
        self.cascade().begin_evaluate(request)
    }

    /// Releases a blocked page: `Page.navigate` to its current URL on the page session
    /// (see [`crate::manual::rules`], connection loss and recovery). The outcome arrives
    /// as [`Event::CommandFinished`].
    pub fn recover(&mut self, now: f64) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        let (session, url) = self.tab.recovery_target()?;
        // A page blocked in a bridge dialog cannot navigate until it is answered.
        if let Some(top) = self.tab.page_target().map(str::to_owned) {
            self.cascade().give_up_bridge_dialogs_in_subtree(&top);
        }
        let params = to_raw(&cdp::NavigateParams { url: &url });
        let timeout = self.config.setup_timeout;
        let id = self.out.send(
            Some(&session),
            "Page.navigate",
            params.as_deref(),
            Purpose::User,
            timeout,
        );
        Ok(CommandId(id))
    }

    /// Answers a dialog: `dialog_id` or, without it, the single pending one. Accepting a
    /// prompt without text returns its default text. The outcome arrives as one
    /// [`Event::DialogAnswered`].
    ///
    /// ```
    /// use cdp_supervisor::{Answer, Config, DialogError, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.respond_dialog(0.0, Answer::accept(), None), Err(DialogError::NoDialogPending));
    /// ```
    pub fn respond_dialog(
        &mut self,
        now: f64,
        answer: Answer,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        self.out.advance(now);
        self.dialogs
            .respond(&mut self.out, self.tab.view(), &answer, dialog_id)
    }

    /// Answers every pending dialog that has no answer in flight, for a planned stop (a
    /// dialog left open wedges the tab for the next client). Returns the answers sent.
    pub fn settle_dialogs(&mut self, now: f64, action: DialogAction) -> Vec<CommandId> {
        self.out.advance(now);
        self.dialogs.settle(&mut self.out, self.tab.view(), action)
    }

    /// Whether any dialog is pending.
    pub fn has_pending_dialogs(&self) -> bool {
        self.dialogs.has_pending()
    }

    /// Starts a planned stop. A dialog left open wedges the tab for the next client, so
    /// every pending dialog is answered with `settle` first; then the stop waits until no
    /// dialog is pending and no command or answer of the embedder is in flight (a command
    /// a dialog blocked gets its real reply once the dialog closes), for `grace` at most.
    /// [`Supervisor::ready_to_close`] says when to close the socket;
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
        self.out.advance(now);
        if let Some(action) = settle {
            self.settle_dialogs(now, action);
        }
        // A script left running after the detach would keep the tab busy for the next client.
        self.cascade()
            .cancel_evaluations("the supervisor is stopping");
        if self.stop_deadline.is_none() {
            self.stop_deadline = Some(self.out.now() + grace.as_secs_f64());
        }
    }

    /// Whether a planned stop may close the socket now: nothing left to wait for, or its
    /// grace time is up. False when no stop was begun.
    pub fn ready_to_close(&self) -> bool {
        self.stop_deadline.is_some_and(|deadline| {
            self.out.now() >= deadline
                || (!self.has_pending_dialogs()
                    && self.out.commands_in_flight.embedder_count() == 0)
        })
    }

    /// Runs an agent action: input as a person gives it, then the page settles, then a
    /// screenshot (see [`crate::manual::rules`], agent actions). A missing or invalid
    /// parameter, a dialog in the way or an unknown frame is an error before anything is
    /// sent; otherwise the outcome arrives as one [`Event::ActFinished`] with the returned
    /// id.
    ///
    /// ```
    /// use cdp_supervisor::{act::{Action, ActOptions}, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.act(0.0, Action::Reload, ActOptions::default()).unwrap_err();
    /// assert_eq!(err.code(), "session_gone"); // nothing attached yet
    /// ```
    pub fn act(
        &mut self,
        now: f64,
        action: crate::act::Action,
        options: crate::act::ActOptions,
    ) -> Result<CommandId, crate::act::ActError> {
        self.out.advance(now);
        let id = self.cascade().begin_act(action, options)?;
        self.update_page();
        Ok(id)
    }

    /// Changes the dialog policy; it applies to dialogs opened afterwards.
    pub fn set_policy(&mut self, policy: DialogPolicy) {
        self.dialogs.set_policy(policy);
    }

    /// The current dialog policy.
    pub fn policy(&self) -> DialogPolicy {
        self.dialogs.policy()
    }

    /// The whole observable state (its JSON shape is a contract; see
    /// [`crate::manual::rules`], the snapshot).
    pub fn snapshot(&self) -> Snapshot {
        let frames = self.tab.frames.in_order();
        Snapshot {
            pending_dialogs: self.dialogs.pending().cloned().collect(),
            recent_dialogs: self.dialogs.recent().cloned().collect(),
            frame_tree: build_frame_tree(self.tab.page_target(), frames.map(|f| &f.info)),
            console_errors: self.tab.console_entries(),
            page: self.tab.page_info(
                self.config.enable_timeout.as_secs_f64(),
                self.dialogs.wedged(),
            ),
        }
    }

    /// Starts an accessibility snapshot of the whole tab, OOPIFs included (see
    /// [`crate::ax`] and [`crate::manual::rules`], accessibility). Its outcome arrives as
    /// exactly one [`Event::AxSnapshot`] under the returned id, within `options.timeout`.
    ///
    /// ```
    /// use cdp_supervisor::{ax::{AxError, AxOptions}, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.ax_snapshot(0.0, AxOptions::default()).unwrap_err(), AxError::NotAttached);
    /// ```
    pub fn ax_snapshot(&mut self, now: f64, options: AxOptions) -> Result<CommandId, AxError> {
        self.out.advance(now);
        self.cascade().begin_ax_snapshot(&options)
    }

    /// Resolves a ref of the last accessibility snapshot to its node now: the frame, the
    /// session to send commands on and the `backendNodeId`; a `stale_ref` error when its
    /// frame navigated or went away (take a new snapshot).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.resolve_ref("e1").unwrap_err().code(), "stale_ref");
    /// ```
    pub fn resolve_ref(&self, reference: &str) -> Result<ResolvedRef, AxError> {
        ax_snapshot::resolve(&self.tab, reference)
    }

    /// Resolves a ref against a fresh tree of its frame: its node if it is still shown,
    /// else the node with the same `(role, name, nth)` (a re-render replaced it; the ref
    /// names that node from now on), else `stale_ref`. The outcome arrives as exactly one
    /// [`Event::RefResolved`] under the returned id, within `timeout`; a ref whose frame
    /// navigated or went away fails at once.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.resolve_ref_fresh(0.0, "e1", Duration::from_secs(5)).unwrap_err();
    /// assert_eq!(e.code(), "stale_ref");
    /// ```
    pub fn resolve_ref_fresh(
        &mut self,
        now: f64,
        reference: &str,
        timeout: Duration,
    ) -> Result<CommandId, AxError> {
        self.out.advance(now);
        self.cascade().begin_resolve_ref(reference, timeout)
    }

    /// The page session, once attached.
    pub fn page_session_id(&self) -> Option<&str> {
        self.tab.page_session()
    }

    /// Sizes of the internal tables, for bounds checks in tests and benchmarks.
    #[doc(hidden)]
    pub fn table_sizes(&self) -> TableSizes {
        TableSizes {
            frames: self.tab.frames.len(),
            sessions: self.tab.sessions.len(),
            commands_in_flight: self.out.commands_in_flight.len(),
            pending_dialogs: self.dialogs.pending_len(),
            recent_dialogs: self.dialogs.recent_len(),
            console_errors: self.tab.console_errors.len(),
            queued_transmits: self.out.transmits.len(),
            queued_events: self.out.events.len(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    // ---- replies: to their owner by purpose ------------------------------------------

    fn on_reply(
        &mut self,
        id: u64,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Result<(), InputError> {
        let Some(cmd) = self.out.commands_in_flight.remove(id) else {
            return Err(InputError::UnknownReply { id });
        };
        let outcome = CdpError::reply_outcome(result, error);
        match cmd.purpose {
            Purpose::User => {
                let outcome = outcome
                    .map(|r| r.map_or("{}", RawValue::get).to_owned())
                    .map_err(|e| e.into_command_error(&cmd.method));
                self.out.command_finished(id, outcome);
                Ok(())
            }
            Purpose::DialogAnswer => {
                self.dialogs
                    .on_answer_reply(&mut self.out, id, cmd, outcome);
                Ok(())
            }
            Purpose::Flow(tag) => {
                let result = self
                    .cascade()
                    .with_flow(tag.flow, |flow, ctx| {
                        flow.on_reply(ctx, tag.step, &cmd, outcome)
                    })
                    .unwrap_or(Ok(FlowStatus::Running));
                self.cascade().apply_seeded_frames();
                result.map(|_| ())
            }
            Purpose::Quiet => Ok(()),
        }
    }

    // ---- events: to the component whose rule it is -----------------------------------

    fn on_event(
        &mut self,
        method: &str,
        session: Option<&str>,
        event: &mut CdpEvent<'_>,
    ) -> Result<(), InputError> {
        use CdpEvent as E;
        // A console call of a tracked session, the bulk of a busy page, is the tab's alone:
        // its session is looked up once, there (an untracked one goes the general way).
        if let (E::ConsoleApiCalled(ev), Some(s)) = (&mut *event, session) {
            if self.tab.on_console_called(&mut self.out, s, ev) {
                self.cascade().offer_event(session, event);
                return Ok(());
            }
        }
        let result = match &mut *event {
            E::AttachedToTarget(ev) => self.cascade().on_attached_to_target(session, ev),
            // The params name the session; the envelope may be the browser (the page
            // session itself) or a parent. Unknown ones were dropped with their frame.
            E::DetachedFromTarget(ev) => {
                self.cascade().on_detached_from_target(&ev.session_id);
                Ok(())
            }
            _ => match session.filter(|s| self.tab.sessions.contains(s)) {
                Some(session) => {
                    self.on_session_event(session, event);
                    Ok(())
                }
                None => Err(InputError::UnknownSession {
                    method: method.to_owned(),
                    session_id: session.unwrap_or("(browser)").to_owned(),
                }),
            },
        };
        self.cascade().offer_event(session, event);
        result
    }

    /// An event of a tracked session. A console call's text moves into the tab's console
    /// ring (flows offered the event afterwards find it there, not in the event).
    fn on_session_event(&mut self, session: &str, event: &mut CdpEvent<'_>) {
        use CdpEvent as E;
        // The console, execution contexts and in-document navigations are the tab's alone;
        // dialogs and bridge requests the dialogs' alone.
        if self.tab.on_event(&mut self.out, session, event) {
            return;
        }
        let token = self.config.bridge.as_ref().map(|b| b.token.as_str());
        let view = self.tab.view();
        if self
            .dialogs
            .on_event(&mut self.out, view, token, session, event)
        {
            return;
        }
        match &*event {
            E::FrameAttached(ev) => {
                self.cascade()
                    .on_frame_attached(session, &ev.frame_id, &ev.parent_frame_id)
            }
            E::FrameNavigated(ev) => {
                let (info, own_root) = self.tab.frame_info(session, &ev.frame);
                self.cascade().upsert_frame(session, info, own_root, true);
            }
            E::FrameDetached(ev) => {
                let gone = self
                    .tab
                    .detached_frames(session, &ev.frame_id, ev.reason.as_deref());
                self.cascade().remove(Removal::Frames(gone));
            }
            E::FrameStartedNavigating(ev) => {
                // A frame blocked in a bridge dialog's synchronous XHR cannot commit a
                // navigation; answer first (the native equivalent is closed by Chromium).
                let same_document = matches!(
                    ev.navigation_type.as_deref(),
                    Some("sameDocument" | "historySameDocument")
                );
                if !same_document {
                    self.cascade()
                        .give_up_bridge_dialogs_in_subtree(&ev.frame_id);
                }
            }
            // Before the frame's session goes and Chromium lets its paused request fall
            // through to the network.
            E::FrameSubtreeWillBeDetached(ev) => self
                .cascade()
                .give_up_bridge_dialogs_in_subtree(&ev.frame_id),
            E::TargetCrashed => self.cascade().on_crashed(session),
            E::InspectorDetached(ev) => {
                self.out.warn(Warning::SessionDetached {
                    session_id: session.to_owned(),
                    reason: ev.reason.to_string(),
                });
                self.cascade().on_detached_from_target(session);
            }
            _ => {}
        }
    }

    // ---- plumbing --------------------------------------------------------------------

    /// The components, borrowed for a removal, a failure or a flow's turn.
    fn cascade(&mut self) -> Cascade<'_> {
        Cascade {
            out: &mut self.out,
            tab: &mut self.tab,
            dialogs: &mut self.dialogs,
            flows: &mut self.flows,
            config: &self.config,
            bridge_script: self.bridge_script.as_deref(),
        }
    }

    /// Emits a `page` diff when the page entry changed; runs after every input.
    fn update_page(&mut self) {
        let wedged = self.dialogs.wedged();
        self.tab
            .update_page(&mut self.out, self.enable_timeout_s, wedged);
    }
}
