//! End-to-end: browser contexts over the blocking transport. Two contexts on one browser
//! keep their cookies apart; a popup opened in one is a tab of that context; an alert in
//! one is pending with its tab and does not hold the other's evaluate; disposing one takes
//! its tabs and its dialog, Chromium no longer lists it, and the other works on.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::{Evaluation, TabInfo, TabState};
use cdp_supervisor_blocking::Client;
use serde_json::json;
use support::blocking::*;
use support::tabs_site::TabsSite;

fn eval_in(client: &Client, tab: &str, expression: &str) -> serde_json::Value {
    client
        .evaluate_in(Some(tab), Evaluation::new(expression))
        .unwrap_or_else(|e| panic!("{expression} in {tab}: {e}"))
        .value
}

/// Waits until tab `tab_id` is live and its document at `path` loaded (nothing in the
/// snapshot says a document loaded, and its first context may not be known yet: poll).
fn wait_loaded(client: &Client, tab_id: &str, path: &str) -> TabInfo {
    let end = Instant::now() + WAIT;
    // The initial empty document is complete too: wait for the page's own.
    let loaded = format!("document.readyState == 'complete' && location.pathname == '{path}'");
    loop {
        let state = client.evaluate_in(Some(tab_id), Evaluation::new(&loaded));
        if matches!(&state, Ok(v) if v.value == json!(true)) {
            let tabs = client.tabs().unwrap();
            let tab = tabs.into_iter().find(|t| t.tab_id == tab_id).unwrap();
            assert_eq!(tab.state, TabState::Live, "{tab:?}");
            return tab;
        }
        assert!(Instant::now() < end, "tab {tab_id} never loaded: {state:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_contexts_keep_cookies_tabs_and_dialogs_apart_and_a_disposed_one_leaves_nothing() {
    let Some(browser) = browser_or_skip("blocking-contexts") else {
        return;
    };
    let site = TabsSite::start();
    let c = Client::connect(browser.ws_url(), options("blocking-contexts")).unwrap();
    wait_live(&c);
    let before = c.browser_contexts().unwrap();
    let a = c.create_context().unwrap();
    let b = c.create_context().unwrap();
    assert_ne!(a, b);
    let listed = c.browser_contexts().unwrap();
    assert!(listed.contains(&a) && listed.contains(&b), "{listed:?}");

    // A logs in (its page sets a cookie); B opens the same site.
    let tab_a = c.new_tab_in_context(&site.url("/login"), Some(&a)).unwrap();
    assert_eq!(tab_a.browser_context_id.as_deref(), Some(a.as_str()));
    let tab_b = c.new_tab_in_context(&site.url("/"), Some(&b)).unwrap();
    assert_eq!(tab_b.browser_context_id.as_deref(), Some(b.as_str()));
    let (tab_a, tab_b) = (tab_a.tab_id, tab_b.tab_id);
    wait_loaded(&c, &tab_a, "/login");
    wait_loaded(&c, &tab_b, "/");
    assert_eq!(
        eval_in(&c, &tab_a, "document.cookie"),
        json!("session=agent-a")
    );
    assert_eq!(
        eval_in(&c, &tab_b, "document.cookie"),
        json!(""),
        "B sees none of A's cookies"
    );

    // A popup of A's tab is a tab of context A, with A's cookies.
    let (x, y) = TabsSite::OPEN;
    let click = Action::Click {
        target: Target::Point { x, y },
    };
    // A screenshot of the opener would wait for its next frame, a while in headless mode.
    let mut no_screenshot = ActOptions::default();
    no_screenshot.screenshot = false;
    let r = c.act_in(Some(&tab_a), click, no_screenshot).unwrap();
    let popup = r.opened_tabs.first().cloned().expect("the popup is named");
    let info = wait_loaded(&c, &popup, "/popup");
    assert_eq!(
        info.browser_context_id.as_deref(),
        Some(a.as_str()),
        "{info:?}"
    );
    assert_eq!(info.opener_tab_id.as_deref(), Some(tab_a.as_str()));
    assert_eq!(
        eval_in(&c, &popup, "document.cookie"),
        json!("session=agent-a")
    );

    // An alert in A's tab is pending with that tab; B's evaluate is not held by it.
    eval_in(&c, &tab_a, "setTimeout(() => alert('in A'), 0); 1");
    let snap = c
        .wait_for(WAIT, "A's alert", |s| !s.pending_dialogs.is_empty())
        .unwrap();
    assert_eq!(snap.pending_dialogs.len(), 1, "{:?}", snap.pending_dialogs);
    assert_eq!(
        snap.pending_dialogs[0].tab_id.as_deref(),
        Some(tab_a.as_str())
    );
    let started = Instant::now();
    assert_eq!(eval_in(&c, &tab_b, "6 * 7"), json!(42));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    // Disposed with its alert open: A's tabs and dialog go, Chromium lists it no more.
    c.dispose_context(&a).unwrap();
    let tabs = c.tabs().unwrap();
    assert!(
        !tabs.iter().any(|t| t.tab_id == tab_a || t.tab_id == popup),
        "{tabs:?}"
    );
    assert!(!tabs
        .iter()
        .any(|t| t.browser_context_id.as_deref() == Some(a.as_str())));
    let snap = c.snapshot().unwrap();
    assert!(
        snap.pending_dialogs.is_empty(),
        "{:?}",
        snap.pending_dialogs
    );
    let listed = c.browser_contexts().unwrap();
    assert!(!listed.contains(&a) && listed.contains(&b), "{listed:?}");
    // B is untouched.
    assert_eq!(eval_in(&c, &tab_b, "document.title"), json!("opener"));
    assert_eq!(eval_in(&c, &tab_b, "document.cookie"), json!(""));
    // A is gone for every call.
    let again = c.dispose_context(&a).unwrap_err();
    assert_eq!(again.code(), "no_such_context", "{again}");
    let open = c.new_tab_in_context("about:blank", Some(&a)).unwrap_err();
    assert_eq!(open.code(), "no_such_context", "{open}");

    c.dispose_context(&b).unwrap();
    assert!(!c.tabs().unwrap().iter().any(|t| t.tab_id == tab_b));
    assert_eq!(c.browser_contexts().unwrap(), before);
}
