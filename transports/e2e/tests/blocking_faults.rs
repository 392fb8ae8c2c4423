//! End-to-end: faults survived, against a real headless Chromium: a crashed OOPIF.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::PageState;
use serde_json::json;
use support::blocking::*;

/// `Page.crash` on the demo's cross-site OOPIF: within a second its frame is `crashed` in
/// the snapshot and the OOPIF nested in it is gone; a call to it answers `crashed` at once;
/// the top frame works on; `recover` (a navigation of the top to its URL) brings the frame
/// back live.
#[test]
fn a_crashed_oopif_is_reported_within_a_second_and_recover_brings_it_back() {
    let Some(w) = world("oopif-crash", options("oopif-crash")) else {
        return;
    };
    let frames = open_demo(&w);
    let started = Instant::now();
    // Chromium never answers Page.crash: the command is left to its deadline.
    let _crash = w
        .client
        .start_command(Some(&frames.cross), "Page.crash", json!({}), WAIT)
        .unwrap();
    let snap = w
        .client
        .wait_for(Duration::from_secs(1), "the OOPIF crashed", |s| {
            s.frame_tree
                .children
                .iter()
                .any(|f| f.frame_id == frames.cross && f.crashed)
        })
        .unwrap_or_else(|e| panic!("not reported within a second: {e}"));
    eprintln!("oopif-crash: reported after {:?}", started.elapsed());
    assert!(
        !snap
            .frame_tree
            .children
            .iter()
            .any(|f| f.frame_id == frames.nested),
        "the nested OOPIF went with it: {snap:?}"
    );
    assert_eq!(snap.page.as_ref().unwrap().state, PageState::Live);

    let asked = Instant::now();
    let err = w
        .client
        .command(
            Some(&frames.cross),
            "Runtime.evaluate",
            json!({"expression": "1"}),
            WAIT,
        )
        .unwrap_err();
    assert_eq!(err.code(), "crashed", "{err}");
    assert!(
        asked.elapsed() < Duration::from_millis(500),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(eval(&w.client, None, "1 + 1"), json!(2), "the top works on");

    w.client.recover().unwrap();
    let snap = w
        .client
        .wait_for(WAIT, "the frames live again", |s| {
            demo_loaded(s) && !s.frame_tree.children.iter().any(|f| f.crashed)
        })
        .unwrap();
    let frames = demo_frames(&snap);
    wait_documents_loaded(&w.client, &frames);
    assert_eq!(
        eval(&w.client, Some(&frames.cross), "document.readyState"),
        json!("complete")
    );
}
