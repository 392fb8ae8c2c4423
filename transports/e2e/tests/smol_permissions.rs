//! End-to-end: permissions over the smol transport (the same API as the blocking
//! client's): the position is denied without a prompt, and the click that asked for it
//! says so in its console lines.

mod support;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::permissions::PermissionConfig;
use cdp_supervisor_smol::Client;
use serde_json::json;
use support::smol::*;
use support::upload_site::{asked_for, UploadSite};

#[test]
fn a_denied_request_is_answered_at_once_and_named_in_the_clicks_console() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-permissions") else {
            return;
        };
        let mut o = options("permissions");
        o.config.permissions = Some(PermissionConfig::deny_all());
        let site = UploadSite::start();
        let client = Client::connect(browser.ws_url(), o).await.unwrap();
        wait_live(&client).await;
        let ao = ActOptions::default();
        let go = Action::Navigate {
            url: site.url("/permissions"),
        };
        client.act(go, ao).await.unwrap();
        let click = Action::Click {
            target: Target::Point { x: 20.0, y: 20.0 },
        };
        let r = client.act(click, ao).await.unwrap();
        let line = asked_for(&r, "geolocation").unwrap_or_else(|| panic!("{:?}", r.console));
        assert!(line.contains("denied, without a prompt"), "{line}");
        assert_eq!(eval(&client, None, "window.geo").await, json!(1), "denied");
        client.stop().await.unwrap();
    });
}
