//! The flags of a remote browser, without a browser: usage errors exit 2; a hosted
//! browser's refusal (a loopback server answering 401) exits 1 at once with words that
//! say what to check, and the header's value and the URL's key are printed nowhere.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cdp-supervise");
const SECRET: &str = "SECRET-VALUE-42";

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn usage_errors_exit_2() {
    let header = format!("Authorization {SECRET}");
    for (args, says) in [
        (
            vec!["watch", "--cdp", "ws://h/x", "--grid", "http://h:1"],
            "exclude each other",
        ),
        (vec!["watch", "--grid-capabilities", "{}"], "needs --grid"),
        (vec!["mcp", "--heartbeat", "-1"], "--heartbeat"),
        (vec!["watch", "--grid-timeout", "0"], "--grid-timeout"),
        (vec!["watch", "--cdp-header", header.as_str()], "NAME:VALUE"),
        (vec!["watch", "--cdp-header", "Host: x"], "handshake"),
    ] {
        let (code, _, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            !stderr.contains(SECRET),
            "{args:?} printed the header: {stderr}"
        );
    }
}

#[test]
fn a_refused_key_exits_1_at_once_and_prints_no_secret() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let mut heads = Vec::new();
        listener.set_nonblocking(false).unwrap();
        for stream in listener.incoming().take(1) {
            let mut stream = stream.unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let body = "bad token";
            let reply = format!(
                "HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
            heads.push(String::from_utf8_lossy(&head).into_owned());
        }
        heads
    });
    let url = format!("ws://127.0.0.1:{port}/devtools/browser/b?token={SECRET}");
    let header = format!("Authorization: Bearer {SECRET}");
    let started = Instant::now();
    let (code, stdout, stderr) = run(&["watch", "--cdp", &url, "--cdp-header", &header]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr.contains("401") && stderr.contains("--cdp-header"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(SECRET) && !stdout.contains(SECRET),
        "{stderr}{stdout}"
    );
    let heads = server.join().unwrap();
    assert_eq!(heads.len(), 1, "asked once, never again");
    assert!(
        heads[0].to_ascii_lowercase().contains(&format!(
            "authorization: bearer {}",
            SECRET.to_ascii_lowercase()
        )),
        "{}",
        heads[0]
    );
}

/// An `https://` Grid is refused at once, by name, before anything is sent (a listener
/// on that port sees no connection), and its credentials are printed nowhere. (`mcp`
/// asks the Grid in the same way, when its browser starts.)
#[test]
fn an_https_grid_is_refused_by_name() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let grid = format!("https://user:{SECRET}@127.0.0.1:{port}");
    let (code, stdout, stderr) = run(&["watch", "--grid", &grid]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("https:// is not supported") && stderr.contains("http://"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(SECRET) && !stdout.contains(SECRET),
        "{stderr}{stdout}"
    );
    assert!(listener.accept().is_err(), "the Grid was contacted");
}
