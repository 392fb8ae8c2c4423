//! A crashed OOPIF (the manual's fact "A crashed OOPIF", trace `e2e/oopif-crash.jsonl`):
//! reported at once as a `frame_updated` diff with `crashed: true` and a crashed frame in
//! the snapshot, nothing below it left looking live, its calls answered `crashed` at once,
//! the rest of the tab working on, and revived when the frame navigates again.

mod harness;

use std::time::Duration;

use cdp_supervisor::{CommandError, Config, Diff, Evaluation, Event};
use harness::{Harness, PAGE, PS};

/// A tab with an OOPIF `C` (session `S-C`) holding an in-process frame `C1` and a nested
/// OOPIF `N` (session `S-N`).
fn tab_with_an_oopif() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_navigated("S-C", "C", Some(PAGE), "http://b.test/frame");
    h.frame_attached("S-C", "C1", "C");
    h.frame_navigated("S-C", "C1", Some("C"), "http://b.test/inner");
    h.frame_attached("S-C", "N", "C");
    h.attach_oopif("S-C", "S-N", "N", "C");
    h.frame_navigated("S-N", "N", Some("C"), "http://a.test/nested");
    h.take_events();
    h
}

/// What Chromium sends for `Page.crash` on `S-C` (recorded): the nested OOPIF's frame
/// removed and its session detached, on the crashed session, then `targetCrashed`.
fn crash_c(h: &mut Harness) {
    h.event(
        "S-C",
        "Page.frameDetached",
        r#"{"frameId":"N","reason":"remove"}"#,
    );
    h.event(
        "S-C",
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-N","targetId":"N"}"#,
    );
    h.event("S-C", "Inspector.targetCrashed", "{}");
}

fn frame_of(h: &Harness, id: &str) -> Option<cdp_supervisor::FrameInfo> {
    h.snapshot()
        .frame_tree
        .children
        .into_iter()
        .find(|f| f.frame_id == id)
}

#[test]
fn a_crashed_oopif_is_a_diff_and_a_state_and_nothing_below_it_stays() {
    let mut h = tab_with_an_oopif();
    crash_c(&mut h);
    let updated: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Diff(Diff::FrameUpdated { frame, .. }) if frame.frame_id == "C" => Some(frame),
            _ => None,
        })
        .collect();
    assert!(
        updated.iter().any(|f| f.crashed),
        "a frame_updated diff says C crashed: {:?}",
        h.events
    );
    let c = frame_of(&h, "C").expect("the crashed frame stays listed");
    assert!(c.crashed && c.is_oopif, "{c:?}");
    assert_eq!(
        serde_json::to_value(&c).unwrap()["crashed"],
        true,
        "the snapshot's JSON says so"
    );
    // Its in-process frame went with its renderer; the nested OOPIF was removed by Chromium.
    assert!(frame_of(&h, "C1").is_none(), "C1 is left looking live");
    assert!(frame_of(&h, "N").is_none());
}

#[test]
fn calls_to_a_crashed_oopif_answer_crashed_at_once_and_the_tab_works_on() {
    let mut h = tab_with_an_oopif();
    let in_flight = h
        .sup
        .command(
            h.now,
            Some("C"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(9),
        )
        .unwrap();
    h.drain();
    crash_c(&mut h);
    // A command in flight there is never answered by Chromium: it ends at once.
    assert!(matches!(
        h.finished(in_flight).as_slice(),
        [Err(CommandError::SessionGone { .. })]
    ));
    // A new one is refused before it is sent, with the code `crashed`, naming the frame.
    let sent_before = h.sent.len();
    let err = h
        .sup
        .command(
            h.now,
            Some("C"),
            "DOM.getDocument",
            None,
            Duration::from_secs(9),
        )
        .unwrap_err();
    assert_eq!(err.code(), "crashed");
    assert!(err.to_string().contains("frame C crashed"), "{err}");
    assert!(err.to_string().contains("recover"), "{err}");
    let mut eval = Evaluation::new("1 + 1");
    eval.frame_id = Some("C".into());
    let err = h.sup.evaluate(h.now, &eval).unwrap_err();
    assert_eq!(err.code(), "crashed", "{err}");
    h.drain();
    assert_eq!(
        h.sent.len(),
        sent_before,
        "nothing was sent to the crashed frame"
    );
    // The top frame works on.
    h.sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(9),
        )
        .expect("the rest of the tab works");
}

#[test]
fn a_crashed_oopif_that_navigates_again_is_live_again() {
    let mut h = tab_with_an_oopif();
    crash_c(&mut h);
    // The parent set the iframe's src again: the frame navigates on the same session.
    h.frame_navigated("S-C", "C", Some(PAGE), "http://b.test/frame");
    let c = frame_of(&h, "C").unwrap();
    assert!(!c.crashed, "{c:?}");
    h.sup
        .command(
            h.now,
            Some("C"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(9),
        )
        .expect("it answers again");
}

#[test]
fn a_parent_reload_replaces_the_crashed_oopif() {
    let mut h = tab_with_an_oopif();
    crash_c(&mut h);
    // Recorded on a reload of the top: the crashed session detaches, its frame is removed,
    // a new OOPIF attaches.
    h.recv(r#"{"method":"Target.detachedFromTarget","params":{"sessionId":"S-C","targetId":"C"},"sessionId":"S-PAGE"}"#);
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"C","reason":"remove"}"#,
    );
    h.frame_navigated(PS, PAGE, None, "http://a.test/");
    assert!(frame_of(&h, "C").is_none());
    h.frame_attached(PS, "C2", PAGE);
    h.attach_oopif(PS, "S-C2", "C2", PAGE);
    h.frame_navigated("S-C2", "C2", Some(PAGE), "http://b.test/frame");
    let c2 = frame_of(&h, "C2").unwrap();
    assert!(c2.is_oopif && !c2.crashed);
}

/// The recording of the real-Chromium test (`blocking_faults`): the cross-site OOPIF
/// crashed, then `recover`: replayed, a `frame_updated` diff marks it crashed, and the
/// run ends live with no frame crashed.
#[test]
fn the_recorded_crash_replays_to_a_crashed_frame_then_a_live_tab() {
    let run = harness::replay_before_close("e2e/oopif-crash", Config::default(), |_, _, _| {});
    let crashed: std::collections::BTreeSet<_> = run
        .diffs()
        .filter_map(|d| match d {
            Diff::FrameUpdated { frame, .. } if frame.crashed => Some(frame.frame_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(crashed.len(), 1, "{crashed:?}");
    assert!(run.snapshot.frame_tree.children.iter().all(|f| !f.crashed));
    assert!(!run.snapshot.frame_tree.children.is_empty());
}
