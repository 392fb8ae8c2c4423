//! Bring your own runtime: the pure core driven by tokio + tokio-tungstenite in a short
//! loop, against a headless Chromium it launches. tokio is this example's choice, not the
//! library's: nothing in cdp-supervisor depends on it.
//!
//!     cargo run -p cdp-supervisor-examples --example byo_tokio

use std::time::Instant;

use cdp_supervisor::{Config, Output, Supervisor};
use cdp_supervisor_examples::{wait_until, Agent, EXAMPLE_TIMEOUT};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let browser = cdp_supervisor_chromium::Browser::launch()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(browser.ws_url()))
}

async fn run(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await?;
    let start = Instant::now();
    let now = || start.elapsed().as_secs_f64(); // any monotonic seconds
    let mut sup = Supervisor::new(Config::default());
    let mut agent = Agent::default();
    sup.handle_connected(now());
    loop {
        // Drain: every command to the socket, every event to the agent.
        let deadline = loop {
            match sup.poll_output() {
                Output::Transmit(cmd) => ws.send(Message::text(cmd.json)).await?,
                Output::Event(event) => agent.on_event(&mut sup, now(), &event)?,
                Output::Timeout(deadline) => break deadline,
            }
        };
        agent.log.drain(..).for_each(|line| println!("{line}"));
        if agent.done(&sup) {
            ws.close(None).await?;
            return Ok(());
        }
        if start.elapsed() > EXAMPLE_TIMEOUT {
            return Err("the example did not finish in time".into());
        }
        // Wait for a frame, or the core's next deadline.
        match tokio::time::timeout(wait_until(deadline, now()), ws.next()).await {
            Err(_deadline) => sup.handle_timeout(now()),
            Ok(Some(Ok(Message::Text(text)))) => {
                if let Err(e) = sup.handle_message(now(), text.as_str()) {
                    eprintln!("ignored: {e}");
                }
            }
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(e))) => return Err(e.into()),
            Ok(None) => return Err("the browser closed the socket".into()),
        }
    }
}
