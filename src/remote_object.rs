//! A CDP `Runtime.RemoteObject` as the supervisor reads it, and its text as DevTools
//! prints it (console lines, exceptions). Below both `cdp` (which builds console text
//! while it parses) and `console` (the console ring's rules).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use crate::limits::MAX_CONSOLE_TEXT;

/// A string borrowed from the input when it has no escapes. Read straight with
/// `deserialize_str` (a derived newtype would add a layer per string of every message).
pub(crate) struct BorrowedCow<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for BorrowedCow<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = BorrowedCow<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(BorrowedCow(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(BorrowedCow(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(BorrowedCow(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A `Runtime.RemoteObject`, the parts a log line needs. Read by hand: console
/// arguments are the bulk of a busy page's traffic, and only four keys matter.
#[derive(Debug, Default)]
pub(crate) struct RemoteObject<'a> {
    pub kind: Cow<'a, str>,
    pub value: Option<ValueText<'a>>,
    pub description: Option<Cow<'a, str>>,
    pub unserializable_value: Option<Cow<'a, str>>,
}

/// The keys of a remote object the supervisor reads.
enum ObjectKey {
    Type,
    Value,
    Description,
    Unserializable,
    Other,
}

impl<'de> Deserialize<'de> for ObjectKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ObjectKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ObjectKey, E> {
                Ok(match v {
                    "type" => ObjectKey::Type,
                    "value" => ObjectKey::Value,
                    "description" => ObjectKey::Description,
                    "unserializableValue" => ObjectKey::Unserializable,
                    _ => ObjectKey::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RemoteObject<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, Visitor};
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RemoteObject<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a Runtime.RemoteObject")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut o = RemoteObject::default();
                while let Some(key) = map.next_key::<ObjectKey>()? {
                    match key {
                        ObjectKey::Type => o.kind = map.next_value::<BorrowedCow<'de>>()?.0,
                        ObjectKey::Value => o.value = Some(map.next_value()?),
                        ObjectKey::Description => {
                            o.description = Some(map.next_value::<BorrowedCow<'de>>()?.0)
                        }
                        ObjectKey::Unserializable => {
                            o.unserializable_value = Some(map.next_value::<BorrowedCow<'de>>()?.0)
                        }
                        ObjectKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(o)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A remote object's `value` as a log line shows it, read in the same pass: strings
/// borrowed, scalars printed, objects and arrays skipped (their `description` says more).
#[derive(Debug)]
pub(crate) enum ValueText<'a> {
    Str(Cow<'a, str>),
    Scalar(String),
    Compound,
}

impl<'de: 'a, 'a> Deserialize<'de> for ValueText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, SeqAccess, Visitor};
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ValueText<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ValueText::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ValueText::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ValueText::Str(Cow::Owned(v)))
            }
            fn visit_bool<E: Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar(v.to_string()))
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar(v.to_string()))
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar(v.to_string()))
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar(v.to_string()))
            }
            fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar("null".to_owned()))
            }
            fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
                Ok(ValueText::Scalar("null".to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ValueText::Compound)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ValueText::Compound)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Whether console calls of this type are recorded (their arguments are worth reading).
pub(crate) fn is_recorded_level(kind: &str) -> bool {
    matches!(kind, "error" | "assert")
}

/// Appends one console argument the way DevTools prints it: strings verbatim, other
/// values by their description; stops growing past the text bound.
pub(crate) fn append_arg(text: &mut String, object: &RemoteObject<'_>) {
    if text.len() > MAX_CONSOLE_TEXT {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&remote_object_text(object));
}

pub(crate) fn remote_object_text<'a>(o: &'a RemoteObject<'_>) -> Cow<'a, str> {
    if let (true, Some(ValueText::Str(v))) = (o.kind == "string", &o.value) {
        return Cow::Borrowed(v.as_ref());
    }
    if let Some(d) = &o.description {
        return Cow::Borrowed(d.as_ref());
    }
    if let Some(u) = &o.unserializable_value {
        return Cow::Borrowed(u.as_ref());
    }
    match &o.value {
        Some(ValueText::Str(v)) => Cow::Borrowed(v.as_ref()),
        Some(ValueText::Scalar(v)) => Cow::Borrowed(v.as_str()),
        Some(ValueText::Compound) | None => Cow::Borrowed(o.kind.as_ref()),
    }
}

pub(crate) fn truncate(mut text: String) -> String {
    if text.len() > MAX_CONSOLE_TEXT {
        let mut cut = MAX_CONSOLE_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}
