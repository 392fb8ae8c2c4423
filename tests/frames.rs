//! Frames and sessions (SPEC §5, §6.7, §9; facts 1-5, 13, 14, 17, 18), scripted.

mod harness;

use std::time::Duration;

use cdp_supervisor::{CommandError, Config, Diff, Event, PageState};
use harness::{Harness, PAGE, PS};
use serde_json::value::RawValue;

fn attached() -> Harness {
    Harness::attached(Config::default())
}

fn finished(h: &Harness, id: cdp_supervisor::CommandId) -> Vec<Result<String, CommandError>> {
    h.finished(id)
}

fn listed(h: &Harness) -> Vec<String> {
    h.snapshot()
        .frame_tree
        .children
        .iter()
        .map(|f| f.frame_id.clone())
        .collect()
}

#[test]
fn fact1_attach_picks_the_page_target_and_sets_up_in_order() {
    let h = attached();
    assert_eq!(h.sent[0].method, "Target.getTargets");
    let attach = h.last_sent("Target.attachToTarget");
    assert!(attach.json.contains(r#""flatten":true"#) && attach.json.contains(PAGE));
    assert_eq!(
        h.sent_on(PS),
        [
            "Page.enable",
            "Runtime.enable",
            "Network.enable",
            "Page.getFrameTree",
            "Target.setAutoAttach",
            "Page.setInterceptFileChooserDialog"
        ]
    );
    // Small body buffers, and no request body inside the events (read on demand).
    let network = h.last_sent("Network.enable");
    assert!(
        network.json.contains(r#""maxResourceBufferSize":1048576"#)
            && network.json.contains(r#""maxPostDataSize":0"#),
        "{}",
        network.json
    );
    let auto = h.last_sent("Target.setAutoAttach");
    assert!(
        auto.json.contains(r#""waitForDebuggerOnStart":true"#)
            && auto.json.contains(r#""flatten":true"#)
    );
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Live);
}

#[test]
fn configured_target_id_is_attached_even_if_not_first() {
    let mut h = Harness::new({
        let mut config = Config::default();
        config.target_id = Some("SECOND".into());
        config
    });
    h.sup.handle_connected(h.now);
    h.drain();
    let id = h.last_sent("Target.getTargets").id;
    h.reply(id, r#"{"targetInfos":[{"targetId":"FIRST","type":"page"},{"targetId":"SECOND","type":"page"}]}"#);
    assert!(h.last_sent("Target.attachToTarget").json.contains("SECOND"));
}

#[test]
fn no_page_target_is_a_warning_not_a_hang() {
    let mut h = Harness::new(Config::default());
    h.sup.handle_connected(h.now);
    h.drain();
    let id = h.last_sent("Target.getTargets").id;
    h.reply(
        id,
        r#"{"targetInfos":[{"targetId":"W","type":"service_worker"}]}"#,
    );
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::Warning(w) if w.to_string().contains("no page target"))));
    assert!(h.sup.snapshot().page.is_none());
}

#[test]
fn seeded_from_get_frame_tree() {
    let mut h = attached();
    let id = h.last_sent("Page.getFrameTree").id;
    h.reply(id, &format!(r#"{{"frameTree":{{"frame":{{"id":"{PAGE}","url":"http://a.test/","securityOrigin":"http://a.test"}},
        "childFrames":[{{"frame":{{"id":"A","parentId":"{PAGE}","url":"about:srcdoc","securityOrigin":"http://a.test","name":"n"}},
           "childFrames":[{{"frame":{{"id":"A1","parentId":"A","url":"http://a.test/x","securityOrigin":"http://a.test"}}}}]}},
          {{"frame":{{"id":"B","parentId":"{PAGE}","url":"http://a.test/b#frag","securityOrigin":"http://a.test"}}}}]}}}}"#));
    assert_eq!(listed(&h), ["A", "B", "A1"], "breadth-first");
    let a = &h.snapshot().frame_tree.children[0];
    assert_eq!((a.name.as_str(), a.is_oopif), ("n", false));
}

#[test]
fn fact2_oopif_child_is_set_up_pipelined_then_resumed_last() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    assert_eq!(
        h.sent_on("S-C"),
        [
            "Page.enable",
            "Runtime.enable",
            "Network.enable",
            "Page.getFrameTree",
            "Target.setAutoAttach",
            "Page.setInterceptFileChooserDialog",
            "Runtime.runIfWaitingForDebugger"
        ]
    );
    let f = &h.snapshot().frame_tree.children[0];
    assert!(f.is_oopif);
    assert_eq!(f.session_id.as_deref(), Some("S-C"));
}

#[test]
fn fact14_workers_resumed_service_workers_resumed_then_detached() {
    let mut h = attached();
    h.event(PS, "Target.attachedToTarget", r#"{"sessionId":"S-W","targetInfo":{"targetId":"W","type":"worker"},"waitingForDebugger":true}"#);
    assert_eq!(h.sent_on("S-W"), ["Runtime.runIfWaitingForDebugger"]);
    h.event(PS, "Target.attachedToTarget", r#"{"sessionId":"S-SW","targetInfo":{"targetId":"SW","type":"service_worker"},"waitingForDebugger":true}"#);
    assert_eq!(h.sent_on("S-SW"), ["Runtime.runIfWaitingForDebugger"]);
    let detach = h.last_sent("Target.detachFromTarget");
    assert_eq!(detach.session_id.as_deref(), Some(PS));
    assert!(detach.json.contains("S-SW"));
    h.event(PS, "Target.attachedToTarget", r#"{"sessionId":"S-X","targetInfo":{"targetId":"X","type":"auction_worklet"},"waitingForDebugger":true}"#);
    assert_eq!(h.sent_on("S-X"), ["Runtime.runIfWaitingForDebugger"]);
    assert!(
        h.snapshot().frame_tree.children.is_empty(),
        "workers are not frames"
    );
}

#[test]
fn fact3_swap_keeps_the_frame_attach_first() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"C","reason":"swap"}"#,
    );
    h.frame_navigated("S-C", "C", Some(PAGE), "http://b.test/");
    let f = &h.snapshot().frame_tree.children[0];
    assert_eq!(
        (f.frame_id.as_str(), f.is_oopif, f.url.as_str()),
        ("C", true, "http://b.test/")
    );
}

#[test]
fn fact3_swap_keeps_the_frame_detach_first() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"C","reason":"swap"}"#,
    );
    assert_eq!(listed(&h), ["C"]);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    let f = &h.snapshot().frame_tree.children[0];
    assert_eq!((f.is_oopif, f.session_id.as_deref()), (true, Some("S-C")));
    assert_eq!(h.snapshot().frame_tree.children.len(), 1);
}

#[test]
fn fact4_remove_drops_the_subtree_and_its_sessions() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_attached("S-C", "C1", "C");
    h.attach_oopif("S-C", "S-C2", "C2", "C");
    h.event("S-C", "Target.attachedToTarget", r#"{"sessionId":"S-W","targetInfo":{"targetId":"W","type":"worker"},"waitingForDebugger":true}"#);
    let cmd = h
        .sup
        .command(
            h.now,
            Some("C2"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(5),
        )
        .unwrap();
    h.drain();
    assert_eq!(
        h.last_sent("Runtime.evaluate").session_id.as_deref(),
        Some("S-C2")
    );
    h.frame_attached(PS, "D", PAGE);
    h.event(PS, "Page.frameSubtreeWillBeDetached", r#"{"frameId":"C"}"#);
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"C","reason":"remove"}"#,
    );
    assert_eq!(listed(&h), ["D"]);
    assert!(matches!(
        finished(&h, cmd).as_slice(),
        [Err(CommandError::SessionGone { .. })]
    ));
    // The detach events that follow are for sessions already dropped: harmless.
    h.event(
        "S-C",
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-W","targetId":"W"}"#,
    );
    assert!(h.recv_any(&format!(r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"S-C"}},"sessionId":"{PS}"}}"#)).is_ok());
    assert_eq!(h.sup.table_sizes().sessions, 1);
}

#[test]
fn fact5_navigation_drops_old_descendants_and_silent_nested_sessions() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.attach_oopif("S-C", "S-N", "N", "C");
    h.frame_attached(PS, "Same", PAGE);
    let cmd = h
        .sup
        .command(
            h.now,
            Some("N"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(5),
        )
        .unwrap();
    h.drain();
    // Chromium: detach of the first-level OOPIF only, then the top navigates.
    h.event(
        PS,
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-C","targetId":"C"}"#,
    );
    assert!(
        matches!(
            finished(&h, cmd).as_slice(),
            [Err(CommandError::SessionGone { .. })]
        ),
        "nested session vanished too"
    );
    h.frame_navigated(PS, PAGE, None, "http://a.test/next");
    assert!(listed(&h).is_empty());
    assert_eq!(h.sup.table_sizes().sessions, 1);
    assert_eq!(h.sup.table_sizes().frames, 1);
}

#[test]
fn navigation_of_a_subframe_drops_only_its_descendants() {
    let mut h = attached();
    h.frame_attached(PS, "A", PAGE);
    h.frame_attached(PS, "A1", "A");
    h.frame_attached(PS, "B", PAGE);
    h.frame_navigated(PS, "A", Some(PAGE), "http://a.test/new");
    assert_eq!(listed(&h), ["A", "B"]);
}

#[test]
fn same_document_navigation_keeps_children_and_updates_url() {
    let mut h = attached();
    h.frame_attached(PS, "A", PAGE);
    h.event(
        PS,
        "Page.navigatedWithinDocument",
        &format!(r#"{{"frameId":"{PAGE}","url":"http://a.test/#x"}}"#),
    );
    let s = h.snapshot();
    assert_eq!(s.frame_tree.top.unwrap().url, "http://a.test/#x");
    assert_eq!(s.frame_tree.children.len(), 1);
}

#[test]
fn oopif_back_in_process_stays_owned_by_parent_session() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_attached("S-C", "C1", "C");
    h.event(
        PS,
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-C","targetId":"C"}"#,
    );
    let s = h.snapshot();
    assert_eq!(
        s.frame_tree.children.len(),
        1,
        "its old document's frames went"
    );
    let c = &s.frame_tree.children[0];
    assert_eq!(
        (c.frame_id.as_str(), c.is_oopif, c.session_id.as_deref()),
        ("C", false, None)
    );
    h.sup
        .command(
            h.now,
            Some("C"),
            "DOM.getDocument",
            None,
            Duration::from_secs(1),
        )
        .unwrap();
    h.drain();
    assert_eq!(
        h.last_sent("DOM.getDocument").session_id.as_deref(),
        Some(PS)
    );
}

#[test]
fn routing_follows_spec_6_7() {
    let mut h = attached();
    h.frame_attached(PS, "Same", PAGE);
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_attached("S-C", "Inner", "C");
    let t = Duration::from_secs(1);
    for (frame, session) in [(None, PS), (Some(PAGE), PS), (Some("C"), "S-C")] {
        h.sup
            .command(h.now, frame, "Runtime.evaluate", None, t)
            .unwrap();
        h.drain();
        assert_eq!(
            h.last_sent("Runtime.evaluate").session_id.as_deref(),
            Some(session)
        );
    }
    // Non-script methods on in-process frames go to the session that owns them.
    h.sup
        .command(h.now, Some("Inner"), "DOM.getDocument", None, t)
        .unwrap();
    h.drain();
    assert_eq!(
        h.last_sent("DOM.getDocument").session_id.as_deref(),
        Some("S-C")
    );
    let err = h
        .sup
        .command(h.now, Some("Same"), "Runtime.evaluate", None, t)
        .unwrap_err();
    assert!(matches!(&err, CommandError::NotAnOopif { frame_id, .. } if frame_id == "Same"));
    assert!(
        err.to_string().contains("contentWindow"),
        "says how to reach it: {err}"
    );
    let err = h
        .sup
        .command(h.now, Some("Inner"), "Runtime.evaluate", None, t)
        .unwrap_err();
    assert!(matches!(&err, CommandError::NotAnOopif { session_id, .. } if session_id == "S-C"));
    let err = h
        .sup
        .command(h.now, Some("nope"), "Runtime.evaluate", None, t)
        .unwrap_err();
    assert!(err.to_string().contains("nope"));
    let params = RawValue::from_string("[1]".into()).unwrap();
    assert!(matches!(
        h.sup.command(h.now, None, "X.y", Some(&params), t),
        Err(CommandError::ParamsNotObject { .. })
    ));
}

#[test]
fn every_command_ends_in_exactly_one_outcome() {
    let mut h = attached();
    let t = Duration::from_secs(2);
    let ok = h.sup.command(h.now, None, "A.ok", None, t).unwrap();
    let cdp_err = h.sup.command(h.now, None, "A.err", None, t).unwrap();
    let timeout = h.sup.command(h.now, None, "A.slow", None, t).unwrap();
    h.drain();
    // Fact 17: a reply without sessionId is matched by id alone.
    h.reply(ok.0, r#"{"value":1}"#);
    h.reply_error(cdp_err.0, -32601, "'A.err' wasn't found");
    h.advance(3.0);
    assert_eq!(finished(&h, ok), [Ok(r#"{"value":1}"#.to_owned())]);
    assert!(matches!(
        finished(&h, cdp_err).as_slice(),
        [Err(CommandError::Cdp { code: -32601, .. })]
    ));
    assert!(matches!(
        finished(&h, timeout).as_slice(),
        [Err(CommandError::Timeout { .. })]
    ));
    // A late reply to a timed-out command is refused, not delivered twice.
    assert!(h
        .recv_any(&format!(r#"{{"id":{},"result":{{}}}}"#, timeout.0))
        .is_err());
    assert_eq!(finished(&h, timeout).len(), 1);
    let gone = h.sup.command(h.now, None, "A.x", None, t).unwrap();
    h.drain();
    h.sup.handle_disconnected(h.now);
    h.drain();
    assert!(matches!(
        finished(&h, gone).as_slice(),
        [Err(CommandError::Disconnected { .. })]
    ));
}

#[test]
fn ids_are_never_reused_across_reconnects() {
    let mut h = attached();
    let before: Vec<u64> = h.sent.iter().map(|c| c.id).collect();
    h.sup.handle_disconnected(h.now);
    h.sup.handle_connected(h.now);
    h.drain();
    let after = h.last_sent("Target.getTargets").id;
    assert!(before.iter().all(|id| *id < after));
    let s = h.snapshot();
    assert!(s.frame_tree.top.is_none());
    assert_eq!(s.page.unwrap().state, PageState::Detached);
}

#[test]
fn reconnect_reattaches_the_same_tab() {
    let mut h = attached();
    h.sup.handle_disconnected(h.now);
    h.sup.handle_connected(h.now);
    h.drain();
    let id = h.last_sent("Target.getTargets").id;
    h.reply(id, &format!(r#"{{"targetInfos":[{{"targetId":"OTHER","type":"page"}},{{"targetId":"{PAGE}","type":"page"}}]}}"#));
    assert!(h.last_sent("Target.attachToTarget").json.contains(PAGE));
}

#[test]
fn fact13_and_18_crash_fails_commands_on_that_session() {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    let on_child = h
        .sup
        .command(
            h.now,
            Some("C"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(9),
        )
        .unwrap();
    let on_page = h
        .sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(9),
        )
        .unwrap();
    h.drain();
    h.event("S-C", "Inspector.targetCrashed", "{}");
    assert!(
        matches!(finished(&h, on_child).as_slice(), [Err(CommandError::SessionGone { reason, .. })] if reason == "crashed")
    );
    assert!(finished(&h, on_page).is_empty());
    assert!(h
        .sup
        .command(
            h.now,
            Some("C"),
            "Runtime.evaluate",
            None,
            Duration::from_secs(1)
        )
        .is_err());
    h.event(PS, "Inspector.targetCrashed", "{}");
    assert!(matches!(
        finished(&h, on_page).as_slice(),
        [Err(CommandError::SessionGone { .. })]
    ));
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Crashed);
}

#[test]
fn page_detached_clears_the_tab() {
    let mut h = attached();
    h.frame_attached(PS, "A", PAGE);
    // The tab closed: a browser-level detach names the page session.
    h.recv(&format!(r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"{PS}","targetId":"{PAGE}"}}}}"#));
    let s = h.snapshot();
    assert_eq!(s.page.unwrap().state, PageState::Detached);
    assert!(s.frame_tree.top.is_none());
    // Inspector.detached on the page session does the same.
    let mut h = attached();
    h.event(PS, "Inspector.detached", r#"{"reason":"target_closed"}"#);
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Detached);
}

fn frame_named(i: usize) -> String {
    format!("F{i:02}")
}

#[test]
fn truncation_35_frames_lists_30() {
    let mut h = attached();
    for i in 0..35 {
        h.frame_attached(PS, &frame_named(i), PAGE);
    }
    let tree = h.snapshot().frame_tree;
    assert_eq!(tree.children.len(), 30);
    assert!(tree.truncated);
    assert_eq!(
        tree.children[29].frame_id, "F29",
        "in the order they became known"
    );
    // Diffs describe all 35.
    let added = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::Diff(Diff::FrameAdded { .. })))
        .count();
    assert_eq!(added, 36);
}

#[test]
fn truncation_exactly_30_is_not_truncated() {
    let mut h = attached();
    for i in 0..30 {
        h.frame_attached(PS, &frame_named(i), PAGE);
    }
    let tree = h.snapshot().frame_tree;
    assert_eq!((tree.children.len(), tree.truncated), (30, false));
}

#[test]
fn truncation_oopif_chain_depth_3_is_left_out_with_subtree() {
    let mut h = attached();
    h.attach_oopif(PS, "S1", "D1", PAGE);
    h.attach_oopif("S1", "S2", "D2", "D1");
    h.attach_oopif("S2", "S3", "D3", "D2");
    h.frame_attached("S3", "D4", "D3");
    let tree = h.snapshot().frame_tree;
    let ids: Vec<&str> = tree.children.iter().map(|f| f.frame_id.as_str()).collect();
    assert_eq!(ids, ["D1", "D2"]);
    assert!(tree.truncated);
    // An in-process frame at depth 3 is listed.
    let mut h = attached();
    h.frame_attached(PS, "I1", PAGE);
    h.frame_attached(PS, "I2", "I1");
    h.frame_attached(PS, "I3", "I2");
    let tree = h.snapshot().frame_tree;
    assert_eq!((tree.children.len(), tree.truncated), (3, false));
}

#[test]
fn truncation_counts_orphans() {
    let mut h = attached();
    h.frame_attached(PS, "A", PAGE);
    h.frame_attached(PS, "Orphan", "NeverSeen");
    let tree = h.snapshot().frame_tree;
    assert_eq!(tree.children.len(), 1);
    assert!(tree.truncated);
}

#[test]
fn frame_cap_evicts_the_oldest_with_its_subtree() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.max_frames = 4;
        config
    });
    h.frame_attached(PS, "A", PAGE);
    h.frame_attached(PS, "A1", "A");
    h.frame_attached(PS, "B", PAGE);
    h.frame_attached(PS, "C", PAGE);
    assert_eq!(h.sup.table_sizes().frames, 3, "A and A1 evicted for C");
    assert_eq!(listed(&h), ["B", "C"]);
    assert!(
        h.snapshot().frame_tree.top.is_some(),
        "the top is never evicted"
    );
}

#[test]
fn session_cap_resumes_and_detaches_the_extra_child() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.max_sessions = 2;
        config
    });
    h.attach_oopif(PS, "S1", "D1", PAGE);
    h.attach_oopif(PS, "S2", "D2", PAGE);
    assert_eq!(h.sup.table_sizes().sessions, 2);
    assert_eq!(h.sent_on("S2"), ["Runtime.runIfWaitingForDebugger"]);
    assert!(h.last_sent("Target.detachFromTarget").json.contains("S2"));
}

#[test]
fn console_errors_carry_their_frame_and_are_bounded() {
    let mut h = attached();
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.frame_attached(PS, "Same", PAGE);
    h.event(PS, "Runtime.executionContextCreated", r#"{"context":{"id":7,"origin":"","name":"","auxData":{"isDefault":true,"frameId":"Same"}}}"#);
    h.event(PS, "Runtime.consoleAPICalled", r#"{"type":"error","args":[{"type":"string","value":"bad"},{"type":"number","value":2,"description":"2"}],"executionContextId":7}"#);
    h.event(
        PS,
        "Runtime.consoleAPICalled",
        r#"{"type":"log","args":[{"type":"string","value":"fine"}],"executionContextId":7}"#,
    );
    h.event("S-C", "Runtime.exceptionThrown", r#"{"exceptionDetails":{"text":"Uncaught","exception":{"type":"object","description":"Error: boom"},"executionContextId":1}}"#);
    h.event(
        PS,
        "Runtime.consoleAPICalled",
        r#"{"type":"assert","args":[{"type":"string","value":"Assertion failed"}]}"#,
    );
    let errors = h.snapshot().console_errors;
    let got: Vec<(&str, &str, Option<&str>)> = errors
        .iter()
        .map(|c| (c.level.as_str(), c.text.as_str(), c.frame_id.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("error", "bad 2", Some("Same")),
            ("exception", "Error: boom", Some("C")),
            ("assert", "Assertion failed", Some(PAGE))
        ]
    );
    for i in 0..120 {
        h.event(
            PS,
            "Runtime.consoleAPICalled",
            &format!(r#"{{"type":"error","args":[{{"type":"string","value":"e{i}"}}]}}"#),
        );
    }
    let errors = h.snapshot().console_errors;
    assert_eq!(errors.len(), 50);
    assert_eq!(errors.last().unwrap().text, "e119");
}

#[test]
fn same_inputs_give_the_same_outputs() {
    let run = || {
        let mut h = attached();
        h.attach_oopif(PS, "S-C", "C", PAGE);
        h.frame_attached(PS, "A", PAGE);
        h.dialog_opening("C", "alert", "x");
        h.sup
            .command(
                h.now,
                Some("C"),
                "Runtime.evaluate",
                None,
                Duration::from_secs(1),
            )
            .unwrap();
        h.advance(5.0);
        let sent: Vec<String> = h.sent.iter().map(|c| c.json.clone()).collect();
        (sent, format!("{:?}", h.events))
    };
    assert_eq!(run(), run());
}
