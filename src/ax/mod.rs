//! The accessibility snapshot: one outline of the whole tab, OOPIFs included, with refs an
//! agent acts on. A tab with two iframes, the second holding a third:
//!
//! ```text
//! - heading "Welcome" [level=1] [ref=e1]
//! - iframe [ref=e2]:
//!   - checkbox "Agree" [ref=e3]
//! - iframe [ref=e4]:
//!   - button "Go" [ref=e5]
//!   - iframe [ref=e6]:
//!     - link "Deep link" [ref=e7]
//! ```
//!
//! Each ref is an [`AxRef`]: `{role, name, nth, frame_id, backend_node_id}`. The rules
//! (which frames, which session, refs across snapshots, a re-rendered node found again) are
//! in [`crate::manual::rules`], the accessibility snapshot.
//!
//! - [`AxNode`] reads a frame's `Accessibility.getFullAXTree`.
//! - [`build_outline`] grafts each child frame's tree under its `<iframe>` and writes the
//!   indented outline agents know from Playwright (`- button "OK" [ref=e5]`).
//! - [`RefTable`] keeps refs stable across snapshots.
//!
//! What is kept: nodes that are not ignored, with a role other than `generic`/`none` or with
//! a name; an unnamed `generic` is collapsed into its children; inline text boxes are left
//! out (their text is the StaticText above them), and a text that only repeats the name or
//! value of the element above it is not shown again. Text lines are content, not targets:
//! they get no ref, and a lone text child is shown inline (`- paragraph [ref=e2]: Hello`).

mod find;
mod node;
mod outline;
mod refs;
mod request;
mod resolve;

pub use find::{FindMatch, FindQuery, Found, MAX_FIND_MATCHES, MAX_FIND_PATTERN};
pub use node::{AxNode, AxStates};
pub use outline::{build_outline, FrameAx, Outline, OutlineLimits, DEFAULT_MAX_NODES};
pub use refs::{ref_number, AxRef, RefEntry, RefTable};
pub use request::{
    AxError, AxOptions, DEFAULT_AX_TIMEOUT, DEFAULT_MAX_AX_FRAMES, DEFAULT_MAX_OOPIF_DEPTH,
    MAX_AX_FRAMES, MAX_AX_REFS,
};
pub use resolve::{resolve_in_tree, resolve_ref, FrameNow, ResolvedRef};

use serde::{Deserialize, Serialize};

/// A frame the snapshot could not show, and why.
///
/// ```
/// use cdp_supervisor::ax::FrameLeftOut;
/// let f = FrameLeftOut { frame_id: "F".into(), url: "http://localhost:1/".into(),
///     reason: "over the frame budget of 10 frames".into() };
/// assert_eq!(serde_json::to_value(&f)?["reason"], "over the frame budget of 10 frames");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameLeftOut {
    /// The frame.
    pub frame_id: String,
    /// Its URL when known.
    pub url: String,
    /// Why it is not in the outline, in words.
    pub reason: String,
}

/// The accessibility snapshot as the embedder receives it (JSON as the sidecar prints it).
///
/// ```
/// use cdp_supervisor::ax::AxSnapshot;
/// let s = AxSnapshot { text: "- button \"OK\" [ref=e1]\n".into(), refs: vec![],
///     truncated: false, frames_left_out: vec![] };
/// let json = serde_json::to_value(&s)?;
/// assert_eq!(json["truncated"], false);
/// assert!(json["frames_left_out"].as_array().is_some_and(|a| a.is_empty()));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AxSnapshot {
    /// The indented outline, one node a line.
    pub text: String,
    /// Every ref the text shows.
    pub refs: Vec<AxRef>,
    /// Whether the node or character budget cut something.
    pub truncated: bool,
    /// Frames not in the outline, each with its reason; never dropped silently.
    pub frames_left_out: Vec<FrameLeftOut>,
}
