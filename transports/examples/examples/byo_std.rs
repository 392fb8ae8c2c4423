//! Bring your own runtime, with no runtime at all: the pure core driven over a plain
//! `std::net::TcpStream` + tungstenite, against a headless Chromium it launches.
//!
//!     cargo run -p cdp-supervisor-examples --example byo_std

use std::io::ErrorKind;
use std::net::TcpStream;
use std::time::Instant;

use cdp_supervisor::{Config, Output, Supervisor};
use cdp_supervisor_examples::{wait_until, Agent, EXAMPLE_TIMEOUT};
use tungstenite::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let browser = cdp_supervisor_chromium::Browser::launch()?;
    let url = browser.ws_url();
    let authority = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split('/').next())
        .ok_or("not a ws:// URL")?;
    let (mut ws, _) = tungstenite::client(url, TcpStream::connect(authority)?)?;

    let start = Instant::now();
    let now = || start.elapsed().as_secs_f64(); // any monotonic seconds
    let mut sup = Supervisor::new(Config::default());
    let mut agent = Agent::default();
    sup.handle_connected(now());
    loop {
        // Drain: every command to the socket, every event to the agent.
        let deadline = loop {
            match sup.poll_output() {
                Output::Transmit(cmd) => ws.send(Message::text(cmd.json))?,
                Output::Event(event) => agent.on_event(&mut sup, now(), &event)?,
                Output::Timeout(deadline) => break deadline,
            }
        };
        agent.log.drain(..).for_each(|line| println!("{line}"));
        if agent.done(&sup) {
            ws.close(None)?;
            return Ok(());
        }
        if start.elapsed() > EXAMPLE_TIMEOUT {
            return Err("the example did not finish in time".into());
        }
        // Wait for a frame, or the core's next deadline.
        ws.get_ref()
            .set_read_timeout(Some(wait_until(deadline, now())))?;
        match ws.read() {
            Ok(Message::Text(text)) => {
                if let Err(e) = sup.handle_message(now(), text.as_str()) {
                    eprintln!("ignored: {e}");
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
            {
                sup.handle_timeout(now())
            }
            Err(e) => return Err(e.into()),
        }
    }
}
