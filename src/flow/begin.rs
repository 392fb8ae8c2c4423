//! The embedder's agent calls, from checks to a running flow: each refuses at once what
//! cannot start (a bound reached, a dialog in the way, a stale ref, ...), then starts its
//! flow, whose outcome arrives later as one event under the returned id.

use std::time::Duration;

use super::act::ActFlow;
use super::ax_snapshot::{self, AxSnapshotFlow};
use super::evaluate::EvaluateFlow;
use super::resolve_ref::ResolveRefFlow;
use super::{AnyFlow, FlowStatus};
use crate::act::{ActError, ActOptions, Action};
use crate::ax::{AxError, AxOptions};
use crate::cascade::Cascade;
use crate::command::CommandId;
use crate::error::CommandError;
use crate::evaluate::{Element, EvalError, Evaluation};
use crate::limits::{MAX_AX_SNAPSHOTS_RUNNING, MAX_REF_RESOLUTIONS_RUNNING};

impl Cascade<'_> {
    /// [`crate::Supervisor::evaluate`].
    pub fn begin_evaluate(&mut self, request: &Evaluation) -> Result<CommandId, EvalError> {
        let resolved = match &request.element {
            Some(Element::Ref(r)) => Some(ax_snapshot::resolve(self.tab, r)?),
            _ => None,
        };
        let plan = super::evaluate::plan(self.tab, resolved, request)?;
        let limit = self.config.max_commands_in_flight;
        if self.flows.evaluations() >= limit {
            return Err(CommandError::TooManyInFlight { limit }.into());
        }
        // A script cannot run while a dialog shows.
        if let Some(dialog) = self.dialogs.newest_unanswered() {
            let dialog = Box::new(dialog.clone());
            return Err(EvalError::Blocked { dialog });
        }
        let at_start = self.dialogs.newest_pending().map(str::to_owned);
        let id = CommandId(self.out.reserve_id());
        let flow_id = self.flows.next_id();
        let flow = EvaluateFlow::new(flow_id, id, plan, request, self.out.now(), at_start);
        self.flows.start(flow_id, AnyFlow::Evaluate(flow));
        self.with_flow(flow_id, |flow, ctx| match flow {
            AnyFlow::Evaluate(e) => e.start(ctx),
            _ => FlowStatus::Running,
        });
        Ok(id)
    }

    /// Ends every evaluate still running: terminates its script, answers `cancelled`.
    pub fn cancel_evaluations(&mut self, why: &str) {
        for id in self.flows.ids() {
            self.with_flow(id, |flow, ctx| match flow {
                AnyFlow::Evaluate(e) => e.cancel(ctx, why),
                _ => FlowStatus::Running,
            });
        }
    }

    /// [`crate::Supervisor::act`].
    pub fn begin_act(
        &mut self,
        action: Action,
        options: ActOptions,
    ) -> Result<CommandId, ActError> {
        // A ref resolves through the last accessibility snapshot's ref table: its frame and
        // node while that frame shows the same document, else it is stale. A node gone by
        // the time the flow acts on it is looked up again there (see `flow::act`).
        crate::act::check_budget(&action, &options)?;
        let tab = &*self.tab;
        let plan = crate::act::plan::plan(tab, self.dialogs, &action, |r| {
            ax_snapshot::resolve(tab, r)
                .ok()
                .map(|resolved| (resolved.frame_id, resolved.backend_node_id))
        })?;
        let answer = self.out.reserve_id();
        let id = self.flows.next_id();
        let flow = ActFlow::new(
            id,
            answer,
            action,
            options,
            plan.page_session,
            plan.top_frame,
            plan.node,
            self.out.now(),
        )
        .with_extra(plan.extra);
        self.flows.start(id, AnyFlow::Act(Box::new(flow)));
        self.with_flow(id, |flow, ctx| match flow {
            AnyFlow::Act(f) => f.start(ctx),
            _ => FlowStatus::Running,
        });
        Ok(CommandId(answer))
    }

    /// [`crate::Supervisor::ax_snapshot`].
    pub fn begin_ax_snapshot(&mut self, options: &AxOptions) -> Result<CommandId, AxError> {
        let limit = MAX_AX_SNAPSHOTS_RUNNING;
        if self.flows.ax_snapshots() >= limit {
            return Err(AxError::TooManyRunning { limit });
        }
        let id = self.flows.next_id();
        let (_, mut ctx) = self.flow_ctx();
        let flow = AxSnapshotFlow::start(&mut ctx, id, options)?;
        let outcome_id = flow.command_id();
        self.flows.start(id, AnyFlow::AxSnapshot(flow));
        Ok(outcome_id)
    }

    /// [`crate::Supervisor::resolve_ref_fresh`].
    pub fn begin_resolve_ref(
        &mut self,
        reference: &str,
        timeout: Duration,
    ) -> Result<CommandId, AxError> {
        let limit = MAX_REF_RESOLUTIONS_RUNNING;
        if self.flows.ref_resolutions() >= limit {
            return Err(AxError::TooManyRunning { limit });
        }
        let id = self.flows.next_id();
        let (_, mut ctx) = self.flow_ctx();
        let flow = ResolveRefFlow::start(&mut ctx, id, reference, timeout)?;
        let outcome_id = flow.command_id();
        self.flows.start(id, AnyFlow::ResolveRef(flow));
        Ok(outcome_id)
    }
}
