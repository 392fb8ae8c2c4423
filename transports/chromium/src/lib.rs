//! # cdp-supervisor-chromium
//!
//! Finding and launching a local headless Chromium with a fresh profile, and resolving a
//! DevTools address (`http://host:port`) to the browser's WebSocket URL ([`resolve`]),
//! for the cdp-supervisor transports (their default `launch` feature) and the
//! `cdp-supervise` sidecar. The browser is killed, waited for and its profile removed when the
//! [`Browser`] drops, on every path, so nothing is left running or on disk. On Unix it
//! never outlives the launching process either, even one killed with `kill -9` that runs
//! no destructor: a small reaper process (`sh`, waiting on a pipe only the launcher holds)
//! ends the browser's process group and removes the profile when the launcher dies; and
//! each launch removes the profile directories of launchers that are gone
//! ([`sweep_orphan_profiles`]).
//!
//! ```
//! let browser = cdp_supervisor_chromium::Browser::launch()?;
//! println!("connect to {}", browser.ws_url());
//! assert!(browser.ws_url().starts_with("ws://127.0.0.1:"));
//! # Ok::<(), cdp_supervisor_chromium::LaunchError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod devtools;

pub use devtools::{resolve, resolve_with};

use std::fs;
use std::io;
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

#[cfg(unix)]
mod reaper;
#[cfg(unix)]
use reaper::Reaper;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The flags every launch uses: headless, no first-run or background work, every
/// cross-site frame in its own process (so `127.0.0.1` and `localhost` frames are
/// OOPIFs), and a DevTools port chosen by Chromium.
///
/// ```
/// assert!(cdp_supervisor_chromium::CHROMIUM_FLAGS.contains(&"--headless"));
/// ```
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--site-per-process",
    "--remote-debugging-port=0",
];

/// Binaries tried on the `PATH` when `$CHROME` is not set, in order.
///
/// ```
/// assert_eq!(cdp_supervisor_chromium::CHROMIUM_NAMES[0], "chromium");
/// ```
pub const CHROMIUM_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

/// How long Chromium gets to exit after SIGTERM before it is killed.
const TERM_GRACE: Duration = Duration::from_secs(3);

/// How long Chromium gets to write `DevToolsActivePort`.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a browser could not be launched.
///
/// ```
/// let e = cdp_supervisor_chromium::LaunchError::NotFound;
/// assert!(e.to_string().contains("set $CHROME"));
/// ```
#[derive(Debug)]
pub enum LaunchError {
    /// No binary in `$CHROME` nor any of [`CHROMIUM_NAMES`] on the `PATH`.
    NotFound,
    /// The profile directory could not be created.
    Profile {
        /// The directory.
        dir: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The binary could not be started.
    Spawn {
        /// The binary.
        binary: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// Chromium exited or never wrote `DevToolsActivePort`.
    NoDevToolsPort {
        /// The binary.
        binary: PathBuf,
        /// What was seen.
        detail: String,
    },
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::NotFound => write!(
                f,
                "no Chromium found: set $CHROME to the browser binary or install one of {} on the PATH (Debian: apt-get install chromium)",
                CHROMIUM_NAMES.join(", ")
            ),
            LaunchError::Profile { dir, error } => write!(
                f,
                "cannot create the browser profile directory {}: {error}; check that the temp directory is writable",
                dir.display()
            ),
            LaunchError::Spawn { binary, error } => write!(
                f,
                "cannot start {}: {error}; check $CHROME or the PATH",
                binary.display()
            ),
            LaunchError::NoDevToolsPort { binary, detail } => write!(
                f,
                "{} did not open a DevTools port ({detail}); run it by hand with --headless to see why",
                binary.display()
            ),
        }
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LaunchError::Profile { error, .. } | LaunchError::Spawn { error, .. } => Some(error),
            LaunchError::NotFound | LaunchError::NoDevToolsPort { .. } => None,
        }
    }
}

/// A headless Chromium this process started. Dropping it kills the browser (and the
/// helper processes of its process group), waits for it and removes its profile.
///
/// ```
/// let mut browser = cdp_supervisor_chromium::Browser::launch()?;
/// assert!(browser.ws_url().starts_with(&format!("ws://127.0.0.1:{}/devtools/browser/", browser.port())));
/// assert_eq!(browser.http_url(), format!("http://127.0.0.1:{}", browser.port()));
/// assert!(browser.is_running() && browser.pid().is_some());
/// let profile = browser.profile_dir().to_owned();
/// drop(browser); // killed, profile removed
/// assert!(!profile.exists());
/// # Ok::<(), cdp_supervisor_chromium::LaunchError>(())
/// ```
#[derive(Debug)]
pub struct Browser {
    child: Option<Child>,
    /// Ends the browser and removes its profile if this process dies without dropping
    /// it (`kill -9`); disarmed on drop, after the browser is gone.
    #[cfg(unix)]
    reaper: Option<Reaper>,
    profile_dir: PathBuf,
    port: u16,
    ws_url: String,
}

impl Browser {
    /// Finds the binary ([`find_chromium`]) and launches it with [`CHROMIUM_FLAGS`] and a
    /// fresh profile directory.
    pub fn launch() -> Result<Browser, LaunchError> {
        Browser::launch_with_args(&[])
    }

    /// Like [`Browser::launch`], with `extra_args` passed after [`CHROMIUM_FLAGS`]; e.g.
    /// `--ignore-certificate-errors` for a page served over https with a throwaway
    /// self-signed certificate (the https bridge test).
    ///
    /// ```
    /// let browser = cdp_supervisor_chromium::Browser::launch_with_args(&["--ignore-certificate-errors"])?;
    /// assert!(browser.port() > 0);
    /// # Ok::<(), cdp_supervisor_chromium::LaunchError>(())
    /// ```
    pub fn launch_with_args(extra_args: &[&str]) -> Result<Browser, LaunchError> {
        let binary = find_chromium().ok_or(LaunchError::NotFound)?;
        Browser::spawn(&binary, extra_args, true)
    }

    /// Like [`Browser::launch`], but with a window (every flag of [`CHROMIUM_FLAGS`] but
    /// `--headless`): to watch an agent work. Needs a display.
    ///
    /// ```
    /// match cdp_supervisor_chromium::Browser::launch_headed() {
    ///     Ok(browser) => assert!(browser.ws_url().starts_with("ws://")),
    ///     // Without a display (a CI machine) Chromium exits at once, and the error says so.
    ///     Err(e) => assert!(e.to_string().contains("DevTools port"), "{e}"),
    /// }
    /// ```
    pub fn launch_headed() -> Result<Browser, LaunchError> {
        let binary = find_chromium().ok_or(LaunchError::NotFound)?;
        Browser::spawn(&binary, &[], false)
    }

    /// Launches `binary` with [`CHROMIUM_FLAGS`] and a fresh profile directory, and waits
    /// until it reports its DevTools port.
    ///
    /// ```
    /// use cdp_supervisor_chromium::{find_chromium, Browser};
    /// let binary = find_chromium().ok_or(cdp_supervisor_chromium::LaunchError::NotFound)?;
    /// let browser = Browser::launch_binary(&binary)?;
    /// assert!(browser.port() > 0);
    /// # Ok::<(), cdp_supervisor_chromium::LaunchError>(())
    /// ```
    pub fn launch_binary(binary: &Path) -> Result<Browser, LaunchError> {
        Browser::spawn(binary, &[], true)
    }

    fn spawn(binary: &Path, extra_args: &[&str], headless: bool) -> Result<Browser, LaunchError> {
        let profile_dir =
            fresh_profile_dir().map_err(|(dir, error)| LaunchError::Profile { dir, error })?;
        let verbose = std::env::var_os("CDP_SUPERVISE_CHROME_LOG").is_some();
        // Started before the browser, so that no moment exists where the browser runs and
        // nothing would end it if this process died. Without a reaper (no `sh`) the
        // browser is still closed on drop, as before.
        #[cfg(unix)]
        let mut reaper = Reaper::start(&profile_dir).ok();
        let mut command = Command::new(binary);
        // Its own process group, so that drop can end the helpers (zygote, renderers) too.
        #[cfg(unix)]
        command.process_group(0);
        let spawned = command
            .args(
                CHROMIUM_FLAGS
                    .iter()
                    .filter(|flag| headless || **flag != "--headless"),
            )
            .args(extra_args)
            .arg(format!("--user-data-dir={}", profile_dir.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            // Chromium is chatty on stderr; keep it only when asked.
            .stderr(if verbose {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn();
        let child = match spawned {
            Ok(c) => c,
            Err(error) => {
                let _ = fs::remove_dir_all(&profile_dir);
                return Err(LaunchError::Spawn {
                    binary: binary.to_owned(),
                    error,
                });
            }
        };
        #[cfg(unix)]
        if let Some(r) = reaper.as_mut() {
            r.arm(child.id());
        }
        let mut browser = Browser {
            child: Some(child),
            #[cfg(unix)]
            reaper,
            profile_dir,
            port: 0,
            ws_url: String::new(),
        };
        let (port, path) = browser.wait_for_port(binary)?;
        browser.port = port;
        browser.ws_url = format!("ws://127.0.0.1:{port}{path}");
        Ok(browser)
    }

    fn wait_for_port(&mut self, binary: &Path) -> Result<(u16, String), LaunchError> {
        let file = self.profile_dir.join("DevToolsActivePort");
        let start = Instant::now();
        loop {
            // The file is written in one go, but read it until both lines are there.
            if let Ok(text) = fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    if let Ok(port) = port.trim().parse::<u16>() {
                        return Ok((port, path.trim().to_owned()));
                    }
                }
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(LaunchError::NoDevToolsPort {
                        binary: binary.to_owned(),
                        detail: format!("it exited with {status}"),
                    });
                }
            }
            if start.elapsed() > STARTUP_TIMEOUT {
                return Err(LaunchError::NoDevToolsPort {
                    binary: binary.to_owned(),
                    detail: format!("no {} after {:?}", file.display(), STARTUP_TIMEOUT),
                });
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The browser's WebSocket endpoint, `ws://127.0.0.1:PORT/devtools/browser/ID`.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The DevTools HTTP address, `http://127.0.0.1:PORT`.
    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The DevTools port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The browser's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Whether the browser process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// The fresh profile directory (removed on drop).
    pub fn profile_dir(&self) -> &Path {
        &self.profile_dir
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            terminate(&mut child);
        }
        // A dying helper may still write for a moment: retry briefly.
        for _ in 0..20 {
            if fs::remove_dir_all(&self.profile_dir).is_ok() || !self.profile_dir.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // The browser is gone: the reaper has nothing left to do.
        #[cfg(unix)]
        if let Some(reaper) = self.reaper.take() {
            reaper.disarm();
        }
    }
}

/// Ends the browser: SIGTERM first, so that Chromium ends and reaps its own helpers
/// (no zombies left to init); SIGKILL, and to the whole process group, if it lingers.
#[cfg(unix)]
fn terminate(child: &mut Child) {
    let pid = child.id();
    let _ = signal("-TERM", &pid.to_string());
    let end = Instant::now() + TERM_GRACE;
    while Instant::now() < end && matches!(child.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    // Helpers that outlive the browser share its process group (set at spawn); end them
    // by that group's id only.
    let _ = signal("-KILL", &format!("-{pid}"));
}

/// Ends the browser where there are no process groups or signals.
#[cfg(not(unix))]
fn terminate(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Sends `sig` to `target` (a pid, or `-PGID` for a process group) with `kill(1)`,
/// which keeps this crate free of `unsafe` FFI.
#[cfg(unix)]
fn signal(sig: &str, target: &str) -> io::Result<std::process::ExitStatus> {
    Command::new("kill")
        .args([sig, "--", target])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
}

/// The Chromium binary to launch: `$CHROME` if set, else the first of [`CHROMIUM_NAMES`]
/// found on the `PATH`.
///
/// ```
/// if let Some(binary) = cdp_supervisor_chromium::find_chromium() {
///     println!("would launch {}", binary.display());
/// }
/// ```
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(chrome) = std::env::var_os("CHROME").filter(|c| !c.is_empty()) {
        return Some(PathBuf::from(chrome));
    }
    let path = std::env::var_os("PATH")?;
    CHROMIUM_NAMES.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// The prefix of every profile directory a launch creates, followed by the launcher's pid.
const PROFILE_PREFIX: &str = "cdp-supervise-profile-";

/// Removes the profile directories under `temp_dir` whose launcher process is gone (a
/// launcher killed before the reaper existed, or a reaper killed too). Linux only: a pid
/// is alive when `/proc/PID` exists. Returns how many were removed.
///
/// ```
/// let removed = cdp_supervisor_chromium::sweep_orphan_profiles(&std::env::temp_dir());
/// println!("removed {removed} orphan profile directories");
/// ```
pub fn sweep_orphan_profiles(temp_dir: &Path) -> usize {
    let proc_dir = Path::new("/proc");
    if !cfg!(target_os = "linux") || !proc_dir.join("self").exists() {
        return 0;
    }
    let Ok(entries) = fs::read_dir(temp_dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PROFILE_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if !proc_dir.join(pid).exists() && fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn fresh_profile_dir() -> Result<PathBuf, (PathBuf, io::Error)> {
    sweep_orphan_profiles(&std::env::temp_dir());
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "{PROFILE_PREFIX}{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&dir).map_err(|e| (dir.clone(), e))?;
    Ok(dir)
}
