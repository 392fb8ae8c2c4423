//! `wait` inside the act flow: text looked for in every frame by a cheap poll, or a sleep.
//!
//! A poll is one `Runtime.evaluate` per frame, each on the session that owns the frame (an
//! OOPIF's own, else its owner's with the frame's default context), reading the rendered
//! text (`innerText`: what is hidden is not there), white space collapsed and lower-cased,
//! and answering whether it holds the text. Text appears as soon as one frame says so;
//! it is gone when a whole round answered and no frame holds it. Rounds are
//! [`WAIT_POLL_EVERY`](crate::act::WAIT_POLL_EVERY) apart; the flow's one budget ends the wait (an error naming it). Why
//! a poll and not the accessibility tree: see the manual's rules, "waiting for text".

use std::time::Duration;

use serde_json::{json, Value};

use crate::act::WaitFor;
use crate::ax::DEFAULT_MAX_AX_FRAMES;
use crate::tab::Tab;

/// How long one frame's poll may take before it counts as "could not say": a busy frame
/// delays the next round by at most this.
pub(crate) const POLL_DEADLINE: f64 = 2.0;

/// Where one frame's poll goes: the session, and the frame's default context when the
/// frame shares its owner's session.
pub(crate) struct PollTarget {
    pub session: String,
    pub params: Value,
}

/// A `wait` in progress.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub what: WaitFor,
    pub started_at: f64,
    /// When the next round is due (text), or when the sleep ends (time).
    pub next_at: f64,
    /// Polls of the current round not answered yet.
    pub pending: usize,
    /// Polls of the current round that answered.
    pub answered: usize,
    /// Frames of the current round that hold the text.
    pub holding: usize,
}

impl Waiting {
    pub fn new(what: WaitFor, now: f64) -> Waiting {
        let next_at = match &what {
            WaitFor::Time(d) => now + d.as_secs_f64(),
            _ => now,
        };
        Waiting {
            what,
            started_at: now,
            next_at,
            pending: 0,
            answered: 0,
            holding: 0,
        }
    }

    /// The text looked for, lower-cased with white space collapsed (`None`: a sleep).
    fn needle(&self) -> Option<String> {
        match &self.what {
            WaitFor::Text(t) | WaitFor::TextGone(t) => Some(normalize(t)),
            WaitFor::Time(_) => None,
        }
    }

    /// A new round's polls, one per frame of the tab (at most the snapshot's frame budget).
    pub fn start_round(&mut self, tab: &Tab, now: f64) -> Vec<PollTarget> {
        self.answered = 0;
        self.holding = 0;
        self.next_at = now + crate::act::WAIT_POLL_EVERY.as_secs_f64();
        let Some(needle) = self.needle() else {
            return Vec::new();
        };
        let expression = format!(
            "(() => {{ const b = document.body || document.documentElement; if (!b) return false; \
             return (b.innerText || '').replace(/\\s+/g, ' ').toLowerCase().includes({}); }})()",
            Value::String(needle)
        );
        let targets = poll_targets(tab, &expression);
        self.pending = targets.len();
        targets
    }

    /// One frame answered (`holds`: `None` when it could not say). `Some(true)`: the
    /// wait is over.
    pub fn on_answer(&mut self, holds: Option<bool>) -> bool {
        self.pending = self.pending.saturating_sub(1);
        if let Some(h) = holds {
            self.answered += 1;
            self.holding += usize::from(h);
        }
        match self.what {
            WaitFor::Text(_) => self.holding > 0,
            WaitFor::TextGone(_) => self.pending == 0 && self.answered > 0 && self.holding == 0,
            WaitFor::Time(_) => false,
        }
    }

    /// How long it has waited, in milliseconds.
    pub fn waited_ms(&self, now: f64) -> u64 {
        Duration::try_from_secs_f64((now - self.started_at).max(0.0))
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

/// Lower case, white space collapsed and trimmed: as the poll reads the page.
fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One evaluate per frame: the top frame and OOPIFs on their own sessions, in-process
/// frames in their default context on their owner's session; crashed sessions and frames
/// without a context yet are skipped (a later round sees them).
fn poll_targets(tab: &Tab, expression: &str) -> Vec<PollTarget> {
    let Some(page_session) = tab.page_session() else {
        return Vec::new();
    };
    let top = tab.page_target();
    let mut targets = Vec::new();
    for frame in tab.frames.in_order().take(DEFAULT_MAX_AX_FRAMES) {
        let id = frame.info.frame_id.as_str();
        let mut params = json!({"expression": expression, "returnByValue": true});
        let session = if Some(id) == top {
            page_session.to_owned()
        } else if let Some(own) = &frame.info.session_id {
            own.clone()
        } else {
            let context = tab
                .sessions
                .get(&frame.owner_session)
                .and_then(|s| s.default_context(id));
            let Some(context) = context else {
                continue;
            };
            // `params` is the object built above: indexing inserts, it cannot panic.
            params["uniqueContextId"] = Value::String(context.to_owned());
            frame.owner_session.clone()
        };
        if tab.sessions.get(&session).is_none_or(|s| s.crashed) {
            continue;
        }
        targets.push(PollTarget { session, params });
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_appears_at_the_first_frame_that_holds_it() {
        let mut w = Waiting::new(WaitFor::Text("Done".into()), 0.0);
        w.pending = 3;
        assert!(!w.on_answer(Some(false)));
        assert!(!w.on_answer(None));
        assert!(w.on_answer(Some(true)));
    }

    #[test]
    fn text_is_gone_only_when_a_whole_round_says_so() {
        let mut w = Waiting::new(WaitFor::TextGone("Loading".into()), 0.0);
        w.pending = 2;
        assert!(!w.on_answer(Some(false)));
        assert!(w.on_answer(Some(false)));
        w.pending = 2;
        (w.answered, w.holding) = (0, 0);
        assert!(!w.on_answer(None));
        assert!(!w.on_answer(None), "no frame answered: unknown, not gone");
    }

    #[test]
    fn the_needle_is_normalized() {
        assert_eq!(normalize("  Hello \n  World "), "hello world");
    }
}
