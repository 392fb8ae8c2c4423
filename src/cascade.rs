//! The removal cascade and command failures: what the supervisor applies when something
//! goes away, with exactly the components it needs borrowed.
//!
//! A removed frame closes its dialogs and takes its OOPIF's session and the sessions nested
//! below (Chromium drops those silently, see [`crate::manual::chromium_facts`], a
//! navigation drops nested sessions silently); a removed session fails its commands,
//! closes its bridge dialogs and takes the frames it still owned. The components' removals
//! *return* what went with them; [`Cascade::remove`] applies the consequences in one
//! worklist, so nothing recurses across components.

use std::collections::VecDeque;

use crate::cdp::CdpEvent;
use crate::command::{InFlight, Purpose};
use crate::config::Config;
use crate::dialogs::Dialogs;
use crate::error::{CommandError, SessionGoneReason};
use crate::flow::{AnyFlow, FlowCtx, FlowId, FlowResult, Flows};
use crate::outbox::Outbox;
use crate::tab::Tab;

/// A removal still to apply, in [`Cascade::remove`]'s worklist.
pub(crate) enum Removal {
    /// Frames, parents before children.
    Frames(Vec<String>),
    /// Sessions, with why.
    Sessions(Vec<String>, SessionGoneReason),
}

/// The supervisor's components, borrowed for one removal, failure or flow turn.
pub(crate) struct Cascade<'a> {
    pub out: &'a mut Outbox,
    pub tab: &'a mut Tab,
    pub dialogs: &'a mut Dialogs,
    pub flows: &'a mut Flows,
    pub config: &'a Config,
    pub bridge_script: Option<&'a str>,
}

impl Cascade<'_> {
    /// Ends a command that got no reply: its owner hears why.
    pub fn fail_command(&mut self, id: u64, cmd: InFlight, error: CommandError) {
        match cmd.purpose {
            Purpose::User => self.out.command_finished(id, Err(error)),
            Purpose::DialogAnswer => self.dialogs.on_answer_failed(self.out, id, error),
            Purpose::Flow(tag) => {
                self.with_flow(tag.flow, |flow, ctx| {
                    flow.on_failed(ctx, tag.step, cmd, error)
                });
            }
            Purpose::Quiet | Purpose::Browser(_) => {}
        }
    }

    /// Fails the commands in flight on `sessions`.
    pub fn fail_on_sessions(&mut self, sessions: &[String], reason: SessionGoneReason) {
        for (id, cmd) in self.out.commands_in_flight.take_on_sessions(sessions) {
            let error = CommandError::SessionGone {
                method: cmd.method.clone(),
                session_id: cmd.session_id.clone().unwrap_or_default(),
                reason,
            };
            self.fail_command(id, cmd, error);
        }
    }

    /// While the frame bound is reached and `frame_id` is new, evicts the oldest-known
    /// frame other than the top (with its subtree and what goes with it). Whether the
    /// frame may be added.
    pub fn make_room(&mut self, frame_id: &str) -> bool {
        if self.tab.frames.get(frame_id).is_some() {
            return true;
        }
        while self.tab.frames.len() >= self.config.max_frames.max(1) {
            let Some(victim) = self.tab.frames.oldest_except(self.tab.page_target()) else {
                return false;
            };
            let gone = self.tab.subtree(&victim);
            self.remove(Removal::Frames(gone));
        }
        true
    }

    /// Applies a removal and everything that goes with it, in one worklist: removed
    /// frames close their dialogs and take their OOPIF sessions (and the sessions nested
    /// below, which Chromium drops silently); removed sessions fail their commands, close
    /// their bridge dialogs and take the frames they still owned.
    pub fn remove(&mut self, first: Removal) {
        let mut work = VecDeque::from([first]);
        while let Some(removal) = work.pop_front() {
            match removal {
                Removal::Frames(ids) => {
                    let mut sessions = Vec::new();
                    for id in ids {
                        let Some(gone) = self.tab.remove_frame(self.out, &id) else {
                            continue;
                        };
                        let view = self.tab.view();
                        self.dialogs.give_up_of_frames(self.out, view, &[id]);
                        sessions.extend(gone);
                    }
                    if !sessions.is_empty() {
                        work.push_back(Removal::Sessions(sessions, SessionGoneReason::Detached));
                    }
                }
                Removal::Sessions(ids, reason) => {
                    let (removed, orphaned) = self.tab.remove_sessions(&ids);
                    if removed.is_empty() {
                        continue;
                    }
                    self.fail_on_sessions(&removed, reason);
                    // A bridge dialog whose session went can never be answered.
                    self.dialogs.close_bridge_of_sessions(self.out, &removed);
                    work.push_back(Removal::Frames(orphaned));
                }
            }
        }
    }

    /// Runs `f` on flow `id` with the components a flow may use; `None` if it is not
    /// running. A flow that says it is done is removed.
    pub fn with_flow<R: FlowResult>(
        &mut self,
        id: FlowId,
        f: impl FnOnce(&mut AnyFlow, &mut FlowCtx<'_>) -> R,
    ) -> Option<R> {
        let (flows, mut ctx) = self.for_flows();
        let r = f(flows.get_mut(id)?, &mut ctx);
        flows.settle(id, r.status());
        Some(r)
    }

    /// Offers an event to every flow, after the supervisor's own rules ran.
    pub fn offer_event(&mut self, session: Option<&str>, event: &CdpEvent<'_>) {
        let (flows, mut ctx) = self.for_flows();
        flows.offer_event(&mut ctx, session, event);
    }

    /// Offers a dialog of another tab of this tab's renderer to every flow.
    pub fn offer_shared_dialog(&mut self, dialog: &crate::snapshot::PendingDialog) {
        let (flows, mut ctx) = self.for_flows();
        flows.offer_shared_dialog(&mut ctx, dialog);
    }

    /// The flows, and what a flow may use beside them (also to start a flow).
    pub fn flow_ctx(&mut self) -> (&mut Flows, FlowCtx<'_>) {
        self.for_flows()
    }

    /// The flows, and what a flow may use beside them.
    fn for_flows(&mut self) -> (&mut Flows, FlowCtx<'_>) {
        let ctx = FlowCtx {
            out: self.out,
            tab: self.tab,
            dialogs: self.dialogs,
            config: self.config,
            bridge_script: self.bridge_script,
        };
        (self.flows, ctx)
    }
}
