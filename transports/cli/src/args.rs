//! The command line: flags, usage, exit codes, and the supervisor's configuration.

use std::path::PathBuf;
use std::time::Duration;

use cdp_supervisor::downloads::DownloadConfig;
use cdp_supervisor::http_auth::{Credentials, HttpAuthConfig};
use cdp_supervisor::permissions::{PermissionConfig, WEB_NAMES};
use cdp_supervisor::url_policy::UrlPolicy;
use cdp_supervisor::{BridgeConfig, Config, DialogPolicy};

const USAGE: &str = "\
usage:
  cdp-supervise watch [--cdp URL | --grid URL] [--url PAGE | --demo]
                      [--policy must_respond|auto_dismiss|auto_accept]
                      [--dialog-timeout SECS] [--bridge] [--record TRACE.jsonl]
                      [--format text|json] [--upload-root DIR]...
                      [--downloads DIR] [--max-download-bytes N]
                      [--grant-permissions LIST] [--http-credentials ORIGIN=USER:PASS]...
                      [--http-auth]
  cdp-supervise replay TRACE.jsonl [--policy ...] [--dialog-timeout SECS] [--bridge]
  cdp-supervise mcp [--cdp URL | --grid URL] [--fallback-local] [--policy ...] [--bridge]
                    [--headed] [--lazy] [--port P [--host 127.0.0.1] [--auth-token T]
                    [--idle-timeout SECS] [--shared-context] [--max-sessions N]]
  watch and mcp, a remote browser: [--cdp-header 'NAME: VALUE']... [--heartbeat SECS]
                    [--grid-capabilities JSON] [--grid-timeout SECS]
  mcp, where an agent may go: [--allow-file-access DIR] [--allow-internal-urls]
                    [--allowed-origins 'A;B'] [--blocked-origins 'A;B']
  watch and mcp, what a page waits for: [--upload-root DIR]... [--downloads DIR]
                    [--max-download-bytes N] [--grant-permissions LIST]
                    [--http-credentials ORIGIN=USER:PASS]... [--http-auth]

watch: supervise a tab; diffs and results as JSON lines on stdout, commands as JSON
lines on stdin (snapshot, dialog, cdp, policy, recover, settle, stop).
Without --cdp a headless Chromium is launched ($CHROME, else chromium on the PATH).
--format: text is a line per change for a person (the default when stdout is a
terminal), json the JSON lines of the protocol (the default otherwise).
replay: feed a recorded trace to a fresh supervisor, print its diffs and final snapshot.
mcp: a Model Context Protocol server on stdio (browser_navigate, browser_snapshot, ...);
the browser is launched (or --cdp connects) as the server starts, so that the first call
does not wait for it, and closed at exit. --lazy: launch it on the first tool call.
--port: streamable HTTP at http://HOST:P/mcp instead of stdio (0: any free port, said on
stderr); each session (agent) gets a browser context of its own, disposed of when it ends
or after --idle-timeout (600 s) without a request; --shared-context: the browser's default
context for all; --max-sessions (16): more are refused. A --host other than loopback
needs --auth-token (or $CDP_SUPERVISE_TOKEN): requests without it are refused (401).
--fallback-local: when --cdp cannot be reached, launch the local Chromium instead.
--allow-file-access DIR, --allow-internal-urls, --allowed-origins, --blocked-origins (mcp):
an agent may not open file: (but under DIR), chrome:, devtools:, javascript: or other
non-web URLs, nor origins outside the allowed list or on the blocked one (semicolon-
separated, Playwright MCP's forms); a refused navigation leaves the page where it was.
--cdp URL: ws://, wss:// (a hosted browser; a key in the query stays secret) or
http(s)://HOST:PORT. --cdp-header: sent on the WebSocket upgrade and /json/version
(repeatable; never printed). --heartbeat: probe a silent browser after SECS (default 15,
0: never); no answer within 5 s is a lost connection (reconnected 5 times at most).
--grid URL: a Selenium Grid 4 (http://HOST:PORT): a session is created with
--grid-capabilities (a W3C capabilities object, as alwaysMatch; default: chrome), its
se:cdp supervised, and the session deleted at exit, on errors and on SIGINT/SIGTERM;
--grid-timeout: how long to wait in the Grid's queue (default 60).
--bridge: answer dialogs through the dialog bridge (for proxies that close native
dialogs); watch makes a random secret, replay reuses the one the trace recorded.
--upload-root DIR (repeatable): a file chooser may be answered with files under DIR
(symlinks resolved); without it every upload is refused. Choosers are always intercepted:
each is a pending file_chooser dialog, answered with a dialog command with files.
--downloads DIR: where downloads go (default: a fresh folder under the system temp
folder, named on stderr at start and kept); each is saved under its suggested name.
--max-download-bytes N: a larger download is canceled and reported (default 1 GiB).
--grant-permissions LIST: permissions pages get (comma-separated: geolocation,
clipboard-read, camera, ...); every other one is denied for every origin, never prompted.
--http-credentials ORIGIN=USER:PASS (repeatable): answers that origin's HTTP sign-in
challenges once (wrong ones are canceled and reported); --http-auth: other challenges
become pending http_auth dialogs (answer with username and password). Either pauses
every request briefly (see the manual, HTTP sign-in). Credentials are never printed.";

/// How long the demo's must_respond dialogs stay before the watchdog dismisses them,
/// unless --dialog-timeout says otherwise: shorter than the demo's interval so a viewer
/// sees each dialog open and close.
const DEMO_DIALOG_TIMEOUT_S: u64 = 6;

pub struct Failure {
    pub code: i32,
    pub message: String,
}

pub fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: format!("cdp-supervise: {}\n\n{USAGE}", message.into()),
    }
}

pub fn runtime(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: format!("cdp-supervise: {}", message.into()),
    }
}

#[derive(Debug, Default, Clone)]
pub struct Args {
    pub command: String,
    pub trace: Option<PathBuf>,
    pub cdp: Option<String>,
    pub url: Option<String>,
    pub demo: bool,
    pub policy: DialogPolicy,
    pub dialog_timeout: Option<f64>,
    pub bridge: bool,
    pub record: Option<PathBuf>,
    pub fallback_local: bool,
    pub headed: bool,
    /// `mcp`: start the browser on the first tool call, not with the server.
    pub lazy: bool,
    /// `mcp` over streamable HTTP: the port, the host, and the rest of its flags.
    pub port: Option<u16>,
    /// `mcp --port`: the address to bind (loopback by default).
    pub host: Option<String>,
    /// `mcp --port`: the bearer token every request must carry (never logged).
    pub auth_token: Option<String>,
    /// `mcp --port`: an idle session's end, in seconds.
    pub idle_timeout: Option<f64>,
    /// `mcp --port`: every session in the browser's default context.
    pub shared_context: bool,
    /// `mcp --port`: sessions at most.
    pub max_sessions: Option<usize>,
    /// `watch`'s output: `Some(true)` text for a person, `Some(false)` JSON lines, `None`
    /// text when stdout is a terminal.
    pub text_format: Option<bool>,
    /// `--upload-root DIR`, repeatable: the folders a file chooser may upload from.
    pub upload_roots: Vec<String>,
    /// `--downloads DIR` (absolute).
    pub downloads: Option<String>,
    /// `--max-download-bytes N`.
    pub max_download_bytes: Option<u64>,
    /// `--grant-permissions LIST`, split.
    pub grant_permissions: Vec<String>,
    /// `--http-credentials ORIGIN=USER:PASS`, repeatable.
    pub http_credentials: Vec<Credentials>,
    /// `--http-auth`: other challenges are pending dialogs.
    pub http_auth: bool,
    /// `mcp`'s doors: `--allow-file-access DIR`, `--allow-internal-urls`,
    /// `--allowed-origins`, `--blocked-origins` (see [`UrlPolicy`]).
    pub allow_file_access: Option<String>,
    pub allow_internal_urls: bool,
    pub allowed_origins: Option<String>,
    pub blocked_origins: Option<String>,
    /// How to reach a remote browser: `--grid`, its capabilities and queue timeout,
    /// `--cdp-header`, `--heartbeat`.
    pub remote: RemoteArgs,
}

/// The flags that say how to reach a remote browser (`watch` and `mcp`).
#[derive(Debug, Clone)]
pub struct RemoteArgs {
    /// `--grid URL`: a Selenium Grid to ask for a session.
    pub grid: Option<String>,
    /// `--grid-capabilities JSON`.
    pub grid_capabilities: Option<String>,
    /// `--grid-timeout SECS`.
    pub grid_timeout: Duration,
    /// `--cdp-header NAME:VALUE`, each (values never printed).
    pub headers: cdp_supervisor_driver::headers::CdpHeaders,
    /// `--heartbeat SECS` (`None`: 0, never).
    pub heartbeat: Option<Duration>,
}

impl Default for RemoteArgs {
    fn default() -> Self {
        RemoteArgs {
            grid: None,
            grid_capabilities: None,
            grid_timeout: cdp_supervisor_grid::DEFAULT_TIMEOUT,
            headers: Default::default(),
            heartbeat: Some(cdp_supervisor_driver::HEARTBEAT),
        }
    }
}

/// Seconds as a duration: `None` for a negative, NaN or infinite number, and for more
/// than a thousand years (kept to whole microseconds). Never panics, unlike
/// `Duration`'s own float constructor on such input.
pub fn seconds_to_duration(secs: f64) -> Option<Duration> {
    const MAX_SECS: f64 = 1000.0 * 365.0 * 86_400.0;
    // In range, so the cast neither saturates nor truncates anything but sub-microseconds.
    (secs.is_finite() && (0.0..=MAX_SECS).contains(&secs))
        .then(|| Duration::from_micros((secs * 1e6) as u64))
}

/// `SECS` of flag `name`: a finite number, at least `min`.
fn seconds(name: &str, v: &str, min: f64) -> Result<Duration, Failure> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= min)
        .and_then(seconds_to_duration)
        .ok_or_else(|| usage(format!("{name} {v:?}: give seconds >= {min}")))
}

pub fn parse_args(argv: Vec<String>) -> Result<Args, Failure> {
    let mut it = argv.into_iter();
    let mut args = Args {
        command: match it.next() {
            Some(c) if c == "watch" || c == "replay" || c == "mcp" => c,
            Some(h) if h == "-h" || h == "--help" || h == "help" => {
                return Err(Failure {
                    code: 0,
                    message: USAGE.to_owned(),
                })
            }
            Some(other) => return Err(usage(format!("unknown command {other:?}"))),
            None => return Err(usage("missing command")),
        },
        ..Args::default()
    };
    let watch = args.command == "watch";
    let mcp = args.command == "mcp";
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--policy" => {
                args.policy = value("--policy")?.parse().map_err(usage)?;
            }
            "--dialog-timeout" => {
                let v = value("--dialog-timeout")?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| usage(format!("--dialog-timeout {v:?}: give seconds > 0")))?;
                args.dialog_timeout = Some(secs);
            }
            "--bridge" => args.bridge = true,
            "--upload-root" if watch || mcp => {
                let dir = value("--upload-root")?;
                let absolute = std::path::absolute(&dir)
                    .map_err(|e| usage(format!("--upload-root {dir:?}: {e}")))?;
                args.upload_roots
                    .push(absolute.to_string_lossy().into_owned());
            }
            "--downloads" if watch || mcp => {
                let dir = value("--downloads")?;
                let absolute = std::path::absolute(&dir)
                    .map_err(|e| usage(format!("--downloads {dir:?}: {e}")))?;
                args.downloads = Some(absolute.to_string_lossy().into_owned());
            }
            "--http-credentials" if watch || mcp => {
                let spec = value("--http-credentials")?;
                // The error names the flag, never the password.
                let creds = Credentials::parse(&spec)
                    .map_err(|e| usage(format!("--http-credentials: {e}")))?;
                args.http_credentials.push(creds);
            }
            "--http-auth" if watch || mcp => args.http_auth = true,
            "--grant-permissions" if watch || mcp => {
                for name in value("--grant-permissions")?.split(',').map(str::trim) {
                    let known = WEB_NAMES.iter().any(|(w, c)| *w == name || *c == name);
                    if !known {
                        let names: Vec<&str> = WEB_NAMES.iter().map(|(w, _)| *w).collect();
                        return Err(usage(format!(
                            "--grant-permissions: unknown permission {name:?}; known: {}",
                            names.join(", ")
                        )));
                    }
                    args.grant_permissions.push(name.to_owned());
                }
            }
            "--max-download-bytes" if watch || mcp => {
                let v = value("--max-download-bytes")?;
                let n = v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    usage(format!(
                        "--max-download-bytes {v:?}: give a number of bytes > 0"
                    ))
                })?;
                args.max_download_bytes = Some(n);
            }
            "--cdp" if watch || mcp => args.cdp = Some(value("--cdp")?),
            "--grid" if watch || mcp => args.remote.grid = Some(value("--grid")?),
            "--grid-capabilities" if watch || mcp => {
                args.remote.grid_capabilities = Some(value("--grid-capabilities")?)
            }
            "--grid-timeout" if watch || mcp => {
                args.remote.grid_timeout =
                    seconds("--grid-timeout", &value("--grid-timeout")?, 0.001)?
            }
            "--cdp-header" if watch || mcp => {
                let header = value("--cdp-header")?;
                args.remote
                    .headers
                    .push_flag(&header)
                    .map_err(|e| usage(format!("--cdp-header: {e}")))?;
            }
            "--heartbeat" if watch || mcp => {
                let secs = seconds("--heartbeat", &value("--heartbeat")?, 0.0)?;
                args.remote.heartbeat = (!secs.is_zero()).then_some(secs);
            }
            "--fallback-local" if watch || mcp => args.fallback_local = true,
            "--headed" if mcp => args.headed = true,
            "--lazy" if mcp => args.lazy = true,
            "--port" if mcp => {
                let v = value("--port")?;
                args.port = Some(v.parse().map_err(|_| {
                    usage(format!(
                        "--port {v:?}: give a port number (0: any free port)"
                    ))
                })?);
            }
            "--host" if mcp => args.host = Some(value("--host")?),
            "--auth-token" if mcp => args.auth_token = Some(value("--auth-token")?),
            "--idle-timeout" if mcp => {
                let v = value("--idle-timeout")?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| usage(format!("--idle-timeout {v:?}: give seconds > 0")))?;
                args.idle_timeout = Some(secs);
            }
            "--shared-context" if mcp => args.shared_context = true,
            "--allow-file-access" if mcp => {
                let dir = value("--allow-file-access")?;
                if !dir.starts_with('/') {
                    return Err(usage(format!(
                        "--allow-file-access {dir:?}: give an absolute directory"
                    )));
                }
                args.allow_file_access = Some(dir);
            }
            "--allow-internal-urls" if mcp => args.allow_internal_urls = true,
            "--allowed-origins" if mcp => args.allowed_origins = Some(value("--allowed-origins")?),
            "--blocked-origins" if mcp => args.blocked_origins = Some(value("--blocked-origins")?),
            "--max-sessions" if mcp => {
                let v = value("--max-sessions")?;
                args.max_sessions =
                    Some(v.parse().ok().filter(|n: &usize| *n > 0).ok_or_else(|| {
                        usage(format!("--max-sessions {v:?}: give a number > 0"))
                    })?);
            }
            "--url" if watch => args.url = Some(value("--url")?),
            "--demo" if watch => args.demo = true,
            "--format" if watch => {
                args.text_format = match value("--format")?.as_str() {
                    "text" => Some(true),
                    "json" => Some(false),
                    other => return Err(usage(format!("--format {other:?}: text or json"))),
                }
            }
            "--record" if watch => args.record = Some(PathBuf::from(value("--record")?)),
            "-h" | "--help" => {
                return Err(Failure {
                    code: 0,
                    message: USAGE.to_owned(),
                })
            }
            flag if flag.starts_with('-') => {
                return Err(usage(format!("unknown option {flag} for {}", args.command)))
            }
            path if args.command == "replay" && args.trace.is_none() => {
                args.trace = Some(PathBuf::from(path))
            }
            other => return Err(usage(format!("unexpected argument {other:?}"))),
        }
    }
    if args.url.is_some() && args.demo {
        return Err(usage("--url and --demo exclude each other"));
    }
    if args.cdp.is_some() && args.remote.grid.is_some() {
        return Err(usage("--cdp and --grid exclude each other"));
    }
    if args.remote.grid.is_none() && args.remote.grid_capabilities.is_some() {
        return Err(usage("--grid-capabilities needs --grid URL"));
    }
    if args.fallback_local && args.cdp.is_none() && args.remote.grid.is_none() {
        return Err(usage(
            "--fallback-local needs --cdp URL or --grid URL (without them a local browser is launched anyway)",
        ));
    }
    let http_only = args.host.is_some()
        || args.auth_token.is_some()
        || args.idle_timeout.is_some()
        || args.shared_context
        || args.max_sessions.is_some();
    if http_only && args.port.is_none() {
        return Err(usage(
            "--host, --auth-token, --idle-timeout, --shared-context and --max-sessions go with --port (over stdio there is one session, in the browser's default context)",
        ));
    }
    if args.command == "replay" && args.trace.is_none() {
        return Err(usage("replay needs a TRACE.jsonl"));
    }
    Ok(args)
}

/// The supervisor's configuration from the flags. With `--bridge` the token stays empty
/// here: `watch`'s client fills in a random one, `replay` takes the recorded one.
pub fn config(args: &Args) -> Config {
    let mut config = Config::default();
    config.policy = args.policy;
    config.bridge = args.bridge.then(BridgeConfig::default);
    config.upload_roots.clone_from(&args.upload_roots);
    if args.command == "watch" || args.command == "mcp" {
        let dir = args.downloads.clone().unwrap_or_else(fresh_downloads_dir);
        let mut downloads = DownloadConfig::new(dir);
        if let Some(max) = args.max_download_bytes {
            downloads.max_bytes = max;
        }
        config.downloads = Some(downloads);
        config.permissions = Some(PermissionConfig::grant(args.grant_permissions.clone()));
    }
    if args.command == "mcp" {
        // An agent's server: the web is open, every other door shut unless a flag opens it.
        let mut policy = UrlPolicy::agent();
        policy.allow_file_access.clone_from(&args.allow_file_access);
        policy.allow_internal_urls = args.allow_internal_urls;
        if let Some(list) = &args.allowed_origins {
            policy.set_allowed_origins(list);
        }
        if let Some(list) = &args.blocked_origins {
            policy.set_blocked_origins(list);
        }
        config.url_policy = policy;
    }
    if args.http_auth || !args.http_credentials.is_empty() {
        let mut auth = HttpAuthConfig::default();
        auth.credentials.clone_from(&args.http_credentials);
        auth.prompt = args.http_auth;
        config.http_auth = Some(auth);
    }
    if let Some(secs) = args.dialog_timeout {
        // A float-to-integer `as` saturates: a huge value is a very long timeout.
        config.dialog_timeout = Duration::from_micros((secs * 1e6) as u64);
    } else if args.demo {
        config.dialog_timeout = Duration::from_secs(DEMO_DIALOG_TIMEOUT_S);
    }
    config
}

/// A fresh folder for downloads under the system temp folder, made and named on stderr
/// once per process (the MCP server builds its configuration again at each browser
/// start: they all share it), and kept at exit: the files are the user's.
fn fresh_downloads_dir() -> String {
    static DIR: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DIR.get_or_init(make_downloads_dir).clone()
}

fn make_downloads_dir() -> String {
    let base = std::env::temp_dir();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let dir = base.join(format!(
        "cdp-supervise-downloads-{}-{stamp}",
        std::process::id()
    ));
    let dir = dir.to_string_lossy().into_owned();
    match std::fs::create_dir_all(&dir) {
        Ok(()) => eprintln!("cdp-supervise: downloads go to {dir}"),
        Err(e) => eprintln!("cdp-supervise: cannot create the downloads folder {dir}: {e}"),
    }
    dir
}

/// The warning when `--fallback-local` replaces a `--cdp` endpoint that cannot be reached
/// (`watch` and `mcp` say the same), its secrets redacted.
pub fn fallback_warning(url: &str, error: &dyn std::fmt::Display) -> String {
    format!(
        "the browser at {} could not be reached ({error}); supervising a local headless Chromium instead",
        cdp_supervisor_driver::endpoint::redact_url(url)
    )
}

/// The error when a `--cdp` endpoint cannot be reached and there is no `--fallback-local`.
pub fn unreachable_error(url: &str, error: &dyn std::fmt::Display) -> String {
    format!(
        "cannot reach the browser at {}: {error}; check the URL, or add --fallback-local to supervise a local Chromium instead",
        cdp_supervisor_driver::endpoint::redact_url(url)
    )
}

/// The client's options from the flags: the supervisor's configuration, how to reach
/// a remote browser (`--cdp-header`, `--heartbeat`) and where to record (`--record`).
/// What `watch` and `mcp` both connect with.
pub fn client_options(args: &Args) -> cdp_supervisor_driver::Options {
    cdp_supervisor_driver::Options {
        config: config(args),
        record: args.record.clone(),
        heartbeat: args.remote.heartbeat,
        headers: args.remote.headers.clone(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MCP server builds its configuration more than once (each browser start): the
    /// default downloads folder is made once, and every configuration names that one.
    #[test]
    fn the_default_downloads_folder_is_made_once_per_process() {
        let argv = |c: &str| vec![c.to_owned()];
        let mcp = parse_args(argv("mcp")).unwrap_or_else(|e| panic!("{}", e.message));
        let watch = parse_args(argv("watch")).unwrap_or_else(|e| panic!("{}", e.message));
        let dir = |a: &Args| config(a).downloads.map(|d| d.dir);
        let first = dir(&mcp).expect("mcp downloads");
        assert_eq!(dir(&mcp).as_deref(), Some(first.as_str()));
        assert_eq!(dir(&watch).as_deref(), Some(first.as_str()));
        assert!(std::path::Path::new(&first).is_dir(), "{first} made");
        let prefix = format!("cdp-supervise-downloads-{}-", std::process::id());
        let made = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .count();
        assert_eq!(made, 1, "one folder for this process");
        std::fs::remove_dir(&first).unwrap();
    }

    #[test]
    fn seconds_from_a_flag_never_panic() {
        assert_eq!(seconds_to_duration(1.5), Some(Duration::from_millis(1500)));
        assert_eq!(seconds_to_duration(0.0), Some(Duration::ZERO));
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(seconds_to_duration(bad), None, "{bad}");
        }
    }
}
