//! End-to-end: the console history against a real headless Chromium, over the blocking
//! transport: lines of every level written by timers between calls (no action running),
//! in the top page and in its cross-site iframe (an OOPIF), are all listed by
//! `console_since`, numbered, each with its frame; the snapshot's errors ring stays errors
//! only; a second tab has its own history, gone when the tab closes.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::{ConsoleLine, ConsoleSeverity};
use cdp_supervisor_blocking::Client;
use serde_json::json;
use support::blocking::*;
use support::toolbox_site;

/// Polls the tab's history from `since` until `n` lines are there.
fn lines_since(client: &Client, tab: Option<&str>, since: u64, n: usize) -> Vec<ConsoleLine> {
    let end = Instant::now() + WAIT;
    loop {
        let c = client.console_since(tab, since).unwrap();
        if c.lines.len() >= n {
            return c.lines;
        }
        assert!(
            Instant::now() < end,
            "{} of {n} lines after {WAIT:?}: {:?}",
            c.lines.len(),
            c.lines
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn lines_of_every_level_between_calls_per_tab_in_an_oopif_too() {
    let Some(browser) = browser_or_skip("console-history") else {
        return;
    };
    let site = toolbox_site::start();
    let client = Client::connect(browser.ws_url(), options("console-history")).unwrap();
    wait_live(&client);
    let snap = navigate(&client, &site.url("/wait"), |s| {
        find(s, "/late").is_some_and(|f| f.is_oopif)
    });
    let top = snap.tabs.iter().find(|t| t.current).unwrap().tab_id.clone();
    let frame = find(&snap, "/late").unwrap().frame_id.clone();
    let end = Instant::now() + WAIT;
    while eval(&client, Some(&frame), "document.readyState") != json!("complete") {
        assert!(Instant::now() < end, "the frame never loaded");
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = client.console_since(None, 0).unwrap().next;

    // Timers write after the evaluates have answered: no action is running.
    eval(
        &client,
        None,
        "setTimeout(function () { console.info('top info'); console.warn('top warning'); \
         console.debug('top debug', 42); }, 300); 1",
    );
    eval(
        &client,
        Some(&frame),
        "setTimeout(function () { console.log('frame log', {a: 1}); }, 300); 1",
    );
    let lines = lines_since(&client, None, start, 4);
    let mut got: Vec<(&str, &str)> = lines.iter().map(|l| (&*l.kind, l.text.as_str())).collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("debug", "top debug 42"),
            ("info", "top info"),
            ("log", "frame log Object"),
            ("warning", "top warning"),
        ]
    );
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l.index, start + i as u64, "numbered in order");
        let from_frame = l.kind == "log";
        assert_eq!(
            l.frame_id.as_deref() == Some(frame.as_str()),
            from_frame,
            "{l:?}: its frame"
        );
    }
    let warnings = lines
        .iter()
        .filter(|l| ConsoleSeverity::Warning.shows(&l.kind))
        .count();
    assert_eq!(warnings, 1);
    // None of them is an error: the snapshot's ring did not take them.
    let errors = client.snapshot().unwrap().console_errors;
    assert!(
        errors.iter().all(|e| !e.text.starts_with("top ")),
        "{errors:?}"
    );
    // Asked again from the answer's next: nothing new.
    let next = client.console_since(None, start).unwrap().next;
    assert_eq!(next, start + 4);
    assert!(client.console_since(None, next).unwrap().lines.is_empty());

    // A second tab: its own history; gone when it closes.
    let second = client.new_tab(&site.url("/h1")).unwrap().tab_id;
    let end = Instant::now() + WAIT;
    while eval(&client, None, "document.readyState") != json!("complete") {
        assert!(Instant::now() < end, "the tab never loaded");
        std::thread::sleep(Duration::from_millis(20));
    }
    eval(
        &client,
        None,
        "setTimeout(function () { console.error('second error'); }, 200); 1",
    );
    let there = lines_since(&client, Some(&second), 0, 1);
    assert_eq!(
        there.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
        ["second error"]
    );
    let here = client.console_since(Some(&top), 0).unwrap();
    assert!(here.lines.iter().all(|l| l.text != "second error"));
    assert_eq!(here.next, start + 4, "nothing more in the first tab");
    client.close_tab(Some(&second), true).unwrap();
    let gone = client.console_since(Some(&second), 0).unwrap_err();
    assert_eq!(gone.code(), "no_such_tab");
}
