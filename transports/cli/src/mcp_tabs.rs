//! The tabs of the MCP face, the pure half: the `browser_tabs` tool's arguments
//! ([`parse_tabs`]), its answer ([`tab_list`]) and the lines every tool result ends with
//! ([`TabsSeen::report`]): the tabs opened or closed since the last result, and the
//! current tab. Tabs are named as Playwright MCP names them: their 0-based index in list
//! order (the order the tabs became known), the title and the URL.

use std::collections::HashMap;

use cdp_supervisor::TabInfo;
use serde_json::{Map, Value};

use crate::mcp::CallError;

/// What `browser_tabs` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabsAction {
    /// List the tabs.
    List,
    /// Open a tab (at `url`, else `about:blank`); it becomes current.
    New {
        /// Where.
        url: Option<String>,
    },
    /// Make tab `index` current.
    Select {
        /// Its index in the list.
        index: usize,
    },
    /// Close tab `index` (`None`: the current one).
    Close {
        /// Its index in the list.
        index: Option<usize>,
    },
}

/// Reads `browser_tabs`'s arguments.
///
/// ```
/// use cdp_supervise::mcp_tabs::{parse_tabs, TabsAction};
/// use serde_json::{json, Map, Value};
/// let args: Map<String, Value> = serde_json::from_value(json!({"action": "select", "index": 1}))?;
/// assert_eq!(parse_tabs(&args), Ok(TabsAction::Select { index: 1 }));
/// let no_index: Map<String, Value> = serde_json::from_value(json!({"action": "select"}))?;
/// assert!(parse_tabs(&no_index).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn parse_tabs(args: &Map<String, Value>) -> Result<TabsAction, CallError> {
    let bad = |m: &str| CallError::BadArgument(m.to_owned());
    let index = match args.get("index") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad("`index` must be a whole number >= 0 (as `list` shows it)"))?,
        ),
    };
    let url = match args.get("url") {
        None | Some(Value::Null) => None,
        Some(Value::String(u)) if !u.is_empty() => Some(u.clone()),
        Some(_) => return Err(bad("`url` must be a non-empty string")),
    };
    match args.get("action").and_then(Value::as_str) {
        Some("list") => Ok(TabsAction::List),
        Some("new") => Ok(TabsAction::New { url }),
        Some("select") => index
            .map(|index| TabsAction::Select { index })
            .ok_or_else(|| bad("`index` is required to select a tab: browser_tabs {action: \"list\"} shows them")),
        Some("close") => Ok(TabsAction::Close { index }),
        Some(other) => Err(CallError::BadArgument(format!(
            "`action` must be list, new, close or select, not {other:?}"
        ))),
        None => Err(bad("`action` is required: list, new, close or select")),
    }
}

/// `[title] (url)`, as Playwright MCP shows a tab.
fn label(tab: &TabInfo) -> String {
    format!("[{}] ({})", tab.title, tab.url)
}

/// `### Open tabs` and one line a tab, `- 0: (current) [title] (url)`.
///
/// ```
/// use cdp_supervisor::{TabInfo, TabState};
/// let tab = TabInfo { tab_id: "T".into(), url: "about:blank".into(), title: "".into(),
///     opener_tab_id: None, state: TabState::Live, current: true, browser_context_id: None };
/// assert_eq!(cdp_supervise::mcp_tabs::tab_list(&[tab]), "### Open tabs\n- 0: (current) [] (about:blank)");
/// ```
pub fn tab_list(tabs: &[TabInfo]) -> String {
    let mut out = String::from("### Open tabs");
    for (i, tab) in tabs.iter().enumerate() {
        out.push_str(&format!(
            "\n- {i}: {}{}{}",
            if tab.current { "(current) " } else { "" },
            label(tab),
            match tab.state {
                cdp_supervisor::TabState::Live => "",
                cdp_supervisor::TabState::Attaching => " (still loading)",
                cdp_supervisor::TabState::Blocked =>
                    " (blocked: browser_handle_dialog, or it needs a recover)",
                cdp_supervisor::TabState::Crashed => " (crashed)",
            }
        ));
    }
    out
}

/// `index: [title] (url)` of tab `tab_id`, when it is listed.
///
/// ```
/// use cdp_supervisor::{TabInfo, TabState};
/// let tab = TabInfo { tab_id: "T".into(), url: "u".into(), title: "t".into(),
///     opener_tab_id: None, state: TabState::Live, current: true, browser_context_id: None };
/// assert_eq!(cdp_supervise::mcp_tabs::name_of(&[tab], "T").as_deref(), Some("0: [t] (u)"));
/// ```
pub fn name_of(tabs: &[TabInfo], tab_id: &str) -> Option<String> {
    let (i, tab) = tabs.iter().enumerate().find(|(_, t)| t.tab_id == tab_id)?;
    Some(format!("{i}: {}", label(tab)))
}

/// The tabs the last result named, to tell what changed since.
///
/// ```
/// use cdp_supervise::mcp_tabs::TabsSeen;
/// use cdp_supervisor::{TabInfo, TabState};
/// let tab = |id: &str, current: bool| TabInfo { tab_id: id.into(), url: format!("http://x/{id}"),
///     title: id.into(), opener_tab_id: None, state: TabState::Live, current,
///     browser_context_id: None };
/// let mut seen = TabsSeen::default();
/// assert_eq!(seen.report(&[tab("A", true)]), "\nCurrent tab: 0: [A] (http://x/A)");
/// let r = seen.report(&[tab("A", false), tab("B", true)]);
/// assert!(r.contains("### Tabs\n- opened 1: [B] (http://x/B)"), "{r}");
/// assert_eq!(seen.report(&[tab("A", false), tab("B", true)]), "\nCurrent tab: 1: [B] (http://x/B)");
/// let r = seen.report(&[tab("A", true)]);
/// assert!(r.contains("- closed: [B] (http://x/B)"), "{r}");
/// ```
#[derive(Debug, Default)]
pub struct TabsSeen {
    /// Each tab named so far (by id), with its label then; `None` before the first
    /// result (the tabs there then are not news).
    known: Option<HashMap<String, String>>,
    /// The current tab the last result named.
    current: Option<String>,
}

impl TabsSeen {
    /// The lines a result ends with: a `### Tabs` section when tabs opened or closed or
    /// the current tab changed since the last result, then the current tab. Remembers
    /// `tabs` for the next one.
    pub fn report(&mut self, tabs: &[TabInfo]) -> String {
        let now: HashMap<String, String> =
            tabs.iter().map(|t| (t.tab_id.clone(), label(t))).collect();
        let current = tabs.iter().find(|t| t.current).map(|t| t.tab_id.clone());
        let mut changes = String::new();
        match &self.known {
            Some(known) => {
                for (i, tab) in tabs.iter().enumerate() {
                    if !known.contains_key(&tab.tab_id) {
                        let by = tab
                            .opener_tab_id
                            .as_deref()
                            .and_then(|o| tabs.iter().position(|t| t.tab_id == o))
                            .map(|o| format!(", opened by tab {o}"))
                            .unwrap_or_default();
                        changes.push_str(&format!("\n- opened {i}: {}{by}", label(tab)));
                    }
                }
                let mut gone: Vec<&String> = known
                    .iter()
                    .filter(|(id, _)| !now.contains_key(*id))
                    .map(|(_, label)| label)
                    .collect();
                gone.sort();
                for label in gone {
                    changes.push_str(&format!("\n- closed: {label}"));
                }
                if current != self.current && changes.is_empty() {
                    changes.push_str("\n- the current tab changed");
                }
            }
            // The first result: several tabs at once are worth listing.
            None if tabs.len() > 1 => {
                for (i, tab) in tabs.iter().enumerate() {
                    changes.push_str(&format!("\n- {i}: {}", label(tab)));
                }
            }
            None => {}
        }
        self.known = Some(now);
        self.current.clone_from(&current);
        let mut out = String::new();
        if !changes.is_empty() {
            out.push_str("\n### Tabs");
            out.push_str(&changes);
        }
        if let Some(name) = current.as_deref().and_then(|c| name_of(tabs, c)) {
            out.push_str(&format!("\nCurrent tab: {name}"));
        }
        out
    }

    /// Forgets every tab (the browser closed).
    pub fn clear(&mut self) {
        *self = TabsSeen::default();
    }
}
