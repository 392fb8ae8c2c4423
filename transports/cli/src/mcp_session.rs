//! One MCP session (one connected agent): its tools, run on the shared browser.
//!
//! A session either shares the browser's default context (stdio, or `--shared-context`:
//! the tools act on the client's current tab, as a person's browser would), or owns a
//! browser context of its own (each HTTP session by default): its cookies, storage, tabs,
//! popups and dialogs, a current tab of its own, and results that name only its own tabs,
//! dialogs and console lines. Its context is disposed of when the session ends.
//!
//! A session's calls run one at a time, in order (behind its mutex), on a thread of the
//! async runtime's blocking pool; sessions run side by side.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cdp_supervise::find::found_text;
use cdp_supervise::mcp::{Target, ToolCall};
use cdp_supervise::mcp_tabs::{name_of, tab_list, TabsAction, TabsSeen};
use cdp_supervise::mcp_toolbox::ToolboxCall;
use cdp_supervisor::act::{ActOptions, Action, Wait};
use cdp_supervisor::ax::AxOptions;
use cdp_supervisor::evaluate::{Element, Evaluation};
use cdp_supervisor::{DialogAction, PendingDialog, TabInfo};
use cdp_supervisor_blocking::Client;
use serde_json::{json, Value};

use crate::mcp_contexts;
use crate::mcp_host::{Host, Live};

/// How long a screenshot may take.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(15);

/// Tabs a session remembers having been current, to go back to when the current one
/// closes; the oldest is forgotten first.
const MAX_TAB_HISTORY: usize = 32;

/// A tool's outcome, the report on dialogs and tabs included.
pub struct Outcome {
    /// The text.
    pub text: String,
    /// A screenshot: its MIME type and base64 data.
    pub image: Option<(String, String)>,
    /// Whether the call failed.
    pub is_error: bool,
}

fn ok(text: impl Into<String>) -> Outcome {
    Outcome {
        text: text.into(),
        image: None,
        is_error: false,
    }
}

fn failed(text: impl Into<String>) -> Outcome {
    Outcome {
        text: text.into(),
        image: None,
        is_error: true,
    }
}

/// The state of a session between calls.
#[derive(Default)]
struct State {
    /// The browser generation the state below belongs to.
    generation: u64,
    /// When the last call ended (`None`: no call yet).
    last_call: Option<Instant>,
    /// Said in the next result: the context was disposed of while the session idled.
    idled_out: Option<Duration>,
    /// Its own context (`None` before the first call needs it).
    context: Option<String>,
    /// Its current tab, in its own context.
    current: Option<String>,
    /// The tabs current before, most recent last.
    history: Vec<String>,
    /// Closed dialogs already named in a result (a subset of the snapshot's recent ones).
    reported_closed: HashSet<String>,
    /// The fallback warning was said for this generation.
    warned: bool,
    /// Per tab, the index of the first console line `browser_console_messages` has not
    /// listed yet (the supervisor keeps the lines; only tabs listed in the last call).
    console_next: HashMap<String, u64>,
    /// The tabs the last result named.
    tabs_seen: TabsSeen,
    /// The browser's warnings up to this one were named in a result (`None`: no call yet).
    warnings_seen: Option<u64>,
    /// Where `browser_network_requests` left off in each tab.
    network_seen: cdp_supervise::network::Cursors,
}

impl State {
    fn fresh(generation: u64) -> State {
        State {
            generation,
            ..State::default()
        }
    }

    fn make_current(&mut self, tab_id: String) {
        if let Some(old) = self.current.replace(tab_id) {
            self.history.retain(|t| *t != old);
            self.history.push(old);
            if self.history.len() > MAX_TAB_HISTORY {
                self.history.remove(0);
            }
        }
    }
}

/// One MCP session.
pub struct Session {
    host: Arc<Host>,
    /// A context of its own, or the browser's default context shared.
    own_context: bool,
    state: Mutex<State>,
    /// The live sessions of the server, this one counted (released when it drops).
    live_sessions: Option<Arc<AtomicUsize>>,
}

impl Session {
    /// A session on `host`; `own_context`: a browser context of its own. `live_sessions`
    /// counts it until it drops.
    pub fn new(
        host: Arc<Host>,
        own_context: bool,
        live_sessions: Option<Arc<AtomicUsize>>,
    ) -> Session {
        Session {
            host,
            own_context,
            state: Mutex::new(State::fresh(0)),
            live_sessions,
        }
    }

    /// Runs one call (a parsed one, or the reason it was refused) and adds the report on
    /// dialogs and tabs. Blocks: run it off the async runtime's workers.
    pub fn call(&self, call: Result<ToolCall, String>) -> Outcome {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut outcome = match call {
            Ok(ToolCall::Close) => ok(self.close(&mut state)),
            Ok(call) => match self.host.live() {
                Ok(live) => {
                    let scope = self.scope(&mut state, &live);
                    if let Some(log) = live.warnings.as_deref() {
                        // A session hears of what happens from its first call on.
                        state.warnings_seen.get_or_insert_with(|| log.head());
                    }
                    match scope {
                        Ok(tab) => self.run(&mut state, &live, tab, call),
                        Err(e) => failed(e),
                    }
                }
                Err(e) => failed(e),
            },
            Err(message) => failed(message),
        };
        if let Some(idle) = state.idled_out.take() {
            outcome.text.insert_str(0, &format!(
                "(This session's browser context was closed after {} s without a call, with its tabs and cookies: this call ran in a fresh one.)\n",
                idle.as_secs()
            ));
        }
        let warnings = self.warnings(&mut state, &outcome.text);
        outcome.text.push_str(&warnings);
        outcome.text.push_str(&self.report(&mut state));
        state.last_call = Some(Instant::now());
        outcome
    }

    /// Disposes of the session's context when no call came for `idle` (the session stays:
    /// its next call opens a fresh context). A session in a call is left alone. Blocks.
    pub fn idle_out(&self, idle: Duration) {
        let Ok(mut state) = self.state.try_lock() else {
            return;
        };
        let idle_for = state.last_call.map(|t| t.elapsed());
        if state.context.is_none() || idle_for.is_none_or(|d| d < idle) {
            return;
        }
        self.close(&mut state);
        state.idled_out = Some(idle);
    }

    /// The tab calls go to (`None`: the client's current tab, in the shared context),
    /// making the session's context and first tab when it has none.
    fn scope(&self, state: &mut State, live: &Live) -> Result<Option<String>, String> {
        if state.generation != live.generation {
            *state = State::fresh(live.generation);
        }
        if !self.own_context {
            return Ok(None);
        }
        let client = &live.client;
        let context = match &state.context {
            Some(c) => c.clone(),
            None => {
                let c = mcp_contexts::create(client)
                    .map_err(|e| format!("Cannot create this session's browser context: {e}"))?;
                state.context = Some(c.clone());
                c
            }
        };
        let tabs = self.own_tabs(state, client.tabs().map_err(|e| e.to_string())?);
        if let Some(current) = &state.current {
            if tabs.iter().any(|t| t.tab_id == *current) {
                return Ok(Some(current.clone()));
            }
        }
        // The current tab closed (or there is none yet): the one current before it, else
        // the newest, else a fresh one.
        let before = std::mem::take(&mut state.history);
        let back = before
            .iter()
            .rev()
            .find(|id| tabs.iter().any(|t| t.tab_id == **id))
            .cloned()
            .or_else(|| tabs.last().map(|t| t.tab_id.clone()));
        state.history = before;
        let tab = match back {
            Some(t) => t,
            None => mcp_contexts::new_tab(client, "about:blank", &context)
                .map_err(|e| format!("Cannot open this session's tab: {e}"))?,
        };
        state.current = Some(tab.clone());
        Ok(Some(tab))
    }

    /// The tabs this session sees, `current` set on its own current tab.
    fn own_tabs(&self, state: &State, tabs: Vec<TabInfo>) -> Vec<TabInfo> {
        self.view(state).tabs(tabs)
    }

    fn view(&self, state: &State) -> View {
        View {
            own_context: self.own_context,
            context: state.context.clone(),
            current: state.current.clone(),
        }
    }

    fn close(&self, state: &mut State) -> String {
        if !self.own_context {
            let note = self.host.close();
            let generation = state.generation;
            *state = State::fresh(generation);
            return note.unwrap_or_else(|| "No browser was open.".into());
        }
        let live = self
            .host
            .running()
            .filter(|l| l.generation == state.generation);
        let note = match (live, state.context.take()) {
            (Some(live), Some(context)) => match mcp_contexts::dispose(&live.client, &context) {
                Ok(()) => "Closed this session's browser context: its tabs, cookies and storage are gone; the next call opens a fresh one. The browser stays up for the other sessions.".to_owned(),
                Err(e) => format!("Could not close this session's browser context: {e}"),
            },
            _ => "This session had no browser context open.".to_owned(),
        };
        let generation = state.generation;
        *state = State::fresh(generation);
        note
    }

    /// The browser's warnings since this session's last result that concern it, but
    /// what `said` already says.
    fn warnings(&self, state: &mut State, said: &str) -> String {
        let live = self
            .host
            .running()
            .filter(|l| l.generation == state.generation);
        let (Some(log), Some(seen)) = (
            live.as_ref().and_then(|l| l.warnings.as_deref()),
            state.warnings_seen.as_mut(),
        ) else {
            return String::new();
        };
        let context = self.own_context.then_some(state.context.as_deref());
        log.report(seen, context, said)
    }

    /// The lines every result ends with: the fallback warning once, this session's pending
    /// dialogs, the dialogs that closed since the last result, the tabs opened or closed
    /// since, and the current tab.
    fn report(&self, state: &mut State) -> String {
        let mut out = String::new();
        let Some(live) = self
            .host
            .running()
            .filter(|l| l.generation == state.generation)
        else {
            return out;
        };
        if let Some(w) = live.warning.as_deref().filter(|_| !state.warned) {
            state.warned = true;
            out.push_str(&format!("\nWarning: {w}."));
        }
        let Ok(snapshot) = live.client.snapshot() else {
            return out;
        };
        let tabs = self.own_tabs(state, snapshot.tabs.clone());
        let mine = |tab_id: Option<&str>| {
            !self.own_context || tab_id.is_some_and(|t| tabs.iter().any(|x| x.tab_id == t))
        };
        let pending: Vec<&PendingDialog> = snapshot
            .pending_dialogs
            .iter()
            .filter(|d| mine(d.tab_id.as_deref()))
            .collect();
        out.push_str(&pending_text(&pending, &tabs));
        let mut closed = String::new();
        for d in snapshot
            .recent_dialogs
            .iter()
            .filter(|d| mine(d.tab_id.as_deref()))
        {
            if state.reported_closed.insert(d.id.clone()) {
                closed.push_str(&format!(
                    "\n- {} {} {:?} closed by {} ({})",
                    d.id,
                    d.kind,
                    d.message,
                    serde_json::to_value(d.closed_by)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    if d.accepted { "accepted" } else { "dismissed" }
                ));
            }
        }
        // Only ids still in the snapshot's ring can come back: the set stays that small.
        let ring: HashSet<&str> = snapshot
            .recent_dialogs
            .iter()
            .map(|d| d.id.as_str())
            .collect();
        state
            .reported_closed
            .retain(|id| ring.contains(id.as_str()));
        if !closed.is_empty() {
            out.push_str("\nDialogs closed since the last result:");
            out.push_str(&closed);
        }
        out.push_str(&state.tabs_seen.report(&tabs));
        out
    }

    fn run(&self, state: &mut State, live: &Live, tab: Option<String>, call: ToolCall) -> Outcome {
        let client = &*live.client;
        let tab = tab.as_deref();
        match call {
            ToolCall::HandleDialog {
                accept: true,
                dialog_id,
                files: Some(files),
                ..
            } => self.upload(state, client, files, dialog_id),
            ToolCall::HandleDialog {
                accept: true,
                dialog_id,
                credentials: Some((username, password)),
                ..
            } => {
                let dialog_id = match self.own_dialog(state, client, dialog_id) {
                    Ok(id) => id,
                    Err(e) => return failed(e),
                };
                let signed = crate::mcp_sign_in::sign_in(
                    client,
                    &username,
                    password.expose(),
                    dialog_id.as_deref(),
                );
                signed.map_or_else(failed, ok)
            }
            ToolCall::FileUpload { paths, dialog_id } if !paths.is_empty() => {
                self.upload(state, client, paths, dialog_id)
            }
            ToolCall::FileUpload { dialog_id, .. } => self.run(
                state,
                live,
                tab.map(str::to_owned),
                ToolCall::HandleDialog {
                    accept: false,
                    prompt_text: None,
                    dialog_id,
                    files: None,
                    credentials: None,
                },
            ),
            ToolCall::HandleDialog {
                accept,
                prompt_text,
                dialog_id,
                ..
            } => {
                let action = if accept {
                    DialogAction::Accept
                } else {
                    DialogAction::Dismiss
                };
                let dialog_id = match self.own_dialog(state, client, dialog_id) {
                    Ok(id) => id,
                    Err(e) => return failed(e),
                };
                match client.respond_dialog(action, prompt_text.as_deref(), dialog_id.as_deref()) {
                    Ok(d) => ok(format!(
                        "Dialog {} ({} {:?}) {}.",
                        d.id,
                        d.kind,
                        d.message,
                        if d.accepted { "accepted" } else { "dismissed" }
                    )),
                    Err(e) => failed(format!("{e}")),
                }
            }
            ToolCall::Screenshot => self.screenshot(state, client, tab),
            ToolCall::ConsoleMessages { level } => self.console_messages(state, live, level),
            ToolCall::Tabs(action) => self.tabs_tool(state, client, action),
            ToolCall::Network(call) => network_tool(client, tab, &mut state.network_seen, call),
            other => {
                let view = self.view(state);
                let (outcome, opened) = agent_tool(client, tab, &view, other);
                if let Some(first) = opened.filter(|_| self.own_context) {
                    state.make_current(first);
                }
                outcome
            }
        }
    }

    /// The dialog to answer: `dialog_id` when it is this session's, else its single
    /// pending dialog. In the shared context, as given (the supervisor picks).
    /// A file chooser answered with `files` (checked by the driver against
    /// `--upload-root` before anything is sent).
    fn upload(
        &self,
        state: &State,
        client: &Client,
        files: Vec<String>,
        dialog_id: Option<String>,
    ) -> Outcome {
        let dialog_id = match self.own_dialog(state, client, dialog_id) {
            Ok(id) => id,
            Err(e) => return failed(e),
        };
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        match client.upload_files(&files, dialog_id.as_deref()) {
            Ok(d) => ok(format!(
                "File chooser {} answered with {} file(s).",
                d.id,
                files.len()
            )),
            Err(e) => failed(format!("{e}")),
        }
    }

    fn own_dialog(
        &self,
        state: &State,
        client: &Client,
        dialog_id: Option<String>,
    ) -> Result<Option<String>, String> {
        if !self.own_context {
            return Ok(dialog_id);
        }
        let snapshot = client.snapshot().map_err(|e| e.to_string())?;
        let tabs = self.own_tabs(state, snapshot.tabs.clone());
        let mine: Vec<&PendingDialog> = snapshot
            .pending_dialogs
            .iter()
            .filter(|d| {
                d.tab_id
                    .as_deref()
                    .is_some_and(|t| tabs.iter().any(|x| x.tab_id == t))
            })
            .collect();
        match dialog_id {
            Some(id) if mine.iter().any(|d| d.id == id) => Ok(Some(id)),
            Some(id) => Err(format!(
                "No dialog {id} is pending in this session's tabs: the result names the pending dialogs."
            )),
            None => match mine.as_slice() {
                [one] => Ok(Some(one.id.clone())),
                [] => Err("No dialog is pending in this session's tabs.".into()),
                _ => Err(format!(
                    "{} dialogs are pending: pass dialog_id (the result names them).",
                    mine.len()
                )),
            },
        }
    }

    fn console_messages(
        &self,
        state: &mut State,
        live: &Live,
        level: Option<cdp_supervise::mcp_toolbox::ConsoleLevel>,
    ) -> Outcome {
        // Its own tabs: every tab of its context, or of the shared browser.
        let tabs = match live.client.tabs() {
            Ok(t) => self.own_tabs(state, t),
            Err(e) => return failed(e.to_string()),
        };
        let mut lines = Vec::new();
        let mut next = HashMap::new();
        let mut dropped = 0;
        for tab in &tabs {
            let since = state.console_next.get(&tab.tab_id).copied().unwrap_or(0);
            match live.client.console_since(Some(&tab.tab_id), since) {
                Ok(c) => {
                    dropped += c.dropped;
                    next.insert(tab.tab_id.clone(), c.next);
                    lines.extend(c.lines);
                }
                // Closed since it was listed: its lines went with it.
                Err(e) if e.code() == "no_such_tab" => {}
                Err(e) => return failed(e.to_string()),
            }
        }
        lines.retain(|l| level.is_none_or(|lv| lv.shows(&l.kind)));
        lines.sort_by(|a, b| a.at.total_cmp(&b.at));
        // A call with `level` shows a part: the rest stays for the next call without it.
        // Tabs no longer listed are forgotten.
        if level.is_none() {
            state.console_next = next;
        }
        let mut text = String::new();
        for l in &lines {
            text.push_str(&format!(
                "[{}] {} (frame {})\n",
                l.kind,
                l.text,
                l.frame_id.as_deref().unwrap_or("?")
            ));
        }
        if dropped > 0 {
            text.push_str(&format!(
                "({dropped} older lines were forgotten before this call: each tab keeps its last {}.)\n",
                cdp_supervisor::limits::MAX_CONSOLE_HISTORY
            ));
        }
        if text.is_empty() {
            ok("No console messages since the last call.")
        } else {
            ok(format!("Console messages since the last call:\n{text}"))
        }
    }

    fn screenshot(&self, state: &State, client: &Client, tab: Option<&str>) -> Outcome {
        if let Ok(s) = client.snapshot() {
            // Only a dialog of the current tab keeps it from painting.
            let current = tab
                .map(str::to_owned)
                .or_else(|| s.tabs.iter().find(|t| t.current).map(|t| t.tab_id.clone()));
            let here = |d: &&PendingDialog| {
                // In a context of its own, only its current tab's: another session's
                // dialog is none of its business.
                d.tab_id.as_deref() == current.as_deref()
                    || (!self.own_context && (d.tab_id.is_none() || current.is_none()))
            };
            if s.pending_dialogs.iter().any(|d| here(&d)) {
                return failed("A dialog is pending, and a tab with a dialog cannot paint: answer it with browser_handle_dialog first.");
            }
        }
        let _ = state;
        for format in ["webp", "png"] {
            if let Ok(result) = client.command_in(
                tab,
                None,
                "Page.captureScreenshot",
                json!({ "format": format }),
                SCREENSHOT_TIMEOUT,
            ) {
                if let Some(data) = result
                    .get("data")
                    .and_then(Value::as_str)
                    .filter(|d| !d.is_empty())
                {
                    return Outcome {
                        text: "Screenshot of the tab.".into(),
                        image: Some((format!("image/{format}"), data.to_owned())),
                        ..ok("")
                    };
                }
            }
        }
        failed("Chromium gave no screenshot (webp nor png); the tab may be closing, try again")
    }

    /// `browser_tabs`: list, open, select or close a tab; answers with the list.
    fn tabs_tool(&self, state: &mut State, client: &Client, action: TabsAction) -> Outcome {
        let tabs = match client.tabs() {
            Ok(t) => self.own_tabs(state, t),
            Err(e) => return failed(e.to_string()),
        };
        let tab_at = |index: usize| {
            tabs.get(index).map(|t| t.tab_id.clone()).ok_or_else(|| {
                failed(format!(
                    "No tab {index}: there are {} tabs, numbered from 0 as browser_tabs {{action: \"list\"}} shows them.",
                    tabs.len()
                ))
            })
        };
        let head = match action {
            TabsAction::List => String::new(),
            TabsAction::New { url } => {
                let url = url.as_deref().unwrap_or("about:blank");
                let opened = match state.context.clone().filter(|_| self.own_context) {
                    Some(context) => mcp_contexts::new_tab(client, url, &context).map(|id| {
                        state.make_current(id);
                    }),
                    None => client.new_tab(url).map(|_| ()).map_err(|e| e.to_string()),
                };
                match opened {
                    Ok(()) => {
                        "Opened a new tab; it is the current tab, and the next tools act on it.\n"
                            .into()
                    }
                    Err(e) => return failed(format!("Cannot open a tab: {e}")),
                }
            }
            TabsAction::Select { index } => {
                let id = match tab_at(index) {
                    Ok(id) => id,
                    Err(e) => return e,
                };
                let selected = if self.own_context {
                    state.make_current(id);
                    Ok(())
                } else {
                    client.select_tab(&id).map(|_| ())
                };
                match selected {
                    Ok(()) => format!("Selected tab {index}; the next tools act on it.\n"),
                    Err(e) => return failed(format!("Cannot select tab {index}: {e}")),
                }
            }
            TabsAction::Close { index } => {
                let id = match index.map(tab_at).transpose() {
                    Ok(id) => id,
                    Err(e) => return e,
                };
                // In a context of its own, the session's current tab, named explicitly.
                let id = id.or_else(|| state.current.clone().filter(|_| self.own_context));
                let name = id
                    .as_deref()
                    .or_else(|| tabs.iter().find(|t| t.current).map(|t| t.tab_id.as_str()))
                    .and_then(|id| name_of(&tabs, id))
                    .unwrap_or_else(|| "the current tab".into());
                match client.close_tab(id.as_deref(), false) {
                    Ok(c) if c.closed => format!("Closed tab {name}.\n"),
                    Ok(c) => match c.dialog {
                        Some(d) => format!(
                            "Tab {name} asks to stay (its {} dialog {} is pending): accept it with browser_handle_dialog to close the tab, dismiss it to keep the page.\n",
                            d.kind, d.id
                        ),
                        None => format!("Tab {name} stayed open (its page asked to stay, and the answer kept it).\n"),
                    },
                    Err(e) => return failed(format!("Cannot close tab {name}: {e}")),
                }
            }
        };
        let listed = client.tabs().map(|t| self.own_tabs(state, t));
        // The current tab may have closed: the one current before it becomes current.
        if self.own_context {
            if let Ok(tabs) = &listed {
                if !tabs.iter().any(|t| t.current) {
                    let back = state
                        .history
                        .iter()
                        .rev()
                        .find(|id| tabs.iter().any(|t| t.tab_id == **id))
                        .cloned()
                        .or_else(|| tabs.last().map(|t| t.tab_id.clone()));
                    state.current = back;
                }
            }
        }
        match client.tabs().map(|t| self.own_tabs(state, t)) {
            Ok(tabs) => ok(format!("{head}{}", tab_list(&tabs))),
            Err(e) => failed(format!("{head}{e}")),
        }
    }
}

impl Drop for Session {
    /// A session's context goes with it (the session ended, or idled out). Disposing of it
    /// waits on the browser: on a thread of its own, not the caller's (an async worker).
    fn drop(&mut self) {
        if let Some(count) = &self.live_sessions {
            count.fetch_sub(1, Ordering::SeqCst);
        }
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let Some(context) = state.context.take() else {
            return;
        };
        let Some(live) = self
            .host
            .running()
            .filter(|l| l.generation == state.generation)
        else {
            return;
        };
        let disposed = std::thread::Builder::new()
            .name("cdp-supervise-dispose".into())
            .spawn(move || {
                // A browser closing (the server stops) takes the context with it.
                match mcp_contexts::dispose(&live.client, &context) {
                    Err(e) if live.client.snapshot().is_ok() => eprintln!(
                        "cdp-supervise: could not dispose of a session's browser context: {e}"
                    ),
                    _ => {}
                }
            });
        if let Err(e) = disposed {
            eprintln!("cdp-supervise: could not dispose of a session's browser context: {e}");
        }
    }
}

/// Which tabs a session sees.
struct View {
    own_context: bool,
    context: Option<String>,
    current: Option<String>,
}

impl View {
    /// `tabs` as the session sees them: all of them in the shared context; else those of
    /// its context, `current` set on its own current tab.
    fn tabs(&self, tabs: Vec<TabInfo>) -> Vec<TabInfo> {
        if !self.own_context {
            return tabs;
        }
        let Some(context) = self.context.as_deref() else {
            return Vec::new();
        };
        tabs.into_iter()
            .filter(|t| mcp_contexts::of(t) == Some(context))
            .map(|mut t| {
                t.current = self.current.as_deref() == Some(t.tab_id.as_str());
                t
            })
            .collect()
    }
}

fn pending_text(pending: &[&PendingDialog], tabs: &[TabInfo]) -> String {
    if pending.is_empty() {
        return "\nPending dialogs: none.".into();
    }
    let mut out = String::from(
        "\nPending dialogs (the page's scripts wait until they are answered; use browser_handle_dialog):",
    );
    for d in pending {
        // With several tabs, which one waits (an index as browser_tabs lists it).
        let tab = d
            .tab_id
            .as_deref()
            .filter(|_| tabs.len() > 1)
            .and_then(|t| tabs.iter().position(|x| x.tab_id == t))
            .map(|i| format!(" of tab {i}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n- {} {} {:?} in frame {}{tab}{}",
            d.id,
            d.kind,
            d.message,
            d.frame_id,
            if let Some(mode) = &d.mode {
                format!(" ({mode}: answer with browser_file_upload {{paths}}, or cancel)")
            } else if let Some(auth) = &d.auth {
                format!(
                    " (sign-in asked by {}, realm {:?}: answer with browser_handle_dialog {{accept, username, password}})",
                    auth.origin, auth.realm
                )
            } else if d.default_prompt.is_empty() {
                String::new()
            } else {
                format!(" (default answer {:?})", d.default_prompt)
            }
        ));
    }
    out
}

/// The tools built on the core's agent flows (navigate, snapshot, the actions, find,
/// evaluate) in tab `tab` (`None`: the client's current tab). With the outcome,
/// the first tab the action opened.
fn agent_tool(
    client: &Client,
    tab: Option<&str>,
    view: &View,
    call: ToolCall,
) -> (Outcome, Option<String>) {
    match call {
        ToolCall::Navigate {
            url,
            timeout_ms,
            wait,
        } => act(
            client,
            tab,
            view,
            json!({"action": "navigate", "url": url}),
            budget(timeout_ms, wait),
        ),
        ToolCall::Click {
            target,
            timeout_ms,
            wait,
        } => {
            let action = match target {
                Target::Ref(r) => json!({"action": "click", "ref": r}),
                Target::Point { x, y } => json!({"action": "click", "x": x, "y": y}),
            };
            act(client, tab, view, action, budget(timeout_ms, wait))
        }
        ToolCall::Type {
            text,
            reference,
            submit,
            timeout_ms,
            wait,
        } => {
            // When Enter follows, the typing's own settle and screenshot would be thrown
            // away: the answer is the page after Enter.
            let mut typed_options = budget(timeout_ms, wait);
            if submit {
                typed_options["wait"] = json!(Wait::Load.as_str());
                typed_options["screenshot"] = json!(false);
            }
            let (typed, opened) = act(
                client,
                tab,
                view,
                json!({"action": "type", "text": text, "ref": reference}),
                typed_options,
            );
            if !submit || typed.is_error {
                return (typed, opened);
            }
            let (pressed, opened_after) = act(
                client,
                tab,
                view,
                json!({"action": "press", "key": "Enter"}),
                budget(timeout_ms, wait),
            );
            (
                Outcome {
                    text: format!("{}\n\nThen Enter:\n{}", typed.text, pressed.text),
                    ..pressed
                },
                opened.or(opened_after),
            )
        }
        ToolCall::PressKey {
            key,
            timeout_ms,
            wait,
        } => act(
            client,
            tab,
            view,
            json!({"action": "press", "key": key}),
            budget(timeout_ms, wait),
        ),
        ToolCall::Scroll {
            down,
            reference,
            timeout_ms,
            wait,
        } => {
            let action = match (reference, down) {
                (Some(r), _) => json!({"action": "scroll", "ref": r}),
                (None, Some(false)) => json!({"action": "scroll", "direction": "up"}),
                (None, _) => json!({"action": "scroll", "direction": "down"}),
            };
            act(client, tab, view, action, budget(timeout_ms, wait))
        }
        ToolCall::Snapshot {
            max_nodes,
            max_chars,
            frame_id,
            reference,
        } => {
            let mut options = AxOptions::default();
            if let Some(n) = max_nodes.and_then(|n| usize::try_from(n).ok()) {
                options.max_nodes = n;
            }
            options.max_chars = max_chars.and_then(|n| usize::try_from(n).ok());
            options.frame_id = frame_id;
            options.reference = reference;
            let outcome = match client.ax_snapshot_in(tab, options) {
                Ok(ax) => {
                    let mut text = format!(
                        "Snapshot of the tab (every frame, cross-origin iframes included; a node keeps its ref across snapshots):\n{}",
                        ax.text
                    );
                    if ax.truncated {
                        text.push_str("\n(truncated: pass max_nodes / max_chars, or a ref or frame_id to see one part)");
                    }
                    for f in &ax.frames_left_out {
                        text.push_str(&format!(
                            "\nLeft out: frame {} ({}): {}",
                            f.frame_id, f.url, f.reason
                        ));
                    }
                    ok(text)
                }
                Err(e) => failed(format!("{e}")),
            };
            (outcome, None)
        }
        ToolCall::Evaluate {
            expression,
            function,
            reference,
            frame_id,
            timeout_ms,
        } => {
            let mut evaluation = if function {
                Evaluation::function(&expression)
            } else {
                Evaluation::new(&expression)
            };
            if let Some(frame) = &frame_id {
                evaluation = evaluation.in_frame(frame);
            }
            if let Some(r) = reference {
                evaluation = evaluation.on_element(Element::Ref(r));
            }
            if let Some(ms) = timeout_ms {
                evaluation = evaluation.within(Duration::from_millis(ms));
            }
            let outcome = match client.evaluate_in(tab, evaluation) {
                Ok(v) if v.undefined => ok("undefined"),
                Ok(v) => ok(serde_json::to_string_pretty(&v.value).unwrap_or_default()),
                Err(e) => failed(format!("{e}")),
            };
            (outcome, None)
        }
        ToolCall::Input {
            action,
            timeout_ms,
            wait,
        } => act(client, tab, view, action, budget(timeout_ms, wait)),
        ToolCall::Toolbox(ToolboxCall::Find(query)) => {
            let outcome = match client.ax_snapshot_in(tab, AxOptions::default()) {
                Ok(ax) => ok(found_text(&ax.find(&query))),
                Err(e) => failed(format!("{e}")),
            };
            (outcome, None)
        }
        ToolCall::Toolbox(call) => match call.act() {
            Some((action, options)) => act(client, tab, view, action, options),
            None => (failed(format!("{call:?} is not an action")), None),
        },
        other => (failed(format!("{other:?} is not an agent tool")), None),
    }
}

/// An action's options as the sidecar spells them: the budget and what to wait for.
fn budget(timeout_ms: Option<u64>, wait: Option<Wait>) -> Value {
    let mut options = json!({});
    if let Some(ms) = timeout_ms {
        options["timeout_ms"] = json!(ms);
    }
    if let Some(w) = wait {
        options["wait"] = json!(w.as_str());
    }
    options
}

/// Runs one action of the core and says what happened, with its screenshot; and the
/// first tab it opened.
fn act(
    client: &Client,
    tab: Option<&str>,
    view: &View,
    action: Value,
    options: Value,
) -> (Outcome, Option<String>) {
    let parsed =
        Action::from_json(&action).and_then(|a| ActOptions::from_json(&options).map(|o| (a, o)));
    let (action, options) = match parsed {
        Ok(p) => p,
        Err(e) => return (failed(e.to_string()), None),
    };
    let name = action.name();
    let result = match client.act_in(tab, action, options) {
        Ok(r) => r,
        Err(e) => return (failed(format!("{name} failed: {e}")), None),
    };
    let mut text = format!(
        "{name}: {} (\"{}\"){}{}",
        result.url,
        result.title,
        if result.navigated { ", navigated" } else { "" },
        if result.settled {
            ", settled"
        } else {
            ", not settled within the budget"
        }
    );
    if let Some(d) = &result.ended_by_dialog {
        text.push_str(&format!(
            "\nA dialog ({d}) opened and ended the action; no screenshot (a tab with a dialog cannot paint). Answer it with browser_handle_dialog."
        ));
    }
    if let Some(refused) = &result.navigation_refused {
        text.push_str(&format!(
            "\nThe page tried to go where this server does not let an agent go, and was kept where it was: {refused}"
        ));
    }
    for d in &result.downloads {
        let state = serde_json::to_value(d.state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        text.push_str(&format!(
            "\nDownload {} ({}): {state}, {} of {} bytes{}{}",
            d.suggested_filename,
            d.url,
            d.received_bytes,
            d.total_bytes,
            d.path
                .as_deref()
                .map(|p| format!(", saved as {p}"))
                .unwrap_or_default(),
            d.error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default(),
        ));
    }
    if let Some(first) = result.opened_tabs.first() {
        // The agent must learn in this turn that its next tools act on another tab.
        let tabs = view.tabs(client.tabs().unwrap_or_default());
        let tab_name = |id: &String| name_of(&tabs, id).unwrap_or_else(|| id.clone());
        let opened: Vec<String> = result.opened_tabs.iter().map(tab_name).collect();
        text.push_str(&format!(
            "\nThe {name} opened a new tab: {}. Tab {} is the current tab now: the next tools act on it (browser_tabs selects another).",
            opened.join(", "),
            tab_name(first)
        ));
    }
    for line in &result.fields {
        text.push_str(&format!("\n{line}"));
    }
    if result.console.is_empty() {
        text.push_str("\nConsole: nothing since the action began.");
    } else {
        text.push_str("\nConsole since the action began:");
        for line in &result.console {
            text.push_str(&format!(
                "\n[{}] {} (frame {})",
                line.level,
                line.text,
                line.frame_id.as_deref().unwrap_or("?")
            ));
        }
        if result.console_dropped > 0 {
            text.push_str(&format!(
                "\n({} more lines left out)",
                result.console_dropped
            ));
        }
    }
    let opened = result.opened_tabs.first().cloned();
    (
        Outcome {
            text,
            image: result.screenshot.map(|s| (s.mime, s.data)),
            is_error: false,
        },
        opened,
    )
}

/// `browser_network_requests` / `browser_network_request` on the session's tab (its own
/// current tab in a context of its own, so it sees its own requests only).
fn network_tool(
    client: &Client,
    tab: Option<&str>,
    seen: &mut cdp_supervise::network::Cursors,
    call: cdp_supervise::network::NetworkCall,
) -> Outcome {
    use cdp_supervise::network::{list_text, request_text, NetworkCall};
    let text = match call {
        NetworkCall::List {
            include_static,
            filter,
        } => list_text(client, seen, tab, include_static, filter.as_deref()),
        NetworkCall::One { index, part } => request_text(client, tab, index, part),
    };
    match text {
        Ok(t) => ok(t),
        Err(e) => failed(e.to_string()),
    }
}
