//! End-to-end: HTTP sign-in against a real headless Chromium, over the blocking transport.
//! With the right credentials for its origin the page loads; with wrong ones the
//! supervisor says so within a second; with prompting on, the challenge is a pending
//! `http_auth` dialog and signing in loads the page. The password is in no trace.

mod support;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use cdp_supervisor::http_auth::{Credentials, HttpAuthConfig};
use cdp_supervisor::{Event, Warning};
use cdp_supervisor_blocking::{Client, ClientEvent, CommandUpdate, Options};
use serde_json::json;
use support::auth_site::{AuthSite, PASSWORD};
use support::blocking::*;

fn with_auth(test: &str, credentials: &[String], prompt: bool) -> Options {
    let mut o = options(test);
    let mut auth = HttpAuthConfig::default();
    for c in credentials {
        auth.credentials.push(Credentials::parse(c).unwrap());
    }
    auth.prompt = prompt;
    o.config.http_auth = Some(auth);
    o
}

fn title_becomes(client: &Client, want: &str) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if eval(client, None, "document.title") == json!(want) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn sign_in_with_credentials_wrong_ones_and_a_pending_challenge() {
    let Some(browser) = browser_or_skip("http-auth") else {
        return;
    };
    let site = AuthSite::start();
    let mut traces = Vec::new();

    // The right credentials for 127.0.0.1: the page loads.
    let origin = site.url("127.0.0.1", "");
    let o = with_auth(
        "http-auth-right",
        &[format!("{origin}=user:{PASSWORD}")],
        false,
    );
    traces.push(o.record.clone().unwrap());
    let client = Client::connect(browser.ws_url(), o).unwrap();
    wait_live(&client);
    client
        .start_command(
            None,
            "Page.navigate",
            json!({"url": site.url("127.0.0.1", "/secret")}),
            WAIT,
        )
        .unwrap();
    assert!(title_becomes(&client, "inside"));
    client.stop().unwrap();

    // Wrong ones for localhost: reported within a second, the request canceled.
    let other = site.url("localhost", "");
    let o = with_auth(
        "http-auth-wrong",
        &[format!("{other}=user:wrong-{PASSWORD}")],
        false,
    );
    traces.push(o.record.clone().unwrap());
    let (tx, rx) = mpsc::channel();
    let client = Client::connect_with_events(browser.ws_url(), o, tx).unwrap();
    wait_live(&client);
    let t0 = Instant::now();
    client
        .start_command(
            None,
            "Page.navigate",
            json!({"url": site.url("localhost", "/secret")}),
            WAIT,
        )
        .unwrap();
    let rejected = loop {
        let left = Duration::from_secs(5).saturating_sub(t0.elapsed());
        match rx.recv_timeout(left) {
            Ok(ClientEvent::Event(Event::Warning(w @ Warning::HttpAuthRejected { .. }))) => {
                break w
            }
            Ok(_) => continue,
            Err(e) => panic!("no rejection reported: {e}"),
        }
    };
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert!(rejected.to_string().contains(&other), "{rejected}");
    assert!(!rejected.to_string().contains(PASSWORD));
    client.stop().unwrap();

    // Prompting: the challenge is pending; signing in loads the page.
    let o = with_auth("http-auth-prompt", &[], true);
    traces.push(o.record.clone().unwrap());
    let client = Client::connect(browser.ws_url(), o).unwrap();
    wait_live(&client);
    client
        .start_command(
            None,
            "Page.navigate",
            json!({"url": site.url("localhost", "/secret")}),
            WAIT,
        )
        .unwrap();
    let d = wait_dialog_of(&client, "http_auth");
    let auth = d.auth.clone().unwrap();
    assert_eq!(
        (
            auth.origin.as_str(),
            auth.realm.as_str(),
            auth.scheme.as_str()
        ),
        (other.as_str(), "e2e", "basic")
    );
    // A document's challenge holds its session: a command sent now is reported blocked
    // by it at once, and answered once the challenge is.
    let pending = client
        .start_command(
            None,
            "Runtime.evaluate",
            json!({"expression": "1 + 1"}),
            WAIT,
        )
        .unwrap();
    match pending.next_update(Duration::from_secs(2)).unwrap() {
        CommandUpdate::Blocked { dialog_id } => assert_eq!(dialog_id, d.id),
        other => panic!("expected blocked, got {other:?}"),
    }
    let closed = client.sign_in("user", PASSWORD, Some(&d.id)).unwrap();
    assert!(closed.accepted, "{closed:?}");
    assert!(title_becomes(&client, "inside"));
    let snapshot = serde_json::to_string(&client.snapshot().unwrap()).unwrap();
    assert!(!snapshot.contains(PASSWORD));
    client.stop().unwrap();

    for trace in traces {
        let text = std::fs::read_to_string(&trace).unwrap();
        assert!(
            !text.contains(PASSWORD),
            "{} holds the password",
            trace.display()
        );
        assert!(!text.is_empty());
    }
}
