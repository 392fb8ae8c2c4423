//! Flows: multi-step jobs as small state machines.
//!
//! A flow (attaching to the tab; next: an evaluate, an accessibility snapshot, an action)
//! sends commands through the [`Outbox`], consumes their replies and the events it cares
//! about, and has its own deadline. It never holds `&mut Supervisor`: each call receives a
//! [`FlowCtx`] that borrows exactly the components a flow may use.
//!
//! # Writing a flow (an evaluate, say)
//!
//! 1. A module `flow/evaluate.rs` with `struct EvaluateFlow` (its state: the embedder's
//!    [`CommandId`](crate::CommandId) to answer, the session, its deadline, what it waits
//!    for) and the methods [`AnyFlow`] dispatches to: `on_reply`, `on_failed`,
//!    `deadline`, `on_timeout`, and `on_event` if it wants events (copy their signatures from
//!    [`attach::AttachFlow`]). Add the variant `AnyFlow::Evaluate(EvaluateFlow)` and one
//!    arm per method in [`AnyFlow`]'s `impl`.
//! 2. Start it from a public method in `supervisor.rs` (the only `impl Supervisor`), which
//!    advances the clock and calls a `begin_*` of `flow/begin.rs`: the checks that refuse
//!    at once, then `let id = self.flows.next_id(); self.flows.start(id,
//!    AnyFlow::Evaluate(flow)); self.with_flow(id, |f, ctx| ...)` to send its first commands.
//! 3. Send commands with `ctx.out.send(Some(session), method, params,
//!    Purpose::Flow(FlowTag { flow: id, step }), timeout)`; `step` is the flow's own number
//!    for what the command is for (a `mod step { pub const ...: u16 }`, as the attach flow
//!    has). The supervisor hands the reply back to `on_reply` with that step (the result
//!    as raw JSON to parse with [`crate::wire::parse`], or CDP's error), and a command that
//!    ends without a reply (its deadline, its session gone or crashed, a disconnect) to
//!    `on_failed` with the [`CommandError`] why. Nothing else of the supervisor sees them.
//! 4. Events: the handled events a flow `wants` (its arm in [`AnyFlow::wants`]; no other
//!    event reaches it, so a console call costs a flow that ignores it nothing) are
//!    offered to `on_event` after the supervisor's own rules ran, so a dialog that opened
//!    is already in `ctx.dialogs` (for "blocked by d-N") and a console call's text is
//!    already in `ctx.tab`'s console ring (it is moved out of the event). Return
//!    [`FlowStatus::Running`] to keep listening.
//! 5. Deadline: `deadline()` is part of `poll_timeout`; when it is due, `on_timeout(ctx,
//!    now)` runs. It must move or clear the deadline (a deadline left due is a busy loop,
//!    which the property tests catch).
//! 6. Tell the embedder through `ctx.out.emit(Event::...)` (add a variant; [`Event`] is
//!    `#[non_exhaustive]`) and return [`FlowStatus::Done`]: the flow is removed, and later
//!    replies to its commands are dropped quietly.
//!
//! [`Event`]: crate::Event

pub(crate) mod act;
pub(crate) mod attach;
pub(crate) mod ax_snapshot;
mod begin;
pub(crate) mod evaluate;
pub(crate) mod resolve_ref;
mod wait_for;

use serde_json::value::RawValue;

use crate::cdp::CdpEvent;
use crate::command::InFlight;
use crate::config::Config;
use crate::dialogs::Dialogs;
use crate::error::CommandError;
use crate::outbox::Outbox;
use crate::tab::Tab;
use crate::wire::CdpError;

pub(crate) use crate::command::{FlowId, FlowTag};

/// What a flow may use. Borrowed per call, so a flow cannot keep any of it.
pub(crate) struct FlowCtx<'a> {
    pub out: &'a mut Outbox,
    pub tab: &'a mut Tab,
    /// Read-only: a flow may ask whether a dialog is in its way.
    pub dialogs: &'a Dialogs,
    pub config: &'a Config,
    /// The bridge script, when the bridge is on.
    pub bridge_script: Option<&'a str>,
}

/// Whether a flow goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlowStatus {
    Running,
    Done,
}

/// A reply's outcome as flows read it: the `result` (absent: `{}`), or CDP's error.
pub(crate) type Reply<'a> = Result<Option<&'a RawValue>, CdpError>;

/// Every kind of flow. A match, not a trait object: dispatch stays static and a new flow
/// is one variant plus its module.
#[derive(Debug)]
pub(crate) enum AnyFlow {
    Attach(attach::AttachFlow),
    Evaluate(evaluate::EvaluateFlow),
    AxSnapshot(ax_snapshot::AxSnapshotFlow),
    ResolveRef(resolve_ref::ResolveRefFlow),
    Act(Box<act::ActFlow>),
}

impl AnyFlow {
    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, crate::error::InputError> {
        match self {
            AnyFlow::Attach(f) => f.on_reply(ctx, step, cmd, reply),
            AnyFlow::Evaluate(f) => f.on_reply(ctx, step, cmd, reply),
            AnyFlow::AxSnapshot(f) => f.on_reply(ctx, step, cmd, reply),
            AnyFlow::ResolveRef(f) => f.on_reply(ctx, step, cmd, reply),
            AnyFlow::Act(f) => f.on_reply(ctx, step, cmd, reply),
        }
    }

    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        match self {
            AnyFlow::Attach(f) => f.on_failed(ctx, step, cmd, error),
            AnyFlow::Evaluate(f) => f.on_failed(ctx, step, cmd, error),
            AnyFlow::AxSnapshot(f) => f.on_failed(ctx, step, cmd, error),
            AnyFlow::ResolveRef(f) => f.on_failed(ctx, step, cmd, error),
            AnyFlow::Act(f) => f.on_failed(ctx, step, cmd, error),
        }
    }

    pub fn on_event(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        session: Option<&str>,
        event: &CdpEvent<'_>,
    ) -> FlowStatus {
        match self {
            AnyFlow::Attach(f) => f.on_event(ctx, session, event),
            AnyFlow::Evaluate(f) => f.on_event(ctx, session, event),
            AnyFlow::AxSnapshot(f) => f.on_event(ctx, event),
            // It wants no event (`wants`): nothing to offer.
            AnyFlow::ResolveRef(_) => FlowStatus::Running,
            AnyFlow::Act(f) => f.on_event(ctx, session, event),
        }
    }

    /// A dialog of another tab of this tab's renderer opened: actions and evaluates end
    /// as blocked (see `Supervisor`, tabs that share a renderer).
    pub fn on_shared_dialog(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        dialog: &crate::snapshot::PendingDialog,
    ) -> FlowStatus {
        match self {
            AnyFlow::Act(f) => f.on_shared_dialog(ctx, &dialog.id),
            AnyFlow::Evaluate(f) => f.on_shared_dialog(ctx, dialog),
            AnyFlow::Attach(_) | AnyFlow::AxSnapshot(_) | AnyFlow::ResolveRef(_) => {
                FlowStatus::Running
            }
        }
    }

    /// Whether `on_event` may do anything with `event`: the others are not offered (a
    /// console call, the bulk of a busy page, costs no flow anything unless an action
    /// runs). Must be true for every event a flow's `on_event` reads.
    pub fn wants(&self, session: Option<&str>, event: &CdpEvent<'_>) -> bool {
        match self {
            // The page's own attach, at browser level.
            AnyFlow::Attach(_) => {
                session.is_none() && matches!(event, CdpEvent::AttachedToTarget(_))
            }
            // A dialog that opens (a bridge dialog is a paused request) blocks them.
            AnyFlow::Evaluate(_) | AnyFlow::AxSnapshot(_) => {
                matches!(
                    event,
                    CdpEvent::DialogOpening(_) | CdpEvent::RequestPaused(_)
                )
            }
            AnyFlow::ResolveRef(_) => false,
            // Console lines, dialogs, navigations and lifecycle of the tab.
            AnyFlow::Act(_) => true,
        }
    }

    pub fn deadline(&self) -> Option<f64> {
        match self {
            AnyFlow::Attach(f) => f.deadline(),
            AnyFlow::Evaluate(f) => f.deadline(),
            AnyFlow::AxSnapshot(f) => f.deadline(),
            AnyFlow::ResolveRef(f) => f.deadline(),
            AnyFlow::Act(f) => f.deadline(),
        }
    }

    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        match self {
            AnyFlow::Attach(f) => f.on_timeout(ctx, now),
            AnyFlow::Evaluate(f) => f.on_timeout(ctx, now),
            AnyFlow::AxSnapshot(f) => f.on_timeout(ctx, now),
            AnyFlow::ResolveRef(f) => f.on_timeout(ctx, now),
            AnyFlow::Act(f) => f.on_timeout(ctx, now),
        }
    }
}

/// The flows running, by id.
#[derive(Debug, Default)]
pub(crate) struct Flows {
    /// In start order. A `Vec`: a handful run at once, and every event is offered to each,
    /// so iterating must cost next to nothing. Per-call flows are bounded by the commands
    /// they wait for (each has a deadline).
    running: Vec<(FlowId, AnyFlow)>,
    last_id: u64,
}

impl Flows {
    /// A fresh id for a per-call flow (ids below [`FIRST_DYNAMIC`] are the singletons').
    pub fn next_id(&mut self) -> FlowId {
        self.last_id = self.last_id.max(FIRST_DYNAMIC) + 1;
        FlowId(self.last_id)
    }

    pub fn start(&mut self, id: FlowId, flow: AnyFlow) {
        self.running.retain(|(i, _)| *i != id);
        self.running.push((id, flow));
    }

    pub fn get_mut(&mut self, id: FlowId) -> Option<&mut AnyFlow> {
        self.running
            .iter_mut()
            .find(|(i, _)| *i == id)
            .map(|(_, f)| f)
    }

    /// Removes a flow that said it is done.
    pub fn settle(&mut self, id: FlowId, status: FlowStatus) {
        if status == FlowStatus::Done {
            self.running.retain(|(i, _)| *i != id);
        }
    }

    /// Offers an event to every flow (after the supervisor's own rules ran).
    pub fn offer_event(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        session: Option<&str>,
        event: &CdpEvent<'_>,
    ) {
        if !self.running.iter().any(|(_, f)| f.wants(session, event)) {
            return;
        }
        self.running.retain_mut(|(_, flow)| {
            !flow.wants(session, event) || flow.on_event(ctx, session, event) == FlowStatus::Running
        });
    }

    /// Offers a dialog of another tab of this renderer to every flow.
    pub fn offer_shared_dialog(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        dialog: &crate::snapshot::PendingDialog,
    ) {
        self.running
            .retain_mut(|(_, flow)| flow.on_shared_dialog(ctx, dialog) == FlowStatus::Running);
    }

    /// How many evaluates are running.
    pub fn evaluations(&self) -> usize {
        self.running
            .iter()
            .filter(|(_, f)| matches!(f, AnyFlow::Evaluate(_)))
            .count()
    }

    /// How many accessibility snapshots are running.
    pub fn ax_snapshots(&self) -> usize {
        self.running
            .iter()
            .filter(|(_, f)| matches!(f, AnyFlow::AxSnapshot(_)))
            .count()
    }

    /// How many fresh ref resolutions are running.
    pub fn ref_resolutions(&self) -> usize {
        self.running
            .iter()
            .filter(|(_, f)| matches!(f, AnyFlow::ResolveRef(_)))
            .count()
    }

    pub fn ids(&self) -> Vec<FlowId> {
        self.running.iter().map(|(id, _)| *id).collect()
    }

    pub fn next_deadline(&self) -> Option<f64> {
        self.running
            .iter()
            .filter_map(|(_, f)| f.deadline())
            .reduce(f64::min)
    }
}

/// Ids of singleton flows are below this.
const FIRST_DYNAMIC: u64 = 16;

/// What a flow call returns: a status, maybe with a result.
pub(crate) trait FlowResult {
    fn status(&self) -> FlowStatus;
}

impl FlowResult for FlowStatus {
    fn status(&self) -> FlowStatus {
        *self
    }
}

impl FlowResult for Result<FlowStatus, crate::error::InputError> {
    fn status(&self) -> FlowStatus {
        *self.as_ref().unwrap_or(&FlowStatus::Running)
    }
}
