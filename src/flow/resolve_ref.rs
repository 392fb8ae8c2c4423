//! Resolving a ref against a fresh tree of its frame: the node by its `backend_node_id` if
//! it is still shown, else the node with the same `(role, name, nth)` (a re-render
//! replaced it), else `stale_ref`.
//!
//! 1. [`resolve`] checks the ref against the tab (its frame still shows the same document).
//! 2. `Accessibility.getFullAXTree` of that frame on its session, with the call's deadline.
//! 3. [`resolve_in_tree`] on the reply; a node found under another id is rebound in the
//!    tab's ref table, so the ref names it from now on.
//!
//! [`Refetch`] is steps 1 to 3 as a sub-step: this flow is one, and the evaluate and act
//! flows take one when a command on a ref's node finds the node gone ([`node_gone`]), then
//! retry once on the node found.

use super::ax_snapshot::{error_code, resolve, tree_params};
use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::ax::{resolve_in_tree, AxError, AxNode, AxRef, ResolvedRef};
use crate::command::{CommandId, InFlight, Purpose};
use crate::error::{CommandError, InputError};
use crate::event::Event;

/// What Chromium answers (measured on Chromium 156) for a `backendNodeId` whose node is
/// gone: collected (`DOM.resolveNode`: "No node with given id found"; the others: "No node
/// found for given backend id"), or removed from its document but still in memory
/// (`DOM.scrollIntoViewIfNeeded`: "Node is detached from document"; `DOM.focus`: "Element
/// is not focusable", which a node still shown may answer too: the fresh tree tells).
const NODE_GONE: [&str; 4] = [
    "No node with given id found",
    "No node found for given backend id",
    "Node is detached from document",
    "Element is not focusable",
];

/// Whether a command on a node failed because the node may be gone (then a ref's node is
/// looked up again with a [`Refetch`]).
pub(crate) fn node_gone(message: &str) -> bool {
    NODE_GONE.iter().any(|m| message.contains(m))
}

/// A ref's node looked up again in a fresh tree of its frame (steps 1 to 3 above), under
/// the caller's purpose and deadline.
#[derive(Debug)]
pub(crate) struct Refetch {
    reference: String,
    target: AxRef,
    resolved: ResolvedRef,
}

impl Refetch {
    /// Checks the ref against the tab and asks for its frame's tree.
    pub fn start(
        ctx: &mut FlowCtx<'_>,
        reference: &str,
        purpose: Purpose,
        deadline: f64,
    ) -> Result<Refetch, AxError> {
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
        let params = tree_params(ctx.tab, &resolved.frame_id);
        ctx.out.send_until(
            Some(&resolved.session_id),
            "Accessibility.getFullAXTree",
            params.as_deref(),
            purpose,
            deadline,
        );
        Ok(Refetch {
            reference: reference.to_owned(),
            target,
            resolved,
        })
    }

    /// The node the tree's reply shows for the ref (rebound in the ref table when it is
    /// another node now), `stale_ref` when there is none, or why the tree could not be had.
    pub fn on_reply(
        &self,
        ctx: &mut FlowCtx<'_>,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<ResolvedRef, AxError> {
        let nodes = match reply {
            Err(e) => {
                let why = e.into_command_error(&cmd.method).to_string();
                return Err(self.failed(why, "cdp_error"));
            }
            Ok(result) => AxNode::parse_tree(result.map_or("{}", |r| r.get()))
                .map_err(|e| self.failed(format!("its tree did not parse: {e}"), "cdp_error"))?,
        };
        let Some(backend) = resolve_in_tree(&self.target, &nodes) else {
            return Err(AxError::StaleRef {
                reference: self.reference.clone(),
                why: format!(
                    "frame {} no longer shows its node, nor a {} {:?} number {}",
                    self.target.frame_id, self.target.role, self.target.name, self.target.nth
                ),
            });
        };
        if Some(backend) != self.target.backend_node_id {
            ctx.tab.ax_refs.rebind(&self.reference, backend);
        }
        let mut found = self.resolved.clone();
        found.backend_node_id = backend;
        Ok(found)
    }

    /// The tree could not be had: its frame's root is unavailable.
    pub fn failed(&self, reason: String, code: &'static str) -> AxError {
        AxError::RootUnavailable {
            frame_id: self.resolved.frame_id.clone(),
            reason,
            code,
        }
    }
}

/// The flow's state.
#[derive(Debug)]
pub(crate) struct ResolveRefFlow {
    id: u64,
    deadline: f64,
    refetch: Refetch,
}

impl ResolveRefFlow {
    /// Checks the ref and asks for its frame's tree.
    pub fn start(
        ctx: &mut FlowCtx<'_>,
        flow: FlowId,
        reference: &str,
        timeout: std::time::Duration,
    ) -> Result<ResolveRefFlow, AxError> {
        let deadline = ctx.out.now() + timeout.as_secs_f64();
        let purpose = Purpose::Flow(FlowTag { flow, step: 0 });
        let refetch = Refetch::start(ctx, reference, purpose, deadline)?;
        Ok(ResolveRefFlow {
            id: ctx.out.reserve_id(),
            deadline,
            refetch,
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
        let why = "no answer within the call's deadline".into();
        let error = self.refetch.failed(why, "timeout");
        self.finish(ctx, Err(error))
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        let outcome = self.refetch.on_reply(ctx, cmd, reply);
        Ok(self.finish(ctx, outcome))
    }

    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _step: u16,
        _cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        let error = self.refetch.failed(error.to_string(), error_code(&error));
        self.finish(ctx, Err(error))
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
