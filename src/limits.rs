//! Every bound of the supervisor, in one place.
//!
//! Each collection the supervisor keeps is bounded, so a flood of events costs O(1) memory
//! (see [`crate::manual::rules`], bounds). The `DEFAULT_*` bounds can be changed in
//! [`Config`](crate::Config); the `MAX_*` ones are fixed.
//!
//! | collection | bound | beyond it |
//! |---|---|---|
//! | recent dialogs | [`MAX_RECENT_DIALOGS`] (20) | the oldest is forgotten |
//! | downloads | [`MAX_DOWNLOADS`] (20) | the oldest is forgotten (its later progress is ignored) |
//! | console errors | [`MAX_CONSOLE_ERRORS`] (50) | the oldest is forgotten; each text cut at [`MAX_CONSOLE_TEXT`] (2 000) |
//! | console history (every level) | [`MAX_CONSOLE_HISTORY`] (32) lines per tab, each at most about [`MAX_CONSOLE_TEXT`] bytes (raw arguments over [`MAX_CONSOLE_RAW_ARGS`], 2 048, are joined into text at once) | the oldest is forgotten (a reader is told how many it missed); gone with its tab |
//! | console lines of one action | [`MAX_ACT_CONSOLE_LINES`] (200) | later ones are counted in `console_dropped` |
//! | pending dialogs | [`MAX_PENDING_DIALOGS`] (64) | the oldest is given up, recorded `remote` |
//! | tabs | `max_tabs` ([`DEFAULT_MAX_TABS`], 64) | a page attaching beyond it is resumed and detached at once, untracked, with a warning |
//! | browser contexts the supervisor created | [`MAX_BROWSER_CONTEXTS`] (64) | `create_context` fails at once with `TooManyContexts`; a context is forgotten when disposed or when the connection closes (Chromium disposes it then) |
//! | frames | `max_frames` ([`DEFAULT_MAX_FRAMES`], 10 000) | the oldest-known frame other than the top goes, with its subtree |
//! | sessions | `max_sessions` ([`DEFAULT_MAX_SESSIONS`], 10 000) | a new child is resumed and detached at once, untracked |
//! | execution contexts | [`MAX_CONTEXTS_PER_SESSION`] (32) per session (and the latest default context of 32 frames) | the oldest is forgotten |
//! | embedder commands in flight | `max_commands_in_flight` ([`DEFAULT_MAX_COMMANDS_IN_FLIGHT`], 1 024) | `command` fails at once with `TooManyInFlight` |
//! | evaluates running | `max_commands_in_flight` (1 024); each ends within its budget | `evaluate` fails at once with code `too_many_in_flight` |
//! | accessibility snapshots running | [`MAX_AX_SNAPSHOTS_RUNNING`] (8) | `ax_snapshot` fails at once (`bad_request`) |
//! | fresh ref resolutions running | [`MAX_REF_RESOLUTIONS_RUNNING`] (64) | `resolve_ref_fresh` fails at once (`bad_request`) |
//! | network requests | `network::MAX_NETWORK_REQUESTS` (200) per tab; headers 4 096 bytes per request and direction, URLs 2 048 bytes, a body handed over 64 KiB | the oldest request goes (and leaves the in-flight map); later headers are dropped and flagged; a longer URL or body is cut and flagged |
//! | accessibility refs | the last whole-tab snapshot's, plus scoped snapshots' up to [`MAX_AX_REFS`](crate::ax::MAX_AX_REFS) (20 000) | a whole-tab snapshot replaces them; beyond 20 000 the oldest go; numbers are never reused |
//!
//! ```
//! use cdp_supervisor::limits;
//! assert_eq!(limits::MAX_PENDING_DIALOGS, 64);
//! assert_eq!(limits::MAX_RECENT_DIALOGS, 20);
//! assert_eq!(limits::MAX_CONSOLE_ERRORS, 50);
//! assert_eq!(limits::MAX_ACT_CONSOLE_LINES, 200);
//! assert_eq!(limits::MAX_CONSOLE_HISTORY, 32);
//! assert_eq!(limits::MAX_CONSOLE_RAW_ARGS, 2_048);
//! assert_eq!(limits::MAX_TYPE_TEXT, 10_000);
//! // The table's other numbers:
//! assert_eq!(limits::MAX_CONSOLE_TEXT, 2_000);
//! assert_eq!(limits::DEFAULT_MAX_FRAMES, 10_000);
//! assert_eq!(limits::DEFAULT_MAX_SESSIONS, 10_000);
//! assert_eq!(limits::MAX_CONTEXTS_PER_SESSION, 32);
//! assert_eq!(limits::DEFAULT_MAX_COMMANDS_IN_FLIGHT, 1_024);
//! assert_eq!(limits::MAX_AX_SNAPSHOTS_RUNNING, 8);
//! assert_eq!(limits::MAX_REF_RESOLUTIONS_RUNNING, 64);
//! assert_eq!(limits::MAX_BROWSER_CONTEXTS, 64);
//! assert_eq!(cdp_supervisor::ax::MAX_AX_REFS, 20_000);
//! ```

/// Pending dialogs at most; when one more opens, the oldest is dismissed and recorded
/// `remote`.
pub const MAX_PENDING_DIALOGS: usize = 64;
/// Closed dialogs kept in `recent_dialogs` (a ring: the oldest goes).
pub const MAX_RECENT_DIALOGS: usize = 20;

/// Downloads the snapshot lists (the newest).
pub const MAX_DOWNLOADS: usize = 20;
/// Console errors kept (a ring: the oldest goes).
pub const MAX_CONSOLE_ERRORS: usize = 50;
/// Console lines of every level kept per tab (a ring: the oldest goes), numbered for
/// readers that ask for the lines since an index.
pub const MAX_CONSOLE_HISTORY: usize = 32;
/// Bytes of a console line's raw arguments kept to be joined into text when read; longer
/// ones are joined at once (and cut at [`MAX_CONSOLE_TEXT`]).
pub const MAX_CONSOLE_RAW_ARGS: usize = 2_048;
/// Characters of one console entry's text at most; longer text is cut with an ellipsis.
pub const MAX_CONSOLE_TEXT: usize = 2_000;
/// Listed children of `frame_tree` at most (a view: the frames stay known).
pub const MAX_LISTED_CHILDREN: usize = 30;
/// OOPIFs deeper than this are left out of `frame_tree` with their subtree.
pub const MAX_LISTED_OOPIF_DEPTH: usize = 2;
/// Default of [`Config::max_frames`](crate::Config::max_frames): beyond it the
/// oldest-known frame other than the top is dropped with its subtree.
pub const DEFAULT_MAX_FRAMES: usize = 10_000;
/// Default of [`Config::max_tabs`](crate::Config::max_tabs): a page attaching beyond it
/// is resumed and detached at once, untracked, with a warning.
pub const DEFAULT_MAX_TABS: usize = 64;
/// Browser contexts the supervisor created and has not disposed, at most (creating one
/// more fails at once): each holds a profile's worth of state in Chromium.
pub const MAX_BROWSER_CONTEXTS: usize = 64;
/// Default of [`Config::max_sessions`](crate::Config::max_sessions) (per tab): a child attaching
/// beyond it is resumed and detached at once, untracked.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// Default of [`Config::max_commands_in_flight`](crate::Config::max_commands_in_flight):
/// one more embedder command fails at once. Evaluates running are capped by the same
/// number (each also ends within its budget).
pub const DEFAULT_MAX_COMMANDS_IN_FLIGHT: usize = 1_024;
/// Execution contexts remembered per session, and frames whose latest default context a
/// session remembers (the oldest is forgotten).
pub const MAX_CONTEXTS_PER_SESSION: usize = 32;
/// Accessibility snapshots running at once at most (each bounded by its own deadline); one
/// more fails at once.
pub const MAX_AX_SNAPSHOTS_RUNNING: usize = 8;
/// Fresh ref resolutions running at once at most (each bounded by its own deadline); one
/// more fails at once.
pub const MAX_REF_RESOLUTIONS_RUNNING: usize = 64;
/// `handle_timeout` calls one replay step makes at most (a guard against a busy loop).
pub const MAX_TIMEOUTS_PER_REPLAY_STEP: usize = 100_000;

/// Sizes of the supervisor's tables (see [`Supervisor::table_sizes`](crate::Supervisor::table_sizes)).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableSizes {
    /// Known frames.
    pub frames: usize,
    /// Tracked sessions.
    pub sessions: usize,
    /// Commands in flight (the supervisor's own included).
    pub commands_in_flight: usize,
    /// Pending dialogs.
    pub pending_dialogs: usize,
    /// Recent dialogs.
    pub recent_dialogs: usize,
    /// Console errors.
    pub console_errors: usize,
    /// Transmits not yet polled.
    pub queued_transmits: usize,
    /// Events not yet polled.
    pub queued_events: usize,
}

/// Console lines one action's result keeps (the first ones; later ones are counted in
/// `console_dropped`).
pub const MAX_ACT_CONSOLE_LINES: usize = 200;
/// Characters one `type` action may type.
pub const MAX_TYPE_TEXT: usize = 10_000;
