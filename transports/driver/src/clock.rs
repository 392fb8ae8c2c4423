//! The transports' clock: monotonic seconds since the start, for every deadline.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Monotonic seconds since the clock started ([`Clock::now`]) plus the wall-clock time
/// taken once at the start ([`Clock::wall_at_start`]).
///
/// Deadlines run on the monotonic seconds, so an NTP step or a suspend does not fire
/// (or stall) every timer at once; [`LoopDriver`](crate::LoopDriver) adds
/// `wall_at_start` so that the times users see in snapshots still read as UNIX time.
///
/// ```
/// let clock = cdp_supervisor_driver::Clock::start();
/// let a = clock.now();
/// assert!(clock.now() >= a);
/// assert!(clock.wall_at_start() > 1.0e9);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
    wall_at_start: f64,
}

impl Clock {
    /// Starts the clock: reads the monotonic and the wall clock once.
    pub fn start() -> Clock {
        let wall_at_start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        Clock {
            start: Instant::now(),
            wall_at_start,
        }
    }

    /// Seconds since [`Clock::start`], monotonic.
    pub fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// UNIX seconds at [`Clock::start`].
    pub fn wall_at_start(&self) -> f64 {
        self.wall_at_start
    }
}
