//! `cdp-supervise`: the supervisor as a sidecar process (the protocol is in this
//! crate's README).
//!
//! JSON lines on stdout (diffs, results, errors), commands as JSON lines on stdin, logs
//! on stderr. Exit codes: 0 done, 1 runtime failure (no browser, connection lost for
//! good), 2 usage.

#![forbid(unsafe_code)]

mod args;
mod mcp_contexts;
mod mcp_ended;
mod mcp_host;
mod mcp_http;
mod mcp_server;
mod mcp_session;
mod mcp_sign_in;
mod mcp_warnings;
mod remote;
mod replay;
mod watch;

use std::io::Write;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = args::parse_args(argv).and_then(|args| match args.command.as_str() {
        "watch" => watch::watch(args),
        "mcp" => mcp_server::serve(args),
        _ => replay::replay(args),
    });
    match result {
        Ok(()) => {}
        Err(f) => {
            if f.code == 0 {
                println!("{}", f.message);
            } else {
                eprintln!("{}", f.message);
            }
            std::process::exit(f.code);
        }
    }
}

/// Writes one JSON line to stdout, whole, and flushes it (a reader waits on lines).
fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
