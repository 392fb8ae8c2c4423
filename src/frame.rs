//! Frames (SPEC §5): frame id → parent, url, origin, name, owning session, OOPIF or not.
//!
//! Plain data plus the tree walks; the supervisor decides when frames come and go and
//! emits the diffs.

use std::collections::{BTreeMap, BTreeSet};

use crate::snapshot::FrameInfo;

/// Default cap on known frames (SPEC §6.6).
pub const DEFAULT_MAX_FRAMES: usize = 10_000;

/// One known frame.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// What diffs and the snapshot show.
    pub info: FrameInfo,
    /// The session whose events describe this frame's document: the OOPIF's own session
    /// for an OOPIF, else the session that reported it.
    pub owner_session: String,
    /// Knowledge order, for the frame tree view.
    pub seq: u64,
}

/// Every known frame of the tab.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    pub by_id: BTreeMap<String, Frame>,
    next_seq: u64,
}

impl Frames {
    pub fn get(&self, id: &str) -> Option<&Frame> {
        self.by_id.get(id)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Frame> {
        self.by_id.get_mut(id)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Inserts a new frame at the end of the knowledge order.
    pub fn insert(&mut self, info: FrameInfo, owner_session: String) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.by_id.insert(
            info.frame_id.clone(),
            Frame {
                info,
                owner_session,
                seq,
            },
        );
    }

    pub fn remove(&mut self, id: &str) -> Option<Frame> {
        self.by_id.remove(id)
    }

    /// Every descendant of `id` (not `id` itself), parents before children. Cycles in
    /// hostile input cannot loop: each frame is visited once.
    pub fn descendants(&self, id: &str) -> Vec<String> {
        let mut children_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for f in self.by_id.values() {
            if let Some(p) = f.info.parent_frame_id.as_deref() {
                children_of.entry(p).or_default().push(&f.info.frame_id);
            }
        }
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        seen.insert(id);
        let mut out = Vec::new();
        let mut i = 0;
        let mut frontier = vec![id];
        while i < frontier.len() {
            let cur = frontier[i];
            i += 1;
            for &c in children_of.get(cur).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(c) {
                    frontier.push(c);
                    out.push(c.to_owned());
                }
            }
        }
        out
    }

    /// The oldest-known frame other than `keep`: the eviction victim when full.
    pub fn oldest_except(&self, keep: Option<&str>) -> Option<String> {
        self.by_id
            .values()
            .filter(|f| Some(f.info.frame_id.as_str()) != keep)
            .min_by_key(|f| f.seq)
            .map(|f| f.info.frame_id.clone())
    }

    /// Frames in knowledge order.
    pub fn in_order(&self) -> Vec<&Frame> {
        let mut v: Vec<&Frame> = self.by_id.values().collect();
        v.sort_by_key(|f| f.seq);
        v
    }

    pub fn clear(&mut self) {
        self.by_id.clear();
    }
}
