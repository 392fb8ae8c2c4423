//! Many supervised sessions at once through a Selenium Grid of one hub and two nodes on
//! 127.0.0.1 (a load run, not a timed test): N Grid sessions, each supervised by a smol
//! client, all on one thread; each loops over real work (navigate, until the load, to a
//! page with a same-site iframe and cross-site OOPIFs, an accessibility snapshot of every frame, a
//! `confirm` answered, an evaluate); halfway, node 1 is killed (SIGKILL to it and the
//! browsers it started). It prints the sessions held, tool calls per second, the
//! supervisor's memory per session, the failures by code (and on which node), and what was
//! left running afterwards (Grid sessions, processes): nothing, for a pass.
//!
//! `cargo bench -p cdp-supervisor-e2e --bench grid_load -- [--sessions N] [--seconds S]
//! [--kill 0]` (defaults 8 and 40; `--kill 0`: node 1 is not killed); needs java, chromedriver and the Selenium jar (`.ci/run` installs
//! them). The last line is JSON.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use cdp_supervise::demo::DemoSite;
use cdp_supervisor_grid::local::{missing, LocalGrid};
use cdp_supervisor_grid::{capabilities, sessions, GridSession};
use cdp_supervisor_smol::{
    act, Client, ClientError, CommandUpdate, DialogAction, Evaluation, Options,
};
use serde_json::json;
use smol::LocalExecutor;

/// What the sessions did, counted on the one thread.
#[derive(Default)]
struct Tally {
    ok: u64,
    /// (node, code) → count.
    failures: BTreeMap<(usize, String), u64>,
    /// Sessions whose work ended (their connection given up), by node.
    ended: BTreeMap<usize, u64>,
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The supervisor process's resident memory, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    if let Some(what) = missing() {
        eprintln!("grid_load: cannot run a Selenium Grid: missing {what}");
        std::process::exit(2);
    }
    let n = arg("--sessions", 8).max(2) as usize;
    let seconds = arg("--seconds", 40);
    // `--kill 0`: the same run without losing node 1 (a baseline).
    let kill = arg("--kill", 1) != 0;
    let per_node = n.div_ceil(2) as u32;
    eprintln!("grid_load: starting a hub and two nodes of {per_node} sessions each");
    let mut grid = LocalGrid::hub_and_nodes(2, per_node).expect("a hub and two nodes");
    let site = DemoSite::start().unwrap();
    let binary = cdp_supervisor_chromium::find_chromium().expect("a Chromium");
    let caps = json!({"browserName": "chrome", "goog:chromeOptions": {
        "binary": binary.display().to_string(),
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--site-per-process"]}});
    let body = capabilities(Some(&caps.to_string())).unwrap();

    // The sessions, asked for at once (each starts a chromedriver and a Chromium).
    let started = Instant::now();
    let created: Vec<GridSession> = std::thread::scope(|s| {
        let asks: Vec<_> = (0..n)
            .map(|_| {
                let (url, body) = (grid.url().to_owned(), body.clone());
                s.spawn(move || GridSession::create(&url, &body, Duration::from_secs(120)))
            })
            .collect();
        asks.into_iter()
            .filter_map(|a| match a.join().expect("a session thread") {
                Ok(session) => Some(session),
                Err(e) => {
                    eprintln!("grid_load: no session: {e}");
                    None
                }
            })
            .collect()
    });
    let nodes: Vec<usize> = created
        .iter()
        .map(|s| grid.node_of(s.id()).unwrap_or(usize::MAX))
        .collect();
    eprintln!(
        "grid_load: {} sessions in {:.1}s, on nodes {nodes:?}",
        created.len(),
        started.elapsed().as_secs_f64()
    );

    let rss_before = rss_kib();
    let tally = Rc::new(RefCell::new(Tally::default()));
    let executor = LocalExecutor::new();
    let top = site.top_url(false);
    let run_for = Duration::from_secs(seconds);
    let (clients_held, rss_held, elapsed) = smol::block_on(executor.run(async {
        // GRID_LOAD_RECORD=DIR: each session's trace in DIR/SESSION.jsonl.
        let record = std::env::var_os("GRID_LOAD_RECORD").map(std::path::PathBuf::from);
        let options = |id: &str| Options {
            heartbeat: Some(Duration::from_secs(2)),
            connect_timeout: Duration::from_secs(60),
            record: record.as_ref().map(|d| d.join(format!("{id}.jsonl"))),
            ..Options::default()
        };
        let mut clients = Vec::new();
        for (session, &node) in created.iter().zip(&nodes) {
            let options = options(session.id());
            match Client::connect_local(&executor, session.cdp_url(), options, None).await {
                Ok(c) => clients.push((Rc::new(c), node)),
                Err(e) => {
                    let mut t = tally.borrow_mut();
                    *t.failures.entry((node, e.code().to_owned())).or_default() += 1;
                }
            }
        }
        let held = clients.len();
        let rss_held = rss_kib();
        let work_started = Instant::now();
        let end = work_started + run_for;
        let mut tasks = Vec::new();
        for (client, node) in &clients {
            let (client, node, tally, top) = (client.clone(), *node, tally.clone(), top.clone());
            tasks.push(executor.spawn(async move {
                while Instant::now() < end {
                    let outcome = work(&client, &top).await;
                    let mut t = tally.borrow_mut();
                    t.ok += outcome.0;
                    if let Some((step, e)) = outcome.1 {
                        let seconds = work_started.elapsed().as_secs_f64();
                        eprintln!(
                            "grid_load: node {node}, {seconds:.1}s, {step}: {} ({e})",
                            e.code()
                        );
                        *t.failures.entry((node, e.code().to_owned())).or_default() += 1;
                        if e.code() == "disconnected" {
                            *t.ended.entry(node).or_default() += 1;
                            return;
                        }
                    }
                }
            }));
        }
        // Halfway, node 1 is lost with every browser on it (the kill blocks the thread
        // for a moment, as a stalled machine would).
        smol::Timer::after(run_for / 2).await;
        if kill {
            eprintln!("grid_load: killing node 1");
            grid.kill_node(1);
        }
        for t in tasks {
            t.await;
        }
        let elapsed = work_started.elapsed();
        for (client, _) in &clients {
            let _ = client.stop().await;
        }
        (held, rss_held, elapsed)
    }));
    drop(executor);
    let wall = elapsed.as_secs_f64();
    // Every session deleted. The hub answers a delete on the killed node with 500 and
    // lists that node's sessions until its health check drops the node: what counts is
    // what the surviving node holds, and what runs.
    let on_killed: Vec<String> = created
        .iter()
        .zip(&nodes)
        .filter(|(_, &node)| node == 1)
        .map(|(s, _)| s.id().to_owned())
        .collect();
    drop(created);
    // A DELETE is answered before the Grid's status shows the slot free: what is still
    // listed after 10 s is left.
    let left_after = |grid: &LocalGrid| -> Vec<String> {
        let listed = sessions(grid.url()).unwrap_or_else(|e| vec![format!("({e})")]);
        listed
            .into_iter()
            .filter(|id| !on_killed.contains(id))
            .collect()
    };
    let settled = Instant::now() + Duration::from_secs(10);
    let mut left_sessions = left_after(&grid);
    while !left_sessions.is_empty() && Instant::now() < settled {
        std::thread::sleep(Duration::from_millis(250));
        left_sessions = left_after(&grid);
    }
    for id in &left_sessions {
        eprintln!("grid_load: the Grid still lists session {id} after 10 s");
    }
    let left_processes = grid.stop();
    drop(site);

    let t = tally.borrow();
    let calls_per_s = t.ok as f64 / wall;
    let per_session_kib = rss_held.saturating_sub(rss_before) / clients_held.max(1) as u64;
    let on_node = |i: usize| nodes.iter().filter(|&&x| x == i).count();
    let failures: Vec<String> = t
        .failures
        .iter()
        .map(|((node, code), c)| format!("{code} x{c} (node {node})"))
        .collect();
    // The kill's effect: connections lost. A surviving node's session must lose none
    // (its other failures, a dialog closed under an answer or a budget run out on a
    // loaded machine, happen as often without the kill: `--kill 0`).
    let lost = |code: &str| matches!(code, "disconnected" | "session_gone" | "unreachable");
    let survivors_touched = t
        .failures
        .keys()
        .any(|(node, code)| *node != 1 && lost(code));
    println!("| sessions asked | held (node 0 / node 1) | calls ok | calls/s | supervisor memory per session | failures by code | node 0 lost no connection | Grid sessions left | processes left |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {n} | {clients_held} ({} / {}) | {} | {calls_per_s:.1} | {per_session_kib} KiB | {} | {} | {} | {} |",
        on_node(0),
        on_node(1),
        t.ok,
        if failures.is_empty() { "none".into() } else { failures.join(", ") },
        if survivors_touched { "no" } else { "yes" },
        left_sessions.len(),
        left_processes.len(),
    );
    for p in &left_processes {
        eprintln!("grid_load: left running: {p}");
    }
    println!(
        "{}",
        json!({"sessions": n, "held": clients_held, "node0": on_node(0), "node1": on_node(1),
            "calls_ok": t.ok, "calls_per_s": (calls_per_s * 10.0).round() / 10.0,
            "kib_per_session": per_session_kib,
            "failures": t.failures.iter().map(|((node, code), c)| json!({"node": node, "code": code, "count": c})).collect::<Vec<_>>(),
            "ended_on_node": t.ended.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
            "node0_lost_no_connection": !survivors_touched, "node1_killed": kill,
            "grid_sessions_left": left_sessions.len(), "processes_left": left_processes.len()})
    );
    let pass = !survivors_touched && left_sessions.is_empty() && left_processes.is_empty();
    std::process::exit(if pass { 0 } else { 1 });
}

/// One round of an agent's work: navigate, an accessibility snapshot, a `confirm`
/// answered, an evaluate. The calls that succeeded, and the first error.
async fn work(client: &Client, top: &str) -> (u64, Option<(&'static str, ClientError)>) {
    let wait = Duration::from_secs(20);
    let mut ok = 0;
    // As an agent's navigate: until the page's `load`, which waits for its frames. A
    // `confirm` raised while an OOPIF still commits its navigation is closed by Chromium
    // (it closes a tab's dialogs when any of its frames commits): that is the page's race,
    // not the Grid's (the manual's Chromium facts).
    let navigate = act::Action::Navigate {
        url: top.to_owned(),
    };
    let mut options = act::ActOptions::default();
    (options.screenshot, options.wait, options.timeout) = (false, act::Wait::Load, wait);
    if let Err(e) = client.act(navigate, options).await {
        return (ok, Some(("navigate", e)));
    }
    ok += 1;
    match client.ax_snapshot(Default::default()).await {
        Ok(_) => ok += 1,
        Err(e) => return (ok, Some(("ax_snapshot", e))),
    }
    let ask = json!({"expression": "confirm('load')", "returnByValue": true});
    let pending = match client
        .start_command(None, "Runtime.evaluate", ask, wait)
        .await
    {
        Ok(p) => p,
        Err(e) => return (ok, Some(("confirm", e))),
    };
    match pending.next_update(wait).await {
        Ok(CommandUpdate::Blocked { dialog_id }) => {
            let answer = client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id));
            if let Err(e) = answer.await {
                return (ok, Some(("answer", e)));
            }
            ok += 1;
            match pending.wait().await {
                Ok(_) => ok += 1,
                Err(e) => return (ok, Some(("confirm's reply", e))),
            }
        }
        Ok(CommandUpdate::Finished(Err(e))) => {
            return (ok, Some(("confirm", ClientError::Command(e))))
        }
        Ok(CommandUpdate::Finished(Ok(_))) => ok += 1,
        Err(e) => return (ok, Some(("confirm's update", e))),
    }
    match client.evaluate(Evaluation::new("6 * 7")).await {
        Ok(_) => ok += 1,
        Err(e) => return (ok, Some(("evaluate", e))),
    }
    (ok, None)
}
