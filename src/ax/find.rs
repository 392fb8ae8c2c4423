//! `find`: the lines of an accessibility snapshot that match a text, a regex or a role,
//! each with its ref, so that an agent gets the few nodes it needs without the whole
//! outline. Matching is pure and runs on a snapshot the embedder already has (every
//! frame, OOPIFs included, as [`AxSnapshot`] holds them).
//!
//! ```
//! use cdp_supervisor::ax::{AxError, AxRef, AxSnapshot, FindQuery};
//! let r = |id: &str, role: &str, name: &str| AxRef { id: id.into(), role: role.into(),
//!     name: name.into(), nth: 0, frame_id: "F".into(), backend_node_id: Some(1) };
//! let snap = AxSnapshot {
//!     text: "- heading \"Shop\" [level=1] [ref=e1]\n- iframe [ref=e2]:\n  - button \"Buy now\" [ref=e3]\n".into(),
//!     refs: vec![r("e1", "heading", "Shop"), r("e2", "iframe", ""), r("e3", "button", "Buy now")],
//!     truncated: false, frames_left_out: vec![] };
//! let found = snap.find(&FindQuery::new(Some("BUY"), None, None)?);
//! assert_eq!(found.total, 1);
//! let hit = found.matches.first().ok_or(AxError::NotAttached)?;
//! assert_eq!(hit.reference.as_deref(), Some("e3"));
//! assert_eq!(hit.line, "button \"Buy now\" [ref=e3]");
//! let found = snap.find(&FindQuery::new(None, None, Some("heading"))?);
//! assert_eq!(found.matches.first().and_then(|m| m.reference.as_deref()), Some("e1"));
//! # Ok::<(), cdp_supervisor::ax::AxError>(())
//! ```

use serde::{Deserialize, Serialize};

use super::{AxError, AxSnapshot, FrameLeftOut};

/// Matches answered at most; `total` counts them all.
///
/// ```
/// assert_eq!(cdp_supervisor::ax::MAX_FIND_MATCHES, 100);
/// ```
pub const MAX_FIND_MATCHES: usize = 100;

/// The longest text or regex `find` takes, in characters.
///
/// ```
/// assert_eq!(cdp_supervisor::ax::MAX_FIND_PATTERN, 1_000);
/// ```
pub const MAX_FIND_PATTERN: usize = 1_000;

/// The compiled size a regex may reach (regex-lite's own limit, made small: a pattern is
/// a few words an agent wrote, not a program).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// What `find` looks for: every criterion given must hold.
///
/// ```
/// use cdp_supervisor::ax::FindQuery;
/// assert_eq!(FindQuery::new(None, None, None).unwrap_err().code(), "bad_request");
/// assert_eq!(FindQuery::new(None, Some("(unclosed"), None).unwrap_err().code(), "bad_request");
/// assert!(FindQuery::new(None, Some("^Buy|^Sell"), Some("button")).is_ok());
/// ```
#[derive(Debug, Clone)]
pub struct FindQuery {
    text: Option<String>,
    regex: Option<regex_lite::Regex>,
    role: Option<String>,
}

impl PartialEq for FindQuery {
    fn eq(&self, other: &FindQuery) -> bool {
        self.text == other.text
            && self.role == other.role
            && self.regex.as_ref().map(regex_lite::Regex::as_str)
                == other.regex.as_ref().map(regex_lite::Regex::as_str)
    }
}

impl FindQuery {
    /// `text`: a case-insensitive substring of the node's line (its name, value, states,
    /// inline text); `regex`: a regular expression over the same (add `(?i)` to ignore
    /// case); `role`: the role exactly (`button`, `link`, `text` for text lines), any case.
    /// At least one is needed.
    pub fn new(
        text: Option<&str>,
        regex: Option<&str>,
        role: Option<&str>,
    ) -> Result<FindQuery, AxError> {
        let bad = |what: String| AxError::BadRequest { what };
        let checked = |k: &str, v: Option<&str>| -> Result<Option<String>, AxError> {
            match v {
                None => Ok(None),
                Some(s) if s.trim().is_empty() => Err(bad(format!("{k}: must not be empty"))),
                Some(s) if s.chars().count() > MAX_FIND_PATTERN => Err(bad(format!(
                    "{k}: longer than {MAX_FIND_PATTERN} characters; look for a shorter part"
                ))),
                Some(s) => Ok(Some(s.to_owned())),
            }
        };
        let text = checked("text", text)?.map(|t| t.to_lowercase());
        let role = checked("role", role)?.map(|r| r.trim().to_lowercase());
        let regex = match checked("regex", regex)? {
            None => None,
            Some(pattern) => Some(
                regex_lite::RegexBuilder::new(&pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| bad(format!("regex: {e}")))?,
            ),
        };
        if text.is_none() && regex.is_none() && role.is_none() {
            return Err(bad(
                "text, regex or role: missing; find needs at least one of them".into(),
            ));
        }
        Ok(FindQuery { text, regex, role })
    }
}

/// One outline line that matched.
///
/// ```
/// use cdp_supervisor::ax::FindMatch;
/// let m = FindMatch { line: "button \"OK\" [ref=e5]".into(), reference: Some("e5".into()),
///     role: "button".into(), frame_id: Some("F".into()) };
/// assert_eq!(serde_json::to_value(&m)?["ref"], "e5");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindMatch {
    /// The line as the outline shows it, without its indentation and leading `- `.
    pub line: String,
    /// Its ref; for a text line, the ref of the element that holds it (`None` when no
    /// element above it has one).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The role (`text` for a text line).
    pub role: String,
    /// The frame the node lives in, when known.
    pub frame_id: Option<String>,
}

/// What `find` answers.
///
/// ```
/// let found = cdp_supervisor::ax::Found::default();
/// assert_eq!((found.total, found.matches.len()), (0, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Found {
    /// The matching lines in outline order, at most [`MAX_FIND_MATCHES`].
    pub matches: Vec<FindMatch>,
    /// How many lines matched in all.
    pub total: usize,
    /// The snapshot itself was cut by its node or character budget: a node past it was
    /// not searched.
    pub snapshot_truncated: bool,
    /// Frames the snapshot could not show (so not searched), each with its reason.
    pub frames_left_out: Vec<FrameLeftOut>,
}

/// `- role "name" ... [ref=eN] ...`: the ref, and the line without its marker.
fn split_ref(content: &str) -> (Option<&str>, String) {
    let Some(start) = content.find(" [ref=") else {
        return (None, content.to_owned());
    };
    let after = content.get(start + 6..).unwrap_or("");
    let Some(len) = after.find(']') else {
        return (None, content.to_owned());
    };
    let reference = after.get(..len);
    let rest = format!(
        "{}{}",
        content.get(..start).unwrap_or(""),
        after.get(len + 1..).unwrap_or("")
    );
    (reference, rest)
}

impl AxSnapshot {
    /// The lines that match `query`, each with its ref (see [`FindQuery::new`]).
    ///
    /// ```
    /// use cdp_supervisor::ax::{AxSnapshot, FindQuery};
    /// let snap = AxSnapshot { text: "- text: Hello\n".into(), ..AxSnapshot::default() };
    /// let found = snap.find(&FindQuery::new(Some("hello"), None, Some("text"))?);
    /// assert_eq!(found.total, 1);
    /// # Ok::<(), cdp_supervisor::ax::AxError>(())
    /// ```
    pub fn find(&self, query: &FindQuery) -> Found {
        let mut found = Found {
            snapshot_truncated: self.truncated,
            frames_left_out: self.frames_left_out.clone(),
            ..Found::default()
        };
        // The refs of the lines above the current one, by depth: a text line's element.
        let mut holders: Vec<(usize, Option<String>)> = Vec::new();
        for raw in self.text.lines() {
            let trimmed = raw.trim_start_matches(' ');
            let depth = raw.len() - trimmed.len();
            let Some(content) = trimmed.strip_prefix("- ") else {
                continue;
            };
            while holders.last().is_some_and(|(d, _)| *d >= depth) {
                holders.pop();
            }
            let (own, rest) = split_ref(content);
            let own = own.map(str::to_owned);
            let text_line = rest.starts_with("text: ");
            let role = match text_line {
                true => "text".to_owned(),
                false => rest.split([' ', ':']).next().unwrap_or_default().to_owned(),
            };
            let reference = own
                .clone()
                .or_else(|| holders.iter().rev().find_map(|(_, r)| r.clone()));
            holders.push((depth, own));
            // Text is matched after the role word, so that "button" finds no button by
            // its role alone.
            let words = rest
                .get(role.len()..)
                .unwrap_or("")
                .trim_start_matches(':')
                .trim_start();
            let matches = query
                .text
                .as_ref()
                .is_none_or(|t| words.to_lowercase().contains(t.as_str()))
                && query.regex.as_ref().is_none_or(|r| r.is_match(words))
                && query
                    .role
                    .as_ref()
                    .is_none_or(|r| *r == role.to_lowercase());
            if !matches {
                continue;
            }
            found.total += 1;
            if found.matches.len() < MAX_FIND_MATCHES {
                let frame_id = reference.as_ref().and_then(|r| {
                    self.refs
                        .iter()
                        .find(|a| a.id == *r)
                        .map(|a| a.frame_id.clone())
                });
                found.matches.push(FindMatch {
                    line: content.to_owned(),
                    reference,
                    role,
                    frame_id,
                });
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ax::AxRef;

    fn snap() -> AxSnapshot {
        let r = |id: &str, role: &str, f: &str| AxRef {
            id: id.into(),
            role: role.into(),
            name: String::new(),
            nth: 0,
            frame_id: f.into(),
            backend_node_id: Some(1),
        };
        AxSnapshot {
            text: "- paragraph [ref=e1]: Ready\n- iframe [ref=e2]:\n  - list [ref=e3]:\n    - text: Apples\n    - text: apples again\n  - button \"Buy\" [ref=e4]\n".into(),
            refs: vec![r("e1", "paragraph", "T"), r("e2", "iframe", "T"), r("e3", "list", "O"), r("e4", "button", "O")],
            truncated: false,
            frames_left_out: vec![],
        }
    }

    #[test]
    fn a_text_line_answers_with_the_element_that_holds_it() {
        let f = snap().find(&FindQuery::new(Some("apples"), None, None).unwrap());
        assert_eq!(f.total, 2);
        assert_eq!(f.matches[0].reference.as_deref(), Some("e3"));
        assert_eq!(f.matches[0].frame_id.as_deref(), Some("O"));
        assert_eq!(f.matches[0].role, "text");
        assert_eq!(f.matches[0].line, "text: Apples");
    }

    #[test]
    fn criteria_all_hold_and_a_role_word_is_not_text() {
        let s = snap();
        assert_eq!(
            s.find(&FindQuery::new(Some("button"), None, None).unwrap())
                .total,
            0
        );
        assert_eq!(
            s.find(&FindQuery::new(Some("ref"), None, None).unwrap())
                .total,
            0
        );
        let f = s.find(&FindQuery::new(None, Some("^\"B"), Some("BUTTON")).unwrap());
        assert_eq!(f.total, 1);
        assert_eq!(f.matches[0].reference.as_deref(), Some("e4"));
        let f = s.find(&FindQuery::new(None, Some("(?i)^apples$"), None).unwrap());
        assert_eq!(f.total, 1);
        let f = s.find(&FindQuery::new(Some("ready"), None, Some("paragraph")).unwrap());
        assert_eq!(f.matches[0].reference.as_deref(), Some("e1"));
    }

    #[test]
    fn matches_are_bounded_and_counted() {
        let mut s = AxSnapshot::default();
        for i in 0..(MAX_FIND_MATCHES + 5) {
            s.text.push_str(&format!("- text: row {i}\n"));
        }
        let f = s.find(&FindQuery::new(Some("row"), None, None).unwrap());
        assert_eq!(f.matches.len(), MAX_FIND_MATCHES);
        assert_eq!(f.total, MAX_FIND_MATCHES + 5);
        assert_eq!(f.matches[0].reference, None);
    }
}
