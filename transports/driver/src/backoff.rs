//! The reconnect policy: capped exponential backoff. [`LoopDriver`](crate::LoopDriver)
//! follows it after the socket drops.

use std::time::Duration;

/// Delay before the first reconnect attempt.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::backoff::INITIAL_DELAY.as_millis(), 500);
/// ```
pub const INITIAL_DELAY: Duration = Duration::from_millis(500);
/// The delay doubles up to this.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::backoff::MAX_DELAY.as_secs(), 10);
/// ```
pub const MAX_DELAY: Duration = Duration::from_secs(10);
/// Failed attempts in a row after which the transport gives up.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::backoff::MAX_FAILURES, 5);
/// ```
pub const MAX_FAILURES: u32 = 5;

/// Counts failed reconnect attempts and says how long to wait before the next one.
///
/// ```
/// use cdp_supervisor_driver::backoff::Backoff;
/// use std::time::Duration;
/// let mut b = Backoff::new();
/// assert_eq!(b.next_delay(), Some(Duration::from_millis(500)));
/// b.failed();
/// assert_eq!(b.next_delay(), Some(Duration::from_secs(1)));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Backoff {
    failures: u32,
}

impl Backoff {
    /// No failures yet.
    pub fn new() -> Self {
        Backoff { failures: 0 }
    }

    /// How long to wait before the next attempt, or `None` once [`MAX_FAILURES`] attempts
    /// in a row failed: give up.
    pub fn next_delay(&self) -> Option<Duration> {
        if self.failures >= MAX_FAILURES {
            return None;
        }
        let delay = INITIAL_DELAY.saturating_mul(1u32 << self.failures.min(16));
        Some(delay.min(MAX_DELAY))
    }

    /// One more attempt failed.
    pub fn failed(&mut self) {
        self.failures = self.failures.saturating_add(1);
    }

    /// Failed attempts in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// A connection succeeded: start over.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_caps_and_gives_up() {
        let mut b = Backoff::new();
        let mut delays = Vec::new();
        while let Some(d) = b.next_delay() {
            delays.push(d.as_millis());
            b.failed();
        }
        assert_eq!(delays, [500, 1000, 2000, 4000, 8000]);
        assert_eq!(b.failures(), MAX_FAILURES);
        b.reset();
        assert_eq!(b.next_delay(), Some(INITIAL_DELAY));
        let mut c = Backoff { failures: 4 };
        assert_eq!(c.next_delay(), Some(Duration::from_secs(8)));
        c.failures = 3;
        assert!(c.next_delay().unwrap() <= MAX_DELAY);
    }
}
