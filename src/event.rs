//! What comes out of the supervisor: [`Output`], [`Event`] and [`Warning`].

use crate::ax::{AxError, AxSnapshot, ResolvedRef};
use crate::command::CommandId;
use crate::error::{CommandError, DialogError};
use crate::evaluate::{EvalError, EvalValue};
use crate::snapshot::{ClosedDialog, Diff};
use crate::wire::OutgoingCommand;

/// What the supervisor tells the embedder, drained with
/// [`Supervisor::poll_event`](crate::Supervisor::poll_event).
///
/// ```
/// use cdp_supervisor::{Config, Event, Supervisor};
/// let mut sup = Supervisor::new(Config::default());
/// sup.handle_connected(0.0);
/// // The first event is the page entry of the snapshot (no page yet).
/// assert!(matches!(sup.poll_event(), Some(Event::Diff(_)) | None));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// One change to the snapshot.
    Diff(Diff),
    /// A command in flight cannot complete while this dialog shows. It still ends later
    /// in exactly one [`Event::CommandFinished`].
    CommandBlocked {
        /// The command.
        id: CommandId,
        /// The dialog in its way.
        dialog_id: String,
    },
    /// The one final outcome of a command from
    /// [`Supervisor::command`](crate::Supervisor::command) or
    /// [`Supervisor::recover`](crate::Supervisor::recover): CDP's `result` object as JSON
    /// text, or why not.
    CommandFinished {
        /// The command.
        id: CommandId,
        /// The outcome.
        outcome: Result<String, CommandError>,
    },
    /// The one final outcome of
    /// [`Supervisor::respond_dialog`](crate::Supervisor::respond_dialog): the closed
    /// dialog, or why not.
    DialogAnswered {
        /// The answer's id, as `respond_dialog` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<ClosedDialog, DialogError>,
    },
    /// The one final outcome of
    /// [`Supervisor::evaluate`](crate::Supervisor::evaluate): the value, or why not.
    Evaluated {
        /// The evaluate's id, as `evaluate` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<EvalValue, EvalError>,
    },
    /// The one outcome of
    /// [`Supervisor::ax_snapshot`](crate::Supervisor::ax_snapshot): the outline with its
    /// refs, or why not.
    AxSnapshot {
        /// The snapshot's id, as `ax_snapshot` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<AxSnapshot, AxError>,
    },
    /// The one outcome of
    /// [`Supervisor::resolve_ref_fresh`](crate::Supervisor::resolve_ref_fresh): where the
    /// ref's node is now, or why it is stale.
    RefResolved {
        /// The call's id, as `resolve_ref_fresh` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<ResolvedRef, AxError>,
    },
    /// The one final outcome of [`Supervisor::act`](crate::Supervisor::act): what the
    /// action did and the page after it, or why it could not run.
    ActFinished {
        /// The action's id, as `act` returned it.
        id: CommandId,
        /// The outcome.
        outcome: Result<Box<crate::act::ActResult>, crate::act::ActError>,
    },
    /// Something the embedder may want to log (or, for
    /// [`Warning::ForgedBridgeRequest`], act on).
    Warning(Warning),
    /// A download completed at Chromium's `file_path` (`DIR/<guid>`): move it to a name of
    /// its own (its suggested name, unique in the folder), then call
    /// [`Supervisor::download_saved`](crate::Supervisor::download_saved). Only with
    /// `DownloadConfig::embedder_renames` (in the downloads module).
    DownloadCompleted {
        /// The download's id (Chromium's guid).
        id: String,
        /// Where Chromium wrote it.
        file_path: String,
        /// The name the page or server suggested (untrusted: strip any folder from it).
        suggested_filename: String,
    },
}

/// Something that went wrong without a caller to tell: a set-up command failed, no page
/// target was found, a page forged a bridge request, ... Each variant's `Display` says
/// what happened in words.
///
/// ```
/// use cdp_supervisor::Warning;
/// let w = Warning::ForgedBridgeRequest { frame_id: Some("F".into()) };
/// assert!(w.to_string().contains("forge a dialog"));
/// assert!(w.is_security_signal());
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// `Target.getTargets` listed no page to supervise (or not the configured one).
    #[error("{}", match .wanted {
        Some(w) => format!("target {w} is not among the browser's pages; open it or pass another target id"),
        None => "the browser has no page target to supervise; open a tab".to_owned(),
    })]
    NoPageTarget {
        /// The target asked for, if any.
        wanted: Option<String>,
    },
    /// A page attached beyond the tab bound: it was resumed and detached, untracked.
    #[error("tab cap of {limit} reached: page {target_id} left unsupervised; close some tabs")]
    TabCapReached {
        /// The cap.
        limit: usize,
        /// The page's target id.
        target_id: String,
    },
    /// One of the supervisor's own commands failed (`session_id` `None`: the browser).
    #[error("{method} on session {} failed: {message}", .session_id.as_deref().unwrap_or("(browser)"))]
    SetupFailed {
        /// The command's method.
        method: String,
        /// The session it was sent on.
        session_id: Option<String>,
        /// Why, in CDP's words.
        message: String,
    },
    /// One of the supervisor's own commands ended without a reply.
    #[error("set-up command {error}")]
    SetupCommand {
        /// Why.
        error: CommandError,
    },
    /// A child target attached over [`Config::max_sessions`](crate::Config::max_sessions).
    #[error(
        "session cap of {limit} reached: {kind} target {target_id} resumed and detached untracked"
    )]
    SessionCapReached {
        /// The cap.
        limit: usize,
        /// The target's type.
        kind: String,
        /// The target.
        target_id: String,
    },
    /// A bridge request without the supervisor's token: a page tried to forge a dialog.
    /// It was answered with an error status and never became a dialog.
    #[error("refused a bridge request without the supervisor's token (frame {}): a page tried to forge a dialog", .frame_id.as_deref().unwrap_or("?"))]
    ForgedBridgeRequest {
        /// The frame that sent it.
        frame_id: Option<String>,
    },
    /// `Inspector.detached` on a session.
    #[error("session {session_id} detached: {reason}")]
    SessionDetached {
        /// The session.
        session_id: String,
        /// Chromium's reason.
        reason: String,
    },
    /// An answer the policy or the watchdog sent failed (an embedder's answer reports
    /// through [`Event::DialogAnswered`] instead).
    #[error("{by} could not answer {dialog_id}: {error}")]
    DialogAnswerFailed {
        /// `auto policy`, `watchdog` or `answer`.
        by: &'static str,
        /// The dialog.
        dialog_id: String,
        /// Why.
        error: DialogError,
    },
    /// An HTTP sign-in challenge came again for a request already answered with the
    /// configured credentials: they are wrong; the request was canceled.
    #[error("the credentials for {origin} were refused (realm {realm:?}); the request was canceled: check --http-credentials")]
    HttpAuthRejected {
        /// The origin that refused them.
        origin: String,
        /// Its realm.
        realm: String,
    },
}

impl Warning {
    /// Whether this warning means a page acted against the supervisor (a forged bridge
    /// request), rather than an ordinary failure.
    pub fn is_security_signal(&self) -> bool {
        matches!(self, Warning::ForgedBridgeRequest { .. })
    }
}

/// One item of output, for embedders that drain everything through one call.
///
/// ```
/// use cdp_supervisor::{Config, Output, Supervisor};
/// let mut sup = Supervisor::new(Config::default());
/// assert_eq!(sup.poll_output(), Output::Timeout(None)); // nothing to do yet
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Write this command's `json` to the socket.
    Transmit(OutgoingCommand),
    /// Tell the embedder.
    Event(Event),
    /// Nothing more for now; call
    /// [`Supervisor::handle_timeout`](crate::Supervisor::handle_timeout) at this time (if
    /// any), or earlier when a message arrives.
    Timeout(Option<f64>),
}
