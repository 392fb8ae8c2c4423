//! A ref of the last snapshot back to its node: frame and `backendNodeId`.

use super::RefTable;
use crate::error::CommandError;

/// What `reference` (`e12`) names in `table`: the frame and the DOM node behind it. A ref
/// the last snapshot did not give, or one without a DOM node, is
/// [`CommandError::StaleRef`].
///
/// ```
/// use cdp_supervisor::ax::{resolve_ref, AxRef, RefEntry, RefTable};
/// let mut table = RefTable::default();
/// let n = table.assign("F", "doc-1", Some(41));
/// let target = AxRef { id: format!("e{n}"), role: "button".into(), name: "OK".into(), nth: 0,
///     frame_id: "F".into(), backend_node_id: Some(41) };
/// table.describe(n, RefEntry { target, document: "doc-1".into() });
/// table.commit();
/// assert_eq!(resolve_ref(&table, &format!("e{n}")), Ok(("F".to_owned(), 41)));
/// assert_eq!(resolve_ref(&table, "e999").unwrap_err().to_string(),
///     "ref e999 is stale (the last snapshot gave no such ref); take a new snapshot and use its refs");
/// ```
pub fn resolve_ref(table: &RefTable, reference: &str) -> Result<(String, i64), CommandError> {
    let stale = |reason: &str| CommandError::StaleRef {
        reference: reference.to_owned(),
        reason: reason.to_owned(),
    };
    let entry = table
        .lookup(reference)
        .ok_or_else(|| stale("the last snapshot gave no such ref"))?;
    let node = entry
        .target
        .backend_node_id
        .ok_or_else(|| stale("it names no DOM node"))?;
    Ok((entry.target.frame_id.clone(), node))
}
