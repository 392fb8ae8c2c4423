//! End-to-end: the dialog bridge through the smol transport, behind the
//! blocking crate's proxy that closes every native dialog (see its `e2e_bridge.rs` for
//! the full set).

use support::bridge_site;
mod support;
use support::dialog_proxy;

use std::time::{Duration, Instant};

use bridge_site::BridgeSite;
use cdp_supervisor::{ClosedBy, DialogAction};
use cdp_supervisor_smol::Client;
use dialog_proxy::DialogProxy;
use serde_json::{json, Value};
use support::smol::*;

/// Evaluates `expression` with `w` bound to the window of OOPIF `frame`.
async fn in_frame(client: &Client, frame: &str, expression: &str) -> Value {
    eval(
        client,
        Some(frame),
        &format!("((w) => {expression})(window)"),
    )
    .await
}

/// The dialog bridge through smol: the transport gives the bridge its token; a bridge `prompt` in
/// an OOPIF and a bridge `confirm` in the OOPIF nested in it are pending until answered,
/// the page gets the answers, and the proxy has no native dialog to close.
#[test]
fn bridge_dialogs_in_oopifs_behind_a_dialog_closing_proxy() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("bridge") else {
            return;
        };
        let site = BridgeSite::start();
        let proxy = DialogProxy::start(browser.ws_url());
        let mut opts = options("bridge");
        opts.config.bridge = Some(cdp_supervisor::BridgeConfig::default());
        let client = Client::connect(&proxy.ws_url(), opts).await.unwrap();
        wait_live(&client).await;
        client
            .command(None, "Page.navigate", json!({"url": site.url("/")}), WAIT)
            .await
            .unwrap();
        let snap = client
            .wait_for(WAIT, "the site's frames", demo_loaded)
            .await
            .unwrap();
        let frames = demo_frames(&snap);
        let end = Instant::now() + WAIT;
        for frame in [&frames.cross, &frames.nested] {
            while in_frame(&client, frame, "typeof w.ask").await != json!("function") {
                assert!(Instant::now() < end, "{frame} never ran its script");
                // No event says a document ran its scripts; poll briefly.
                smol::Timer::after(Duration::from_millis(20)).await;
            }
        }
        let cases = [
            (
                &frames.cross,
                "prompt",
                DialogAction::Accept,
                Some("hello"),
                json!("hello"),
            ),
            (
                &frames.nested,
                "confirm",
                DialogAction::Dismiss,
                None,
                json!(false),
            ),
        ];
        for (frame, kind, action, text, value) in cases {
            let message = format!("{kind} via smol");
            let call = format!("w.ask({}, {}, 'd')", json!(kind), json!(message));
            assert_eq!(in_frame(&client, frame, &call).await, json!("scheduled"));
            let dialog = wait_dialog_of(&client, kind).await;
            assert_eq!(&dialog.frame_id, frame);
            let closed = client
                .respond_dialog(action, text, Some(&dialog.id))
                .await
                .unwrap();
            assert_eq!(closed.closed_by, ClosedBy::Agent);
            let end = Instant::now() + WAIT;
            let result = loop {
                let r = in_frame(&client, frame, "w.__results[0] || null").await;
                if !r.is_null() {
                    break r;
                }
                assert!(Instant::now() < end, "the answer never reached the page");
                smol::Timer::after(Duration::from_millis(20)).await;
            };
            assert_eq!(result["value"], value, "{message}");
        }
        assert!(proxy.closed().is_empty(), "no native dialog opened");
        client.stop().await.unwrap();
    });
}
