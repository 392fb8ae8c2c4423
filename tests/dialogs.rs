//! The dialog lifecycle (SPEC §6.1-6.4, §6.8; facts 6-11, 15, 16, 20), scripted.

mod harness;

use std::time::Duration;

use cdp_supervisor::{
    ClosedBy, ClosedDialog, CommandError, CommandId, Config, DialogAction, DialogError,
    DialogPolicy, Event, PageState, MAX_PENDING_DIALOGS,
};
use harness::{Harness, PAGE, PS};

fn attached() -> Harness {
    Harness::attached(Config::default())
}

fn with_oopif() -> Harness {
    let mut h = attached();
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h
}

fn answered(h: &Harness, id: CommandId) -> Vec<Result<ClosedDialog, DialogError>> {
    h.answered(id)
}

fn answers_sent(h: &Harness) -> Vec<&cdp_supervisor::OutgoingCommand> {
    h.sent_with("Page.handleJavaScriptDialog")
}

#[test]
fn fact6_oopif_dialog_is_pending_with_its_frame_and_answered_on_the_page_session() {
    let mut h = with_oopif();
    h.dialog_opening("C", "confirm", "sure?");
    let s = h.snapshot();
    let d = &s.pending_dialogs[0];
    assert_eq!(
        (
            d.id.as_str(),
            d.kind.as_str(),
            d.message.as_str(),
            d.frame_id.as_str()
        ),
        ("d-1", "confirm", "sure?", "C")
    );
    assert_eq!(d.opened_at, h.now);
    h.sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    let answer = answers_sent(&h)[0];
    assert_eq!(
        answer.session_id.as_deref(),
        Some(PS),
        "never on the child session"
    );
    assert!(answer.json.contains(r#""accept":true"#));
}

#[test]
fn fact7_close_before_reply_is_closed_by_agent() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "hi");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            Some("d-1"),
        )
        .unwrap();
    h.drain();
    h.dialog_closed(PAGE, true);
    assert!(
        answered(&h, id).is_empty(),
        "settled by the reply, not before"
    );
    h.reply(id.0, "{}");
    let out = answered(&h, id);
    assert_eq!(out.len(), 1);
    let closed = out[0].clone().unwrap();
    assert_eq!((closed.closed_by, closed.accepted), (ClosedBy::Agent, true));
    assert_eq!(h.snapshot().recent_dialogs[0].closed_by, ClosedBy::Agent);
}

#[test]
fn reply_before_close_is_closed_by_agent_too() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "hi");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Dismiss, None),
            None,
        )
        .unwrap();
    h.drain();
    h.reply(id.0, "{}");
    assert!(
        answered(&h, id).is_empty(),
        "still open until Chromium says so"
    );
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
    h.dialog_closed(PAGE, false);
    let out = answered(&h, id);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].as_ref().unwrap().closed_by, ClosedBy::Agent);
}

#[test]
fn close_without_an_answer_is_remote() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "hi");
    h.dialog_closed(PAGE, false);
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
}

#[test]
fn fact7_close_matches_by_frame_first_then_oldest() {
    let mut h = with_oopif();
    h.dialog_opening(PAGE, "alert", "top");
    h.dialog_opening("C", "alert", "child");
    h.dialog_closed("C", false);
    assert_eq!(h.snapshot().pending_dialogs[0].message, "top");
    h.dialog_opening("C", "alert", "child2");
    h.event(PS, "Page.javascriptDialogClosed", r#"{"result":false}"#);
    let pending = h.snapshot().pending_dialogs;
    assert_eq!(pending.len(), 1);
    assert_eq!(
        pending[0].message, "child2",
        "no frame id: the oldest closes"
    );
}

#[test]
fn fact20_lone_close_is_tolerated() {
    let mut h = attached();
    h.dialog_closed("C", false);
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty() && s.recent_dialogs.is_empty());
}

#[test]
fn auto_dismiss_answers_at_once_and_records_auto_policy() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.policy = DialogPolicy::AutoDismiss;
        config
    });
    h.dialog_opening(PAGE, "confirm", "?");
    let answer = answers_sent(&h)[0].clone();
    assert!(answer.json.contains(r#""accept":false"#));
    h.dialog_closed(PAGE, false);
    h.reply(answer.id, "{}");
    let s = h.snapshot();
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::AutoPolicy);
    assert!(
        !h.events
            .iter()
            .any(|e| matches!(e, Event::DialogAnswered { .. })),
        "policy answers are not the client's"
    );
}

#[test]
fn auto_accept_gives_a_prompt_its_default_text() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.policy = DialogPolicy::AutoAccept;
        config
    });
    h.dialog_opening(PAGE, "prompt", "name?");
    let answer = answers_sent(&h)[0].clone();
    assert!(
        answer.json.contains(r#""accept":true"#) && answer.json.contains(r#""promptText":"def""#),
        "{}",
        answer.json
    );
    h.event(
        PS,
        "Page.javascriptDialogClosed",
        &format!(r#"{{"frameId":"{PAGE}","result":true,"userInput":"def"}}"#),
    );
    let r = &h.snapshot().recent_dialogs[0];
    assert_eq!(
        (r.closed_by, r.user_input.as_deref()),
        (ClosedBy::AutoPolicy, Some("def"))
    );
}

#[test]
fn policy_change_applies_to_dialogs_opened_afterwards() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "1");
    h.sup.set_policy(DialogPolicy::AutoAccept);
    h.drain();
    assert!(
        answers_sent(&h).is_empty(),
        "the pending one is not answered by the new policy"
    );
    h.dialog_closed(PAGE, false);
    h.dialog_opening(PAGE, "alert", "2");
    assert_eq!(answers_sent(&h).len(), 1);
}

#[test]
fn watchdog_dismisses_after_dialog_timeout() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.dialog_timeout = Duration::from_secs(1);
        config
    });
    let opened = h.now;
    h.dialog_opening(PAGE, "confirm", "?");
    assert_eq!(h.sup.poll_timeout(), Some(opened + 1.0));
    h.advance(0.9);
    assert!(answers_sent(&h).is_empty());
    h.advance(0.2);
    let answer = answers_sent(&h)[0].clone();
    assert!(answer.json.contains(r#""accept":false"#));
    h.dialog_closed(PAGE, false);
    h.reply(answer.id, "{}");
    assert_eq!(h.snapshot().recent_dialogs[0].closed_by, ClosedBy::Watchdog);
    h.advance(100.0);
    assert_eq!(answers_sent(&h).len(), 1, "fires once");
}

#[test]
fn answered_dialog_has_no_watchdog() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.dialog_timeout = Duration::from_secs(1);
        config
    });
    h.dialog_opening(PAGE, "alert", "?");
    h.sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.advance(0.5);
    h.dialog_closed(PAGE, true);
    h.advance(5.0);
    assert_eq!(answers_sent(&h).len(), 1);
}

#[test]
fn failed_answer_leaves_the_dialog_pending_and_reports_the_error() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "?");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.reply_error(id.0, -32000, "Something odd");
    let out = answered(&h, id);
    assert!(matches!(
        &out[..],
        [Err(DialogError::Command {
            error: CommandError::Cdp { code: -32000, .. },
            ..
        })]
    ));
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
    // And it can be answered again.
    let again = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.dialog_closed(PAGE, true);
    h.reply(again.0, "{}");
    assert_eq!(
        answered(&h, again)[0].as_ref().unwrap().closed_by,
        ClosedBy::Agent
    );
}

#[test]
fn answer_timeout_leaves_the_dialog_pending() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "?");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.advance(11.0);
    assert!(matches!(
        &answered(&h, id)[..],
        [Err(DialogError::Command {
            error: CommandError::Timeout { .. },
            ..
        })]
    ));
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
}

/// Changed with the close-attribution rule (Chromium can close a dialog by itself while
/// an answer is in flight): the close here (`result: false`) contradicts the accept, so the
/// answer's one outcome says the browser closed it first. Still one outcome, no wedge.
#[test]
fn no_dialog_showing_after_chromium_closed_it_is_one_outcome_and_no_wedge() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "?");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.dialog_closed(PAGE, false); // a navigation closed it first
    h.reply_error(id.0, -32602, "No dialog is showing");
    let out = answered(&h, id);
    assert_eq!(out.len(), 1);
    assert!(
        matches!(&out[0], Err(DialogError::ClosedByBrowser { dialog_id, result: false, .. }) if dialog_id == "d-1"),
        "{:?}",
        out[0]
    );
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Live);
}

#[test]
fn a_dismiss_closed_with_result_false_is_the_answers_doing() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "?");
    let id = h
        .sup
        .respond_dialog(h.now, cdp_supervisor::Answer::dismiss(), None)
        .unwrap();
    h.drain();
    h.dialog_closed(PAGE, false);
    h.reply_error(id.0, -32602, "No dialog is showing");
    let out = answered(&h, id);
    assert!(
        matches!(out.as_slice(), [Ok(d)] if d.closed_by == ClosedBy::Agent),
        "{out:?}"
    );
}

#[test]
fn fact15_wedge_blocks_the_page_and_recover_navigates_and_releases() {
    let mut h = with_oopif();
    h.dialog_opening(PAGE, "confirm", "first");
    h.dialog_opening("C", "confirm", "second");
    h.dialog_closed(PAGE, false); // fact 8: the first is closed by Chromium
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.reply_error(id.0, -32602, "No dialog is showing");
    assert!(
        matches!(&answered(&h, id)[..], [Err(DialogError::Wedged { dialog_id })] if dialog_id == "d-2")
    );
    let page = h.snapshot().page.unwrap();
    assert_eq!(page.state, PageState::Blocked);
    assert!(page.reason.unwrap().contains("recover"));
    let rec = h.sup.recover(h.now).unwrap();
    h.drain();
    let nav = h.last_sent("Page.navigate");
    assert_eq!(nav.session_id.as_deref(), Some(PS));
    assert!(
        nav.json.contains("http://a.test/"),
        "current URL: {}",
        nav.json
    );
    h.dialog_closed("C", false);
    h.reply(rec.0, r#"{"frameId":"PAGE"}"#);
    let s = h.snapshot();
    assert_eq!(s.page.unwrap().state, PageState::Live);
    assert_eq!(s.recent_dialogs[1].closed_by, ClosedBy::Remote);
}

#[test]
fn fact11_unanswered_page_enable_is_blocked_until_recovered() {
    let mut h = Harness::new(Config::default());
    h.sup.handle_connected(h.now);
    h.drain();
    let id = h.last_sent("Target.getTargets").id;
    h.reply(
        id,
        &format!(
            r#"{{"targetInfos":[{{"targetId":"{PAGE}","type":"page","url":"http://a.test/p"}}]}}"#
        ),
    );
    let attach = h.last_sent("Target.attachToTarget").id;
    h.reply(attach, &format!(r#"{{"sessionId":"{PS}"}}"#));
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Attaching);
    h.advance(5.5);
    let page = h.snapshot().page.unwrap();
    assert_eq!(page.state, PageState::Blocked);
    assert!(page.reason.unwrap().contains("Page.enable"));
    h.sup.recover(h.now).unwrap();
    h.drain();
    assert!(h
        .last_sent("Page.navigate")
        .json
        .contains("http://a.test/p"));
    let enable = h
        .sent
        .iter()
        .find(|c| c.method == "Page.enable")
        .unwrap()
        .id;
    h.reply(enable, "{}");
    assert_eq!(h.snapshot().page.unwrap().state, PageState::Live);
}

#[test]
fn spec_6_4_commands_in_flight_are_reported_blocked_at_once_and_still_end_once() {
    let mut h = with_oopif();
    let t = Duration::from_secs(30);
    let eval = h
        .sup
        .command(h.now, None, "Runtime.evaluate", None, t)
        .unwrap();
    let child = h
        .sup
        .command(h.now, Some("C"), "DOM.getDocument", None, t)
        .unwrap();
    let target = h
        .sup
        .command(h.now, None, "Target.getTargets", None, t)
        .unwrap();
    h.drain();
    h.dialog_opening(PAGE, "alert", "in the way");
    let blocked: Vec<(CommandId, String)> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::CommandBlocked { id, dialog_id } => Some((*id, dialog_id.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        blocked,
        [(eval, "d-1".to_owned()), (child, "d-1".to_owned())]
    );
    assert!(!blocked.iter().any(|(id, _)| *id == target));
    // A command sent while the dialog shows is reported at once too.
    let late = h
        .sup
        .command(h.now, None, "Runtime.evaluate", None, t)
        .unwrap();
    h.drain();
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::CommandBlocked { id, .. } if *id == late)));
    h.dialog_closed(PAGE, true);
    h.reply(eval.0, r#"{"result":{"type":"undefined"}}"#);
    let finals = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::CommandFinished { id, .. } if *id == eval))
        .count();
    assert_eq!(finals, 1);
}

#[test]
fn respond_dialog_errors_say_what_to_do() {
    let mut h = attached();
    assert_eq!(
        h.sup.respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None
        ),
        Err(DialogError::NoDialogPending)
    );
    h.dialog_opening(PAGE, "alert", "1");
    h.dialog_opening(PAGE, "alert", "2");
    let e = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap_err();
    assert_eq!(
        e,
        DialogError::SeveralPending {
            pending: vec!["d-1".into(), "d-2".into()]
        }
    );
    assert!(e.to_string().contains("dialog_id"));
    let e = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            Some("d-9"),
        )
        .unwrap_err();
    assert!(e.to_string().contains("d-9") && e.to_string().contains("d-1, d-2"));
    let e = "maybe".parse::<DialogAction>().unwrap_err();
    assert!(e.to_string().contains("accept"));
}

#[test]
fn prompt_accepted_without_text_returns_its_default() {
    let mut h = attached();
    h.dialog_opening(PAGE, "prompt", "name?");
    h.sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    assert!(answers_sent(&h)[0].json.contains(r#""promptText":"def""#));
    h.dialog_closed(PAGE, false);
    h.dialog_opening(PAGE, "prompt", "again");
    h.sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, Some("mine")),
            None,
        )
        .unwrap();
    h.drain();
    assert!(answers_sent(&h)[1].json.contains(r#""promptText":"mine""#));
}

#[test]
fn dialog_ids_are_never_reused_and_rings_are_bounded() {
    let mut h = attached();
    for i in 0..25 {
        h.dialog_opening(PAGE, "alert", &format!("m{i}"));
        h.dialog_closed(PAGE, true);
    }
    let s = h.snapshot();
    assert_eq!(s.recent_dialogs.len(), 20);
    assert_eq!(s.recent_dialogs[19].id, "d-25");
    assert_eq!(s.recent_dialogs[0].id, "d-6");
}

#[test]
fn pending_cap_gives_up_the_oldest_as_remote() {
    let mut h = attached();
    for i in 0..MAX_PENDING_DIALOGS + 1 {
        h.dialog_opening(PAGE, "alert", &format!("m{i}"));
    }
    let s = h.snapshot();
    assert_eq!(s.pending_dialogs.len(), MAX_PENDING_DIALOGS);
    assert_eq!(s.pending_dialogs[0].id, "d-2");
    assert_eq!(
        (
            s.recent_dialogs[0].id.as_str(),
            s.recent_dialogs[0].closed_by
        ),
        ("d-1", ClosedBy::Remote)
    );
}

#[test]
fn settle_answers_every_pending_dialog() {
    let mut h = with_oopif();
    h.dialog_opening(PAGE, "alert", "1");
    h.dialog_opening("C", "prompt", "2");
    let sent = h.sup.settle_dialogs(h.now, DialogAction::Dismiss);
    h.drain();
    assert_eq!(sent.len(), 2);
    assert!(answers_sent(&h)
        .iter()
        .all(|a| a.json.contains(r#""accept":false"#) && a.session_id.as_deref() == Some(PS)));
}

#[test]
fn fact16_page_disable_is_never_sent() {
    let mut h = with_oopif();
    h.dialog_opening(PAGE, "alert", "1");
    h.sup.settle_dialogs(h.now, DialogAction::Dismiss);
    h.sup.handle_disconnected(h.now);
    h.drain();
    assert!(!h.sent.iter().any(|c| c.method == "Page.disable"));
}

#[test]
fn disconnect_closes_pending_remote_and_fails_the_answer_in_flight() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "1");
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.sup.handle_disconnected(h.now);
    h.drain();
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(
        s.recent_dialogs[0].closed_by,
        ClosedBy::Remote,
        "SPEC 6.8: closed remote on disconnect"
    );
    assert!(matches!(
        &answered(&h, id)[..],
        [Err(DialogError::Command {
            error: CommandError::Disconnected { .. },
            ..
        })]
    ));
}

#[test]
fn dialog_of_a_removed_frame_closes_remote() {
    let mut h = with_oopif();
    h.dialog_opening("C", "alert", "1");
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"C","reason":"remove"}"#,
    );
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
}

#[test]
fn a_second_answer_while_one_is_in_flight_is_refused() {
    let mut h = attached();
    h.dialog_opening(PAGE, "confirm", "?");
    h.sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Dismiss, None),
            None,
        )
        .unwrap();
    let e = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            Some("d-1"),
        )
        .unwrap_err();
    assert_eq!(
        e,
        DialogError::AnswerInFlight {
            dialog_id: "d-1".into()
        }
    );
    h.drain();
    assert_eq!(answers_sent(&h).len(), 1);
}

#[test]
fn spec_6_8_planned_stop_settles_and_waits_for_dialogs_and_commands() {
    let mut h = attached();
    let eval = h
        .sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(30),
        )
        .unwrap();
    h.drain();
    h.dialog_opening(PAGE, "alert", "left open?");
    h.sup
        .begin_stop(h.now, Some(DialogAction::Dismiss), Duration::from_secs(2));
    h.drain();
    assert!(
        answers_sent(&h)[0].json.contains(r#""accept":false"#),
        "fact 11: settled first"
    );
    assert!(!h.sup.ready_to_close());
    assert_eq!(
        h.sup.poll_timeout(),
        Some(h.now + 2.0),
        "the grace deadline is a timeout"
    );
    h.dialog_closed(PAGE, false);
    let answer = answers_sent(&h)[0].id;
    h.reply(answer, "{}");
    assert!(
        !h.sup.ready_to_close(),
        "the blocked command still waits for its real reply"
    );
    h.reply(eval.0, r#"{"result":{"type":"undefined"}}"#);
    assert!(h.sup.ready_to_close());
}

#[test]
fn planned_stop_gives_up_after_its_grace() {
    let mut h = attached();
    h.dialog_opening(PAGE, "alert", "never closes");
    h.sup
        .begin_stop(h.now, Some(DialogAction::Dismiss), Duration::from_secs(2));
    h.drain();
    h.advance(1.0);
    assert!(!h.sup.ready_to_close());
    h.advance(1.5);
    assert!(h.sup.ready_to_close());
}

// ---- close attribution: Chromium can close a dialog by itself while an answer is in
// flight (see the manual's chromium_facts). A close is the answer's doing only when it
// agrees with it.

/// `auto_accept` sent an accept; Chromium closed the confirm with `result: false`
/// (a frame committed a navigation). The close is `remote`, the policy's answer ends
/// quietly: no event beyond the close record, no warning, no wedge.
#[test]
fn auto_accept_confirm_closed_with_result_false_is_remote() {
    let mut h = Harness::attached({
        let mut config = Config::default();
        config.policy = DialogPolicy::AutoAccept;
        config
    });
    h.dialog_opening(PAGE, "confirm", "Sure?");
    let answer = answers_sent(&h)[0].clone();
    assert!(answer.json.contains(r#""accept":true"#));
    h.dialog_closed(PAGE, false);
    h.reply_error(answer.id, -32602, "No dialog is showing");
    let s = h.snapshot();
    let r = &s.recent_dialogs[0];
    assert_eq!((r.closed_by, r.accepted), (ClosedBy::Remote, false));
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.page.unwrap().state, PageState::Live, "no wedge");
    assert!(
        !h.events
            .iter()
            .any(|e| matches!(e, Event::DialogAnswered { .. } | Event::Warning(_))),
        "a policy answer the browser overtook reports nothing more: {:?}",
        h.events
    );
}

/// The agent accepted a prompt with "Bob"; the close says `userInput: "other"`: someone
/// else closed it. The record is `remote` (accepted, as the close says) and the agent's
/// answer ends once, with `ClosedByBrowser`, whose text says there is nothing to do.
#[test]
fn agent_accept_of_a_prompt_closed_with_other_input_is_remote_and_an_error() {
    let mut h = attached();
    h.dialog_opening(PAGE, "prompt", "Name?");
    let id = h
        .sup
        .respond_dialog(h.now, cdp_supervisor::Answer::accept_with("Bob"), None)
        .unwrap();
    h.drain();
    h.event(
        PS,
        "Page.javascriptDialogClosed",
        &format!(r#"{{"frameId":"{PAGE}","result":true,"userInput":"other"}}"#),
    );
    let r = h.snapshot().recent_dialogs[0].clone();
    assert_eq!(
        (r.closed_by, r.accepted, r.user_input.as_deref()),
        (ClosedBy::Remote, true, Some("other"))
    );
    assert!(answered(&h, id).is_empty(), "the reply is still to come");
    h.reply(id.0, "{}");
    let out = answered(&h, id);
    match out.as_slice() {
        [Err(
            e @ DialogError::ClosedByBrowser {
                dialog_id,
                result: true,
                action: DialogAction::Accept,
            },
        )] => {
            assert_eq!(dialog_id, "d-1");
            let text = e.to_string();
            assert!(
                text.contains("the browser closed dialog d-1") && text.contains("nothing to do"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A late "No dialog is showing" for it, or anything else, adds no second outcome.
    assert!(h
        .recv_any(&format!(
            r#"{{"id":{},"error":{{"code":-32602,"message":"No dialog is showing"}}}}"#,
            id.0
        ))
        .is_err());
    assert_eq!(answered(&h, id).len(), 1);
}

/// A close that agrees with the answer is the answer's: an accepted prompt with the text
/// sent (its default when accepted without text) is `agent`.
#[test]
fn agreeing_close_is_the_agents() {
    let mut h = attached();
    h.dialog_opening(PAGE, "prompt", "Name?");
    let id = h
        .sup
        .respond_dialog(h.now, cdp_supervisor::Answer::accept(), None)
        .unwrap();
    h.drain();
    h.event(
        PS,
        "Page.javascriptDialogClosed",
        &format!(r#"{{"frameId":"{PAGE}","result":true,"userInput":"def"}}"#),
    );
    h.reply(id.0, "{}");
    let out = answered(&h, id);
    assert!(
        matches!(out.as_slice(), [Ok(d)] if d.closed_by == ClosedBy::Agent && d.accepted && d.user_input.as_deref() == Some("def")),
        "{out:?}"
    );
}

/// The reply may come first, then a contradicting close: still `remote` and one error.
#[test]
fn reply_then_contradicting_close_is_remote_too() {
    let mut h = attached();
    h.dialog_opening(PAGE, "confirm", "?");
    let id = h
        .sup
        .respond_dialog(h.now, cdp_supervisor::Answer::dismiss(), None)
        .unwrap();
    h.drain();
    h.reply(id.0, "{}");
    h.dialog_closed(PAGE, true);
    assert_eq!(h.snapshot().recent_dialogs[0].closed_by, ClosedBy::Remote);
    assert!(matches!(
        answered(&h, id).as_slice(),
        [Err(DialogError::ClosedByBrowser {
            result: true,
            action: DialogAction::Dismiss,
            ..
        })]
    ));
}
