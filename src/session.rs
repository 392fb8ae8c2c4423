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

    /// The frame a console message in execution context `context` came from: the
    /// context's frame, else the session's own frame.
    pub fn frame_of_context(&self, context: Option<i64>) -> Option<Arc<str>> {
        context
            .and_then(|c| self.context_frame(c))
            .cloned()
            .or_else(|| match self.kind {
                TargetKind::Page | TargetKind::Iframe => Some(self.target_id.clone()),
                _ => None,
            })
    }
}

/// Where a console message came from: its session's id as stored and its frame.
#[derive(Debug, Clone)]
pub(crate) struct ConsoleSource {
    pub session_id: Arc<str>,
    pub frame_id: Option<Arc<str>>,
}

/// Every attached session.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    by_id: BTreeMap<Arc<str>, Session>,
    /// The last console source found: session id, execution context, and what they gave.
    /// A busy page logs from one context in bursts, and this spares each line the map
    /// lookup. Every change to the sessions (all go through the methods below) drops it.
    last_console_source: Option<(Option<i64>, ConsoleSource)>,
    /// How many times a session was forgotten: while it stays the same, a session found
    /// here before is still here (the browser's route cache relies on it).
    removals: u64,
}

impl Sessions {
    pub fn get(&self, id: &str) -> Option<&Session> {
        self.by_id.get(id)
    }

    /// Where a console message of session `id` in execution context `context` came from
    /// (see [`Session::frame_of_context`]); `None` if the session is not tracked.
    pub fn console_source(&mut self, id: &str, context: Option<i64>) -> Option<&ConsoleSource> {
        let hit = self
            .last_console_source
            .as_ref()
            .is_some_and(|(c, source)| *c == context && *source.session_id == *id);
        if !hit {
            let (session_id, s) = self.by_id.get_key_value(id)?;
            let source = ConsoleSource {
                session_id: Arc::clone(session_id),
                frame_id: s.frame_of_context(context),
            };
            self.last_console_source = Some((context, source));
        }
        self.last_console_source.as_ref().map(|(_, source)| source)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Session> {
        self.last_console_source = None;
        self.by_id.get_mut(id)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// Every session's id, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.by_id.keys().map(|k| &**k)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn insert(&mut self, id: &str, session: Session) {
        self.last_console_source = None;
        self.by_id.insert(id.into(), session);
    }

    /// Forgets a session; whether it was tracked.
    pub fn remove(&mut self, id: &str) -> bool {
        self.last_console_source = None;
        self.removals = self.removals.wrapping_add(1);
        self.by_id.remove(id).is_some()
    }

    /// See `removals`.
    pub fn removals(&self) -> u64 {
        self.removals
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
        self.last_console_source = None;
        self.removals = self.removals.wrapping_add(1);
        self.by_id.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_source_follows_every_change_to_the_sessions() {
        let mut sessions = Sessions::default();
        assert!(sessions.console_source("S", Some(1)).is_none());
        sessions.insert("S", Session::new("T", TargetKind::Page, None));
        let frame = |s: &mut Sessions, ctx| s.console_source("S", ctx)?.frame_id.clone();
        assert_eq!(frame(&mut sessions, Some(1)).as_deref(), Some("T"));
        // A new context of the session moves its lines to the context's frame.
        sessions.get_mut("S").unwrap().add_context(1, "F");
        assert_eq!(frame(&mut sessions, Some(1)).as_deref(), Some("F"));
        assert_eq!(frame(&mut sessions, Some(1)).as_deref(), Some("F"));
        assert_eq!(frame(&mut sessions, Some(2)).as_deref(), Some("T"));
        sessions.get_mut("S").unwrap().clear_contexts();
        assert_eq!(frame(&mut sessions, Some(1)).as_deref(), Some("T"));
        // A session replaced under the same id, then gone.
        sessions.insert("S", Session::new("W", TargetKind::Worker, None));
        assert_eq!(frame(&mut sessions, Some(1)), None);
        assert!(sessions.console_source("S", Some(1)).is_some());
        assert!(sessions.remove("S"));
        assert!(sessions.console_source("S", Some(1)).is_none());
        sessions.insert("S", Session::new("T", TargetKind::Page, None));
        assert!(sessions.console_source("S", None).is_some());
        sessions.clear();
        assert!(sessions.console_source("S", None).is_none());
    }
}
