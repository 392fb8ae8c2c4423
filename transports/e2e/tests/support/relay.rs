//! A TCP relay between a client and the browser, so a test can cut the connection
//! mid-session while new connections still go through.

use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

pub struct Relay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    live: Arc<Mutex<Vec<TcpStream>>>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: Option<JoinHandle<()>>,
}

impl Relay {
    /// Listens on a free loopback port and forwards every connection to `upstream`.
    pub fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let live = Arc::new(Mutex::new(Vec::<TcpStream>::new()));
        let threads = Arc::new(Mutex::new(Vec::<JoinHandle<()>>::new()));
        let (s, l, t) = (stop.clone(), live.clone(), threads.clone());
        let accept = std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let pipe = |mut from: TcpStream, mut to: TcpStream| {
                    std::thread::spawn(move || {
                        let _ = io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    })
                };
                let mut live = l.lock().unwrap();
                live.push(client.try_clone().unwrap());
                live.push(server.try_clone().unwrap());
                let mut threads = t.lock().unwrap();
                threads.push(pipe(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                ));
                threads.push(pipe(server, client));
            }
        });
        Relay {
            addr,
            stop,
            live,
            threads,
            accept: Some(accept),
        }
    }

    /// `browser_ws` (`ws://127.0.0.1:PORT/devtools/browser/ID`) through the relay.
    pub fn ws_url(&self, browser_ws: &str) -> String {
        let path = &browser_ws[browser_ws[5..].find('/').unwrap() + 5..];
        format!("ws://{}{path}", self.addr)
    }

    /// Cuts every connection open now; later connections go through again.
    pub fn cut(&self) {
        for s in self.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
        self.cut();
        for t in self.threads.lock().unwrap().drain(..) {
            let _ = t.join();
        }
    }
}
