//! HTTP sign-in, scripted: a challenge with prompting on is a pending `http_auth` dialog;
//! the credentials an answer gives are tried once: the same request challenged again means
//! they were wrong, so it is canceled and reported, never turned into another dialog.

mod harness;

use cdp_supervisor::http_auth::HttpAuthConfig;
use cdp_supervisor::{Answer, Config, Event, Warning};
use harness::{Harness, PAGE, PS};

fn challenge(h: &mut Harness, request: &str) {
    h.event(
        PS,
        "Fetch.authRequired",
        &format!(
            r#"{{"requestId":"{request}","request":{{"url":"http://b.test/secret","method":"GET","headers":{{}}}},"frameId":"{PAGE}","resourceType":"Document","authChallenge":{{"source":"Server","origin":"http://b.test","scheme":"basic","realm":"r"}}}}"#
        ),
    );
}

#[test]
fn a_wrong_answer_to_a_sign_in_is_reported_and_never_retried() {
    let mut c = Config::default();
    let mut auth = HttpAuthConfig::default();
    auth.prompt = true;
    c.http_auth = Some(auth);
    let mut h = Harness::attached(c);
    challenge(&mut h, "R1");
    let d = h.snapshot().pending_dialogs[0].clone();
    assert_eq!(d.kind.to_string(), "http_auth");
    let now = h.now;
    h.sup
        .respond_dialog(now, Answer::sign_in("user", "wrong-pw-77"), Some(&d.id))
        .unwrap();
    h.drain();
    let answer = h.last_sent("Fetch.continueWithAuth");
    assert!(
        answer.json.contains("ProvideCredentials"),
        "{}",
        answer.json
    );
    h.reply(answer.id, "{}");
    h.take_events();

    challenge(&mut h, "R1");
    let events = h.take_events();
    let rejected: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Warning(w @ Warning::HttpAuthRejected { .. }) => Some(w.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(rejected.len(), 1, "{events:?}");
    assert!(rejected[0].contains("http://b.test"), "{}", rejected[0]);
    assert!(!rejected[0].contains("wrong-pw-77"));
    let cancel = h.last_sent("Fetch.continueWithAuth");
    assert!(cancel.json.contains("CancelAuth"), "{}", cancel.json);
    assert!(
        h.snapshot().pending_dialogs.is_empty(),
        "no second dialog for the same request"
    );

    // Another request is a new challenge: pending again.
    challenge(&mut h, "R2");
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
}
