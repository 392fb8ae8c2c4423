//! The dialog bridge (SPEC §6.5, fact 12), scripted and replayed.

mod harness;

use base64::Engine as _;
use cdp_supervisor::bridge::BRIDGE_HOST;
use cdp_supervisor::{ClosedBy, Config, DialogAction, DialogPolicy, Event};
use harness::{replay_trace_with, Harness, PAGE, PS};

const TOKEN: &str = "s3cr3t-t0ken";

fn config() -> Config {
    let mut config = Config::default();
    config.bridge = Some(cdp_supervisor::BridgeConfig::new(TOKEN));
    config
}

fn with_oopif(config: Config) -> Harness {
    let mut h = Harness::attached(config);
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h
}

fn paused(h: &mut Harness, session: &str, request_id: &str, frame: &str, url: &str) {
    h.event(
        session,
        "Fetch.requestPaused",
        &format!(
            r#"{{"requestId":"{request_id}","request":{{"url":"{url}","method":"GET","headers":{{}}}},"frameId":"{frame}","resourceType":"XHR"}}"#
        ),
    );
}

fn bridge_url(token: &str, kind: &str, message: &str, default: &str) -> String {
    format!("http://{BRIDGE_HOST}/?t={token}&k={kind}&m={message}&d={default}")
}

fn body_of(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let b64 = v["params"]["body"].as_str().unwrap();
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
    )
    .unwrap()
}

fn fulfills(h: &Harness) -> Vec<&cdp_supervisor::OutgoingCommand> {
    h.sent_with("Fetch.fulfillRequest")
}

#[test]
fn set_up_on_every_page_and_oopif_session_before_resume() {
    let h = with_oopif(config());
    for session in [PS, "S-C"] {
        let sent = h.sent_on(session);
        for m in [
            "Page.addScriptToEvaluateOnNewDocument",
            "Runtime.evaluate",
            "Fetch.enable",
        ] {
            assert!(sent.contains(&m), "{m} missing on {session}: {sent:?}");
        }
    }
    assert_eq!(
        h.sent_on("S-C").last(),
        Some(&"Runtime.runIfWaitingForDebugger"),
        "resume last"
    );
    let add = h
        .sent
        .iter()
        .find(|c| c.method == "Page.addScriptToEvaluateOnNewDocument")
        .unwrap();
    assert!(add.json.contains(r#""runImmediately":true"#) && add.json.contains(TOKEN));
    let fetch = h.last_sent("Fetch.enable");
    assert!(
        fetch.json.contains(&format!("http://{BRIDGE_HOST}/*")),
        "bridge host only: {}",
        fetch.json
    );
    // Without the bridge none of it is sent.
    let plain = with_oopif(Config::default());
    assert!(!plain
        .sent
        .iter()
        .any(|c| c.method.starts_with("Fetch.")
            || c.method == "Page.addScriptToEvaluateOnNewDocument"));
}

#[test]
fn bridge_request_becomes_a_dialog_answered_on_its_own_session() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "req-1",
        "C",
        &bridge_url(TOKEN, "prompt", "Name%3F", "Bob"),
    );
    let d = h.snapshot().pending_dialogs[0].clone();
    assert_eq!(
        (
            d.kind.as_str(),
            d.message.as_str(),
            d.default_prompt.as_str(),
            d.frame_id.as_str()
        ),
        ("prompt", "Name?", "Bob", "C")
    );
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, Some("Alice")),
            None,
        )
        .unwrap();
    h.drain();
    let f = fulfills(&h)[0].clone();
    assert_eq!(
        f.session_id.as_deref(),
        Some("S-C"),
        "fact 12: on the session it paused on"
    );
    assert!(f.json.contains(r#""requestId":"req-1""#) && f.json.contains(r#""responseCode":200"#));
    assert_eq!(body_of(&f.json), r#"{"accept":true,"text":"Alice"}"#);
    assert_eq!(
        h.snapshot().pending_dialogs.len(),
        1,
        "closed when Chromium confirms"
    );
    h.reply(f.id, "{}");
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    let r = &s.recent_dialogs[0];
    assert_eq!(
        (r.closed_by, r.accepted, r.user_input.as_deref()),
        (ClosedBy::Agent, true, Some("Alice"))
    );
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::DialogAnswered { id: i, outcome: Ok(_) } if *i == id)));
}

#[test]
fn answers_decode_to_the_documented_values() {
    let mut h = with_oopif(config());
    let cases = [
        (
            "alert",
            DialogAction::Dismiss,
            r#"{"accept":false,"text":null}"#,
        ),
        (
            "confirm",
            DialogAction::Accept,
            r#"{"accept":true,"text":null}"#,
        ),
        (
            "confirm",
            DialogAction::Dismiss,
            r#"{"accept":false,"text":null}"#,
        ),
        (
            "prompt",
            DialogAction::Accept,
            r#"{"accept":true,"text":"dflt"}"#,
        ),
    ];
    for (i, (kind, action, body)) in cases.iter().enumerate() {
        paused(
            &mut h,
            PS,
            &format!("r{i}"),
            PAGE,
            &bridge_url(TOKEN, kind, "m", "dflt"),
        );
        h.sup
            .respond_dialog(h.now, cdp_supervisor::Answer::new(*action, None), None)
            .unwrap();
        h.drain();
        let f = fulfills(&h)[i].clone();
        assert_eq!(body_of(&f.json), *body, "{kind}");
        h.reply(f.id, "{}");
    }
    assert_eq!(h.snapshot().recent_dialogs.len(), 4);
}

#[test]
fn forged_request_without_token_gets_an_error_status_and_no_dialog() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        PS,
        "evil-1",
        PAGE,
        &format!("http://{BRIDGE_HOST}/?k=confirm&m=pay"),
    );
    paused(
        &mut h,
        PS,
        "evil-2",
        PAGE,
        &bridge_url("guess", "alert", "x", ""),
    );
    assert!(h.snapshot().pending_dialogs.is_empty());
    let f = fulfills(&h);
    assert_eq!(f.len(), 2);
    assert!(f
        .iter()
        .all(|c| c.json.contains(r#""responseCode":403"#) && c.session_id.as_deref() == Some(PS)));
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::Warning(w) if w.to_string().contains("forge"))));
}

#[test]
fn other_paused_requests_continue() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "img-1",
        "C",
        &format!("http://{BRIDGE_HOST}.evil.test/?t={TOKEN}&k=alert"),
    );
    let c = h.last_sent("Fetch.continueRequest");
    assert_eq!(c.session_id.as_deref(), Some("S-C"));
    assert!(c.json.contains("img-1"));
    assert!(h.snapshot().pending_dialogs.is_empty());
}

#[test]
fn navigated_frame_closes_its_bridge_dialog_remote_and_answers_the_request() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "req-1",
        "C",
        &bridge_url(TOKEN, "alert", "x", ""),
    );
    h.frame_navigated("S-C", "C", Some(PAGE), "http://b.test/next");
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
    let f = fulfills(&h);
    assert_eq!(
        f.len(),
        1,
        "the paused request still gets exactly one answer"
    );
    // Its request is gone already: "Invalid InterceptionId" is harmless.
    h.reply_error(f[0].id, -32602, "Invalid InterceptionId.");
    assert!(!h.events.iter().any(|e| matches!(e, Event::Warning { .. })));
}

#[test]
fn session_gone_closes_its_bridge_dialog_remote() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "req-1",
        "C",
        &bridge_url(TOKEN, "confirm", "x", ""),
    );
    h.event(
        PS,
        "Target.detachedFromTarget",
        r#"{"sessionId":"S-C","targetId":"C"}"#,
    );
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
    assert!(
        fulfills(&h).is_empty(),
        "nothing to answer on a session that is gone"
    );
}

#[test]
fn invalid_interception_id_on_an_answer_is_a_remote_close() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        PS,
        "req-1",
        PAGE,
        &bridge_url(TOKEN, "alert", "x", ""),
    );
    let id = h
        .sup
        .respond_dialog(
            h.now,
            cdp_supervisor::Answer::new(DialogAction::Accept, None),
            None,
        )
        .unwrap();
    h.drain();
    h.reply_error(id.0, -32602, "Invalid InterceptionId.");
    let s = h.snapshot();
    assert_eq!(s.recent_dialogs[0].closed_by, ClosedBy::Remote);
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::DialogAnswered { id: i, outcome: Ok(_) } if *i == id)));
}

#[test]
fn policies_and_watchdog_apply_to_bridge_dialogs() {
    let mut h = with_oopif({
        let mut config = config();
        config.policy = DialogPolicy::AutoAccept;
        config
    });
    paused(
        &mut h,
        "S-C",
        "req-1",
        "C",
        &bridge_url(TOKEN, "prompt", "q", "d"),
    );
    let f = fulfills(&h)[0].clone();
    assert_eq!(body_of(&f.json), r#"{"accept":true,"text":"d"}"#);
    h.reply(f.id, "{}");
    assert_eq!(
        h.snapshot().recent_dialogs[0].closed_by,
        ClosedBy::AutoPolicy
    );

    let mut h = with_oopif({
        let mut config = config();
        config.dialog_timeout = std::time::Duration::from_secs(2);
        config
    });
    paused(
        &mut h,
        "S-C",
        "req-1",
        "C",
        &bridge_url(TOKEN, "confirm", "q", ""),
    );
    h.advance(2.5);
    let f = fulfills(&h)[0].clone();
    assert_eq!(body_of(&f.json), r#"{"accept":false,"text":null}"#);
    h.reply(f.id, "{}");
    assert_eq!(h.snapshot().recent_dialogs[0].closed_by, ClosedBy::Watchdog);
}

#[test]
fn native_close_never_closes_a_bridge_dialog() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        PS,
        "req-1",
        PAGE,
        &bridge_url(TOKEN, "alert", "x", ""),
    );
    h.dialog_closed(PAGE, false);
    h.event(PS, "Page.javascriptDialogClosed", r#"{"result":false}"#);
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
}

#[test]
fn bridge_dialog_blocks_commands_but_not_its_own_answer() {
    let mut h = with_oopif(config());
    let eval = h
        .sup
        .command(
            h.now,
            None,
            "Runtime.evaluate",
            None,
            std::time::Duration::from_secs(9),
        )
        .unwrap();
    h.drain();
    paused(
        &mut h,
        PS,
        "req-1",
        PAGE,
        &bridge_url(TOKEN, "alert", "x", ""),
    );
    assert!(h
        .events
        .iter()
        .any(|e| matches!(e, Event::CommandBlocked { id, .. } if *id == eval)));
}

#[test]
fn recorded_bridge_requests_without_our_token_are_refused_once_each() {
    // The recording used a token-less prototype bridge: to this supervisor, forgeries.
    let run = replay_trace_with("bridge-frame-removal-crash", config(), |_, _, _| {});
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
    assert!(run.snapshot.recent_dialogs.is_empty() && run.snapshot.pending_dialogs.is_empty());
    let forged = run
        .events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Warning(w) if w.to_string().contains("forge")))
        .count();
    assert_eq!(
        forged, 3,
        "top, OOPIF and srcdoc requests, each refused once"
    );
}

#[test]
fn a_frame_starting_to_navigate_gets_its_bridge_dialogs_answered_first() {
    // A frame blocked in the bridge's synchronous XHR cannot commit a navigation.
    let mut h = with_oopif(config());
    h.attach_oopif("S-C", "S-N", "N", "C");
    paused(
        &mut h,
        "S-N",
        "req-n",
        "N",
        &bridge_url(TOKEN, "confirm", "nested", ""),
    );
    paused(
        &mut h,
        PS,
        "req-top",
        PAGE,
        &bridge_url(TOKEN, "alert", "top", ""),
    );
    h.event(
        PS,
        "Page.frameStartedNavigating",
        r#"{"frameId":"C","url":"http://b.test/","loaderId":"L","navigationType":"sameDocument"}"#,
    );
    assert_eq!(
        h.snapshot().pending_dialogs.len(),
        2,
        "same-document navigations change nothing"
    );
    h.event(PS, "Page.frameStartedNavigating", &format!(r#"{{"frameId":"{PAGE}","url":"http://a.test/2","loaderId":"L","navigationType":"differentDocument"}}"#));
    let s = h.snapshot();
    assert!(s.pending_dialogs.is_empty());
    assert!(s
        .recent_dialogs
        .iter()
        .all(|d| d.closed_by == ClosedBy::Remote));
    let f = fulfills(&h);
    assert_eq!(f.len(), 2);
    assert!(
        f.iter()
            .any(|c| c.session_id.as_deref() == Some("S-N") && c.json.contains("req-n")),
        "answered on its own session"
    );
    assert!(f
        .iter()
        .all(|c| body_of(&c.json) == r#"{"accept":false,"text":null}"#));
}

#[test]
fn a_subtree_about_to_detach_gets_its_bridge_dialogs_answered_first() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "req-c",
        "C",
        &bridge_url(TOKEN, "prompt", "x", ""),
    );
    h.event(PS, "Page.frameSubtreeWillBeDetached", r#"{"frameId":"C"}"#);
    let f = fulfills(&h);
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].session_id.as_deref(),
        Some("S-C"),
        "while its session still exists"
    );
    assert_eq!(h.snapshot().recent_dialogs[0].closed_by, ClosedBy::Remote);
}

#[test]
fn recover_answers_bridge_dialogs_before_navigating() {
    let mut h = with_oopif(config());
    paused(
        &mut h,
        PS,
        "req-top",
        PAGE,
        &bridge_url(TOKEN, "confirm", "x", ""),
    );
    h.sup.recover(h.now).unwrap();
    h.drain();
    let fulfill = h
        .sent
        .iter()
        .position(|c| c.method == "Fetch.fulfillRequest")
        .unwrap();
    let navigate = h
        .sent
        .iter()
        .position(|c| c.method == "Page.navigate")
        .unwrap();
    assert!(fulfill < navigate);
}

#[test]
fn the_script_sends_the_token_in_a_post_body() {
    let mut h = with_oopif(config());
    let body = format!("t={TOKEN}&k=confirm&m=ok%3F&d=");
    h.event(PS, "Fetch.requestPaused", &format!(
        r#"{{"requestId":"r","request":{{"url":"http://{BRIDGE_HOST}/","method":"POST","headers":{{}},"hasPostData":true,"postDataEntries":[{{"bytes":"{}"}}]}},"frameId":"{PAGE}","resourceType":"XHR"}}"#,
        base64::engine::general_purpose::STANDARD.encode(&body)
    ));
    assert_eq!(h.snapshot().pending_dialogs[0].message, "ok?");
    let script = cdp_supervisor::bridge::script(TOKEN);
    assert!(
        script.contains("'POST'") && !script.contains("'/?t='"),
        "never in the URL"
    );
}

#[test]
fn a_crashed_page_still_answers_bridge_requests_paused_on_live_oopif_sessions() {
    // Found by the property tests: every paused request gets its one answer.
    let mut h = with_oopif(config());
    paused(
        &mut h,
        "S-C",
        "req-c",
        "C",
        &bridge_url(TOKEN, "confirm", "x", ""),
    );
    paused(
        &mut h,
        PS,
        "req-top",
        PAGE,
        &bridge_url(TOKEN, "alert", "y", ""),
    );
    h.event(PS, "Inspector.targetCrashed", "{}");
    let f = fulfills(&h);
    assert_eq!(f.len(), 1, "only the live OOPIF session is answered");
    assert_eq!(f[0].session_id.as_deref(), Some("S-C"));
    assert!(h.snapshot().pending_dialogs.is_empty());
}
