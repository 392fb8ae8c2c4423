//! The `Tab` component: the page, its sessions and frames, the console ring, routing and
//! the page's state.
//!
//! Its changes emit their diffs to the [`Outbox`]. Its removals *return* what went with
//! them (the sessions of a removed OOPIF, the frames a removed session owned) instead of
//! removing further: the supervisor applies the consequences (dialogs, commands, more
//! removals) in one worklist, so no removal recurses across components.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::ax::RefTable;
use crate::cdp::{self, CdpEvent};
use crate::console::{console_level, exception_text};
use crate::console_history::ConsoleHistory;
use crate::dialogs::TabView;
use crate::error::{CommandError, SessionGoneReason};
use crate::event::Event;
use crate::frame::Frames;
use crate::limits::MAX_CONSOLE_ERRORS;
use crate::outbox::Outbox;
use crate::session::{ConsoleSource, Session, Sessions, TargetKind};
use crate::snapshot::{
    push_ring, ConsoleEntry, ConsoleLevel, Diff, FrameInfo, PageInfo, PageState,
};

/// Where the page's attach stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PagePhase {
    /// `Target.attachToTarget` sent, no session yet.
    Attaching,
    /// Session known.
    Attached,
    /// `Inspector.targetCrashed` on the page session.
    Crashed,
    /// Session gone, or connection lost.
    Detached,
}

/// Where the page session's `Page.enable` stands (a tab wedged by an earlier client's
/// dialog never answers it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnableState {
    Pending,
    /// No reply within `enable_timeout`: the page is reported blocked until it answers.
    Overdue,
    Done,
}

/// The supervised page.
#[derive(Debug, Clone)]
pub(crate) struct PageTrack {
    pub target_id: String,
    pub session_id: Option<String>,
    pub phase: PagePhase,
    pub enable: EnableState,
    /// The top frame's URL, for `recover`.
    pub url: String,
}

impl PageTrack {
    /// A page whose session is being set up.
    pub fn attaching(target_id: &str, url: &str) -> Self {
        PageTrack {
            target_id: target_id.to_owned(),
            session_id: None,
            phase: PagePhase::Attaching,
            enable: EnableState::Pending,
            url: url.to_owned(),
        }
    }
}

/// The page, its sessions and frames, and the console ring.
#[derive(Debug, Default)]
pub(crate) struct Tab {
    /// The tab's id (its target id) on every diff it emits; `None` until the browser
    /// gives the tab its page.
    pub tab_id: Option<Arc<str>>,
    /// Changed only through [`Tab::page_mut`] and [`Tab::set_page`], which mark it touched.
    page: Option<PageTrack>,
    /// Whether `page` may have changed since [`Tab::update_page`] last looked.
    page_touched: bool,
    /// What else the page entry was last computed from: the enable timeout and the
    /// wedged dialog.
    page_inputs: (f64, Option<String>),
    last_page_info: Option<PageInfo>,
    pub sessions: Sessions,
    pub frames: Frames,
    pub console_errors: VecDeque<Arc<ConsoleEntry>>,
    /// The last console lines of every level, numbered (errors included again).
    pub console_history: ConsoleHistory,
    /// The refs of the last accessibility snapshot (bounded by it: each snapshot replaces
    /// them).
    pub ax_refs: RefTable,
}

/// Methods that run script in a session's default context: sent to an in-process
/// subframe, they would run in another frame (see [`crate::manual::rules`], routing).
const EVALUATING_METHODS: &[&str] = &[
    "Runtime.evaluate",
    "Runtime.compileScript",
    "Runtime.runScript",
];

impl Tab {
    // ---- the page --------------------------------------------------------------------

    pub fn page(&self) -> Option<&PageTrack> {
        self.page.as_ref()
    }

    /// The page, to change it: marks it for [`Tab::update_page`].
    pub fn page_mut(&mut self) -> Option<&mut PageTrack> {
        self.page_touched = true;
        self.page.as_mut()
    }

    /// A new page to supervise.
    pub fn set_page(&mut self, page: PageTrack) {
        self.page_touched = true;
        self.page = Some(page);
    }

    pub fn page_session(&self) -> Option<&str> {
        self.page.as_ref().and_then(|p| p.session_id.as_deref())
    }

    pub fn page_target(&self) -> Option<&str> {
        self.page.as_ref().map(|p| p.target_id.as_str())
    }

    /// Sets the page's phase, if there is a page.
    pub fn set_phase(&mut self, phase: PagePhase) {
        if let Some(p) = self.page_mut() {
            p.phase = phase;
            if phase == PagePhase::Detached {
                p.session_id = None;
            }
        }
    }

    /// Emits a `page` diff when the page entry changed. Runs after every input, and most
    /// inputs change nothing the entry is made of (the page, the enable timeout, the wedged
    /// dialog): then it returns at once. Otherwise it compares in place and builds a new
    /// entry only on a change.
    pub fn update_page(&mut self, out: &mut Outbox, enable_timeout_s: f64, wedged: Option<&str>) {
        let same_inputs =
            self.page_inputs.0 == enable_timeout_s && self.page_inputs.1.as_deref() == wedged;
        if same_inputs && !self.page_touched {
            return;
        }
        self.page_touched = false;
        if !same_inputs {
            self.page_inputs = (enable_timeout_s, wedged.map(str::to_owned));
        }
        let unchanged = match (&self.page, &self.last_page_info) {
            (None, None) => true,
            (Some(p), Some(last)) => {
                let (state, reason) = page_state(p, enable_timeout_s, wedged);
                last.target_id == p.target_id
                    && last.session_id == p.session_id
                    && last.state == state
                    && last.reason == reason
            }
            _ => false,
        };
        if !unchanged {
            let info = self.page_info(enable_timeout_s, wedged);
            self.last_page_info.clone_from(&info);
            out.emit(Event::Diff(Diff::Page {
                tab_id: self.tab_id.clone(),
                page: info,
            }));
        }
    }

    /// The page's state alone (a page is known).
    pub fn page_state(&self, enable_timeout_s: f64, wedged: Option<&str>) -> PageState {
        match &self.page {
            Some(p) => page_state(p, enable_timeout_s, wedged).0,
            None => PageState::Detached,
        }
    }

    pub fn page_info(&self, enable_timeout_s: f64, wedged: Option<&str>) -> Option<PageInfo> {
        let p = self.page.as_ref()?;
        let (state, reason) = page_state(p, enable_timeout_s, wedged);
        Some(PageInfo {
            target_id: p.target_id.clone(),
            session_id: p.session_id.clone(),
            state,
            reason,
        })
    }

    /// The session a command for `frame_id` goes to (`None`: the top frame): an OOPIF's
    /// own session, else the session of the document that holds the frame.
    pub fn route(&self, frame_id: Option<&str>, method: &str) -> Result<String, CommandError> {
        let page_session = self.page_session().ok_or(CommandError::NotAttached)?;
        let Some(frame_id) = frame_id else {
            return Ok(page_session.to_owned());
        };
        let frame = self
            .frames
            .get(frame_id)
            .ok_or_else(|| CommandError::UnknownFrame {
                frame_id: frame_id.to_owned(),
            })?;
        if let Some(own) = frame.info.session_id.as_ref() {
            return Ok(own.clone());
        }
        let is_top = self.page_target() == Some(frame_id);
        if !is_top && EVALUATING_METHODS.contains(&method) {
            return Err(CommandError::NotAnOopif {
                frame_id: frame_id.to_owned(),
                method: method.to_owned(),
                session_id: frame.owner_session.clone(),
            });
        }
        Ok(frame.owner_session.clone())
    }

    /// [`Tab::route`], refusing a crashed session (its commands are never answered).
    pub fn route_command(
        &self,
        frame_id: Option<&str>,
        method: &str,
    ) -> Result<String, CommandError> {
        let session = self.route(frame_id, method)?;
        if let Some(crashed) = self.crashed_oopif_of(&session) {
            return Err(CommandError::FrameCrashed {
                frame_id: crashed,
                method: method.to_owned(),
            });
        }
        if self.sessions.get(&session).is_some_and(|s| s.crashed) {
            return Err(CommandError::SessionGone {
                method: method.to_owned(),
                session_id: session,
                reason: SessionGoneReason::Crashed,
            });
        }
        Ok(session)
    }

    /// Where `recover` navigates: the page session and the top frame's URL
    /// (`about:blank` when unknown).
    pub fn recovery_target(&self) -> Result<(String, String), CommandError> {
        let p = self.page.as_ref().ok_or(CommandError::NotAttached)?;
        let session = p.session_id.clone().ok_or(CommandError::NotAttached)?;
        let url = if p.url.is_empty() {
            "about:blank".to_owned()
        } else {
            p.url.clone()
        };
        Ok((session, url))
    }

    /// The OOPIF frame whose crashed renderer `session` is (not the page's own session).
    pub fn crashed_oopif_of(&self, session: &str) -> Option<String> {
        let s = self.sessions.get(session).filter(|s| s.crashed)?;
        if s.kind != TargetKind::Iframe || self.page_session() == Some(session) {
            return None;
        }
        Some(s.target_id.to_string())
    }

    /// Marks a session crashed (and the page, when it is the page session; else the OOPIF
    /// frame it owns, with a `frame_updated` diff). Whether it is the page's.
    pub fn mark_crashed(&mut self, out: &mut Outbox, session_id: &str) -> bool {
        let Some(s) = self.sessions.get_mut(session_id) else {
            return false;
        };
        s.crashed = true;
        let target = s.target_id.to_string();
        let is_page = self.page_session() == Some(session_id);
        if is_page {
            self.set_phase(PagePhase::Crashed);
        } else if self
            .frames
            .get(&target)
            .is_some_and(|f| f.info.session_id.as_deref() == Some(session_id))
        {
            self.change_frame(out, &target, |f| f.crashed = true, None);
        }
        is_page
    }

    /// The console ring, oldest first.
    pub fn console_entries(&self) -> Vec<ConsoleEntry> {
        self.console_errors
            .iter()
            .map(|e| ConsoleEntry::clone(e))
            .collect()
    }

    /// When an iframe session detaches while its frame stays (the OOPIF went back
    /// in-process): the frame and the parent's session, which owns it now.
    pub fn oopif_going_in_process(&self, session_id: &str) -> Option<(String, String)> {
        let s = self
            .sessions
            .get(session_id)
            .filter(|s| s.kind == TargetKind::Iframe)?;
        let frame_id = s.target_id.to_string();
        let owned_here = self
            .frames
            .get(&frame_id)
            .is_some_and(|f| f.info.session_id.as_deref() == Some(session_id));
        owned_here.then(|| (frame_id, s.parent.clone().unwrap_or_default()))
    }

    // ---- frames ----------------------------------------------------------------------

    /// `Page.frameAttached`: a new in-process frame, or a known one's parent. `room`: the
    /// caller made room for a new frame under the bound.
    pub fn frame_attached(
        &mut self,
        out: &mut Outbox,
        session: &str,
        frame_id: &str,
        parent_id: &str,
        room: bool,
    ) {
        if self.frames.get(frame_id).is_some() {
            let parent = Some(parent_id.to_owned());
            self.change_frame(out, frame_id, |f| f.parent_frame_id = parent, None);
        } else if room {
            let info = FrameInfo {
                frame_id: frame_id.to_owned(),
                parent_frame_id: Some(parent_id.to_owned()),
                url: String::new(),
                origin: String::new(),
                name: String::new(),
                is_oopif: false,
                session_id: None,
                crashed: false,
            };
            self.insert_frame(out, info, session);
        }
    }

    /// A `frameNavigated` frame (`navigated`) or a `getFrameTree` node: update or add it
    /// (`room`: the caller made room under the bound). The caller dropped a navigated
    /// frame's old descendants first.
    pub fn upsert_frame(
        &mut self,
        out: &mut Outbox,
        session: &str,
        info: FrameInfo,
        own_root: bool,
        navigated: bool,
        room: bool,
    ) {
        let id = info.frame_id.clone();
        if self.frames.get(&id).is_some() {
            let owner = own_root.then_some(Owner::Own(session));
            let change = |f: &mut FrameInfo| {
                f.url = info.url;
                f.origin = info.origin;
                f.name = info.name;
                if let Some(p) = info.parent_frame_id {
                    f.parent_frame_id = Some(p);
                }
            };
            self.change_frame(out, &id, change, owner);
        } else if room {
            self.insert_frame(out, info, session);
        }
        if navigated {
            self.frames.new_document(&id);
            self.revive_crashed_oopif(out, &id);
        }
        if navigated && self.page_target() == Some(id.as_str()) {
            // A crashed tab that navigates has a new renderer.
            if let Some(p) = self.page_mut().filter(|p| p.phase == PagePhase::Crashed) {
                p.phase = PagePhase::Attached;
            }
            if let Some(s) = self.page_session().map(str::to_owned) {
                if let Some(sess) = self.sessions.get_mut(&s) {
                    sess.crashed = false;
                }
            }
        }
        self.note_top_url(&id);
    }

    /// A crashed OOPIF that navigates has a new renderer behind the same session (see
    /// [chromium_facts](crate::manual::chromium_facts), a crashed OOPIF): it answers again.
    fn revive_crashed_oopif(&mut self, out: &mut Outbox, frame_id: &str) {
        let Some(session) = self
            .frames
            .get(frame_id)
            .filter(|f| f.info.crashed)
            .and_then(|f| f.info.session_id.clone())
        else {
            return;
        };
        if let Some(s) = self.sessions.get_mut(&session) {
            s.crashed = false;
        }
        self.change_frame(out, frame_id, |f| f.crashed = false, None);
    }

    /// An iframe target attached: its frame is now an OOPIF owned by `session`, whether
    /// or not the `swap` detach came first (`room`: as for [`Tab::upsert_frame`]).
    pub fn frame_became_oopif(
        &mut self,
        out: &mut Outbox,
        frame_id: &str,
        session: &str,
        parent: Option<&str>,
        url: &str,
        room: bool,
    ) {
        let parent = parent.filter(|p| *p != frame_id).map(str::to_owned);
        if self.frames.get(frame_id).is_some() {
            let change = |f: &mut FrameInfo| {
                if f.parent_frame_id.is_none() {
                    f.parent_frame_id = parent;
                }
            };
            self.change_frame(out, frame_id, change, Some(Owner::Own(session)));
        } else if room {
            let info = FrameInfo {
                frame_id: frame_id.to_owned(),
                parent_frame_id: parent,
                url: url.to_owned(),
                origin: String::new(),
                name: String::new(),
                is_oopif: true,
                session_id: Some(session.to_owned()),
                crashed: false,
            };
            self.insert_frame(out, info, session);
        }
    }

    /// Adds a frame and emits `frame_added`.
    fn insert_frame(&mut self, out: &mut Outbox, info: FrameInfo, owner_session: &str) {
        out.emit(Event::Diff(Diff::FrameAdded {
            tab_id: self.tab_id.clone(),
            frame: info.clone(),
        }));
        self.frames.insert(info, owner_session.to_owned());
    }

    /// Applies `change` and, if given, the frame's new process (`Owner`), emitting one
    /// `frame_updated` for both when anything changed.
    pub fn change_frame(
        &mut self,
        out: &mut Outbox,
        frame_id: &str,
        change: impl FnOnce(&mut FrameInfo),
        owner: Option<Owner<'_>>,
    ) {
        let Some(before) = self.frames.change(frame_id, change) else {
            return;
        };
        match owner {
            Some(Owner::Own(session)) => self.frames.make_oopif(frame_id, session),
            Some(Owner::Parent(session)) => self.frames.make_in_process(frame_id, session),
            None => {}
        }
        if let Some(f) = self.frames.get(frame_id).filter(|f| f.info != before) {
            out.emit(Event::Diff(Diff::FrameUpdated {
                tab_id: self.tab_id.clone(),
                frame: f.info.clone(),
            }));
        }
    }

    /// What the dialog rules may read of the tab.
    pub fn view(&self) -> TabView<'_> {
        TabView {
            page_session: self.page_session(),
            page_target: self.page_target(),
            sessions: &self.sessions,
            frames: &self.frames,
        }
    }

    /// Remembers the top frame's URL (for `recover`) when `frame_id` is the top.
    pub fn note_top_url(&mut self, frame_id: &str) {
        if self.page_target() != Some(frame_id) {
            return;
        }
        let url = self.frames.get(frame_id).map(|f| f.info.url.clone());
        if let (Some(p), Some(url)) = (self.page_mut(), url) {
            p.url = url;
        }
    }

    /// Removes one frame and emits `frame_removed`. Returns the sessions that go with it
    /// (an OOPIF's session and the sessions nested below it), or `None` if it was unknown.
    pub fn remove_frame(&mut self, out: &mut Outbox, frame_id: &str) -> Option<Vec<String>> {
        let frame = self.frames.remove(frame_id)?;
        out.emit(Event::Diff(Diff::FrameRemoved {
            tab_id: self.tab_id.clone(),
            frame_id: frame_id.to_owned(),
        }));
        Some(
            frame
                .info
                .session_id
                .map(|s| self.sessions.self_and_descendants(&s))
                .unwrap_or_default(),
        )
    }

    /// A frame and its subtree, parents first.
    pub fn subtree(&self, frame_id: &str) -> Vec<String> {
        let mut all = vec![frame_id.to_owned()];
        all.extend(self.frames.descendants(frame_id));
        all
    }

    // ---- sessions --------------------------------------------------------------------

    /// Removes sessions. Returns the ones that were tracked and the frames they still owned
    /// (with their subtrees), for the caller to remove.
    pub fn remove_sessions(&mut self, ids: &[String]) -> (Vec<String>, Vec<String>) {
        let removed: Vec<String> = ids
            .iter()
            .filter(|id| self.sessions.remove(id))
            .cloned()
            .collect();
        let mut orphaned = Vec::new();
        if !removed.is_empty() {
            for f in self.frames.owned_by(&removed) {
                if !orphaned.contains(&f) {
                    orphaned.push(f.clone());
                    orphaned.extend(self.frames.descendants(&f));
                }
            }
        }
        (removed, orphaned)
    }

    pub fn add_session(
        &mut self,
        id: &str,
        target_id: &str,
        kind: TargetKind,
        parent: Option<&str>,
    ) {
        self.sessions
            .insert(id, Session::new(target_id, kind, parent.map(str::to_owned)));
    }

    /// Every tracked session's id.
    pub fn session_ids(&self) -> Vec<String> {
        self.sessions.ids().map(str::to_owned).collect()
    }

    /// Emits `frame_removed` for every frame and forgets frames and sessions.
    pub fn clear(&mut self, out: &mut Outbox) {
        for f in self.frames.in_order() {
            out.emit(Event::Diff(Diff::FrameRemoved {
                tab_id: self.tab_id.clone(),
                frame_id: f.info.frame_id.clone(),
            }));
        }
        self.frames.clear();
        self.sessions.clear();
    }

    // ---- console ---------------------------------------------------------------------

    /// Records a console error of `session`, placed in the frame of its execution context.
    pub fn record_console(
        &mut self,
        out: &mut Outbox,
        session: &str,
        level: ConsoleLevel,
        text: String,
        context: Option<i64>,
    ) {
        if let Some(source) = self.sessions.console_source(session, context) {
            let at = out.now();
            self.console_history
                .push_text(level.as_str(), &text, source.frame_id.as_ref(), at);
            push_console(
                &self.tab_id,
                &mut self.console_errors,
                out,
                level,
                text,
                source,
            );
        }
    }

    /// `Runtime.consoleAPICalled` of `session`: every level goes into the history, an
    /// error or assert into the errors ring too. Returns whether `session` is tracked
    /// (nothing is done if not), so that the hot path looks the session up once.
    pub fn on_console_called(
        &mut self,
        out: &mut Outbox,
        session: &str,
        ev: &mut cdp::ConsoleApiCalled<'_>,
    ) -> bool {
        let Some(source) = self
            .sessions
            .console_source(session, ev.execution_context_id)
        else {
            return false;
        };
        let at = out.now();
        let frame = source.frame_id.as_ref();
        let Some(level) = console_level(ev) else {
            let raw = ev.raw_args.map_or("[]", |r| r.get());
            self.console_history.push_raw(&ev.kind, raw, frame, at);
            return true;
        };
        if let Some(text) = ev.text.take() {
            self.console_history.push_text(&ev.kind, &text, frame, at);
            push_console(
                &self.tab_id,
                &mut self.console_errors,
                out,
                level,
                text,
                source,
            );
        }
        true
    }

    /// The frame a console message of `session` in execution context `context` came from:
    /// the context's frame, else the session's own frame.
    pub fn console_frame(&self, session: &str, context: Option<i64>) -> Option<Arc<str>> {
        self.sessions.get(session)?.frame_of_context(context)
    }

    /// The events that are the tab's alone: the console, execution contexts, in-document
    /// navigations. Returns whether `event` was one.
    pub fn on_event(&mut self, out: &mut Outbox, session: &str, event: &mut CdpEvent<'_>) -> bool {
        use CdpEvent as E;
        match event {
            E::NavigatedWithinDocument(ev) => {
                let id = ev.frame_id.as_ref();
                self.change_frame(out, id, |f| f.url = ev.url.to_string(), None);
                self.note_top_url(id);
            }
            E::ExecutionContextCreated(ev) => {
                let aux = ev.context.aux_data.as_ref();
                let frame = aux.and_then(|a| a.frame_id.as_deref());
                if let Some(frame) = frame {
                    let default = aux
                        .filter(|a| a.is_default)
                        .and(ev.context.unique_id.as_deref());
                    let created = ContextEvent::Created(ev.context.id, frame, default);
                    self.on_context_event(session, created);
                }
            }
            E::ExecutionContextDestroyed(ev) => {
                self.on_context_event(session, ContextEvent::Destroyed(ev.execution_context_id))
            }
            E::ExecutionContextsCleared => self.on_context_event(session, ContextEvent::Cleared),
            E::ConsoleApiCalled(ev) => {
                self.on_console_called(out, session, ev);
            }
            E::ExceptionThrown(ev) => {
                let text = exception_text(&ev.exception_details);
                let context = ev.exception_details.execution_context_id;
                self.record_console(out, session, ConsoleLevel::Exception, text, context);
            }
            _ => return false,
        }
        true
    }

    /// `Page.frameDetached` on `session`: the frames to remove (none for a swap: the frame
    /// became, or stopped being, an OOPIF; see [`crate::manual::chromium_facts`], a swap
    /// is not a removal).
    pub fn detached_frames(
        &self,
        session: &str,
        frame_id: &str,
        reason: Option<&str>,
    ) -> Vec<String> {
        let Some(frame) = self.frames.get(frame_id) else {
            return Vec::new();
        };
        let keep = match reason {
            Some("swap") => true,
            Some(_) => false,
            // Older builds send no reason: a frame owned by another session is a swap.
            None => frame.info.is_oopif && frame.owner_session != session,
        };
        if keep {
            Vec::new()
        } else {
            self.subtree(frame_id)
        }
    }

    /// Tracks a session's execution contexts (they map console messages to frames, and
    /// give an in-process frame's default context to evaluate in).
    fn on_context_event(&mut self, session: &str, event: ContextEvent) {
        let Some(s) = self.sessions.get_mut(session) else {
            return;
        };
        match event {
            ContextEvent::Created(id, frame, default) => {
                s.add_context(id, frame);
                if let Some(unique_id) = default {
                    s.set_default_context(frame, id, unique_id);
                }
            }
            ContextEvent::Destroyed(id) => s.remove_context(id),
            ContextEvent::Cleared => s.clear_contexts(),
        }
    }

    /// Reads a `frameNavigated` frame or a `getFrameTree` node into a frame's info; `own`
    /// says the frame is the root of `session`'s iframe target (an OOPIF).
    pub fn frame_info(&self, session: &str, frame: &cdp::PageFrame<'_>) -> (FrameInfo, bool) {
        let id = frame.id.as_ref();
        let mut url = frame.url.to_string();
        if let Some(fragment) = frame.url_fragment.as_deref() {
            url.push_str(fragment);
        }
        let own_root = self
            .sessions
            .get(session)
            .is_some_and(|s| s.kind == TargetKind::Iframe && &*s.target_id == id);
        let info = FrameInfo {
            frame_id: id.to_owned(),
            parent_frame_id: frame
                .parent_id
                .as_deref()
                .filter(|p| *p != id)
                .map(str::to_owned),
            url,
            origin: frame.security_origin.as_deref().unwrap_or("").to_owned(),
            name: frame.name.as_deref().unwrap_or("").to_owned(),
            is_oopif: own_root,
            session_id: own_root.then(|| session.to_owned()),
            crashed: false,
        };
        (info, own_root)
    }
}

/// Adds an entry to the console ring and emits its diff.
fn push_console(
    tab_id: &Option<Arc<str>>,
    ring: &mut VecDeque<Arc<ConsoleEntry>>,
    out: &mut Outbox,
    level: ConsoleLevel,
    text: String,
    source: &ConsoleSource,
) {
    // A full ring drops its oldest entry: when nobody else holds it any more (the embedder
    // drained its event), its allocation takes the new entry, and its ids stay when they
    // are the new ones (a burst comes from one frame: each id kept saves a count up and
    // down).
    let evicted = if ring.len() >= MAX_CONSOLE_ERRORS {
        ring.pop_front()
    } else {
        None
    };
    let at = out.now();
    let fresh = |text| {
        Arc::new(ConsoleEntry {
            level,
            text,
            frame_id: source.frame_id.clone(),
            session_id: Some(Arc::clone(&source.session_id)),
            at,
        })
    };
    let entry = match evicted {
        Some(mut old) => match Arc::get_mut(&mut old) {
            Some(slot) => {
                slot.level = level;
                slot.text = text;
                slot.at = at;
                let same_session = match &slot.session_id {
                    Some(s) => Arc::ptr_eq(s, &source.session_id),
                    None => false,
                };
                if !same_session {
                    slot.session_id = Some(Arc::clone(&source.session_id));
                }
                let same_frame = match (&slot.frame_id, &source.frame_id) {
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                };
                if !same_frame {
                    slot.frame_id = source.frame_id.clone();
                }
                old
            }
            None => fresh(text),
        },
        None => fresh(text),
    };
    push_ring(ring, Arc::clone(&entry), MAX_CONSOLE_ERRORS);
    out.emit(Event::Diff(Diff::ConsoleError {
        tab_id: tab_id.clone(),
        entry,
    }));
}

/// Which session owns a frame whose process changes.
pub(crate) enum Owner<'a> {
    /// An OOPIF: its own session.
    Own(&'a str),
    /// In-process again: its parent's session.
    Parent(&'a str),
}

/// An execution-context event of a session.
pub(crate) enum ContextEvent<'a> {
    /// Id, frame, and the unique id when it is the frame's default context.
    Created(i64, &'a str, Option<&'a str>),
    Destroyed(i64),
    Cleared,
}

/// The page's state, and why when it is blocked. The reason names the recovery, never a
/// document section.
fn page_state(
    p: &PageTrack,
    enable_timeout_s: f64,
    wedged: Option<&str>,
) -> (PageState, Option<String>) {
    match (p.phase, p.enable) {
        (PagePhase::Detached, _) => (PageState::Detached, None),
        (PagePhase::Crashed, _) => (PageState::Crashed, None),
        (PagePhase::Attaching, _) | (PagePhase::Attached, EnableState::Pending) => {
            (PageState::Attaching, None)
        }
        (PagePhase::Attached, EnableState::Overdue) => (
            PageState::Blocked,
            Some(format!(
                "page_unresponsive: Page.enable got no reply within {enable_timeout_s} s, likely a dialog left open by an earlier client; call recover"
            )),
        ),
        (PagePhase::Attached, EnableState::Done) => match wedged {
            Some(d) => (
                PageState::Blocked,
                Some(format!(
                    "dialog_wedged: {d} can no longer be answered (Chromium lost it); call recover"
                )),
            ),
            None => (PageState::Live, None),
        },
    }
}
