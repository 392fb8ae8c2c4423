//! Commands in flight (SPEC §5): id → session, method, deadline, and what the reply is for.
//!
//! Ids are never reused, also not across reconnects, so a reply is matched on its id alone
//! (fact 17: a reply can lack the `sessionId` its command had).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::snapshot::{ClosedBy, ClosedDialog};

/// The id of a command the embedder sent (also its CDP id).
///
/// ```
/// use cdp_supervisor::CommandId;
/// assert_eq!(CommandId(4).to_string(), "4");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CommandId(pub u64);

impl std::fmt::Display for CommandId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What a reply is for; decides what the supervisor does with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Purpose {
    /// The embedder's command: its outcome becomes `Event::CommandFinished`.
    User,
    /// An answer to a dialog: its outcome becomes `Event::DialogAnswered`.
    DialogAnswer {
        dialog_id: String,
        by: ClosedBy,
        /// Set when Chromium reported the dialog closed before this reply (fact 7).
        closed: Option<Box<ClosedDialog>>,
        /// Set when the reply succeeded before the close arrived.
        replied_ok: bool,
        /// Whether the embedder asked (false for policy and watchdog answers).
        report: bool,
        /// For a bridge dialog: what the response said (accept, prompt text).
        bridge_answer: Option<(bool, Option<String>)>,
    },
    /// `Target.getTargets` at connect: picks the page.
    GetTargets,
    /// `Target.attachToTarget` for the page.
    AttachPage,
    /// `Page.enable` on the page session: its reply makes the page live (fact 11).
    PageEnable,
    /// `Page.getFrameTree` on a session: seeds its frames.
    FrameTree,
    /// Any other set-up command; a failure is only a warning.
    Setup,
    /// Best effort, failures expected and harmless (the bridge's evaluate of the loaded
    /// document, answers to requests that may be gone: "Invalid InterceptionId").
    Quiet,
}

/// One command in flight.
#[derive(Debug, Clone)]
pub(crate) struct InFlight {
    pub session_id: Option<String>,
    pub method: String,
    pub deadline: f64,
    pub sent_at: f64,
    pub purpose: Purpose,
    /// The dialog this command was last reported blocked by (SPEC §6.4), to report once.
    pub blocked_by: Option<String>,
}

/// The table of commands in flight, ordered by id (so iteration is deterministic).
#[derive(Debug, Default)]
pub(crate) struct CommandsInFlight {
    pub by_id: BTreeMap<u64, InFlight>,
}

impl CommandsInFlight {
    /// The earliest deadline, if any.
    pub fn next_deadline(&self) -> Option<f64> {
        self.by_id.values().map(|c| c.deadline).reduce(f64::min)
    }

    /// Removes and returns the commands whose deadline is at or before `now`, by id.
    pub fn take_expired(&mut self, now: f64) -> Vec<(u64, InFlight)> {
        let ids: Vec<u64> = self
            .by_id
            .iter()
            .filter(|(_, c)| c.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter()
            .filter_map(|id| self.by_id.remove(&id).map(|c| (id, c)))
            .collect()
    }

    /// Removes and returns every command sent on one of `sessions`, by id.
    pub fn take_on_sessions(&mut self, sessions: &[String]) -> Vec<(u64, InFlight)> {
        let ids: Vec<u64> = self
            .by_id
            .iter()
            .filter(|(_, c)| {
                c.session_id
                    .as_ref()
                    .is_some_and(|s| sessions.iter().any(|x| x == s))
            })
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter()
            .filter_map(|id| self.by_id.remove(&id).map(|c| (id, c)))
            .collect()
    }

    /// Number of commands the embedder is waiting on (user commands and dialog answers).
    pub fn embedder_count(&self) -> usize {
        self.by_id
            .values()
            .filter(|c| matches!(c.purpose, Purpose::User | Purpose::DialogAnswer { .. }))
            .count()
    }
}

/// Whether a command can complete while a dialog shows (SPEC §6.4): dialog answers and
/// target-level calls can; everything sent into a page's sessions cannot.
pub(crate) fn blocked_by_dialogs(method: &str, session_id: Option<&str>) -> bool {
    session_id.is_some()
        && method != "Page.handleJavaScriptDialog"
        && !method.starts_with("Target.")
        && !method.starts_with("Browser.")
        && !method.starts_with("Fetch.")
}
