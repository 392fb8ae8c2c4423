//! `cdp-supervise`: the supervisor as a sidecar process (SPEC §8).
//!
//! JSON lines on stdout (diffs, results, errors), commands as JSON lines on stdin, logs
//! on stderr. Exit codes: 0 done, 1 runtime failure (no browser, connection lost for
//! good), 2 usage.

#![forbid(unsafe_code)]

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{
    BridgeConfig, Config, DialogAction, DialogPolicy, Diff, Event, PageState, Supervisor,
};
use cdp_supervisor_blocking::demo::{DemoSite, DEMO_INTERVAL_S};
use cdp_supervisor_blocking::{Browser, Client, ClientError, ClientEvent, CommandUpdate, Options};
use serde_json::{json, Value};

const USAGE: &str = "\
usage:
  cdp-supervise watch [--cdp URL] [--url PAGE | --demo]
                      [--policy must_respond|auto_dismiss|auto_accept]
                      [--dialog-timeout SECS] [--bridge] [--record TRACE.jsonl]
  cdp-supervise replay TRACE.jsonl [--policy ...] [--dialog-timeout SECS] [--bridge]

watch: supervise a tab; diffs and results as JSON lines on stdout, commands as JSON
lines on stdin (snapshot, dialog, cdp, policy, recover, settle, stop).
Without --cdp a headless Chromium is launched ($CHROME, else chromium on the PATH).
replay: feed a recorded trace to a fresh supervisor, print its diffs and final snapshot.
--bridge: answer dialogs through the dialog bridge (for proxies that close native
dialogs); watch makes a random secret, replay reuses the one the trace recorded.";

/// How long the demo's must_respond dialogs stay before the watchdog dismisses them,
/// unless --dialog-timeout says otherwise: shorter than the demo's interval so a viewer
/// sees each dialog open and close.
const DEMO_DIALOG_TIMEOUT_S: f64 = 6.0;

/// Default deadline of a `cdp` command from stdin.
const DEFAULT_CDP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long `watch` waits for the page to be live before navigating it.
const LIVE_TIMEOUT: Duration = Duration::from_secs(30);

struct Failure {
    code: i32,
    message: String,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: format!("cdp-supervise: {}\n\n{USAGE}", message.into()),
    }
}

fn runtime(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: format!("cdp-supervise: {}", message.into()),
    }
}

#[derive(Debug, Default)]
struct Args {
    command: String,
    trace: Option<PathBuf>,
    cdp: Option<String>,
    url: Option<String>,
    demo: bool,
    policy: DialogPolicy,
    dialog_timeout: Option<f64>,
    bridge: bool,
    record: Option<PathBuf>,
}

fn parse_args(argv: Vec<String>) -> Result<Args, Failure> {
    let mut it = argv.into_iter();
    let mut args = Args {
        command: match it.next() {
            Some(c) if c == "watch" || c == "replay" => c,
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
            "--cdp" if watch => args.cdp = Some(value("--cdp")?),
            "--url" if watch => args.url = Some(value("--url")?),
            "--demo" if watch => args.demo = true,
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
            path if !watch && args.trace.is_none() => args.trace = Some(PathBuf::from(path)),
            other => return Err(usage(format!("unexpected argument {other:?}"))),
        }
    }
    if args.url.is_some() && args.demo {
        return Err(usage("--url and --demo exclude each other"));
    }
    if !watch && args.trace.is_none() {
        return Err(usage("replay needs a TRACE.jsonl"));
    }
    Ok(args)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = parse_args(argv).and_then(|args| match args.command.as_str() {
        "watch" => watch(args),
        _ => replay(args),
    });
    match result {
        Ok(()) => {}
        Err(f) => {
            if f.code == 0 {
                println!("{}", f.message);
            } else {
                eprintln!("{}", f.message);
            }
            std::process::exit(f.code);
        }
    }
}

// ---- output ----------------------------------------------------------------------------

/// Writes one JSON line to stdout, whole, and flushes it (a reader waits on lines).
fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `{"type":TYPE, ...fields of object}`, with `type` first for readers' eyes.
fn typed(kind: &str, object: &Value) -> String {
    let body = object.to_string();
    match body.strip_prefix('{') {
        Some("}") | None => format!("{{\"type\":\"{kind}\"}}"),
        Some(rest) => format!("{{\"type\":\"{kind}\",{rest}"),
    }
}

fn diff_line(diff: &Diff) -> String {
    typed("diff", &serde_json::to_value(diff).unwrap_or(Value::Null))
}

fn result_line(id: &Value, key: &str, value: Value) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("id".into(), id.clone());
    obj.insert(key.into(), value);
    typed("result", &Value::Object(obj))
}

fn error_line(id: &Value, message: &str) -> String {
    typed("error", &json!({ "id": id, "message": message }))
}

// ---- replay ----------------------------------------------------------------------------

/// The supervisor's configuration from the flags. With `--bridge` the token stays empty
/// here: `watch`'s client fills in a random one, `replay` takes the recorded one.
fn config(args: &Args) -> Config {
    let mut config = Config::default();
    config.policy = args.policy;
    config.bridge = args.bridge.then(BridgeConfig::default);
    if let Some(secs) = args.dialog_timeout {
        config.dialog_timeout = Duration::from_secs_f64(secs);
    } else if args.demo {
        config.dialog_timeout = Duration::from_secs_f64(DEMO_DIALOG_TIMEOUT_S);
    }
    config
}

fn replay(args: Args) -> Result<(), Failure> {
    let path = args.trace.clone().unwrap_or_default();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| runtime(format!("cannot read trace {}: {e}", path.display())))?;
    let trace = Trace::parse(&text)
        .map_err(|e| runtime(format!("{} is not a trace (SPEC §7): {e}", path.display())))?;
    let mut config = config(&args);
    if let Some(bridge) = config.bridge.as_mut() {
        // The recorded bridge requests carry the recording supervisor's secret: replay
        // with it, or they would all be refused as forged.
        match trace.recorded_bridge_token() {
            Some(token) => bridge.token = token,
            None => eprintln!(
                "cdp-supervise: warning: --bridge: {} holds no recorded bridge script, so bridge requests in it replay as forged",
                path.display()
            ),
        }
    }
    let mut sup = Supervisor::new(config);
    let mut replayer = Replayer::new(&trace);
    while replayer.step(&mut sup) {
        while let Some(event) = sup.poll_event() {
            match event {
                Event::Diff(diff) => emit(&diff_line(&diff)),
                Event::Warning(warning) => eprintln!("cdp-supervise: warning: {warning}"),
                _ => {}
            }
        }
    }
    let snapshot = serde_json::to_value(sup.snapshot()).unwrap_or(Value::Null);
    emit(&typed("snapshot", &json!({ "snapshot": snapshot })));
    Ok(())
}

// ---- watch -----------------------------------------------------------------------------

enum Input {
    Line(String),
    Eof,
    Fatal(String),
}

fn watch(args: Args) -> Result<(), Failure> {
    let options = Options {
        config: config(&args),
        record: args.record.clone(),
        ..Options::default()
    };
    let demo = if args.demo {
        Some(DemoSite::start().map_err(|e| runtime(format!("cannot serve the demo site: {e}")))?)
    } else {
        None
    };
    let (browser, endpoint) = match &args.cdp {
        Some(url) => (None, url.clone()),
        None => {
            let b = Browser::launch().map_err(|e| runtime(e.to_string()))?;
            eprintln!(
                "cdp-supervise: launched Chromium at {} (profile {})",
                b.ws_url(),
                b.profile_dir().display()
            );
            let url = b.ws_url().to_owned();
            (Some(b), url)
        }
    };
    let (events_tx, events_rx) = mpsc::channel::<ClientEvent>();
    let client = Client::connect_with_events(&endpoint, options, events_tx)
        .map_err(|e| runtime(e.to_string()))?;
    let (input_tx, input_rx) = mpsc::channel::<Input>();

    let fatal_tx = input_tx.clone();
    let printer = std::thread::spawn(move || {
        for event in events_rx {
            match event {
                ClientEvent::Event(Event::Diff(diff)) => emit(&diff_line(&diff)),
                ClientEvent::Event(Event::Warning(warning)) => {
                    eprintln!("cdp-supervise: warning: {warning}")
                }
                ClientEvent::Connected { url, reconnected } => eprintln!(
                    "cdp-supervise: {} {url}",
                    if reconnected {
                        "reconnected to"
                    } else {
                        "connected to"
                    }
                ),
                ClientEvent::ConnectionLost { error } => {
                    eprintln!("cdp-supervise: connection lost: {error}; reconnecting")
                }
                ClientEvent::GaveUp { error } => {
                    let _ = fatal_tx.send(Input::Fatal(error));
                }
                _ => {}
            }
        }
    });

    let start_page = match (&args.url, &demo) {
        (Some(url), _) => Some(url.clone()),
        (None, Some(site)) => Some(site.top_url(true)),
        _ => None,
    };
    if let Some(page) = start_page {
        if let Err(e) = open_page(&client, &page) {
            let _ = client.stop();
            drop(client);
            let _ = printer.join();
            return Err(runtime(e));
        }
        if demo.is_some() {
            eprintln!(
                "cdp-supervise: demo at {page}: a dialog opens every {DEMO_INTERVAL_S} s, cycling through the top frame, a srcdoc iframe, a cross-site OOPIF and an OOPIF nested in it; answer with {{\"id\":1,\"cmd\":\"dialog\",\"action\":\"accept\"}} or let the watchdog dismiss it"
            );
        }
    }

    // A read of stdin cannot be interrupted, so this thread is not joined: it ends at
    // end of input, or with the process.
    let stdin_tx = input_tx;
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            match line {
                Ok(l) => {
                    if stdin_tx.send(Input::Line(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = stdin_tx.send(Input::Eof);
    });

    let mut failure = None;
    std::thread::scope(|scope| {
        for input in &input_rx {
            match input {
                Input::Line(line) if line.trim().is_empty() => {}
                Input::Line(line) => {
                    if handle_line(&client, scope, &line) == Flow::Stop {
                        break;
                    }
                }
                Input::Eof => break,
                Input::Fatal(error) => {
                    failure = Some(runtime(format!("lost the browser: {error}")));
                    break;
                }
            }
        }
        // End of input or `stop`: settle dialogs (dismiss), detach. Commands still
        // waiting get their final line from their threads, joined by the scope.
        let _ = client.stop();
    });
    drop(client);
    let _ = printer.join();
    drop(browser);
    drop(demo);
    match failure {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

fn open_page(client: &Client, page: &str) -> Result<(), String> {
    client
        .wait_for(LIVE_TIMEOUT, "the page to be live", |s| {
            s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
        })
        .map_err(|e| format!("the tab did not become live: {e}"))?;
    client
        .command(
            None,
            "Page.navigate",
            json!({ "url": page }),
            DEFAULT_CDP_TIMEOUT,
        )
        .map_err(|e| format!("cannot open {page}: {e}"))?;
    Ok(())
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

fn handle_line<'scope>(
    client: &'scope Client,
    scope: &'scope std::thread::Scope<'scope, '_>,
    line: &str,
) -> Flow {
    let request: Value = match serde_json::from_str(line) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            emit(&error_line(
                &Value::Null,
                "not a JSON object: send one command a line, e.g. {\"id\":1,\"cmd\":\"snapshot\"}",
            ));
            return Flow::Continue;
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let str_field = |k: &str| request.get(k).and_then(Value::as_str).map(str::to_owned);
    let Some(cmd) = str_field("cmd") else {
        emit(&error_line(
            &id,
            "missing \"cmd\": one of snapshot, dialog, cdp, policy, recover, settle, stop",
        ));
        return Flow::Continue;
    };
    match cmd.as_str() {
        "snapshot" => emit(&match client.snapshot() {
            Ok(s) => result_line(&id, "snapshot", serde_json::to_value(s).unwrap_or(Value::Null)),
            Err(e) => error_line(&id, &e.to_string()),
        }),
        "policy" => {
            let parsed = str_field("policy")
                .ok_or_else(|| "missing \"policy\": must_respond, auto_dismiss or auto_accept".to_owned())
                .and_then(|p| p.parse::<DialogPolicy>());
            emit(&match parsed {
                Ok(p) => match client.set_policy(p) {
                    Ok(()) => result_line(&id, "policy", serde_json::to_value(p).unwrap_or(Value::Null)),
                    Err(e) => error_line(&id, &e.to_string()),
                },
                Err(e) => error_line(&id, &e),
            });
        }
        "dialog" => {
            let action = match str_field("action").unwrap_or_default().parse::<DialogAction>() {
                Ok(a) => a,
                Err(e) => {
                    emit(&error_line(&id, &e.to_string()));
                    return Flow::Continue;
                }
            };
            let prompt_text = str_field("prompt_text");
            let dialog_id = str_field("dialog_id");
            scope.spawn(move || {
                emit(&match client.respond_dialog(action, prompt_text.as_deref(), dialog_id.as_deref()) {
                    Ok(closed) => result_line(&id, "dialog", serde_json::to_value(closed).unwrap_or(Value::Null)),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        "settle" => {
            let action = match str_field("action")
                .unwrap_or_else(|| "dismiss".into())
                .parse::<DialogAction>()
            {
                Ok(a) => a,
                Err(e) => {
                    emit(&error_line(&id, &e.to_string()));
                    return Flow::Continue;
                }
            };
            scope.spawn(move || {
                emit(&match client.settle(action) {
                    Ok(outcomes) => {
                        let mut closed = Vec::new();
                        let mut errors = Vec::new();
                        for o in outcomes {
                            match o {
                                Ok(c) => closed.push(serde_json::to_value(c).unwrap_or(Value::Null)),
                                Err(e) => errors.push(Value::String(e.to_string())),
                            }
                        }
                        let mut obj = json!({ "id": id, "dialogs": closed });
                        if !errors.is_empty() {
                            obj["errors"] = Value::Array(errors);
                        }
                        typed("result", &obj)
                    }
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        "cdp" => {
            let Some(method) = str_field("method") else {
                emit(&error_line(&id, "missing \"method\", e.g. \"Runtime.evaluate\""));
                return Flow::Continue;
            };
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let frame_id = str_field("frame_id");
            let timeout = request
                .get("timeout_ms")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite() && *t > 0.0)
                .map_or(DEFAULT_CDP_TIMEOUT, |ms| Duration::from_secs_f64(ms / 1000.0));
            match client.start_command(frame_id.as_deref(), &method, params, timeout) {
                Ok(pending) => {
                    scope.spawn(move || follow_command(&id, pending));
                }
                Err(e) => emit(&error_line(&id, &e.to_string())),
            }
        }
        "recover" => {
            scope.spawn(move || {
                emit(&match client.recover() {
                    Ok(r) => result_line(&id, "result", r),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        "evaluate" => emit(&error_line(
            &id,
            "evaluate is not implemented yet; use {\"cmd\":\"cdp\",\"method\":\"Runtime.evaluate\",...} meanwhile",
        )),
        "stop" => {
            let _ = client.stop();
            emit(&result_line(&id, "stopped", Value::Bool(true)));
            return Flow::Stop;
        }
        other => emit(&error_line(
            &id,
            &format!("unknown cmd {other:?}: use snapshot, dialog, cdp, policy, recover, settle or stop"),
        )),
    }
    Flow::Continue
}

/// Prints `blocked` lines as they come and the final line.
fn follow_command(id: &Value, pending: cdp_supervisor_blocking::PendingCommand) {
    loop {
        match pending.next_update(Duration::from_secs(3600)) {
            Ok(CommandUpdate::Blocked { dialog_id }) => emit(&typed(
                "blocked",
                &json!({ "id": id, "dialog_id": dialog_id }),
            )),
            Ok(CommandUpdate::Finished(Ok(text))) => {
                let result = serde_json::from_str(&text).unwrap_or(Value::Null);
                emit(&result_line(id, "result", result));
                return;
            }
            Ok(CommandUpdate::Finished(Err(e))) => {
                emit(&error_line(id, &e.to_string()));
                return;
            }
            Err(ClientError::Timeout { .. }) => continue,
            Err(e) => {
                emit(&error_line(id, &e.to_string()));
                return;
            }
        }
    }
}
