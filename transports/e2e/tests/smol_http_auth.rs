//! End-to-end: HTTP sign-in over the smol transport (the same API as the blocking
//! client's): with wrong credentials for the origin the supervisor says so within a
//! second; with prompting on, the challenge is a pending `http_auth` dialog that ends the
//! navigation at once, and signing in loads the page. The password is in no trace.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action};
use cdp_supervisor::http_auth::{Credentials, HttpAuthConfig};
use cdp_supervisor::{Event, Warning};
use cdp_supervisor_smol::{Client, ClientEvent, Options};
use serde_json::json;
use support::auth_site::{AuthSite, PASSWORD};
use support::smol::*;

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

async fn navigate(client: &Client, url: &str) {
    client
        .start_command(None, "Page.navigate", json!({ "url": url }), WAIT)
        .await
        .unwrap();
}

#[test]
fn wrong_credentials_are_reported_and_a_pending_challenge_is_answered() {
    smol::block_on(async {
        let Some(browser) = browser_or_skip("smol-http-auth") else {
            return;
        };
        let site = AuthSite::start();
        let mut traces = Vec::new();

        let other = site.url("localhost", "");
        let o = with_auth(
            "http-auth-wrong",
            &[format!("{other}=user:wrong-{PASSWORD}")],
            false,
        );
        traces.push(o.record.clone().unwrap());
        let (tx, rx) = smol::channel::unbounded();
        let client = Client::connect_with_events(browser.ws_url(), o, tx)
            .await
            .unwrap();
        wait_live(&client).await;
        let t0 = Instant::now();
        navigate(&client, &site.url("localhost", "/secret")).await;
        let rejected = loop {
            let next = smol::future::or(async { rx.recv().await.ok() }, async {
                smol::Timer::after(Duration::from_secs(5)).await;
                None
            });
            match next.await {
                Some(ClientEvent::Event(Event::Warning(w @ Warning::HttpAuthRejected { .. }))) => {
                    break w
                }
                Some(_) => continue,
                None => panic!("no rejection reported"),
            }
        };
        assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
        assert!(rejected.to_string().contains(&other), "{rejected}");
        assert!(!rejected.to_string().contains(PASSWORD));
        client.stop().await.unwrap();

        let o = with_auth("http-auth-prompt", &[], true);
        traces.push(o.record.clone().unwrap());
        let client = Client::connect(browser.ws_url(), o).await.unwrap();
        wait_live(&client).await;
        // A document's challenge ends the navigation at once, naming it.
        let t0 = Instant::now();
        let go = Action::Navigate {
            url: site.url("localhost", "/secret"),
        };
        let r = client.act(go, ActOptions::default()).await.unwrap();
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        let d = wait_dialog_of(&client, "http_auth").await;
        assert_eq!(r.ended_by_dialog.as_deref(), Some(d.id.as_str()), "{r:?}");
        assert_eq!(
            d.auth.as_ref().map(|a| a.origin.as_str()),
            Some(other.as_str())
        );
        let closed = client.sign_in("user", PASSWORD, Some(&d.id)).await.unwrap();
        assert!(closed.accepted, "{closed:?}");
        let end = Instant::now() + Duration::from_secs(10);
        while eval(&client, None, "document.title").await != json!("inside") {
            assert!(
                Instant::now() < end,
                "the page never loaded after the sign-in"
            );
            smol::Timer::after(Duration::from_millis(50)).await;
        }
        client.stop().await.unwrap();
        for trace in traces {
            let text = std::fs::read_to_string(&trace).unwrap();
            assert!(
                !text.is_empty() && !text.contains(PASSWORD),
                "{}",
                trace.display()
            );
        }
    });
}
