//! `cargo bench -p cdp-supervisor-smol --bench many_tabs -- [--tabs N] [--time-scale S] [TRACE.jsonl]`
//!
//! Many tabs (issue 7): the smol transport supervising N tabs at once (default 1 000) on
//! one thread, against a fake browser in the same process that replays a recorded trace
//! on every connection. Every client task ([`Client::connect_local`]) and every
//! fake-browser connection runs on one `smol::LocalExecutor`, driven by `smol::block_on` on
//! the main thread; nothing is spawned on smol's global executor or its blocking pool.
//!
//! The fake browser walks the trace per connection: an `in` event is sent as recorded; an
//! `in` reply waits until the supervisor has sent a command with the recorded command's
//! method and session (oldest first) and goes out with that command's id; `out`
//! lines say which method and session each recorded id had. It stops at the first
//! `disconnect`. Whether a reply is matched or dropped is decided beforehand by replaying
//! the same script through the pure core (the baseline): a reply the core drops is not
//! waited for, so a connection never stalls on a command that will not come.
//!
//! Reported per run (1 tab, 100 tabs, N tabs): the wall time until every tab saw the
//! baseline's number of core events and the baseline's final snapshot (times aside), the
//! events delivered to subscribers per second, and the live heap per tab with every tab
//! attached and idle, from a counting global allocator that tells the fake browser's
//! allocations apart from the rest. The pure core's replay of the same script is the
//! baseline: ratios, never asserted. Last line: one JSON object for the N-tab run.
//!
//! Each tab holds two sockets (client and fake browser): N tabs need `ulimit -n` above
//! 2 N + 64 (the bench warns when the soft limit is lower).

// The one exception: a counting global allocator needs `unsafe impl GlobalAlloc`.
#![deny(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::{Message, Utf8Bytes};
use cdp_supervisor_smol::cdp_supervisor::replay::{Direction, Replayer, Trace};
use cdp_supervisor_smol::cdp_supervisor::{Config, Supervisor};
use cdp_supervisor_smol::{Client, ClientEvent, Options};
use serde::Deserialize;
use smol::channel;
use smol::future::FutureExt;
use smol::lock::Semaphore;
use smol::net::{TcpListener, TcpStream};
use smol::stream::StreamExt;
use smol::{LocalExecutor, Timer};

// ---- counting allocator, by side -------------------------------------------------------

/// Allocations made while a fake-browser future is polled count as `BROWSER`; everything
/// else (client tasks, supervisors, the bench's per-tab bookkeeping, the reactor) as
/// `CLIENT`. The two sides only talk over sockets, so memory rarely crosses sides.
const CLIENT: usize = 0;
const BROWSER: usize = 1;

thread_local! {
    static SIDE: Cell<usize> = const { Cell::new(CLIENT) };
    static BROWSER_NANOS: Cell<u64> = const { Cell::new(0) };
}

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LIVE_BY_SIDE: [AtomicIsize; 2] = [AtomicIsize::new(0), AtomicIsize::new(0)];

fn side() -> usize {
    SIDE.try_with(Cell::get).unwrap_or(CLIENT)
}

struct Counting;

// SAFETY: defers every call to `System` unchanged; only counts sizes.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
            LIVE_BY_SIDE[side()].fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_BY_SIDE[side()].fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Debug, Clone, Copy)]
struct Heap {
    total: isize,
    client: isize,
    browser: isize,
}

fn heap() -> Heap {
    Heap {
        total: LIVE.load(Ordering::Relaxed) as isize,
        client: LIVE_BY_SIDE[CLIENT].load(Ordering::Relaxed),
        browser: LIVE_BY_SIDE[BROWSER].load(Ordering::Relaxed),
    }
}

/// Polls `fut` with its allocations counted on the fake browser's side, and adds the
/// time spent in it to `BROWSER_NANOS`.
struct Browser<F> {
    fut: Pin<Box<F>>,
}

fn browser<F: Future>(fut: F) -> Browser<F> {
    Browser { fut: Box::pin(fut) }
}

impl<F: Future> Future for Browser<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let before = SIDE.with(|s| s.replace(BROWSER));
        let start = Instant::now();
        let out = self.fut.as_mut().poll(cx);
        BROWSER_NANOS.with(|n| n.set(n.get() + start.elapsed().as_nanos() as u64));
        SIDE.with(|s| s.set(before));
        out
    }
}

// ---- the script: a trace as the fake browser plays it ----------------------------------

/// A recorded command's method and session: what a reply is matched on.
type Key = (String, Option<String>);

enum Step {
    /// An `in` event, sent as recorded.
    Event { at: f64, text: Utf8Bytes },
    /// An `in` reply to the recorded command with method and session `keys[key]` (`None`:
    /// its id was never sent), text split around its id.
    Reply {
        at: f64,
        key: Option<usize>,
        prefix: String,
        suffix: String,
        /// The pure core's replay handed it to a command: wait for that command.
        wait: bool,
    },
}

struct Script {
    keys: Vec<Key>,
    steps: Vec<Step>,
}

impl Script {
    /// The `in` lines of the first connection, up to its `disconnect`.
    fn new(trace: &Trace<'_>) -> Script {
        let mut keys: Vec<Key> = Vec::new();
        let mut recorded: Vec<(u64, usize)> = Vec::new();
        let mut steps = Vec::new();
        let mut connected = false;
        for entry in &trace.entries {
            match entry.dir {
                Direction::Connect if !connected => connected = true,
                Direction::Connect => {}
                Direction::Disconnect => break,
                Direction::Out if connected => {
                    let Some(cmd) = entry.msg.and_then(|m| parse_command(m.get())) else {
                        continue;
                    };
                    let key = (cmd.method, cmd.session_id);
                    let k = match keys.iter().position(|x| *x == key) {
                        Some(k) => k,
                        None => {
                            keys.push(key);
                            keys.len() - 1
                        }
                    };
                    recorded.push((cmd.id, k));
                }
                Direction::In if connected => {
                    let Some(text) = entry.msg.map(|m| m.get()) else {
                        continue;
                    };
                    let step = match split_id(text) {
                        Some((id, prefix, suffix)) => Step::Reply {
                            at: entry.t,
                            key: recorded.iter().rev().find(|(r, _)| *r == id).map(|r| r.1),
                            prefix,
                            suffix,
                            wait: false,
                        },
                        None => Step::Event {
                            at: entry.t,
                            text: Utf8Bytes::from(text.to_owned()),
                        },
                    };
                    steps.push(step);
                }
                Direction::In | Direction::Out => {}
            }
        }
        Script { keys, steps }
    }

    fn key_of(&self, method: &str, session_id: Option<&str>) -> Option<usize> {
        self.keys
            .iter()
            .position(|(m, s)| m == method && s.as_deref() == session_id)
    }
}

#[derive(Deserialize)]
struct Command {
    id: u64,
    method: String,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

fn parse_command(text: &str) -> Option<Command> {
    serde_json::from_str(text).ok()
}

#[derive(Deserialize)]
struct MaybeReply {
    id: Option<u64>,
}

/// A reply's id and its text around the id, to rewrite it without reparsing. Chromium
/// writes `id` first; any other reply is re-serialized with `id` first.
fn split_id(text: &str) -> Option<(u64, String, String)> {
    let id = serde_json::from_str::<MaybeReply>(text).ok()?.id?;
    let head = text.trim_start().strip_prefix('{')?.trim_start();
    if let Some(rest) = head.strip_prefix("\"id\"") {
        let rest = rest.trim_start().strip_prefix(':')?.trim_start();
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let start = text.len() - rest.len();
            return Some((
                id,
                text[..start].to_owned(),
                text[start + digits..].to_owned(),
            ));
        }
    }
    let mut value: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).ok()?;
    value.remove("id");
    let rest = serde_json::to_string(&value).ok()?;
    let suffix = match rest.strip_prefix('{')? {
        "}" => "}".to_owned(),
        body => format!(",{body}"),
    };
    Some((id, "{\"id\":".to_owned(), suffix))
}

// ---- the pure core: baseline and expectations ------------------------------------------

/// What a tab ends with when the script is replayed through the pure core.
struct CoreRun {
    sup: Supervisor,
    events: usize,
    /// Per step: whether the reply was handed to a command.
    matched: Vec<bool>,
    refused: usize,
}

fn core_replay(script: &Script, config: &Config) -> CoreRun {
    let mut sup = Supervisor::new(config.clone());
    let mut ours: VecDeque<(u64, Option<usize>)> = VecDeque::new();
    let mut events = 0;
    let mut refused = 0;
    let mut matched = Vec::with_capacity(script.steps.len());
    let mut t = 1_000.0;
    sup.handle_connected(t);
    let drain = |sup: &mut Supervisor, ours: &mut VecDeque<_>, events: &mut usize| {
        while let Some(cmd) = sup.poll_transmit() {
            ours.push_back((
                cmd.id,
                script.key_of(&cmd.method, cmd.session_id.as_deref()),
            ));
        }
        while sup.poll_event().is_some() {
            *events += 1;
        }
    };
    drain(&mut sup, &mut ours, &mut events);
    for step in &script.steps {
        t += 1e-4;
        let result = match step {
            Step::Event { text, .. } => {
                matched.push(false);
                sup.handle_message(t, text.as_str())
            }
            Step::Reply {
                key,
                prefix,
                suffix,
                ..
            } => {
                let ours_id = key.and_then(|k| {
                    let i = ours.iter().position(|(_, o)| *o == Some(k))?;
                    ours.remove(i).map(|o| o.0)
                });
                matched.push(ours_id.is_some());
                match ours_id {
                    Some(id) => sup.handle_message(t, &format!("{prefix}{id}{suffix}")),
                    None => Ok(()),
                }
            }
        };
        refused += usize::from(result.is_err());
        drain(&mut sup, &mut ours, &mut events);
    }
    CoreRun {
        sup,
        events,
        matched,
        refused,
    }
}

/// The snapshot as JSON with every time (`at`, `*_at`) removed: the socket run's clock
/// differs.
fn timeless(snapshot: &cdp_supervisor_smol::Snapshot) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| k != "at" && !k.ends_with("_at"));
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(snapshot).unwrap_or_default();
    strip(&mut v);
    v
}

// ---- the fake browser -------------------------------------------------------------------

/// A reply waits at most this long for its command; a guard, never reached when sane.
const WAIT_GUARD: Duration = Duration::from_secs(60);

#[derive(Default)]
struct BrowserStats {
    open: Cell<usize>,
    scripts_done: Cell<usize>,
    messages_sent: Cell<usize>,
    replies_sent: Cell<usize>,
    wait_timeouts: Cell<usize>,
    errors: RefCell<Vec<String>>,
}

fn server_ws_config() -> WebSocketConfig {
    // The fake browser's cost is not what is measured: keep its read buffer small.
    WebSocketConfig::default().read_buffer_size(4096)
}

async fn accept_loop(
    ex: Rc<LocalExecutor<'static>>,
    listener: TcpListener,
    script: Rc<Script>,
    stats: Rc<BrowserStats>,
    time_scale: f64,
) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let conn = serve(stream, script.clone(), stats.clone(), time_scale);
                ex.spawn(browser(conn)).detach();
            }
            Err(e) => stats.errors.borrow_mut().push(format!("accept: {e}")),
        }
    }
}

async fn serve(stream: TcpStream, script: Rc<Script>, stats: Rc<BrowserStats>, time_scale: f64) {
    let _ = stream.set_nodelay(true);
    let ws =
        match async_tungstenite::accept_async_with_config(stream, Some(server_ws_config())).await {
            Ok(ws) => ws,
            Err(e) => {
                stats.errors.borrow_mut().push(format!("handshake: {e}"));
                return;
            }
        };
    stats.open.set(stats.open.get() + 1);
    let (mut tx, mut rx) = ws.split();
    let (commands, command_rx) = channel::unbounded::<(u64, Option<usize>)>();
    // Reads the supervisor's commands until it closes the socket.
    let read = async {
        while let Some(Ok(msg)) = rx.next().await {
            if let Message::Text(text) = msg {
                if let Some(cmd) = parse_command(text.as_str()) {
                    let key = script.key_of(&cmd.method, cmd.session_id.as_deref());
                    let _ = commands.try_send((cmd.id, key));
                }
            }
        }
    };
    let play = async {
        let start = Instant::now();
        let mut ours: VecDeque<(u64, Option<usize>)> = VecDeque::new();
        for step in &script.steps {
            let at = match step {
                Step::Event { at, .. } | Step::Reply { at, .. } => *at,
            };
            if time_scale > 0.0 {
                Timer::at(start + Duration::from_secs_f64(at * time_scale)).await;
            }
            let text = match step {
                Step::Event { text, .. } => text.clone(),
                Step::Reply { wait: false, .. } => continue, // the core drops it too
                Step::Reply {
                    key,
                    prefix,
                    suffix,
                    ..
                } => {
                    let deadline = Instant::now() + WAIT_GUARD;
                    let id = loop {
                        while let Ok(c) = command_rx.try_recv() {
                            ours.push_back(c);
                        }
                        if let Some(i) = ours.iter().position(|(_, k)| k == key) {
                            break ours.remove(i).map(|o| o.0);
                        }
                        let next = async { command_rx.recv().await.ok() };
                        let late = async {
                            Timer::at(deadline).await;
                            None
                        };
                        match next.or(late).await {
                            Some(c) => ours.push_back(c),
                            None => break None,
                        }
                    };
                    let Some(id) = id else {
                        stats.wait_timeouts.set(stats.wait_timeouts.get() + 1);
                        continue;
                    };
                    stats.replies_sent.set(stats.replies_sent.get() + 1);
                    Utf8Bytes::from(format!("{prefix}{id}{suffix}"))
                }
            };
            if let Err(e) = tx.send(Message::Text(text)).await {
                stats.errors.borrow_mut().push(format!("send: {e}"));
                return;
            }
            stats.messages_sent.set(stats.messages_sent.get() + 1);
        }
        stats.scripts_done.set(stats.scripts_done.get() + 1);
        // Idle like a browser whose page is loaded; `read` ends the connection.
        smol::future::pending::<()>().await
    };
    read.or(play).await;
    stats.open.set(stats.open.get() - 1);
}

// ---- the clients ------------------------------------------------------------------------

/// WebSocket handshakes in flight at most. The listen backlog is 128 (Rust's std): more
/// simultaneous connects overflow it, and the dropped SYNs are retried only after 1 s.
const CONNECTING: usize = 100;

struct Expected {
    events: usize,
    snapshot: serde_json::Value,
}

#[derive(Default)]
struct TabStats {
    events: Cell<usize>,
    done: Cell<usize>,
    errors: RefCell<Vec<String>>,
}

/// One tab: connects, counts core events until the baseline's number, then checks the
/// snapshot against the baseline's. Returns the client, attached and idle.
async fn tab(
    ex: Rc<LocalExecutor<'static>>,
    url: Rc<str>,
    options: Options,
    expected: Rc<Expected>,
    stats: Rc<TabStats>,
    connecting: Rc<Semaphore>,
) -> Option<Client> {
    let (events_tx, events) = channel::unbounded();
    let fail = |e: String| {
        stats.errors.borrow_mut().push(e);
        None
    };
    let permit = connecting.acquire().await;
    let client = match Client::connect_local(&ex, &url, options, Some(events_tx)).await {
        Ok(c) => c,
        Err(e) => return fail(format!("connect: {e}")),
    };
    drop(permit);
    let mut seen = 0;
    while seen < expected.events {
        match events.recv().await {
            Ok(ClientEvent::Event(_)) => seen += 1,
            Ok(ClientEvent::GaveUp { error }) => return fail(format!("gave up: {error}")),
            Ok(_) => {}
            Err(_) => return fail("events closed".into()),
        }
    }
    stats.events.set(stats.events.get() + seen);
    match client.snapshot().await {
        Ok(s) if timeless(&s) == expected.snapshot => {}
        Ok(s) => {
            let mut got = timeless(&s).to_string();
            got.truncate(400);
            return fail(format!("snapshot differs from the core's: {got}..."));
        }
        Err(e) => return fail(format!("snapshot: {e}")),
    }
    stats.done.set(stats.done.get() + 1);
    Some(client)
}

// ---- one run ----------------------------------------------------------------------------

struct RunResult {
    tabs: usize,
    events: usize,
    messages: usize,
    wall: f64,
    /// The main thread's CPU time over the wall time.
    cpu_share: f64,
    browser_share: f64,
    client_per_tab: f64,
    browser_per_conn: f64,
    peak_per_tab: f64,
    leaked: isize,
    rss_per_tab: f64,
    failures: usize,
}

struct Setup {
    script: Rc<Script>,
    expected: Rc<Expected>,
    options: Options,
    time_scale: f64,
}

async fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    while !done() {
        if Instant::now() >= end {
            return false;
        }
        Timer::after(Duration::from_millis(2)).await;
    }
    true
}

async fn run(ex: Rc<LocalExecutor<'static>>, setup: &Setup, tabs: usize) -> RunResult {
    Timer::after(Duration::from_millis(20)).await;
    let base = heap();
    let rss_base = rss();
    PEAK.store(base.total as usize, Ordering::Relaxed);
    let browser_stats = Rc::new(BrowserStats::default());
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => panic!("cannot listen on 127.0.0.1: {e}"),
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let url: Rc<str> = format!("ws://127.0.0.1:{port}/devtools/browser/many-tabs").into();
    let nanos_before = BROWSER_NANOS.with(Cell::get);
    let cpu_before = thread_cpu();
    let start = Instant::now();
    let server = ex.spawn(browser(accept_loop(
        ex.clone(),
        listener,
        setup.script.clone(),
        browser_stats.clone(),
        setup.time_scale,
    )));
    let tab_stats = Rc::new(TabStats::default());
    let connecting = Rc::new(Semaphore::new(CONNECTING));
    let tasks: Vec<_> = (0..tabs)
        .map(|_| {
            ex.spawn(tab(
                ex.clone(),
                url.clone(),
                setup.options.clone(),
                setup.expected.clone(),
                tab_stats.clone(),
                connecting.clone(),
            ))
        })
        .collect();
    let mut clients = Vec::with_capacity(tabs);
    for t in tasks {
        clients.extend(t.await);
    }
    let scripts_ok = wait_until(Duration::from_secs(120), || {
        browser_stats.scripts_done.get() >= tabs
    })
    .await;
    let wall = start.elapsed().as_secs_f64();
    let cpu = thread_cpu() - cpu_before;
    let browser_secs = (BROWSER_NANOS.with(Cell::get) - nanos_before) as f64 / 1e9;
    // Attached and idle: let the last frames land, then count.
    Timer::after(Duration::from_millis(100)).await;
    let idle = heap();
    let rss_idle = rss();
    let peak = PEAK.load(Ordering::Relaxed) as isize - base.total;
    for c in &clients {
        let _ = c.stop().await;
    }
    drop(clients);
    drop(server);
    wait_until(Duration::from_secs(10), || browser_stats.open.get() == 0).await;
    Timer::after(Duration::from_millis(20)).await;
    let after = heap();

    let n = tabs as f64;
    // Tabs that did not reach the end state, plus anything the fake browser got wrong.
    let mut failures = tabs.saturating_sub(tab_stats.done.get())
        + browser_stats.errors.borrow().len()
        + browser_stats.wait_timeouts.get();
    if !scripts_ok {
        failures += tabs.saturating_sub(browser_stats.scripts_done.get());
    }
    for e in tab_stats
        .errors
        .borrow()
        .iter()
        .chain(browser_stats.errors.borrow().iter())
        .take(5)
    {
        eprintln!("  failure: {e}");
    }
    if browser_stats.wait_timeouts.get() > 0 {
        eprintln!(
            "  failure: {} replies waited {WAIT_GUARD:?} for their command",
            browser_stats.wait_timeouts.get()
        );
    }
    RunResult {
        tabs,
        events: tab_stats.events.get(),
        messages: browser_stats.messages_sent.get(),
        wall,
        cpu_share: cpu / wall,
        browser_share: browser_secs / wall,
        client_per_tab: (idle.client - base.client) as f64 / n,
        browser_per_conn: (idle.browser - base.browser) as f64 / n,
        peak_per_tab: peak as f64 / n,
        leaked: after.total - base.total,
        rss_per_tab: (rss_idle.saturating_sub(rss_base)) as f64 / n,
        failures,
    }
}

// ---- /proc ------------------------------------------------------------------------------

/// Resident set size in bytes (`/proc/self/statm`, 4 KiB pages).
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// The calling thread's CPU seconds (user + system, 100 ticks/s).
fn thread_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    cpu_ticks(&stat) as f64 / 100.0
}

/// utime + stime of a `/proc/.../stat` line: fields 14 and 15, counted from after `(comm)`.
fn cpu_ticks(stat: &str) -> u64 {
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum()
}

/// Every OS thread of this process: name and CPU seconds (user + system, 100 ticks/s).
fn threads() -> Vec<(String, f64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let path = entry.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        out.push((name.trim().to_owned(), cpu_ticks(&stat) as f64 / 100.0));
    }
    out
}

fn fd_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

// ---- main -------------------------------------------------------------------------------

fn main() {
    let mut args = std::env::args().skip(1);
    let mut tabs = 1000;
    let mut time_scale = 0.0;
    let mut path = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tabs" => tabs = args.next().and_then(|v| v.parse().ok()).unwrap_or(tabs),
            "--time-scale" => time_scale = args.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            _ if a.starts_with("--") => {} // cargo bench passes --bench
            _ => path = Some(a),
        }
    }
    let path = path.unwrap_or_else(|| {
        format!(
            "{}/../../tests/traces/srcdoc-and-nested-oopif-dialogs.jsonl",
            env!("CARGO_MANIFEST_DIR")
        )
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let trace = Trace::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    if let Some(limit) = fd_limit() {
        if limit < 2 * tabs as u64 + 64 {
            eprintln!(
                "warning: `ulimit -n` is {limit}; {tabs} tabs need about {} (run `ulimit -n 8192` first)",
                2 * tabs + 64
            );
        }
    }

    // The expectations: the script through the pure core.
    let mut script = Script::new(&trace);
    let config = Config::default();
    let core = core_replay(&script, &config);
    for (step, m) in script.steps.iter_mut().zip(&core.matched) {
        if let Step::Reply { wait, .. } = step {
            *wait = *m;
        }
    }
    let replies = script
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Reply { .. }))
        .count();
    let matched = core.matched.iter().filter(|m| **m).count();
    // Cross-check the matching with the core's own replayer (same rule, trace times).
    let mut replayer_sup = Supervisor::new(config.clone());
    let mut replayer = Replayer::new(&trace);
    replayer.run(&mut replayer_sup);
    let snapshot = core.sup.snapshot();
    let page_state = snapshot
        .page
        .as_ref()
        .map(|p| format!("{:?}", p.state))
        .unwrap_or_default();
    println!(
        "trace {path}: {} messages sent per tab ({} events, {matched} of {replies} replies matched by the core, {} refused); core replayer matched {}",
        script.steps.len() - replies + matched,
        script.steps.len() - replies,
        core.refused,
        replayer.stats().replies_matched,
    );
    println!(
        "end state per tab: {} core events, page {page_state}, {} frames, {} pending / {} closed dialogs",
        core.events,
        snapshot.frame_tree.children.len() + usize::from(snapshot.frame_tree.top.is_some()),
        snapshot.pending_dialogs.len(),
        snapshot.recent_dialogs.len(),
    );
    let setup = Setup {
        expected: Rc::new(Expected {
            events: core.events,
            snapshot: timeless(&snapshot),
        }),
        script: Rc::new(script),
        options: Options {
            config: config.clone(),
            reconnect: false,
            settle_timeout: Duration::from_millis(200),
            ..Options::default()
        },
        time_scale,
    };
    drop(core);

    let main_thread = std::thread::current().id();
    let ex = Rc::new(LocalExecutor::new());
    let results = smol::block_on(ex.run(async {
        run(ex.clone(), &setup, 1).await; // warm-up: lazy statics, the reactor's tables
        let mut results = Vec::new();
        let mut sizes = vec![1, 100, tabs];
        sizes.sort_unstable();
        sizes.dedup();
        for n in sizes {
            let r = run(ex.clone(), &setup, n).await;
            assert_eq!(std::thread::current().id(), main_thread);
            results.push(r);
        }
        results
    }));

    let mut last = String::new();
    println!(
        "{:>5} {:>7} {:>6} {:>7} {:>5} {:>9} {:>8} {:>9} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6}",
        "tabs",
        "msgs",
        "events",
        "wall_s",
        "cpu%",
        "msgs/s",
        "events/s",
        "core_ev/s",
        "ratio",
        "client_B",
        "core_B",
        "brows_B",
        "peak_B",
        "rss_B",
        "failed"
    );
    for r in &results {
        let (core_rate, core_per_tab) = core_baseline(&setup, r.tabs);
        let rate = r.events as f64 / r.wall;
        println!(
            "{:>5} {:>7} {:>6} {:>7.3} {:>5.0} {:>9.0} {:>8.0} {:>9.0} {:>7.4} {:>8.0} {:>8.0} {:>8.0} {:>8.0} {:>8.0} {:>6}",
            r.tabs,
            r.messages,
            r.events,
            r.wall,
            100.0 * r.cpu_share,
            r.messages as f64 / r.wall,
            rate,
            core_rate,
            rate / core_rate,
            r.client_per_tab,
            core_per_tab,
            r.browser_per_conn,
            r.peak_per_tab,
            r.rss_per_tab,
            r.failures
        );
        if r.leaked.abs() > 64 * 1024 {
            println!(
                "      note: {} bytes still live after every tab stopped",
                r.leaked
            );
        }
        last = serde_json::json!({
            "tabs": r.tabs,
            "messages": r.messages,
            "events": r.events,
            "wall_s": round(r.wall, 3),
            "cpu_share": round(r.cpu_share, 2),
            "messages_per_s": (r.messages as f64 / r.wall).round(),
            "events_per_s": rate.round(),
            "core_events_per_s": core_rate.round(),
            "ratio_vs_core": round(rate / core_rate, 4),
            "browser_share": round(r.browser_share, 2),
            "bytes_per_tab": r.client_per_tab.round(),
            "core_bytes_per_tab": core_per_tab.round(),
            "ratio_bytes_vs_core": round(r.client_per_tab / core_per_tab, 1),
            "browser_bytes_per_conn": r.browser_per_conn.round(),
            "peak_bytes_per_tab": r.peak_per_tab.round(),
            "failed": r.failures,
            "threads": 1,
        })
        .to_string();
    }
    println!(
        "columns: msgs = messages the fake browser sent, events = core events the subscribers got, \
         cpu% = main thread CPU / wall, core_ev/s = the same script through the pure core, \
         ratio = events/s / core_ev/s; bytes per tab with every tab attached and idle: \
         client_B = everything but the fake browser, core_B = one supervisor alone, \
         brows_B = the fake browser per connection, peak_B = peak heap (both sides), rss_B = RSS \
         growth (memory reused from an earlier run is not counted)"
    );
    println!(
        "fake browser polls: {}",
        results
            .iter()
            .map(|r| format!(
                "{:.0}% of the wall time at {} tabs",
                100.0 * r.browser_share,
                r.tabs
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let threads = threads();
    let listed: Vec<String> = threads
        .iter()
        .map(|(name, cpu)| format!("{name} {cpu:.2} s CPU"))
        .collect();
    println!(
        "OS threads: {} ({}); no smol-* or blocking-* thread: every task ran on the main \
         thread's LocalExecutor (async-io is the reactor's fallback thread: it waits on epoll \
         and wakes tasks, it polls none)",
        threads.len(),
        listed.join(", ")
    );
    if threads
        .iter()
        .any(|(n, _)| n.starts_with("smol-") || n.starts_with("blocking"))
    {
        println!("  warning: smol's global executor or blocking pool started a thread");
    }
    println!("{last}");
}

/// The pure core replaying the same script: events per second (over at least 1 000
/// replays) and live heap per supervisor with `tabs` of them alive.
fn core_baseline(setup: &Setup, tabs: usize) -> (f64, f64) {
    let config = &setup.options.config;
    let reps = tabs.max(1000);
    let start = Instant::now();
    let mut events = 0;
    for _ in 0..reps {
        events += std::hint::black_box(core_replay(&setup.script, config)).events;
    }
    let rate = events as f64 / start.elapsed().as_secs_f64();
    let base = heap().total;
    let sups: Vec<Supervisor> = (0..tabs)
        .map(|_| core_replay(&setup.script, config).sup)
        .collect();
    let per_tab = (heap().total - base) as f64 / tabs as f64;
    drop(sups);
    (rate, per_tab)
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}
