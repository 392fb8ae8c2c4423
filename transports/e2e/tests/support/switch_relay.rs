//! A TCP relay a test can switch: forwarding, silent (the sockets stay open, nothing goes
//! through: a proxy that stopped forwarding, a session deleted under an open socket), or
//! refusing (every connection closed at once: the endpoint is dead). It can also write
//! bytes of its own to the client (a hosted browser's `HTTP/1.1 408` in the upgraded
//! stream).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

const FORWARD: u8 = 0;
const SILENT: u8 = 1;
const REFUSE: u8 = 2;

pub struct SwitchRelay {
    addr: SocketAddr,
    mode: Arc<AtomicU8>,
    /// Client side, server side of each connection.
    live: Arc<Mutex<Vec<(TcpStream, TcpStream)>>>,
    stop: Arc<AtomicBool>,
}

impl SwitchRelay {
    /// Listens on a free loopback port, forwarding to `upstream`.
    pub fn start(upstream: SocketAddr) -> SwitchRelay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(AtomicU8::new(FORWARD));
        let live = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, l, s) = (mode.clone(), live.clone(), stop.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                if m.load(Ordering::SeqCst) == REFUSE {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let pipe = |mut from: TcpStream, mut to: TcpStream, mode: Arc<AtomicU8>| {
                    std::thread::spawn(move || {
                        let mut chunk = [0u8; 16 * 1024];
                        loop {
                            match from.read(&mut chunk) {
                                Ok(0) | Err(_) => break,
                                // Silent: swallowed, the sockets stay open.
                                Ok(_) if mode.load(Ordering::SeqCst) == SILENT => {}
                                Ok(n) => {
                                    if to.write_all(&chunk[..n]).is_err() {
                                        break;
                                    }
                                }
                            }
                        }
                        let _ = to.shutdown(Shutdown::Both);
                    })
                };
                l.lock()
                    .unwrap()
                    .push((client.try_clone().unwrap(), server.try_clone().unwrap()));
                pipe(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    m.clone(),
                );
                pipe(server, client, m.clone());
            }
        });
        SwitchRelay {
            addr,
            mode,
            live,
            stop,
        }
    }

    /// `browser_ws` (`ws://127.0.0.1:PORT/devtools/browser/ID`) through the relay.
    pub fn ws_url(&self, browser_ws: &str) -> String {
        let path = &browser_ws[browser_ws[5..].find('/').unwrap() + 5..];
        format!("ws://{}{path}", self.addr)
    }

    /// Nothing goes through any more, the sockets stay open.
    pub fn silence(&self) {
        self.mode.store(SILENT, Ordering::SeqCst);
    }

    /// Forward again (new connections go through).
    pub fn forward(&self) {
        self.mode.store(FORWARD, Ordering::SeqCst);
    }

    /// The endpoint is dead: every connection is cut, new ones are closed at once.
    pub fn refuse(&self) {
        self.mode.store(REFUSE, Ordering::SeqCst);
        for (c, s) in self.live.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Writes `bytes` to every client as if the server had sent them, then ends those
    /// connections (as a server does after writing an HTTP status into the stream).
    pub fn write_to_clients_and_close(&self, bytes: &[u8]) {
        for (c, s) in self.live.lock().unwrap().drain(..) {
            let _ = (&c).write_all(bytes);
            let _ = c.shutdown(Shutdown::Both);
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for SwitchRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        self.refuse();
    }
}
