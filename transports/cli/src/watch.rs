//! `cdp-supervise watch`: supervise a tab, diffs and results on stdout, commands on stdin.

use std::io::BufRead;
use std::sync::mpsc;
use std::time::Duration;

use cdp_supervise::demo::{DemoSite, DEMO_INTERVAL_S};
use cdp_supervise::protocol::{
    coded_error_line, diff_line, error_line, parse_line, result_line, typed, Command,
    DEFAULT_CDP_TIMEOUT,
};
use cdp_supervisor::{Event, PageState};
use cdp_supervisor_blocking::{
    Browser, Client, ClientError, ClientEvent, CommandUpdate, Options, PendingCommand,
};
use serde_json::{json, Value};

use crate::args::{config, runtime, Args, Failure};
use crate::emit;

/// How long `watch` waits for the page to be live before navigating it.
const LIVE_TIMEOUT: Duration = Duration::from_secs(30);

enum Input {
    Line(String),
    Eof,
    Fatal(String),
}

pub fn watch(args: Args) -> Result<(), Failure> {
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
    let (id, command) = match parse_line(line.as_bytes()) {
        Ok(request) => (request.id, request.command),
        Err(e) => {
            emit(&match e.code {
                Some(code) => coded_error_line(&e.id, code, &e.message),
                None => error_line(&e.id, &e.message),
            });
            return Flow::Continue;
        }
    };
    match command {
        Command::Snapshot => emit(&match client.snapshot() {
            Ok(s) => result_line(
                &id,
                "snapshot",
                serde_json::to_value(s).unwrap_or(Value::Null),
            ),
            Err(e) => error_line(&id, &e.to_string()),
        }),
        Command::Policy(p) => emit(&match client.set_policy(p) {
            Ok(()) => result_line(
                &id,
                "policy",
                serde_json::to_value(p).unwrap_or(Value::Null),
            ),
            Err(e) => error_line(&id, &e.to_string()),
        }),
        Command::Dialog {
            action,
            prompt_text,
            dialog_id,
        } => {
            scope.spawn(move || {
                emit(&match client.respond_dialog(
                    action,
                    prompt_text.as_deref(),
                    dialog_id.as_deref(),
                ) {
                    Ok(closed) => result_line(
                        &id,
                        "dialog",
                        serde_json::to_value(closed).unwrap_or(Value::Null),
                    ),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        Command::Settle(action) => {
            scope.spawn(move || {
                emit(&match client.settle(action) {
                    Ok(outcomes) => {
                        let mut closed = Vec::new();
                        let mut errors = Vec::new();
                        for o in outcomes {
                            match o {
                                Ok(c) => {
                                    closed.push(serde_json::to_value(c).unwrap_or(Value::Null))
                                }
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
        Command::Cdp {
            method,
            params,
            frame_id,
            timeout,
        } => match client.start_command(frame_id.as_deref(), &method, params, timeout) {
            Ok(pending) => {
                scope.spawn(move || follow_command(&id, pending));
            }
            Err(e) => emit(&error_line(&id, &e.to_string())),
        },
        Command::Recover => {
            scope.spawn(move || {
                emit(&match client.recover() {
                    Ok(r) => result_line(&id, "result", r),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        Command::Act { action, options } => {
            scope.spawn(move || {
                emit(&match client.act(action, options) {
                    Ok(r) => {
                        result_line(&id, "act", serde_json::to_value(r).unwrap_or(Value::Null))
                    }
                    Err(ClientError::Act(e)) => coded_error_line(&id, e.code(), &e.to_string()),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        Command::Stop => {
            let _ = client.stop();
            emit(&result_line(&id, "stopped", Value::Bool(true)));
            return Flow::Stop;
        }
    }
    Flow::Continue
}

/// Prints `blocked` lines as they come and the final line.
fn follow_command(id: &Value, pending: PendingCommand) {
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
