//! A small model of a browser and its tabs that turns abstract operations ([`Op`]) into
//! plausible CDP traffic, and a [`Driver`] that feeds that traffic to a [`Supervisor`] the
//! way a real embedder does (drain every output after every input) while checking the
//! invariants of SPEC §3, §9, §10 and §16 after every input.
//!
//! The browser starts with one tab ([`TOP`]); popups attach at browser level (paused, with
//! `openerId`, same-site or cross-site, with or without `canAccessOpener`), tabs close
//! (`detachedFromTarget`, `targetDestroyed`), navigate away, crash, and the embedder
//! selects, opens and closes tabs and sends calls into a named tab. Most ops act on the
//! tab the model has in focus ([`Op::Focus`]; a new popup takes the focus).
//!
//! Shared by `tests/properties.rs` (proptest generates the ops) and the `operations` fuzz
//! target (`fuzz/fuzz_targets/operations.rs` includes this file by path and derives
//! `arbitrary::Arbitrary` for the ops under `cfg(fuzzing)`).
//!
//! The model decides which frames and sessions exist, so most generated events are ones
//! Chromium could send (facts 2-9, 14, 17, 20), but picks at or above [`UNKNOWN_FROM`] name
//! ids the model does not know, and [`Op::Junk`] sends malformed or contradictory input.
//! A violated invariant panics with a message that names it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use cdp_supervisor::snapshot::FrameTree;
use cdp_supervisor::snapshot::{MAX_LISTED_CHILDREN, MAX_LISTED_OOPIF_DEPTH};
use cdp_supervisor::{
    CommandError, Config, DialogAction, DialogPolicy, Diff, Event, FrameInfo, InputError, Mirror,
    Snapshot, Supervisor, MAX_PENDING_DIALOGS,
};
use serde_json::value::RawValue;
use serde_json::Value;

/// The page's target id, also its top frame id.
pub const TOP: &str = "PAGE";

/// An index into whatever the model picks from (frames, sessions, commands, dialogs).
pub type Pick = u8;

/// Picks at or above this name an id the model does not know (about one in eight).
pub const UNKNOWN_FROM: Pick = 224;

/// The bridge's secret in [`config`].
pub const TOKEN: &str = "tok-1";

/// Caps small enough that short sequences reach them (SPEC §6.6 eviction, §16 tabs); the
/// dialog bridge (SPEC §6.5) on or off.
pub fn config(bridge: bool) -> Config {
    let mut config = Config::default();
    config.bridge = bridge.then(|| cdp_supervisor::BridgeConfig::new(TOKEN));
    config.max_frames = 20;
    config.max_sessions = 8;
    config.max_commands_in_flight = 8;
    config.max_tabs = MAX_TABS;
    config.dialog_timeout = Duration::from_secs(60);
    config.upload_roots = vec!["/up".into()];
    let mut downloads = cdp_supervisor::downloads::DownloadConfig::new("/dl");
    downloads.max_bytes = 1000;
    config.downloads = Some(downloads);
    config.permissions = Some(cdp_supervisor::permissions::PermissionConfig::deny_all());
    let mut auth = cdp_supervisor::http_auth::HttpAuthConfig::default();
    auth.credentials
        .push(cdp_supervisor::http_auth::Credentials::parse("http://a.test=u:p").unwrap());
    auth.prompt = true;
    config.http_auth = Some(auth);
    config
}

/// The tab bound of [`config`]: small enough that popups reach it.
pub const MAX_TABS: usize = 4;

/// Tabs the model's browser holds at most (more than [`MAX_TABS`]: some are left
/// unsupervised); a popup beyond opens nothing.
const MODEL_MAX_TABS: usize = 6;
/// A browser context id no one created.
const UNKNOWN_CONTEXT: &str = "CTX-unknown";

/// Time steps an [`Op::Advance`] can take, in seconds: below and above every deadline of
/// [`config`] (enable 5 s, set-up 10 s, watchdog 60 s).
pub const STEPS: [f64; 8] = [0.001, 0.5, 2.0, 5.5, 11.0, 30.0, 61.0, 301.0];

/// One thing that happens: in the browser, on the wire, in time, or an embedder's call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(fuzzing, derive(arbitrary::Arbitrary))]
pub enum Op {
    /// A new in-process frame under `parent`, reported on the session that holds the
    /// parent's document; `navigate` also reports its first navigation.
    FrameAttached { parent: Pick, navigate: bool },
    /// Many frames under one parent at once (reaches the frame cap); with `oopif`, each
    /// becomes an OOPIF right away (reaches the session cap).
    FrameBurst {
        parent: Pick,
        count: u8,
        oopif: bool,
    },
    /// A frame navigates: the top cross-document (fact 5: first-level OOPIF sessions
    /// detach, nested ones vanish silently, the dialog showing closes), a subframe likewise
    /// for its subtree; or within the document.
    FrameNavigated { frame: Pick, within_document: bool },
    /// A subframe is removed from the DOM (fact 4); `targets_first` reports the detach of
    /// the sessions inside before `frameDetached` instead of after.
    FrameRemoved { frame: Pick, targets_first: bool },
    /// A subframe becomes an OOPIF (facts 2, 3): `attachedToTarget` on the parent's
    /// session and `frameDetached {reason: swap}`, in either order.
    FrameSwapped {
        frame: Pick,
        detach_first: bool,
        waiting: bool,
    },
    /// An OOPIF goes back in-process: its session detaches, the frame stays.
    OopifBackInProcess { session: Pick },
    /// A worker or service worker attaches, waiting for the debugger (fact 14).
    WorkerAttached { session: Pick, service: bool },
    /// A worker session, or the page session itself, detaches.
    TargetDetached { session: Pick },
    /// `Inspector.targetCrashed` on a session (facts 13, 18).
    Crashed { session: Pick },
    /// A console error or exception on a session; `burst` sends 55 of them.
    Console {
        session: Pick,
        exception: bool,
        burst: bool,
    },
    /// A dialog opens in any frame, reported on the page session (fact 6). With one
    /// showing, Chromium closes the old one after (fact 8) unless `keep_old`.
    DialogOpening {
        frame: Pick,
        kind: u8,
        keep_old: bool,
    },
    /// Over [`MAX_PENDING_DIALOGS`] dialogs open without closing (the pending bound).
    DialogBurst { count: u8 },
    /// A showing dialog closes, or a lone close arrives (fact 20).
    DialogClosed { which: Pick, result: bool },
    /// The browser replies to one of the supervisor's outstanding commands (picks from
    /// 240: the newest).
    Reply {
        command: Pick,
        kind: ReplyKind,
        with_session: bool,
    },
    /// One outstanding command will never be answered (fact 18).
    Forget { command: Pick },
    /// Time passes by [`STEPS`]`[step % 8]`; every deadline due fires.
    Advance { step: u8 },
    /// The WebSocket closes.
    Disconnect,
    /// The WebSocket (re)opens; `auto_attach` answers `getTargets`, the attach and the
    /// browser-level auto-attach at once.
    Reconnect { auto_attach: bool },
    /// The embedder answers a dialog, by id or the single pending one, among every tab's
    /// dialogs or a named tab's (`tab`: see [`Driver::pick_tab_id`]).
    RespondDialog {
        dialog: Pick,
        by_id: bool,
        accept: bool,
        text: bool,
        tab: Pick,
    },
    /// The embedder sends a command into a frame (or the top) (SPEC §6.7) of the current
    /// tab or a named one.
    Command {
        frame: Pick,
        top: bool,
        method: u8,
        timeout: u8,
        tab: Pick,
    },
    /// The embedder evaluates a script (or an element function by backend node id or by
    /// ref) in a frame (or the top) of the current tab or a named one under a budget; it
    /// must end in exactly one `Evaluated`, within the budget.
    Evaluate {
        frame: Pick,
        top: bool,
        element: u8,
        timeout: u8,
        tab: Pick,
    },
    /// The embedder changes the dialog policy (SPEC §6.1).
    SetPolicy { policy: u8 },
    /// The embedder settles every pending dialog (SPEC §6.8).
    Settle { accept: bool },
    /// The embedder asks for the recovery navigation (SPEC §6.8) of the current tab or a
    /// named one.
    Recover { tab: Pick },
    /// Input Chromium would not send: malformed, unknown ids, cycles, wrong types.
    Junk { kind: u8, pick: Pick },
    /// `Fetch.requestPaused` on the session of a frame's document (fact 12): a bridge
    /// request with or without the token, or another URL (SPEC §6.5).
    RequestPaused { frame: Pick, url: u8, kind: u8 },
    /// A page opened by the tab `opener` (a popup, `target=_blank`; one pick in eight: a
    /// tab opened by hand, without `openerId`) attaches at browser level (facts 23, 24),
    /// paused unless `!waiting`, its url `''`; on the opener's site or `cross_site`, able
    /// to reach its opener or not (`access`: `canAccessOpener`, fact 25b). Once resumed it
    /// navigates. It takes the model's focus.
    PopupOpened {
        opener: Pick,
        cross_site: bool,
        access: bool,
        waiting: bool,
    },
    /// A tab closes (even picks: the tab in focus; SPEC §16, trace `tabs-d-closing`):
    /// `how % 4` 0: browser-level `detachedFromTarget` then `targetDestroyed`; 1:
    /// `targetDestroyed` alone; 2: `detachedFromTarget` alone (detached by someone else:
    /// the target stays); 3: `Inspector.detached` (render process gone) first. The last
    /// tab only detaches. Chromium answers none of its commands in flight.
    TabClosed { tab: Pick, how: u8 },
    /// A tab's top frame navigates cross-document, to its own site or another (an opener
    /// navigating away while its popup is open): fact 5, fact 9, `targetInfoChanged`.
    TabNavigated { tab: Pick, cross_site: bool },
    /// The model's later ops act on another tab (no input to the supervisor).
    Focus { tab: Pick },
    /// The embedder selects a tab (`select_tab`), and the model follows it.
    SelectTab { tab: Pick },
    /// The embedder opens a tab (`new_tab`: `Target.createTarget`).
    NewTab { url: u8 },
    /// The embedder closes a tab (`close_tab`: `Page.close`, or `Target.closeTarget` when
    /// `force`).
    CloseTab { tab: Pick, force: bool },
    /// The embedder creates a browser context (`create_context`), answered at once.
    NewContext,
    /// The embedder opens a tab in a browser context (`new_tab_in_context`): one it
    /// created (odd picks), the default one (even picks), or an unknown id (picks from
    /// [`UNKNOWN_FROM`]).
    NewTabInContext { context: Pick },
    /// The embedder disposes a browser context (`dispose_context`), picked as above.
    /// Chromium closes its tabs (the trace `tabs-contexts`); the model keeps one tab, so a
    /// dispose that would close every tab is refused.
    DisposeContext { context: Pick },
    /// A file input's chooser opens in a frame, reported on the session of its document
    ///, for a single or a `multiple` input.
    FileChooser { frame: Pick, multiple: bool },
    /// A download of a frame, at browser level: it begins (`step` 0), progresses
    /// past the size limit (1), completes (2) or is canceled (3); `guid` picks one of four.
    Download { frame: Pick, guid: Pick, step: u8 },
    /// An HTTP sign-in challenge on the session of a frame's document: of the
    /// origin with credentials (answered with them; twice: canceled) or another (a pending
    /// `http_auth`), for the document or a subresource; `again` repeats the last request.
    AuthChallenge {
        frame: Pick,
        known_origin: bool,
        document: bool,
        again: bool,
    },
}

/// How the browser answers a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(fuzzing, derive(arbitrary::Arbitrary))]
pub enum ReplyKind {
    /// As Chromium would, with the events it sends first (fact 7: a dialog's close comes
    /// before the answer's reply; a navigation's events before its reply).
    Realistic,
    /// The realistic result, without the events.
    Ok,
    /// `-32602 "No dialog is showing"` (facts 10, 15), to a dialog answer when one is
    /// outstanding.
    NoDialog,
    /// `-32000 "Inspected target navigated or closed"` (fact 11).
    ServerError,
    /// `-32001 "Session with given id not found."`, without `sessionId` (fact 17).
    SessionNotFound,
}

/// Which invariants a run checks; each property test turns on its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checks {
    /// Table sizes within the caps; outputs fully drained; no deadline left due after
    /// `handle_timeout` (no busy loop).
    pub bounds: bool,
    /// No dialog is both pending and recent; no id pending twice.
    pub dialogs_disjoint: bool,
    /// `Page.handleJavaScriptDialog` only on the page session from the attach (fact 6).
    pub answers_on_page_session: bool,
    /// Each waiting child resumed exactly once, after its set-up (facts 2, 14).
    pub resume_once: bool,
    /// Each embedder command ends in exactly one outcome (SPEC §5, §6.4).
    pub outcomes: bool,
    /// The `frame_tree` rules of SPEC §9, against an independent computation.
    pub frame_tree: bool,
    /// Folding the diffs gives the snapshot; the diff stream is well formed.
    pub mirror: bool,
    /// Each paused request is answered on its own session, at most once unless an
    /// answer failed, and at least once while its session lives (SPEC §6.5, fact 12).
    pub fetch: bool,
    /// The tab rules (SPEC §16): at most `max_tabs` tabs, ids unique, exactly one current
    /// while any is listed (the one `current_tab` names), every pending dialog's tab
    /// listed, `tab_frame_trees` holding the other tabs', no tab of a destroyed target
    /// listed beside another, each command sent on a session of the tab it names.
    pub tabs: bool,
    /// Record every input and output in [`Driver::log`] (for the determinism property).
    pub log: bool,
}

impl Checks {
    /// Every invariant, and the log.
    pub const ALL: Checks = Checks {
        bounds: true,
        dialogs_disjoint: true,
        answers_on_page_session: true,
        resume_once: true,
        outcomes: true,
        frame_tree: true,
        mirror: true,
        fetch: true,
        tabs: true,
        log: true,
    };
}

// ---- the model of the tab ---------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Page,
    Iframe,
    Worker,
    ServiceWorker,
}

#[derive(Debug, Clone)]
struct ModelFrame {
    id: String,
    parent: Option<String>,
    url: String,
    /// Set while the frame is an OOPIF with its own session.
    oopif_session: Option<String>,
}

/// One paused request, as the checks follow it.
#[derive(Debug, Clone, Default)]
struct Paused {
    /// Answers transmitted for it.
    answers: u32,
    /// The last answer got an error reply: a retry is legitimate.
    may_retry: bool,
    /// An answer is in flight (no reply yet).
    in_flight: bool,
    /// When the supervisor gives up waiting for the last answer's reply: a retry after it
    /// is legitimate too.
    answer_deadline: f64,
    /// The connection it paused in.
    conn: u32,
}

#[derive(Debug, Clone)]
struct ModelSession {
    id: String,
    kind: Kind,
    /// The session it was announced on; `None` for the page session.
    parent: Option<String>,
    target: String,
}

/// One message to feed; attaches that wait for the debugger are checked for resumption.
enum Msg {
    Plain(String),
    Attach {
        text: String,
        child: String,
        kind: Kind,
        waiting: bool,
    },
}

/// What the browser knows about one tab.
#[derive(Debug, Default)]
struct Tab {
    /// Its target id, also its top frame's id.
    target: String,
    /// The order tabs were created in (`Target.getTargets` lists them so).
    index: u32,
    /// Appended to every id it makes, so that ids stay unique across tabs (`""` for the
    /// first tab, whose ids are those of the one-tab model).
    suffix: String,
    /// The host of its top document (`a.test` or `b.test`).
    host: String,
    /// The tab that opened it (`openerId`), and whether it can reach it
    /// (`canAccessOpener`).
    opener: Option<String>,
    access: bool,
    /// The browser context it lives in (`None`: the default one, named by no
    /// `browserContextId` here).
    context: Option<String>,
    page_session: Option<String>,
    /// Known frames, top first, in the order they appeared.
    frames: Vec<ModelFrame>,
    sessions: Vec<ModelSession>,
    /// Frames whose dialog is showing, oldest first.
    showing: Vec<String>,
    /// Requests paused and not answered yet: (session, request id).
    paused: Vec<(String, String)>,
    next: u32,
    /// Recently removed ids: stale ids are a kind of wrong id.
    gone_frames: VecDeque<String>,
    gone_sessions: VecDeque<String>,
}

fn event(session: Option<&str>, method: &str, params: &str) -> String {
    match session {
        Some(s) => format!(r#"{{"method":"{method}","params":{params},"sessionId":"{s}"}}"#),
        None => format!(r#"{{"method":"{method}","params":{params}}}"#),
    }
}

fn remember(ring: &mut VecDeque<String>, id: String) {
    if ring.len() >= 8 {
        ring.pop_front();
    }
    ring.push_back(id);
}

impl Tab {
    /// A tab whose top frame `target` is at `url` on `host`.
    fn new(target: &str, index: u32, host: &str, url: &str) -> Self {
        Tab {
            target: target.to_owned(),
            index,
            suffix: if index == 0 {
                String::new()
            } else {
                format!("@{index}")
            },
            host: host.to_owned(),
            frames: vec![ModelFrame {
                id: target.to_owned(),
                parent: None,
                url: url.to_owned(),
                oopif_session: None,
            }],
            ..Tab::default()
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}{}", self.next, self.suffix)
    }

    /// The top frame's URL.
    fn url(&self) -> String {
        self.frame(&self.target)
            .map(|f| f.url.clone())
            .unwrap_or_default()
    }

    /// `targetInfo` of its page, as the browser-level events carry it.
    fn target_info(&self, url: &str) -> String {
        let opener = self
            .opener
            .as_ref()
            .map(|o| format!(r#","openerId":"{o}""#))
            .unwrap_or_default();
        let context = self
            .context
            .as_ref()
            .map(|c| format!(r#","browserContextId":"{c}""#))
            .unwrap_or_default();
        format!(
            r#"{{"targetId":"{}","type":"page","title":"","url":"{url}","attached":true,"canAccessOpener":{}{opener}{context}}}"#,
            self.target, self.access
        )
    }

    fn frame(&self, id: &str) -> Option<&ModelFrame> {
        self.frames.iter().find(|f| f.id == id)
    }

    fn session(&self, id: &str) -> Option<&ModelSession> {
        self.sessions.iter().find(|s| s.id == id)
    }

    /// The session that reports `id` itself (attach, detach): its parent's document's.
    fn host(&self, id: &str) -> Option<String> {
        match self.frame(id)?.parent.as_deref() {
            None => self.page_session.clone(),
            Some(p) => self.doc_session(p),
        }
    }

    /// The session that reports `id`'s document (navigation, children).
    fn doc_session(&self, id: &str) -> Option<String> {
        let mut cur = id.to_owned();
        // The model's frames form a tree; the bound only guards against a model bug.
        for _ in 0..64 {
            let f = self.frame(&cur)?;
            if let Some(s) = &f.oopif_session {
                return Some(s.clone());
            }
            match &f.parent {
                None => return self.page_session.clone(),
                Some(p) => cur = p.clone(),
            }
        }
        None
    }

    fn descendants(&self, id: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut frontier = vec![id.to_owned()];
        while let Some(cur) = frontier.pop() {
            for f in &self.frames {
                if f.parent.as_deref() == Some(&cur) && !out.contains(&f.id) {
                    out.push(f.id.clone());
                    frontier.push(f.id.clone());
                }
            }
        }
        out
    }

    fn session_and_below(&self, id: &str) -> Vec<String> {
        let mut out = vec![id.to_owned()];
        let mut i = 0;
        while i < out.len() {
            let cur = out[i].clone();
            for s in &self.sessions {
                if s.parent.as_deref() == Some(&cur) && !out.contains(&s.id) {
                    out.push(s.id.clone());
                }
            }
            i += 1;
        }
        out
    }

    fn remove_sessions(&mut self, ids: &[String]) {
        for id in ids {
            if let Some(i) = self.sessions.iter().position(|s| &s.id == id) {
                self.sessions.remove(i);
                remember(&mut self.gone_sessions, id.clone());
            }
        }
        for f in &mut self.frames {
            if f.oopif_session.as_ref().is_some_and(|s| ids.contains(s)) {
                f.oopif_session = None;
            }
        }
    }

    /// Removes frames and every session inside them, silently.
    fn remove_frames(&mut self, ids: &[String]) {
        let mut sessions = Vec::new();
        for f in &self.frames {
            if ids.contains(&f.id) {
                if let Some(s) = &f.oopif_session {
                    sessions.extend(self.session_and_below(s));
                }
            }
        }
        self.remove_sessions(&sessions);
        self.frames.retain(|f| !ids.contains(&f.id));
        self.showing.retain(|f| !ids.contains(f));
        for id in ids {
            remember(&mut self.gone_frames, id.clone());
        }
    }

    /// After a disconnect or the page session's detach: sessions go; the tab keeps its
    /// in-process frames (OOPIFs re-attach only through a new auto-attach). Returns the
    /// sessions that went (Chromium answers none of the commands in flight on them).
    fn forget_sessions(&mut self) -> Vec<String> {
        self.page_session = None;
        let gone_sessions: Vec<String> = self.sessions.drain(..).map(|s| s.id).collect();
        for id in &gone_sessions {
            remember(&mut self.gone_sessions, id.clone());
        }
        let oopifs: Vec<String> = self
            .frames
            .iter()
            .filter(|f| f.oopif_session.is_some())
            .map(|f| f.id.clone())
            .collect();
        let mut gone = Vec::new();
        for f in oopifs {
            if !gone.contains(&f) {
                gone.push(f.clone());
                gone.extend(self.descendants(&f));
            }
        }
        for f in &mut self.frames {
            f.oopif_session = None;
        }
        self.frames.retain(|f| !gone.contains(&f.id));
        gone_sessions
    }

    fn pick_frame(&self, pick: Pick) -> String {
        if pick >= UNKNOWN_FROM || self.frames.is_empty() {
            return match self.gone_frames.get(pick as usize % 8) {
                Some(stale) if pick % 2 == 0 => stale.clone(),
                _ => format!("F-unknown-{}", pick % 4),
            };
        }
        self.frames[pick as usize % self.frames.len()].id.clone()
    }

    fn pick_subframe(&self, pick: Pick) -> Option<String> {
        let subs: Vec<&ModelFrame> = self.frames.iter().filter(|f| f.id != self.target).collect();
        (!subs.is_empty()).then(|| subs[pick as usize % subs.len()].id.clone())
    }

    fn pick_session(&self, pick: Pick, kinds: &[Kind]) -> String {
        let of_kind: Vec<&ModelSession> = self
            .sessions
            .iter()
            .filter(|s| kinds.contains(&s.kind))
            .collect();
        if pick >= UNKNOWN_FROM || of_kind.is_empty() {
            return match self.gone_sessions.get(pick as usize % 8) {
                Some(stale) if pick % 2 == 0 => stale.clone(),
                _ => format!("S-unknown-{}", pick % 4),
            };
        }
        of_kind[pick as usize % of_kind.len()].id.clone()
    }

    fn frame_json(&self, f: &ModelFrame) -> String {
        let origin = origin_of(&f.url);
        let parent = f
            .parent
            .as_ref()
            .map(|p| format!(r#","parentId":"{p}""#))
            .unwrap_or_default();
        format!(
            r#"{{"id":"{}"{parent},"loaderId":"L","url":"{}","securityOrigin":"{origin}","mimeType":"text/html"}}"#,
            f.id, f.url
        )
    }

    fn navigated(&self, session: &str, id: &str) -> Option<String> {
        let f = self.frame(id)?;
        let params = format!(r#"{{"frame":{},"type":"Navigation"}}"#, self.frame_json(f));
        Some(event(Some(session), "Page.frameNavigated", &params))
    }

    /// `Page.getFrameTree` on `session`: its root frame and the in-process frames below.
    fn frame_tree(&self, session: &str) -> Option<String> {
        let root = if Some(session) == self.page_session.as_deref() {
            self.target.clone()
        } else {
            let s = self.session(session)?;
            if s.kind != Kind::Iframe {
                return None;
            }
            s.target.clone()
        };
        self.frame(&root)?;
        Some(format!(r#"{{"frameTree":{}}}"#, self.tree_node(&root, 0)))
    }

    fn tree_node(&self, id: &str, depth: usize) -> String {
        let Some(f) = self.frame(id) else {
            return "{}".into();
        };
        let children: Vec<String> = if depth > 32 {
            Vec::new()
        } else {
            self.frames
                .iter()
                .filter(|c| c.parent.as_deref() == Some(id) && c.oopif_session.is_none())
                .map(|c| self.tree_node(&c.id, depth + 1))
                .collect()
        };
        format!(
            r#"{{"frame":{},"childFrames":[{}]}}"#,
            self.frame_json(f),
            children.join(",")
        )
    }

    /// A cross-document navigation of frame `id` (facts 5, 9).
    fn navigate(&mut self, id: &str) -> Vec<Msg> {
        let Some(session) = self.doc_session(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let below = self.descendants(id);
        let page_session = self.page_session.clone();
        // Fact 9: a navigation closes the dialog showing in it (the top: any dialog).
        let closing: Vec<String> = self
            .showing
            .iter()
            .filter(|f| id == self.target || *f == id || below.contains(f))
            .cloned()
            .collect();
        for f in &closing {
            out.push(Msg::Plain(dialog_closed(page_session.as_deref(), f, false)));
        }
        self.showing.retain(|f| !closing.contains(f));
        // Fact 5: first-level sessions inside detach; the ones nested below vanish.
        let inside: Vec<ModelSession> = self
            .sessions
            .iter()
            .filter(|s| s.parent.as_deref() == Some(&session))
            .filter(|s| below.contains(&s.target) || (id == self.target && s.kind != Kind::Page))
            .cloned()
            .collect();
        for s in &inside {
            let params = format!(r#"{{"sessionId":"{}","targetId":"{}"}}"#, s.id, s.target);
            out.push(Msg::Plain(event(
                Some(&session),
                "Target.detachedFromTarget",
                &params,
            )));
        }
        let mut gone_sessions = Vec::new();
        for s in &inside {
            gone_sessions.extend(self.session_and_below(&s.id));
        }
        self.remove_sessions(&gone_sessions);
        self.remove_frames(&below);
        self.next += 1;
        let n = self.next;
        let host = self.host.clone();
        if let Some(f) = self.frames.iter_mut().find(|f| f.id == id) {
            f.url = if f.oopif_session.is_some() {
                format!("http://b.test/{n}")
            } else {
                format!("http://{host}/{n}")
            };
        }
        out.extend(self.navigated(&session, id).map(Msg::Plain));
        out
    }

    /// The realistic result of a command on one of the tab's sessions (or a browser-level
    /// detach of one of them), with the events Chromium sends before it.
    fn realistic(&mut self, cmd: &cdp_supervisor::OutgoingCommand) -> (Vec<Msg>, Reply) {
        let params: Value = serde_json::from_str(&cmd.json)
            .ok()
            .and_then(|v: Value| v.get("params").cloned())
            .unwrap_or(Value::Null);
        let session = cmd.session_id.as_deref();
        if let Some(s) = session {
            if self.session(s).is_none() {
                return (Vec::new(), Reply::SessionNotFound);
            }
        }
        let mut before = Vec::new();
        let reply = match cmd.method.as_str() {
            "Page.getFrameTree" => match session.and_then(|s| self.frame_tree(s)) {
                Some(tree) => Reply::Result(tree),
                None => Reply::Error(-32000, "Frame tree not available"),
            },
            "Page.handleJavaScriptDialog" => {
                if self.showing.is_empty() {
                    Reply::Error(-32602, "No dialog is showing")
                } else {
                    // Fact 7: the close comes before the reply.
                    let f = self.showing.remove(0);
                    let accept = params.get("accept").and_then(Value::as_bool) == Some(true);
                    // Chromium's `userInput` is the text the answer sent.
                    let text = params
                        .get("promptText")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    before.push(Msg::Plain(dialog_closed_with(session, &f, accept, text)));
                    Reply::Result("{}".into())
                }
            }
            "Page.navigate" => {
                let top = self.target.clone();
                if session.is_some() && session == self.page_session.as_deref() {
                    before = self.navigate(&top);
                }
                Reply::Result(format!(r#"{{"frameId":"{top}","loaderId":"L2"}}"#))
            }
            "Target.detachFromTarget" => {
                if let Some(child) = params.get("sessionId").and_then(Value::as_str) {
                    if self.session(child).is_some() {
                        let ev = format!(r#"{{"sessionId":"{child}"}}"#);
                        before.push(Msg::Plain(event(session, "Target.detachedFromTarget", &ev)));
                        let gone = self.session_and_below(child);
                        self.remove_sessions(&gone);
                    }
                }
                Reply::Result("{}".into())
            }
            "Page.enable" | "Page.getResourceTree"
                if session
                    .and_then(|s| self.session(s))
                    .is_some_and(|s| matches!(s.kind, Kind::Worker | Kind::ServiceWorker)) =>
            {
                Reply::Error(-32601, "'Page.enable' wasn't found")
            }
            "Fetch.fulfillRequest" | "Fetch.continueRequest" | "Fetch.failRequest" => {
                let key = (
                    session.unwrap_or("").to_owned(),
                    params
                        .get("requestId")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                );
                match self.paused.iter().position(|k| *k == key) {
                    Some(i) => {
                        self.paused.remove(i);
                        Reply::Result("{}".into())
                    }
                    None => Reply::Error(-32602, "Invalid InterceptionId."),
                }
            }
            "Runtime.evaluate" => {
                Reply::Result(r#"{"result":{"type":"number","value":1,"description":"1"}}"#.into())
            }
            _ => Reply::Result("{}".into()),
        };
        (before, reply)
    }

    fn adopt_page_session(&mut self, sid: &str) {
        self.sessions.retain(|s| s.kind != Kind::Page);
        self.page_session = Some(sid.to_owned());
        self.sessions.push(ModelSession {
            id: sid.to_owned(),
            kind: Kind::Page,
            parent: None,
            target: self.target.clone(),
        });
    }
}

enum Reply {
    Result(String),
    Error(i64, &'static str),
    SessionNotFound,
}

fn origin_of(url: &str) -> &str {
    match url.find("://") {
        Some(i) => match url[i + 3..].find('/') {
            Some(j) => &url[..i + 3 + j],
            None => url,
        },
        None => "null",
    }
}

fn dialog_closed(page_session: Option<&str>, frame: &str, result: bool) -> String {
    dialog_closed_with(
        page_session,
        frame,
        result,
        if result { "typed" } else { "" },
    )
}

/// A close with this `userInput` (JSON-escaped here).
fn dialog_closed_with(
    page_session: Option<&str>,
    frame: &str,
    result: bool,
    input: &str,
) -> String {
    let input = serde_json::to_string(input).unwrap_or_default();
    let input = input.trim_matches('"');
    event(
        page_session,
        "Page.javascriptDialogClosed",
        &format!(r#"{{"frameId":"{frame}","result":{result},"userInput":"{input}"}}"#),
    )
}

/// `Target.targetInfoChanged` of a tab's page, with its URL and a title (fact 25c: the
/// title is host and path).
fn target_info_changed(tab: &Tab) -> String {
    let url = tab.url();
    let title = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
    let info = tab
        .target_info(&url)
        .replace(r#""title":"""#, &format!(r#""title":"{title}""#));
    event(
        None,
        "Target.targetInfoChanged",
        &format!(r#"{{"targetInfo":{info}}}"#),
    )
}

fn attach_msg(
    parent: Option<&str>,
    child: &str,
    kind: Kind,
    target: &str,
    extra: &str,
    waiting: bool,
) -> Msg {
    let type_name = match kind {
        Kind::Page => "page",
        Kind::Iframe => "iframe",
        Kind::Worker => "worker",
        Kind::ServiceWorker => "service_worker",
    };
    let params = format!(
        r#"{{"sessionId":"{child}","targetInfo":{{"targetId":"{target}","type":"{type_name}","title":"","url":"http://b.test/","attached":true{extra}}},"waitingForDebugger":{waiting}}}"#
    );
    Msg::Attach {
        text: event(parent, "Target.attachedToTarget", &params),
        child: child.to_owned(),
        kind,
        waiting,
    }
}

// ---- the driver -------------------------------------------------------------------------

/// Was a core bug (CORE-BUGS.md, "second Fetch.fulfillRequest"), fixed by
/// `DialogError::AnswerInFlight`: a second answer while one is in flight is no longer
/// sent. Kept as a switch should a regression need to be tolerated while it is fixed.
const TOLERATE_SECOND_ANSWER_IN_FLIGHT: bool = false;

/// Methods that make up a child's set-up before its resume (fact 2).
const IFRAME_SETUP: [&str; 4] = [
    "Page.enable",
    "Runtime.enable",
    "Network.enable",
    "Target.setAutoAttach",
];
const RESUME: &str = "Runtime.runIfWaitingForDebugger";

/// The embedder: feeds the model's traffic and calls to a supervisor, drains it fully after
/// every input, folds its diffs, and checks the invariants chosen in [`Checks`].
pub struct Driver {
    /// The supervisor under test.
    pub sup: Supervisor,
    /// The tab the model's ops act on; the browser's other tabs are in `others`.
    tab: Tab,
    others: Vec<Tab>,
    /// Tabs created so far (numbers their ids).
    tabs_made: u32,
    /// The model browser's contexts (created and not disposed), and how many were made
    /// (ids are never reused).
    contexts: Vec<String>,
    contexts_made: u32,
    /// Contexts whose dispose the supervisor was answered: none of their tabs may be
    /// listed any more.
    disposed_contexts: BTreeSet<String>,
    /// Recently closed tab ids: stale ids are a kind of wrong id.
    gone_tabs: VecDeque<String>,
    /// The connection: whether it is open, its number, the supervisor's commands not
    /// answered yet (on this connection only).
    connected: bool,
    conn: u32,
    outstanding: Vec<cdp_supervisor::OutgoingCommand>,
    /// The browser-level `Target.setAutoAttach` took effect on this connection: new
    /// pages attach at browser level (before it, nobody attaches them).
    auto_attach_on: bool,
    now: f64,
    checks: Checks,
    /// Every input, call, result, transmit and event, in order (when `checks.log`).
    pub log: Vec<String>,
    mirror: Mirror,
    /// What the diffs made known of each tab (by tab id; `""` for diffs of no tab before
    /// any is current): the independent input of the `frame_tree` check.
    known: BTreeMap<String, Known>,
    /// The current tab, as the `current_tab` diffs say.
    current: Option<String>,
    frame_seq: u64,
    dialogs_opened: BTreeSet<String>,
    dialogs_pending: BTreeSet<String>,
    /// Each dialog's tab, from its `dialog_opened` diff.
    dialog_tab: BTreeMap<String, String>,
    /// Outcomes seen per command from `command` (capped) and `recover`, and per evaluate.
    commands: BTreeMap<u64, (u32, bool)>,
    /// The tab each command, evaluate or dialog answer was sent into (the named one, or
    /// the current one when it named none).
    command_tab: BTreeMap<u64, String>,
    /// Tabs closed (`tab_closed`) by the current input: their commands must have ended.
    closed_now: Vec<String>,
    /// Commands, evaluates and answers that ended in the current input.
    ended_now: Vec<u64>,
    /// The ids of evaluates: capped by `max_commands_in_flight` too, but apart from
    /// commands (the supervisor counts the two separately).
    evaluates: BTreeSet<u64>,
    /// Outcomes seen per dialog answer the embedder asked for.
    answers: BTreeMap<u64, u32>,
    /// Whether each of those answers accepts (for close attribution).
    answer_accepts: BTreeMap<u64, bool>,
    /// Methods transmitted on each session, in order.
    sent_on: BTreeMap<String, Vec<String>>,
    /// Every session that was ever a tab's page session (a reply the model gives without
    /// its events, `ReplyKind::Ok`, can leave the supervisor on one the model let go).
    page_sessions: BTreeSet<String>,
    /// Every session the model ever had, with its tab (when `checks.tabs`).
    session_tab: BTreeMap<String, String>,
    /// The session each command was transmitted on (when `checks.tabs`).
    sent_session: BTreeMap<u64, Option<String>>,
    /// Targets the supervisor heard were destroyed (when `checks.tabs`).
    destroyed: BTreeSet<String>,
    /// Paused requests the supervisor accepted, by (session, request id).
    paused: BTreeMap<(String, String), Paused>,
    /// Fetch answers in flight: command id → the request they answer.
    fetch_answers: BTreeMap<u64, (String, String)>,
    /// Sessions that crashed (their paused requests are gone with the renderer).
    crashed: BTreeSet<String>,
    /// Children that attached waiting for the debugger, and their kind.
    waiting: BTreeMap<String, Kind>,
    /// Whether the current input produced a session-cap warning.
    cap_warning: bool,
    /// Whether the current input produced a tab-cap warning (the page is let go, not
    /// set up).
    tab_cap_warning: bool,
    /// Inside a burst op: state checks wait for its end (each input is still drained and
    /// its outputs checked), which keeps the O(n²) snapshot cost of bursts away.
    bursting: bool,
}

/// What the diffs made known of one tab.
#[derive(Debug, Default)]
struct Known {
    /// Its frames, with the order they became known.
    frames: BTreeMap<String, (u64, FrameInfo)>,
    /// Its page entry's target and session.
    page_target: Option<String>,
    page_session: Option<String>,
}

/// Where a model tab is: in focus, or among the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loc {
    Focus,
    Other(usize),
}

impl Driver {
    /// A supervisor of [`config`], connected and attached (`getTargets`, the attach and the
    /// browser-level auto-attach answered, the top frame navigated); the page's set-up
    /// commands are outstanding.
    pub fn new(checks: Checks, bridge: bool) -> Self {
        let mut d = Driver {
            sup: Supervisor::new(config(bridge)),
            tab: Tab::new(TOP, 0, "a.test", "http://a.test/"),
            others: Vec::new(),
            tabs_made: 1,
            contexts: Vec::new(),
            contexts_made: 0,
            disposed_contexts: BTreeSet::new(),
            gone_tabs: VecDeque::new(),
            connected: false,
            conn: 0,
            outstanding: Vec::new(),
            auto_attach_on: false,
            now: 1000.0,
            checks,
            log: Vec::new(),
            mirror: Mirror::default(),
            known: BTreeMap::new(),
            current: None,
            frame_seq: 0,
            dialogs_opened: BTreeSet::new(),
            dialogs_pending: BTreeSet::new(),
            dialog_tab: BTreeMap::new(),
            commands: BTreeMap::new(),
            command_tab: BTreeMap::new(),
            closed_now: Vec::new(),
            ended_now: Vec::new(),
            evaluates: BTreeSet::new(),
            answers: BTreeMap::new(),
            answer_accepts: BTreeMap::new(),
            sent_on: BTreeMap::new(),
            page_sessions: BTreeSet::new(),
            session_tab: BTreeMap::new(),
            sent_session: BTreeMap::new(),
            destroyed: BTreeSet::new(),
            waiting: BTreeMap::new(),
            paused: BTreeMap::new(),
            fetch_answers: BTreeMap::new(),
            crashed: BTreeSet::new(),
            cap_warning: false,
            tab_cap_warning: false,
            bursting: false,
        };
        d.connect(true);
        if let Some(ps) = d.tab.page_session.clone() {
            if let Some(msg) = d.tab.navigated(&ps, TOP) {
                let _ = d.feed(&msg);
            }
        }
        d
    }

    /// Applies every op, then [`Driver::finish`]es.
    pub fn run(ops: &[Op], checks: Checks, bridge: bool) -> Driver {
        let mut d = Driver::new(checks, bridge);
        for op in ops {
            d.apply(op);
        }
        d.finish();
        d
    }

    fn log(&mut self, line: impl FnOnce() -> String) {
        if self.checks.log {
            self.log.push(line());
        }
    }

    // ---- inputs ---------------------------------------------------------------------

    fn feed(&mut self, text: &str) -> Result<(), InputError> {
        self.log(|| format!("< {text}"));
        for t in std::iter::once(&self.tab).chain(self.others.iter()) {
            if let Some(ps) = &t.page_session {
                if !self.page_sessions.contains(ps) {
                    self.page_sessions.insert(ps.clone());
                }
            }
            if self.checks.tabs {
                for s in &t.sessions {
                    if !self.session_tab.contains_key(&s.id) {
                        self.session_tab.insert(s.id.clone(), t.target.clone());
                    }
                }
            }
        }
        self.cap_warning = false;
        self.tab_cap_warning = false;
        if self.checks.tabs && text.contains(r#""method":"Target.targetDestroyed""#) {
            let target = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v["params"]["targetId"].as_str().map(str::to_owned));
            self.destroyed.extend(target);
        }
        let result = self.sup.handle_message(self.now, text);
        self.log(|| format!("= {result:?}"));
        self.drain();
        result
    }

    fn feed_msg(&mut self, msg: Msg) {
        match msg {
            Msg::Plain(text) => {
                let _ = self.feed(&text);
            }
            Msg::Attach {
                text,
                child,
                kind,
                waiting,
            } => {
                let result = self.feed(&text);
                if waiting {
                    self.check_resumed(&child, kind, result.is_ok());
                }
            }
        }
    }

    fn feed_all(&mut self, msgs: Vec<Msg>) {
        for m in msgs {
            self.feed_msg(m);
        }
    }

    fn timeout(&mut self) {
        let now = self.now;
        self.log(|| format!("timeout {now}"));
        self.sup.handle_timeout(self.now);
        self.drain();
    }

    /// Moves time to `target`, calling `handle_timeout` at every deadline due on the way.
    fn advance_to(&mut self, target: f64) {
        for _ in 0..10_000 {
            match self.sup.poll_timeout() {
                Some(due) if due <= target => {
                    self.now = self.now.max(due);
                    self.timeout();
                    if self.checks.bounds {
                        let next = self.sup.poll_timeout();
                        assert!(
                            !matches!(next, Some(n) if n <= due),
                            "deadline {due} still due after handle_timeout({due}): {next:?}"
                        );
                    }
                }
                _ => break,
            }
        }
        self.now = self.now.max(target);
        self.timeout();
    }

    fn connect(&mut self, auto_attach: bool) {
        self.connected = true;
        self.auto_attach_on = false;
        self.conn += 1;
        self.log(|| "connected".into());
        self.sup.handle_connected(self.now);
        self.drain();
        if auto_attach {
            for method in [
                "Target.getTargets",
                "Target.attachToTarget",
                "Target.setAutoAttach",
            ] {
                let browser_level = |c: &cdp_supervisor::OutgoingCommand| {
                    c.method == method && c.session_id.is_none()
                };
                if let Some(i) = self.outstanding.iter().position(browser_level) {
                    let cmd = self.outstanding.remove(i);
                    self.reply(cmd, ReplyKind::Realistic, true);
                }
            }
        }
    }

    fn disconnect(&mut self) {
        self.connected = false;
        self.outstanding.clear();
        // Chromium disposes the contexts with the connection (`disposeOnDetach`); the
        // model keeps a tab.
        for context in std::mem::take(&mut self.contexts) {
            while self.tab_count() > 1 {
                let Some(loc) = self.locate_context_tab(&context) else {
                    break;
                };
                self.remove_model_tab(loc);
            }
        }
        self.tab.forget_sessions();
        for t in &mut self.others {
            t.forget_sessions();
        }
        self.log(|| "disconnected".into());
        self.sup.handle_disconnected(self.now);
        self.drain();
    }

    fn reply(&mut self, cmd: cdp_supervisor::OutgoingCommand, kind: ReplyKind, with_session: bool) {
        let (before, reply) = match kind {
            ReplyKind::Realistic => self.realistic(&cmd),
            ReplyKind::Ok => {
                let (_, reply) = self.realistic(&cmd);
                (Vec::new(), reply)
            }
            ReplyKind::NoDialog => (Vec::new(), Reply::Error(-32602, "No dialog is showing")),
            ReplyKind::ServerError => (
                Vec::new(),
                Reply::Error(-32000, "Inspected target navigated or closed"),
            ),
            ReplyKind::SessionNotFound => (Vec::new(), Reply::SessionNotFound),
        };
        self.feed_all(before);
        if let Some(key) = self.fetch_answers.remove(&cmd.id) {
            if let Some(p) = self.paused.get_mut(&key) {
                p.in_flight = false;
                p.may_retry |= matches!(reply, Reply::Error(..) | Reply::SessionNotFound);
            }
        }
        let session = match (&reply, with_session, &cmd.session_id) {
            (Reply::SessionNotFound, _, _) | (_, false, _) | (_, true, None) => String::new(),
            (_, true, Some(s)) => format!(r#","sessionId":"{s}""#),
        };
        let id = cmd.id;
        let disposed = (cmd.method == "Target.disposeBrowserContext"
            && matches!(reply, Reply::Result(_)))
        .then(|| serde_json::from_str::<Value>(&cmd.json).ok())
        .flatten()
        .and_then(|v| v["params"]["browserContextId"].as_str().map(str::to_owned));
        let text = match reply {
            Reply::Result(r) => format!(r#"{{"id":{id},"result":{r}{session}}}"#),
            Reply::Error(code, message) => {
                format!(r#"{{"id":{id},"error":{{"code":{code},"message":"{message}"}}{session}}}"#)
            }
            Reply::SessionNotFound => format!(
                r#"{{"id":{id},"error":{{"code":-32001,"message":"Session with given id not found."}}}}"#
            ),
        };
        let _ = self.feed(&text);
        self.disposed_contexts.extend(disposed);
    }

    // ---- the model's browser: its tabs ----------------------------------------------

    /// Every model tab, the one in focus first.
    fn all_tabs(&self) -> impl Iterator<Item = &Tab> {
        std::iter::once(&self.tab).chain(self.others.iter())
    }

    fn tab_count(&self) -> usize {
        1 + self.others.len()
    }

    /// The model tab at `pick` among every tab, in creation order.
    fn pick_model_tab(&self, pick: Pick) -> Loc {
        let mut order: Vec<(u32, Loc)> = std::iter::once((self.tab.index, Loc::Focus))
            .chain(
                self.others
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.index, Loc::Other(i))),
            )
            .collect();
        order.sort_by_key(|(index, _)| *index);
        order[pick as usize % order.len()].1
    }

    fn model_tab(&self, loc: Loc) -> &Tab {
        match loc {
            Loc::Focus => &self.tab,
            Loc::Other(i) => &self.others[i],
        }
    }

    fn locate_target(&self, target: &str) -> Option<Loc> {
        if self.tab.target == target {
            return Some(Loc::Focus);
        }
        self.others
            .iter()
            .position(|t| t.target == target)
            .map(Loc::Other)
    }

    /// A tab of `context`, if any.
    fn locate_context_tab(&self, context: &str) -> Option<Loc> {
        if self.tab.context.as_deref() == Some(context) {
            return Some(Loc::Focus);
        }
        self.others
            .iter()
            .position(|t| t.context.as_deref() == Some(context))
            .map(Loc::Other)
    }

    fn locate_session(&self, session: &str) -> Option<Loc> {
        if self.tab.session(session).is_some() {
            return Some(Loc::Focus);
        }
        self.others
            .iter()
            .position(|t| t.session(session).is_some())
            .map(Loc::Other)
    }

    /// Runs `f` with the tab at `loc` in focus, then gives the focus back. `f` must not
    /// add or remove tabs.
    fn on_tab<R>(&mut self, loc: Loc, f: impl FnOnce(&mut Self) -> R) -> R {
        match loc {
            Loc::Focus => f(self),
            Loc::Other(i) => {
                std::mem::swap(&mut self.tab, &mut self.others[i]);
                let r = f(self);
                std::mem::swap(&mut self.tab, &mut self.others[i]);
                r
            }
        }
    }

    /// Moves the model's focus to the tab at `loc`.
    fn focus(&mut self, loc: Loc) {
        if let Loc::Other(i) = loc {
            std::mem::swap(&mut self.tab, &mut self.others[i]);
        }
    }

    /// Forgets the tab at `loc` (the browser closed it): the focus passes to another.
    /// The last tab stays.
    fn remove_model_tab(&mut self, loc: Loc) {
        if self.others.is_empty() {
            return;
        }
        let gone = match loc {
            Loc::Other(i) => self.others.remove(i),
            Loc::Focus => {
                // The focus passes to a tab the browser is attached to, if any.
                let next = self
                    .others
                    .iter()
                    .position(|t| t.page_session.is_some())
                    .unwrap_or(0);
                let next = self.others.remove(next);
                std::mem::replace(&mut self.tab, next)
            }
        };
        if self.gone_tabs.len() >= 8 {
            self.gone_tabs.pop_front();
        }
        self.gone_tabs.push_back(gone.target);
    }

    /// The events of the tab at `loc` closing (see [`Op::TabClosed`]); the model forgets
    /// it, unless it is the last (which only detaches).
    fn close_model_tab(&mut self, loc: Loc, how: u8) -> Vec<Msg> {
        let last = self.others.is_empty();
        let how = if last { 2 } else { how % 4 };
        let t = self.model_tab(loc);
        let target = t.target.clone();
        let session = t.page_session.clone();
        let mut out = Vec::new();
        if let (Some(s), true) = (&session, self.connected) {
            if how == 3 {
                out.push(Msg::Plain(event(
                    Some(s),
                    "Inspector.detached",
                    r#"{"reason":"Render process gone."}"#,
                )));
            }
            if how != 1 {
                out.push(Msg::Plain(event(
                    None,
                    "Target.detachedFromTarget",
                    &format!(r#"{{"sessionId":"{s}","targetId":"{target}"}}"#),
                )));
            }
        }
        if how != 2 && self.connected {
            out.push(Msg::Plain(event(
                None,
                "Target.targetDestroyed",
                &format!(r#"{{"targetId":"{target}"}}"#),
            )));
        }
        let gone = self.on_tab(loc, |d| d.tab.forget_sessions());
        self.drop_outstanding_on(&gone);
        if how != 2 {
            self.remove_model_tab(loc);
        }
        out
    }

    /// The other tabs in one renderer with the tab in focus: its opener or its popups,
    /// when the popup can reach its opener and they are on the same site (fact 25b).
    fn sharing_renderer(&self) -> Vec<Loc> {
        let me = &self.tab;
        self.others
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                let related = (o.access && o.opener.as_deref() == Some(&me.target))
                    || (me.access && me.opener.as_deref() == Some(&o.target));
                related && o.host == me.host
            })
            .map(|(i, _)| Loc::Other(i))
            .collect()
    }

    /// Commands in flight on sessions that went with their tab: Chromium never answers
    /// them (the supervisor must end them itself).
    fn drop_outstanding_on(&mut self, sessions: &[String]) {
        self.outstanding
            .retain(|c| !c.session_id.as_ref().is_some_and(|s| sessions.contains(s)));
    }

    /// A new page in the browser (a popup of `opener`, or a tab opened by hand or by
    /// `Target.createTarget`): attached at browser level (paused when `waiting`) once the
    /// browser-level auto-attach is on, its first navigation after. Returns its target id, and the
    /// events (the caller feeds them, checking the resume of the attach).
    fn open_model_tab(
        &mut self,
        opener: Option<Loc>,
        cross_site: bool,
        access: bool,
        waiting: bool,
        context: Option<String>,
    ) -> (String, Vec<Msg>) {
        let n = self.tabs_made;
        self.tabs_made += 1;
        let target = format!("POP{n}");
        let opener_host = opener.map_or("a.test", |l| match self.model_tab(l).host.as_str() {
            "b.test" => "b.test",
            _ => "a.test",
        });
        let host = match (cross_site, opener_host) {
            (false, h) => h,
            (true, "a.test") => "b.test",
            (true, _) => "a.test",
        };
        let mut tab = Tab::new(&target, n, host, "");
        tab.opener = opener.map(|l| self.model_tab(l).target.clone());
        tab.access = access && opener.is_some();
        // A popup is in its opener's context (the trace `tabs-contexts`).
        tab.context = context.or_else(|| opener.and_then(|l| self.model_tab(l).context.clone()));
        let mut out = Vec::new();
        if self.connected && self.auto_attach_on {
            let sid = format!("SQ{n}-{}", self.conn);
            tab.adopt_page_session(&sid);
            out.push(Msg::Attach {
                text: event(
                    None,
                    "Target.attachedToTarget",
                    &format!(
                        r#"{{"sessionId":"{sid}","targetInfo":{},"waitingForDebugger":{waiting}}}"#,
                        tab.target_info("")
                    ),
                ),
                child: sid.clone(),
                kind: Kind::Page,
                waiting,
            });
            // Resumed, it loads its document (fact 24).
            if let Some(f) = tab.frames.first_mut() {
                f.url = format!("http://{host}/pop{n}");
            }
            out.extend(tab.navigated(&sid, &target).map(Msg::Plain));
            out.push(Msg::Plain(target_info_changed(&tab)));
        }
        self.others.push(tab);
        (target, out)
    }

    /// The realistic result of a command, with the events Chromium sends before it: the
    /// browser's own commands here, a session's in the tab that holds it.
    fn realistic(&mut self, cmd: &cdp_supervisor::OutgoingCommand) -> (Vec<Msg>, Reply) {
        let params: Value = serde_json::from_str(&cmd.json)
            .ok()
            .and_then(|v: Value| v.get("params").cloned())
            .unwrap_or(Value::Null);
        let Some(session) = cmd.session_id.as_deref() else {
            return self.browser_realistic(cmd, &params);
        };
        let Some(loc) = self.locate_session(session) else {
            return (Vec::new(), Reply::SessionNotFound);
        };
        let page = self.model_tab(loc).page_session.as_deref() == Some(session);
        if page && cmd.method == "Page.close" {
            // Chromium closes the tab; the reply never comes on the session that went
            // (trace `tabs-d-closing`: -32001 after `targetDestroyed`).
            let msgs = self.close_model_tab(loc, 0);
            return (msgs, Reply::SessionNotFound);
        }
        self.on_tab(loc, |d| d.tab.realistic(cmd))
    }

    /// The browser's commands (no `sessionId`).
    fn browser_realistic(
        &mut self,
        cmd: &cdp_supervisor::OutgoingCommand,
        params: &Value,
    ) -> (Vec<Msg>, Reply) {
        let param = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
        let mut before = Vec::new();
        let reply = match cmd.method.as_str() {
            "Target.getTargets" => {
                let mut tabs: Vec<&Tab> = self.all_tabs().collect();
                tabs.sort_by_key(|t| t.index);
                let mut infos = vec![
                    r#"{"targetId":"UI","type":"browser_ui","url":"chrome://omnibox"}"#.to_owned(),
                    r#"{"targetId":"SW","type":"service_worker","url":"http://a.test/sw.js"}"#
                        .to_owned(),
                ];
                infos.extend(tabs.iter().map(|t| {
                    let mut info = t.target_info(&t.url());
                    info = info.replace(r#","attached":true"#, r#","attached":false"#);
                    info
                }));
                Reply::Result(format!(r#"{{"targetInfos":[{}]}}"#, infos.join(",")))
            }
            "Target.attachToTarget" => {
                let target = param("targetId").unwrap_or_default();
                match self.locate_target(&target) {
                    None => Reply::Error(-32602, "No target with given id found"),
                    Some(loc) => {
                        let conn = self.conn;
                        let (msg, sid) = self.on_tab(loc, |d| {
                            let t = &mut d.tab;
                            // The first tab's session keeps the one-tab model's name.
                            let sid = if t.page_session.is_none() {
                                let sid = format!("SP{}-{conn}", t.suffix);
                                t.adopt_page_session(&sid);
                                sid
                            } else {
                                // Attached already (the auto-attach came first): one
                                // more session, which the supervisor lets go.
                                t.fresh("SX")
                            };
                            let text = event(
                                None,
                                "Target.attachedToTarget",
                                &format!(
                                    r#"{{"sessionId":"{sid}","targetInfo":{},"waitingForDebugger":false}}"#,
                                    t.target_info("")
                                ),
                            );
                            (text, sid)
                        });
                        // With flatten, Chromium also announces the session at browser level.
                        before.push(Msg::Attach {
                            text: msg,
                            child: sid.clone(),
                            kind: Kind::Page,
                            waiting: false,
                        });
                        Reply::Result(format!(r#"{{"sessionId":"{sid}"}}"#))
                    }
                }
            }
            "Target.setAutoAttach" => {
                // Fact 23: every page attaches at once, not paused (the one we attached
                // once more), and `browser_ui` targets too; pages opened later attach
                // paused.
                self.auto_attach_on = true;
                let mut order: Vec<(u32, Loc)> = std::iter::once((self.tab.index, Loc::Focus))
                    .chain(
                        self.others
                            .iter()
                            .enumerate()
                            .map(|(i, t)| (t.index, Loc::Other(i))),
                    )
                    .collect();
                order.sort_by_key(|(i, _)| *i);
                for (_, loc) in order {
                    let text = self.on_tab(loc, |d| {
                        let t = &mut d.tab;
                        let sid = t.fresh("SA");
                        if t.page_session.is_none() {
                            t.adopt_page_session(&sid);
                        }
                        event(
                            None,
                            "Target.attachedToTarget",
                            &format!(
                                r#"{{"sessionId":"{sid}","targetInfo":{},"waitingForDebugger":false}}"#,
                                t.target_info(&t.url())
                            ),
                        )
                    });
                    before.push(Msg::Plain(text));
                }
                let ui = format!("S-UI-{}", self.conn);
                before.push(Msg::Plain(event(
                    None,
                    "Target.attachedToTarget",
                    &format!(
                        r#"{{"sessionId":"{ui}","targetInfo":{{"targetId":"UI","type":"browser_ui","url":"chrome://omnibox"}},"waitingForDebugger":false}}"#
                    ),
                )));
                Reply::Result("{}".into())
            }
            "Target.detachFromTarget" => {
                let child = param("sessionId").unwrap_or_default();
                match self.locate_session(&child) {
                    None => Reply::Error(-32602, "No session with given id"),
                    Some(loc) if self.model_tab(loc).page_session.as_deref() == Some(&child) => {
                        let target = self.model_tab(loc).target.clone();
                        let gone = self.on_tab(loc, |d| d.tab.forget_sessions());
                        self.drop_outstanding_on(&gone);
                        before.push(Msg::Plain(event(
                            None,
                            "Target.detachedFromTarget",
                            &format!(r#"{{"sessionId":"{child}","targetId":"{target}"}}"#),
                        )));
                        Reply::Result("{}".into())
                    }
                    Some(loc) => return self.on_tab(loc, |d| d.tab.realistic(cmd)),
                }
            }
            "Target.createTarget" => {
                let context = param("browserContextId");
                if context.as_ref().is_some_and(|c| !self.contexts.contains(c)) {
                    Reply::Error(-32000, "Failed to find browser context with id")
                } else if self.tab_count() >= MODEL_MAX_TABS {
                    Reply::Error(-32000, "Failed to open a new tab")
                } else {
                    // Fact 24: a created tab attaches paused, without opener, before the
                    // reply (in its context too: the trace `tabs-contexts`).
                    let (target, msgs) = self.open_model_tab(None, false, false, true, context);
                    before = msgs;
                    Reply::Result(format!(r#"{{"targetId":"{target}"}}"#))
                }
            }
            "Target.createBrowserContext" => {
                let id = format!("CTX{}", self.contexts_made);
                self.contexts_made += 1;
                self.contexts.push(id.clone());
                Reply::Result(format!(r#"{{"browserContextId":"{id}"}}"#))
            }
            "Target.disposeBrowserContext" => {
                let context = param("browserContextId").unwrap_or_default();
                let of_context = |t: &Tab| t.context.as_deref() == Some(context.as_str());
                let count = self.all_tabs().filter(|t| of_context(t)).count();
                if !self.contexts.contains(&context) {
                    Reply::Error(-32000, "Failed to find context with id")
                } else if count == self.tab_count() {
                    // The model keeps a tab (see `Op::DisposeContext`).
                    Reply::Error(-32000, "Cannot close every tab in the model")
                } else {
                    // Chromium closes every tab of it (each detached, then destroyed),
                    // then answers.
                    self.contexts.retain(|c| *c != context);
                    while let Some(loc) = self.locate_context_tab(&context) {
                        before.extend(self.close_model_tab(loc, 0));
                    }
                    Reply::Result("{}".into())
                }
            }
            "Target.closeTarget" => {
                let target = param("targetId").unwrap_or_default();
                match self.locate_target(&target) {
                    None => Reply::Error(-32602, "No target with given id found"),
                    Some(loc) => {
                        before = self.close_model_tab(loc, 0);
                        Reply::Result(r#"{"success":true}"#.into())
                    }
                }
            }
            _ => Reply::Result("{}".into()),
        };
        (before, reply)
    }

    /// Applies one operation.
    pub fn apply(&mut self, op: &Op) {
        self.log(|| format!("op {op:?}"));
        self.bursting = matches!(
            op,
            Op::FrameBurst { .. } | Op::DialogBurst { .. } | Op::Console { burst: true, .. }
        );
        self.apply_op(op);
        if self.bursting {
            self.bursting = false;
            self.check_state();
        }
    }

    fn apply_op(&mut self, op: &Op) {
        match *op {
            Op::FrameAttached { parent, navigate } => {
                self.attach_frame(parent, navigate);
            }
            Op::FrameBurst {
                parent,
                count,
                oopif,
            } => {
                for i in 0..(count % 32) {
                    let id = self.attach_frame(parent, false);
                    if let (true, Some(id)) = (oopif, id) {
                        self.swap_frame_id(id, i % 2 == 0, true);
                    }
                }
            }
            Op::FrameNavigated {
                frame,
                within_document,
            } => {
                let id = self.tab.pick_frame(frame);
                if within_document {
                    let session = self.tab.doc_session(&id).or(self.tab.page_session.clone());
                    let params = format!(r#"{{"frameId":"{id}","url":"http://a.test/#x"}}"#);
                    let _ = self.feed(&event(
                        session.as_deref(),
                        "Page.navigatedWithinDocument",
                        &params,
                    ));
                } else {
                    let msgs = self.tab.navigate(&id);
                    self.feed_all(msgs);
                }
            }
            Op::FrameRemoved {
                frame,
                targets_first,
            } => self.remove_frame(frame, targets_first),
            Op::FrameSwapped {
                frame,
                detach_first,
                waiting,
            } => self.swap_frame(frame, detach_first, waiting),
            Op::OopifBackInProcess { session } => {
                let sid = self.tab.pick_session(session, &[Kind::Iframe]);
                let Some(s) = self.tab.session(&sid).cloned() else {
                    let _ = self.feed(&event(
                        self.tab.page_session.as_deref(),
                        "Target.detachedFromTarget",
                        &format!(r#"{{"sessionId":"{sid}"}}"#),
                    ));
                    return;
                };
                let params = format!(r#"{{"sessionId":"{sid}","targetId":"{}"}}"#, s.target);
                let detach = event(s.parent.as_deref(), "Target.detachedFromTarget", &params);
                let below = self.tab.descendants(&s.target);
                let gone = self.tab.session_and_below(&sid);
                self.tab.remove_sessions(&gone);
                self.tab.remove_frames(&below);
                let _ = self.feed(&detach);
                if let Some(host) = self.tab.host(&s.target) {
                    if let Some(msg) = self.tab.navigated(&host, &s.target) {
                        let _ = self.feed(&msg);
                    }
                }
            }
            Op::WorkerAttached { session, service } => {
                let parent = self.tab.pick_session(session, &[Kind::Page, Kind::Iframe]);
                let child = self.tab.fresh("SW-");
                let target = self.tab.fresh("W");
                let kind = if service {
                    Kind::ServiceWorker
                } else {
                    Kind::Worker
                };
                if self.tab.session(&parent).is_some() {
                    self.tab.sessions.push(ModelSession {
                        id: child.clone(),
                        kind,
                        parent: Some(parent.clone()),
                        target: target.clone(),
                    });
                }
                self.feed_msg(attach_msg(Some(&parent), &child, kind, &target, "", true));
            }
            Op::TargetDetached { session } => {
                let kinds = if session % 4 == 0 {
                    &[Kind::Page][..]
                } else {
                    &[Kind::Worker, Kind::ServiceWorker][..]
                };
                let sid = self.tab.pick_session(session, kinds);
                let (parent, target) = match self.tab.session(&sid) {
                    Some(s) => (s.parent.clone(), s.target.clone()),
                    None => (self.tab.page_session.clone(), "T-unknown".into()),
                };
                if Some(&sid) == self.tab.page_session.as_ref() {
                    let gone = self.tab.forget_sessions();
                    self.drop_outstanding_on(&gone);
                } else {
                    let gone = self.tab.session_and_below(&sid);
                    self.tab.remove_sessions(&gone);
                }
                let params = format!(r#"{{"sessionId":"{sid}","targetId":"{target}"}}"#);
                let _ = self.feed(&event(
                    parent.as_deref(),
                    "Target.detachedFromTarget",
                    &params,
                ));
            }
            Op::Crashed { session } => {
                let sid = self.tab.pick_session(session, &[Kind::Page, Kind::Iframe]);
                // A page's renderer takes down the tabs that share it (fact 25b; trace
                // `tabs-e-crash`: a same-site popup's crash crashed its opener too).
                let mut crashed = vec![sid];
                if crashed[0].as_str() == self.tab.page_session.as_deref().unwrap_or("") {
                    crashed.extend(
                        self.sharing_renderer()
                            .into_iter()
                            .filter_map(|loc| self.model_tab(loc).page_session.clone()),
                    );
                }
                for sid in crashed {
                    self.crashed.insert(sid.clone());
                    let _ = self.feed(&event(Some(&sid), "Inspector.targetCrashed", "{}"));
                }
            }
            Op::Console {
                session,
                exception,
                burst,
            } => {
                let sid = self
                    .tab
                    .pick_session(session, &[Kind::Page, Kind::Iframe, Kind::Worker]);
                if session % 3 == 0 {
                    let frame = self.tab.pick_frame(session);
                    let params = format!(
                        r#"{{"context":{{"id":1,"origin":"","name":"","auxData":{{"frameId":"{frame}","isDefault":true}}}}}}"#
                    );
                    let _ = self.feed(&event(
                        Some(&sid),
                        "Runtime.executionContextCreated",
                        &params,
                    ));
                }
                let n = if burst { 55 } else { 1 };
                for i in 0..n {
                    let text = if exception {
                        event(
                            Some(&sid),
                            "Runtime.exceptionThrown",
                            &format!(
                                r#"{{"timestamp":1,"exceptionDetails":{{"exceptionId":{i},"text":"Uncaught","lineNumber":0,"columnNumber":0,"executionContextId":1,"exception":{{"type":"object","description":"Error: boom {i}"}}}}}}"#
                            ),
                        )
                    } else {
                        let kind = ["error", "assert", "log"][i % 3];
                        event(
                            Some(&sid),
                            "Runtime.consoleAPICalled",
                            &format!(
                                r#"{{"type":"{kind}","args":[{{"type":"string","value":"boom {i}"}}],"executionContextId":1,"timestamp":1}}"#
                            ),
                        )
                    };
                    let _ = self.feed(&text);
                }
            }
            Op::DialogOpening {
                frame,
                kind,
                keep_old,
            } => self.open_dialog(frame, kind, keep_old),
            Op::DialogBurst { count } => {
                let n = MAX_PENDING_DIALOGS + 1 + (count as usize % 8);
                for i in 0..n {
                    self.open_dialog(i as u8, count, true);
                }
            }
            Op::DialogClosed { which, result } => {
                let frame = if which < UNKNOWN_FROM && !self.tab.showing.is_empty() {
                    let i = which as usize % self.tab.showing.len();
                    self.tab.showing.remove(i)
                } else {
                    self.tab.pick_frame(which | UNKNOWN_FROM)
                };
                let ps = self.tab.page_session.clone();
                let _ = self.feed(&dialog_closed(ps.as_deref(), &frame, result));
            }
            Op::Reply {
                command,
                kind,
                with_session,
            } => {
                if !self.outstanding.is_empty() {
                    // "No dialog is showing" is a dialog answer's reply (facts 10, 15): it
                    // goes to one when any is outstanding. One pick in sixteen: the newest
                    // (several tabs' set-up keeps many commands outstanding).
                    let answers: Vec<usize> = (0..self.outstanding.len())
                        .filter(|&i| self.outstanding[i].method == "Page.handleJavaScriptDialog")
                        .collect();
                    let i = if kind == ReplyKind::NoDialog && !answers.is_empty() {
                        answers[command as usize % answers.len()]
                    } else if command >= 240 {
                        self.outstanding.len() - 1
                    } else {
                        command as usize % self.outstanding.len()
                    };
                    let cmd = self.outstanding.remove(i);
                    self.reply(cmd, kind, with_session);
                }
            }
            Op::Forget { command } => {
                if !self.outstanding.is_empty() {
                    let i = command as usize % self.outstanding.len();
                    self.outstanding.remove(i);
                }
            }
            Op::Advance { step } => {
                let target = self.now + STEPS[step as usize % STEPS.len()];
                self.advance_to(target);
            }
            Op::Disconnect => {
                if self.connected {
                    self.disconnect();
                }
            }
            Op::Reconnect { auto_attach } => {
                if self.connected {
                    self.disconnect();
                }
                self.connect(auto_attach);
            }
            Op::RespondDialog {
                dialog,
                by_id,
                accept,
                text,
                tab,
            } => {
                let pending: Vec<String> = self
                    .sup
                    .snapshot()
                    .pending_dialogs
                    .into_iter()
                    .map(|d| d.id)
                    .collect();
                let id = by_id.then(|| {
                    if dialog < UNKNOWN_FROM && !pending.is_empty() {
                        pending[dialog as usize % pending.len()].clone()
                    } else {
                        format!("d-{}", dialog % 4)
                    }
                });
                let action = if accept {
                    DialogAction::Accept
                } else {
                    DialogAction::Dismiss
                };
                let prompt = text.then_some("typed \"text\"");
                // One text answer in two that accepts answers with a file instead (a file
                // chooser takes it; any other dialog refuses it).
                let answer = if accept && text && dialog % 2 == 1 {
                    cdp_supervisor::Answer::upload(["/up/a.txt"])
                } else {
                    cdp_supervisor::Answer::new(action, prompt)
                };
                // Most answers that name a tab name the dialog's; one in four another
                // (listed, closed or unknown).
                let tab_id = match (tab % 8, &id, pending.first()) {
                    (3 | 5 | 7, Some(d), _) | (3 | 5 | 7, None, Some(d)) if tab < UNKNOWN_FROM => {
                        self.dialog_tab.get(d).cloned()
                    }
                    _ => self.pick_tab_id(tab),
                };
                let result =
                    self.sup
                        .respond_dialog_in(self.now, tab_id.as_deref(), answer, id.as_deref());
                self.log(|| format!("respond_dialog {tab_id:?} {id:?} -> {result:?}"));
                if let Ok(answer) = result {
                    self.answers.insert(answer.0, 0);
                    self.answer_accepts.insert(answer.0, accept);
                    // The tab of the dialog it answers.
                    let of = match &id {
                        Some(d) => self.dialog_tab.get(d).cloned(),
                        None => tab_id.clone().or_else(|| {
                            pending
                                .first()
                                .and_then(|d| self.dialog_tab.get(d).cloned())
                        }),
                    };
                    if let Some(t) = of {
                        self.command_tab.insert(answer.0, t);
                    }
                }
                self.drain();
            }
            Op::Command {
                frame,
                top,
                method,
                timeout,
                tab,
            } => self.command(frame, top, method, timeout, tab),
            Op::Evaluate {
                frame,
                top,
                element,
                timeout,
                tab,
            } => self.evaluate(frame, top, element, timeout, tab),
            Op::SetPolicy { policy } => {
                let policy = [
                    DialogPolicy::MustRespond,
                    DialogPolicy::AutoDismiss,
                    DialogPolicy::AutoAccept,
                ][policy as usize % 3];
                self.log(|| format!("set_policy {policy:?}"));
                self.sup.set_policy(policy);
                self.drain();
            }
            Op::Settle { accept } => {
                let action = if accept {
                    DialogAction::Accept
                } else {
                    DialogAction::Dismiss
                };
                let ids = self.sup.settle_dialogs(self.now, action);
                self.log(|| format!("settle -> {ids:?}"));
                for id in ids {
                    self.answers.insert(id.0, 0);
                    self.answer_accepts.insert(id.0, accept);
                }
                self.drain();
            }
            Op::Recover { tab } => {
                let tab_id = self.pick_tab_id(tab);
                let of = self.tab_of_call(tab_id.as_deref());
                let result = self.sup.recover_in(self.now, tab_id.as_deref());
                self.log(|| format!("recover {tab_id:?} -> {result:?}"));
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, false));
                    if let Some(t) = of {
                        self.command_tab.insert(id.0, t);
                    }
                }
                self.drain();
            }
            Op::Junk { kind, pick } => self.junk(kind, pick),
            Op::RequestPaused { frame, url, kind } => self.pause_request(frame, url, kind),
            Op::FileChooser { frame, multiple } => {
                let frame = self.tab.pick_frame(frame);
                let session = self
                    .tab
                    .doc_session(&frame)
                    .unwrap_or_else(|| "S-unknown-chooser".into());
                let mode = if multiple {
                    "selectMultiple"
                } else {
                    "selectSingle"
                };
                let params =
                    format!(r#"{{"frameId":"{frame}","mode":"{mode}","backendNodeId":7}}"#);
                let _ = self.feed(&event(Some(&session), "Page.fileChooserOpened", &params));
            }
            Op::AuthChallenge {
                frame,
                known_origin,
                document,
                again,
            } => {
                let frame = self.tab.pick_frame(frame);
                let session = self
                    .tab
                    .doc_session(&frame)
                    .unwrap_or_else(|| "S-unknown-auth".into());
                let request = if again {
                    "R-auth-again".to_owned()
                } else {
                    self.tab.fresh("R-auth")
                };
                let origin = if known_origin {
                    "http://a.test"
                } else {
                    "http://other.test"
                };
                let kind = if document { "Document" } else { "Image" };
                let params = format!(
                    r#"{{"requestId":"{request}","request":{{"url":"{origin}/x","method":"GET","headers":{{}}}},"frameId":"{frame}","resourceType":"{kind}","authChallenge":{{"source":"Server","origin":"{origin}","scheme":"basic","realm":"r"}}}}"#
                );
                let _ = self.feed(&event(Some(&session), "Fetch.authRequired", &params));
            }
            Op::Download { frame, guid, step } => {
                let frame = self.tab.pick_frame(frame);
                let guid = format!("g-{}", guid % 4);
                let (method, params) = match step % 4 {
                    0 => (
                        "Browser.downloadWillBegin",
                        format!(
                            r#"{{"frameId":"{frame}","guid":"{guid}","url":"http://a.test/f","suggestedFilename":"f"}}"#
                        ),
                    ),
                    1 => (
                        "Browser.downloadProgress",
                        format!(
                            r#"{{"guid":"{guid}","receivedBytes":10,"totalBytes":5000,"state":"inProgress"}}"#
                        ),
                    ),
                    2 => (
                        "Browser.downloadProgress",
                        format!(
                            r#"{{"guid":"{guid}","receivedBytes":10,"totalBytes":10,"state":"completed","filePath":"/dl/{guid}"}}"#
                        ),
                    ),
                    _ => (
                        "Browser.downloadProgress",
                        format!(
                            r#"{{"guid":"{guid}","receivedBytes":0,"totalBytes":5000,"state":"canceled"}}"#
                        ),
                    ),
                };
                let _ = self.feed(&event(None, method, &params));
            }
            Op::PopupOpened {
                opener,
                cross_site,
                access,
                waiting,
            } => {
                if self.tab_count() >= MODEL_MAX_TABS {
                    return;
                }
                let opener = (opener % 8 != 7).then(|| self.pick_model_tab(opener));
                let (target, msgs) = self.open_model_tab(opener, cross_site, access, waiting, None);
                if let Some(loc) = self.locate_target(&target) {
                    self.focus(loc);
                }
                self.feed_all(msgs);
            }
            Op::TabClosed { tab, how } => {
                // Half the time the tab in focus (most often a popup that just opened).
                let loc = if tab % 2 == 0 {
                    Loc::Focus
                } else {
                    self.pick_model_tab(tab / 2)
                };
                let msgs = self.close_model_tab(loc, how);
                self.feed_all(msgs);
            }
            Op::TabNavigated { tab, cross_site } => {
                let loc = self.pick_model_tab(tab);
                let msgs = self.on_tab(loc, |d| {
                    if cross_site {
                        d.tab.host = if d.tab.host == "a.test" {
                            "b.test".into()
                        } else {
                            "a.test".into()
                        };
                    }
                    let top = d.tab.target.clone();
                    let mut msgs = d.tab.navigate(&top);
                    if d.tab.page_session.is_some() {
                        msgs.push(Msg::Plain(target_info_changed(&d.tab)));
                    }
                    msgs
                });
                if self.connected {
                    self.feed_all(msgs);
                }
            }
            Op::Focus { tab } => {
                // Among the tabs the browser has a session on, when there are any: ops on
                // a tab nobody is attached to only reach the supervisor as unknown ids.
                let mut attached: Vec<(u32, Loc)> = std::iter::once((&self.tab, Loc::Focus))
                    .chain(
                        self.others
                            .iter()
                            .enumerate()
                            .map(|(i, t)| (t, Loc::Other(i))),
                    )
                    .filter(|(t, _)| t.page_session.is_some())
                    .map(|(t, loc)| (t.index, loc))
                    .collect();
                attached.sort_by_key(|(index, _)| *index);
                let loc = if attached.is_empty() {
                    self.pick_model_tab(tab)
                } else {
                    attached[tab as usize % attached.len()].1
                };
                self.focus(loc);
            }
            Op::SelectTab { tab } => {
                let tab_id = self.pick_tab_id(tab | 1);
                let Some(tab_id) = tab_id else { return };
                let result = self.sup.select_tab(self.now, &tab_id);
                self.log(|| format!("select_tab {tab_id} -> {result:?}"));
                if let (Ok(()), Some(loc)) = (&result, self.locate_target(&tab_id)) {
                    self.focus(loc);
                }
                self.drain();
            }
            Op::NewTab { url } => {
                let url = ["about:blank", "http://a.test/new", "http://c.test/"][url as usize % 3];
                let result = self.sup.new_tab(self.now, url);
                self.log(|| format!("new_tab {url} -> {result:?}"));
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, true));
                }
                self.drain();
            }
            Op::NewContext => {
                let result = self.sup.create_context(self.now);
                self.log(|| format!("create_context -> {result:?}"));
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, true));
                }
                self.drain();
                // Answered at once, so that short runs reach its tabs.
                let create =
                    |c: &cdp_supervisor::OutgoingCommand| c.method == "Target.createBrowserContext";
                if let Some(i) = self.outstanding.iter().rposition(create) {
                    let cmd = self.outstanding.remove(i);
                    self.reply(cmd, ReplyKind::Realistic, true);
                }
            }
            Op::NewTabInContext { context } => {
                let context = self.pick_context(context);
                let url = "http://a.test/in-context";
                let result = self
                    .sup
                    .new_tab_in_context(self.now, url, context.as_deref());
                self.log(|| format!("new_tab_in_context {context:?} -> {result:?}"));
                if context.as_deref() == Some(UNKNOWN_CONTEXT) {
                    let code = result.as_ref().map_err(|e| e.code());
                    assert_eq!(code.err(), Some("no_such_context"), "an unknown context");
                }
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, true));
                }
                self.drain();
            }
            Op::DisposeContext { context } => {
                let Some(context) = self.pick_context(context) else {
                    return;
                };
                let result = self.sup.dispose_context(self.now, &context);
                self.log(|| format!("dispose_context {context} -> {result:?}"));
                if context == UNKNOWN_CONTEXT {
                    let code = result.as_ref().map_err(|e| e.code());
                    assert_eq!(code.err(), Some("no_such_context"), "an unknown context");
                }
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, true));
                }
                self.drain();
            }
            Op::CloseTab { tab, force } => {
                let tab_id = self.pick_tab_id(tab);
                let of = self.tab_of_call(tab_id.as_deref());
                let result = self.sup.close_tab(self.now, tab_id.as_deref(), force);
                self.log(|| format!("close_tab {tab_id:?} {force} -> {result:?}"));
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, true));
                }
                self.drain();
                if let Ok(id) = result {
                    // `Page.close` is the tab's; `Target.closeTarget` the browser's.
                    let on_session = self
                        .last_sent_method(id.0)
                        .is_some_and(|m| m == "Page.close");
                    if let (Some(t), true) = (of, on_session) {
                        self.command_tab.insert(id.0, t);
                    }
                }
            }
        }
    }

    /// A tab for a call: `None` (the current tab) for even picks, else a listed tab, or
    /// (picks at or above [`UNKNOWN_FROM`]) a closed or unknown one.
    fn pick_tab_id(&self, pick: Pick) -> Option<String> {
        if pick % 2 == 0 && pick < UNKNOWN_FROM {
            return None;
        }
        let tabs = self.sup.tabs();
        if pick >= UNKNOWN_FROM || tabs.is_empty() {
            return Some(match self.gone_tabs.get(pick as usize % 8) {
                Some(stale) if pick % 2 == 0 => stale.clone(),
                _ => "T-unknown".to_owned(),
            });
        }
        Some(tabs[(pick / 2) as usize % tabs.len()].tab_id.clone())
    }

    /// A context for a call: one the supervisor created (odd picks), the default one (even
    /// picks, `None`), an unknown id (picks from [`UNKNOWN_FROM`]).
    fn pick_context(&self, pick: Pick) -> Option<String> {
        if pick >= UNKNOWN_FROM {
            return Some(UNKNOWN_CONTEXT.to_owned());
        }
        let created = self.sup.contexts();
        if pick % 2 == 0 || created.is_empty() {
            return None;
        }
        Some(created[(pick / 2) as usize % created.len()].to_owned())
    }

    /// The tab a call naming `tab_id` goes to (the current one when it names none).
    fn tab_of_call(&self, tab_id: Option<&str>) -> Option<String> {
        match tab_id {
            Some(t) => Some(t.to_owned()),
            None => self.sup.current_tab().map(str::to_owned),
        }
    }

    /// The method of a command the supervisor transmitted (still outstanding).
    fn last_sent_method(&self, id: u64) -> Option<&str> {
        self.outstanding
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.method.as_str())
    }

    /// Attaches a new frame; returns its id when its parent is known.
    fn attach_frame(&mut self, parent: Pick, navigate: bool) -> Option<String> {
        let parent = self.tab.pick_frame(parent);
        let id = self.tab.fresh("F");
        let Some(session) = self.tab.doc_session(&parent) else {
            // Unknown parent: Chromium would not say this; the supervisor must cope.
            let params = format!(r#"{{"frameId":"{id}","parentFrameId":"{parent}"}}"#);
            let ps = self.tab.page_session.clone();
            let _ = self.feed(&event(ps.as_deref(), "Page.frameAttached", &params));
            return None;
        };
        self.tab.frames.push(ModelFrame {
            id: id.clone(),
            parent: Some(parent.clone()),
            url: "about:blank".into(),
            oopif_session: None,
        });
        let params = format!(r#"{{"frameId":"{id}","parentFrameId":"{parent}"}}"#);
        let _ = self.feed(&event(Some(&session), "Page.frameAttached", &params));
        if navigate {
            let n = self.tab.next;
            if let Some(f) = self.tab.frames.iter_mut().find(|f| f.id == id) {
                f.url = format!("http://a.test/frame{n}");
            }
            if let Some(msg) = self.tab.navigated(&session, &id) {
                let _ = self.feed(&msg);
            }
        }
        Some(id)
    }

    fn remove_frame(&mut self, frame: Pick, targets_first: bool) {
        let id = if frame >= UNKNOWN_FROM {
            self.tab.pick_frame(frame)
        } else {
            match self.tab.pick_subframe(frame) {
                Some(id) => id,
                None => {
                    self.attach_frame(frame, true);
                    return;
                }
            }
        };
        let host = self.tab.host(&id).or(self.tab.page_session.clone());
        let mut subtree = vec![id.clone()];
        subtree.extend(self.tab.descendants(&id));
        // Fact 4: the sessions inside detach, workers first.
        let mut inside: Vec<ModelSession> = Vec::new();
        for f in &subtree {
            if let Some(s) = self.tab.frame(f).and_then(|f| f.oopif_session.clone()) {
                for below in self.tab.session_and_below(&s) {
                    if let Some(m) = self.tab.session(&below) {
                        inside.push(m.clone());
                    }
                }
            }
        }
        inside.sort_by_key(|s| s.kind == Kind::Iframe);
        let targets: Vec<String> = inside
            .iter()
            .map(|s| {
                let params = format!(r#"{{"sessionId":"{}","targetId":"{}"}}"#, s.id, s.target);
                event(s.parent.as_deref(), "Target.detachedFromTarget", &params)
            })
            .collect();
        let frames = vec![
            event(
                host.as_deref(),
                "Page.frameSubtreeWillBeDetached",
                &format!(r#"{{"frameId":"{id}"}}"#),
            ),
            event(
                host.as_deref(),
                "Page.frameDetached",
                &format!(r#"{{"frameId":"{id}","reason":"remove"}}"#),
            ),
        ];
        self.tab.remove_frames(&subtree);
        let (first, second) = if targets_first {
            (targets, frames)
        } else {
            (frames, targets)
        };
        for text in first.into_iter().chain(second) {
            let _ = self.feed(&text);
        }
    }

    fn swap_frame(&mut self, frame: Pick, detach_first: bool, waiting: bool) {
        match self.tab.pick_subframe(frame) {
            Some(id) => self.swap_frame_id(id, detach_first, waiting),
            None => {
                self.attach_frame(frame, true);
            }
        }
    }

    fn swap_frame_id(&mut self, id: String, detach_first: bool, waiting: bool) {
        let Some(host) = self.tab.host(&id) else {
            return;
        };
        let parent = self
            .tab
            .frame(&id)
            .and_then(|f| f.parent.clone())
            .unwrap_or_default();
        let mut msgs = Vec::new();
        // Already an OOPIF: a cross-site navigation replaces its session.
        if let Some(old) = self.tab.frame(&id).and_then(|f| f.oopif_session.clone()) {
            let params = format!(r#"{{"sessionId":"{old}","targetId":"{id}"}}"#);
            msgs.push(Msg::Plain(event(
                Some(&host),
                "Target.detachedFromTarget",
                &params,
            )));
            let gone = self.tab.session_and_below(&old);
            self.tab.remove_sessions(&gone);
        }
        // The new document starts empty.
        let below = self.tab.descendants(&id);
        self.tab.remove_frames(&below);
        let child = self.tab.fresh("S");
        self.tab.sessions.push(ModelSession {
            id: child.clone(),
            kind: Kind::Iframe,
            parent: Some(host.clone()),
            target: id.clone(),
        });
        let n = self.tab.next;
        if let Some(f) = self.tab.frames.iter_mut().find(|f| f.id == id) {
            f.oopif_session = Some(child.clone());
            f.url = format!("http://b.test/{n}");
        }
        let attach = attach_msg(
            Some(&host),
            &child,
            Kind::Iframe,
            &id,
            &format!(r#","parentFrameId":"{parent}""#),
            waiting,
        );
        let swap = Msg::Plain(event(
            Some(&host),
            "Page.frameDetached",
            &format!(r#"{{"frameId":"{id}","reason":"swap"}}"#),
        ));
        if detach_first {
            msgs.push(swap);
            msgs.push(attach);
        } else {
            msgs.push(attach);
            msgs.push(swap);
        }
        self.feed_all(msgs);
    }

    fn open_dialog(&mut self, frame: Pick, kind: u8, keep_old: bool) {
        let frame = self.tab.pick_frame(frame);
        let kind = ["alert", "confirm", "prompt", "beforeunload"][kind as usize % 4];
        let message = if kind == "beforeunload" { "" } else { "Sure?" };
        let ps = self
            .tab
            .page_session
            .clone()
            .unwrap_or_else(|| "S-unknown-page".into());
        let params = format!(
            r#"{{"url":"http://a.test/","frameId":"{frame}","message":"{message}","type":"{kind}","hasBrowserHandler":false,"defaultPrompt":"def"}}"#
        );
        let _ = self.feed(&event(Some(&ps), "Page.javascriptDialogOpening", &params));
        // Fact 8: one native dialog per tab; the old one closes after the new one opens.
        if !keep_old && !self.tab.showing.is_empty() {
            let old = self.tab.showing.remove(0);
            let _ = self.feed(&dialog_closed(Some(&ps), &old, false));
        }
        self.tab.showing.push(frame);
    }

    /// A frame of the tab a call goes to: one the diffs made known (`known`), else one
    /// the model has (picks at or above [`UNKNOWN_FROM`]: an unknown or stale one).
    fn frame_for_call(&self, tab: Option<&str>, pick: Pick, known: bool) -> String {
        if known && pick < UNKNOWN_FROM {
            if let Some(k) = tab.and_then(|t| self.known.get(t)) {
                if !k.frames.is_empty() {
                    let ids: Vec<&String> = k.frames.keys().collect();
                    return ids[pick as usize % ids.len()].clone();
                }
            }
        }
        let model = tab
            .and_then(|t| self.locate_target(t))
            .unwrap_or(Loc::Focus);
        self.model_tab(model).pick_frame(pick)
    }

    fn command(&mut self, frame: Pick, top: bool, method: u8, timeout: u8, tab: Pick) {
        let tab_id = self.pick_tab_id(tab);
        let of = self.tab_of_call(tab_id.as_deref());
        let frame_id = (!top).then(|| self.frame_for_call(of.as_deref(), frame, true));
        let (method, params) = [
            ("Runtime.evaluate", Some(r#"{"expression":"1+1"}"#)),
            ("DOM.getDocument", None),
            ("Page.reload", Some("{}")),
            ("Target.getTargetInfo", None),
            ("Page.navigate", Some(r#"{"url":"http://a.test/next"}"#)),
            ("Runtime.terminateExecution", None),
            ("Runtime.evaluate", Some("[1]")),
        ][method as usize % 7];
        let params: Option<Box<RawValue>> =
            params.and_then(|p| RawValue::from_string(p.to_owned()).ok());
        let timeout = Duration::from_secs([1, 5, 30][timeout as usize % 3]);
        let result = self.sup.command_in(
            self.now,
            tab_id.as_deref(),
            frame_id.as_deref(),
            method,
            params.as_deref(),
            timeout,
        );
        self.log(|| format!("command {tab_id:?} {frame_id:?} {method} -> {result:?}"));
        if let Err(CommandError::TooManyInFlight { limit }) = &result {
            assert_eq!(*limit, self.sup.config().max_commands_in_flight);
        }
        if let Ok(id) = result {
            self.commands.insert(id.0, (0, true));
            if let Some(t) = of.clone() {
                self.command_tab.insert(id.0, t);
            }
        }
        self.drain();
        // SPEC §16: a command goes to a session of the tab it names (the current one
        // when it names none), never another tab's.
        if let (Ok(id), Some(tab), true) = (&result, &of, self.checks.tabs) {
            let session = self.sent_session.get(&id.0).cloned().flatten();
            let owner = session.as_ref().and_then(|s| self.session_tab.get(s));
            assert!(
                owner.is_none_or(|o| o == tab),
                "§16: command {id} into tab {tab} sent on {session:?}, a session of tab {owner:?}"
            );
            if self.checks.log && owner.is_some() && self.sup.current_tab() != Some(tab) {
                self.log
                    .push("# a command into another tab than the current".into());
            }
        }
    }

    fn evaluate(&mut self, frame: Pick, top: bool, element: u8, timeout: u8, tab: Pick) {
        use cdp_supervisor::evaluate::{Element, Evaluation};
        let tab_id = self.pick_tab_id(tab);
        let of = self.tab_of_call(tab_id.as_deref());
        let frame_id = (!top).then(|| self.frame_for_call(of.as_deref(), frame, false));
        let mut e =
            Evaluation::new(["1+1", "while(true){}", "new Promise(()=>{})"][timeout as usize % 3]);
        e.frame_id = frame_id;
        e.element = match element % 4 {
            0 | 1 => None,
            2 => Some(Element::BackendNodeId(i64::from(element))),
            _ => Some(Element::Ref(format!("e{element}"))),
        };
        e.timeout = Duration::from_millis([0, 500, 30_000][timeout as usize % 3]);
        let result = self.sup.evaluate_in(self.now, tab_id.as_deref(), &e);
        self.log(|| format!("evaluate {tab_id:?} {e:?} -> {result:?}"));
        if let Ok(id) = result {
            self.commands.insert(id.0, (0, false));
            self.evaluates.insert(id.0);
            if let Some(t) = of {
                self.command_tab.insert(id.0, t);
            }
        }
        self.drain();
    }

    fn pause_request(&mut self, frame: Pick, url: u8, kind: u8) {
        let frame = self.tab.pick_frame(frame);
        let session = self
            .tab
            .doc_session(&frame)
            .unwrap_or_else(|| "S-unknown-fetch".into());
        let request = self.tab.fresh("R");
        let k = ["alert", "confirm", "prompt"][kind as usize % 3];
        // The script POSTs its fields (the query form is what older recordings show).
        let post = (url % 10 >= 8).then(|| match url % 10 {
            8 => format!(r#","postData":"t={TOKEN}&k={k}&m=Posted&d=def""#),
            _ => format!(r#","postData":"t=wrong&k={k}""#),
        });
        let url = match url % 10 {
            8 | 9 => "http://bridge.invalid/".to_owned(),
            0 => format!("http://bridge.invalid/?t={TOKEN}&k={k}&m=Hi%20there&d=def"),
            1 => format!("https://bridge.invalid/?t={TOKEN}&k={k}&m=&d="),
            2 => format!("http://bridge.invalid/?t=wrong&k={k}&m=forged"),
            3 => format!("http://bridge.invalid/?k={k}&m=no%20token"),
            4 => "http://a.test/app.js".to_owned(),
            5 => format!("http://bridge.invalid.evil.test/?t={TOKEN}&k={k}"),
            6 => format!("http://bridge.invalid:8080/?t={TOKEN}&k={k}"),
            _ => format!("http://bridge.invalid/?t={TOKEN}&k=beforeunload"),
        };
        let params = format!(
            r#"{{"requestId":"{request}","request":{{"url":"{url}","method":"POST","headers":{{}}{}}},"frameId":"{frame}","resourceType":"XHR"}}"#,
            post.unwrap_or_default()
        );
        // Registered before feeding: the answer may go out at once (a continue, a refusal,
        // an auto policy).
        let key = (session.clone(), request);
        let conn = self.conn;
        self.paused.insert(
            key.clone(),
            Paused {
                conn,
                ..Paused::default()
            },
        );
        let result = self.feed(&event(Some(&session), "Fetch.requestPaused", &params));
        if result.is_ok() {
            self.tab.paused.push(key);
        } else {
            // Refused (unknown session): nobody owes it an answer.
            self.paused.remove(&key);
        }
    }

    fn junk(&mut self, kind: u8, pick: Pick) {
        let ps = self
            .tab
            .page_session
            .clone()
            .unwrap_or_else(|| "S-none".into());
        let f = self.tab.pick_frame(pick);
        let fresh = self.tab.fresh("J");
        let text = match kind % 18 {
            0 => r#"{"id":"#.to_owned(),
            1 => format!(r#"{{"id":{},"result":{{}}}}"#, 1_000_000 + pick as u64),
            2 => event(
                Some("S-ghost"),
                "Page.frameAttached",
                &format!(
                    r#"{{"frameId":"{fresh}","parentFrameId":"{}"}}"#,
                    self.tab.target
                ),
            ),
            3 => {
                // A child announced on a session nobody knows: still must be resumed.
                let child = self.tab.fresh("S-orphan-");
                let kind = if pick % 2 == 0 {
                    Kind::Iframe
                } else {
                    Kind::Worker
                };
                return self.feed_msg(attach_msg(Some("S-ghost"), &child, kind, &fresh, "", true));
            }
            4 => dialog_closed(Some(&ps), "F-never", pick % 2 == 0),
            5 => event(
                Some(&ps),
                "Page.frameNavigated",
                &format!(
                    r#"{{"frame":{{"id":"{fresh}","parentId":"F-nowhere","url":"http://c.test/","securityOrigin":"http://c.test"}}}}"#
                ),
            ),
            6 => event(
                Some(&ps),
                "Page.frameAttached",
                &format!(r#"{{"frameId":"{f}","parentFrameId":"{f}"}}"#),
            ),
            7 => event(
                Some(&ps),
                "Page.frameDetached",
                &format!(r#"{{"frameId":"{f}"}}"#),
            ),
            8 => "[1,2,3]".to_owned(),
            9 => format!(r#"{{"method":"Page.javascriptDialogOpening","sessionId":"{ps}"}}"#),
            10 => event(Some(&ps), "Page.frameAttached", r#"{"frameId":5}"#),
            11 => {
                // An iframe target for a frame nobody reported, under an unknown parent.
                let child = self.tab.fresh("S-odd-");
                if self.tab.session(&ps).is_some() {
                    self.tab.sessions.push(ModelSession {
                        id: child.clone(),
                        kind: Kind::Iframe,
                        parent: Some(ps.clone()),
                        target: fresh.clone(),
                    });
                }
                return self.feed_msg(attach_msg(
                    Some(&ps),
                    &child,
                    Kind::Iframe,
                    &fresh,
                    r#","parentFrameId":"F-nowhere""#,
                    true,
                ));
            }
            12 => {
                // A parent cycle between two new frames.
                let other = self.tab.fresh("J");
                let a = event(
                    Some(&ps),
                    "Page.frameAttached",
                    &format!(r#"{{"frameId":"{fresh}","parentFrameId":"{other}"}}"#),
                );
                let _ = self.feed(&a);
                event(
                    Some(&ps),
                    "Page.frameAttached",
                    &format!(r#"{{"frameId":"{other}","parentFrameId":"{fresh}"}}"#),
                )
            }
            13 => event(
                Some(&ps),
                "Target.detachedFromTarget",
                r#"{"sessionId":"S-never"}"#,
            ),
            14 => format!(
                r#"{{"id":{},"result":{{}},"error":{{"code":1}}}}"#,
                self.outstanding.first().map_or(0, |c| c.id)
            ),
            15 => event(
                Some(&ps),
                "Inspector.detached",
                r#"{"reason":"Render process gone."}"#,
            ),
            16 => event(
                Some(&ps),
                "Page.frameNavigated",
                &format!(
                    r#"{{"frame":{{"id":"{}","parentId":"{f}","url":"http://a.test/","securityOrigin":"http://a.test"}}}}"#,
                    self.tab.target
                ),
            ),
            _ => {
                let mut s = String::from(
                    r#"{"method":"Runtime.consoleAPICalled","params":{"type":"error","args":["#,
                );
                for _ in 0..(pick % 64) {
                    s.push('[');
                }
                s
            }
        };
        if kind % 18 == 1 || kind % 18 == 14 {
            // Replies to ids never sent (or consumed) must be refused, not matched.
            let r = self.feed(&text);
            if kind % 18 == 1 {
                assert!(
                    r.is_err(),
                    "a reply to an id never sent was accepted: {text}"
                );
            }
            return;
        }
        let _ = self.feed(&text);
    }

    /// Time past every deadline, then every embedder command must have ended.
    pub fn finish(&mut self) {
        let end = self.now + 1000.0;
        self.advance_to(end);
        if self.checks.outcomes {
            for (id, (n, _)) in &self.commands {
                assert_eq!(*n, 1, "command {id} ended in {n} outcomes, not one");
            }
            for (id, n) in &self.answers {
                assert_eq!(*n, 1, "dialog answer {id} ended in {n} outcomes, not one");
            }
        }
        if self.checks.fetch {
            for ((session, request), p) in &self.paused {
                // Gone with its session, renderer or connection: nothing left to answer.
                let alive = p.conn == self.conn
                    && self.connected
                    && self.locate_session(session).is_some()
                    && !self.crashed.contains(session)
                    && self.supervisor_tracks(session);
                assert!(
                    p.answers > 0 || !alive,
                    "SPEC §6.5: request {request} paused on {session} was never answered"
                );
            }
        }
    }

    // ---- outputs and checks -------------------------------------------------------------

    fn drain(&mut self) {
        while let Some(cmd) = self.sup.poll_transmit() {
            self.log(|| format!("> {}", cmd.json));
            self.on_transmit(&cmd);
            if self.connected {
                self.outstanding.push(cmd);
            }
        }
        while let Some(ev) = self.sup.poll_event() {
            self.log(|| match &ev {
                Event::Warning(w) => format!("! {ev:?}: {w}"),
                _ => format!("! {ev:?}"),
            });
            self.on_event(&ev);
        }
        self.check_closed_tabs();
        if !self.bursting {
            self.check_state();
        }
    }

    /// SPEC §16: a closed tab's commands in flight end at once (Chromium never answers
    /// them), each in one outcome.
    fn check_closed_tabs(&mut self) {
        let ended = std::mem::take(&mut self.ended_now);
        if self.closed_now.is_empty() {
            return;
        }
        let closed = std::mem::take(&mut self.closed_now);
        if self.checks.log
            && ended
                .iter()
                .any(|id| self.command_tab.get(id).is_some_and(|t| closed.contains(t)))
        {
            self.log.push("# a closed tab's calls ended with it".into());
        }
        if !self.checks.outcomes {
            return;
        }
        for (id, tab) in &self.command_tab {
            if !closed.contains(tab) {
                continue;
            }
            let ended = match self.commands.get(id) {
                Some((n, _)) => *n,
                None => self.answers.get(id).copied().unwrap_or(1),
            };
            assert!(
                ended == 1,
                "SPEC §16: tab {tab} closed with command {id} still in flight ({ended} outcomes)"
            );
        }
    }

    fn on_transmit(&mut self, cmd: &cdp_supervisor::OutgoingCommand) {
        if self.checks.tabs {
            self.sent_session.insert(cmd.id, cmd.session_id.clone());
        }
        if self.checks.answers_on_page_session && cmd.method == "Page.handleJavaScriptDialog" {
            let on_page = cmd
                .session_id
                .as_ref()
                .is_some_and(|s| self.page_sessions.contains(s));
            assert!(
                on_page,
                "fact 6: Page.handleJavaScriptDialog sent on {:?}, not a page session (the tabs': {:?})",
                cmd.session_id,
                self.page_sessions
            );
        }
        if matches!(
            cmd.method.as_str(),
            "Fetch.fulfillRequest" | "Fetch.continueRequest" | "Fetch.failRequest"
        ) {
            self.on_fetch_answer(cmd);
        }
        let Some(session) = &cmd.session_id else {
            return;
        };
        if self.checks.resume_once {
            if let Some(kind) = self.waiting.get(session) {
                let sent = self.sent_on.get(session).map(Vec::as_slice).unwrap_or(&[]);
                assert!(
                    !(cmd.method == RESUME && sent.iter().any(|m| m == RESUME)),
                    "fact 2: {session} resumed twice"
                );
                assert!(
                    !(matches!(kind, Kind::Worker | Kind::ServiceWorker)
                        && cmd.method == "Page.enable"),
                    "fact 14: Page.enable sent to worker session {session}"
                );
            }
        }
        self.sent_on
            .entry(session.clone())
            .or_default()
            .push(cmd.method.clone());
    }

    /// Fact 12: a paused request is answered on the session it paused on, once (again
    /// only after an answer that failed).
    fn on_fetch_answer(&mut self, cmd: &cdp_supervisor::OutgoingCommand) {
        let request = serde_json::from_str::<Value>(&cmd.json)
            .ok()
            .and_then(|v| v["params"]["requestId"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let key = (cmd.session_id.clone().unwrap_or_default(), request);
        let state = self.paused.get_mut(&key);
        if self.checks.fetch {
            let Some(p) = state.as_ref() else {
                panic!(
                    "fact 12: {} for {:?}, which never paused on session {:?}",
                    cmd.method, key.1, key.0
                );
            };
            assert!(
                p.answers == 0
                    || p.may_retry
                    || self.now >= p.answer_deadline
                    || (TOLERATE_SECOND_ANSWER_IN_FLIGHT && p.in_flight),
                "SPEC §6.5: request {:?} on {:?} answered twice: {}",
                key.1,
                key.0,
                cmd.json
            );
        }
        if let Some(p) = state {
            p.answers += 1;
            p.may_retry = false;
            p.in_flight = true;
            p.answer_deadline = self.now + self.sup.config().setup_timeout.as_secs_f64();
        }
        self.fetch_answers.insert(cmd.id, key);
    }

    /// Whether the supervisor still follows `session` (a tab's page session, or an
    /// OOPIF's, as the diffs show).
    fn supervisor_tracks(&self, session: &str) -> bool {
        self.known.values().any(|k| {
            k.page_session.as_deref() == Some(session)
                || k.frames
                    .values()
                    .any(|(_, f)| f.session_id.as_deref() == Some(session))
        })
    }

    fn check_resumed(&mut self, child: &str, kind: Kind, parent_known: bool) {
        if !self.checks.resume_once {
            return;
        }
        let sent = self.sent_on.get(child).cloned().unwrap_or_default();
        let resumes: Vec<usize> = (0..sent.len()).filter(|&i| sent[i] == RESUME).collect();
        assert_eq!(
            resumes.len(),
            1,
            "fact 2: {kind:?} child {child} waiting for the debugger resumed {} times; sent on it: {sent:?}",
            resumes.len()
        );
        let resume_at = resumes[0];
        for (i, m) in sent.iter().enumerate() {
            if IFRAME_SETUP.contains(&m.as_str()) {
                assert!(
                    i < resume_at,
                    "fact 2: {m} on {child} after its resume: {sent:?}"
                );
            }
        }
        // Fact 24: a paused page (a popup) is set up like an iframe before its resume,
        // unless it is let go (over the tab bound).
        let set_up = match kind {
            Kind::Iframe => parent_known && !self.cap_warning,
            Kind::Page => !self.tab_cap_warning,
            _ => false,
        };
        if set_up {
            for m in IFRAME_SETUP {
                assert!(
                    sent[..resume_at].iter().any(|s| s == m),
                    "fact 2: {kind:?} {child} resumed without {m} first: {sent:?}"
                );
            }
        }
        self.waiting.insert(child.to_owned(), kind);
    }

    #[allow(clippy::collapsible_match)] // one arm per event, checks inside
    fn on_event(&mut self, ev: &Event) {
        match ev {
            Event::Diff(diff) => self.on_diff(diff),
            Event::CommandBlocked { id, dialog_id } => {
                if self.checks.outcomes {
                    let state = self.commands.get(&id.0);
                    assert!(
                        state.is_some_and(|(n, _)| *n == 0),
                        "§6.4: CommandBlocked for {id}, which is unknown or already ended ({state:?})"
                    );
                }
                if self.checks.log {
                    let of_dialog = self.dialog_tab.get(dialog_id);
                    if of_dialog.is_some() && of_dialog != self.command_tab.get(&id.0) {
                        self.log.push("# blocked by another tab's dialog".into());
                    }
                }
            }
            Event::CommandFinished { id, .. } | Event::Evaluated { id, .. } => {
                if self.checks.outcomes {
                    let state = self.commands.get_mut(&id.0);
                    assert!(
                        state.as_ref().is_some_and(|(n, _)| *n == 0),
                        "CommandFinished or Evaluated for {id}, which is unknown or already ended"
                    );
                }
                if let Some((n, _)) = self.commands.get_mut(&id.0) {
                    *n += 1;
                }
                self.ended_now.push(id.0);
            }
            Event::DialogAnswered { id, outcome } => {
                if self.checks.outcomes {
                    assert_eq!(
                        self.answers.get(&id.0),
                        Some(&0),
                        "DialogAnswered for {id}, which is unknown or already ended"
                    );
                    // Close attribution: a close the answer is credited with agrees with
                    // it; one it is not credited with says what the answer asked.
                    let accept = self.answer_accepts.get(&id.0).copied();
                    // A file chooser or a sign-in accepted without files or credentials (a
                    // settle's accept) can only be dismissed (SPEC §17).
                    let takes_more = |d: &cdp_supervisor::ClosedDialog| {
                        matches!(
                            d.kind,
                            cdp_supervisor::DialogKind::FileChooser
                                | cdp_supervisor::DialogKind::HttpAuth
                        ) && !d.accepted
                    };
                    match outcome {
                        Ok(d) if takes_more(d) => {}
                        Ok(d) if d.closed_by == cdp_supervisor::ClosedBy::Agent => assert_eq!(
                            Some(d.accepted),
                            accept,
                            "answer {id} credited with a close that contradicts it: {d:?}"
                        ),
                        Err(cdp_supervisor::DialogError::ClosedByBrowser { action, .. }) => {
                            assert_eq!(Some(*action == DialogAction::Accept), accept)
                        }
                        _ => {}
                    }
                }
                if let Some(n) = self.answers.get_mut(&id.0) {
                    *n += 1;
                }
                self.ended_now.push(id.0);
            }
            Event::Warning(w) => match w {
                cdp_supervisor::Warning::SessionCapReached { .. } => self.cap_warning = true,
                cdp_supervisor::Warning::TabCapReached { .. } => self.tab_cap_warning = true,
                _ => {}
            },
            _ => {}
        }
    }

    /// The tab a diff is about: the one it names, else the current one (as the mirror
    /// folds it).
    fn diff_tab(&self, tab_id: &Option<std::sync::Arc<str>>) -> String {
        match tab_id {
            Some(t) => t.to_string(),
            None => self.current.clone().unwrap_or_default(),
        }
    }

    fn on_diff(&mut self, diff: &Diff) {
        self.mirror.apply(diff);
        let strict = self.checks.mirror;
        match diff {
            Diff::FrameAdded { tab_id, frame } => {
                let tab = self.diff_tab(tab_id);
                self.frame_seq += 1;
                let seq = self.frame_seq;
                let known = self.known.entry(tab).or_default();
                assert!(
                    !strict || !known.frames.contains_key(&frame.frame_id),
                    "frame_added for known frame {}",
                    frame.frame_id
                );
                known
                    .frames
                    .insert(frame.frame_id.clone(), (seq, frame.clone()));
            }
            Diff::FrameUpdated { tab_id, frame } => {
                let tab = self.diff_tab(tab_id);
                let known = self
                    .known
                    .get_mut(&tab)
                    .and_then(|k| k.frames.get_mut(&frame.frame_id));
                assert!(
                    !strict || known.is_some(),
                    "frame_updated for unknown frame {} of tab {tab}",
                    frame.frame_id
                );
                if let Some(k) = known {
                    k.1 = frame.clone();
                }
            }
            Diff::FrameRemoved { tab_id, frame_id } => {
                let tab = self.diff_tab(tab_id);
                let known = self
                    .known
                    .get_mut(&tab)
                    .and_then(|k| k.frames.remove(frame_id));
                assert!(
                    !strict || known.is_some(),
                    "frame_removed for unknown frame {frame_id} of tab {tab}"
                );
            }
            Diff::DialogOpened { dialog } => {
                assert!(
                    !strict || self.dialogs_opened.insert(dialog.id.clone()),
                    "dialog id {} reused",
                    dialog.id
                );
                self.dialogs_pending.insert(dialog.id.clone());
                if let Some(t) = &dialog.tab_id {
                    self.dialog_tab.insert(dialog.id.clone(), t.to_string());
                }
            }
            Diff::DialogClosed { dialog } => {
                let was = self.dialogs_pending.remove(&dialog.id);
                assert!(
                    !strict || was,
                    "dialog_closed for {}, which is not pending",
                    dialog.id
                );
            }
            Diff::ConsoleError { .. } => {}
            Diff::Page { tab_id, page } => {
                let tab = self.diff_tab(tab_id);
                let known = self.known.entry(tab).or_default();
                known.page_target = page.as_ref().map(|p| p.target_id.clone());
                known.page_session = page.as_ref().and_then(|p| p.session_id.clone());
            }
            Diff::TabOpened { tab } if self.checks.log && tab.opener_tab_id.is_some() => {
                self.log.push("# a tab with its opener".into());
            }
            Diff::TabClosed { tab_id } => {
                self.known.remove(tab_id);
                self.closed_now.push(tab_id.clone());
            }
            Diff::CurrentTab { tab_id } => self.current = tab_id.clone(),
            _ => {}
        }
    }

    fn check_state(&mut self) {
        let c = self.checks;
        if c.outcomes {
            self.check_in_flight();
        }
        // The snapshot is most of a run's time: built only for the checks that read it.
        if !(c.bounds || c.dialogs_disjoint || c.frame_tree || c.mirror || c.tabs) {
            return;
        }
        let snapshot = self.sup.snapshot();
        if c.bounds {
            let t = self.sup.table_sizes();
            let cfg = self.sup.config();
            // Frames, sessions, pending dialogs and console errors are bounded per tab.
            let tabs = snapshot.tabs.len().max(1);
            assert!(tabs <= cfg.max_tabs, "{tabs} tabs");
            assert!(t.frames <= cfg.max_frames * tabs, "frames {t:?}");
            assert!(t.sessions <= cfg.max_sessions * tabs, "sessions {t:?}");
            for (tab, k) in &self.known {
                assert!(
                    k.frames.len() <= cfg.max_frames,
                    "{} frames in tab {tab}",
                    k.frames.len()
                );
            }
            assert!(
                t.pending_dialogs <= MAX_PENDING_DIALOGS * tabs,
                "pending {t:?}"
            );
            let mut per_tab: BTreeMap<Option<&str>, usize> = BTreeMap::new();
            for d in &snapshot.pending_dialogs {
                *per_tab.entry(d.tab_id.as_deref()).or_default() += 1;
            }
            assert!(
                per_tab.values().all(|n| *n <= MAX_PENDING_DIALOGS),
                "pending per tab {per_tab:?}"
            );
            assert!(t.recent_dialogs <= 20, "recent {t:?}");
            assert!(snapshot.downloads.len() <= 20, "downloads");
            assert!(t.console_errors <= 50 * tabs, "console {t:?}");
            assert_eq!(
                (t.queued_transmits, t.queued_events),
                (0, 0),
                "drained fully"
            );
            assert_eq!(t.pending_dialogs, snapshot.pending_dialogs.len());
        }
        if c.dialogs_disjoint {
            let pending: BTreeSet<&str> = snapshot
                .pending_dialogs
                .iter()
                .map(|d| d.id.as_str())
                .collect();
            assert_eq!(
                pending.len(),
                snapshot.pending_dialogs.len(),
                "a dialog pending twice"
            );
            for r in &snapshot.recent_dialogs {
                assert!(
                    !pending.contains(r.id.as_str()),
                    "{} is both pending and recent",
                    r.id
                );
            }
        }
        if c.tabs {
            self.check_tabs(&snapshot);
        }
        if c.frame_tree {
            self.check_frame_trees(&snapshot);
        }
        if c.mirror {
            assert_eq!(
                self.mirror.snapshot(),
                snapshot,
                "folding the diffs gives the snapshot"
            );
        }
    }

    /// The bound on commands in flight, and on evaluates running.
    fn check_in_flight(&self) {
        let open = self
            .commands
            .values()
            .filter(|(n, capped)| *n == 0 && *capped)
            .count();
        assert!(
            open <= self.sup.config().max_commands_in_flight,
            "{open} capped commands in flight"
        );
        let running = self
            .evaluates
            .iter()
            .filter(|id| self.commands.get(id).is_some_and(|(n, _)| *n == 0))
            .count();
        assert!(
            running <= self.sup.config().max_commands_in_flight,
            "{running} evaluates running"
        );
    }

    /// SPEC §16: the tab table's rules.
    fn check_tabs(&self, snapshot: &Snapshot) {
        let tabs = &snapshot.tabs;
        let max = self.sup.config().max_tabs;
        assert!(
            tabs.len() <= max,
            "§16: {} tabs over the bound {max}",
            tabs.len()
        );
        let ids: BTreeSet<&str> = tabs.iter().map(|t| t.tab_id.as_str()).collect();
        assert_eq!(ids.len(), tabs.len(), "§16: a tab listed twice: {tabs:?}");
        let current: Vec<&str> = tabs
            .iter()
            .filter(|t| t.current)
            .map(|t| t.tab_id.as_str())
            .collect();
        assert!(current.len() <= 1, "§16: several current tabs: {current:?}");
        assert_eq!(
            current.first().copied(),
            self.sup.current_tab(),
            "§16: the current tab listed is not the one calls go to"
        );
        assert!(
            tabs.is_empty() || current.len() == 1,
            "§16: {} tabs listed, none current",
            tabs.len()
        );
        for d in &snapshot.pending_dialogs {
            let tab = d.tab_id.as_deref();
            assert!(
                tab.is_some_and(|t| ids.contains(t)),
                "§16: pending dialog {} of tab {tab:?}, which is not listed: {tabs:?}",
                d.id
            );
        }
        for t in tabs {
            assert_ne!(
                t.opener_tab_id.as_deref(),
                Some(t.tab_id.as_str()),
                "§16: a tab opened by itself"
            );
            // Once its dispose was answered, nothing of a context is left.
            if let Some(c) = &t.browser_context_id {
                assert!(
                    !self.disposed_contexts.contains(c),
                    "§19: tab {} of disposed context {c} listed: {tabs:?}",
                    t.tab_id
                );
            }
            // A destroyed target's tab is gone; the last one stays only while it is alone.
            assert!(
                tabs.len() == 1 || !self.destroyed.contains(&t.tab_id),
                "§16: tab {} listed after its target was destroyed: {tabs:?}",
                t.tab_id
            );
        }
        let others: BTreeSet<&str> = snapshot
            .tab_frame_trees
            .keys()
            .map(String::as_str)
            .collect();
        let expected: BTreeSet<&str> = tabs
            .iter()
            .filter(|t| !t.current)
            .map(|t| t.tab_id.as_str())
            .collect();
        assert_eq!(
            others, expected,
            "§16: tab_frame_trees holds the other tabs'"
        );
    }

    /// SPEC §9 for the current tab's `frame_tree` and every other tab's.
    fn check_frame_trees(&self, snapshot: &Snapshot) {
        let current = self.current.clone().unwrap_or_default();
        let page = snapshot.page.as_ref().map(|p| p.target_id.clone());
        self.check_frame_tree(&current, &snapshot.frame_tree, Some(page));
        for (tab, tree) in &snapshot.tab_frame_trees {
            self.check_frame_tree(tab, tree, None);
        }
    }

    /// SPEC §9, computed independently from the frames the diffs made known of `tab`.
    fn check_frame_tree(&self, tab: &str, tree: &FrameTree, page: Option<Option<String>>) {
        let empty = Known::default();
        let known = self.known.get(tab).unwrap_or(&empty);
        assert!(tree.children.len() <= MAX_LISTED_CHILDREN, "{tree:?}");
        if let Some(page) = page {
            assert_eq!(page, known.page_target, "page diff folds to the page");
        }
        let top = known.page_target.clone();
        let top_known = top.as_ref().filter(|t| known.frames.contains_key(*t));
        let Some(top) = top_known else {
            assert!(tree.top.is_none() && tree.children.is_empty(), "{tree:?}");
            assert_eq!(tree.truncated, !known.frames.is_empty(), "{tree:?}");
            return;
        };
        assert_eq!(tree.top.as_ref().map(|t| &t.frame_id), Some(top));
        // Depth of each listed frame, through listed parents only.
        let mut depth: BTreeMap<&str, usize> = BTreeMap::new();
        depth.insert(top, 0);
        for child in &tree.children {
            let parent = child.parent_frame_id.as_deref().unwrap_or("");
            let Some(pd) = depth.get(parent).copied() else {
                panic!("§9: listed {} under {parent:?}, which is neither listed before it nor the top: {tree:?}", child.frame_id);
            };
            assert!(
                !(child.is_oopif && pd + 1 > MAX_LISTED_OOPIF_DEPTH),
                "§9: OOPIF {} listed at depth {}",
                child.frame_id,
                pd + 1
            );
            assert!(
                depth.insert(&child.frame_id, pd + 1).is_none(),
                "§9: {} listed twice",
                child.frame_id
            );
        }
        // Reference: breadth-first in knowledge order, OOPIFs deeper than 2 left out with
        // their subtree, at most 30, truncated when any known frame is not listed.
        let mut ordered: Vec<&(u64, FrameInfo)> = known.frames.values().collect();
        ordered.sort_by_key(|(seq, _)| *seq);
        let mut listed: Vec<&FrameInfo> = Vec::new();
        let mut queue = VecDeque::from([(top.as_str(), 0usize)]);
        let mut seen: BTreeSet<&str> = BTreeSet::from([top.as_str()]);
        'bfs: while let Some((id, d)) = queue.pop_front() {
            for (_, f) in &ordered {
                if f.parent_frame_id.as_deref() != Some(id) || seen.contains(f.frame_id.as_str()) {
                    continue;
                }
                if f.is_oopif && d + 1 > MAX_LISTED_OOPIF_DEPTH {
                    continue;
                }
                if listed.len() == MAX_LISTED_CHILDREN {
                    break 'bfs;
                }
                seen.insert(&f.frame_id);
                listed.push(f);
                queue.push_back((&f.frame_id, d + 1));
            }
        }
        let expected: Vec<FrameInfo> = listed.into_iter().cloned().collect();
        assert_eq!(
            tree.children, expected,
            "§9: children differ from the rules (tab {tab})"
        );
        let truncated = known.frames.len() - 1 != tree.children.len();
        assert_eq!(
            tree.truncated, truncated,
            "§9: truncated is not exact (tab {tab})"
        );
    }
}
