//! End-to-end against a real Selenium Grid 4 on loopback (a standalone server started
//! here, one for the whole file: a JVM starts slowly): `cdp-supervise watch --grid`
//! supervises the Grid's Chromium with frames, OOPIFs and dialogs as it does a local one,
//! and the Grid holds no session afterwards, whether the run ends well, on an error (the
//! session deleted under the open socket: the heartbeat finds the silence, the reconnect
//! is refused with `session_gone`, exit 1) or on SIGINT; a session that waits in a full
//! Grid's queue longer than `--grid-timeout` is given up with a clear error, and the Grid
//! drops the request; `mcp --grid` navigates the Grid's browser, answers a dialog there,
//! and deletes the session at the end of input and on SIGINT; with its session deleted
//! under it, a call answers `isError` naming the session gone and the next runs on a new
//! session.

mod support;

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use cdp_supervise::demo::DemoSite;
use cdp_supervisor_grid::local::{missing, LocalGrid};
use cdp_supervisor_grid::sessions;
use serde_json::{json, Value};
use support::{is_result, Sidecar};

/// Generous bound for waits on a loaded 2-core machine (a Grid session starts a
/// chromedriver and a Chromium).
const WAIT: Duration = Duration::from_secs(40);

/// The capabilities of every session: the Debian Chromium, headless, every cross-site
/// frame in its own process.
fn capabilities() -> String {
    let binary = cdp_supervisor_chromium::find_chromium()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    json!({"browserName": "chrome", "goog:chromeOptions": {"binary": binary, "args": [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--site-per-process"]}})
    .to_string()
}

/// Whether a Grid can run here: when something is missing, a run with `CI` set fails,
/// elsewhere the test says SKIPPED loudly.
fn grid_for_test(test: &str) -> bool {
    let Some(what) = missing() else {
        return true;
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: cannot run a Selenium Grid and CI is set: missing {what}"
    );
    eprintln!("\n!!!!! SKIPPED {test}: cannot run a Selenium Grid: missing {what} !!!!!\n");
    false
}

/// The Grid session's id, from the stderr line that names it.
fn grid_session(cli: &Sidecar) -> String {
    let stderr = cli.stderr.as_ref().expect("stderr captured");
    let end = Instant::now() + WAIT;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let line = stderr.recv_timeout(left).expect("no Grid session line");
        if let Some(rest) = line.strip_prefix("cdp-supervise: Grid session ") {
            return rest.split(' ').next().unwrap().to_owned();
        }
    }
}

/// `cdp-supervise ARGS`, its stderr kept, waiting [`WAIT`] for a line.
fn spawn(args: &[&str]) -> Sidecar {
    Sidecar::spawn_capturing(args).waiting(WAIT)
}

/// `DELETE /session/ID` on the Grid, by hand: its status line.
fn delete_behind_its_back(grid: &str, id: &str) -> String {
    use std::io::Read;
    let authority = grid.strip_prefix("http://").unwrap();
    let mut tcp = std::net::TcpStream::connect(authority).unwrap();
    let request =
        format!("DELETE /session/{id} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = tcp.read_to_string(&mut reply);
    reply.lines().next().unwrap_or("").to_owned()
}

/// The MCP handshake of a test client.
fn mcp_initialize(mcp: &mut Sidecar) {
    mcp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "grid-test", "version": "1"}}}),
    );
    mcp.expect("initialize", |v| v["id"] == 1);
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// Calls tool `name` as request `id`; its answer.
fn mcp_call(mcp: &mut Sidecar, id: i64, name: &str, arguments: Value) -> Value {
    mcp.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}}));
    mcp.expect(name, |v| v["id"] == id)
}

fn live(v: &Value) -> bool {
    v["op"] == "page" && v["page"]["state"] == "live"
}

/// Whether `cond` holds within `within` (polled).
fn wait_until(within: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The Grid holds no session (within a few seconds: a DELETE is answered before the
/// Grid's status shows the slot free).
fn assert_no_session(grid: &LocalGrid, when: &str) {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let held = sessions(grid.url()).unwrap();
        if held.is_empty() {
            return;
        }
        assert!(
            Instant::now() < end,
            "{when}: the Grid still holds {held:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn watch_supervises_a_grid_browser_and_leaves_no_session() {
    if !grid_for_test("grid") || cdp_supervisor_chromium::find_chromium().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "grid: no Chromium and CI is set"
        );
        return;
    }
    let grid = LocalGrid::standalone(1).expect("a standalone Grid");
    let caps = capabilities();
    let site = DemoSite::start().unwrap();
    let watch = |extra: &[&str]| {
        let mut args = vec!["watch", "--grid", grid.url(), "--grid-capabilities", &caps];
        args.extend(["--format", "json"]);
        args.extend(extra);
        spawn(&args)
    };

    // 1. Frames, OOPIFs and dialogs as on a local browser; `stop` exits 0, no session left.
    let mut cli = watch(&[]);
    cli.expect("page live", live);
    cli.send(json!({"id": 1, "cmd": "cdp", "method": "Page.navigate", "params": {"url": site.top_url(false)}}));
    assert_eq!(cli.expect("navigate", is_result(1))["type"], "result");
    let nested = cli.expect("the nested OOPIF", |v| {
        v["type"] == "diff"
            && v["frame"]["is_oopif"] == true
            && v["frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/nested"))
    })["frame"]["frame_id"]
        .clone();
    cli.send(
        json!({"id": 2, "cmd": "cdp", "method": "Runtime.evaluate", "frame_id": nested,
        "params": {"expression": "confirm('from the grid')", "returnByValue": true}}),
    );
    let blocked = cli.expect("blocked", |v| v["type"] == "blocked" && v["id"] == 2);
    let dialog_id = blocked["dialog_id"].clone();
    cli.send(json!({"id": 3, "cmd": "dialog", "action": "accept", "dialog_id": dialog_id}));
    assert_eq!(
        cli.expect("dialog", is_result(3))["dialog"]["closed_by"],
        "agent"
    );
    let evaluated = cli.expect("evaluate", is_result(2));
    assert_eq!(evaluated["result"]["result"]["value"], true, "{evaluated}");
    cli.send(json!({"id": 4, "cmd": "evaluate", "expression": "location.href"}));
    assert_eq!(
        cli.expect("evaluate", is_result(4))["value"],
        site.top_url(false)
    );
    cli.send(json!({"id": 5, "cmd": "stop"}));
    cli.expect("stopped", is_result(5));
    assert_eq!(cli.exit_code(WAIT), Some(0));
    assert_no_session(&grid, "after stop");

    // 2. SIGINT: the session is deleted on the way out.
    let mut cli = watch(&[]);
    cli.expect("page live", live);
    let pid = cli.child.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    cli.exit_code(WAIT);
    assert_no_session(&grid, "after SIGINT");

    // 3. A full Grid: the second session waits in the queue, given up after --grid-timeout;
    // the Grid drops the request (its client hung up), so that no browser is made for it
    // once the slot frees.
    let mut holder = watch(&[]);
    holder.expect("page live", live);
    let started = Instant::now();
    let mut queued = watch(&["--grid-timeout", "4"]);
    let in_queue = wait_until(Duration::from_secs(4), || grid.queued() == Some(1));
    assert!(in_queue, "the request never waited in the queue");
    assert_eq!(queued.exit_code(WAIT), Some(1));
    let waited = started.elapsed();
    let said = queued.stderr_text();
    assert!(said.contains("gave no session within 4s"), "{said}");
    assert!(waited < Duration::from_secs(15), "{waited:?}");
    let dropped = wait_until(Duration::from_secs(5), || grid.queued() == Some(0));
    assert!(dropped, "the Grid still queues the given-up request");

    // 4. The session deleted under the open socket (the Grid's session timeout does the
    // same): the socket stays open and silent; the heartbeat finds it, the reconnect is
    // refused with HTTP 400, said as the session gone, and watch exits 1 at once.
    holder.send(json!({"id": 1, "cmd": "stop"}));
    assert_eq!(holder.exit_code(WAIT), Some(0));
    assert_no_session(&grid, "after the holder stopped");
    // The freed slot is not taken by the given-up request a moment later either.
    std::thread::sleep(Duration::from_secs(2));
    assert_no_session(&grid, "after the slot freed");
    let mut cli = watch(&["--heartbeat", "1"]);
    let id = grid_session(&cli);
    cli.expect("page live", live);
    let status = delete_behind_its_back(grid.url(), &id);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let gone_at = Instant::now();
    assert_eq!(cli.exit_code(WAIT), Some(1));
    let said = cli.stderr_text();
    assert!(said.contains("silent"), "{said}");
    assert!(said.contains("session behind the URL is gone"), "{said}");
    assert!(
        gone_at.elapsed() < Duration::from_secs(15),
        "{:?}",
        gone_at.elapsed()
    );
    assert_no_session(&grid, "after the session was deleted under the socket");

    // 5. `mcp --grid`: a tool call on the Grid's browser; end of input deletes the session.
    let mut mcp = spawn(&["mcp", "--grid", grid.url(), "--grid-capabilities", &caps]);
    mcp_initialize(&mut mcp);
    let navigated = mcp_call(
        &mut mcp,
        2,
        "browser_navigate",
        json!({"url": site.top_url(false)}),
    );
    assert!(navigated["result"]["isError"] != true, "{navigated}");
    // A dialog on the Grid's browser, named in the call's result and answered.
    mcp.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "browser_evaluate", "arguments": {"expression": "confirm('grid mcp')"}}}),
    );
    let blocked = mcp.expect("browser_evaluate", |v| v["id"] == 3).to_string();
    let dialog = blocked
        .split("- d-")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .map(|n| format!("d-{n}"));
    let dialog = dialog.unwrap_or_else(|| panic!("no pending dialog named: {blocked}"));
    assert!(blocked.contains("confirm"), "{blocked}");
    mcp.send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "browser_handle_dialog", "arguments": {"accept": true, "dialog_id": dialog}}}),
    );
    let answered = mcp.expect("browser_handle_dialog", |v| v["id"] == 4);
    assert!(answered["result"]["isError"] != true, "{answered}");
    let answered = answered.to_string();
    assert!(answered.contains("Pending dialogs: none"), "{answered}");
    assert_eq!(
        sessions(grid.url()).unwrap().len(),
        1,
        "the server's session"
    );
    drop(mcp.stdin.take());
    assert_eq!(mcp.exit_code(WAIT), Some(0));
    assert_no_session(&grid, "after mcp's end of input");

    // 6. `mcp --grid` whose session is deleted under it: calls answer `isError` (none
    // hangs) until one names the session gone (the heartbeat finds the silence, the
    // reconnect's 400 ends it); the server lets that browser go, the next call runs on a
    // new Grid session, and end of input deletes it: exit 0, nothing left.
    let mut mcp = spawn(&[
        "mcp",
        "--grid",
        grid.url(),
        "--grid-capabilities",
        &caps,
        "--heartbeat",
        "1",
    ]);
    let id = grid_session(&mcp);
    mcp_initialize(&mut mcp);
    let r = mcp_call(
        &mut mcp,
        2,
        "browser_navigate",
        json!({"url": site.top_url(false)}),
    );
    assert!(r["result"]["isError"] != true, "{r}");
    let status = delete_behind_its_back(grid.url(), &id);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let gone_at = Instant::now();
    let mut call = 3;
    loop {
        let asked = Instant::now();
        let r = mcp_call(
            &mut mcp,
            call,
            "browser_evaluate",
            json!({"expression": "1 + 1"}),
        );
        let took = asked.elapsed();
        eprintln!("call {call}, {:?} after the delete: {r}", gone_at.elapsed());
        assert_eq!(r["result"]["isError"], true, "call {call}: {r}");
        assert!(took < Duration::from_secs(15), "call {call} took {took:?}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
        if text.contains("session behind the URL is gone") {
            assert!(text.contains("the next call starts a new one"), "{text}");
            break;
        }
        assert!(
            gone_at.elapsed() < WAIT,
            "no call named the session gone: {r}"
        );
        std::thread::sleep(Duration::from_millis(250));
        call += 1;
    }
    assert_no_session(&grid, "after mcp's session was deleted under it");
    let r = mcp_call(
        &mut mcp,
        100,
        "browser_evaluate",
        json!({"expression": "6 * 7"}),
    );
    assert!(r["result"]["isError"] != true, "a new session: {r}");
    assert!(r.to_string().contains("42"), "{r}");
    let held = sessions(grid.url()).unwrap();
    assert!(held.len() == 1 && !held.contains(&id), "{held:?}");
    drop(mcp.stdin.take());
    assert_eq!(mcp.exit_code(WAIT), Some(0));
    assert_no_session(&grid, "after the new session's end of input");
    assert!(grid.leftovers().is_empty(), "{:?}", grid.leftovers());

    // 7. `mcp --grid` stopped by SIGINT while its session is held: deleted on the way out.
    let mut mcp = spawn(&["mcp", "--grid", grid.url(), "--grid-capabilities", &caps]);
    let id = grid_session(&mcp);
    assert!(sessions(grid.url()).unwrap().contains(&id), "{id} held");
    let pid = mcp.child.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    mcp.exit_code(WAIT);
    assert_no_session(&grid, "after mcp's SIGINT");
    assert!(grid.leftovers().is_empty(), "{:?}", grid.leftovers());
}
