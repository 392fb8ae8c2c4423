//! The snapshot (see [rules](crate::manual::rules), the snapshot), its diffs, and [`Mirror`], which folds diffs back into a
//! snapshot (what an embedder does; the property tests check it equals
//! [`Supervisor::snapshot`](crate::Supervisor::snapshot)).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::dialog::DialogKind;

pub use crate::limits::{
    MAX_CONSOLE_ERRORS, MAX_LISTED_CHILDREN, MAX_LISTED_OOPIF_DEPTH, MAX_RECENT_DIALOGS,
};

/// One frame, as diffs describe it.
///
/// ```
/// use cdp_supervisor::FrameInfo;
/// let f = FrameInfo { frame_id: "F".into(), parent_frame_id: None, url: "about:blank".into(),
///     origin: "null".into(), name: String::new(), is_oopif: false, session_id: None,
///     crashed: false };
/// assert_eq!(serde_json::to_string(&f)?,
///     r#"{"frame_id":"F","parent_frame_id":null,"url":"about:blank","origin":"null","is_oopif":false}"#);
/// // A crashed OOPIF says so (the field is left out while false).
/// let crashed = FrameInfo { is_oopif: true, session_id: Some("S".into()), crashed: true, ..f };
/// assert!(serde_json::to_string(&crashed)?.ends_with(r#""session_id":"S","crashed":true}"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameInfo {
    /// Chromium's frame id (for an OOPIF, also its target id).
    pub frame_id: String,
    /// `None` for the top frame and for frames whose parent was never reported.
    pub parent_frame_id: Option<String>,
    /// The frame's current URL (with fragment).
    pub url: String,
    /// `securityOrigin` as Chromium reports it; empty until the frame navigates.
    pub origin: String,
    /// The frame's `name` attribute, omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Whether the frame lives in its own renderer process with its own CDP session.
    pub is_oopif: bool,
    /// The OOPIF's own session; present on OOPIFs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The OOPIF's renderer crashed (`Inspector.targetCrashed` on its session): it answers
    /// nothing, and its calls fail at once with `crashed`, until the frame navigates
    /// again (its parent reloads, or sets the iframe's `src`). Omitted while false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub crashed: bool,
}

/// Serde's skip test for flags that are omitted while false.
fn is_false(flag: &bool) -> bool {
    !*flag
}

/// The top frame as `frame_tree.top` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopFrame {
    /// The top frame's id, equal to the page's target id.
    pub frame_id: String,
    /// Its URL.
    pub url: String,
    /// Its origin.
    pub origin: String,
}

/// The `frame_tree` view (see [rules](crate::manual::rules), the snapshot), computed from every known frame.
///
/// ```
/// use cdp_supervisor::snapshot::FrameTree;
/// let t = FrameTree::default();
/// assert_eq!(serde_json::to_string(&t)?, r#"{"top":null,"children":[],"truncated":false}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameTree {
    /// The top frame; `null` until the page's top frame is known.
    pub top: Option<TopFrame>,
    /// Breadth-first from the top, in the order frames became known; at most 30.
    pub children: Vec<FrameInfo>,
    /// True exactly when some known frame of the tab is not listed.
    pub truncated: bool,
}

/// A dialog that is showing (or, for the bridge, waiting for its answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingDialog {
    /// `d-1`, `d-2`, ... per supervisor, never reused.
    pub id: String,
    /// `alert`, `confirm`, `prompt` or `beforeunload`, as Chromium names it, or
    /// `file_chooser`.
    #[serde(rename = "type")]
    pub kind: DialogKind,
    /// The dialog's message.
    pub message: String,
    /// The prompt's default text (empty for other types).
    pub default_prompt: String,
    /// When it opened, on the embedder's clock.
    pub opened_at: f64,
    /// The frame that raised it.
    pub frame_id: String,
    /// The URL of the document that raised it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// The tab it belongs to (its target id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<Arc<str>>,
    /// A file chooser's mode: `selectSingle` (takes one file) or `selectMultiple`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// A file chooser's element: the file input's `backendNodeId` in its frame's session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// An `http_auth` dialog's challenge: who asks, the realm, the scheme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<crate::http_auth::AuthChallenge>,
}

/// Who closed a dialog (see [rules](crate::manual::rules), closing, and closed_by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedBy {
    /// The embedder (the agent) answered it.
    Agent,
    /// The `auto_dismiss` / `auto_accept` policy answered it.
    AutoPolicy,
    /// The `dialog_timeout` watchdog dismissed it.
    Watchdog,
    /// Someone else: a navigation, a newer dialog, the browser, a proxy, a vanished frame.
    Remote,
}

/// A closed dialog, as `recent_dialogs` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClosedDialog {
    /// The dialog's id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: DialogKind,
    /// Its message.
    pub message: String,
    /// When it opened.
    pub opened_at: f64,
    /// When Chromium reported it closed (or the supervisor gave it up).
    pub closed_at: f64,
    /// Who closed it.
    pub closed_by: ClosedBy,
    /// The frame that raised it.
    pub frame_id: String,
    /// Whether it was accepted (`javascriptDialogClosed.result`).
    #[serde(default)]
    pub accepted: bool,
    /// The text a prompt returned, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_input: Option<String>,
    /// The tab it belonged to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<Arc<str>>,
}

/// What kind of console error an entry is.
///
/// ```
/// use cdp_supervisor::ConsoleLevel;
/// assert_eq!(serde_json::to_string(&ConsoleLevel::Exception)?, r#""exception""#);
/// assert_eq!(ConsoleLevel::Assert.as_str(), "assert");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    /// An uncaught exception (`Runtime.exceptionThrown`).
    Exception,
    /// `console.error`.
    Error,
    /// A failed `console.assert`.
    Assert,
}

impl ConsoleLevel {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ConsoleLevel::Exception => "exception",
            ConsoleLevel::Error => "error",
            ConsoleLevel::Assert => "assert",
        }
    }
}

/// One console error (see [rules](crate::manual::rules), the supervisor's state).
///
/// ```
/// use cdp_supervisor::{ConsoleEntry, ConsoleLevel};
/// let e = ConsoleEntry { level: ConsoleLevel::Error, text: "boom".into(),
///     frame_id: Some("F".into()), session_id: None, at: 1.5 };
/// assert_eq!(serde_json::to_string(&e)?,
///     r#"{"level":"error","text":"boom","frame_id":"F","at":1.5}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleEntry {
    /// `exception` (uncaught), `error` (`console.error`) or `assert` (`console.assert`).
    pub level: ConsoleLevel,
    /// The text: the exception's description, or the console arguments joined by spaces.
    pub text: String,
    /// The frame it came from, when known.
    pub frame_id: Option<Arc<str>>,
    /// The session it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<Arc<str>>,
    /// When it arrived.
    pub at: f64,
}

/// The supervised page's state (see [rules](crate::manual::rules), the snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageState {
    /// Attach sent, `Page.enable` not answered yet.
    Attaching,
    /// Answering.
    Live,
    /// Attached but not answering (see [chromium_facts](crate::manual::chromium_facts), a dialog left open wedges the tab) or a dialog Chromium can no longer answer
    /// (see [chromium_facts](crate::manual::chromium_facts), two dialogs at once can wedge a frame); `recover` releases it.
    Blocked,
    /// The renderer crashed (see [chromium_facts](crate::manual::chromium_facts), a crash).
    Crashed,
    /// The session is gone (target closed, connection lost).
    Detached,
}

/// The page entry of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    /// The page's target id (its top frame id too).
    pub target_id: String,
    /// The page session; absent before attach completes and after detach.
    pub session_id: Option<String>,
    /// See [`PageState`].
    pub state: PageState,
    /// Why the page is `blocked`, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The whole observable state (see [rules](crate::manual::rules), the snapshot).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Dialogs waiting for an answer, oldest first.
    pub pending_dialogs: Vec<PendingDialog>,
    /// The 20 most recently closed dialogs, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_dialogs: Vec<ClosedDialog>,
    /// The frame tree view.
    pub frame_tree: FrameTree,
    /// The 50 most recent console errors, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console_errors: Vec<ConsoleEntry>,
    /// The current tab's page; `null` before any tab is attached.
    pub page: Option<PageInfo>,
    /// Every tab of the browser, in the order they became known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<TabInfo>,
    /// The frame trees of the tabs other than the current one, by tab id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tab_frame_trees: BTreeMap<String, FrameTree>,
    /// The last 20 downloads, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Download>,
}

/// Where a tab stands (see [rules](crate::manual::rules), tabs).
///
/// ```
/// use cdp_supervisor::snapshot::TabState;
/// assert_eq!(serde_json::to_string(&TabState::Crashed)?, r#""crashed""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabState {
    /// Its session is being set up, or it is reconnecting.
    Attaching,
    /// Supervised and answering.
    Live,
    /// Attached but not answering, or a dialog Chromium can no longer answer.
    Blocked,
    /// Its renderer crashed: `recover` reloads it.
    Crashed,
}

/// One tab, as `tabs` lists it.
///
/// ```
/// use cdp_supervisor::snapshot::{TabInfo, TabState};
/// let mut t = TabInfo { tab_id: "T".into(), url: "about:blank".into(), title: String::new(),
///     opener_tab_id: None, state: TabState::Live, current: true, browser_context_id: None };
/// assert_eq!(serde_json::to_string(&t)?,
///     r#"{"tab_id":"T","url":"about:blank","title":"","opener_tab_id":null,"state":"live","current":true}"#);
/// t.browser_context_id = Some("C".into());
/// assert!(serde_json::to_string(&t)?.ends_with(r#""current":true,"browser_context_id":"C"}"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabInfo {
    /// The tab's id: its CDP target id (also its top frame's id).
    pub tab_id: String,
    /// Its top frame's URL.
    pub url: String,
    /// Its document title, when known.
    pub title: String,
    /// The tab that opened it (a popup, a `target=_blank` link), if any.
    pub opener_tab_id: Option<String>,
    /// See [`TabState`].
    pub state: TabState,
    /// Whether calls without a `tab_id` go to it.
    pub current: bool,
    /// The browser context it lives in (its cookies, storage and tabs are that
    /// context's), as Chromium names it: the default context's id for an ordinary tab;
    /// `None` until Chromium said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

/// One change to the state (see [rules](crate::manual::rules), the snapshot). Serialized with an `op` tag.
///
/// ```
/// use cdp_supervisor::Diff;
/// let d = Diff::FrameRemoved { tab_id: None, frame_id: "F".into() };
/// assert_eq!(serde_json::to_string(&d)?, r#"{"op":"frame_removed","frame_id":"F"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Diff {
    /// A dialog became pending.
    DialogOpened {
        /// The pending dialog.
        dialog: PendingDialog,
    },
    /// A pending dialog closed.
    DialogClosed {
        /// The closed record, with `closed_by`.
        dialog: ClosedDialog,
    },
    /// A frame became known.
    FrameAdded {
        /// The tab it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<Arc<str>>,
        /// The frame.
        frame: FrameInfo,
    },
    /// A known frame changed (URL, origin, name, OOPIF status, session, parent).
    FrameUpdated {
        /// The tab it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<Arc<str>>,
        /// The frame as it is now.
        frame: FrameInfo,
    },
    /// A frame is gone.
    FrameRemoved {
        /// The tab it belonged to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<Arc<str>>,
        /// Its id.
        frame_id: String,
    },
    /// A console error arrived.
    ConsoleError {
        /// The tab it came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<Arc<str>>,
        /// The entry, shared with the supervisor's ring of recent errors (a busy page
        /// logs thousands; one copy of each is enough).
        entry: Arc<ConsoleEntry>,
    },
    /// A tab's page entry changed (`page` in the snapshot when it is the current tab).
    Page {
        /// The tab it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<Arc<str>>,
        /// The page as it is now.
        page: Option<PageInfo>,
    },
    /// A tab became known (a popup, a new tab, a page that was open at attach).
    TabOpened {
        /// The tab.
        tab: TabInfo,
    },
    /// A tab's URL, title, state or opener changed.
    TabUpdated {
        /// The tab as it is now.
        tab: TabInfo,
    },
    /// A tab is gone (closed, or its target detached), with its frames and dialogs.
    TabClosed {
        /// Its id.
        tab_id: String,
    },
    /// Calls without a `tab_id` now go to this tab (`null`: none is left).
    CurrentTab {
        /// The current tab.
        tab_id: Option<String>,
    },
    /// A download began (the downloads module says how they are tracked).
    DownloadStarted {
        /// The download.
        download: Download,
    },
    /// A download completed (with its path) or was canceled (with why, when the
    /// supervisor canceled it).
    DownloadFinished {
        /// The download.
        download: Download,
    },
}

#[doc(hidden)] // internal: the frame_tree view, public for tests
/// Builds the `frame_tree` view from every known frame, given in the order they became known.
///
/// The top is the frame whose id is `top_id` (the page's target id). Breadth-first, at most
/// [`MAX_LISTED_CHILDREN`] children, OOPIFs deeper than [`MAX_LISTED_OOPIF_DEPTH`] left out
/// with their subtree, and `truncated` exactly when a known frame other than the top is
/// not listed (orphans whose parent is unknown included).
///
/// ```
/// use cdp_supervisor::{FrameInfo, snapshot::build_frame_tree};
/// let f = |id: &str, parent: Option<&str>| FrameInfo { frame_id: id.into(),
///     parent_frame_id: parent.map(Into::into), url: String::new(), origin: String::new(),
///     name: String::new(), is_oopif: false, session_id: None, crashed: false };
/// let frames = [f("T", None), f("A", Some("T")), f("orphan", Some("gone"))];
/// let tree = build_frame_tree(Some("T"), frames.iter());
/// assert_eq!(tree.children.len(), 1);
/// assert!(tree.truncated);
/// ```
pub fn build_frame_tree<'a>(
    top_id: Option<&str>,
    frames_in_order: impl Iterator<Item = &'a FrameInfo>,
) -> FrameTree {
    let frames: Vec<&FrameInfo> = frames_in_order.collect();
    let top = top_id.and_then(|id| frames.iter().find(|f| f.frame_id == id).copied());
    let Some(top) = top else {
        return FrameTree {
            top: None,
            children: Vec::new(),
            truncated: !frames.is_empty(),
        };
    };
    // Children of each parent, in knowledge order.
    let mut children_of: BTreeMap<&str, Vec<&FrameInfo>> = BTreeMap::new();
    for f in &frames {
        if f.frame_id == top.frame_id {
            continue;
        }
        if let Some(p) = f.parent_frame_id.as_deref() {
            children_of.entry(p).or_default().push(f);
        }
    }
    let mut listed = Vec::new();
    let mut queue: VecDeque<(&str, usize)> = VecDeque::new();
    queue.push_back((top.frame_id.as_str(), 0));
    'bfs: while let Some((id, depth)) = queue.pop_front() {
        for child in children_of.get(id).map(Vec::as_slice).unwrap_or(&[]) {
            let child_depth = depth + 1;
            if child.is_oopif && child_depth > MAX_LISTED_OOPIF_DEPTH {
                continue;
            }
            if listed.len() == MAX_LISTED_CHILDREN {
                break 'bfs;
            }
            listed.push((*child).clone());
            queue.push_back((child.frame_id.as_str(), child_depth));
        }
    }
    let known_children = frames.len() - 1;
    FrameTree {
        top: Some(TopFrame {
            frame_id: top.frame_id.clone(),
            url: top.url.clone(),
            origin: top.origin.clone(),
        }),
        truncated: listed.len() != known_children,
        children: listed,
    }
}

/// Folds diffs into a snapshot, as an embedder of the supervisor would.
///
/// Diffs without a `tab_id` (a one-tab embedder's, or a recording made before tabs)
/// belong to the current tab.
///
/// ```
/// use cdp_supervisor::{Diff, Mirror};
/// let mut m = Mirror::default();
/// m.apply(&Diff::FrameRemoved { tab_id: None, frame_id: "nope".into() }); // unknown: ignored
/// assert_eq!(m.snapshot().frame_tree.children.len(), 0);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Mirror {
    /// Per tab id (`""`: diffs that named no tab).
    tabs: BTreeMap<String, MirrorTab>,
    /// Tab ids in the order they opened.
    tab_order: Vec<String>,
    current: Option<String>,
    next_seq: u64,
    pending: Vec<PendingDialog>,
    recent: VecDeque<ClosedDialog>,
    downloads: VecDeque<Download>,
}

/// What the mirror knows of one tab.
#[derive(Debug, Clone, Default)]
struct MirrorTab {
    info: Option<TabInfo>,
    frames: BTreeMap<String, (u64, FrameInfo)>,
    console: VecDeque<Arc<ConsoleEntry>>,
    page: Option<PageInfo>,
}

impl Mirror {
    /// The tab a diff names, or the current one.
    fn tab(&mut self, tab_id: &Option<Arc<str>>) -> &mut MirrorTab {
        let key = match tab_id {
            Some(t) => t.to_string(),
            None => self.current.clone().unwrap_or_default(),
        };
        self.tabs.entry(key).or_default()
    }

    /// Applies one diff.
    pub fn apply(&mut self, diff: &Diff) {
        match diff {
            Diff::DialogOpened { dialog } => self.pending.push(dialog.clone()),
            Diff::DialogClosed { dialog } => {
                self.pending.retain(|d| d.id != dialog.id);
                push_ring(&mut self.recent, dialog.clone(), MAX_RECENT_DIALOGS);
            }
            Diff::FrameAdded { tab_id, frame } => {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.tab(tab_id)
                    .frames
                    .insert(frame.frame_id.clone(), (seq, frame.clone()));
            }
            Diff::FrameUpdated { tab_id, frame } => {
                if let Some(entry) = self.tab(tab_id).frames.get_mut(&frame.frame_id) {
                    entry.1 = frame.clone();
                }
            }
            Diff::FrameRemoved { tab_id, frame_id } => {
                self.tab(tab_id).frames.remove(frame_id);
            }
            Diff::ConsoleError { tab_id, entry } => push_ring(
                &mut self.tab(tab_id).console,
                entry.clone(),
                MAX_CONSOLE_ERRORS,
            ),
            Diff::Page { tab_id, page } => self.tab(tab_id).page = page.clone(),
            Diff::DownloadStarted { download } | Diff::DownloadFinished { download } => {
                match self.downloads.iter_mut().find(|d| d.id == download.id) {
                    Some(known) => *known = download.clone(),
                    None => push_ring(
                        &mut self.downloads,
                        download.clone(),
                        crate::limits::MAX_DOWNLOADS,
                    ),
                }
            }
            Diff::TabOpened { tab } | Diff::TabUpdated { tab } => {
                if !self.tab_order.contains(&tab.tab_id) {
                    self.tab_order.push(tab.tab_id.clone());
                }
                let mut info = tab.clone();
                info.current = self.current.as_deref() == Some(tab.tab_id.as_str());
                self.tabs.entry(tab.tab_id.clone()).or_default().info = Some(info);
            }
            Diff::TabClosed { tab_id } => {
                self.tab_order.retain(|t| t != tab_id);
                self.tabs.remove(tab_id);
                if self.current.as_deref() == Some(tab_id.as_str()) {
                    self.current = None;
                }
            }
            Diff::CurrentTab { tab_id } => {
                self.current = tab_id.clone();
                for (id, t) in self.tabs.iter_mut() {
                    if let Some(info) = &mut t.info {
                        info.current = Some(id) == tab_id.as_ref();
                    }
                }
            }
        }
    }

    /// The snapshot the folded diffs describe.
    pub fn snapshot(&self) -> Snapshot {
        let current_key = self.current.clone().unwrap_or_default();
        let tree = |t: &MirrorTab| {
            let mut ordered: Vec<&(u64, FrameInfo)> = t.frames.values().collect();
            ordered.sort_by_key(|(seq, _)| *seq);
            build_frame_tree(
                t.page.as_ref().map(|p| p.target_id.as_str()),
                ordered.into_iter().map(|(_, f)| f),
            )
        };
        let current = self.tabs.get(&current_key);
        let tab_frame_trees = self
            .tab_order
            .iter()
            .filter(|id| **id != current_key)
            .filter_map(|id| Some((id.clone(), tree(self.tabs.get(id)?))))
            .collect();
        Snapshot {
            pending_dialogs: self.pending.clone(),
            recent_dialogs: self.recent.iter().cloned().collect(),
            frame_tree: current.map(tree).unwrap_or_default(),
            console_errors: current
                .map(|t| t.console.iter().map(|e| ConsoleEntry::clone(e)).collect())
                .unwrap_or_default(),
            page: current.and_then(|t| t.page.clone()),
            tabs: self
                .tab_order
                .iter()
                .filter_map(|id| self.tabs.get(id)?.info.clone())
                .collect(),
            tab_frame_trees,
            downloads: self.downloads.iter().cloned().collect(),
        }
    }
}

/// Pushes onto a ring that keeps the newest `cap` items.
pub(crate) fn push_ring<T>(ring: &mut VecDeque<T>, item: T, cap: usize) {
    while ring.len() >= cap {
        ring.pop_front();
    }
    ring.push_back(item);
}

/// Where a download stands.
///
/// ```
/// use cdp_supervisor::downloads::DownloadState;
/// assert_eq!(serde_json::to_string(&DownloadState::InProgress)?, r#""in_progress""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadState {
    /// Still arriving.
    InProgress,
    /// The whole file is written (at `path`).
    Completed,
    /// Canceled (by the size limit, the page, or the browser); no file is left.
    Canceled,
}

/// One download, as the snapshot lists it.
///
/// ```
/// use cdp_supervisor::downloads::{Download, DownloadState};
/// let d = Download { id: "g".into(), tab_id: None, url: "http://a.test/f".into(),
///     suggested_filename: "f".into(), path: None, state: DownloadState::InProgress,
///     received_bytes: 0, total_bytes: 0, error: None };
/// assert_eq!(serde_json::to_value(&d)?["state"], "in_progress");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Download {
    /// Chromium's guid for it.
    pub id: String,
    /// The tab whose frame started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<Arc<str>>,
    /// What was downloaded (a `blob:` or `data:` URL for one made by script).
    pub url: String,
    /// The name the page or server suggested.
    pub suggested_filename: String,
    /// Where the file is, once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Where it stands.
    pub state: DownloadState,
    /// Bytes received, as of its last diff (the start or the end).
    pub received_bytes: u64,
    /// Its size, when known (0: unknown).
    pub total_bytes: u64,
    /// Why it was canceled, when the supervisor canceled it, or why its file could not be
    /// saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
