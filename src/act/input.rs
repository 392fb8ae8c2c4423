//! The form and pointer actions: `hover`, `select`, `fill`, `drag`, their arguments and
//! their bounds, read from the sidecar's JSON (Playwright MCP's argument names accepted
//! too). How they run is in the act flow; the rules in [`crate::manual::rules`], agent
//! actions.
//!
//! ```
//! use cdp_supervisor::act::{Action, FieldKind, Target};
//! let a = Action::from_json(&serde_json::json!({"action": "fill", "fields": [
//!     {"ref": "e3", "value": "Ada"},
//!     {"target": "e4", "value": "true", "type": "checkbox"},
//! ]}))?;
//! let second = match a {
//!     Action::Fill { fields } => fields.into_iter().nth(1).map(|f| (f.target, f.kind)),
//!     _ => None,
//! };
//! assert_eq!(second, Some((Target::Ref("e4".into()), Some(FieldKind::Checkbox))));
//! # Ok::<(), cdp_supervisor::act::ActError>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ActError, Action, Target};
use crate::limits::MAX_TYPE_TEXT;

/// The most fields one `fill` sets (a form larger than this is filled in several calls).
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_FILL_FIELDS, 50);
/// ```
pub const MAX_FILL_FIELDS: usize = 50;

/// The most values one `select` picks (a `<select multiple>`).
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_SELECT_VALUES, 64);
/// ```
pub const MAX_SELECT_VALUES: usize = 64;

/// The most options an error about a value that matches none lists (the count of all of
/// them is given too).
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_LISTED_OPTIONS, 20);
/// ```
pub const MAX_LISTED_OPTIONS: usize = 20;

/// What kind of form field a `fill` field is, as Playwright MCP names them.
///
/// ```
/// use cdp_supervisor::act::FieldKind;
/// assert_eq!(FieldKind::parse("combobox"), Some(FieldKind::Combobox));
/// assert_eq!(FieldKind::parse("select"), Some(FieldKind::Combobox));
/// assert_eq!(FieldKind::Textbox.as_str(), "textbox");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// An `<input>` that takes text (text, email, number, date, ...), a `<textarea>`, or
    /// an editable element: its value is set.
    Textbox,
    /// A checkbox: `"true"` or `"false"`, set (clicked only when it differs).
    Checkbox,
    /// A radio button: `"true"` (clicked when not checked); `"false"` only when it is not
    /// checked already (a radio cannot be unchecked by a person).
    Radio,
    /// A `<select>`: the option whose value or label is the value.
    Combobox,
    /// An `<input type=range>`: its value is set.
    Slider,
}

impl FieldKind {
    /// Reads a kind (`textbox`, `checkbox`, `radio`, `combobox` or `select`, `slider`).
    pub fn parse(s: &str) -> Option<FieldKind> {
        Some(match s {
            "textbox" | "text" | "textarea" => FieldKind::Textbox,
            "checkbox" => FieldKind::Checkbox,
            "radio" => FieldKind::Radio,
            "combobox" | "select" | "listbox" => FieldKind::Combobox,
            "slider" | "range" => FieldKind::Slider,
            _ => return None,
        })
    }

    /// The name as Playwright MCP spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::Textbox => "textbox",
            FieldKind::Checkbox => "checkbox",
            FieldKind::Radio => "radio",
            FieldKind::Combobox => "combobox",
            FieldKind::Slider => "slider",
        }
    }
}

/// One field of a `fill`.
///
/// ```
/// use cdp_supervisor::act::{FillField, Target};
/// let f = FillField { target: Target::Ref("e3".into()), value: "Ada".into(), name: None, kind: None };
/// assert_eq!(f.label(1), "field 1 (e3)");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FillField {
    /// The element (a ref, or a node; a point is refused).
    pub target: Target,
    /// The value: text, `"true"`/`"false"` for a checkbox or radio, an option's value or
    /// label for a select.
    pub value: String,
    /// A human-readable name, for messages.
    pub name: Option<String>,
    /// Its kind; `None`: read from the element.
    pub kind: Option<FieldKind>,
}

impl FillField {
    /// How messages name the field: its position (1-based), its name or ref.
    pub fn label(&self, position: usize) -> String {
        let what = match (&self.name, &self.target) {
            (Some(n), _) => n.clone(),
            (None, Target::Ref(r)) => r.clone(),
            (
                None,
                Target::Node {
                    backend_node_id, ..
                },
            ) => format!("node {backend_node_id}"),
            (None, Target::Point { .. }) => "a point".into(),
        };
        format!("field {position} ({what})")
    }
}

fn bad(what: impl Into<String>) -> ActError {
    ActError::BadRequest { what: what.into() }
}

/// The element named by one of `ref_keys` (a ref string), or `frame_id` +
/// `backend_node_id` under the given prefix, or a point `x`/`y` under the prefix when
/// `points` allows it. `None`: nothing named.
fn element_of(
    v: &Value,
    ref_keys: &[&str],
    prefix: &str,
    points: bool,
) -> Result<Option<Target>, ActError> {
    for k in ref_keys {
        match v.get(*k) {
            None | Some(Value::Null) => continue,
            Some(r) => {
                let r = r
                    .as_str()
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| bad(format!("{k}: must be a ref string such as \"e5\"")))?;
                return Ok(Some(Target::Ref(r.to_owned())));
            }
        }
    }
    let key = |k: &str| format!("{prefix}{k}");
    if let Some(node) = v.get(key("backend_node_id").as_str()) {
        let backend_node_id = node
            .as_i64()
            .ok_or_else(|| bad(format!("{}: must be an integer", key("backend_node_id"))))?;
        let frame_id = v
            .get(key("frame_id").as_str())
            .and_then(Value::as_str)
            .ok_or_else(|| {
                bad(format!(
                    "{}: missing; {} needs the frame it lives in",
                    key("frame_id"),
                    key("backend_node_id")
                ))
            })?;
        return Ok(Some(Target::Node {
            frame_id: frame_id.to_owned(),
            backend_node_id,
        }));
    }
    let (x, y) = (v.get(key("x").as_str()), v.get(key("y").as_str()));
    if !points || (x.is_none() && y.is_none()) {
        return Ok(None);
    }
    let num = |n: Option<&Value>, k: String| {
        n.and_then(Value::as_f64)
            .filter(|f| f.is_finite())
            .ok_or_else(|| bad(format!("{k}: missing or not a finite number; give both")))
    };
    Ok(Some(Target::Point {
        x: num(x, key("x"))?,
        y: num(y, key("y"))?,
    }))
}

/// Reads `hover`, `select`, `fill` or `drag` (`name`) from the sidecar's JSON line.
pub(crate) fn from_json(name: &str, v: &Value) -> Result<Action, ActError> {
    match name {
        "hover" => Ok(Action::Hover {
            target: element_of(v, &["ref", "target"], "", true)?.ok_or_else(|| {
                bad("ref: missing; hover needs a ref (or target), a point x and y, or frame_id and backend_node_id")
            })?,
        }),
        "select" => {
            let target = element_of(v, &["ref", "target"], "", false)?.ok_or_else(|| {
                bad("ref: missing; select needs the <select>'s ref (or target), or frame_id and backend_node_id")
            })?;
            Action::select(target, select_values(v)?)
        }
        "fill" => fill_from_json(v),
        "drag" => {
            let from = element_of(v, &["ref", "target", "startRef", "startTarget"], "", true)?
                .ok_or_else(|| {
                    bad("ref: missing; drag starts at a ref (or startRef), or a point x and y")
                })?;
            let to = element_of(v, &["to_ref", "endRef", "endTarget", "to_target"], "to_", true)?
                .ok_or_else(|| {
                    bad("to_ref: missing; drag ends at a ref (to_ref or endRef), or a point to_x and to_y")
                })?;
            Ok(Action::Drag { from, to })
        }
        other => Err(bad(format!("action: {other:?} is not a form or pointer action"))),
    }
}

/// `values` (an array of strings; a lone string is taken as one value).
fn select_values(v: &Value) -> Result<Vec<String>, ActError> {
    match v.get("values").or_else(|| v.get("value")) {
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad("values: must be an array of strings"))
            })
            .collect(),
        Some(_) => Err(bad("values: must be an array of strings")),
        None => Err(bad(
            "values: missing; select needs {\"values\": [\"an option's value or label\"]}",
        )),
    }
}

fn fill_from_json(v: &Value) -> Result<Action, ActError> {
    let items =
        match v.get("fields") {
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(bad(
                    "fields: must be an array of {ref, value, name?, type?}",
                ))
            }
            None => return Err(bad(
                "fields: missing; fill needs {\"fields\": [{\"ref\": \"e3\", \"value\": \"...\"}]}",
            )),
        };
    let mut fields = Vec::with_capacity(items.len().min(MAX_FILL_FIELDS));
    if items.len() > MAX_FILL_FIELDS {
        return Err(bad(format!(
            "fields: {} given, at most {MAX_FILL_FIELDS} in one call; fill the rest in another",
            items.len()
        )));
    }
    for (i, item) in items.iter().enumerate() {
        let at = i + 1;
        let target = element_of(item, &["ref", "target"], "", false)?.ok_or_else(|| {
            bad(format!(
                "fields[{at}].ref: missing; each field needs the element's ref"
            ))
        })?;
        let value = match item.get("value") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(bad(format!("fields[{at}].value: missing or not a string"))),
        };
        let name = item.get("name").and_then(Value::as_str).map(str::to_owned);
        let kind = match item.get("type") {
            None | Some(Value::Null) => None,
            Some(t) => Some(t.as_str().and_then(FieldKind::parse).ok_or_else(|| {
                bad(format!(
                    "fields[{at}].type: {t} is not one of textbox, checkbox, radio, combobox, slider"
                ))
            })?),
        };
        fields.push(FillField {
            target,
            value,
            name,
            kind,
        });
    }
    Action::fill(fields)
}

impl Action {
    /// `select {values}` on `target`, the values checked (at least one, at most
    /// [`MAX_SELECT_VALUES`]).
    ///
    /// ```
    /// use cdp_supervisor::act::{Action, Target};
    /// assert!(Action::select(Target::Ref("e2".into()), vec!["Blue".into()]).is_ok());
    /// let e = Action::select(Target::Ref("e2".into()), vec![]).unwrap_err();
    /// assert_eq!(e.code(), "bad_request");
    /// ```
    pub fn select(target: Target, values: Vec<String>) -> Result<Action, ActError> {
        check_select(&target, &values)?;
        Ok(Action::Select { target, values })
    }

    /// `fill {fields}`, the fields checked: 1 to [`MAX_FILL_FIELDS`] of them, each on an
    /// element (not a point), a checkbox's or radio's value `"true"` or `"false"`, no value
    /// longer than [`MAX_TYPE_TEXT`].
    ///
    /// ```
    /// use cdp_supervisor::act::{Action, FieldKind, FillField, Target};
    /// let f = |value: &str| FillField { target: Target::Ref("e1".into()), value: value.into(), name: None, kind: Some(FieldKind::Checkbox) };
    /// assert!(Action::fill(vec![f("true")]).is_ok());
    /// assert!(Action::fill(vec![f("yes")]).unwrap_err().to_string().contains("\"true\" or \"false\""));
    /// ```
    pub fn fill(fields: Vec<FillField>) -> Result<Action, ActError> {
        check_fill(&fields)?;
        Ok(Action::Fill { fields })
    }
}

/// The checks of [`Action::select`] and [`Action::fill`], again for an action built
/// without them (its variants are public): nothing is sent for one that fails.
pub(crate) fn check(action: &Action) -> Result<(), ActError> {
    match action {
        Action::Select { target, values } => check_select(target, values),
        Action::Fill { fields } => check_fill(fields),
        _ => Ok(()),
    }
}

fn check_select(target: &Target, values: &[String]) -> Result<(), ActError> {
    if matches!(target, Target::Point { .. }) {
        return Err(bad("target: a <select> is an element (a ref), not a point"));
    }
    if values.is_empty() || values.len() > MAX_SELECT_VALUES {
        return Err(bad(format!(
            "values: give 1 to {MAX_SELECT_VALUES} option values or labels"
        )));
    }
    if let Some(v) = values.iter().find(|v| v.chars().count() > MAX_TYPE_TEXT) {
        return Err(bad(format!(
            "values: one is longer than {MAX_TYPE_TEXT} characters ({} ...)",
            v.chars().take(20).collect::<String>()
        )));
    }
    Ok(())
}

fn check_fill(fields: &[FillField]) -> Result<(), ActError> {
    if fields.is_empty() || fields.len() > MAX_FILL_FIELDS {
        return Err(bad(format!("fields: give 1 to {MAX_FILL_FIELDS} fields")));
    }
    for (i, f) in fields.iter().enumerate() {
        let label = f.label(i + 1);
        if matches!(f.target, Target::Point { .. }) {
            return Err(bad(format!(
                "{label}: a field is an element (a ref), not a point"
            )));
        }
        if f.value.chars().count() > MAX_TYPE_TEXT {
            return Err(bad(format!(
                "{label}: the value is longer than {MAX_TYPE_TEXT} characters"
            )));
        }
        let boolean = matches!(f.kind, Some(FieldKind::Checkbox | FieldKind::Radio));
        if boolean && f.value != "true" && f.value != "false" {
            return Err(bad(format!(
                "{label}: a {} takes \"true\" or \"false\", not {:?}",
                f.kind.map(FieldKind::as_str).unwrap_or_default(),
                f.value
            )));
        }
    }
    Ok(())
}
