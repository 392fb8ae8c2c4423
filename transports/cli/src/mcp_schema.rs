//! The tools' input schemas, written as Rust types and turned into JSON Schema by the
//! official MCP SDK's schema support (`rmcp` over `schemars`, draft 2020-12): a field's
//! doc comment is its description, so an argument cannot be listed undescribed.
//!
//! The types describe what a client may send; the arguments themselves are read by
//! [`crate::mcp::parse_tool_call`], which accepts Playwright MCP's aliases and answers a bad
//! argument with a tool result naming it (the SDK's typed parameters would answer with a
//! protocol error the model never reads).

use std::sync::Arc;

use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;

const WAIT_DOC: &str = "What to wait for before answering. \"quiet\" (the default): when the action navigates, the new page's load, then its network almost idle and 500 ms without a console message, counted together from the load; otherwise 500 ms without a console message. \"load\": the load only, or nothing when the action does not navigate (faster; the page may still be changing).";

const REF_DOC: &str =
    "The element's ref from browser_snapshot, such as e5 (also accepted as `target`).";

const TARGET_DOC: &str = "Playwright MCP's name for `ref`.";

const ELEMENT_DOC: &str = "A human-readable description of the element, for the log (optional).";

const TIMEOUT_DOC: &str = "The budget in milliseconds; the call answers within it.";

/// What an action waits for.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "lowercase")]
#[allow(dead_code)] // A schema only: its values are read by the parser.
enum WaitFor {
    Quiet,
    Load,
}

/// Scrolling direction.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "lowercase")]
#[allow(dead_code)]
enum Direction {
    Up,
    Down,
}

/// `browser_tabs`'s operations.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "lowercase")]
#[allow(dead_code)]
enum TabsOp {
    List,
    New,
    Close,
    Select,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Navigate {
    /// The URL to open (http, https, file, data, about).
    url: String,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Snapshot {
    /// Lines of outline at most (default 2000).
    #[schemars(range(min = 1))]
    max_nodes: Option<u64>,
    /// Characters of outline at most.
    #[schemars(range(min = 1))]
    max_chars: Option<u64>,
    /// Only this frame (and the frames inside it).
    frame_id: Option<String>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Click {
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(description = ELEMENT_DOC)]
    element: Option<String>,
    /// X in CSS pixels (with y, instead of ref).
    x: Option<f64>,
    /// Y in CSS pixels (with x, instead of ref).
    y: Option<f64>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Type {
    /// The text to type.
    text: String,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(description = ELEMENT_DOC)]
    element: Option<String>,
    /// Press Enter after typing.
    submit: Option<bool>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct PressKey {
    /// The key name, with Shift+, Control+, Alt+ or Meta+ before it when needed.
    key: String,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Scroll {
    /// One viewport up or down.
    direction: Option<Direction>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct ConsoleMessages {
    /// Only this level and the more severe ones: error, warning, info or debug (default: every level).
    level: Option<String>,
}

/// No arguments (an empty `properties`: some clients want one).
#[derive(JsonSchema)]
#[schemars(extend("properties" = {}))]
struct NoArguments {}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Evaluate {
    /// A function's source, called: () => document.title, async () => { ... }, or (element) => element.textContent when a ref is given.
    function: Option<String>,
    /// Instead of `function`: a script, e.g. document.title; its last value is the answer (a function value is called).
    expression: Option<String>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(description = ELEMENT_DOC)]
    element: Option<String>,
    /// The frame to run in (a frame id from the snapshot's refs); the top frame by default.
    frame_id: Option<String>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct HandleDialog {
    /// true to accept (OK), false to dismiss (Cancel).
    accept: bool,
    /// The text to answer a prompt with (also accepted as `promptText`).
    prompt_text: Option<String>,
    /// Playwright MCP's name for `prompt_text`.
    #[schemars(rename = "promptText")]
    prompt_text_alias: Option<String>,
    /// Which dialog (d-1, ...); needed only when several are pending.
    dialog_id: Option<String>,
    /// A file chooser's files, absolute paths under an `--upload-root` of the server:
    /// accepts the chooser with them.
    files: Option<Vec<String>>,
    /// An HTTP sign-in's user name (with `password`; the server needs `--http-auth`).
    username: Option<String>,
    /// An HTTP sign-in's password (never printed).
    password: Option<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct FileUpload {
    /// The absolute paths of the files to upload (under an `--upload-root` of the server);
    /// omitted or empty: the file chooser is cancelled.
    paths: Option<Vec<String>>,
    /// Which file chooser (d-1, ...); needed only when several dialogs are pending.
    dialog_id: Option<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Tabs {
    /// Operation to perform.
    action: TabsOp,
    /// Tab index (0-based, as `list` shows it), used for close/select. If omitted for close, the current tab is closed.
    index: Option<u64>,
    /// For `new`: the URL the new tab opens (default about:blank).
    url: Option<String>,
}

fn tool(name: &'static str, description: &'static str, schema: Arc<JsonObject>) -> Tool {
    Tool::new(name, description, schema)
}

/// The tools, as `tools/list` answers them. Names and argument names follow Playwright MCP
/// so that prompts carry over.
///
/// ```
/// let tools = cdp_supervise::mcp_schema::tools();
/// let click = tools.iter().find(|t| t.name == "browser_click");
/// assert!(click.is_some_and(|c| c.input_schema["properties"]["target"]["description"].is_string()));
/// ```
pub fn tools() -> Vec<Tool> {
    let mut tools = vec![
        tool("browser_navigate", "Navigate the tab to a URL, wait for it to load and settle, and answer with a screenshot and the console.", schema_for_type::<Navigate>()),
        tool("browser_snapshot", "An accessibility outline of the whole tab, cross-origin iframes included, with a ref for every element an agent can act on.", schema_for_type::<Snapshot>()),
        tool("browser_click", "Click an element by ref (or a point in CSS pixels of the top page), then answer with a screenshot and the console.", schema_for_type::<Click>()),
        tool("browser_type", "Type text into the focused element, or into the element `ref` after focusing it; `submit` presses Enter after.", schema_for_type::<Type>()),
        tool("browser_press_key", "Press a key, such as Enter, Tab, Escape, ArrowDown, Backspace, or a combination such as Control+a.", schema_for_type::<PressKey>()),
        tool("browser_scroll", "Scroll the page one viewport up or down, or bring the element `ref` into view.", schema_for_type::<Scroll>()),
        tool("browser_take_screenshot", "A screenshot of the tab as it is now.", schema_for_type::<NoArguments>()),
        tool("browser_evaluate", "Evaluate JavaScript in the top frame or any frame (OOPIFs included) under one time budget: a script that never ends is terminated and the tab stays usable. `function` is called (with the element when `ref` is given); `expression` is a script whose value is the answer (a function value is called too).", schema_for_type::<Evaluate>()),
        tool("browser_handle_dialog", "Accept or dismiss a pending dialog: alert, confirm, prompt, beforeunload, a file chooser (accepted with `files`) or an HTTP sign-in.", schema_for_type::<HandleDialog>()),
        tool("browser_file_upload", "Answer a pending file chooser (a click on a file input opens one) with files, or cancel it.", schema_for_type::<FileUpload>()),
        tool("browser_console_messages", "The console lines of every frame of this session's tabs since the last call, written during actions or between them: every level by default, or `level` and the more severe ones (the rest stay for the next call).", schema_for_type::<ConsoleMessages>()),
        tool("browser_close", "Answer pending dialogs, detach, and close the browser this server launched (the next call launches a fresh one); with a browser context of its own, close that context and its tabs.", schema_for_type::<NoArguments>()),
        tool("browser_tabs", "List, create, close, or select a browser tab. Tabs opened by the page (a link with target=_blank, window.open) are supervised too, and the tab a click opens becomes the current tab; every other tool acts on the current tab.", schema_for_type::<Tabs>()),
    ];
    tools.extend(crate::mcp_toolbox::tools());
    tools.extend(crate::mcp_input::tools());
    tools.extend(crate::network::tools());
    tools
}
