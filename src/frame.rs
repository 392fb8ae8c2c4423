//! Frames (see [rules](crate::manual::rules), the supervisor's state): frame id → parent, url, origin, name, owning session, OOPIF or not.
//!
//! Plain data plus the tree walks; the supervisor decides when frames come and go and
//! emits the diffs.

use std::collections::{BTreeMap, BTreeSet};

use crate::snapshot::FrameInfo;

pub use crate::limits::DEFAULT_MAX_FRAMES;

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
    /// The frame's current document: a number new on the frame's insertion and on each
    /// cross-document navigation (`Page.frameNavigated`), never reused (the accessibility
    /// refs of an older document are stale).
    pub document: u64,
}

/// Every known frame of the tab, indexed by id, by knowledge order and by parent, so that
/// eviction, subtree walks and removals cost O(log n) per frame touched, also at the cap.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    by_id: BTreeMap<String, Frame>,
    /// Knowledge order → id: the oldest is the eviction victim.
    by_seq: BTreeMap<u64, String>,
    /// Parent id → child ids (the parent need not be known: orphans wait here).
    children: BTreeMap<String, BTreeSet<String>>,
    next_seq: u64,
}

impl Frames {
    pub fn get(&self, id: &str) -> Option<&Frame> {
        self.by_id.get(id)
    }

    /// The frame is an OOPIF with its own `session`: the one place that sets `is_oopif`,
    /// `session_id` and the owning session together.
    pub fn make_oopif(&mut self, id: &str, session: &str) {
        if let Some(frame) = self.by_id.get_mut(id) {
            frame.owner_session.replace_range(.., session);
            frame.info.is_oopif = true;
            match &mut frame.info.session_id {
                Some(s) => s.replace_range(.., session),
                none => *none = Some(session.to_owned()),
            }
        }
    }

    /// The frame went back in-process, owned by `parent_session` (the other half of
    /// [`Frames::make_oopif`]).
    pub fn make_in_process(&mut self, id: &str, parent_session: &str) {
        if let Some(frame) = self.by_id.get_mut(id) {
            frame.owner_session.replace_range(.., parent_session);
            frame.info.is_oopif = false;
            frame.info.session_id = None;
        }
    }

    /// Applies `change` to a frame's info, keeping the parent index right and refusing a
    /// frame that would be its own parent. Returns the info before, or `None` for an
    /// unknown frame.
    pub fn change(&mut self, id: &str, change: impl FnOnce(&mut FrameInfo)) -> Option<FrameInfo> {
        let frame = self.by_id.get_mut(id)?;
        let before = frame.info.clone();
        change(&mut frame.info);
        // Whether it is an OOPIF changes only through `make_oopif` / `make_in_process`.
        frame.info.is_oopif = before.is_oopif;
        frame.info.session_id.clone_from(&before.session_id);
        if frame.info.parent_frame_id.as_deref() == Some(id) {
            frame
                .info
                .parent_frame_id
                .clone_from(&before.parent_frame_id);
        }
        if before.parent_frame_id != frame.info.parent_frame_id {
            let after = frame.info.parent_frame_id.clone();
            self.unlink(id, before.parent_frame_id.as_deref());
            self.link(id, after.as_deref());
        }
        Some(before)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// A cross-document navigation of `id`: it gets a new document number.
    pub fn new_document(&mut self, id: &str) {
        if let Some(frame) = self.by_id.get_mut(id) {
            frame.document = self.next_seq;
            self.next_seq += 1;
        }
    }

    /// The direct children of `id`, in id order.
    pub fn children_of(&self, id: &str) -> impl Iterator<Item = &String> {
        self.children.get(id).into_iter().flatten()
    }

    /// Inserts a new frame at the end of the knowledge order.
    /// Adds a frame; with `info.is_oopif`, its own session (`info.session_id`) owns it.
    pub fn insert(&mut self, mut info: FrameInfo, mut owner_session: String) {
        match (&info.session_id, info.is_oopif) {
            (Some(own), true) => owner_session.clone_from(own),
            _ => {
                info.is_oopif = false;
                info.session_id = None;
            }
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let id = info.frame_id.clone();
        if let Some(old) = self.remove(&id) {
            // Re-inserting a known id replaces it (the supervisor checks first).
            drop(old);
        }
        self.link(&id, info.parent_frame_id.as_deref());
        self.by_seq.insert(seq, id.clone());
        self.by_id.insert(
            id,
            Frame {
                info,
                owner_session,
                seq,
                document: seq,
            },
        );
    }

    pub fn remove(&mut self, id: &str) -> Option<Frame> {
        let frame = self.by_id.remove(id)?;
        self.by_seq.remove(&frame.seq);
        self.unlink(id, frame.info.parent_frame_id.as_deref());
        Some(frame)
    }

    fn link(&mut self, id: &str, parent: Option<&str>) {
        if let Some(p) = parent {
            self.children
                .entry(p.to_owned())
                .or_default()
                .insert(id.to_owned());
        }
    }

    fn unlink(&mut self, id: &str, parent: Option<&str>) {
        if let Some(p) = parent {
            if let Some(set) = self.children.get_mut(p) {
                set.remove(id);
                if set.is_empty() {
                    self.children.remove(p);
                }
            }
        }
    }

    /// Every descendant of `id` (not `id` itself), parents before children, each once even
    /// if hostile input made a cycle.
    pub fn descendants(&self, id: &str) -> Vec<String> {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        seen.insert(id);
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        let mut frontier: Vec<&str> = vec![id];
        while let Some(&cur) = frontier.get(i) {
            i += 1;
            for c in self.children.get(cur).into_iter().flatten() {
                if seen.insert(c) {
                    frontier.push(c);
                    out.push(c.clone());
                }
            }
        }
        out
    }

    /// The oldest-known frame other than `keep`: the eviction victim when full.
    pub fn oldest_except(&self, keep: Option<&str>) -> Option<String> {
        self.by_seq
            .values()
            .find(|id| Some(id.as_str()) != keep)
            .cloned()
    }

    /// Frames in knowledge order.
    pub fn in_order(&self) -> impl Iterator<Item = &Frame> {
        self.by_seq.values().filter_map(|id| self.by_id.get(id))
    }

    /// Frames whose owner is one of `sessions`, in knowledge order.
    pub fn owned_by(&self, sessions: &[String]) -> Vec<String> {
        // In insertion order, without a lookup per frame (`in_order` looks each one up).
        let mut owned: Vec<&Frame> = self
            .by_id
            .values()
            .filter(|f| sessions.contains(&f.owner_session))
            .collect();
        owned.sort_unstable_by_key(|f| f.seq);
        owned.iter().map(|f| f.info.frame_id.clone()).collect()
    }

    pub fn clear(&mut self) {
        self.by_id.clear();
        self.by_seq.clear();
        self.children.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, parent: Option<&str>) -> FrameInfo {
        FrameInfo {
            frame_id: id.into(),
            parent_frame_id: parent.map(Into::into),
            url: String::new(),
            origin: String::new(),
            name: String::new(),
            is_oopif: false,
            session_id: None,
            crashed: false,
        }
    }

    #[test]
    fn indexes_follow_inserts_reparents_and_removals() {
        let mut f = Frames::default();
        f.insert(info("T", None), "S".into());
        f.insert(info("A", Some("T")), "S".into());
        f.insert(info("B", Some("A")), "S".into());
        f.insert(info("C", Some("B")), "S".into());
        assert_eq!(f.descendants("A"), ["B", "C"]);
        f.change("C", |i| i.parent_frame_id = Some("T".into()));
        assert_eq!(f.descendants("A"), ["B"]);
        assert_eq!(f.descendants("T"), ["A", "C", "B"]);
        f.remove("A");
        assert_eq!(f.descendants("T"), ["C"]);
        assert_eq!(f.oldest_except(Some("T")).as_deref(), Some("B"));
        f.change("B", |i| i.parent_frame_id = Some("B".into()));
        let parent = f.get("B").unwrap().info.parent_frame_id.clone();
        assert_eq!(
            parent.as_deref(),
            Some("A"),
            "never its own parent: the old one stays"
        );
    }

    #[test]
    fn cycles_do_not_loop() {
        let mut f = Frames::default();
        f.insert(info("X", Some("Y")), "S".into());
        f.insert(info("Y", Some("X")), "S".into());
        assert_eq!(f.descendants("X"), ["Y"]);
    }
}
