//! A loopback server whose `/secret` wants HTTP Basic credentials `user:PASSWORD` (realm
//! `e2e`), for the sign-in tests; every other path is an open page. One request per
//! connection. Also used by the sidecar's tests (`transports/cli/tests`, by path).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The right password (made up for the test).
pub const PASSWORD: &str = "correct-horse-42";
/// The `Authorization` header of `user:PASSWORD` (base64 written out: the sidecar's tests
/// include this file and have no base64 crate).
const GOOD: &str = "Basic dXNlcjpjb3JyZWN0LWhvcnNlLTQy";

pub struct AuthSite {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl AuthSite {
    pub fn start() -> AuthSite {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(mut stream) = stream else { continue };
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut first = String::new();
                    let _ = reader.read_line(&mut first);
                    let mut authorized = false;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':') {
                            if k.eq_ignore_ascii_case("authorization") && v.trim() == GOOD {
                                authorized = true;
                            }
                        }
                    }
                    let secret = first
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or("/")
                        .starts_with("/secret");
                    let (status, extra, body) = match (secret, authorized) {
                        (true, false) => (
                            "401 Unauthorized",
                            "WWW-Authenticate: Basic realm=\"e2e\"\r\n",
                            "<title>denied</title>no",
                        ),
                        (true, true) => ("200 OK", "", "<title>inside</title>signed in"),
                        (false, _) => ("200 OK", "", "<title>open</title>open"),
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n{extra}\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        AuthSite { port, stop }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://HOST:P{path}` (`127.0.0.1` or `localhost`: two origins).
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port)
    }
}

impl Drop for AuthSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}
