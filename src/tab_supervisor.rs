//! [`TabSupervisor`]: one tab, a complete machine of its own (its frames, sessions,
//! dialogs, console, refs and flows, with their deadlines), driven by the browser layer
//! ([`crate::Supervisor`]) as quinn-proto's `Endpoint` drives a `Connection`.
//!
//! The browser routes each message to the tab that owns its session and lends the tab the
//! connection's [`Outbox`] (the clock, the command ids, the commands in flight, the output
//! queues) for that one call. A tab never reaches up: what the browser must know (its
//! state, its URL, that it crashed) it reads off the tab after the call.
//!
//! Follow a message: [`TabSupervisor::on_reply`] hands a reply to its owner by `Purpose`
//! (the embedder, the `Dialogs` component, or a flow); [`TabSupervisor::on_event`] hands
//! an event to the component whose rule it is (`Tab` for targets, frames and the console,
//! `Dialogs` for dialogs and the bridge, `lifecycle.rs` for targets and frames coming and
//! going), then offers it to the flows. Removals cascade through one worklist
//! (`cascade.rs`). The agent calls check and start their flow in `flow/begin.rs`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::act::{ActError, ActOptions, Action};
use crate::ax::{AxError, AxOptions, ResolvedRef};
use crate::cascade::{Cascade, Removal};
use crate::cdp::{self, CdpEvent};
use crate::command::{CommandId, InFlight, Purpose, TabKey};
use crate::config::Config;
use crate::dialog::{Answer, DialogAction, DialogPolicy};
use crate::dialogs::Dialogs;
use crate::error::{CommandError, DialogError, InputError};
use crate::evaluate::{EvalError, Evaluation};
use crate::event::Warning;
use crate::flow::attach::{AttachFlow, ATTACH};
use crate::flow::ax_snapshot;
use crate::flow::{AnyFlow, FlowStatus, Flows};
use crate::network::NetworkLog;
use crate::outbox::Outbox;
use crate::snapshot::{
    build_frame_tree, ConsoleEntry, FrameTree, PageInfo, PageState, PendingDialog, TabInfo,
    TabState,
};
use crate::tab::{PagePhase, Tab};
use crate::wire::{to_raw, CdpError};

/// What every tab reads of the browser: the configuration and what is derived from it
/// once.
#[derive(Debug)]
pub(crate) struct TabEnv {
    pub config: Config,
    /// The bridge script, built once from the token (`None` without the bridge).
    pub bridge_script: Option<String>,
    /// `config.enable_timeout` in seconds, converted once: the page entry is checked after
    /// every input, and the conversion is a division.
    pub enable_timeout_s: f64,
}

impl TabEnv {
    pub fn new(config: Config) -> Self {
        TabEnv {
            bridge_script: config
                .bridge
                .as_ref()
                .map(|b| crate::bridge::script(&b.token)),
            enable_timeout_s: config.enable_timeout.as_secs_f64(),
            config,
        }
    }
}

/// One supervised tab.
#[derive(Debug)]
pub(crate) struct TabSupervisor {
    /// Its slot in the browser's table, stamped on its commands.
    pub key: TabKey,
    /// Its id: the page's CDP target id.
    pub tab_id: Arc<str>,
    /// The tab that opened it, if any.
    pub opener: Option<Arc<str>>,
    /// It can reach its opener (`window.open` without `noopener`), so on the same site it
    /// shares its opener's renderer.
    pub opener_access: bool,
    /// The document title, as the browser last read it.
    pub title: String,
    /// The top frame's URL as the target info last said (before the frames know it).
    pub target_url: String,
    /// The browser context it lives in, as the target info last said.
    pub browser_context_id: Option<String>,
    /// The page, sessions, frames and console.
    tab: Tab,
    /// Every dialog rule.
    dialogs: Dialogs,
    /// Multi-step jobs; the attach flow runs for the tab's life.
    flows: Flows,
    /// The last requests of every session of the tab.
    pub network: NetworkLog,
    /// The entry `tabs` last listed for it, to emit `tab_updated` on a change only.
    pub last_info: Option<TabInfo>,
}

impl TabSupervisor {
    pub fn new(key: TabKey, tab_id: &str, opener: Option<&str>, env: &TabEnv) -> Self {
        let mut flows = Flows::default();
        flows.start(ATTACH, AnyFlow::Attach(AttachFlow::default()));
        let tab_id: Arc<str> = Arc::from(tab_id);
        let config = &env.config;
        let mut dialogs = Dialogs::new(config.policy, config.dialog_timeout, config.setup_timeout);
        dialogs.tab_id = Some(Arc::clone(&tab_id));
        dialogs.upload_roots.clone_from(&config.upload_roots);
        dialogs.http_auth.clone_from(&config.http_auth);
        let mut tab = Tab::default();
        tab.tab_id = Some(Arc::clone(&tab_id));
        TabSupervisor {
            key,
            opener: opener.map(Arc::from),
            opener_access: false,
            title: String::new(),
            target_url: String::new(),
            browser_context_id: None,
            tab,
            dialogs,
            flows,
            network: NetworkLog::default(),
            last_info: None,
            tab_id,
        }
    }

    // ---- attaching -------------------------------------------------------------------

    /// Attaches to the tab's target (`Target.attachToTarget`): the first tab at connect,
    /// and the current tab again after a reconnect.
    pub fn attach(&mut self, out: &mut Outbox, env: &TabEnv, url: &str) {
        let target = self.tab_id.to_string();
        self.cascade(out, env)
            .with_attach(|flow, ctx| flow.attach_target(ctx, &target, url));
    }

    /// Takes a page session the browser's auto-attach gave (a popup, a new tab, a page
    /// that was open): sets it up, and resumes it last when it waits.
    pub fn adopt_session(&mut self, out: &mut Outbox, env: &TabEnv, session: &str, waiting: bool) {
        let target = self.tab_id.to_string();
        let url = self.target_url.clone();
        self.cascade(out, env)
            .with_attach(|flow, ctx| flow.adopt_page(ctx, &target, &url, session, waiting));
    }

    /// The browser-level `attachedToTarget` of the page this tab is attaching to.
    pub fn on_page_attached(&mut self, out: &mut Outbox, env: &TabEnv, session: &str) {
        self.cascade(out, env)
            .with_attach(|flow, ctx| flow.page_session_known(ctx, session));
    }

    /// The connection closed: every command of this tab failed already; pending dialogs
    /// close `remote`, sessions and frames are cleared. The page is remembered, so that
    /// the next connect re-attaches the same tab.
    pub fn on_disconnected(&mut self, out: &mut Outbox, env: &TabEnv) {
        self.cascade(out, env).clear_tab();
        self.tab.set_phase(PagePhase::Detached);
    }

    /// The tab is going away (closed, or over the bound): its flows end, its dialogs close
    /// `remote`, its frames are removed.
    pub fn on_closed(&mut self, out: &mut Outbox, env: &TabEnv) {
        let all = self.tab.session_ids();
        let mut c = self.cascade(out, env);
        c.fail_on_sessions(&all, crate::error::SessionGoneReason::Detached);
        c.cancel_evaluations("the tab closed");
        c.clear_tab();
        self.tab.set_phase(PagePhase::Detached);
    }

    // ---- input -----------------------------------------------------------------------

    /// A reply to one of this tab's commands.
    pub fn on_reply(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        id: u64,
        cmd: InFlight,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Result<(), InputError> {
        let outcome = CdpError::reply_outcome(result, error);
        match cmd.purpose {
            Purpose::User => {
                out.command_replied(id, &cmd.method, outcome);
                Ok(())
            }
            Purpose::DialogAnswer => {
                self.dialogs.on_answer_reply(out, id, cmd, outcome);
                Ok(())
            }
            Purpose::Flow(tag) => {
                let mut c = self.cascade(out, env);
                let result = c
                    .with_flow(tag.flow, |flow, ctx| {
                        flow.on_reply(ctx, tag.step, &cmd, outcome)
                    })
                    .unwrap_or(Ok(FlowStatus::Running));
                c.apply_seeded_frames();
                result.map(|_| ())
            }
            Purpose::Quiet | Purpose::Browser(_) => Ok(()),
        }
    }

    /// A command of this tab ended without a reply.
    pub fn fail_command(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        id: u64,
        cmd: InFlight,
        error: CommandError,
    ) {
        self.cascade(out, env).fail_command(id, cmd, error);
    }

    /// Whether the tab tracks `session`.
    pub fn owns_session(&self, session: &str) -> bool {
        self.tab.sessions.contains(session)
    }

    /// Changes whenever a session leaves the tab: a session it owned at one value it
    /// still owns while the value stays.
    pub fn sessions_removals(&self) -> u64 {
        self.tab.sessions.removals()
    }

    /// Every session the tab tracks.
    pub fn session_ids(&self) -> Vec<String> {
        self.tab.session_ids()
    }

    /// How many sessions the tab tracks.
    pub fn session_count(&self) -> usize {
        self.tab.sessions.len()
    }

    /// An event of one of this tab's sessions (`session`: the envelope's), or a
    /// `detachedFromTarget` naming one of them.
    pub fn on_event(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        method: &str,
        session: Option<&str>,
        event: &mut CdpEvent<'_>,
    ) -> Result<(), InputError> {
        use CdpEvent as E;
        // A console call of a tracked session, the bulk of a busy page, is the tab's alone:
        // its session is looked up once, there (an untracked one goes the general way).
        if let (E::ConsoleApiCalled(ev), Some(s)) = (&mut *event, session) {
            if self.tab.on_console_called(out, s, ev) {
                self.cascade(out, env).offer_event(session, event);
                return Ok(());
            }
        }
        let result = match &mut *event {
            E::AttachedToTarget(ev) => self.cascade(out, env).on_attached_to_target(session, ev),
            // The params name the session; the envelope may be the browser (the page
            // session itself) or a parent. Unknown ones were dropped with their frame.
            E::DetachedFromTarget(ev) => {
                self.cascade(out, env)
                    .on_detached_from_target(&ev.session_id);
                Ok(())
            }
            _ => match session.filter(|s| self.tab.sessions.contains(s)) {
                Some(session) => {
                    self.on_session_event(out, env, session, event);
                    Ok(())
                }
                None => Err(InputError::UnknownSession {
                    method: method.to_owned(),
                    session_id: session.unwrap_or("(browser)").to_owned(),
                }),
            },
        };
        self.cascade(out, env).offer_event(session, event);
        result
    }

    /// An event of a tracked session. A console call's text moves into the tab's console
    /// ring (flows offered the event afterwards find it there, not in the event).
    fn on_session_event(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        session: &str,
        event: &mut CdpEvent<'_>,
    ) {
        use CdpEvent as E;
        if let E::Network(ev) = event {
            self.network.on_event(out.now(), session, ev);
            return;
        }
        // The console, execution contexts and in-document navigations are the tab's alone;
        // dialogs and bridge requests the dialogs' alone.
        if self.tab.on_event(out, session, event) {
            return;
        }
        let token = env.config.bridge.as_ref().map(|b| b.token.as_str());
        let view = self.tab.view();
        if self.dialogs.on_event(out, view, token, session, event) {
            return;
        }
        match &*event {
            E::FrameAttached(ev) => {
                self.cascade(out, env)
                    .on_frame_attached(session, &ev.frame_id, &ev.parent_frame_id)
            }
            E::FrameNavigated(ev) => {
                let (info, own_root) = self.tab.frame_info(session, &ev.frame);
                self.cascade(out, env)
                    .upsert_frame(session, info, own_root, true);
            }
            E::FrameDetached(ev) => {
                let gone = self
                    .tab
                    .detached_frames(session, &ev.frame_id, ev.reason.as_deref());
                self.cascade(out, env).remove(Removal::Frames(gone));
            }
            E::FrameRequestedNavigation(ev) => {
                let here = matches!(ev.disposition.as_deref(), None | Some("currentTab"));
                if here {
                    self.guard_navigation(out, env, session, &ev.frame_id, ev.url.as_deref());
                }
            }
            E::FrameStartedNavigating(ev) => {
                self.guard_navigation(out, env, session, &ev.frame_id, ev.url.as_deref());
                // A frame blocked in a bridge dialog's synchronous XHR cannot commit a
                // navigation; answer first (the native equivalent is closed by Chromium).
                let same_document = matches!(
                    ev.navigation_type.as_deref(),
                    Some("sameDocument" | "historySameDocument")
                );
                if !same_document {
                    self.cascade(out, env)
                        .give_up_bridge_dialogs_in_subtree(&ev.frame_id);
                }
            }
            // Before the frame's session goes and Chromium lets its paused request fall
            // through to the network.
            E::FrameSubtreeWillBeDetached(ev) => self
                .cascade(out, env)
                .give_up_bridge_dialogs_in_subtree(&ev.frame_id),
            E::TargetCrashed => self.cascade(out, env).on_crashed(session),
            E::InspectorDetached(ev) => {
                out.warn(Warning::SessionDetached {
                    session_id: session.to_owned(),
                    reason: ev.reason.to_string(),
                });
                self.cascade(out, env).on_detached_from_target(session);
            }
            _ => {}
        }
    }

    /// A navigation of the tab's top frame that the page started (a link, a script, a
    /// popup's first load) to where the URL policy does not let an agent go: stopped before
    /// it commits (`Page.stopLoading`, so the page stays where it was), or, for a popup that
    /// has shown nothing yet, closed (`Target.closeTarget`); a
    /// [`Warning::NavigationRefused`] says so. The supervisor's own navigations were
    /// checked before they were sent; this catches the page's (see
    /// [chromium_facts](crate::manual::chromium_facts), the doors).
    fn guard_navigation(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        session: &str,
        frame_id: &str,
        url: Option<&str>,
    ) {
        let policy = &env.config.url_policy;
        let (Some(url), Some(page)) = (url, self.tab.page_session()) else {
            return;
        };
        if policy.allows_everything() || page != session || self.tab.page_target() != Some(frame_id)
        {
            return;
        }
        let Err(refused) = policy.check(url) else {
            return;
        };
        let shown = self
            .tab
            .frames
            .get(frame_id)
            .map(|f| f.info.url.as_str())
            .unwrap_or("");
        let fresh_popup = self.opener.is_some() && matches!(shown, "" | "about:blank");
        let timeout = env.config.setup_timeout;
        if fresh_popup {
            let params = to_raw(&cdp::TargetIdParams {
                target_id: &self.tab_id,
            });
            out.send(
                None,
                "Target.closeTarget",
                params.as_deref(),
                Purpose::Quiet,
                timeout,
            );
        } else {
            out.send(
                Some(page),
                "Page.stopLoading",
                None,
                Purpose::Quiet,
                timeout,
            );
        }
        out.warn(Warning::NavigationRefused {
            tab_id: self.tab_id.to_string(),
            refused,
            tab_closed: fresh_popup,
        });
    }

    /// Fires what is due at `now`: the flows' deadlines and dialog watchdogs (command
    /// deadlines are the browser's, which owns the commands in flight).
    pub fn handle_timeout(&mut self, out: &mut Outbox, env: &TabEnv, now: f64) {
        for id in self.flows.ids() {
            if self
                .flows
                .get_mut(id)
                .and_then(|f| f.deadline())
                .is_some_and(|d| d <= now)
            {
                self.cascade(out, env)
                    .with_flow(id, |flow, ctx| flow.on_timeout(ctx, now));
            }
        }
        self.dialogs.fire_watchdogs(out, self.tab.view(), now);
    }

    /// The tab's own next deadline: its flows and dialog watchdogs.
    pub fn next_deadline(&self) -> Option<f64> {
        match (self.flows.next_deadline(), self.dialogs.next_watchdog()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    // ---- the embedder's calls --------------------------------------------------------

    /// See [`crate::Supervisor::command`]. The session is checked here; the bound on
    /// commands in flight is the browser's.
    pub fn command(
        &mut self,
        out: &mut Outbox,
        frame_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.check_not_crashed()?;
        let session = self.tab.route_command(frame_id, method)?;
        let id = out.send(Some(&session), method, params, Purpose::User, timeout);
        if let Some(dialog) = self.dialogs.newest_pending() {
            out.report_blocked(id, dialog);
        }
        Ok(CommandId(id))
    }

    /// A crashed tab answers every call at once (its renderer answers nothing).
    pub fn check_not_crashed(&self) -> Result<(), CommandError> {
        match self.tab.page() {
            Some(p) if p.phase == PagePhase::Crashed => Err(CommandError::Crashed {
                tab_id: self.tab_id.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// See [`crate::Supervisor::evaluate`].
    pub fn evaluate(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        request: &Evaluation,
    ) -> Result<CommandId, EvalError> {
        self.check_not_crashed()?;
        self.cascade(out, env).begin_evaluate(request)
    }

    /// See [`crate::Supervisor::recover`].
    pub fn recover(&mut self, out: &mut Outbox, env: &TabEnv) -> Result<CommandId, CommandError> {
        let (session, url) = self.tab.recovery_target()?;
        // A page blocked in a bridge dialog cannot navigate until it is answered.
        if let Some(top) = self.tab.page_target().map(str::to_owned) {
            self.cascade(out, env)
                .give_up_bridge_dialogs_in_subtree(&top);
        }
        let crashed = self.check_not_crashed().is_err();
        let timeout = env.config.setup_timeout;
        // A crashed renderer comes back with a reload on the same session (Chromium facts: "A
        // crash, a title, a reload"); a
        // blocked one with a navigation to its URL (Chromium facts: "A dialog left open wedges
        // the tab").
        let id = if crashed {
            out.send(Some(&session), "Page.reload", None, Purpose::User, timeout)
        } else {
            let params = to_raw(&cdp::NavigateParams { url: &url });
            out.send(
                Some(&session),
                "Page.navigate",
                params.as_deref(),
                Purpose::User,
                timeout,
            )
        };
        Ok(CommandId(id))
    }

    /// See [`crate::Supervisor::respond_dialog`].
    pub fn respond_dialog(
        &mut self,
        out: &mut Outbox,
        answer: &Answer,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        self.dialogs
            .respond(out, self.tab.view(), answer, dialog_id)
    }

    /// Answers every pending dialog of the tab that has no answer in flight.
    pub fn settle_dialogs(&mut self, out: &mut Outbox, action: DialogAction) -> Vec<CommandId> {
        self.dialogs.settle(out, self.tab.view(), action)
    }

    pub fn has_pending_dialogs(&self) -> bool {
        self.dialogs.has_pending()
    }

    /// A dialog opened in another tab that shares this tab's renderer: this tab's running
    /// actions and evaluates are stalled by it and end as blocked.
    pub fn on_shared_dialog(&mut self, out: &mut Outbox, env: &TabEnv, dialog: &PendingDialog) {
        self.cascade(out, env).offer_shared_dialog(dialog);
    }

    /// Whether the tab knows frame `frame_id` (a download names the frame that began it).
    pub fn has_frame(&self, frame_id: &str) -> bool {
        self.tab.frames.get(frame_id).is_some()
    }

    /// Whether dialog `id` is one of this tab's pending dialogs.
    pub fn has_dialog(&self, id: &str) -> bool {
        self.dialogs.pending().any(|d| d.id == id)
    }

    /// Ends every evaluate still running (a planned stop).
    pub fn cancel_evaluations(&mut self, out: &mut Outbox, env: &TabEnv, why: &str) {
        self.cascade(out, env).cancel_evaluations(why);
    }

    /// See [`crate::Supervisor::act`].
    pub fn act(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        action: Action,
        options: ActOptions,
    ) -> Result<CommandId, ActError> {
        // Where an agent may go: checked before anything is sent, so a refused
        // navigation leaves the page where it was.
        if let crate::act::Action::Navigate { url } = &action {
            env.config
                .url_policy
                .check(url)
                .map_err(CommandError::UrlRefused)?;
        }
        self.check_not_crashed()?;
        self.cascade(out, env).begin_act(action, options)
    }

    pub fn set_policy(&mut self, policy: DialogPolicy) {
        self.dialogs.set_policy(policy);
    }

    /// See [`crate::Supervisor::ax_snapshot`].
    pub fn ax_snapshot(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        options: &AxOptions,
    ) -> Result<CommandId, AxError> {
        if self.check_not_crashed().is_err() {
            return Err(AxError::Crashed {
                tab_id: self.tab_id.to_string(),
            });
        }
        self.cascade(out, env).begin_ax_snapshot(options)
    }

    /// The tab's console lines of every level from index `since` on.
    pub fn console_since(&self, since: u64) -> crate::ConsoleSince {
        self.tab.console_history.since(since)
    }

    pub fn resolve_ref(&self, reference: &str) -> Result<ResolvedRef, AxError> {
        ax_snapshot::resolve(&self.tab, reference)
    }

    pub fn resolve_ref_fresh(
        &mut self,
        out: &mut Outbox,
        env: &TabEnv,
        reference: &str,
        timeout: Duration,
    ) -> Result<CommandId, AxError> {
        self.cascade(out, env).begin_resolve_ref(reference, timeout)
    }

    // ---- what the browser reads off the tab ------------------------------------------

    pub fn page_session_id(&self) -> Option<&str> {
        self.tab.page_session()
    }

    /// Whether the tab is attaching to its page (so the browser-level `attachedToTarget`
    /// of its target is the attach flow's).
    pub fn is_attaching(&self) -> bool {
        self.tab
            .page()
            .is_some_and(|p| p.phase == PagePhase::Attaching)
    }

    pub fn pending_dialogs(&self) -> impl Iterator<Item = &PendingDialog> + '_ {
        self.dialogs.pending()
    }

    /// The newest pending dialog no answer (of the agent or a policy) is in flight for.
    pub fn newest_unanswered(&self) -> Option<&PendingDialog> {
        self.dialogs.newest_unanswered()
    }

    pub fn newest_pending(&self) -> Option<&str> {
        self.dialogs.newest_pending()
    }

    pub fn frame_tree(&self) -> FrameTree {
        build_frame_tree(
            self.tab.page_target(),
            self.tab.frames.in_order().map(|f| &f.info),
        )
    }

    pub fn console_entries(&self) -> Vec<ConsoleEntry> {
        self.tab.console_entries()
    }

    pub fn page_info(&self, env: &TabEnv) -> Option<PageInfo> {
        self.tab
            .page_info(env.enable_timeout_s, self.dialogs.wedged())
    }

    /// The top frame's URL (the frames', else the target info's).
    pub fn url(&self) -> &str {
        let top = self
            .tab
            .page_target()
            .and_then(|t| self.tab.frames.get(t))
            .map(|f| f.info.url.as_str());
        top.unwrap_or(&self.target_url)
    }

    fn state(&self, env: &TabEnv) -> TabState {
        let page = self.tab.page().map(|_| {
            let wedged = self.dialogs.wedged();
            self.tab.page_state(env.enable_timeout_s, wedged)
        });
        match page {
            Some(PageState::Live) => TabState::Live,
            Some(PageState::Blocked) => TabState::Blocked,
            Some(PageState::Crashed) => TabState::Crashed,
            Some(PageState::Attaching | PageState::Detached) | None => TabState::Attaching,
        }
    }

    /// The tab's entry in `tabs`.
    pub fn info(&self, env: &TabEnv, current: bool) -> TabInfo {
        TabInfo {
            tab_id: self.tab_id.to_string(),
            url: self.url().to_owned(),
            title: self.title.clone(),
            opener_tab_id: self.opener.as_deref().map(str::to_owned),
            state: self.state(env),
            current,
            browser_context_id: self.browser_context_id.clone(),
        }
    }

    /// Whether the tab's entry differs from the one last listed (checked after every
    /// input the tab took, so it compares in place and builds nothing).
    pub fn info_changed(&self, env: &TabEnv, current: bool) -> bool {
        match &self.last_info {
            None => true,
            Some(last) => {
                last.current != current
                    || last.url != self.url()
                    || last.title != self.title
                    || last.state != self.state(env)
                    || last.browser_context_id != self.browser_context_id
            }
        }
    }

    /// The top frame's origin, to tell which tabs may share a renderer.
    pub fn site(&self) -> Option<String> {
        let url = self.url();
        let rest = url.split_once("://")?.1;
        let host = rest.split(['/', '?', '#']).next()?;
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let host = host.split(':').next().unwrap_or(host);
        (!host.is_empty()).then(|| host.to_ascii_lowercase())
    }

    /// Emits a `page` diff when the page entry changed; runs after every input the tab
    /// took.
    pub fn update_page(&mut self, out: &mut Outbox, env: &TabEnv) {
        let wedged = self.dialogs.wedged();
        self.tab.update_page(out, env.enable_timeout_s, wedged);
    }

    pub fn table_sizes(&self) -> (usize, usize, usize, usize, usize) {
        (
            self.tab.frames.len(),
            self.tab.sessions.len(),
            self.dialogs.pending_len(),
            self.dialogs.recent_len(),
            self.tab.console_errors.len(),
        )
    }

    // ---- plumbing --------------------------------------------------------------------

    /// The components, borrowed for a removal, a failure or a flow's turn.
    fn cascade<'a>(&'a mut self, out: &'a mut Outbox, env: &'a TabEnv) -> Cascade<'a> {
        Cascade {
            out,
            tab: &mut self.tab,
            dialogs: &mut self.dialogs,
            flows: &mut self.flows,
            config: &env.config,
            bridge_script: env.bridge_script.as_deref(),
        }
    }
}
