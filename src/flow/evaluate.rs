//! The evaluate flow: one script or element function, in any frame, under one budget (see
//! [`crate::evaluate`] for the budget's arithmetic, [`crate::manual::rules`] for the
//! rules).
//!
//! - A script: `Runtime.evaluate {timeout, awaitPromise: false, returnByValue: false,
//!   objectGroup}` on the frame's session (an in-process frame: with its default context's
//!   `uniqueContextId`). A primitive is the answer; an object gets one
//!   `Runtime.callFunctionOn` of [`RACE`] on it (a function called first, once; a promise
//!   raced against the budget left, anything else returned by value). `awaitPromise: true`
//!   alone never ends for a promise that never settles, and releasing its object group does
//!   not end it either.
//! - A function's source ([`Evaluation::function`]): the same, with the source evaluated
//!   between parentheses (a script would read `function () {}` as a declaration, whose
//!   completion value is nothing), so its value is the function that [`RACE`] calls. The
//!   script is not wrapped: statements (`var x = 1; x + 1`) keep their completion value.
//!   A call that loops has no `Runtime.evaluate {timeout}` over it (`callFunctionOn` has
//!   none): the flow's deadline terminates it, as it does an element function.
//! - An element: `DOM.resolveNode {backendNodeId}`, then one `Runtime.callFunctionOn` of the
//!   expression wrapped by [`element_function`] (called with the element, its promise raced
//!   the same way).
//! - An element by ref whose node is gone (`DOM.resolveNode` finds no node, or the node is
//!   no longer in its document: the wrapped function checks `isConnected` before the
//!   expression runs): the ref is looked up once in a fresh tree of its frame
//!   ([`Refetch`]: the same node, else the same `(role, name, nth)`, rebound), within the
//!   budget, and the element path runs again on the node found; none found: `stale_ref`.
//! - At the flow's deadline: `Runtime.terminateExecution` on the session (its reply does not
//!   matter), a `timeout` error, done; the script's own reply, when it comes, is dropped.
//! - A dialog that opens meanwhile (and that no policy answers) ends it as `blocked`; its
//!   release is queued behind the paused script, so what the script returns is freed too.
//!
//! The object group is released at the end (best effort).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::resolve_ref::{node_gone, Refetch};
use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::ax::{AxError, ResolvedRef};
use crate::cdp::CdpEvent;
use crate::command::{CommandId, InFlight, Purpose};
use crate::error::{CommandError, InputError};
use crate::evaluate::{headroom, Element, EvalError, EvalValue, Evaluation, MAX_EVAL_TIMEOUT};
use crate::event::Event;
use crate::session::TargetKind;
use crate::tab::Tab;
use crate::wire::CdpError;

/// What each of the flow's commands is for.
mod step {
    pub const EVALUATE: u16 = 0;
    pub const RACE: u16 = 1;
    pub const RESOLVE: u16 = 2;
    pub const CALL: u16 = 3;
    pub const REFETCH: u16 = 4;
}

/// The rejection message of the in-page bound; its exception means "out of budget".
const MARKER: &str = "cdp-supervisor: evaluate budget spent";

/// The exception of an element function called on a ref's node that is no longer in its
/// document (it is thrown before the expression runs).
const DETACHED: &str = "cdp-supervisor: node detached";

/// Called on the evaluate's object result with the budget left (ms): a function called
/// (once: a function it returns is not), then a promise (or any thenable) raced against
/// the budget, anything else returned as is (then by value).
const RACE: &str = "function(ms) { const r = typeof this === 'function' ? this() : this; if (r === null || r === undefined || typeof r.then !== 'function') return r; return Promise.race([r, new Promise((_, reject) => setTimeout(() => reject(new Error('cdp-supervisor: evaluate budget spent')), ms))]); }";

/// A function's source as written, less what would break it between parentheses: the
/// whitespace and semicolons after it (`"() => 1;"`).
fn function_source(source: &str) -> &str {
    source.trim_end_matches(|c: char| c == ';' || c.is_whitespace())
}

/// How long after the flow's deadline a late reply is still consumed quietly.
const LATE_REPLY_GRACE_S: f64 = 60.0;

/// The element path's function: the embedder's function called with the element (as its
/// argument and `this`), its promise raced like [`RACE`]. The expression goes between line
/// breaks so a trailing line comment cannot swallow the closing parenthesis. `by_ref`: a
/// node out of its document throws [`DETACHED`] first (a ref names a node shown).
fn element_function(expression: &str, by_ref: bool) -> String {
    let check = if by_ref {
        format!("if (!this.isConnected) throw new Error('{DETACHED}'); ")
    } else {
        String::new()
    };
    format!(
        "function(ms) {{ {check}const r = (\n{}\n).call(this, this); if (r === null || r === undefined || typeof r.then !== 'function') return r; return Promise.race([r, new Promise((_, reject) => setTimeout(() => reject(new Error('{MARKER}')), ms))]); }}",
        function_source(expression)
    )
}

/// Where an evaluate runs, resolved from the tab before anything is sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EvalPlan {
    pub session: String,
    /// The default context of an in-process frame (`uniqueContextId`).
    pub context: Option<String>,
    /// The element's `backendNodeId`.
    pub node: Option<i64>,
    /// For messages: `the top frame`, `frame F`, `element 12 in frame F`.
    pub target: String,
    /// The ref given, for a stale-ref message.
    pub reference: Option<String>,
}

/// Resolves an evaluate's target: the session, the context, the node.
/// `resolved`: the element's ref, already resolved by the caller.
pub(crate) fn plan(
    tab: &Tab,
    resolved: Option<ResolvedRef>,
    req: &Evaluation,
) -> Result<EvalPlan, EvalError> {
    if req.expression.trim().is_empty() {
        return Err(EvalError::BadRequest {
            message: "expression is empty: give a script, or with an element a function such as \"el => el.textContent\"".into(),
        });
    }
    if req.timeout.is_zero() {
        return Err(EvalError::BadRequest {
            message: "timeout_ms must be above 0 (default 30000)".into(),
        });
    }
    let (frame_id, node, reference) = match &req.element {
        None => (req.frame_id.clone(), None, None),
        Some(Element::BackendNodeId(n)) => (req.frame_id.clone(), Some(*n), None),
        Some(Element::Ref(r)) => {
            let resolved = resolved.ok_or_else(|| EvalError::StaleRef {
                reference: format!("ref {r}"),
                why: "it could not be resolved".into(),
            })?;
            (
                Some(resolved.frame_id),
                Some(resolved.backend_node_id),
                Some(r.clone()),
            )
        }
    };
    let page_session = tab.page_session().ok_or(CommandError::NotAttached)?;
    let is_top = frame_id.is_none() || frame_id.as_deref() == tab.page_target();
    let (session, context) = match frame_id.as_deref().filter(|_| !is_top) {
        None => (page_session.to_owned(), None),
        Some(f) => {
            let frame = tab
                .frames
                .get(f)
                .ok_or_else(|| CommandError::UnknownFrame {
                    frame_id: f.to_owned(),
                })?;
            match frame.info.session_id.as_ref() {
                Some(own) => (own.clone(), None),
                // In process: an element is found on the owner's session by its node alone;
                // a script needs the frame's default context.
                None if node.is_some() => (frame.owner_session.clone(), None),
                None => {
                    let context = tab
                        .sessions
                        .get(&frame.owner_session)
                        .and_then(|s| s.default_context(f))
                        .ok_or_else(|| EvalError::NoContext {
                            frame_id: f.to_owned(),
                        })?;
                    (frame.owner_session.clone(), Some(context.to_owned()))
                }
            }
        }
    };
    if let Some(frame_id) = tab.crashed_oopif_of(&session) {
        return Err(CommandError::FrameCrashed {
            frame_id,
            method: "Runtime.evaluate".into(),
        }
        .into());
    }
    if let Some(s) = tab.sessions.get(&session) {
        if s.crashed || !matches!(s.kind, TargetKind::Page | TargetKind::Iframe) {
            return Err(CommandError::SessionGone {
                method: "Runtime.evaluate".into(),
                session_id: session,
                reason: crate::error::SessionGoneReason::Crashed,
            }
            .into());
        }
    }
    let frame_words = match frame_id.as_deref().filter(|_| !is_top) {
        Some(f) => format!("frame {f}"),
        None => "the top frame".to_owned(),
    };
    let target = match node {
        Some(n) => format!("element {n} in {frame_words}"),
        None => frame_words,
    };
    Ok(EvalPlan {
        session,
        context,
        node,
        target,
        reference,
    })
}

/// The evaluate flow's state.
#[derive(Debug)]
pub(crate) struct EvaluateFlow {
    flow: FlowId,
    /// The embedder's id for the outcome.
    id: CommandId,
    plan: EvalPlan,
    expression: String,
    /// `expression` is a function's source.
    function: bool,
    budget_ms: u64,
    /// When the core gives up: the budget minus the headroom.
    deadline: f64,
    /// The in-page bounds end this much before the deadline (seconds).
    headroom_s: f64,
    group: String,
    /// Whether the page holds objects of the group (a primitive result makes none).
    group_used: bool,
    /// The dialog pending when it started (one the policy answers may be), so only a new
    /// one blocks it.
    dialog_at_start: Option<String>,
    /// A ref's node looked up again (at most once: `refetched`).
    refetch: Option<Box<Refetch>>,
    refetched: bool,
}

/// A `Runtime.RemoteObject`, the parts an evaluate reads.
#[derive(Debug, Deserialize)]
struct RemoteObject {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default, rename = "unserializableValue")]
    unserializable: Option<String>,
    #[serde(default, rename = "objectId")]
    object_id: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ExceptionDetails {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    exception: Option<RemoteObject>,
}

/// The result of `Runtime.evaluate` and `Runtime.callFunctionOn`.
#[derive(Debug, Deserialize)]
struct EvalResult {
    result: RemoteObject,
    #[serde(default, rename = "exceptionDetails")]
    exception_details: Option<ExceptionDetails>,
}

#[derive(Debug, Deserialize)]
struct ResolveNodeResult {
    object: RemoteObject,
}

/// What a reply says.
enum Read {
    Value(EvalValue),
    /// An object to race or read by value.
    Object(String),
    Failed(EvalError),
    /// The element is no longer in its document.
    Detached,
}

impl EvaluateFlow {
    pub fn new(
        flow: FlowId,
        id: CommandId,
        plan: EvalPlan,
        req: &Evaluation,
        now: f64,
        dialog_at_start: Option<String>,
    ) -> EvaluateFlow {
        let budget = req.timeout.min(MAX_EVAL_TIMEOUT);
        let headroom = headroom(budget);
        let budget_s = budget.as_secs_f64();
        let headroom_s = headroom.as_secs_f64().min(budget_s / 3.0);
        EvaluateFlow {
            flow,
            id,
            plan,
            expression: req.expression.clone(),
            function: req.function,
            budget_ms: u64::try_from(budget.as_millis()).unwrap_or(u64::MAX),
            deadline: now + budget_s - headroom_s,
            headroom_s,
            group: format!("cdp-supervisor-eval-{}", id.0),
            group_used: false,
            dialog_at_start,
            refetch: None,
            refetched: false,
        }
    }

    fn tag(&self, step: u16) -> Purpose {
        Purpose::Flow(FlowTag {
            flow: self.flow,
            step,
        })
    }

    /// The in-page bound: what is left before the deadline, less the headroom, in whole
    /// ms (at least 1).
    fn page_ms(&self, now: f64) -> u64 {
        let left = (self.deadline - self.headroom_s - now) * 1000.0;
        // A float-to-integer `as` saturates (NaN is zero): never a panic.
        left.round().max(1.0) as u64
    }

    fn send(&self, ctx: &mut FlowCtx<'_>, method: &str, params: Value, step: u16) {
        let params = serde_json::value::to_raw_value(&params).ok();
        ctx.out.send_until(
            Some(&self.plan.session),
            method,
            params.as_deref(),
            self.tag(step),
            self.deadline + LATE_REPLY_GRACE_S,
        );
    }

    /// A command whose reply does not matter.
    fn send_quiet(&self, ctx: &mut FlowCtx<'_>, method: &str, params: Value) {
        let params = serde_json::value::to_raw_value(&params).ok();
        let t = ctx.config.setup_timeout;
        let s = Some(self.plan.session.as_str());
        ctx.out
            .send(s, method, params.as_deref(), Purpose::Quiet, t);
    }

    /// The first command.
    pub fn start(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let now = ctx.out.now();
        match self.plan.node {
            Some(node) => self.resolve_node(ctx, node),
            None => {
                // A function's source is read as an expression, so its value is the
                // function (called by `RACE`).
                let expression = if self.function {
                    format!("(\n{}\n)", function_source(&self.expression))
                } else {
                    self.expression.clone()
                };
                let mut params = json!({
                    "expression": expression,
                    "objectGroup": self.group,
                    "returnByValue": false,
                    "awaitPromise": false,
                    "timeout": self.page_ms(now),
                });
                if let Some(c) = &self.plan.context {
                    params["uniqueContextId"] = Value::String(c.clone());
                }
                self.send(ctx, "Runtime.evaluate", params, step::EVALUATE);
            }
        }
        FlowStatus::Running
    }

    fn resolve_node(&mut self, ctx: &mut FlowCtx<'_>, node: i64) {
        self.group_used = true;
        let params = json!({ "backendNodeId": node, "objectGroup": self.group });
        self.send(ctx, "DOM.resolveNode", params, step::RESOLVE);
    }

    /// The ref's node is gone: looks the ref up again once, else `stale_ref`.
    fn refetch(&mut self, ctx: &mut FlowCtx<'_>, why: &str) -> FlowStatus {
        let reference = match (&self.plan.reference, self.refetched) {
            (Some(r), false) => r.clone(),
            _ => return self.finish(ctx, Err(self.stale(why))),
        };
        self.refetched = true;
        let tag = self.tag(step::REFETCH);
        match Refetch::start(ctx, &reference, tag, self.deadline) {
            Ok(r) => {
                self.refetch = Some(Box::new(r));
                FlowStatus::Running
            }
            Err(e) => {
                let error = self.ref_error(e, why);
                self.finish(ctx, Err(error))
            }
        }
    }

    /// The ref looked up again: the element path again on the node found.
    fn on_refetched(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> FlowStatus {
        let Some(refetch) = self.refetch.take() else {
            return FlowStatus::Running;
        };
        match refetch.on_reply(ctx, cmd, reply) {
            Ok(found) if Some(found.backend_node_id) != self.plan.node => {
                let node = found.backend_node_id;
                self.plan.node = Some(node);
                self.plan.target = match self.plan.target.split_once(" in ") {
                    Some((_, frame)) => format!("element {node} in {frame}"),
                    None => format!("element {node}"),
                };
                self.resolve_node(ctx, node);
                FlowStatus::Running
            }
            Ok(_) => {
                let why = "it is no longer in its document";
                self.finish(ctx, Err(self.stale(why)))
            }
            Err(e) => {
                let error = self.ref_error(e, "it is no longer in its document");
                self.finish(ctx, Err(error))
            }
        }
    }

    pub fn deadline(&self) -> Option<f64> {
        Some(self.deadline)
    }

    /// The budget is spent: terminate whatever runs, answer `timeout`.
    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        if now < self.deadline {
            return FlowStatus::Running;
        }
        self.send_quiet(ctx, "Runtime.terminateExecution", json!({}));
        // Nothing answered: termination is asked for, not known to have happened.
        let error = EvalError::NoAnswer {
            target: self.plan.target.clone(),
            budget_ms: self.budget_ms,
        };
        self.finish(ctx, Err(error))
    }

    /// Cancelled (a planned stop): terminate whatever runs, answer `cancelled`.
    pub fn cancel(&mut self, ctx: &mut FlowCtx<'_>, why: &str) -> FlowStatus {
        self.send_quiet(ctx, "Runtime.terminateExecution", json!({}));
        let error = EvalError::Cancelled {
            target: self.plan.target.clone(),
            why: why.to_owned(),
        };
        self.finish(ctx, Err(error))
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        let now = ctx.out.now();
        let read = match (step, reply) {
            (step::REFETCH, reply) => return Ok(self.on_refetched(ctx, cmd, reply)),
            (step::EVALUATE, Err(e)) if is_terminated(&e) => Read::Failed(self.timeout(true)),
            (step::RESOLVE, Err(e)) if node_gone(&e.message) => {
                return Ok(self.refetch(ctx, &e.message))
            }
            (step::RESOLVE, Err(e)) => Read::Failed(self.stale(&e.message)),
            (_, Err(e)) => Read::Failed(EvalError::Command(e.into_command_error(&cmd.method))),
            (step::RESOLVE, Ok(r)) => {
                match parse::<ResolveNodeResult>(&cmd.method, r).map(|r| r.object.object_id) {
                    Err(e) => Read::Failed(e),
                    Ok(Some(object)) => {
                        let params = json!({
                            "functionDeclaration": element_function(
                                &self.expression,
                                self.plan.reference.is_some(),
                            ),
                            "objectId": object,
                            "arguments": [{ "value": self.page_ms(now) }],
                            "awaitPromise": true,
                            "returnByValue": true,
                            "objectGroup": self.group,
                        });
                        self.send(ctx, "Runtime.callFunctionOn", params, step::CALL);
                        return Ok(FlowStatus::Running);
                    }
                    Ok(None) => Read::Failed(self.stale("DOM.resolveNode gave no object")),
                }
            }
            (_, Ok(r)) => match parse::<EvalResult>(&cmd.method, r) {
                Ok(r) => self.read(r, step),
                Err(e) => Read::Failed(e),
            },
        };
        Ok(match read {
            Read::Value(v) => self.finish(ctx, Ok(v)),
            Read::Failed(e) => self.finish(ctx, Err(e)),
            Read::Detached => self.refetch(ctx, "it is no longer in its document"),
            Read::Object(object) => {
                self.group_used = true;
                let params = json!({
                    "functionDeclaration": RACE,
                    "objectId": object,
                    "arguments": [{ "value": self.page_ms(now) }],
                    "awaitPromise": true,
                    "returnByValue": true,
                    "objectGroup": self.group,
                });
                self.send(ctx, "Runtime.callFunctionOn", params, step::RACE);
                FlowStatus::Running
            }
        })
    }

    /// A command that ended without a reply: its session went, the connection closed.
    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _step: u16,
        _cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        self.finish(ctx, Err(EvalError::Command(error)))
    }

    /// A dialog that opened (and that no policy is answering) blocks the script.
    pub fn on_event(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        _session: Option<&str>,
        event: &CdpEvent<'_>,
    ) -> FlowStatus {
        if !matches!(
            event,
            CdpEvent::DialogOpening(_) | CdpEvent::RequestPaused(_)
        ) {
            return FlowStatus::Running;
        }
        let Some(dialog) = ctx.dialogs.newest_unanswered() else {
            return FlowStatus::Running;
        };
        if self.dialog_at_start.as_deref() == Some(dialog.id.as_str()) {
            return FlowStatus::Running;
        }
        let dialog = Box::new(dialog.clone());
        // The script's reply is consumed quietly when the dialog closes; the release sent
        // now waits behind the script on the page's thread, so it frees what it returns.
        self.finish(ctx, Err(EvalError::Blocked { dialog }))
    }

    /// A dialog opened in another tab of this tab's renderer (Chromium facts: "Tabs that share a
    /// renderer"): the script is
    /// stalled as by one of its own tab's.
    pub fn on_shared_dialog(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        dialog: &crate::snapshot::PendingDialog,
    ) -> FlowStatus {
        if self.dialog_at_start.as_deref() == Some(dialog.id.as_str()) {
            return FlowStatus::Running;
        }
        let dialog = Box::new(dialog.clone());
        self.finish(ctx, Err(EvalError::Blocked { dialog }))
    }

    /// The answer, and the object group released.
    fn finish(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        outcome: Result<EvalValue, EvalError>,
    ) -> FlowStatus {
        let gone = matches!(
            &outcome,
            Err(EvalError::Command(
                CommandError::Disconnected { .. } | CommandError::SessionGone { .. }
            ))
        );
        // A timeout, a cancel or a dialog may leave objects made after the end: release
        // then too.
        let late = matches!(
            &outcome,
            Err(EvalError::Timeout { .. }
                | EvalError::NoAnswer { .. }
                | EvalError::Cancelled { .. }
                | EvalError::Blocked { .. })
        );
        if !gone && (self.group_used || late) {
            let params = json!({ "objectGroup": self.group });
            self.send_quiet(ctx, "Runtime.releaseObjectGroup", params);
        }
        ctx.out.emit(Event::Evaluated {
            id: self.id,
            outcome,
        });
        FlowStatus::Done
    }

    fn timeout(&self, terminated: bool) -> EvalError {
        EvalError::Timeout {
            target: self.plan.target.clone(),
            budget_ms: self.budget_ms,
            terminated,
        }
    }

    fn stale(&self, why: &str) -> EvalError {
        let reference = match (&self.plan.reference, self.plan.node) {
            (Some(r), _) => format!("ref {r}"),
            (None, Some(n)) => format!("backend node {n}"),
            (None, None) => "the element".to_owned(),
        };
        EvalError::StaleRef {
            reference,
            why: format!("its node is gone ({why})"),
        }
    }

    /// A ref that could not be looked up again: `stale_ref` (saying why its node went when
    /// its frame's tree could not be had either).
    fn ref_error(&self, e: AxError, why: &str) -> EvalError {
        match e {
            AxError::RootUnavailable { reason, .. } => self.stale(&format!(
                "{why}, and its frame's tree could not be had: {reason}"
            )),
            other => other.into(),
        }
    }

    /// Reads an evaluate's or a call's result.
    fn read(&self, r: EvalResult, step: u16) -> Read {
        if let Some(details) = r.exception_details {
            let description = details
                .exception
                .as_ref()
                .and_then(|e| {
                    e.description
                        .clone()
                        .or_else(|| e.value.as_ref().map(Value::to_string))
                })
                .or(details.text)
                .unwrap_or_else(|| "an exception without a description".to_owned());
            if step != step::EVALUATE && description.contains(MARKER) {
                return Read::Failed(self.timeout(false));
            }
            if step == step::CALL && description.contains(DETACHED) {
                return Read::Detached;
            }
            return Read::Failed(EvalError::Exception {
                target: self.plan.target.clone(),
                description,
            });
        }
        let o = r.result;
        if step == step::EVALUATE {
            if let Some(object) = o.object_id {
                return Read::Object(object);
            }
        }
        if o.kind == "undefined" {
            return Read::Value(EvalValue::undefined());
        }
        if let Some(u) = o.unserializable {
            return Read::Value(EvalValue::of(Value::String(u)));
        }
        Read::Value(EvalValue::of(o.value.unwrap_or(Value::Null)))
    }
}

/// `Runtime.evaluate`'s own `timeout` ended the script: CDP answers with an error.
fn is_terminated(e: &CdpError) -> bool {
    e.message.contains("Execution was terminated")
}

/// A reply of an unexpected shape ends the evaluate with a CDP error that says so.
fn parse<'a, T: Deserialize<'a>>(method: &str, r: Option<&'a RawValue>) -> Result<T, EvalError> {
    crate::wire::parse(method, r).map_err(|e| {
        EvalError::Command(CommandError::Cdp {
            method: method.to_owned(),
            code: 0,
            message: format!("unexpected reply: {e}"),
        })
    })
}
