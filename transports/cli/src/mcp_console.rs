//! Every tab's console errors, for sessions in a browser context of their own: the
//! supervisor's snapshot holds the current tab's only, and each session has a current tab
//! of its own. One subscription per browser fills a ring per tab.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use cdp_supervisor::{ConsoleEntry, Diff, Event};
use cdp_supervisor_blocking::{Client, ClientEvent};

/// Entries kept per tab (as many as the supervisor keeps for its current tab); the oldest
/// goes first.
const PER_TAB: usize = 50;

/// Tabs with entries at most; past it the tab with the oldest newest entry goes.
const MAX_TABS: usize = 512;

/// The console errors of every tab, by tab id.
#[derive(Default)]
pub struct ConsoleLog {
    by_tab: Mutex<HashMap<String, VecDeque<ConsoleEntry>>>,
}

impl ConsoleLog {
    /// Starts collecting `client`'s console errors, on a thread that ends with the client.
    /// `None` when it cannot subscribe or spawn.
    pub fn watch(client: &Client) -> Option<Arc<ConsoleLog>> {
        let events = client.subscribe().ok()?;
        let log = Arc::new(ConsoleLog::default());
        let filled = Arc::clone(&log);
        std::thread::Builder::new()
            .name("cdp-supervise-console".into())
            .spawn(move || {
                for event in events {
                    if let ClientEvent::Event(Event::Diff(diff)) = event {
                        filled.take(diff);
                    }
                }
            })
            .ok()?;
        Some(log)
    }

    fn take(&self, diff: Diff) {
        let mut by_tab = self.by_tab.lock().unwrap_or_else(|p| p.into_inner());
        match diff {
            Diff::ConsoleError {
                tab_id: Some(tab),
                entry,
                ..
            } => {
                if !by_tab.contains_key(&*tab) && by_tab.len() >= MAX_TABS {
                    let oldest = by_tab
                        .iter()
                        .min_by(|a, b| {
                            let at =
                                |r: &VecDeque<ConsoleEntry>| r.back().map_or(f64::MIN, |e| e.at);
                            at(a.1).total_cmp(&at(b.1))
                        })
                        .map(|(t, _)| t.clone());
                    if let Some(t) = oldest {
                        by_tab.remove(&t);
                    }
                }
                let ring = by_tab.entry(tab.to_string()).or_default();
                if ring.len() >= PER_TAB {
                    ring.pop_front();
                }
                ring.push_back((*entry).clone());
            }
            Diff::TabClosed { tab_id } => {
                by_tab.remove(tab_id.as_str());
            }
            _ => {}
        }
    }

    /// The entries of `tabs` after time `after`, oldest first.
    pub fn since(&self, tabs: &[&str], after: f64) -> Vec<ConsoleEntry> {
        let by_tab = self.by_tab.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<ConsoleEntry> = tabs
            .iter()
            .filter_map(|t| by_tab.get(*t))
            .flat_map(|ring| ring.iter().filter(|e| e.at > after).cloned())
            .collect();
        out.sort_by(|a, b| a.at.total_cmp(&b.at));
        out
    }
}
