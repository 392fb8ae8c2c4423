//! Refs that stay the same across snapshots.
//!
//! A ref names a node an agent may act on. A node seen in the last snapshot (same frame, same
//! document, same `backend_node_id`) keeps its ref in the next one, so an agent's plan survives
//! a re-snapshot; a new node gets the next number. Numbers are never reused, so a ref an agent
//! kept from an older snapshot can never point at a different node: it resolves or it is stale.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// What a ref names, as the snapshot's `refs` list shows it.
///
/// ```
/// use cdp_supervisor::ax::AxRef;
/// let r = AxRef { id: "e5".into(), role: "button".into(), name: "OK".into(), nth: 0,
///     frame_id: "F".into(), backend_node_id: Some(41) };
/// assert_eq!(serde_json::to_string(&r)?,
///     r#"{"ref":"e5","role":"button","name":"OK","nth":0,"frame_id":"F","backend_node_id":41}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxRef {
    /// `e1`, `e2`, ...
    #[serde(rename = "ref")]
    pub id: String,
    /// The role as the outline shows it.
    pub role: String,
    /// The accessible name.
    pub name: String,
    /// Index among the snapshot's nodes of the same `(role, name)` in the same frame.
    pub nth: u32,
    /// The frame the node lives in.
    pub frame_id: String,
    /// The DOM node behind it (absent only for nodes Chromium gives none).
    pub backend_node_id: Option<i64>,
}

/// A ref of the last snapshot with the document it was taken in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefEntry {
    /// The ref as the snapshot listed it.
    pub target: AxRef,
    /// The frame's document when the ref was taken (a navigation makes a new one).
    pub document: String,
}

type NodeKey = (String, String, i64);

/// The refs of the last snapshot, and the next number to give.
///
/// Bounded by the last snapshot's size: a snapshot replaces the table, so refs of nodes
/// that are gone are dropped (and later reported stale).
///
/// ```
/// use cdp_supervisor::ax::RefTable;
/// let mut table = RefTable::default();
/// let first = table.assign("F", "doc-1", Some(7));
/// table.commit();
/// assert_eq!(table.assign("F", "doc-1", Some(7)), first, "same node, same ref");
/// assert_ne!(table.assign("F", "doc-2", Some(7)), first, "a new document is new nodes");
/// ```
#[derive(Debug, Default)]
pub struct RefTable {
    next: u64,
    last: HashMap<NodeKey, u64>,
    building: HashMap<NodeKey, u64>,
    entries: BTreeMap<u64, RefEntry>,
    building_entries: HashMap<u64, RefEntry>,
    /// Set for a scoped snapshot: its commit keeps the other refs, up to this many.
    merge_cap: Option<usize>,
}

/// Reads `e12` as 12.
///
/// ```
/// assert_eq!(cdp_supervisor::ax::ref_number("e12"), Some(12));
/// assert_eq!(cdp_supervisor::ax::ref_number("12"), None);
/// ```
pub fn ref_number(reference: &str) -> Option<u64> {
    reference.strip_prefix('e')?.parse().ok()
}

impl RefTable {
    /// The ref number for a node of the snapshot being built: its old one when the last
    /// snapshot had the same node, else a new one.
    pub fn assign(&mut self, frame_id: &str, document: &str, backend_node_id: Option<i64>) -> u64 {
        let Some(backend) = backend_node_id else {
            return self.fresh();
        };
        let key = (frame_id.to_owned(), document.to_owned(), backend);
        if self.building.contains_key(&key) {
            // The same node twice in one snapshot (a malformed tree): a second ref.
            return self.fresh();
        }
        let n = match self.last.get(&key) {
            Some(&n) => n,
            None => self.fresh(),
        };
        self.building.insert(key, n);
        n
    }

    fn fresh(&mut self) -> u64 {
        self.next = self.next.saturating_add(1);
        self.next
    }

    /// Records what a ref of the snapshot being built names.
    pub fn describe(&mut self, number: u64, entry: RefEntry) {
        self.building_entries.insert(number, entry);
    }

    /// Makes the next [`RefTable::commit`] keep the refs it does not replace (a snapshot
    /// scoped to one frame or subtree), keeping at most `cap` refs: beyond it the oldest
    /// numbers go.
    ///
    /// ```
    /// use cdp_supervisor::ax::{AxRef, RefEntry, RefTable};
    /// let mut table = RefTable::default();
    /// let entry = |n: u64, b: i64| RefEntry { document: "d".into(), target: AxRef { id: format!("e{n}"),
    ///     role: "button".into(), name: String::new(), nth: 0, frame_id: "F".into(), backend_node_id: Some(b) } };
    /// let a = table.assign("F", "d", Some(1));
    /// table.describe(a, entry(a, 1));
    /// table.commit();
    /// table.keep_others_on_commit(10);
    /// let b = table.assign("F", "d", Some(2));
    /// table.describe(b, entry(b, 2));
    /// table.commit();
    /// assert!(table.lookup("e1").is_some() && table.lookup("e2").is_some());
    /// ```
    pub fn keep_others_on_commit(&mut self, cap: usize) {
        self.merge_cap = Some(cap);
    }

    /// Ends the snapshot being built: it becomes the table refs resolve against. Only refs
    /// that were described (shown to the agent) resolve.
    pub fn commit(&mut self) {
        let building = std::mem::take(&mut self.building);
        let entries = std::mem::take(&mut self.building_entries);
        let Some(cap) = self.merge_cap.take() else {
            self.last = building;
            self.entries = entries.into_iter().collect();
            return;
        };
        self.last.extend(building);
        self.entries.extend(entries);
        while self.entries.len() > cap {
            let Some((_, gone)) = self.entries.pop_first() else {
                break;
            };
            if let Some(b) = gone.target.backend_node_id {
                self.last.remove(&(gone.target.frame_id, gone.document, b));
            }
        }
    }

    /// Drops the snapshot being built (its build failed): the last one stays.
    pub fn abandon(&mut self) {
        self.building.clear();
        self.building_entries.clear();
        self.merge_cap = None;
    }

    /// `reference` names another DOM node now (its node was replaced by one with the same
    /// role, name and nth): later snapshots and resolutions use the new one.
    pub fn rebind(&mut self, reference: &str, backend_node_id: i64) {
        let Some(n) = ref_number(reference) else {
            return;
        };
        let Some(entry) = self.entries.get_mut(&n) else {
            return;
        };
        let (frame, document) = (entry.target.frame_id.clone(), entry.document.clone());
        if let Some(old) = entry.target.backend_node_id.replace(backend_node_id) {
            self.last.remove(&(frame.clone(), document.clone(), old));
        }
        self.last.insert((frame, document, backend_node_id), n);
    }

    /// What `e12` named in the last snapshot.
    pub fn lookup(&self, reference: &str) -> Option<&RefEntry> {
        self.entries.get(&ref_number(reference)?)
    }

    /// How many refs the last snapshot gave.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no snapshot gave refs yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
