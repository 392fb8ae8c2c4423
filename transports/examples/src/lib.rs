//! # Bring your own runtime
//!
//! The pure core ([`cdp_supervisor::Supervisor`]) does no I/O: any runtime can drive it
//! with the loop of the root README ("The run loop"). This crate's examples do it twice,
//! against a real headless Chromium (launched with `cdp-supervisor-chromium`):
//!
//! ```sh
//! cargo run -p cdp-supervisor-examples --example byo_tokio   # tokio + tokio-tungstenite
//! cargo run -p cdp-supervisor-examples --example byo_std     # std::net::TcpStream + tungstenite
//! ```
//!
//! Both run the same [`Agent`]: what a program does with the supervisor's events (open a
//! page, run a script that raises a `confirm`, accept it when the script is reported
//! blocked, read the frame tree, stop). Only the I/O differs between them. The runtimes
//! are dev-dependencies of this unpublished crate: no library of the workspace depends
//! on tokio.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::time::Duration;

use cdp_supervisor::{Answer, CommandId, DialogAction, Diff, Event, PageState, Supervisor};
use serde_json::value::RawValue;

/// The page the agent opens: a title and a `srcdoc` iframe.
pub const PAGE: &str = "data:text/html,<title>Hi</title><iframe srcdoc='<p>child</p>'></iframe>";

/// How long each command may take.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the whole example may take before it gives up.
pub const EXAMPLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The agent of the examples: told each event, it tells the supervisor what to do next.
/// Pure, like the core: `now` is an argument.
///
/// ```
/// use cdp_supervisor::{Config, Supervisor};
/// use cdp_supervisor_examples::Agent;
/// let mut sup = Supervisor::new(Config::default());
/// let mut agent = Agent::default();
/// sup.handle_connected(0.0);
/// while let Some(event) = sup.poll_event() {
///     agent.on_event(&mut sup, 0.0, &event)?;
/// }
/// assert!(!agent.done(&sup)); // no page yet
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Default)]
pub struct Agent {
    navigate: Option<CommandId>,
    evaluate: Option<CommandId>,
    answered: bool,
    stopping: bool,
    /// What the agent saw, one line each, for the example to print.
    pub log: Vec<String>,
}

impl Agent {
    /// Acts on one event; an error ends the example.
    pub fn on_event(
        &mut self,
        sup: &mut Supervisor,
        now: f64,
        event: &Event,
    ) -> Result<(), String> {
        match event {
            // 1. The page is live: open the page.
            Event::Diff(Diff::Page {
                page: Some(page), ..
            }) if page.state == PageState::Live && self.navigate.is_none() => {
                let params = serde_json::json!({ "url": PAGE }).to_string();
                let params = RawValue::from_string(params).map_err(|e| e.to_string())?;
                let id = sup
                    .command(now, None, "Page.navigate", Some(&params), COMMAND_TIMEOUT)
                    .map_err(|e| e.to_string())?;
                self.navigate = Some(id);
            }
            // 2. Navigated: run a script that raises a confirm.
            Event::CommandFinished { id, outcome } if Some(*id) == self.navigate => {
                outcome.as_ref().map_err(|e| e.to_string())?;
                self.log.push(format!("navigated to {PAGE}"));
                let params = RawValue::from_string(
                    r#"{"expression":"confirm('ok?')","returnByValue":true}"#.to_owned(),
                )
                .map_err(|e| e.to_string())?;
                let id = sup
                    .command(
                        now,
                        None,
                        "Runtime.evaluate",
                        Some(&params),
                        COMMAND_TIMEOUT,
                    )
                    .map_err(|e| e.to_string())?;
                self.evaluate = Some(id);
            }
            // 3. The script is blocked by the dialog: accept it.
            Event::CommandBlocked { id, dialog_id } if Some(*id) == self.evaluate => {
                self.log
                    .push(format!("the script is blocked by dialog {dialog_id}"));
                sup.respond_dialog(
                    now,
                    Answer::new(DialogAction::Accept, None),
                    Some(dialog_id),
                )
                .map_err(|e| e.to_string())?;
            }
            Event::DialogAnswered { outcome, .. } => {
                let closed = outcome.as_ref().map_err(|e| e.to_string())?;
                self.log.push(format!(
                    "dialog {} ({:?}) accepted: {}",
                    closed.id, closed.message, closed.accepted
                ));
                self.answered = true;
            }
            // 4. The script returned what the dialog answered: read the frame tree, stop.
            Event::CommandFinished { id, outcome } if Some(*id) == self.evaluate => {
                let text = outcome.as_ref().map_err(|e| e.to_string())?;
                if !self.answered || !text.contains("true") {
                    return Err(format!("confirm did not return true: {text}"));
                }
                let tree = sup.snapshot().frame_tree;
                let top = tree.top.as_ref().map_or("?", |t| t.url.as_str());
                self.log.push(format!(
                    "confirm returned true; frame tree: top {top:.40}..., {} child frame(s)",
                    tree.children.len()
                ));
                sup.begin_stop(now, Some(DialogAction::Dismiss), Duration::from_secs(2));
                self.stopping = true;
            }
            _ => {}
        }
        Ok(())
    }

    /// True once the agent stopped the supervisor and it may close the socket.
    pub fn done(&self, sup: &Supervisor) -> bool {
        self.stopping && sup.ready_to_close()
    }
}

/// How long to wait for a frame: until `deadline` (the core's next timer, seconds on the
/// same clock as `now`), at least 1 ms, at most 1 s (a `None` deadline: no timer).
///
/// ```
/// use std::time::Duration;
/// use cdp_supervisor_examples::wait_until;
/// assert_eq!(wait_until(Some(10.5), 10.0), Duration::from_millis(500));
/// assert_eq!(wait_until(Some(1.0), 2.0), Duration::from_millis(1));
/// assert_eq!(wait_until(None, 0.0), Duration::from_secs(1));
/// ```
pub fn wait_until(deadline: Option<f64>, now: f64) -> Duration {
    let secs = deadline.map_or(1.0, |d| d - now).clamp(0.001, 1.0);
    // In [1 ms, 1 s] by the clamp (NaN gives 0, then 1 ms): the conversion cannot fail.
    Duration::from_micros((secs * 1e6) as u64).max(Duration::from_millis(1))
}
