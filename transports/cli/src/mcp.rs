//! The Model Context Protocol face of `cdp-supervise mcp`: the pure half.
//!
//! The protocol itself (JSON-RPC, the handshake, the transports) is the official Rust SDK's
//! (`rmcp`, in the binary's `mcp_server`); the tools' schemas are in [`crate::mcp_schema`].
//! This module reads a `tools/call` into a typed [`ToolCall`] whose arguments are checked
//! before anything reaches the browser, with Playwright MCP's argument names accepted too.

use cdp_supervisor::act::Wait;
use serde_json::{Map, Value};

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
        /// A file chooser's files (accepting it with them).
        files: Option<Vec<String>>,
        /// An HTTP sign-in's user name and password (accepting it with them; the password
        /// is never printed).
        credentials: Option<(String, cdp_supervisor::dialog::Password)>,
    },
    /// `browser_file_upload`: a pending file chooser answered with `paths` (none: dismissed).
    FileUpload {
        /// The files.
        paths: Vec<String>,
        /// Which chooser.
        dialog_id: Option<String>,
    },
    /// `browser_console_messages`.
    ConsoleMessages {
        /// Only this level and the more severe ones (`None`: every level).
        level: Option<crate::mcp_toolbox::ConsoleLevel>,
    },
    /// `browser_wait_for`, `browser_navigate_back` / `_forward`, `browser_resize`,
    /// `browser_find` (see [`crate::mcp_toolbox`]).
    Toolbox(crate::mcp_toolbox::ToolboxCall),
    /// `browser_close`.
    Close,
    /// `browser_tabs` (see [`crate::mcp_tabs`]).
    Tabs(crate::mcp_tabs::TabsAction),
    /// `browser_hover`, `browser_select_option`, `browser_fill_form`, `browser_drag` (see
    /// [`crate::mcp_input`]): the sidecar's `act` line, checked.
    Input {
        /// The action as the sidecar spells it.
        action: Value,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for (`None`: the default).
        wait: Option<Wait>,
    },
    /// `browser_network_requests` and `browser_network_request` (see [`crate::network`]).
    Network(crate::network::NetworkCall),
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

    /// An array of strings (at most 64, so a hostile call cannot make a huge request).
    fn strings(&self, name: &str) -> Result<Option<Vec<String>>, CallError> {
        let bad =
            || CallError::BadArgument(format!("`{name}` must be an array of at most 64 strings"));
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) if items.len() <= 64 => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or_else(bad))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(bad()),
        }
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
            files: a.strings("files")?,
            credentials: match (a.string(&["username"])?, a.string(&["password"])?) {
                (Some(u), Some(p)) => Some((u, cdp_supervisor::dialog::Password::new(p))),
                (None, None) => None,
                _ => {
                    return Err(CallError::BadArgument(
                        "`username` and `password` go together (an HTTP sign-in's answer)".into(),
                    ))
                }
            },
        },
        "browser_file_upload" => ToolCall::FileUpload {
            paths: a.strings("paths")?.unwrap_or_default(),
            dialog_id: a.string(&["dialog_id"])?,
        },
        "browser_console_messages" => ToolCall::ConsoleMessages {
            level: crate::mcp_toolbox::ConsoleLevel::from_args(args)?,
        },
        "browser_close" => ToolCall::Close,
        "browser_tabs" => ToolCall::Tabs(crate::mcp_tabs::parse_tabs(args)?),
        "browser_network_requests" | "browser_network_request" => {
            ToolCall::Network(crate::network::parse(name, args)?)
        }
        n if crate::mcp_input::NAMES.contains(&n) => crate::mcp_input::parse(n, args)?,
        other => match crate::mcp_toolbox::parse(other, args) {
            Some(call) => ToolCall::Toolbox(call?),
            None => return Err(CallError::UnknownTool(other.to_owned())),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_listed_tool_parses_with_its_required_arguments_and_names_what_is_missing() {
        for tool in crate::mcp_schema::tools() {
            let name = tool.name.as_ref();
            let schema = serde_json::Value::Object((*tool.input_schema).clone());
            for (arg, prop) in schema["properties"].as_object().unwrap() {
                assert!(
                    prop["description"].is_string(),
                    "{name}.{arg} has a description"
                );
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default();
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
    }
}
