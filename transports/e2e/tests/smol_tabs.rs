//! End-to-end: tabs over the smol transport (the same API as the blocking client's): a
//! `window.open` popup is listed, current and usable; another tab opened by the client is
//! selected away from and back; closing the popup makes the opener current again.

mod support;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::ax::AxOptions;
use cdp_supervisor::{Evaluation, TabState};
use cdp_supervisor_smol::Client;
use serde_json::json;
use support::smol::*;
use support::tabs_site::TabsSite;

#[test]
fn a_popup_is_listed_current_usable_and_closed_back_to_its_opener() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-tabs") else {
            return;
        };
        let site = TabsSite::start();
        let c = Client::connect(browser.ws_url(), options("smol-tabs"))
            .await
            .unwrap();
        wait_live(&c).await;
        let o = ActOptions::default();
        c.act(Action::Navigate { url: site.url("/") }, o)
            .await
            .unwrap();
        let opener = c.tabs().await.unwrap()[0].tab_id.clone();
        let (x, y) = TabsSite::OPEN;
        let click = Action::Click {
            target: Target::Point { x, y },
        };
        let r = c.act(click, o).await.unwrap();
        let popup = r.opened_tabs.first().cloned().expect("the popup is named");
        c.wait_for(WAIT, "the popup live", |s| {
            s.tabs.iter().any(|t| {
                t.tab_id == popup
                    && t.current
                    && t.state == TabState::Live
                    && t.url.contains("/popup")
            })
        })
        .await
        .unwrap();
        // Nothing in the snapshot says the document loaded: poll (its first context may
        // not be known yet either).
        let end = std::time::Instant::now() + WAIT;
        loop {
            let state = c.evaluate(Evaluation::new("document.readyState")).await;
            if matches!(&state, Ok(v) if v.value == json!("complete")) {
                break;
            }
            assert!(std::time::Instant::now() < end, "never loaded: {state:?}");
            smol::Timer::after(std::time::Duration::from_millis(20)).await;
        }
        let title = c.evaluate(Evaluation::new("document.title")).await.unwrap();
        assert_eq!(title.value, json!("popup"));
        let ax = c.ax_snapshot(AxOptions::default()).await.unwrap();
        assert!(ax.text.contains("button \"hit\""), "{}", ax.text);
        let opener_title = c
            .evaluate_in(Some(&opener), Evaluation::new("document.title"))
            .await
            .unwrap();
        assert_eq!(opener_title.value, json!("opener"));

        // A tab of the client's own, then back to the popup by selecting it.
        let other = c.new_tab("about:blank").await.unwrap();
        assert!(other.current && other.opener_tab_id.is_none(), "{other:?}");
        let selected = c.select_tab(&popup).await.unwrap();
        assert!(selected.current, "{selected:?}");
        c.close_tab(Some(&other.tab_id), true).await.unwrap();

        let closed = c.close_tab(None, false).await.unwrap();
        assert!(closed.closed && closed.tab_id == popup, "{closed:?}");
        let tabs = c.tabs().await.unwrap();
        assert_eq!(tabs.len(), 1, "{tabs:?}");
        assert!(tabs[0].current && tabs[0].tab_id == opener);
        let title = c.evaluate(Evaluation::new("document.title")).await.unwrap();
        assert_eq!(title.value, json!("opener"));
        c.stop().await.unwrap();
    });
}
