//! One accessibility node as `Accessibility.getFullAXTree` reports it, read leniently.
//!
//! Chromium sends `{nodeId, ignored, role: {value}, name: {value}, value: {value},
//! properties: [{name, value: {value}}], childIds, backendDOMNodeId}`; InlineTextBox nodes
//! have negative ids and no `backendDOMNodeId`. Everything but `nodeId` is optional here, and
//! a value of an unexpected type is read as absent, so one odd node never costs the frame.

use serde::Deserialize;
use serde_json::Value;

/// The states an agent acts on (the manual's accessibility rules list them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AxStates {
    /// `checked`: `"true"`, `"false"` or `"mixed"` as Chromium names it.
    pub checked: Option<String>,
    /// `disabled`.
    pub disabled: bool,
    /// `expanded`, when the node can expand.
    pub expanded: Option<bool>,
    /// `selected`.
    pub selected: bool,
    /// `focused`.
    pub focused: bool,
    /// A heading's `level`.
    pub level: Option<u32>,
}

/// One node of a frame's accessibility tree.
///
/// ```
/// use cdp_supervisor::ax::AxNode;
/// let nodes = AxNode::parse_tree(r#"{"nodes":[{"nodeId":"1","ignored":false,
///     "role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"OK"},
///     "properties":[{"name":"disabled","value":{"type":"boolean","value":true}}],
///     "childIds":[],"backendDOMNodeId":7}]}"#)?;
/// assert_eq!((nodes[0].role.as_str(), nodes[0].name.as_str(), nodes[0].states.disabled), ("button", "OK", true));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AxNode {
    /// The tree-local node id (`nodeId`).
    pub id: String,
    /// Ignored nodes are not shown; their children still are.
    pub ignored: bool,
    /// The role as Chromium names it (`button`, `StaticText`, `RootWebArea`, ...).
    pub role: String,
    /// The accessible name; empty when none.
    pub name: String,
    /// A form control's value (a textbox's text, a combobox's choice).
    pub value: Option<String>,
    /// The states that matter to an agent.
    pub states: AxStates,
    /// Children, by `nodeId`, in document order.
    pub children: Vec<String>,
    /// The DOM node behind it; absent on inline text boxes.
    pub backend_node_id: Option<i64>,
}

#[derive(Deserialize)]
struct RawTree {
    #[serde(default)]
    nodes: Vec<RawNode>,
}

#[derive(Deserialize)]
struct RawNode {
    #[serde(rename = "nodeId", default)]
    node_id: Value,
    #[serde(default)]
    ignored: Value,
    #[serde(default)]
    role: Option<RawValue>,
    #[serde(default)]
    name: Option<RawValue>,
    #[serde(default)]
    value: Option<RawValue>,
    #[serde(default)]
    properties: Vec<RawProperty>,
    #[serde(rename = "childIds", default)]
    child_ids: Vec<Value>,
    #[serde(rename = "backendDOMNodeId", default)]
    backend_node_id: Value,
}

#[derive(Deserialize)]
struct RawValue {
    #[serde(default)]
    value: Value,
}

#[derive(Deserialize)]
struct RawProperty {
    #[serde(default)]
    name: Value,
    #[serde(default)]
    value: Option<RawValue>,
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn truthy(v: &Value) -> bool {
    matches!(v, Value::Bool(true)) || matches!(v, Value::String(s) if s == "true")
}

impl AxNode {
    /// Reads the `result` of `Accessibility.getFullAXTree` (`{"nodes": [...]}`).
    ///
    /// Errors only when the text is not JSON of that shape; odd fields are read as absent.
    ///
    /// ```
    /// use cdp_supervisor::ax::AxNode;
    /// assert!(AxNode::parse_tree("[1]").is_err());
    /// assert_eq!(AxNode::parse_tree(r#"{"nodes":[]}"#)?.len(), 0);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse_tree(result: &str) -> Result<Vec<AxNode>, serde_json::Error> {
        let raw: RawTree = serde_json::from_str(result)?;
        Ok(raw.nodes.into_iter().filter_map(AxNode::from_raw).collect())
    }

    fn from_raw(raw: RawNode) -> Option<AxNode> {
        let id = text_of(&raw.node_id)?;
        let get = |v: &Option<RawValue>| v.as_ref().and_then(|v| text_of(&v.value));
        let mut states = AxStates::default();
        for p in &raw.properties {
            let Some(value) = p.value.as_ref().map(|v| &v.value) else {
                continue;
            };
            match p.name.as_str() {
                Some("checked") => states.checked = text_of(value),
                Some("disabled") => states.disabled = truthy(value),
                Some("expanded") => states.expanded = Some(truthy(value)),
                Some("selected") => states.selected = truthy(value),
                Some("focused") => states.focused = truthy(value),
                Some("level") => states.level = value.as_u64().and_then(|l| u32::try_from(l).ok()),
                _ => {}
            }
        }
        Some(AxNode {
            id,
            ignored: truthy(&raw.ignored),
            role: get(&raw.role).unwrap_or_default(),
            name: get(&raw.name).unwrap_or_default(),
            value: get(&raw.value).filter(|v| !v.is_empty()),
            states,
            children: raw.child_ids.iter().filter_map(text_of).collect(),
            backend_node_id: raw.backend_node_id.as_i64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_fields_are_absent_not_errors() {
        let nodes = AxNode::parse_tree(
            r#"{"nodes":[{"nodeId":5,"ignored":"yes","role":{"value":7},"name":null,
            "properties":[{"name":"level","value":{"value":-1}},{"name":3}],"childIds":[1,"x",null],
            "backendDOMNodeId":"no"},{"ignored":false}]}"#,
        )
        .unwrap();
        assert_eq!(nodes.len(), 1, "a node without an id is dropped");
        let n = &nodes[0];
        assert_eq!(n.id, "5");
        assert!(!n.ignored);
        assert_eq!(n.role, "7");
        assert_eq!(n.states.level, None);
        assert_eq!(n.children, ["1", "x"]);
        assert_eq!(n.backend_node_id, None);
    }
}
