//! End-to-end: each tab's network requests, against a real headless Chromium (blocking
//! transport): a failing request and a cross-site iframe's requests listed, each with its
//! frame; one request's headers and body read back; a key and a credential redacted.

mod support;

use cdp_supervisor::network::{BodyPart, NetworkRequest, RequestState};
use cdp_supervisor_blocking::Client;
use support::blocking::*;
use support::network_site::{NetworkSite, SECRET_AUTH, SECRET_KEY};

/// The requests once every path is listed and ended.
fn until_ended(client: &Client, paths: &[&str]) -> Vec<NetworkRequest> {
    let end = std::time::Instant::now() + WAIT;
    loop {
        let all = client.network_requests_in(None, 0).unwrap();
        let ended = |p: &&str| {
            all.iter()
                .any(|r| r.url.contains(*p) && r.state != RequestState::Pending)
        };
        if paths.iter().all(ended) {
            return all;
        }
        assert!(
            std::time::Instant::now() < end,
            "{paths:?} never all ended: {all:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn find<'a>(all: &'a [NetworkRequest], path: &str) -> &'a NetworkRequest {
    all.iter()
        .find(|r| r.url.contains(path))
        .unwrap_or_else(|| panic!("{path} not listed: {all:#?}"))
}

#[test]
fn a_404_and_a_cross_site_iframes_requests_are_listed_each_with_its_frame() {
    let Some(browser) = browser_or_skip("network-requests") else {
        return;
    };
    let site = NetworkSite::start();
    let client = Client::connect(browser.ws_url(), options("network-requests")).unwrap();
    wait_live(&client);
    let snap = navigate(&client, &site.url("/"), |s| {
        s.frame_tree.children.iter().any(|f| f.is_oopif)
    });
    let top = snap.page.as_ref().unwrap().target_id.clone();
    let oopif = snap
        .frame_tree
        .children
        .iter()
        .find(|f| f.is_oopif)
        .unwrap();
    let all = until_ended(&client, &["/missing", "/api", "/frame-data"]);

    let missing = find(&all, "/missing");
    assert_eq!(missing.status, Some(404), "{missing:?}");
    assert_eq!(missing.state, RequestState::Finished);
    assert_eq!(missing.frame_id.as_deref(), Some(top.as_str()));
    assert_eq!(missing.resource_type, "Fetch");
    let frame_data = find(&all, "/frame-data");
    assert_eq!(frame_data.status, Some(200));
    assert_eq!(
        frame_data.frame_id.as_deref(),
        Some(oopif.frame_id.as_str()),
        "the OOPIF's request names the OOPIF's frame"
    );
    assert_eq!(frame_data.session_id, oopif.session_id.clone().unwrap());
    let document = find(&all, "/frame");
    assert_eq!(document.frame_id.as_deref(), Some(oopif.frame_id.as_str()));
    assert!(all.windows(2).all(|w| w[0].index < w[1].index));

    // Redacted: the key in the list, the header in the detail.
    let api = find(&all, "/api");
    assert_eq!(api.url, site.url("/api?key=<redacted>"));
    let detail = client.network_request_in(None, api.index).unwrap();
    let auth = detail
        .request_headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("authorization"))
        .expect("the Authorization header is listed");
    assert_eq!(auth.value, "<redacted>");
    let shown = serde_json::to_string(&(&all, &detail)).unwrap();
    assert!(
        !shown.contains(SECRET_KEY) && !shown.contains("TOKEN456"),
        "{shown}"
    );
    assert!(!SECRET_AUTH.is_empty());

    // Bodies, each read on the session that saw it.
    let body = client
        .network_body_in(None, api.index, BodyPart::Response)
        .unwrap()
        .unwrap();
    assert_eq!(
        (body.text.as_str(), body.truncated),
        (r#"{"answer":42}"#, false)
    );
    let body = client
        .network_body_in(None, frame_data.index, BodyPart::Response)
        .unwrap()
        .unwrap();
    assert_eq!(body.text, "data of the frame");

    // Since the last index: nothing new; an index the ring does not hold is named.
    let last = all.last().unwrap().index;
    assert!(client
        .network_requests_in(None, last)
        .unwrap()
        .iter()
        .all(|r| r.index > last));
    let e = client.network_request_in(None, last + 1000).unwrap_err();
    assert_eq!(e.code(), "no_such_request", "{e}");
    assert!(e.to_string().contains(&format!("{}", last + 1000)));
    client.stop().unwrap();
}
