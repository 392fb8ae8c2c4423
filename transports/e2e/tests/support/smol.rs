//! Helpers of the smol transport's end-to-end tests (the async twins of the blocking
//! crate's): a real headless Chromium, the demo site on loopback, a recorded client.

pub use super::demo_tree::*;

use std::time::Duration;

use cdp_supervise::demo::DemoSite;
use cdp_supervisor::{ClosedDialog, PageState, PendingDialog, Snapshot};
use cdp_supervisor_smol::{Browser, Client, Options};
use serde_json::{json, Value};

/// Options recording to [`trace_path`] (`smol-` before the name).
pub fn options(test: &str) -> Options {
    Options {
        record: Some(trace_path(&format!("smol-{test}"))),
        ..Options::default()
    }
}

pub struct World {
    pub client: Client,
    pub site: DemoSite,
    pub browser: Browser,
}

pub async fn world(test: &str, options: Options) -> Option<World> {
    let browser = browser_or_skip(test)?;
    let site = DemoSite::start().unwrap();
    let client = Client::connect(browser.ws_url(), options).await.unwrap();
    wait_live(&client).await;
    Some(World {
        client,
        site,
        browser,
    })
}

pub async fn wait_live(client: &Client) -> Snapshot {
    client
        .wait_for(WAIT, "page live", |s| {
            s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
        })
        .await
        .unwrap()
}

/// Waits until the frames whose URLs end with `paths` are OOPIFs whose documents have
/// loaded (after a navigation to their page); their frame ids, in `paths`' order.
pub async fn oopifs_loaded(client: &Client, paths: &[&str]) -> Vec<String> {
    let loaded = |s: &Snapshot| paths.iter().all(|p| find(s, p).is_some_and(|f| f.is_oopif));
    let snap = client.wait_for(WAIT, "the OOPIFs", loaded).await.unwrap();
    let frames: Vec<String> = paths
        .iter()
        .map(|p| find(&snap, p).unwrap().frame_id.clone())
        .collect();
    // Nothing in the snapshot says a document finished loading: poll readyState.
    let end = std::time::Instant::now() + WAIT;
    for f in &frames {
        while eval(client, Some(f), "document.readyState").await != json!("complete") {
            assert!(std::time::Instant::now() < end, "frame {f} never loaded");
            smol::Timer::after(Duration::from_millis(20)).await;
        }
    }
    frames
}

pub async fn open_demo(client: &Client, site: &DemoSite) -> DemoFrames {
    client
        .command(
            None,
            "Page.navigate",
            json!({"url": site.top_url(false)}),
            WAIT,
        )
        .await
        .unwrap();
    let snap = client
        .wait_for(WAIT, "the demo's frames", demo_loaded)
        .await
        .unwrap();
    let frames = demo_frames(&snap);
    // Nothing in the snapshot says a document finished loading: poll readyState.
    let end = std::time::Instant::now() + WAIT;
    for which in ["top", "cross", "nested"] {
        while eval_in(client, &frames, which, "document.readyState").await != json!("complete") {
            assert!(std::time::Instant::now() < end, "{which} never loaded");
            smol::Timer::after(Duration::from_millis(20)).await;
        }
    }
    frames
}

pub async fn eval(client: &Client, frame_id: Option<&str>, expression: &str) -> Value {
    let r = client
        .command(
            frame_id,
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
            WAIT,
        )
        .await
        .unwrap();
    assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
    r["result"]["value"].clone()
}

pub async fn eval_in(client: &Client, frames: &DemoFrames, which: &str, expression: &str) -> Value {
    if which == "srcdoc" {
        let expr = format!("document.getElementById('same').contentWindow.{expression}");
        return eval(client, Some(&frames.top), &expr).await;
    }
    eval(client, Some(&frame_id_of(which, frames)), expression).await
}

pub async fn raise(client: &Client, frames: &DemoFrames, which: &str, kind: &str, message: &str) {
    let v = eval_in(
        client,
        frames,
        which,
        &format!("raise('{kind}', '{message}')"),
    )
    .await;
    assert_eq!(v, json!("scheduled"));
}

pub async fn last_answer(client: &Client, frames: &DemoFrames, which: &str) -> Value {
    let end = std::time::Instant::now() + WAIT;
    loop {
        let v = eval_in(client, frames, which, "last").await;
        if v != json!("pending") {
            return v;
        }
        assert!(
            std::time::Instant::now() < end,
            "{which}: the answer never reached the page"
        );
        smol::Timer::after(Duration::from_millis(20)).await;
    }
}

pub async fn wait_dialog_of(client: &Client, kind: &str) -> PendingDialog {
    let snap = client
        .wait_for(WAIT, &format!("a pending {kind}"), |s| {
            s.pending_dialogs.iter().any(|d| d.kind == kind)
        })
        .await
        .unwrap();
    snap.pending_dialogs
        .iter()
        .find(|d| d.kind == kind)
        .unwrap()
        .clone()
}

pub async fn wait_closed(client: &Client, id: &str) -> ClosedDialog {
    let snap = client
        .wait_for(WAIT, &format!("{id} closed"), |s| {
            s.recent_dialogs.iter().any(|d| d.id == id)
        })
        .await
        .unwrap();
    snap.recent_dialogs
        .iter()
        .find(|d| d.id == id)
        .unwrap()
        .clone()
}
