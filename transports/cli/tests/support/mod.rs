//! What the sidecar tests share: the binary, the Chromium check, and `Sidecar`, a running
//! `cdp-supervise` whose stdout lines are read as JSON.

// Each test file uses part of this.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use cdp_supervisor_chromium::find_chromium;
use serde_json::Value;

/// The sidecar under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cdp-supervise");

/// How long `expect` waits for a line by default (generous on a loaded 2-core machine).
pub const WAIT: Duration = Duration::from_secs(20);

/// Whether a Chromium is there: a missing one fails under `CI` (a skipped browser test
/// must never pass silently there) and prints a loud SKIPPED line elsewhere.
pub fn chromium_for_test(test: &str) -> bool {
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

/// A running `cdp-supervise`, killed when dropped.
pub struct Sidecar {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Its stderr lines (echoed to ours), with [`Sidecar::spawn_capturing`].
    pub stderr: Option<Receiver<String>>,
    /// Every line so far, for failure messages.
    pub seen: Vec<Value>,
    /// Lines not yet matched by `expect` (lines of concurrent commands may interleave).
    backlog: Vec<Value>,
    /// How long `expect` waits.
    wait: Duration,
}

impl Sidecar {
    /// With its stderr on ours.
    pub fn spawn(args: &[&str]) -> Sidecar {
        Self::spawn_with_stderr(args, Stdio::inherit())
    }

    /// With its stderr echoed to ours and kept for [`Sidecar::stderr_text`].
    pub fn spawn_capturing(args: &[&str]) -> Sidecar {
        let mut cli = Self::spawn_with_stderr(args, Stdio::piped());
        let stderr = cli.child.stderr.take().expect("stderr piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                let _ = tx.send(line);
            }
        });
        cli.stderr = Some(rx);
        cli
    }

    /// With its stderr as given (`Stdio::piped()`: the caller takes `child.stderr`).
    pub fn spawn_with_stderr(args: &[&str], stderr: Stdio) -> Sidecar {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // A line that is not JSON is kept as a string: `expect` fails on it.
                let v: Value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Sidecar {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: None,
            seen: Vec::new(),
            backlog: Vec::new(),
            wait: WAIT,
        }
    }

    /// `expect` waits `wait` instead of [`WAIT`].
    pub fn waiting(mut self, wait: Duration) -> Sidecar {
        self.wait = wait;
        self
    }

    pub fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for a line matching `pred` (or takes it from the backlog); every stdout line
    /// must be JSON.
    pub fn expect(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let end = Instant::now() + self.wait;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let v = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no line for {what}; seen: {:#?}", self.seen));
            assert!(!v.is_string(), "stdout line is not JSON: {v}");
            self.seen.push(v.clone());
            if pred(&v) {
                return v;
            }
            self.backlog.push(v);
        }
    }

    /// Waits up to `within` for it to exit and returns its code.
    pub fn exit_code(&mut self, within: Duration) -> Option<i32> {
        let end = Instant::now() + within;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            assert!(
                Instant::now() < end,
                "cdp-supervise did not exit within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The stderr lines kept so far (with [`Sidecar::spawn_capturing`]).
    pub fn stderr_text(&self) -> String {
        let Some(stderr) = &self.stderr else {
            return String::new();
        };
        stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The answer (result or error) to the command `id`.
pub fn is_result(id: i64) -> impl Fn(&Value) -> bool {
    move |v| v["id"] == serde_json::json!(id) && (v["type"] == "result" || v["type"] == "error")
}
