//! End-to-end: permissions never prompt, against a real headless Chromium. Denied by
//! default: `getCurrentPosition` fails at once with PERMISSION_DENIED and the Permissions
//! API says `denied`; granted with `geolocation` in the list, it says `granted`. What the
//! page asked for is in the console lines of the click that made it ask.

mod support;

use cdp_supervisor::act::{ActOptions, ActResult, Action, Target};
use cdp_supervisor::permissions::PermissionConfig;
use cdp_supervisor_blocking::Client;
use serde_json::{json, Value};
use support::blocking::*;
use support::upload_site::{asked_for, UploadSite};

const ASK: &str =
    "new Promise(done => navigator.permissions.query({name: 'geolocation'}).then(s => \
    navigator.geolocation.getCurrentPosition(() => done([s.state, 'position']), \
      e => done([s.state, e.code]), {timeout: 2000})))";

fn ask(client: &Client) -> Value {
    let r = client
        .command(
            None,
            "Runtime.evaluate",
            json!({"expression": ASK, "awaitPromise": true, "returnByValue": true}),
            WAIT,
        )
        .unwrap();
    r["result"]["value"].clone()
}

#[test]
fn geolocation_is_denied_without_a_prompt_and_granted_when_listed() {
    let test = "permissions";
    let Some(browser) = browser_or_skip(test) else {
        return;
    };
    let site = cdp_supervise::demo::DemoSite::start().unwrap();
    for (granted, expected) in [
        (vec![], json!(["denied", 1])),
        (vec!["geolocation"], json!("granted")),
    ] {
        let mut options = options(test);
        options.config.permissions = Some(PermissionConfig::grant(granted.clone()));
        let client = Client::connect(browser.ws_url(), options).unwrap();
        wait_live(&client);
        navigate(&client, &site.top_url(false), |s| {
            s.frame_tree
                .top
                .as_ref()
                .is_some_and(|t| t.url.starts_with("http"))
        });
        let t0 = std::time::Instant::now();
        let answer = ask(&client);
        if granted.is_empty() {
            assert_eq!(answer, expected);
            assert!(t0.elapsed().as_secs() < 2, "denied at once, never prompted");
        } else {
            // Granted: no position source in headless, but never PERMISSION_DENIED.
            assert_eq!(answer[0], expected, "{answer}");
            assert_ne!(answer[1], json!(1), "{answer}");
        }
        client.stop().unwrap();
    }
}

fn click(client: &Client, y: f64) -> ActResult {
    let click = Action::Click {
        target: Target::Point { x: 20.0, y },
    };
    client.act(click, ActOptions::default()).unwrap()
}

#[test]
fn what_the_page_asked_for_is_in_the_clicks_console_lines() {
    let test = "permission-requests";
    let Some(browser) = browser_or_skip(test) else {
        return;
    };
    let site = UploadSite::start();
    for granted in [vec![], vec!["geolocation"]] {
        let mut options = options(test);
        options.config.permissions = Some(PermissionConfig::grant(granted.clone()));
        let client = Client::connect(browser.ws_url(), options).unwrap();
        wait_live(&client);
        let go = Action::Navigate {
            url: site.url("/permissions"),
        };
        client.act(go, ActOptions::default()).unwrap();
        let r = click(&client, 20.0);
        let line = asked_for(&r, "geolocation").unwrap_or_else(|| panic!("{:?}", r.console));
        if granted.is_empty() {
            assert!(line.starts_with("warning: "), "{line}");
            assert!(line.contains("denied, without a prompt"), "{line}");
            assert_eq!(
                eval(&client, None, "window.geo"),
                json!(1),
                "the page denied"
            );
            let r = click(&client, 70.0);
            let line = asked_for(&r, "notifications").unwrap_or_else(|| panic!("{:?}", r.console));
            assert!(line.contains("denied, without a prompt"), "{line}");
            assert_eq!(eval(&client, None, "window.notif"), json!("denied"));
        } else {
            assert!(line.ends_with(": granted"), "{line}");
        }
        client.stop().unwrap();
    }
}
