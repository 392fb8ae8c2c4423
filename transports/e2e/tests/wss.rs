//! `wss://` endpoints (hosted browsers) and `https://` DevTools addresses, through both
//! transports: each client connects through a TLS relay in front of a real Chromium,
//! trusting a throwaway CA named in `SSL_CERT_FILE`, and is refused with a plain error when
//! the file holds another CA.
//! One test, so the process-wide variable is set by nothing else while it runs.

mod support;

use support::demo_tree::browser_or_skip;
use support::tls_relay::{tls_tools_for_test, TlsRelay};

fn assert_untrusted(error: String) {
    assert!(
        error.contains("not trusted") && error.contains("SSL_CERT_FILE"),
        "{error}"
    );
}

#[test]
fn wss_through_a_tls_relay_with_a_ca_from_ssl_cert_file() {
    let Some(browser) = browser_or_skip("wss") else {
        return;
    };
    if !tls_tools_for_test("wss") {
        return;
    }
    let relay = TlsRelay::start_with_ca(browser.port());
    let path = browser.ws_url().split_once("/devtools/").unwrap().1;
    let url = format!("wss://127.0.0.1:{}/devtools/{path}", relay.port());
    // The DevTools address behind the same TLS front: /json/version is asked over TLS.
    let https = format!("https://127.0.0.1:{}", relay.port());

    // A CA file that does not vouch for the relay: refused, saying what to do.
    std::env::set_var("SSL_CERT_FILE", relay.other_ca_path());
    match cdp_supervisor_blocking::Client::connect(&url, support::blocking::options("wss-refused"))
    {
        Err(e) => assert_untrusted(e.to_string()),
        Ok(_) => panic!("blocking: a certificate of an unknown CA was accepted"),
    }
    smol::block_on(async {
        match cdp_supervisor_smol::Client::connect(&url, support::smol::options("wss-refused"))
            .await
        {
            Err(e) => assert_untrusted(e.to_string()),
            Ok(_) => panic!("smol: a certificate of an unknown CA was accepted"),
        }
    });
    match cdp_supervisor_blocking::Client::connect(
        &https,
        support::blocking::options("https-refused"),
    ) {
        Err(e) => assert_untrusted(e.to_string()),
        Ok(_) => panic!("https: a certificate of an unknown CA was accepted"),
    }

    // The CA that signed it: the tab is supervised over TLS as over ws://.
    std::env::set_var("SSL_CERT_FILE", relay.ca_path());
    supervised_through_both_transports(&url);
    // An https:// DevTools address: looked up over TLS, then the WebSocket over TLS too.
    assert_eq!(cdp_supervisor_chromium::resolve(&https).unwrap(), url);
    supervised_through_both_transports(&https);
}

/// Each transport connects to `endpoint`, sees the page live and evaluates in it.
fn supervised_through_both_transports(endpoint: &str) {
    let client =
        cdp_supervisor_blocking::Client::connect(endpoint, support::blocking::options("tls"))
            .unwrap_or_else(|e| panic!("blocking: connect to {endpoint}: {e}"));
    support::blocking::wait_live(&client);
    assert_eq!(support::blocking::eval(&client, None, "6 * 7"), 42);
    client.stop().unwrap();
    drop(client);
    smol::block_on(async {
        let client = cdp_supervisor_smol::Client::connect(endpoint, support::smol::options("tls"))
            .await
            .unwrap_or_else(|e| panic!("smol: connect to {endpoint}: {e}"));
        support::smol::wait_live(&client).await;
        assert_eq!(support::smol::eval(&client, None, "6 * 7").await, 42);
        client.stop().await.unwrap();
    });
}
