//! The rest of the toolbox on the MCP face, the pure half: `browser_wait_for`,
//! `browser_navigate_back`, `browser_navigate_forward`, `browser_resize` and `browser_find`
//! (their arguments read with Playwright MCP's names and this server's, [`parse`]; their
//! schemas, [`tools`]), and `browser_console_messages`'s `level` ([`ConsoleLevel`]).

use std::time::Duration;

use cdp_supervisor::act::{Wait, MAX_VIEWPORT_SIDE, MIN_VIEWPORT_SIDE};
use cdp_supervisor::ax::FindQuery;
use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::mcp::CallError;

/// The budget a text wait gets when the call names none.
///
/// ```
/// assert_eq!(cdp_supervise::mcp_toolbox::DEFAULT_WAIT_BUDGET.as_secs(), 10);
/// ```
pub const DEFAULT_WAIT_BUDGET: Duration = Duration::from_secs(10);

/// A toolbox call, its arguments checked.
///
/// ```
/// use cdp_supervise::mcp_toolbox::ToolboxCall;
/// let back = ToolboxCall::History { forward: false, timeout_ms: None, wait: None };
/// assert!(back.act().is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ToolboxCall {
    /// `browser_wait_for`: exactly one of text, text gone, time.
    WaitFor {
        /// `text`.
        text: Option<String>,
        /// `textGone` / `text_gone`.
        text_gone: Option<String>,
        /// `time`, in seconds (a sleep), as milliseconds.
        time_ms: Option<u64>,
        /// The budget.
        timeout_ms: Option<u64>,
    },
    /// `browser_navigate_back` (`forward: false`) or `browser_navigate_forward`.
    History {
        /// Which way.
        forward: bool,
        /// The budget.
        timeout_ms: Option<u64>,
        /// What to wait for.
        wait: Option<Wait>,
    },
    /// `browser_resize`.
    Resize {
        /// CSS pixels.
        width: u64,
        /// CSS pixels.
        height: u64,
        /// The budget.
        timeout_ms: Option<u64>,
    },
    /// `browser_find`.
    Find(FindQuery),
}

fn bad(m: String) -> CallError {
    CallError::BadArgument(m)
}

fn string(args: &Map<String, Value>, names: &[&str]) -> Result<Option<String>, CallError> {
    for name in names {
        match args.get(*name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => return Ok(Some(s.clone())),
            Some(_) => return Err(bad(format!("`{name}` must be a string"))),
        }
    }
    Ok(None)
}

fn whole(args: &Map<String, Value>, name: &str, max: u64) -> Result<Option<u64>, CallError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .filter(|n| (1..=max).contains(n))
            .map(Some)
            .ok_or_else(|| bad(format!("`{name}` must be a whole number from 1 to {max}"))),
    }
}

/// Reads a toolbox tool's arguments; `None` when `name` is not one of them.
///
/// ```
/// use cdp_supervise::mcp_toolbox::{parse, ToolboxCall};
/// use serde_json::{json, Map, Value};
/// let args: Map<String, Value> = serde_json::from_value(json!({"textGone": "Loading", "timeout_ms": 3000}))?;
/// let call = parse("browser_wait_for", &args);
/// assert_eq!(call, Some(Ok(ToolboxCall::WaitFor { text: None, text_gone: Some("Loading".into()), time_ms: None, timeout_ms: Some(3000) })));
/// let seconds: Map<String, Value> = serde_json::from_value(json!({"time": 1.5}))?;
/// assert!(matches!(parse("browser_wait_for", &seconds), Some(Ok(ToolboxCall::WaitFor { time_ms: Some(1500), .. }))));
/// assert!(parse("browser_fly", &Map::new()).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse(name: &str, args: &Map<String, Value>) -> Option<Result<ToolboxCall, CallError>> {
    let timeout = || whole(args, "timeout_ms", 600_000);
    let wait = || -> Result<Option<Wait>, CallError> {
        string(args, &["wait"])?
            .map(|w| {
                w.parse()
                    .map_err(|_| bad(format!("`wait` must be \"quiet\" or \"load\", not {w:?}")))
            })
            .transpose()
    };
    let call = match name {
        // `browser_wait` is Playwright MCP's older name (a sleep in seconds).
        "browser_wait_for" | "browser_wait" => (|| {
            let time_ms = match args.get("time") {
                None | Some(Value::Null) => None,
                Some(t) => Some(
                    t.as_f64()
                        .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 600.0)
                        .map(|s| (s * 1000.0).round() as u64)
                        .ok_or_else(|| {
                            bad("`time` must be a number of seconds from 0 to 600".into())
                        })?,
                ),
            };
            let text = string(args, &["text"])?;
            let text_gone = string(args, &["textGone", "text_gone"])?;
            let given = [text.is_some(), text_gone.is_some(), time_ms.is_some()];
            match given.iter().filter(|g| **g).count() {
                0 => Err(bad("`text`, `textGone` or `time` is required: the text to wait for, the text to wait to disappear, or the seconds to sleep".into())),
                1 => Ok(ToolboxCall::WaitFor { text, text_gone, time_ms, timeout_ms: timeout()? }),
                _ => Err(bad("give only one of `text`, `textGone` and `time`".into())),
            }
        })(),
        "browser_navigate_back" | "browser_navigate_forward" => (|| {
            Ok(ToolboxCall::History {
                forward: name == "browser_navigate_forward",
                timeout_ms: timeout()?,
                wait: wait()?,
            })
        })(),
        "browser_resize" => (|| {
            let side = |k: &str| {
                whole(args, k, u64::from(MAX_VIEWPORT_SIDE))?
                    .filter(|n| *n >= u64::from(MIN_VIEWPORT_SIDE))
                    .ok_or_else(|| bad(format!("`{k}` is required: a whole number of CSS pixels from {MIN_VIEWPORT_SIDE} to {MAX_VIEWPORT_SIDE}")))
            };
            Ok(ToolboxCall::Resize {
                width: side("width")?,
                height: side("height")?,
                timeout_ms: timeout()?,
            })
        })(),
        "browser_find" => (|| {
            let get = |names: &[&str]| string(args, names);
            FindQuery::new(
                get(&["text"])?.as_deref(),
                get(&["regex", "pattern"])?.as_deref(),
                get(&["role"])?.as_deref(),
            )
            .map(ToolboxCall::Find)
            .map_err(|e| bad(format!("{e}").replace("bad find: ", "")))
        })(),
        _ => return None,
    };
    Some(call)
}

impl ToolboxCall {
    /// The sidecar's action and options for the calls that are actions (not `Find`).
    ///
    /// ```
    /// use cdp_supervise::mcp_toolbox::ToolboxCall;
    /// let act = ToolboxCall::Resize { width: 800, height: 600, timeout_ms: None }.act();
    /// assert!(act.is_some_and(|(action, options)| action.get("action").is_some_and(|a| a == "resize")
    ///     && options.as_object().is_some_and(|o| o.is_empty())));
    /// ```
    pub fn act(&self) -> Option<(Value, Value)> {
        // An object: indexing it below inserts, it cannot panic.
        let mut options = json!({});
        let action = match self {
            ToolboxCall::WaitFor {
                text,
                text_gone,
                time_ms,
                timeout_ms,
            } => {
                // A sleep gets a budget that holds it, unless one was given.
                let budget = timeout_ms.unwrap_or_else(|| {
                    let least = u64::try_from(DEFAULT_WAIT_BUDGET.as_millis()).unwrap_or(u64::MAX);
                    time_ms.map_or(least, |t| t.max(least))
                });
                options["timeout_ms"] = json!(budget);
                json!({"action": "wait", "text": text, "text_gone": text_gone, "time_ms": time_ms})
            }
            ToolboxCall::History {
                forward,
                timeout_ms,
                wait,
            } => {
                if let Some(ms) = timeout_ms {
                    options["timeout_ms"] = json!(ms);
                }
                if let Some(w) = wait {
                    options["wait"] = json!(w.as_str());
                }
                json!({"action": if *forward { "forward" } else { "back" }})
            }
            ToolboxCall::Resize {
                width,
                height,
                timeout_ms,
            } => {
                if let Some(ms) = timeout_ms {
                    options["timeout_ms"] = json!(ms);
                }
                json!({"action": "resize", "width": width, "height": height})
            }
            ToolboxCall::Find(_) => return None,
        };
        Some((action, options))
    }
}

/// `browser_console_messages`'s `level`, as Playwright MCP has it: a level and the more
/// severe ones. Without it, every level.
///
/// ```
/// use cdp_supervise::mcp_toolbox::ConsoleLevel;
/// assert!(ConsoleLevel::Error < ConsoleLevel::Debug);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConsoleLevel {
    /// Errors, failed asserts, uncaught exceptions.
    Error,
    /// And warnings.
    Warning,
    /// And `log`, `info` and the rest but debug.
    Info,
    /// Everything.
    Debug,
}

impl ConsoleLevel {
    /// Reads `level` (absent: `None`, every level).
    ///
    /// ```
    /// use cdp_supervise::mcp_toolbox::ConsoleLevel;
    /// use serde_json::{json, Map, Value};
    /// let args: Map<String, Value> = serde_json::from_value(json!({"level": "warning"}))?;
    /// assert_eq!(ConsoleLevel::from_args(&args), Ok(Some(ConsoleLevel::Warning)));
    /// assert!(ConsoleLevel::from_args(&serde_json::from_value(json!({"level": "loud"}))?).is_err());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn from_args(args: &Map<String, Value>) -> Result<Option<ConsoleLevel>, CallError> {
        Ok(match string(args, &["level"])?.as_deref() {
            None => None,
            Some("error") => Some(ConsoleLevel::Error),
            Some("warning") => Some(ConsoleLevel::Warning),
            Some("info") => Some(ConsoleLevel::Info),
            Some("debug") => Some(ConsoleLevel::Debug),
            Some(other) => {
                return Err(bad(format!(
                    "`level` must be error, warning, info or debug, not {other:?}"
                )))
            }
        })
    }

    /// Whether a line of Chromium's level `kind` (`error`, `warning`, `log`, `exception`,
    /// ...) is shown at this level.
    ///
    /// ```
    /// use cdp_supervise::mcp_toolbox::ConsoleLevel;
    /// assert!(ConsoleLevel::Warning.shows("exception"));
    /// assert!(!ConsoleLevel::Warning.shows("log"));
    /// assert!(ConsoleLevel::Debug.shows("debug"));
    /// ```
    pub fn shows(self, kind: &str) -> bool {
        let level = match self {
            ConsoleLevel::Error => cdp_supervisor::ConsoleSeverity::Error,
            ConsoleLevel::Warning => cdp_supervisor::ConsoleSeverity::Warning,
            ConsoleLevel::Info => cdp_supervisor::ConsoleSeverity::Info,
            ConsoleLevel::Debug => cdp_supervisor::ConsoleSeverity::Debug,
        };
        level.shows(kind)
    }
}

const TIMEOUT_DOC: &str = "The budget in milliseconds; the call answers within it.";

const HISTORY_WAIT_DOC: &str = "What to wait for: \"quiet\" (the default: the page's load, or its restore from the back/forward cache, then network almost idle and 500 ms without a console message) or \"load\" (the load or restore only).";

#[derive(JsonSchema)]
#[allow(dead_code)] // Schemas only: the arguments are read by `parse`.
struct WaitForArgs {
    /// The text to wait for: it must show in some frame (cross-origin iframes included), case-insensitive, white space collapsed, rendered text only.
    text: Option<String>,
    /// The text to wait to disappear from every frame (also accepted as `text_gone`).
    #[schemars(rename = "textGone")]
    text_gone: Option<String>,
    /// The time to wait, in seconds (a sleep).
    time: Option<f64>,
    /// The budget in milliseconds (default 10000, or the sleep's length): text not seen (or not gone) within it is an error.
    #[schemars(range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct HistoryArgs {
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
    #[schemars(description = HISTORY_WAIT_DOC)]
    wait: Option<String>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct ResizeArgs {
    /// The viewport's width in CSS pixels (16 to 7680).
    width: u64,
    /// The viewport's height in CSS pixels (16 to 7680).
    height: u64,
    #[schemars(description = TIMEOUT_DOC, range(min = 1, max = 600000))]
    timeout_ms: Option<u64>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct FindArgs {
    /// Text to find: a case-insensitive part of a node's name, value or text.
    text: Option<String>,
    /// A regular expression over the same (also accepted as `pattern`); (?i) ignores case.
    regex: Option<String>,
    /// A role to find (button, link, textbox, heading, checkbox, text, ...).
    role: Option<String>,
}

/// The toolbox's tools, as `tools/list` answers them.
///
/// ```
/// let tools = cdp_supervise::mcp_toolbox::tools();
/// assert!(tools.iter().any(|t| t.name == "browser_wait_for"));
/// ```
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new("browser_wait_for", "Wait for text to appear or disappear (searched in every frame, cross-origin iframes included) or for a time to pass, under one budget; then answer with the page, a screenshot and the console. Text not seen within the budget is an error; a dialog that opens ends the wait at once and is named.", schema_for_type::<WaitForArgs>()),
        Tool::new("browser_navigate_back", "Go back to the previous page (a page restored from the back/forward cache counts as loaded), then answer with a screenshot and the console.", schema_for_type::<HistoryArgs>()),
        Tool::new("browser_navigate_forward", "Go forward to the next page (a page restored from the back/forward cache counts as loaded), then answer with a screenshot and the console.", schema_for_type::<HistoryArgs>()),
        Tool::new("browser_resize", "Resize the page's viewport (CSS pixels; media queries and window.innerWidth follow), then answer with a screenshot. Iframes keep the sizes the page gives them; tabs opened later keep the browser's size.", schema_for_type::<ResizeArgs>()),
        Tool::new("browser_find", "Find elements by text, regex or role in an accessibility snapshot of the whole tab (cross-origin iframes included): answers only the matching outline lines, each with its ref, instead of the whole outline.", schema_for_type::<FindArgs>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn wait_for_needs_exactly_one_thing_and_checks_time() {
        for (v, says) in [
            (json!({}), "required"),
            (json!({"text": "a", "time": 1}), "only one"),
            (json!({"time": -1}), "seconds"),
            (json!({"time": "soon"}), "seconds"),
        ] {
            let e = parse("browser_wait_for", &args(v.clone()))
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(&e, CallError::BadArgument(m) if m.contains(says)),
                "{v}: {e:?}"
            );
        }
        let sleep = parse("browser_wait", &args(json!({"time": 12})))
            .unwrap()
            .unwrap();
        let (action, options) = sleep.act().unwrap();
        assert_eq!(action["time_ms"], 12_000);
        assert_eq!(options["timeout_ms"], 12_000, "a sleep's budget holds it");
    }

    #[test]
    fn resize_and_find_check_their_arguments() {
        assert!(parse("browser_resize", &args(json!({"width": 800})))
            .unwrap()
            .is_err());
        assert!(
            parse("browser_resize", &args(json!({"width": 8, "height": 600})))
                .unwrap()
                .is_err()
        );
        assert!(parse(
            "browser_resize",
            &args(json!({"width": 800.0, "height": 600}))
        )
        .unwrap()
        .is_ok());
        assert!(parse("browser_find", &args(json!({}))).unwrap().is_err());
        assert!(parse("browser_find", &args(json!({"pattern": "^Buy"})))
            .unwrap()
            .is_ok());
        let back = parse("browser_navigate_back", &args(json!({"wait": "load"})))
            .unwrap()
            .unwrap();
        assert_eq!(back.act().unwrap().0["action"], "back");
    }
}
