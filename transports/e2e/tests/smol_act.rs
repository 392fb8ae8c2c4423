//! End-to-end: agent actions over the smol transport (the same API as the blocking
//! client's): a click on a link, an alert ending a click, the next action after it.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor_smol::{Client, DialogAction};
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
