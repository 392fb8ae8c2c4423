//! The Model Context Protocol face of `cdp-supervise mcp`: the pure half.
//!
//! JSON-RPC 2.0 over stdio, one message a line. This module reads a line into an
//! [`Incoming`] message, negotiates the protocol version, lists the tools with their JSON
//! Schemas ([`tools`]) and reads a `tools/call` into a typed [`ToolCall`] whose arguments are
//! checked before anything reaches the browser. The server loop (the binary's `mcp` module)
//! runs the calls on a supervised tab.
//!
//! Why not the official `rmcp` crate: it needs tokio, and this server's transport is the
//! blocking client on two threads. What MCP asks of a stdio tool server is this small
//! request/response surface, which the official Python SDK exercises in the tests.

use cdp_supervisor::act::Wait;
use serde_json::{json, Map, Value};

/// Protocol versions this server speaks through the `initialize` handshake, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes used here.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// A method this server does not have (a newer client's `server/discover` probe, say):
    /// the client falls back to `initialize`.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params of a known method (an unknown tool, say).
    pub const INVALID_PARAMS: i64 = -32602;
}

/// One message read from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: answer it with the same `id`.
    Request {
        /// The request's id (a number or a string).
        id: Value,
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification (no `id`): never answered.
    Notification {
        /// The method.
        method: String,
    },
    /// A response to something this server asked (it asks nothing): ignored.
    Response,
}

/// A JSON-RPC error to send back.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The id it answers (`null` when none could be read).
    pub id: Value,
    /// The JSON-RPC code.
    pub code: i64,
    /// What went wrong and what to do.
    pub message: String,
}

/// Reads one line.
///
/// ```
/// use cdp_supervise::mcp::{parse_message, Incoming};
/// let m = parse_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)?;
/// assert!(matches!(m, Incoming::Request { ref method, .. } if method == "tools/list"));
/// assert_eq!(parse_message("nope").unwrap_err().code, -32700);
/// # Ok::<(), cdp_supervise::mcp::RpcError>(())
/// ```
pub fn parse_message(line: &str) -> Result<Incoming, RpcError> {
    let value: Value = serde_json::from_str(line).map_err(|e| RpcError {
        id: Value::Null,
        code: code::PARSE_ERROR,
        message: format!("not JSON: {e}"),
    })?;
    let Some(obj) = value.as_object() else {
        return Err(invalid(Value::Null, "a message is a JSON object"));
    };
    let id = obj.get("id").cloned();
    let valid_id = matches!(id, Some(Value::Number(_)) | Some(Value::String(_)));
    match obj.get("method") {
        Some(Value::String(method)) => match id {
            None => Ok(Incoming::Notification {
                method: method.clone(),
            }),
            Some(id) if valid_id => Ok(Incoming::Request {
                id,
                method: method.clone(),
                params: obj.get("params").cloned().unwrap_or(Value::Null),
            }),
            Some(_) => Err(invalid(
                Value::Null,
                "a request's id is a number or a string",
            )),
        },
        Some(_) => Err(invalid(
            id.filter(|_| valid_id).unwrap_or(Value::Null),
            "method must be a string",
        )),
        None if obj.contains_key("result") || obj.contains_key("error") => Ok(Incoming::Response),
        None => Err(invalid(
            id.filter(|_| valid_id).unwrap_or(Value::Null),
            "a request needs a method",
        )),
    }
}

fn invalid(id: Value, message: &str) -> RpcError {
    RpcError {
        id,
        code: code::INVALID_REQUEST,
        message: message.into(),
    }
}

/// The version to answer `initialize` with: the client's when this server speaks it, else
/// the newest this server speaks (the client then decides).
///
/// ```
/// use cdp_supervise::mcp::negotiate;
/// assert_eq!(negotiate(Some("2025-06-18")), "2025-06-18");
/// assert_eq!(negotiate(Some("2099-01-01")), "2025-11-25");
/// ```
pub fn negotiate(requested: Option<&str>) -> &'static str {
    PROTOCOL_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(PROTOCOL_VERSIONS[0])
}

/// The `initialize` result.
pub fn initialize_result(params: &Value) -> Value {
    let version = negotiate(params.get("protocolVersion").and_then(Value::as_str));
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "cdp-supervise", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "A supervised Chromium tab: it never hangs on a JavaScript dialog and sees into cross-origin iframes. Take browser_snapshot for refs, act with browser_click / browser_type / browser_press_key / browser_scroll, answer dialogs with browser_handle_dialog. Every result names the pending dialogs."
    })
}

/// A JSON-RPC result line.
pub fn response(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// A JSON-RPC error line.
pub fn error_response(error: &RpcError) -> String {
    json!({"jsonrpc": "2.0", "id": error.id, "error": {"code": error.code, "message": error.message}})
        .to_string()
}

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": true})
}

const WAIT_DOC: &str = "What to wait for before answering. \"quiet\" (the default): when the action navigates, the new page's load, then its network almost idle and 500 ms without a console message, counted together from the load; otherwise 500 ms without a console message. \"load\": the load only, or nothing when the action does not navigate (faster; the page may still be changing).";

const REF_DOC: &str =
    "The element's ref from browser_snapshot, such as e5 (also accepted as `target`).";

/// The tools, as `tools/list` answers them. Names and argument names follow Playwright MCP
/// so that prompts carry over.
pub fn tools() -> Value {
    let mut tools = tools_of_one_tab();
    if let Some(list) = tools.as_array_mut() {
        list.push(crate::mcp_tabs::tool());
    }
    tools
}

fn tools_of_one_tab() -> Value {
    let ref_prop = json!({"type": "string", "description": REF_DOC});
    let target_prop = json!({"type": "string", "description": "Playwright MCP's name for `ref`."});
    let element = json!({"type": "string", "description": "A human-readable description of the element, for the log (optional)."});
    let timeout = json!({"type": "integer", "minimum": 1, "maximum": 600000, "description": "The budget in milliseconds; the call answers within it."});
    let wait = json!({"type": "string", "enum": ["quiet", "load"], "description": WAIT_DOC});
    json!([
        {"name": "browser_navigate", "description": "Navigate the tab to a URL, wait for it to load and settle, and answer with a screenshot and the console.",
         "inputSchema": schema(json!({"url": {"type": "string", "description": "The URL to open (http, https, file, data, about)."}, "timeout_ms": timeout, "wait": wait}), &["url"])},
        {"name": "browser_snapshot", "description": "An accessibility outline of the whole tab, cross-origin iframes included, with a ref for every element an agent can act on.",
         "inputSchema": schema(json!({"max_nodes": {"type": "integer", "minimum": 1, "description": "Lines of outline at most (default 2000)."}, "max_chars": {"type": "integer", "minimum": 1, "description": "Characters of outline at most."}, "frame_id": {"type": "string", "description": "Only this frame (and the frames inside it)."}, "ref": ref_prop, "target": target_prop}), &[])},
        {"name": "browser_click", "description": "Click an element by ref (or a point in CSS pixels of the top page), then answer with a screenshot and the console.",
         "inputSchema": schema(json!({"ref": ref_prop, "target": target_prop, "element": element, "x": {"type": "number", "description": "X in CSS pixels (with y, instead of ref)."}, "y": {"type": "number", "description": "Y in CSS pixels (with x, instead of ref)."}, "timeout_ms": timeout, "wait": wait}), &[])},
        {"name": "browser_type", "description": "Type text into the focused element, or into the element `ref` after focusing it; `submit` presses Enter after.",
         "inputSchema": schema(json!({"text": {"type": "string", "description": "The text to type."}, "ref": ref_prop, "target": target_prop, "element": element, "submit": {"type": "boolean", "description": "Press Enter after typing."}, "timeout_ms": timeout, "wait": wait}), &["text"])},
        {"name": "browser_press_key", "description": "Press a key, such as Enter, Tab, Escape, ArrowDown, Backspace, or a combination such as Control+a.",
         "inputSchema": schema(json!({"key": {"type": "string", "description": "The key name, with Shift+, Control+, Alt+ or Meta+ before it when needed."}, "timeout_ms": timeout, "wait": wait}), &["key"])},
        {"name": "browser_scroll", "description": "Scroll the page one viewport up or down, or bring the element `ref` into view.",
         "inputSchema": schema(json!({"direction": {"type": "string", "enum": ["up", "down"], "description": "One viewport up or down."}, "ref": ref_prop, "target": target_prop, "timeout_ms": timeout, "wait": wait}), &[])},
        {"name": "browser_take_screenshot", "description": "A screenshot of the tab as it is now.",
         "inputSchema": schema(json!({}), &[])},
        {"name": "browser_evaluate", "description": "Evaluate JavaScript in the top frame or any frame (OOPIFs included) under one time budget: a script that never ends is terminated and the tab stays usable. `function` is called (with the element when `ref` is given); `expression` is a script whose value is the answer (a function value is called too).",
         "inputSchema": schema(json!({"function": {"type": "string", "description": "A function's source, called: () => document.title, async () => { ... }, or (element) => element.textContent when a ref is given."}, "expression": {"type": "string", "description": "Instead of `function`: a script, e.g. document.title; its last value is the answer (a function value is called)."}, "ref": ref_prop, "target": target_prop, "element": element, "frame_id": {"type": "string", "description": "The frame to run in (a frame id from the snapshot's refs); the top frame by default."}, "timeout_ms": timeout}), &[])},
        {"name": "browser_handle_dialog", "description": "Accept or dismiss a pending JavaScript dialog (alert, confirm, prompt, beforeunload).",
         "inputSchema": schema(json!({"accept": {"type": "boolean", "description": "true to accept (OK), false to dismiss (Cancel)."}, "prompt_text": {"type": "string", "description": "The text to answer a prompt with (also accepted as `promptText`)."}, "promptText": {"type": "string", "description": "Playwright MCP's name for `prompt_text`."}, "dialog_id": {"type": "string", "description": "Which dialog (d-1, ...); needed only when several are pending."}}), &["accept"])},
        {"name": "browser_console_messages", "description": "The console lines and errors of every frame since the last call.",
         "inputSchema": schema(json!({}), &[])},
        {"name": "browser_close", "description": "Answer pending dialogs, detach, and close the browser this server launched (the next call launches a fresh one).",
         "inputSchema": schema(json!({}), &[])}
    ])
}

/// Where an action points.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A ref of the last snapshot.
    Ref(String),
    /// A point in CSS pixels of the top page.
    Point {
        /// X.
        x: f64,
        /// Y.
        y: f64,
    },
}

/// A `tools/call`, its arguments checked.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// `browser_navigate`.
    Navigate {
        /// Where.
        url: String,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_snapshot`.
    Snapshot {
        /// Lines at most.
        max_nodes: Option<u64>,
        /// Characters at most.
        max_chars: Option<u64>,
        /// One frame only.
        frame_id: Option<String>,
        /// One element's subtree only.
        reference: Option<String>,
    },
    /// `browser_click`.
    Click {
        /// What to click.
        target: Target,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_type`.
    Type {
        /// The text.
        text: String,
        /// The element to focus first.
        reference: Option<String>,
        /// Press Enter after.
        submit: bool,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_press_key`.
    PressKey {
        /// The key.
        key: String,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_scroll`.
    Scroll {
        /// `Some(true)` down, `Some(false)` up; `None` with a ref.
        down: Option<bool>,
        /// The element to bring into view.
        reference: Option<String>,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_take_screenshot`.
    Screenshot,
    /// `browser_evaluate`.
    Evaluate {
        /// The expression, or the function's source.
        expression: String,
        /// `expression` is a function's source, to be called (Playwright's `function`).
        function: bool,
        /// The element to call it with.
        reference: Option<String>,
        /// The frame.
        frame_id: Option<String>,
        /// The budget.
        timeout_ms: Option<u64>,
    },
    /// `browser_handle_dialog`.
    HandleDialog {
        /// Accept or dismiss.
        accept: bool,
        /// A prompt's text.
        prompt_text: Option<String>,
        /// Which dialog.
        dialog_id: Option<String>,
    },
    /// `browser_console_messages`.
    ConsoleMessages,
    /// `browser_close`.
    Close,
    /// `browser_tabs` (see [`crate::mcp_tabs`]).
    Tabs(crate::mcp_tabs::TabsAction),
}

/// Why a `tools/call` was refused before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No such tool: a JSON-RPC error (the client asked for something that does not exist).
    UnknownTool(String),
    /// A missing or invalid argument: a tool result with `isError`, naming it.
    BadArgument(String),
}

struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    fn string(&self, names: &[&str]) -> Result<Option<String>, CallError> {
        for name in names {
            match self.0.get(*name) {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => return Ok(Some(s.clone())),
                Some(_) => {
                    return Err(CallError::BadArgument(format!("`{name}` must be a string")))
                }
            }
        }
        Ok(None)
    }

    fn required(&self, names: &[&str], what: &str) -> Result<String, CallError> {
        self.string(names)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| CallError::BadArgument(format!("`{}` is required: {what}", names[0])))
    }

    fn number(&self, name: &str) -> Result<Option<f64>, CallError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| CallError::BadArgument(format!("`{name}` must be a finite number"))),
            Some(_) => Err(CallError::BadArgument(format!("`{name}` must be a number"))),
        }
    }

    fn count(&self, name: &str, max: u64) -> Result<Option<u64>, CallError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=max).contains(n))
                .map(Some)
                .ok_or_else(|| {
                    CallError::BadArgument(format!(
                        "`{name}` must be a whole number from 1 to {max}"
                    ))
                }),
        }
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, CallError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(CallError::BadArgument(format!(
                "`{name}` must be true or false"
            ))),
        }
    }

    fn timeout(&self) -> Result<Option<u64>, CallError> {
        self.count("timeout_ms", 600_000)
    }

    fn wait(&self) -> Result<Option<Wait>, CallError> {
        self.string(&["wait"])?
            .map(|w| {
                w.parse().map_err(|_| {
                    CallError::BadArgument(format!(
                        "`wait` must be \"quiet\" or \"load\", not {w:?}"
                    ))
                })
            })
            .transpose()
    }

    fn reference(&self) -> Result<Option<String>, CallError> {
        self.string(&["ref", "target"])
    }
}

/// Reads the params of a `tools/call`.
///
/// ```
/// use cdp_supervise::mcp::{parse_tool_call, CallError, Target, ToolCall};
/// use serde_json::json;
/// use cdp_supervisor::act::Wait;
/// let call = parse_tool_call(&json!({"name": "browser_click", "arguments": {"target": "e5", "wait": "load"}}))?;
/// assert_eq!(call, ToolCall::Click { target: Target::Ref("e5".into()), timeout_ms: None, wait: Some(Wait::Load) });
/// let err = parse_tool_call(&json!({"name": "browser_click", "arguments": {}})).unwrap_err();
/// assert!(matches!(err, CallError::BadArgument(m) if m.contains("ref")));
/// # Ok::<(), CallError>(())
/// ```
pub fn parse_tool_call(params: &Value) -> Result<ToolCall, CallError> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(CallError::BadArgument(
                "`arguments` must be an object".into(),
            ))
        }
    };
    let a = Args(args);
    Ok(match name {
        "browser_navigate" => ToolCall::Navigate {
            url: a.required(&["url"], "the URL to open")?,
            timeout_ms: a.timeout()?,
            wait: a.wait()?,
        },
        "browser_snapshot" => ToolCall::Snapshot {
            max_nodes: a.count("max_nodes", 100_000)?,
            max_chars: a.count("max_chars", 100_000_000)?,
            frame_id: a.string(&["frame_id"])?,
            reference: a.reference()?,
        },
        "browser_click" => {
            let target = match (a.reference()?, a.number("x")?, a.number("y")?) {
                (Some(r), _, _) => Target::Ref(r),
                (None, Some(x), Some(y)) => Target::Point { x, y },
                (None, Some(_), None) => return Err(CallError::BadArgument("`y` is required with `x`".into())),
                (None, None, Some(_)) => return Err(CallError::BadArgument("`x` is required with `y`".into())),
                (None, None, None) => {
                    return Err(CallError::BadArgument(
                        "`ref` (or `x` and `y`) is required: take browser_snapshot and pass the element's ref".into(),
                    ))
                }
            };
            ToolCall::Click {
                target,
                timeout_ms: a.timeout()?,
                wait: a.wait()?,
            }
        }
        "browser_type" => ToolCall::Type {
            text: match a.string(&["text"])? {
                Some(t) => t,
                None => {
                    return Err(CallError::BadArgument(
                        "`text` is required: the text to type".into(),
                    ))
                }
            },
            reference: a.reference()?,
            submit: a.flag("submit")?.unwrap_or(false),
            timeout_ms: a.timeout()?,
            wait: a.wait()?,
        },
        "browser_press_key" => ToolCall::PressKey {
            key: a.required(&["key"], "a key such as Enter, Tab or ArrowDown")?,
            timeout_ms: a.timeout()?,
            wait: a.wait()?,
        },
        "browser_scroll" => {
            let reference = a.reference()?;
            let down = match a.string(&["direction"])?.as_deref() {
                Some("down") => Some(true),
                Some("up") => Some(false),
                Some(other) => {
                    return Err(CallError::BadArgument(format!(
                        "`direction` must be up or down, not {other:?}"
                    )))
                }
                None if reference.is_some() => None,
                None => {
                    return Err(CallError::BadArgument(
                        "`direction` (up or down) or `ref` is required".into(),
                    ))
                }
            };
            ToolCall::Scroll {
                down,
                reference,
                timeout_ms: a.timeout()?,
                wait: a.wait()?,
            }
        }
        "browser_take_screenshot" => ToolCall::Screenshot,
        "browser_evaluate" => {
            let expression = a.string(&["expression"])?.filter(|s| !s.is_empty());
            let function = a.string(&["function"])?.filter(|s| !s.is_empty());
            let (expression, function) = match (expression, function) {
                (Some(_), Some(_)) => {
                    return Err(CallError::BadArgument(
                        "give `function` or `expression`, not both".into(),
                    ))
                }
                (Some(e), None) => (e, false),
                (None, Some(f)) => (f, true),
                (None, None) => {
                    return Err(CallError::BadArgument(
                        "`function` is required: the JavaScript to run, e.g. () => document.title (or `expression`: a script)".into(),
                    ))
                }
            };
            ToolCall::Evaluate {
                expression,
                function,
                reference: a.reference()?,
                frame_id: a.string(&["frame_id"])?,
                timeout_ms: a.timeout()?,
            }
        }
        "browser_handle_dialog" => ToolCall::HandleDialog {
            accept: a.flag("accept")?.ok_or_else(|| {
                CallError::BadArgument(
                    "`accept` is required: true to accept, false to dismiss".into(),
                )
            })?,
            prompt_text: a.string(&["prompt_text", "promptText"])?,
            dialog_id: a.string(&["dialog_id"])?,
        },
        "browser_console_messages" => ToolCall::ConsoleMessages,
        "browser_close" => ToolCall::Close,
        "browser_tabs" => ToolCall::Tabs(crate::mcp_tabs::parse_tabs(args)?),
        other => return Err(CallError::UnknownTool(other.to_owned())),
    })
}

/// A tool result: text, an optional image, and whether it is an error.
///
/// ```
/// use cdp_supervise::mcp::tool_result;
/// let r = tool_result("done".into(), Some(("image/webp", "AAAA")), false);
/// assert_eq!(r["content"][1]["type"], "image");
/// assert_eq!(r["isError"], false);
/// ```
pub fn tool_result(text: String, image: Option<(&str, &str)>, is_error: bool) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    if let Some((mime, data)) = image {
        content.push(json!({"type": "image", "mimeType": mime, "data": data}));
    }
    json!({"content": content, "isError": is_error})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_tool_parses_with_its_required_arguments_and_names_what_is_missing() {
        let tools = tools();
        for tool in tools.as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            let schema = &tool["inputSchema"];
            for (arg, prop) in schema["properties"].as_object().unwrap() {
                assert!(
                    prop["description"].is_string(),
                    "{name}.{arg} has a description"
                );
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            if let Some(first) = required.first() {
                let err = parse_tool_call(&json!({"name": name, "arguments": {}})).unwrap_err();
                assert!(
                    matches!(&err, CallError::BadArgument(m) if m.contains(first)),
                    "{name}: {err:?}"
                );
            }
        }
        assert_eq!(
            parse_tool_call(&json!({"name": "browser_fly"})),
            Err(CallError::UnknownTool("browser_fly".into()))
        );
    }

    #[test]
    fn playwright_argument_names_are_accepted() {
        let call = parse_tool_call(&json!({"name": "browser_evaluate",
            "arguments": {"function": "(el) => el.textContent", "target": "e3"}}))
        .unwrap();
        assert_eq!(
            call,
            ToolCall::Evaluate {
                expression: "(el) => el.textContent".into(),
                function: true,
                reference: Some("e3".into()),
                frame_id: None,
                timeout_ms: None
            }
        );
        let call = parse_tool_call(&json!({"name": "browser_handle_dialog",
            "arguments": {"accept": true, "promptText": "hi"}}))
        .unwrap();
        assert!(
            matches!(call, ToolCall::HandleDialog { prompt_text: Some(ref t), .. } if t == "hi")
        );
    }

    #[test]
    fn hostile_arguments_are_refused_not_obeyed() {
        for args in [
            json!({"x": 1e308, "y": "a"}),
            json!({"x": "1", "y": 2}),
            json!({"ref": 5}),
            json!({"ref": null, "x": 1}),
        ] {
            assert!(
                matches!(
                    parse_tool_call(&json!({"name": "browser_click", "arguments": args})),
                    Err(CallError::BadArgument(_))
                ),
                "{args}"
            );
        }
        for t in [
            json!(0),
            json!(-1),
            json!(1e300),
            json!("5"),
            json!(600_001),
        ] {
            let call = json!({"name": "browser_navigate", "arguments": {"url": "about:blank", "timeout_ms": t}});
            assert!(
                matches!(parse_tool_call(&call), Err(CallError::BadArgument(_))),
                "{t}"
            );
        }
        for w in [json!("soon"), json!(true), json!("Load")] {
            let call =
                json!({"name": "browser_navigate", "arguments": {"url": "about:blank", "wait": w}});
            assert!(
                matches!(parse_tool_call(&call), Err(CallError::BadArgument(m)) if m.contains("wait")),
                "{w}"
            );
        }
        assert!(parse_message("[]").is_err());
        assert!(parse_message(r#"{"id":{},"method":"x"}"#).is_err());
        assert_eq!(
            parse_message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification {
                method: "notifications/initialized".into()
            })
        );
    }
}
