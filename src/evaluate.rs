//! Evaluate under one budget: the request, its value and its typed error (see
//! [`crate::manual::rules`], evaluate).
//!
//! One budget per call ([`Evaluation::timeout`], default [`DEFAULT_EVAL_TIMEOUT`]) is the
//! single source of every deadline under it: the core's own deadline is the budget minus
//! [`headroom`], the in-page bounds (`Runtime.evaluate {timeout}` for synchronous script, a
//! race for promises) are the budget minus twice the headroom, and a transport waits the
//! budget plus [`TRANSPORT_MARGIN`]. On expiry termination is requested
//! (`Runtime.terminateExecution`) and the call ends at once; the error says what is known.

use std::time::Duration;

use serde_json::Value;
use thiserror::Error;

use crate::ax::AxError;
use crate::error::CommandError;
use crate::snapshot::PendingDialog;

/// The budget of an evaluate that names none.
///
/// ```
/// assert_eq!(cdp_supervisor::evaluate::DEFAULT_EVAL_TIMEOUT.as_secs(), 30);
/// ```
pub const DEFAULT_EVAL_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest budget an evaluate may ask for (a longer one is cut to it).
///
/// ```
/// assert_eq!(cdp_supervisor::evaluate::MAX_EVAL_TIMEOUT.as_secs(), 24 * 3600);
/// ```
pub const MAX_EVAL_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// How much longer than the budget a transport waits for the core's answer (the core
/// always answers within the budget; this only guards against a stalled loop).
///
/// ```
/// assert_eq!(cdp_supervisor::evaluate::TRANSPORT_MARGIN.as_millis(), 1000);
/// ```
pub const TRANSPORT_MARGIN: Duration = Duration::from_secs(1);

/// The part of a budget kept for the round trip: a tenth, between 10 ms and 200 ms. The
/// core answers at the budget minus this at the latest.
///
/// ```
/// use cdp_supervisor::evaluate::headroom;
/// use std::time::Duration;
/// assert_eq!(headroom(Duration::from_millis(500)), Duration::from_millis(50));
/// assert_eq!(headroom(Duration::from_secs(30)), Duration::from_millis(200));
/// assert_eq!(headroom(Duration::from_millis(20)), Duration::from_millis(10));
/// ```
pub fn headroom(budget: Duration) -> Duration {
    (budget / 10).clamp(Duration::from_millis(10), Duration::from_millis(200))
}

/// What to evaluate, where, and within which budget.
///
/// ```
/// use cdp_supervisor::evaluate::{Element, Evaluation};
/// use std::time::Duration;
/// let e = Evaluation::new("document.title");
/// assert_eq!(e.timeout, Duration::from_secs(30));
/// let on_button = Evaluation::new("el => el.textContent").on_element(Element::Ref("e3".into()));
/// assert_eq!(on_button.element, Some(Element::Ref("e3".into())));
/// let called = Evaluation::function("() => 6 * 7");
/// assert!(called.function && !e.function);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// A script (its completion value is the result; a value that is a function is called,
    /// once, with no argument), or with [`Evaluation::element`] a function called with the
    /// element as its first argument (and `this`).
    pub expression: String,
    /// `expression` is a function's source (Playwright's `function`), parsed as an
    /// expression rather than as a script, so that `function () {}` and `async () => {}`
    /// are values, then called like a script's function value. A source whose value is not
    /// a function answers that value.
    pub function: bool,
    /// The frame to run in; the top frame when `None`. An OOPIF runs on its own session,
    /// an in-process frame in its default execution context.
    pub frame_id: Option<String>,
    /// An element to call the function with.
    pub element: Option<Element>,
    /// The budget.
    pub timeout: Duration,
}

impl Evaluation {
    /// An evaluate of `expression` in the top frame with the default budget.
    pub fn new(expression: &str) -> Evaluation {
        Evaluation {
            expression: expression.to_owned(),
            function: false,
            frame_id: None,
            element: None,
            timeout: DEFAULT_EVAL_TIMEOUT,
        }
    }

    /// A call of the function whose source is `source` (`"() => document.title"`,
    /// `"async function () { ... }"`) in the top frame with the default budget.
    pub fn function(source: &str) -> Evaluation {
        Evaluation {
            function: true,
            ..Evaluation::new(source)
        }
    }

    /// In `frame_id`.
    pub fn in_frame(mut self, frame_id: &str) -> Evaluation {
        self.frame_id = Some(frame_id.to_owned());
        self
    }

    /// Called with `element`.
    pub fn on_element(mut self, element: Element) -> Evaluation {
        self.element = Some(element);
        self
    }

    /// Within `timeout`.
    pub fn within(mut self, timeout: Duration) -> Evaluation {
        self.timeout = timeout;
        self
    }
}

/// The element an evaluate's function is called with.
///
/// ```
/// use cdp_supervisor::evaluate::Element;
/// assert_ne!(Element::BackendNodeId(12), Element::Ref("e12".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    /// A DOM node by its `backendNodeId`, in [`Evaluation::frame_id`] (the top frame when
    /// `None`).
    BackendNodeId(i64),
    /// A ref of the last accessibility snapshot (`e12`); it names its frame itself.
    Ref(String),
}

/// An evaluate's value, as JSON. `undefined` is `null` with `undefined` set; values JSON
/// cannot hold (`NaN`, `Infinity`, `-0`, a `BigInt`) are strings (`"NaN"`, `"1n"`).
///
/// ```
/// use cdp_supervisor::evaluate::EvalValue;
/// let v = EvalValue::undefined();
/// assert!(v.value.is_null() && v.undefined);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EvalValue {
    /// The value.
    pub value: Value,
    /// The script returned `undefined`.
    pub undefined: bool,
}

impl EvalValue {
    /// `undefined`.
    pub fn undefined() -> EvalValue {
        EvalValue {
            value: Value::Null,
            undefined: true,
        }
    }

    /// A JSON value.
    pub fn of(value: Value) -> EvalValue {
        EvalValue {
            value,
            undefined: false,
        }
    }
}

/// Why an evaluate gave no value. [`EvalError::code`] is a stable word to branch on.
///
/// ```
/// use cdp_supervisor::evaluate::EvalError;
/// let e = EvalError::Timeout { target: "frame F".into(), budget_ms: 500, terminated: true };
/// assert_eq!(e.code(), "timeout");
/// assert_eq!(e.to_string(), "the script in frame F ran past its 500 ms budget and was terminated; the frame is usable again");
/// // No answer at all (a stalled connection, a blocked renderer): no claim of what happened.
/// let e = EvalError::NoAnswer { target: "frame F".into(), budget_ms: 500 };
/// assert_eq!(e.code(), "timeout");
/// assert!(!e.to_string().contains("was terminated"));
/// assert!(e.to_string().contains("is unknown"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The budget ran out and the page said what happened: Chromium terminated the running
    /// script (its in-page timeout answered), or the promise did not settle (the in-page
    /// race answered; nothing runs any more, the promise is abandoned).
    #[error("{}", if *.terminated {
        format!("the script in {target} ran past its {budget_ms} ms budget and was terminated; the frame is usable again")
    } else {
        format!("the promise in {target} did not settle within its {budget_ms} ms budget and was abandoned; the frame is usable again")
    })]
    Timeout {
        /// Where it ran (`the top frame`, `frame F`, `element 12 in frame F`).
        target: String,
        /// The budget.
        budget_ms: u64,
        /// Whether a running script was terminated (else a promise was abandoned).
        terminated: bool,
    },
    /// The budget ran out with no answer from the page: termination was requested
    /// (`Runtime.terminateExecution`) and the call given up. What happened in the page (the
    /// script never ran, still runs, stopped, or its promise is pending) is unknown, since a
    /// busy or blocked renderer, or a stalled connection, answers nothing; the message says
    /// only that. Code `timeout`.
    #[error("the script in {target} ran past its {budget_ms} ms budget without an answer: termination was requested (Runtime.terminateExecution) and the call given up, but whether the script ran, still runs or stopped is unknown (a busy or blocked renderer, or a stalled connection, answers nothing); the next call shows whether the frame answers again")]
    NoAnswer {
        /// Where it ran.
        target: String,
        /// The budget.
        budget_ms: u64,
    },
    /// The supervisor stopped (or the embedder cancelled) while it ran: termination was
    /// requested, so the tab is not left busy for the next client.
    #[error("the script in {target} was cancelled ({why}): termination was requested (Runtime.terminateExecution); whether it had already finished is unknown")]
    Cancelled {
        /// Where it ran.
        target: String,
        /// Why (`the supervisor is stopping`).
        why: String,
    },
    /// The script threw (or its promise rejected).
    #[error("the script in {target} threw: {description}")]
    Exception {
        /// Where it ran.
        target: String,
        /// The exception's description (its message and stack), or CDP's text.
        description: String,
    },
    /// A dialog opened while it ran (or was already open): the script waits for it.
    #[error("{} dialog {} ({:?}) in frame {} blocks the script; answer it (cmd dialog with dialog_id {}); the script then resumes but its value is dropped, so evaluate again", .dialog.kind, .dialog.id, .dialog.message, .dialog.frame_id, .dialog.id)]
    Blocked {
        /// The dialog in the way.
        dialog: Box<PendingDialog>,
    },
    /// The element is gone: its ref's frame navigated or went away, or its node no longer
    /// exists.
    #[error("{reference} is stale: {why}; take a new snapshot and use its refs")]
    StaleRef {
        /// The ref given (`ref e12`), or the node (`backend node 12`).
        reference: String,
        /// Why, in words.
        why: String,
    },
    /// The in-process frame has no default execution context yet (its document is still
    /// loading, or it has no script at all).
    #[error("frame {frame_id} has no JavaScript context yet (its document is still loading); retry in a moment")]
    NoContext {
        /// The frame.
        frame_id: String,
    },
    /// The request itself is wrong.
    #[error("{message}")]
    BadRequest {
        /// What is wrong and what to send instead.
        message: String,
    },
    /// Routing or a command failed: no such frame, a stale ref, the session gone, a CDP
    /// error, the connection closed.
    #[error(transparent)]
    Command(CommandError),
}

impl EvalError {
    /// The stable word for the error: `timeout`, `cancelled`, `exception`, `blocked`, `no_context`,
    /// `bad_request`, `stale_ref`, `no_such_frame`, `cdp_error`, `session_gone`,
    /// `disconnected`, `not_attached`, `too_many_in_flight` (see
    /// [the list](crate::error_code)).
    ///
    /// ```
    /// use cdp_supervisor::{evaluate::EvalError, CommandError};
    /// let e = EvalError::Command(CommandError::UnknownFrame { frame_id: "F".into() });
    /// assert_eq!(e.code(), "no_such_frame");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            EvalError::Timeout { .. } | EvalError::NoAnswer { .. } => "timeout",
            EvalError::Cancelled { .. } => "cancelled",
            EvalError::Exception { .. } => "exception",
            EvalError::Blocked { .. } => "blocked",
            EvalError::StaleRef { .. } => "stale_ref",
            EvalError::NoContext { .. } => "no_context",
            EvalError::BadRequest { .. } => "bad_request",
            EvalError::Command(e) => e.code(),
        }
    }

    /// The dialog in the way, for `blocked`.
    ///
    /// ```
    /// use cdp_supervisor::evaluate::EvalError;
    /// assert!(EvalError::NoContext { frame_id: "F".into() }.dialog().is_none());
    /// ```
    pub fn dialog(&self) -> Option<&PendingDialog> {
        match self {
            EvalError::Blocked { dialog } => Some(&**dialog),
            _ => None,
        }
    }
}

/// A ref that could not be resolved (see [`crate::ax::resolve_ref`]).
impl From<AxError> for EvalError {
    fn from(e: AxError) -> Self {
        match e {
            AxError::StaleRef { reference, why } => EvalError::StaleRef {
                reference: format!("ref {reference}"),
                why,
            },
            AxError::NotAttached => EvalError::Command(CommandError::NotAttached),
            AxError::Crashed { tab_id } => EvalError::Command(CommandError::Crashed { tab_id }),
            AxError::NoSuchTab { tab_id } => EvalError::Command(CommandError::NoSuchTab { tab_id }),
            AxError::UnknownFrame { frame_id } => {
                EvalError::Command(CommandError::UnknownFrame { frame_id })
            }
            other => EvalError::BadRequest {
                message: other.to_string(),
            },
        }
    }
}

impl From<CommandError> for EvalError {
    fn from(e: CommandError) -> Self {
        EvalError::Command(e)
    }
}
