//! File choosers, scripted: a pending `file_chooser` per `Page.fileChooserOpened`, answered
//! on the session that reported it, refused outside the upload roots, dismissed without a
//! command, under the policies and the watchdog; it blocks no command.

mod harness;

use std::time::Duration;

use cdp_supervisor::{Answer, ClosedBy, Config, DialogKind, DialogPolicy, Event};
use harness::{Harness, PAGE, PS};

fn config(roots: &[&str]) -> Config {
    let mut c = Config::default();
    c.upload_roots = roots.iter().map(|r| r.to_string()).collect();
    c
}

fn with_oopif(c: Config) -> Harness {
    let mut h = Harness::attached(c);
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h
}

fn chooser(h: &mut Harness, session: &str, frame: &str, mode: &str, node: i64) {
    h.event(
        session,
        "Page.fileChooserOpened",
        &format!(r#"{{"frameId":"{frame}","mode":"{mode}","backendNodeId":{node}}}"#),
    );
}

#[test]
fn every_page_and_oopif_session_intercepts_choosers() {
    let h = with_oopif(Config::default());
    for session in [PS, "S-C"] {
        let sent = h.sent_on(session);
        assert!(
            sent.contains(&"Page.setInterceptFileChooserDialog"),
            "{session}: {sent:?}"
        );
    }
    let intercept = h.last_sent("Page.setInterceptFileChooserDialog");
    assert!(intercept.json.contains(r#""enabled":true"#));
}

#[test]
fn an_oopif_chooser_is_pending_with_frame_mode_and_element_and_answered_on_its_session() {
    let mut h = with_oopif(config(&["/srv/up"]));
    chooser(&mut h, "S-C", "C", "selectSingle", 7);
    let s = h.snapshot();
    let d = &s.pending_dialogs[0];
    assert_eq!(d.kind, DialogKind::FileChooser);
    assert_eq!(d.kind.as_str(), "file_chooser");
    assert_eq!(d.frame_id, "C");
    assert_eq!(d.mode.as_deref(), Some("selectSingle"));
    assert_eq!(d.backend_node_id, Some(7));
    let json = serde_json::to_value(d).unwrap();
    assert_eq!(json["type"], "file_chooser");
    assert_eq!(json["backend_node_id"], 7);

    let id = h
        .sup
        .respond_dialog(h.now, Answer::upload(["/srv/up/a.txt"]), None)
        .unwrap();
    h.drain();
    let set = h.last_sent("DOM.setFileInputFiles");
    assert_eq!(set.session_id.as_deref(), Some("S-C"), "on its own session");
    assert!(
        set.json.contains(r#""files":["/srv/up/a.txt"]"#),
        "{}",
        set.json
    );
    assert!(set.json.contains(r#""backendNodeId":7"#));
    assert_eq!(
        h.snapshot().pending_dialogs.len(),
        1,
        "pending until the reply"
    );
    h.reply(set.id, "{}");
    let outcome = h.answered(id);
    let record = outcome[0].as_ref().unwrap();
    assert!(record.accepted);
    assert_eq!(record.closed_by, ClosedBy::Agent);
    assert!(h.snapshot().pending_dialogs.is_empty());
}

#[test]
fn a_failed_upload_leaves_the_chooser_pending_and_reports_the_error() {
    let mut h = with_oopif(config(&["/srv/up"]));
    chooser(&mut h, PS, PAGE, "selectMultiple", 3);
    let id = h
        .sup
        .respond_dialog(h.now, Answer::upload(["/srv/up/a", "/srv/up/b"]), None)
        .unwrap();
    h.drain();
    let set = h.last_sent("DOM.setFileInputFiles").id;
    h.reply_error(set, -32000, "Node is not a file input element");
    let outcome = h.answered(id);
    let e = outcome[0].as_ref().unwrap_err();
    assert!(
        e.to_string().contains("Node is not a file input element"),
        "{e}"
    );
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
}

#[test]
fn files_outside_the_roots_no_roots_and_too_many_files_are_refused_before_sending() {
    let mut h = with_oopif(config(&["/srv/up"]));
    chooser(&mut h, PS, PAGE, "selectSingle", 3);
    let refuse = |h: &mut Harness, files: &[&str]| {
        let e = h
            .sup
            .respond_dialog(h.now, Answer::upload(files.iter().copied()), None)
            .unwrap_err();
        h.drain();
        e
    };
    let e = refuse(&mut h, &["/etc/passwd"]);
    assert_eq!(e.code(), "upload_refused");
    assert!(e.to_string().contains("--upload-root"), "{e}");
    assert!(refuse(&mut h, &["/srv/up/../../etc/passwd"])
        .to_string()
        .contains("--upload-root"));
    let e = refuse(&mut h, &["/srv/up/a", "/srv/up/b"]);
    assert!(e.to_string().contains("selectSingle"), "{e}");
    let e = h
        .sup
        .respond_dialog(h.now, Answer::accept(), None)
        .unwrap_err();
    assert_eq!(e.code(), "bad_request");
    assert!(h.sent_with("DOM.setFileInputFiles").is_empty());
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);

    let mut none = with_oopif(Config::default());
    chooser(&mut none, PS, PAGE, "selectSingle", 3);
    let e = refuse(&mut none, &["/srv/up/a"]);
    assert!(e.to_string().contains("--upload-root"), "{e}");
}

#[test]
fn files_answer_only_a_file_chooser() {
    let mut h = with_oopif(config(&["/srv/up"]));
    h.dialog_opening(PAGE, "alert", "hi");
    let e = h
        .sup
        .respond_dialog(h.now, Answer::upload(["/srv/up/a"]), None)
        .unwrap_err();
    assert_eq!(e.code(), "bad_request");
    assert!(e.to_string().contains("file_chooser"), "{e}");
}

#[test]
fn a_dismissal_sends_nothing_and_closes_at_once() {
    let mut h = with_oopif(Config::default());
    chooser(&mut h, PS, PAGE, "selectSingle", 3);
    let before = h.sent.len();
    let id = h
        .sup
        .respond_dialog(h.now, Answer::dismiss(), None)
        .unwrap();
    h.drain();
    assert_eq!(h.sent.len(), before, "nothing sent");
    let record = h.answered(id)[0].clone().unwrap();
    assert!(!record.accepted);
    assert_eq!(record.closed_by, ClosedBy::Agent);
    assert!(h.snapshot().pending_dialogs.is_empty());
    assert_eq!(h.snapshot().recent_dialogs[0].kind, DialogKind::FileChooser);
}

#[test]
fn a_chooser_blocks_no_command_and_a_second_click_opens_another() {
    let mut h = with_oopif(Config::default());
    let id = h
        .sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(5),
        )
        .unwrap();
    h.drain();
    chooser(&mut h, PS, PAGE, "selectSingle", 3);
    chooser(&mut h, PS, PAGE, "selectSingle", 3);
    assert!(!h
        .events
        .iter()
        .any(|e| matches!(e, Event::CommandBlocked { id: i, .. } if *i == id)));
    assert_eq!(h.snapshot().pending_dialogs.len(), 2);
    // A command sent now is not refused either.
    assert!(h
        .sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(5)
        )
        .is_ok());
}

#[test]
fn the_watchdog_dismisses_an_unanswered_chooser() {
    let mut c = Config::default();
    c.dialog_timeout = Duration::from_secs(3);
    let mut h = with_oopif(c);
    chooser(&mut h, "S-C", "C", "selectSingle", 3);
    h.advance(2.0);
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
    h.advance(1.5);
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Watchdog);
    assert!(h.sent_with("DOM.setFileInputFiles").is_empty());
}

#[test]
fn both_auto_policies_dismiss_a_chooser() {
    for policy in [DialogPolicy::AutoAccept, DialogPolicy::AutoDismiss] {
        let mut c = Config::default();
        c.policy = policy;
        let mut h = with_oopif(c);
        chooser(&mut h, PS, PAGE, "selectSingle", 3);
        let s = h.snapshot();
        assert!(s.pending_dialogs.is_empty(), "{policy:?}");
        assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::AutoPolicy);
        assert!(!s.recent_dialogs[0].accepted);
    }
}

#[test]
fn a_chooser_goes_with_its_frame_navigation_or_session() {
    let mut h = with_oopif(Config::default());
    chooser(&mut h, "S-C", "C", "selectSingle", 3);
    chooser(&mut h, PS, PAGE, "selectSingle", 4);
    h.event(
        PS,
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-C","targetId":"C"}"#,
    );
    let s = h.snapshot();
    assert_eq!(
        s.pending_dialogs.len(),
        1,
        "the OOPIF's went with its session"
    );
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
    h.frame_navigated(PS, PAGE, None, "http://a.test/next");
    assert!(
        h.snapshot().pending_dialogs.is_empty(),
        "the top's went with its document"
    );
}
