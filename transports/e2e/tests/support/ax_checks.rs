//! What both transports' accessibility tests check, written once: the refs by role and
//! name, the four frames' nodes in place, the raw commands that resolve a ref.

use cdp_supervisor::ax::{AxRef, AxSnapshot};
use serde_json::{json, Value};

use super::demo_tree::DemoFrames;

/// The ref of the node with `role` and `name`.
pub fn by_name<'a>(snap: &'a AxSnapshot, role: &str, name: &str) -> Option<&'a AxRef> {
    snap.refs.iter().find(|r| r.role == role && r.name == name)
}

/// Whether the four test elements (one a frame) all have refs.
pub fn all_four(s: &AxSnapshot) -> bool {
    by_name(s, "heading", "Welcome").is_some()
        && by_name(s, "checkbox", "Agree").is_some()
        && by_name(s, "button", "Go").is_some()
        && by_name(s, "link", "Deep link").is_some()
}

/// The line index and indentation of `reference` in the outline.
fn line_of(snap: &AxSnapshot, reference: &str) -> (usize, usize) {
    let needle = format!("[ref={reference}]");
    let (i, line) = snap
        .text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(&needle))
        .unwrap_or_else(|| panic!("{reference} not in\n{}", snap.text));
    (i, line.len() - line.trim_start().len())
}

/// Each of the four in its own frame, in document order, each frame's nodes indented under
/// its iframe; nothing left out.
pub fn assert_four_in_place(a: &AxSnapshot, frames: &DemoFrames) {
    let found = [
        ("heading", "Welcome", &frames.top),
        ("checkbox", "Agree", &frames.srcdoc),
        ("button", "Go", &frames.cross),
        ("link", "Deep link", &frames.nested),
    ]
    .map(|(role, name, frame)| {
        let r = by_name(a, role, name).unwrap();
        assert_eq!(&r.frame_id, frame, "{role} {name}");
        line_of(a, &r.id)
    });
    let [(h, hi), (c, ci), (b, bi), (l, li)] = found;
    assert!(h < c && c < b && b < l, "{}", a.text);
    assert!(hi < ci && ci == bi && bi < li, "{}", a.text);
    assert!(a.frames_left_out.is_empty(), "{:?}", a.frames_left_out);
    assert!(!a.truncated);
}

/// `DOM.resolveNode`'s params for a ref (send it routed to `r.frame_id`).
pub fn resolve_params(r: &AxRef) -> Value {
    json!({ "backendNodeId": r.backend_node_id })
}

/// `Runtime.callFunctionOn`'s params reading the text of the node `resolved` names.
pub fn text_content_params(resolved: &Value) -> Value {
    json!({ "objectId": resolved["object"]["objectId"], "returnByValue": true,
            "functionDeclaration": "function () { return this.textContent; }" })
}

/// The ids of a snapshot's refs, in order.
pub fn ids(s: &AxSnapshot) -> Vec<String> {
    s.refs.iter().map(|r| r.id.clone()).collect()
}
