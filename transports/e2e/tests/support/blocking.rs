//! Helpers of the end-to-end tests: a real headless Chromium, the demo site on loopback,
//! a recorded client per scenario.

pub use super::demo_tree::*;

use std::time::Duration;

use cdp_supervise::demo::DemoSite;
use cdp_supervisor::{PageState, Snapshot};
use cdp_supervisor_blocking::{Browser, Client, Options};
use serde_json::{json, Value};

/// Options recording to [`trace_path`].
pub fn options(test: &str) -> Options {
    Options {
        record: Some(trace_path(test)),
        ..Options::default()
    }
}

/// One scenario's world: the demo site, or another (`S`).
pub struct World<S = DemoSite> {
    // Field order = drop order: client first, then the site and the browser.
    pub client: Client,
    pub site: S,
    pub browser: Browser,
}

/// Launches, connects with `options`, waits for the page to be live.
pub fn world(test: &str, options: Options) -> Option<World> {
    world_on(test, options, || DemoSite::start().unwrap())
}

/// [`world`] on the site `start` serves.
pub fn world_on<S>(test: &str, options: Options, start: impl FnOnce() -> S) -> Option<World<S>> {
    let browser = browser_or_skip(test)?;
    let site = start();
    let client = Client::connect(browser.ws_url(), options).unwrap();
    wait_live(&client);
    Some(World {
        client,
        site,
        browser,
    })
}

/// Waits until the frames whose URLs end with `paths` are OOPIFs whose documents have
/// loaded (after a navigation to their page); their frame ids, in `paths`' order.
pub fn oopifs_loaded(client: &Client, paths: &[&str]) -> Vec<String> {
    let loaded = |s: &Snapshot| paths.iter().all(|p| find(s, p).is_some_and(|f| f.is_oopif));
    let snap = client.wait_for(WAIT, "the OOPIFs", loaded).unwrap();
    let frames: Vec<String> = paths
        .iter()
        .map(|p| find(&snap, p).unwrap().frame_id.clone())
        .collect();
    // Nothing in the snapshot says a document finished loading: poll readyState.
    let end = std::time::Instant::now() + WAIT;
    for f in &frames {
        while eval(client, Some(f), "document.readyState") != json!("complete") {
            assert!(std::time::Instant::now() < end, "frame {f} never loaded");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    frames
}

pub fn wait_live(client: &Client) -> Snapshot {
    client
        .wait_for(WAIT, "page live", |s| {
            s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
        })
        .unwrap()
}

/// Navigates the top frame and waits until `done` holds.
pub fn navigate(client: &Client, url: &str, done: impl FnMut(&Snapshot) -> bool) -> Snapshot {
    client
        .command(None, "Page.navigate", json!({ "url": url }), WAIT)
        .unwrap();
    client
        .wait_for(WAIT, &format!("{url} loaded"), done)
        .unwrap()
}

/// Opens the demo top page (no timers) and waits for its four frames.
pub fn open_demo(w: &World) -> DemoFrames {
    let snap = navigate(&w.client, &w.site.top_url(false), demo_loaded);
    let frames = demo_frames(&snap);
    wait_documents_loaded(&w.client, &frames);
    frames
}

/// Waits until every demo frame's document has loaded (its script defined `raise`).
/// Nothing in the snapshot says a document finished loading, so this polls.
pub fn wait_documents_loaded(client: &Client, frames: &DemoFrames) {
    let end = std::time::Instant::now() + WAIT;
    for which in ["top", "srcdoc", "cross", "nested"] {
        while eval_in(client, frames, which, "document.readyState") != json!("complete") {
            assert!(
                std::time::Instant::now() < end,
                "{which} never finished loading"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `Runtime.evaluate` of `expression` in `frame_id`'s session, by value.
pub fn eval(client: &Client, frame_id: Option<&str>, expression: &str) -> Value {
    let r = client
        .command(
            frame_id,
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
            WAIT,
        )
        .unwrap();
    assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
    r["result"]["value"].clone()
}

/// Where to evaluate `expression` so it runs in the demo frame `which`: OOPIFs by their
/// frame id, the srcdoc frame through the top page's `contentWindow`.
pub fn in_frame(which: &str, frames: &DemoFrames, expression: &str) -> (Option<String>, String) {
    match which {
        "top" => (Some(frames.top.clone()), expression.to_owned()),
        "srcdoc" => (
            Some(frames.top.clone()),
            format!("document.getElementById('same').contentWindow.{expression}"),
        ),
        "cross" => (Some(frames.cross.clone()), expression.to_owned()),
        "nested" => (Some(frames.nested.clone()), expression.to_owned()),
        other => panic!("no frame {other}"),
    }
}

/// Evaluates `expression` in the demo frame `which`.
pub fn eval_in(client: &Client, frames: &DemoFrames, which: &str, expression: &str) -> Value {
    let (frame, expr) = in_frame(which, frames, expression);
    eval(client, frame.as_deref(), &expr)
}

/// Waits for one pending dialog and returns it.
pub fn wait_dialog(client: &Client) -> cdp_supervisor::PendingDialog {
    let snap = client
        .wait_for(WAIT, "a pending dialog", |s| !s.pending_dialogs.is_empty())
        .unwrap();
    snap.pending_dialogs[0].clone()
}

/// Schedules a `kind` dialog in the demo frame `which` (from a timer, so the call
/// returns at once).
pub fn raise(client: &Client, frames: &DemoFrames, which: &str, kind: &str, message: &str) {
    let v = eval_in(
        client,
        frames,
        which,
        &format!("raise('{kind}', '{message}')"),
    );
    assert_eq!(v, json!("scheduled"));
}

/// Waits until the frame's `window.last` is no longer `pending` and returns it.
pub fn last_answer(client: &Client, frames: &DemoFrames, which: &str) -> Value {
    let end = std::time::Instant::now() + WAIT;
    loop {
        let v = eval_in(client, frames, which, "last");
        if v != json!("pending") {
            return v;
        }
        assert!(
            std::time::Instant::now() < end,
            "{which}: the dialog's answer never reached the page"
        );
        // No event tells that the page's script resumed; poll briefly.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for a pending dialog of `kind` and returns it.
pub fn wait_dialog_of(client: &Client, kind: &str) -> cdp_supervisor::PendingDialog {
    let snap = client
        .wait_for(WAIT, &format!("a pending {kind}"), |s| {
            s.pending_dialogs.iter().any(|d| d.kind == kind)
        })
        .unwrap();
    snap.pending_dialogs
        .iter()
        .find(|d| d.kind == kind)
        .unwrap()
        .clone()
}

/// Waits until the recent dialog `id` is listed and returns it.
pub fn wait_closed(client: &Client, id: &str) -> cdp_supervisor::ClosedDialog {
    let snap = client
        .wait_for(WAIT, &format!("{id} closed"), |s| {
            s.recent_dialogs.iter().any(|d| d.id == id)
        })
        .unwrap();
    snap.recent_dialogs
        .iter()
        .find(|d| d.id == id)
        .unwrap()
        .clone()
}

/// Runs `expression` in `frame`, which must raise a dialog there: the command is reported
/// blocked by that dialog at once (the snapshot names it, in that frame), the dialog is
/// accepted, and the command's own reply, which comes after the answer, is returned.
pub fn blocked_until_accepted(client: &Client, frame: &str, expression: &str) -> Value {
    use cdp_supervisor_blocking::{CommandUpdate, DialogAction};
    let pending = client
        .start_command(
            Some(frame),
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
            WAIT,
        )
        .unwrap();
    let CommandUpdate::Blocked { dialog_id } = pending.next_update(WAIT).unwrap() else {
        panic!("expected a blocked update first");
    };
    let snap = client.snapshot().unwrap();
    assert_eq!(snap.pending_dialogs[0].id, dialog_id);
    assert_eq!(snap.pending_dialogs[0].frame_id, frame);
    client
        .respond_dialog(DialogAction::Accept, None, Some(&dialog_id))
        .unwrap();
    serde_json::from_str(&pending.wait().unwrap()).unwrap()
}
