//! End-to-end: the accessibility snapshot across every frame, OOPIFs included, against a
//! real headless Chromium (blocking transport).

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::ax::{AxOptions, AxSnapshot};
use cdp_supervisor_blocking::{Client, ClientError};
use support::ax_checks::*;
use support::ax_site::AxSite;
use support::blocking::*;

/// Takes snapshots until `done` holds (documents load after their frames are known).
fn ax_until(
    client: &Client,
    options: &AxOptions,
    done: impl Fn(&AxSnapshot) -> bool,
) -> AxSnapshot {
    let end = Instant::now() + WAIT;
    loop {
        let snap = client.ax_snapshot(options.clone()).unwrap();
        if done(&snap) {
            return snap;
        }
        assert!(
            Instant::now() < end,
            "never got there; last:\n{}",
            snap.text
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn four_frames_each_with_refs_in_place_stable_and_resolvable() {
    let Some(w) = world("ax-four-frames", options("ax-four-frames")) else {
        return;
    };
    let site = AxSite::start();
    let snap = navigate(&w.client, &site.url("/"), demo_loaded);
    let frames = demo_frames(&snap);
    let a = ax_until(&w.client, &AxOptions::default(), all_four);
    assert_four_in_place(&a, &frames);
    let heading = by_name(&a, "heading", "Welcome").unwrap();
    let link = by_name(&a, "link", "Deep link").unwrap();

    // The nested OOPIF's ref resolves to its element.
    let node = w
        .client
        .command(
            Some(&link.frame_id),
            "DOM.resolveNode",
            resolve_params(link),
            WAIT,
        )
        .unwrap();
    let text = w
        .client
        .command(
            Some(&link.frame_id),
            "Runtime.callFunctionOn",
            text_content_params(&node),
            WAIT,
        )
        .unwrap();
    assert_eq!(text["result"]["value"], "Deep link");

    // One element's text changes: every ref stays, the heading's name follows.
    eval(
        &w.client,
        None,
        "document.getElementById('title').textContent = 'Changed'",
    );
    let b2 = ax_until(&w.client, &AxOptions::default(), |s| {
        by_name(s, "heading", "Changed").is_some()
    });
    assert_eq!(ids(&a), ids(&b2), "{}\n{}", a.text, b2.text);
    assert_eq!(by_name(&b2, "heading", "Changed").unwrap().id, heading.id);

    // Scoped to the nested frame: only its nodes, same refs.
    let mut scoped = AxOptions::default();
    scoped.frame_id = Some(frames.nested.clone());
    let n = w.client.ax_snapshot(scoped).unwrap();
    assert_eq!(by_name(&n, "link", "Deep link").unwrap().id, link.id);
    assert!(by_name(&n, "button", "Go").is_none());

    // The top navigates: the old refs are stale.
    navigate(&w.client, &site.url("/many?n=1"), |s| {
        s.frame_tree
            .top
            .as_ref()
            .is_some_and(|t| t.url.contains("many"))
    });
    let mut by_ref = AxOptions::default();
    by_ref.reference = Some(heading.id.clone());
    match w.client.ax_snapshot(by_ref) {
        Err(ClientError::Ax(e)) => assert_eq!(e.code(), "stale_ref", "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn thirty_five_iframes_all_have_refs_and_the_budget_names_the_rest() {
    let Some(w) = world("ax-thirty-five", options("ax-thirty-five")) else {
        return;
    };
    let site = AxSite::start();
    navigate(&w.client, &site.url("/many?n=35"), |s| {
        s.frame_tree.truncated && s.frame_tree.children.len() == 30
    });
    let buttons = |s: &AxSnapshot| s.refs.iter().filter(|r| r.role == "button").count();
    let all = ax_until(&w.client, &AxOptions::default(), |s| buttons(s) == 35);
    let frames: std::collections::HashSet<_> = all
        .refs
        .iter()
        .filter(|r| r.role == "button")
        .map(|r| r.frame_id.clone())
        .collect();
    assert_eq!(frames.len(), 35, "each button in its own frame");
    assert!(all.frames_left_out.is_empty());

    let mut ten = AxOptions::default();
    ten.max_frames = 10;
    let some = w.client.ax_snapshot(ten).unwrap();
    assert_eq!(buttons(&some), 9, "the top and nine iframes");
    let over: Vec<_> = some
        .frames_left_out
        .iter()
        .filter(|f| f.reason.contains("frame budget of 10"))
        .collect();
    assert_eq!(over.len(), 26, "{:?}", some.frames_left_out);
}
