//! `cdp-supervise mcp`: the Model Context Protocol server loop.
//!
//! One message a line on stdin, one answer a line on stdout, nothing else on stdout; logs on
//! stderr. Calls run one at a time, in order. The browser is launched (or `--cdp` connects)
//! when the server starts, on a thread of its own while the client's handshake goes on, so
//! that the first call does not pay the launch; `--lazy` launches it on first use instead.
//! It is reused until `browser_close` (the next call then launches a fresh one), and
//! closed at end of input, on SIGTERM, SIGINT and SIGHUP (between calls) and on every
//! error path (the client owns the launched browser; dropping it closes the browser and
//! removes its profile).

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use cdp_supervise::mcp::{
    code, error_response, initialize_result, parse_message, parse_tool_call, response, tool_result,
    tools, CallError, Incoming, RpcError, Target, ToolCall,
};
use cdp_supervise::mcp_tabs::{name_of, tab_list, TabsAction, TabsSeen};
use cdp_supervisor::act::{ActOptions, Action, Wait};
use cdp_supervisor::ax::AxOptions;
use cdp_supervisor::evaluate::{Element, Evaluation};
use cdp_supervisor::{DialogAction, Snapshot};
use cdp_supervisor_blocking::{Browser, Client, Options};
use serde_json::{json, Value};

use crate::args::{config, fallback_warning, unreachable_error, Args, Failure};

/// A stdin line longer than this is refused (and skipped) without being kept in memory.
const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// How long a screenshot may take.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(15);

/// Writes one protocol line to stdout, whole, and flushes it.
fn send(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A browser being supervised, with what its start has to say.
struct Started {
    client: Client,
    /// A browser launched with a window (`--headed`); the client's own launch is headless.
    /// Dropped after the client.
    headed_browser: Option<Browser>,
    /// The Grid session (`--grid`), deleted when dropped, after the client.
    grid: Option<cdp_supervisor_grid::GridSession>,
    /// The local fallback's warning, for the next result.
    warning: Option<String>,
}

impl Started {
    fn client(client: Client) -> Started {
        Started {
            client,
            headed_browser: None,
            grid: None,
            warning: None,
        }
    }
}

/// Launches or connects as the flags say: `--cdp` (with `--fallback-local`, the local
/// Chromium when the endpoint cannot be reached), `--headed`, or a headless launch.
fn start_browser(args: &Args) -> Result<Started, String> {
    let options = || Options {
        config: config(args),
        ..Options::default()
    };
    let remote = match crate::remote::remote(args) {
        Err(e) if args.fallback_local => {
            let warning = format!("{e}; supervising a local headless Chromium instead");
            eprintln!("cdp-supervise: warning: {warning}");
            let client = Client::launch(options())
                .map_err(|e| format!("could not launch the local Chromium either: {e}"))?;
            return Ok(Started {
                warning: Some(warning),
                ..Started::client(client)
            });
        }
        remote => remote?,
    };
    match remote {
        Some(remote) => match crate::remote::connect(args, &remote, None) {
            Ok(client) => Ok(Started {
                grid: remote.grid,
                ..Started::client(client)
            }),
            Err(e) if args.fallback_local => {
                let url = &remote.url;
                let warning = fallback_warning(url, &e);
                eprintln!("cdp-supervise: warning: {warning}");
                let client = Client::launch(options())
                    .map_err(|e| format!("could not launch the local Chromium either: {e}"))?;
                Ok(Started {
                    warning: Some(warning),
                    ..Started::client(client)
                })
            }
            Err(e) => Err(unreachable_error(&remote.url, &e)),
        },
        None if args.headed => {
            let browser = Browser::launch_headed().map_err(|e| {
                format!("cannot launch Chromium with a window: {e}; a display is needed (or leave out --headed)")
            })?;
            let client = Client::connect(browser.ws_url(), options())
                .map_err(|e| format!("cannot supervise the launched Chromium: {e}"))?;
            Ok(Started {
                headed_browser: Some(browser),
                ..Started::client(client)
            })
        }
        None => Client::launch(options())
            .map(Started::client)
            .map_err(|e| format!("cannot launch Chromium: {e}; install chromium or set $CHROME")),
    }
}

/// The tab this server drives.
struct Session<'a> {
    args: &'a Args,
    client: Option<Client>,
    /// A browser launched with a window (`--headed`); the client's own launch is headless.
    /// Dropped after the client.
    headed_browser: Option<Browser>,
    /// The Grid session (`--grid`), deleted when dropped, after the client.
    grid: Option<cdp_supervisor_grid::GridSession>,
    /// The start begun with the server (not with `--lazy`), until a call needs it.
    starting: Option<JoinHandle<Result<Started, String>>>,
    /// Closed dialogs already named in a result (a subset of the snapshot's recent ones).
    reported_closed: HashSet<String>,
    /// Said once, in the next result (the local fallback).
    warning: Option<String>,
    /// Console entries up to this time were returned by `browser_console_messages`.
    console_seen_until: f64,
    /// The tabs the last result named.
    tabs_seen: TabsSeen,
}

impl<'a> Session<'a> {
    fn new(args: &'a Args) -> Self {
        Session {
            args,
            client: None,
            headed_browser: None,
            grid: None,
            starting: None,
            reported_closed: HashSet::new(),
            warning: None,
            console_seen_until: f64::NEG_INFINITY,
            tabs_seen: TabsSeen::default(),
        }
    }

    /// Starts the browser on a thread of its own; the first call that needs it waits for
    /// it. A thread that cannot be spawned leaves the start to that call.
    fn start_early(&mut self) {
        let args = self.args.clone();
        self.starting = std::thread::Builder::new()
            .name("cdp-supervise-start".into())
            .spawn(move || start_browser(&args))
            .ok();
    }

    /// The start under way, waited for.
    fn started_early(&mut self) -> Option<Result<Started, String>> {
        let start = self.starting.take()?;
        Some(
            start
                .join()
                .unwrap_or_else(|_| Err("the browser's start failed; try again".into())),
        )
    }

    /// The client: the early start's, or launched or connected now.
    fn client(&mut self) -> Result<&Client, String> {
        if self.client.is_none() {
            // A failed early start is this call's answer; the next call tries again.
            let started = match self.started_early() {
                Some(started) => started?,
                None => start_browser(self.args)?,
            };
            self.client = Some(started.client);
            self.headed_browser = started.headed_browser;
            self.grid = started.grid;
            self.warning = started.warning;
        }
        self.client.as_ref().ok_or_else(|| "no browser".to_owned())
    }

    fn close(&mut self) -> Option<String> {
        // An early start still under way is waited for, so that its browser is closed too.
        if let Some(Ok(started)) = self.started_early() {
            self.client = Some(started.client);
            self.headed_browser = started.headed_browser;
            self.grid = started.grid;
        }
        let client = self.client.take()?;
        let launched = client.browser().is_some() || self.headed_browser.is_some();
        let _ = client.stop();
        drop(client);
        drop(self.headed_browser.take());
        // A Grid session is deleted (the Grid closes its browser).
        let grid = self.grid.take().map(drop).is_some();
        self.reported_closed.clear();
        self.tabs_seen.clear();
        Some(if grid {
            "Deleted the Selenium Grid session (the Grid closes its browser).".into()
        } else if launched {
            "Closed the browser this server launched.".into()
        } else {
            "Detached from the browser (it was not launched by this server, so it stays running)."
                .into()
        })
    }

    /// The lines every result ends with: the fallback warning once, the pending dialogs,
    /// and the dialogs that closed since the last result.
    fn dialog_report(&mut self) -> String {
        let mut out = String::new();
        if let Some(w) = self.warning.take() {
            out.push_str(&format!("\nWarning: {w}."));
        }
        let Some(snapshot) = self.client.as_ref().and_then(|c| c.snapshot().ok()) else {
            return out;
        };
        out.push_str(&pending_text(&snapshot));
        let mut closed = String::new();
        for d in &snapshot.recent_dialogs {
            if self.reported_closed.insert(d.id.clone()) {
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
        self.reported_closed.retain(|id| ring.contains(id.as_str()));
        if !closed.is_empty() {
            out.push_str("\nDialogs closed since the last result:");
            out.push_str(&closed);
        }
        out
    }
}

impl Session<'_> {
    /// The lines every result ends with after the dialogs: the tabs opened or closed since
    /// the last result, and the current tab.
    fn tab_report(&mut self) -> String {
        match self.client.as_ref().map(Client::tabs) {
            Some(Ok(tabs)) => self.tabs_seen.report(&tabs),
            _ => String::new(),
        }
    }
}

/// `browser_tabs`: list, open, select or close a tab; answers with the list.
fn tabs_tool(client: &Client, action: TabsAction) -> Outcome {
    let tabs = match client.tabs() {
        Ok(t) => t,
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
        TabsAction::New { url } => match client.new_tab(url.as_deref().unwrap_or("about:blank")) {
            Ok(_) => {
                "Opened a new tab; it is the current tab, and the next tools act on it.\n".into()
            }
            Err(e) => return failed(format!("Cannot open a tab: {e}")),
        },
        TabsAction::Select { index } => {
            let id = match tab_at(index) {
                Ok(id) => id,
                Err(e) => return e,
            };
            match client.select_tab(&id) {
                Ok(_) => format!("Selected tab {index}; the next tools act on it.\n"),
                Err(e) => return failed(format!("Cannot select tab {index}: {e}")),
            }
        }
        TabsAction::Close { index } => {
            let id = match index.map(tab_at).transpose() {
                Ok(id) => id,
                Err(e) => return e,
            };
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
    match client.tabs() {
        Ok(tabs) => ok(format!("{head}{}", tab_list(&tabs))),
        Err(e) => failed(format!("{head}{e}")),
    }
}

fn pending_text(snapshot: &Snapshot) -> String {
    if snapshot.pending_dialogs.is_empty() {
        return "\nPending dialogs: none.".into();
    }
    let mut out = String::from(
        "\nPending dialogs (the page's scripts wait until they are answered; use browser_handle_dialog):",
    );
    for d in &snapshot.pending_dialogs {
        // With several tabs, which one waits (an index as browser_tabs lists it).
        let tab = d
            .tab_id
            .as_deref()
            .filter(|_| snapshot.tabs.len() > 1)
            .and_then(|t| snapshot.tabs.iter().position(|x| x.tab_id == t))
            .map(|i| format!(" of tab {i}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n- {} {} {:?} in frame {}{tab}{}",
            d.id,
            d.kind,
            d.message,
            d.frame_id,
            if d.default_prompt.is_empty() {
                String::new()
            } else {
                format!(" (default answer {:?})", d.default_prompt)
            }
        ));
    }
    out
}

/// A tool's outcome before the dialog report is added.
struct Outcome {
    text: String,
    image: Option<(String, String)>,
    is_error: bool,
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

fn run_tool(session: &mut Session<'_>, call: ToolCall) -> Outcome {
    if let ToolCall::Close = call {
        return ok(session
            .close()
            .unwrap_or_else(|| "No browser was open.".into()));
    }
    let client = match session.client() {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    match call {
        ToolCall::HandleDialog {
            accept,
            prompt_text,
            dialog_id,
        } => {
            let action = if accept {
                DialogAction::Accept
            } else {
                DialogAction::Dismiss
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
        ToolCall::Screenshot => screenshot(client),
        ToolCall::ConsoleMessages => {
            let snapshot = match client.snapshot() {
                Ok(s) => s,
                Err(e) => return failed(e.to_string()),
            };
            let since = session.console_seen_until;
            let mut text = String::new();
            let mut until = since;
            for e in snapshot.console_errors.iter().filter(|e| e.at > since) {
                until = until.max(e.at);
                text.push_str(&format!(
                    "[{}] {} (frame {})\n",
                    serde_json::to_value(e.level)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    e.text,
                    e.frame_id.as_deref().unwrap_or("?")
                ));
            }
            session.console_seen_until = until;
            if text.is_empty() {
                ok("No console errors since the last call.")
            } else {
                ok(format!("Console errors since the last call:\n{text}"))
            }
        }
        ToolCall::Tabs(action) => tabs_tool(client, action),
        other => agent_tool(client, other),
    }
}

/// The tools built on the core's agent flows (navigate, snapshot, click, type, press,
/// scroll, evaluate).
fn agent_tool(client: &Client, call: ToolCall) -> Outcome {
    match call {
        ToolCall::Navigate {
            url,
            timeout_ms,
            wait,
        } => act(
            client,
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
            act(client, action, budget(timeout_ms, wait))
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
            let typed = act(
                client,
                json!({"action": "type", "text": text, "ref": reference}),
                typed_options,
            );
            if !submit || typed.is_error {
                return typed;
            }
            let pressed = act(
                client,
                json!({"action": "press", "key": "Enter"}),
                budget(timeout_ms, wait),
            );
            Outcome {
                text: format!("{}\n\nThen Enter:\n{}", typed.text, pressed.text),
                ..pressed
            }
        }
        ToolCall::PressKey {
            key,
            timeout_ms,
            wait,
        } => act(
            client,
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
            act(client, action, budget(timeout_ms, wait))
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
            match client.ax_snapshot(options) {
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
            }
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
            match client.evaluate(evaluation) {
                Ok(v) if v.undefined => ok("undefined"),
                Ok(v) => ok(serde_json::to_string_pretty(&v.value).unwrap_or_default()),
                Err(e) => failed(format!("{e}")),
            }
        }
        other => failed(format!("{other:?} is not an agent tool")),
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

/// Runs one action of the core and says what happened, with its screenshot.
fn act(client: &Client, action: Value, options: Value) -> Outcome {
    let parsed =
        Action::from_json(&action).and_then(|a| ActOptions::from_json(&options).map(|o| (a, o)));
    let (action, options) = match parsed {
        Ok(p) => p,
        Err(e) => return failed(e.to_string()),
    };
    let name = action.name();
    let result = match client.act(action, options) {
        Ok(r) => r,
        Err(e) => return failed(format!("{name} failed: {e}")),
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
    if let Some(first) = result.opened_tabs.first() {
        // The agent must learn in this turn that its next tools act on another tab.
        let tabs = client.tabs().unwrap_or_default();
        let tab_name = |id: &String| name_of(&tabs, id).unwrap_or_else(|| id.clone());
        let opened: Vec<String> = result.opened_tabs.iter().map(tab_name).collect();
        text.push_str(&format!(
            "\nThe {name} opened a new tab: {}. Tab {} is the current tab now: the next tools act on it (browser_tabs selects another).",
            opened.join(", "),
            tab_name(first)
        ));
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
    Outcome {
        text,
        image: result.screenshot.map(|s| (s.mime, s.data)),
        is_error: false,
    }
}

fn screenshot(client: &Client) -> Outcome {
    if let Ok(s) = client.snapshot() {
        // Only a dialog of the current tab keeps it from painting.
        let current = s.tabs.iter().find(|t| t.current).map(|t| t.tab_id.as_str());
        let here = |d: &&cdp_supervisor::PendingDialog| {
            d.tab_id.is_none() || current.is_none() || d.tab_id.as_deref() == current
        };
        if s.pending_dialogs.iter().any(|d| here(&d)) {
            return failed("A dialog is pending, and a tab with a dialog cannot paint: answer it with browser_handle_dialog first.");
        }
    }
    for format in ["webp", "png"] {
        if let Ok(result) = client.command(
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
                    is_error: false,
                };
            }
        }
    }
    failed("Chromium gave no screenshot (webp nor png); the tab may be closing, try again")
}

fn handle(session: &mut Session<'_>, id: Value, method: &str, params: Value) -> String {
    match method {
        "initialize" => response(&id, initialize_result(&params)),
        "ping" => response(&id, json!({})),
        "tools/list" => response(&id, json!({ "tools": tools() })),
        "tools/call" => match parse_tool_call(&params) {
            Ok(call) => {
                let outcome = run_tool(session, call);
                let text = format!(
                    "{}{}{}",
                    outcome.text,
                    session.dialog_report(),
                    session.tab_report()
                );
                let image = outcome
                    .image
                    .as_ref()
                    .map(|(m, d)| (m.as_str(), d.as_str()));
                response(&id, tool_result(text, image, outcome.is_error))
            }
            Err(CallError::UnknownTool(name)) => error_response(&RpcError {
                id,
                code: code::INVALID_PARAMS,
                message: format!("unknown tool {name:?}: tools/list names the tools"),
            }),
            Err(CallError::BadArgument(message)) => {
                let text = format!(
                    "{message}{}{}",
                    session.dialog_report(),
                    session.tab_report()
                );
                response(&id, tool_result(text, None, true))
            }
        },
        other => error_response(&RpcError {
            id,
            code: code::METHOD_NOT_FOUND,
            message: format!(
                "method {other:?} is not supported: this server speaks the initialize handshake (protocol versions {})",
                cdp_supervise::mcp::PROTOCOL_VERSIONS.join(", ")
            ),
        }),
    }
}

/// Reads one line of at most [`MAX_LINE_BYTES`]; a longer one is consumed and reported.
enum Line {
    Text(String),
    TooLong,
    NotUtf8,
    End,
}

fn read_line(input: &mut impl BufRead) -> Line {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Line::End,
        };
        if chunk.is_empty() {
            if buf.is_empty() && !too_long {
                return Line::End;
            }
            break;
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > MAX_LINE_BYTES {
                too_long = true;
                buf = Vec::new();
            } else {
                // `take` is at most `chunk.len()`: a position in it plus one, or its length.
                buf.extend_from_slice(chunk.get(..take).unwrap_or(chunk));
            }
        }
        input.consume(take);
        if done {
            break;
        }
    }
    if too_long {
        return Line::TooLong;
    }
    match String::from_utf8(buf) {
        Ok(s) => Line::Text(s),
        Err(_) => Line::NotUtf8,
    }
}

/// What the server loop waits for: a line of input, its end, or a signal to stop.
enum Input {
    Line(Line),
    Signal(&'static str),
}

/// Reads stdin on a thread of its own, so that the loop can also hear a signal. The
/// channel holds a few lines: the reader waits while calls run, as it did inline.
fn read_input(tx: mpsc::SyncSender<Input>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        let line = read_line(&mut input);
        let end = matches!(line, Line::End);
        if tx.send(Input::Line(line)).is_err() || end {
            return;
        }
    }
}

/// SIGTERM, SIGINT and SIGHUP end the loop like the end of input, so that a launched
/// browser (or one still starting) is closed: an MCP client that stops a server which does
/// not exit at once sends SIGTERM (the official SDKs, after 2 s), and the browser, in its
/// own process group, would outlive it.
fn watch_signals(tx: mpsc::SyncSender<Input>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cdp-supervise: warning: cannot watch for SIGTERM ({e}); a browser may outlive a killed server");
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("cdp-supervise-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let name = match sig {
                    SIGTERM => "SIGTERM",
                    SIGINT => "SIGINT",
                    _ => "SIGHUP",
                };
                let _ = tx.send(Input::Signal(name));
            }
        });
    if let Err(e) = spawned {
        eprintln!("cdp-supervise: warning: cannot watch for SIGTERM ({e})");
    }
}

/// Runs the server until end of input (or a signal to stop).
pub fn serve(args: Args) -> Result<(), Failure> {
    let mut session = Session::new(&args);
    let (tx, rx) = mpsc::sync_channel(4);
    watch_signals(tx.clone());
    if args.lazy {
        eprintln!("cdp-supervise: MCP server on stdio; the browser starts on the first tool call");
    } else {
        session.start_early();
        let what = match (&args.cdp, &args.remote.grid) {
            (None, None) => "the browser is starting",
            _ => "connecting to the browser",
        };
        eprintln!("cdp-supervise: MCP server on stdio; {what}");
    }
    std::thread::Builder::new()
        .name("cdp-supervise-stdin".into())
        .spawn(move || read_input(tx))
        .map_err(|e| crate::args::runtime(format!("cannot start the stdin reader: {e}")))?;
    let mut why = "end of input";
    loop {
        let line = match rx.recv() {
            Ok(Input::Line(Line::Text(t))) => t,
            Ok(Input::Line(Line::End)) | Err(_) => break,
            Ok(Input::Signal(name)) => {
                why = name;
                break;
            }
            Ok(Input::Line(Line::TooLong)) => {
                send(&error_response(&RpcError {
                    id: Value::Null,
                    code: code::INVALID_REQUEST,
                    message: format!("a message longer than {MAX_LINE_BYTES} bytes was skipped"),
                }));
                continue;
            }
            Ok(Input::Line(Line::NotUtf8)) => {
                send(&error_response(&RpcError {
                    id: Value::Null,
                    code: code::PARSE_ERROR,
                    message: "a message that is not UTF-8 was skipped".into(),
                }));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse_message(line.trim_end()) {
            Ok(Incoming::Request { id, method, params }) => {
                let answer = handle(&mut session, id, &method, params);
                send(&answer);
            }
            Ok(Incoming::Notification { .. }) | Ok(Incoming::Response) => {}
            Err(e) => send(&error_response(&e)),
        }
    }
    if let Some(note) = session.close() {
        eprintln!("cdp-supervise: {why}: {note}");
    }
    Ok(())
}
