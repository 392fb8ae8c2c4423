//! Resolving a ref of the last snapshot to the node it names, now.
//!
//! A ref resolves when its frame still shows the document the snapshot saw: then its
//! `backend_node_id` in that frame's session is the node. A frame that navigated (a new
//! document) or went away makes the ref stale, and the error says to take a new snapshot.
//! When the node may have been replaced within the same document (a re-render), fetch the
//! frame's tree again (`Accessibility.getFullAXTree` on [`ResolvedRef::session_id`]) and
//! call [`resolve_in_tree`]: the same `backend_node_id` if it is still there, else the
//! node with the same `(role, name, nth)` in that frame.

use super::node::AxNode;
use super::outline::{build_outline, FrameAx, OutlineLimits};
use super::refs::{ref_number, AxRef, RefTable};
use super::request::AxError;

/// Where a frame stands now, as the supervisor knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameNow<'a> {
    /// The frame's current document (as the snapshot recorded documents).
    pub document: &'a str,
    /// The session that owns the frame's document (its own, for an OOPIF).
    pub session_id: &'a str,
}

/// A ref resolved: where to send a command about its node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRef {
    /// The frame the node lives in.
    pub frame_id: String,
    /// The session to send commands on (`DOM.resolveNode`, `DOM.getContentQuads`, ...).
    pub session_id: String,
    /// The node, for `backendNodeId` params.
    pub backend_node_id: i64,
}

/// Resolves `reference` against the last snapshot's `table`; `frame_now` says where a frame
/// stands now (`None`: the frame is gone).
///
/// ```
/// use cdp_supervisor::ax::{resolve_ref, AxError, FrameNow, RefTable, RefEntry, AxRef};
/// let mut table = RefTable::default();
/// let n = table.assign("F", "7", Some(41));
/// table.describe(n, RefEntry { document: "7".into(), target: AxRef { id: format!("e{n}"),
///     role: "button".into(), name: "OK".into(), nth: 0, frame_id: "F".into(), backend_node_id: Some(41) } });
/// table.commit();
/// let now = |_: &str| Some(FrameNow { document: "7", session_id: "S" });
/// assert_eq!(resolve_ref(&table, "e1", now)?.backend_node_id, 41);
/// let navigated = |_: &str| Some(FrameNow { document: "8", session_id: "S" });
/// assert_eq!(resolve_ref(&table, "e1", navigated).unwrap_err().code(), "stale_ref");
/// # Ok::<(), AxError>(())
/// ```
pub fn resolve_ref<'a>(
    table: &RefTable,
    reference: &str,
    frame_now: impl Fn(&str) -> Option<FrameNow<'a>>,
) -> Result<ResolvedRef, AxError> {
    let stale = |why: String| AxError::StaleRef {
        reference: reference.to_owned(),
        why,
    };
    if ref_number(reference).is_none() {
        return Err(AxError::BadRef {
            reference: reference.to_owned(),
        });
    }
    let entry = table
        .lookup(reference)
        .ok_or_else(|| stale("the last snapshot does not list it".into()))?;
    let target = &entry.target;
    let now = frame_now(&target.frame_id)
        .ok_or_else(|| stale(format!("its frame {} is gone", target.frame_id)))?;
    if now.document != entry.document {
        return Err(stale(format!(
            "its frame {} shows another document since (it navigated)",
            target.frame_id
        )));
    }
    let backend_node_id = target
        .backend_node_id
        .ok_or_else(|| stale("Chromium gave its node no DOM node id".into()))?;
    Ok(ResolvedRef {
        frame_id: target.frame_id.clone(),
        session_id: now.session_id.to_owned(),
        backend_node_id,
    })
}

/// Finds a ref's node in a fresh tree of its frame: by `backend_node_id` if the node is
/// still shown, else by `(role, name, nth)` counted as a snapshot counts them; `None` when
/// neither is there (then the ref is stale).
///
/// ```
/// use cdp_supervisor::ax::{resolve_in_tree, AxNode, AxRef};
/// let was = AxRef { id: "e3".into(), role: "button".into(), name: "OK".into(), nth: 0,
///     frame_id: "F".into(), backend_node_id: Some(41) };
/// // Re-rendered: the button is a new DOM node (42) with the same role and name.
/// let fresh = AxNode::parse_tree(r#"{"nodes":[
///   {"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2"],"backendDOMNodeId":1},
///   {"nodeId":"2","role":{"value":"button"},"name":{"value":"OK"},"backendDOMNodeId":42}]}"#)?;
/// assert_eq!(resolve_in_tree(&was, &fresh), Some(42));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn resolve_in_tree(target: &AxRef, fresh: &[AxNode]) -> Option<i64> {
    let frame = FrameAx {
        frame_id: &target.frame_id,
        document: "",
        parent_frame_id: None,
        owner_backend_node_id: None,
        nodes: fresh,
    };
    let limits = OutlineLimits {
        max_nodes: fresh.len(),
        max_chars: None,
    };
    let outline = build_outline(&[frame], None, limits, &mut RefTable::default());
    let same_node = outline
        .refs
        .iter()
        .find(|r| r.backend_node_id.is_some() && r.backend_node_id == target.backend_node_id);
    same_node
        .or_else(|| {
            outline
                .refs
                .iter()
                .find(|r| r.role == target.role && r.name == target.name && r.nth == target.nth)
        })
        .and_then(|r| r.backend_node_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ax::{AxRef, RefEntry};

    fn table() -> RefTable {
        let mut table = RefTable::default();
        let n = table.assign("F", "1", Some(5));
        table.describe(
            n,
            RefEntry {
                document: "1".into(),
                target: AxRef {
                    id: format!("e{n}"),
                    role: "link".into(),
                    name: "x".into(),
                    nth: 0,
                    frame_id: "F".into(),
                    backend_node_id: Some(5),
                },
            },
        );
        table.commit();
        table
    }

    #[test]
    fn a_replaced_node_is_found_by_role_name_and_nth() {
        let was = AxRef {
            id: "e2".into(),
            role: "button".into(),
            name: "Buy".into(),
            nth: 1,
            frame_id: "F".into(),
            backend_node_id: Some(9),
        };
        let tree = |second: i64| {
            AxNode::parse_tree(&format!(
                r#"{{"nodes":[
                {{"nodeId":"1","role":{{"value":"RootWebArea"}},"childIds":["2","3","4"],"backendDOMNodeId":1}},
                {{"nodeId":"2","role":{{"value":"button"}},"name":{{"value":"Buy"}},"backendDOMNodeId":8}},
                {{"nodeId":"3","role":{{"value":"button"}},"name":{{"value":"Buy"}},"backendDOMNodeId":{second}}},
                {{"nodeId":"4","role":{{"value":"button"}},"name":{{"value":"Sell"}},"backendDOMNodeId":5}}]}}"#
            ))
            .unwrap()
        };
        assert_eq!(resolve_in_tree(&was, &tree(9)), Some(9), "still there");
        assert_eq!(
            resolve_in_tree(&was, &tree(77)),
            Some(77),
            "the second Buy, re-rendered"
        );
        let gone = AxRef {
            nth: 2,
            backend_node_id: Some(99),
            ..was
        };
        assert_eq!(resolve_in_tree(&gone, &tree(77)), None);
    }

    #[test]
    fn gone_frames_unknown_refs_and_bad_refs_are_errors() {
        let t = table();
        let gone = |_: &str| None;
        let e = resolve_ref(&t, "e1", gone).unwrap_err();
        assert!(e.to_string().contains("frame F is gone"), "{e}");
        let here = |_: &str| {
            Some(FrameNow {
                document: "1",
                session_id: "S",
            })
        };
        assert_eq!(resolve_ref(&t, "e9", here).unwrap_err().code(), "stale_ref");
        assert_eq!(
            resolve_ref(&t, "x1", here).unwrap_err().code(),
            "bad_request"
        );
        assert_eq!(resolve_ref(&t, "e1", here).unwrap().session_id, "S");
    }
}
