//! End-to-end: faults the sidecar and the MCP server survive, on a real Chromium.
//!
//! - `kill -9` of `cdp-supervise watch` or `cdp-supervise mcp` leaves no Chromium of theirs
//!   running and no profile directory behind (the launcher's reaper, see
//!   `cdp-supervisor-chromium`), and a normal exit still cleans up.
//! - A browser killed and another started behind the same endpoint (a loopback relay in
//!   the test): `watch` reconnects, says `fresh_browser` on stdout, and supervises the new
//!   browser's page; `mcp` names the warning in the next tool result, once.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use cdp_supervisor_chromium::Browser;
use serde_json::{json, Value};
use support::{chromium_for_test, BIN};

/// Generous bound for a launch on a loaded 2-core machine.
const WAIT: Duration = Duration::from_secs(30);

/// How long a killed launcher's browser and profile may outlive it.
const CLEANUP: Duration = Duration::from_secs(5);

/// A child killed (and reaped) when the test ends, whatever happened.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The pids of the processes whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // The reaper names the directory as its argument too; it may outlive the browser
        // by a moment, but it is not a browser.
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) && !cmdline.contains("cdp-supervise-reaper") {
            found.push(format!("{:?}: {cmdline}", entry.file_name()));
        }
    }
    found
}

/// The profile directory a launcher with pid `pid` created, once its browser wrote its
/// DevTools port there.
fn profile_of(pid: u32, within: Duration) -> PathBuf {
    let prefix = format!("cdp-supervise-profile-{pid}-");
    let end = Instant::now() + within;
    loop {
        let found = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
                    && p.join("DevToolsActivePort").exists()
            });
        if let Some(dir) = found {
            return dir;
        }
        assert!(
            Instant::now() < end,
            "no profile {prefix}* within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Within [`CLEANUP`]: no process names `profile` and the directory is gone.
fn assert_cleaned_up(profile: &Path, what: &str) {
    let needle = profile.to_string_lossy().into_owned();
    let end = Instant::now() + CLEANUP;
    loop {
        let left = processes_naming(&needle);
        if left.is_empty() && !profile.exists() {
            return;
        }
        assert!(
            Instant::now() < end,
            "{what}: after {CLEANUP:?}, {} exists: {}, processes: {left:#?}",
            profile.display(),
            profile.exists()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The browser a launcher started is running: some process names its profile.
fn assert_browser_running(profile: &Path) {
    let needle = profile.to_string_lossy().into_owned();
    assert!(
        !processes_naming(&needle).is_empty(),
        "no Chromium runs with {needle}"
    );
}

fn spawn(args: &[&str]) -> Killed {
    Killed(
        Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// `kill -9` of `watch` (it launched Chromium): within 5 s no Chromium of it is left and
/// its profile directory is gone.
#[test]
fn kill_9_of_watch_leaves_no_chromium_and_no_profile() {
    if !chromium_for_test("faults-kill-watch") {
        return;
    }
    let mut watch = spawn(&["watch"]);
    let profile = profile_of(watch.0.id(), WAIT);
    assert_browser_running(&profile);
    watch.0.kill().unwrap(); // SIGKILL: no destructor runs
    let _ = watch.0.wait();
    assert_cleaned_up(&profile, "kill -9 of watch");
}

/// `kill -9` of `mcp` (it launches Chromium with the server): the same.
#[test]
fn kill_9_of_mcp_leaves_no_chromium_and_no_profile() {
    if !chromium_for_test("faults-kill-mcp") {
        return;
    }
    let mut mcp = spawn(&["mcp"]);
    let profile = profile_of(mcp.0.id(), WAIT);
    assert_browser_running(&profile);
    mcp.0.kill().unwrap();
    let _ = mcp.0.wait();
    assert_cleaned_up(&profile, "kill -9 of mcp");
}

/// The normal path still cleans up: end of input ends `watch` with exit 0, its browser
/// closed and its profile removed, and the reaper gone too.
#[test]
fn end_of_input_still_closes_the_browser_and_the_reaper() {
    if !chromium_for_test("faults-normal-exit") {
        return;
    }
    let mut watch = spawn(&["watch"]);
    let profile = profile_of(watch.0.id(), WAIT);
    assert_browser_running(&profile);
    drop(watch.0.stdin.take());
    let end = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = watch.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < end, "watch did not exit at end of input");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    // Gone at exit, not within a grace: the launcher closed it itself.
    assert!(!profile.exists(), "{} left behind", profile.display());
    let needle = profile.to_string_lossy().into_owned();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle))
        .collect();
    assert!(left.is_empty(), "still running: {left:#?}");
}

/// A start removes the profile directories whose launcher is gone.
#[test]
fn a_start_sweeps_profiles_whose_launcher_is_gone() {
    // A pid that is not running: a child that already exited and was reaped.
    let mut child = Command::new("true").spawn().unwrap();
    let dead_pid = child.id();
    child.wait().unwrap();
    let orphan = std::env::temp_dir().join(format!("cdp-supervise-profile-{dead_pid}-0-1"));
    std::fs::create_dir_all(orphan.join("Default")).unwrap();
    let live = std::env::temp_dir().join(format!(
        "cdp-supervise-profile-{}-999-1",
        std::process::id()
    ));
    std::fs::create_dir_all(&live).unwrap();
    let removed = cdp_supervisor_chromium::sweep_orphan_profiles(&std::env::temp_dir());
    let orphan_left = orphan.exists();
    let live_kept = live.exists();
    let _ = std::fs::remove_dir_all(&live);
    let _ = std::fs::remove_dir_all(&orphan);
    assert!(!orphan_left, "the orphan profile was not removed");
    assert!(live_kept, "a live launcher's profile was removed");
    assert!(removed >= 1);
}

/// A loopback TCP relay whose upstream port can change: the endpoint stays, the browser
/// behind it is replaced. Each connection is piped to the upstream of the moment.
struct SwitchRelay {
    port: u16,
    upstream: Arc<AtomicU16>,
}

impl SwitchRelay {
    fn start(upstream: u16) -> SwitchRelay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let upstream = Arc::new(AtomicU16::new(upstream));
        let to = upstream.clone();
        // Ends with the test process (the listener is never closed before).
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", to.load(Ordering::SeqCst)))
                else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                let pipe = |mut from: TcpStream, mut to: TcpStream| {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                        let _ = from.shutdown(Shutdown::Both);
                    });
                };
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        SwitchRelay { port, upstream }
    }

    fn switch_to(&self, upstream: u16) {
        self.upstream.store(upstream, Ordering::SeqCst);
    }
}

/// The JSON lines of a child's stdout, as they come.
fn stdout_lines(child: &mut Child) -> mpsc::Receiver<Value> {
    let stdout = child.stdout.take().expect("stdout piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits for a line matching `pred`; the lines before it are kept in `seen`.
fn expect_line(
    lines: &mpsc::Receiver<Value>,
    seen: &mut Vec<Value>,
    what: &str,
    within: Duration,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let end = Instant::now() + within;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let v = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no line for {what}; seen: {seen:#?}"));
        seen.push(v.clone());
        if pred(&v) {
            return v;
        }
    }
}

/// The browser behind the endpoint is killed and a new one started behind the same
/// endpoint: `watch` reconnects, prints `fresh_browser` on stdout (naming the old tab and
/// the new one), supervises the new browser's page (live, commands answered there), and
/// carries nothing of the old tab over.
#[test]
fn a_new_browser_behind_the_same_endpoint_is_supervised_with_a_fresh_browser_warning() {
    if !chromium_for_test("faults-fresh-browser") {
        return;
    }
    let first = Browser::launch().expect("launch Chromium");
    let relay = SwitchRelay::start(first.port());
    let endpoint = format!("http://127.0.0.1:{}", relay.port);
    let mut watch = Killed(
        Command::new(BIN)
            .args(["watch", "--cdp", &endpoint])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let lines = stdout_lines(&mut watch.0);
    let mut seen = Vec::new();
    let live = |v: &Value| v["op"] == "page" && v["page"]["state"] == "live";
    let old_tab =
        expect_line(&lines, &mut seen, "page live", WAIT, live)["page"]["target_id"].clone();
    let mut stdin = watch.0.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"id": 1, "cmd": "cdp", "method": "Runtime.evaluate",
        "params": {"expression": "window.mark = 'old'; 1"}})
    )
    .unwrap();
    expect_line(&lines, &mut seen, "the mark set", WAIT, |v| v["id"] == 1);

    drop(first); // killed, profile removed
    let second = Browser::launch().expect("launch the second Chromium");
    relay.switch_to(second.port());

    let warning = expect_line(&lines, &mut seen, "fresh_browser", WAIT, |v| {
        v["type"] == "warning"
    });
    assert_eq!(warning["code"], "fresh_browser", "{warning}");
    assert_eq!(warning["old_tab_id"], old_tab, "{warning}");
    assert!(
        warning["message"]
            .as_str()
            .is_some_and(|m| m.contains("nothing of it carries over")),
        "{warning}"
    );
    let new_tab = warning["tab_id"].clone();
    assert!(new_tab.is_string() && new_tab != old_tab, "{warning}");
    let page = expect_line(&lines, &mut seen, "the new page live", WAIT, live);
    assert_eq!(page["page"]["target_id"], new_tab, "{page}");

    writeln!(
        stdin,
        "{}",
        json!({"id": 2, "cmd": "cdp", "method": "Runtime.evaluate",
        "params": {"expression": "typeof window.mark", "returnByValue": true}})
    )
    .unwrap();
    let r = expect_line(&lines, &mut seen, "evaluate on the new page", WAIT, |v| {
        v["id"] == 2
    });
    assert_eq!(
        r["result"]["result"]["value"], "undefined",
        "a new page: {r}"
    );
    writeln!(stdin, "{}", json!({"id": 3, "cmd": "tabs"})).unwrap();
    let tabs = expect_line(&lines, &mut seen, "tabs", WAIT, |v| v["id"] == 3);
    let ids: Vec<&Value> = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["tab_id"])
        .collect();
    assert!(!ids.contains(&&old_tab), "the old tab is gone: {tabs}");
    drop(stdin);
    let end = Instant::now() + WAIT;
    while watch.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < end, "watch did not exit at end of input");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(second);
}

/// The text of a `tools/call` result line (its content's text parts).
fn tool_text(v: &Value) -> String {
    v["result"]["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The same over `mcp` (raw JSON-RPC lines on stdio): the browser behind the endpoint is
/// replaced between two calls; a following result names the `fresh_browser` warning, once.
#[test]
fn a_new_browser_behind_the_same_endpoint_is_named_in_the_next_mcp_result() {
    if !chromium_for_test("faults-fresh-browser-mcp") {
        return;
    }
    let first = Browser::launch().expect("launch Chromium");
    let relay = SwitchRelay::start(first.port());
    let endpoint = format!("http://127.0.0.1:{}", relay.port);
    let mut mcp = Killed(
        Command::new(BIN)
            .args(["mcp", "--cdp", &endpoint])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let lines = stdout_lines(&mut mcp.0);
    let mut seen = Vec::new();
    let mut stdin = mcp.0.stdin.take().unwrap();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "faults", "version": "0"}}}),
    );
    expect_line(&lines, &mut seen, "initialize", WAIT, |v| v["id"] == 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut id = 1;
    let mut call = |send: &mut dyn FnMut(Value), seen: &mut Vec<Value>| {
        id += 1;
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "browser_evaluate", "arguments": {"expression": "1 + 1"}}}));
        let n = id;
        tool_text(&expect_line(&lines, seen, "a tool result", WAIT, |v| {
            v["id"] == n
        }))
    };
    let text = call(&mut send, &mut seen);
    assert!(
        text.contains('2') && !text.contains("fresh_browser"),
        "{text}"
    );

    drop(first); // killed, profile removed
    let second = Browser::launch().expect("launch the second Chromium");
    relay.switch_to(second.port());
    let end = Instant::now() + WAIT;
    let named = loop {
        let text = call(&mut send, &mut seen);
        if text.contains("fresh_browser") {
            break text;
        }
        assert!(
            Instant::now() < end,
            "no result named fresh_browser: {text}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        named.contains("Warnings since the last result")
            && named.contains("nothing of it carries over"),
        "{named}"
    );
    let text = call(&mut send, &mut seen);
    assert!(!text.contains("fresh_browser"), "said once: {text}");
    drop(second);
}
