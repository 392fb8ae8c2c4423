//! End-to-end tests of the smol transport against a real headless Chromium: a
//! representative subset of the blocking crate's (dialogs in the top frame and in
//! OOPIFs, a routed command, a blocked command, the watchdog, reconnect, a screenshot
//! message above tungstenite's default frame cap).

mod support;
use support::noise_canvas;
use support::relay;

use std::time::Duration;

use cdp_supervise::demo::DemoSite;
use cdp_supervisor::{ClosedBy, CommandError, DialogAction, PageState};
use cdp_supervisor_smol::{Client, ClientError, ClientEvent, CommandUpdate};
use serde_json::{json, Value};
use support::smol::*;

/// Dialogs in every frame (dialogs are reported on the page session; the close comes before the answer's reply): dialogs of the top frame, an OOPIF and a nested OOPIF are
/// pending with their frame id; the answers reach the page.
#[test]
fn dialogs_in_the_top_frame_and_oopifs() {
    smol::block_on(async {
        let Some(w) = world("dialogs", options("dialogs")).await else {
            return;
        };
        let frames = open_demo(&w.client, &w.site).await;
        let cases: &[(&str, &str, DialogAction, Option<&str>, Value)] = &[
            ("top", "confirm", DialogAction::Accept, None, json!(true)),
            (
                "srcdoc",
                "alert",
                DialogAction::Accept,
                None,
                json!("alerted"),
            ),
            (
                "cross",
                "prompt",
                DialogAction::Accept,
                Some("typed"),
                json!("typed"),
            ),
            (
                "cross",
                "confirm",
                DialogAction::Dismiss,
                None,
                json!(false),
            ),
            (
                "nested",
                "prompt",
                DialogAction::Accept,
                None,
                json!("default text"),
            ),
            ("nested", "prompt", DialogAction::Dismiss, None, Value::Null),
        ];
        for (which, kind, action, text, expected) in cases {
            let message = format!("{kind} in {which}");
            raise(&w.client, &frames, which, kind, &message).await;
            let dialog = wait_dialog_of(&w.client, kind).await;
            assert_eq!(dialog.frame_id, frame_id_of(which, &frames), "{message}");
            let closed = w
                .client
                .respond_dialog(*action, *text, Some(&dialog.id))
                .await
                .unwrap();
            assert_eq!(closed.closed_by, ClosedBy::Agent);
            assert_eq!(
                &last_answer(&w.client, &frames, which).await,
                expected,
                "{message}"
            );
        }
        w.client.stop().await.unwrap();
    });
}

/// Routing a command into a frame: a command routed by frame id reads the OOPIF's own document; a srcdoc
/// frame id gets the clear not-an-OOPIF error.
#[test]
fn routed_commands() {
    smol::block_on(async {
        let Some(w) = world("routed", options("routed")).await else {
            return;
        };
        let frames = open_demo(&w.client, &w.site).await;
        assert_eq!(
            eval(&w.client, Some(&frames.cross), "document.title").await,
            json!("cross frame")
        );
        assert_eq!(
            eval(&w.client, Some(&frames.nested), "document.title").await,
            json!("nested frame")
        );
        let err = w
            .client
            .command(
                Some(&frames.srcdoc),
                "Runtime.evaluate",
                json!({"expression": "1"}),
                WAIT,
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClientError::Command(CommandError::NotAnOopif { .. })),
            "{err}"
        );
        w.client.stop().await.unwrap();
    });
}

/// Commands blocked by a dialog: a `Runtime.evaluate` that opens an alert in a nested OOPIF is reported
/// blocked at once and finishes after the answer.
#[test]
fn blocked_command_is_reported_at_once() {
    smol::block_on(async {
        let Some(w) = world("blocked", options("blocked")).await else {
            return;
        };
        let frames = open_demo(&w.client, &w.site).await;
        let pending = w
            .client
            .start_command(
                Some(&frames.nested),
                "Runtime.evaluate",
                json!({"expression": "alert('in the way'); 7", "returnByValue": true}),
                WAIT,
            )
            .await
            .unwrap();
        let CommandUpdate::Blocked { dialog_id } = pending.next_update(WAIT).await.unwrap() else {
            panic!("expected a blocked update first");
        };
        w.client
            .respond_dialog(DialogAction::Dismiss, None, Some(&dialog_id))
            .await
            .unwrap();
        let result: Value = serde_json::from_str(&pending.wait().await.unwrap()).unwrap();
        assert_eq!(result["result"]["value"], json!(7));
        w.client.stop().await.unwrap();
    });
}

/// The dialog policy: the watchdog dismisses a `must_respond` dialog after `dialog_timeout`.
#[test]
fn watchdog_dismisses() {
    smol::block_on(async {
        let mut opts = options("watchdog");
        opts.config.dialog_timeout = Duration::from_secs(1);
        let Some(w) = world("watchdog", opts).await else {
            return;
        };
        let frames = open_demo(&w.client, &w.site).await;
        raise(&w.client, &frames, "cross", "confirm", "nobody answers").await;
        let dialog = wait_dialog_of(&w.client, "confirm").await;
        let closed = wait_closed(&w.client, &dialog.id).await;
        assert_eq!(closed.closed_by, ClosedBy::Watchdog);
        assert_eq!(last_answer(&w.client, &frames, "cross").await, json!(false));
        w.client.stop().await.unwrap();
    });
}

/// Connection loss and recovery: the socket is cut mid-session; the task reconnects, re-attaches the same
/// tab, recovers its tree, and dialogs work again.
#[test]
fn reconnects_after_the_socket_is_cut() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("reconnect") else {
            return;
        };
        let site = DemoSite::start().unwrap();
        let relay = relay::Relay::start(([127, 0, 0, 1], browser.port()).into());
        let client = Client::connect(&relay.ws_url(browser.ws_url()), options("reconnect"))
            .await
            .unwrap();
        wait_live(&client).await;
        let before = open_demo(&client, &site).await;
        let events = client.subscribe().await.unwrap();
        relay.cut();
        let mut lost = false;
        let mut sent_while_reattaching = None;
        loop {
            let event = smol::future::or(async { events.recv().await.ok() }, async {
                smol::Timer::after(WAIT).await;
                None
            })
            .await
            .expect("reconnect events");
            match event {
                ClientEvent::ConnectionLost { .. } => {
                    lost = true;
                    // No page is attached now: the command waits for the re-attach.
                    let expression = json!({"expression": "6 * 7", "returnByValue": true});
                    let pending = client.start_command(None, "Runtime.evaluate", expression, WAIT);
                    sent_while_reattaching = Some(pending.await.unwrap());
                }
                ClientEvent::Connected {
                    reconnected: true, ..
                } => break,
                _ => {}
            }
        }
        assert!(lost);
        let snap = client
            .wait_for(WAIT, "the tree back", |s| {
                demo_loaded(s) && s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
            })
            .await
            .unwrap();
        let after = demo_frames(&snap);
        assert_eq!(after.top, before.top);
        let answer = sent_while_reattaching.expect("a command sent").wait().await;
        assert!(answer.unwrap().contains("42"));
        raise(&client, &after, "nested", "alert", "after reconnect").await;
        let d = wait_dialog_of(&client, "alert").await;
        assert_eq!(d.frame_id, after.nested);
        client
            .respond_dialog(DialogAction::Accept, None, None)
            .await
            .unwrap();
        client.stop().await.unwrap();
    });
}

/// WebSocket limits: a screenshot message of about 27 MB (far above tungstenite's default
/// 16 MiB frame cap) arrives whole through async-tungstenite and the supervisor.
#[test]
fn a_screenshot_above_the_default_frame_cap_arrives_whole() {
    smol::block_on(async {
        // Not recorded: the trace would hold the whole image.
        let Some(w) = world("big-screenshot", Default::default()).await else {
            return;
        };
        let drawn = w
            .client
            .command(
                None,
                "Runtime.evaluate",
                json!({"expression": noise_canvas::draw_noise_canvas(), "returnByValue": true}),
                WAIT,
            )
            .await
            .unwrap();
        let side = noise_canvas::SIDE;
        assert_eq!(drawn["result"]["value"], json!(side * side), "{drawn}");
        let shot = w
            .client
            .command(
                None,
                "Page.captureScreenshot",
                noise_canvas::capture_params(),
                Duration::from_secs(120),
            )
            .await
            .unwrap();
        noise_canvas::assert_big_png(&shot);
        w.client.stop().await.unwrap();
    });
}
