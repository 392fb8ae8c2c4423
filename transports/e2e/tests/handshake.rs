//! Refused WebSocket handshakes and extra headers, through both transports, against a
//! loopback server that answers like hosted browsers and Selenium Grid do: 401, 429 with
//! Retry-After, 404, 400; a `/json/version` that advertises its own inside address without
//! the key. Deterministic (no browser): the refusal's code comes at once, a busy server is
//! asked once more after its Retry-After, the reply is read to its end (no reset), the
//! headers go on both requests, and no secret shows in an error.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cdp_supervisor_driver::headers::CdpHeaders;

const SECRET: &str = "SECRET-KEY-123";

/// What the server saw of one connection.
#[derive(Debug, Clone)]
struct Seen {
    at: Instant,
    head: String,
    /// The client reset the connection instead of closing it.
    reset: bool,
}

struct FakeServer {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeServer {
    /// Answers `/json/version` with `advertised` and every upgrade with `refusal` (a
    /// status line and headers), its body sent a moment later, as a slow server would.
    fn start(refusal: &'static str, advertised: &'static str) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || serve(stream, refusal, advertised, &log));
            }
        });
        FakeServer { port, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        // The connection threads finish their bookkeeping after the client is done.
        std::thread::sleep(Duration::from_millis(300));
        self.seen.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, refusal: &str, advertised: &str, log: &Mutex<Vec<Seen>>) {
    let at = Instant::now();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    if head.starts_with("GET /json/version") {
        let body = format!(r#"{{"webSocketDebuggerUrl":"{advertised}"}}"#);
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes());
    } else {
        let body = "refused: see the status\n".repeat(40);
        let reply = format!("{refusal}\r\nContent-Length: {}\r\n\r\n", body.len());
        let _ = stream.write_all(reply.as_bytes());
        std::thread::sleep(Duration::from_millis(100));
        let _ = stream.write_all(body.as_bytes());
    }
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut rest = [0u8; 1024];
    let mut reset = false;
    loop {
        match stream.read(&mut rest) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => {
                reset = true;
                break;
            }
        }
    }
    std::thread::sleep(Duration::from_millis(50));
    reset |= matches!(stream.take_error(), Ok(Some(_)));
    log.lock().unwrap().push(Seen { at, head, reset });
}

/// Whether the request's `head` carries the key's header (names are case-insensitive).
fn has_header(head: &str) -> bool {
    let line = format!("\r\nauthorization: bearer {SECRET}\r\n").to_ascii_lowercase();
    head.to_ascii_lowercase().contains(&line)
}

fn options() -> cdp_supervisor_blocking::Options {
    let mut headers = CdpHeaders::default();
    headers
        .push("Authorization", &format!("Bearer {SECRET}"))
        .unwrap();
    cdp_supervisor_blocking::Options {
        headers,
        connect_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

/// Connects through both transports; the errors' codes and texts.
fn connect_both(url: &str) -> [(String, String); 2] {
    let blocking = match cdp_supervisor_blocking::Client::connect(url, options()) {
        Ok(_) => panic!("blocking: connected to a server that refuses"),
        Err(e) => (e.code().to_owned(), e.to_string()),
    };
    let smol = smol::block_on(async {
        match cdp_supervisor_smol::Client::connect(url, options()).await {
            Ok(_) => panic!("smol: connected to a server that refuses"),
            Err(e) => (e.code().to_owned(), e.to_string()),
        }
    });
    [blocking, smol]
}

fn assert_refused(status: &'static str, code: &str, connections_per_client: usize) {
    let server = FakeServer::start(status, "");
    let url = format!(
        "ws://127.0.0.1:{}/devtools/browser/b?token={SECRET}",
        server.port
    );
    for (got, text) in connect_both(&url) {
        assert_eq!(got, code, "{status}: {text}");
        assert!(!text.contains(SECRET), "a secret in the error: {text}");
        assert!(text.contains("token=<redacted>"), "{text}");
    }
    let seen = server.seen();
    assert_eq!(
        seen.len(),
        2 * connections_per_client,
        "{status}: {seen:#?}"
    );
    for s in &seen {
        assert!(
            !s.reset,
            "{status}: the client reset the connection: {s:#?}"
        );
        assert!(has_header(&s.head), "the header was not sent: {}", s.head);
    }
}

#[test]
fn a_401_or_403_is_unauthorized_at_once() {
    assert_refused("HTTP/1.1 401 Unauthorized", "unauthorized", 1);
    assert_refused("HTTP/1.1 403 Forbidden", "unauthorized", 1);
}

#[test]
fn a_404_is_not_found_and_a_400_the_session_gone() {
    assert_refused("HTTP/1.1 404 Not Found", "not_found", 1);
    assert_refused("HTTP/1.1 400 Bad Request", "session_gone", 1);
}

/// A busy server is asked once more, after its Retry-After, then the error is `busy`.
#[test]
fn a_429_is_asked_again_once_after_retry_after() {
    let server = FakeServer::start("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1", "");
    let url = format!("ws://127.0.0.1:{}/devtools/browser/b", server.port);
    let start = Instant::now();
    for (code, text) in connect_both(&url) {
        assert_eq!(code, "busy", "{text}");
        assert!(text.contains("Retry-After 1s"), "{text}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 4, "{seen:#?}");
    for pair in seen.chunks(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(950),
            "asked again after {gap:?}"
        );
        assert!(!pair[0].reset && !pair[1].reset, "{pair:#?}");
    }
}

/// `/json/version` advertises the server's inside address without the key: the upgrade
/// goes to the host the user gave, with the user's key, and both requests carry the
/// header.
#[test]
fn the_key_and_host_carry_over_from_json_version() {
    let server = FakeServer::start(
        "HTTP/1.1 401 Unauthorized",
        "ws://10.255.255.1:3000/devtools/browser/inside",
    );
    let url = format!("http://127.0.0.1:{}?token={SECRET}", server.port);
    for (code, text) in connect_both(&url) {
        assert_eq!(code, "unauthorized", "{text}");
        assert!(!text.contains(SECRET), "{text}");
    }
    let seen = server.seen();
    let lookups = seen
        .iter()
        .filter(|s| s.head.starts_with("GET /json/version"));
    assert_eq!(lookups.count(), 2, "{seen:#?}");
    let upgrade = format!("GET /devtools/browser/inside?token={SECRET} HTTP/1.1\r\n");
    let upgrades = seen.iter().filter(|s| s.head.starts_with(&upgrade));
    assert_eq!(upgrades.count(), 2, "{seen:#?}");
    assert!(seen.iter().all(|s| has_header(&s.head)), "{seen:#?}");
}
