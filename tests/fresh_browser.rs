//! A reconnect that finds a different browser behind the endpoint (the rules' "A browser
//! that comes back"): the tab we had is re-attached when it is still there; when it is
//! not, the browser's page is attached (or one is opened), a `fresh_browser` warning says
//! so, and nothing of the old tab carries over. Opening one that fails is a fatal warning.

mod harness;

use cdp_supervisor::{Config, Diff, Event, PageState, Warning};
use harness::{Harness, PAGE, PS};

/// Attached to `PAGE`, with a console error and a pending dialog, then disconnected and
/// connected again: `Target.getTargets` is waiting for its answer.
fn reconnecting() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.event(
        PS,
        "Runtime.exceptionThrown",
        r#"{"timestamp":1,"exceptionDetails":{"exceptionId":1,"text":"boom","lineNumber":0,"columnNumber":0}}"#,
    );
    h.dialog_opening(PAGE, "alert", "old");
    h.sup.handle_disconnected(h.now);
    h.drain();
    h.sup.handle_connected(h.now);
    h.drain();
    h.take_events();
    h
}

fn warnings(h: &Harness) -> Vec<Warning> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

fn answer_targets(h: &mut Harness, targets: &str) {
    let id = h.last_sent("Target.getTargets").id;
    h.reply(id, &format!(r#"{{"targetInfos":{targets}}}"#));
}

/// The new page attaches (our attachToTarget answered) and its Page.enable replies.
fn attach_new_page(h: &mut Harness, target: &str, session: &str) {
    let attach = h.last_sent("Target.attachToTarget");
    assert!(attach.json.contains(target), "{}", attach.json);
    let id = attach.id;
    h.recv(&format!(
        r#"{{"id":{id},"result":{{"sessionId":"{session}"}}}}"#
    ));
    let enable = h
        .sent
        .iter()
        .rev()
        .find(|c| c.method == "Page.enable" && c.session_id.as_deref() == Some(session))
        .expect("Page.enable on the new page")
        .id;
    h.recv(&format!(
        r#"{{"id":{enable},"result":{{}},"sessionId":"{session}"}}"#
    ));
}

#[test]
fn the_same_tab_is_re_attached_without_a_warning() {
    let mut h = reconnecting();
    answer_targets(
        &mut h,
        &format!(r#"[{{"targetId":"OTHER","type":"page"}},{{"targetId":"{PAGE}","type":"page"}}]"#),
    );
    assert!(h.last_sent("Target.attachToTarget").json.contains(PAGE));
    assert!(
        !warnings(&h).iter().any(|w| w.code() == "fresh_browser"),
        "{:?}",
        warnings(&h)
    );
}

#[test]
fn a_new_browser_s_page_is_attached_with_a_fresh_browser_warning_and_no_old_state() {
    let mut h = reconnecting();
    answer_targets(
        &mut h,
        r#"[{"targetId":"NEW","type":"page","url":"about:blank"}]"#,
    );
    let w = warnings(&h);
    assert!(
        w.iter()
            .any(|w| matches!(w, Warning::FreshBrowser { old_tab_id, tab_id }
            if old_tab_id == PAGE && tab_id.as_deref() == Some("NEW"))),
        "{w:?}"
    );
    assert!(
        w[0].to_string().contains("nothing of it carries over"),
        "{}",
        w[0]
    );
    attach_new_page(&mut h, "NEW", "S-NEW");
    h.event(
        "S-NEW",
        "Page.frameNavigated",
        r#"{"frame":{"id":"NEW","url":"about:blank","securityOrigin":"null"},"type":"Navigation"}"#,
    );
    let s = h.snapshot();
    assert_eq!(s.page.as_ref().unwrap().target_id, "NEW");
    assert_eq!(s.page.as_ref().unwrap().state, PageState::Live);
    assert_eq!(s.tabs.len(), 1, "the old tab is gone: {:?}", s.tabs);
    assert_eq!(s.tabs[0].tab_id, "NEW");
    assert!(s.pending_dialogs.is_empty());
    assert!(s.console_errors.is_empty(), "{:?}", s.console_errors);
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::Diff(Diff::TabClosed { tab_id }) if tab_id == PAGE)));
}

#[test]
fn a_new_browser_without_a_page_gets_one_opened() {
    let mut h = reconnecting();
    answer_targets(
        &mut h,
        r#"[{"targetId":"UI","type":"browser_ui","url":"chrome://x"}]"#,
    );
    let w = warnings(&h);
    assert!(
        w.iter()
            .any(|w| matches!(w, Warning::FreshBrowser { tab_id: None, .. })),
        "{w:?}"
    );
    assert!(!w.iter().any(|w| w.code() == "no_page_target"), "{w:?}");
    let create = h.last_sent("Target.createTarget");
    assert!(create.json.contains("about:blank"));
    let id = create.id;
    h.reply(id, r#"{"targetId":"OPENED"}"#);
    // The browser-level auto-attach brings it, paused.
    h.recv(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S-O","targetInfo":{"targetId":"OPENED","type":"page","url":"about:blank"},"waitingForDebugger":true}}"#);
    let s = h.snapshot();
    assert_eq!(s.page.as_ref().unwrap().target_id, "OPENED");
    assert!(s.tabs.iter().all(|t| t.tab_id != PAGE));
}

#[test]
fn opening_a_page_that_fails_is_a_fatal_warning() {
    let mut h = reconnecting();
    answer_targets(&mut h, "[]");
    let id = h.last_sent("Target.createTarget").id;
    h.reply_error(id, -32000, "Failed to open a new tab");
    let w = warnings(&h);
    let fatal: Vec<_> = w.iter().filter(|w| w.is_fatal()).collect();
    assert_eq!(fatal.len(), 1, "{w:?}");
    assert_eq!(fatal[0].code(), "no_tab_after_reconnect");
    assert!(fatal[0].to_string().contains("Failed to open a new tab"));
}

#[test]
fn opening_a_page_that_never_answers_is_a_fatal_warning_at_its_deadline() {
    let mut h = reconnecting();
    answer_targets(&mut h, "[]");
    h.last_sent("Target.createTarget");
    h.advance(120.0);
    assert!(
        warnings(&h).iter().any(Warning::is_fatal),
        "{:?}",
        warnings(&h)
    );
}

#[test]
fn the_first_connect_keeps_its_no_page_warning() {
    let mut h = Harness::new(Config::default());
    h.sup.handle_connected(h.now);
    h.drain();
    answer_targets(&mut h, "[]");
    let w = warnings(&h);
    assert!(w.iter().any(|w| w.code() == "no_page_target"), "{w:?}");
    assert!(!w.iter().any(|w| w.code() == "fresh_browser"), "{w:?}");
}
