//! Recorded traces (see [rules](crate::manual::rules), recorded traces): parsing, and replaying one into a supervisor.
//!
//! A trace is JSON Lines: `{"t": secs, "dir": "in"|"out"|"connect"|"disconnect", "msg": {..}}`.
//! Replay feeds the `in` messages at their times. The supervisor's own commands get other
//! ids than the recorded ones, so a recorded reply goes to the supervisor's oldest
//! unanswered command with the same method and session, with the id rewritten; replies
//! that match none are dropped, and the supervisor's commands that match no recording
//! get no reply (their deadlines fire as time passes).

use std::collections::{BTreeMap, VecDeque};

use serde::Deserialize;
use serde_json::value::RawValue;
use thiserror::Error;

use crate::error::InputError;
use crate::supervisor::Supervisor;
use crate::wire::Envelope;

/// Which way a trace line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the browser.
    In,
    /// To the browser.
    Out,
    /// The WebSocket opened.
    Connect,
    /// The WebSocket closed.
    Disconnect,
}

/// One line of a trace, borrowing its message from the trace text.
#[derive(Debug, Clone, Deserialize)]
pub struct TraceEntry<'a> {
    /// Seconds since the start.
    pub t: f64,
    /// Direction.
    pub dir: Direction,
    /// The CDP message exactly as sent (absent for connect/disconnect).
    #[serde(default, borrow)]
    pub msg: Option<&'a RawValue>,
}

/// A line that is not a trace entry.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("trace line {line}: {error}")]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub error: String,
}

/// A parsed trace.
///
/// ```
/// use cdp_supervisor::replay::Trace;
/// let text = "{\"t\":0.0,\"dir\":\"connect\"}\n{\"t\":0.1,\"dir\":\"in\",\"msg\":{\"method\":\"X.y\",\"params\":{}}}\n";
/// let trace = Trace::parse(text)?;
/// assert_eq!(trace.entries.len(), 2);
/// assert!(Trace::parse("{\"t\":0,\"dir\":\"sideways\"}").is_err());
/// # Ok::<(), cdp_supervisor::replay::TraceError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Trace<'a> {
    /// The entries in file order.
    pub entries: Vec<TraceEntry<'a>>,
}

impl<'a> Trace<'a> {
    /// Parses JSON Lines; blank lines are skipped. `t` must not decrease.
    pub fn parse(text: &'a str) -> Result<Self, TraceError> {
        let mut entries: Vec<TraceEntry<'a>> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry: TraceEntry<'a> = serde_json::from_str(line).map_err(|e| TraceError {
                line: i + 1,
                error: e.to_string(),
            })?;
            if !entry.t.is_finite() || entries.last().is_some_and(|p| entry.t < p.t) {
                return Err(TraceError {
                    line: i + 1,
                    error: format!("time {} goes backwards or is not finite", entry.t),
                });
            }
            if matches!(entry.dir, Direction::In | Direction::Out) && entry.msg.is_none() {
                return Err(TraceError {
                    line: i + 1,
                    error: "an in/out line needs \"msg\"".into(),
                });
            }
            entries.push(entry);
        }
        Ok(Trace { entries })
    }

    /// The bridge token a recorded session used: the one in the first
    /// `Page.addScriptToEvaluateOnNewDocument` it sent (see [`crate::bridge::token_in_script`]).
    /// Replaying with it lets the recorded bridge requests become dialogs again.
    pub fn recorded_bridge_token(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Out<'a> {
            #[serde(borrow)]
            method: Option<std::borrow::Cow<'a, str>>,
            params: Option<Source>,
        }
        #[derive(Deserialize)]
        struct Source {
            source: Option<String>,
        }
        self.entries
            .iter()
            .filter(|e| e.dir == Direction::Out)
            .filter_map(|e| serde_json::from_str::<Out<'_>>(e.msg?.get()).ok())
            .filter(|m| m.method.as_deref() == Some("Page.addScriptToEvaluateOnNewDocument"))
            .find_map(|m| crate::bridge::token_in_script(&m.params?.source?))
    }

    /// The `in` messages as text, in order (what a benchmark feeds).
    pub fn incoming(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries
            .iter()
            .filter(|e| e.dir == Direction::In)
            .filter_map(|e| e.msg.map(RawValue::get))
    }
}

/// Counts of what a replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// `in` messages handed to the supervisor (events and matched replies).
    pub fed: usize,
    /// Recorded replies handed to a supervisor command.
    pub replies_matched: usize,
    /// Recorded replies that matched no supervisor command.
    pub replies_dropped: usize,
    /// What the supervisor refused, with the trace entry index.
    pub input_errors: Vec<(usize, InputError)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CommandKey {
    method: String,
    session_id: Option<String>,
}

/// Drives a supervisor through a trace, one entry at a time, so a test can act between
/// steps (answer a dialog, send a command) and read the events.
///
/// ```
/// use cdp_supervisor::{Config, Supervisor, replay::{Replayer, Trace}};
/// let text = "{\"t\":0.0,\"dir\":\"connect\"}\n";
/// let trace = Trace::parse(text)?;
/// let mut sup = Supervisor::new(Config::default());
/// let mut replayer = Replayer::new(&trace);
/// while replayer.step(&mut sup) {
///     while let Some(_event) = sup.poll_event() {}
/// }
/// assert_eq!(replayer.stats().fed, 0);
/// # Ok::<(), cdp_supervisor::replay::TraceError>(())
/// ```
#[derive(Debug)]
pub struct Replayer<'t, 'a> {
    trace: &'t Trace<'a>,
    pos: usize,
    /// Recorded command id → method and session, for the current connection.
    recorded: BTreeMap<u64, CommandKey>,
    /// The supervisor's commands not yet answered, oldest first.
    ours: VecDeque<(u64, CommandKey)>,
    stats: ReplayStats,
}

use crate::limits::MAX_TIMEOUTS_PER_REPLAY_STEP as MAX_TIMEOUTS_PER_STEP;

impl<'t, 'a> Replayer<'t, 'a> {
    /// A replayer at the start of `trace`.
    pub fn new(trace: &'t Trace<'a>) -> Self {
        Replayer {
            trace,
            pos: 0,
            recorded: BTreeMap::new(),
            ours: VecDeque::new(),
            stats: ReplayStats::default(),
        }
    }

    /// The time of the next entry, if any.
    pub fn next_time(&self) -> Option<f64> {
        self.trace.entries.get(self.pos).map(|e| e.t)
    }

    /// What happened so far.
    pub fn stats(&self) -> &ReplayStats {
        &self.stats
    }

    /// Fires the supervisor's timers due by `t`, then applies the next entry at its time.
    /// Returns false when the trace is over. The supervisor's transmits are consumed here
    /// (they go nowhere); its events are left for the caller to poll.
    pub fn step(&mut self, sup: &mut Supervisor) -> bool {
        self.absorb_transmits(sup);
        let Some(entry) = self.trace.entries.get(self.pos) else {
            return false;
        };
        let index = self.pos;
        self.pos += 1;
        self.advance_to(sup, entry.t);
        match entry.dir {
            Direction::Connect => {
                self.recorded.clear();
                self.ours.clear();
                sup.handle_connected(entry.t);
            }
            Direction::Disconnect => {
                sup.handle_disconnected(entry.t);
                self.recorded.clear();
                self.ours.clear();
            }
            Direction::Out => {
                if let Some(env) = entry.msg.and_then(|m| Envelope::parse(m.get()).ok()) {
                    if let (Some(id), Some(method)) = (env.id, env.method) {
                        self.recorded.insert(
                            id,
                            CommandKey {
                                method: method.into_owned(),
                                session_id: env.session_id.map(|s| s.into_owned()),
                            },
                        );
                    }
                }
            }
            Direction::In => self.feed(sup, index, entry),
        }
        self.absorb_transmits(sup);
        true
    }

    /// Runs to the end of the trace, discarding events.
    pub fn run(&mut self, sup: &mut Supervisor) {
        while self.step(sup) {
            while sup.poll_event().is_some() {}
        }
    }

    /// Fires every timer of the supervisor due at or before `t`.
    pub fn advance_to(&mut self, sup: &mut Supervisor, t: f64) {
        for _ in 0..MAX_TIMEOUTS_PER_STEP {
            match sup.poll_timeout() {
                Some(due) if due <= t => {
                    sup.handle_timeout(due);
                    self.absorb_transmits(sup);
                }
                _ => break,
            }
        }
    }

    fn feed(&mut self, sup: &mut Supervisor, index: usize, entry: &TraceEntry<'a>) {
        let Some(msg) = entry.msg else { return };
        let mut env = Envelope::empty();
        if let Err(e) = env.read(msg.get()) {
            let error = InputError::Malformed {
                error: e.to_string(),
            };
            self.stats.input_errors.push((index, error));
            return;
        }
        if let Some(recorded_id) = env.id {
            let ours = self.recorded.get(&recorded_id).and_then(|key| {
                self.ours
                    .iter()
                    .position(|(_, k)| k == key)
                    .and_then(|i| self.ours.remove(i))
            });
            match ours {
                Some((our_id, _)) => {
                    env.id = Some(our_id);
                    self.stats.replies_matched += 1;
                }
                None => {
                    self.stats.replies_dropped += 1;
                    return;
                }
            }
        }
        self.stats.fed += 1;
        if let Err(e) = sup.handle_envelope_at(entry.t, &mut env) {
            self.stats.input_errors.push((index, e));
        }
    }

    fn absorb_transmits(&mut self, sup: &mut Supervisor) {
        while let Some(cmd) = sup.poll_transmit() {
            self.ours.push_back((
                cmd.id,
                CommandKey {
                    method: cmd.method,
                    session_id: cmd.session_id,
                },
            ));
        }
    }
}
