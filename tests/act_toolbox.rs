//! The rest of the toolbox on the simulated-time harness: `wait` for text (polled in every
//! frame, OOPIFs included, one budget), for text gone, for a time; a dialog ending a wait;
//! `forward` (into the back/forward cache: settled by its `frameNavigated`); `resize`.

mod harness;

use std::time::Duration;

use cdp_supervisor::act::{ActError, ActOptions, ActResult, Action, WaitFor};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE, PS};

fn result(h: &Harness, id: CommandId) -> Option<Result<ActResult, ActError>> {
    h.events.iter().find_map(|e| match e {
        Event::ActFinished { id: i, outcome } if *i == id => Some(outcome.clone().map(|r| *r)),
        _ => None,
    })
}

fn budget(secs: u64) -> ActOptions {
    let mut o = ActOptions::default();
    o.timeout = Duration::from_secs(secs);
    o.screenshot = false;
    o
}

/// The polls sent so far (the wait's `Runtime.evaluate`s that read `innerText`), with
/// their session.
fn polls(h: &Harness) -> Vec<(u64, String)> {
    h.sent_with("Runtime.evaluate")
        .iter()
        .filter(|c| c.json.contains("innerText"))
        .map(|c| (c.id, c.session_id.clone().unwrap_or_default()))
        .collect()
}

fn answer_poll(h: &mut Harness, id: u64, holds: bool) {
    h.reply(
        id,
        &format!(r#"{{"result":{{"type":"boolean","value":{holds}}}}}"#),
    );
}

/// Answers the title (no screenshot was asked for).
fn answer_title(h: &mut Harness) {
    let title = h.last_sent("Runtime.evaluate").id;
    h.reply(title, r#"{"result":{"type":"string","value":"T"}}"#);
}

/// A page with an OOPIF `C` on session `S-C`.
fn with_oopif() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_navigated("S-C", "C", Some(PAGE), "http://b.test/");
    h.drain();
    h
}

#[test]
fn wait_for_text_polls_every_frame_and_answers_when_the_oopif_shows_it() {
    let mut h = with_oopif();
    let wait = Action::Wait(WaitFor::Text("Ready  NOW".into()));
    let id = h.sup.act(h.now, wait, budget(5)).unwrap();
    h.drain();
    let first = polls(&h);
    let sessions: Vec<&str> = first.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        sessions,
        [PS, "S-C"],
        "one poll per frame, each on its session"
    );
    let poll = h.last_sent("Runtime.evaluate").json.clone();
    assert!(poll.contains(r#"includes(\"ready now\")"#), "{poll}");
    for (id, _) in &first {
        answer_poll(&mut h, *id, false);
    }
    // The next round comes 200 ms after the last one started, not before.
    h.advance(0.19);
    assert_eq!(polls(&h).len(), 2);
    h.advance(0.02);
    let second = polls(&h);
    assert_eq!(second.len(), 4);
    // The OOPIF holds it now: the wait ends at its answer, without the top's.
    answer_poll(&mut h, second[3].0, true);
    answer_title(&mut h);
    let r = result(&h, id).expect("answered").unwrap();
    assert!(r.settled && !r.navigated, "{r:?}");
    assert_eq!(r.title, "T");
    assert!((r.timing.input - 0.21).abs() < 1e-6, "{:?}", r.timing);
}

#[test]
fn wait_for_text_that_never_comes_fails_at_its_budget_and_no_later() {
    let mut h = with_oopif();
    let wait = Action::Wait(WaitFor::Text("never".into()));
    let id = h.sup.act(h.now, wait, budget(2)).unwrap();
    let start = h.now;
    let mut answered = 0;
    while result(&h, id).is_none() {
        assert!(h.now - start < 2.0 + 1e-6, "past the budget");
        // (the error says when it came: at the budget, 2000 ms)
        for (poll, _) in polls(&h).into_iter().skip(answered) {
            answer_poll(&mut h, poll, false);
            answered += 1;
        }
        h.advance(0.05);
    }
    let took = h.now - start; // the step it came in: the budget fell inside it
    assert!(
        (1.95..=2.05 + 1e-6).contains(&took),
        "answered after {took}"
    );
    let e = result(&h, id).unwrap().unwrap_err();
    assert_eq!(e.code(), "timeout");
    assert!(
        e.to_string().contains("\"never\"") && e.to_string().contains("2000 ms"),
        "{e}"
    );
    assert!(answered >= 18, "polled all along: {answered} polls");
}

#[test]
fn a_hung_frame_does_not_stop_the_others_from_finding_the_text() {
    let mut h = with_oopif();
    let id = h
        .sup
        .act(h.now, Action::Wait(WaitFor::Text("x".into())), budget(5))
        .unwrap();
    h.drain();
    let first = polls(&h);
    answer_poll(&mut h, first[0].0, false);
    // The OOPIF never answers: its poll fails at 2 s and the rounds go on.
    h.advance(2.05);
    let again = polls(&h);
    assert_eq!(again.len(), 4, "a new round after the hung poll failed");
    answer_poll(&mut h, again[2].0, true);
    answer_title(&mut h);
    assert!(result(&h, id).unwrap().is_ok());
}

#[test]
fn text_gone_needs_a_whole_round_without_it() {
    let mut h = with_oopif();
    let gone = Action::Wait(WaitFor::TextGone("Loading".into()));
    let id = h.sup.act(h.now, gone, budget(5)).unwrap();
    h.drain();
    let first = polls(&h);
    answer_poll(&mut h, first[0].0, false);
    answer_poll(&mut h, first[1].0, true);
    h.advance(0.2);
    let second = polls(&h);
    answer_poll(&mut h, second[2].0, false);
    assert!(result(&h, id).is_none(), "one frame is not the whole round");
    answer_poll(&mut h, second[3].0, false);
    answer_title(&mut h);
    assert!(result(&h, id).unwrap().unwrap().settled);
}

#[test]
fn a_time_wait_sleeps_on_the_clock_and_longer_than_the_budget_is_refused() {
    let mut h = Harness::attached(Config::default());
    let sleep = Action::Wait(WaitFor::Time(Duration::from_millis(1500)));
    let id = h.sup.act(h.now, sleep.clone(), budget(5)).unwrap();
    h.advance(1.49);
    assert!(polls(&h).is_empty(), "a sleep polls nothing");
    assert!(h.sup.poll_timeout().is_some());
    assert!(result(&h, id).is_none());
    h.advance(0.02);
    answer_title(&mut h);
    let r = result(&h, id).unwrap().unwrap();
    assert!(r.settled && (r.timing.input - 1.5).abs() < 0.02, "{r:?}");
    let e = h.sup.act(h.now, sleep, budget(1)).unwrap_err();
    assert_eq!(e.code(), "bad_request");
    assert!(e.to_string().contains("timeout_ms"), "{e}");
}

#[test]
fn a_dialog_opening_during_a_wait_ends_it_at_once_naming_the_dialog() {
    let mut h = with_oopif();
    let id = h
        .sup
        .act(h.now, Action::Wait(WaitFor::Text("x".into())), budget(5))
        .unwrap();
    h.advance(0.5);
    h.dialog_opening(PAGE, "alert", "hi");
    let r = result(&h, id).expect("ended at once").unwrap();
    assert!(!r.settled && r.screenshot.is_none());
    let d = r.ended_by_dialog.expect("names the dialog");
    assert_eq!(r.pending_dialogs[0].id, d);
    // And a wait cannot start while it shows.
    let e = h
        .sup
        .act(h.now, Action::Wait(WaitFor::Text("x".into())), budget(5))
        .unwrap_err();
    assert_eq!(e.code(), "blocked");
}

fn lifecycle(h: &mut Harness, name: &str, loader: &str) {
    h.event(
        PS,
        "Page.lifecycleEvent",
        &format!(r#"{{"frameId":"{PAGE}","loaderId":"{loader}","name":"{name}","timestamp":1}}"#),
    );
}

#[test]
fn forward_goes_to_the_next_entry_and_settles_at_a_cache_restore() {
    let mut h = Harness::attached(Config::default());
    let mut o = budget(10);
    o.screenshot = true;
    let id = h.sup.act(h.now, Action::Forward, o).unwrap();
    h.drain();
    let history = h.last_sent("Page.getNavigationHistory").id;
    h.reply(
        history,
        r#"{"currentIndex":0,"entries":[{"id":7,"url":"http://a.test/","title":"a"},{"id":8,"url":"http://a.test/2","title":"two"}]}"#,
    );
    let go = h.last_sent("Page.navigateToHistoryEntry");
    assert!(go.json.contains(r#""entryId":8"#), "{}", go.json);
    let go = go.id;
    lifecycle(&mut h, "load", "L1"); // re-sent for the page being left
    h.event(PS, "Page.frameStartedNavigating", &format!(
        r#"{{"frameId":"{PAGE}","url":"http://a.test/2","loaderId":"L2","navigationType":"historyDifferentDocument"}}"#
    ));
    h.reply(go, "{}");
    h.advance(0.1);
    h.event(PS, "Page.frameNavigated", &format!(
        r#"{{"frame":{{"id":"{PAGE}","url":"http://a.test/2","securityOrigin":"http://a.test"}},"type":"BackForwardCacheRestore"}}"#
    ));
    // No load comes: the restore is its load; 500 ms of quiet then.
    h.advance(0.51);
    let shot = h.last_sent("Page.captureScreenshot").id;
    h.reply(shot, r#"{"data":"UklGRg=="}"#);
    answer_title(&mut h);
    let r = result(&h, id).expect("settled at the restore").unwrap();
    assert!(r.settled && r.navigated, "{r:?}");
    assert_eq!(r.url, "http://a.test/2");
    assert!(r.timing.settle < 0.7, "{:?}", r.timing);
}

#[test]
fn forward_at_the_last_entry_is_an_error_that_says_so() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, Action::Forward, budget(5)).unwrap();
    h.drain();
    let history = h.last_sent("Page.getNavigationHistory").id;
    h.reply(
        history,
        r#"{"currentIndex":0,"entries":[{"id":7,"url":"http://a.test/","title":"a"}]}"#,
    );
    let e = result(&h, id).unwrap().unwrap_err();
    assert_eq!(e, ActError::NoForwardHistory);
    assert!(h.sent_with("Page.navigateToHistoryEntry").is_empty());
}

#[test]
fn resize_sets_the_page_sessions_viewport_then_settles() {
    let mut h = with_oopif();
    let action =
        Action::from_json(&serde_json::json!({"action": "resize", "width": 500, "height": 400}))
            .unwrap();
    let id = h.sup.act(h.now, action, budget(5)).unwrap();
    h.drain();
    let set = h.last_sent("Emulation.setDeviceMetricsOverride");
    assert_eq!(set.session_id.as_deref(), Some(PS));
    assert!(set.json.contains(r#""width":500"#) && set.json.contains(r#""height":400"#));
    assert!(h
        .sent_on("S-C")
        .iter()
        .all(|m| *m != "Emulation.setDeviceMetricsOverride"));
    let set = set.id;
    h.reply(set, "{}");
    h.advance(0.51);
    answer_title(&mut h);
    assert!(result(&h, id).unwrap().unwrap().settled);
    for bad in [
        serde_json::json!({"action": "resize", "width": 5, "height": 400}),
        serde_json::json!({"action": "resize", "width": 500}),
        serde_json::json!({"action": "resize", "width": 500, "height": 100000}),
    ] {
        let e = Action::from_json(&bad).unwrap_err();
        assert_eq!(e.code(), "bad_request", "{bad}");
    }
}

#[test]
fn wait_arguments_are_checked_before_anything_is_sent() {
    use serde_json::json;
    for (v, says) in [
        (json!({"action": "wait"}), "missing"),
        (
            json!({"action": "wait", "text": "a", "time_ms": 5}),
            "only one",
        ),
        (json!({"action": "wait", "text": ""}), "non-empty"),
        (json!({"action": "wait", "time_ms": -1}), "time_ms"),
    ] {
        let e = Action::from_json(&v).unwrap_err();
        assert!(e.to_string().contains(says), "{v}: {e}");
    }
    assert_eq!(
        Action::from_json(&json!({"action": "wait", "text_gone": "Loading"})).unwrap(),
        Action::Wait(WaitFor::TextGone("Loading".into()))
    );
    assert_eq!(
        Action::from_json(&json!({"action": "wait", "time_ms": 250})).unwrap(),
        Action::Wait(WaitFor::Time(Duration::from_millis(250)))
    );
}

/// The recording `e2e/bfcache-forward.jsonl` (navigate /p1, navigate /p2, back, forward on
/// raw CDP), replayed with the actions driven at its times: `back` and `forward` each
/// settle at their cache restore's `frameNavigated` (no `load` comes), fast.
#[test]
fn recorded_forward_into_the_back_forward_cache_settles_at_the_restore() {
    let text = harness::trace_text("e2e/bfcache-forward");
    let mut starts: std::collections::VecDeque<f64> = text
        .lines()
        .filter(|l| l.contains(r#""dir": "out""#) && l.contains("Page.setLifecycleEventsEnabled"))
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["t"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(starts.len(), 4);
    let mut load = ActOptions::default();
    load.wait = cdp_supervisor::act::Wait::Load;
    let mut actions: std::collections::VecDeque<Action> = [
        Action::Navigate { url: "/p1".into() },
        Action::Navigate { url: "/p2".into() },
        Action::Back,
        Action::Forward,
    ]
    .into();
    let mut ids = Vec::new();
    let run = harness::replay_trace("e2e/bfcache-forward", |sup, t, _| {
        if starts.front().is_some_and(|s| *s <= t) {
            starts.pop_front();
            let action = actions.pop_front().unwrap();
            ids.push((action.name(), sup.act(t, action, load).unwrap()));
        }
    });
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
    let results: Vec<(&str, ActResult)> = ids
        .iter()
        .map(|(name, id)| {
            let r = run.events.iter().find_map(|(_, e)| match e {
                Event::ActFinished { id: i, outcome } if i == id => Some(outcome.clone()),
                _ => None,
            });
            (
                *name,
                *r.unwrap_or_else(|| panic!("{name} finished")).unwrap(),
            )
        })
        .collect();
    assert_eq!(results.len(), 4);
    for (name, r) in &results {
        assert!(r.settled && r.navigated, "{name}: {r:?}");
    }
    let (_, forward) = &results[3];
    assert!(forward.url.ends_with("/p2"), "{}", forward.url);
    assert_eq!(forward.title, "page p2");
    let took = forward.timing.input + forward.timing.settle;
    assert!(
        took < 0.3,
        "forward settled after {took:.3} s: {:?}",
        forward.timing
    );
}
