//! What an accessibility snapshot is asked with ([`AxOptions`]) and why one fails
//! ([`AxError`]).

use std::time::Duration;

use crate::snapshot::PendingDialog;
use thiserror::Error;

use super::outline::DEFAULT_MAX_NODES;

/// Frames a snapshot fetches at most, by default (beyond: listed in `frames_left_out`).
pub const DEFAULT_MAX_AX_FRAMES: usize = 100;
/// The most frames a snapshot may be asked to fetch (a larger `max_frames` is clamped).
pub const MAX_AX_FRAMES: usize = 1_000;
/// OOPIFs nested deeper than this are left out, by default.
pub const DEFAULT_MAX_OOPIF_DEPTH: usize = 5;
/// Refs kept at most when scoped snapshots add to the last one's (the oldest go first).
pub const MAX_AX_REFS: usize = 20_000;
/// How long a snapshot may take, by default.
pub const DEFAULT_AX_TIMEOUT: Duration = Duration::from_secs(5);

/// How to take an accessibility snapshot. Start from `AxOptions::default()` and set fields.
///
/// ```
/// use cdp_supervisor::ax::AxOptions;
/// let mut o = AxOptions::default();
/// o.max_frames = 10;
/// assert_eq!((o.max_nodes, o.max_oopif_depth, o.timeout.as_millis()), (2_000, 5, 5_000));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AxOptions {
    /// The whole snapshot's deadline: a frame without its tree by then is left out.
    pub timeout: Duration,
    /// Lines of the outline at most.
    pub max_nodes: usize,
    /// Characters of the outline at most (cut at a line end).
    pub max_chars: Option<usize>,
    /// Frames fetched at most, the root included (clamped to [`MAX_AX_FRAMES`]).
    pub max_frames: usize,
    /// OOPIFs nested deeper than this are left out.
    pub max_oopif_depth: usize,
    /// Only this frame and the frames below it.
    pub frame_id: Option<String>,
    /// Only the subtree of this ref of the last snapshot (`e12`).
    pub reference: Option<String>,
}

impl Default for AxOptions {
    fn default() -> Self {
        AxOptions {
            timeout: DEFAULT_AX_TIMEOUT,
            max_nodes: DEFAULT_MAX_NODES,
            max_chars: None,
            max_frames: DEFAULT_MAX_AX_FRAMES,
            max_oopif_depth: DEFAULT_MAX_OOPIF_DEPTH,
            frame_id: None,
            reference: None,
        }
    }
}

/// Why a snapshot or a ref resolution failed. [`AxError::code`] is the stable code.
///
/// ```
/// use cdp_supervisor::ax::AxError;
/// let e = AxError::StaleRef { reference: "e4".into(), why: "its frame navigated".into() };
/// assert_eq!(e.code(), "stale_ref");
/// assert!(e.to_string().contains("take a new snapshot"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum AxError {
    /// No page session yet (or any more).
    #[error("no page is attached (the supervisor is connecting or the tab is gone); wait for page.state \"live\"")]
    NotAttached,
    /// The frame asked for is not known.
    #[error("unknown frame {frame_id}: it is not (or no longer) in the frame tree; take a fresh snapshot")]
    UnknownFrame {
        /// The frame id given.
        frame_id: String,
    },
    /// A `find` query that is missing or invalid (the parameter named).
    #[error("bad find: {what}")]
    BadRequest {
        /// The parameter and what is wrong with it.
        what: String,
    },
    /// A ref that is not of the form `e12`.
    #[error(
        "{reference:?} is not a ref: refs look like e12, as an accessibility snapshot lists them"
    )]
    BadRef {
        /// What was given.
        reference: String,
    },
    /// The ref's node is gone or its frame has another document now.
    #[error("ref {reference} is stale: {why}; take a new snapshot and use its refs")]
    StaleRef {
        /// The ref.
        reference: String,
        /// Why, in words.
        why: String,
    },
    /// Too many snapshots are running already.
    #[error("{limit} accessibility snapshots (or ref resolutions) are already running; wait for one to finish")]
    TooManyRunning {
        /// The cap.
        limit: usize,
    },
    /// The root frame's tree could not be had (then there is no outline to show).
    #[error("the accessibility tree of frame {frame_id} could not be had: {reason}")]
    RootUnavailable {
        /// The frame.
        frame_id: String,
        /// Why.
        reason: String,
        /// `timeout`, `session_gone`, `disconnected` or `cdp_error`.
        code: &'static str,
    },
    /// A dialog holds the renderer of the frame the snapshot starts from (the top frame,
    /// or the frame or ref asked for), so no part of the outline can be had until it is
    /// answered. Frames of other renderers are only left out, never this error.
    #[error("{} dialog {} ({:?}) in frame {} blocks the renderer of frame {frame_id}, so its accessibility tree cannot be had; answer the dialog (dialog_id {}), then take a new snapshot", .dialog.kind, .dialog.id, .dialog.message, .dialog.frame_id, .dialog.id)]
    Blocked {
        /// The frame the snapshot starts from.
        frame_id: String,
        /// The dialog in the way.
        dialog: Box<PendingDialog>,
    },
    /// The tab's renderer crashed.
    #[error("tab {tab_id} crashed (its renderer is gone) and answers nothing; call recover on it to reload it, or close it")]
    Crashed {
        /// The tab.
        tab_id: String,
    },
    /// No tab has that id.
    #[error("no tab {tab_id}: it closed or never was; list the tabs and pick one of theirs")]
    NoSuchTab {
        /// The id given.
        tab_id: String,
    },
}

impl AxError {
    /// The stable snake_case code of the error.
    ///
    /// ```
    /// assert_eq!(cdp_supervisor::ax::AxError::NotAttached.code(), "disconnected");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            AxError::NotAttached => "disconnected",
            AxError::UnknownFrame { .. } => "no_such_frame",
            AxError::BadRef { .. }
            | AxError::BadRequest { .. }
            | AxError::TooManyRunning { .. } => "bad_request",
            AxError::StaleRef { .. } => "stale_ref",
            AxError::RootUnavailable { code, .. } => code,
            AxError::Blocked { .. } => "blocked",
            AxError::Crashed { .. } => "crashed",
            AxError::NoSuchTab { .. } => "no_such_tab",
        }
    }

    /// The dialog in the way, for `blocked`.
    ///
    /// ```
    /// use cdp_supervisor::ax::AxError;
    /// assert!(AxError::NotAttached.dialog().is_none());
    /// ```
    pub fn dialog(&self) -> Option<&PendingDialog> {
        match self {
            AxError::Blocked { dialog, .. } => Some(&**dialog),
            _ => None,
        }
    }
}
