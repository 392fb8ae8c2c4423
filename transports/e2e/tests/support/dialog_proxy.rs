//! A WebSocket relay between a client and Chromium that closes every native dialog
//! itself, like the hosted CDP proxies the dialog bridge exists for.
//!
//! Each `Page.javascriptDialogOpening` from the browser is forwarded to the client and
//! answered at once (well within 10 ms) with the proxy's own
//! `Page.handleJavaScriptDialog {accept: false}` on the event's session. The
//! proxy's commands use ids from [`PROXY_ID_BASE`] up, and their replies are swallowed,
//! so the client never sees them.

use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};

/// The proxy's own command ids start here, far above any client's.
pub const PROXY_ID_BASE: u64 = 1_000_000_000;

fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(256 << 20))
        .max_frame_size(Some(256 << 20))
}

#[derive(Default)]
struct Shared {
    /// Every TCP stream of every connection, to cut them on drop.
    live: Mutex<Vec<TcpStream>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// The proxy's answers: the `Page.javascriptDialogOpening` params it closed.
    closed: Mutex<Vec<Value>>,
    /// The browser's replies to the proxy's answers.
    replies: Mutex<Vec<Value>>,
    next_id: AtomicU64,
}

/// A running proxy on `127.0.0.1`; stops, cutting every connection, when dropped.
pub struct DialogProxy {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl DialogProxy {
    /// Relays every connection to the browser's WebSocket `browser_ws`
    /// (`ws://127.0.0.1:PORT/devtools/browser/ID`).
    pub fn start(browser_ws: &str) -> DialogProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            next_id: AtomicU64::new(PROXY_ID_BASE),
            ..Shared::default()
        });
        let (s, sh, upstream) = (stop.clone(), shared.clone(), browser_ws.to_owned());
        let accept = std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                if let Err(e) = relay(client, &upstream, &sh) {
                    eprintln!("dialog proxy: a connection failed: {e}");
                }
            }
        });
        DialogProxy {
            addr,
            stop,
            shared,
            accept: Some(accept),
        }
    }

    /// The URL a client connects to instead of the browser's.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/devtools/browser/dialog-proxy", self.addr)
    }

    /// The `Page.javascriptDialogOpening` params of every dialog the proxy closed.
    pub fn closed(&self) -> Vec<Value> {
        self.shared.closed.lock().unwrap().clone()
    }

    /// The browser's replies to the proxy's own `Page.handleJavaScriptDialog`.
    pub fn replies(&self) -> Vec<Value> {
        self.shared.replies.lock().unwrap().clone()
    }

    /// Waits until the proxy closed `n` dialogs and the browser replied to each.
    pub fn wait_closed(&self, n: usize, timeout: Duration) -> Vec<Value> {
        let end = Instant::now() + timeout;
        while self.closed().len() < n || self.replies().len() < n {
            assert!(
                Instant::now() < end,
                "the proxy closed {} dialog(s) ({} replies), expected {n}",
                self.closed().len(),
                self.replies().len()
            );
            // The proxy's threads signal nothing else; poll briefly.
            std::thread::sleep(Duration::from_millis(10));
        }
        self.closed()
    }
}

impl Drop for DialogProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
        for s in self.shared.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        let threads: Vec<_> = self.shared.threads.lock().unwrap().drain(..).collect();
        for t in threads {
            let _ = t.join();
        }
    }
}

/// One client connection: handshakes on both sides, then a pump thread per direction.
/// Each socket gets a reading and a writing `WebSocket` over clones of its stream, so
/// the directions never wait on each other.
fn relay(client: TcpStream, upstream: &str, shared: &Arc<Shared>) -> Result<(), String> {
    let authority = upstream
        .strip_prefix("ws://")
        .and_then(|r| r.split('/').next())
        .ok_or_else(|| format!("{upstream} is not a ws:// URL"))?;
    let browser = TcpStream::connect(authority).map_err(|e| e.to_string())?;
    let clone = |s: &TcpStream| s.try_clone().map_err(|e| e.to_string());
    let client_read = tungstenite::accept_with_config(clone(&client)?, Some(ws_config()))
        .map_err(|e| format!("client handshake: {e}"))?;
    let client_write = WebSocket::from_raw_socket(clone(&client)?, Role::Server, Some(ws_config()));
    let (browser_read, _) =
        tungstenite::client::client_with_config(upstream, clone(&browser)?, Some(ws_config()))
            .map_err(|e| format!("browser handshake: {e}"))?;
    let browser_write = Arc::new(Mutex::new(WebSocket::from_raw_socket(
        clone(&browser)?,
        Role::Client,
        Some(ws_config()),
    )));
    shared
        .live
        .lock()
        .unwrap()
        .extend([clone(&client)?, clone(&browser)?]);
    // Either side ending ends both, so the other pump's read returns too.
    let ends = Arc::new((clone(&client)?, clone(&browser)?));
    let ends2 = ends.clone();
    let cut = move || {
        let _ = ends.0.shutdown(Shutdown::Both);
        let _ = ends.1.shutdown(Shutdown::Both);
    };
    let cut2 = move || {
        let _ = ends2.0.shutdown(Shutdown::Both);
        let _ = ends2.1.shutdown(Shutdown::Both);
    };
    let to_browser = browser_write.clone();
    let up = std::thread::spawn(move || {
        pump_client_to_browser(client_read, &to_browser);
        cut();
    });
    let sh = shared.clone();
    let down = std::thread::spawn(move || {
        pump_browser_to_client(browser_read, client_write, &browser_write, &sh);
        cut2();
    });
    shared.threads.lock().unwrap().extend([up, down]);
    Ok(())
}

fn pump_client_to_browser(mut from: WebSocket<TcpStream>, to: &Mutex<WebSocket<TcpStream>>) {
    loop {
        match from.read() {
            Ok(m @ (Message::Text(_) | Message::Binary(_))) => {
                if let Err(e) = to.lock().unwrap().send(m) {
                    eprintln!("dialog proxy: writing to the browser failed: {e}");
                    return;
                }
            }
            Ok(Message::Close(_)) => return,
            Err(e) => {
                eprintln!("dialog proxy: reading the client failed: {e}");
                return;
            }
            Ok(_) => {}
        }
    }
}

fn pump_browser_to_client(
    mut from: WebSocket<TcpStream>,
    mut to: WebSocket<TcpStream>,
    browser: &Mutex<WebSocket<TcpStream>>,
    shared: &Shared,
) {
    loop {
        let text = match from.read() {
            Ok(Message::Text(t)) => t,
            Ok(Message::Close(_)) => return,
            Err(e) => {
                eprintln!("dialog proxy: reading the browser failed: {e}");
                return;
            }
            Ok(_) => continue,
        };
        // Cheap checks first: only two kinds of message concern the proxy.
        let s = text.as_str();
        if s.contains("Page.javascriptDialogOpening") || s.contains("\"id\":1") {
            let v: Value = serde_json::from_str(s).unwrap_or(Value::Null);
            if v["id"].as_u64().is_some_and(|id| id >= PROXY_ID_BASE) {
                shared.replies.lock().unwrap().push(v);
                continue;
            }
            if v["method"] == "Page.javascriptDialogOpening" {
                let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
                let mut answer = json!({
                    "id": id,
                    "method": "Page.handleJavaScriptDialog",
                    "params": {"accept": false},
                });
                if let Some(session) = v.get("sessionId") {
                    answer["sessionId"] = session.clone();
                }
                // Close first: a hosted proxy does not wait for the client.
                let sent = browser
                    .lock()
                    .unwrap()
                    .send(Message::text(answer.to_string()));
                if sent.is_err() {
                    return;
                }
                shared.closed.lock().unwrap().push(v["params"].clone());
            }
        }
        if let Err(e) = to.send(Message::Text(text)) {
            eprintln!("dialog proxy: writing to the client failed: {e}");
            return;
        }
    }
}
