//! The run loop's decisions, sans-IO: what to write, what to wait for and until when,
//! when to reconnect, when to close and exit. A transport feeds [`LoopDriver`] what
//! happened and does what [`LoopDriver::poll_action`] says, nothing more.
//!
//! Time is monotonic seconds since the transport started ([`Clock::now`](crate::Clock)).
//! Every deadline (the core's timers, the reconnect schedule) runs on it, so a step of
//! the wall clock changes none of them. The core is given `wall_at_start + now`: times
//! in snapshots still read as UNIX seconds.

use std::time::Duration;

use crate::backoff::Backoff;
use crate::driver::{Driver, Options, Request, Subscriber};
use crate::headers::CdpHeaders;
use crate::heartbeat::{Beat, Heartbeat};
use crate::ClientError;

/// What the transport does next. After doing it (and feeding the driver what happened),
/// it asks [`LoopDriver::poll_action`] again.
///
/// ```
/// use cdp_supervisor_driver::{Action, LoopDriver, Options};
/// let mut run = LoopDriver::new(&Options::default(), 0.0)?;
/// run.connected(0.0, "ws://h:1/devtools/browser/b");
/// assert!(matches!(run.poll_action(0.0), Action::Write(_)));
/// run.connection_lost(0.1, "reset".into());
/// assert_eq!(run.poll_action(0.1), Action::Sleep { timeout: std::time::Duration::from_millis(500) });
/// assert_eq!(run.poll_action(0.6), Action::Connect);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send this text frame. On a write error call [`LoopDriver::connection_lost`].
    Write(String),
    /// Wait for whichever comes first: a frame from the socket
    /// ([`LoopDriver::message`]; a close or error is [`LoopDriver::connection_lost`]),
    /// a caller's request ([`LoopDriver::request`]), or `timeout` passing (`None`: no
    /// deadline). A transport that cannot wait on its request channel and the socket at
    /// once may wake sooner to look at its requests.
    Read {
        /// How long at most.
        timeout: Option<Duration>,
    },
    /// There is no socket: wait for a request or `timeout` passing, then ask again.
    Sleep {
        /// How long at most.
        timeout: Duration,
    },
    /// Open the socket to the endpoint (resolving it again), then call
    /// [`LoopDriver::connected`] or [`LoopDriver::connect_failed`].
    Connect,
    /// A planned stop is ready: close the socket (the browser detaches), then call
    /// [`LoopDriver::closed`].
    Close,
    /// The connection is dead though the socket is open (the heartbeat went unanswered;
    /// the loop already counts it as lost): drop the socket without waiting on it, then
    /// ask again.
    Disconnect,
    /// The loop is over: end the thread or task.
    Exit,
}

/// Where the socket stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Link {
    /// Not opened yet.
    New,
    Open,
    /// Lost; the next attempt is due at `retry_at` (monotonic seconds).
    Down {
        retry_at: f64,
    },
    /// Closing for a planned stop.
    Closing,
    Ended,
}

/// The run loop of a transport, sans-IO. See the [crate docs](crate) for the loop.
///
/// ```
/// use cdp_supervisor_driver::{Action, LoopDriver, Options, Request};
/// use std::time::Duration;
/// let mut run = LoopDriver::new(&Options::default(), 1_700_000_000.0)?;
/// run.connected(0.0, "ws://127.0.0.1:1/devtools/browser/b");
/// // The core attaches: the first thing to do is to write its first command.
/// assert!(matches!(run.poll_action(0.0), Action::Write(text) if text.contains("Target.getTargets")));
/// run.request(0.1, Request::Stop(Box::new(|()| {})));
/// assert_eq!(run.poll_action(0.1), Action::Close);
/// run.closed(0.2);
/// assert_eq!(run.poll_action(0.2), Action::Exit);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct LoopDriver {
    driver: Driver,
    wall_at_start: f64,
    reconnect: bool,
    link: Link,
    backoff: Backoff,
    requests_closed: bool,
    heartbeat: Heartbeat,
    headers: CdpHeaders,
    /// A busy server was asked again once since the last connection: it is not asked a
    /// third time.
    busy_retried: bool,
}

impl LoopDriver {
    /// A loop for a fresh supervisor with `options` (the trace file is created here).
    /// `wall_at_start` is the UNIX time at monotonic `0.0` ([`Clock::wall_at_start`](crate::Clock::wall_at_start)).
    pub fn new(options: &Options, wall_at_start: f64) -> std::io::Result<LoopDriver> {
        Ok(LoopDriver {
            driver: Driver::new(options)?,
            wall_at_start,
            reconnect: options.reconnect,
            link: Link::New,
            backoff: Backoff::new(),
            requests_closed: false,
            heartbeat: Heartbeat::new(options.heartbeat),
            headers: options.headers.clone(),
            busy_retried: false,
        })
    }

    /// [`LoopDriver::new`] for a transport's client: gives the dialog bridge a random
    /// secret when it is on and has none ([`crate::token::fill_bridge_token`]), creates
    /// the trace file (the errors say which failed), and registers the client's first
    /// subscriber, if any, before the first message.
    ///
    /// ```
    /// use cdp_supervisor_driver::{LoopDriver, Options};
    /// let run = LoopDriver::for_client(Options::default(), 1_700_000_000.0, None)?;
    /// assert_eq!(run.core_time(1.0), 1_700_000_001.0);
    /// # Ok::<(), cdp_supervisor_driver::ClientError>(())
    /// ```
    pub fn for_client(
        mut options: Options,
        wall_at_start: f64,
        subscriber: Option<Subscriber>,
    ) -> Result<LoopDriver, ClientError> {
        crate::token::fill_bridge_token(&mut options.config).map_err(ClientError::BridgeToken)?;
        let mut run = LoopDriver::new(&options, wall_at_start).map_err(ClientError::Record)?;
        if let Some(subscriber) = subscriber {
            run.add_subscriber(subscriber);
        }
        Ok(run)
    }

    /// The supervisor, for reading.
    ///
    /// ```
    /// let run = cdp_supervisor_driver::LoopDriver::new(&Default::default(), 0.0)?;
    /// assert!(run.supervisor().snapshot().page.is_none());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn supervisor(&self) -> &cdp_supervisor::Supervisor {
        self.driver.supervisor()
    }

    /// Adds a subscriber that gets every event from now on (no initial snapshot): for the
    /// first subscriber, registered before connecting.
    pub fn add_subscriber(&mut self, subscriber: Subscriber) {
        self.driver.add_subscriber(subscriber);
    }

    /// The time the core is given for monotonic `now`: UNIX-like, yet monotonic.
    pub fn core_time(&self, now: f64) -> f64 {
        self.wall_at_start + now
    }

    /// The extra headers to send on the WebSocket upgrade and the `/json/version` lookup
    /// ([`Options::headers`]).
    ///
    /// ```
    /// let run = cdp_supervisor_driver::LoopDriver::new(&Default::default(), 0.0)?;
    /// assert!(run.headers().is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn headers(&self) -> &CdpHeaders {
        &self.headers
    }

    /// The socket to `url` is open (the first time, or again after [`Action::Connect`]).
    pub fn connected(&mut self, now: f64, url: &str) {
        let reconnected = self.link != Link::New;
        self.link = Link::Open;
        self.backoff.reset();
        self.busy_retried = false;
        self.heartbeat.heard(now, None);
        self.driver.connected(self.core_time(now), url, reconnected);
    }

    /// A text frame from the browser. The heartbeat's own reply stops here.
    pub fn message(&mut self, now: f64, text: &str) {
        if self.heartbeat.heard(now, Some(text)) {
            return;
        }
        self.driver.message(self.core_time(now), text);
    }

    /// A caller's request.
    pub fn request(&mut self, now: f64, request: Request) {
        self.driver.request(self.core_time(now), request);
    }

    /// Every client handle is gone: stop as planned (once).
    pub fn requests_closed(&mut self, now: f64) {
        if !self.requests_closed {
            self.requests_closed = true;
            self.driver.begin_stop(self.core_time(now));
        }
    }

    /// Whether [`LoopDriver::requests_closed`] was called: stop waiting on requests.
    pub fn is_requests_closed(&self) -> bool {
        self.requests_closed
    }

    /// The socket failed or the browser closed it (`error` says how).
    pub fn connection_lost(&mut self, now: f64, error: String) {
        if self.link != Link::Open {
            return;
        }
        let t = self.core_time(now);
        self.link = if self.driver.connection_lost(t, error, self.reconnect) {
            Link::Down {
                retry_at: now + self.backoff.next_delay().unwrap_or_default().as_secs_f64(),
            }
        } else {
            Link::Ended
        };
    }

    /// The outcome of an [`Action::Connect`] attempt: the WebSocket URL it opened
    /// ([`LoopDriver::connected`]) or why it failed. A server that refused the handshake
    /// is not asked again in a loop: a refused key or a gone session ends the loop at
    /// once, a busy server is asked once more after its `Retry-After` (at least the
    /// backoff's delay), and any other failure is retried with the backoff
    /// ([`LoopDriver::connect_failed`]).
    ///
    /// ```
    /// use cdp_supervisor_driver::{refusal::Refusal, Action, ClientError, LoopDriver};
    /// let mut run = LoopDriver::new(&Default::default(), 0.0)?;
    /// run.connected(0.0, "ws://h/x");
    /// run.connection_lost(1.0, "reset".into());
    /// assert_eq!(run.poll_action(1.5), Action::Connect);
    /// let refused = ClientError::refused("ws://h/x", Refusal::new(401, "", None));
    /// run.connect_outcome(1.5, Err(refused));
    /// assert_eq!(run.poll_action(1.5), Action::Exit); // no retry: the key stays wrong
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn connect_outcome(&mut self, now: f64, outcome: Result<String, ClientError>) {
        let e = match outcome {
            Ok(url) => return self.connected(now, &url),
            Err(e) => e,
        };
        let Some(refusal) = e.refusal() else {
            return self.connect_failed(now, e.to_string());
        };
        match refusal.retry_delay() {
            Some(delay) if !self.busy_retried => {
                self.busy_retried = true;
                self.backoff.failed();
                let backoff = self.backoff.next_delay().unwrap_or_default();
                self.link = Link::Down {
                    retry_at: now + delay.max(backoff).as_secs_f64(),
                };
            }
            _ => {
                self.driver.gave_up(format!("{e}; not retried"));
                self.link = Link::Ended;
            }
        }
    }

    /// An [`Action::Connect`] attempt failed with `error`.
    pub fn connect_failed(&mut self, now: f64, error: String) {
        self.backoff.failed();
        self.link = match self.backoff.next_delay() {
            Some(delay) => Link::Down {
                retry_at: now + delay.as_secs_f64(),
            },
            None => {
                self.driver.gave_up(format!(
                    "{} reconnect attempts failed; last: {error}",
                    self.backoff.failures()
                ));
                Link::Ended
            }
        };
    }

    /// The socket was closed after [`Action::Close`]: callers waiting on the stop are
    /// answered.
    pub fn closed(&mut self, now: f64) {
        self.driver.finish_stop(self.core_time(now));
        self.link = Link::Ended;
    }

    /// What to do next, at monotonic time `now`. Fires the core's due timers first.
    pub fn poll_action(&mut self, now: f64) -> Action {
        let t = self.core_time(now);
        match self.link {
            Link::Ended => return Action::Exit,
            Link::Closing => return Action::Close,
            Link::New | Link::Open | Link::Down { .. } => {}
        }
        if self.driver.stop_ready(t) {
            if self.link != Link::Open {
                self.closed(now);
                return Action::Exit;
            }
            // Whatever the core queued last (dialog answers) goes out before the close.
            if let Some(text) = self.driver.poll_transmit() {
                return Action::Write(text);
            }
            self.link = Link::Closing;
            return Action::Close;
        }
        self.driver.timeout(t);
        match self.link {
            Link::Down { retry_at } if now >= retry_at => Action::Connect,
            Link::Down { retry_at } => Action::Sleep {
                timeout: wait_between(now, retry_at).unwrap_or(Duration::ZERO),
            },
            Link::Open => match self.heartbeat.poll(now) {
                Beat::Dead => {
                    let words = self.heartbeat.silence_words();
                    self.connection_lost(now, words);
                    Action::Disconnect
                }
                Beat::Probe(text) => Action::Write(text),
                Beat::Quiet => self.write_or_read(now),
            },
            _ => self.write_or_read(now),
        }
    }

    /// The core's next message, or a read until the next deadline (the core's or the
    /// heartbeat's).
    fn write_or_read(&mut self, now: f64) -> Action {
        if let Some(text) = self.driver.poll_transmit() {
            return Action::Write(text);
        }
        let t = self.core_time(now);
        let core = self
            .driver
            .next_deadline()
            .and_then(|deadline| wait_between(t, deadline));
        let heartbeat = match self.link {
            Link::Open => self
                .heartbeat
                .next_deadline()
                .and_then(|deadline| wait_between(now, deadline)),
            _ => None,
        };
        Action::Read {
            timeout: match (core, heartbeat) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// Waits longer than this (about 31 years) are no deadline at all.
const FOREVER_S: f64 = 1e9;

/// How long from `now` until `deadline`, to the microsecond: zero when it has passed,
/// `None` when it is too far (or not a number) to wait for. Integer arithmetic only, so
/// no input can make it panic.
fn wait_between(now: f64, deadline: f64) -> Option<Duration> {
    let left = deadline - now;
    if left.is_nan() || left >= FOREVER_S {
        return None;
    }
    // In range: a float-to-integer `as` saturates, it never panics.
    Some(Duration::from_micros((left.max(0.0) * 1e6) as u64))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use cdp_supervisor::{CommandError, PageState};
    use serde_json::{json, Value};

    use super::*;
    use crate::driver::{ClientEvent, CommandUpdate};

    const WALL: f64 = 1_700_000_000.0;

    /// A loop on a simulated clock, with a scripted browser.
    struct Sim {
        run: LoopDriver,
        now: f64,
        events: mpsc::Receiver<ClientEvent>,
    }

    impl Sim {
        fn new(options: Options) -> Sim {
            let mut run = LoopDriver::new(&options, WALL).unwrap();
            let (tx, events) = mpsc::channel();
            run.add_subscriber(Box::new(move |e| tx.send(e).is_ok()));
            Sim {
                run,
                now: 0.0,
                events,
            }
        }

        fn action(&mut self) -> Action {
            self.run.poll_action(self.now)
        }

        /// Writes until the loop waits; answers nothing. Returns what was written.
        fn written(&mut self) -> Vec<Value> {
            let mut out = Vec::new();
            while let Action::Write(text) = self.action() {
                out.push(serde_json::from_str(&text).unwrap());
            }
            out
        }

        /// Connects and attaches a page with no frames to speak of.
        fn attached(options: Options) -> Sim {
            let mut sim = Sim::new(options);
            sim.run.connected(0.0, "ws://h:1/devtools/browser/b");
            sim.attach();
            sim
        }

        /// Answers the attach sequence until the page is live.
        fn attach(&mut self) {
            for _ in 0..10 {
                for cmd in self.written() {
                    let id = &cmd["id"];
                    let reply = match cmd["method"].as_str().unwrap() {
                        "Target.getTargets" => json!({"id": id, "result": {"targetInfos": [
                            {"targetId": "T", "type": "page", "url": "about:blank", "title": "", "attached": false}]}}),
                        "Target.attachToTarget" => json!({"id": id, "result": {"sessionId": "S"}}),
                        "Page.getFrameTree" => {
                            json!({"id": id, "sessionId": "S", "result": {"frameTree": {"frame":
                            {"id": "T", "url": "about:blank", "securityOrigin": "null", "loaderId": "L", "mimeType": "text/html"}}}})
                        }
                        _ => json!({"id": id, "sessionId": cmd["sessionId"], "result": {}}),
                    };
                    self.run.message(self.now, &reply.to_string());
                }
                if self.state() == Some(PageState::Live) {
                    return;
                }
            }
            panic!("the page never got live");
        }

        fn state(&self) -> Option<PageState> {
            self.run.supervisor().snapshot().page.map(|p| p.state)
        }

        fn command(&mut self, timeout: Duration) -> mpsc::Receiver<CommandUpdate> {
            let (tx, rx) = mpsc::channel();
            let updates = Box::new(move |u| {
                let _ = tx.send(u);
            });
            let request = Request::command(
                None,
                "Runtime.evaluate",
                json!({"expression": "1"}),
                timeout,
                updates,
            );
            self.run.request(self.now, request);
            rx
        }

        fn read_timeout(&mut self) -> Option<Duration> {
            self.written();
            match self.action() {
                Action::Read { timeout } => timeout,
                other => panic!("expected Read, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_wall_clock_jump_changes_no_deadline() {
        let mut sim = Sim::attached(Options::default());
        let updates = sim.command(Duration::from_secs(10));
        sim.now = 1.0;
        let before = sim.read_timeout().unwrap();
        assert!((before.as_secs_f64() - 9.0).abs() < 1e-6, "{before:?}");
        // The wall clock jumps ahead 600 s (NTP step, resume from suspend): the
        // transport's monotonic clock does not, so the loop sees the same time...
        let wall_jumped = WALL + 600.0;
        assert_ne!(sim.run.core_time(sim.now), wall_jumped + sim.now);
        // ...and the same deadline, the command still in flight.
        assert_eq!(sim.read_timeout(), Some(before));
        assert!(updates.try_recv().is_err(), "no timeout fired");
        // It fires when its own 10 s are up.
        sim.now = 10.0;
        sim.written();
        match updates.try_recv() {
            Ok(CommandUpdate::Finished(Err(CommandError::Timeout { .. }))) => {}
            other => panic!("expected a timeout, got {other:?}"),
        }
    }

    #[test]
    fn snapshot_times_read_as_unix_time() {
        let sim = Sim::attached(Options::default());
        assert_eq!(sim.run.core_time(2.5), WALL + 2.5);
    }

    #[test]
    fn read_waits_for_the_next_deadline_or_forever() {
        let mut sim = Sim::attached(Options::default());
        // An attached page with nothing in flight: no deadline of the core's own, or one
        // in the future.
        let idle = sim.read_timeout();
        assert!(idle.is_none_or(|d| d > Duration::ZERO));
        let _updates = sim.command(Duration::from_secs(3));
        assert_eq!(sim.read_timeout(), Some(Duration::from_secs(3)));
        sim.now = 2.0;
        let left = sim.read_timeout().unwrap();
        assert!((left.as_secs_f64() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn deadline_conversion_never_panics() {
        assert_eq!(wait_between(5.0, 1.0), Some(Duration::ZERO));
        assert_eq!(wait_between(0.0, f64::NAN), None);
        assert_eq!(wait_between(0.0, f64::INFINITY), None);
        assert_eq!(wait_between(0.0, 1e300), None);
        assert_eq!(wait_between(f64::NEG_INFINITY, 0.0), None);
        assert_eq!(wait_between(0.0, 1.5), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn lost_connection_reconnects_on_the_backoff_schedule_then_gives_up() {
        let mut sim = Sim::attached(Options::default());
        let updates = sim.command(Duration::from_secs(30));
        sim.written();
        sim.now = 1.0;
        sim.run.connection_lost(sim.now, "reset".into());
        assert!(matches!(
            updates.try_recv(),
            Ok(CommandUpdate::Finished(Err(
                CommandError::Disconnected { .. }
            )))
        ));
        // 0.5 s, then 1, 2, 4, 8 after each failure; the fifth failure gives up.
        let mut attempts = Vec::new();
        loop {
            match sim.action() {
                Action::Sleep { timeout } => sim.now += timeout.as_secs_f64(),
                Action::Connect => {
                    attempts.push(sim.now);
                    sim.run.connect_failed(sim.now, "refused".into());
                }
                Action::Exit => break,
                other => panic!("unexpected {other:?}"),
            }
        }
        let gaps: Vec<f64> = std::iter::once(1.0)
            .chain(attempts.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| w[1] - w[0])
            .collect();
        assert_eq!(gaps, [0.5, 1.0, 2.0, 4.0, 8.0]);
        let events: Vec<ClientEvent> = sim.events.try_iter().collect();
        assert!(events
            .iter()
            .any(|e| matches!(e, ClientEvent::ConnectionLost { error } if error == "reset")));
        assert!(events
            .iter()
            .any(|e| matches!(e, ClientEvent::GaveUp { error }
            if error.contains("5 reconnect attempts failed; last: refused"))));
    }

    #[test]
    fn a_reconnect_attaches_again_and_says_so() {
        let mut sim = Sim::attached(Options::default());
        sim.run.connection_lost(0.0, "reset".into());
        sim.now = 0.5;
        assert_eq!(sim.action(), Action::Connect);
        sim.run.connected(sim.now, "ws://h:1/devtools/browser/b");
        sim.attach();
        let reconnected = sim
            .events
            .try_iter()
            .filter(|e| {
                matches!(
                    e,
                    ClientEvent::Connected {
                        reconnected: true,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(reconnected, 1);
    }

    #[test]
    fn without_reconnect_a_lost_connection_ends_the_loop() {
        let mut sim = Sim::attached(Options {
            reconnect: false,
            ..Options::default()
        });
        sim.run.connection_lost(0.0, "reset".into());
        assert_eq!(sim.action(), Action::Exit);
        assert!(sim.events.try_iter().any(
            |e| matches!(e, ClientEvent::GaveUp { error } if error.contains("reconnect is off"))
        ));
    }

    #[test]
    fn stop_closes_once_the_core_is_ready_and_answers_the_caller() {
        let mut sim = Sim::attached(Options::default());
        let (tx, stopped) = mpsc::channel();
        sim.run.request(
            0.0,
            Request::Stop(Box::new(move |()| {
                let _ = tx.send(());
            })),
        );
        assert_eq!(sim.action(), Action::Close);
        assert_eq!(sim.action(), Action::Close, "asking again changes nothing");
        assert!(stopped.try_recv().is_err());
        sim.run.closed(0.1);
        assert_eq!(stopped.try_recv(), Ok(()));
        assert_eq!(sim.action(), Action::Exit);
    }

    #[test]
    fn dropped_handles_stop_as_planned_and_a_stop_without_socket_exits() {
        let mut sim = Sim::attached(Options::default());
        sim.run.connection_lost(0.0, "reset".into());
        sim.run.requests_closed(0.1);
        sim.run.requests_closed(0.2);
        assert!(sim.run.is_requests_closed());
        assert_eq!(sim.action(), Action::Exit);
    }
    #[test]
    fn a_command_sent_while_reattaching_waits_for_the_attach() {
        let mut sim = Sim::attached(Options::default());
        sim.run.connection_lost(0.0, "reset".into());
        let updates = sim.command(Duration::from_secs(10));
        assert!(updates.try_recv().is_err(), "held, not failed at once");
        sim.now = 0.5;
        assert_eq!(sim.action(), Action::Connect);
        sim.run.connected(sim.now, "ws://h:1/devtools/browser/b");
        sim.attach();
        // Sent once the page is live (or answered by `attach` already).
        for cmd in sim.written() {
            assert_eq!(cmd["method"], "Runtime.evaluate");
            let reply = json!({"id": cmd["id"], "sessionId": cmd["sessionId"], "result": {}});
            sim.run.message(sim.now, &reply.to_string());
        }
        match updates.try_recv() {
            Ok(CommandUpdate::Finished(Ok(_))) => {}
            other => panic!("expected the held command's reply, got {other:?}"),
        }
    }

    #[test]
    fn a_held_command_fails_at_its_own_deadline() {
        let mut sim = Sim::attached(Options::default());
        sim.run.connection_lost(0.0, "reset".into());
        let updates = sim.command(Duration::from_secs(2));
        sim.now = 0.5;
        assert_eq!(sim.action(), Action::Connect);
        sim.run.connect_failed(sim.now, "refused".into());
        sim.now = 1.9;
        sim.action();
        assert!(updates.try_recv().is_err());
        sim.now = 2.0;
        sim.action();
        assert!(matches!(
            updates.try_recv(),
            Ok(CommandUpdate::Finished(Err(CommandError::NotAttached)))
        ));
    }

    #[test]
    fn connect_waits_for_the_page_and_says_what_did_not_happen() {
        let wait = |sim: &mut Sim, secs| {
            let (tx, rx) = mpsc::channel();
            let reply = Box::new(move |r| {
                let _ = tx.send(r);
            });
            let timeout = Duration::from_secs(secs);
            sim.run
                .request(sim.now, Request::WaitAttached { timeout, reply });
            rx
        };
        // Answered once the page is live.
        let mut sim = Sim::new(Options::default());
        sim.run.connected(0.0, "ws://h:1/devtools/browser/b");
        let live = wait(&mut sim, 5);
        assert!(live.try_recv().is_err());
        sim.attach();
        assert!(matches!(live.try_recv(), Ok(Ok(()))));
        assert!(
            matches!(wait(&mut sim, 5).try_recv(), Ok(Ok(()))),
            "at once when live"
        );
        // A browser without a page: the error says so when the time is up.
        let mut sim = Sim::new(Options::default());
        sim.run.connected(0.0, "ws://h:1/devtools/browser/b");
        let none = wait(&mut sim, 5);
        for cmd in sim.written() {
            let reply = json!({"id": cmd["id"], "result": {"targetInfos": []}});
            sim.run.message(0.1, &reply.to_string());
        }
        sim.now = 5.0;
        sim.written();
        match none.try_recv() {
            Ok(Err(crate::ClientError::NotLive { why, .. })) => {
                assert!(why.contains("no page target"), "{why}")
            }
            other => panic!("expected NotLive, got {other:?}"),
        }
    }

    /// Answers every command written until none is left: `Page.getFrameTree` with the
    /// session's own top frame (`S` is `T`'s, `S2` is `T2`'s), anything else with `{}`.
    fn answer_all(sim: &mut Sim) {
        for _ in 0..10 {
            let written = sim.written();
            if written.is_empty() {
                return;
            }
            for cmd in written {
                let id = &cmd["id"];
                let reply = match (cmd["method"].as_str(), cmd["sessionId"].as_str()) {
                    (Some("Page.getFrameTree"), Some(session)) => {
                        let target = if session == "S2" { "T2" } else { "T" };
                        json!({"id": id, "result": {"frameTree": {"frame": {"id": target,
                            "url": "about:blank", "securityOrigin": "null", "loaderId": "L",
                            "mimeType": "text/html"}}}})
                    }
                    _ => json!({"id": id, "result": {}}),
                };
                sim.run.message(sim.now, &reply.to_string());
            }
        }
    }

    fn reply_to<T: Send + 'static>() -> (crate::Reply<T>, mpsc::Receiver<T>) {
        let (tx, rx) = mpsc::channel();
        (Box::new(move |v| drop(tx.send(v))), rx)
    }

    /// `new_tab` answers once its tab is listed and attached (current then); a request
    /// in another tab goes to that tab's session; `close_tab` answers once the tab is gone,
    /// and the tab current before is current again.
    #[test]
    fn tabs_open_route_and_close_through_the_driver() {
        let mut sim = Sim::attached(Options::default());
        answer_all(&mut sim);
        let (reply, opened) = reply_to();
        let url = "about:blank#2".to_owned();
        sim.run.request(
            sim.now,
            Request::NewTab {
                url,
                context_id: None,
                reply,
            },
        );
        let create = sim.written();
        assert_eq!(create[0]["method"], "Target.createTarget", "{create:?}");
        // The attach comes before the reply (Chromium facts: "A new tab waits for its set-up").
        let attached = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S2",
            "targetInfo": {"targetId": "T2", "type": "page", "url": "about:blank#2", "title": "",
            "attached": true}, "waitingForDebugger": true}});
        sim.run.message(sim.now, &attached.to_string());
        let created = json!({"id": create[0]["id"], "result": {"targetId": "T2"}});
        sim.run.message(sim.now, &created.to_string());
        assert!(opened.try_recv().is_err(), "not before it is attached");
        answer_all(&mut sim);
        let tab = opened.try_recv().unwrap().unwrap();
        assert_eq!((tab.tab_id.as_str(), tab.current), ("T2", true));

        // A command in the first tab goes to its session, though T2 is current.
        let (tx, _updates) = mpsc::channel();
        let updates = Box::new(move |u| drop(tx.send(u)));
        let params = json!({"expression": "1"});
        let command = Request::command(
            None,
            "Runtime.evaluate",
            params,
            Duration::from_secs(5),
            updates,
        );
        sim.run.request(sim.now, command.in_tab(Some("T")));
        let sent = sim.written();
        assert_eq!(sent[0]["sessionId"], "S", "{sent:?}");
        // A tab that is not there is named in the error.
        let (reply, selected) = reply_to();
        let tab_id = "nope".to_owned();
        sim.run
            .request(sim.now, Request::SelectTab { tab_id, reply });
        let e = selected.try_recv().unwrap().unwrap_err();
        assert_eq!(e.code(), "no_such_tab");

        let (reply, closed) = reply_to();
        sim.run.request(
            sim.now,
            Request::CloseTab {
                tab_id: None,
                force: false,
                reply,
            },
        );
        let close = sim.written();
        assert_eq!(
            (close[0]["method"].as_str(), close[0]["sessionId"].as_str()),
            (Some("Page.close"), Some("S2"))
        );
        sim.run.message(
            sim.now,
            &json!({"id": close[0]["id"], "result": {}}).to_string(),
        );
        assert!(closed.try_recv().is_err(), "not before it is gone");
        let detached = json!({"method": "Target.detachedFromTarget", "params": {"sessionId": "S2", "targetId": "T2"}});
        sim.run.message(sim.now, &detached.to_string());
        let outcome = closed.try_recv().unwrap().unwrap();
        assert!(outcome.closed && outcome.dialog.is_none(), "{outcome:?}");
        let (reply, tabs) = reply_to();
        sim.run.request(sim.now, Request::Tabs(reply));
        let tabs = tabs.try_recv().unwrap();
        assert_eq!(tabs.len(), 1);
        assert!(tabs[0].current && tabs[0].tab_id == "T");
    }

    /// A silent connection (nothing from the browser, no close) is probed after the
    /// heartbeat's silence and declared lost when the probe goes unanswered: an evaluate
    /// in flight ends with its own deadline first, the loss comes within heartbeat + the
    /// probe's deadline, and the loop reconnects on the backoff schedule, then gives up.
    #[test]
    fn a_silent_connection_is_found_by_the_heartbeat() {
        let options = Options {
            heartbeat: Some(Duration::from_secs(2)),
            ..Options::default()
        };
        let mut sim = Sim::attached(options);
        let events = std::mem::replace(&mut sim.events, mpsc::channel().1);
        let updates = sim.command(Duration::from_secs(1));
        let written = sim.written();
        assert_eq!(written[0]["method"], "Runtime.evaluate");
        // Silence. The command's own deadline comes first.
        let mut probe_at = None;
        let mut lost_at = None;
        while lost_at.is_none() && sim.now < 60.0 {
            match sim.action() {
                Action::Write(text) if text.contains("Browser.getVersion") => {
                    assert!(probe_at.is_none(), "one probe at a time");
                    probe_at = Some(sim.now);
                }
                Action::Write(_) => {}
                Action::Read { timeout } => {
                    sim.now += timeout.expect("a heartbeat deadline").as_secs_f64()
                }
                Action::Disconnect => lost_at = Some(sim.now),
                other => panic!("unexpected {other:?}"),
            }
        }
        match updates.try_recv() {
            Ok(CommandUpdate::Finished(Err(CommandError::Timeout { .. }))) => {}
            other => panic!("the evaluate should time out on its own, got {other:?}"),
        }
        assert_eq!(probe_at, Some(2.0), "probe after the heartbeat's silence");
        assert_eq!(
            lost_at,
            Some(7.0),
            "lost within heartbeat + the probe's deadline"
        );
        let lost: Vec<_> = events
            .try_iter()
            .filter_map(|e| match e {
                ClientEvent::ConnectionLost { error } => Some(error),
                _ => None,
            })
            .collect();
        assert!(lost[0].contains("silent"), "{lost:?}");
        // Reconnect attempts: the backoff's five, then the end.
        let mut attempts = 0;
        loop {
            match sim.action() {
                Action::Sleep { timeout } => sim.now += timeout.as_secs_f64(),
                Action::Connect => {
                    attempts += 1;
                    let e = ClientError::connect("ws://h:1/x", "refused".into());
                    sim.run.connect_outcome(sim.now, Err(e));
                }
                Action::Exit => break,
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(attempts, crate::backoff::MAX_FAILURES);
        let gave_up = events
            .try_iter()
            .any(|e| matches!(e, ClientEvent::GaveUp { error } if error.contains("refused")));
        assert!(gave_up);
    }

    /// Any message is a sign of life; the probe's reply never reaches the core.
    #[test]
    fn the_probe_reply_stays_in_the_loop() {
        let options = Options {
            heartbeat: Some(Duration::from_secs(1)),
            ..Options::default()
        };
        let mut sim = Sim::attached(options);
        sim.written();
        sim.now = 1.0;
        let Action::Write(probe) = sim.action() else {
            panic!("no probe")
        };
        let probe: Value = serde_json::from_str(&probe).unwrap();
        let reply = json!({"id": probe["id"], "result": {"product": "Chrome"}});
        sim.run.message(1.5, &reply.to_string());
        sim.now = 2.0;
        assert!(matches!(sim.action(), Action::Read { timeout: Some(t) } if t.as_secs_f64() > 0.4));
        sim.now = 2.5;
        assert!(matches!(sim.action(), Action::Write(t) if t.contains("Browser.getVersion")));
        sim.run
            .message(3.0, r#"{"method":"Target.targetInfoChanged","params":{}}"#);
        sim.now = 7.6;
        assert!(matches!(sim.action(), Action::Write(t) if t.contains("Browser.getVersion")));
        let off = Sim::attached(Options {
            heartbeat: None,
            ..Options::default()
        });
        drop(off);
    }

    /// A refused key or a gone session ends the loop at once; a busy server is asked once
    /// more after its Retry-After, then not again.
    #[test]
    fn refused_handshakes_are_not_retried_in_a_storm() {
        use crate::refusal::Refusal;
        for (status, retries) in [(401, 0), (403, 0), (404, 0), (400, 0), (429, 1)] {
            let mut sim = Sim::attached(Options::default());
            sim.run.connection_lost(0.0, "reset".into());
            let mut attempts = 0;
            loop {
                match sim.action() {
                    Action::Sleep { timeout } => sim.now += timeout.as_secs_f64(),
                    Action::Connect => {
                        attempts += 1;
                        if status == 429 && attempts == 2 {
                            assert!(sim.now >= 0.5 + 7.0, "Retry-After honoured: {}", sim.now);
                        }
                        let refusal = Refusal::new(status, "", Some("7"));
                        let e = ClientError::refused("ws://h/x?token=K", refusal);
                        sim.run.connect_outcome(sim.now, Err(e));
                    }
                    Action::Exit => break,
                    other => panic!("unexpected {other:?}"),
                }
            }
            assert_eq!(attempts, 1 + retries, "HTTP {status}");
        }
    }
}
