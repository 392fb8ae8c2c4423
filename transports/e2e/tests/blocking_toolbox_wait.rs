//! End-to-end: the rest of the toolbox against a real headless Chromium, over the blocking
//! transport: `wait` for text that appears late inside an OOPIF (answered within a second
//! of it), for text that never comes (answered at the budget), for text gone, a wait ended
//! at once by an alert in the OOPIF; `back` and
//! `forward` across three cacheable pages (each restore settled by its `frameNavigated`,
//! well within the budget); `resize` seen by `matchMedia`; `find` by text and by role in
//! an OOPIF, its refs clicked.
//!
//! The machine running these is loaded: times are asserted generously, and printed.

mod support;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cdp_supervisor::act::{ActOptions, Action, Target, WaitFor};
use cdp_supervisor::ax::{AxOptions, FindQuery};
use cdp_supervisor_blocking::{ClientError, DialogAction};
use serde_json::json;
use support::act_site::webp_size;
use support::blocking::*;
use support::site::Site;
use support::toolbox_site;

type ToolboxWorld = World<Site>;

fn toolbox_world(test: &str) -> Option<ToolboxWorld> {
    world_on(test, options(test), toolbox_site::start)
}

fn budget(ms: u64) -> ActOptions {
    let mut o = ActOptions::default();
    o.timeout = Duration::from_millis(ms);
    o
}

/// Opens `/wait` and returns the OOPIF's frame id once its document is loaded.
fn open_wait(w: &ToolboxWorld) -> String {
    let url = w.site.url("/wait");
    let r = w
        .client
        .act(Action::Navigate { url }, budget(10_000))
        .unwrap();
    assert!(r.navigated && r.settled, "{r:?}");
    oopifs_loaded(&w.client, &["/late"]).remove(0)
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

#[test]
fn wait_for_text_in_an_oopif_text_that_never_comes_and_text_gone() {
    let Some(w) = toolbox_world("toolbox-wait") else {
        return;
    };
    let frame = open_wait(&w);

    // Text that appears 800 ms from now, inside the OOPIF.
    eval(&w.client, Some(&frame), "window.later(800)");
    let started = Instant::now();
    let wait = Action::Wait(WaitFor::Text("arrived LATE".into()));
    let r = w.client.act(wait, budget(10_000)).unwrap();
    let answered_at = epoch_ms();
    let took = started.elapsed();
    let appeared_at = eval(&w.client, Some(&frame), "window.appearedAt")
        .as_f64()
        .unwrap();
    let after_it = answered_at - appeared_at;
    eprintln!("wait text: answered after {took:?}, {after_it:.0} ms after the text appeared");
    assert!(r.settled && r.screenshot.is_some(), "{r:?}");
    assert!(
        took >= Duration::from_millis(700),
        "not before it appeared: {took:?}"
    );
    assert!(after_it < 1000.0, "within a second of it: {after_it:.0} ms");

    // Text that never appears: an error at the budget, not later.
    let started = Instant::now();
    let wait = Action::Wait(WaitFor::Text("Never here".into()));
    let e = w.client.act(wait, budget(1_500)).unwrap_err();
    let took = started.elapsed();
    eprintln!("wait for text that never comes: answered after {took:?}: {e}");
    assert_eq!(e.code(), "timeout", "{e:?}");
    assert!(e.to_string().contains("Never here"), "{e}");
    assert!(
        took >= Duration::from_millis(1_400) && took < Duration::from_millis(3_500),
        "at its budget of 1.5 s: {took:?}"
    );

    // Text gone: the top frame's "Loading" removed 600 ms from now.
    eval(&w.client, None, "window.unload(600)");
    let started = Instant::now();
    let gone = Action::Wait(WaitFor::TextGone("loading the SHOP".into()));
    let r = w.client.act(gone, budget(10_000)).unwrap();
    let took = started.elapsed();
    eprintln!("wait text gone: answered after {took:?}");
    assert!(r.settled, "{r:?}");
    assert_eq!(
        eval(&w.client, None, "!!document.getElementById('loading')"),
        json!(false)
    );
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_millis(3_000),
        "{took:?}"
    );

    // An alert raised in the OOPIF during a wait ends it at once, naming the dialog.
    eval(
        &w.client,
        Some(&frame),
        "setTimeout(function () { alert('stop waiting'); }, 300)",
    );
    let started = Instant::now();
    let wait = Action::Wait(WaitFor::Text("Never here".into()));
    let r = w.client.act(wait, budget(10_000)).unwrap();
    let took = started.elapsed();
    eprintln!("wait ended by a dialog after {took:?}");
    let d = r.ended_by_dialog.clone().expect("ended by the dialog");
    assert!(!r.settled && r.screenshot.is_none(), "{r:?}");
    assert!(r.pending_dialogs.iter().any(|p| p.id == d), "{r:?}");
    assert!(
        took < Duration::from_secs(3),
        "at once, not at the budget: {took:?}"
    );
    w.client
        .respond_dialog(DialogAction::Accept, None, Some(&d))
        .unwrap();

    // A sleep is a sleep.
    let started = Instant::now();
    let sleep = Action::Wait(WaitFor::Time(Duration::from_millis(300)));
    w.client.act(sleep, budget(5_000)).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn back_and_forward_across_three_cached_pages_settle_at_each_restore() {
    let Some(w) = toolbox_world("toolbox-history") else {
        return;
    };
    let o = budget(10_000);
    for p in ["/h1", "/h2", "/h3"] {
        let r = w
            .client
            .act(Action::Navigate { url: w.site.url(p) }, o)
            .unwrap();
        assert!(r.settled && r.navigated, "{p}: {r:?}");
    }
    let steps = [
        (Action::Back, "/h2"),
        (Action::Back, "/h1"),
        (Action::Forward, "/h2"),
        (Action::Forward, "/h3"),
    ];
    for (action, to) in steps {
        let name = action.name();
        let started = Instant::now();
        let r = w.client.act(action, o).unwrap();
        let took = started.elapsed();
        eprintln!("{name} to {to}: {took:?}, {:?}", r.timing);
        assert!(r.settled && r.navigated, "{name} to {to}: {r:?}");
        assert!(r.url.ends_with(to), "{name}: {}", r.url);
        assert_eq!(r.title, format!("history {}", &to[1..]));
        assert_eq!(
            eval(&w.client, None, "window.restored"),
            json!(true),
            "{name} to {to}: restored from the back/forward cache"
        );
        // A restore sends no load: settled by its frameNavigated, far within the budget.
        assert!(
            took < Duration::from_secs(5),
            "{name} to {to} took {took:?}"
        );
    }
    let e = w.client.act(Action::Forward, o).unwrap_err();
    assert_eq!(e.code(), "bad_request", "{e:?}");
    assert!(e.to_string().contains("forward"), "{e}");
}

#[test]
fn resize_is_seen_by_match_media_and_find_answers_refs_in_an_oopif_that_click_works_on() {
    let Some(w) = toolbox_world("toolbox-resize-find") else {
        return;
    };
    let frame = open_wait(&w);
    assert_eq!(eval(&w.client, None, "window.narrow"), json!(false));

    let r = w
        .client
        .act(
            Action::Resize {
                width: 500,
                height: 400,
            },
            budget(5_000),
        )
        .unwrap();
    assert!(r.settled, "{r:?}");
    assert_eq!(
        eval(&w.client, None, "window.narrow"),
        json!(true),
        "matchMedia saw it"
    );
    assert_eq!(
        eval(&w.client, None, "innerWidth + 'x' + innerHeight"),
        json!("500x400")
    );
    let shot = r.screenshot.expect("a screenshot");
    assert_eq!(
        webp_size(&shot.data),
        Some((500, 400)),
        "the screenshot is the new viewport"
    );
    assert!(
        r.console.iter().any(|l| l.text == "narrow=true"),
        "{:?}",
        r.console
    );
    let r = w
        .client
        .act(
            Action::Resize {
                width: 1000,
                height: 700,
            },
            budget(5_000),
        )
        .unwrap();
    assert!(r.settled);
    assert_eq!(eval(&w.client, None, "window.narrow"), json!(false));
    let bad = Action::from_json(&json!({"action": "resize", "width": 100000, "height": 10}));
    assert_eq!(bad.unwrap_err().code(), "bad_request");

    // Find by text, then by role, in the OOPIF; click what they answer.
    let ax = w.client.ax_snapshot(AxOptions::default()).unwrap();
    let by_text = ax.find(&FindQuery::new(Some("frame BUTTON"), None, None).unwrap());
    assert_eq!(by_text.total, 1, "{by_text:?}\n{}", ax.text);
    let hit = &by_text.matches[0];
    assert_eq!(hit.role, "button");
    assert_eq!(
        hit.frame_id.as_deref(),
        Some(frame.as_str()),
        "in the OOPIF"
    );
    let by_role = ax.find(&FindQuery::new(None, None, Some("button")).unwrap());
    assert!(
        by_role.matches.iter().any(|m| m.reference == hit.reference),
        "{by_role:?}"
    );
    let heading = ax.find(&FindQuery::new(None, Some("^\"Inside"), Some("heading")).unwrap());
    assert_eq!(heading.total, 1, "{heading:?}");
    assert_eq!(heading.matches[0].frame_id.as_deref(), Some(frame.as_str()));
    let click = Action::Click {
        target: Target::Ref(hit.reference.clone().unwrap()),
    };
    let r = w.client.act(click, budget(5_000)).unwrap();
    assert!(r.settled, "{r:?}");
    assert_eq!(eval(&w.client, Some(&frame), "window.clicked"), json!(1));
    let err = w.client.act(
        Action::Click {
            target: Target::Ref("e99999".into()),
        },
        budget(2_000),
    );
    assert!(matches!(err, Err(ClientError::Act(_))), "{err:?}");
}
