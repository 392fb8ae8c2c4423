//! The few CDP payloads the supervisor reads, as borrowed structs.
//!
//! Each struct names only the fields the supervisor uses; serde skips the rest without
//! building values. Strings are `Cow` so that escaped JSON strings still parse.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

/// The events the supervisor handles, with their params parsed. Every other event is
/// skipped without building anything.
#[derive(Debug)]
pub(crate) enum CdpEvent<'a> {
    AttachedToTarget(AttachedToTarget<'a>),
    DetachedFromTarget(DetachedFromTarget<'a>),
    FrameAttached(FrameAttached<'a>),
    FrameNavigated(FrameNavigated<'a>),
    NavigatedWithinDocument(NavigatedWithinDocument<'a>),
    FrameDetached(FrameDetached<'a>),
    DialogOpening(DialogOpening<'a>),
    DialogClosed(DialogClosed<'a>),
    ExecutionContextCreated(ExecutionContextCreated<'a>),
    ExecutionContextDestroyed(ExecutionContextDestroyed),
    ExecutionContextsCleared,
    ConsoleApiCalled(ConsoleApiCalled<'a>),
    ExceptionThrown(ExceptionThrown<'a>),
    TargetCrashed,
    InspectorDetached(InspectorDetached<'a>),
    RequestPaused(RequestPaused<'a>),
}

/// Parses the params of `method` from `d`: `Ok(None)` (skipped) for events the supervisor
/// does not handle. Used inside the envelope's single pass and for params that came
/// before `method` (then from their raw slice).
pub(crate) fn deserialize_event<'de, D: Deserializer<'de>>(
    method: &str,
    d: D,
) -> Result<Option<CdpEvent<'de>>, D::Error> {
    use CdpEvent as E;
    Ok(Some(match method {
        "Target.attachedToTarget" => E::AttachedToTarget(Deserialize::deserialize(d)?),
        "Target.detachedFromTarget" => E::DetachedFromTarget(Deserialize::deserialize(d)?),
        "Page.frameAttached" => E::FrameAttached(Deserialize::deserialize(d)?),
        "Page.frameNavigated" => E::FrameNavigated(Deserialize::deserialize(d)?),
        "Page.navigatedWithinDocument" => E::NavigatedWithinDocument(Deserialize::deserialize(d)?),
        "Page.frameDetached" => E::FrameDetached(Deserialize::deserialize(d)?),
        "Page.javascriptDialogOpening" => E::DialogOpening(Deserialize::deserialize(d)?),
        "Page.javascriptDialogClosed" => E::DialogClosed(Deserialize::deserialize(d)?),
        "Runtime.executionContextCreated" => {
            E::ExecutionContextCreated(Deserialize::deserialize(d)?)
        }
        "Runtime.executionContextDestroyed" => {
            E::ExecutionContextDestroyed(Deserialize::deserialize(d)?)
        }
        "Runtime.executionContextsCleared" => {
            IgnoredAny::deserialize(d)?;
            E::ExecutionContextsCleared
        }
        "Runtime.consoleAPICalled" => E::ConsoleApiCalled(Deserialize::deserialize(d)?),
        "Runtime.exceptionThrown" => E::ExceptionThrown(Deserialize::deserialize(d)?),
        "Inspector.targetCrashed" => {
            IgnoredAny::deserialize(d)?;
            E::TargetCrashed
        }
        "Inspector.detached" => E::InspectorDetached(Deserialize::deserialize(d)?),
        "Fetch.requestPaused" => E::RequestPaused(Deserialize::deserialize(d)?),
        _ => {
            IgnoredAny::deserialize(d)?;
            return Ok(None);
        }
    }))
}

/// `Target.TargetInfo`, the parts we use.
#[derive(Debug, Deserialize)]
pub(crate) struct TargetInfo<'a> {
    #[serde(rename = "targetId", borrow)]
    pub target_id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub url: Option<Cow<'a, str>>,
    #[serde(default, rename = "parentFrameId", borrow)]
    pub parent_frame_id: Option<Cow<'a, str>>,
}

/// `Target.getTargets` result.
#[derive(Debug, Deserialize)]
pub(crate) struct GetTargetsResult<'a> {
    #[serde(rename = "targetInfos", borrow)]
    pub target_infos: Vec<TargetInfo<'a>>,
}

/// `Target.attachToTarget` result.
#[derive(Debug, Deserialize)]
pub(crate) struct AttachToTargetResult<'a> {
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Cow<'a, str>,
}

/// `Target.attachedToTarget`.
#[derive(Debug, Deserialize)]
pub(crate) struct AttachedToTarget<'a> {
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Cow<'a, str>,
    #[serde(rename = "targetInfo", borrow)]
    pub target_info: TargetInfo<'a>,
    #[serde(default, rename = "waitingForDebugger")]
    pub waiting_for_debugger: bool,
}

/// `Target.detachedFromTarget`.
#[derive(Debug, Deserialize)]
pub(crate) struct DetachedFromTarget<'a> {
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Cow<'a, str>,
}

/// `Page.Frame`, the parts we use.
#[derive(Debug, Deserialize)]
pub(crate) struct PageFrame<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(default, rename = "parentId", borrow)]
    pub parent_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub url: Cow<'a, str>,
    #[serde(default, rename = "urlFragment", borrow)]
    pub url_fragment: Option<Cow<'a, str>>,
    #[serde(default, rename = "securityOrigin", borrow)]
    pub security_origin: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub name: Option<Cow<'a, str>>,
}

/// `Page.frameNavigated`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameNavigated<'a> {
    #[serde(borrow)]
    pub frame: PageFrame<'a>,
}

/// `Page.frameAttached`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameAttached<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(rename = "parentFrameId", borrow)]
    pub parent_frame_id: Cow<'a, str>,
}

/// `Page.frameDetached`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameDetached<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(default, borrow)]
    pub reason: Option<Cow<'a, str>>,
}

/// `Page.navigatedWithinDocument`.
#[derive(Debug, Deserialize)]
pub(crate) struct NavigatedWithinDocument<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(borrow)]
    pub url: Cow<'a, str>,
}

/// `Page.getFrameTree` result: a recursive `FrameTree`.
#[derive(Debug, Deserialize)]
pub(crate) struct GetFrameTreeResult<'a> {
    #[serde(rename = "frameTree", borrow)]
    pub frame_tree: FrameTree<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct FrameTree<'a> {
    #[serde(borrow)]
    pub frame: PageFrame<'a>,
    #[serde(default, rename = "childFrames", borrow)]
    pub child_frames: Vec<FrameTree<'a>>,
}

/// `Page.javascriptDialogOpening`.
#[derive(Debug, Deserialize)]
pub(crate) struct DialogOpening<'a> {
    #[serde(default, borrow)]
    pub url: Cow<'a, str>,
    #[serde(default, rename = "frameId", borrow)]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub message: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, rename = "defaultPrompt", borrow)]
    pub default_prompt: Option<Cow<'a, str>>,
}

/// `Page.javascriptDialogClosed`.
#[derive(Debug, Deserialize)]
pub(crate) struct DialogClosed<'a> {
    #[serde(default, rename = "frameId", borrow)]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub result: bool,
    #[serde(default, rename = "userInput", borrow)]
    pub user_input: Option<Cow<'a, str>>,
}

/// `Runtime.executionContextCreated`.
#[derive(Debug, Deserialize)]
pub(crate) struct ExecutionContextCreated<'a> {
    #[serde(borrow)]
    pub context: ExecutionContext<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExecutionContext<'a> {
    pub id: i64,
    #[serde(default, rename = "auxData", borrow)]
    pub aux_data: Option<AuxData<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct AuxData<'a> {
    #[serde(default, rename = "frameId", borrow)]
    pub frame_id: Option<Cow<'a, str>>,
}

/// `Runtime.executionContextDestroyed`.
#[derive(Debug, Deserialize)]
pub(crate) struct ExecutionContextDestroyed {
    #[serde(rename = "executionContextId")]
    pub execution_context_id: i64,
}

/// `Runtime.consoleAPICalled`; the arguments are read in the same pass (borrowed).
#[derive(Debug, Deserialize)]
pub(crate) struct ConsoleApiCalled<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub args: Vec<RemoteObject<'a>>,
    #[serde(default, rename = "executionContextId")]
    pub execution_context_id: Option<i64>,
}

/// A `Runtime.RemoteObject`, the parts a log line needs.
#[derive(Debug, Deserialize)]
pub(crate) struct RemoteObject<'a> {
    #[serde(default, rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub value: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub description: Option<Cow<'a, str>>,
    #[serde(default, rename = "unserializableValue", borrow)]
    pub unserializable_value: Option<Cow<'a, str>>,
}

/// `Runtime.exceptionThrown`.
#[derive(Debug, Deserialize)]
pub(crate) struct ExceptionThrown<'a> {
    #[serde(rename = "exceptionDetails", borrow)]
    pub exception_details: ExceptionDetails<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExceptionDetails<'a> {
    #[serde(default, borrow)]
    pub text: Cow<'a, str>,
    #[serde(default, borrow)]
    pub exception: Option<RemoteObject<'a>>,
    #[serde(default, rename = "executionContextId")]
    pub execution_context_id: Option<i64>,
}

/// `Fetch.requestPaused`, the parts the bridge reads.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestPaused<'a> {
    #[serde(rename = "requestId", borrow)]
    pub request_id: Cow<'a, str>,
    #[serde(borrow)]
    pub request: PausedRequest<'a>,
    #[serde(default, rename = "frameId", borrow)]
    pub frame_id: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PausedRequest<'a> {
    #[serde(borrow)]
    pub url: Cow<'a, str>,
}

/// `Inspector.detached`.
#[derive(Debug, Deserialize)]
pub(crate) struct InspectorDetached<'a> {
    #[serde(default, borrow)]
    pub reason: Cow<'a, str>,
}

// ---- outgoing params -------------------------------------------------------------------

#[derive(Serialize)]
pub(crate) struct AttachToTargetParams<'a> {
    #[serde(rename = "targetId")]
    pub target_id: &'a str,
    pub flatten: bool,
}

#[derive(Serialize)]
pub(crate) struct SetAutoAttachParams {
    #[serde(rename = "autoAttach")]
    pub auto_attach: bool,
    #[serde(rename = "waitForDebuggerOnStart")]
    pub wait_for_debugger_on_start: bool,
    pub flatten: bool,
}

#[derive(Serialize)]
pub(crate) struct DetachFromTargetParams<'a> {
    #[serde(rename = "sessionId")]
    pub session_id: &'a str,
}

#[derive(Serialize)]
pub(crate) struct HandleDialogParams<'a> {
    pub accept: bool,
    #[serde(rename = "promptText", skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<&'a str>,
}

#[derive(Serialize)]
pub(crate) struct NavigateParams<'a> {
    pub url: &'a str,
}

#[derive(Serialize)]
pub(crate) struct AddScriptParams<'a> {
    pub source: &'a str,
    #[serde(rename = "runImmediately")]
    pub run_immediately: bool,
}

#[derive(Serialize)]
pub(crate) struct EvaluateParams<'a> {
    pub expression: &'a str,
}
