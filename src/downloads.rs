//! Downloads: tracked at browser level, never lost, reported by the action that started
//! them (see [`crate::manual::rules`], downloads, and [`crate::manual::chromium_facts`],
//! "Downloads").
//!
//! With [`Config::downloads`](crate::Config::downloads) set, the supervisor sends, once per
//! connection and on the browser's own connection (never on a page session: a page-level
//! setting overrides the browser's for that tab),
//! `Browser.setDownloadBehavior {behavior: "allowAndName", downloadPath, eventsEnabled:
//! true}`. Chromium then writes each file as `DIR/<guid>` and reports
//! `Browser.downloadWillBegin` and `Browser.downloadProgress` without a session. Each
//! becomes a [`Download`] in the snapshot's `downloads` (the last
//! [`MAX_DOWNLOADS`](crate::limits::MAX_DOWNLOADS)), with a `download_started` diff at the
//! start and a `download_finished` diff at the end. A download over the size limit is
//! canceled (`Browser.cancelDownload`) and finished `canceled` with the reason.
//!
//! Renaming `DIR/<guid>` to its suggested name is file I/O, so the embedder does it: with
//! [`DownloadConfig::embedder_renames`] a completed download is announced as
//! [`Event::DownloadCompleted`] and finishes when the embedder calls
//! [`Supervisor::download_saved`](crate::Supervisor::download_saved) with the final path.
//!
//! An action's answer names the downloads that began in its tab while it ran; one that
//! ends while a download of it is still running is held until they finish, or its budget
//! ends.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::cdp;
use crate::command::Purpose;
use crate::event::Event;
use crate::limits::MAX_DOWNLOADS;
use crate::outbox::Outbox;
use crate::snapshot::{push_ring, Diff};
pub use crate::snapshot::{Download, DownloadState};
use crate::wire::to_raw;

/// Where downloads go and how large they may be.
///
/// ```
/// use cdp_supervisor::{downloads::DownloadConfig, Config};
/// let mut config = Config::default();
/// config.downloads = Some(DownloadConfig::new("/tmp/downloads"));
/// assert_eq!(config.downloads.as_ref().map(|d| d.max_bytes), Some(1 << 30));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DownloadConfig {
    /// The folder Chromium writes into (absolute).
    pub dir: String,
    /// A download larger than this is canceled (default 1 GiB).
    pub max_bytes: u64,
    /// The embedder renames each completed file and says so with
    /// [`Supervisor::download_saved`](crate::Supervisor::download_saved) (the transports
    /// do); otherwise a download finishes with Chromium's `DIR/<guid>` path.
    pub embedder_renames: bool,
}

impl DownloadConfig {
    /// Downloads into `dir`, at most 1 GiB each, not renamed by the embedder.
    pub fn new(dir: impl Into<String>) -> Self {
        DownloadConfig {
            dir: dir.into(),
            max_bytes: 1 << 30,
            embedder_renames: false,
        }
    }
}

/// What the supervisor is doing about a download in the ring.
#[derive(Debug, Default)]
struct Track {
    /// The cancel was sent, with why.
    canceling: Option<String>,
    /// Completed; waiting for the embedder's rename.
    saving: bool,
}

/// An action's answer, held until its downloads end or its budget does.
#[derive(Debug)]
struct HeldAct {
    deadline: f64,
    event: Event,
}

/// The downloads component (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Downloads {
    /// The last [`MAX_DOWNLOADS`], oldest first.
    ring: VecDeque<Download>,
    /// One per download in the ring that is not finished (bounded by the ring).
    tracks: BTreeMap<String, Track>,
    /// Each running action's budget end and the downloads begun in its tab since it
    /// started (bounded by the actions running: removed at their end).
    acts: BTreeMap<u64, (f64, Vec<String>)>,
    /// Answers held for their downloads, by action id (bounded likewise).
    held: BTreeMap<u64, HeldAct>,
}

fn bytes(n: f64) -> u64 {
    // Negative or NaN counts are read as 0; `as` saturates a huge one.
    if n.is_finite() && n > 0.0 {
        n as u64
    } else {
        0
    }
}

impl Downloads {
    /// At connect: the browser-level behaviour, once (nothing without a configuration);
    /// and again for each browser context the supervisor creates (`context`), which the
    /// default context's setting does not reach.
    pub fn set_up(
        &self,
        out: &mut Outbox,
        config: Option<&DownloadConfig>,
        context: Option<&str>,
        timeout: std::time::Duration,
    ) {
        let Some(c) = config else {
            return;
        };
        let params = to_raw(&cdp::SetDownloadBehaviorParams {
            behavior: "allowAndName",
            download_path: &c.dir,
            events_enabled: true,
            browser_context_id: context,
        });
        out.send(
            None,
            "Browser.setDownloadBehavior",
            params.as_deref(),
            Purpose::Quiet,
            timeout,
        );
    }

    /// The snapshot's `downloads`.
    pub fn list(&self) -> Vec<Download> {
        self.ring.iter().cloned().collect()
    }

    /// An action began in a tab; its budget ends at `deadline`.
    pub fn act_started(&mut self, act: u64, deadline: f64) {
        self.acts.insert(act, (deadline, Vec::new()));
    }

    /// `Browser.downloadWillBegin`, in `tab_id` (the tab of its frame), while `act` runs
    /// there (if one does).
    pub fn on_will_begin(
        &mut self,
        out: &mut Outbox,
        tab_id: Option<Arc<str>>,
        act: Option<u64>,
        ev: &cdp::DownloadWillBegin<'_>,
    ) {
        let id = ev.guid.to_string();
        if self.ring.iter().any(|d| d.id == id) {
            return;
        }
        if self.ring.len() >= MAX_DOWNLOADS {
            if let Some(old) = self.ring.pop_front() {
                self.tracks.remove(&old.id);
            }
        }
        let download = Download {
            id: id.clone(),
            tab_id,
            url: ev.url.to_string(),
            suggested_filename: ev.suggested_filename.to_string(),
            path: None,
            state: DownloadState::InProgress,
            received_bytes: 0,
            total_bytes: 0,
            error: None,
        };
        push_ring(&mut self.ring, download.clone(), MAX_DOWNLOADS);
        self.tracks.insert(id.clone(), Track::default());
        if let Some((_, started)) = act.and_then(|a| self.acts.get_mut(&a)) {
            started.push(id);
        }
        out.emit(Event::Diff(Diff::DownloadStarted { download }));
    }

    /// `Browser.downloadProgress`: a download over `max_bytes` is canceled; a completed or
    /// canceled one finishes (a completed one after the embedder's rename, when it
    /// renames).
    pub fn on_progress(
        &mut self,
        out: &mut Outbox,
        config: Option<&DownloadConfig>,
        timeout: std::time::Duration,
        ev: &cdp::DownloadProgress<'_>,
    ) {
        let id = ev.guid.as_ref();
        let Some(track) = self.tracks.get_mut(id) else {
            return; // unknown, evicted, or finished already
        };
        let (received, total) = (bytes(ev.received_bytes), bytes(ev.total_bytes));
        match ev.state.as_ref() {
            "inProgress" => {
                let max = config.map_or(u64::MAX, |c| c.max_bytes);
                if (received > max || total > max) && track.canceling.is_none() {
                    track.canceling = Some(format!(
                        "canceled: larger than the download limit of {max} bytes (--max-download-bytes)"
                    ));
                    let params = to_raw(&cdp::GuidParams { guid: id });
                    out.send(
                        None,
                        "Browser.cancelDownload",
                        params.as_deref(),
                        Purpose::Quiet,
                        timeout,
                    );
                }
            }
            "completed" => {
                let path = ev.file_path.as_deref().map(str::to_owned);
                let renames = config.is_some_and(|c| c.embedder_renames);
                if let (true, Some(file_path)) = (renames, path.clone()) {
                    if track.saving {
                        return;
                    }
                    track.saving = true;
                    if let Some(d) = self.ring.iter_mut().find(|d| d.id == id) {
                        d.received_bytes = received;
                        d.total_bytes = total;
                    }
                    out.emit(Event::DownloadCompleted {
                        id: id.to_owned(),
                        file_path,
                        suggested_filename: self
                            .ring
                            .iter()
                            .find(|d| d.id == id)
                            .map(|d| d.suggested_filename.clone())
                            .unwrap_or_default(),
                    });
                } else {
                    self.finish(
                        out,
                        id,
                        DownloadState::Completed,
                        path,
                        None,
                        received,
                        total,
                    );
                }
            }
            "canceled" => {
                let why = track.canceling.take();
                self.finish(out, id, DownloadState::Canceled, None, why, received, total);
            }
            _ => {}
        }
    }

    /// The embedder saved a completed download at `path` (or could not: why).
    pub fn saved(&mut self, out: &mut Outbox, id: &str, saved: Result<String, String>) -> bool {
        if !self.tracks.get(id).is_some_and(|t| t.saving) {
            return false;
        }
        let Some((received, total)) = self
            .ring
            .iter()
            .find(|d| d.id == id)
            .map(|d| (d.received_bytes, d.total_bytes))
        else {
            return false;
        };
        let (path, error) = match saved {
            Ok(path) => (Some(path), None),
            Err(e) => (None, Some(e)),
        };
        self.finish(
            out,
            id,
            DownloadState::Completed,
            path,
            error,
            received,
            total,
        );
        true
    }

    #[allow(clippy::too_many_arguments)] // each is one fact of the end
    fn finish(
        &mut self,
        out: &mut Outbox,
        id: &str,
        state: DownloadState,
        path: Option<String>,
        error: Option<String>,
        received: u64,
        total: u64,
    ) {
        self.tracks.remove(id);
        let Some(d) = self.ring.iter_mut().find(|d| d.id == id) else {
            return;
        };
        d.state = state;
        d.path = path;
        d.error = error;
        d.received_bytes = received;
        d.total_bytes = total;
        let download = d.clone();
        out.emit(Event::Diff(Diff::DownloadFinished { download }));
        let now = out.now();
        self.release_held(out, false, now);
    }

    /// An action's answer: fills in its downloads; held (taken out, `None` returned) while
    /// one of them is still running and its budget lasts.
    pub fn on_act_finished(&mut self, event: Event, now: f64) -> Option<Event> {
        let Event::ActFinished { id, .. } = &event else {
            return Some(event);
        };
        let act = id.0;
        let Some((deadline, started)) = self.acts.remove(&act) else {
            return Some(event);
        };
        let mut event = event;
        self.fill(&mut event, &started);
        let running = started.iter().any(|g| self.tracks.contains_key(g));
        if running && deadline > now {
            self.acts.insert(act, (deadline, started));
            self.held.insert(act, HeldAct { deadline, event });
            return None;
        }
        Some(event)
    }

    /// The action ended without an answer to hold (its tab went).
    pub fn act_gone(&mut self, act: u64) {
        self.acts.remove(&act);
    }

    fn fill(&self, event: &mut Event, started: &[String]) {
        if let Event::ActFinished {
            outcome: Ok(result),
            ..
        } = event
        {
            result.downloads = started
                .iter()
                .filter_map(|g| self.ring.iter().find(|d| &d.id == g).cloned())
                .collect();
        }
    }

    /// Emits the held answers whose downloads all ended, or (`all`) whose budget is over.
    fn release_held(&mut self, out: &mut Outbox, all: bool, now: f64) {
        let due: Vec<u64> = self
            .held
            .iter()
            .filter(|(act, h)| {
                all || h.deadline <= now
                    || self
                        .acts
                        .get(act)
                        .is_none_or(|(_, s)| s.iter().all(|g| !self.tracks.contains_key(g)))
            })
            .map(|(act, _)| *act)
            .collect();
        for act in due {
            if let Some(mut held) = self.held.remove(&act) {
                let started = self.acts.remove(&act).map(|(_, s)| s).unwrap_or_default();
                self.fill(&mut held.event, &started);
                out.emit(held.event);
            }
        }
    }

    /// The earliest held answer's budget end.
    pub fn next_deadline(&self) -> Option<f64> {
        self.held.values().map(|h| h.deadline).reduce(f64::min)
    }

    /// Releases the held answers whose budget is over.
    pub fn on_timeout(&mut self, out: &mut Outbox, now: f64) {
        self.release_held(out, false, now);
    }

    /// The connection closed: held answers go out as they are.
    pub fn on_disconnected(&mut self, out: &mut Outbox) {
        let now = out.now();
        self.release_held(out, true, now);
    }
}
