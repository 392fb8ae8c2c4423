//! The human view of `watch` on a terminal: one readable line per change.
//!
//! JSON lines are for programs; a person watching the demo wants to see a frame appear
//! with its depth and whether it is an OOPIF, a dialog with the command that answers it,
//! a console error with its frame, the page's state, a tab opening, changing or closing and
//! which tab is current. [`LiveView`] turns each diff into
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
///     origin: "http://x".into(), name: String::new(), is_oopif: oopif, session_id: None,
///     crashed: false };
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
    /// The last line shown per tab (the same rule), and so how many tabs are open: with
    /// more than one, a dialog line names its tab.
    tabs: HashMap<String, String>,
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
            "{mark} frame {}  {depth}{}{}  {}",
            frame.frame_id,
            if frame.is_oopif { "  OOPIF" } else { "" },
            if frame.crashed { "  CRASHED" } else { "" },
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
            Diff::TabOpened { tab } | Diff::TabUpdated { tab } => {
                let seen = line.get(1..).unwrap_or("").to_owned();
                if self.tabs.get(&tab.tab_id) == Some(&seen) {
                    return None;
                }
                if self.tabs.len() < MAX_FRAMES || self.tabs.contains_key(&tab.tab_id) {
                    self.tabs.insert(tab.tab_id.clone(), seen);
                }
                return Some(line);
            }
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
                "! dialog {} {} {:?} in frame {}{}\n    answer: {{\"id\":1,\"cmd\":\"dialog\",\"action\":\"accept\",\"dialog_id\":\"{}\"}}  (or \"dismiss\"{})",
                dialog.id,
                dialog.kind,
                dialog.message,
                dialog.frame_id,
                match dialog.tab_id.as_deref() {
                    Some(tab) if self.tabs.len() > 1 => format!(" of tab {tab}"),
                    _ => String::new(),
                },
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
            Diff::TabOpened { tab } => tab_line('+', tab),
            Diff::TabUpdated { tab } => tab_line('~', tab),
            Diff::TabClosed { tab_id } => {
                self.tabs.remove(tab_id);
                format!("- tab {tab_id}  closed")
            }
            Diff::CurrentTab { tab_id: Some(tab) } => format!(
                "> current tab {tab}  (calls without a tab_id go there; change it: {{\"id\":1,\"cmd\":\"tab_select\",\"tab_id\":\"...\"}})"
            ),
            Diff::CurrentTab { tab_id: None } => "> no tab left".to_owned(),
            _ => return None,
        })
    }
}

/// `+ tab T  live  "Title"  http://...  (opened by O)`; the current tab is marked.
fn tab_line(mark: char, tab: &cdp_supervisor::TabInfo) -> String {
    use cdp_supervisor::TabState;
    // Capitals for what needs a person's eye, as the page line does.
    let state = match tab.state {
        TabState::Attaching => "attaching",
        TabState::Live => "live",
        TabState::Blocked => "BLOCKED",
        TabState::Crashed => "CRASHED",
    };
    format!(
        "{mark} tab {}  {state}{}  {:?}  {}{}",
        tab.tab_id,
        if tab.current { "  current" } else { "" },
        tab.title,
        tab.url,
        tab.opener_tab_id
            .as_deref()
            .map(|o| format!("  (opened by {o})"))
            .unwrap_or_default()
    )
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
            crashed: false,
        }
    }

    #[test]
    fn tabs_show_as_lines_and_a_dialog_names_its_tab_once_there_are_two() {
        use cdp_supervisor::{DialogKind, PendingDialog, TabInfo, TabState};
        let tab = |id: &str, opener: Option<&str>, current: bool| TabInfo {
            tab_id: id.into(),
            url: format!("http://x/{id}"),
            title: id.to_lowercase(),
            opener_tab_id: opener.map(Into::into),
            state: TabState::Live,
            current,
            browser_context_id: None,
        };
        let mut view = LiveView::default();
        let opened = view.line(&Diff::TabOpened {
            tab: tab("A", None, true),
        });
        assert_eq!(
            opened.as_deref(),
            Some("+ tab A  live  current  \"a\"  http://x/A")
        );
        let popup = view.line(&Diff::TabOpened {
            tab: tab("B", Some("A"), false),
        });
        assert_eq!(
            popup.as_deref(),
            Some("+ tab B  live  \"b\"  http://x/B  (opened by A)")
        );
        // The same entry again shows nothing; a crash shows.
        assert_eq!(
            view.line(&Diff::TabUpdated {
                tab: tab("B", Some("A"), false)
            }),
            None
        );
        let mut crashed = tab("B", Some("A"), false);
        crashed.state = TabState::Crashed;
        let line = view.line(&Diff::TabUpdated { tab: crashed }).unwrap();
        assert!(line.starts_with("~ tab B  CRASHED"), "{line}");
        let current = view.line(&Diff::CurrentTab {
            tab_id: Some("B".into()),
        });
        assert!(current.unwrap().starts_with("> current tab B"));
        let dialog = PendingDialog {
            id: "d-1".into(),
            kind: DialogKind::Alert,
            message: "hi".into(),
            default_prompt: String::new(),
            opened_at: 0.0,
            frame_id: "B".into(),
            url: String::new(),
            tab_id: Some("B".into()),
            mode: None,
            backend_node_id: None,
            auth: None,
        };
        let line = view.line(&Diff::DialogOpened { dialog }).unwrap();
        assert!(
            line.starts_with("! dialog d-1 alert \"hi\" in frame B of tab B\n"),
            "{line}"
        );
        let closed = view.line(&Diff::TabClosed { tab_id: "B".into() });
        assert_eq!(closed.as_deref(), Some("- tab B  closed"));
        assert_eq!(view.tabs.len(), 1);
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
