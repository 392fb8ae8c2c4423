//! The accessibility snapshot flow: one outline of the whole tab, OOPIFs included (see
//! [`crate::ax`] and the manual's accessibility rules).
//!
//! 1. Plan: the frames from the root (the top, or the `frame_id` / ref asked for) down,
//!    parents first, up to the frame budget and the OOPIF depth budget; every frame over
//!    a budget is left out with its reason.
//! 2. Pipelined, all at once: `Accessibility.getFullAXTree` for each frame on the session
//!    that owns it (`{}` for the top frame and an OOPIF on its own session, `{frameId}` for
//!    an in-process frame on its owner's session), and `DOM.getFrameOwner {frameId}` for
//!    each non-root frame on its parent's session (the `<iframe>` to graft it under).
//! 3. When every reply is in, or at the snapshot's deadline: [`build_outline`] with the
//!    tab's [`RefTable`](crate::ax::RefTable); frames that failed, timed out or were never
//!    reached go to `frames_left_out` with the reason, never dropped silently.
//!
//! A dialog holds its renderer (see [`crate::renderer`]): nothing is asked of a session it
//! blocks, whose frames are left out at once with the dialog's id in the reason; a dialog
//! that opens while the snapshot runs ends the commands of the sessions it blocks the same
//! way, at once. Their late replies are dropped. When the frame the snapshot starts from
//! is blocked there is no outline: an immediate `blocked` error that names the dialog.
//!
//! A frame's "document" for ref stability is its document number in [`crate::frame`]:
//! new on the frame's insertion and on each cross-document navigation, never reused.

use serde_json::json;

use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::ax::{
    build_outline, resolve_ref, AxError, AxNode, AxOptions, AxSnapshot, FrameAx, FrameLeftOut,
    FrameNow, OutlineLimits, MAX_AX_FRAMES, MAX_AX_REFS,
};
use crate::cdp::CdpEvent;
use crate::command::{CommandId, InFlight, Purpose};
use crate::error::{CommandError, InputError};
use crate::event::Event;
use crate::renderer::blocked_sessions;
use crate::snapshot::PendingDialog;
use crate::tab::Tab;
use crate::wire::to_raw;

/// What each of the flow's commands is for: `frame index * 2 + kind`.
mod step {
    pub const TREE: u16 = 0;
    pub const OWNER: u16 = 1;
}

/// Why a frame's part could not be had, and the error code it maps to.
#[derive(Debug, Clone)]
struct Failure {
    reason: String,
    code: &'static str,
    /// The dialog that blocks its renderer, for `blocked`.
    dialog: Option<Box<PendingDialog>>,
}

impl Failure {
    /// The renderer shows `dialog`: nothing it runs answers until the dialog is answered.
    fn blocked(dialog: &PendingDialog) -> Failure {
        Failure {
            reason: blocked_reason(dialog),
            code: "blocked",
            dialog: Some(Box::new(dialog.clone())),
        }
    }
}

/// A frame left out because `dialog` holds its renderer, in words that say what to do.
fn blocked_reason(dialog: &PendingDialog) -> String {
    format!(
        "blocked by {} dialog {} ({:?}) of frame {}, which holds its renderer; answer the dialog, then take a new snapshot",
        dialog.kind, dialog.id, dialog.message, dialog.frame_id
    )
}

/// One frame of the plan.
#[derive(Debug)]
struct Planned {
    frame_id: String,
    url: String,
    /// Its document when the snapshot started.
    document: String,
    /// The plan index of its parent (`None`: the root).
    parent: Option<usize>,
    tree: Option<Result<Vec<AxNode>, Failure>>,
    owner: Option<Result<i64, Failure>>,
    /// The session its tree was asked on (`None`: not asked).
    tree_session: Option<String>,
    /// The session its `<iframe>` was asked on, its parent's (`None`: not asked).
    owner_session: Option<String>,
}

impl Planned {
    /// Whether the part `step` asks for has its outcome already.
    fn answered(&self, step: u16) -> bool {
        if step % 2 == step::TREE {
            self.tree.is_some()
        } else {
            self.owner.is_some()
        }
    }
}

/// The snapshot flow's state.
#[derive(Debug)]
pub(crate) struct AxSnapshotFlow {
    /// The id the embedder gets the outcome under.
    id: u64,
    deadline: f64,
    timeout_ms: u128,
    limits: OutlineLimits,
    /// Scoped to one ref's subtree: the ref and its node in the root frame.
    start: Option<(String, i64)>,
    /// Scoped to a frame or a ref: the refs outside the scope are kept.
    scoped: bool,
    frames: Vec<Planned>,
    left_out: Vec<FrameLeftOut>,
    waiting: usize,
}

/// The session that owns `frame_id`'s document: an OOPIF's own, else its owner's.
pub(crate) fn frame_session(tab: &Tab, frame_id: &str) -> Option<String> {
    let f = tab.frames.get(frame_id)?;
    Some(
        f.info
            .session_id
            .clone()
            .unwrap_or_else(|| f.owner_session.clone()),
    )
}

/// Resolves a ref of the last snapshot against the tab as it is now.
pub(crate) fn resolve(tab: &Tab, reference: &str) -> Result<crate::ax::ResolvedRef, AxError> {
    let now: Vec<(String, String, String)> = tab
        .ax_refs
        .lookup(reference)
        .and_then(|e| {
            let f = tab.frames.get(&e.target.frame_id)?;
            let session = frame_session(tab, &e.target.frame_id)?;
            Some(vec![(
                e.target.frame_id.clone(),
                f.document.to_string(),
                session,
            )])
        })
        .unwrap_or_default();
    resolve_ref(&tab.ax_refs, reference, |frame| {
        now.iter()
            .find(|(f, _, _)| f == frame)
            .map(|(_, document, session_id)| FrameNow {
                document,
                session_id,
            })
    })
}

/// `getFullAXTree`'s params for a frame: `{}` for the root of its session (the top frame,
/// an OOPIF), `{frameId}` for an in-process frame.
pub(crate) fn tree_params(tab: &Tab, frame_id: &str) -> Option<Box<serde_json::value::RawValue>> {
    let own_root = tab.page_target() == Some(frame_id)
        || tab.frames.get(frame_id).is_some_and(|f| f.info.is_oopif);
    if own_root {
        to_raw(&json!({}))
    } else {
        to_raw(&json!({ "frameId": frame_id }))
    }
}

/// The stable code of a command's failure.
pub(crate) fn error_code(error: &CommandError) -> &'static str {
    match error {
        CommandError::Timeout { .. } => "timeout",
        CommandError::SessionGone { .. } => "session_gone",
        CommandError::Disconnected { .. } => "disconnected",
        _ => "cdp_error",
    }
}

fn failure(error: &CommandError, timeout_ms: u128) -> Failure {
    let reason = match error {
        CommandError::Timeout { method, .. } => {
            format!("{method} got no reply within the snapshot's budget of {timeout_ms} ms")
        }
        _ => error.to_string(),
    };
    Failure {
        reason,
        code: error_code(error),
        dialog: None,
    }
}

impl AxSnapshotFlow {
    /// Plans the snapshot and sends its commands. Errors when there is nothing to snapshot.
    pub fn start(
        ctx: &mut FlowCtx<'_>,
        flow_id: FlowId,
        options: &AxOptions,
    ) -> Result<AxSnapshotFlow, AxError> {
        let tab = &*ctx.tab;
        let top = tab
            .page_target()
            .filter(|_| tab.page_session().is_some())
            .ok_or(AxError::NotAttached)?
            .to_owned();
        let mut start = None;
        let root = match (&options.reference, &options.frame_id) {
            (Some(reference), _) => {
                let resolved = resolve(tab, reference)?;
                start = Some((reference.clone(), resolved.backend_node_id));
                resolved.frame_id
            }
            (None, Some(frame_id)) => frame_id.clone(),
            (None, None) => top.clone(),
        };
        if tab.frames.get(&root).is_none() {
            return Err(AxError::UnknownFrame { frame_id: root });
        }
        let blocked = blocked_sessions(tab, ctx.dialogs.unanswered());
        let root_blocked = frame_session(tab, &root)
            .and_then(|s| blocked.iter().find(|(b, _)| *b == s))
            .map(|(_, dialog)| Box::new((*dialog).clone()));
        if let Some(dialog) = root_blocked {
            return Err(AxError::Blocked {
                frame_id: root,
                dialog,
            });
        }
        let max_frames = options.max_frames.clamp(1, MAX_AX_FRAMES);
        let timeout_s = options.timeout.as_secs_f64();
        let mut flow = AxSnapshotFlow {
            id: ctx.out.reserve_id(),
            deadline: ctx.out.now() + timeout_s,
            timeout_ms: options.timeout.as_millis(),
            limits: OutlineLimits {
                max_nodes: options.max_nodes,
                max_chars: options.max_chars,
            },
            start,
            scoped: options.reference.is_some() || options.frame_id.is_some(),
            frames: Vec::new(),
            left_out: Vec::new(),
            waiting: 0,
        };
        flow.plan(tab, &root, max_frames, options.max_oopif_depth, &blocked);
        flow.send(ctx, flow_id);
        Ok(flow)
    }

    /// The outcome's id, for the embedder.
    pub fn command_id(&self) -> CommandId {
        CommandId(self.id)
    }

    /// Walks the frames from `root` down, parents first; what is over a budget is left out.
    fn plan(
        &mut self,
        tab: &Tab,
        root: &str,
        max_frames: usize,
        max_depth: usize,
        blocked: &[(String, &PendingDialog)],
    ) {
        // The OOPIF depth of the root, counted from the top.
        let mut root_depth = 0usize;
        let mut cur = tab.frames.get(root);
        let mut guard = 0usize;
        while let Some(f) = cur {
            if f.info.is_oopif {
                root_depth = root_depth.saturating_add(1);
            }
            guard += 1;
            if guard > tab.frames.len() {
                break;
            }
            cur = f
                .info
                .parent_frame_id
                .as_deref()
                .and_then(|p| tab.frames.get(p));
        }
        // (frame id, parent plan index, OOPIF depth, why its parent is left out)
        let mut queue: std::collections::VecDeque<(String, Option<usize>, usize, Option<String>)> =
            std::collections::VecDeque::from([(root.to_owned(), None, root_depth, None)]);
        let mut seen = std::collections::HashSet::new();
        while let Some((id, parent, depth, parent_out)) = queue.pop_front() {
            if !seen.insert(id.clone()) {
                continue;
            }
            let Some(frame) = tab.frames.get(&id) else {
                continue;
            };
            let url = frame.info.url.clone();
            let blocked_by = frame_session(tab, &id)
                .and_then(|s| blocked.iter().find(|(b, _)| *b == s))
                .map(|(_, dialog)| *dialog);
            let reason = if let Some(p) = parent_out {
                Some(format!("its parent frame {p} is left out"))
            } else if self.frames.len() >= max_frames {
                Some(format!("over the frame budget of {max_frames} frames"))
            } else if frame.info.crashed {
                Some("its renderer crashed: reload the tab (recover) to bring it back".to_owned())
            } else if depth > max_depth {
                Some(format!(
                    "an OOPIF nested {depth} deep, over the OOPIF depth budget of {max_depth}"
                ))
            } else {
                blocked_by.map(blocked_reason)
            };
            let index = if let Some(reason) = reason {
                self.left_out.push(FrameLeftOut {
                    frame_id: id.clone(),
                    url,
                    reason,
                });
                None
            } else {
                self.frames.push(Planned {
                    frame_id: id.clone(),
                    url,
                    document: frame.document.to_string(),
                    parent,
                    tree: None,
                    owner: None,
                    tree_session: None,
                    owner_session: None,
                });
                Some(self.frames.len() - 1)
            };
            for child in tab.frames.children_of(&id) {
                let child_depth = match tab.frames.get(child) {
                    Some(c) if c.info.is_oopif => depth.saturating_add(1),
                    _ => depth,
                };
                let out = index.is_none().then(|| id.clone());
                queue.push_back((child.clone(), index, child_depth, out));
            }
        }
    }

    /// Sends every frame's commands at once.
    fn send(&mut self, ctx: &mut FlowCtx<'_>, flow: FlowId) {
        let parents: Vec<Option<String>> = self
            .frames
            .iter()
            .map(|p| {
                p.parent
                    .and_then(|i| self.frames.get(i))
                    .map(|f| f.frame_id.clone())
            })
            .collect();
        for (i, (planned, parent)) in self.frames.iter_mut().zip(parents).enumerate() {
            // At most MAX_AX_FRAMES frames: the step fits.
            let base = u16::try_from(i).unwrap_or(u16::MAX / 2).saturating_mul(2);
            let tag = |kind: u16| {
                Purpose::Flow(FlowTag {
                    flow,
                    step: base.saturating_add(kind),
                })
            };
            let id = planned.frame_id.as_str();
            let Some(session) = frame_session(ctx.tab, id) else {
                continue;
            };
            let params = tree_params(ctx.tab, id);
            ctx.out.send_until(
                Some(&session),
                "Accessibility.getFullAXTree",
                params.as_deref(),
                tag(step::TREE),
                self.deadline,
            );
            self.waiting += 1;
            planned.tree_session = Some(session);
            if let Some(parent_session) = parent.and_then(|p| frame_session(ctx.tab, &p)) {
                let params = to_raw(&json!({ "frameId": id }));
                ctx.out.send_until(
                    Some(&parent_session),
                    "DOM.getFrameOwner",
                    params.as_deref(),
                    tag(step::OWNER),
                    self.deadline,
                );
                self.waiting += 1;
                planned.owner_session = Some(parent_session);
            }
        }
    }

    pub fn deadline(&self) -> Option<f64> {
        Some(self.deadline)
    }

    /// The snapshot's budget is spent: what has not answered is left out.
    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, _now: f64) -> FlowStatus {
        self.finish(ctx)
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        let outcome = match reply {
            Ok(result) => Ok(result.map_or("{}", |r| r.get())),
            Err(e) => Err(e.into_command_error(&cmd.method)),
        };
        let timeout_ms = self.timeout_ms;
        let Some(planned) = self.frames.get_mut(usize::from(step / 2)) else {
            return Ok(FlowStatus::Running);
        };
        if planned.answered(step) {
            // Ended already by a dialog: a reply that came once it closed.
            return Ok(FlowStatus::Running);
        }
        if step % 2 == step::TREE {
            planned.tree = Some(match outcome {
                Ok(text) => AxNode::parse_tree(text).map_err(|e| Failure {
                    reason: format!("its accessibility tree did not parse: {e}"),
                    code: "cdp_error",
                    dialog: None,
                }),
                Err(e) => Err(failure(&e, timeout_ms)),
            });
        } else {
            planned.owner = Some(match outcome {
                Ok(text) => serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| v.get("backendNodeId").and_then(serde_json::Value::as_i64))
                    .ok_or_else(|| Failure {
                        reason: "DOM.getFrameOwner named no backendNodeId".into(),
                        code: "cdp_error",
                        dialog: None,
                    }),
                Err(e) => Err(failure(&e, timeout_ms)),
            });
        }
        Ok(self.answered(ctx))
    }

    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        _cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        let failed = failure(&error, self.timeout_ms);
        if let Some(planned) = self.frames.get_mut(usize::from(step / 2)) {
            if planned.answered(step) {
                return FlowStatus::Running;
            }
            if step % 2 == step::TREE {
                planned.tree = Some(Err(failed));
            } else {
                planned.owner = Some(Err(failed));
            }
        }
        self.answered(ctx)
    }

    /// A dialog opened (and no policy is answering it): the commands still waiting on the
    /// sessions it blocks end at once, and so does the snapshot when its root is one.
    pub fn on_event(&mut self, ctx: &mut FlowCtx<'_>, event: &CdpEvent<'_>) -> FlowStatus {
        if !matches!(
            event,
            CdpEvent::DialogOpening(_) | CdpEvent::RequestPaused(_)
        ) {
            return FlowStatus::Running;
        }
        let blocked = blocked_sessions(ctx.tab, ctx.dialogs.unanswered());
        let by = |session: &Option<String>| {
            let s = session.as_deref()?;
            blocked.iter().find(|(b, _)| b == s).map(|(_, d)| *d)
        };
        let mut ended = 0usize;
        for planned in &mut self.frames {
            if planned.tree.is_none() {
                if let Some(dialog) = by(&planned.tree_session) {
                    planned.tree = Some(Err(Failure::blocked(dialog)));
                    ended += 1;
                }
            }
            if planned.owner.is_none() {
                if let Some(dialog) = by(&planned.owner_session) {
                    planned.owner = Some(Err(Failure::blocked(dialog)));
                    ended += 1;
                }
            }
        }
        if ended == 0 {
            return FlowStatus::Running;
        }
        self.waiting = self.waiting.saturating_sub(ended);
        let root_failed = self
            .frames
            .iter()
            .any(|f| f.parent.is_none() && matches!(f.tree, Some(Err(_))));
        if self.waiting == 0 || root_failed {
            self.finish(ctx)
        } else {
            FlowStatus::Running
        }
    }

    /// One command answered: done when none is left.
    fn answered(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        self.waiting = self.waiting.saturating_sub(1);
        if self.waiting == 0 {
            self.finish(ctx)
        } else {
            FlowStatus::Running
        }
    }

    /// Builds the outline from what came in and tells the embedder.
    fn finish(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let outcome = self.outcome(ctx);
        ctx.out.emit(Event::AxSnapshot {
            id: CommandId(self.id),
            outcome,
        });
        FlowStatus::Done
    }

    fn outcome(&mut self, ctx: &mut FlowCtx<'_>) -> Result<AxSnapshot, AxError> {
        let missing = || Failure {
            reason: format!(
                "no answer within the snapshot's budget of {} ms",
                self.timeout_ms
            ),
            code: "timeout",
            dialog: None,
        };
        // Which planned frames make it into the outline (parents come first).
        let mut included = vec![false; self.frames.len()];
        let mut left_out = std::mem::take(&mut self.left_out);
        for (i, f) in self.frames.iter().enumerate() {
            let tree = f.tree.clone().unwrap_or_else(|| Err(missing()));
            let owner = match f.parent {
                None => Ok(None),
                Some(_) => f.owner.clone().unwrap_or_else(|| Err(missing())).map(Some),
            };
            let parent_in = f
                .parent
                .is_none_or(|p| included.get(p).copied().unwrap_or(false));
            let why = match (tree, owner) {
                (Err(e), _) if f.parent.is_none() => {
                    return Err(match e.dialog {
                        Some(dialog) => AxError::Blocked {
                            frame_id: f.frame_id.clone(),
                            dialog,
                        },
                        None => AxError::RootUnavailable {
                            frame_id: f.frame_id.clone(),
                            reason: e.reason,
                            code: e.code,
                        },
                    })
                }
                _ if !parent_in => Some(format!(
                    "its parent frame {} is left out",
                    f.parent
                        .and_then(|p| self.frames.get(p))
                        .map_or("?", |p| p.frame_id.as_str())
                )),
                (Err(e), _) => Some(e.reason),
                (Ok(_), Err(e)) => {
                    Some(format!("its <iframe> element was not found: {}", e.reason))
                }
                (Ok(_), Ok(_)) => None,
            };
            match why {
                Some(reason) => left_out.push(FrameLeftOut {
                    frame_id: f.frame_id.clone(),
                    url: f.url.clone(),
                    reason,
                }),
                None => {
                    if let Some(slot) = included.get_mut(i) {
                        *slot = true;
                    }
                }
            }
        }
        let empty: Vec<AxNode> = Vec::new();
        let mut axes = Vec::new();
        for (i, f) in self.frames.iter().enumerate() {
            if !included.get(i).copied().unwrap_or(false) {
                continue;
            }
            let nodes = match &f.tree {
                Some(Ok(nodes)) => nodes.as_slice(),
                _ => empty.as_slice(),
            };
            axes.push(FrameAx {
                frame_id: &f.frame_id,
                document: &f.document,
                parent_frame_id: f
                    .parent
                    .and_then(|p| self.frames.get(p))
                    .map(|p| p.frame_id.as_str()),
                owner_backend_node_id: match &f.owner {
                    Some(Ok(owner)) => Some(*owner),
                    _ => None,
                },
                nodes,
            });
        }
        let start = self.start.as_ref().map(|(_, backend)| (0, *backend));
        if self.scoped {
            ctx.tab.ax_refs.keep_others_on_commit(MAX_AX_REFS);
        }
        let outline = build_outline(&axes, start, self.limits, &mut ctx.tab.ax_refs);
        for frame_id in outline.unreached_frames {
            let url = self
                .frames
                .iter()
                .find(|f| f.frame_id == frame_id)
                .map(|f| f.url.clone())
                .unwrap_or_default();
            let reason = match &self.start {
                Some((reference, _)) => format!("outside the subtree of {reference}"),
                None => "hidden: its <iframe> is not in the parent's accessibility tree".into(),
            };
            left_out.push(FrameLeftOut {
                frame_id,
                url,
                reason,
            });
        }
        Ok(AxSnapshot {
            text: outline.text,
            refs: outline.refs,
            truncated: outline.truncated,
            frames_left_out: left_out,
        })
    }
}
