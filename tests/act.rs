//! Agent actions on the simulated-time harness: the settle rules (quiet after input, load
//! then quiet and network idle together, `wait: load`, a back/forward cache restore, the
//! budget), the screenshot fallback, and a dialog ending an action.

mod harness;

use std::time::Duration;

use cdp_supervisor::act::{ActError, ActOptions, ActResult, Action, Target, Wait};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE, PS};

fn click() -> Action {
    Action::Click {
        target: Target::Point { x: 10.0, y: 20.0 },
    }
}

fn result(h: &Harness, id: CommandId) -> Option<Result<ActResult, ActError>> {
    h.events.iter().find_map(|e| match e {
        Event::ActFinished { id: i, outcome } if *i == id => Some(outcome.clone().map(|r| *r)),
        _ => None,
    })
}

/// Answers every mouse event sent so far.
fn answer_input(h: &mut Harness) {
    let ids: Vec<u64> = h
        .sent_with("Input.dispatchMouseEvent")
        .iter()
        .map(|c| c.id)
        .collect();
    for id in ids {
        h.reply(id, "{}");
    }
}

/// Answers the screenshot (webp) and the title.
fn answer_capture(h: &mut Harness, webp: &str) {
    let shot = h.last_sent("Page.captureScreenshot").id;
    h.reply(shot, &format!(r#"{{"data":"{webp}"}}"#));
    let title = h.last_sent("Runtime.evaluate").id;
    h.reply(title, r#"{"result":{"type":"string","value":"T"}}"#);
}

fn console_log(h: &mut Harness, text: &str) {
    h.event(
        PS,
        "Runtime.consoleAPICalled",
        &format!(r#"{{"type":"log","args":[{{"type":"string","value":"{text}"}}],"executionContextId":1}}"#),
    );
}

#[test]
fn a_click_settles_after_500_ms_without_console_and_answers_with_everything() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    let mouse: Vec<String> = h
        .sent_with("Input.dispatchMouseEvent")
        .iter()
        .map(|c| c.json.clone())
        .collect();
    assert_eq!(mouse.len(), 3);
    assert!(mouse[0].contains("mouseMoved") && mouse[1].contains("mousePressed"));
    assert!(mouse[2].contains("mouseReleased") && mouse[2].contains(r#""button":"left""#));
    assert!(h.sent_on(PS).contains(&"Page.setLifecycleEventsEnabled"));
    answer_input(&mut h);
    h.advance(0.3);
    console_log(&mut h, "hello");
    h.advance(0.4); // 0.4 s after the line: not quiet yet
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    h.advance(0.11);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled && !r.navigated);
    assert_eq!(r.url, "http://a.test/");
    assert_eq!(r.title, "T");
    assert_eq!(r.console.len(), 1);
    assert_eq!(r.console[0].text, "hello");
    assert_eq!(r.console[0].level, "log");
    assert_eq!(r.console[0].frame_id.as_deref(), Some(PAGE));
    assert_eq!(r.screenshot.unwrap().mime, "image/webp");
    assert_eq!(r.mouse.map(|m| (m.x, m.y)), Some((10.0, 20.0)));
}

#[test]
fn a_navigation_waits_for_load_then_quiet() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    h.event(
        PS,
        "Page.frameStartedNavigating",
        &format!(r#"{{"frameId":"{PAGE}","url":"http://a.test/2","loaderId":"L","navigationType":"differentDocument"}}"#),
    );
    answer_input(&mut h);
    h.advance(2.0);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "waits for the load"
    );
    h.event(PS, "Page.frameNavigated", &format!(
        r#"{{"frame":{{"id":"{PAGE}","url":"http://a.test/2","securityOrigin":"http://a.test"}},"type":"Navigation"}}"#
    ));
    h.event(
        PS,
        "Page.lifecycleEvent",
        &format!(r#"{{"frameId":"{PAGE}","loaderId":"L","name":"load","timestamp":1}}"#),
    );
    h.advance(0.6);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "waits for networkAlmostIdle"
    );
    h.event(
        PS,
        "Page.lifecycleEvent",
        &format!(
            r#"{{"frameId":"{PAGE}","loaderId":"L","name":"networkAlmostIdle","timestamp":1}}"#
        ),
    );
    h.advance(0.01);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled && r.navigated);
    assert_eq!(r.url, "http://a.test/2");
}

#[test]
fn the_budget_running_out_reports_unsettled() {
    let mut h = Harness::attached(Config::default());
    let mut options = ActOptions::default();
    options.timeout = Duration::from_secs(2);
    let id = h
        .sup
        .act(
            h.now,
            Action::Navigate {
                url: "http://b.test/".into(),
            },
            options,
        )
        .unwrap();
    h.drain();
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, r#"{"frameId":"PAGE","loaderId":"L"}"#);
    h.advance(1.9);
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    h.advance(0.2);
    // webp comes back empty: png is asked for.
    let shot = h.last_sent("Page.captureScreenshot").id;
    h.reply(shot, r#"{"data":""}"#);
    let png = h.last_sent("Page.captureScreenshot");
    assert!(png.json.contains("png"));
    let png = png.id;
    h.reply(png, r#"{"data":"iVBORw=="}"#);
    let title = h.last_sent("Runtime.evaluate").id;
    h.reply(title, r#"{"result":{"type":"string","value":""}}"#);
    let r = result(&h, id).expect("finished").unwrap();
    assert!(!r.settled && r.navigated);
    assert_eq!(r.screenshot.unwrap().mime, "image/png");
}

#[test]
fn a_dialog_ends_the_action_at_once_and_the_late_release_is_dropped() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    let ids: Vec<u64> = h
        .sent_with("Input.dispatchMouseEvent")
        .iter()
        .map(|c| c.id)
        .collect();
    h.reply(ids[0], "{}");
    h.reply(ids[1], "{}");
    h.dialog_opening(PAGE, "alert", "hi");
    let r = result(&h, id).expect("ended at once").unwrap();
    assert!(!r.settled && r.screenshot.is_none());
    assert_eq!(r.ended_by_dialog.as_deref(), Some("d-1"));
    assert_eq!(r.pending_dialogs.len(), 1);
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    // Input is refused while it shows; navigate is not.
    let e = h
        .sup
        .act(h.now, Action::press("Tab").unwrap(), ActOptions::default())
        .unwrap_err();
    assert_eq!(e.code(), "blocked");
    // The release completes once the dialog is answered: dropped quietly.
    h.dialog_closed(PAGE, true);
    h.take_events();
    h.reply(ids[2], "{}");
    assert!(h
        .events
        .iter()
        .all(|e| !matches!(e, Event::ActFinished { .. } | Event::Warning(_))));
    let next = h.sup.act(h.now, click(), ActOptions::default());
    assert!(next.is_ok());
}

#[test]
fn bad_parameters_are_refused_before_anything_is_sent() {
    let mut h = Harness::attached(Config::default());
    h.sent.clear();
    let node = Action::Click {
        target: Target::Node {
            frame_id: "NOPE".into(),
            backend_node_id: 1,
        },
    };
    let e = h.sup.act(h.now, node, ActOptions::default()).unwrap_err();
    assert_eq!(e.code(), "no_such_frame");
    let e = h
        .sup
        .act(
            h.now,
            Action::Click {
                target: Target::Ref("e9".into()),
            },
            ActOptions::default(),
        )
        .unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    h.drain();
    assert!(h.sent.is_empty());
}

#[test]
fn errors_and_exceptions_are_captured_with_their_level_and_earlier_ones_are_not() {
    let mut h = Harness::attached(Config::default());
    h.event(
        PS,
        "Runtime.consoleAPICalled",
        r#"{"type":"error","args":[{"type":"string","value":"before"}],"executionContextId":1}"#,
    );
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    answer_input(&mut h);
    h.event(
        PS,
        "Runtime.consoleAPICalled",
        r#"{"type":"error","args":[{"type":"string","value":"bad"}],"executionContextId":1}"#,
    );
    h.event(
        PS,
        "Runtime.exceptionThrown",
        r#"{"timestamp":1,"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":0,"columnNumber":0,"exception":{"type":"object","description":"Error: boom"}}}"#,
    );
    console_log(&mut h, "info line");
    h.advance(0.6);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    let lines: Vec<(&str, &str)> = r
        .console
        .iter()
        .map(|l| (l.level.as_str(), l.text.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("error", "bad"),
            ("exception", "Error: boom"),
            ("log", "info line")
        ]
    );
    // The ring (errors only) kept them too.
    assert_eq!(h.snapshot().console_errors.len(), 3);
}

#[test]
fn under_an_auto_policy_a_dialog_does_not_end_the_action() {
    let mut config = Config::default();
    config.policy = cdp_supervisor::DialogPolicy::AutoAccept;
    let mut h = Harness::attached(config);
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    h.dialog_opening(PAGE, "alert", "hi");
    assert!(
        result(&h, id).is_none(),
        "the policy answers it; the action goes on"
    );
    h.dialog_closed(PAGE, true);
    answer_input(&mut h);
    h.advance(0.6);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled && r.ended_by_dialog.is_none() && r.pending_dialogs.is_empty());
}

fn load_only() -> ActOptions {
    let mut o = ActOptions::default();
    o.wait = Wait::Load;
    o
}

fn lifecycle(h: &mut Harness, name: &str, loader: &str) {
    h.event(
        PS,
        "Page.lifecycleEvent",
        &format!(r#"{{"frameId":"{PAGE}","loaderId":"{loader}","name":"{name}","timestamp":1}}"#),
    );
}

fn started_navigating(h: &mut Harness, url: &str, kind: &str) {
    h.event(
        PS,
        "Page.frameStartedNavigating",
        &format!(
            r#"{{"frameId":"{PAGE}","url":"{url}","loaderId":"L2","navigationType":"{kind}"}}"#
        ),
    );
}

fn top_navigated(h: &mut Harness, url: &str, kind: &str) {
    h.event(PS, "Page.frameNavigated", &format!(
        r#"{{"frame":{{"id":"{PAGE}","url":"{url}","securityOrigin":"http://a.test"}},"type":"{kind}"}}"#
    ));
}

/// `navigate` to `http://a.test/2` with `options`, its `Page.navigate` answered.
fn navigate(h: &mut Harness, options: ActOptions) -> CommandId {
    let id = h
        .sup
        .act(
            h.now,
            Action::Navigate {
                url: "http://a.test/2".into(),
            },
            options,
        )
        .unwrap();
    h.drain();
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, r#"{"frameId":"PAGE","loaderId":"L2"}"#);
    id
}

/// The no-op evaluates sent to poke the renderer's idleness detector.
fn idle_checks(h: &Harness) -> usize {
    h.sent_with("Runtime.evaluate")
        .iter()
        .filter(|c| c.json.contains(r#""expression":"0""#))
        .count()
}

#[test]
fn quiet_and_network_idle_run_together_from_the_load() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, ActOptions::default());
    started_navigating(&mut h, "http://a.test/2", "differentDocument");
    lifecycle(&mut h, "init", "L2");
    top_navigated(&mut h, "http://a.test/2", "Navigation");
    lifecycle(&mut h, "load", "L2");
    h.advance(0.2);
    lifecycle(&mut h, "networkAlmostIdle", "L2");
    h.advance(0.29);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "the quiet window still runs"
    );
    // 0.5 s after the load, not 0.5 s after networkAlmostIdle.
    h.advance(0.02);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled && r.navigated);
    assert!(
        (r.timing.settle - 0.5).abs() < 1e-6,
        "settled 0.5 s after the load: {:?}",
        r.timing
    );
    assert_eq!(idle_checks(&h), 0, "networkAlmostIdle came: no poke");
}

#[test]
fn a_late_network_idle_is_asked_for_from_half_a_second_after_the_load() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, ActOptions::default());
    started_navigating(&mut h, "http://a.test/2", "differentDocument");
    lifecycle(&mut h, "init", "L2");
    top_navigated(&mut h, "http://a.test/2", "Navigation");
    lifecycle(&mut h, "load", "L2");
    h.advance(0.49);
    assert_eq!(idle_checks(&h), 0);
    h.advance(0.02);
    assert_eq!(idle_checks(&h), 1, "a no-op evaluate 0.5 s after the load");
    assert!(h.sent_on(PS).ends_with(&["Runtime.evaluate"]));
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "quiet, but the network is not idle yet"
    );
    // Its reply is dropped; the page's network is still busy: poked again every 0.1 s.
    let poke = h.last_sent("Runtime.evaluate").id;
    h.reply(poke, r#"{"result":{"type":"number","value":0}}"#);
    h.advance(0.08);
    assert_eq!(idle_checks(&h), 1);
    h.advance(0.4);
    assert_eq!(idle_checks(&h), 5, "at 0.6, 0.7, 0.8 and 0.9 s");
    lifecycle(&mut h, "networkAlmostIdle", "L2");
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id)
        .expect("settled at networkAlmostIdle")
        .unwrap();
    assert!(r.settled && r.title == "T");
    assert!((r.timing.settle - 0.99).abs() < 1e-6, "{:?}", r.timing);
}

#[test]
fn the_old_documents_load_resent_before_the_new_one_commits_is_not_the_load() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .act(
            h.now,
            Action::Navigate {
                url: "http://a.test/2".into(),
            },
            load_only(),
        )
        .unwrap();
    h.drain();
    // Enabling lifecycle events re-sends the current document's, after the navigation
    // started (as recorded in e2e/bfcache-back.jsonl).
    started_navigating(&mut h, "http://a.test/2", "differentDocument");
    lifecycle(&mut h, "commit", "L1");
    lifecycle(&mut h, "load", "L1");
    lifecycle(&mut h, "networkAlmostIdle", "L1");
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, r#"{"frameId":"PAGE","loaderId":"L2"}"#);
    h.advance(0.1);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "the old document's load does not settle the navigation"
    );
    lifecycle(&mut h, "init", "L2");
    top_navigated(&mut h, "http://a.test/2", "Navigation");
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    lifecycle(&mut h, "load", "L2");
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("settled at the load").unwrap();
    assert!(r.settled && r.navigated);
    assert_eq!(r.url, "http://a.test/2");
    assert!((r.timing.settle - 0.1).abs() < 1e-6, "{:?}", r.timing);
}

/// The barrier `wait: load` sends after the input: a no-op evaluate on the page session.
fn barrier(h: &Harness) -> u64 {
    let last = h.last_sent("Runtime.evaluate");
    assert!(last.json.contains(r#""expression":"0""#), "{}", last.json);
    last.id
}

#[test]
fn wait_load_answers_a_click_that_starts_nothing_at_the_barrier_after_its_input() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, click(), load_only()).unwrap();
    h.drain();
    // The current document's lifecycle, re-sent on enabling: no navigation.
    lifecycle(&mut h, "commit", "L1");
    lifecycle(&mut h, "load", "L1");
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    answer_input(&mut h);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "a navigation the click requested may still be on its way"
    );
    let b = barrier(&h);
    h.reply(b, r#"{"result":{"type":"number","value":0}}"#);
    assert_eq!(
        h.sent_with("Page.captureScreenshot").len(),
        1,
        "captured at the barrier's reply, no quiet window"
    );
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled && !r.navigated);
    assert_eq!(r.timing.settle, 0.0);
}

/// A link's navigation reported after the click's reply (as Chromium does about half the
/// time) but before the barrier's: `wait: load` waits for its load.
#[test]
fn wait_load_waits_for_a_navigation_requested_before_the_barrier() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.act(h.now, click(), load_only()).unwrap();
    h.drain();
    answer_input(&mut h);
    let b = barrier(&h);
    h.event(
        PS,
        "Page.frameRequestedNavigation",
        &format!(r#"{{"frameId":"{PAGE}","reason":"anchorClick","url":"http://a.test/2","disposition":"currentTab"}}"#),
    );
    h.reply(b, r#"{"result":{"type":"number","value":0}}"#);
    h.advance(0.05);
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "requested, not started"
    );
    started_navigating(&mut h, "http://a.test/2", "differentDocument");
    lifecycle(&mut h, "init", "L2");
    top_navigated(&mut h, "http://a.test/2", "Navigation");
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    lifecycle(&mut h, "load", "L2");
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id)
        .expect("settled at the new page's load")
        .unwrap();
    assert!(r.settled && r.navigated);
    assert_eq!(r.url, "http://a.test/2");

    // A link into a new tab, and a jump within the document, leave nothing to load.
    h.sent.clear();
    let id = h.sup.act(h.now, click(), load_only()).unwrap();
    h.drain();
    h.event(
        PS,
        "Page.frameRequestedNavigation",
        &format!(r#"{{"frameId":"{PAGE}","reason":"anchorClick","url":"http://a.test/3","disposition":"newTab"}}"#),
    );
    answer_input(&mut h);
    let b = barrier(&h);
    h.reply(b, "{}");
    answer_capture(&mut h, "UklGRg==");
    assert!(result(&h, id).expect("at the barrier").unwrap().settled);
    h.sent.clear();
    let id = h.sup.act(h.now, click(), load_only()).unwrap();
    h.drain();
    answer_input(&mut h);
    h.event(
        PS,
        "Page.frameRequestedNavigation",
        &format!(r#"{{"frameId":"{PAGE}","reason":"anchorClick","url":"http://a.test/2#x","disposition":"currentTab"}}"#),
    );
    let b = barrier(&h);
    h.reply(b, "{}");
    assert!(h.sent_with("Page.captureScreenshot").is_empty(), "waits");
    h.event(
        PS,
        "Page.navigatedWithinDocument",
        &format!(r#"{{"frameId":"{PAGE}","url":"http://a.test/2#x","navigationType":"fragment"}}"#),
    );
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("at the jump").unwrap();
    assert!(r.settled && r.navigated);
}

#[test]
fn wait_load_answers_a_navigation_at_its_load_without_waiting_for_quiet() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, load_only());
    started_navigating(&mut h, "http://a.test/2", "differentDocument");
    lifecycle(&mut h, "init", "L2");
    top_navigated(&mut h, "http://a.test/2", "Navigation");
    h.advance(0.3);
    console_log(&mut h, "busy");
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    lifecycle(&mut h, "load", "L2");
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id).expect("finished at the load").unwrap();
    assert!(r.settled && r.navigated);
    assert_eq!(r.console.len(), 1);
    assert_eq!(idle_checks(&h), 0);
}

/// `back` whose page Chromium restores from its back/forward cache: history, then the
/// restore's events as recorded (no `init`, no `load`).
fn back_restored(h: &mut Harness, options: ActOptions) -> CommandId {
    let id = h.sup.act(h.now, Action::Back, options).unwrap();
    h.drain();
    let history = h.last_sent("Page.getNavigationHistory").id;
    h.reply(
        history,
        r#"{"currentIndex":1,"entries":[{"id":7,"url":"http://a.test/1","title":"one"},{"id":8,"url":"http://a.test/","title":"a"}]}"#,
    );
    let go = h.last_sent("Page.navigateToHistoryEntry");
    assert!(go.json.contains(r#""entryId":7"#));
    let go = go.id;
    lifecycle(h, "load", "L1"); // re-sent for the page being left
    lifecycle(h, "networkAlmostIdle", "L1");
    started_navigating(h, "http://a.test/1", "historyDifferentDocument");
    h.reply(go, "{}");
    h.advance(0.1);
    top_navigated(h, "http://a.test/1", "BackForwardCacheRestore");
    id
}

#[test]
fn a_back_forward_cache_restore_settles_at_its_frame_navigated() {
    let mut h = Harness::attached(Config::default());
    let id = back_restored(&mut h, ActOptions::default());
    h.advance(0.49);
    assert!(h.sent_with("Page.captureScreenshot").is_empty());
    h.advance(0.02);
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id)
        .expect("settled 0.5 s after the restore")
        .unwrap();
    assert!(r.settled && r.navigated);
    assert_eq!(r.url, "http://a.test/1");
    assert_eq!(idle_checks(&h), 0, "a restore fetches nothing: no poke");
    assert!((r.timing.settle - 0.6).abs() < 1e-6, "{:?}", r.timing);

    let id = back_restored(&mut h, load_only());
    answer_capture(&mut h, "UklGRg==");
    let r = result(&h, id)
        .expect("wait: load settles at the restore")
        .unwrap();
    assert!(r.settled && r.navigated);
    assert!((r.timing.settle - 0.1).abs() < 1e-6, "{:?}", r.timing);
}

/// The recorded `back` into the back/forward cache (navigate /p1, /p2, back, /p2, back on
/// a real Chromium, raw CDP): each `back` settles at its restore, with the page's title,
/// far inside the budget; before this rule it waited the whole budget for a `load` that
/// never comes.
#[test]
fn recorded_back_forward_cache_restores_settle() {
    for wait in [Wait::Quiet, Wait::Load] {
        let text = harness::trace_text("e2e/bfcache-back");
        // Each action starts where the recording enabled lifecycle events for it.
        let mut starts: std::collections::VecDeque<f64> = text
            .lines()
            .filter(|l| {
                l.contains(r#""dir": "out""#) && l.contains("Page.setLifecycleEventsEnabled")
            })
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["t"]
                    .as_f64()
                    .unwrap()
            })
            .collect();
        assert_eq!(starts.len(), 5);
        let mut actions: std::collections::VecDeque<(Action, ActOptions)> = Default::default();
        let mut back = load_only();
        back.wait = wait;
        for (path, is_back) in [
            ("/p1", false),
            ("/p2", false),
            ("", true),
            ("/p2", false),
            ("", true),
        ] {
            // Navigations answer at their load, before the recording's own capture, so
            // that the recorded capture replies are theirs (a poke would take the title's).
            let action = match is_back {
                true => (Action::Back, back),
                false => (Action::Navigate { url: path.into() }, load_only()),
            };
            actions.push_back(action);
        }
        let mut ids = Vec::new();
        let run = harness::replay_trace("e2e/bfcache-back", |sup, t, _| {
            if starts.front().is_some_and(|s| *s <= t) {
                starts.pop_front();
                let (action, options) = actions.pop_front().unwrap();
                ids.push((action.name(), sup.act(t, action, options).unwrap()));
            }
        });
        assert!(
            run.stats.input_errors.is_empty(),
            "{:?}",
            run.stats.input_errors
        );
        let finished: Vec<(&str, ActResult)> = ids
            .iter()
            .map(|(name, id)| {
                let r = run.events.iter().find_map(|(_, e)| match e {
                    Event::ActFinished { id: i, outcome } if i == id => {
                        Some(outcome.clone().map(|r| *r))
                    }
                    _ => None,
                });
                (
                    *name,
                    r.unwrap_or_else(|| panic!("{name} finished")).unwrap(),
                )
            })
            .collect();
        assert_eq!(finished.len(), 5);
        for (name, r) in &finished {
            assert!(r.settled && r.navigated, "{wait:?} {name}: {r:?}");
        }
        for (_, r) in finished.iter().filter(|(name, _)| *name == "back") {
            assert!(r.url.ends_with("/p1"), "{}", r.url);
            assert_eq!(r.title, "page p1");
            assert!(r.screenshot.is_some());
            let took = r.timing.input + r.timing.settle;
            let bound = if wait == Wait::Load { 0.3 } else { 0.8 };
            assert!(
                took < bound,
                "{wait:?}: back settled after {took:.3} s, {:?}",
                r.timing
            );
        }
    }
}

/// The recorded messages of a trace, in order: (time, direction, message).
fn recorded(name: &str) -> Vec<(f64, String, serde_json::Value)> {
    harness::trace_text(name)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("msg").is_some())
        .map(|v| {
            (
                v["t"].as_f64().unwrap(),
                v["dir"].as_str().unwrap().to_owned(),
                v["msg"].clone(),
            )
        })
        .collect()
}

/// The index of the reply to the command sent at `out`.
fn reply_to(msgs: &[(f64, String, serde_json::Value)], out: usize) -> usize {
    let id = &msgs[out].2["id"];
    out + msgs[out..]
        .iter()
        .position(|(_, dir, m)| dir == "in" && m.get("method").is_none() && &m["id"] == id)
        .expect("answered")
}

fn method_is(m: &serde_json::Value, method: &str) -> bool {
    m["method"].as_str() == Some(method)
}

/// Chromium facts, "Enabling lifecycle events re-sends the current document's": in the
/// recording, the loaded page's `commit` .. `networkIdle` (never `init`) come between
/// `Page.setLifecycleEventsEnabled` and its reply.
#[test]
fn enabling_lifecycle_events_re_sends_the_current_documents_before_its_reply() {
    let msgs = recorded("e2e/settle-signals");
    let enable = msgs
        .iter()
        .position(|(_, d, m)| d == "out" && method_is(m, "Page.setLifecycleEventsEnabled"))
        .unwrap();
    let names: Vec<&str> = msgs[enable..reply_to(&msgs, enable)]
        .iter()
        .filter(|(_, _, m)| method_is(m, "Page.lifecycleEvent"))
        .map(|(_, _, m)| m["params"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "commit",
            "DOMContentLoaded",
            "load",
            "networkAlmostIdle",
            "networkIdle"
        ]
    );
}

/// Chromium facts, "networkAlmostIdle is noticed at a task": after a static page's load,
/// `networkAlmostIdle` takes about 1-2 s when nothing runs on the renderer, and follows at
/// once a no-op evaluate sent when the network has been quiet for half a second.
#[test]
fn network_almost_idle_comes_late_on_an_idle_renderer_and_at_once_after_a_task() {
    let msgs = recorded("e2e/settle-signals");
    // The navigations after lifecycle events were enabled.
    let enabled = msgs
        .iter()
        .position(|(_, _, m)| method_is(m, "Page.setLifecycleEventsEnabled"))
        .unwrap();
    let mut seen = Vec::new();
    for (i, (_, dir, m)) in msgs.iter().enumerate().skip(enabled) {
        if dir != "out" || !method_is(m, "Page.navigate") {
            continue;
        }
        let loader = msgs[reply_to(&msgs, i)].2["result"]["loaderId"].clone();
        let event = |name: &str| {
            msgs[i..]
                .iter()
                .find(|(_, _, e)| {
                    method_is(e, "Page.lifecycleEvent")
                        && e["params"]["name"] == name
                        && e["params"]["loaderId"] == loader
                })
                .map(|(t, _, _)| *t)
        };
        let (Some(load), Some(idle)) = (event("load"), event("networkAlmostIdle")) else {
            continue;
        };
        let poke = msgs[i..]
            .iter()
            .find(|(t, d, e)| {
                *t > load && *t < idle + 0.001 && d == "out" && method_is(e, "Runtime.evaluate")
            })
            .map(|(t, _, _)| *t);
        seen.push((load, idle, poke));
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    for (load, idle, poke) in seen {
        match poke {
            Some(p) => assert!(idle - p < 0.05, "right after the poke: {load} {p} {idle}"),
            None => assert!(idle - load > 0.9, "late without one: {load} {idle}"),
        }
    }
}

/// Chromium facts, "A link's navigation can be reported after the click's reply": of the
/// recorded clicks on a link, some had `Page.frameRequestedNavigation` after the mouse
/// release's reply, every one before the reply of an evaluate sent on the same session at
/// that moment (the barrier of `wait: load`).
#[test]
fn a_links_navigation_can_follow_the_clicks_reply_but_never_a_later_evaluates() {
    let msgs = recorded("e2e/settle-signals");
    let (mut clicks, mut late) = (0, 0);
    for (i, (_, dir, m)) in msgs.iter().enumerate() {
        if dir != "out" || m["params"]["type"] != "mouseReleased" {
            continue;
        }
        let released = reply_to(&msgs, i);
        let barrier = msgs[released..]
            .iter()
            .position(|(_, d, e)| d == "out" && method_is(e, "Runtime.evaluate"))
            .map(|p| reply_to(&msgs, released + p))
            .unwrap();
        let requested = i + msgs[i..]
            .iter()
            .position(|(_, _, e)| method_is(e, "Page.frameRequestedNavigation"))
            .unwrap();
        clicks += 1;
        late += usize::from(requested > released);
        assert!(
            requested < barrier,
            "click {clicks}: before the barrier's reply"
        );
    }
    assert_eq!(clicks, 12);
    assert!(late > 0, "the recording shows the race");
}
