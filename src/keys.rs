//! Keys as a person presses them: `Input.dispatchKeyEvent` parameters for a key name
//! (`Enter`, `Shift+Tab`, `Control+a`) and for typed text.
//!
//! A key press is a `keyDown` (with `text` when the key writes a character, so pages that
//! listen for `keypress`/`input` react) and a `keyUp`; modifiers go down before it and up
//! after it, in the order given. A key with Control, Alt or Meta writes no text (it is a
//! shortcut), as in a browser.

use serde_json::{json, Value};

/// One named key: what `KeyboardEvent.key`, `.code` and `.keyCode` say, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// `KeyboardEvent.key` (`Enter`, `a`, `ArrowUp`).
    pub key: String,
    /// `KeyboardEvent.code` (`Enter`, `KeyA`, `ArrowUp`).
    pub code: String,
    /// `windowsVirtualKeyCode` / `keyCode`.
    pub key_code: u32,
    /// What the key writes, if anything.
    pub text: Option<String>,
}

/// Modifier bits as CDP counts them.
const ALT: u32 = 1;
const CONTROL: u32 = 2;
const META: u32 = 4;
const SHIFT: u32 = 8;

/// A key with the modifiers held while it is pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPress {
    /// Modifier keys, in the order they go down.
    pub modifiers: Vec<Key>,
    /// The key itself.
    pub key: Key,
}

/// Why a key name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Empty, or a `+` with nothing after it.
    #[error("no key given: name one, such as Enter, Tab, Escape, ArrowDown or Control+a")]
    Empty,
    /// Not a key this table knows.
    #[error("unknown key {0:?}: use a single character or one of Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, Insert, F1-F12, with Shift+, Control+, Alt+ or Meta+ before it")]
    Unknown(String),
}

fn named(key: &str, code: &str, key_code: u32, text: Option<&str>) -> Key {
    Key {
        key: key.into(),
        code: code.into(),
        key_code,
        text: text.map(Into::into),
    }
}

fn modifier(name: &str) -> Option<(Key, u32)> {
    Some(match name.to_ascii_lowercase().as_str() {
        "shift" => (named("Shift", "ShiftLeft", 16, None), SHIFT),
        "control" | "ctrl" => (named("Control", "ControlLeft", 17, None), CONTROL),
        "alt" | "option" => (named("Alt", "AltLeft", 18, None), ALT),
        "meta" | "cmd" | "command" => (named("Meta", "MetaLeft", 91, None), META),
        _ => return None,
    })
}

/// The key a name means: a named key or a single character.
///
/// ```
/// use cdp_supervisor::keys::key;
/// assert_eq!(key("Enter").map(|k| (k.key_code, k.text)), Some((13, Some("\r".into()))));
/// assert_eq!(key("a").map(|k| k.code), Some("KeyA".into()));
/// assert_eq!(key("Bogus"), None);
/// ```
pub fn key(name: &str) -> Option<Key> {
    let k = match name {
        "Enter" | "Return" => named("Enter", "Enter", 13, Some("\r")),
        "Tab" => named("Tab", "Tab", 9, None),
        "Escape" | "Esc" => named("Escape", "Escape", 27, None),
        "Backspace" => named("Backspace", "Backspace", 8, None),
        "Delete" => named("Delete", "Delete", 46, None),
        "Space" | " " => named(" ", "Space", 32, Some(" ")),
        "ArrowUp" => named("ArrowUp", "ArrowUp", 38, None),
        "ArrowDown" => named("ArrowDown", "ArrowDown", 40, None),
        "ArrowLeft" => named("ArrowLeft", "ArrowLeft", 37, None),
        "ArrowRight" => named("ArrowRight", "ArrowRight", 39, None),
        "Home" => named("Home", "Home", 36, None),
        "End" => named("End", "End", 35, None),
        "PageUp" => named("PageUp", "PageUp", 33, None),
        "PageDown" => named("PageDown", "PageDown", 34, None),
        "Insert" => named("Insert", "Insert", 45, None),
        _ => {
            if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u32>().ok()) {
                if (1..=12).contains(&n) {
                    return Some(named(name, name, 111 + n, None));
                }
                return None;
            }
            let mut chars = name.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return None;
            };
            return Some(char_key(c));
        }
    };
    Some(k)
}

/// A character as a key: letters and digits with their US-layout code, anything else with
/// its text only (Chromium writes the `text` whatever the code).
fn char_key(c: char) -> Key {
    let text = Some(c.to_string());
    if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        Key {
            key: c.to_string(),
            code: format!("Key{upper}"),
            key_code: u32::from(upper),
            text,
        }
    } else if c.is_ascii_digit() {
        Key {
            key: c.to_string(),
            code: format!("Digit{c}"),
            key_code: u32::from(c),
            text,
        }
    } else {
        Key {
            key: c.to_string(),
            code: String::new(),
            key_code: 0,
            text,
        }
    }
}

/// Reads `Enter`, `Shift+Tab`, `Control+a`, `Control+Shift+ArrowLeft`.
///
/// ```
/// use cdp_supervisor::keys::parse_key;
/// let press = parse_key("Shift+Tab")?;
/// assert_eq!((press.modifiers.len(), press.key.key.as_str()), (1, "Tab"));
/// assert!(parse_key("").is_err() && parse_key("Hyper+x").is_err());
/// assert_eq!(parse_key("+")?.key.key, "+", "a lone + is the plus key");
/// # Ok::<(), cdp_supervisor::keys::KeyError>(())
/// ```
pub fn parse_key(combo: &str) -> Result<KeyPress, KeyError> {
    if combo.is_empty() {
        return Err(KeyError::Empty);
    }
    // The last part is the key ("Control++" is Control and plus).
    let (mods, key_name) = match combo.strip_suffix("++") {
        Some(head) => (head, "+"),
        None => match combo.rsplit_once('+') {
            Some((head, tail)) if !head.is_empty() => (head, tail),
            _ => ("", combo),
        },
    };
    if key_name.is_empty() {
        return Err(KeyError::Empty);
    }
    let mut modifiers = Vec::new();
    if !mods.is_empty() {
        for part in mods.split('+') {
            let (k, _) = modifier(part).ok_or_else(|| KeyError::Unknown(part.to_owned()))?;
            modifiers.push(k);
        }
    }
    let key = match modifier(key_name) {
        Some((k, _)) => k,
        None => key(key_name).ok_or_else(|| KeyError::Unknown(key_name.to_owned()))?,
    };
    Ok(KeyPress { modifiers, key })
}

fn bits(modifiers: &[Key]) -> u32 {
    modifiers
        .iter()
        .filter_map(|m| modifier(&m.key).map(|(_, bit)| bit))
        .fold(0, |acc, b| acc | b)
}

fn event(kind: &str, key: &Key, modifiers: u32, text: Option<&str>) -> Value {
    let mut params = json!({
        "type": kind,
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
    });
    if let (Some(text), Some(obj)) = (text, params.as_object_mut()) {
        obj.insert("text".into(), json!(text));
        obj.insert("unmodifiedText".into(), json!(text));
    }
    params
}

/// The `Input.dispatchKeyEvent` parameters of one press, in order.
///
/// ```
/// use cdp_supervisor::keys::{parse_key, press_events};
/// let events = press_events(&parse_key("Control+a")?);
/// let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
/// assert_eq!(kinds, ["rawKeyDown", "rawKeyDown", "keyUp", "keyUp"]);
/// assert_eq!(events[1]["modifiers"], 2);
/// assert!(events[1].get("text").is_none(), "a shortcut writes nothing");
/// # Ok::<(), cdp_supervisor::keys::KeyError>(())
/// ```
pub fn press_events(press: &KeyPress) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, m) in press.modifiers.iter().enumerate() {
        out.push(event("rawKeyDown", m, bits(&press.modifiers[..=i]), None));
    }
    let held = bits(&press.modifiers);
    let shortcut = held & (CONTROL | ALT | META) != 0;
    let text = press.key.text.as_deref().filter(|_| !shortcut);
    let down = if text.is_some() {
        "keyDown"
    } else {
        "rawKeyDown"
    };
    out.push(event(down, &press.key, held, text));
    out.push(event("keyUp", &press.key, held, None));
    for (i, m) in press.modifiers.iter().enumerate().rev() {
        out.push(event("keyUp", m, bits(&press.modifiers[..i]), None));
    }
    out
}

/// The `Input.dispatchKeyEvent` parameters that type `text`, a key press per character
/// (`\n` as Enter).
///
/// ```
/// use cdp_supervisor::keys::type_events;
/// let events = type_events("hé");
/// assert_eq!(events.len(), 4);
/// assert_eq!(events[2]["text"], "é");
/// ```
pub fn type_events(text: &str) -> Vec<Value> {
    let mut out = Vec::with_capacity(text.len() * 2);
    for c in text.chars() {
        let key = match c {
            '\n' | '\r' => named("Enter", "Enter", 13, Some("\r")),
            '\t' => named("Tab", "Tab", 9, None),
            c => char_key(c),
        };
        out.extend(press_events(&KeyPress {
            modifiers: Vec::new(),
            key,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_key_of_the_contract_parses() {
        for name in [
            "Enter",
            "Tab",
            "Escape",
            "Backspace",
            "Delete",
            "ArrowUp",
            "ArrowDown",
            "ArrowLeft",
            "ArrowRight",
            "Home",
            "End",
            "PageUp",
            "PageDown",
            "F5",
            "Space",
            "x",
            "7",
            "/",
        ] {
            assert!(parse_key(name).is_ok(), "{name}");
        }
        assert_eq!(parse_key("F13"), Err(KeyError::Unknown("F13".into())));
        assert_eq!(parse_key("Control+"), Err(KeyError::Empty));
        assert_eq!(parse_key("Control++").map(|p| p.key.key), Ok("+".into()));
    }

    #[test]
    fn modifiers_go_down_in_order_and_up_in_reverse() {
        let events = press_events(&parse_key("Control+Shift+ArrowLeft").unwrap());
        let keys: Vec<(&str, &str, u64)> = events
            .iter()
            .map(|e| {
                (
                    e["type"].as_str().unwrap(),
                    e["key"].as_str().unwrap(),
                    e["modifiers"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("rawKeyDown", "Control", 2),
                ("rawKeyDown", "Shift", 10),
                ("rawKeyDown", "ArrowLeft", 10),
                ("keyUp", "ArrowLeft", 10),
                ("keyUp", "Shift", 2),
                ("keyUp", "Control", 0),
            ]
        );
        let shift_a = press_events(&parse_key("Shift+A").unwrap());
        assert_eq!(shift_a[1]["text"], "A", "shift still writes");
    }
}
