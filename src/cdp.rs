//! The few CDP payloads the supervisor reads, as borrowed structs.
//!
//! Each struct names only the fields the supervisor uses; serde skips the rest without
//! building values. Strings are `Cow` so that escaped JSON strings still parse.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

pub(crate) use crate::remote_object::{BorrowedCow, RemoteObject};

/// The events the supervisor handles, with their params parsed. Every other event is
/// skipped without building anything.
///
/// The rare events with large params are boxed: every message's envelope is moved a few
/// times while it is read, and a console call (the bulk of a busy page) is small.
#[derive(Debug)]
pub(crate) enum CdpEvent<'a> {
    AttachedToTarget(Box<AttachedToTarget<'a>>),
    DetachedFromTarget(DetachedFromTarget<'a>),
    FrameAttached(FrameAttached<'a>),
    FrameNavigated(Box<FrameNavigated<'a>>),
    NavigatedWithinDocument(NavigatedWithinDocument<'a>),
    FrameDetached(FrameDetached<'a>),
    DialogOpening(Box<DialogOpening<'a>>),
    DialogClosed(DialogClosed<'a>),
    ExecutionContextCreated(ExecutionContextCreated<'a>),
    ExecutionContextDestroyed(ExecutionContextDestroyed),
    ExecutionContextsCleared,
    ConsoleApiCalled(ConsoleApiCalled<'a>),
    ExceptionThrown(Box<ExceptionThrown<'a>>),
    TargetCrashed,
    InspectorDetached(InspectorDetached<'a>),
    RequestPaused(Box<RequestPaused<'a>>),
    FrameStartedNavigating(FrameStartedNavigating<'a>),
    FrameRequestedNavigation(FrameRequestedNavigation<'a>),
    FrameSubtreeWillBeDetached(FrameSubtreeWillBeDetached<'a>),
    LifecycleEvent(LifecycleEvent<'a>),
    TargetInfoChanged(Box<TargetInfoChanged<'a>>),
    TargetDestroyed(TargetDestroyed<'a>),
    LoadEventFired,
    FileChooserOpened(FileChooserOpened<'a>),
    DownloadWillBegin(DownloadWillBegin<'a>),
    DownloadProgress(DownloadProgress<'a>),
    AuthRequired(Box<AuthRequired<'a>>),
    /// A `Network.*` event the network log reads.
    Network(Box<crate::network::events::NetworkEvent<'a>>),
}

/// Parses the params of `method` from `d`: `Ok(None)` (skipped) for events the supervisor
/// does not handle. Used inside the envelope's single pass and for params that came
/// before `method` (then from their raw slice).
pub(crate) fn deserialize_event<'de, D: Deserializer<'de>>(
    method: &str,
    d: D,
) -> Result<Option<CdpEvent<'de>>, D::Error> {
    use CdpEvent as E;
    // Arms are tried in order: the calls a busy page sends by the thousand come first.
    Ok(Some(match method {
        "Runtime.consoleAPICalled" => E::ConsoleApiCalled(Deserialize::deserialize(d)?),
        "Runtime.exceptionThrown" => E::ExceptionThrown(Deserialize::deserialize(d)?),
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
        "Inspector.targetCrashed" => {
            IgnoredAny::deserialize(d)?;
            E::TargetCrashed
        }
        "Inspector.detached" => E::InspectorDetached(Deserialize::deserialize(d)?),
        "Fetch.requestPaused" => E::RequestPaused(Deserialize::deserialize(d)?),
        "Page.frameStartedNavigating" => E::FrameStartedNavigating(Deserialize::deserialize(d)?),
        "Page.frameRequestedNavigation" => {
            E::FrameRequestedNavigation(Deserialize::deserialize(d)?)
        }
        "Page.lifecycleEvent" => E::LifecycleEvent(Deserialize::deserialize(d)?),
        "Target.targetInfoChanged" => E::TargetInfoChanged(Deserialize::deserialize(d)?),
        "Target.targetDestroyed" => E::TargetDestroyed(Deserialize::deserialize(d)?),
        "Page.loadEventFired" => {
            IgnoredAny::deserialize(d)?;
            E::LoadEventFired
        }
        "Fetch.authRequired" => E::AuthRequired(Deserialize::deserialize(d)?),
        "Browser.downloadProgress" => E::DownloadProgress(Deserialize::deserialize(d)?),
        "Browser.downloadWillBegin" => E::DownloadWillBegin(Deserialize::deserialize(d)?),
        "Page.fileChooserOpened" => E::FileChooserOpened(Deserialize::deserialize(d)?),
        "Page.frameSubtreeWillBeDetached" => {
            E::FrameSubtreeWillBeDetached(Deserialize::deserialize(d)?)
        }
        m if m.starts_with("Network.") => match crate::network::events::deserialize(m, d)? {
            Some(ev) => E::Network(Box::new(ev)),
            None => return Ok(None),
        },
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
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub url: Option<Cow<'a, str>>,
    #[serde(
        default,
        rename = "parentFrameId",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub parent_frame_id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub title: Option<Cow<'a, str>>,
    /// Whether the page can reach its opener (`window.open` without `noopener`): only
    /// then do a same-site popup and its opener share a renderer.
    #[serde(default, rename = "canAccessOpener")]
    pub can_access_opener: bool,
    /// The page that opened this one (a popup, a `target=_blank` link).
    #[serde(default, rename = "openerId", borrow, deserialize_with = "opt_cow")]
    pub opener_id: Option<Cow<'a, str>>,
    /// The browser context the page belongs to (every target names one, the default
    /// context's included).
    #[serde(
        default,
        rename = "browserContextId",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub browser_context_id: Option<Cow<'a, str>>,
}

/// `Target.targetInfoChanged`.
#[derive(Debug, Deserialize)]
pub(crate) struct TargetInfoChanged<'a> {
    #[serde(rename = "targetInfo", borrow)]
    pub target_info: TargetInfo<'a>,
}

/// `Target.targetDestroyed`.
#[derive(Debug, Deserialize)]
pub(crate) struct TargetDestroyed<'a> {
    #[serde(rename = "targetId", borrow)]
    pub target_id: Cow<'a, str>,
}

/// `Target.createTarget` result.
#[derive(Debug, Deserialize)]
pub(crate) struct CreateTargetResult<'a> {
    #[serde(rename = "targetId", borrow)]
    pub target_id: Cow<'a, str>,
}

#[derive(Serialize)]
pub(crate) struct CreateTargetParams<'a> {
    pub url: &'a str,
    /// The context to open the page in (`None`: the default context).
    #[serde(rename = "browserContextId", skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<&'a str>,
}

/// `Target.createBrowserContext` params.
#[derive(Serialize)]
pub(crate) struct CreateBrowserContextParams {
    /// The context is disposed when the connection that created it closes.
    #[serde(rename = "disposeOnDetach")]
    pub dispose_on_detach: bool,
}

/// `Target.createBrowserContext` result.
#[derive(Debug, Deserialize)]
pub(crate) struct CreateBrowserContextResult<'a> {
    #[serde(rename = "browserContextId", borrow)]
    pub browser_context_id: Cow<'a, str>,
}

/// `Target.disposeBrowserContext` params.
#[derive(Serialize)]
pub(crate) struct BrowserContextIdParams<'a> {
    #[serde(rename = "browserContextId")]
    pub browser_context_id: &'a str,
}

#[derive(Serialize)]
pub(crate) struct TargetIdParams<'a> {
    #[serde(rename = "targetId")]
    pub target_id: &'a str,
}

#[derive(Serialize)]
pub(crate) struct DiscoverTargetsParams {
    pub discover: bool,
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
    #[serde(default, rename = "parentId", borrow, deserialize_with = "opt_cow")]
    pub parent_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub url: Cow<'a, str>,
    #[serde(default, rename = "urlFragment", borrow, deserialize_with = "opt_cow")]
    pub url_fragment: Option<Cow<'a, str>>,
    #[serde(
        default,
        rename = "securityOrigin",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub security_origin: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub name: Option<Cow<'a, str>>,
}

/// `Page.frameNavigated`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameNavigated<'a> {
    #[serde(borrow)]
    pub frame: PageFrame<'a>,
    /// `Navigation`, or `BackForwardCacheRestore` for a page restored from the
    /// back/forward cache (which sends no `load`).
    #[serde(default, rename = "type", borrow, deserialize_with = "opt_cow")]
    pub kind: Option<Cow<'a, str>>,
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
    #[serde(default, borrow, deserialize_with = "opt_cow")]
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
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub message: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(
        default,
        rename = "defaultPrompt",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub default_prompt: Option<Cow<'a, str>>,
}

/// `Page.javascriptDialogClosed`.
#[derive(Debug, Deserialize)]
pub(crate) struct DialogClosed<'a> {
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub result: bool,
    #[serde(default, rename = "userInput", borrow, deserialize_with = "opt_cow")]
    pub user_input: Option<Cow<'a, str>>,
}

/// `Page.fileChooserOpened` (only on a session that intercepts choosers).
#[derive(Debug, Deserialize)]
pub(crate) struct FileChooserOpened<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub mode: Option<Cow<'a, str>>,
    /// Absent when the chooser was opened by no element Chromium can name.
    #[serde(default, rename = "backendNodeId")]
    pub backend_node_id: Option<i64>,
}

/// `Fetch.authRequired`.
#[derive(Debug, Deserialize)]
pub(crate) struct AuthRequired<'a> {
    #[serde(rename = "requestId", borrow)]
    pub request_id: Cow<'a, str>,
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "authChallenge")]
    pub challenge: AuthChallengeWire<'a>,
    #[serde(default, borrow)]
    pub request: Option<AuthRequest<'a>>,
    #[serde(default, rename = "resourceType", borrow, deserialize_with = "opt_cow")]
    pub resource_type: Option<Cow<'a, str>>,
}

/// `Fetch.AuthChallenge`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AuthChallengeWire<'a> {
    #[serde(default, borrow)]
    pub origin: Cow<'a, str>,
    #[serde(default, borrow)]
    pub scheme: Cow<'a, str>,
    #[serde(default, borrow)]
    pub realm: Cow<'a, str>,
}

/// The request a challenge is for (its URL).
#[derive(Debug, Deserialize)]
pub(crate) struct AuthRequest<'a> {
    #[serde(default, borrow)]
    pub url: Cow<'a, str>,
}

/// `Browser.downloadWillBegin` (browser-level, no session).
#[derive(Debug, Deserialize)]
pub(crate) struct DownloadWillBegin<'a> {
    #[serde(default, rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(borrow)]
    pub guid: Cow<'a, str>,
    #[serde(default, borrow)]
    pub url: Cow<'a, str>,
    #[serde(default, rename = "suggestedFilename", borrow)]
    pub suggested_filename: Cow<'a, str>,
}

/// `Browser.downloadProgress` (browser-level, no session).
#[derive(Debug, Deserialize)]
pub(crate) struct DownloadProgress<'a> {
    #[serde(borrow)]
    pub guid: Cow<'a, str>,
    #[serde(default, rename = "totalBytes")]
    pub total_bytes: f64,
    #[serde(default, rename = "receivedBytes")]
    pub received_bytes: f64,
    #[serde(borrow)]
    pub state: Cow<'a, str>,
    #[serde(default, rename = "filePath", borrow, deserialize_with = "opt_cow")]
    pub file_path: Option<Cow<'a, str>>,
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
    /// Unique across processes; what `Runtime.evaluate {uniqueContextId}` takes.
    #[serde(default, rename = "uniqueId", borrow, deserialize_with = "opt_cow")]
    pub unique_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "auxData", borrow)]
    pub aux_data: Option<AuxData<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct AuxData<'a> {
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
    /// The frame's main world (not an isolated world of an extension or ours).
    #[serde(default, rename = "isDefault")]
    pub is_default: bool,
}

/// `Runtime.executionContextDestroyed`.
#[derive(Debug, Deserialize)]
pub(crate) struct ExecutionContextDestroyed {
    #[serde(rename = "executionContextId")]
    pub execution_context_id: i64,
}

/// `Runtime.consoleAPICalled`. The arguments of an error or assert are turned into the
/// entry's text while they are read (no list of objects is built); those of other types
/// are skipped. CDP sends `type` before `args`, so this stays one pass.
#[derive(Debug)]
pub(crate) struct ConsoleApiCalled<'a> {
    pub kind: Cow<'a, str>,
    /// The joined text, for errors and asserts only.
    pub text: Option<String>,
    /// The raw `args` of the other levels (a borrowed slice, read only by an action that
    /// captures every console line).
    pub raw_args: Option<&'a RawValue>,
    pub execution_context_id: Option<i64>,
}

impl<'de> Deserialize<'de> for ConsoleApiCalled<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ConsoleApiCalled<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Runtime.consoleAPICalled params")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut kind: Option<Cow<'de, str>> = None;
                let mut text = None;
                let mut raw_args = None;
                let mut ctx = None;
                while let Some(key) = map.next_key::<ConsoleKey>()? {
                    match key {
                        ConsoleKey::Type => kind = Some(map.next_value::<BorrowedCow<'de>>()?.0),
                        ConsoleKey::Args => {
                            let wanted = kind
                                .as_deref()
                                .is_none_or(crate::remote_object::is_recorded_level);
                            if wanted {
                                text = Some(map.next_value::<ConsoleText>()?.0);
                            } else {
                                raw_args = Some(map.next_value::<&'de RawValue>()?);
                            }
                        }
                        ConsoleKey::ExecutionContextId => ctx = map.next_value()?,
                        ConsoleKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let kind = kind.ok_or_else(|| serde::de::Error::missing_field("type"))?;
                Ok(ConsoleApiCalled {
                    kind,
                    text,
                    raw_args,
                    execution_context_id: ctx,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// The keys of `Runtime.consoleAPICalled` params the supervisor reads, matched without
/// building a string (a `Cow<str>` key would allocate for every key of every call).
enum ConsoleKey {
    Type,
    Args,
    ExecutionContextId,
    Other,
}

impl<'de> Deserialize<'de> for ConsoleKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ConsoleKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ConsoleKey, E> {
                Ok(match v {
                    "type" => ConsoleKey::Type,
                    "args" => ConsoleKey::Args,
                    "executionContextId" => ConsoleKey::ExecutionContextId,
                    _ => ConsoleKey::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// For `Option<Cow<str>>` fields: serde's derive borrows a `Cow<str>` field, but one in
/// an `Option` goes through `Cow`'s own impl, which always copies into a `String` (an
/// allocation per frame id, URL, origin, ... of every frame and target event).
fn opt_cow<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(Option::<BorrowedCow<'de>>::deserialize(d)?.map(|c| c.0))
}

/// Console arguments joined into one text as they are read.
struct ConsoleText(String);

impl<'de> Deserialize<'de> for ConsoleText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ConsoleText;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("console arguments")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ConsoleText, A::Error> {
                // One allocation for the usual short line instead of a few regrowths.
                let mut text = String::with_capacity(128);
                while let Some(object) = seq.next_element::<RemoteObject<'de>>()? {
                    crate::remote_object::append_arg(&mut text, &object);
                }
                Ok(ConsoleText(crate::remote_object::truncate(text)))
            }
        }
        d.deserialize_seq(V)
    }
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
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PausedRequest<'a> {
    #[serde(borrow)]
    pub url: Cow<'a, str>,
    #[serde(default, rename = "postData", borrow, deserialize_with = "opt_cow")]
    pub post_data: Option<Cow<'a, str>>,
    #[serde(default, rename = "postDataEntries", borrow)]
    pub post_data_entries: Vec<PostDataEntry<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PostDataEntry<'a> {
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub bytes: Option<Cow<'a, str>>,
}

/// `Page.frameStartedNavigating`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameStartedNavigating<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    /// Where it goes.
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub url: Option<Cow<'a, str>>,
    #[serde(
        default,
        rename = "navigationType",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub navigation_type: Option<Cow<'a, str>>,
}

/// `Page.frameRequestedNavigation`: the renderer asks for a navigation (a link, a form,
/// `location = ...`). It comes on the frame's session ahead of the replies that session
/// sends after it, where the browser's `frameStartedNavigating` may come later.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameRequestedNavigation<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    /// Where it would go.
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub url: Option<Cow<'a, str>>,
    /// `currentTab`, `newTab`, `newWindow` or `download`.
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub disposition: Option<Cow<'a, str>>,
}

/// `Page.frameSubtreeWillBeDetached`.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameSubtreeWillBeDetached<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
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
pub(crate) struct SetFileInputFilesParams<'a> {
    pub files: &'a [String],
    #[serde(rename = "backendNodeId")]
    pub backend_node_id: i64,
}

#[derive(Serialize)]
pub(crate) struct SetDownloadBehaviorParams<'a> {
    pub behavior: &'a str,
    #[serde(rename = "downloadPath")]
    pub download_path: &'a str,
    #[serde(rename = "eventsEnabled")]
    pub events_enabled: bool,
    /// A browser context of its own (the default context's behaviour does not reach it).
    #[serde(rename = "browserContextId", skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<&'a str>,
}

#[derive(Serialize)]
pub(crate) struct GuidParams<'a> {
    pub guid: &'a str,
}

#[derive(Serialize)]
pub(crate) struct EnabledParams {
    pub enabled: bool,
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

/// `Page.lifecycleEvent`.
#[derive(Debug, Deserialize)]
pub(crate) struct LifecycleEvent<'a> {
    #[serde(rename = "frameId", borrow)]
    pub frame_id: Cow<'a, str>,
    #[serde(borrow)]
    pub name: Cow<'a, str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_strings_borrow_from_the_input() {
        let text = r#"{"id":"F","parentId":"P","url":"u","securityOrigin":"o","name":"a\"b"}"#;
        let frame: PageFrame<'_> = serde_json::from_str(text).unwrap();
        assert!(matches!(frame.parent_id, Some(Cow::Borrowed("P"))));
        assert!(matches!(frame.security_origin, Some(Cow::Borrowed("o"))));
        // An escaped string cannot be borrowed; a missing or null one is `None`.
        assert_eq!(frame.name.as_deref(), Some("a\"b"));
        assert_eq!(frame.url_fragment, None);
        let frame: PageFrame<'_> = serde_json::from_str(r#"{"id":"F","parentId":null}"#).unwrap();
        assert_eq!(frame.parent_id, None);
    }
}
