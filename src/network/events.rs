//! The `Network` domain's events the log reads, as borrowed structs (the fields it uses;
//! serde skips the rest). Header maps are read into a bounded list as they are parsed,
//! with credential values replaced, so a secret is never stored.

use std::borrow::Cow;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::redact::header_value;
use crate::remote_object::BorrowedCow;

use super::{Header, MAX_HEADER_BYTES};

/// One `Network.*` event the log handles.
#[derive(Debug)]
pub(crate) enum NetworkEvent<'a> {
    RequestWillBeSent(RequestWillBeSent<'a>),
    ResponseReceived(ResponseReceived<'a>),
    LoadingFinished(LoadingFinished<'a>),
    LoadingFailed(LoadingFailed<'a>),
    ServedFromCache(RequestIdOnly<'a>),
}

/// Parses the params of `method` (a `Network.*` event): `Ok(None)` (skipped, nothing
/// built) for the ones the log does not read, such as the per-chunk `dataReceived`.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
    method: &str,
    d: D,
) -> Result<Option<NetworkEvent<'de>>, D::Error> {
    use NetworkEvent as N;
    Ok(Some(match method {
        "Network.requestWillBeSent" => N::RequestWillBeSent(Deserialize::deserialize(d)?),
        "Network.responseReceived" => N::ResponseReceived(Deserialize::deserialize(d)?),
        "Network.loadingFinished" => N::LoadingFinished(Deserialize::deserialize(d)?),
        "Network.loadingFailed" => N::LoadingFailed(Deserialize::deserialize(d)?),
        "Network.requestServedFromCache" => N::ServedFromCache(Deserialize::deserialize(d)?),
        _ => {
            IgnoredAny::deserialize(d)?;
            return Ok(None);
        }
    }))
}

fn opt_cow<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(Option::<BorrowedCow<'de>>::deserialize(d)?.map(|c| c.0))
}

fn cow<'de, D: Deserializer<'de>>(d: D) -> Result<Cow<'de, str>, D::Error> {
    Ok(BorrowedCow::deserialize(d)?.0)
}

/// `Network.requestWillBeSent`.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestWillBeSent<'a> {
    #[serde(rename = "requestId", borrow, deserialize_with = "cow")]
    pub request_id: Cow<'a, str>,
    #[serde(borrow)]
    pub request: RequestPayload<'a>,
    #[serde(default, rename = "type", borrow, deserialize_with = "opt_cow")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, rename = "frameId", borrow, deserialize_with = "opt_cow")]
    pub frame_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub initiator: Option<Initiator<'a>>,
    /// Set when this is the next hop of a redirect: the response that redirected.
    #[serde(default, rename = "redirectResponse", borrow)]
    pub redirect_response: Option<Box<ResponsePayload<'a>>>,
}

/// `Network.Request`, the parts the log keeps.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestPayload<'a> {
    #[serde(borrow, deserialize_with = "cow")]
    pub url: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "cow")]
    pub method: Cow<'a, str>,
    #[serde(default)]
    pub headers: HeaderList,
    #[serde(default, rename = "hasPostData")]
    pub has_post_data: bool,
}

/// `Network.Initiator`: its type, and its URL (else the first frame of its stack).
#[derive(Debug, Deserialize)]
pub(crate) struct Initiator<'a> {
    #[serde(default, rename = "type", borrow, deserialize_with = "cow")]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "opt_cow")]
    pub url: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub stack: Option<InitiatorStack<'a>>,
}

/// `Runtime.StackTrace`, its first call frame's URL.
#[derive(Debug, Deserialize)]
pub(crate) struct InitiatorStack<'a> {
    #[serde(default, rename = "callFrames", borrow)]
    pub call_frames: Vec<CallFrameUrl<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CallFrameUrl<'a> {
    #[serde(default, borrow, deserialize_with = "cow")]
    pub url: Cow<'a, str>,
}

impl Initiator<'_> {
    /// The initiator's URL: its own, else the script at the top of its stack.
    pub fn url(&self) -> Option<&str> {
        let from_stack = || {
            let frames = &self.stack.as_ref()?.call_frames;
            frames
                .iter()
                .map(|f| f.url.as_ref())
                .find(|u| !u.is_empty())
        };
        self.url
            .as_deref()
            .filter(|u| !u.is_empty())
            .or_else(from_stack)
    }
}

/// `Network.Response`, the parts the log keeps.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponsePayload<'a> {
    #[serde(default)]
    pub status: f64,
    #[serde(default, rename = "statusText", borrow, deserialize_with = "cow")]
    pub status_text: Cow<'a, str>,
    #[serde(default)]
    pub headers: HeaderList,
    #[serde(default, rename = "mimeType", borrow, deserialize_with = "cow")]
    pub mime_type: Cow<'a, str>,
    #[serde(default, rename = "fromDiskCache")]
    pub from_disk_cache: bool,
    #[serde(default, rename = "fromPrefetchCache")]
    pub from_prefetch_cache: bool,
    #[serde(default, rename = "fromServiceWorker")]
    pub from_service_worker: bool,
    #[serde(default, rename = "encodedDataLength")]
    pub encoded_data_length: f64,
}

/// `Network.responseReceived`.
#[derive(Debug, Deserialize)]
pub(crate) struct ResponseReceived<'a> {
    #[serde(rename = "requestId", borrow, deserialize_with = "cow")]
    pub request_id: Cow<'a, str>,
    #[serde(default, rename = "type", borrow, deserialize_with = "opt_cow")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub response: ResponsePayload<'a>,
}

/// `Network.loadingFinished`.
#[derive(Debug, Deserialize)]
pub(crate) struct LoadingFinished<'a> {
    #[serde(rename = "requestId", borrow, deserialize_with = "cow")]
    pub request_id: Cow<'a, str>,
    #[serde(default, rename = "encodedDataLength")]
    pub encoded_data_length: f64,
}

/// `Network.loadingFailed`.
#[derive(Debug, Deserialize)]
pub(crate) struct LoadingFailed<'a> {
    #[serde(rename = "requestId", borrow, deserialize_with = "cow")]
    pub request_id: Cow<'a, str>,
    #[serde(default, rename = "type", borrow, deserialize_with = "opt_cow")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, rename = "errorText", borrow, deserialize_with = "cow")]
    pub error_text: Cow<'a, str>,
    #[serde(default)]
    pub canceled: bool,
    #[serde(
        default,
        rename = "blockedReason",
        borrow,
        deserialize_with = "opt_cow"
    )]
    pub blocked_reason: Option<Cow<'a, str>>,
}

/// An event whose params name only the request (`requestServedFromCache`).
#[derive(Debug, Deserialize)]
pub(crate) struct RequestIdOnly<'a> {
    #[serde(rename = "requestId", borrow, deserialize_with = "cow")]
    pub request_id: Cow<'a, str>,
}

/// A `Network.Headers` object read into a list of at most [`MAX_HEADER_BYTES`] of names
/// and values (later headers are dropped and `truncated` is set), credentials redacted.
/// A value that is not a string (Chromium sends strings) is skipped.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct HeaderList {
    pub headers: Vec<Header>,
    pub truncated: bool,
}

impl<'de> Deserialize<'de> for HeaderList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HeaderList;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a headers object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HeaderList, A::Error> {
                let mut list = HeaderList::default();
                let mut bytes = 0usize;
                while let Some(name) = map.next_key::<BorrowedCow<'de>>()? {
                    let value = map.next_value::<HeaderValue<'de>>()?;
                    let Some(value) = value.0 else { continue };
                    let shown = header_value(&name.0, &value);
                    bytes = bytes.saturating_add(name.0.len() + shown.len());
                    if bytes > MAX_HEADER_BYTES {
                        list.truncated = true;
                        continue;
                    }
                    list.headers.push(Header {
                        name: name.0.into_owned(),
                        value: shown.to_owned(),
                    });
                }
                Ok(list)
            }
        }
        d.deserialize_map(V)
    }
}

/// A header's value: a string, or `None` for anything else (skipped, never an error).
struct HeaderValue<'a>(Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for HeaderValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HeaderValue<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a header value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(HeaderValue(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(HeaderValue(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(HeaderValue(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(HeaderValue(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(HeaderValue(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(HeaderValue(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(HeaderValue(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(HeaderValue(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<Self::Value, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(HeaderValue(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(HeaderValue(None))
            }
        }
        d.deserialize_any(V)
    }
}
