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
    /// After a reconnect the tab the supervisor had is not among the browser's pages: a
    /// new browser behind the same endpoint (a restarted browser, a hosted service's new
    /// browser per connection), or the tab closed meanwhile. Nothing of the old tab carries
    /// over (its frames, dialogs, console, refs went with it); the supervisor attaches the
    /// browser's first page (`tab_id`), or opens one when it has none (`tab_id` `None`).
    #[error("after the reconnect, tab {old_tab_id} is gone (a new browser behind the endpoint, or the tab closed meanwhile); nothing of it carries over: {}", match .tab_id {
        Some(t) => format!("now supervising the browser's page {t}"),
        None => "the browser has no page, so a new tab is being opened".to_owned(),
    })]
    FreshBrowser {
        /// The tab the supervisor had before the connection was lost.
        old_tab_id: String,
        /// The page it supervises now; `None` while the tab it opens is on its way.
        tab_id: Option<String>,
    },
    /// After a reconnect to a browser without the old tab nor any page, the tab the
    /// supervisor opened could not be had: nothing can be supervised on this connection.
    #[error("after the reconnect the browser has no page and opening one failed ({message}); nothing can be supervised: check the browser endpoint")]
    NoTabAfterReconnect {
        /// Why, in CDP's words or the deadline's.
        message: String,
    },
    /// The page started a navigation of its top frame (a link, a script, a popup's first
    /// load) to where the URL policy does not let an agent go: it was stopped before it
    /// committed, so the page stayed where it was, or the popup (`tab_closed`) was closed.
    #[error("tab {tab_id}: the page's {refused}{}", if *.tab_closed { " (the popup was closed)" } else { "" })]
    NavigationRefused {
        /// The tab.
        tab_id: String,
        /// What was refused and why, naming the flag that would allow it.
        refused: crate::url_policy::UrlRefused,
        /// The tab was a popup that had shown nothing yet: it was closed.
        tab_closed: bool,
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
    /// An HTTP sign-in challenge came again for a request already answered with
    /// credentials (configured, or given in answer to its `http_auth` dialog): they are
    /// wrong; the request was canceled, never retried.
    #[error("the credentials for {origin} were refused (realm {realm:?}); the request was canceled: check --http-credentials, or the username and password given for it")]
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

    /// A stable snake_case word for the warning, as error codes are (see
    /// [the list](crate::error_code)): a program branches on it.
    ///
    /// ```
    /// use cdp_supervisor::Warning;
    /// let w = Warning::FreshBrowser { old_tab_id: "A".into(), tab_id: Some("B".into()) };
    /// assert_eq!(w.code(), "fresh_browser");
    /// assert_eq!(Warning::NoPageTarget { wanted: None }.code(), "no_page_target");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Warning::NoPageTarget { .. } => "no_page_target",
            Warning::TabCapReached { .. } => "tab_cap_reached",
            Warning::SetupFailed { .. } | Warning::SetupCommand { .. } => "setup_failed",
            Warning::SessionCapReached { .. } => "session_cap_reached",
            Warning::ForgedBridgeRequest { .. } => "forged_bridge_request",
            Warning::SessionDetached { .. } => "session_detached",
            Warning::DialogAnswerFailed { .. } => "dialog_answer_failed",
            Warning::FreshBrowser { .. } => "fresh_browser",
            Warning::NoTabAfterReconnect { .. } => "no_tab_after_reconnect",
            Warning::NavigationRefused { .. } => "navigation_refused",
            Warning::HttpAuthRejected { .. } => "http_auth_rejected",
        }
    }

    /// Whether the supervisor can no longer supervise anything on this connection: an
    /// embedder should end with a clear error (the sidecar exits 1) rather than wait.
    ///
    /// ```
    /// use cdp_supervisor::Warning;
    /// assert!(Warning::NoTabAfterReconnect { message: "x".into() }.is_fatal());
    /// assert!(!Warning::NoPageTarget { wanted: None }.is_fatal());
    /// ```
    pub fn is_fatal(&self) -> bool {
        matches!(self, Warning::NoTabAfterReconnect { .. })
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
