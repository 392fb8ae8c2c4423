//! The rest of the agent's toolbox as actions: `wait` (text to appear or to be gone, or a
//! time), `forward` and `resize`. Their parameters are read and checked here; the act flow
//! runs them (`wait`'s polling: `flow::wait_for`).
//!
//! ```
//! use cdp_supervisor::act::{Action, WaitFor};
//! let a = Action::from_json(&serde_json::json!({"action": "wait", "text": "Done"}))?;
//! assert_eq!(a, Action::Wait(WaitFor::Text("Done".into())));
//! let a = Action::from_json(&serde_json::json!({"action": "resize", "width": 800, "height": 600}))?;
//! assert_eq!(a, Action::Resize { width: 800, height: 600 });
//! # Ok::<(), cdp_supervisor::act::ActError>(())
//! ```

use std::time::Duration;

use serde_json::Value;

use super::{ActError, ActOptions, Action};

/// The longest text `wait` looks for, in characters.
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_WAIT_TEXT, 1_000);
/// ```
pub const MAX_WAIT_TEXT: usize = 1_000;

/// The longest `wait {time_ms}`: a sleep longer than this is a mistake, not a wait.
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_WAIT_TIME.as_secs(), 600);
/// ```
pub const MAX_WAIT_TIME: Duration = Duration::from_secs(600);

/// How often `wait` looks for its text: a round of polls, one per frame, starts this long
/// after the last one started (and only once it answered).
///
/// ```
/// assert_eq!(cdp_supervisor::act::WAIT_POLL_EVERY.as_millis(), 200);
/// ```
pub const WAIT_POLL_EVERY: Duration = Duration::from_millis(200);

/// The smallest side `resize` accepts, in CSS pixels.
///
/// ```
/// assert_eq!(cdp_supervisor::act::MIN_VIEWPORT_SIDE, 16);
/// ```
pub const MIN_VIEWPORT_SIDE: u32 = 16;

/// The largest side `resize` accepts, in CSS pixels (an 8K screen; a screenshot of more
/// would not reach an agent anyway).
///
/// ```
/// assert_eq!(cdp_supervisor::act::MAX_VIEWPORT_SIDE, 7_680);
/// ```
pub const MAX_VIEWPORT_SIDE: u32 = 7_680;

/// What `wait` waits for.
///
/// ```
/// use cdp_supervisor::act::WaitFor;
/// assert_eq!(WaitFor::TextGone("Loading".into()).describe(), "the text \"Loading\" to be gone from every frame");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitFor {
    /// The text to show in some frame (case-insensitive, white space collapsed, rendered
    /// text only).
    Text(String),
    /// The text to show in no frame any more.
    TextGone(String),
    /// A sleep.
    Time(Duration),
}

impl WaitFor {
    /// What is waited for, in words.
    pub fn describe(&self) -> String {
        match self {
            WaitFor::Text(t) => format!("the text {t:?} to appear in some frame"),
            WaitFor::TextGone(t) => format!("the text {t:?} to be gone from every frame"),
            WaitFor::Time(d) => format!("{} ms", d.as_millis()),
        }
    }
}

fn bad(what: String) -> ActError {
    ActError::BadRequest { what }
}

/// `wait {text | text_gone | time_ms}`: exactly one of them.
pub(super) fn wait_from_json(v: &Value) -> Result<Action, ActError> {
    let text = |k: &str| -> Result<Option<String>, ActError> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => {
                if s.chars().count() > MAX_WAIT_TEXT {
                    return Err(bad(format!(
                        "{k}: longer than {MAX_WAIT_TEXT} characters; wait for a shorter part"
                    )));
                }
                Ok(Some(s.clone()))
            }
            Some(_) => Err(bad(format!("{k}: must be a non-empty string"))),
        }
    };
    let time = match v.get("time_ms") {
        None | Some(Value::Null) => None,
        Some(t) => {
            let ms = t
                .as_u64()
                .filter(|ms| u128::from(*ms) <= MAX_WAIT_TIME.as_millis())
                .ok_or_else(|| {
                    bad(format!(
                        "time_ms: must be a whole number of milliseconds up to {}",
                        MAX_WAIT_TIME.as_millis()
                    ))
                })?;
            Some(Duration::from_millis(ms))
        }
    };
    match (text("text")?, text("text_gone")?, time) {
        (Some(t), None, None) => Ok(Action::Wait(WaitFor::Text(t))),
        (None, Some(t), None) => Ok(Action::Wait(WaitFor::TextGone(t))),
        (None, None, Some(d)) => Ok(Action::Wait(WaitFor::Time(d))),
        (None, None, None) => Err(bad(
            "text, text_gone or time_ms: missing; wait needs one of them".into(),
        )),
        _ => Err(bad(
            "text, text_gone, time_ms: give only one of them; wait for one thing at a time".into(),
        )),
    }
}

/// `resize {width, height}`, each within [`MIN_VIEWPORT_SIDE`]..=[`MAX_VIEWPORT_SIDE`].
pub(super) fn resize_from_json(v: &Value) -> Result<Action, ActError> {
    let side = |k: &str| -> Result<u32, ActError> {
        v.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (MIN_VIEWPORT_SIDE..=MAX_VIEWPORT_SIDE).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "{k}: missing or out of range; resize needs width and height, whole CSS pixels from {MIN_VIEWPORT_SIDE} to {MAX_VIEWPORT_SIDE}"
                ))
            })
    };
    Ok(Action::Resize {
        width: side("width")?,
        height: side("height")?,
    })
}

/// A time wait longer than the action's budget could only end at the budget: refused
/// before anything is sent, so that one budget bounds every action.
///
/// ```
/// use std::time::Duration;
/// use cdp_supervisor::act::{check_budget, ActOptions, Action, WaitFor};
/// let mut o = ActOptions::default();
/// o.timeout = Duration::from_secs(1);
/// let sleep = Action::Wait(WaitFor::Time(Duration::from_secs(2)));
/// assert_eq!(check_budget(&sleep, &o).unwrap_err().code(), "bad_request");
/// ```
pub fn check_budget(action: &Action, options: &ActOptions) -> Result<(), ActError> {
    match action {
        Action::Wait(WaitFor::Time(d)) if *d > options.timeout => Err(bad(format!(
            "time_ms: {} ms is longer than the budget timeout_ms {}; give a larger timeout_ms",
            d.as_millis(),
            options.timeout.as_millis()
        ))),
        _ => Ok(()),
    }
}
