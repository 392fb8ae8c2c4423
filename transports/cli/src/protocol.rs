//! The stdin/stdout protocol of `cdp-supervise watch` (see the crate's README): one
//! JSON command a line in ([`parse_line`], a pure function), one JSON object a line out
//! ([`typed`], [`result_line`], [`error_line`], [`diff_line`]).

use std::time::Duration;

use cdp_supervisor::ax::AxOptions;
use cdp_supervisor::{DialogAction, DialogPolicy, Diff};
use serde_json::Value;

/// Default deadline of a `cdp` command from stdin.
pub const DEFAULT_CDP_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest deadline a `cdp` command may ask for (`timeout_ms` is clamped to it).
pub const MAX_CDP_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// One command read from stdin: its `id` (echoed on every line about it, any JSON) and
/// what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The caller's `id` (`null` when absent).
    pub id: Value,
    /// The command.
    pub command: Command,
    /// The tab it goes to (`tab_id`); `None`: the current tab (for `dialog`: any tab's).
    /// Browser-wide commands (`snapshot`, `policy`, `settle`, `stop`, `tabs`, `tab_new`)
    /// ignore it; `tab_select` and `tab_close` carry their own.
    pub tab_id: Option<String>,
}

/// The commands of `watch`.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `{"cmd":"snapshot"}`: the current snapshot.
    Snapshot,
    /// `{"cmd":"policy","policy":"auto_dismiss"}`.
    Policy(DialogPolicy),
    /// `{"cmd":"dialog","action":"accept","prompt_text":"x","dialog_id":"d-1"}`; a file
    /// chooser: `{"cmd":"dialog","files":["/abs/path"],"dialog_id":"d-2"}` (accept is
    /// then the default action).
    Dialog {
        /// Accept or dismiss.
        action: DialogAction,
        /// A prompt's text.
        prompt_text: Option<String>,
        /// Which dialog; `None` for the single pending one.
        dialog_id: Option<String>,
        /// A file chooser's files (absolute paths under an `--upload-root`).
        files: Option<Vec<String>>,
        /// An `http_auth` dialog's `username` and `password`.
        credentials: Option<(String, cdp_supervisor::http_auth::Password)>,
    },
    /// `{"cmd":"settle","action":"dismiss"}` (dismiss when absent).
    Settle(DialogAction),
    /// `{"cmd":"cdp","method":"Runtime.evaluate","params":{...},"frame_id":"F","timeout_ms":5000}`.
    Cdp {
        /// The CDP method.
        method: String,
        /// Its params (`null` for none).
        params: Value,
        /// The frame whose session gets it; the top frame when `None`.
        frame_id: Option<String>,
        /// Its deadline ([`DEFAULT_CDP_TIMEOUT`] unless `timeout_ms` says otherwise).
        timeout: Duration,
    },
    /// `{"cmd":"evaluate","expression":"...","frame_id":"F","ref":"e3","backend_node_id":12,"timeout_ms":2000}`,
    /// or `"function":"() => ..."` (a function's source, called) for `expression`.
    Evaluate(cdp_supervisor::Evaluation),
    /// `{"cmd":"recover"}`: release a page blocked by a dialog left open.
    Recover,
    /// `{"cmd":"ax_snapshot","timeout_ms":5000,"max_nodes":2000,"max_chars":20000,
    /// "max_frames":100,"frame_id":"F","ref":"e12"}` (every field optional): the
    /// accessibility outline with refs, OOPIFs included.
    AxSnapshot(AxOptions),
    /// `{"cmd":"stop"}`: settle dialogs (dismiss), detach, exit 0.
    Stop,
    /// `{"cmd":"act","action":"click","x":10,"y":20}`: an agent action (see the README).
    Act {
        /// The action.
        action: cdp_supervisor::act::Action,
        /// Its budget and whether to take a screenshot.
        options: cdp_supervisor::act::ActOptions,
    },
    /// `{"cmd":"find","text":"Buy","regex":"^Buy","role":"button"}` (one or more; and the
    /// `ax_snapshot` options): the matching lines of the accessibility outline, with refs.
    Find {
        /// What to look for.
        query: cdp_supervisor::ax::FindQuery,
        /// The snapshot it looks in.
        options: AxOptions,
    },
    /// `{"cmd":"console","since":0,"level":"warning"}`: the tab's console lines of every
    /// level from index `since` on (default 0), `level` and the more severe ones only
    /// when given.
    Console {
        /// The first index wanted (the last answer's `next`).
        since: u64,
        /// Playwright's level filter (`None`: every line).
        level: Option<cdp_supervisor::ConsoleSeverity>,
    },
    /// `{"cmd":"tabs"}`: every tab.
    Tabs,
    /// `{"cmd":"tab_new","url":"https://..."}`: open a tab; it becomes current.
    TabNew {
        /// Where.
        url: String,
    },
    /// `{"cmd":"tab_select","tab_id":"T"}`: make a tab current.
    TabSelect {
        /// Which.
        tab_id: String,
    },
    /// `{"cmd":"network"}`: the tab's requests since this connection's last `network`
    /// call (`"after":N`: after index N instead, 0 for all it keeps);
    /// `{"cmd":"network","index":N}`: one request with its headers and bodies.
    Network {
        /// One request's index.
        index: Option<u64>,
        /// List after this index instead of where the last call left off.
        after: Option<u64>,
    },
    /// `{"cmd":"tab_close","tab_id":"T","force":false}`: close a tab (the current one
    /// without `tab_id`); `force` skips its `beforeunload` handler.
    TabClose {
        /// Which; `None`: the current tab.
        tab_id: Option<String>,
        /// `Target.closeTarget` instead of `Page.close`.
        force: bool,
    },
}

/// The `cmd` words, for the messages that list them.
const COMMANDS: &str = "snapshot, ax_snapshot, find, dialog, cdp, evaluate, act, policy, recover, settle, stop, console, tabs, tab_new, tab_select, tab_close or network";

/// The `code` of an error line about the request itself (not JSON, a missing or
/// mistyped field, a number out of range, a line over the length limit).
pub const BAD_REQUEST: &str = "bad_request";

/// Why a line is not a command; answered with [`error_line`] for `id`, code
/// [`BAD_REQUEST`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line's `id` if it had one (`null` otherwise).
    pub id: Value,
    /// What is wrong and what to send instead.
    pub message: String,
    /// The stable error code, when the line named a command whose errors have one.
    pub code: Option<&'static str>,
}

impl LineError {
    /// Its error line: `{"type":"error","id":ID,"code":"bad_request","message":...}`.
    ///
    /// ```
    /// let e = cdp_supervise::protocol::parse_line(b"{").unwrap_err();
    /// assert!(e.to_line().starts_with(r#"{"type":"error","id":null,"code":"bad_request","#));
    /// ```
    pub fn to_line(&self) -> String {
        error_line(&self.id, self.code.unwrap_or(BAD_REQUEST), &self.message)
    }
}

/// The error line for a stdin line of `len` bytes, over the `limit`.
///
/// ```
/// let line = cdp_supervise::protocol::too_long_line(5_000_000, 1 << 20);
/// assert!(line.contains(r#""id":null,"code":"bad_request""#) && line.contains("1048576"));
/// ```
pub fn too_long_line(len: usize, limit: usize) -> String {
    error_line(
        &Value::Null,
        BAD_REQUEST,
        &format!("line of {len} bytes is over the limit of {limit} bytes per line; it was skipped unread (send large values in smaller commands)"),
    )
}

/// Parses one line of stdin. Never panics, whatever the bytes.
///
/// ```
/// use cdp_supervise::protocol::{parse_line, Command};
/// let r = parse_line(br#"{"id":1,"cmd":"snapshot"}"#)?;
/// assert_eq!((r.id, r.command), (serde_json::json!(1), Command::Snapshot));
/// let e = parse_line(b"hello").unwrap_err();
/// assert!(e.message.starts_with("not a JSON object"));
/// # Ok::<(), cdp_supervise::protocol::LineError>(())
/// ```
pub fn parse_line(line: &[u8]) -> Result<Request, LineError> {
    let request: Value = match serde_json::from_slice(line) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(LineError {
            code: None,
            id: Value::Null,
            message:
                "not a JSON object: send one command a line, e.g. {\"id\":1,\"cmd\":\"snapshot\"}"
                    .into(),
        }),
        Err(e) => return Err(LineError {
            code: None,
            id: Value::Null,
            message: format!(
                "not a JSON object ({}): send one UTF-8 JSON command a line, e.g. {{\"id\":1,\"cmd\":\"snapshot\"}}",
                if std::str::from_utf8(line).is_err() { "not UTF-8".to_owned() } else { e.to_string() }
            ),
        }),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let fail = |message: String| LineError {
        code: None,
        id: id.clone(),
        message,
    };
    // A field that is absent or null is `None`; present with another type is an error
    // (a mistyped `dialog_id` must not answer some other dialog).
    let opt_str = |k: &str| -> Result<Option<String>, LineError> {
        match request.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(fail(format!("\"{k}\" must be a string, not {other}"))),
        }
    };
    let action = |default: &str| {
        opt_str("action")?
            .unwrap_or_else(|| default.to_owned())
            .parse::<DialogAction>()
            .map_err(|e| fail(e.to_string()))
    };
    let Some(cmd) = opt_str("cmd")? else {
        return Err(fail(format!("missing \"cmd\": one of {COMMANDS}")));
    };
    let tab_id = opt_str("tab_id")?;
    let command = match cmd.as_str() {
        "snapshot" => Command::Snapshot,
        "policy" => Command::Policy(
            opt_str("policy")?
                .ok_or_else(|| {
                    "missing \"policy\": must_respond, auto_dismiss or auto_accept".to_owned()
                })
                .and_then(|p| p.parse::<DialogPolicy>())
                .map_err(fail)?,
        ),
        "dialog" => {
            let files = match request.get("files") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|f| f.as_str().map(str::to_owned))
                        .collect::<Option<Vec<String>>>()
                        .ok_or_else(|| fail("\"files\" must be an array of paths".into()))?,
                ),
                Some(other) => {
                    return Err(fail(format!(
                        "\"files\" must be an array of paths, not {other}"
                    )))
                }
            };
            let credentials = match (opt_str("username")?, opt_str("password")?) {
                (Some(user), Some(password)) => {
                    Some((user, cdp_supervisor::http_auth::Password::new(password)))
                }
                (None, None) => None,
                _ => return Err(fail("give both \"username\" and \"password\"".into())),
            };
            let default = if files.is_some() || credentials.is_some() {
                "accept"
            } else {
                ""
            };
            Command::Dialog {
                action: action(default)?,
                prompt_text: opt_str("prompt_text")?,
                dialog_id: opt_str("dialog_id")?,
                files,
                credentials,
            }
        }
        "settle" => Command::Settle(action("dismiss")?),
        "cdp" => Command::Cdp {
            method: opt_str("method")?
                .ok_or_else(|| fail("missing \"method\", e.g. \"Runtime.evaluate\"".into()))?,
            params: match request.get("params") {
                None | Some(Value::Null) => Value::Null,
                Some(p @ Value::Object(_)) => p.clone(),
                Some(other) => {
                    return Err(fail(format!(
                        "\"params\" must be a JSON object, not {other}"
                    )))
                }
            },
            frame_id: opt_str("frame_id")?,
            timeout: timeout_ms(request.get("timeout_ms"), DEFAULT_CDP_TIMEOUT).map_err(fail)?,
        },
        "act" => {
            let coded = |e: cdp_supervisor::act::ActError| LineError {
                code: Some(e.code()),
                id: id.clone(),
                message: e.to_string(),
            };
            Command::Act {
                action: cdp_supervisor::act::Action::from_json(&request).map_err(coded)?,
                options: cdp_supervisor::act::ActOptions::from_json(&request).map_err(coded)?,
            }
        }
        "recover" => Command::Recover,
        "ax_snapshot" => Command::AxSnapshot(ax_options(&request).map_err(fail)?),
        "find" => Command::Find {
            query: crate::find::parse_find(&request).map_err(|e| LineError {
                code: Some(e.code()),
                id: id.clone(),
                message: e.to_string(),
            })?,
            options: ax_options(&request).map_err(fail)?,
        },
        "stop" => Command::Stop,
        "evaluate" => Command::Evaluate(crate::evaluate::parse_evaluate(&request).map_err(fail)?),
        "console" => Command::Console {
            since: match request.get("since") {
                None | Some(Value::Null) => 0,
                Some(v) => v.as_u64().ok_or_else(|| {
                    fail(format!("\"since\" must be a line index (0 or more), the last answer's \"next\", not {v}"))
                })?,
            },
            level: match opt_str("level")? {
                None => None,
                Some(l) => Some(cdp_supervisor::ConsoleSeverity::parse(&l).ok_or_else(|| {
                    fail(format!("\"level\" must be error, warning, info or debug, not {l:?}"))
                })?),
            },
        },
        "tabs" => Command::Tabs,
        "network" => {
            let number = |k: &str, min: u64| match request.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v.as_u64().filter(|n| *n >= min).map(Some).ok_or_else(|| {
                    fail(format!("\"{k}\" must be a whole number of at least {min}"))
                }),
            };
            Command::Network {
                index: number("index", 1)?,
                after: number("after", 0)?,
            }
        }
        "tab_new" => Command::TabNew {
            url: opt_str("url")?.filter(|u| !u.is_empty()).ok_or_else(|| {
                fail("missing \"url\": the page the new tab opens, e.g. \"about:blank\"".into())
            })?,
        },
        "tab_select" => Command::TabSelect {
            tab_id: tab_id.clone().ok_or_else(|| {
                fail("missing \"tab_id\": the tab to select, as {\"cmd\":\"tabs\"} lists it".into())
            })?,
        },
        "tab_close" => Command::TabClose {
            tab_id: tab_id.clone(),
            force: match request.get("force") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(fail(format!(
                        "\"force\" must be true or false, not {other}"
                    )))
                }
            },
        },
        other => return Err(fail(format!("unknown cmd {other:?}: use {COMMANDS}"))),
    };
    // The tab commands carry the tab in the command itself.
    let tab_id = match command {
        Command::TabSelect { .. } | Command::TabClose { .. } => None,
        _ => tab_id,
    };
    Ok(Request {
        id,
        command,
        tab_id,
    })
}

/// The options of an `ax_snapshot` line; a field of the wrong type is an error that names it.
fn ax_options(request: &Value) -> Result<AxOptions, String> {
    let mut o = AxOptions::default();
    let count = |k: &str| -> Result<Option<usize>, String> {
        match request.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("\"{k}\" must be a whole number >= 0")),
        }
    };
    let text = |k: &str| -> Result<Option<String>, String> {
        match request.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("\"{k}\" must be a string")),
        }
    };
    o.timeout = timeout_ms(request.get("timeout_ms"), o.timeout)?;
    if let Some(n) = count("max_nodes")? {
        o.max_nodes = n;
    }
    o.max_chars = count("max_chars")?;
    if let Some(n) = count("max_frames")? {
        o.max_frames = n;
    }
    if let Some(n) = count("max_oopif_depth")? {
        o.max_oopif_depth = n;
    }
    o.frame_id = text("frame_id")?;
    o.reference = text("ref")?;
    Ok(o)
}

/// A `timeout_ms` field: absent or null gives `default`; a number of milliseconds > 0
/// gives that deadline, clamped to [`MAX_CDP_TIMEOUT`]; anything else (a string, a
/// negative or zero number) is an error naming the field. Never panics.
///
/// ```
/// use std::time::Duration;
/// use cdp_supervise::protocol::{timeout_ms, MAX_CDP_TIMEOUT};
/// let d = Duration::from_secs(1);
/// assert_eq!(timeout_ms(None, d), Ok(d));
/// assert_eq!(timeout_ms(Some(&serde_json::json!(250)), d), Ok(Duration::from_millis(250)));
/// assert_eq!(timeout_ms(Some(&serde_json::json!(1e300)), d), Ok(MAX_CDP_TIMEOUT));
/// assert!(timeout_ms(Some(&serde_json::json!(-1)), d).unwrap_err().contains("timeout_ms"));
/// assert!(timeout_ms(Some(&serde_json::json!("5")), d).is_err());
/// ```
pub fn timeout_ms(value: Option<&Value>, default: Duration) -> Result<Duration, String> {
    let bad = |v: &Value| {
        format!(
            "\"timeout_ms\" must be a number of milliseconds > 0 (at most {}), not {v}",
            MAX_CDP_TIMEOUT.as_millis()
        )
    };
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(v) => {
            let ms = v
                .as_f64()
                .filter(|t| t.is_finite() && *t > 0.0)
                .ok_or_else(|| bad(v))?;
            // Clamped to the cap in microseconds first; a float-to-integer `as` saturates, so
            // no number can make this panic.
            let micros = (ms * 1000.0).min(MAX_CDP_TIMEOUT.as_secs_f64() * 1e6);
            Ok(Duration::from_micros(micros as u64).min(MAX_CDP_TIMEOUT))
        }
    }
}

/// `{"type":TYPE, ...fields of object}`, with `type` first for readers' eyes.
///
/// ```
/// let line = cdp_supervise::protocol::typed("result", &serde_json::json!({"id": 1}));
/// assert_eq!(line, r#"{"type":"result","id":1}"#);
/// ```
pub fn typed(kind: &str, object: &Value) -> String {
    let body = object.to_string();
    match body.strip_prefix('{') {
        Some("}") | None => format!("{{\"type\":\"{kind}\"}}"),
        Some(rest) => format!("{{\"type\":\"{kind}\",{rest}"),
    }
}

/// A snapshot diff as a `diff` line.
///
/// ```
/// use cdp_supervisor::Diff;
/// let line = cdp_supervise::protocol::diff_line(&Diff::FrameRemoved { tab_id: None, frame_id: "F".into() });
/// assert_eq!(line, r#"{"type":"diff","frame_id":"F","op":"frame_removed"}"#);
/// ```
pub fn diff_line(diff: &Diff) -> String {
    typed("diff", &serde_json::to_value(diff).unwrap_or(Value::Null))
}

/// `{"type":"result","id":ID,KEY:VALUE}`.
///
/// ```
/// let line = cdp_supervise::protocol::result_line(&1.into(), "stopped", true.into());
/// assert_eq!(line, r#"{"type":"result","id":1,"stopped":true}"#);
/// ```
pub fn result_line(id: &Value, key: &str, value: Value) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("id".into(), id.clone());
    obj.insert(key.into(), value);
    typed("result", &Value::Object(obj))
}

/// `{"type":"error","id":ID,"code":CODE,"message":MESSAGE}`: `code` is the stable
/// snake_case word a program branches on (the errors' `code()`, or [`BAD_REQUEST`]),
/// `message` says what to do.
///
/// ```
/// let line = cdp_supervise::protocol::error_line(&2.into(), "no_dialog", "no");
/// assert_eq!(line, r#"{"type":"error","id":2,"code":"no_dialog","message":"no"}"#);
/// ```
pub fn error_line(id: &Value, code: &str, message: &str) -> String {
    // Written in this order for readers' eyes (a JSON map would sort the keys).
    format!(
        "{{\"type\":\"error\",\"id\":{id},\"code\":{},\"message\":{}}}",
        Value::from(code),
        Value::from(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn act_lines_parse_and_bad_ones_carry_a_code() {
        let p = |s: &str| parse_line(s.as_bytes());
        let r =
            p(r#"{"id":8,"cmd":"act","action":"click","x":10,"y":20,"timeout_ms":2000}"#).unwrap();
        match r.command {
            Command::Act { action, options } => {
                assert_eq!(action.name(), "click");
                assert_eq!(options.timeout, Duration::from_secs(2));
                assert_eq!(options.wait, cdp_supervisor::act::Wait::Quiet);
            }
            other => panic!("{other:?}"),
        }
        let r = p(r#"{"id":8,"cmd":"act","action":"back","wait":"load"}"#).unwrap();
        assert!(matches!(r.command, Command::Act { options, .. }
            if options.wait == cdp_supervisor::act::Wait::Load));
        let e = p(r#"{"id":9,"cmd":"act","action":"back","wait":"idle"}"#).unwrap_err();
        assert_eq!(e.code, Some("bad_request"));
        assert!(e.message.contains("wait"), "{}", e.message);
        let e = p(r#"{"id":9,"cmd":"act","action":"navigate"}"#).unwrap_err();
        assert_eq!((e.code, e.id), (Some("bad_request"), serde_json::json!(9)));
        assert!(e.message.contains("url"));
        let e = p(r#"{"id":9,"cmd":"act","action":"press","key":"Nope"}"#).unwrap_err();
        assert_eq!(e.code, Some("bad_request"));
    }

    #[test]
    fn every_command_parses() {
        let p = |s: &str| parse_line(s.as_bytes()).map(|r| r.command);
        assert_eq!(
            p(r#"{"cmd":"console","since":7,"level":"warning"}"#),
            Ok(Command::Console {
                since: 7,
                level: Some(cdp_supervisor::ConsoleSeverity::Warning)
            })
        );
        assert_eq!(
            p(r#"{"cmd":"console"}"#),
            Ok(Command::Console {
                since: 0,
                level: None
            })
        );
        assert!(p(r#"{"cmd":"console","since":-1}"#).is_err());
        assert!(p(r#"{"cmd":"console","level":"loud"}"#).is_err());
        assert_eq!(p(r#"{"cmd":"recover"}"#), Ok(Command::Recover));
        assert_eq!(p(r#"{"cmd":"stop"}"#), Ok(Command::Stop));
        let Ok(Command::AxSnapshot(o)) =
            p(r#"{"cmd":"ax_snapshot","timeout_ms":700,"max_frames":10,"ref":"e3"}"#)
        else {
            panic!("ax_snapshot")
        };
        assert_eq!(
            (o.timeout, o.max_frames, o.reference.as_deref(), o.max_nodes),
            (Duration::from_millis(700), 10, Some("e3"), 2_000)
        );
        assert!(p(r#"{"cmd":"ax_snapshot","max_nodes":-1}"#).is_err());
        assert!(p(r#"{"cmd":"ax_snapshot","frame_id":3}"#).is_err());
        assert_eq!(
            p(r#"{"cmd":"settle"}"#),
            Ok(Command::Settle(DialogAction::Dismiss))
        );
        assert_eq!(
            p(r#"{"cmd":"policy","policy":"auto_accept"}"#),
            Ok(Command::Policy(DialogPolicy::AutoAccept))
        );
        assert_eq!(
            p(r#"{"cmd":"dialog","action":"accept","prompt_text":"x"}"#),
            Ok(Command::Dialog {
                files: None,
                credentials: None,
                action: DialogAction::Accept,
                prompt_text: Some("x".into()),
                dialog_id: None
            })
        );
        let Ok(Command::Cdp { timeout, .. }) = p(r#"{"cmd":"cdp","method":"M","timeout_ms":1500}"#)
        else {
            panic!("cdp")
        };
        assert_eq!(timeout, Duration::from_millis(1500));
    }

    #[test]
    fn tab_commands_parse_and_every_command_takes_a_tab_id() {
        let p = |s: &str| parse_line(s.as_bytes());
        assert_eq!(p(r#"{"cmd":"tabs"}"#).unwrap().command, Command::Tabs);
        assert_eq!(
            p(r#"{"cmd":"tab_new","url":"about:blank"}"#)
                .unwrap()
                .command,
            Command::TabNew {
                url: "about:blank".into()
            }
        );
        let r = p(r#"{"id":3,"cmd":"tab_select","tab_id":"T"}"#).unwrap();
        assert_eq!(
            (r.command, r.tab_id),
            (Command::TabSelect { tab_id: "T".into() }, None)
        );
        assert_eq!(
            p(r#"{"cmd":"tab_close"}"#).unwrap().command,
            Command::TabClose {
                tab_id: None,
                force: false
            }
        );
        assert_eq!(
            p(r#"{"cmd":"tab_close","tab_id":"T","force":true}"#)
                .unwrap()
                .command,
            Command::TabClose {
                tab_id: Some("T".into()),
                force: true
            }
        );
        let r = p(r#"{"cmd":"evaluate","expression":"1","tab_id":"T2"}"#).unwrap();
        assert_eq!(r.tab_id.as_deref(), Some("T2"));
        for bad in [
            r#"{"id":1,"cmd":"tab_new"}"#,
            r#"{"id":1,"cmd":"tab_select"}"#,
            r#"{"id":1,"cmd":"tab_close","force":"yes"}"#,
            r#"{"id":1,"cmd":"evaluate","expression":"1","tab_id":7}"#,
        ] {
            let e = p(bad).unwrap_err();
            assert_eq!(e.id, 1, "{bad}");
        }
        assert!(p(r#"{"cmd":"nope"}"#)
            .unwrap_err()
            .message
            .contains("tab_close"));
    }

    #[test]
    fn tab_diffs_are_lines() {
        use cdp_supervisor::{TabInfo, TabState};
        let tab = TabInfo {
            tab_id: "T".into(),
            url: "about:blank".into(),
            title: String::new(),
            opener_tab_id: Some("O".into()),
            state: TabState::Live,
            current: true,
            browser_context_id: None,
        };
        let line: Value = serde_json::from_str(&diff_line(&Diff::TabOpened { tab })).unwrap();
        assert_eq!(line["type"], "diff");
        assert_eq!(line["op"], "tab_opened");
        assert_eq!(line["tab"]["opener_tab_id"], "O");
        let line = diff_line(&Diff::CurrentTab {
            tab_id: Some("T".into()),
        });
        assert_eq!(line, r#"{"type":"diff","op":"current_tab","tab_id":"T"}"#);
        let line = diff_line(&Diff::TabClosed { tab_id: "T".into() });
        assert_eq!(line, r#"{"type":"diff","op":"tab_closed","tab_id":"T"}"#);
    }

    #[test]
    fn bad_lines_are_errors_with_their_id_and_never_panic() {
        let e = parse_line(br#"{"id":"x","cmd":"dialog","action":"maybe"}"#).unwrap_err();
        assert_eq!(e.id, "x");
        assert!(parse_line(br#"{"id":3}"#)
            .unwrap_err()
            .message
            .contains("missing \"cmd\""));
        assert!(parse_line(br#"{"cmd":"cdp"}"#)
            .unwrap_err()
            .message
            .contains("method"));
        assert!(parse_line(br#"{"cmd":"nope"}"#)
            .unwrap_err()
            .message
            .contains("unknown cmd"));
        assert!(parse_line(b"\xff\xfe")
            .unwrap_err()
            .message
            .contains("UTF-8"));
        assert!(parse_line(b"[1]").is_err());
        let e = parse_line(br#"{"id":4,"cmd":"dialog","action":"accept","dialog_id":5}"#);
        assert!(e.unwrap_err().message.contains("dialog_id"));
        let e = parse_line(br#"{"id":4,"cmd":"settle","action":[]}"#);
        assert!(e.unwrap_err().message.contains("action"));
        for bad in ["-1", "0", "\"1000\"", "true", "[]", "{}"] {
            let line = format!(r#"{{"id":5,"cmd":"cdp","method":"M","timeout_ms":{bad}}}"#);
            let e = parse_line(line.as_bytes()).unwrap_err();
            assert_eq!(e.id, 5);
            assert!(e.message.contains("timeout_ms"), "{bad}: {}", e.message);
        }
        for ms in ["1e300", "1e308", "0.0000001", "18446744073709551616"] {
            let line = format!(r#"{{"cmd":"cdp","method":"M","timeout_ms":{ms}}}"#);
            let Ok(Request {
                command: Command::Cdp { timeout, .. },
                ..
            }) = parse_line(line.as_bytes())
            else {
                panic!("{ms}")
            };
            assert!(timeout <= MAX_CDP_TIMEOUT);
        }
    }
}
