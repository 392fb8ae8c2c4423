//! Every recorded trace replays without error, and ends in what Chromium did (the
//! Chromium facts and the recorded-trace rules of `cdp_supervisor::manual`).

mod harness;

use cdp_supervisor::{ClosedBy, DialogAction, Diff, Event, PageState};
use harness::{replay_trace, ReplayRun};

fn assert_clean(run: &ReplayRun) {
    assert!(
        run.stats.input_errors.is_empty(),
        "input errors: {:?}",
        run.stats.input_errors
    );
    assert!(run.stats.fed > 0);
}

#[test]
fn srcdoc_and_nested_oopif_tree_and_dialog_frames() {
    let run = replay_trace("srcdoc-and-nested-oopif-dialogs", |_, _, _| {});
    assert_clean(&run);
    let tree = &run.snapshot.frame_tree;
    let top = tree.top.as_ref().unwrap();
    assert_eq!(top.url, "http://127.0.0.1:19101/main.html");
    assert!(!tree.truncated);
    let ids: Vec<&str> = tree.children.iter().map(|f| f.frame_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "66E4F39819240C6257CB17FB603439D3",
            "CCFD90B01B8CAD8EC707A40648A349EF",
            "935DF792B45E13F5E40C0AA5B34C4224"
        ]
    );
    let srcdoc = &tree.children[0];
    assert_eq!(
        (
            srcdoc.url.as_str(),
            srcdoc.is_oopif,
            srcdoc.session_id.as_deref()
        ),
        ("about:srcdoc", false, None)
    );
    let child = &tree.children[1];
    assert!(child.is_oopif);
    assert_eq!(child.url, "http://localhost:19102/child.html");
    assert_eq!(
        child.session_id.as_deref(),
        Some("77DBAAA173BFB7C1BF4F32848870E286")
    );
    let leaf = &tree.children[2];
    assert!(leaf.is_oopif);
    assert_eq!(
        leaf.parent_frame_id.as_deref(),
        Some(child.frame_id.as_str())
    );
    assert_eq!(
        leaf.session_id.as_deref(),
        Some("D79C5D7A6366B5EA40C8F430DDC33015")
    );
    // Fact 6: every dialog arrives on the page session, naming its own frame.
    let recent = &run.snapshot.recent_dialogs;
    assert_eq!(recent.len(), 2);
    assert_eq!(
        (recent[0].kind.as_str(), recent[0].frame_id.as_str()),
        ("alert", top.frame_id.as_str())
    );
    assert_eq!(
        (recent[1].kind.as_str(), recent[1].frame_id.as_str()),
        ("prompt", srcdoc.frame_id.as_str())
    );
    // Nobody answered through the supervisor: closed by someone else.
    assert!(recent.iter().all(|d| d.closed_by == ClosedBy::Remote));
    assert_eq!(recent[1].user_input.as_deref(), Some("hello"));
    assert_eq!(recent[0].user_input, None);
    assert_eq!(run.snapshot.page.as_ref().unwrap().state, PageState::Live);
}

#[test]
fn srcdoc_trace_answered_by_agent_close_before_reply() {
    // Fact 7: the close arrives before the answer's reply; closed_by is still "agent".
    let mut answered = Vec::new();
    let run = replay_trace("srcdoc-and-nested-oopif-dialogs", |sup, t, _| {
        if sup.has_pending_dialogs() && answered.is_empty() {
            answered.push(
                sup.respond_dialog(
                    t,
                    cdp_supervisor::Answer::new(DialogAction::Accept, None),
                    None,
                )
                .unwrap(),
            );
        }
    });
    assert_clean(&run);
    assert_eq!(run.snapshot.recent_dialogs[0].closed_by, ClosedBy::Agent);
    let outcome = run.events.iter().find_map(|(_, e)| match e {
        Event::DialogAnswered { id, outcome } if *id == answered[0] => Some(outcome.clone()),
        _ => None,
    });
    let closed = outcome.expect("answer settled").expect("answer succeeded");
    assert_eq!(closed.id, "d-1");
    assert_eq!(closed.closed_by, ClosedBy::Agent);
}

#[test]
fn oopif_navigation_drops_vanished_nested_session_and_dialogs_are_remote() {
    let run = replay_trace("oopif-dialogs-navigation-beforeunload", |_, _, _| {});
    assert_clean(&run);
    let tree = &run.snapshot.frame_tree;
    assert_eq!(
        tree.top.as_ref().unwrap().url,
        "http://127.0.0.1:19111/leaf.html"
    );
    assert!(
        tree.children.is_empty(),
        "fact 5: old subframes dropped: {:?}",
        tree.children
    );
    assert!(!tree.truncated);
    let recent = &run.snapshot.recent_dialogs;
    let got: Vec<(&str, &str, ClosedBy)> = recent
        .iter()
        .map(|d| (d.kind.as_str(), d.frame_id.as_str(), d.closed_by))
        .collect();
    assert_eq!(
        got,
        [
            (
                "confirm",
                "0D686F453CB1E37CA9DBD4DF87ACA8DE",
                ClosedBy::Remote
            ),
            (
                "alert",
                "DEA0F893ECB08EB068522B8FC709D8E1",
                ClosedBy::Remote
            ),
            (
                "beforeunload",
                "C849885F5982E02F0F889368F7396EEC",
                ClosedBy::Remote
            ),
        ]
    );
    // Fact 8: the confirm was closed (result false) when the nested alert replaced it.
    assert!(!recent[0].accepted);
    assert!(run.snapshot.pending_dialogs.is_empty());
}

#[test]
fn two_dialogs_wedge_is_reported_blocked_then_released_by_navigation() {
    let mut answer = None;
    let run = replay_trace("two-dialogs-wedge-then-navigate", |sup, t, _| {
        // Answer once the second dialog replaced the first (fact 15 set-up).
        if answer.is_none() && sup.snapshot().recent_dialogs.len() == 1 {
            answer = Some(
                sup.respond_dialog(
                    t,
                    cdp_supervisor::Answer::new(DialogAction::Accept, None),
                    Some("d-2"),
                )
                .unwrap(),
            );
        }
    });
    assert_clean(&run);
    let wedged = run.events.iter().find_map(|(t, e)| match e {
        Event::DialogAnswered {
            id,
            outcome: Err(err),
        } if Some(*id) == answer => Some((*t, err.clone())),
        _ => None,
    });
    let (t, err) = wedged.expect("the answer failed");
    assert_eq!(t, 2.9105);
    assert!(
        matches!(err, cdp_supervisor::DialogError::Wedged { ref dialog_id } if dialog_id == "d-2"),
        "{err}"
    );
    assert_eq!(
        run.page_states(),
        [
            PageState::Attaching,
            PageState::Live,
            PageState::Blocked,
            PageState::Live
        ]
    );
    let blocked_reason = run.diffs().find_map(|d| match d {
        Diff::Page { page: Some(p), .. } if p.state == PageState::Blocked => p.reason.clone(),
        _ => None,
    });
    assert!(blocked_reason.unwrap().contains("d-2"));
    let recent = &run.snapshot.recent_dialogs;
    assert_eq!(recent[0].closed_by, ClosedBy::Remote);
    assert_eq!(recent[1].id, "d-2");
    assert_eq!(
        recent[1].closed_by,
        ClosedBy::Remote,
        "released by the navigation, not by the failed answer"
    );
    assert_eq!(
        run.snapshot.frame_tree.top.as_ref().unwrap().url,
        "http://127.0.0.1:19611/after.html"
    );
    assert!(run.snapshot.frame_tree.children.is_empty());
}

#[test]
fn orphaned_dialog_blocks_the_page_after_reconnect_until_navigation() {
    let run = replay_trace("dialog-orphaned-by-disconnect", |_, _, _| {});
    assert_clean(&run);
    assert_eq!(
        run.page_states(),
        [
            PageState::Attaching,
            PageState::Live,
            PageState::Detached,
            PageState::Attaching,
            PageState::Blocked,
            PageState::Live,
            PageState::Crashed
        ]
    );
    let mut live_again = run.events.iter().filter_map(|(t, e)| match e {
        Event::Diff(Diff::Page { page: Some(p), .. }) if p.state == PageState::Live => Some(*t),
        _ => None,
    });
    assert_eq!(
        live_again.next_back(),
        Some(6.221),
        "live once Page.enable finally answers"
    );
    // The dialog open at disconnect is closed "remote" (SPEC §6.8).
    let d = &run.snapshot.recent_dialogs[0];
    assert_eq!(
        (d.message.as_str(), d.closed_by, d.closed_at),
        ("ORPHANED", ClosedBy::Remote, 1.0756)
    );
}

#[test]
fn frame_removal_takes_oopif_and_worker_and_crash_is_reported() {
    let run = replay_trace("bridge-frame-removal-crash", |_, _, _| {});
    assert_clean(&run);
    assert!(run.snapshot.frame_tree.children.is_empty());
    let removed: Vec<&str> = run
        .diffs()
        .filter_map(|d| match d {
            Diff::FrameRemoved { frame_id, .. } => Some(frame_id.as_str()),
            _ => None,
        })
        .collect();
    assert!(removed.contains(&"69284864558F86BD006C11F31D44E499"));
    assert!(removed.contains(&"15C3C4FF74E68924EE5EB9D13D57B744"));
    assert_eq!(
        run.snapshot.page.as_ref().unwrap().state,
        PageState::Crashed
    );
}

#[test]
fn heavy_ad_page_replays_cleanly_with_bounded_console() {
    let run = replay_trace("heavy-ad-page", |_, _, _| {});
    assert_clean(&run);
    assert_eq!(
        run.snapshot.console_errors.len(),
        cdp_supervisor::snapshot::MAX_CONSOLE_ERRORS
    );
    let tree = &run.snapshot.frame_tree;
    assert!(tree.children.len() <= 30);
    assert!(run.snapshot.recent_dialogs.len() <= 20);
    // Every console error names the frame it came from.
    assert!(run
        .snapshot
        .console_errors
        .iter()
        .all(|c| c.frame_id.is_some()));
}

/// Every dialog closed in a run, in order of closing.
fn closed_dialogs(run: &ReplayRun) -> Vec<cdp_supervisor::ClosedDialog> {
    run.diffs()
        .filter_map(|d| match d {
            Diff::DialogClosed { dialog } => Some(dialog.clone()),
            _ => None,
        })
        .collect()
}

/// Chromium closes a pending dialog by itself when any frame of the tab commits a
/// cross-document navigation (see `cdp_supervisor::manual::chromium_facts`). Recorded
/// under `auto_accept` with confirms raised in the top frame while a nested OOPIF kept
/// navigating: the 34th confirm was closed with `result: false` after the accept went
/// out, and the accept's reply was "No dialog is showing". The close contradicts the
/// answer in flight, so it is the browser's (`remote`), not the policy's.
#[test]
fn dialog_closed_by_chromium_during_auto_accept_is_remote() {
    let mut config = cdp_supervisor::Config::default();
    config.policy = cdp_supervisor::DialogPolicy::AutoAccept;
    let run = harness::replay_before_close(
        "dialog-closed-by-chromium-during-auto-accept",
        config,
        |_, _, _| {},
    );
    assert_clean(&run);
    let closed = closed_dialogs(&run);
    assert_eq!(closed.len(), 34, "{closed:?}");
    let (last, others) = closed.split_last().unwrap();
    assert_eq!(last.message, "q34");
    assert_eq!((last.closed_by, last.accepted), (ClosedBy::Remote, false));
    for d in others {
        assert_eq!(
            (d.closed_by, d.accepted),
            (ClosedBy::AutoPolicy, true),
            "{}",
            d.message
        );
    }
    assert!(run.snapshot.pending_dialogs.is_empty());
    assert_eq!(run.snapshot.page.as_ref().unwrap().state, PageState::Live);
}

/// The same under `must_respond`, with the agent's accept sent when the recorded one
/// was (as soon as each dialog opened): the fifth confirm is closed by Chromium
/// (`result: false`) before the accept took effect; the answer ends with
/// `ClosedByBrowser`, the dialog is `remote`, the four before it the agent's.
#[test]
fn dialog_closed_by_chromium_during_agent_accept_fails_the_answer() {
    let name = "dialog-closed-by-chromium-during-agent-accept";
    let text = harness::trace_text(name);
    let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
    // The times of the recorded accepts: the agent answers at each.
    let accepts: Vec<f64> = trace
        .entries
        .iter()
        .filter(|e| e.dir == cdp_supervisor::replay::Direction::Out)
        .filter(|e| {
            e.msg
                .is_some_and(|m| m.get().contains("\"Page.handleJavaScriptDialog\""))
        })
        .map(|e| e.t)
        .collect();
    assert_eq!(accepts.len(), 5);
    let mut answers = Vec::new();
    let run = replay_trace(name, |sup, t, _| {
        if accepts.contains(&t) {
            let id = sup
                .respond_dialog(
                    t,
                    cdp_supervisor::Answer::new(DialogAction::Accept, None),
                    None,
                )
                .expect("a dialog is pending when the recorded accept went out");
            answers.push(id);
        }
    });
    assert_clean(&run);
    assert_eq!(answers.len(), 5);
    let outcomes: Vec<_> = answers
        .iter()
        .map(|answer| {
            run.events
                .iter()
                .find_map(|(_, e)| match e {
                    Event::DialogAnswered { id, outcome } if id == answer => Some(outcome.clone()),
                    _ => None,
                })
                .expect("every answer settles")
        })
        .collect();
    for outcome in &outcomes[..4] {
        let closed = outcome.as_ref().expect("the first four answers succeed");
        assert_eq!((closed.closed_by, closed.accepted), (ClosedBy::Agent, true));
    }
    match &outcomes[4] {
        Err(
            e @ cdp_supervisor::DialogError::ClosedByBrowser {
                dialog_id,
                result: false,
                action: DialogAction::Accept,
            },
        ) => {
            assert_eq!(dialog_id, "d-5");
            assert_eq!(e.code(), "closed_by_browser");
            assert!(
                e.to_string().contains("the browser closed dialog d-5"),
                "{e}"
            );
        }
        other => panic!("the fifth answer must fail with ClosedByBrowser: {other:?}"),
    }
    let closed = closed_dialogs(&run);
    assert_eq!(closed.len(), 5);
    assert_eq!(closed[4].message, "q5");
    assert_eq!(
        (closed[4].closed_by, closed[4].accepted),
        (ClosedBy::Remote, false)
    );
    assert!(run.snapshot.pending_dialogs.is_empty());
}
