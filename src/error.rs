//! Typed errors. Each message names the thing and says what to do.

use thiserror::Error;

use crate::dialog::DialogAction;
use std::str::FromStr;

/// A message from the browser that the supervisor could not apply. The state is unchanged
/// by the part that failed; nothing panics.
///
/// ```
/// use cdp_supervisor::{Config, Supervisor, InputError};
/// let mut sup = Supervisor::new(Config::default());
/// assert!(matches!(sup.handle_message(0.0, "{not json"), Err(InputError::Malformed { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum InputError {
    /// Not a JSON object of the CDP message shape.
    #[error("not a CDP message ({error}); the message was ignored")]
    Malformed {
        /// What serde said.
        error: String,
    },
    /// Neither `id` nor `method`.
    #[error("CDP message has neither \"id\" nor \"method\"; ignored")]
    NeitherIdNorMethod,
    /// A reply whose id the supervisor never sent, or whose command already ended.
    #[error("reply to id {id}, which is not in flight (never sent, timed out or already answered); ignored")]
    UnknownReply {
        /// The reply's id.
        id: u64,
    },
    /// An event on a session the supervisor does not track.
    #[error("{method} on unknown session {session_id}; ignored")]
    UnknownSession {
        /// The event.
        method: String,
        /// The session it named.
        session_id: String,
    },
    /// An event or result whose params do not have the documented shape.
    #[error("{method}: unexpected params ({error}); ignored")]
    BadParams {
        /// The event or command.
        method: String,
        /// What serde said.
        error: String,
    },
}

/// Why a command sent through the supervisor did not give a result.
///
/// ```
/// use cdp_supervisor::CommandError;
/// let e = CommandError::UnknownFrame { frame_id: "F1".into() };
/// assert!(e.to_string().contains("F1"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CommandError {
    /// Chromium answered with an error.
    #[error("{method} failed: CDP error {code}: {message}")]
    Cdp {
        /// The method.
        method: String,
        /// CDP's error code.
        code: i64,
        /// CDP's message.
        message: String,
    },
    /// No reply before the deadline (see [chromium_facts](crate::manual::chromium_facts), every command needs a deadline: a blocked or crashed renderer answers nothing).
    #[error("{method} got no reply within {after_s:.3} s, so whether it took effect is unknown: the renderer may be blocked by a dialog or crashed, or the connection stalled (check the snapshot)")]
    Timeout {
        /// The method.
        method: String,
        /// Seconds waited.
        after_s: f64,
    },
    /// The session the command was sent on detached or crashed.
    #[error("{method} cannot complete: session {session_id} {reason}")]
    SessionGone {
        /// The method.
        method: String,
        /// The session.
        session_id: String,
        /// Why it went.
        reason: SessionGoneReason,
    },
    /// The connection closed.
    #[error("{method} cannot complete: the connection to the browser closed; reconnect and retry")]
    Disconnected {
        /// The method.
        method: String,
    },
    /// `command` named a frame the supervisor does not know.
    #[error("unknown frame {frame_id}: it is not (or no longer) in the frame tree; take a fresh snapshot")]
    UnknownFrame {
        /// The frame id given.
        frame_id: String,
    },
    /// Script evaluation aimed at a frame that has no session of its own (see [rules](crate::manual::rules), routing a command into a frame).
    #[error("frame {frame_id} is not an OOPIF: it shares session {session_id} with its parent, so {method} there would run in another frame's context; reach it from its parent's document instead (e.g. document.querySelector('iframe').contentWindow / .contentDocument), or pass the parent's frame id")]
    NotAnOopif {
        /// The frame.
        frame_id: String,
        /// The method.
        method: String,
        /// The session the frame belongs to.
        session_id: String,
    },
    /// No page session yet (or any more).
    #[error("no page is attached (the supervisor is connecting or the tab is gone); wait for page.state \"live\"")]
    NotAttached,
    /// The cap on commands in flight (see [rules](crate::manual::rules), bounds).
    #[error("{limit} commands are already in flight; wait for some to finish before sending more")]
    TooManyInFlight {
        /// The cap.
        limit: usize,
    },
    /// `params` was not a JSON object.
    #[error("params of {method} must be a JSON object")]
    ParamsNotObject {
        /// The method.
        method: String,
    },
    /// The tab's renderer crashed: it answers nothing until it is reloaded.
    #[error("tab {tab_id} crashed (its renderer is gone) and answers nothing; call recover on it to reload it, or close it")]
    Crashed {
        /// The tab.
        tab_id: String,
    },
    /// The frame is an OOPIF whose renderer crashed: nothing on its session answers, so
    /// the command was not sent.
    #[error("frame {frame_id} crashed (its renderer is gone) and answers nothing, so {method} was not sent; reload the tab (recover) or set the iframe's src again from its parent, then take a fresh snapshot")]
    FrameCrashed {
        /// The crashed frame.
        frame_id: String,
        /// The method that was not sent.
        method: String,
    },
    /// The URL policy refused the navigation (see [`crate::url_policy`]); nothing was sent.
    #[error(transparent)]
    UrlRefused(crate::url_policy::UrlRefused),
    /// No tab has that id (it closed, or never was).
    #[error("no tab {tab_id}: it closed or never was; list the tabs and pick one of theirs")]
    NoSuchTab {
        /// The id given.
        tab_id: String,
    },
    /// No browser context has that id: this supervisor did not create it and none of its
    /// tabs is in it (it was disposed, ended with the connection that created it, or
    /// never was).
    #[error("no browser context {context_id}: it was disposed, ended with the connection that created it, or never was; create one with create_context")]
    NoSuchContext {
        /// The id given.
        context_id: String,
    },
    /// A network request index the tab's ring does not hold (never given, or evicted).
    #[error("no network request {index} in this tab: the tab keeps its last {kept} requests; list them again and pick one of theirs")]
    NoSuchRequest {
        /// The index given.
        index: u64,
        /// How many requests a tab keeps.
        kept: usize,
    },
    /// The cap on browser contexts this supervisor created and has not disposed.
    #[error("{limit} browser contexts are already open; dispose one before creating another")]
    TooManyContexts {
        /// The cap.
        limit: usize,
    },
}

/// Why a dialog could not be answered.
///
/// ```
/// use cdp_supervisor::DialogError;
/// let e = DialogError::SeveralPending { pending: vec!["d-1".into(), "d-2".into()] };
/// assert!(e.to_string().contains("d-1, d-2"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum DialogError {
    /// Nothing to answer.
    #[error("no dialog is pending; take a snapshot to see recent_dialogs")]
    NoDialogPending,
    /// Several dialogs pending and no id given.
    #[error("several dialogs are pending ({}); pass dialog_id to say which", .pending.join(", "))]
    SeveralPending {
        /// The pending ids, oldest first.
        pending: Vec<String>,
    },
    /// No pending dialog has that id.
    #[error("dialog {dialog_id} is not pending (pending: [{}]); it may have closed already, see recent_dialogs", .pending.join(", "))]
    UnknownDialog {
        /// The id given.
        dialog_id: String,
        /// The pending ids.
        pending: Vec<String>,
    },
    /// An answer to this dialog is already in flight; a second one would answer one dialog
    /// twice (a bridge request must get exactly one response).
    #[error("an answer to dialog {dialog_id} is already in flight; wait for its outcome before answering again")]
    AnswerInFlight {
        /// The dialog.
        dialog_id: String,
    },
    /// The action was neither `accept` nor `dismiss`.
    #[error("unknown dialog action {0:?}: use \"accept\" or \"dismiss\"")]
    BadAction(String),
    /// Chromium says no dialog is showing while this one never closed (see [chromium_facts](crate::manual::chromium_facts), two dialogs at once can wedge a frame).
    #[error("dialog {dialog_id} is wedged: Chromium can no longer answer it; call recover (navigates the page) to release the tab")]
    Wedged {
        /// The dialog.
        dialog_id: String,
    },
    /// The answer command failed.
    #[error("answering dialog {dialog_id} failed: {error}")]
    Command {
        /// The dialog.
        dialog_id: String,
        /// Why.
        error: CommandError,
    },
    /// No page session to answer on.
    #[error("no page is attached, so no dialog can be answered")]
    NotAttached,
    /// No tab has that id.
    #[error("no tab {tab_id}: it closed or never was; list the tabs and pick one of theirs")]
    NoSuchTab {
        /// The id given.
        tab_id: String,
    },
    /// The browser closed the dialog itself (its close contradicts the answer: `result`
    /// is not what the answer asked for) before the answer took effect. The dialog is no
    /// longer pending; nothing is left to do. See [`crate::manual::chromium_facts`]:
    /// Chromium can close a dialog by itself while an answer is in flight.
    #[error("the browser closed dialog {dialog_id} (result {result}) before your {} took effect (Chromium closes a tab's dialogs when one of its frames commits a navigation, or another client of the browser answered it); nothing to do, it is no longer pending", match .action { DialogAction::Accept => "accept", DialogAction::Dismiss => "dismiss" })]
    ClosedByBrowser {
        /// The dialog.
        dialog_id: String,
        /// The close's `result` (whether the dialog was accepted, by someone else).
        result: bool,
        /// What the answer asked for.
        action: DialogAction,
    },
    /// The files of an answer to a file chooser were refused before anything was sent
    /// (outside the allowed upload roots, missing, unreadable, too many for the input).
    #[error("file chooser {dialog_id}: upload refused: {reason}")]
    UploadRefused {
        /// The chooser.
        dialog_id: String,
        /// Why, naming `--upload-root` when a root is missing.
        reason: String,
    },
    /// The answer does not fit the dialog: files for a JavaScript dialog, or a file
    /// chooser accepted without files.
    #[error("{dialog_id} is {kind}: {hint}")]
    WrongAnswer {
        /// The dialog.
        dialog_id: String,
        /// Its type.
        kind: String,
        /// What it takes.
        hint: &'static str,
    },
}

impl DialogError {
    /// The dialog the error is about, when it names one.
    ///
    /// ```
    /// use cdp_supervisor::DialogError;
    /// let e = DialogError::Wedged { dialog_id: "d-2".into() };
    /// assert_eq!(e.dialog_id(), Some("d-2"));
    /// assert_eq!(DialogError::NoDialogPending.dialog_id(), None);
    /// ```
    pub fn dialog_id(&self) -> Option<&str> {
        match self {
            DialogError::UnknownDialog { dialog_id, .. }
            | DialogError::AnswerInFlight { dialog_id }
            | DialogError::Wedged { dialog_id }
            | DialogError::Command { dialog_id, .. }
            | DialogError::ClosedByBrowser { dialog_id, .. }
            | DialogError::UploadRefused { dialog_id, .. }
            | DialogError::WrongAnswer { dialog_id, .. } => Some(dialog_id),
            _ => None,
        }
    }
}

/// Why a session went away, in [`CommandError::SessionGone`].
///
/// ```
/// use cdp_supervisor::error::SessionGoneReason;
/// assert_eq!(SessionGoneReason::Crashed.to_string(), "crashed");
/// assert!(SessionGoneReason::Detached == "detached");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionGoneReason {
    /// The target detached: closed, navigated away, its frame removed.
    Detached,
    /// The renderer crashed; commands on it are never answered.
    Crashed,
}

impl SessionGoneReason {
    /// `detached` or `crashed`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionGoneReason::Detached => "detached",
            SessionGoneReason::Crashed => "crashed",
        }
    }
}

impl std::fmt::Display for SessionGoneReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for SessionGoneReason {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SessionGoneReason {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Parsed from the sidecar's and MCP's words; here, beside the error it returns, so
/// that `dialog` needs nothing of `error`.
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
