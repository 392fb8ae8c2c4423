//! `cdp-supervise watch`: supervise a tab, diffs and results on stdout, commands on stdin.

use std::sync::mpsc;
use std::time::Duration;

use cdp_supervise::demo::{DemoSite, DEMO_INTERVAL_S};
use cdp_supervise::evaluate::{error_of, eval_error_line, value_line};
use cdp_supervise::lines::{Line, LineReader, MAX_LINE};
use cdp_supervise::live_view::LiveView;
use cdp_supervise::network;
use cdp_supervise::protocol::{
    diff_line, error_line, parse_line, result_line, too_long_line, typed, Command,
    DEFAULT_CDP_TIMEOUT,
};
use cdp_supervisor::{DialogAction, Event, PageState, Warning};
use cdp_supervisor_blocking::{
    Browser, Client, ClientError, ClientEvent, CommandUpdate, Options, PendingCommand,
};
use serde_json::{json, Value};

use crate::args::{client_options, fallback_warning, runtime, unreachable_error, Args, Failure};
use crate::emit;
use crate::remote::{connect as connect_remote, on_signal, remote};

/// How long `watch` waits for the page to be live before navigating it.
const LIVE_TIMEOUT: Duration = Duration::from_secs(30);

/// How many stdin lines may wait for the command loop.
const INPUT_QUEUE: usize = 64;

enum Input {
    Line(Line),
    Eof,
    Fatal(String),
}

pub fn watch(args: Args) -> Result<(), Failure> {
    let options = Options {
        record: args.record.clone(),
        ..client_options(&args)
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
    let fallback = |warning: String, events_tx| -> Result<(Option<Browser>, Client), Failure> {
        eprintln!("cdp-supervise: warning: {warning}");
        emit(&json!({"type": "warning", "message": warning}).to_string());
        let (b, local) = launch()?;
        Ok((Some(b), connect(&local, events_tx)?))
    };
    // The Grid session (with --grid) lives until the client is stopped and dropped: it is
    // deleted when `grid` drops, on every path out of here.
    let mut grid = None;
    let (browser, client) = match remote(&args) {
        Ok(Some(remote)) => match connect_remote(&args, &remote, Some(events_tx.clone())) {
            Ok(client) => {
                // Only the client may hold the sender: the printer ends when it closes.
                drop(events_tx);
                grid = remote.grid;
                (None, client)
            }
            Err(e) if args.fallback_local => {
                drop(remote);
                fallback(fallback_warning(&named_endpoint(&args), &e), events_tx)?
            }
            Err(e) => return Err(runtime(unreachable_error(&remote.url, &e))),
        },
        Err(e) if args.fallback_local => fallback(e, events_tx)?,
        Err(e) => return Err(runtime(e)),
        Ok(None) => {
            let (b, local) = launch()?;
            (Some(b), connect(&local, events_tx)?)
        }
    };
    // Bounded: a client writing faster than commands are handled waits on its pipe (at
    // most INPUT_QUEUE lines of at most MAX_LINE bytes are held).
    let (input_tx, input_rx) = mpsc::sync_channel::<Input>(INPUT_QUEUE);

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
                    eprintln!("cdp-supervise: warning: {warning}");
                    if let Some(line) = warning_line(&warning) {
                        emit(&line);
                    }
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
            drop(grid);
            return Err(runtime(e));
        }
        if demo.is_some() {
            eprintln!(
                "cdp-supervise: demo at {page}: a dialog opens every {DEMO_INTERVAL_S} s, cycling through the top frame, a srcdoc iframe, a cross-site OOPIF and an OOPIF nested in it; answer with {{\"id\":1,\"cmd\":\"dialog\",\"action\":\"accept\"}} or let the watchdog dismiss it"
            );
        }
    }

    // A read of stdin cannot be interrupted, so this thread is not joined: it ends at
    // end of input, or with the process. Lines are bytes capped at MAX_LINE: a line that
    // is not UTF-8 or too long is answered, never the end of the session.
    let signal_tx = input_tx.clone();
    on_signal(move || drop(signal_tx.send(Input::Eof)));
    let stdin_tx = input_tx;
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lines = LineReader::new(stdin.lock(), MAX_LINE);
        while let Ok(Some(line)) = lines.next_line() {
            if stdin_tx.send(Input::Line(line)).is_err() {
                return;
            }
        }
        let _ = stdin_tx.send(Input::Eof);
    });

    let mut failure = None;
    // Where `network` left off in each tab, for this connection.
    let mut cursors = network::Cursors::default();
    std::thread::scope(|scope| {
        for input in &input_rx {
            match input {
                Input::Line(Line::TooLong { len }) => emit(&too_long_line(len, MAX_LINE)),
                Input::Line(Line::Bytes(line)) => {
                    if handle_line(&client, scope, &line, &mut cursors) == Flow::Stop {
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
    drop(grid);
    drop(browser);
    drop(demo);
    match failure {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The endpoint the flags name, for a warning.
fn named_endpoint(args: &Args) -> String {
    args.remote
        .grid
        .clone()
        .or_else(|| args.cdp.clone())
        .unwrap_or_default()
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
    line: &[u8],
    cursors: &mut network::Cursors,
) -> Flow {
    let (id, command, tab_id) = match parse_line(line) {
        Ok(request) => (request.id, request.command, request.tab_id),
        Err(e) => {
            emit(&e.to_line());
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
            Err(e) => client_error_line(&id, &e),
        }),
        Command::Policy(p) => emit(&match client.set_policy(p) {
            Ok(()) => result_line(
                &id,
                "policy",
                serde_json::to_value(p).unwrap_or(Value::Null),
            ),
            Err(e) => client_error_line(&id, &e),
        }),
        Command::Dialog {
            action,
            prompt_text,
            dialog_id,
            files,
            credentials,
        } => {
            scope.spawn(move || {
                let accept = action == DialogAction::Accept;
                let answered = match (files.filter(|_| accept), credentials.filter(|_| accept)) {
                    (_, Some((user, password))) => {
                        client.sign_in(&user, password.expose(), dialog_id.as_deref())
                    }
                    (Some(files), None) => {
                        let files: Vec<&str> = files.iter().map(String::as_str).collect();
                        client.upload_files_in(tab_id.as_deref(), &files, dialog_id.as_deref())
                    }
                    (None, None) => client.respond_dialog_in(
                        tab_id.as_deref(),
                        action,
                        prompt_text.as_deref(),
                        dialog_id.as_deref(),
                    ),
                };
                emit(&match answered {
                    Ok(closed) => result_line(
                        &id,
                        "dialog",
                        serde_json::to_value(closed).unwrap_or(Value::Null),
                    ),
                    Err(e) => client_error_line(&id, &e),
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
                                Err(e) => errors
                                    .push(json!({ "code": e.code(), "message": e.to_string() })),
                            }
                        }
                        let mut obj = json!({ "id": id, "dialogs": closed });
                        if !errors.is_empty() {
                            obj["errors"] = Value::Array(errors);
                        }
                        typed("result", &obj)
                    }
                    Err(e) => client_error_line(&id, &e),
                });
            });
        }
        Command::Cdp {
            method,
            params,
            frame_id,
            timeout,
        } => match client.start_command_in(
            tab_id.as_deref(),
            frame_id.as_deref(),
            &method,
            params,
            timeout,
        ) {
            Ok(pending) => {
                scope.spawn(move || follow_command(&id, pending));
            }
            Err(e) => emit(&client_error_line(&id, &e)),
        },
        Command::Evaluate(evaluation) => {
            scope.spawn(move || {
                emit(&match client.evaluate_in(tab_id.as_deref(), evaluation) {
                    Ok(value) => value_line(&id, &value),
                    Err(ClientError::Evaluate(e)) => error_of(&id, &e),
                    Err(e) => error_line(&id, e.code(), &e.to_string()),
                });
            });
        }
        Command::Recover => {
            scope.spawn(move || {
                emit(&match client.recover_in(tab_id.as_deref()) {
                    Ok(r) => result_line(&id, "result", r),
                    Err(e) => client_error_line(&id, &e),
                });
            });
        }
        Command::AxSnapshot(options) => {
            scope.spawn(move || {
                emit(&match client.ax_snapshot_in(tab_id.as_deref(), options) {
                    Ok(ax) => {
                        result_line(&id, "ax", serde_json::to_value(ax).unwrap_or(Value::Null))
                    }
                    // `blocked` names the dialog, as an evaluate's does.
                    Err(ClientError::Ax(e)) => {
                        eval_error_line(&id, e.code(), &e.to_string(), e.dialog())
                    }
                    Err(e) => client_error_line(&id, &e),
                });
            });
        }
        Command::Find { query, options } => {
            scope.spawn(move || {
                emit(&match client.ax_snapshot_in(tab_id.as_deref(), options) {
                    Ok(ax) => result_line(
                        &id,
                        "find",
                        serde_json::to_value(ax.find(&query)).unwrap_or(Value::Null),
                    ),
                    Err(ClientError::Ax(e)) => {
                        eval_error_line(&id, e.code(), &e.to_string(), e.dialog())
                    }
                    Err(e) => client_error_line(&id, &e),
                });
            });
        }
        Command::Act { action, options } => {
            scope.spawn(move || {
                emit(&match client.act_in(tab_id.as_deref(), action, options) {
                    Ok(r) => {
                        result_line(&id, "act", serde_json::to_value(r).unwrap_or(Value::Null))
                    }
                    Err(e) => client_error_line(&id, &e),
                });
            });
        }
        Command::Console { since, level } => {
            emit(&match client.console_since(tab_id.as_deref(), since) {
                Ok(c) => {
                    let lines: Vec<_> = c
                        .lines
                        .into_iter()
                        .filter(|l| level.is_none_or(|lv| lv.shows(&l.kind)))
                        .collect();
                    typed(
                        "result",
                        &json!({ "id": id, "console": lines, "next": c.next, "dropped": c.dropped }),
                    )
                }
                Err(e) => client_error_line(&id, &e),
            })
        }
        Command::Tabs => emit(&match client.tabs() {
            Ok(tabs) => result_line(
                &id,
                "tabs",
                serde_json::to_value(tabs).unwrap_or(Value::Null),
            ),
            Err(e) => client_error_line(&id, &e),
        }),
        // A listing answers from the supervisor's state at once; one request may read its
        // bodies from Chromium, so it answers from a thread.
        Command::Network { index: None, after } => {
            let listed = network::sidecar_result(client, cursors, tab_id.as_deref(), None, after);
            emit(&network_line(id, listed));
        }
        Command::Network { index, .. } => {
            scope.spawn(move || {
                let mut unused = network::Cursors::default();
                let one =
                    network::sidecar_result(client, &mut unused, tab_id.as_deref(), index, None);
                emit(&network_line(id, one));
            });
        }
        Command::TabNew { url } => {
            scope.spawn(move || emit(&tab_line(&id, client.new_tab(&url))));
        }
        Command::TabSelect { tab_id } => emit(&tab_line(&id, client.select_tab(&tab_id))),
        Command::TabClose { tab_id, force } => {
            scope.spawn(move || {
                emit(&match client.close_tab(tab_id.as_deref(), force) {
                    Ok(c) => {
                        let mut obj = json!({ "id": id, "tab_id": c.tab_id, "closed": c.closed });
                        if let Some(d) = c.dialog {
                            obj["dialog"] = serde_json::to_value(d).unwrap_or(Value::Null);
                        }
                        typed("result", &obj)
                    }
                    Err(e) => client_error_line(&id, &e),
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
                emit(&error_line(id, e.code(), &e.to_string()));
                return;
            }
            Err(ClientError::Timeout { .. }) => continue,
            Err(e) => {
                emit(&client_error_line(id, &e));
                return;
            }
        }
    }
}

/// `{"type":"result","id":N,"tab":{...}}`, or the error line.
fn tab_line(id: &Value, tab: Result<cdp_supervisor::TabInfo, ClientError>) -> String {
    match tab {
        Ok(tab) => result_line(id, "tab", serde_json::to_value(tab).unwrap_or(Value::Null)),
        Err(e) => client_error_line(id, &e),
    }
}

/// The stdout line of a warning a program must see, not only a person reading stderr:
/// `{"type":"warning","code":"fresh_browser","message":...,"old_tab_id":...,"tab_id":...}`
/// when a reconnect found a new browser (the old tab's state is gone), sign-in credentials
/// refused (`origin`), a navigation the page started refused by an embedder's URL policy
/// (`tab_id`), and the fatal ones.
fn warning_line(warning: &Warning) -> Option<String> {
    let mut obj = json!({ "code": warning.code(), "message": warning.to_string() });
    match warning {
        Warning::FreshBrowser { old_tab_id, tab_id } => {
            obj["old_tab_id"] = json!(old_tab_id);
            obj["tab_id"] = json!(tab_id);
        }
        Warning::HttpAuthRejected { origin, .. } => obj["origin"] = json!(origin),
        Warning::NavigationRefused { tab_id, .. } => obj["tab_id"] = json!(tab_id),
        w if w.is_fatal() => {}
        _ => return None,
    }
    Some(typed("warning", &obj))
}

/// The error line of a client call's failure, with its stable code.
fn client_error_line(id: &Value, e: &ClientError) -> String {
    error_line(id, e.code(), &e.to_string())
}

/// `{"type":"result","id":N,...}` of a `network` command, or its error line.
fn network_line(id: Value, result: Result<serde_json::Map<String, Value>, ClientError>) -> String {
    match result {
        Ok(mut obj) => {
            obj.insert("id".into(), id);
            typed("result", &Value::Object(obj))
        }
        Err(e) => client_error_line(&id, &e),
    }
}
