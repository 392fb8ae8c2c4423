//! The ring's rules, fed parsed events as Chromium sends them.

use super::events::{deserialize, NetworkEvent};
use super::*;

fn feed(log: &mut NetworkLog, now: f64, session: &str, method: &str, params: &str) {
    let mut de = serde_json::Deserializer::from_str(params);
    let parsed = deserialize(method, &mut de);
    if let Ok(Some(mut ev)) = parsed {
        log.on_event(now, session, &mut ev);
    }
}

fn sent(log: &mut NetworkLog, session: &str, id: &str, url: &str, frame: &str) {
    let p = format!(
        r#"{{"requestId":"{id}","loaderId":"L","documentURL":"{url}","request":{{"url":"{url}","method":"GET","headers":{{"Accept":"*/*"}},"initialPriority":"High"}},"timestamp":1.0,"wallTime":2.0,"initiator":{{"type":"parser","url":"http://127.0.0.1/"}},"type":"Fetch","frameId":"{frame}"}}"#
    );
    feed(log, 1.0, session, "Network.requestWillBeSent", &p);
}

fn response(log: &mut NetworkLog, session: &str, id: &str, status: u16) {
    let p = format!(
        r#"{{"requestId":"{id}","loaderId":"L","timestamp":1.1,"type":"Fetch","response":{{"url":"u","status":{status},"statusText":"X","headers":{{"Set-Cookie":"sid=SECRET","Content-Type":"text/plain"}},"mimeType":"text/plain","connectionReused":false,"connectionId":1,"encodedDataLength":100,"securityState":"neutral"}},"frameId":"F"}}"#
    );
    feed(log, 1.1, session, "Network.responseReceived", &p);
}

fn finished(log: &mut NetworkLog, session: &str, id: &str) {
    let p = format!(r#"{{"requestId":"{id}","timestamp":1.2,"encodedDataLength":321}}"#);
    feed(log, 1.2, session, "Network.loadingFinished", &p);
}

#[test]
fn a_request_goes_from_sent_to_finished() {
    let mut log = NetworkLog::default();
    sent(&mut log, "S", "1", "http://127.0.0.1/a", "F");
    response(&mut log, "S", "1", 200);
    finished(&mut log, "S", "1");
    let all = log.since(0);
    assert_eq!(all.len(), 1);
    let r = &all[0];
    assert_eq!(
        (r.index, r.state, r.status),
        (1, RequestState::Finished, Some(200))
    );
    assert_eq!(r.encoded_data_length, Some(321));
    assert_eq!(r.frame_id.as_deref(), Some("F"));
    assert_eq!(r.initiator_type.as_deref(), Some("parser"));
    assert_eq!((r.started_at, r.finished_at), (1.0, Some(1.2)));
    assert_eq!(log.len(), (1, 0));
}

#[test]
fn the_ring_keeps_the_last_requests_and_forgets_their_flight() {
    let mut log = NetworkLog::default();
    for i in 0..(MAX_NETWORK_REQUESTS + 50) {
        sent(&mut log, "S", &i.to_string(), "http://h/x", "F");
    }
    let (kept, in_flight) = log.len();
    assert_eq!(kept, MAX_NETWORK_REQUESTS);
    assert_eq!(
        in_flight, MAX_NETWORK_REQUESTS,
        "evicted entries leave the in-flight map"
    );
    let all = log.since(0);
    assert_eq!(all.first().map(|r| r.index), Some(51));
    assert_eq!(all.last().map(|r| r.index), Some(250));
    // An evicted request finishing is ignored; a kept one is found.
    finished(&mut log, "S", "0");
    finished(&mut log, "S", "249");
    assert_eq!(
        log.detail(250).map(|d| d.request.state),
        Some(RequestState::Finished)
    );
    assert!(log.detail(50).is_none());
    // Since the last call.
    assert_eq!(log.since(248).len(), 2);
    assert!(log.since(250).is_empty());
    assert!(log.since(u64::MAX).is_empty());
}

#[test]
fn secrets_never_reach_the_ring() {
    let mut log = NetworkLog::default();
    let p = r#"{"requestId":"1","request":{"url":"http://u:pw@127.0.0.1/api?key=SECRET&x=1#frag","method":"POST","headers":{"Authorization":"Bearer SECRET","Cookie":"a=SECRET","Proxy-Authorization":"Basic SECRET","X-Trace":"ok"},"hasPostData":true},"type":"XHR","frameId":"F","initiator":{"type":"script","stack":{"callFrames":[{"url":"http://127.0.0.1/app.js?token=SECRET","lineNumber":1}]}}}"#;
    feed(&mut log, 1.0, "S", "Network.requestWillBeSent", p);
    response(&mut log, "S", "1", 200);
    let d = log.detail(1).unwrap();
    let text = serde_json::to_string(&d).unwrap();
    assert!(!text.contains("SECRET"), "{text}");
    assert!(!text.contains("pw@"), "{text}");
    assert_eq!(
        d.request.url,
        "http://<redacted>@127.0.0.1/api?key=<redacted>&x=<redacted>#<redacted>"
    );
    assert_eq!(
        d.request.initiator_url.as_deref(),
        Some("http://127.0.0.1/app.js?token=<redacted>")
    );
    assert!(d.request.has_post_data);
    assert!(d
        .request_headers
        .iter()
        .any(|h| h.name == "X-Trace" && h.value == "ok"));
    assert!(d
        .response_headers
        .iter()
        .any(|h| h.name == "Set-Cookie" && h.value == REDACTED_VALUE));
}

const REDACTED_VALUE: &str = crate::redact::REDACTED;

#[test]
fn a_redirect_ends_its_hop_and_starts_the_next() {
    let mut log = NetworkLog::default();
    sent(&mut log, "S", "7", "http://127.0.0.1/old", "F");
    let p = r#"{"requestId":"7","request":{"url":"http://127.0.0.1/new","method":"GET","headers":{}},"type":"Document","frameId":"F","redirectResponse":{"url":"http://127.0.0.1/old","status":302,"statusText":"Found","headers":{"Location":"/new"},"mimeType":"","encodedDataLength":50}}"#;
    feed(&mut log, 1.5, "S", "Network.requestWillBeSent", p);
    response(&mut log, "S", "7", 200);
    finished(&mut log, "S", "7");
    let all = log.since(0);
    assert_eq!(all.len(), 2);
    assert_eq!(
        (all[0].state, all[0].status),
        (RequestState::Redirected, Some(302))
    );
    assert_eq!(all[0].redirected_to, Some(2));
    assert_eq!(all[0].finished_at, Some(1.5));
    assert_eq!(
        (all[1].state, all[1].status),
        (RequestState::Finished, Some(200))
    );
    assert_eq!(all[1].redirected_from, Some(1));
    assert_eq!(all[1].url, "http://127.0.0.1/new");
}

#[test]
fn failures_and_cache_are_told() {
    let mut log = NetworkLog::default();
    sent(&mut log, "S", "1", "http://nowhere.invalid/", "F");
    feed(
        &mut log,
        2.0,
        "S",
        "Network.loadingFailed",
        r#"{"requestId":"1","timestamp":2,"type":"Fetch","errorText":"net::ERR_NAME_NOT_RESOLVED","canceled":false}"#,
    );
    sent(&mut log, "S", "2", "http://127.0.0.1/blocked", "F");
    feed(
        &mut log,
        2.0,
        "S",
        "Network.loadingFailed",
        r#"{"requestId":"2","timestamp":2,"type":"Image","errorText":"net::ERR_BLOCKED_BY_CLIENT","canceled":false,"blockedReason":"inspector"}"#,
    );
    sent(&mut log, "S", "3", "http://127.0.0.1/cached.png", "F");
    feed(
        &mut log,
        2.0,
        "S",
        "Network.requestServedFromCache",
        r#"{"requestId":"3"}"#,
    );
    let all = log.since(0);
    assert_eq!(all[0].state, RequestState::Failed);
    assert_eq!(
        all[0].failure.as_deref(),
        Some("net::ERR_NAME_NOT_RESOLVED")
    );
    assert_eq!(
        all[1].failure.as_deref(),
        Some("net::ERR_BLOCKED_BY_CLIENT (blocked: inspector)")
    );
    assert!(all[2].from_cache);
    // A 404 is a finished request with its status, not a failure.
    sent(&mut log, "S", "4", "http://127.0.0.1/missing", "F");
    response(&mut log, "S", "4", 404);
    finished(&mut log, "S", "4");
    let r = log.detail(4).unwrap().request;
    assert_eq!(
        (r.state, r.status, r.failure),
        (RequestState::Finished, Some(404), None)
    );
}

#[test]
fn the_same_request_id_on_two_sessions_is_two_requests() {
    let mut log = NetworkLog::default();
    sent(&mut log, "PAGE", "1", "http://127.0.0.1/", "TOP");
    sent(&mut log, "OOPIF", "1", "http://localhost/frame", "CHILD");
    response(&mut log, "OOPIF", "1", 404);
    let all = log.since(0);
    assert_eq!(all[0].status, None);
    assert_eq!(
        (all[1].status, all[1].frame_id.as_deref()),
        (Some(404), Some("CHILD"))
    );
    assert_eq!(log.body_source(2), Some(("OOPIF", "1")));
}

#[test]
fn headers_are_bounded() {
    let mut log = NetworkLog::default();
    let many: Vec<String> = (0..500)
        .map(|i| format!(r#""H{i}":"{}""#, "v".repeat(40)))
        .collect();
    let p = format!(
        r#"{{"requestId":"1","request":{{"url":"http://h/","method":"GET","headers":{{{}}}}}}}"#,
        many.join(",")
    );
    feed(&mut log, 1.0, "S", "Network.requestWillBeSent", &p);
    let d = log.detail(1).unwrap();
    assert!(d.headers_truncated);
    let bytes: usize = d
        .request_headers
        .iter()
        .map(|h| h.name.len() + h.value.len())
        .sum();
    assert!(bytes <= MAX_HEADER_BYTES, "{bytes}");
    assert!(!d.request_headers.is_empty());
}

#[test]
fn long_urls_and_bodies_are_cut() {
    let mut log = NetworkLog::default();
    let url = format!("data:text/plain,{}", "é".repeat(MAX_URL_BYTES));
    sent(&mut log, "S", "1", &url, "F");
    let r = &log.since(0)[0];
    assert!(r.url.len() <= MAX_URL_BYTES + '…'.len_utf8() && r.url.ends_with('…'));
    let body = serde_json::json!({"body": "é".repeat(MAX_BODY_BYTES), "base64Encoded": false});
    let b = read_body(&body.to_string()).unwrap();
    assert!(b.truncated && b.text.len() <= MAX_BODY_BYTES);
    assert_eq!(b.length, 2 * MAX_BODY_BYTES);
}

#[test]
fn hostile_and_unknown_network_messages_never_panic() {
    let mut log = NetworkLog::default();
    let cases = [
        ("Network.requestWillBeSent", "{}"),
        ("Network.requestWillBeSent", r#"{"requestId":1}"#),
        (
            "Network.requestWillBeSent",
            r#"{"requestId":"1","request":{"url":"","headers":{"a":1,"b":null,"c":[1],"d":{"e":2}}}}"#,
        ),
        (
            "Network.requestWillBeSent",
            r#"{"requestId":"2","request":{"url":"x"},"redirectResponse":{"status":-5}}"#,
        ),
        (
            "Network.responseReceived",
            r#"{"requestId":"1","response":{"status":1e300,"headers":"no"}}"#,
        ),
        (
            "Network.responseReceived",
            r#"{"requestId":"1","response":{"status":1e300}}"#,
        ),
        (
            "Network.loadingFinished",
            r#"{"requestId":"1","encodedDataLength":-1}"#,
        ),
        (
            "Network.loadingFinished",
            r#"{"requestId":"nobody","encodedDataLength":1e400}"#,
        ),
        ("Network.loadingFailed", r#"{"requestId":"2"}"#),
        ("Network.requestServedFromCache", "[]"),
        (
            "Network.dataReceived",
            r#"{"requestId":"1","dataLength":5}"#,
        ),
        (
            "Network.webSocketCreated",
            r#"{"requestId":"9","url":"ws://h"}"#,
        ),
        ("Network.somethingNew", "null"),
    ];
    for (method, params) in cases {
        feed(&mut log, 1.0, "S", method, params);
    }
    let all = log.since(0);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0].status, None, "an absurd status stays unknown");
    assert_eq!(all[0].encoded_data_length, Some(0));
    assert!(log.detail(0).is_none() && log.detail(u64::MAX).is_none());
    assert!(read_body("{}").is_none() && read_body("[1]").is_none());
}

#[test]
fn events_the_log_skips_parse_to_nothing() {
    let mut de = serde_json::Deserializer::from_str(r#"{"requestId":"1","dataLength":5}"#);
    assert!(matches!(
        deserialize("Network.dataReceived", &mut de),
        Ok(None)
    ));
    let mut de = serde_json::Deserializer::from_str(r#"{"requestId":"1"}"#);
    assert!(matches!(
        deserialize("Network.requestServedFromCache", &mut de),
        Ok(Some(NetworkEvent::ServedFromCache(_)))
    ));
}

#[test]
fn an_oopif_document_requested_on_its_parent_finishes_on_its_own_session() {
    let mut log = NetworkLog::default();
    sent(
        &mut log,
        "PAGE",
        "LOADER",
        "http://localhost/frame",
        "CHILD",
    );
    response(&mut log, "PAGE", "LOADER", 200);
    finished(&mut log, "OOPIF", "LOADER");
    let r = &log.since(0)[0];
    assert_eq!(r.state, RequestState::Finished);
    assert_eq!(r.session_id, "PAGE", "listed where it was seen");
    assert_eq!(
        log.body_source(1),
        Some(("OOPIF", "LOADER")),
        "its body is read where it finished"
    );
    assert_eq!(log.len(), (1, 0));
}
