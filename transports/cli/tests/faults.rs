//! End-to-end: faults the sidecar and the MCP server survive, on a real Chromium.
//!
//! - `kill -9` of `cdp-supervise watch` or `cdp-supervise mcp` leaves no Chromium of theirs
//!   running and no profile directory behind (the launcher's reaper, see
//!   `cdp-supervisor-chromium`), and a normal exit still cleans up.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cdp_supervisor_chromium::find_chromium;

const BIN: &str = env!("CARGO_BIN_EXE_cdp-supervise");

/// Generous bound for a launch on a loaded 2-core machine.
const WAIT: Duration = Duration::from_secs(30);

/// How long a killed launcher's browser and profile may outlive it.
const CLEANUP: Duration = Duration::from_secs(5);

/// Whether a Chromium is there: a missing one fails under `CI` and prints a loud SKIPPED
/// line elsewhere.
fn chromium_for_test(test: &str) -> bool {
    let found = find_chromium().is_some();
    assert!(
        found || std::env::var_os("CI").is_none(),
        "{test}: no Chromium found and CI is set: install chromium or set $CHROME"
    );
    if !found {
        eprintln!(
            "\n!!!!! SKIPPED {test}: no Chromium found (set $CHROME or install chromium) !!!!!\n"
        );
    }
    found
}

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

/// Reads stderr lines of a child until one contains `needle` (used by later tests).
#[allow(dead_code)]
fn stderr_line(child: &mut Child, needle: &'static str) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            if line.contains(needle) {
                let _ = tx.send(line);
            }
        }
    });
    rx
}
