//! End-to-end: browser contexts over the smol transport (the same API as the blocking
//! client's, `blocking_contexts.rs`): two contexts keep their cookies apart, a popup of one
//! is its tab, an alert in one holds nothing of the other, a disposed one leaves nothing.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::{Evaluation, TabInfo, TabState};
use cdp_supervisor_smol::Client;
use serde_json::json;
use support::smol::*;
use support::tabs_site::TabsSite;

async fn eval_in(client: &Client, tab: &str, expression: &str) -> serde_json::Value {
    client
        .evaluate_in(Some(tab), Evaluation::new(expression))
        .await
        .unwrap_or_else(|e| panic!("{expression} in {tab}: {e}"))
        .value
}

/// Waits until tab `tab_id` is live and its document at `path` loaded (polled, as nothing
/// in the snapshot says so).
async fn wait_loaded(client: &Client, tab_id: &str, path: &str) -> TabInfo {
    let end = Instant::now() + WAIT;
    // The initial empty document is complete too: wait for the page's own.
    let loaded = format!("document.readyState == 'complete' && location.pathname == '{path}'");
    loop {
        let state = client
            .evaluate_in(Some(tab_id), Evaluation::new(&loaded))
            .await;
        if matches!(&state, Ok(v) if v.value == json!(true)) {
            let tabs = client.tabs().await.unwrap();
            let tab = tabs.into_iter().find(|t| t.tab_id == tab_id).unwrap();
            assert_eq!(tab.state, TabState::Live, "{tab:?}");
            return tab;
        }
        assert!(Instant::now() < end, "tab {tab_id} never loaded: {state:?}");
        smol::Timer::after(Duration::from_millis(20)).await;
    }
}

#[test]
fn two_contexts_keep_cookies_tabs_and_dialogs_apart_and_a_disposed_one_leaves_nothing() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-contexts") else {
            return;
        };
        let site = TabsSite::start();
        let c = Client::connect(browser.ws_url(), options("contexts"))
            .await
            .unwrap();
        wait_live(&c).await;
        let before = c.browser_contexts().await.unwrap();
        let a = c.create_context().await.unwrap();
        let b = c.create_context().await.unwrap();
        assert_ne!(a, b);
        let listed = c.browser_contexts().await.unwrap();
        assert!(listed.contains(&a) && listed.contains(&b), "{listed:?}");

        // A logs in (its page sets a cookie); B opens the same site.
        let tab_a = c
            .new_tab_in_context(&site.url("/login"), Some(&a))
            .await
            .unwrap();
        assert_eq!(tab_a.browser_context_id.as_deref(), Some(a.as_str()));
        let tab_b = c
            .new_tab_in_context(&site.url("/"), Some(&b))
            .await
            .unwrap();
        assert_eq!(tab_b.browser_context_id.as_deref(), Some(b.as_str()));
        let (tab_a, tab_b) = (tab_a.tab_id, tab_b.tab_id);
        wait_loaded(&c, &tab_a, "/login").await;
        wait_loaded(&c, &tab_b, "/").await;
        assert_eq!(
            eval_in(&c, &tab_a, "document.cookie").await,
            json!("session=agent-a")
        );
        assert_eq!(
            eval_in(&c, &tab_b, "document.cookie").await,
            json!(""),
            "B sees none of A's cookies"
        );

        // A popup of A's tab is a tab of context A, with A's cookies.
        let (x, y) = TabsSite::OPEN;
        let click = Action::Click {
            target: Target::Point { x, y },
        };
        let mut no_screenshot = ActOptions::default();
        no_screenshot.screenshot = false;
        let r = c.act_in(Some(&tab_a), click, no_screenshot).await.unwrap();
        let popup = r.opened_tabs.first().cloned().expect("the popup is named");
        let info = wait_loaded(&c, &popup, "/popup").await;
        assert_eq!(
            info.browser_context_id.as_deref(),
            Some(a.as_str()),
            "{info:?}"
        );
        assert_eq!(info.opener_tab_id.as_deref(), Some(tab_a.as_str()));
        assert_eq!(
            eval_in(&c, &popup, "document.cookie").await,
            json!("session=agent-a")
        );

        // An alert in A's tab is pending with that tab; B's evaluate is not held by it.
        eval_in(&c, &tab_a, "setTimeout(() => alert('in A'), 0); 1").await;
        let snap = c
            .wait_for(WAIT, "A's alert", |s| !s.pending_dialogs.is_empty())
            .await
            .unwrap();
        assert_eq!(snap.pending_dialogs.len(), 1, "{:?}", snap.pending_dialogs);
        assert_eq!(
            snap.pending_dialogs[0].tab_id.as_deref(),
            Some(tab_a.as_str())
        );
        let started = Instant::now();
        assert_eq!(eval_in(&c, &tab_b, "6 * 7").await, json!(42));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );

        // Disposed with its alert open: A's tabs and dialog go, Chromium lists it no more.
        c.dispose_context(&a).await.unwrap();
        let tabs = c.tabs().await.unwrap();
        assert!(
            !tabs.iter().any(|t| t.tab_id == tab_a || t.tab_id == popup),
            "{tabs:?}"
        );
        assert!(!tabs
            .iter()
            .any(|t| t.browser_context_id.as_deref() == Some(a.as_str())));
        let snap = c.snapshot().await.unwrap();
        assert!(
            snap.pending_dialogs.is_empty(),
            "{:?}",
            snap.pending_dialogs
        );
        let listed = c.browser_contexts().await.unwrap();
        assert!(!listed.contains(&a) && listed.contains(&b), "{listed:?}");
        // B is untouched.
        assert_eq!(eval_in(&c, &tab_b, "document.title").await, json!("opener"));
        assert_eq!(eval_in(&c, &tab_b, "document.cookie").await, json!(""));
        // A is gone for every call.
        let again = c.dispose_context(&a).await.unwrap_err();
        assert_eq!(again.code(), "no_such_context", "{again}");
        let open = c
            .new_tab_in_context("about:blank", Some(&a))
            .await
            .unwrap_err();
        assert_eq!(open.code(), "no_such_context", "{open}");

        c.dispose_context(&b).await.unwrap();
        assert!(!c.tabs().await.unwrap().iter().any(|t| t.tab_id == tab_b));
        assert_eq!(c.browser_contexts().await.unwrap(), before);
        c.stop().await.unwrap();
    });
}
