//! The MCP tools of the form and pointer actions: `browser_hover`, `browser_select_option`,
//! `browser_fill_form`, `browser_drag`. Each is read into the sidecar's `act` line (the
//! core's own parser checks it, so both faces take the same arguments and refuse the same
//! ones) and runs like `browser_click`. Playwright MCP's argument names are the tools'
//! names; `ref` is accepted beside `target`, as in the other tools.

use std::sync::Arc;

use cdp_supervisor::act::Action;
use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::mcp::{CallError, ToolCall};

/// The tools' names.
pub const NAMES: [&str; 4] = [
    "browser_hover",
    "browser_select_option",
    "browser_fill_form",
    "browser_drag",
];

fn bad(what: impl Into<String>) -> CallError {
    CallError::BadArgument(what.into())
}

/// A string argument under the first of `names` present.
fn string(args: &Map<String, Value>, names: &[&str]) -> Result<Option<String>, CallError> {
    for name in names {
        match args.get(*name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) if !s.is_empty() => return Ok(Some(s.clone())),
            Some(_) => return Err(bad(format!("`{name}` must be a ref string such as e5"))),
        }
    }
    Ok(None)
}

fn timeout(args: &Map<String, Value>) -> Result<Option<u64>, CallError> {
    match args.get("timeout_ms") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| (1..=600_000).contains(n))
            .map(Some)
            .ok_or_else(|| bad("`timeout_ms` must be a whole number from 1 to 600000")),
    }
}

fn wait(args: &Map<String, Value>) -> Result<Option<cdp_supervisor::act::Wait>, CallError> {
    match args.get("wait") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(w)) => w
            .parse()
            .map(Some)
            .map_err(|_| bad(format!("`wait` must be \"quiet\" or \"load\", not {w:?}"))),
        Some(_) => Err(bad("`wait` must be \"quiet\" or \"load\"")),
    }
}

/// Reads one of [`NAMES`] into a [`ToolCall::Input`], checked by the core's parser.
///
/// ```
/// use cdp_supervise::mcp::{parse_tool_call, ToolCall};
/// use serde_json::json;
/// let call = parse_tool_call(&json!({"name": "browser_drag", "arguments": {"startRef": "e1", "endRef": "e2"}}))?;
/// let action = match call {
///     ToolCall::Input { action, .. } => Some(action),
///     _ => None,
/// };
/// assert_eq!(action, Some(json!({"action": "drag", "ref": "e1", "to_ref": "e2"})));
/// # Ok::<(), cdp_supervise::mcp::CallError>(())
/// ```
pub fn parse(name: &str, args: &Map<String, Value>) -> Result<ToolCall, CallError> {
    let element = |what: &str| {
        string(args, &["ref", "target"])?.ok_or_else(|| {
            bad(format!(
                "`target` (or `ref`) is required: {what}; take browser_snapshot and pass its ref"
            ))
        })
    };
    let action = match name {
        "browser_hover" => json!({"action": "hover", "ref": element("the element to hover")?}),
        "browser_select_option" => {
            let values = args.get("values").filter(|v| !v.is_null()).ok_or_else(|| {
                bad("`values` is required: the option values or labels to select")
            })?;
            json!({"action": "select", "ref": element("the <select>")?, "values": values})
        }
        "browser_fill_form" => {
            let fields = args
                .get("fields")
                .filter(|v| !v.is_null())
                .ok_or_else(|| bad("`fields` is required: [{target, value, name, type}, ...]"))?;
            json!({"action": "fill", "fields": fields})
        }
        "browser_drag" => {
            let start = string(args, &["startTarget", "startRef"])?.ok_or_else(|| {
                bad("`startTarget` (or `startRef`) is required: the ref of the element to drag")
            })?;
            let end = string(args, &["endTarget", "endRef"])?.ok_or_else(|| {
                bad("`endTarget` (or `endRef`) is required: the ref of the element to drop on")
            })?;
            json!({"action": "drag", "ref": start, "to_ref": end})
        }
        other => return Err(CallError::UnknownTool(other.to_owned())),
    };
    // The core's parser is the one judge of the arguments (bounds, checkbox values, ...).
    Action::from_json(&action).map_err(|e| bad(e.to_string()))?;
    Ok(ToolCall::Input {
        action,
        timeout_ms: timeout(args)?,
        wait: wait(args)?,
    })
}

const TARGET_DOC: &str =
    "The element's ref from browser_snapshot, such as e5 (also accepted as `ref`).";
const REF_DOC: &str = "The name the other tools use for `target`.";
const ELEMENT_DOC: &str = "A human-readable description of the element, for the log (optional).";
const TIMEOUT_DOC: &str = "The budget in milliseconds, for the whole call; it answers within it.";
const WAIT_DOC: &str = "What to wait for before answering: \"quiet\" (default: the load when it navigates, then 500 ms without a console message) or \"load\".";

/// A field's kind, as Playwright MCP names them.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "lowercase")]
#[allow(dead_code)] // A schema only: its values are read by the parser.
enum FieldType {
    Textbox,
    Checkbox,
    Radio,
    Combobox,
    Slider,
}

/// What an action waits for.
#[derive(JsonSchema)]
#[schemars(inline, rename_all = "lowercase")]
#[allow(dead_code)]
enum WaitFor {
    Quiet,
    Load,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Hover {
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = ELEMENT_DOC)]
    element: Option<String>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct SelectOption {
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    #[schemars(description = ELEMENT_DOC)]
    element: Option<String>,
    /// The options to select: each an option's value or its label (several for a
    /// `<select multiple>`).
    #[schemars(length(min = 1, max = 64))]
    values: Vec<String>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

/// One field of `browser_fill_form`.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Field {
    /// A human-readable name of the field, for messages.
    name: Option<String>,
    /// The kind of field; read from the element when omitted.
    #[schemars(rename = "type")]
    kind: Option<FieldType>,
    #[schemars(description = TARGET_DOC)]
    target: Option<String>,
    #[schemars(rename = "ref", description = REF_DOC)]
    reference: Option<String>,
    /// The value: the text of a textbox; "true" or "false" for a checkbox or radio (it is
    /// set, clicked only when it differs); an option's value or label for a combobox.
    value: String,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct FillForm {
    /// The fields to fill, in order, in any frames (at most 50).
    #[schemars(length(min = 1, max = 50))]
    fields: Vec<Field>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Drag {
    /// The ref of the element to drag, from browser_snapshot.
    #[schemars(rename = "startTarget")]
    start_target: Option<String>,
    /// Playwright MCP's older name for `startTarget`.
    #[schemars(rename = "startRef")]
    start_ref: Option<String>,
    /// A human-readable description of the element dragged (optional).
    #[schemars(rename = "startElement")]
    start_element: Option<String>,
    /// The ref of the element to drop on, from browser_snapshot.
    #[schemars(rename = "endTarget")]
    end_target: Option<String>,
    /// Playwright MCP's older name for `endTarget`.
    #[schemars(rename = "endRef")]
    end_ref: Option<String>,
    /// A human-readable description of the element dropped on (optional).
    #[schemars(rename = "endElement")]
    end_element: Option<String>,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = WAIT_DOC)]
    wait: Option<WaitFor>,
}

fn tool(name: &'static str, description: &'static str, schema: Arc<JsonObject>) -> Tool {
    Tool::new(name, description, schema)
}

/// The tools' entries of `tools/list`.
///
/// ```
/// let tools = cdp_supervise::mcp_input::tools();
/// let fill = tools.iter().find(|t| t.name == "browser_fill_form");
/// assert!(fill.is_some_and(|t| t.input_schema["required"][0] == "fields"));
/// ```
pub fn tools() -> Vec<Tool> {
    vec![
        tool("browser_hover", "Move the mouse over an element (in any frame, cross-origin iframes included), so that :hover styles and hover menus show; answers with a screenshot and the console.", schema_for_type::<Hover>()),
        tool("browser_select_option", "Select options of a <select> (in any frame) by value or label; `input` and `change` fire as when a person picks them. A value that matches no option is an error listing the options.", schema_for_type::<SelectOption>()),
        tool("browser_fill_form", "Fill several form fields in one call, in any frames: text is set (`input` and `change` fire), a checkbox or radio is set to \"true\"/\"false\" (clicked only when it differs), a select takes an option's value or label.", schema_for_type::<FillForm>()),
        tool("browser_drag", "Drag an element onto another: the left button pressed on the first, moved in steps, released on the second. Pages that use HTML5 drag and drop get its events too.", schema_for_type::<Drag>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::parse_tool_call;

    fn call(name: &str, args: Value) -> Result<ToolCall, CallError> {
        parse_tool_call(&json!({"name": name, "arguments": args}))
    }

    fn action(name: &str, args: Value) -> Value {
        match call(name, args) {
            Ok(ToolCall::Input { action, .. }) => action,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn playwright_names_and_ours_give_the_same_action() {
        assert_eq!(
            action("browser_hover", json!({"target": "e3", "element": "Menu"})),
            action("browser_hover", json!({"ref": "e3"}))
        );
        assert_eq!(
            action(
                "browser_select_option",
                json!({"ref": "e4", "values": ["Blue"]})
            ),
            json!({"action": "select", "ref": "e4", "values": ["Blue"]})
        );
        assert_eq!(
            action(
                "browser_drag",
                json!({"startTarget": "e1", "endTarget": "e2"})
            ),
            action("browser_drag", json!({"startRef": "e1", "endRef": "e2"}))
        );
        let fields = json!([{"name": "Name", "type": "textbox", "ref": "e5", "value": "Ada"}]);
        assert_eq!(
            action("browser_fill_form", json!({"fields": fields})),
            json!({"action": "fill", "fields": fields})
        );
    }

    #[test]
    fn bad_arguments_name_what_is_wrong() {
        for (name, args, says) in [
            ("browser_hover", json!({}), "target"),
            ("browser_select_option", json!({"ref": "e1"}), "values"),
            (
                "browser_select_option",
                json!({"ref": "e1", "values": 5}),
                "values",
            ),
            ("browser_fill_form", json!({"fields": []}), "fields"),
            (
                "browser_fill_form",
                json!({"fields": [{"ref": "e1", "value": "maybe", "type": "checkbox"}]}),
                "\"true\" or \"false\"",
            ),
            ("browser_drag", json!({"startRef": "e1"}), "endTarget"),
            (
                "browser_drag",
                json!({"startRef": 3, "endRef": "e2"}),
                "startRef",
            ),
            (
                "browser_hover",
                json!({"ref": "e1", "timeout_ms": 0}),
                "timeout_ms",
            ),
        ] {
            match call(name, args.clone()) {
                Err(CallError::BadArgument(m)) => assert!(m.contains(says), "{name} {args}: {m}"),
                other => panic!("{name} {args}: {other:?}"),
            }
        }
    }
}
