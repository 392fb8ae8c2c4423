//! End-to-end: dialogs in every kind of frame, against a real headless Chromium.

mod support;

use std::time::Duration;

use cdp_supervisor::{ClosedBy, CommandError, DialogAction, DialogPolicy, PageState};
use cdp_supervisor_blocking::{Client, ClientError};
use serde_json::{json, Value};
use support::blocking::*;

/// Dialogs in every frame (dialogs are reported on the page session; the close comes before the answer's reply): each dialog type raised in the top frame, a srcdoc iframe,
/// an OOPIF and an OOPIF nested in an OOPIF is pending with the right frame id, and the
/// answer (accept, dismiss, prompt text) reaches the page's JavaScript.
#[test]
fn every_dialog_type_in_every_kind_of_frame() {
    let Some(w) = world("every-dialog-type", options("every-dialog-type")) else {
        return;
    };
    let frames = open_demo(&w);
    let cases: &[(&str, DialogAction, Option<&str>, Value)] = &[
        ("alert", DialogAction::Accept, None, json!("alerted")),
        ("confirm", DialogAction::Accept, None, json!(true)),
        ("confirm", DialogAction::Dismiss, None, json!(false)),
        (
            "prompt",
            DialogAction::Accept,
            Some("typed"),
            json!("typed"),
        ),
        ("prompt", DialogAction::Accept, None, json!("default text")),
        ("prompt", DialogAction::Dismiss, None, Value::Null),
    ];
    for which in ["top", "srcdoc", "cross", "nested"] {
        for (kind, action, text, expected) in cases {
            let message = format!("{kind} in {which}");
            raise(&w.client, &frames, which, kind, &message);
            let dialog = wait_dialog_of(&w.client, kind);
            assert_eq!(dialog.frame_id, frame_id_of(which, &frames), "{message}");
            assert_eq!(dialog.message, message);
            if *kind == "prompt" {
                assert_eq!(dialog.default_prompt, "default text");
            }
            let closed = w
                .client
                .respond_dialog(*action, *text, Some(&dialog.id))
                .unwrap();
            assert_eq!(closed.id, dialog.id);
            assert_eq!(closed.closed_by, ClosedBy::Agent);
            assert_eq!(closed.accepted, *action == DialogAction::Accept);
            assert_eq!(
                &last_answer(&w.client, &frames, which),
                expected,
                "{message} answered {action:?} {text:?}"
            );
        }
    }
    let snap = w.client.snapshot().unwrap();
    assert!(snap.pending_dialogs.is_empty());
    assert_eq!(
        snap.recent_dialogs.len(),
        20,
        "the ring keeps the 20 most recent"
    );
    // console.error from every frame, OOPIFs included.
    for which in ["top", "srcdoc", "cross", "nested"] {
        let id = frame_id_of(which, &frames);
        assert!(
            snap.console_errors
                .iter()
                .any(|e| e.frame_id.as_deref() == Some(id.as_str())),
            "no console error from {which}"
        );
    }
}

/// A navigation closes the dialog: `beforeunload` shows only after a user gesture; it is pending like any other.
#[test]
fn beforeunload_after_a_user_gesture() {
    let Some(w) = world("beforeunload", options("beforeunload")) else {
        return;
    };
    let frames = open_demo(&w);
    assert_eq!(
        eval_in(&w.client, &frames, "top", "armBeforeUnload()"),
        json!("armed")
    );
    for kind in ["mousePressed", "mouseReleased"] {
        w.client
            .command(
                None,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": 5, "y": 5, "button": "left", "clickCount": 1}),
                WAIT,
            )
            .unwrap();
    }
    let nav = w
        .client
        .start_command(
            None,
            "Page.navigate",
            json!({"url": w.site.url("/title?t=after")}),
            WAIT,
        )
        .unwrap();
    let dialog = wait_dialog_of(&w.client, "beforeunload");
    assert_eq!(dialog.frame_id, frames.top);
    w.client
        .respond_dialog(DialogAction::Accept, None, Some(&dialog.id))
        .unwrap();
    nav.wait().unwrap();
    w.client
        .wait_for(WAIT, "the new page", |s| {
            s.frame_tree
                .top
                .as_ref()
                .is_some_and(|t| t.url.contains("/title"))
        })
        .unwrap();
}

/// The dialog policy: `auto_accept` and `auto_dismiss` answer at once, closed_by `auto_policy`;
/// a prompt accepted by policy gets its default text.
#[test]
fn auto_policies_answer_at_once() {
    let Some(w) = world("auto-policies", options("auto-policies")) else {
        return;
    };
    let frames = open_demo(&w);
    w.client.set_policy(DialogPolicy::AutoAccept).unwrap();
    raise(&w.client, &frames, "cross", "prompt", "auto accepted");
    assert_eq!(
        last_answer(&w.client, &frames, "cross"),
        json!("default text")
    );
    w.client.set_policy(DialogPolicy::AutoDismiss).unwrap();
    raise(&w.client, &frames, "nested", "confirm", "auto dismissed");
    assert_eq!(last_answer(&w.client, &frames, "nested"), json!(false));
    let snap = w
        .client
        .wait_for(WAIT, "two closed dialogs", |s| s.recent_dialogs.len() == 2)
        .unwrap();
    let by: Vec<_> = snap
        .recent_dialogs
        .iter()
        .map(|d| (d.closed_by, d.accepted))
        .collect();
    assert_eq!(
        by,
        [(ClosedBy::AutoPolicy, true), (ClosedBy::AutoPolicy, false)]
    );
    assert_eq!(snap.recent_dialogs[0].frame_id, frames.cross);
    assert_eq!(snap.recent_dialogs[1].frame_id, frames.nested);
}

/// The dialog policy: with `dialog_timeout` 1 s a `must_respond` dialog is dismissed by the
/// watchdog.
#[test]
fn watchdog_dismisses_after_the_dialog_timeout() {
    let mut opts = options("watchdog");
    opts.config.dialog_timeout = Duration::from_secs(1);
    let Some(w) = world("watchdog", opts) else {
        return;
    };
    let frames = open_demo(&w);
    raise(&w.client, &frames, "nested", "confirm", "nobody answers");
    let dialog = wait_dialog_of(&w.client, "confirm");
    let closed = wait_closed(&w.client, &dialog.id);
    assert_eq!(closed.closed_by, ClosedBy::Watchdog);
    let waited = closed.closed_at - closed.opened_at;
    assert!((0.9..5.0).contains(&waited), "closed after {waited} s");
    assert_eq!(last_answer(&w.client, &frames, "nested"), json!(false));
}

/// Commands blocked by a dialog (a command under a dialog gets no reply): a `Runtime.evaluate` that opens an alert is reported blocked at
/// once, and finishes after the answer.
#[test]
fn evaluate_that_raises_an_alert_is_blocked_at_once() {
    let Some(w) = world("blocked-evaluate", options("blocked-evaluate")) else {
        return;
    };
    let frames = open_demo(&w);
    let result = blocked_until_accepted(&w.client, &frames.cross, "alert('in the way'); 42");
    assert_eq!(result["result"]["value"], json!(42));
}

/// Connection loss and recovery (a dialog left open wedges the tab for the next client): `stop` with a dialog pending settles it, so that a new client
/// attaches and `Page.enable` answers (page `live`, not `blocked`).
#[test]
fn stop_settles_dialogs_so_the_next_client_attaches() {
    let Some(w) = world("stop-then-reattach", options("stop-then-reattach")) else {
        return;
    };
    let frames = open_demo(&w);
    raise(&w.client, &frames, "top", "alert", "left open at stop");
    wait_dialog_of(&w.client, "alert");
    w.client.stop().unwrap();
    assert!(matches!(w.client.snapshot(), Err(ClientError::Closed)));

    let second = Client::connect(w.browser.ws_url(), options("stop-then-reattach-2")).unwrap();
    let snap = wait_live(&second);
    assert!(snap.pending_dialogs.is_empty());
    let title = second
        .command(
            None,
            "Runtime.evaluate",
            json!({"expression": "document.title", "returnByValue": true}),
            WAIT,
        )
        .unwrap();
    assert_eq!(title["result"]["value"], json!("cdp-supervise demo"));
    second.stop().unwrap();
    drop(w);
}

/// The other way round (a dialog left open wedges the tab for the next client): a client that leaves a dialog open wedges the tab; the
/// next client reports the page `blocked` and `recover` releases it.
#[test]
fn a_wedged_tab_is_reported_blocked_and_recovered() {
    let Some(w) = world("wedged-then-recover", options("wedged-then-recover")) else {
        return;
    };
    open_demo(&w);
    let target = w.client.snapshot().unwrap().page.unwrap().target_id;
    w.client.stop().unwrap();
    leave_a_dialog_open(w.browser.ws_url(), &target);

    let mut opts = options("wedged-then-recover-2");
    opts.config.enable_timeout = Duration::from_secs(1);
    let second = Client::connect(w.browser.ws_url(), opts).unwrap();
    let snap = second
        .wait_for(WAIT, "page blocked", |s| {
            s.page
                .as_ref()
                .is_some_and(|p| p.state == PageState::Blocked)
        })
        .unwrap();
    assert!(snap.page.unwrap().reason.unwrap().contains("recover"));
    second.recover().unwrap();
    wait_live(&second);
    // The page answers again; the reloaded document may still be parsing its <title>.
    let end = std::time::Instant::now() + WAIT;
    loop {
        let title = eval(&second, None, "document.title");
        if title == json!("cdp-supervise demo") {
            break;
        }
        assert!(
            std::time::Instant::now() < end,
            "title after recover: {title}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    second.stop().unwrap();
}

/// A bare CDP client that opens an alert in the page and disconnects without answering.
fn leave_a_dialog_open(ws_url: &str, target: &str) {
    let (mut ws, _) = tungstenite::connect(ws_url).unwrap();
    let send = |ws: &mut tungstenite::WebSocket<_>, v: Value| {
        ws.send(tungstenite::Message::text(v.to_string())).unwrap();
    };
    send(
        &mut ws,
        json!({"id": 1, "method": "Target.attachToTarget", "params": {"targetId": target, "flatten": true}}),
    );
    let session = loop {
        let msg: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
        if msg["id"] == json!(1) {
            break msg["result"]["sessionId"].as_str().unwrap().to_owned();
        }
    };
    send(
        &mut ws,
        json!({"id": 2, "method": "Page.enable", "sessionId": session}),
    );
    send(
        &mut ws,
        json!({"id": 3, "method": "Runtime.evaluate", "sessionId": session,
        "params": {"expression": "setTimeout(() => alert('orphaned'), 0)"}}),
    );
    loop {
        let msg: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
        if msg["method"] == json!("Page.javascriptDialogOpening") {
            break;
        }
    }
    drop(ws);
}

/// Routing a command into a frame: a command for a frame that is not an OOPIF that evaluates script gets the
/// clear not-an-OOPIF error; an unknown frame is named.
#[test]
fn routing_errors_are_clear() {
    let Some(w) = world("routing-errors", options("routing-errors")) else {
        return;
    };
    let frames = open_demo(&w);
    let err = w
        .client
        .command(
            Some(&frames.srcdoc),
            "Runtime.evaluate",
            json!({"expression": "1"}),
            WAIT,
        )
        .unwrap_err();
    let ClientError::Command(CommandError::NotAnOopif { frame_id, .. }) = &err else {
        panic!("expected NotAnOopif, got {err}");
    };
    assert_eq!(frame_id, &frames.srcdoc);
    assert!(err.to_string().contains("contentWindow"), "{err}");
    let err = w
        .client
        .command(
            Some("NO-SUCH-FRAME"),
            "Runtime.evaluate",
            json!({"expression": "1"}),
            WAIT,
        )
        .unwrap_err();
    assert!(err.to_string().contains("NO-SUCH-FRAME"), "{err}");
    // The OOPIFs answer with their own document.
    assert_eq!(
        eval(&w.client, Some(&frames.cross), "document.title"),
        json!("cross frame")
    );
    assert_eq!(
        eval(&w.client, Some(&frames.nested), "document.title"),
        json!("nested frame")
    );
    assert_eq!(
        eval(&w.client, Some(&frames.top), "document.title"),
        json!("cdp-supervise demo")
    );
}
