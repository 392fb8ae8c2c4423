//! Warnings the supervisor gives between calls (a new browser behind the endpoint, a
//! navigation the page started that the URL policy refused, sign-in credentials refused),
//! for each session's next result. One subscription per browser fills a ring; each
//! session reads it from where its last result stopped, and sees only what concerns its
//! own browser context (warnings about no tab concern every session).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use cdp_supervisor::{Diff, Event, Warning};
use cdp_supervisor_blocking::{Client, ClientEvent};

/// Warnings kept; the oldest goes first (a session that missed it is told how many).
const MAX_WARNINGS: usize = 64;

/// Tabs whose browser context is remembered; past it the map is cleared (the tabs still
/// open come back with their next update, and a warning about an unknown tab is shown to
/// every session that shares the default context).
const MAX_TABS: usize = 1024;

/// One warning, as the sessions see it.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// Its place in the ring's order, from 1.
    seq: u64,
    /// The browser context of its tab (`None`: no tab, or the default context).
    context: Option<String>,
    /// The warning's stable code.
    code: &'static str,
    /// What happened, in the supervisor's words.
    text: String,
    /// What an action's own answer says of it when it was that action's (a refused
    /// navigation's reason), to leave it out there.
    said_as: String,
}

#[derive(Default)]
struct Ring {
    entries: VecDeque<Entry>,
    /// The last sequence number given.
    last: u64,
    /// Each known tab's browser context.
    contexts: HashMap<String, Option<String>>,
}

/// The warnings of one browser, for every session.
#[derive(Default)]
pub struct WarningLog {
    ring: Mutex<Ring>,
}

/// Whether an agent needs to hear of `warning` at its next result: what changed its
/// browser or its page without its call. Setup races and caps are the supervisor's own.
fn worth_telling(warning: &Warning) -> Option<Option<&str>> {
    match warning {
        Warning::FreshBrowser { .. }
        | Warning::NoTabAfterReconnect { .. }
        | Warning::HttpAuthRejected { .. }
        | Warning::ForgedBridgeRequest { .. } => Some(None),
        Warning::NavigationRefused { tab_id, .. } => Some(Some(tab_id.as_str())),
        _ => None,
    }
}

impl WarningLog {
    /// Starts collecting `client`'s warnings, on a thread that ends with the client.
    /// `None` when it cannot subscribe or spawn.
    pub fn watch(client: &Client) -> Option<Arc<WarningLog>> {
        let events = client.subscribe().ok()?;
        let log = Arc::new(WarningLog::default());
        let filled = Arc::clone(&log);
        std::thread::Builder::new()
            .name("cdp-supervise-warnings".into())
            .spawn(move || {
                for event in events {
                    filled.take(event);
                }
            })
            .ok()?;
        Some(log)
    }

    fn take(&self, event: ClientEvent) {
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let know = |ring: &mut Ring, tab_id: &str, context: Option<String>| {
            if ring.contexts.len() >= MAX_TABS && !ring.contexts.contains_key(tab_id) {
                ring.contexts.clear();
            }
            ring.contexts.insert(tab_id.to_owned(), context);
        };
        match event {
            ClientEvent::Snapshot(snapshot) => {
                for t in snapshot.tabs {
                    know(&mut ring, &t.tab_id, t.browser_context_id);
                }
            }
            ClientEvent::Event(Event::Diff(Diff::TabOpened { tab } | Diff::TabUpdated { tab })) => {
                know(&mut ring, &tab.tab_id, tab.browser_context_id)
            }
            ClientEvent::Event(Event::Diff(Diff::TabClosed { tab_id })) => {
                ring.contexts.remove(tab_id.as_str());
            }
            ClientEvent::Event(Event::Warning(warning)) => {
                let Some(tab) = worth_telling(&warning) else {
                    return;
                };
                let context = tab.and_then(|t| ring.contexts.get(t).cloned().flatten());
                let text = warning.to_string();
                // One refused navigation can be warned about twice in a row (its request and
                // its start): said once.
                if ring.entries.back().is_some_and(|e| e.text == text) {
                    return;
                }
                let said_as = match &warning {
                    Warning::NavigationRefused { refused, .. } => refused.to_string(),
                    _ => text.clone(),
                };
                ring.last += 1;
                let entry = Entry {
                    seq: ring.last,
                    context,
                    code: warning.code(),
                    text,
                    said_as,
                };
                if ring.entries.len() >= MAX_WARNINGS {
                    ring.entries.pop_front();
                }
                ring.entries.push_back(entry);
            }
            _ => {}
        }
    }

    /// The last sequence number given: a new session starts reading after it.
    pub fn head(&self) -> u64 {
        self.ring.lock().unwrap_or_else(|p| p.into_inner()).last
    }

    /// The lines for a result: the warnings after `seen` (moved past them) of browser
    /// context `context` (`None`: a session sharing the default context, which hears of
    /// every tab), leaving out those `said` already contains (an action names its own
    /// refused navigation).
    pub fn report(&self, seen: &mut u64, context: Option<Option<&str>>, said: &str) -> String {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let dropped = ring
            .entries
            .front()
            .map_or(0, |e| e.seq.saturating_sub(*seen + 1));
        let mut out = String::new();
        for e in ring.entries.iter().filter(|e| e.seq > *seen) {
            let mine = match (context, e.context.as_deref()) {
                (None, _) => true,
                (Some(_), None) => e.code != "navigation_refused",
                (Some(c), Some(t)) => c == Some(t),
            };
            if mine && !said.contains(&e.said_as) {
                out.push_str(&format!("\n- {}: {}", e.code, e.text));
            }
        }
        *seen = ring.last;
        if dropped > 0 {
            out.push_str(&format!(
                "\n- ({dropped} older warnings were dropped: at most {MAX_WARNINGS} are kept)"
            ));
        }
        if out.is_empty() {
            return out;
        }
        format!("\nWarnings since the last result:{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cdp_supervisor::url_policy::UrlPolicy;

    fn refused(log: &WarningLog, tab: &str) {
        let Err(refused) = UrlPolicy::agent().check("file:///etc/passwd") else {
            panic!("file: is refused by the agent policy");
        };
        log.take(ClientEvent::Event(Event::Warning(
            Warning::NavigationRefused {
                tab_id: tab.into(),
                refused,
                tab_closed: false,
            },
        )));
    }

    #[test]
    fn each_session_hears_each_warning_once_and_only_its_own_contexts() {
        let log = WarningLog::default();
        let tab = cdp_supervisor::TabInfo {
            tab_id: "T1".into(),
            url: "about:blank".into(),
            title: String::new(),
            opener_tab_id: None,
            state: cdp_supervisor::snapshot::TabState::Live,
            current: false,
            browser_context_id: Some("C1".into()),
        };
        log.take(ClientEvent::Event(Event::Diff(Diff::TabOpened { tab })));
        refused(&log, "T1");
        log.take(ClientEvent::Event(Event::Warning(Warning::FreshBrowser {
            old_tab_id: "A".into(),
            tab_id: Some("B".into()),
        })));
        let (mut shared, mut c1, mut c2) = (0, 0, 0);
        let text = log.report(&mut shared, None, "");
        assert!(text.contains("navigation_refused: tab T1") && text.contains("fresh_browser"));
        assert_eq!(log.report(&mut shared, None, ""), "", "said once");
        let text = log.report(&mut c1, Some(Some("C1")), "");
        assert!(text.contains("navigation_refused") && text.contains("fresh_browser"));
        let text = log.report(&mut c2, Some(Some("C2")), "");
        assert!(!text.contains("navigation_refused") && text.contains("fresh_browser"));
        // What the action's own answer said (the refusal's reason) is not said again.
        refused(&log, "T2");
        let Err(reason) = UrlPolicy::agent().check("file:///etc/passwd") else {
            panic!("file: is refused by the agent policy");
        };
        let said = format!("click: ... was kept where it was: {reason}");
        assert_eq!(log.report(&mut shared, None, &said), "");
    }

    #[test]
    fn the_ring_is_bounded_and_a_late_reader_is_told_what_it_missed() {
        let log = WarningLog::default();
        for i in 0..MAX_WARNINGS + 6 {
            refused(&log, &format!("T{i}"));
            refused(&log, &format!("T{i}")); // the same warning twice in a row: once
        }
        let text = log.report(&mut 0, None, "");
        assert_eq!(text.matches("navigation_refused").count(), MAX_WARNINGS);
        assert!(text.contains("6 older warnings were dropped"), "{text}");
        assert_eq!(log.head(), (MAX_WARNINGS + 6) as u64);
    }
}
