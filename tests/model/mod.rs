//! A small model of one browser tab that turns abstract operations ([`Op`]) into plausible
//! CDP traffic, and a [`Driver`] that feeds that traffic to a [`Supervisor`] the way a real
//! embedder does (drain every output after every input) while checking the invariants of
//! SPEC §3, §9 and §10 after every input.
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

/// Caps small enough that short sequences reach them (SPEC §6.6 eviction); the dialog
/// bridge (SPEC §6.5) on or off.
pub fn config(bridge: bool) -> Config {
    let mut config = Config::default();
    config.bridge = bridge.then(|| cdp_supervisor::BridgeConfig::new(TOKEN));
    config.max_frames = 20;
    config.max_sessions = 8;
    config.max_commands_in_flight = 8;
    config.dialog_timeout = Duration::from_secs(60);
    config
}

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
    /// The browser replies to one of the supervisor's outstanding commands.
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
    /// The WebSocket (re)opens; `auto_attach` answers `getTargets` and the attach at once.
    Reconnect { auto_attach: bool },
    /// The embedder answers a dialog, by id or the single pending one.
    RespondDialog {
        dialog: Pick,
        by_id: bool,
        accept: bool,
        text: bool,
    },
    /// The embedder sends a command into a frame (or the top) (SPEC §6.7).
    Command {
        frame: Pick,
        top: bool,
        method: u8,
        timeout: u8,
    },
    /// The embedder evaluates a script (or an element function by backend node id or by
    /// ref) in a frame (or the top) under a budget; it must end in exactly one
    /// `Evaluated`, within the budget.
    Evaluate {
        frame: Pick,
        top: bool,
        element: u8,
        timeout: u8,
    },
    /// The embedder changes the dialog policy (SPEC §6.1).
    SetPolicy { policy: u8 },
    /// The embedder settles every pending dialog (SPEC §6.8).
    Settle { accept: bool },
    /// The embedder asks for the recovery navigation (SPEC §6.8).
    Recover,
    /// Input Chromium would not send: malformed, unknown ids, cycles, wrong types.
    Junk { kind: u8, pick: Pick },
    /// `Fetch.requestPaused` on the session of a frame's document (fact 12): a bridge
    /// request with or without the token, or another URL (SPEC §6.5).
    RequestPaused { frame: Pick, url: u8, kind: u8 },
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
    /// `-32602 "No dialog is showing"` (facts 10, 15).
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

/// What the browser knows about the tab.
#[derive(Debug, Default)]
struct Tab {
    connected: bool,
    conn: u32,
    page_session: Option<String>,
    /// Known frames, top first, in the order they appeared.
    frames: Vec<ModelFrame>,
    sessions: Vec<ModelSession>,
    /// The supervisor's commands not answered yet (current connection only).
    outstanding: Vec<cdp_supervisor::OutgoingCommand>,
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
    fn new() -> Self {
        Tab {
            frames: vec![ModelFrame {
                id: TOP.into(),
                parent: None,
                url: "http://a.test/".into(),
                oopif_session: None,
            }],
            ..Tab::default()
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
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
    /// in-process frames (OOPIFs re-attach only through a new auto-attach).
    fn forget_sessions(&mut self) {
        self.page_session = None;
        self.sessions.clear();
        self.outstanding.retain(|c| c.session_id.is_none());
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
        let subs: Vec<&ModelFrame> = self.frames.iter().filter(|f| f.id != TOP).collect();
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
            TOP.to_owned()
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
            .filter(|f| id == TOP || *f == id || below.contains(f))
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
            .filter(|s| below.contains(&s.target) || (id == TOP && s.kind != Kind::Page))
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
        if let Some(f) = self.frames.iter_mut().find(|f| f.id == id) {
            f.url = if f.oopif_session.is_some() {
                format!("http://b.test/{n}")
            } else {
                format!("http://a.test/{n}")
            };
        }
        out.extend(self.navigated(&session, id).map(Msg::Plain));
        out
    }

    /// The realistic result of a command, with the events Chromium sends before it.
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
            "Target.getTargets" => Reply::Result(format!(
                r#"{{"targetInfos":[{{"targetId":"UI","type":"browser_ui","url":"chrome://omnibox"}},{{"targetId":"SW","type":"service_worker","url":"http://a.test/sw.js"}},{{"targetId":"{TOP}","type":"page","url":"{}"}}]}}"#,
                self.frames
                    .first()
                    .map(|f| f.url.as_str())
                    .unwrap_or("about:blank")
            )),
            "Target.attachToTarget" => {
                if params.get("targetId").and_then(Value::as_str) != Some(TOP) {
                    Reply::Error(-32602, "No target with given id found")
                } else {
                    let sid = format!("SP-{}", self.conn);
                    // With flatten, Chromium also announces the session at browser level.
                    before.push(Msg::Attach {
                        text: event(
                            None,
                            "Target.attachedToTarget",
                            &format!(
                                r#"{{"sessionId":"{sid}","targetInfo":{{"targetId":"{TOP}","type":"page","url":""}},"waitingForDebugger":false}}"#
                            ),
                        ),
                        child: sid.clone(),
                        kind: Kind::Page,
                        waiting: false,
                    });
                    self.adopt_page_session(&sid);
                    Reply::Result(format!(r#"{{"sessionId":"{sid}"}}"#))
                }
            }
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
                if session.is_some() && session == self.page_session.as_deref() {
                    before = self.navigate(TOP);
                }
                Reply::Result(format!(r#"{{"frameId":"{TOP}","loaderId":"L2"}}"#))
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
            target: TOP.into(),
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
const IFRAME_SETUP: [&str; 3] = ["Page.enable", "Runtime.enable", "Target.setAutoAttach"];
const RESUME: &str = "Runtime.runIfWaitingForDebugger";

/// The embedder: feeds the model's traffic and calls to a supervisor, drains it fully after
/// every input, folds its diffs, and checks the invariants chosen in [`Checks`].
pub struct Driver {
    /// The supervisor under test.
    pub sup: Supervisor,
    tab: Tab,
    now: f64,
    checks: Checks,
    /// Every input, call, result, transmit and event, in order (when `checks.log`).
    pub log: Vec<String>,
    mirror: Mirror,
    /// Frames known from the diffs, with the order they became known: the independent
    /// input of the `frame_tree` check.
    known_frames: BTreeMap<String, (u64, FrameInfo)>,
    frame_seq: u64,
    page_target: Option<String>,
    dialogs_opened: BTreeSet<String>,
    dialogs_pending: BTreeSet<String>,
    /// Outcomes seen per command from `command` (capped) and `recover`, and per evaluate.
    commands: BTreeMap<u64, (u32, bool)>,
    /// The ids of evaluates: capped by `max_commands_in_flight` too, but apart from
    /// commands (the supervisor counts the two separately).
    evaluates: BTreeSet<u64>,
    /// Outcomes seen per dialog answer the embedder asked for.
    answers: BTreeMap<u64, u32>,
    /// Whether each of those answers accepts (for close attribution).
    answer_accepts: BTreeMap<u64, bool>,
    /// Methods transmitted on each session, in order.
    sent_on: BTreeMap<String, Vec<String>>,
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
    /// Inside a burst op: state checks wait for its end (each input is still drained and
    /// its outputs checked), which keeps the O(n²) snapshot cost of bursts away.
    bursting: bool,
}

impl Driver {
    /// A supervisor of [`config`], connected and attached (`getTargets` and the attach
    /// answered, the top frame navigated); the page's set-up commands are outstanding.
    pub fn new(checks: Checks, bridge: bool) -> Self {
        let mut d = Driver {
            sup: Supervisor::new(config(bridge)),
            tab: Tab::new(),
            now: 1000.0,
            checks,
            log: Vec::new(),
            mirror: Mirror::default(),
            known_frames: BTreeMap::new(),
            frame_seq: 0,
            page_target: None,
            dialogs_opened: BTreeSet::new(),
            dialogs_pending: BTreeSet::new(),
            commands: BTreeMap::new(),
            evaluates: BTreeSet::new(),
            answers: BTreeMap::new(),
            answer_accepts: BTreeMap::new(),
            sent_on: BTreeMap::new(),
            waiting: BTreeMap::new(),
            paused: BTreeMap::new(),
            fetch_answers: BTreeMap::new(),
            crashed: BTreeSet::new(),
            cap_warning: false,
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
        self.cap_warning = false;
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
                if waiting && kind != Kind::Page {
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
        self.tab.connected = true;
        self.tab.conn += 1;
        self.log(|| "connected".into());
        self.sup.handle_connected(self.now);
        self.drain();
        if auto_attach {
            for method in ["Target.getTargets", "Target.attachToTarget"] {
                if let Some(i) = self.tab.outstanding.iter().position(|c| c.method == method) {
                    let cmd = self.tab.outstanding.remove(i);
                    self.reply(cmd, ReplyKind::Realistic, true);
                }
            }
        }
    }

    fn disconnect(&mut self) {
        self.tab.connected = false;
        self.tab.outstanding.clear();
        self.tab.forget_sessions();
        self.log(|| "disconnected".into());
        self.sup.handle_disconnected(self.now);
        self.drain();
    }

    fn reply(&mut self, cmd: cdp_supervisor::OutgoingCommand, kind: ReplyKind, with_session: bool) {
        let (before, reply) = match kind {
            ReplyKind::Realistic => self.tab.realistic(&cmd),
            ReplyKind::Ok => {
                let (_, reply) = self.tab.realistic(&cmd);
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
                    self.tab.forget_sessions();
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
                self.crashed.insert(sid.clone());
                let _ = self.feed(&event(Some(&sid), "Inspector.targetCrashed", "{}"));
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
                if !self.tab.outstanding.is_empty() {
                    let i = command as usize % self.tab.outstanding.len();
                    let cmd = self.tab.outstanding.remove(i);
                    self.reply(cmd, kind, with_session);
                }
            }
            Op::Forget { command } => {
                if !self.tab.outstanding.is_empty() {
                    let i = command as usize % self.tab.outstanding.len();
                    self.tab.outstanding.remove(i);
                }
            }
            Op::Advance { step } => {
                let target = self.now + STEPS[step as usize % STEPS.len()];
                self.advance_to(target);
            }
            Op::Disconnect => {
                if self.tab.connected {
                    self.disconnect();
                }
            }
            Op::Reconnect { auto_attach } => {
                if self.tab.connected {
                    self.disconnect();
                }
                self.connect(auto_attach);
            }
            Op::RespondDialog {
                dialog,
                by_id,
                accept,
                text,
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
                let result = self.sup.respond_dialog(
                    self.now,
                    cdp_supervisor::Answer::new(action, prompt),
                    id.as_deref(),
                );
                self.log(|| format!("respond_dialog {id:?} -> {result:?}"));
                if let Ok(id) = result {
                    self.answers.insert(id.0, 0);
                    self.answer_accepts.insert(id.0, accept);
                }
                self.drain();
            }
            Op::Command {
                frame,
                top,
                method,
                timeout,
            } => self.command(frame, top, method, timeout),
            Op::Evaluate {
                frame,
                top,
                element,
                timeout,
            } => self.evaluate(frame, top, element, timeout),
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
            Op::Recover => {
                let result = self.sup.recover(self.now);
                self.log(|| format!("recover -> {result:?}"));
                if let Ok(id) = result {
                    self.commands.insert(id.0, (0, false));
                }
                self.drain();
            }
            Op::Junk { kind, pick } => self.junk(kind, pick),
            Op::RequestPaused { frame, url, kind } => self.pause_request(frame, url, kind),
        }
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

    fn command(&mut self, frame: Pick, top: bool, method: u8, timeout: u8) {
        let frame_id = if top {
            None
        } else if frame < UNKNOWN_FROM && !self.known_frames.is_empty() {
            let ids: Vec<&String> = self.known_frames.keys().collect();
            Some(ids[frame as usize % ids.len()].clone())
        } else {
            Some(self.tab.pick_frame(frame))
        };
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
        let result = self.sup.command(
            self.now,
            frame_id.as_deref(),
            method,
            params.as_deref(),
            timeout,
        );
        self.log(|| format!("command {frame_id:?} {method} -> {result:?}"));
        if let Err(CommandError::TooManyInFlight { limit }) = &result {
            assert_eq!(*limit, self.sup.config().max_commands_in_flight);
        }
        if let Ok(id) = result {
            self.commands.insert(id.0, (0, true));
        }
        self.drain();
    }

    fn evaluate(&mut self, frame: Pick, top: bool, element: u8, timeout: u8) {
        use cdp_supervisor::evaluate::{Element, Evaluation};
        let frame_id = if top {
            None
        } else {
            Some(self.tab.pick_frame(frame))
        };
        let mut e =
            Evaluation::new(["1+1", "while(true){}", "new Promise(()=>{})"][timeout as usize % 3]);
        e.frame_id = frame_id;
        e.element = match element % 4 {
            0 | 1 => None,
            2 => Some(Element::BackendNodeId(i64::from(element))),
            _ => Some(Element::Ref(format!("e{element}"))),
        };
        e.timeout = Duration::from_millis([0, 500, 30_000][timeout as usize % 3]);
        let result = self.sup.evaluate(self.now, &e);
        self.log(|| format!("evaluate {e:?} -> {result:?}"));
        if let Ok(id) = result {
            self.commands.insert(id.0, (0, false));
            self.evaluates.insert(id.0);
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
        let conn = self.tab.conn;
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
                &format!(r#"{{"frameId":"{fresh}","parentFrameId":"{TOP}"}}"#),
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
                self.tab.outstanding.first().map_or(0, |c| c.id)
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
                    r#"{{"frame":{{"id":"{TOP}","parentId":"{f}","url":"http://a.test/","securityOrigin":"http://a.test"}}}}"#
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
                let alive = p.conn == self.tab.conn
                    && self.tab.connected
                    && self.tab.session(session).is_some()
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
            if self.tab.connected {
                self.tab.outstanding.push(cmd);
            }
        }
        while let Some(ev) = self.sup.poll_event() {
            self.log(|| match &ev {
                Event::Warning(w) => format!("! {ev:?}: {w}"),
                _ => format!("! {ev:?}"),
            });
            self.on_event(&ev);
        }
        if !self.bursting {
            self.check_state();
        }
    }

    fn on_transmit(&mut self, cmd: &cdp_supervisor::OutgoingCommand) {
        if self.checks.answers_on_page_session && cmd.method == "Page.handleJavaScriptDialog" {
            assert!(
                cmd.session_id.is_some() && cmd.session_id == self.tab.page_session,
                "fact 6: Page.handleJavaScriptDialog sent on {:?}, the page session is {:?}",
                cmd.session_id,
                self.tab.page_session
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

    /// Whether the supervisor still follows `session` (the page's, or an OOPIF's that the
    /// diffs show).
    fn supervisor_tracks(&self, session: &str) -> bool {
        self.sup.page_session_id() == Some(session)
            || self
                .known_frames
                .values()
                .any(|(_, f)| f.session_id.as_deref() == Some(session))
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
        if kind == Kind::Iframe && parent_known && !self.cap_warning {
            for m in IFRAME_SETUP {
                assert!(
                    sent[..resume_at].iter().any(|s| s == m),
                    "fact 2: iframe {child} resumed without {m} first: {sent:?}"
                );
            }
        }
        self.waiting.insert(child.to_owned(), kind);
    }

    #[allow(clippy::collapsible_match)] // one arm per event, checks inside
    fn on_event(&mut self, ev: &Event) {
        match ev {
            Event::Diff(diff) => self.on_diff(diff),
            Event::CommandBlocked { id, .. } => {
                if self.checks.outcomes {
                    let state = self.commands.get(&id.0);
                    assert!(
                        state.is_some_and(|(n, _)| *n == 0),
                        "§6.4: CommandBlocked for {id}, which is unknown or already ended ({state:?})"
                    );
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
                    match outcome {
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
            }
            Event::Warning(w) => {
                if matches!(w, cdp_supervisor::Warning::SessionCapReached { .. }) {
                    self.cap_warning = true;
                }
            }
            _ => {}
        }
    }

    fn on_diff(&mut self, diff: &Diff) {
        self.mirror.apply(diff);
        let strict = self.checks.mirror;
        match diff {
            Diff::FrameAdded { frame, .. } => {
                assert!(
                    !strict || !self.known_frames.contains_key(&frame.frame_id),
                    "frame_added for known frame {}",
                    frame.frame_id
                );
                self.frame_seq += 1;
                self.known_frames
                    .insert(frame.frame_id.clone(), (self.frame_seq, frame.clone()));
            }
            Diff::FrameUpdated { frame, .. } => {
                let known = self.known_frames.get_mut(&frame.frame_id);
                assert!(
                    !strict || known.is_some(),
                    "frame_updated for unknown frame {}",
                    frame.frame_id
                );
                if let Some(k) = known {
                    k.1 = frame.clone();
                }
            }
            Diff::FrameRemoved { frame_id, .. } => {
                let known = self.known_frames.remove(frame_id);
                assert!(
                    !strict || known.is_some(),
                    "frame_removed for unknown frame {frame_id}"
                );
            }
            Diff::DialogOpened { dialog } => {
                assert!(
                    !strict || self.dialogs_opened.insert(dialog.id.clone()),
                    "dialog id {} reused",
                    dialog.id
                );
                self.dialogs_pending.insert(dialog.id.clone());
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
            Diff::Page { page, .. } => {
                self.page_target = page.as_ref().map(|p| p.target_id.clone())
            }
            _ => {}
        }
    }

    fn check_state(&mut self) {
        let c = self.checks;
        if !(c.bounds || c.dialogs_disjoint || c.frame_tree || c.mirror || c.outcomes) {
            return;
        }
        let snapshot = self.sup.snapshot();
        if c.bounds {
            let t = self.sup.table_sizes();
            let cfg = self.sup.config();
            assert!(t.frames <= cfg.max_frames, "frames {t:?}");
            assert!(t.sessions <= cfg.max_sessions, "sessions {t:?}");
            assert!(t.pending_dialogs <= MAX_PENDING_DIALOGS, "pending {t:?}");
            assert!(t.recent_dialogs <= 20, "recent {t:?}");
            assert!(t.console_errors <= 50, "console {t:?}");
            assert_eq!(
                (t.queued_transmits, t.queued_events),
                (0, 0),
                "drained fully"
            );
            assert_eq!(t.pending_dialogs, snapshot.pending_dialogs.len());
        }
        if c.outcomes {
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
        if c.frame_tree {
            self.check_frame_tree(&snapshot);
        }
        if c.mirror {
            assert_eq!(
                self.mirror.snapshot(),
                snapshot,
                "folding the diffs gives the snapshot"
            );
        }
    }

    /// SPEC §9, computed independently from the frames the diffs made known.
    fn check_frame_tree(&self, snapshot: &Snapshot) {
        let tree = &snapshot.frame_tree;
        assert!(tree.children.len() <= MAX_LISTED_CHILDREN, "{tree:?}");
        let top = snapshot.page.as_ref().map(|p| p.target_id.clone());
        assert_eq!(top, self.page_target, "page diff folds to the page");
        let top_known = top.as_ref().filter(|t| self.known_frames.contains_key(*t));
        let Some(top) = top_known else {
            assert!(tree.top.is_none() && tree.children.is_empty(), "{tree:?}");
            assert_eq!(tree.truncated, !self.known_frames.is_empty(), "{tree:?}");
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
        let mut ordered: Vec<&(u64, FrameInfo)> = self.known_frames.values().collect();
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
            "§9: children differ from the rules"
        );
        let truncated = self.known_frames.len() - 1 != tree.children.len();
        assert_eq!(tree.truncated, truncated, "§9: truncated is not exact");
    }
}
