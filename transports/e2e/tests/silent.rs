//! A connection that goes silent, against a real Chromium behind a relay the test
//! switches: an evaluate in flight ends with its own deadline; the heartbeat declares the
//! connection dead within its silence plus the probe's deadline; the client reconnects;
//! an HTTP 408 written into the upgraded stream (a hosted browser's timeout) is a
//! disconnect said plainly; a dead endpoint ends in `GaveUp` after the backoff's
//! attempts, not in retries forever.

mod support;

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use cdp_supervisor::Evaluation;
use cdp_supervisor_blocking::{Client, ClientEvent, Options};
use cdp_supervisor_driver::HEARTBEAT_DEADLINE;
use support::blocking::wait_live;
use support::demo_tree::browser_or_skip;
use support::switch_relay::SwitchRelay;

thread_local! {
    static START: Instant = Instant::now();
}

/// The first event `pick` takes within `wait`, and when it came.
fn next_event<T>(
    events: &Receiver<ClientEvent>,
    wait: Duration,
    mut pick: impl FnMut(ClientEvent) -> Option<T>,
) -> T {
    let end = Instant::now() + wait;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(e) => {
                eprintln!(
                    "silent: {:.1}s event {e:?}",
                    START.with(|s| s.elapsed().as_secs_f64())
                );
                if let Some(t) = pick(e) {
                    return t;
                }
            }
            Err(e) => panic!("no such event within {wait:?}: {e}"),
        }
    }
}

#[test]
fn a_silent_connection_is_found_reconnected_and_given_up_when_dead() {
    let Some(browser) = browser_or_skip("silent") else {
        return;
    };
    let upstream = format!("127.0.0.1:{}", browser.port()).parse().unwrap();
    let relay = SwitchRelay::start(upstream);
    let url = relay.ws_url(browser.ws_url());
    let heartbeat = Duration::from_secs(1);
    let options = Options {
        heartbeat: Some(heartbeat),
        ..Options::default()
    };
    let (tx, events) = mpsc::channel();
    let client = Client::connect_with_events(&url, options, tx).unwrap();
    wait_live(&client);
    // Probes go out and are answered while the connection is fine: nothing is lost.
    std::thread::sleep(heartbeat * 3);
    assert!(
        !events
            .try_iter()
            .any(|e| matches!(e, ClientEvent::ConnectionLost { .. })),
        "a healthy connection was declared lost"
    );

    relay.silence();
    let silent_since = Instant::now();
    // An evaluate in flight ends with its own deadline, not the heartbeat's.
    let budget = Duration::from_millis(1500);
    let outcome = client.evaluate(Evaluation::new("1 + 1").within(budget));
    let took = silent_since.elapsed();
    assert_eq!(outcome.err().map(|e| e.code()), Some("timeout"));
    // Within its budget (the core answers a little before it, to leave room to stop the
    // script), long before the heartbeat's verdict.
    assert!(
        took >= budget / 2 && took <= budget + Duration::from_millis(500),
        "{took:?}"
    );
    // Declared dead within the silence plus the probe's deadline.
    let error = next_event(&events, Duration::from_secs(15), |e| match e {
        ClientEvent::ConnectionLost { error } => Some(error),
        _ => None,
    });
    let lost_after = silent_since.elapsed();
    assert!(error.contains("silent"), "{error}");
    let bound = heartbeat + HEARTBEAT_DEADLINE + Duration::from_secs(1);
    assert!(
        lost_after <= bound,
        "lost after {lost_after:?}, over {bound:?}"
    );

    // The relay forwards again: the client reconnects and the page is usable.
    relay.forward();
    next_event(&events, Duration::from_secs(15), |e| match e {
        ClientEvent::Connected { reconnected, .. } => reconnected.then_some(()),
        _ => None,
    });
    wait_live(&client);
    let two = client.evaluate(Evaluation::new("1 + 1")).unwrap();
    assert_eq!(two.value, 2);

    // A hosted browser's timeout: an HTTP status written into the upgraded stream.
    // Read as a WebSocket frame, "HT" announces 84 bytes of payload: the reply is longer,
    // so the client has the whole frame (with its reserved bits set) before the close.
    let timeout = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 31\r\n\r\nthe session's time limit is up\n";
    assert!(timeout.len() > 86);
    relay.write_to_clients_and_close(timeout.as_bytes());
    // (On a loaded machine a probe of the fresh connection may have gone unanswered
    // before: that loss is said as silence, and this one still comes.)
    let error = next_event(&events, Duration::from_secs(15), |e| match e {
        ClientEvent::ConnectionLost { error } if !error.contains("silent") => Some(error),
        _ => None,
    });
    assert!(error.contains("broke the WebSocket protocol"), "{error}");
    next_event(&events, Duration::from_secs(15), |e| match e {
        ClientEvent::Connected { reconnected, .. } => reconnected.then_some(()),
        _ => None,
    });

    // The endpoint dies for good: the backoff's attempts, then a clear end.
    relay.refuse();
    let died = Instant::now();
    let error = next_event(&events, Duration::from_secs(40), |e| match e {
        ClientEvent::GaveUp { error } => Some(error),
        _ => None,
    });
    assert!(error.contains("5 reconnect attempts failed"), "{error}");
    assert!(
        died.elapsed() < Duration::from_secs(30),
        "{:?}",
        died.elapsed()
    );
    // Refused at once: the loop is over (or ending: nothing attaches any more).
    let after = client.evaluate(Evaluation::new("1"));
    let code = after.err().map(|e| e.code());
    assert!(
        matches!(code, Some("disconnected" | "not_attached")),
        "{code:?}"
    );
}
