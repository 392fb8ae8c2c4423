//! Click-to-result on a static page: the supervisor's `act` (split into input, settle and
//! capture as the result's `timing` reports them) against the same raw CDP calls made
//! directly over a second WebSocket to the same tab (three mouse events, the same 500 ms
//! quiet, `Page.captureScreenshot` webp and a `document.title` evaluate), interleaved
//! round by round in one run. `cargo bench -p cdp-supervisor-e2e --bench act -- [ROUNDS]`.

#[allow(dead_code)]
#[path = "../tests/support/act_site.rs"]
mod act_site;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::PageState;
use cdp_supervisor_blocking::{Browser, Client, Options};
use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

type Ws = WebSocket<TcpStream>;

/// A raw CDP connection with its own ids.
struct Raw {
    ws: Ws,
    next: u64,
    session: String,
    /// Replies that came before the one waited for.
    early: Vec<(u64, Value)>,
}

impl Raw {
    fn connect(browser_ws: &str) -> Raw {
        let host = browser_ws
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        let stream = TcpStream::connect(host).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let (ws, _) = tungstenite::client(browser_ws, stream).unwrap();
        let mut raw = Raw {
            ws,
            next: 0,
            session: String::new(),
            early: Vec::new(),
        };
        let targets = raw.call(None, "Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .unwrap()["targetId"]
            .clone();
        let attached = raw.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": page, "flatten": true}),
        );
        raw.session = attached["sessionId"].as_str().unwrap().to_owned();
        let s = raw.session.clone();
        raw.call(Some(&s), "Page.enable", json!({}));
        raw.call(Some(&s), "Runtime.enable", json!({}));
        raw
    }

    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> u64 {
        self.next += 1;
        let mut msg = json!({"id": self.next, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        if std::env::var_os("ACT_BENCH_DEBUG").is_some() {
            eprintln!("raw -> {method} #{}", self.next);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        self.next
    }

    fn wait(&mut self, id: u64) -> Value {
        // Replies come out of order (an evaluate sent after a screenshot is answered
        // first): keep the others for their turn.
        if let Some(i) = self.early.iter().position(|(i, _)| *i == id) {
            return self.early.swap_remove(i).1;
        }
        loop {
            let msg = self
                .ws
                .read()
                .unwrap_or_else(|e| panic!("raw CDP: no reply to command {id}: {e}"));
            let Message::Text(t) = msg else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            match v["id"].as_u64() {
                Some(i) if i == id => return v["result"].clone(),
                Some(i) => self.early.push((i, v["result"].clone())),
                None => {}
            }
        }
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.send(session, method, params);
        self.wait(id)
    }

    /// One click-to-result, timed as (input, settle, capture) in seconds.
    fn click(&mut self, x: f64, y: f64) -> (f64, f64, f64) {
        let s = self.session.clone();
        let t0 = Instant::now();
        let ids: Vec<u64> = ["mouseMoved", "mousePressed", "mouseReleased"]
            .iter()
            .map(|kind| {
                let p = json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1});
                self.send(Some(&s), "Input.dispatchMouseEvent", p)
            })
            .collect();
        for id in ids {
            self.wait(id);
        }
        let t1 = Instant::now();
        std::thread::sleep(Duration::from_millis(500));
        let t2 = Instant::now();
        let shot = self.send(
            Some(&s),
            "Page.captureScreenshot",
            json!({"format": "webp"}),
        );
        let title = self.send(
            Some(&s),
            "Runtime.evaluate",
            json!({"expression": "document.title", "returnByValue": true}),
        );
        assert!(!self.wait(shot)["data"].as_str().unwrap_or("").is_empty());
        self.wait(title);
        let t3 = Instant::now();
        (
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            (t3 - t2).as_secs_f64(),
        )
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10);
    let browser = Browser::launch().expect("launch Chromium");
    let site = act_site::ActSite::start();
    let client = Client::connect(browser.ws_url(), Options::default()).unwrap();
    client
        .wait_for(Duration::from_secs(20), "page live", |s| {
            s.page.as_ref().is_some_and(|p| p.state == PageState::Live)
        })
        .unwrap();
    let nav = Action::Navigate {
        url: site.url("/second"),
    };
    client.act(nav, ActOptions::default()).unwrap();
    eprintln!("page open; connecting the raw client");
    let mut raw = Raw::connect(browser.ws_url());
    eprintln!("raw client attached");
    let click = || Action::Click {
        target: Target::Point { x: 400.0, y: 300.0 },
    };
    // Warm-up of both.
    client.act(click(), ActOptions::default()).unwrap();
    raw.click(400.0, 300.0);
    let (mut sup, mut direct) = (vec![Vec::new(); 4], vec![Vec::new(); 4]);
    for _ in 0..rounds {
        let t0 = Instant::now();
        let r = client.act(click(), ActOptions::default()).unwrap();
        let total = t0.elapsed().as_secs_f64();
        assert!(r.settled && r.screenshot.is_some());
        for (i, v) in [r.timing.input, r.timing.settle, r.timing.capture, total]
            .into_iter()
            .enumerate()
        {
            sup[i].push(v);
        }
        let t0 = Instant::now();
        let (a, b, c) = raw.click(400.0, 300.0);
        let total = t0.elapsed().as_secs_f64();
        for (i, v) in [a, b, c, total].into_iter().enumerate() {
            direct[i].push(v);
        }
    }
    let names = ["input", "settle", "capture", "total"];
    eprintln!("click-to-result, median of {rounds} interleaved rounds (ms):");
    eprintln!(
        "{:<8} {:>10} {:>10} {:>8}",
        "phase", "supervisor", "raw CDP", "ratio"
    );
    let mut out = serde_json::Map::new();
    for (i, name) in names.iter().enumerate() {
        let s = median(sup[i].clone()) * 1000.0;
        let d = median(direct[i].clone()) * 1000.0;
        eprintln!("{name:<8} {s:>10.1} {d:>10.1} {:>8.2}", s / d);
        out.insert(format!("{name}_ms"), json!({"supervisor": s, "raw": d}));
    }
    println!("{}", Value::Object(out));
    client.stop().unwrap();
}
