//! End-to-end: the accessibility snapshot across every frame, OOPIFs included, against a
//! real headless Chromium (smol transport; the blocking twin is `blocking_ax.rs`).

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::ax::{AxOptions, AxSnapshot};
use cdp_supervisor_smol::Client;
use serde_json::json;
use support::ax_checks::*;
use support::ax_site::AxSite;
use support::smol::*;

async fn ax_until(
    client: &Client,
    options: &AxOptions,
    done: impl Fn(&AxSnapshot) -> bool,
) -> AxSnapshot {
    let end = Instant::now() + WAIT;
    loop {
        let snap = client.ax_snapshot(options.clone()).await.unwrap();
        if done(&snap) {
            return snap;
        }
        assert!(
            Instant::now() < end,
            "never got there; last:\n{}",
            snap.text
        );
        smol::Timer::after(Duration::from_millis(100)).await;
    }
}

async fn go(client: &Client, url: &str) {
    client
        .command(None, "Page.navigate", json!({ "url": url }), WAIT)
        .await
        .unwrap();
}

#[test]
fn four_frames_with_refs_resolvable_stable_and_thirty_five_under_a_budget() {
    smol::block_on(async {
        let Some(w) = world("ax", options("ax")).await else {
            return;
        };
        let site = AxSite::start();
        go(&w.client, &site.url("/")).await;
        let snap = w
            .client
            .wait_for(WAIT, "four frames", demo_loaded)
            .await
            .unwrap();
        let frames = demo_frames(&snap);
        let a = ax_until(&w.client, &AxOptions::default(), all_four).await;
        assert_four_in_place(&a, &frames);
        let link = by_name(&a, "link", "Deep link").unwrap();
        let node = w
            .client
            .command(
                Some(&link.frame_id),
                "DOM.resolveNode",
                resolve_params(link),
                WAIT,
            )
            .await
            .unwrap();
        let text = w
            .client
            .command(
                Some(&link.frame_id),
                "Runtime.callFunctionOn",
                text_content_params(&node),
                WAIT,
            )
            .await
            .unwrap();
        assert_eq!(text["result"]["value"], "Deep link");

        let expression =
            json!({"expression": "document.getElementById('title').textContent = 'Changed'"});
        w.client
            .command(None, "Runtime.evaluate", expression, WAIT)
            .await
            .unwrap();
        let b = ax_until(&w.client, &AxOptions::default(), |s| {
            by_name(s, "heading", "Changed").is_some()
        })
        .await;
        assert_eq!(ids(&a), ids(&b));

        go(&w.client, &site.url("/many?n=35")).await;
        let buttons = |s: &AxSnapshot| s.refs.iter().filter(|r| r.role == "button").count();
        ax_until(&w.client, &AxOptions::default(), |s| buttons(s) == 35).await;
        let mut ten = AxOptions::default();
        ten.max_frames = 10;
        let some = w.client.ax_snapshot(ten).await.unwrap();
        let over = some
            .frames_left_out
            .iter()
            .filter(|f| f.reason.contains("frame budget of 10"))
            .count();
        assert_eq!((buttons(&some), over), (9, 26));
        w.client.stop().await.unwrap();
    });
}
