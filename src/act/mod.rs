//! Agent actions: what an action is, its options, its result and its errors.
//!
//! An action (`navigate`, `back`, `forward`, `reload`, `click`, `type`, `press`, `scroll`,
//! the form and pointer actions `hover`, `select`, `fill`, `drag`, and `wait`, `resize`)
//! runs as a flow of the core ([`Supervisor::act`](crate::Supervisor::act)): input as a
//! person gives it, then the page is left to settle, then a screenshot; the outcome arrives
//! as one [`Event::ActFinished`](crate::Event::ActFinished). The rules (settling, dialogs, where
//! a ref is clicked) are in [`crate::manual::rules`], agent actions.
//!
//! ```
//! use cdp_supervisor::act::{Action, Target};
//! let a = Action::from_json(&serde_json::json!({"action": "click", "x": 10, "y": 20}))?;
//! assert_eq!(a, Action::Click { target: Target::Point { x: 10.0, y: 20.0 } });
//! let e = Action::from_json(&serde_json::json!({"action": "navigate"})).unwrap_err();
//! assert_eq!(e.code(), "bad_request");
//! # Ok::<(), cdp_supervisor::act::ActError>(())
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::CommandError;
use crate::keys::{parse_key, KeyPress};
use crate::limits::MAX_TYPE_TEXT;
use crate::snapshot::PendingDialog;

/// How long an action may take to settle, by default (see [`ActOptions::timeout`]).
///
/// ```
/// assert_eq!(cdp_supervisor::act::DEFAULT_ACT_TIMEOUT.as_secs(), 10);
/// ```
pub const DEFAULT_ACT_TIMEOUT: Duration = Duration::from_secs(10);
/// Console quiet that counts as settled.
///
/// ```
/// assert_eq!(cdp_supervisor::act::SETTLE_QUIET.as_millis(), 500);
/// ```
pub const SETTLE_QUIET: Duration = Duration::from_millis(500);
/// Longest wait for quiet (and `networkAlmostIdle`) after the load, or after the input
/// when nothing navigated: a page that logs forever still settles.
///
/// ```
/// assert_eq!(cdp_supervisor::act::SETTLE_CAP.as_secs(), 3);
/// ```
pub const SETTLE_CAP: Duration = Duration::from_secs(3);
/// The least time the screenshot and title get, even when the settle budget is spent.
///
/// ```
/// assert_eq!(cdp_supervisor::act::CAPTURE_TIMEOUT.as_secs(), 3);
/// ```
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(3);

/// What an action aims at.
///
/// ```
/// use cdp_supervisor::act::Target;
/// let t = Target::Node { frame_id: "F".into(), backend_node_id: 7 };
/// assert_ne!(t, Target::Ref("e5".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A point in top-level CSS pixels.
    Point {
        /// Left.
        x: f64,
        /// Top.
        y: f64,
    },
    /// A ref of the accessibility snapshot (`e5`).
    Ref(String),
    /// A DOM node: its frame and its `backendNodeId` in that frame's session.
    Node {
        /// The frame that holds the node.
        frame_id: String,
        /// The node's `backendNodeId`.
        backend_node_id: i64,
    },
}

/// Which way `scroll` goes, or what it brings into view.
///
/// ```
/// use cdp_supervisor::act::Scroll;
/// assert_ne!(Scroll::Down, Scroll::Up);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scroll {
    /// One viewport up.
    Up,
    /// One viewport down.
    Down,
    /// Until the node is in view.
    To(Target),
}

/// One action.
///
/// ```
/// use cdp_supervisor::act::Action;
/// let a = Action::from_json(&serde_json::json!({"action": "press", "key": "Enter"}))?;
/// assert_eq!(a.name(), "press");
/// # Ok::<(), cdp_supervisor::act::ActError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// Load a URL in the top frame.
    Navigate {
        /// The URL.
        url: String,
    },
    /// Back one history entry.
    Back,
    /// Forward one history entry.
    Forward,
    /// Reload the page.
    Reload,
    /// Press and release the left button at a point, or at the middle of a node.
    Click {
        /// Where.
        target: Target,
    },
    /// Type text as key presses into the focused element, or into `target` focused first.
    Type {
        /// The text.
        text: String,
        /// What to focus first.
        target: Option<Target>,
    },
    /// Press one key, with modifiers (`Enter`, `Shift+Tab`, `Control+a`).
    Press {
        /// The key, parsed.
        key: KeyPress,
        /// The name as given.
        name: String,
    },
    /// Scroll one viewport, or a node into view.
    Scroll(Scroll),
    /// Wait for text to appear or to be gone in any frame, or for a time.
    Wait(WaitFor),
    /// Set the viewport's size in CSS pixels (`Emulation.setDeviceMetricsOverride`).
    Resize {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// Move the mouse over a node or a point (`:hover` styles and hover menus show).
    Hover {
        /// Where.
        target: Target,
    },
    /// Pick options of a `<select>` by value or label, firing `input` and `change`.
    Select {
        /// The `<select>`.
        target: Target,
        /// Each matches an option's value or its label.
        values: Vec<String>,
    },
    /// Set several form fields in one call, in any frames.
    Fill {
        /// The fields, in order.
        fields: Vec<FillField>,
    },
    /// Press the left button at `from`, move in steps to `to`, release there.
    Drag {
        /// Where the drag starts.
        from: Target,
        /// Where it ends.
        to: Target,
    },
}

impl Action {
    /// The action's name as the sidecar spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Navigate { .. } => "navigate",
            Action::Back => "back",
            Action::Reload => "reload",
            Action::Click { .. } => "click",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Scroll(_) => "scroll",
            Action::Forward => "forward",
            Action::Wait(_) => "wait",
            Action::Resize { .. } => "resize",
            Action::Hover { .. } => "hover",
            Action::Select { .. } => "select",
            Action::Fill { .. } => "fill",
            Action::Drag { .. } => "drag",
        }
    }

    /// `press {key}`, the key checked.
    ///
    /// ```
    /// use cdp_supervisor::act::Action;
    /// assert!(Action::press("Shift+Tab").is_ok());
    /// assert_eq!(Action::press("Bogus").unwrap_err().code(), "bad_request");
    /// ```
    pub fn press(name: &str) -> Result<Action, ActError> {
        let key = parse_key(name).map_err(|e| ActError::BadRequest {
            what: format!("key: {e}"),
        })?;
        Ok(Action::Press {
            key,
            name: name.to_owned(),
        })
    }

    /// Reads an action from the sidecar's JSON line: `action` names it; `url`, `x`/`y`,
    /// `ref`, `frame_id` + `backend_node_id`, `text`, `key`, `direction` are its
    /// parameters. A missing or invalid one is an error naming it.
    ///
    /// ```
    /// use cdp_supervisor::act::{Action, Scroll};
    /// let a = Action::from_json(&serde_json::json!({"action": "scroll", "direction": "down"}))?;
    /// assert_eq!(a, Action::Scroll(Scroll::Down));
    /// let e = Action::from_json(&serde_json::json!({"action": "click"})).unwrap_err();
    /// assert!(e.to_string().contains("x and y"));
    /// # Ok::<(), cdp_supervisor::act::ActError>(())
    /// ```
    pub fn from_json(v: &Value) -> Result<Action, ActError> {
        let bad = |what: &str| ActError::BadRequest {
            what: what.to_owned(),
        };
        let name = v.get("action").and_then(Value::as_str).ok_or_else(|| {
            bad("action: missing; one of navigate, back, forward, reload, click, type, press, scroll, hover, select, fill, drag, wait, resize")
        })?;
        let str_field = |k: &str| v.get(k).and_then(Value::as_str);
        match name {
            "navigate" => {
                let url = str_field("url")
                    .filter(|u| !u.is_empty())
                    .ok_or_else(|| bad("url: missing; navigate needs {\"url\": \"https://...\"}"))?;
                Ok(Action::Navigate {
                    url: url.to_owned(),
                })
            }
            "back" => Ok(Action::Back),
            "forward" => Ok(Action::Forward),
            "wait" => toolbox::wait_from_json(v),
            "resize" => toolbox::resize_from_json(v),
            "reload" => Ok(Action::Reload),
            "click" => Ok(Action::Click {
                target: target_of(v)?.ok_or_else(|| {
                    bad("target: missing; click needs x and y, a ref, or frame_id and backend_node_id")
                })?,
            }),
            "type" => {
                let text = str_field("text").ok_or_else(|| {
                    bad("text: missing; type needs {\"text\": \"...\"}")
                })?;
                Action::typing(text, target_of(v)?)
            }
            "press" => {
                let key = str_field("key")
                    .ok_or_else(|| bad("key: missing; press needs {\"key\": \"Enter\"}"))?;
                Action::press(key)
            }
            "scroll" => {
                if let Some(t) = target_of(v)? {
                    return Ok(Action::Scroll(Scroll::To(t)));
                }
                match str_field("direction") {
                    Some("down") => Ok(Action::Scroll(Scroll::Down)),
                    Some("up") => Ok(Action::Scroll(Scroll::Up)),
                    Some(other) => Err(bad(&format!("direction: {other:?} is not up or down"))),
                    None => Err(bad("direction: missing; scroll needs direction up|down, or a ref")),
                }
            }
            "hover" | "select" | "fill" | "drag" => input::from_json(name, v),
            other => Err(bad(&format!(
                "action: unknown action {other:?}; one of navigate, back, forward, reload, click, type, press, scroll, hover, select, fill, drag, wait, resize"
            ))),
        }
    }

    /// `type {text}`, the text checked against [`MAX_TYPE_TEXT`].
    ///
    /// ```
    /// use cdp_supervisor::act::Action;
    /// assert!(Action::typing("hello", None).is_ok());
    /// ```
    pub fn typing(text: &str, target: Option<Target>) -> Result<Action, ActError> {
        if text.chars().count() > MAX_TYPE_TEXT {
            return Err(ActError::BadRequest {
                what: format!("text: longer than {MAX_TYPE_TEXT} characters; type it in parts"),
            });
        }
        Ok(Action::Type {
            text: text.to_owned(),
            target,
        })
    }
}

/// The target named in a JSON action: `x`/`y`, `ref`, or `frame_id` + `backend_node_id`.
fn target_of(v: &Value) -> Result<Option<Target>, ActError> {
    let bad = |what: &str| ActError::BadRequest {
        what: what.to_owned(),
    };
    if let Some(r) = v.get("ref") {
        let r = r
            .as_str()
            .filter(|r| !r.is_empty())
            .ok_or_else(|| bad("ref: must be a ref string such as \"e5\""))?;
        return Ok(Some(Target::Ref(r.to_owned())));
    }
    if let Some(node) = v.get("backend_node_id") {
        let backend_node_id = node
            .as_i64()
            .ok_or_else(|| bad("backend_node_id: must be an integer"))?;
        let frame_id = v
            .get("frame_id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("frame_id: missing; backend_node_id needs the frame it lives in"))?;
        return Ok(Some(Target::Node {
            frame_id: frame_id.to_owned(),
            backend_node_id,
        }));
    }
    match (v.get("x"), v.get("y")) {
        (None, None) => Ok(None),
        (x, y) => {
            let num = |n: Option<&Value>, k: &str| {
                n.and_then(Value::as_f64)
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| {
                        bad(&format!(
                            "{k}: missing or not a finite number; give x and y"
                        ))
                    })
            };
            Ok(Some(Target::Point {
                x: num(x, "x")?,
                y: num(y, "y")?,
            }))
        }
    }
}

/// What an action waits for before it answers (the rules: [`crate::manual::rules`], agent
/// actions, settling).
///
/// ```
/// use cdp_supervisor::act::Wait;
/// assert_eq!(Wait::default(), Wait::Quiet);
/// assert_eq!("load".parse::<Wait>(), Ok(Wait::Load));
/// assert!("idle".parse::<Wait>().is_err());
/// assert_eq!(Wait::Load.as_str(), "load");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    /// A navigation's `load` (or its back/forward cache restore), then `networkAlmostIdle`
    /// and [`SETTLE_QUIET`] without a console message, both counted from the load; without
    /// a navigation, the quiet after the input.
    #[default]
    Quiet,
    /// A navigation's `load` (or its restore) and no more; without a navigation, the
    /// input's last reply.
    Load,
}

impl Wait {
    /// The name as the sidecar and the MCP tools spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Wait::Quiet => "quiet",
            Wait::Load => "load",
        }
    }
}

impl std::str::FromStr for Wait {
    type Err = ActError;

    fn from_str(s: &str) -> Result<Wait, ActError> {
        match s {
            "quiet" => Ok(Wait::Quiet),
            "load" => Ok(Wait::Load),
            other => Err(ActError::BadRequest {
                what: format!("wait: {other:?} is not \"quiet\" or \"load\""),
            }),
        }
    }
}

/// How an action runs.
///
/// ```
/// use cdp_supervisor::act::{ActOptions, Wait};
/// let o = ActOptions::default();
/// assert_eq!(o.timeout.as_secs(), 10);
/// assert!(o.screenshot);
/// assert_eq!(o.wait, Wait::Quiet);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ActOptions {
    /// The budget for input and settling (default [`DEFAULT_ACT_TIMEOUT`]); the screenshot
    /// gets what is left, and at least [`CAPTURE_TIMEOUT`].
    pub timeout: Duration,
    /// Take a screenshot when settled (default true).
    pub screenshot: bool,
    /// What counts as settled (default [`Wait::Quiet`]).
    pub wait: Wait,
}

impl Default for ActOptions {
    fn default() -> Self {
        ActOptions {
            timeout: DEFAULT_ACT_TIMEOUT,
            screenshot: true,
            wait: Wait::Quiet,
        }
    }
}

impl ActOptions {
    /// Reads `timeout_ms`, `screenshot` and `wait` from the sidecar's JSON line (defaults
    /// when absent).
    ///
    /// ```
    /// use cdp_supervisor::act::{ActOptions, Wait};
    /// let o = ActOptions::from_json(&serde_json::json!({"timeout_ms": 2500, "screenshot": false, "wait": "load"}))?;
    /// assert_eq!(o.timeout.as_millis(), 2500);
    /// assert!(!o.screenshot);
    /// assert_eq!(o.wait, Wait::Load);
    /// let e = ActOptions::from_json(&serde_json::json!({"wait": 5})).unwrap_err();
    /// assert!(e.to_string().contains("wait"));
    /// # Ok::<(), cdp_supervisor::act::ActError>(())
    /// ```
    pub fn from_json(v: &Value) -> Result<ActOptions, ActError> {
        let mut o = ActOptions::default();
        if let Some(w) = v.get("wait").filter(|w| !w.is_null()) {
            o.wait = w
                .as_str()
                .ok_or_else(|| ActError::BadRequest {
                    what: "wait: must be \"quiet\" or \"load\"".into(),
                })?
                .parse()?;
        }
        if let Some(t) = v.get("timeout_ms") {
            let ms = t.as_u64().ok_or_else(|| ActError::BadRequest {
                what: "timeout_ms: must be a whole number of milliseconds".into(),
            })?;
            o.timeout = Duration::from_millis(ms);
        }
        if let Some(s) = v.get("screenshot") {
            o.screenshot = s.as_bool().ok_or_else(|| ActError::BadRequest {
                what: "screenshot: must be true or false".into(),
            })?;
        }
        Ok(o)
    }
}

/// A console line or exception that arrived while an action ran.
///
/// ```
/// use cdp_supervisor::act::ActConsoleLine;
/// let l = ActConsoleLine { level: "log".into(), text: "hi".into(), frame_id: None, at: 1.0 };
/// assert_eq!(serde_json::to_string(&l)?, r#"{"level":"log","text":"hi","frame_id":null,"at":1.0}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActConsoleLine {
    /// `log`, `info`, `warning`, `error`, `debug`, ... as Chromium names the call, or
    /// `exception` for an uncaught one.
    pub level: String,
    /// Its text (bounded like the console ring's).
    pub text: String,
    /// The frame that wrote it, when known.
    pub frame_id: Option<String>,
    /// When it arrived, on the embedder's clock.
    pub at: f64,
}

/// A screenshot, base64-encoded.
///
/// ```
/// use cdp_supervisor::act::Screenshot;
/// let s = Screenshot { mime: "image/webp".into(), data: "UklGRg==".into() };
/// assert!(s.data.starts_with("UklGR")); // "RIFF"
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Screenshot {
    /// `image/webp`, or `image/png` when webp failed.
    pub mime: String,
    /// The image, base64.
    pub data: String,
}

/// A point in top-level CSS pixels.
///
/// ```
/// let p = cdp_supervisor::act::Point { x: 1.0, y: 2.0 };
/// assert_eq!(serde_json::to_string(&p)?, r#"{"x":1.0,"y":2.0}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
}

/// What an action did, and the page after it.
///
/// ```
/// use cdp_supervisor::act::ActResult;
/// let r = ActResult::default();
/// let json = serde_json::to_value(&r)?;
/// assert_eq!(json["screenshot"], serde_json::Value::Null);
/// assert_eq!(json["settled"], false);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ActResult {
    /// The top frame's URL afterwards.
    pub url: String,
    /// A navigation the page started during the action (a link, a script) that the URL
    /// policy refused: it was stopped before it committed. Why, naming the flag that would
    /// allow it; omitted when nothing was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation_refused: Option<String>,
    /// `document.title` afterwards (empty when it could not be read).
    pub title: String,
    /// The top frame navigated (a new document, or within the document).
    pub navigated: bool,
    /// The page settled within the budget (false: the budget ran out, or a dialog ended
    /// the wait).
    pub settled: bool,
    /// Every console line and exception since the action began, oldest first, at most
    /// [`MAX_ACT_CONSOLE_LINES`](crate::limits::MAX_ACT_CONSOLE_LINES).
    pub console: Vec<ActConsoleLine>,
    /// Console lines left out over the bound.
    #[serde(default)]
    pub console_dropped: usize,
    /// The viewport, or `null` (not asked for, a dialog is showing, or both formats
    /// failed).
    pub screenshot: Option<Screenshot>,
    /// Where the mouse is, after a click, a hover or a drag.
    pub mouse: Option<Point>,
    /// What `select` and `fill` did to each field, in order (`field 1 (e3): textbox set
    /// to "Ada"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    /// The dialogs pending when the action ended.
    pub pending_dialogs: Vec<PendingDialog>,
    /// The dialog that opened during the action and ended it at once (no screenshot: a
    /// tab with a dialog cannot paint). Answer it, then act again.
    pub ended_by_dialog: Option<String>,
    /// Where the time went, in seconds on the embedder's clock.
    #[serde(default)]
    pub timing: ActTiming,
    /// The tabs the action opened (a `target=_blank` link, `window.open`): the first of
    /// them is the current tab now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opened_tabs: Vec<String>,
    /// The downloads that began in the tab while the action ran, as they stand when it
    /// answers (it waits, within its budget, for them to finish).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<crate::snapshot::Download>,
}

/// Where an action's time went, in seconds: locating the target and the input until its
/// last reply, the settle wait, the screenshot and title.
///
/// ```
/// let t = cdp_supervisor::act::ActTiming::default();
/// assert_eq!(t.input + t.settle + t.capture, 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ActTiming {
    /// From the start to the input's last reply.
    pub input: f64,
    /// From there to settled (or the budget's end).
    pub settle: f64,
    /// The screenshot and the title.
    pub capture: f64,
}

/// Why an action could not run.
///
/// ```
/// use cdp_supervisor::act::ActError;
/// let e = ActError::Blocked { dialog_id: "d-1".into() };
/// assert_eq!(e.code(), "blocked");
/// assert!(e.to_string().contains("d-1"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ActError {
    /// A missing or invalid parameter; nothing was sent.
    #[error("bad action: {what}")]
    BadRequest {
        /// The parameter and what is wrong with it.
        what: String,
    },
    /// A dialog is pending: input cannot reach the page until it is answered.
    #[error("dialog {dialog_id} is pending and would swallow this input; answer it first (navigate still works)")]
    Blocked {
        /// The dialog.
        dialog_id: String,
    },
    /// A ref that names no element now: the current accessibility snapshot does not know
    /// it, its frame navigated or went away, or its node is gone and no element of the same
    /// role, name and nth took its place.
    #[error("ref {r} is stale: the current accessibility snapshot does not name it, or its node is gone with no equal one in its place; take a fresh snapshot")]
    StaleRef {
        /// The ref.
        r: String,
    },
    /// The node has no box (hidden, detached, zero size).
    #[error("the node {backend_node_id} in frame {frame_id} has no visible box to click; scroll to it or pick another")]
    NoBox {
        /// The frame.
        frame_id: String,
        /// The node.
        backend_node_id: i64,
    },
    /// `back` with no earlier history entry.
    #[error("there is no earlier history entry to go back to")]
    NoHistory,
    /// `forward` with no later history entry.
    #[error("there is no later history entry to go forward to")]
    NoForwardHistory,
    /// `wait` for text that did not come (or go) within the budget.
    #[error("waited {waited_ms} ms for {what}: not within the budget; take a snapshot to see the page, or wait again with a larger timeout_ms")]
    WaitTimedOut {
        /// What was waited for, in words.
        what: String,
        /// How long it waited.
        waited_ms: u64,
    },
    /// A form field refused its value (no such option, not a form field, disabled, ...);
    /// the fields before it were set, the ones after it untouched.
    #[error("{field}: {what}")]
    Field {
        /// Which field (`field 2 (e7)`), or the `<select>`.
        field: String,
        /// What is wrong, and what it takes.
        what: String,
    },
    /// A command of the action failed.
    #[error(transparent)]
    Command(#[from] CommandError),
}

impl ActError {
    /// The stable snake_case code of the error.
    pub fn code(&self) -> &'static str {
        match self {
            ActError::BadRequest { .. }
            | ActError::NoHistory
            | ActError::NoForwardHistory
            | ActError::NoBox { .. }
            | ActError::Field { .. } => "bad_request",
            ActError::WaitTimedOut { .. } => "timeout",
            ActError::Blocked { .. } => "blocked",
            ActError::StaleRef { .. } => "stale_ref",
            ActError::Command(e) => command_code(e),
        }
    }
}

/// The stable code of a command's error.
fn command_code(e: &CommandError) -> &'static str {
    match e {
        CommandError::Cdp { .. } => "cdp_error",
        CommandError::Timeout { .. } => "timeout",
        CommandError::SessionGone { .. } | CommandError::NotAttached => "session_gone",
        CommandError::Disconnected { .. } => "disconnected",
        CommandError::UnknownFrame { .. } | CommandError::NotAnOopif { .. } => "no_such_frame",
        CommandError::Crashed { .. } | CommandError::FrameCrashed { .. } => "crashed",
        CommandError::NoSuchTab { .. } => "no_such_tab",
        CommandError::UrlRefused(_) => "url_refused",
        _ => "bad_request",
    }
}
mod input;
pub(crate) use input::check;
pub(crate) mod plan;
mod toolbox;
pub use toolbox::{
    check_budget, WaitFor, MAX_VIEWPORT_SIDE, MAX_WAIT_TEXT, MAX_WAIT_TIME, MIN_VIEWPORT_SIDE,
    WAIT_POLL_EVERY,
};

pub use input::{FieldKind, FillField, MAX_FILL_FIELDS, MAX_LISTED_OPTIONS, MAX_SELECT_VALUES};
