//! Dialogs (SPEC §6.1-6.3): the policy, the pending dialogs and the ring of recent ones.
//!
//! The supervisor's dialog handlers (`dialog_flow.rs`) apply the facts; this module holds
//! the data and its small rules: ids, matching a close to its dialog, the bounds.

use std::collections::VecDeque;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::DialogError;
use crate::snapshot::{push_ring, ClosedBy, ClosedDialog, PendingDialog, MAX_RECENT_DIALOGS};

pub use crate::limits::MAX_PENDING_DIALOGS;

/// What happens when a dialog opens (SPEC §6.1).
///
/// ```
/// use cdp_supervisor::DialogPolicy;
/// assert_eq!("auto_accept".parse::<DialogPolicy>(), Ok(DialogPolicy::AutoAccept));
/// assert!("sometimes".parse::<DialogPolicy>().is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogPolicy {
    /// Stays pending until the client answers; the watchdog dismisses it after
    /// `dialog_timeout`.
    #[default]
    MustRespond,
    /// Recorded, then dismissed at once.
    AutoDismiss,
    /// Recorded, then accepted at once (a prompt gets its default text).
    AutoAccept,
}

impl FromStr for DialogPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "must_respond" => Ok(DialogPolicy::MustRespond),
            "auto_dismiss" => Ok(DialogPolicy::AutoDismiss),
            "auto_accept" => Ok(DialogPolicy::AutoAccept),
            other => Err(format!(
                "unknown dialog policy {other:?}: use must_respond, auto_dismiss or auto_accept"
            )),
        }
    }
}

/// How to answer a dialog.
///
/// ```
/// use cdp_supervisor::DialogAction;
/// assert_eq!("dismiss".parse::<DialogAction>(), Ok(DialogAction::Dismiss));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogAction {
    /// OK: `confirm` returns true, `prompt` its text.
    Accept,
    /// Cancel: `confirm` returns false, `prompt` null.
    Dismiss,
}

impl FromStr for DialogAction {
    type Err = DialogError;
    fn from_str(s: &str) -> Result<Self, DialogError> {
        match s {
            "accept" => Ok(DialogAction::Accept),
            "dismiss" => Ok(DialogAction::Dismiss),
            other => Err(DialogError::BadAction(other.to_owned())),
        }
    }
}

/// Where a dialog came from, which decides how it is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DialogSource {
    /// `Page.javascriptDialogOpening`; answered with `Page.handleJavaScriptDialog` on the
    /// page session (fact 6).
    Native,
    /// A paused bridge request; answered with `Fetch.fulfillRequest` on the session it
    /// paused on (fact 12).
    Bridge {
        session_id: String,
        request_id: String,
    },
}

/// One pending dialog and what the supervisor is doing about it.
#[derive(Debug, Clone)]
pub(crate) struct Dialog {
    pub info: PendingDialog,
    pub source: DialogSource,
    /// The answer in flight: its command id and on whose behalf it was sent.
    pub answer: Option<(u64, ClosedBy)>,
    /// Chromium said "No dialog is showing" while this one never closed (fact 15).
    pub wedged: bool,
    /// When the watchdog dismisses it (`must_respond` only).
    pub watchdog_at: Option<f64>,
}

/// Pending and recent dialogs.
#[derive(Debug, Default)]
pub(crate) struct Dialogs {
    pub pending: Vec<Dialog>,
    pub recent: VecDeque<ClosedDialog>,
    last_number: u64,
}

impl Dialogs {
    /// The next dialog id, `d-1`, `d-2`, ...
    pub fn next_id(&mut self) -> String {
        self.last_number += 1;
        format!("d-{}", self.last_number)
    }

    pub fn pending_ids(&self) -> Vec<String> {
        self.pending.iter().map(|d| d.info.id.clone()).collect()
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.pending.iter().position(|d| d.info.id == id)
    }

    /// Fact 7: a close names its frame; match the oldest dialog of that frame first, the
    /// oldest dialog of the page second.
    /// Only native dialogs close this way; bridge dialogs close with their response.
    pub fn index_for_close(&self, frame_id: Option<&str>) -> Option<usize> {
        let native = |d: &Dialog| d.source == DialogSource::Native;
        let by_frame = frame_id.and_then(|f| {
            self.pending
                .iter()
                .position(|d| native(d) && d.info.frame_id == f)
        });
        by_frame.or_else(|| self.pending.iter().position(native))
    }

    /// Moves the pending dialog at `index` to the recent ring and returns its record.
    pub fn close(
        &mut self,
        index: usize,
        now: f64,
        closed_by: ClosedBy,
        accepted: bool,
        user_input: Option<String>,
    ) -> Option<ClosedDialog> {
        if index >= self.pending.len() {
            return None;
        }
        let d = self.pending.remove(index);
        let record = ClosedDialog {
            id: d.info.id,
            kind: d.info.kind,
            message: d.info.message,
            opened_at: d.info.opened_at,
            closed_at: now,
            closed_by,
            frame_id: d.info.frame_id,
            accepted,
            user_input,
        };
        push_ring(&mut self.recent, record.clone(), MAX_RECENT_DIALOGS);
        Some(record)
    }

    /// Who closed the dialog at `index`: whoever has an answer in flight, else `remote`.
    pub fn closer(&self, index: usize) -> ClosedBy {
        self.pending
            .get(index)
            .and_then(|d| d.answer.map(|(_, by)| by))
            .unwrap_or(ClosedBy::Remote)
    }
}
