//! The `evaluate` command's lines: parsing its fields, printing its value or its error
//! with a stable `code` (see the crate's README, the protocol).

use std::time::Duration;

use cdp_supervisor::evaluate::{Element, EvalError, EvalValue, Evaluation, MAX_EVAL_TIMEOUT};
use serde_json::{json, Map, Value};

use crate::protocol::typed;

/// Reads an `evaluate` line's fields: `expression` or `function` (one is required: a
/// script, or a function's source that is called), `frame_id`, `ref`, `backend_node_id`,
/// `timeout_ms` (default 30 000).
///
/// ```
/// use cdp_supervise::evaluate::parse_evaluate;
/// let line = serde_json::json!({"cmd":"evaluate","expression":"el => el.id","backend_node_id":12,"timeout_ms":500});
/// let e = parse_evaluate(&line)?;
/// assert_eq!(e.timeout.as_millis(), 500);
/// assert!(!e.function);
/// let f = parse_evaluate(&serde_json::json!({"cmd":"evaluate","function":"() => 6*7"}))?;
/// assert!(f.function && f.expression == "() => 6*7");
/// assert!(parse_evaluate(&serde_json::json!({"cmd":"evaluate"})).is_err());
/// assert!(parse_evaluate(&serde_json::json!({"cmd":"evaluate","expression":"1","function":"() => 1"})).is_err());
/// assert!(parse_evaluate(&serde_json::json!({"cmd":"evaluate","expression":"1","frame_id":5})).is_err());
/// # Ok::<(), String>(())
/// ```
pub fn parse_evaluate(request: &Value) -> Result<Evaluation, String> {
    // A field of the wrong type is an error, never "absent".
    let string = |key: &str| match request.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    };
    let mut evaluation = match (string("expression")?, string("function")?) {
        (Some(_), Some(_)) => return Err("give \"expression\" or \"function\", not both".into()),
        (Some(e), None) => Evaluation::new(e),
        (None, Some(f)) => Evaluation::function(f),
        (None, None) => return Err("missing \"expression\" or \"function\": a script, e.g. \"document.title\", or a function to call, e.g. \"() => document.title\" (with ref or backend_node_id: called with the element, e.g. \"el => el.textContent\")".into()),
    };
    evaluation.frame_id = string("frame_id")?.map(str::to_owned);
    let reference = string("ref")?;
    let node = match request.get("backend_node_id") {
        None | Some(Value::Null) => None,
        Some(n) => Some(
            n.as_i64()
                .ok_or("\"backend_node_id\" must be an integer (a DOM node's backendNodeId)")?,
        ),
    };
    evaluation.element = match (reference, node) {
        (Some(_), Some(_)) => return Err("give ref or backend_node_id, not both".into()),
        (Some(r), None) => Some(Element::Ref(r.to_owned())),
        (None, Some(n)) => Some(Element::BackendNodeId(n)),
        (None, None) => None,
    };
    if let Some(ms) = request.get("timeout_ms") {
        let ms = ms
            .as_f64()
            .filter(|t| t.is_finite() && *t >= 1.0)
            .ok_or("timeout_ms must be a number of milliseconds, at least 1")?;
        // A float-to-integer `as` saturates: no input can make this panic.
        evaluation.timeout = Duration::from_millis(ms as u64).min(MAX_EVAL_TIMEOUT);
    }
    Ok(evaluation)
}

/// `{"type":"result","id":ID,"value":V}`, with `"undefined":true` for `undefined`.
///
/// ```
/// use cdp_supervisor::EvalValue;
/// let line = cdp_supervise::evaluate::value_line(&1.into(), &EvalValue::undefined());
/// assert_eq!(line, r#"{"type":"result","id":1,"undefined":true,"value":null}"#);
/// ```
pub fn value_line(id: &Value, value: &EvalValue) -> String {
    let mut obj = Map::new();
    obj.insert("id".into(), id.clone());
    obj.insert("value".into(), value.value.clone());
    if value.undefined {
        obj.insert("undefined".into(), Value::Bool(true));
    }
    typed("result", &Value::Object(obj))
}

/// `{"type":"error","id":ID,"code":CODE,"message":...}`; a `blocked` error adds
/// `dialog_id` and the `dialog`.
///
/// ```
/// use cdp_supervisor::EvalError;
/// let e = EvalError::NoContext { frame_id: "F".into() };
/// let line = cdp_supervise::evaluate::eval_error_line(&2.into(), "no_context", &e.to_string(), e.dialog());
/// assert!(line.starts_with(r#"{"type":"error","code":"no_context","id":2,"#));
/// ```
pub fn eval_error_line(
    id: &Value,
    code: &str,
    message: &str,
    dialog: Option<&cdp_supervisor::PendingDialog>,
) -> String {
    let mut obj = json!({ "id": id, "code": code, "message": message });
    if let Some(d) = dialog {
        obj["dialog_id"] = Value::String(d.id.clone());
        obj["dialog"] = serde_json::to_value(d).unwrap_or(Value::Null);
    }
    typed("error", &obj)
}

/// The line for an evaluate's error.
pub fn error_of(id: &Value, e: &EvalError) -> String {
    eval_error_line(id, e.code(), &e.to_string(), e.dialog())
}
