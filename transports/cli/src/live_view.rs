//! The human view of `watch` on a terminal: one readable line per change.
//!
//! JSON lines are for programs; a person watching the demo wants to see a frame appear
//! with its depth and whether it is an OOPIF, a dialog with the command that answers it,
//! a console error with its frame, the page's state. [`LiveView`] turns each diff into
//! such a line. It remembers each frame's parent to tell depths, and forgets a frame when
//! it goes, so it holds no more frames than the supervisor does.

use std::collections::HashMap;

use cdp_supervisor::{Diff, PageState};

/// Frames remembered at most (the supervisor's own frame cap): beyond it depths read `?`.
const MAX_FRAMES: usize = 10_000;

/// Turns diffs into lines for a person.
///
/// ```
/// use cdp_supervise::live_view::LiveView;
/// use cdp_supervisor::{Diff, FrameInfo};
/// let frame = |id: &str, parent: Option<&str>, oopif: bool| FrameInfo {
///     frame_id: id.into(), parent_frame_id: parent.map(Into::into), url: format!("http://x/{id}"),
///     origin: "http://x".into(), name: String::new(), is_oopif: oopif, session_id: None };
/// let mut view = LiveView::default();
/// view.line(&Diff::FrameAdded { tab_id: None, frame: frame("TOP", None, false) });
/// view.line(&Diff::FrameAdded { tab_id: None, frame: frame("A", Some("TOP"), true) });
/// let line = view.line(&Diff::FrameAdded { tab_id: None, frame: frame("B", Some("A"), true) });
/// assert_eq!(line.as_deref(), Some("+ frame B  depth 2  OOPIF  http://x/B"));
/// ```
#[derive(Debug, Default)]
pub struct LiveView {
    parents: HashMap<String, Option<String>>,
    /// The last line shown per frame and for the page: a diff that changes nothing a
    /// person sees (a session id, say) shows no line.
    shown: HashMap<String, String>,
}

fn state_word(state: PageState) -> &'static str {
    match state {
        PageState::Attaching => "attaching",
        PageState::Live => "live",
        PageState::Blocked => "BLOCKED",
        PageState::Crashed => "CRASHED",
        PageState::Detached => "detached",
    }
}

impl LiveView {
    fn remember(&mut self, id: &str, parent: Option<&String>) {
        if self.parents.len() < MAX_FRAMES || self.parents.contains_key(id) {
            self.parents.insert(id.to_owned(), parent.cloned());
        }
    }

    /// The frame's distance from the top, by the parents seen (`None` when unknown).
    fn depth(&self, id: &str) -> Option<usize> {
        let mut depth = 0;
        let mut at = id;
        // Bounded by the frames remembered: a cycle in malformed input ends too.
        for _ in 0..=self.parents.len() {
            match self.parents.get(at)? {
                None => return Some(depth),
                Some(parent) => {
                    depth += 1;
                    at = parent;
                }
            }
        }
        None
    }

    fn frame_line(&self, mark: char, frame: &cdp_supervisor::FrameInfo) -> String {
        let depth = match self.depth(&frame.frame_id) {
            Some(0) => "top".to_owned(),
            Some(d) => format!("depth {d}"),
            None => "depth ?".to_owned(),
        };
        format!(
            "{mark} frame {}  {depth}{}  {}",
            frame.frame_id,
            if frame.is_oopif { "  OOPIF" } else { "" },
            frame.url
        )
    }

    /// The line for one diff (`None` for a diff a person need not see, or one that would
    /// repeat the last line about the same frame or page).
    pub fn line(&mut self, diff: &Diff) -> Option<String> {
        let line = self.render(diff)?;
        let key = match diff {
            Diff::FrameAdded { frame, .. } | Diff::FrameUpdated { frame, .. } => {
                frame.frame_id.as_str()
            }
            Diff::Page { .. } => "",
            _ => return Some(line),
        };
        let seen = line.get(1..).unwrap_or("");
        if self.shown.get(key).is_some_and(|last| last == seen) {
            return None;
        }
        if self.shown.len() < MAX_FRAMES || self.shown.contains_key(key) {
            self.shown.insert(key.to_owned(), seen.to_owned());
        }
        Some(line)
    }

    fn render(&mut self, diff: &Diff) -> Option<String> {
        Some(match diff {
            Diff::FrameAdded { frame, .. } => {
                self.remember(&frame.frame_id, frame.parent_frame_id.as_ref());
                self.frame_line('+', frame)
            }
            Diff::FrameUpdated { frame, .. } => {
                self.remember(&frame.frame_id, frame.parent_frame_id.as_ref());
                self.frame_line('~', frame)
            }
            Diff::FrameRemoved { frame_id, .. } => {
                self.parents.remove(frame_id);
                self.shown.remove(frame_id);
                format!("- frame {frame_id}  gone")
            }
            Diff::DialogOpened { dialog } => format!(
                "! dialog {} {} {:?} in frame {}\n    answer: {{\"id\":1,\"cmd\":\"dialog\",\"action\":\"accept\",\"dialog_id\":\"{}\"}}  (or \"dismiss\"{})",
                dialog.id,
                dialog.kind,
                dialog.message,
                dialog.frame_id,
                dialog.id,
                if dialog.kind == "prompt" {
                    "; add \"prompt_text\":\"...\" for a prompt"
                } else {
                    ""
                }
            ),
            Diff::DialogClosed { dialog } => format!(
                "  dialog {} closed by {}, {}",
                dialog.id,
                serde_json::to_value(dialog.closed_by)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                if dialog.accepted { "accepted" } else { "dismissed" }
            ),
            Diff::ConsoleError { entry, .. } => format!(
                "x console {} in frame {}: {}",
                serde_json::to_value(entry.level)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                entry.frame_id.as_deref().unwrap_or("?"),
                entry.text
            ),
            Diff::Page { page: Some(page), .. } => match (&page.state, &page.reason) {
                (PageState::Blocked, reason) => format!(
                    "# page BLOCKED{}\n    release it: {{\"id\":1,\"cmd\":\"recover\"}}",
                    reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                ),
                (state, _) => format!("# page {}  (target {})", state_word(*state), page.target_id),
            },
            Diff::Page { page: None, .. } => "# no page attached".to_owned(),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cdp_supervisor::FrameInfo;

    fn frame(id: &str, parent: Option<&str>) -> FrameInfo {
        FrameInfo {
            frame_id: id.into(),
            parent_frame_id: parent.map(Into::into),
            url: "about:blank".into(),
            origin: String::new(),
            name: String::new(),
            is_oopif: false,
            session_id: None,
        }
    }

    #[test]
    fn a_cycle_of_parents_reads_unknown_depth_and_gone_frames_are_forgotten() {
        let mut view = LiveView::default();
        view.line(&Diff::FrameAdded {
            tab_id: None,
            frame: frame("A", Some("B")),
        });
        let line = view.line(&Diff::FrameAdded {
            tab_id: None,
            frame: frame("B", Some("A")),
        });
        assert!(line.unwrap().contains("depth ?"));
        view.line(&Diff::FrameRemoved {
            tab_id: None,
            frame_id: "A".into(),
        });
        view.line(&Diff::FrameRemoved {
            tab_id: None,
            frame_id: "B".into(),
        });
        assert!(view.parents.is_empty() && view.shown.is_empty());
        // An update that changes nothing visible shows no line; one that does, shows.
        let mut f = frame("C", None);
        assert!(view
            .line(&Diff::FrameAdded {
                tab_id: None,
                frame: f.clone()
            })
            .is_some());
        f.session_id = Some("S".into());
        assert_eq!(
            view.line(&Diff::FrameUpdated {
                tab_id: None,
                frame: f.clone()
            }),
            None
        );
        f.url = "http://x/".into();
        assert!(view
            .line(&Diff::FrameUpdated {
                tab_id: None,
                frame: f
            })
            .is_some());
    }
}
