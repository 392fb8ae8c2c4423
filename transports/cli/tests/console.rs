//! End-to-end: the sidecar's `console` command (its README) against a real Chromium:
//! lines of every level written by a timer between commands are listed from an index on,
//! `level` filters, `next` continues, a bad `since` is `bad_request`.

mod support;

use std::time::Instant;

use cdp_supervise::demo::DemoSite;
use cdp_supervisor_chromium::Browser;
use serde_json::{json, Value};
use support::{chromium_for_test, is_result, Sidecar, WAIT};

#[test]
fn console_lists_every_level_between_commands() {
    if !chromium_for_test("cli-console") {
        return;
    }
    let browser = Browser::launch().expect("launch Chromium");
    let site = DemoSite::start().unwrap();
    let mut cli = Sidecar::spawn(&["watch", "--cdp", &browser.http_url()]);
    cli.expect("page live", |v| {
        v["op"] == "page" && v["page"]["state"] == "live"
    });
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Page.navigate", "params": {"url": site.top_url(false)}}));
    cli.expect("navigate result", is_result(1));
    cli.send(json!({"id": 2, "cmd": "console"}));
    let start = cli.expect("console result", is_result(2))["next"]
        .as_u64()
        .unwrap();

    cli.send(json!({"id": 3, "cmd": "evaluate", "expression":
        "setTimeout(function () { console.info('sidecar info'); console.warn('sidecar warning'); console.debug('sidecar debug'); }, 200); 1"}));
    cli.expect("evaluate result", is_result(3));
    let end = Instant::now() + WAIT;
    let mut id = 10;
    let lines = loop {
        cli.send(json!({"id": id, "cmd": "console", "since": start}));
        let r = cli.expect("console result", is_result(id));
        let lines: Vec<Value> = r["console"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| {
                l["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("sidecar "))
            })
            .cloned()
            .collect();
        if lines.len() >= 3 {
            assert_eq!(r["dropped"], 0, "{r}");
            break lines;
        }
        assert!(Instant::now() < end, "the timer's lines never came: {r}");
        std::thread::sleep(std::time::Duration::from_millis(100));
        id += 1;
    };
    let kinds: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l["kind"].as_str().unwrap(), l["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("info", "sidecar info"),
            ("warning", "sidecar warning"),
            ("debug", "sidecar debug")
        ]
    );
    assert!(lines.iter().all(|l| l["index"].as_u64() >= Some(start)));

    cli.send(json!({"id": 100, "cmd": "console", "since": start, "level": "warning"}));
    let r = cli.expect("console result", is_result(100));
    let texts: Vec<&str> = r["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str())
        .filter(|t| t.starts_with("sidecar "))
        .collect();
    assert_eq!(texts, ["sidecar warning"], "{r}");
    let next = r["next"].as_u64().unwrap();
    cli.send(json!({"id": 101, "cmd": "console", "since": next}));
    let r = cli.expect("console result", is_result(101));
    assert_eq!(r["console"], json!([]), "{r}");
    assert_eq!(r["next"].as_u64(), Some(next));

    cli.send(json!({"id": 102, "cmd": "console", "since": "soon"}));
    let e = cli.expect("error line", |v| v["id"] == 102);
    assert_eq!(
        (&e["type"], &e["code"]),
        (&json!("error"), &json!("bad_request")),
        "{e}"
    );
    cli.send(json!({"id": 103, "cmd": "console", "tab_id": "NOPE"}));
    let e = cli.expect("error line", |v| v["id"] == 103);
    assert_eq!(e["code"], "no_such_tab", "{e}");
    cli.send(json!({"id": 104, "cmd": "stop"}));
    cli.expect("stopped", is_result(104));
}
