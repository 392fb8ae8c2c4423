//! Every tab's console history (every level, numbered, bounded), on the scripted harness:
//! lines that arrive between actions are kept per tab, read since an index, and go with
//! their tab; the snapshot's errors ring stays errors only.

mod harness;

use cdp_supervisor::limits::MAX_CONSOLE_HISTORY;
use cdp_supervisor::{Config, ConsoleSeverity};
use harness::{Harness, PAGE, PS};

const POP: &str = "POPUP";
const POPS: &str = "S-POPUP";

/// A popup of `PAGE`, attached by the browser, set up and navigated.
fn popup(h: &mut Harness) {
    h.recv(&format!(
        r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"{POPS}","targetInfo":{{"targetId":"{POP}","type":"page","url":"","title":"","canAccessOpener":false,"openerId":"{PAGE}"}},"waitingForDebugger":true}}}}"#
    ));
    let enable = h.last_sent("Page.enable").id;
    h.recv(&format!(
        r#"{{"id":{enable},"result":{{}},"sessionId":"{POPS}"}}"#
    ));
    h.frame_navigated(POPS, POP, None, "http://b.test/popup");
}

fn console(h: &mut Harness, session: &str, kind: &str, text: &str) {
    h.event(
        session,
        "Runtime.consoleAPICalled",
        &format!(r#"{{"type":"{kind}","args":[{{"type":"string","value":"{text}"}},{{"type":"number","value":7,"description":"7"}}],"executionContextId":1}}"#),
    );
}

fn lines(h: &Harness, tab: Option<&str>, since: u64) -> Vec<(String, String)> {
    h.sup
        .console_since(tab, since)
        .unwrap()
        .lines
        .into_iter()
        .map(|l| (l.kind.into_owned(), l.text))
        .collect()
}

fn pair(kind: &str, text: &str) -> (String, String) {
    (kind.to_owned(), text.to_owned())
}

#[test]
fn every_level_is_kept_numbered_with_its_frame_and_time() {
    let mut h = Harness::attached(Config::default());
    console(&mut h, PS, "info", "i");
    h.advance(1.0);
    console(&mut h, PS, "warning", "w");
    console(&mut h, PS, "debug", "d");
    console(&mut h, PS, "log", "l");
    console(&mut h, PS, "error", "e");
    h.event(
        PS,
        "Runtime.exceptionThrown",
        r#"{"timestamp":1,"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":0,"columnNumber":0,"executionContextId":1,"exception":{"type":"object","description":"Error: x"}}}"#,
    );
    let all = h.sup.console_since(None, 0).unwrap();
    let got: Vec<(u64, &str, &str)> = all
        .lines
        .iter()
        .map(|l| (l.index, &*l.kind, l.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (0, "info", "i 7"),
            (1, "warning", "w 7"),
            (2, "debug", "d 7"),
            (3, "log", "l 7"),
            (4, "error", "e 7"),
            (5, "exception", "Error: x"),
        ]
    );
    assert_eq!((all.next, all.dropped), (6, 0));
    assert_eq!(all.lines[0].frame_id.as_deref(), Some(PAGE));
    assert_eq!(all.lines[1].at - all.lines[0].at, 1.0);
    // The snapshot's errors ring is errors only, as before.
    let errors: Vec<String> = h
        .snapshot()
        .console_errors
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert_eq!(errors, ["e 7", "Error: x"]);
    // Since an index; Playwright's levels filter.
    assert_eq!(
        lines(&h, Some(PAGE), 4),
        [pair("error", "e 7"), pair("exception", "Error: x")]
    );
    let warnings = all
        .lines
        .iter()
        .filter(|l| ConsoleSeverity::Warning.shows(&l.kind))
        .count();
    assert_eq!(warnings, 3);
}

#[test]
fn bounded_per_tab_the_oldest_dropped_and_counted() {
    let mut h = Harness::attached(Config::default());
    let total = MAX_CONSOLE_HISTORY as u64 + 30;
    for i in 0..total {
        console(&mut h, PS, "log", &format!("n{i}"));
    }
    let all = h.sup.console_since(None, 0).unwrap();
    assert_eq!(all.lines.len(), MAX_CONSOLE_HISTORY);
    assert_eq!((all.next, all.dropped), (total, 30));
    assert_eq!(all.lines[0].index, 30);
    assert_eq!(all.lines[0].text, "n30 7");
    let tail = h.sup.console_since(None, total - 2).unwrap();
    assert_eq!(tail.lines.len(), 2);
    assert_eq!(tail.dropped, 0);
}

#[test]
fn each_tab_has_its_own_and_a_closed_tabs_is_gone() {
    let mut h = Harness::attached(Config::default());
    console(&mut h, PS, "log", "opener");
    popup(&mut h);
    console(&mut h, POPS, "warning", "popup");
    console(&mut h, POPS, "info", "popup again");
    assert_eq!(lines(&h, Some(PAGE), 0), [pair("log", "opener 7")]);
    assert_eq!(
        lines(&h, Some(POP), 0),
        [pair("warning", "popup 7"), pair("info", "popup again 7")]
    );
    // The popup is current: a call naming no tab reads it.
    assert_eq!(h.sup.console_since(None, 0).unwrap().next, 2);
    h.recv(&format!(
        r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"{POPS}","targetId":"{POP}"}}}}"#
    ));
    let gone = h.sup.console_since(Some(POP), 0).unwrap_err();
    assert_eq!(gone.code(), "no_such_tab");
    assert_eq!(lines(&h, Some(PAGE), 0), [pair("log", "opener 7")]);
}

#[test]
fn an_untracked_sessions_lines_are_not_kept() {
    let mut h = Harness::attached(Config::default());
    let _ = h.sup.handle_message(
        h.now,
        r#"{"method":"Runtime.consoleAPICalled","params":{"type":"log","args":[],"executionContextId":1},"sessionId":"NOPE"}"#,
    );
    assert!(h.sup.console_since(None, 0).unwrap().lines.is_empty());
}
