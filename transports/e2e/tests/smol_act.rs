//! End-to-end: agent actions over the smol transport (the same API as the blocking
//! client's): a click on a link, an alert ending a click, the next action after it.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor_smol::{Client, DialogAction};
use serde_json::json;
use support::act_site::{webp_size, ActSite};
use support::smol::*;

#[test]
fn click_link_then_alert_then_the_next_action() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-act") else {
            return;
        };
        let site = ActSite::start();
        let client = Client::connect(browser.ws_url(), options("smol-act"))
            .await
            .unwrap();
        wait_live(&client).await;
        let o = ActOptions::default();
        let r = client
            .act(Action::Navigate { url: site.url("/") }, o)
            .await
            .unwrap();
        assert!(r.navigated && r.settled, "{r:?}");
        let t0 = Instant::now();
        let click = |x, y| Action::Click {
            target: Target::Point { x, y },
        };
        let r = client.act(click(60.0, 70.0), o).await.unwrap();
        assert!(t0.elapsed() < Duration::from_secs(1));
        let d = r.ended_by_dialog.expect("the alert ended it");
        assert!(r.screenshot.is_none());
        client
            .respond_dialog(DialogAction::Accept, None, Some(&d))
            .await
            .unwrap();
        let r = client.act(click(50.0, 20.0), o).await.unwrap();
        assert!(r.navigated && r.url.ends_with("/second"), "{r:?}");
        let shot = r.screenshot.expect("a screenshot");
        assert!(webp_size(&shot.data).is_some());
        client.stop().await.unwrap();
    });
}

/// The `backendNodeId` of `selector` in `frame`, by a raw DOM query through the routed
/// command.
async fn node(client: &Client, frame: &str, selector: &str) -> Target {
    let f = Some(frame);
    let doc = client
        .command(f, "DOM.getDocument", json!({}), WAIT)
        .await
        .unwrap();
    let q = json!({"nodeId": doc["root"]["nodeId"], "selector": selector});
    let q = client
        .command(f, "DOM.querySelector", q, WAIT)
        .await
        .unwrap();
    let d = json!({"nodeId": q["nodeId"]});
    let d = client
        .command(f, "DOM.describeNode", d, WAIT)
        .await
        .unwrap();
    Target::Node {
        frame_id: frame.to_owned(),
        backend_node_id: d["node"]["backendNodeId"].as_i64().unwrap(),
    }
}

async fn eval_value(client: &Client, frame: &str, expression: &str) -> serde_json::Value {
    let p = json!({"expression": expression, "returnByValue": true});
    let r = client
        .command(Some(frame), "Runtime.evaluate", p, WAIT)
        .await
        .unwrap();
    r["result"]["value"].clone()
}

/// A click inside the nested OOPIF runs its handler and brings back its console lines;
/// typing into the cross OOPIF's input; `navigate` through a pending confirm of an OOPIF.
#[test]
fn oopif_click_type_and_navigate_through_a_confirm() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-act-oopif") else {
            return;
        };
        let site = ActSite::start();
        let client = Client::connect(browser.ws_url(), options("smol-act-oopif"))
            .await
            .unwrap();
        wait_live(&client).await;
        let o = ActOptions::default();
        client
            .act(Action::Navigate { url: site.url("/") }, o)
            .await
            .unwrap();
        let snap = client
            .wait_for(WAIT, "both OOPIFs", |s| {
                find(s, "/nested").is_some_and(|f| f.is_oopif)
                    && find(s, "/cross").is_some_and(|f| f.is_oopif)
            })
            .await
            .unwrap();
        let cross = find(&snap, "/cross").unwrap().frame_id.clone();
        let nested = find(&snap, "/nested").unwrap().frame_id.clone();
        for f in [&cross, &nested] {
            let end = Instant::now() + WAIT;
            while eval_value(&client, f, "document.readyState").await != json!("complete") {
                assert!(Instant::now() < end);
                smol::Timer::after(Duration::from_millis(20)).await;
            }
        }
        let target = node(&client, &nested, "#nbtn").await;
        let r = client.act(Action::Click { target }, o).await.unwrap();
        assert_eq!(
            eval_value(&client, &nested, "window.clicked").await,
            json!(1)
        );
        let lines: Vec<_> = r
            .console
            .iter()
            .map(|l| (l.level.as_str(), l.text.as_str()))
            .collect();
        assert_eq!(
            lines,
            vec![("log", "nested log"), ("error", "nested error")]
        );
        let target = node(&client, &cross, "#inp").await;
        let r = client
            .act(Action::typing("abc", Some(target)).unwrap(), o)
            .await
            .unwrap();
        assert!(r.console.is_empty(), "{r:?}");
        let value = eval_value(&client, &cross, "document.getElementById('inp').value").await;
        assert_eq!(value, json!("abc"));
        assert_eq!(
            eval_value(&client, &cross, "raise('confirm', 'sure?')").await,
            json!("scheduled")
        );
        client
            .wait_for(WAIT, "the confirm", |s| !s.pending_dialogs.is_empty())
            .await
            .unwrap();
        let r = client
            .act(
                Action::Navigate {
                    url: site.url("/second"),
                },
                o,
            )
            .await
            .unwrap();
        assert!(r.navigated && r.pending_dialogs.is_empty(), "{r:?}");
        let r = client.act(Action::Reload, o).await.unwrap();
        assert!(r.pending_dialogs.is_empty() && r.settled, "{r:?}");
        client.stop().await.unwrap();
    });
}
