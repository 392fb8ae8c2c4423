//! `cdp-supervise mcp`: the Model Context Protocol server, on the official Rust SDK
//! (`rmcp`): over stdio (one message a line on stdin, one answer a line on stdout, nothing
//! else on stdout; logs on stderr), or streamable HTTP with `--port` ([`crate::mcp_http`]).
//!
//! The SDK runs on tokio; the tools run on the blocking client, each call on tokio's
//! blocking pool (`spawn_blocking`), so that a call that waits on the browser holds no
//! async worker. The browser is launched (or `--cdp` connects) when the server starts
//! ([`crate::mcp_host`]), and closed at end of input, on SIGTERM, SIGINT and SIGHUP and on
//! every error path.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use cdp_supervise::mcp::{parse_tool_call, CallError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::args::{runtime, Args, Failure};
use crate::mcp_host::Host;
use crate::mcp_session::Session;

/// A stdin line longer than this is skipped without being kept in memory.
const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// The newest protocol revision served. The next one (2026-07-28) has no sessions, and a
/// session is what owns a browser context here: clients that speak it fall back to the
/// `initialize` handshake.
const NEWEST_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

const INSTRUCTIONS: &str = "A supervised Chromium tab: it never hangs on a JavaScript dialog and sees into cross-origin iframes. Take browser_snapshot for refs, act with browser_click / browser_type / browser_press_key / browser_scroll, answer dialogs with browser_handle_dialog. Every result names the pending dialogs.";

/// What HTTP sessions share: the browser, whether each session gets a context of its own,
/// and how many may run.
pub struct Sessions {
    /// The browser.
    pub host: Arc<Host>,
    /// Each session in a browser context of its own (not `--shared-context`).
    pub own_context: bool,
    /// The sessions running now.
    pub live: Arc<AtomicUsize>,
    /// At most this many at once (`--max-sessions`).
    pub max: usize,
    /// The sessions made, to close idle ones' contexts; a dropped one is forgotten at the
    /// next sweep (at most `max` live ones, so the list stays that short between sweeps
    /// plus the sessions ended since).
    pub made: std::sync::Mutex<Vec<std::sync::Weak<Session>>>,
}

impl Sessions {
    /// The live sessions, the ended ones forgotten.
    pub fn live_sessions(&self) -> Vec<Arc<Session>> {
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        made.retain(|s| s.strong_count() > 0);
        made.iter().filter_map(std::sync::Weak::upgrade).collect()
    }
}

/// The MCP handler of one session.
#[derive(Clone)]
pub struct McpServer {
    /// Stdio: the one session, made with the server. HTTP: made at `initialize`.
    session: Arc<OnceLock<Arc<Session>>>,
    /// HTTP: where a session comes from.
    sessions: Option<Arc<Sessions>>,
}

impl McpServer {
    /// The server of stdio's one session.
    pub fn stdio(host: Arc<Host>) -> McpServer {
        let session = OnceLock::new();
        // Over stdio the agent is the browser's user: the default context, its cookies
        // and logins (a `--cdp` browser a person is logged in to) shared.
        let _ = session.set(Arc::new(Session::new(host, false, None)));
        McpServer {
            session: Arc::new(session),
            sessions: None,
        }
    }

    /// A handler for a new HTTP session (the SDK makes one per session, and more to look
    /// things up: they hold nothing until `initialize`).
    pub fn http(sessions: Arc<Sessions>) -> McpServer {
        McpServer {
            session: Arc::new(OnceLock::new()),
            sessions: Some(sessions),
        }
    }

    /// The HTTP session's state, made once at its `initialize`; refused over the limit.
    fn open_session(&self) -> Result<(), ErrorData> {
        let Some(sessions) = &self.sessions else {
            return Ok(());
        };
        if self.session.get().is_some() {
            return Ok(());
        }
        let taken = sessions
            .live
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < sessions.max).then_some(n + 1)
            });
        if taken.is_err() {
            return Err(ErrorData::invalid_request(
                format!(
                    "this server already runs {} MCP sessions (--max-sessions {}): end one (close its client), or start the server with a higher --max-sessions",
                    sessions.max, sessions.max
                ),
                None,
            ));
        }
        let session = Session::new(
            sessions.host.clone(),
            sessions.own_context,
            Some(sessions.live.clone()),
        );
        let session = Arc::new(session);
        match self.session.set(session.clone()) {
            Ok(()) => sessions
                .made
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Arc::downgrade(&session)),
            // Two initializes raced: the second's count goes back with it.
            Err(extra) => drop(extra),
        }
        Ok(())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "cdp-supervise",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_protocol_version(NEWEST_PROTOCOL)
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_PROTOCOL))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.open_session()?;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            cdp_supervise::mcp_schema::tools(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let params = serde_json::json!({"name": request.name, "arguments": request.arguments});
        let call = match parse_tool_call(&params) {
            Ok(call) => Ok(call),
            Err(CallError::UnknownTool(name)) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {name:?}: tools/list names the tools"),
                    None,
                ))
            }
            Err(CallError::BadArgument(message)) => Err(message),
        };
        let Some(session) = self.session.get().cloned() else {
            return Err(ErrorData::invalid_request(
                "no session: send initialize first",
                None,
            ));
        };
        let outcome = tokio::task::spawn_blocking(move || session.call(call))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        let mut content = vec![ContentBlock::text(outcome.text)];
        if let Some((mime, data)) = outcome.image {
            content.push(ContentBlock::image(data, mime));
        }
        Ok(if outcome.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// SIGTERM, SIGINT or SIGHUP, named: the server stops as at end of input, so that a
/// launched browser (or one still starting) is closed. An MCP client that stops a server
/// which does not exit at once sends SIGTERM (the official SDKs, after 2 s), and the
/// browser, in its own process group, would outlive it.
pub async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{signal, Signal, SignalKind};
    fn watch(kind: SignalKind, name: &str) -> Option<Signal> {
        signal(kind)
            .inspect_err(|e| {
                eprintln!("cdp-supervise: warning: cannot watch for {name} ({e}); a browser may outlive a killed server")
            })
            .ok()
    }
    async fn next(signal: &mut Option<Signal>) {
        match signal {
            Some(s) => drop(s.recv().await),
            None => std::future::pending().await,
        }
    }
    let mut term = watch(SignalKind::terminate(), "SIGTERM");
    let mut int = watch(SignalKind::interrupt(), "SIGINT");
    let mut hup = watch(SignalKind::hangup(), "SIGHUP");
    tokio::select! {
        _ = next(&mut term) => "SIGTERM",
        _ = next(&mut int) => "SIGINT",
        _ = next(&mut hup) => "SIGHUP",
    }
}

/// Runs the server until end of input (or a signal to stop), over stdio or, with
/// `--port`, over streamable HTTP.
pub fn serve(args: Args) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("cdp-supervise-mcp")
        .build()
        .map_err(|e| runtime(format!("cannot start the async runtime: {e}")))?;
    let host = Host::new(args.clone());
    let result = if args.port.is_some() {
        runtime.block_on(crate::mcp_http::serve(host.clone()))
    } else {
        runtime.block_on(serve_stdio(host.clone()))
    };
    // A signal leaves stdin's reader blocked in a read on the blocking pool: not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Starts the browser unless `--lazy`, saying so on stderr.
pub fn announce(host: &Host, serving: &str) {
    if host.args().lazy {
        eprintln!(
            "cdp-supervise: MCP server on {serving}; the browser starts on the first tool call"
        );
    } else {
        host.start_early();
        let what = match host.args().cdp {
            Some(_) => "connecting to the browser",
            None => "the browser is starting",
        };
        eprintln!("cdp-supervise: MCP server on {serving}; {what}");
    }
}

async fn serve_stdio(host: Arc<Host>) -> Result<(), Failure> {
    announce(&host, "stdio");
    let (stdin, stdout) = rmcp::transport::io::stdio();
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(stdin, stdout)
        .with_max_line_length(MAX_LINE_BYTES);
    let server = McpServer::stdio(host.clone());
    let serving = async move {
        match server.serve(transport).await {
            Ok(running) => drop(running.waiting().await),
            // The input ended before the handshake completed, or was not MCP.
            Err(e) => eprintln!("cdp-supervise: the MCP handshake did not complete: {e}"),
        }
        "end of input"
    };
    // The signals are watched from the start, the handshake included.
    let why = tokio::select! {
        why = serving => why,
        name = stop_signal() => name,
    };
    let note = tokio::task::spawn_blocking(move || host.close())
        .await
        .ok()
        .flatten();
    if let Some(note) = note {
        eprintln!("cdp-supervise: {why}: {note}");
    }
    Ok(())
}
