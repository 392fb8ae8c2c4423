//! End-to-end: the `cdp-supervise` sidecar (its README) driven through stdin/stdout.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use cdp_supervise::demo::DemoSite;
use cdp_supervisor_chromium::Browser;
use serde_json::{json, Value};
use support::{chromium_for_test, is_result, Sidecar, BIN, WAIT};

/// A browser of the test's own, or `None` as [`chromium_for_test`] says.
fn browser_or_skip(test: &str) -> Option<Browser> {
    chromium_for_test(test).then(|| Browser::launch().expect("launch Chromium"))
}

/// Where a run's trace is recorded.
fn trace_path(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join("cdp-supervise-e2e-traces");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{test}.jsonl"))
}

fn traces_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces")
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"][..],
        &["watch", "--policy", "sometimes"][..],
        &["watch", "--url", "http://x", "--demo"][..],
        &["replay"][..],
    ] {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "stdout stays JSON-only");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage"),
            "{args:?}"
        );
    }
}

/// `replay --bridge` reuses the recorded token: the bridge `confirm` of the recording
/// (tests/traces/bridge-confirm-in-oopif.jsonl, from `e2e_bridge`'s blocked-evaluate
/// scenario) opens again (and closes `remote` at the trace's disconnect: the agent's
/// answer is not part of a trace). Without `--bridge` the paused request is no dialog.
#[test]
fn replay_with_bridge_reuses_the_recorded_token() {
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/traces/bridge-confirm-in-oopif.jsonl");
    let opened = |bridge: bool| -> Vec<Value> {
        let mut cmd = Command::new(BIN);
        cmd.arg("replay").arg(&trace);
        if bridge {
            cmd.arg("--bridge");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["op"] == "dialog_opened")
            .map(|l| l["dialog"].clone())
            .collect()
    };
    let with = opened(true);
    assert_eq!(with.len(), 1, "{with:?}");
    assert_eq!(with[0]["message"], "in the way");
    assert_eq!(with[0]["type"], "confirm");
    assert!(opened(false).is_empty());
}

/// `--bridge` is a valid flag of both commands: with an unreachable browser
/// `watch --bridge` fails at run time (1), not as a usage error.
#[test]
fn bridge_flag_is_accepted() {
    let out = Command::new(BIN)
        .args(["watch", "--bridge", "--cdp", "http://127.0.0.1:9"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.1:9"));
    let trace = traces_dir().join("srcdoc-and-nested-oopif-dialogs.jsonl");
    let out = Command::new(BIN)
        .args(["replay", "--bridge"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let last = String::from_utf8(out.stdout).unwrap();
    assert!(last
        .lines()
        .last()
        .unwrap()
        .contains("\"type\":\"snapshot\""));
}

/// A CDP URL's credentials (userinfo, query) never leave the process: not on stdout,
/// not on stderr (the error names the endpoint redacted), not in the recorded trace.
#[test]
fn credentials_in_the_cdp_url_are_never_printed_nor_recorded() {
    let trace = trace_path("credentials_in_the_cdp_url");
    let _ = std::fs::remove_file(&trace);
    let out = Command::new(BIN)
        .args([
            "watch",
            "--cdp",
            "ws://u:p@127.0.0.1:1/x?apiKey=SECRET",
            "--record",
        ])
        .arg(&trace)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let recorded = std::fs::read_to_string(&trace).unwrap_or_default();
    for (what, text) in [
        ("stdout", &*stdout),
        ("stderr", &*stderr),
        ("trace", &*recorded),
    ] {
        assert!(!text.contains("SECRET"), "{what} shows the key: {text}");
        assert!(!text.contains("u:p"), "{what} shows the password: {text}");
    }
    assert!(
        stderr.contains("127.0.0.1:1/x?apiKey=<redacted>"),
        "{stderr}"
    );
}

#[test]
fn unreachable_browser_exits_1() {
    let out = Command::new(BIN)
        .args(["watch", "--cdp", "http://127.0.0.1:9"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.1:9"));
}

#[test]
fn replay_prints_diffs_and_the_final_snapshot() {
    let trace = traces_dir().join("srcdoc-and-nested-oopif-dialogs.jsonl");
    let out = Command::new(BIN)
        .arg("replay")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, diffs) = lines.split_last().unwrap();
    assert_eq!(last["type"], "snapshot");
    assert!(last["snapshot"]["frame_tree"].is_object());
    assert!(diffs
        .iter()
        .all(|d| d["type"] == "diff" && d["op"].is_string()));
    assert!(diffs.iter().any(|d| d["op"] == "dialog_opened"));
}

/// `cdp-supervise ARGS` (a `watch`), once its page is live.
fn watch_live(args: &[&str]) -> Sidecar {
    let mut cli = Sidecar::spawn(args);
    cli.expect("page live", |v| {
        v["op"] == "page" && v["page"]["state"] == "live"
    });
    cli
}

/// Sends `stop` with `id`: the answer says stopped, and the sidecar exits 0.
fn stop_exits_0(cli: &mut Sidecar, id: i64) {
    cli.send(json!({"id": id, "cmd": "stop"}));
    let stopped = cli.expect("stop", is_result(id));
    assert_eq!(stopped["stopped"], true, "{stopped}");
    assert_eq!(cli.exit_code(WAIT), Some(0));
}

/// The sidecar's stderr, echoed to ours, with the browser it launched (its DevTools
/// port and profile directory, from the "launched Chromium at" line).
struct Launched {
    port: Receiver<(u16, std::path::PathBuf)>,
}

fn take_stderr(cli: &mut Sidecar) -> Launched {
    let stderr = cli.child.stderr.take().expect("stderr piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            // "cdp-supervise: launched Chromium at ws://127.0.0.1:PORT/... (profile DIR)"
            let Some(rest) = line.split("launched Chromium at ws://127.0.0.1:").nth(1) else {
                continue;
            };
            let port = rest.split('/').next().and_then(|p| p.parse().ok());
            let dir = rest
                .split(" (profile ")
                .nth(1)
                .and_then(|d| d.strip_suffix(')'));
            if let (Some(port), Some(dir)) = (port, dir) {
                let _ = tx.send((port, std::path::PathBuf::from(dir)));
            }
        }
    });
    Launched { port: rx }
}

/// Nothing of a launched browser is left: its port refuses, its profile directory is
/// gone, and no process names that directory on its command line.
fn assert_browser_gone(port: u16, profile: &std::path::Path) {
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the launched Chromium still listens on {port}"
    );
    assert!(!profile.exists(), "{} was left behind", profile.display());
    let needle = profile.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        assert!(
            !String::from_utf8_lossy(&cmdline).contains(&needle),
            "process {:?} still runs with {needle}",
            entry.file_name()
        );
    }
}

/// Waits for the diff that shows the demo's nested OOPIF and returns its frame id.
fn nested_oopif_id(cli: &mut Sidecar) -> Value {
    cli.expect("the nested OOPIF", |v| {
        v["type"] == "diff"
            && v["frame"]["is_oopif"] == true
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/nested"))
    })["frame"]["frame_id"]
        .clone()
}

/// A sidecar watching `browser`, live, with the top frame navigated to the demo site
/// (command id 1); the site lives as long as the returned guard.
fn watching_the_demo(browser: &Browser) -> (DemoSite, Sidecar) {
    let site = DemoSite::start().unwrap();
    let mut cli = watch_live(&["watch", "--cdp", &browser.http_url()]);
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Page.navigate", "params": {"url": site.top_url(false)}}));
    cli.expect("navigate result", is_result(1));
    (site, cli)
}

/// `watch --cdp http://...` driven through stdin: a command blocked by a dialog in a
/// nested OOPIF is reported at once, answered, and finishes; end of input settles a
/// dialog left open and exits 0.
#[test]
fn watch_through_stdin() {
    let Some(browser) = browser_or_skip("cli-watch") else {
        return;
    };
    let site = DemoSite::start().unwrap();
    let trace = trace_path("cli-watch");
    let mut cli = watch_live(&[
        "watch",
        "--cdp",
        &browser.http_url(),
        "--record",
        trace.to_str().unwrap(),
    ]);
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Page.navigate", "params": {"url": site.top_url(false)}}));
    let r = cli.expect("navigate result", is_result(1));
    assert_eq!(r["type"], "result", "{r}");
    let nested = nested_oopif_id(&mut cli);

    cli.send(
        json!({"id": 2, "cmd": "cdp", "method": "Runtime.evaluate", "frame_id": nested,
        "params": {"expression": "confirm('from the cli')", "returnByValue": true}}),
    );
    let blocked = cli.expect("blocked line", |v| v["type"] == "blocked");
    assert_eq!(blocked["id"], 2);
    let dialog_id = blocked["dialog_id"].clone();
    let opened = cli.expect("dialog_opened", |v| v["op"] == "dialog_opened");
    assert_eq!(opened["dialog"]["frame_id"], nested);
    assert_eq!(opened["dialog"]["id"], dialog_id);

    cli.send(json!({"id": 3, "cmd": "dialog", "action": "accept", "dialog_id": dialog_id}));
    let answered = cli.expect("dialog result", is_result(3));
    assert_eq!(answered["dialog"]["closed_by"], "agent", "{answered}");
    let evaluated = cli.expect("evaluate result", is_result(2));
    assert_eq!(evaluated["result"]["result"]["value"], true, "{evaluated}");

    cli.send(json!({"id": 4, "cmd": "snapshot"}));
    let snap = cli.expect("snapshot", is_result(4));
    assert_eq!(
        snap["snapshot"]["frame_tree"]["children"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    cli.send(json!({"id": 5, "cmd": "evaluate", "expression": "1"}));
    let e = cli.expect("evaluate result", is_result(5));
    assert_eq!(e, json!({"type": "result", "id": 5, "value": 1}));

    cli.send(json!({"id": 6, "cmd": "policy", "policy": "must_respond"}));
    assert_eq!(cli.expect("policy", is_result(6))["policy"], "must_respond");

    // Leave a command blocked by an alert and end the input: the sidecar settles the
    // alert, the command gets its real reply, and the sidecar exits 0.
    cli.send(json!({"id": 7, "cmd": "cdp", "method": "Runtime.evaluate",
        "params": {"expression": "alert('left open'); 5", "returnByValue": true}}));
    cli.expect("blocked by the alert", |v| {
        v["type"] == "blocked" && v["id"] == 7
    });
    drop(cli.stdin.take());
    cli.expect("alert settled", |v| {
        v["op"] == "dialog_closed" && v["dialog"]["message"] == "left open"
    });
    let finished = cli.expect("the blocked command's reply", is_result(7));
    assert_eq!(finished["result"]["result"]["value"], 5, "{finished}");
    assert_eq!(cli.exit_code(WAIT), Some(0));
    let text = std::fs::read_to_string(&trace).unwrap();
    let parsed = cdp_supervisor::replay::Trace::parse(&text).unwrap();
    assert!(parsed.entries.len() > 20);
    // The recording replays: the final snapshot has the session's dialogs.
    let out = Command::new(BIN)
        .arg("replay")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let messages: Vec<&str> = last["snapshot"]["recent_dialogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["from the cli", "left open"]);
}

/// `ax_snapshot` through stdin: the demo's four frames, each heading with a ref and its
/// own frame, the nested OOPIF's included; a frame budget names the frames beyond it; a
/// stale ref is an error line with its code.
#[test]
fn watch_ax_snapshot_sees_every_frame() {
    let Some(browser) = browser_or_skip("cli-ax") else {
        return;
    };
    let (_site, mut cli) = watching_the_demo(&browser);
    let nested = nested_oopif_id(&mut cli);
    let heading = |ax: &Value, name: &str| {
        ax["refs"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["role"] == "heading" && r["name"] == name)
            .cloned()
    };
    let end = Instant::now() + WAIT;
    let mut id = 10;
    let ax = loop {
        id += 1;
        cli.send(json!({"id": id, "cmd": "ax_snapshot", "timeout_ms": 5000}));
        let r = cli.expect("ax result", is_result(id));
        assert_eq!(r["type"], "result", "{r}");
        let ax = r["ax"].clone();
        if [
            "cdp-supervise demo",
            "srcdoc frame",
            "cross frame",
            "nested frame",
        ]
        .iter()
        .all(|n| heading(&ax, n).is_some())
        {
            break ax;
        }
        assert!(Instant::now() < end, "never all four: {ax}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let deep = heading(&ax, "nested frame").unwrap();
    assert_eq!(deep["frame_id"], nested);
    assert!(ax["text"]
        .as_str()
        .unwrap()
        .contains("- heading \"nested frame\" [level=1] [ref="));
    assert_eq!(ax["truncated"], false);

    cli.send(json!({"id": 2, "cmd": "ax_snapshot", "max_frames": 2}));
    let r = cli.expect("budget result", is_result(2));
    let left = r["ax"]["frames_left_out"].as_array().unwrap();
    assert_eq!(left.len(), 2, "{r}");
    let reasons: Vec<&str> = left.iter().map(|f| f["reason"].as_str().unwrap()).collect();
    assert!(reasons[0].contains("frame budget of 2"), "{reasons:?}");
    // The nested OOPIF comes last (breadth first): left out for the budget when its parent
    // (the cross-site frame) was planned before the srcdoc one, else with its parent.
    assert!(
        reasons[1].contains("frame budget of 2") || reasons[1].contains("parent frame"),
        "{reasons:?}"
    );
    assert_eq!(left[1]["frame_id"], nested);

    cli.send(json!({"id": 3, "cmd": "ax_snapshot", "ref": "e99999"}));
    let e = cli.expect("stale ref", is_result(3));
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("error"), Some("stale_ref")),
        "{e}"
    );
    stop_exits_0(&mut cli, 4);
}

/// `ax_snapshot` with a dialog pending answers at once, naming the dialog (asserted as far
/// under its 10 s budget, not as a time: it takes a few ms on an idle machine and the test
/// must not fail on a loaded one):
/// with an alert in the cross-site OOPIF, the outline of the top and srcdoc frames with the
/// OOPIF (and the OOPIF nested in it) left out for that dialog; with an alert in the nested
/// OOPIF, which is back on the top's site and so shares the top's renderer, a `blocked`
/// error line with `dialog_id` and `dialog`. Once answered, every frame is outlined again.
#[test]
fn watch_ax_snapshot_with_a_dialog_pending_answers_at_once_naming_it() {
    let Some(browser) = browser_or_skip("cli-ax-dialog") else {
        return;
    };
    let (_site, mut cli) = watching_the_demo(&browser);
    let nested = nested_oopif_id(&mut cli);
    let headings = |ax: &Value| {
        ax["refs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["role"] == "heading")
            .count()
    };
    // Every document loaded: four headings.
    let end = Instant::now() + WAIT;
    let mut id = 100;
    let cross = loop {
        id += 1;
        cli.send(json!({"id": id, "cmd": "ax_snapshot"}));
        let r = cli.expect("ax result", is_result(id));
        if headings(&r["ax"]) == 4 {
            let cross = r["ax"]["refs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == "cross frame")
                .unwrap()["frame_id"]
                .clone();
            break cross;
        }
        assert!(Instant::now() < end, "never all four: {r}");
        std::thread::sleep(Duration::from_millis(100));
    };
    // Raises an alert in `frame` and waits for it to show; its dialog id.
    let alert_in = |cli: &mut Sidecar, id: i64, frame: &Value, message: &str| {
        cli.send(json!({"id": id, "cmd": "evaluate", "frame_id": frame,
            "expression": format!("setTimeout(() => alert('{message}'), 0); 'scheduled'")}));
        cli.expect("scheduled", is_result(id));
        cli.expect("dialog_opened", |v| {
            v["op"] == "dialog_opened" && v["dialog"]["message"] == message
        })["dialog"]["id"]
            .clone()
    };
    // Sends an ax_snapshot and times its answer.
    let timed = |cli: &mut Sidecar, id: i64| {
        let start = Instant::now();
        cli.send(json!({"id": id, "cmd": "ax_snapshot", "timeout_ms": 10000}));
        let r = cli.expect("ax answer", is_result(id));
        let took = start.elapsed();
        // Waiting for the stalled frame would take the whole 10 s budget.
        assert!(took < Duration::from_secs(2), "took {took:?}: {r}");
        eprintln!("ax_snapshot under a dialog answered in {took:?}");
        r
    };

    let dialog = alert_in(&mut cli, 2, &cross, "in the cross frame");
    let r = timed(&mut cli, 3);
    assert_eq!(r["type"], "result", "{r}");
    assert_eq!(headings(&r["ax"]), 2, "the top and srcdoc frames: {r}");
    let left = r["ax"]["frames_left_out"].as_array().unwrap();
    let of = |frame: &Value| left.iter().find(|f| f["frame_id"] == *frame).cloned();
    let reason = of(&cross).unwrap_or_else(|| panic!("{r}"))["reason"].clone();
    assert!(
        reason.as_str().unwrap().contains(dialog.as_str().unwrap()),
        "{reason}"
    );
    assert!(of(&nested).is_some(), "{r}");
    cli.send(json!({"id": 4, "cmd": "dialog", "action": "accept", "dialog_id": dialog}));
    cli.expect("answered", is_result(4));

    let dialog = alert_in(&mut cli, 5, &nested, "in the nested frame");
    let e = timed(&mut cli, 6);
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("error"), Some("blocked")),
        "{e}"
    );
    assert_eq!(e["dialog_id"], dialog, "{e}");
    assert_eq!(e["dialog"]["frame_id"], nested, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains(dialog.as_str().unwrap()),
        "{e}"
    );
    cli.send(json!({"id": 7, "cmd": "dialog", "action": "accept", "dialog_id": dialog}));
    cli.expect("answered", is_result(7));

    cli.send(json!({"id": 8, "cmd": "ax_snapshot"}));
    let r = cli.expect("ax result", is_result(8));
    assert_eq!(headings(&r["ax"]), 4, "{r}");
    stop_exits_0(&mut cli, 9);
}

/// The rest of the sidecar protocol: `--policy` and `--dialog-timeout` on the command
/// line (the watchdog closes a dialog after the timeout), lines that are not commands get
/// an error line each and the sidecar goes on, `settle` answers what is pending,
/// `recover` reloads, `policy` changes how the next dialog is answered, and `stop` exits 0.
#[test]
fn watch_flags_errors_settle_recover_and_stop() {
    let Some(browser) = browser_or_skip("cli-protocol") else {
        return;
    };
    let site = DemoSite::start().unwrap();
    let mut cli = watch_live(&[
        "watch",
        "--cdp",
        browser.ws_url(),
        "--policy",
        "must_respond",
        "--dialog-timeout",
        "3",
    ]);
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Page.navigate", "params": {"url": site.top_url(false)}}));
    assert_eq!(cli.expect("navigate", is_result(1))["type"], "result");
    // Raise dialogs only in the new document: one raised while about:blank is still
    // being replaced closes `remote` with it (seen in a full run).
    cli.expect("the demo's nested OOPIF", |v| {
        v["type"] == "diff"
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/nested"))
    });
    let alert = |cli: &mut Sidecar, id: i64, message: &str| {
        let expression = format!("setTimeout(() => alert({message:?}), 0); 1");
        cli.send(json!({"id": id, "cmd": "cdp", "method": "Runtime.evaluate",
            "params": {"expression": expression}}));
        assert_eq!(cli.expect("evaluate", is_result(id))["type"], "result");
        cli.expect("dialog_opened", |v| {
            v["op"] == "dialog_opened" && v["dialog"]["message"] == message
        })
    };

    // --dialog-timeout 3 with must_respond: the watchdog answers.
    alert(&mut cli, 2, "left to the watchdog");
    let closed = cli.expect("watchdog close", |v| {
        v["op"] == "dialog_closed" && v["dialog"]["message"] == "left to the watchdog"
    });
    assert_eq!(closed["dialog"]["closed_by"], "watchdog", "{closed}");

    // Lines that are not commands: one error line each, and the sidecar goes on.
    {
        let stdin = cli.stdin.as_mut().unwrap();
        writeln!(stdin, "this is not JSON").unwrap();
        stdin.flush().unwrap();
    }
    let e = cli.expect("error for a non-JSON line", |v| {
        v["type"] == "error" && v["id"].is_null()
    });
    assert!(
        e["message"].as_str().unwrap().contains("not a JSON object"),
        "{e}"
    );
    assert_eq!(e["code"], "bad_request", "{e}");
    // Not UTF-8, then a line over the 1 MiB cap: an error each, the session goes on.
    {
        let stdin = cli.stdin.as_mut().unwrap();
        stdin
            .write_all(b"{\"id\":1,\"cmd\":\"\xff\xfe\"}\n")
            .unwrap();
        stdin.flush().unwrap();
    }
    let e = cli.expect("error for a line that is not UTF-8", |v| {
        v["type"] == "error" && v["id"].is_null()
    });
    assert!(e["message"].as_str().unwrap().contains("UTF-8"), "{e}");
    {
        let stdin = cli.stdin.as_mut().unwrap();
        stdin.write_all(&vec![b'x'; 3 << 20]).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    let e = cli.expect("error for a line over the cap", |v| {
        v["type"] == "error" && v["id"].is_null()
    });
    assert_eq!(e["code"], "bad_request", "{e}");
    assert!(e["message"].as_str().unwrap().contains("1048576"), "{e}");
    cli.send(json!({"id": 3}));
    let e = cli.expect("missing cmd", is_result(3));
    assert_eq!(e["type"], "error");
    assert!(
        e["message"].as_str().unwrap().contains("missing \"cmd\""),
        "{e}"
    );
    cli.send(json!({"id": 4, "cmd": "fly"}));
    let e = cli.expect("unknown cmd", is_result(4));
    assert_eq!(e["type"], "error");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("unknown cmd \"fly\""),
        "{e}"
    );

    // settle answers what is pending (well within the 3 s watchdog).
    alert(&mut cli, 5, "settled");
    cli.send(json!({"id": 6, "cmd": "settle", "action": "accept"}));
    let settled = cli.expect("settle", is_result(6));
    assert_eq!(settled["type"], "result", "{settled}");
    let dialogs = settled["dialogs"].as_array().unwrap();
    assert_eq!(dialogs.len(), 1, "{settled}");
    assert_eq!(dialogs[0]["message"], "settled");
    assert_eq!(dialogs[0]["accepted"], true);

    // recover reloads the page (Page.navigate to its URL) and says how it went.
    cli.send(json!({"id": 7, "cmd": "recover"}));
    let recovered = cli.expect("recover", is_result(7));
    assert_eq!(recovered["type"], "result", "{recovered}");
    assert!(recovered["result"]["frameId"].is_string(), "{recovered}");

    // policy auto_dismiss: the next dialog is answered at once.
    cli.send(json!({"id": 8, "cmd": "policy", "policy": "auto_dismiss"}));
    assert_eq!(cli.expect("policy", is_result(8))["policy"], "auto_dismiss");
    alert(&mut cli, 9, "auto");
    let closed = cli.expect("auto close", |v| {
        v["op"] == "dialog_closed" && v["dialog"]["message"] == "auto"
    });
    assert_eq!(closed["dialog"]["closed_by"], "auto_policy", "{closed}");

    stop_exits_0(&mut cli, 10);
}

/// The README's main job, `watch --demo`: the sidecar launches its own headless
/// Chromium, opens the built-in demo page (top, srcdoc, cross-site OOPIF, nested OOPIF),
/// shows the frames and a dialog live, takes an answer on stdin, and at end of input
/// exits 0 leaving no browser behind.
#[test]
fn watch_demo_shows_the_demo_live_and_leaves_nothing_running() {
    if !chromium_for_test("cli-watch-demo") {
        return;
    }
    let mut cli = Sidecar::spawn_with_stderr(&["watch", "--demo"], Stdio::piped());
    let launched = take_stderr(&mut cli);
    let (port, profile) = launched
        .port
        .recv_timeout(WAIT)
        .expect("the sidecar says which Chromium it launched");
    cli.expect("page live", |v| {
        v["op"] == "page" && v["page"]["state"] == "live"
    });
    cli.expect("the nested OOPIF", |v| {
        v["type"] == "diff"
            && v["frame"]["is_oopif"] == true
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/nested"))
    });
    // The demo opens a dialog every few seconds; answer the first one from stdin.
    let opened = cli.expect("a demo dialog", |v| v["op"] == "dialog_opened");
    let dialog_id = opened["dialog"]["id"].clone();
    cli.send(json!({"id": 1, "cmd": "dialog", "action": "accept", "dialog_id": dialog_id}));
    let answered = cli.expect("dialog result", is_result(1));
    assert_eq!(answered["type"], "result", "{answered}");
    assert_eq!(answered["dialog"]["closed_by"], "agent", "{answered}");
    assert_eq!(answered["dialog"]["accepted"], true, "{answered}");
    cli.send(json!({"id": 2, "cmd": "snapshot"}));
    let snap = cli.expect("snapshot", is_result(2));
    let children = snap["snapshot"]["frame_tree"]["children"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(children, 3, "srcdoc, OOPIF and nested OOPIF: {snap}");
    assert!(
        snap["snapshot"]["recent_dialogs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == dialog_id),
        "{snap}"
    );

    drop(cli.stdin.take());
    assert_eq!(cli.exit_code(WAIT), Some(0));
    assert_browser_gone(port, &profile);
}

/// `watch --url PAGE`: the sidecar launches Chromium, opens that page, reports its top
/// frame with the URL, and exits 0 at end of input with the browser gone.
#[test]
fn watch_url_opens_the_page_in_a_launched_browser() {
    if !chromium_for_test("cli-watch-url") {
        return;
    }
    let site = DemoSite::start().unwrap();
    let url = site.top_url(false);
    let mut cli = Sidecar::spawn_with_stderr(&["watch", "--url", &url], Stdio::piped());
    let launched = take_stderr(&mut cli);
    let (port, profile) = launched
        .port
        .recv_timeout(WAIT)
        .expect("the sidecar says which Chromium it launched");
    cli.expect("the top frame at the URL", |v| {
        v["type"] == "diff"
            && v["frame"]["parent_frame_id"].is_null()
            && v["frame"]["url"] == json!(url)
    });
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Runtime.evaluate",
        "params": {"expression": "location.href", "returnByValue": true}}));
    let r = cli.expect("evaluate result", is_result(1));
    assert_eq!(r["result"]["result"]["value"], json!(url), "{r}");
    drop(cli.stdin.take());
    assert_eq!(cli.exit_code(WAIT), Some(0));
    assert_browser_gone(port, &profile);
}

/// Exit code 1 when the browser goes away for good: five reconnect attempts with
/// backoff (0.5 s doubling), then the sidecar gives up.
#[test]
fn browser_gone_exits_1_after_the_reconnect_attempts() {
    let Some(browser) = browser_or_skip("cli-browser-gone") else {
        return;
    };
    let mut cli = watch_live(&["watch", "--cdp", browser.ws_url()]);
    let started = Instant::now();
    drop(browser);
    cli.expect("page detached", |v| {
        v["op"] == "page" && v["page"]["state"] == "detached"
    });
    assert_eq!(cli.exit_code(Duration::from_secs(40)), Some(1));
    // 0.5 + 1 + 2 + 4 + 8 s of backoff before giving up.
    assert!(
        started.elapsed() >= Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// The `evaluate` command: a stuck script and a never-settling promise answer `timeout`
/// within the budget and the frame evaluates again at once; a stuck script in an OOPIF
/// too; the srcdoc frame and the nested OOPIF answer with their own values; a function on
/// an element of the OOPIF found by `backend_node_id`; `alert` answers `blocked` with the
/// dialog at once; an unknown frame is `no_such_frame`, an unknown ref `stale_ref`.
#[test]
fn watch_evaluate() {
    let Some(browser) = browser_or_skip("cli-evaluate") else {
        return;
    };
    let (_site, mut cli) = watching_the_demo(&browser);
    let frame_of = |cli: &mut Sidecar, path: &str| {
        cli.expect(path, |v| {
            v["type"] == "diff"
                && v["frame"]["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(path))
        })["frame"]["frame_id"]
            .clone()
    };
    let cross = frame_of(&mut cli, "/cross");
    let nested = frame_of(&mut cli, "/nested");
    let mut id = 10;
    let mut ask = |cli: &mut Sidecar, mut line: Value| {
        id += 1;
        line["id"] = json!(id);
        line["cmd"] = json!("evaluate");
        let start = Instant::now();
        cli.send(line);
        let answer = cli.expect("evaluate answer", is_result(id));
        (answer, start.elapsed())
    };
    // The documents load after the frames appear: wait for each frame's script.
    for frame in [&cross, &nested] {
        let end = Instant::now() + WAIT;
        loop {
            let (r, _) = ask(
                &mut cli,
                json!({"expression": "document.readyState", "frame_id": frame}),
            );
            if r["value"] == "complete" {
                break;
            }
            assert!(Instant::now() < end, "{frame} never loaded: {r}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let budget = Duration::from_millis(500);
    let margin = Duration::from_millis(400);

    let (r, took) = ask(
        &mut cli,
        json!({"expression": "while(true){}", "timeout_ms": 500}),
    );
    assert_eq!(
        (&r["type"], &r["code"]),
        (&json!("error"), &json!("timeout")),
        "{r}"
    );
    assert!(took <= budget + margin, "{took:?}");
    let (r, took) = ask(&mut cli, json!({"expression": "window.frameLabel"}));
    assert_eq!(r["value"], "top", "{r}");
    assert!(took < budget, "{took:?}");

    // `function` is a function's source, called; a stuck one ends in its budget.
    let (r, _) = ask(&mut cli, json!({"function": "() => 6*7"}));
    assert_eq!(r, json!({"type": "result", "id": r["id"], "value": 42}));
    let (r, took) = ask(
        &mut cli,
        json!({"function": "() => { while (true) {} }", "timeout_ms": 500}),
    );
    assert_eq!(r["code"], "timeout", "{r}");
    assert!(took <= budget + margin, "{took:?}");
    let (r, _) = ask(
        &mut cli,
        json!({"function": "async function () { return window.frameLabel }", "frame_id": nested}),
    );
    assert_eq!(r["value"], "nested", "{r}");
    let (r, _) = ask(&mut cli, json!({"function": "() => 1", "expression": "1"}));
    assert_eq!(r["code"], "bad_request", "{r}");

    let (r, took) = ask(
        &mut cli,
        json!({"expression": "new Promise(() => {})", "timeout_ms": 500}),
    );
    assert_eq!(r["code"], "timeout", "{r}");
    assert!(took <= budget + margin, "{took:?}");
    assert_eq!(ask(&mut cli, json!({"expression": "2 * 3"})).0["value"], 6);

    let (r, took) = ask(
        &mut cli,
        json!({"expression": "while(true){}", "frame_id": cross, "timeout_ms": 500}),
    );
    assert_eq!(r["code"], "timeout", "{r}");
    assert!(took <= budget + margin, "{took:?}");
    let (r, _) = ask(
        &mut cli,
        json!({"expression": "window.frameLabel", "frame_id": cross}),
    );
    assert_eq!(r["value"], "cross", "{r}");

    cli.send(json!({"id": 2, "cmd": "snapshot"}));
    let snap = cli.expect("snapshot", is_result(2));
    let srcdoc = snap["snapshot"]["frame_tree"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["url"] == "about:srcdoc")
        .unwrap()["frame_id"]
        .clone();
    let (r, _) = ask(
        &mut cli,
        json!({"expression": "window.frameLabel", "frame_id": srcdoc}),
    );
    assert_eq!(r["value"], "srcdoc", "{r}");
    let (r, _) = ask(
        &mut cli,
        json!({"expression": "window.frameLabel", "frame_id": nested}),
    );
    assert_eq!(r["value"], "nested", "{r}");
    let (r, _) = ask(&mut cli, json!({"expression": "undefined"}));
    assert_eq!(
        r,
        json!({"type": "result", "id": r["id"], "value": null, "undefined": true})
    );

    // An element of the OOPIF by backend node id.
    cli.send(
        json!({"id": 3, "cmd": "cdp", "method": "Runtime.evaluate", "frame_id": cross,
        "params": {"expression": "document.querySelector('h1')"}}),
    );
    let object = cli.expect("h1", is_result(3))["result"]["result"]["objectId"].clone();
    cli.send(
        json!({"id": 4, "cmd": "cdp", "method": "DOM.describeNode", "frame_id": cross,
        "params": {"objectId": object}}),
    );
    let backend = cli.expect("node", is_result(4))["result"]["node"]["backendNodeId"].clone();
    let (r, _) = ask(
        &mut cli,
        json!({"expression": "el => el.textContent", "frame_id": cross, "backend_node_id": backend}),
    );
    assert_eq!(r["value"], "cross frame", "{r}");

    let (r, _) = ask(&mut cli, json!({"expression": "1", "frame_id": "NOPE"}));
    assert_eq!(r["code"], "no_such_frame", "{r}");
    let (r, _) = ask(&mut cli, json!({"expression": "el => el", "ref": "e3"}));
    assert_eq!(r["code"], "stale_ref", "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("take a new snapshot"));

    let (r, took) = ask(&mut cli, json!({"expression": "alert('from evaluate'); 5"}));
    assert_eq!(r["code"], "blocked", "{r}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(r["dialog"]["message"], "from evaluate");
    assert_eq!(r["dialog_id"], r["dialog"]["id"]);
    cli.send(json!({"id": 5, "cmd": "dialog", "action": "accept", "dialog_id": r["dialog_id"]}));
    cli.expect("dialog answered", is_result(5));
    assert_eq!(
        ask(&mut cli, json!({"expression": "'after'"})).0["value"],
        "after"
    );

    stop_exits_0(&mut cli, 6);
}

/// `watch --format text` (the default on a terminal): a line per change for a person: the
/// nested OOPIF with its depth and OOPIF mark, a dialog with the command that answers it;
/// no JSON diffs; `stop` still answers as JSON and exits 0.
#[test]
fn watch_text_format_reads_as_a_live_view() {
    if !chromium_for_test("cli-watch-text") {
        return;
    }
    let mut child = Command::new(BIN)
        .args(["watch", "--demo", "--format", "text"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut seen = Vec::new();
    let mut wait_for = |what: &str, pred: &dyn Fn(&str) -> bool| -> String {
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no line for {what}; seen: {seen:#?}"));
            seen.push(line.clone());
            if pred(&line) {
                return line;
            }
        }
    };
    wait_for("the page live", &|l| l.starts_with("# page live"));
    wait_for("the nested OOPIF at depth 2", &|l| {
        l.starts_with("~ frame ") && l.contains("depth 2  OOPIF") && l.ends_with("/nested")
    });
    let dialog = wait_for("a dialog", &|l| l.starts_with("! dialog d-"));
    let id = dialog.split_whitespace().nth(2).unwrap().to_owned();
    let answer = wait_for("how to answer it", &|l| {
        l.trim_start().starts_with("answer:")
    });
    assert!(
        answer.contains(&format!(r#""dialog_id":"{id}""#)),
        "{answer}"
    );
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"id":9,"cmd":"stop"}}"#).unwrap();
    stdin.flush().unwrap();
    let stopped = wait_for("stop's answer", &|l| l.starts_with('{'));
    assert_eq!(
        serde_json::from_str::<Value>(&stopped).unwrap()["stopped"],
        true
    );
    drop(stdin);
    let end = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < end, "the sidecar did not exit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert!(
        !seen.iter().any(|l| l.contains(r#""type":"diff""#)),
        "no JSON diff in the text view: {seen:#?}"
    );
}

/// `watch --cdp UNREACHABLE --fallback-local`: a warning on stderr and as a
/// `{"type":"warning"}` line, then a launched local browser is supervised, and nothing is
/// left at the end. Without the flag the error is immediate (exit 1) and names the
/// endpoint with its secrets hidden.
#[test]
fn fallback_local_supervises_a_launched_browser_when_the_remote_cannot_be_reached() {
    if !chromium_for_test("cli-fallback-local") {
        return;
    }
    let remote = "ws://agent:hunter2@127.0.0.1:1/devtools/browser/x?apiKey=SECRET";
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["watch", "--cdp", remote])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the error is immediate"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot reach the browser at ws://<redacted>@127.0.0.1:1/devtools/browser/x?apiKey=<redacted>")
            && stderr.contains("--fallback-local"),
        "{stderr}"
    );

    let mut cli = Sidecar::spawn_with_stderr(
        &[
            "watch",
            "--cdp",
            remote,
            "--fallback-local",
            "--url",
            "data:text/html,<title>fallback</title>",
        ],
        Stdio::piped(),
    );
    let launched = take_stderr(&mut cli);
    let warning = cli.expect("the warning line", |v| v["type"] == "warning");
    assert!(
        warning["message"]
            .as_str()
            .is_some_and(|m| m.contains("supervising a local headless Chromium")),
        "{warning}"
    );
    let (port, profile) = launched
        .port
        .recv_timeout(WAIT)
        .expect("the sidecar says which Chromium it launched");
    cli.expect("the local page live", |v| {
        v["op"] == "page" && v["page"]["state"] == "live"
    });
    cli.expect("the page opened", |v| {
        v["type"] == "diff"
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.contains("fallback"))
    });
    drop(cli.stdin.take());
    assert_eq!(cli.exit_code(WAIT), Some(0));
    assert_browser_gone(port, &profile);
}

/// The `act` command: navigate, a click on a link that navigates (`wait: load`, a webp screenshot),
/// a click that raises an alert (ended at once, no screenshot), then the next action
/// after answering it; a missing parameter is a `bad_request` line.
#[test]
fn act_through_stdin() {
    let Some(browser) = browser_or_skip("cli-act") else {
        return;
    };
    let site = DemoSite::start().unwrap();
    let mut cli = watch_live(&["watch", "--cdp", &browser.http_url()]);
    let page = format!(
        "data:text/html,<a href='{}' style='position:absolute;left:0;top:0;width:200px;height:40px;display:block'>go</a>\
         <button onclick='console.log(\"before\");alert(1)' style='position:absolute;left:0;top:60px;width:200px;height:40px'>x</button>",
        site.url("/nested")
    );
    cli.send(json!({"id": 1, "cmd": "act", "action": "navigate", "url": page}));
    let r = cli.expect("navigate", is_result(1));
    assert_eq!(r["act"]["navigated"], json!(true), "{r}");
    assert_eq!(r["act"]["settled"], json!(true), "{r}");
    cli.send(
        json!({"id": 2, "cmd": "act", "action": "click", "x": 60, "y": 80, "timeout_ms": 10000}),
    );
    let r = cli.expect("click on the alert button", is_result(2));
    assert_eq!(r["act"]["screenshot"], Value::Null, "{r}");
    assert_eq!(
        r["act"]["pending_dialogs"][0]["type"],
        json!("alert"),
        "{r}"
    );
    assert_eq!(r["act"]["console"][0]["text"], json!("before"), "{r}");
    let d = r["act"]["ended_by_dialog"].clone();
    cli.send(json!({"id": 3, "cmd": "act", "action": "press", "key": "Tab"}));
    let r = cli.expect("refused while the alert shows", is_result(3));
    assert_eq!(r["code"], json!("blocked"), "{r}");
    cli.send(json!({"id": 4, "cmd": "dialog", "action": "accept", "dialog_id": d}));
    cli.expect("answered", is_result(4));
    // `wait: load`: answered at the new page's load, not before it started.
    cli.send(json!({"id": 5, "cmd": "act", "action": "click", "x": 50, "y": 20, "wait": "load"}));
    let r = cli.expect("click on the link", is_result(5));
    assert_eq!(r["act"]["settled"], json!(true), "{r}");
    assert_eq!(r["act"]["navigated"], json!(true), "{r}");
    assert!(
        r["act"]["url"].as_str().unwrap().ends_with("/nested"),
        "{r}"
    );
    assert_eq!(r["act"]["console"], json!([]), "{r}");
    assert_eq!(r["act"]["screenshot"]["mime"], json!("image/webp"), "{r}");
    let data = r["act"]["screenshot"]["data"].as_str().unwrap();
    assert!(data.starts_with("UklGR"), "RIFF header"); // base64 of "RIF"
    cli.send(json!({"id": 6, "cmd": "act", "action": "click"}));
    let r = cli.expect("bad request", is_result(6));
    assert_eq!(r["type"], json!("error"));
    assert_eq!(r["code"], json!("bad_request"), "{r}");
    cli.send(json!({"id": 7, "cmd": "stop"}));
    cli.expect("stopped", is_result(7));
}

/// The tab commands over stdin: `tabs`, `tab_new` (answered once listed, current, with the
/// `tab_opened` / `current_tab` diffs on stdout), a `tab_id` on `evaluate`, `tab_select`,
/// `tab_close` (a `tab_closed` diff), `no_such_tab` for a tab that is gone; a crashed tab
/// answers `crashed` and `recover` with its `tab_id` reloads it.
#[test]
fn tabs_through_stdin() {
    let Some(browser) = browser_or_skip("cli-tabs") else {
        return;
    };
    let site = DemoSite::start().unwrap();
    let mut cli = watch_live(&["watch", "--cdp", &browser.http_url()]);
    cli.send(json!({"id": 1, "cmd": "tabs"}));
    let r = cli.expect("tabs", is_result(1));
    let tabs = r["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 1, "{r}");
    assert_eq!(tabs[0]["current"], true, "{r}");
    let first = tabs[0]["tab_id"].clone();

    cli.send(json!({"id": 2, "cmd": "tab_new", "url": site.url("/nested")}));
    let r = cli.expect("tab_new", is_result(2));
    assert_eq!(r["type"], "result", "{r}");
    let second = r["tab"]["tab_id"].clone();
    assert!(second.is_string() && second != first, "{r}");
    assert_eq!(r["tab"]["current"], true, "{r}");
    assert_eq!(r["tab"]["opener_tab_id"], Value::Null, "{r}");
    cli.expect("tab_opened diff", |v| {
        v["op"] == "tab_opened" && v["tab"]["tab_id"] == second
    });
    cli.expect("current_tab diff", |v| {
        v["op"] == "current_tab" && v["tab_id"] == second
    });
    // Without tab_id: the current (new) tab; with it: the first.
    let end = Instant::now() + WAIT;
    loop {
        cli.send(json!({"id": 3, "cmd": "evaluate", "expression": "document.title"}));
        let r = cli.expect("evaluate in the new tab", is_result(3));
        if r["value"] == "nested frame" {
            break;
        }
        // The page may still be loading: the snapshot has no event for "loaded".
        assert!(Instant::now() < end, "{r}");
        std::thread::sleep(Duration::from_millis(50));
    }
    cli.send(json!({"id": 4, "cmd": "evaluate", "expression": "location.href", "tab_id": first}));
    let r = cli.expect("evaluate in the first tab", is_result(4));
    assert_eq!(r["value"], "about:blank", "{r}");

    cli.send(json!({"id": 5, "cmd": "tab_select", "tab_id": first}));
    let r = cli.expect("tab_select", is_result(5));
    assert_eq!(
        (&r["tab"]["tab_id"], &r["tab"]["current"]),
        (&first, &json!(true)),
        "{r}"
    );
    cli.send(json!({"id": 6, "cmd": "tab_close", "tab_id": second, "force": false}));
    let r = cli.expect("tab_close", is_result(6));
    assert_eq!(
        r,
        json!({"type": "result", "id": 6, "tab_id": second, "closed": true})
    );
    cli.expect("tab_closed diff", |v| {
        v["op"] == "tab_closed" && v["tab_id"] == second
    });
    for (id, line) in [
        (7, json!({"id": 7, "cmd": "tab_select", "tab_id": second})),
        (
            8,
            json!({"id": 8, "cmd": "evaluate", "expression": "1", "tab_id": second}),
        ),
        (
            9,
            json!({"id": 9, "cmd": "cdp", "method": "Runtime.evaluate", "params": {"expression": "1"}, "tab_id": second}),
        ),
    ] {
        cli.send(line);
        let r = cli.expect("a tab that is gone", is_result(id));
        assert_eq!(
            (&r["type"], &r["code"]),
            (&json!("error"), &json!("no_such_tab")),
            "{r}"
        );
    }

    // A crashed tab (on the other site: a renderer of its own).
    cli.send(json!({"id": 10, "cmd": "tab_new", "url": site.cross_url("/nested")}));
    let crashing = cli.expect("tab_new", is_result(10))["tab"]["tab_id"].clone();
    // Loaded first: Chromium refuses to crash a page with a navigation pending.
    let end = Instant::now() + WAIT;
    loop {
        cli.send(json!({"id": 20, "cmd": "evaluate", "expression": "document.readyState", "tab_id": crashing}));
        if cli.expect("readyState", is_result(20))["value"] == "complete" {
            break;
        }
        assert!(Instant::now() < end, "the tab never loaded");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Page.crash never replies (Chromium facts: "A crash, a title, a reload"): its line comes
    // when the crash is seen.
    cli.send(json!({"id": 11, "cmd": "cdp", "method": "Page.crash", "tab_id": crashing}));
    cli.expect("tab crashed", |v| {
        v["op"] == "tab_updated" && v["tab"]["tab_id"] == crashing && v["tab"]["state"] == "crashed"
    });
    cli.send(json!({"id": 12, "cmd": "evaluate", "expression": "1"}));
    let r = cli.expect("crashed", is_result(12));
    assert_eq!(r["code"], "crashed", "{r}");
    cli.send(json!({"id": 13, "cmd": "evaluate", "expression": "document.title", "tab_id": first}));
    let r = cli.expect("the first tab works on", is_result(13));
    assert_eq!(r["value"], "", "about:blank has no title: {r}");
    cli.send(json!({"id": 14, "cmd": "recover", "tab_id": crashing}));
    let r = cli.expect("recover", is_result(14));
    assert_eq!(r["type"], "result", "{r}");
    cli.expect("tab live again", |v| {
        v["op"] == "tab_updated" && v["tab"]["tab_id"] == crashing && v["tab"]["state"] == "live"
    });
    cli.send(json!({"id": 15, "cmd": "tab_close", "force": true}));
    let r = cli.expect("tab_close of the current tab", is_result(15));
    assert_eq!(
        (&r["tab_id"], &r["closed"]),
        (&crashing, &json!(true)),
        "{r}"
    );
    cli.send(json!({"id": 16, "cmd": "tabs"}));
    let r = cli.expect("tabs", is_result(16));
    assert_eq!(r["tabs"].as_array().unwrap().len(), 1, "{r}");
    stop_exits_0(&mut cli, 17);
}

/// A file chooser over stdin: a click on a file input gives a `dialog_opened` of type
/// `file_chooser`; `dialog` with `files` outside `--upload-root` is refused naming the
/// flag, inside it the page's `change` handler sees the file.
#[test]
fn file_chooser_through_stdin() {
    let Some(browser) = browser_or_skip("cli-file-chooser") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h25-cli-upload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("note.txt");
    std::fs::write(&file, "twelve bytes").unwrap();
    let root = dir.to_string_lossy().into_owned();
    let mut cli = watch_live(&[
        "watch",
        "--cdp",
        &browser.http_url(),
        "--upload-root",
        &root,
    ]);
    let page = "data:text/html,<input type=file id=f style='position:absolute;left:0;top:0;width:150px;height:40px'>\
        <script>window.seen='';f.onchange=e=>{seen=f.files[0].name+':'+f.files[0].size}</script>";
    cli.send(json!({"id": 1, "cmd": "act", "action": "navigate", "url": page}));
    cli.expect("navigate", is_result(1));
    cli.send(json!({"id": 2, "cmd": "act", "action": "click", "x": 20, "y": 20}));
    cli.expect("click", is_result(2));
    let opened = cli.expect("chooser", |v| {
        v["op"] == "dialog_opened" && v["dialog"]["type"] == "file_chooser"
    });
    let id = opened["dialog"]["id"].clone();
    assert_eq!(opened["dialog"]["mode"], "selectSingle", "{opened}");
    cli.send(json!({"id": 3, "cmd": "dialog", "files": ["/etc/hostname"], "dialog_id": id}));
    let e = cli.expect("refused", is_result(3));
    assert_eq!(e["code"], "upload_refused", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("--upload-root"),
        "{e}"
    );
    cli.send(json!({"id": 4, "cmd": "dialog", "files": [file.to_string_lossy()], "dialog_id": id}));
    let r = cli.expect("uploaded", is_result(4));
    assert_eq!(r["dialog"]["accepted"], true, "{r}");
    cli.send(json!({"id": 5, "cmd": "evaluate", "expression": "seen"}));
    let r = cli.expect("seen", is_result(5));
    assert_eq!(r["value"], "note.txt:12", "{r}");
    stop_exits_0(&mut cli, 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[path = "../../e2e/tests/support/input_site.rs"]
mod input_site;

/// `act` actions `hover`, `select`, `fill`, `drag` over stdin, by ref, Playwright MCP's
/// argument names as aliases: a :hover menu in a nested OOPIF shows in the next
/// `ax_snapshot`; a `<select>` in an OOPIF takes an option by label; five fields in two
/// frames in one call; a sortable list reordered by drag; a value that matches no option is
/// a `bad_request` naming it.
#[test]
fn form_and_pointer_actions_through_stdin() {
    let Some(browser) = browser_or_skip("cli-toolbox-input") else {
        return;
    };
    let site = input_site::start();
    let mut cli = watch_live(&["watch", "--cdp", &browser.http_url()]);
    let top = site.url("/");
    cli.send(json!({"id": 1, "cmd": "act", "action": "navigate", "url": top}));
    cli.expect("navigate", is_result(1));
    let find = |ax: &Value, role: &str, name: &str| {
        ax["refs"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["role"] == role && r["name"] == name)
            .map(|r| r["ref"].as_str().unwrap_or_default().to_owned())
    };
    let mut id = 10;
    let mut snapshot = |cli: &mut Sidecar, role: &str, name: &str| {
        let end = Instant::now() + WAIT;
        loop {
            id += 1;
            cli.send(json!({"id": id, "cmd": "ax_snapshot", "timeout_ms": 5000}));
            let ax = cli.expect("ax result", is_result(id))["ax"].clone();
            if find(&ax, role, name).is_some() {
                return ax;
            }
            assert!(Instant::now() < end, "no {role} {name}: {ax}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let ax = snapshot(&mut cli, "button", "Menu");
    let ax = match find(&ax, "listitem", "H3") {
        Some(_) => ax,
        None => snapshot(&mut cli, "listitem", "H3"),
    };
    let r = |role: &str, name: &str| find(&ax, role, name).unwrap();
    cli.send(json!({"id": 2, "cmd": "act", "action": "hover", "target": r("button", "Menu")}));
    let a = cli.expect("hover", is_result(2));
    assert!(
        a["act"]["console"].to_string().contains("menu hovered"),
        "{a}"
    );
    snapshot(&mut cli, "link", "Secret item");
    let color = r("combobox", "Color");
    cli.send(json!({"id": 3, "cmd": "act", "action": "select", "ref": color, "values": ["Green"]}));
    let a = cli.expect("select", is_result(3));
    assert!(
        a["act"]["console"]
            .to_string()
            .contains("color changed to g"),
        "{a}"
    );
    cli.send(json!({"id": 4, "cmd": "evaluate", "expression": "el => el.value", "ref": color}));
    assert_eq!(cli.expect("value", is_result(4))["value"], "g");
    cli.send(json!({"id": 5, "cmd": "act", "action": "select", "ref": color, "values": ["Mauve"]}));
    let e = cli.expect("no such option", is_result(5));
    assert_eq!(e["code"], "bad_request", "{e}");
    assert!(e["message"].as_str().unwrap().contains("\"Mauve\""), "{e}");
    cli.send(json!({"id": 6, "cmd": "act", "action": "fill", "fields": [
        {"ref": r("textbox", "Name"), "value": "Ada"},
        {"target": r("textbox", "Bio"), "value": "Hi", "name": "Bio"},
        {"ref": r("checkbox", "Agree"), "value": "true", "type": "checkbox"},
        {"ref": r("radio", "Large"), "value": "true"},
        {"ref": color, "value": "Blue", "type": "combobox"},
    ]}));
    let a = cli.expect("fill", is_result(6));
    assert_eq!(a["act"]["fields"].as_array().map(Vec::len), Some(5), "{a}");
    cli.send(json!({"id": 7, "cmd": "evaluate", "expression":
        "[document.getElementById('name').value, document.getElementById('bio').value, document.getElementById('agree').checked].join()"}));
    assert_eq!(
        cli.expect("top fields", is_result(7))["value"],
        "Ada,Hi,true"
    );
    cli.send(json!({"id": 8, "cmd": "evaluate", "expression": "el => el.value", "ref": color}));
    assert_eq!(cli.expect("select", is_result(8))["value"], "b");
    cli.send(json!({"id": 9, "cmd": "act", "action": "drag", "ref": r("listitem", "M1"), "to_ref": r("listitem", "M3")}));
    cli.expect("drag", is_result(9));
    cli.send(json!({"id": 100, "cmd": "act", "action": "drag", "startRef": r("listitem", "H1"), "endRef": r("listitem", "H3")}));
    cli.expect("html5 drag", is_result(100));
    cli.send(json!({"id": 101, "cmd": "evaluate", "expression": "order('mlist') + ' ' + order('hlist')"}));
    assert_eq!(
        cli.expect("orders", is_result(101))["value"],
        "M2,M3,M1 H2,H3,H1"
    );
    stop_exits_0(&mut cli, 102);
}

#[path = "../../e2e/tests/support/toolbox_site.rs"]
mod toolbox_site;

#[path = "../../e2e/tests/support/site.rs"]
mod site;

/// The rest of the toolbox over stdin: `find` by role answers the OOPIF's button with its
/// ref and frame; `wait` for text that appears 800 ms later inside the OOPIF, for text that
/// never comes (a `timeout` error at its budget); `resize` seen by `matchMedia`; the found
/// ref clicked; `back` and `forward`; a `find` without a criterion is `bad_request`.
#[test]
fn toolbox_through_stdin() {
    let Some(browser) = browser_or_skip("cli-toolbox") else {
        return;
    };
    let site = toolbox_site::start();
    let mut cli = watch_live(&["watch", "--cdp", &browser.http_url()]);
    cli.send(json!({"id": 1, "cmd": "act", "action": "navigate", "url": site.url("/wait")}));
    let r = cli.expect("navigate", is_result(1));
    assert_eq!(r["act"]["settled"], true, "{r}");
    cli.send(json!({"id": 2, "cmd": "find", "role": "button", "text": "frame button"}));
    let r = cli.expect("find", is_result(2));
    assert_eq!(r["find"]["total"], 1, "{r}");
    let button = r["find"]["matches"][0].clone();
    let frame = button["frame_id"].clone();
    assert!(
        button["line"].as_str().unwrap().contains("Frame button"),
        "{r}"
    );
    cli.send(
        json!({"id": 3, "cmd": "evaluate", "expression": "window.later(800)", "frame_id": frame}),
    );
    cli.expect("scheduled", is_result(3));
    let started = Instant::now();
    cli.send(json!({"id": 4, "cmd": "act", "action": "wait", "text": "Arrived late", "timeout_ms": 10000}));
    let r = cli.expect("wait for text", is_result(4));
    let took = started.elapsed();
    eprintln!("sidecar wait for text: {took:?}");
    assert_eq!(r["act"]["settled"], true, "{r}");
    assert!(
        took >= Duration::from_millis(700) && took < Duration::from_secs(4),
        "{took:?}"
    );
    let started = Instant::now();
    cli.send(
        json!({"id": 5, "cmd": "act", "action": "wait", "text": "Never here", "timeout_ms": 1000}),
    );
    let r = cli.expect("wait in vain", is_result(5));
    let took = started.elapsed();
    eprintln!("sidecar wait in vain: {took:?}");
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "timeout", "{r}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(4),
        "{took:?}"
    );
    cli.send(json!({"id": 6, "cmd": "act", "action": "resize", "width": 500, "height": 400}));
    cli.expect("resize", is_result(6));
    cli.send(json!({"id": 7, "cmd": "evaluate", "expression": "window.narrow"}));
    assert_eq!(cli.expect("narrow", is_result(7))["value"], true);
    cli.send(json!({"id": 8, "cmd": "act", "action": "click", "ref": button["ref"]}));
    cli.expect("click", is_result(8));
    cli.send(
        json!({"id": 9, "cmd": "evaluate", "expression": "window.clicked", "frame_id": frame}),
    );
    assert_eq!(cli.expect("clicked", is_result(9))["value"], 1);
    for (id, path) in [(10, "/h1"), (11, "/h2")] {
        cli.send(json!({"id": id, "cmd": "act", "action": "navigate", "url": site.url(path)}));
        cli.expect("navigate", is_result(id));
    }
    cli.send(json!({"id": 12, "cmd": "act", "action": "back"}));
    let r = cli.expect("back", is_result(12));
    assert!(r["act"]["url"].as_str().unwrap().ends_with("/h1"), "{r}");
    cli.send(json!({"id": 13, "cmd": "act", "action": "forward"}));
    let r = cli.expect("forward", is_result(13));
    assert!(r["act"]["url"].as_str().unwrap().ends_with("/h2"), "{r}");
    assert_eq!(r["act"]["settled"], true, "{r}");
    cli.send(json!({"id": 14, "cmd": "find"}));
    let r = cli.expect("bad find", is_result(14));
    assert_eq!(r["code"], "bad_request", "{r}");
    stop_exits_0(&mut cli, 15);
}

#[path = "../../e2e/tests/support/auth_site.rs"]
mod auth_site;

/// HTTP sign-in over stdin: with `--http-auth` a challenge is a `dialog_opened` of type
/// `http_auth` (origin and realm), the `act` loading it ends at once naming it, and a
/// `dialog` with `username`/`password` loads the page; with wrong `--http-credentials` for
/// the other origin, a `http_auth_rejected` warning line comes within a second. The
/// password is on no stdout line and in no trace.
#[test]
fn http_auth_through_stdin() {
    let Some(browser) = browser_or_skip("cli-http-auth") else {
        return;
    };
    let site = auth_site::AuthSite::start();
    let port = site.port();
    // A folder of its own: the shared traces folder is another test's to clear.
    let trace =
        std::env::temp_dir().join(format!("h25-cli-http-auth-{}.jsonl", std::process::id()));
    let wrong = format!("http://localhost:{port}=user:wrong-{}", auth_site::PASSWORD);
    let mut cli = watch_live(&[
        "watch",
        "--cdp",
        &browser.http_url(),
        "--http-auth",
        "--http-credentials",
        &wrong,
        "--record",
        trace.to_str().unwrap(),
    ]);
    let secret = site.url("127.0.0.1", "/secret");
    let t0 = Instant::now();
    cli.send(json!({"id": 1, "cmd": "act", "action": "navigate", "url": secret}));
    let opened = cli.expect("the challenge", |v| {
        v["op"] == "dialog_opened" && v["dialog"]["type"] == "http_auth"
    });
    let d = &opened["dialog"];
    assert_eq!(
        d["auth"]["origin"],
        format!("http://127.0.0.1:{port}"),
        "{opened}"
    );
    assert_eq!(d["auth"]["realm"], "e2e", "{opened}");
    let r = cli.expect("the navigation's answer", is_result(1));
    assert_eq!(r["act"]["ended_by_dialog"], d["id"], "{r}");
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    cli.send(json!({"id": 2, "cmd": "dialog", "username": "user",
        "password": auth_site::PASSWORD, "dialog_id": d["id"]}));
    let r = cli.expect("signed in", is_result(2));
    assert_eq!(r["dialog"]["accepted"], true, "{r}");
    let end = Instant::now() + WAIT;
    let mut n = 3;
    loop {
        cli.send(json!({"id": n, "cmd": "evaluate", "expression": "document.title"}));
        if cli.expect("the title", is_result(n))["value"] == "inside" {
            break;
        }
        assert!(
            Instant::now() < end,
            "the page never loaded after the sign-in"
        );
        std::thread::sleep(Duration::from_millis(100));
        n += 1;
    }

    let t0 = Instant::now();
    cli.send(json!({"id": 100, "cmd": "cdp", "method": "Page.navigate",
        "params": {"url": site.url("localhost", "/secret")}}));
    let w = cli.expect("the rejection", |v| v["type"] == "warning");
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!(w["code"], "http_auth_rejected", "{w}");
    assert_eq!(w["origin"], format!("http://localhost:{port}"), "{w}");
    stop_exits_0(&mut cli, 101);
    let said = serde_json::to_string(&cli.seen).unwrap();
    assert!(!said.contains(auth_site::PASSWORD), "a password on stdout");
    let recorded = std::fs::read_to_string(&trace).unwrap();
    assert!(recorded.contains("Fetch.continueWithAuth") && !recorded.contains(auth_site::PASSWORD));
    let _ = std::fs::remove_file(&trace);
}

/// `network` through stdin: the demo's cross-site iframe and a 404 fetched from inside it
/// are listed, each with its frame; one request comes back with its headers (the
/// `Authorization` redacted, as the `?key=` in its URL) and its body; the next `network`
/// lists only what came since.
#[test]
fn network_through_stdin() {
    let Some(browser) = browser_or_skip("cli-network") else {
        return;
    };
    let (_site, mut cli) = watching_the_demo(&browser);
    let cross = cli.expect("the cross-site OOPIF", |v| {
        v["type"] == "diff"
            && v["frame"]["is_oopif"] == true
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/cross"))
    })["frame"]["frame_id"]
        .clone();
    let nested = nested_oopif_id(&mut cli);
    cli.send(json!({"id": 2, "cmd": "evaluate", "frame_id": cross,
        "expression": "fetch('/missing?key=SECRET1', {headers: {Authorization: 'Bearer SECRET2'}}).then(r => r.text()).then(() => 1)"}));
    let r = cli.expect("the fetch", is_result(2));
    assert_eq!(r["value"], 1, "{r}");

    let mut listed: Vec<Value> = Vec::new();
    let end = Instant::now() + WAIT;
    let mut id = 10;
    let missing = loop {
        cli.send(json!({"id": id, "cmd": "network"}));
        let r = cli.expect("network", is_result(id));
        assert_eq!(r["type"], "result", "{r}");
        listed.extend(r["requests"].as_array().unwrap().iter().cloned());
        let found = listed.iter().find(|q| {
            q["url"].as_str().is_some_and(|u| u.contains("/missing")) && q["state"] != "pending"
        });
        if let Some(m) = found {
            break m.clone();
        }
        assert!(Instant::now() < end, "no finished /missing: {listed:#?}");
        std::thread::sleep(Duration::from_millis(50));
        id += 1;
    };
    let of = |path: &str| {
        listed
            .iter()
            .find(|q| q["url"].as_str().is_some_and(|u| u.ends_with(path)))
            .unwrap_or_else(|| panic!("{path} not listed: {listed:#?}"))
            .clone()
    };
    assert_eq!(missing["status"], 404, "{missing}");
    assert_eq!(
        missing["frame_id"], cross,
        "a request from inside the OOPIF names its frame"
    );
    assert!(
        missing["url"]
            .as_str()
            .unwrap()
            .ends_with("/missing?key=<redacted>"),
        "{missing}"
    );
    assert_eq!(
        of("/cross")["frame_id"],
        cross,
        "the iframe's document names its frame"
    );
    assert_eq!(
        of("/nested")["frame_id"],
        nested,
        "the nested OOPIF's document too"
    );
    let indexes: Vec<u64> = listed
        .iter()
        .map(|q| q["index"].as_u64().unwrap())
        .collect();
    assert!(
        indexes.windows(2).all(|w| w[0] < w[1]),
        "each listed once, in order: {indexes:?}"
    );

    cli.send(json!({"id": 3, "cmd": "network", "index": missing["index"]}));
    let r = cli.expect("one request", is_result(3));
    let request = &r["request"];
    let auth = request["request_headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("authorization"))
        })
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(auth["value"], "<redacted>");
    assert_eq!(request["response_body"]["text"], "not found\n", "{r}");
    assert_eq!(request["response_body"]["truncated"], false, "{r}");
    assert!(
        cli.seen.iter().all(|l| !l.to_string().contains("SECRET")),
        "a secret was printed"
    );

    cli.send(json!({"id": 4, "cmd": "network"}));
    let r = cli.expect("network again", is_result(4));
    let again = r["requests"].as_array().unwrap();
    assert!(
        again
            .iter()
            .all(|q| q["index"].as_u64() > indexes.last().copied()),
        "only what came since: {r}"
    );
    cli.send(json!({"id": 5, "cmd": "network", "index": 100000}));
    let r = cli.expect("an unknown index", is_result(5));
    assert_eq!(
        (r["type"].as_str(), r["code"].as_str()),
        (Some("error"), Some("no_such_request")),
        "{r}"
    );
    cli.send(json!({"id": 6, "cmd": "network", "index": 0}));
    let r = cli.expect("a bad index", is_result(6));
    assert_eq!(r["code"], "bad_request", "{r}");
    stop_exits_0(&mut cli, 7);
}
