//! Sessions (see [rules](crate::manual::rules), the supervisor's state): session id → target, type, parent session, set-up state, and the
//! execution contexts that map console messages to frames.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use smallvec::SmallVec;

pub use crate::limits::DEFAULT_MAX_SESSIONS;
use crate::limits::MAX_CONTEXTS_PER_SESSION;

/// What a session is attached to (`targetInfo.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// The supervised tab.
    Page,
    /// An out-of-process iframe (see [chromium_facts](crate::manual::chromium_facts), a cross-origin iframe is a child session that waits).
    Iframe,
    /// A dedicated or shared worker (see [chromium_facts](crate::manual::chromium_facts), workers).
    Worker,
    /// Anything else auto-attach brings.
    Other,
}

impl TargetKind {
    pub fn from_cdp(kind: &str) -> TargetKind {
        match kind {
            "page" => TargetKind::Page,
            "iframe" => TargetKind::Iframe,
            "worker" | "shared_worker" => TargetKind::Worker,
            _ => TargetKind::Other,
        }
    }
}

/// One attached session. Its target id, like the session id it is stored under, is an
/// `Arc<str>` shared with the console entries that name it: a busy page logs thousands,
/// and each would otherwise copy both ids.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub target_id: Arc<str>,
    pub kind: TargetKind,
    /// `None` for the page session.
    pub parent: Option<String>,
    /// Set when `Inspector.targetCrashed` arrived on it.
    pub crashed: bool,
    /// Execution context id → frame id, newest last.
    pub contexts: SmallVec<[(i64, Arc<str>); 4]>,
    /// The latest default (main-world) context per frame of this session, for evaluating
    /// in an in-process frame: frame, context id, unique id. Newest last; at most
    /// [`MAX_CONTEXTS_PER_SESSION`] (the oldest is forgotten).
    pub default_contexts: SmallVec<[DefaultContext; 2]>,
}

/// A frame's default execution context, as `Runtime.executionContextCreated` gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DefaultContext {
    pub frame_id: Arc<str>,
    pub id: i64,
    pub unique_id: String,
}

impl Session {
    pub fn new(target_id: &str, kind: TargetKind, parent: Option<String>) -> Self {
        Session {
            target_id: target_id.into(),
            kind,
            parent,
            crashed: false,
            contexts: SmallVec::new(),
            default_contexts: SmallVec::new(),
        }
    }

    pub fn add_context(&mut self, id: i64, frame_id: &str) {
        self.contexts.retain(|(c, _)| *c != id);
        if self.contexts.len() >= MAX_CONTEXTS_PER_SESSION {
            self.contexts.remove(0);
        }
        self.contexts.push((id, frame_id.into()));
    }

    /// A frame's new default context replaces the one it had (a frame gets several over
    /// time: the initial `about:blank` one, then its document's).
    pub fn set_default_context(&mut self, frame_id: &str, id: i64, unique_id: &str) {
        self.default_contexts
            .retain(|c| &*c.frame_id != frame_id && c.id != id);
        if self.default_contexts.len() >= MAX_CONTEXTS_PER_SESSION {
            self.default_contexts.remove(0);
        }
        self.default_contexts.push(DefaultContext {
            frame_id: frame_id.into(),
            id,
            unique_id: unique_id.to_owned(),
        });
    }

    /// Forgets a destroyed context.
    pub fn remove_context(&mut self, id: i64) {
        self.contexts.retain(|(c, _)| *c != id);
        self.default_contexts.retain(|c| c.id != id);
    }

    /// Forgets every context (`Runtime.executionContextsCleared`).
    pub fn clear_contexts(&mut self) {
        self.contexts.clear();
        self.default_contexts.clear();
    }

    /// The unique id of `frame_id`'s latest default context, if one is known.
    pub fn default_context(&self, frame_id: &str) -> Option<&str> {
        self.default_contexts
            .iter()
            .rev()
            .find(|c| &*c.frame_id == frame_id)
            .map(|c| c.unique_id.as_str())
    }

    pub fn context_frame(&self, id: i64) -> Option<&Arc<str>> {
        self.contexts.iter().find(|(c, _)| *c == id).map(|(_, f)| f)
    }
}

/// Every attached session.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    pub by_id: BTreeMap<Arc<str>, Session>,
}

impl Sessions {
    pub fn get(&self, id: &str) -> Option<&Session> {
        self.by_id.get(id)
    }

    /// The session with its id as stored (shared, for records that name it).
    pub fn get_with_id(&self, id: &str) -> Option<(&Arc<str>, &Session)> {
        self.by_id.get_key_value(id)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Session> {
        self.by_id.get_mut(id)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn insert(&mut self, id: &str, session: Session) {
        self.by_id.insert(id.into(), session);
    }

    /// `id` and every session below it, parents first (see [chromium_facts](crate::manual::chromium_facts), a navigation drops nested sessions silently: nested sessions vanish with
    /// their parent). Visits each session once, so a hostile parent cycle cannot loop.
    pub fn self_and_descendants(&self, id: &str) -> Vec<String> {
        if !self.contains(id) {
            return Vec::new();
        }
        let mut children_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (sid, s) in &self.by_id {
            if let Some(p) = s.parent.as_deref() {
                children_of.entry(p).or_default().push(sid);
            }
        }
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        seen.insert(id);
        let mut out = vec![id.to_owned()];
        let mut frontier = vec![id];
        while let Some(cur) = frontier.pop() {
            for &c in children_of.get(cur).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(c) {
                    frontier.push(c);
                    out.push(c.to_owned());
                }
            }
        }
        out
    }

    pub fn clear(&mut self) {
        self.by_id.clear();
    }
}
