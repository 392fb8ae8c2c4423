//! `cdp-supervise watch`: supervise a tab, diffs and results on stdout, commands on stdin.

use std::io::BufRead;
use std::sync::mpsc;
use std::time::Duration;

use cdp_supervise::demo::{DemoSite, DEMO_INTERVAL_S};
use cdp_supervise::evaluate::{error_of, eval_error_line, value_line};
use cdp_supervise::live_view::LiveView;
use cdp_supervise::protocol::{
    diff_line, error_line, parse_line, result_line, typed, Command, DEFAULT_CDP_TIMEOUT,
};
use cdp_supervisor::{Event, PageState};
use cdp_supervisor_blocking::{
    Browser, Client, ClientError, ClientEvent, CommandUpdate, Options, PendingCommand,
};
use serde_json::{json, Value};

use crate::args::{config, runtime, Args, Failure};
use crate::emit;
use cdp_supervisor_driver::endpoint::redact_url;

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
    let launch = || -> Result<(Browser, String), Failure> {
        let b = Browser::launch().map_err(|e| runtime(e.to_string()))?;
        eprintln!(
            "cdp-supervise: launched Chromium at {} (profile {})",
            b.ws_url(),
            b.profile_dir().display()
        );
        let url = b.ws_url().to_owned();
        Ok((b, url))
    };
    let (events_tx, events_rx) = mpsc::channel::<ClientEvent>();
    let connect = |url: &str, events_tx| {
        Client::connect_with_events(url, options.clone(), events_tx)
            .map_err(|e| runtime(e.to_string()))
    };
    let (browser, client) = match &args.cdp {
        Some(url) => match Client::connect_with_events(url, options.clone(), events_tx.clone()) {
            Ok(client) => (None, client),
            Err(e) if args.fallback_local => {
                let warning = format!(
                    "the browser at {} could not be reached ({e}); supervising a local headless Chromium instead",
                    redact_url(url)
                );
                eprintln!("cdp-supervise: warning: {warning}");
                emit(&json!({"type": "warning", "message": warning}).to_string());
                let (b, local) = launch()?;
                (Some(b), connect(&local, events_tx)?)
            }
            Err(e) => {
                return Err(runtime(format!(
                    "cannot reach the browser at {}: {e}; check the URL, or add --fallback-local to supervise a local Chromium instead",
                    redact_url(url)
                )))
            }
        },
        None => {
            let (b, local) = launch()?;
            (Some(b), connect(&local, events_tx)?)
        }
    };
    let (input_tx, input_rx) = mpsc::channel::<Input>();

    let fatal_tx = input_tx.clone();
    let text_format = args
        .text_format
        .unwrap_or_else(|| std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let printer = std::thread::spawn(move || {
        let mut view = text_format.then(LiveView::default);
        for event in events_rx {
            match event {
                ClientEvent::Event(Event::Diff(diff)) => match view.as_mut() {
                    Some(view) => {
                        if let Some(line) = view.line(&diff) {
                            emit(&line)
                        }
                    }
                    None => emit(&diff_line(&diff)),
                },
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
            emit(&error_line(&e.id, &e.message));
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
        Command::Evaluate(evaluation) => {
            scope.spawn(move || {
                emit(&match client.evaluate(evaluation) {
                    Ok(value) => value_line(&id, &value),
                    Err(ClientError::Evaluate(e)) => error_of(&id, &e),
                    Err(e) => {
                        let code = match e {
                            ClientError::Timeout { .. } => "timeout",
                            ClientError::Closed => "disconnected",
                            _ => "error",
                        };
                        eval_error_line(&id, code, &e.to_string(), None)
                    }
                });
            });
        }
        Command::Recover => {
            scope.spawn(move || {
                emit(&match client.recover() {
                    Ok(r) => result_line(&id, "result", r),
                    Err(e) => error_line(&id, &e.to_string()),
                });
            });
        }
        Command::AxSnapshot(options) => {
            scope.spawn(move || {
                emit(&match client.ax_snapshot(options) {
                    Ok(ax) => {
                        result_line(&id, "ax", serde_json::to_value(ax).unwrap_or(Value::Null))
                    }
                    Err(ClientError::Ax(e)) => typed(
                        "error",
                        &json!({ "id": id, "message": e.to_string(), "code": e.code() }),
                    ),
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
