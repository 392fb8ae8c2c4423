//! The act flow: one agent action, then settling, then a screenshot (see
//! [`crate::manual::rules`], agent actions).
//!
//! 1. `Page.setLifecycleEventsEnabled` on the page session (so a navigation's `load` is
//!    seen), pipelined before everything else.
//! 2. Locate (a node target): `DOM.scrollIntoViewIfNeeded` and `DOM.getContentQuads` on
//!    the node's session, then for every OOPIF above it `DOM.getFrameOwner` and
//!    `DOM.getBoxModel` on the parent's session: the `<iframe>`'s content-box origin is
//!    added to the point. A target given by ref whose node is gone (a re-render replaced
//!    it: the scroll, the quads or `DOM.focus` fail on it) is looked up once in a fresh tree
//!    of its frame ([`Refetch`]: the same `(role, name, nth)`, rebound) within the budget,
//!    and located again on the node found; none found: `stale_ref`. Commands of the first
//!    attempt carry its number in their step, so their late replies are dropped.
//! 3. Input, pipelined: mouse moved/pressed/released, key events (after `DOM.focus`
//!    answered), `window.scrollBy`, a navigation.
//! 4. Settle ([`Wait`]): a cross-document navigation of the top frame waits for its
//!    `load` (a back/forward cache restore for its `frameNavigated`, which is all it
//!    sends); `wait: quiet` then waits for `networkAlmostIdle` and 500 ms of console quiet
//!    together, both from the load (at most 3 s after it), and from 500 ms after the load
//!    pokes the renderer every 100 ms until `networkAlmostIdle` comes (Chromium's idleness
//!    detector looks only at a task, else every 2 s). Without a navigation: 500 ms of quiet
//!    after the input (`quiet`), or a barrier (`load`: a no-op evaluate on the page, whose
//!    reply follows any navigation the input made the renderer request). A requested
//!    navigation holds settling until it starts. The budget bounds it all.
//! 5. Capture: `Page.captureScreenshot` (webp, else png) and `document.title`.
//!
//! The form and pointer actions take the same steps: `hover` and `drag` locate like a
//! click and move the mouse ([`pointer`]); `select` and `fill` set fields in the page
//! ([`fields`]).
//!
//! A dialog that opens ends the flow at once: the result carries it and no screenshot.
//! Replies to the flow's commands that come later (a mouse release that a dialog held)
//! are dropped quietly.

use serde_json::{json, Value};

mod fields;
mod pointer;

pub(crate) use fields::extra_targets;

use super::resolve_ref::{node_gone, Refetch};
use super::wait_for::{PollTarget, Waiting, POLL_DEADLINE};
use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::act::{
    ActConsoleLine, ActError, ActOptions, ActResult, ActTiming, Action, Point, Screenshot, Scroll,
    Target, Wait, WaitFor, CAPTURE_TIMEOUT, SETTLE_CAP, SETTLE_QUIET,
};
use crate::ax::AxError;
use crate::cdp::CdpEvent;
use crate::command::{CommandId, InFlight, Purpose};
use crate::dialog::DialogPolicy;
use crate::error::{CommandError, InputError};
use crate::event::Event;
use crate::keys::{press_events, type_events};
use crate::limits::MAX_ACT_CONSOLE_LINES;
use crate::remote_object::{append_arg, truncate};
use crate::wire::to_raw;

/// What each of the flow's commands is for.
mod step {
    pub const LIFECYCLE: u16 = 0;
    pub const SCROLL_NODE: u16 = 1;
    pub const QUADS: u16 = 2;
    pub const FRAME_OWNER: u16 = 3;
    pub const BOX_MODEL: u16 = 4;
    pub const FOCUS: u16 = 5;
    pub const INPUT: u16 = 6;
    pub const NAVIGATE: u16 = 8;
    pub const HISTORY: u16 = 9;
    pub const SCREENSHOT: u16 = 10;
    pub const TITLE: u16 = 11;
    pub const REFETCH: u16 = 12;
    /// A no-op evaluate that lets the renderer's idleness detector look at the network.
    pub const IDLE_CHECK: u16 = 13;
    /// A no-op evaluate whose reply comes after every event the input made the renderer
    /// send (a requested navigation among them).
    pub const BARRIER: u16 = 14;
    /// `select` / `fill`: a field's node resolved, its function called, the objects freed.
    pub const FIELD_RESOLVE: u16 = 15;
    pub const FIELD_CALL: u16 = 16;
    pub const FIELD_RELEASE: u16 = 17;
    /// One frame's poll of `wait` for text.
    pub const WAIT_POLL: u16 = 18;
    /// A step's attempt (0, or 1 after a ref was looked up again) is in its high byte.
    pub const ATTEMPT_SHIFT: u16 = 8;
}

/// When the renderer is first poked while `networkAlmostIdle` is awaited, after the load:
/// the length of Chromium's network quiet window, the earliest a poke can find it over.
const IDLE_CHECK_AFTER: f64 = 0.5;
/// How often it is poked after that: the window starts a little after the load (at the
/// last request's end), so a poke at the window's length alone tends to miss it.
const IDLE_CHECK_EVERY: f64 = 0.1;

/// A node to turn into a point or to act on.
#[derive(Debug, Clone)]
pub(crate) struct NodeAt {
    pub frame_id: String,
    pub session: String,
    pub backend_node_id: i64,
    /// The ref it was given by, if any (looked up again when its node is gone).
    pub reference: Option<String>,
    /// Every OOPIF between the node and the top, innermost first: (the parent's session,
    /// the OOPIF's frame id).
    pub levels: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Locate,
    Input,
    Settle,
    Capture,
}

/// One action's state.
#[derive(Debug)]
pub(crate) struct ActFlow {
    id: FlowId,
    answer: u64,
    action: Action,
    options: ActOptions,
    page_session: String,
    top_frame: String,
    node: Option<NodeAt>,
    phase: Phase,
    budget_at: f64,
    started_at: f64,
    capture_at: Option<f64>,
    /// Locating: the point found so far, and the OOPIF level being added.
    point: Option<Point>,
    level: usize,
    inputs_pending: usize,
    /// `type` with a target: its `DOM.focus` was answered.
    focused: bool,
    input_done_at: Option<f64>,
    /// A cross-document navigation of the top frame started (by the action or not).
    nav_started: bool,
    /// The renderer asked for a navigation of the top frame that has not started yet.
    nav_requested: bool,
    /// `wait: load` without a navigation: the barrier after the input is in flight.
    barrier_pending: bool,
    /// Its document committed (lifecycle `init`, or the top frame's `frameNavigated`):
    /// only then is a `load` its own, not one that enabling lifecycle events re-sent for
    /// the document being left.
    committed: bool,
    navigated: bool,
    loaded_at: Option<f64>,
    almost_idle: bool,
    /// When the renderer is poked next while `networkAlmostIdle` is awaited.
    idle_check_at: Option<f64>,
    last_console: f64,
    result: ActResult,
    captures_pending: usize,
    tried_png: bool,
    /// When `on_timeout` must run next.
    wake: Option<f64>,
    /// 1 once the target's ref was looked up again (at most once).
    attempt: u16,
    /// The ref being looked up again, and the error to report if it is the same node.
    refetch: Option<(Refetch, ActError)>,
    /// The other elements of a form or pointer action (see [`extra_targets`]).
    extra: Vec<NodeAt>,
    /// `select` / `fill`: the field being set.
    fields: fields::Fields,
    /// `drag`: its start and the moves still to send.
    drag: pointer::Drag,
    /// `wait`: what it waits for and its poll.
    waiting: Option<Waiting>,
}

impl ActFlow {
    /// A flow for `action`, checked; nothing is sent yet.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: FlowId,
        answer: u64,
        action: Action,
        options: ActOptions,
        page_session: String,
        top_frame: String,
        node: Option<NodeAt>,
        now: f64,
    ) -> Self {
        let budget_at = now + options.timeout.as_secs_f64();
        ActFlow {
            id,
            answer,
            action,
            options,
            page_session,
            top_frame,
            node,
            phase: Phase::Locate,
            budget_at,
            started_at: now,
            capture_at: None,
            point: None,
            level: 0,
            inputs_pending: 0,
            focused: false,
            input_done_at: None,
            nav_started: false,
            nav_requested: false,
            barrier_pending: false,
            committed: false,
            navigated: false,
            loaded_at: None,
            almost_idle: false,
            idle_check_at: None,
            last_console: now,
            result: ActResult::default(),
            captures_pending: 0,
            tried_png: false,
            wake: Some(budget_at),
            attempt: 0,
            refetch: None,
            extra: Vec::new(),
            fields: fields::Fields::default(),
            drag: pointer::Drag::default(),
            waiting: None,
        }
    }

    /// The flow with the other elements of a form or pointer action (see
    /// [`extra_targets`]).
    pub fn with_extra(mut self, extra: Vec<NodeAt>) -> Self {
        self.extra = extra;
        self
    }

    fn tag(&self, step: u16) -> Purpose {
        Purpose::Flow(FlowTag {
            flow: self.id,
            step: step | (self.attempt << step::ATTEMPT_SHIFT),
        })
    }

    fn send(&self, ctx: &mut FlowCtx<'_>, session: &str, method: &str, params: Value, step: u16) {
        let params = to_raw(&params);
        let deadline = self.budget_at.max(ctx.out.now() + 0.5);
        ctx.out.send_until(
            Some(session),
            method,
            params.as_deref(),
            self.tag(step),
            deadline,
        );
    }

    /// Sends the first commands.
    pub fn start(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let page = self.page_session.clone();
        self.send(
            ctx,
            &page,
            "Page.setLifecycleEventsEnabled",
            json!({"enabled": true}),
            step::LIFECYCLE,
        );
        match self.needs_point() {
            true => self.locate(ctx),
            false => self.input(ctx),
        }
    }

    /// Step 2: the node's point (scrolled into view first).
    fn locate(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let Some(node) = &self.node else {
            return self.input(ctx);
        };
        self.point = None;
        self.level = 0;
        let (s, n) = (node.session.clone(), node.backend_node_id);
        let p = json!({ "backendNodeId": n });
        self.send(
            ctx,
            &s,
            "DOM.scrollIntoViewIfNeeded",
            p.clone(),
            step::SCROLL_NODE,
        );
        self.send(ctx, &s, "DOM.getContentQuads", p, step::QUADS);
        FlowStatus::Running
    }

    /// A command on the target node failed with `error`; `gone`: the node may be gone.
    /// A ref's node is looked up again once; anything else ends the action.
    fn node_failed(&mut self, ctx: &mut FlowCtx<'_>, error: ActError, gone: bool) -> FlowStatus {
        if self.refetch.is_some() {
            return FlowStatus::Running; // a second failure of the same attempt
        }
        let reference = self.node.as_ref().and_then(|n| n.reference.clone());
        let Some(reference) = reference.filter(|_| gone && self.attempt == 0) else {
            return self.fail(ctx, error);
        };
        self.attempt = 1;
        let deadline = self.budget_at.max(ctx.out.now() + 0.5);
        let tag = self.tag(step::REFETCH);
        match Refetch::start(ctx, &reference, tag, deadline) {
            Ok(refetch) => {
                self.refetch = Some((refetch, error));
                FlowStatus::Running
            }
            Err(AxError::StaleRef { .. }) => self.fail(ctx, ActError::StaleRef { r: reference }),
            Err(_) => self.fail(ctx, error),
        }
    }

    /// The ref looked up again: the node found is located (or focused, or scrolled to)
    /// again; the same node reports the first error; none is `stale_ref`.
    fn on_refetched(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> FlowStatus {
        let Some((refetch, error)) = self.refetch.take() else {
            return FlowStatus::Running;
        };
        if !matches!(self.phase, Phase::Locate | Phase::Input) {
            return FlowStatus::Running; // the budget ran out meanwhile
        }
        let found = refetch.on_reply(ctx, cmd, reply);
        let Some(node) = self.node.as_mut() else {
            return self.fail(ctx, error);
        };
        match found {
            Ok(f) if f.backend_node_id != node.backend_node_id => {
                node.backend_node_id = f.backend_node_id;
                match self.phase {
                    Phase::Locate => self.locate(ctx),
                    _ => self.input(ctx),
                }
            }
            Err(AxError::StaleRef { reference, .. }) => {
                self.fail(ctx, ActError::StaleRef { r: reference })
            }
            _ => self.fail(ctx, error),
        }
    }

    /// Whether `step`'s command is about the target node (its failure may mean it is gone).
    fn on_node(&self, step: u16) -> bool {
        self.node.is_some()
            && match step {
                step::SCROLL_NODE | step::QUADS | step::FOCUS => true,
                step::INPUT => matches!(self.action, Action::Scroll(Scroll::To(_))),
                _ => false,
            }
    }

    /// Step 3: the input, pipelined.
    fn input(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        self.phase = Phase::Input;
        if let Some(status) = self.form_or_pointer_input(ctx) {
            return status;
        }
        let page = self.page_session.clone();
        let mut cmds: Vec<(String, &'static str, Value, u16)> = Vec::new();
        match &self.action {
            // Sent by `form_or_pointer_input` above.
            Action::Hover { .. }
            | Action::Select { .. }
            | Action::Fill { .. }
            | Action::Drag { .. } => {}
            Action::Navigate { url } => {
                self.nav_started = true;
                cmds.push((page, "Page.navigate", json!({ "url": url }), step::NAVIGATE));
            }
            Action::Reload => {
                self.nav_started = true;
                cmds.push((page, "Page.reload", json!({}), step::INPUT));
            }
            Action::Back | Action::Forward => {
                cmds.push((page, "Page.getNavigationHistory", json!({}), step::HISTORY));
            }
            // The page session's viewport; OOPIFs follow their `<iframe>` boxes.
            Action::Resize { width, height } => {
                let p = json!({"width": width, "height": height, "deviceScaleFactor": 0, "mobile": false});
                cmds.push((page, "Emulation.setDeviceMetricsOverride", p, step::INPUT));
            }
            Action::Wait(what) => {
                let now = ctx.out.now();
                self.waiting = Some(Waiting::new(what.clone(), now));
                return self.wait_step(ctx, now);
            }
            Action::Click { target } => {
                let at = match (target, self.point) {
                    (Target::Point { x, y }, _) => Point { x: *x, y: *y },
                    (_, Some(p)) => p,
                    (_, None) => Point { x: 0.0, y: 0.0 },
                };
                self.result.mouse = Some(at);
                for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
                    let p = if kind == "mouseMoved" {
                        json!({"type": kind, "x": at.x, "y": at.y})
                    } else {
                        json!({"type": kind, "x": at.x, "y": at.y, "button": "left", "clickCount": 1})
                    };
                    cmds.push((page.clone(), "Input.dispatchMouseEvent", p, step::INPUT));
                }
            }
            Action::Type { text, .. } => match &self.node {
                // Keys go through the browser, the focus through the renderer: the keys
                // wait for the focus's reply, or they reach the element focused before.
                Some(node) if !self.focused => {
                    let p = json!({ "backendNodeId": node.backend_node_id });
                    cmds.push((node.session.clone(), "DOM.focus", p, step::FOCUS));
                }
                _ => {
                    for e in type_events(text) {
                        cmds.push((page.clone(), "Input.dispatchKeyEvent", e, step::INPUT));
                    }
                }
            },
            Action::Press { key, .. } => {
                for e in press_events(key) {
                    cmds.push((page.clone(), "Input.dispatchKeyEvent", e, step::INPUT));
                }
            }
            Action::Scroll(Scroll::To(_)) => {
                if let Some(node) = &self.node {
                    let p = json!({ "backendNodeId": node.backend_node_id });
                    cmds.push((
                        node.session.clone(),
                        "DOM.scrollIntoViewIfNeeded",
                        p,
                        step::INPUT,
                    ));
                }
            }
            Action::Scroll(direction) => {
                // A wheel at the viewport's centre scrolls whatever is under it (an
                // iframe, a scroll box) and lands asynchronously; the top document's own
                // scroll is what "one viewport" means.
                let sign = if *direction == Scroll::Up { "-" } else { "" };
                let p = json!({
                    "expression": format!("window.scrollBy(0, {sign}window.innerHeight)"),
                    "returnByValue": true,
                });
                cmds.push((page, "Runtime.evaluate", p, step::INPUT));
            }
        }
        self.inputs_pending = cmds.len();
        for (session, method, params, step) in cmds {
            self.send(ctx, &session, method, params, step);
        }
        if self.inputs_pending == 0 {
            return self.input_done(ctx);
        }
        FlowStatus::Running
    }

    /// Every input command answered: settling starts. With `wait: load` and no navigation
    /// known, a barrier first: the input's reply can come before the navigation the
    /// renderer requested is reported (manual: Chromium facts, "A link's navigation can be
    /// reported after the click's reply").
    fn input_done(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let now = ctx.out.now();
        self.phase = Phase::Settle;
        self.input_done_at = Some(now);
        if self.options.wait == Wait::Load && !self.nav_started && !self.nav_requested {
            let page = self.page_session.clone();
            let p = json!({"expression": "0", "returnByValue": true});
            self.send(ctx, &page, "Runtime.evaluate", p, step::BARRIER);
            self.barrier_pending = true;
        }
        self.check_settled(ctx, now)
    }

    /// The barrier answered (or failed): what the input started is known.
    fn barrier_done(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        self.barrier_pending = false;
        let now = ctx.out.now();
        self.check_settled(ctx, now)
    }

    /// Settled, out of budget, or still waiting (then the next wake is set).
    fn check_settled(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        if self.phase != Phase::Settle {
            return FlowStatus::Running;
        }
        let quiet = SETTLE_QUIET.as_secs_f64();
        let cap = SETTLE_CAP.as_secs_f64();
        let input_at = self.input_done_at.unwrap_or(now);
        let settled_at = match (self.nav_started, self.loaded_at, self.options.wait) {
            // A navigation requested and not started, or not yet loaded: only its start,
            // its load (or the budget) moves on.
            _ if self.nav_requested => None,
            (true, None, _) => None,
            (_, Some(load), Wait::Load) => Some(load),
            (false, None, Wait::Load) if self.barrier_pending => None,
            (false, None, Wait::Load) => Some(input_at),
            // The quiet window and `networkAlmostIdle` run together from the load.
            (_, Some(load), Wait::Quiet) => {
                let quiet_at = self.last_console.max(load).max(input_at) + quiet;
                let ready = if self.almost_idle {
                    quiet_at
                } else {
                    f64::INFINITY
                };
                Some(ready.min(load + cap))
            }
            (false, None, Wait::Quiet) => {
                let quiet_at = self.last_console.max(input_at) + quiet;
                Some(quiet_at.min(input_at + cap))
            }
        };
        let settled = settled_at.is_some_and(|t| t <= now);
        if !settled && self.budget_at > now {
            self.check_idle(ctx, now);
        }
        match settled_at {
            _ if settled => self.capture(ctx, true),
            _ if self.budget_at <= now => self.capture(ctx, false),
            Some(t) => {
                let next_check = self.idle_check_at.unwrap_or(f64::INFINITY);
                self.wake = Some(t.min(next_check).min(self.budget_at));
                FlowStatus::Running
            }
            None => {
                self.wake = Some(self.budget_at);
                FlowStatus::Running
            }
        }
    }

    /// While `wait: quiet` awaits `networkAlmostIdle` after the load: a no-op evaluate on
    /// the page [`IDLE_CHECK_AFTER`] after the load, then every [`IDLE_CHECK_EVERY`]. Chromium's
    /// idleness detector notices a quiet network only when a task runs on the renderer's
    /// main thread, else at its 2 s watchdog: an idle static page would cost 1-2 s more
    /// (manual: Chromium facts, "networkAlmostIdle is noticed at a task").
    fn check_idle(&mut self, ctx: &mut FlowCtx<'_>, now: f64) {
        let awaiting = self.options.wait == Wait::Quiet && !self.almost_idle;
        let Some(load) = self.loaded_at.filter(|_| awaiting) else {
            self.idle_check_at = None;
            return;
        };
        let due = *self.idle_check_at.get_or_insert(load + IDLE_CHECK_AFTER);
        if due <= now {
            let page = self.page_session.clone();
            let p = json!({"expression": "0", "returnByValue": true});
            self.send(ctx, &page, "Runtime.evaluate", p, step::IDLE_CHECK);
            self.idle_check_at = Some(now + IDLE_CHECK_EVERY);
        }
    }

    /// Step 5: the screenshot and the title.
    fn capture(&mut self, ctx: &mut FlowCtx<'_>, settled: bool) -> FlowStatus {
        self.phase = Phase::Capture;
        self.refetch = None; // out of budget while a ref was looked up again
        self.result.settled = settled;
        let now = ctx.out.now();
        self.capture_at = Some(now);
        let deadline = self.budget_at.max(now + CAPTURE_TIMEOUT.as_secs_f64());
        self.budget_at = deadline;
        self.wake = Some(deadline);
        let page = self.page_session.clone();
        let expr = json!({"expression": "document.title", "returnByValue": true});
        self.send(ctx, &page, "Runtime.evaluate", expr, step::TITLE);
        self.captures_pending = 1;
        if self.options.screenshot {
            let p = json!({"format": "webp"});
            self.send(ctx, &page, "Page.captureScreenshot", p, step::SCREENSHOT);
            self.captures_pending += 1;
        }
        FlowStatus::Running
    }

    /// Ends the flow with its result.
    fn finish(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let mut result = std::mem::take(&mut self.result);
        result.navigated = self.navigated;
        let now = ctx.out.now();
        let input_at = self.input_done_at.unwrap_or(now);
        let capture_at = self.capture_at.unwrap_or(now);
        result.timing = ActTiming {
            input: (input_at - self.started_at).max(0.0),
            settle: (capture_at - input_at).max(0.0),
            capture: (now - capture_at).max(0.0),
        };
        result.url = ctx
            .tab
            .frames
            .get(&self.top_frame)
            .map(|f| f.info.url.clone())
            .unwrap_or_default();
        result.pending_dialogs = ctx.dialogs.pending().cloned().collect();
        ctx.out.emit(Event::ActFinished {
            id: CommandId(self.answer),
            outcome: Ok(Box::new(result)),
        });
        self.wake = None;
        FlowStatus::Done
    }

    /// Ends the flow with an error.
    fn fail(&mut self, ctx: &mut FlowCtx<'_>, error: ActError) -> FlowStatus {
        ctx.out.emit(Event::ActFinished {
            id: CommandId(self.answer),
            outcome: Err(error),
        });
        self.wake = None;
        FlowStatus::Done
    }

    pub fn deadline(&self) -> Option<f64> {
        self.wake
    }

    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        match self.phase {
            Phase::Input if self.waiting.is_some() => self.wait_step(ctx, now),
            Phase::Settle => self.check_settled(ctx, now),
            // The capture's commands fail on their own deadline, which is this one.
            Phase::Capture if self.budget_at <= now => self.finish(ctx),
            Phase::Locate | Phase::Input if self.budget_at <= now => self.capture(ctx, false),
            _ => {
                self.wake = Some(self.budget_at.max(now));
                FlowStatus::Running
            }
        }
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        let (attempt, step) = (step >> step::ATTEMPT_SHIFT, step & 0xff);
        if attempt != self.attempt {
            return Ok(FlowStatus::Running); // about a node replaced since
        }
        if step == step::REFETCH {
            return Ok(self.on_refetched(ctx, cmd, reply));
        }
        let value = |r: Reply<'_>| -> Result<Value, CommandError> {
            match r {
                Ok(Some(raw)) => Ok(serde_json::from_str(raw.get()).unwrap_or(Value::Null)),
                Ok(None) => Ok(json!({})),
                Err(e) => Err(e.into_command_error(&cmd.method)),
            }
        };
        let status = match step {
            step::LIFECYCLE | step::IDLE_CHECK | step::FIELD_RELEASE => FlowStatus::Running,
            step::BARRIER => self.barrier_done(ctx),
            step::WAIT_POLL => {
                let holds = value(reply)
                    .ok()
                    .and_then(|v| v.pointer("/result/value").and_then(Value::as_bool));
                self.on_poll_answer(ctx, holds)
            }
            _ if self.refetch.is_some() => FlowStatus::Running,
            step::SCROLL_NODE | step::QUADS | step::FOCUS | step::INPUT
                if self.on_node(step) && reply.is_err() =>
            {
                match value(reply) {
                    Err(e) => {
                        let gone =
                            matches!(&e, CommandError::Cdp { message, .. } if node_gone(message));
                        self.node_failed(ctx, e.into(), gone)
                    }
                    Ok(_) => FlowStatus::Running,
                }
            }
            step::SCROLL_NODE => match value(reply) {
                Ok(_) => FlowStatus::Running,
                Err(e) => self.fail(ctx, e.into()),
            },
            step::QUADS => match value(reply) {
                Ok(v) => self.on_quads(ctx, &v),
                Err(e) => self.fail(ctx, e.into()),
            },
            step::FRAME_OWNER => match value(reply) {
                Ok(v) => self.on_frame_owner(ctx, &v),
                Err(e) => self.fail(ctx, e.into()),
            },
            step::BOX_MODEL => match value(reply) {
                Ok(v) => self.on_box_model(ctx, &v),
                Err(e) => self.fail(ctx, e.into()),
            },
            step::FOCUS | step::INPUT | step::NAVIGATE | step::HISTORY => match value(reply) {
                Ok(v) => self.on_input_reply(ctx, step, &v),
                Err(e) => self.fail(ctx, e.into()),
            },
            step::FIELD_RESOLVE | step::FIELD_CALL => self.on_field_reply(ctx, step, value(reply)),
            step::SCREENSHOT => self.on_screenshot(ctx, value(reply).ok()),
            step::TITLE => {
                if let Ok(v) = value(reply) {
                    if let Some(t) = v.pointer("/result/value").and_then(Value::as_str) {
                        self.result.title = truncate(t.to_owned());
                    }
                }
                self.capture_done(ctx)
            }
            _ => FlowStatus::Running,
        };
        Ok(status)
    }

    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        _cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        let (attempt, step) = (step >> step::ATTEMPT_SHIFT, step & 0xff);
        if attempt != self.attempt {
            return FlowStatus::Running; // about a node replaced since
        }
        match step {
            step::LIFECYCLE | step::IDLE_CHECK | step::FIELD_RELEASE => FlowStatus::Running,
            step::BARRIER => self.barrier_done(ctx),
            step::WAIT_POLL => self.on_poll_answer(ctx, None),
            step::REFETCH => match self.refetch.take() {
                Some((_, first)) if matches!(self.phase, Phase::Locate | Phase::Input) => {
                    self.fail(ctx, first)
                }
                _ => FlowStatus::Running,
            },
            step::SCREENSHOT => self.on_screenshot(ctx, None),
            step::TITLE => self.capture_done(ctx),
            // Input that got no reply within the budget: the page is busy; report it as
            // it is, unsettled.
            step::INPUT | step::FOCUS | step::NAVIGATE | step::FIELD_RESOLVE | step::FIELD_CALL
                if matches!(error, CommandError::Timeout { .. }) =>
            {
                match self.phase {
                    Phase::Input => self.capture(ctx, false),
                    _ => FlowStatus::Running,
                }
            }
            _ => self.fail(ctx, error.into()),
        }
    }

    /// `wait`: polls its frames when a round is due, ends when a sleep is over, fails when
    /// the budget is spent; else sets the next wake.
    fn wait_step(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        let budget_at = self.budget_at;
        let Some(w) = self.waiting.as_mut() else {
            return FlowStatus::Running;
        };
        if matches!(w.what, WaitFor::Time(_)) {
            if w.next_at <= now {
                return self.wait_met(ctx, now);
            }
            self.wake = Some(w.next_at.min(budget_at));
            return FlowStatus::Running;
        }
        if budget_at <= now {
            let error = ActError::WaitTimedOut {
                what: w.what.describe(),
                waited_ms: w.waited_ms(now),
            };
            return self.fail(ctx, error);
        }
        if w.pending == 0 && w.next_at <= now {
            let targets = w.start_round(ctx.tab, now);
            // A poll that hangs (a busy frame) must not hold the rounds up for long.
            let deadline = budget_at.min(now + POLL_DEADLINE).max(now + 0.05);
            for PollTarget { session, params } in targets {
                let params = to_raw(&params);
                let tag = self.tag(step::WAIT_POLL);
                ctx.out.send_until(
                    Some(&session),
                    "Runtime.evaluate",
                    params.as_deref(),
                    tag,
                    deadline,
                );
            }
        }
        let next = match self.waiting.as_ref() {
            Some(w) if w.pending == 0 => w.next_at,
            _ => budget_at,
        };
        self.wake = Some(next.min(budget_at));
        FlowStatus::Running
    }

    /// One frame's poll answered (`None`: it could not say).
    fn on_poll_answer(&mut self, ctx: &mut FlowCtx<'_>, holds: Option<bool>) -> FlowStatus {
        if self.phase != Phase::Input {
            return FlowStatus::Running;
        }
        let Some(w) = self.waiting.as_mut() else {
            return FlowStatus::Running;
        };
        let now = ctx.out.now();
        if w.on_answer(holds) {
            return self.wait_met(ctx, now);
        }
        self.wait_step(ctx, now)
    }

    /// What `wait` waited for came: the page as it is now is captured.
    fn wait_met(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        self.input_done_at = Some(now);
        self.phase = Phase::Settle;
        self.capture(ctx, true)
    }

    fn on_quads(&mut self, ctx: &mut FlowCtx<'_>, v: &Value) -> FlowStatus {
        let quad = v
            .get("quads")
            .and_then(Value::as_array)
            .and_then(|q| q.first())
            .and_then(Value::as_array);
        let centre = quad.and_then(|q| {
            let n: Vec<f64> = q.iter().filter_map(Value::as_f64).collect();
            (n.len() == 8).then(|| Point {
                x: n.iter().step_by(2).sum::<f64>() / 4.0,
                y: n.iter().skip(1).step_by(2).sum::<f64>() / 4.0,
            })
        });
        let Some(centre) = centre else {
            let (frame_id, backend_node_id) = match &self.node {
                Some(n) => (n.frame_id.clone(), n.backend_node_id),
                None => (String::new(), 0),
            };
            let error = ActError::NoBox {
                frame_id,
                backend_node_id,
            };
            // A node out of its document has no quads either: a ref's is looked up again.
            return self.node_failed(ctx, error, true);
        };
        self.point = Some(centre);
        self.next_level(ctx)
    }

    /// Adds the next OOPIF level's offset, or goes on to the input.
    fn next_level(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let level = self
            .node
            .as_ref()
            .and_then(|n| n.levels.get(self.level))
            .cloned();
        match level {
            Some((parent, frame)) => {
                let p = json!({ "frameId": frame });
                self.send(ctx, &parent, "DOM.getFrameOwner", p, step::FRAME_OWNER);
                FlowStatus::Running
            }
            None => self.input(ctx),
        }
    }

    fn on_frame_owner(&mut self, ctx: &mut FlowCtx<'_>, v: &Value) -> FlowStatus {
        let parent = self
            .node
            .as_ref()
            .and_then(|n| n.levels.get(self.level))
            .map(|(p, _)| p.clone());
        match (parent, v.get("backendNodeId").and_then(Value::as_i64)) {
            (Some(parent), Some(owner)) => {
                let p = json!({ "backendNodeId": owner });
                self.send(ctx, &parent, "DOM.getBoxModel", p, step::BOX_MODEL);
                FlowStatus::Running
            }
            _ => self.fail(
                ctx,
                ActError::BadRequest {
                    what: "target: the frame's <iframe> element was not found in its parent".into(),
                },
            ),
        }
    }

    fn on_box_model(&mut self, ctx: &mut FlowCtx<'_>, v: &Value) -> FlowStatus {
        let content = v.pointer("/model/content").and_then(Value::as_array);
        let origin = content.and_then(|c| Some((c.first()?.as_f64()?, c.get(1)?.as_f64()?)));
        if let (Some((ox, oy)), Some(p)) = (origin, self.point.as_mut()) {
            p.x += ox;
            p.y += oy;
        }
        self.level += 1;
        self.next_level(ctx)
    }

    fn on_input_reply(&mut self, ctx: &mut FlowCtx<'_>, step: u16, v: &Value) -> FlowStatus {
        if self.phase != Phase::Input {
            return FlowStatus::Running;
        }
        match step {
            step::FOCUS => {
                self.focused = true;
                return self.input(ctx);
            }
            step::NAVIGATE => {
                let url = match &self.action {
                    Action::Navigate { url } => url.clone(),
                    _ => String::new(),
                };
                let script = crate::url_policy::scheme_of(&url).as_deref() == Some("javascript");
                if script {
                    // A `javascript:` URL runs in the page and commits nothing: Chromium
                    // answers `net::ERR_ABORTED` while the script runs (see
                    // [chromium_facts](crate::manual::chromium_facts)). Not a failure: the
                    // action settles like any other, and a dialog the script opened ends
                    // the wait at once and is named in the result.
                    self.nav_started = false;
                } else if let Some(error) = v.get("errorText").and_then(Value::as_str) {
                    return self.fail(
                        ctx,
                        ActError::Command(CommandError::Cdp {
                            method: "Page.navigate".into(),
                            code: 0,
                            message: format!("{url}: {error}"),
                        }),
                    );
                }
                // No loader: a same-document navigation, nothing to load.
                if v.get("loaderId").is_none() {
                    self.nav_started = false;
                }
                self.navigated = !script;
            }
            step::HISTORY => {
                let forward = matches!(self.action, Action::Forward);
                let current = v.get("currentIndex").and_then(Value::as_u64);
                let entry = current
                    .and_then(|i| match forward {
                        true => i.checked_add(1),
                        false => i.checked_sub(1),
                    })
                    .and_then(|i| v.get("entries")?.get(usize::try_from(i).ok()?))
                    .and_then(|e| e.get("id"))
                    .and_then(Value::as_i64);
                let Some(entry) = entry else {
                    let error = match forward {
                        true => ActError::NoForwardHistory,
                        false => ActError::NoHistory,
                    };
                    return self.fail(ctx, error);
                };
                self.nav_started = true;
                let page = self.page_session.clone();
                let p = json!({ "entryId": entry });
                self.send(ctx, &page, "Page.navigateToHistoryEntry", p, step::INPUT);
                return FlowStatus::Running; // the history step is replaced by this one
            }
            _ => {}
        }
        self.inputs_pending = self.inputs_pending.saturating_sub(1);
        if self.send_queued(ctx) {
            return FlowStatus::Running; // a drag's next move
        }
        if self.inputs_pending == 0 {
            return self.input_done(ctx);
        }
        FlowStatus::Running
    }

    fn on_screenshot(&mut self, ctx: &mut FlowCtx<'_>, v: Option<Value>) -> FlowStatus {
        let data = v
            .as_ref()
            .and_then(|v| v.get("data"))
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty());
        match data {
            Some(d) => {
                let mime = if self.tried_png {
                    "image/png"
                } else {
                    "image/webp"
                };
                self.result.screenshot = Some(Screenshot {
                    mime: mime.into(),
                    data: d.to_owned(),
                });
            }
            None if !self.tried_png => {
                self.tried_png = true;
                let page = self.page_session.clone();
                let p = json!({"format": "png"});
                self.send(ctx, &page, "Page.captureScreenshot", p, step::SCREENSHOT);
                return FlowStatus::Running;
            }
            None => {}
        }
        self.capture_done(ctx)
    }

    fn capture_done(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        self.captures_pending = self.captures_pending.saturating_sub(1);
        if self.captures_pending == 0 {
            return self.finish(ctx);
        }
        FlowStatus::Running
    }

    pub fn on_event(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        session: Option<&str>,
        event: &CdpEvent<'_>,
    ) -> FlowStatus {
        use CdpEvent as E;
        let Some(session) = session.filter(|s| ctx.tab.sessions.contains(s)) else {
            return FlowStatus::Running;
        };
        let now = ctx.out.now();
        let top = self.top_frame.as_str();
        match event {
            E::ConsoleApiCalled(ev) => {
                let recorded = crate::remote_object::is_recorded_level(&ev.kind);
                let line = if recorded {
                    just_recorded(ctx, session, now).map(|e| (e.text.clone(), e.frame_id.clone()))
                } else {
                    let mut text = String::new();
                    if let Some(raw) = ev.raw_args {
                        let args: Vec<crate::cdp::RemoteObject<'_>> =
                            serde_json::from_str(raw.get()).unwrap_or_default();
                        for a in &args {
                            append_arg(&mut text, a);
                        }
                    }
                    let frame = ctx.tab.console_frame(session, ev.execution_context_id);
                    Some((truncate(text), frame))
                };
                if let Some((text, frame)) = line {
                    self.push_console(now, ev.kind.to_string(), text, frame.map(|f| f.to_string()));
                }
            }
            E::ExceptionThrown(_) => {
                if let Some(e) = just_recorded(ctx, session, now) {
                    let (text, frame) =
                        (e.text.clone(), e.frame_id.as_ref().map(|f| f.to_string()));
                    self.push_console(now, "exception".into(), text, frame);
                }
            }
            // Under an auto policy the dialog is being answered already: the action goes on.
            // A document's sign-in challenge holds its load the same way.
            E::DialogOpening(_) | E::AuthRequired(_)
                if ctx.dialogs.policy() == DialogPolicy::MustRespond && holds_the_page(event) =>
            {
                if let Some(d) = ctx.dialogs.newest_pending() {
                    if self.phase != Phase::Capture || self.captures_pending > 0 {
                        self.result.ended_by_dialog = Some(d.to_owned());
                        self.result.screenshot = None;
                        self.result.settled = false;
                        return self.finish(ctx);
                    }
                }
            }
            // A navigation the URL policy refuses is stopped by the tab before it commits:
            // nothing to wait for; the result says so.
            E::FrameStartedNavigating(ev)
                if ev.frame_id == top && refused(ctx, ev.url.as_deref()).is_some() =>
            {
                self.note_refused(refused(ctx, ev.url.as_deref()));
                if !self.committed {
                    self.nav_started = false;
                }
            }
            E::FrameRequestedNavigation(ev)
                if ev.frame_id == top && refused(ctx, ev.url.as_deref()).is_some() =>
            {
                self.note_refused(refused(ctx, ev.url.as_deref()));
            }
            E::FrameStartedNavigating(ev) if ev.frame_id == top => {
                let same_document = matches!(
                    ev.navigation_type.as_deref(),
                    Some("sameDocument" | "historySameDocument")
                );
                if self.phase != Phase::Capture {
                    self.nav_requested = false;
                    if !same_document {
                        self.restart_navigation(false);
                    }
                }
            }
            E::FrameRequestedNavigation(ev) if ev.frame_id == top => {
                let here = matches!(ev.disposition.as_deref(), None | Some("currentTab"));
                if here && self.phase != Phase::Capture {
                    self.nav_requested = true;
                }
            }
            E::FrameNavigated(ev) if ev.frame.id == top && ev.frame.parent_id.is_none() => {
                self.navigated = true;
                if self.phase != Phase::Capture && self.loaded_at.is_none() {
                    self.nav_started = true;
                    self.committed = true;
                    // A page restored from the back/forward cache sends no `load` and
                    // fetches nothing: its restore is its load, network idle included.
                    if ev.kind.as_deref() == Some("BackForwardCacheRestore") {
                        self.loaded_at = Some(now);
                        self.almost_idle = true;
                    }
                }
            }
            E::NavigatedWithinDocument(ev) if ev.frame_id == top => {
                self.navigated = true;
                self.nav_requested = false;
            }
            E::LifecycleEvent(ev) if ev.frame_id == top && session == self.page_session => {
                // Enabling lifecycle events re-sends the current document's (`commit`,
                // `load`, `networkAlmostIdle`, never `init`): before the new document
                // commits, a `load` is the old one's.
                match ev.name.as_ref() {
                    "init" if self.phase != Phase::Capture => self.restart_navigation(true),
                    "load" if self.nav_started && self.committed && self.loaded_at.is_none() => {
                        self.loaded_at = Some(now)
                    }
                    "networkAlmostIdle" if self.nav_started && self.committed => {
                        self.almost_idle = true
                    }
                    _ => {}
                }
            }
            _ => return FlowStatus::Running,
        }
        self.check_settled(ctx, now)
    }

    /// A navigation the page started was refused: nothing to wait for; the first refusal
    /// goes into the result.
    fn note_refused(&mut self, why: Option<String>) {
        self.nav_requested = false;
        if self.result.navigation_refused.is_none() {
            self.result.navigation_refused = why;
        }
    }

    /// A cross-document navigation of the top frame started (`committed`: its document
    /// is already there, as lifecycle `init` says): whatever loaded before is not it.
    fn restart_navigation(&mut self, committed: bool) {
        self.nav_started = true;
        self.nav_requested = false;
        self.committed = committed;
        self.loaded_at = None;
        self.almost_idle = false;
        self.idle_check_at = None;
    }

    /// A dialog opened in another tab of this tab's renderer (Chromium facts: "Tabs that share a
    /// renderer"): it stalls this
    /// tab's page as its own would, so it ends the action the same way.
    pub fn on_shared_dialog(&mut self, ctx: &mut FlowCtx<'_>, dialog_id: &str) -> FlowStatus {
        if ctx.dialogs.policy() != DialogPolicy::MustRespond
            || (self.phase == Phase::Capture && self.captures_pending == 0)
        {
            return FlowStatus::Running;
        }
        self.result.ended_by_dialog = Some(dialog_id.to_owned());
        self.result.screenshot = None;
        self.result.settled = false;
        self.finish(ctx)
    }

    fn push_console(&mut self, now: f64, level: String, text: String, frame_id: Option<String>) {
        self.last_console = now;
        if self.result.console.len() >= MAX_ACT_CONSOLE_LINES {
            self.result.console_dropped += 1;
            return;
        }
        self.result.console.push(ActConsoleLine {
            level,
            text,
            frame_id,
            at: now,
        });
    }
}

/// Whether `event` opens a dialog that keeps the page from going on until it is answered:
/// a JavaScript dialog, or the sign-in challenge of a document (a subresource's holds only
/// itself).
fn holds_the_page(event: &CdpEvent<'_>) -> bool {
    match event {
        CdpEvent::AuthRequired(ev) => ev.resource_type.as_deref() == Some("Document"),
        _ => true,
    }
}

/// The console ring's entry that `session`'s event at `now` just added (its text was moved
/// there), if it added one.
fn just_recorded<'a>(
    ctx: &'a FlowCtx<'_>,
    session: &str,
    now: f64,
) -> Option<&'a crate::snapshot::ConsoleEntry> {
    ctx.tab
        .console_errors
        .back()
        .map(|e| &**e)
        .filter(|e| e.at == now && e.session_id.as_deref() == Some(session))
}

/// Why the URL policy refuses a navigation to `url` the page started, if it does.
fn refused(ctx: &FlowCtx<'_>, url: Option<&str>) -> Option<String> {
    ctx.config
        .url_policy
        .check(url?)
        .err()
        .map(|refused| refused.to_string())
}
