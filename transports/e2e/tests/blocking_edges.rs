//! End-to-end: the harder facts (8, 9, 13, 15) against a real headless Chromium.

mod support;
use support::noise_canvas;

use cdp_supervisor::{ClosedBy, DialogAction, PageState};
use cdp_supervisor_blocking::ClientError;
use serde_json::json;
use support::blocking::*;

/// Facts 8 and 15: a second dialog while one shows replaces it (the first closes
/// `remote`); if Chromium can then no longer answer, the page is reported blocked and
/// `recover` releases it.
#[test]
fn a_second_dialog_replaces_the_first() {
    let Some(w) = world("second-dialog", options("second-dialog")) else {
        return;
    };
    let frames = open_demo(&w);
    raise(&w.client, &frames, "top", "alert", "first");
    let first = wait_dialog_of(&w.client, "alert");
    raise(&w.client, &frames, "cross", "confirm", "second");
    let second = wait_dialog_of(&w.client, "confirm");
    assert_eq!(second.frame_id, frames.cross);
    let closed = wait_closed(&w.client, &first.id);
    assert_eq!(closed.closed_by, ClosedBy::Remote);
    match w
        .client
        .respond_dialog(DialogAction::Accept, None, Some(&second.id))
    {
        Ok(c) => {
            eprintln!("second-dialog: the OOPIF's dialog was answerable");
            assert_eq!(c.id, second.id);
            assert_eq!(last_answer(&w.client, &frames, "cross"), json!(true));
        }
        Err(ClientError::Dialog(e)) => {
            // Two dialogs at once can wedge a frame: wedged. The page says so; recover releases it.
            eprintln!("second-dialog: wedged, recovering");
            assert!(e.to_string().contains("wedged"), "{e}");
            let snap = w
                .client
                .wait_for(WAIT, "page blocked", |s| {
                    s.page
                        .as_ref()
                        .is_some_and(|p| p.state == PageState::Blocked)
                })
                .unwrap();
            assert!(snap.page.unwrap().reason.unwrap().contains(&second.id));
            w.client.recover().unwrap();
            let snap = w
                .client
                .wait_for(WAIT, "live again", |s| {
                    s.pending_dialogs.is_empty()
                        && s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
                })
                .unwrap();
            let closed = snap
                .recent_dialogs
                .iter()
                .find(|d| d.id == second.id)
                .unwrap();
            assert_eq!(closed.closed_by, ClosedBy::Remote);
        }
        Err(e) => panic!("{e}"),
    }
}

/// A navigation closes the dialog: a navigation while a dialog shows closes it `remote`; the old subframes go.
#[test]
fn navigation_closes_a_pending_dialog() {
    let Some(w) = world("navigate-with-dialog", options("navigate-with-dialog")) else {
        return;
    };
    let frames = open_demo(&w);
    raise(&w.client, &frames, "nested", "prompt", "abandoned");
    let d = wait_dialog_of(&w.client, "prompt");
    navigate(&w.client, &w.site.url("/title?t=elsewhere"), |s| {
        s.pending_dialogs.is_empty()
            && s.frame_tree.children.is_empty()
            && s.frame_tree
                .top
                .as_ref()
                .is_some_and(|t| t.url.contains("/title"))
    });
    let closed = wait_closed(&w.client, &d.id);
    assert_eq!(closed.closed_by, ClosedBy::Remote);
}

/// A crash: `Page.crash` gives a crashed page; `recover` navigates it back to life.
#[test]
fn a_crashed_page_is_reported_and_recovered() {
    let Some(w) = world("crash-recover", options("crash-recover")) else {
        return;
    };
    open_demo(&w);
    let _ = w
        .client
        .start_command(None, "Page.crash", json!({}), WAIT)
        .unwrap();
    w.client
        .wait_for(WAIT, "page crashed", |s| {
            s.page
                .as_ref()
                .is_some_and(|p| p.state == PageState::Crashed)
        })
        .unwrap();
    w.client.recover().unwrap();
    let snap = w
        .client
        .wait_for(WAIT, "live with its frames again", |s| {
            demo_loaded(s) && s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
        })
        .unwrap();
    let frames = demo_frames(&snap);
    wait_documents_loaded(&w.client, &frames);
    assert_eq!(
        eval(&w.client, Some(&frames.nested), "document.title"),
        json!("nested frame")
    );
}

/// WebSocket limits (issue 4: "large enough for screenshots"): a capture of a canvas of
/// noise is one CDP message far above tungstenite's default 16 MiB frame cap, and it
/// arrives whole through the supervisor as the command's result.
#[test]
fn a_screenshot_above_the_default_frame_cap_arrives_whole() {
    // Not recorded: the trace would hold the whole image.
    let Some(w) = world(
        "big-screenshot",
        cdp_supervisor_blocking::Options::default(),
    ) else {
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
        .unwrap();
    let side = noise_canvas::SIDE;
    assert_eq!(drawn["result"]["value"], json!(side * side), "{drawn}");
    let shot = w
        .client
        .command(
            None,
            "Page.captureScreenshot",
            noise_canvas::capture_params(),
            std::time::Duration::from_secs(120),
        )
        .unwrap();
    noise_canvas::assert_big_png(&shot);
    // Still live after the big message.
    let two = w
        .client
        .command(
            None,
            "Runtime.evaluate",
            json!({"expression": "1 + 1", "returnByValue": true}),
            WAIT,
        )
        .unwrap();
    assert_eq!(two["result"]["value"], json!(2));
}
