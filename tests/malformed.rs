//! No input panics (SPEC §3): malformed messages are refused with an error value and the
//! state stays consistent (the folded diffs still equal the snapshot).

mod harness;

use cdp_supervisor::{Config, InputError};
use harness::{Harness, PAGE, PS};

fn loaded() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.frame_attached(PS, "C", PAGE);
    h.attach_oopif(PS, "S-C", "C", PAGE);
    h.dialog_opening("C", "alert", "x");
    h
}

#[test]
fn truncated_and_non_json_are_malformed() {
    let mut h = loaded();
    let before = h.snapshot();
    for text in [
        "",
        "{",
        "{\"id\":1",
        "nul",
        "[]",
        "42",
        "\"str\"",
        "{\"method\":",
        "\u{0}",
        "{\"id\":1}}",
    ] {
        let r = h.recv_any(text);
        assert!(
            matches!(r, Err(InputError::Malformed { .. })),
            "{text:?} gave {r:?}"
        );
    }
    assert_eq!(h.snapshot(), before);
}

#[test]
fn wrong_types_are_refused() {
    let mut h = loaded();
    let before = h.snapshot();
    for text in [
        r#"{"id":"1","result":{}}"#,
        r#"{"id":-5,"result":{}}"#,
        r#"{"id":1.5,"result":{}}"#,
        r#"{"method":5}"#,
        r#"{"method":"Page.frameAttached","sessionId":7,"params":{}}"#,
        r#"{"method":"Page.frameAttached","sessionId":"S-PAGE","params":{"frameId":1,"parentFrameId":"x"}}"#,
        r#"{"method":"Page.frameNavigated","sessionId":"S-PAGE","params":{"frame":"nope"}}"#,
        r#"{"method":"Page.javascriptDialogOpening","sessionId":"S-PAGE","params":{"type":null}}"#,
        r#"{"method":"Target.attachedToTarget","sessionId":"S-PAGE","params":{"sessionId":"X","targetInfo":[]}}"#,
        r#"{"method":"Runtime.executionContextCreated","sessionId":"S-PAGE","params":{"context":{"id":"x"}}}"#,
        r#"{"method":"Runtime.exceptionThrown","sessionId":"S-PAGE","params":{}}"#,
        r#"{"method":"Page.frameDetached","sessionId":"S-PAGE","params":[]}"#,
        r#"{"method":"Page.frameDetached","sessionId":"S-PAGE","params":"x"}"#,
    ] {
        let r = h.recv_any(text);
        assert!(r.is_err(), "{text} was accepted");
    }
    assert_eq!(h.snapshot(), before);
}

#[test]
fn unknown_ids_and_sessions_are_refused() {
    let mut h = loaded();
    let before = h.snapshot();
    assert_eq!(
        h.recv_any(r#"{"id":999999,"result":{}}"#),
        Err(InputError::UnknownReply { id: 999999 })
    );
    assert_eq!(
        h.recv_any(r#"{"id":18446744073709551615,"result":{}}"#),
        Err(InputError::UnknownReply { id: u64::MAX })
    );
    assert!(matches!(
        h.recv_any(r#"{"method":"Page.frameAttached","sessionId":"GHOST","params":{"frameId":"Z","parentFrameId":"C"}}"#),
        Err(InputError::UnknownSession { .. })
    ));
    assert!(matches!(
        h.recv_any(
            r#"{"method":"Page.frameAttached","params":{"frameId":"Z","parentFrameId":"C"}}"#
        ),
        Err(InputError::UnknownSession { .. })
    ));
    assert_eq!(
        h.recv_any(r#"{"sessionId":"S-PAGE"}"#),
        Err(InputError::NeitherIdNorMethod)
    );
    // Unknown frames in events: harmless.
    h.recv(r#"{"method":"Page.frameDetached","sessionId":"S-PAGE","params":{"frameId":"nope","reason":"remove"}}"#);
    h.recv(r#"{"method":"Page.navigatedWithinDocument","sessionId":"S-PAGE","params":{"frameId":"nope","url":"x"}}"#);
    h.recv(r#"{"method":"Unknown.event","sessionId":"GHOST","params":{"whatever":[1,2,3]}}"#);
    assert_eq!(h.snapshot(), before);
}

#[test]
fn huge_numbers_and_strings_and_deep_nesting_do_not_panic() {
    let mut h = loaded();
    let _ = h.recv_any(r#"{"id":1e999,"result":{}}"#);
    let _ = h.recv_any(r#"{"id":123456789012345678901234567890,"result":{}}"#);
    let _ = h.recv_any(r#"{"method":"Runtime.executionContextCreated","sessionId":"S-PAGE","params":{"context":{"id":99999999999999999999999}}}"#);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let _ = h.recv_any(&format!(r#"{{"method":"Runtime.consoleAPICalled","sessionId":"S-PAGE","params":{{"type":"error","args":{deep}}}}}"#));
    let big = "x".repeat(1_000_000);
    h.recv(&format!(r#"{{"method":"Runtime.consoleAPICalled","sessionId":"S-PAGE","params":{{"type":"error","args":[{{"type":"string","value":"{big}"}}]}}}}"#));
    let last = h.snapshot().console_errors.pop().unwrap();
    assert!(last.text.len() <= cdp_supervisor::MAX_CONSOLE_TEXT + 4);
    let tree = format!(
        r#"{{"frameTree":{}"frame":{{"id":"x"}}{}}}"#,
        r#"{"frame":{"id":"y"},"childFrames":["#.repeat(200),
        "]}".repeat(200)
    );
    let id = h.last_sent("Page.getFrameTree").id;
    let _ = h.recv_any(&format!(r#"{{"id":{id},"result":{tree}}}"#));
    let _ = h.snapshot();
}

#[test]
fn hostile_frame_cycles_do_not_loop() {
    let mut h = loaded();
    h.frame_attached(PS, "X", "Y");
    h.frame_attached(PS, "Y", "X");
    h.frame_attached(PS, "Z", "Z");
    h.frame_navigated(PS, "X", Some("Y"), "http://x/");
    h.event(
        PS,
        "Page.frameDetached",
        r#"{"frameId":"Y","reason":"remove"}"#,
    );
    let s = h.snapshot();
    assert!(s.frame_tree.truncated);
}

#[test]
fn escaped_strings_and_weird_times_are_fine() {
    let mut h = loaded();
    h.recv(r#"{"method":"Page.frameAttached","sessionId":"S-\u0050AGE","params":{"frameId":"\u00e9\"q","parentFrameId":"C"}}"#);
    assert!(h
        .snapshot()
        .frame_tree
        .children
        .iter()
        .any(|f| f.frame_id == "é\"q"));
    h.sup.handle_timeout(f64::NAN);
    h.sup.handle_timeout(-1.0);
    h.sup.handle_timeout(f64::INFINITY);
    h.sup.handle_timeout(f64::NEG_INFINITY);
    assert!(h.sup.handle_message(f64::NAN, "{}").is_err());
    h.drain();
    let _ = h.snapshot();
}

#[test]
fn random_bytes_never_panic() {
    // A cheap deterministic generator; the fuzz targets go much further.
    let mut h = loaded();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let alphabet = br#"{}[]":,0123456789.-eE truefalsnul\u"idmethodsessionIdparamsresult"#;
    for _ in 0..5_000 {
        let len = (x % 64) as usize;
        let mut s = Vec::with_capacity(len);
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(alphabet[(x % alphabet.len() as u64) as usize]);
        }
        let text = String::from_utf8_lossy(&s).into_owned();
        let _ = h.recv_any(&text);
    }
    let _ = h.snapshot();
}
