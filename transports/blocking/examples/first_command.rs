//! The first two lines of a program: launch, then a command at once. `launch` returns
//! once the page is attached, so the first command never races the attach.
//!
//!     cargo run -p cdp-supervisor-blocking --example first_command

use std::time::Duration;

use cdp_supervisor_blocking::{Client, Options};
use serde_json::json;

fn main() -> Result<(), cdp_supervisor_blocking::ClientError> {
    let client = Client::launch(Options::default())?;
    let result = client.command(
        None,
        "Page.navigate",
        json!({"url": "data:text/html,<title>Hi</title>"}),
        Duration::from_secs(10),
    )?;
    println!("Page.navigate: {result}");
    Ok(())
}
