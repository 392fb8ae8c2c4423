//! Agent actions on the simulated-time harness: the settle rules (quiet after input, load
//! then quiet, the budget), the screenshot fallback, and a dialog ending an action.

mod harness;

use std::time::Duration;

use cdp_supervisor::act::{ActError, ActOptions, ActResult, Action, Target};
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
