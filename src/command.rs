//! Commands in flight (see [rules](crate::manual::rules), the supervisor's state): id → session, method, deadline, and what the reply is for.
//!
//! Ids are never reused, also not across reconnects, so a reply is matched on its id alone
//! (see [chromium_facts](crate::manual::chromium_facts), replies are matched by id alone: a reply can lack the `sessionId` its command had).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

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

/// Which tab of the browser a command belongs to: its slot in the browser's tab table,
/// never reused while the supervisor lives, so a late reply can never reach a newer tab.
///
/// ```
/// // Internal; the public face of a tab is its `tab_id` (its CDP target id).
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(crate) struct TabKey(pub u32);

/// A flow's identity; replies to its commands carry it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FlowId(pub u64);

/// Which flow a command belongs to, and which of its steps: the `Purpose` of a flow's
/// command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FlowTag {
    pub flow: FlowId,
    pub step: u16,
}

/// What a command's reply is for; decides who receives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Purpose {
    /// The embedder's [`Supervisor::command`](crate::Supervisor::command) or `recover`:
    /// the reply is an [`Event::CommandFinished`](crate::Event::CommandFinished).
    User,
    /// A dialog answer: the `Dialogs` component holds its one record, by command id.
    DialogAnswer,
    /// A flow's command: the reply goes back to that flow, with the step it named.
    Flow(FlowTag),
    /// The browser layer's own command (targets, tabs): the reply goes to the browser,
    /// with the step it named.
    Browser(u16),
    /// The supervisor's own command whose reply does not matter (a bridge request
    /// continued or refused, a given-up bridge dialog's dismissal).
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
    /// The dialog this command was last reported blocked by (see [rules](crate::manual::rules), commands blocked by a dialog), to report once.
    pub blocked_by: Option<String>,
    /// The tab whose reply this is (`None`: the browser's own command).
    pub tab: Option<TabKey>,
}

/// A deadline as a set key: totally ordered, so the earliest is the set's first.
#[derive(Debug, Clone, Copy)]
struct DeadlineKey(f64);

impl PartialEq for DeadlineKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}
impl Eq for DeadlineKey {}
impl PartialOrd for DeadlineKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for DeadlineKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The table of commands in flight, ordered by id (so iteration is deterministic), with
/// an index by deadline: the embedder asks for the next deadline after every message,
/// so that answer must not cost a walk over every command.
///
/// Invariant: `by_deadline` holds exactly `(deadline, id)` of each entry of `by_id`. Only
/// the methods below change either; callers of `get_mut` leave the deadline alone (to
/// change one, remove the command and insert it again).
#[derive(Debug, Default)]
pub(crate) struct CommandsInFlight {
    by_id: BTreeMap<u64, InFlight>,
    by_deadline: BTreeSet<(DeadlineKey, u64)>,
}

impl CommandsInFlight {
    /// Tracks a command (replacing one with the same id).
    pub fn insert(&mut self, id: u64, cmd: InFlight) {
        self.remove(id);
        self.by_deadline.insert((DeadlineKey(cmd.deadline), id));
        self.by_id.insert(id, cmd);
    }

    /// Stops tracking a command.
    pub fn remove(&mut self, id: u64) -> Option<InFlight> {
        let cmd = self.by_id.remove(&id)?;
        self.by_deadline.remove(&(DeadlineKey(cmd.deadline), id));
        Some(cmd)
    }

    /// A command's bookkeeping. Its deadline must not be changed through this.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut InFlight> {
        self.by_id.get_mut(&id)
    }

    /// Every command, by id.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &InFlight)> + '_ {
        self.by_id.iter().map(|(id, c)| (*id, c))
    }

    /// How many are in flight.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Removes and returns every command, by id.
    pub fn take_all(&mut self) -> Vec<(u64, InFlight)> {
        self.by_deadline.clear();
        std::mem::take(&mut self.by_id).into_iter().collect()
    }

    /// The earliest finite deadline, if any.
    pub fn next_deadline(&self) -> Option<f64> {
        self.by_deadline
            .first()
            .map(|(d, _)| d.0)
            .filter(|d| d.is_finite())
    }

    /// Removes and returns the commands whose deadline is at or before `now`, by id.
    pub fn take_expired(&mut self, now: f64) -> Vec<(u64, InFlight)> {
        let mut expired = Vec::new();
        while let Some(&(d, id)) = self.by_deadline.first() {
            // A NaN `now` expires nothing (it compares as neither earlier nor later).
            if d.0.partial_cmp(&now).is_none_or(|o| o == Ordering::Greater) {
                break;
            }
            if let Some(cmd) = self.remove(id) {
                expired.push((id, cmd));
            } else {
                // Not reachable while the invariant holds; dropping the stale key keeps
                // the loop finite either way.
                self.by_deadline.pop_first();
            }
        }
        expired.sort_by_key(|(id, _)| *id);
        expired
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
            .filter_map(|id| self.remove(id).map(|c| (id, c)))
            .collect()
    }

    /// Number of commands the embedder is waiting on (user commands and dialog answers).
    pub fn embedder_count(&self) -> usize {
        self.by_id
            .values()
            .filter(|c| matches!(c.purpose, Purpose::User | Purpose::DialogAnswer))
            .count()
    }
}

/// Whether a command can complete while a dialog shows (see [rules](crate::manual::rules), commands blocked by a dialog): dialog answers and
/// target-level calls can; everything sent into a page's sessions cannot.
pub(crate) fn blocked_by_dialogs(method: &str, session_id: Option<&str>) -> bool {
    session_id.is_some()
        && method != "Page.handleJavaScriptDialog"
        && !method.starts_with("Target.")
        && !method.starts_with("Browser.")
        && !method.starts_with("Fetch.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(deadline: f64) -> InFlight {
        InFlight {
            session_id: None,
            method: "M".into(),
            deadline,
            sent_at: 0.0,
            purpose: Purpose::Quiet,
            blocked_by: None,
            tab: None,
        }
    }

    #[test]
    fn deadline_index_follows_the_table() {
        let mut t = CommandsInFlight::default();
        t.insert(1, cmd(5.0));
        t.insert(2, cmd(3.0));
        t.insert(3, cmd(f64::INFINITY));
        assert_eq!(t.next_deadline(), Some(3.0));
        // Re-inserting an id replaces its deadline, also when it is the same deadline.
        t.insert(2, cmd(3.0));
        t.insert(2, cmd(9.0));
        assert_eq!(t.next_deadline(), Some(5.0));
        assert_eq!(t.len(), 3);
        assert!(t.remove(1).is_some());
        assert_eq!(t.next_deadline(), Some(9.0));
        // Expired in id order; a NaN time expires nothing; infinite never expires.
        t.insert(7, cmd(1.0));
        assert!(t.take_expired(f64::NAN).is_empty());
        let ids: Vec<u64> = t.take_expired(1e300).iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [2, 7]);
        assert_eq!(t.next_deadline(), None, "only the infinite one is left");
        assert_eq!(t.len(), 1);
        assert_eq!(t.take_all().len(), 1);
        assert_eq!((t.len(), t.next_deadline()), (0, None));
    }
}
