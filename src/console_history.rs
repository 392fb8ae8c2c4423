//! The console history of one tab: its last lines of every level (log, info, warning,
//! debug, error, exception, ...), each numbered from 0 for the tab's life, so that a
//! reader asks for "the lines since number K" and the supervisor keeps nothing per reader.
//! The snapshot's ring of console errors is another, older thing and stays as it is.
//!
//! A line costs a push: the slot of the evicted oldest line takes it in place, its buffers
//! kept. A
//! line of a level whose arguments the reader of the CDP message did not join (every level
//! but errors and asserts) is kept as its raw JSON arguments, copied, and joined into text
//! when it is read; arguments longer than [`MAX_CONSOLE_RAW_ARGS`] are joined at once, so
//! that a slot holds at most about [`MAX_CONSOLE_TEXT`] bytes either way.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::limits::{MAX_CONSOLE_HISTORY, MAX_CONSOLE_RAW_ARGS, MAX_CONSOLE_TEXT};
use crate::remote_object::{append_arg, truncate};

/// Playwright's console levels, the most severe first: a reader asking for one level gets
/// that level and the more severe ones.
///
/// ```
/// use cdp_supervisor::ConsoleSeverity as S;
/// assert_eq!(S::of("log"), S::Info);
/// assert_eq!(S::of("exception"), S::Error);
/// assert!(S::Warning.shows("assert"));
/// assert!(!S::Warning.shows("log"));
/// assert_eq!(S::parse("warn"), Some(S::Warning));
/// assert_eq!(S::Debug.as_str(), "debug");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConsoleSeverity {
    /// `error`, `assert` and uncaught exceptions.
    Error,
    /// `warning`.
    Warning,
    /// `log`, `info` and every other call (`table`, `dir`, `count`, ...).
    Info,
    /// `debug`, `trace` and `verbose`.
    Debug,
}

impl ConsoleSeverity {
    /// The severity of a line of Chromium's console type `kind` (`log`, `warning`, `error`,
    /// `exception`, ...).
    pub fn of(kind: &str) -> ConsoleSeverity {
        match kind {
            "error" | "assert" | "exception" => ConsoleSeverity::Error,
            "warning" | "warn" => ConsoleSeverity::Warning,
            "debug" | "trace" | "verbose" => ConsoleSeverity::Debug,
            _ => ConsoleSeverity::Info,
        }
    }

    /// Whether a line of type `kind` shows at this level (it is this severe or more).
    pub fn shows(self, kind: &str) -> bool {
        ConsoleSeverity::of(kind) <= self
    }

    /// Reads a level's name (`warn` also accepted), `None` for another word.
    pub fn parse(name: &str) -> Option<ConsoleSeverity> {
        Some(match name {
            "error" => ConsoleSeverity::Error,
            "warning" | "warn" => ConsoleSeverity::Warning,
            "info" => ConsoleSeverity::Info,
            "debug" => ConsoleSeverity::Debug,
            _ => return None,
        })
    }

    /// The level's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ConsoleSeverity::Error => "error",
            ConsoleSeverity::Warning => "warning",
            ConsoleSeverity::Info => "info",
            ConsoleSeverity::Debug => "debug",
        }
    }
}

/// One console line of a tab's history.
///
/// ```
/// use cdp_supervisor::ConsoleLine;
/// let l = ConsoleLine { index: 3, kind: "log".into(), text: "hi".into(), frame_id: None, at: 1.5 };
/// assert_eq!(serde_json::to_string(&l)?,
///     r#"{"index":3,"kind":"log","text":"hi","frame_id":null,"at":1.5}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleLine {
    /// Its number in the tab's history: 0 for the tab's first line, one more for each.
    pub index: u64,
    /// Chromium's console type (`log`, `info`, `warning`, `error`, `debug`, `assert`,
    /// `table`, ...), or `exception` for an uncaught one; [`ConsoleSeverity::of`] says its
    /// level.
    pub kind: Cow<'static, str>,
    /// The arguments joined by spaces (strings verbatim, other values by their
    /// description), or the exception's description; cut at [`MAX_CONSOLE_TEXT`].
    pub text: String,
    /// The frame that wrote it, when known.
    pub frame_id: Option<Arc<str>>,
    /// When it arrived (the supervisor's clock).
    pub at: f64,
}

/// A tab's console lines from an index on ([`crate::Supervisor::console_since`]).
///
/// ```
/// let s = cdp_supervisor::ConsoleSince::default();
/// assert!(s.lines.is_empty());
/// assert_eq!((s.next, s.dropped), (0, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConsoleSince {
    /// The lines kept from the index asked on, oldest first.
    pub lines: Vec<ConsoleLine>,
    /// The index of the tab's next line: ask from it next time.
    pub next: u64,
    /// Lines from the index asked on that the history no longer holds (it keeps the last
    /// [`MAX_CONSOLE_HISTORY`]).
    pub dropped: u64,
}

/// One kept line: its text, or its raw arguments to be joined when read.
#[derive(Debug)]
struct Slot {
    index: u64,
    kind: Cow<'static, str>,
    body: String,
    raw: bool,
    frame_id: Option<Arc<str>>,
    at: f64,
}

impl Slot {
    fn line(&self) -> ConsoleLine {
        ConsoleLine {
            index: self.index,
            kind: self.kind.clone(),
            text: if self.raw {
                joined(&self.body)
            } else {
                self.body.clone()
            },
            frame_id: self.frame_id.clone(),
            at: self.at,
        }
    }
}

/// The last [`MAX_CONSOLE_HISTORY`] console lines of one tab, numbered: line `i` sits at
/// `i % MAX_CONSOLE_HISTORY`, so a full history overwrites its oldest line in place.
#[derive(Debug, Default)]
pub(crate) struct ConsoleHistory {
    slots: Vec<Slot>,
    /// The index the next line gets: the count of lines ever pushed.
    next: u64,
}

const BOUND: u64 = MAX_CONSOLE_HISTORY as u64;
/// The buffer a reused slot keeps (bytes); a larger one is let go.
const SLOT_KEEP: usize = 512;

impl ConsoleHistory {
    /// A line whose text is known.
    pub fn push_text(&mut self, kind: &str, text: &str, frame_id: Option<&Arc<str>>, at: f64) {
        if let Some(slot) = self.slot(kind, frame_id, at) {
            slot.body.push_str(text);
            slot.raw = false;
        }
    }

    /// A line of raw console arguments (a JSON array of `RemoteObject`s).
    pub fn push_raw(&mut self, kind: &str, raw: &str, frame_id: Option<&Arc<str>>, at: f64) {
        if let Some(slot) = self.slot(kind, frame_id, at) {
            if raw.len() > MAX_CONSOLE_RAW_ARGS {
                slot.body.push_str(&joined(raw));
                slot.raw = false;
            } else {
                slot.body.push_str(raw);
                slot.raw = true;
            }
        }
    }

    /// The slot of the next line, its body empty: a new one while the history is not full,
    /// else the oldest line's. Always `Some` (`None` would be a broken invariant: the line
    /// is then not kept).
    fn slot(&mut self, kind: &str, frame_id: Option<&Arc<str>>, at: f64) -> Option<&mut Slot> {
        let index = self.next;
        self.next += 1;
        let kind = static_kind(kind);
        // While not full, line `i` is the `i`-th slot pushed, so it lands at `i % BOUND`.
        let pos = usize::try_from(index % BOUND).ok()?;
        if self.slots.len() < MAX_CONSOLE_HISTORY {
            self.slots.push(Slot {
                index,
                kind,
                body: String::new(),
                raw: false,
                frame_id: frame_id.cloned(),
                at,
            });
            return self.slots.last_mut();
        }
        let s = self.slots.get_mut(pos)?;
        s.body.clear();
        // A slot keeps its buffer for the next line, but not one a long line grew: idle
        // memory stays what the lines now held need.
        if s.body.capacity() > SLOT_KEEP {
            s.body = String::new();
        }
        // A burst comes from one frame: its id is kept rather than counted again.
        let same_frame = match (&s.frame_id, frame_id) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same_frame {
            s.frame_id = frame_id.cloned();
        }
        s.index = index;
        s.kind = kind;
        s.at = at;
        Some(s)
    }

    /// The lines from index `since` on, the next index, and how many from `since` on were
    /// dropped. An index past the next one (another tab's, or from before a restart) gets
    /// nothing and the next index.
    pub fn since(&self, since: u64) -> ConsoleSince {
        let first = self.next.saturating_sub(self.slots.len() as u64);
        let lines = (since.max(first)..self.next)
            .filter_map(|i| usize::try_from(i % BOUND).ok())
            .filter_map(|pos| self.slots.get(pos))
            .map(Slot::line)
            .collect();
        ConsoleSince {
            lines,
            next: self.next,
            dropped: first.saturating_sub(since),
        }
    }

    /// Lines held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.slots.len()
    }
}

/// Raw console arguments joined into text, as the act flow and the errors ring join them;
/// arguments that do not parse give what parsed of them (nothing, usually).
fn joined(raw: &str) -> String {
    let args: Vec<crate::cdp::RemoteObject<'_>> = serde_json::from_str(raw).unwrap_or_default();
    let mut text = String::new();
    for a in &args {
        append_arg(&mut text, a);
        if text.len() > MAX_CONSOLE_TEXT {
            break;
        }
    }
    truncate(text)
}

/// Chromium's console types without an allocation; another word is copied.
fn static_kind(kind: &str) -> Cow<'static, str> {
    const KNOWN: [&str; 20] = [
        "log",
        "error",
        "warning",
        "info",
        "debug",
        "assert",
        "exception",
        "dir",
        "dirxml",
        "table",
        "trace",
        "clear",
        "startGroup",
        "startGroupCollapsed",
        "endGroup",
        "profile",
        "profileEnd",
        "count",
        "timeEnd",
        "verbose",
    ];
    match KNOWN.iter().find(|k| **k == kind) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(kind.chars().take(64).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: &str) -> Arc<str> {
        Arc::from(id)
    }

    #[test]
    fn numbers_lines_and_answers_since_an_index() {
        let mut h = ConsoleHistory::default();
        let f = frame("F");
        h.push_text("error", "boom", Some(&f), 1.0);
        h.push_raw(
            "log",
            r#"[{"type":"string","value":"a"},{"type":"number","value":3,"description":"3"}]"#,
            Some(&f),
            2.0,
        );
        h.push_raw("warning", r#"[{"type":"string","value":"w"}]"#, None, 3.0);
        let all = h.since(0);
        assert_eq!(all.next, 3);
        assert_eq!(all.dropped, 0);
        let texts: Vec<(u64, &str, &str)> = all
            .lines
            .iter()
            .map(|l| (l.index, &*l.kind, l.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [(0, "error", "boom"), (1, "log", "a 3"), (2, "warning", "w")]
        );
        assert_eq!(all.lines[1].frame_id.as_deref(), Some("F"));
        assert_eq!(all.lines[2].frame_id, None);
        assert_eq!(all.lines[1].at, 2.0);
        let later = h.since(2);
        assert_eq!(later.lines.len(), 1);
        assert_eq!(later.lines[0].text, "w");
        assert_eq!(later.next, 3);
        // At the end, and past it: nothing, the same next index.
        assert!(h.since(3).lines.is_empty());
        assert_eq!(
            h.since(99),
            ConsoleSince {
                lines: vec![],
                next: 3,
                dropped: 0
            }
        );
    }

    #[test]
    fn bounded_the_oldest_dropped_and_counted() {
        let mut h = ConsoleHistory::default();
        let total = MAX_CONSOLE_HISTORY as u64 + 50;
        for i in 0..total {
            h.push_text("log", &format!("line {i}"), None, i as f64);
        }
        assert_eq!(h.len(), MAX_CONSOLE_HISTORY);
        let all = h.since(0);
        assert_eq!(all.lines.len(), MAX_CONSOLE_HISTORY);
        assert_eq!(all.dropped, 50);
        assert_eq!(all.next, total);
        assert_eq!(all.lines[0].index, 50);
        assert_eq!(all.lines[0].text, "line 50");
        assert_eq!(
            all.lines.last().map(|l| l.text.as_str()),
            Some(&*format!("line {}", total - 1))
        );
        // A reader that was 10 lines behind the oldest kept one loses those 10.
        let behind = h.since(40);
        assert_eq!(behind.dropped, 10);
        assert_eq!(behind.lines.len(), MAX_CONSOLE_HISTORY);
        // A reader within the ring loses nothing.
        let within = h.since(total - 5);
        assert_eq!((within.dropped, within.lines.len()), (0, 5));
        assert_eq!(within.lines[0].index, total - 5);
    }

    #[test]
    fn a_reused_slot_takes_the_new_line_whole() {
        let mut h = ConsoleHistory::default();
        let (a, b) = (frame("A"), frame("B"));
        for i in 0..MAX_CONSOLE_HISTORY {
            h.push_raw(
                "log",
                r#"[{"type":"string","value":"old"}]"#,
                Some(&a),
                i as f64,
            );
        }
        h.push_text("exception", "Error: new", Some(&b), 1e6);
        h.push_raw(
            "debug",
            r#"[{"type":"string","value":"d"}]"#,
            None,
            1e6 + 1.0,
        );
        let s = h.since(MAX_CONSOLE_HISTORY as u64);
        assert_eq!(s.lines.len(), 2);
        assert_eq!(
            (
                &*s.lines[0].kind,
                s.lines[0].text.as_str(),
                s.lines[0].frame_id.as_deref()
            ),
            ("exception", "Error: new", Some("B"))
        );
        assert_eq!(
            (
                &*s.lines[1].kind,
                s.lines[1].text.as_str(),
                s.lines[1].frame_id.as_deref()
            ),
            ("debug", "d", None)
        );
    }

    #[test]
    fn long_raw_arguments_are_joined_at_once_and_cut() {
        let mut h = ConsoleHistory::default();
        let long = "x".repeat(MAX_CONSOLE_RAW_ARGS * 2);
        let raw = format!(r#"[{{"type":"string","value":"{long}"}}]"#);
        h.push_raw("info", &raw, None, 0.0);
        let slot = h.slots.first().map(|s| (s.raw, s.body.len()));
        assert_eq!(slot, Some((false, MAX_CONSOLE_TEXT + '…'.len_utf8())));
        assert!(h.since(0).lines[0].text.ends_with('…'));
        // Arguments that do not parse are not an error: an empty text.
        h.push_raw("info", "[{", None, 1.0);
        assert_eq!(h.since(1).lines[0].text, "");
    }

    #[test]
    fn unknown_kinds_are_kept_and_bounded() {
        assert!(matches!(static_kind("table"), Cow::Borrowed("table")));
        assert_eq!(static_kind(&"k".repeat(500)).len(), 64);
    }

    #[test]
    fn severities_follow_playwright() {
        use ConsoleSeverity as S;
        for (kind, level) in [
            ("error", S::Error),
            ("assert", S::Error),
            ("exception", S::Error),
            ("warning", S::Warning),
            ("log", S::Info),
            ("info", S::Info),
            ("table", S::Info),
            ("debug", S::Debug),
            ("trace", S::Debug),
        ] {
            assert_eq!(S::of(kind), level, "{kind}");
        }
        assert!(S::Error.shows("exception") && !S::Error.shows("warning"));
        assert!(S::Info.shows("warning") && !S::Info.shows("debug"));
        assert!(S::Debug.shows("debug") && S::Debug.shows("log"));
        assert_eq!(S::parse("verbose"), None);
    }
}
