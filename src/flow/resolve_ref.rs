//! Resolving a ref against a fresh tree of its frame: the node by its `backend_node_id` if
//! it is still shown, else the node with the same `(role, name, nth)` (a re-render
//! replaced it), else `stale_ref`.
//!
//! 1. [`resolve`] checks the ref against the tab (its frame still shows the same document).
//! 2. `Accessibility.getFullAXTree` of that frame on its session, with the call's deadline.
//! 3. [`resolve_in_tree`] on the reply; a node found under another id is rebound in the
//!    tab's ref table, so the ref names it from now on.

use super::ax_snapshot::{error_code, resolve, tree_params};
use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::ax::{resolve_in_tree, AxError, AxNode, AxRef, ResolvedRef};
use crate::cdp::CdpEvent;
use crate::command::{CommandId, InFlight, Purpose};
use crate::error::{CommandError, InputError};
use crate::event::Event;

/// The flow's state.
#[derive(Debug)]
pub(crate) struct ResolveRefFlow {
    id: u64,
    deadline: f64,
    reference: String,
    target: AxRef,
    resolved: ResolvedRef,
}

impl ResolveRefFlow {
    /// Checks the ref and asks for its frame's tree.
    pub fn start(
        ctx: &mut FlowCtx<'_>,
        flow: FlowId,
        reference: &str,
        timeout: std::time::Duration,
    ) -> Result<ResolveRefFlow, AxError> {
        let resolved = resolve(ctx.tab, reference)?;
        let target = ctx
            .tab
            .ax_refs
            .lookup(reference)
            .map(|e| e.target.clone())
            .ok_or_else(|| AxError::StaleRef {
                reference: reference.to_owned(),
                why: "the last snapshot does not list it".into(),
            })?;
        let deadline = ctx.out.now() + timeout.as_secs_f64();
        let params = tree_params(ctx.tab, &resolved.frame_id);
        ctx.out.send_until(
            Some(&resolved.session_id),
            "Accessibility.getFullAXTree",
            params.as_deref(),
            Purpose::Flow(FlowTag { flow, step: 0 }),
            deadline,
        );
        Ok(ResolveRefFlow {
            id: ctx.out.reserve_id(),
            deadline,
            reference: reference.to_owned(),
            target,
            resolved,
        })
    }

    /// The outcome's id, for the embedder.
    pub fn command_id(&self) -> CommandId {
        CommandId(self.id)
    }

    pub fn deadline(&self) -> Option<f64> {
        Some(self.deadline)
    }

    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, _now: f64) -> FlowStatus {
        let error = self.unavailable("no answer within the call's deadline".into(), "timeout");
        self.finish(ctx, Err(error))
    }

    pub fn on_event(
        &mut self,
        _ctx: &mut FlowCtx<'_>,
        _session: Option<&str>,
        _event: &CdpEvent<'_>,
    ) -> FlowStatus {
        FlowStatus::Running
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        let outcome = match reply {
            Err(e) => {
                Err(self.unavailable(e.into_command_error(&cmd.method).to_string(), "cdp_error"))
            }
            Ok(result) => match AxNode::parse_tree(result.map_or("{}", |r| r.get())) {
                Err(e) => {
                    Err(self.unavailable(format!("its tree did not parse: {e}"), "cdp_error"))
                }
                Ok(nodes) => match resolve_in_tree(&self.target, &nodes) {
                    Some(backend) => {
                        if Some(backend) != self.target.backend_node_id {
                            ctx.tab.ax_refs.rebind(&self.reference, backend);
                        }
                        let mut found = self.resolved.clone();
                        found.backend_node_id = backend;
                        Ok(found)
                    }
                    None => Err(AxError::StaleRef {
                        reference: self.reference.clone(),
                        why: format!(
                            "frame {} no longer shows its node, nor a {} {:?} number {}",
                            self.target.frame_id,
                            self.target.role,
                            self.target.name,
                            self.target.nth
                        ),
                    }),
                },
            },
        };
        Ok(self.finish(ctx, outcome))
    }

    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _step: u16,
        _cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        let error = self.unavailable(error.to_string(), error_code(&error));
        self.finish(ctx, Err(error))
    }

    fn unavailable(&self, reason: String, code: &'static str) -> AxError {
        AxError::RootUnavailable {
            frame_id: self.resolved.frame_id.clone(),
            reason,
            code,
        }
    }

    fn finish(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        outcome: Result<ResolvedRef, AxError>,
    ) -> FlowStatus {
        ctx.out.emit(Event::RefResolved {
            id: CommandId(self.id),
            outcome,
        });
        FlowStatus::Done
    }
}
