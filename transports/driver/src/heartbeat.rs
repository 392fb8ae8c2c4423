//! The heartbeat: finds a connection that went silent without closing. A proxy that stops
//! forwarding, or a Selenium Grid session deleted under an open `se:cdp` socket, leaves
//! the socket open and quiet: no close frame, no error, commands wait forever. After
//! [`Options::heartbeat`](crate::Options::heartbeat) without a message from the browser,
//! the loop writes a cheap browser-level command ([`PROBE_METHOD`]); any message within
//! [`PROBE_DEADLINE`] proves the connection alive, none means it is dead.
//!
//! Sans-IO: monotonic seconds in, the probe's text or the verdict out.

use std::time::Duration;

/// How long the browser has to answer a probe.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::HEARTBEAT_DEADLINE.as_secs(), 5);
/// ```
pub const PROBE_DEADLINE: Duration = Duration::from_secs(5);

/// The probe: answered by the browser process itself, however busy or stuck a page is.
pub(crate) const PROBE_METHOD: &str = "Browser.getVersion";

/// The probe's command id: the largest a CDP id may be (Chromium reads ids as 32-bit
/// integers). The core numbers its commands from 1 up and never gets near it, so its
/// reply is told apart by the id alone and never reaches the core.
const PROBE_ID: u32 = i32::MAX as u32;

/// What the heartbeat wants done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Beat {
    /// Nothing now.
    Quiet,
    /// Write this probe.
    Probe(String),
    /// The probe went unanswered: the connection is dead.
    Dead,
}

/// The heartbeat of one connection.
#[derive(Debug, Clone)]
pub(crate) struct Heartbeat {
    /// Silence after which to probe; `None`: off.
    interval: Option<f64>,
    /// When the browser was last heard (or the socket opened).
    last_heard: f64,
    /// When the probe in flight must be answered by.
    probe_deadline: Option<f64>,
}

impl Heartbeat {
    /// A heartbeat probing after `interval` of silence (`None`: never).
    pub(crate) fn new(interval: Option<Duration>) -> Heartbeat {
        Heartbeat {
            interval: interval.map(|d| d.as_secs_f64()),
            last_heard: 0.0,
            probe_deadline: None,
        }
    }

    /// A socket opened at `now`, or a message came: the silence starts over. Returns
    /// whether `text` (if any) is the probe's reply, which only the heartbeat reads.
    pub(crate) fn heard(&mut self, now: f64, text: Option<&str>) -> bool {
        self.last_heard = now;
        self.probe_deadline = None;
        text.is_some_and(|t| t.starts_with(&format!("{{\"id\":{PROBE_ID},")))
    }

    /// What to do at `now`.
    pub(crate) fn poll(&mut self, now: f64) -> Beat {
        let Some(interval) = self.interval else {
            return Beat::Quiet;
        };
        match self.probe_deadline {
            Some(deadline) if now >= deadline => {
                self.probe_deadline = None;
                Beat::Dead
            }
            Some(_) => Beat::Quiet,
            None if now - self.last_heard >= interval => {
                self.probe_deadline = Some(now + PROBE_DEADLINE.as_secs_f64());
                Beat::Probe(format!(
                    "{{\"id\":{PROBE_ID},\"method\":\"{PROBE_METHOD}\"}}"
                ))
            }
            None => Beat::Quiet,
        }
    }

    /// When [`Heartbeat::poll`] next has something to do.
    pub(crate) fn next_deadline(&self) -> Option<f64> {
        let interval = self.interval?;
        Some(self.probe_deadline.unwrap_or(self.last_heard + interval))
    }

    /// How long the probe has to be answered, for the words of [`Beat::Dead`].
    pub(crate) fn silence_words(&self) -> String {
        let interval = self.interval.unwrap_or_default();
        format!(
            "the browser sent nothing for {interval}s and did not answer a {PROBE_METHOD} within {}s: the connection is silent (a proxy that stopped forwarding, or a session ended under the socket); treating it as lost",
            PROBE_DEADLINE.as_secs()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_after_silence_and_dies_without_answer() {
        let mut h = Heartbeat::new(Some(Duration::from_secs(15)));
        h.heard(0.0, None);
        assert_eq!(h.poll(14.9), Beat::Quiet);
        assert_eq!(h.next_deadline(), Some(15.0));
        let Beat::Probe(text) = h.poll(15.0) else {
            panic!("no probe")
        };
        assert!(text.contains("Browser.getVersion"));
        assert_eq!(h.next_deadline(), Some(20.0));
        assert_eq!(h.poll(19.9), Beat::Quiet, "one probe at a time");
        assert_eq!(h.poll(20.0), Beat::Dead);
    }

    #[test]
    fn any_message_answers_and_the_reply_is_told_apart() {
        let mut h = Heartbeat::new(Some(Duration::from_secs(1)));
        assert!(matches!(h.poll(1.0), Beat::Probe(_)));
        assert!(!h.heard(2.0, Some(r#"{"method":"Target.targetInfoChanged"}"#)));
        assert_eq!(h.poll(2.5), Beat::Quiet);
        assert!(matches!(h.poll(3.0), Beat::Probe(_)));
        assert!(h.heard(3.1, Some(r#"{"id":2147483647,"result":{}}"#)));
        assert!(!h.heard(3.2, Some(r#"{"id":21474836,"result":{}}"#)));
        assert_eq!(Heartbeat::new(None).poll(1e9), Beat::Quiet);
    }
}
