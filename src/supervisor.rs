//! The [`Supervisor`]: the browser layer. It owns what is browser-wide (the connection's
//! clock, command ids and commands in flight, the targets, which tab is current, the
//! routing of a message to its tab) and nothing of a tab's rules: each tab is a
//! [`TabSupervisor`](crate::tab_supervisor), a complete machine of its own. Driven by
//! `handle_*`, drained by `poll_*`.
//!
//! Follow a message: [`Supervisor::handle_message`] parses the [`Envelope`]. A reply is
//! matched by its id alone (the command in flight names its tab) and handed to that tab,
//! or to the browser's own steps (targets, tabs). An event with a `sessionId` goes to the
//! tab that owns the session (a `detachedFromTarget` to the tab that owns the session it
//! names); a browser-level event (a page attached by the browser's auto-attach, a target
//! changed or destroyed) is the browser's: a new tab, a tab's URL or title, a tab gone.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use serde_json::value::RawValue;

use crate::act::{ActError, ActOptions, Action};
use crate::ax::{AxError, AxOptions, ResolvedRef};
use crate::cdp::{self, CdpEvent};
use crate::command::{CommandId, InFlight, Purpose, TabKey};
use crate::config::Config;
use crate::contexts::Contexts;
use crate::dialog::{Answer, DialogAction, DialogPolicy};
use crate::downloads::Downloads;
use crate::error::{CommandError, DialogError, InputError};
use crate::evaluate::{EvalError, Evaluation};
use crate::event::{Event, Output, Warning};
use crate::outbox::Outbox;
use crate::snapshot::{Diff, FrameTree, PendingDialog, Snapshot, TabInfo};
use crate::tab_supervisor::{TabEnv, TabSupervisor};
use crate::wire::{classify_parse_error, parse, to_raw, CdpError, Envelope, OutgoingCommand};

#[doc(hidden)]
pub use crate::limits::TableSizes;
pub use crate::limits::DEFAULT_MAX_COMMANDS_IN_FLIGHT;

/// What each of the browser's own commands is for.
mod network;

mod step {
    pub const GET_TARGETS: u16 = 0;
    pub const AUTO_ATTACH: u16 = 1;
    pub const DISCOVER: u16 = 2;
    /// Resuming or detaching a target that is not a tab.
    pub const LET_GO: u16 = 3;
    pub const TARGET_INFO: u16 = 4;
    /// Opening a tab in a fresh browser that has none (after a reconnect).
    pub const OPEN_FRESH: u16 = 5;
    /// Denying every permission but the granted ones.
    pub const PERMISSIONS: u16 = 6;
}

/// The sans-IO supervisor of a Chromium browser and every tab in it. See the crate docs
/// for the run loop. Calls that name no tab go to the current tab.
///
/// ```
/// use cdp_supervisor::{Config, Output, Supervisor};
/// let mut sup = Supervisor::new(Config::default());
/// sup.handle_connected(0.0);
/// let first = sup.poll_output();
/// assert!(matches!(first, Output::Transmit(cmd) if cmd.method == "Target.getTargets"));
/// ```
#[derive(Debug)]
pub struct Supervisor {
    /// The configuration, and what every tab derives from it.
    env: TabEnv,
    /// The connection: the clock, command ids, commands in flight and output queues.
    out: Outbox,
    /// Every tab, by key; keys grow, so this is the order tabs became known.
    tabs: BTreeMap<TabKey, TabSupervisor>,
    last_key: u32,
    /// Tab id (target id) → tab.
    by_target: HashMap<String, TabKey>,
    /// Session → tab, a cache checked against the tab on every use (so a stale entry
    /// costs a lookup, never a misroute) and rebuilt when it grows past the sessions.
    session_owner: HashMap<String, TabKey>,
    /// The last session routed, its tab, and the tab's session removals then: while
    /// those are unchanged the session is still the tab's, with no lookup.
    last_route: Option<(String, TabKey, u64)>,
    /// The tab that gets calls naming no tab.
    current: Option<TabKey>,
    /// The tab id the last `current_tab` diff named.
    current_emitted: Option<String>,
    /// The key of the tab `current_emitted` names: a tab's id never changes, so while
    /// the current key is this one there is nothing to compare.
    current_emitted_key: Option<TabKey>,
    /// Tabs in the order they were last current (most recent last), for when the current
    /// one closes; bounded by the tabs.
    recently_current: Vec<TabKey>,
    /// A tab the embedder opened: it becomes current once it attaches.
    select_on_attach: Option<String>,
    /// Each running action's tab and the tabs opened since it began, for its answer.
    acts_running: BTreeMap<u64, (TabKey, Vec<String>)>,
    /// Each tab's own next deadline (flows, watchdogs), indexed by time.
    tab_deadlines: TabDeadlines,
    /// Pages left unsupervised over the tab bound, warned about once (bounded: cleared
    /// when a tab closes).
    over_bound: BTreeSet<String>,
    /// The last tab, kept (detached) after its target was destroyed: it goes as soon as
    /// another page attaches.
    destroyed_last: Option<TabKey>,
    /// A planned stop's grace deadline, once `begin_stop` was called.
    stop_deadline: Option<f64>,
    /// The browser contexts this supervisor created, and its context commands in flight.
    contexts: Contexts,
    /// The browser's downloads, and the actions' answers held for them.
    downloads: Downloads,
}

/// Each tab's next deadline, with the earliest found without a walk over every tab.
#[derive(Debug, Default)]
struct TabDeadlines {
    by_tab: HashMap<TabKey, f64>,
    by_time: BTreeSet<(u64, TabKey)>,
}

impl TabDeadlines {
    /// A deadline as a sortable key: the bits of a non-negative finite float order as
    /// the float does (negative and NaN deadlines are never stored).
    fn key(d: f64) -> u64 {
        d.max(0.0).to_bits()
    }

    fn set(&mut self, tab: TabKey, deadline: Option<f64>) {
        let deadline = deadline.filter(|d| d.is_finite());
        // Most inputs leave a tab's deadline as it was: one lookup, nothing moved.
        if self.by_tab.get(&tab).copied() == deadline {
            return;
        }
        if let Some(old) = self.by_tab.remove(&tab) {
            self.by_time.remove(&(Self::key(old), tab));
        }
        if let Some(d) = deadline.filter(|d| d.is_finite()) {
            self.by_tab.insert(tab, d);
            self.by_time.insert((Self::key(d), tab));
        }
    }

    fn next(&self) -> Option<f64> {
        let (_, tab) = self.by_time.first()?;
        self.by_tab.get(tab).copied()
    }

    /// The tabs whose deadline is at or before `now`, earliest first (ties by tab): in
    /// time order, never in a hash map's, so that the same inputs give the same outputs.
    fn due(&self, now: f64) -> Vec<TabKey> {
        let limit = Self::key(now);
        self.by_time
            .iter()
            .take_while(|(d, _)| *d <= limit)
            .map(|(_, t)| *t)
            .filter(|t| self.by_tab.get(t).is_some_and(|d| *d <= now))
            .collect()
    }
}

impl Supervisor {
    /// A supervisor with nothing attached. Call [`Supervisor::handle_connected`] once the
    /// WebSocket to the browser is open.
    pub fn new(config: Config) -> Self {
        Supervisor {
            env: TabEnv::new(config),
            out: Outbox::default(),
            tabs: BTreeMap::new(),
            last_key: 0,
            by_target: HashMap::new(),
            session_owner: HashMap::new(),
            last_route: None,
            current: None,
            current_emitted: None,
            current_emitted_key: None,
            recently_current: Vec::new(),
            select_on_attach: None,
            acts_running: BTreeMap::new(),
            tab_deadlines: TabDeadlines::default(),
            over_bound: BTreeSet::new(),
            destroyed_last: None,
            stop_deadline: None,
            contexts: Contexts::default(),
            downloads: Downloads::default(),
        }
    }

    // ---- input -----------------------------------------------------------------------

    /// The WebSocket to the browser endpoint is open: list targets, attach the current
    /// tab (the one we had, else the configured one, else the first page), then let the
    /// browser attach every other page, and every page opened later, paused.
    pub fn handle_connected(&mut self, now: f64) {
        self.out.advance(now);
        self.out.act_for(None, &[]);
        let t = self.env.config.setup_timeout;
        self.out.send(
            None,
            "Target.getTargets",
            None,
            Purpose::Browser(step::GET_TARGETS),
            t,
        );
        self.set_up_browser_context(None);
    }

    /// Downloads and permissions, set at browser level for the default context (`None`)
    /// at connect, and for each context this supervisor creates once Chromium made it.
    fn set_up_browser_context(&mut self, context: Option<&str>) {
        let t = self.env.config.setup_timeout;
        let downloads = self.env.config.downloads.as_ref();
        self.downloads.set_up(&mut self.out, downloads, context, t);
        if let Some(permissions) = &self.env.config.permissions {
            let params = crate::permissions::grant_params(permissions, context);
            let purpose = Purpose::Browser(step::PERMISSIONS);
            self.out.send(
                None,
                "Browser.grantPermissions",
                params.as_deref(),
                purpose,
                t,
            );
        }
    }

    /// The WebSocket closed: every command in flight fails, pending dialogs close
    /// `remote`, sessions and frames are cleared, and every tab but the current one is
    /// forgotten (the browser's auto-attach gives them back). The current tab is
    /// remembered, so that the next [`Supervisor::handle_connected`] re-attaches it,
    /// unless it is in a browser context this supervisor created: Chromium disposes those
    /// with the connection, and they are forgotten too.
    pub fn handle_disconnected(&mut self, now: f64) {
        self.out.advance(now);
        for (id, cmd) in self.out.commands_in_flight.take_all() {
            let error = CommandError::Disconnected {
                method: cmd.method.clone(),
            };
            self.fail_command(id, cmd, error);
        }
        // A tab of a context this supervisor created does not outlive the connection
        // (Chromium disposes the context with it): the current tab is remembered only
        // when it is not one.
        let keep = self.current.filter(|k| {
            let context = self
                .tabs
                .get(k)
                .and_then(|t| t.browser_context_id.as_deref());
            context.is_none_or(|c| !self.contexts.created(c))
        });
        let mut keys: Vec<TabKey> = self.tabs.keys().copied().collect();
        // The current tab last, so that it is not passed on to a tab about to go.
        keys.sort_by_key(|k| Some(*k) == self.current);
        for key in keys {
            if Some(key) == keep {
                self.with_tab(key, |tab, out, env| tab.on_disconnected(out, env));
            } else {
                self.remove_tab(key);
            }
        }
        self.session_owner.clear();
        self.contexts.connection_closed();
        self.downloads.on_disconnected(&mut self.out);
        self.after_input();
    }

    /// One WebSocket text frame from the browser.
    ///
    /// A message that cannot be applied returns an [`InputError`] and leaves the state
    /// consistent; nothing panics, whatever the input.
    pub fn handle_message(&mut self, now: f64, text: &str) -> Result<(), InputError> {
        self.out.advance(now);
        let mut envelope = Envelope::empty();
        envelope
            .read(text)
            .map_err(|e| classify_parse_error(text, e))?;
        let result = self.handle_envelope(&mut envelope);
        self.after_input();
        result
    }

    /// Fires what is due at `now`: command deadlines, the tabs' flows and dialog
    /// watchdogs. Spurious calls do nothing.
    pub fn handle_timeout(&mut self, now: f64) {
        self.out.advance(now);
        let now = self.out.now();
        for (id, cmd) in self.out.commands_in_flight.take_expired(now) {
            let method = cmd.method.clone();
            let after_s = now - cmd.sent_at;
            self.fail_command(id, cmd, CommandError::Timeout { method, after_s });
        }
        for key in self.tab_deadlines.due(now) {
            self.with_tab(key, |tab, out, env| tab.handle_timeout(out, env, now));
        }
        self.downloads.on_timeout(&mut self.out, now);
        self.after_input();
    }

    /// The entry point shared by [`Supervisor::handle_message`] and trace replay (which
    /// rewrites reply ids without re-serializing).
    pub(crate) fn handle_envelope(&mut self, env: &mut Envelope<'_>) -> Result<(), InputError> {
        if let Some(id) = env.id {
            return self.on_reply(id, env.result, env.error);
        }
        let Some(method) = env.method.as_deref() else {
            return Err(InputError::NeitherIdNorMethod);
        };
        match env.params.event_mut(method) {
            Ok(Some(event)) => self.on_event(method, env.session_id.as_deref(), event),
            // Events the supervisor does not use were skipped unparsed.
            Ok(None) => Ok(()),
            Err(e) => Err(InputError::BadParams {
                method: method.to_owned(),
                error: e.to_string(),
            }),
        }
    }

    /// Like [`Supervisor::handle_message`], for replay: the envelope is parsed already.
    pub(crate) fn handle_envelope_at(
        &mut self,
        now: f64,
        env: &mut Envelope<'_>,
    ) -> Result<(), InputError> {
        self.out.advance(now);
        let result = self.handle_envelope(env);
        self.after_input();
        result
    }

    // ---- output ----------------------------------------------------------------------

    /// The next command to write to the socket.
    pub fn poll_transmit(&mut self) -> Option<OutgoingCommand> {
        self.out.transmits.pop_front()
    }

    /// The next event for the embedder.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.out.events.pop_front()
    }

    /// When [`Supervisor::handle_timeout`] must be called next, if anything is pending.
    pub fn poll_timeout(&self) -> Option<f64> {
        let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let next = min(
            self.out.commands_in_flight.next_deadline(),
            self.tab_deadlines.next(),
        );
        let next = min(next, self.downloads.next_deadline());
        // A stop's grace deadline, until it has passed (then the stop is ready).
        min(next, self.stop_deadline.filter(|d| *d > self.out.now()))
    }

    /// Transmits first, then events, then the next deadline: drain until `Timeout`.
    pub fn poll_output(&mut self) -> Output {
        if let Some(t) = self.poll_transmit() {
            return Output::Transmit(t);
        }
        if let Some(e) = self.poll_event() {
            return Output::Event(e);
        }
        Output::Timeout(self.poll_timeout())
    }

    // ---- tabs ------------------------------------------------------------------------

    /// Every tab, in the order they became known (see [`crate::manual::rules`], tabs).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// assert!(Supervisor::new(Config::default()).tabs().is_empty());
    /// ```
    pub fn tabs(&self) -> Vec<TabInfo> {
        self.tabs
            .values()
            .map(|t| t.info(&self.env, Some(t.key) == self.current))
            .collect()
    }

    /// The current tab's id: calls that name no tab go there.
    pub fn current_tab(&self) -> Option<&str> {
        self.current
            .and_then(|k| self.tabs.get(&k))
            .map(|t| &*t.tab_id)
    }

    /// Opens a new tab at `url` (`Target.createTarget`); it is supervised like any other
    /// and becomes current once it attaches. The outcome (`{"targetId": ...}`, the new
    /// tab's id) arrives as [`Event::CommandFinished`].
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert!(sup.new_tab(0.0, "about:blank").is_ok()); // sent; answered later
    /// ```
    pub fn new_tab(&mut self, now: f64, url: &str) -> Result<CommandId, CommandError> {
        self.new_tab_in_context(now, url, None)
    }

    /// [`Supervisor::new_tab`] in browser context `context_id` (`None`: the default
    /// context), one this supervisor created ([`Supervisor::create_context`]) or one of
    /// its tabs is in; another id is refused at once with `no_such_context`. The tab is
    /// supervised like any other, and so are the popups it opens (they are in its context;
    /// see [`crate::manual::chromium_facts`], browser contexts).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.new_tab_in_context(0.0, "about:blank", Some("C")).unwrap_err();
    /// assert_eq!(e.code(), "no_such_context");
    /// let sent = sup.new_tab_in_context(0.0, "about:blank", None);
    /// assert!(sent.is_ok()); // the default context: as new_tab
    /// ```
    pub fn new_tab_in_context(
        &mut self,
        now: f64,
        url: &str,
        context_id: Option<&str>,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        self.env
            .config
            .url_policy
            .check(url)
            .map_err(CommandError::UrlRefused)?;
        if let Some(context) = context_id {
            self.check_context(context)?;
        }
        self.check_command_bound()?;
        self.out.act_for(None, &[]);
        let params = to_raw(&cdp::CreateTargetParams {
            url,
            browser_context_id: context_id,
        });
        let t = self.env.config.setup_timeout;
        let id = self.out.send(
            None,
            "Target.createTarget",
            params.as_deref(),
            Purpose::User,
            t,
        );
        Ok(CommandId(id))
    }

    // ---- browser contexts ------------------------------------------------------------

    /// Creates a browser context (`Target.createBrowserContext`): its own cookies,
    /// storage, tabs and dialogs, as an incognito profile. It is created with
    /// `disposeOnDetach`, so it ends with the connection: a supervisor that dies leaves
    /// none behind (and after a reconnect, its id is `no_such_context`). The outcome
    /// (`{"browserContextId": ...}`) arrives as [`Event::CommandFinished`]; open tabs in
    /// it with [`Supervisor::new_tab_in_context`]. At most
    /// [`MAX_BROWSER_CONTEXTS`](crate::limits::MAX_BROWSER_CONTEXTS) at once.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Event, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let id = sup.create_context(0.0)?;
    /// let sent = sup.poll_transmit().map(|c| c.method);
    /// assert_eq!(sent.as_deref(), Some("Target.createBrowserContext"));
    /// let reply = format!(r#"{{"id":{},"result":{{"browserContextId":"C1"}}}}"#, id.0);
    /// sup.handle_message(0.1, &reply)?;
    /// assert!(matches!(sup.poll_event(), Some(Event::CommandFinished { outcome: Ok(_), .. })));
    /// assert_eq!(sup.contexts(), ["C1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_context(&mut self, now: f64) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        self.check_command_bound()?;
        self.contexts.check_room()?;
        self.out.act_for(None, &[]);
        let params = to_raw(&cdp::CreateBrowserContextParams {
            dispose_on_detach: true,
        });
        let t = self.env.config.setup_timeout;
        let id = self.out.send(
            None,
            "Target.createBrowserContext",
            params.as_deref(),
            Purpose::User,
            t,
        );
        self.contexts.creating(id);
        Ok(CommandId(id))
    }

    /// Disposes browser context `context_id` (`Target.disposeBrowserContext`): Chromium
    /// closes its tabs without running their `beforeunload` handlers, and a dialog open in
    /// one closes with it (see [`crate::manual::chromium_facts`], browser contexts). Once
    /// it answered, nothing of the context is left here: its tabs are gone (each with a
    /// `tab_closed` diff, its pending dialogs closed), then the outcome arrives as
    /// [`Event::CommandFinished`]. An id this supervisor does not know is refused at once
    /// with `no_such_context`.
    ///
    /// ```
    /// use cdp_supervisor::{CommandError, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.dispose_context(0.0, "C").unwrap_err();
    /// assert_eq!(e, CommandError::NoSuchContext { context_id: "C".into() });
    /// ```
    pub fn dispose_context(
        &mut self,
        now: f64,
        context_id: &str,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        self.check_context(context_id)?;
        self.check_command_bound()?;
        self.out.act_for(None, &[]);
        let params = to_raw(&cdp::BrowserContextIdParams {
            browser_context_id: context_id,
        });
        let t = self.env.config.setup_timeout;
        let id = self.out.send(
            None,
            "Target.disposeBrowserContext",
            params.as_deref(),
            Purpose::User,
            t,
        );
        self.contexts.disposing(id, context_id);
        Ok(CommandId(id))
    }

    /// The browser contexts this supervisor created and has not disposed, in id order
    /// (Chromium's own list: `Target.getBrowserContexts` through
    /// [`Supervisor::browser_command`]).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// assert!(Supervisor::new(Config::default()).contexts().is_empty());
    /// ```
    pub fn contexts(&self) -> Vec<&str> {
        self.contexts.list()
    }

    /// Sends `method` to the browser itself, on no session (`Target.getBrowserContexts`,
    /// `Browser.getVersion`, ...). Its outcome arrives as exactly one
    /// [`Event::CommandFinished`], within `timeout` at the latest. `params` must be a JSON
    /// object.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// sup.browser_command(0.0, "Target.getBrowserContexts", None, Duration::from_secs(5))?;
    /// let sent = sup.poll_transmit().map(|c| (c.method, c.session_id));
    /// assert_eq!(sent, Some(("Target.getBrowserContexts".to_owned(), None)));
    /// # Ok::<(), cdp_supervisor::CommandError>(())
    /// ```
    pub fn browser_command(
        &mut self,
        now: f64,
        method: &str,
        params: Option<&RawValue>,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        if let Some(p) = params {
            if !p.get().trim_start().starts_with('{') {
                return Err(CommandError::ParamsNotObject {
                    method: method.to_owned(),
                });
            }
        }
        self.check_command_bound()?;
        self.out.act_for(None, &[]);
        let id = self.out.send(None, method, params, Purpose::User, timeout);
        Ok(CommandId(id))
    }

    /// A context a call may name: one this supervisor created, or one a tab is in.
    fn check_context(&self, context_id: &str) -> Result<(), CommandError> {
        let known = self.contexts.created(context_id)
            || self
                .tabs
                .values()
                .any(|t| t.browser_context_id.as_deref() == Some(context_id));
        if known {
            Ok(())
        } else {
            Err(CommandError::NoSuchContext {
                context_id: context_id.to_owned(),
            })
        }
    }

    /// Every tab still listed in a disposed context goes (Chromium destroys them, usually
    /// before it answers; a last tab kept for one-tab clients goes too).
    fn remove_context_tabs(&mut self, context: &str) {
        let gone: Vec<TabKey> = self
            .tabs
            .values()
            .filter(|t| t.browser_context_id.as_deref() == Some(context))
            .map(|t| t.key)
            .collect();
        for key in gone {
            self.remove_tab(key);
        }
    }

    /// Makes `tab_id` the current tab and brings it to the front.
    ///
    /// ```
    /// use cdp_supervisor::{CommandError, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert!(matches!(sup.select_tab(0.0, "T"), Err(CommandError::NoSuchTab { .. })));
    /// ```
    pub fn select_tab(&mut self, now: f64, tab_id: &str) -> Result<(), CommandError> {
        self.out.advance(now);
        let key = self.key_of(Some(tab_id))?;
        self.make_current(key);
        if let Some(session) = self.tabs.get(&key).and_then(|t| t.page_session_id()) {
            let session = session.to_owned();
            self.out.act_for(Some(key), &[]);
            let t = self.env.config.setup_timeout;
            self.out
                .send(Some(&session), "Page.bringToFront", None, Purpose::Quiet, t);
        }
        self.after_input();
        Ok(())
    }

    /// Closes a tab. Without `force`, `Page.close` on its session, which runs its
    /// `beforeunload` handler under the dialog policy (the page may stay: the dialog is
    /// pending like any other); with `force`, `Target.closeTarget`. The outcome arrives as
    /// [`Event::CommandFinished`]; the tab leaves `tabs` when Chromium says it is gone.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.close_tab(0.0, Some("T"), false).unwrap_err().code(), "no_such_tab");
    /// ```
    pub fn close_tab(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        force: bool,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        self.check_command_bound()?;
        let key = self.key_of(tab_id)?;
        let Some(tab) = self.tabs.get(&key) else {
            return Err(CommandError::NotAttached);
        };
        let target = tab.tab_id.to_string();
        let session = tab.page_session_id().map(str::to_owned);
        let t = self.env.config.setup_timeout;
        let id = match session {
            Some(session) if !force && tab.check_not_crashed().is_ok() => {
                self.out.act_for(Some(key), &[]);
                self.out
                    .send(Some(&session), "Page.close", None, Purpose::User, t)
            }
            _ => {
                self.out.act_for(None, &[]);
                let params = to_raw(&cdp::TargetIdParams { target_id: &target });
                self.out.send(
                    None,
                    "Target.closeTarget",
                    params.as_deref(),
                    Purpose::User,
                    t,
                )
            }
        };
        Ok(CommandId(id))
    }

    // ---- the embedder's calls --------------------------------------------------------

    /// Sends `method` into the session that owns `frame_id` in the current tab; `None`
    /// means the top frame (see [`crate::manual::rules`], routing). Its outcome arrives as
    /// exactly one [`Event::CommandFinished`], within `timeout` at the latest.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor, CommandError};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.command(0.0, None, "Runtime.evaluate", None, Duration::from_secs(1)).unwrap_err();
    /// assert_eq!(err, CommandError::NotAttached);
    /// ```
    pub fn command(
        &mut self,
        now: f64,
        frame_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.command_in(now, None, frame_id, method, params, timeout)
    }

    /// [`Supervisor::command`] in tab `tab_id` (`None`: the current tab).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.command_in(0.0, Some("T"), None, "Runtime.evaluate", None, Duration::from_secs(1));
    /// assert_eq!(err.unwrap_err().code(), "no_such_tab");
    /// ```
    pub fn command_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        frame_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        if let Some(p) = params {
            if !p.get().trim_start().starts_with('{') {
                return Err(CommandError::ParamsNotObject {
                    method: method.to_owned(),
                });
            }
        }
        let key = self.key_of(tab_id)?;
        self.check_command_bound()?;
        // A dialog of a tab sharing this tab's renderer blocks it too (Chromium facts: "Tabs
        // that share a renderer").
        let shared_dialog = self.shared_renderer_dialog(key);
        let id = self
            .with_tab(key, |tab, out, _| {
                tab.command(out, frame_id, method, params, timeout)
            })
            .unwrap_or(Err(CommandError::NotAttached))?;
        if let Some(dialog) = shared_dialog {
            self.out.report_blocked(id.0, &dialog);
        }
        Ok(id)
    }

    /// Evaluates a script, or a function on an element, in any frame of the current tab
    /// under one budget (see [`crate::evaluate`] and [`crate::manual::rules`], evaluate).
    /// Its outcome arrives as exactly one [`Event::Evaluated`] within the budget; what
    /// cannot start (no such frame, a stale ref, a dialog already in the way, a crashed
    /// tab, ...) is refused at once.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Evaluation, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.evaluate(0.0, &Evaluation::new("1 + 1")).unwrap_err();
    /// assert_eq!(err.code(), "not_attached");
    /// ```
    pub fn evaluate(&mut self, now: f64, request: &Evaluation) -> Result<CommandId, EvalError> {
        self.evaluate_in(now, None, request)
    }

    /// [`Supervisor::evaluate`] in tab `tab_id` (`None`: the current tab).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Evaluation, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.evaluate_in(0.0, Some("T"), &Evaluation::new("1")).unwrap_err();
    /// assert_eq!(err.code(), "no_such_tab");
    /// ```
    pub fn evaluate_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        request: &Evaluation,
    ) -> Result<CommandId, EvalError> {
        self.out.advance(now);
        let key = self.key_of(tab_id)?;
        if let Some(dialog) = self.shared_renderer_pending(key) {
            return Err(EvalError::Blocked {
                dialog: Box::new(dialog),
            });
        }
        self.with_tab(key, |tab, out, env| tab.evaluate(out, env, request))
            .unwrap_or(Err(EvalError::Command(CommandError::NotAttached)))
    }

    /// Releases a blocked or crashed current tab: a crashed one is reloaded, a blocked one
    /// navigated to its current URL on the page session (see [`crate::manual::rules`],
    /// connection loss and recovery). The outcome arrives as [`Event::CommandFinished`].
    pub fn recover(&mut self, now: f64) -> Result<CommandId, CommandError> {
        self.recover_in(now, None)
    }

    /// [`Supervisor::recover`] of tab `tab_id` (`None`: the current tab).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.recover_in(0.0, None).unwrap_err().code(), "not_attached");
    /// ```
    pub fn recover_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        let key = self.key_of(tab_id)?;
        let id = self
            .with_tab(key, |tab, out, env| tab.recover(out, env))
            .unwrap_or(Err(CommandError::NotAttached));
        self.after_input();
        id
    }

    /// Answers a dialog: `dialog_id` (of any tab) or, without it, the single pending one
    /// (of every tab). Accepting a prompt without text returns its default text. The
    /// outcome arrives as one [`Event::DialogAnswered`].
    ///
    /// ```
    /// use cdp_supervisor::{Answer, Config, DialogError, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.respond_dialog(0.0, Answer::accept(), None), Err(DialogError::NoDialogPending));
    /// ```
    pub fn respond_dialog(
        &mut self,
        now: f64,
        answer: Answer,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        self.respond_dialog_in(now, None, answer, dialog_id)
    }

    /// [`Supervisor::respond_dialog`] among the dialogs of tab `tab_id` (`None`: every
    /// tab's).
    ///
    /// ```
    /// use cdp_supervisor::{Answer, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.respond_dialog_in(0.0, Some("T"), Answer::accept(), None).unwrap_err();
    /// assert_eq!(e.code(), "no_such_tab");
    /// ```
    pub fn respond_dialog_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        answer: Answer,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        self.out.advance(now);
        let key = match (tab_id, dialog_id) {
            (Some(t), _) => self.key_of(Some(t)).map_err(|_| DialogError::NoSuchTab {
                tab_id: t.to_owned(),
            })?,
            (None, Some(d)) => match self.tabs.values().find(|t| t.has_dialog(d)) {
                Some(t) => t.key,
                // Not pending anywhere: the current tab says why (answered, unknown).
                None => self.current.ok_or(DialogError::NoDialogPending)?,
            },
            (None, None) => {
                let mut with_dialogs = self.tabs.values().filter(|t| t.has_pending_dialogs());
                match (with_dialogs.next(), with_dialogs.next()) {
                    (Some(t), None) => t.key,
                    (None, _) => return Err(DialogError::NoDialogPending),
                    (Some(_), Some(_)) => {
                        return Err(DialogError::SeveralPending {
                            pending: self.pending_dialogs().into_iter().map(|d| d.id).collect(),
                        })
                    }
                }
            }
        };
        let r = self
            .with_tab(key, |tab, out, _| {
                tab.respond_dialog(out, &answer, dialog_id)
            })
            .unwrap_or(Err(DialogError::NoDialogPending));
        self.after_input();
        r
    }

    /// The embedder saved a completed download (see [`Event::DownloadCompleted`]): at
    /// `saved`'s path, or not (why). The download finishes (`download_finished`) with that
    /// path or error. Whether the download was waiting for it.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert!(!sup.download_saved(0.0, "no-such-guid", Ok("/tmp/x".into())));
    /// ```
    pub fn download_saved(&mut self, now: f64, id: &str, saved: Result<String, String>) -> bool {
        self.out.advance(now);
        let waiting = self.downloads.saved(&mut self.out, id, saved);
        self.after_input();
        waiting
    }

    /// Answers every pending dialog of every tab that has no answer in flight, for a
    /// planned stop (a dialog left open wedges its tab for the next client). Returns the
    /// answers sent.
    pub fn settle_dialogs(&mut self, now: f64, action: DialogAction) -> Vec<CommandId> {
        self.out.advance(now);
        let keys: Vec<TabKey> = self.tabs.keys().copied().collect();
        let mut sent = Vec::new();
        for key in keys {
            if let Some(ids) = self.with_tab(key, |tab, out, _| tab.settle_dialogs(out, action)) {
                sent.extend(ids);
            }
        }
        sent
    }

    /// Whether any dialog of any tab is pending.
    pub fn has_pending_dialogs(&self) -> bool {
        self.tabs.values().any(|t| t.has_pending_dialogs())
    }

    /// Starts a planned stop. A dialog left open wedges the tab for the next client, so
    /// every pending dialog is answered with `settle` first; then the stop waits until no
    /// dialog is pending and no command or answer of the embedder is in flight (a command
    /// a dialog blocked gets its real reply once the dialog closes), for `grace` at most.
    /// [`Supervisor::ready_to_close`] says when to close the socket;
    /// [`Supervisor::poll_timeout`] includes the grace deadline.
    ///
    /// ```
    /// use cdp_supervisor::{Config, DialogAction, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// sup.begin_stop(0.0, Some(DialogAction::Dismiss), Duration::from_secs(2));
    /// assert!(sup.ready_to_close()); // nothing pending
    /// ```
    pub fn begin_stop(&mut self, now: f64, settle: Option<DialogAction>, grace: Duration) {
        self.out.advance(now);
        if let Some(action) = settle {
            self.settle_dialogs(now, action);
        }
        // A script left running after the detach would keep the tab busy for the next client.
        let keys: Vec<TabKey> = self.tabs.keys().copied().collect();
        for key in keys {
            self.with_tab(key, |tab, out, env| {
                tab.cancel_evaluations(out, env, "the supervisor is stopping")
            });
        }
        if self.stop_deadline.is_none() {
            self.stop_deadline = Some(self.out.now() + grace.as_secs_f64());
        }
        self.after_input();
    }

    /// Whether a planned stop may close the socket now: nothing left to wait for, or its
    /// grace time is up. False when no stop was begun.
    pub fn ready_to_close(&self) -> bool {
        self.stop_deadline.is_some_and(|deadline| {
            self.out.now() >= deadline
                || (!self.has_pending_dialogs()
                    && self.out.commands_in_flight.embedder_count() == 0)
        })
    }

    /// Runs an agent action in the current tab: input as a person gives it, then the page
    /// settles, then a screenshot (see [`crate::manual::rules`], agent actions). A
    /// missing or invalid parameter, a dialog in the way or an unknown frame is an error
    /// before anything is sent; otherwise the outcome arrives as one
    /// [`Event::ActFinished`] with the returned id, naming the tabs the action opened.
    ///
    /// ```
    /// use cdp_supervisor::{act::{Action, ActOptions}, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.act(0.0, Action::Reload, ActOptions::default()).unwrap_err();
    /// assert_eq!(err.code(), "session_gone"); // nothing attached yet
    /// ```
    pub fn act(
        &mut self,
        now: f64,
        action: Action,
        options: ActOptions,
    ) -> Result<CommandId, ActError> {
        self.act_in(now, None, action, options)
    }

    /// [`Supervisor::act`] in tab `tab_id` (`None`: the current tab).
    ///
    /// ```
    /// use cdp_supervisor::{act::{Action, ActOptions}, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let err = sup.act_in(0.0, Some("T"), Action::Reload, ActOptions::default()).unwrap_err();
    /// assert_eq!(err.code(), "no_such_tab");
    /// ```
    pub fn act_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        action: Action,
        options: ActOptions,
    ) -> Result<CommandId, ActError> {
        self.out.advance(now);
        let key = self.key_of(tab_id)?;
        let navigates = matches!(action, Action::Navigate { .. });
        let budget_end = self.out.now() + options.timeout.as_secs_f64();
        if let Some(dialog) = self.shared_renderer_pending(key).filter(|_| !navigates) {
            return Err(ActError::Blocked {
                dialog_id: dialog.id,
            });
        }
        let id = self
            .with_tab(key, |tab, out, env| tab.act(out, env, action, options))
            .unwrap_or(Err(ActError::Command(CommandError::NotAttached)))?;
        self.acts_running.insert(id.0, (key, Vec::new()));
        self.downloads.act_started(id.0, budget_end);
        self.after_input();
        Ok(id)
    }

    /// Changes the dialog policy of every tab (and of tabs opened later); it applies to
    /// dialogs opened afterwards.
    pub fn set_policy(&mut self, policy: DialogPolicy) {
        self.env.config.policy = policy;
        for tab in self.tabs.values_mut() {
            tab.set_policy(policy);
        }
    }

    /// The current dialog policy.
    pub fn policy(&self) -> DialogPolicy {
        self.env.config.policy
    }

    /// The whole observable state (its JSON shape is a contract; see
    /// [`crate::manual::rules`], the snapshot): every tab's dialogs, the current tab's
    /// frames, console and page, every tab, and the other tabs' frame trees.
    pub fn snapshot(&self) -> Snapshot {
        let current = self.current.and_then(|k| self.tabs.get(&k));
        let tab_frame_trees: BTreeMap<String, FrameTree> = self
            .tabs
            .values()
            .filter(|t| Some(t.key) != self.current)
            .map(|t| (t.tab_id.to_string(), t.frame_tree()))
            .collect();
        Snapshot {
            pending_dialogs: self.pending_dialogs(),
            recent_dialogs: self.out.recent_dialogs.iter().cloned().collect(),
            frame_tree: current.map(|t| t.frame_tree()).unwrap_or_default(),
            console_errors: current.map(|t| t.console_entries()).unwrap_or_default(),
            page: current.and_then(|t| t.page_info(&self.env)),
            tabs: self.tabs(),
            tab_frame_trees,
            downloads: self.downloads.list(),
        }
    }

    /// Every tab's pending dialogs, oldest first (dialog numbers grow across tabs).
    fn pending_dialogs(&self) -> Vec<PendingDialog> {
        let mut all: Vec<PendingDialog> = self
            .tabs
            .values()
            .flat_map(|t| t.pending_dialogs().cloned())
            .collect();
        all.sort_by_key(|d| dialog_number(&d.id));
        all
    }

    /// Starts an accessibility snapshot of the whole current tab, OOPIFs included (see
    /// [`crate::ax`] and [`crate::manual::rules`], accessibility). Its outcome arrives as
    /// exactly one [`Event::AxSnapshot`] under the returned id, within `options.timeout`.
    ///
    /// ```
    /// use cdp_supervisor::{ax::{AxError, AxOptions}, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.ax_snapshot(0.0, AxOptions::default()).unwrap_err(), AxError::NotAttached);
    /// ```
    pub fn ax_snapshot(&mut self, now: f64, options: AxOptions) -> Result<CommandId, AxError> {
        self.ax_snapshot_in(now, None, options)
    }

    /// [`Supervisor::ax_snapshot`] of tab `tab_id` (`None`: the current tab). Refs are
    /// per tab.
    ///
    /// ```
    /// use cdp_supervisor::{ax::AxOptions, Config, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.ax_snapshot_in(0.0, Some("T"), AxOptions::default()).unwrap_err();
    /// assert_eq!(e.code(), "no_such_tab");
    /// ```
    pub fn ax_snapshot_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        options: AxOptions,
    ) -> Result<CommandId, AxError> {
        self.out.advance(now);
        let key = self.ax_key(tab_id)?;
        // A dialog of a tab sharing this tab's renderer holds its top frame (Chromium facts:
        // "Tabs that share a renderer"); the
        // tab's own dialogs are weighed per frame by the snapshot (Chromium facts: "A dialog
        // blocks its renderer").
        if let Some(dialog) = self.shared_renderer_pending(key) {
            let top = self.tabs.get(&key).map(|t| t.tab_id.to_string());
            return Err(AxError::Blocked {
                frame_id: options.frame_id.clone().or(top).unwrap_or_default(),
                dialog: Box::new(dialog),
            });
        }
        self.with_tab(key, |tab, out, env| tab.ax_snapshot(out, env, &options))
            .unwrap_or(Err(AxError::NotAttached))
    }

    /// Resolves a ref of the current tab's last accessibility snapshot to its node now:
    /// the frame, the session to send commands on and the `backendNodeId`; a `stale_ref`
    /// error when its frame navigated or went away (take a new snapshot).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.resolve_ref("e1").unwrap_err().code(), "stale_ref");
    /// ```
    pub fn resolve_ref(&self, reference: &str) -> Result<ResolvedRef, AxError> {
        self.resolve_ref_in(None, reference)
    }

    /// [`Supervisor::resolve_ref`] in tab `tab_id` (`None`: the current tab).
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.resolve_ref_in(Some("T"), "e1").unwrap_err().code(), "no_such_tab");
    /// ```
    pub fn resolve_ref_in(
        &self,
        tab_id: Option<&str>,
        reference: &str,
    ) -> Result<ResolvedRef, AxError> {
        match tab_id {
            Some(t) => match self.by_target.get(t).and_then(|k| self.tabs.get(k)) {
                Some(tab) => tab.resolve_ref(reference),
                None => Err(AxError::NoSuchTab {
                    tab_id: t.to_owned(),
                }),
            },
            None => match self.current.and_then(|k| self.tabs.get(&k)) {
                Some(tab) => tab.resolve_ref(reference),
                None => Err(AxError::StaleRef {
                    reference: reference.to_owned(),
                    why: "no tab is attached, so no snapshot names it".to_owned(),
                }),
            },
        }
    }

    /// Resolves a ref against a fresh tree of its frame: its node if it is still shown,
    /// else the node with the same `(role, name, nth)` (a re-render replaced it; the ref
    /// names that node from now on), else `stale_ref`. The outcome arrives as exactly one
    /// [`Event::RefResolved`] under the returned id, within `timeout`; a ref whose frame
    /// navigated or went away fails at once.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.resolve_ref_fresh(0.0, "e1", Duration::from_secs(5)).unwrap_err();
    /// assert_eq!(e.code(), "stale_ref");
    /// ```
    pub fn resolve_ref_fresh(
        &mut self,
        now: f64,
        reference: &str,
        timeout: Duration,
    ) -> Result<CommandId, AxError> {
        self.resolve_ref_fresh_in(now, None, reference, timeout)
    }

    /// [`Supervisor::resolve_ref_fresh`] in tab `tab_id` (`None`: the current tab).
    pub fn resolve_ref_fresh_in(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        reference: &str,
        timeout: Duration,
    ) -> Result<CommandId, AxError> {
        self.out.advance(now);
        let key = match self.ax_key(tab_id) {
            Ok(k) => k,
            Err(AxError::NotAttached) => {
                return Err(AxError::StaleRef {
                    reference: reference.to_owned(),
                    why: "no tab is attached, so no snapshot names it".to_owned(),
                })
            }
            Err(e) => return Err(e),
        };
        self.with_tab(key, |tab, out, env| {
            tab.resolve_ref_fresh(out, env, reference, timeout)
        })
        .unwrap_or(Err(AxError::NotAttached))
    }

    /// Tab `tab_id`'s console lines of every level (`None`: the current tab) from index
    /// `since` on, oldest first: the tab keeps its last
    /// [`MAX_CONSOLE_HISTORY`](crate::limits::MAX_CONSOLE_HISTORY), numbered from 0, so a
    /// reader asks again from the answer's `next` and learns in `dropped` how many it
    /// missed. No tab attached: nothing. The history goes with its tab.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert!(sup.console_since(None, 0)?.lines.is_empty());
    /// assert_eq!(sup.console_since(Some("T"), 0).unwrap_err().code(), "no_such_tab");
    /// # Ok::<(), cdp_supervisor::CommandError>(())
    /// ```
    pub fn console_since(
        &self,
        tab_id: Option<&str>,
        since: u64,
    ) -> Result<crate::ConsoleSince, CommandError> {
        let key = match tab_id {
            Some(t) => match self.by_target.get(t) {
                Some(k) => Some(*k),
                None => {
                    return Err(CommandError::NoSuchTab {
                        tab_id: t.to_owned(),
                    })
                }
            },
            None => self.current,
        };
        Ok(key
            .and_then(|k| self.tabs.get(&k))
            .map(|tab| tab.console_since(since))
            .unwrap_or_default())
    }

    /// The current tab's page entry (the snapshot's `page`), without building a
    /// snapshot.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// assert!(Supervisor::new(Config::default()).page().is_none());
    /// ```
    pub fn page(&self) -> Option<crate::PageInfo> {
        self.current
            .and_then(|k| self.tabs.get(&k))
            .and_then(|t| t.page_info(&self.env))
    }

    /// The current tab's page session, once attached.
    pub fn page_session_id(&self) -> Option<&str> {
        self.current
            .and_then(|k| self.tabs.get(&k))
            .and_then(|t| t.page_session_id())
    }

    /// Sizes of the internal tables (summed over tabs), for bounds checks in tests and
    /// benchmarks.
    #[doc(hidden)]
    pub fn table_sizes(&self) -> TableSizes {
        let mut sizes = TableSizes {
            frames: 0,
            sessions: 0,
            commands_in_flight: self.out.commands_in_flight.len(),
            pending_dialogs: 0,
            recent_dialogs: self.out.recent_dialogs.len(),
            console_errors: 0,
            queued_transmits: self.out.transmits.len(),
            queued_events: self.out.events.len(),
        };
        for t in self.tabs.values() {
            let (frames, sessions, pending, _recent, console) = t.table_sizes();
            sizes.frames += frames;
            sizes.sessions += sessions;
            sizes.pending_dialogs += pending;
            sizes.console_errors += console;
        }
        sizes
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.env.config
    }

    // ---- replies: to their tab, or the browser's own ---------------------------------

    fn on_reply(
        &mut self,
        id: u64,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Result<(), InputError> {
        let Some(cmd) = self.out.commands_in_flight.remove(id) else {
            return Err(InputError::UnknownReply { id });
        };
        match cmd.tab {
            Some(key) => self
                .with_tab(key, |tab, out, env| {
                    tab.on_reply(out, env, id, cmd, result, error)
                })
                .unwrap_or(Ok(())),
            None => self.on_browser_reply(id, cmd, result, error),
        }
    }

    fn on_browser_reply(
        &mut self,
        id: u64,
        cmd: InFlight,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Result<(), InputError> {
        let outcome = CdpError::reply_outcome(result, error);
        if let Some(context) = self.contexts.on_reply(id, &outcome) {
            self.remove_context_tabs(&context);
        }
        match (cmd.purpose, outcome) {
            (Purpose::User, outcome) => {
                if let (true, Ok(r)) = (cmd.method == "Target.createTarget", &outcome) {
                    let created: cdp::CreateTargetResult<'_> = parse("Target.createTarget", *r)?;
                    self.select_when_attached(&created.target_id);
                }
                if let (true, Ok(r)) = (cmd.method == "Target.createBrowserContext", &outcome) {
                    // Sent before the caller can open a tab in it: Chromium runs the
                    // browser's commands in order.
                    let made: cdp::CreateBrowserContextResult<'_> =
                        parse("Target.createBrowserContext", *r)?;
                    self.set_up_browser_context(Some(&made.browser_context_id));
                }
                self.out.command_replied(id, &cmd.method, outcome);
                Ok(())
            }
            (Purpose::Browser(step::GET_TARGETS), Ok(r)) => self.on_targets(r),
            (Purpose::Browser(step::OPEN_FRESH), Ok(r)) => {
                let created: cdp::CreateTargetResult<'_> = parse("Target.createTarget", r)?;
                self.select_when_attached(&created.target_id);
                Ok(())
            }
            (Purpose::Browser(step::OPEN_FRESH), Err(e)) => {
                let message = e.message;
                self.out.warn(Warning::NoTabAfterReconnect { message });
                Ok(())
            }
            (Purpose::Browser(step::TARGET_INFO), Ok(r)) => {
                #[derive(serde::Deserialize)]
                struct Info<'a> {
                    #[serde(rename = "targetInfo", borrow)]
                    target_info: cdp::TargetInfo<'a>,
                }
                let info: Info<'_> = parse("Target.getTargetInfo", r)?;
                self.on_target_info(&info.target_info);
                Ok(())
            }
            (Purpose::Browser(step::LET_GO), _) | (Purpose::Browser(_), Ok(_)) => Ok(()),
            (_, Err(e)) => {
                self.out.warn(Warning::SetupFailed {
                    method: cmd.method,
                    session_id: cmd.session_id,
                    message: e.message,
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `Target.getTargets` answered: attach the tab we had, else the configured one, else
    /// the first page; then let the browser attach every other page (and every page opened
    /// later, paused before its first script).
    fn on_targets(&mut self, result: Option<&RawValue>) -> Result<(), InputError> {
        let targets: cdp::GetTargetsResult<'_> = parse("Target.getTargets", result)?;
        let mut pages = targets.target_infos.iter().filter(|t| t.kind == "page");
        let had = self
            .current
            .and_then(|k| self.tabs.get(&k))
            .map(|t| t.tab_id.to_string());
        let wanted = had.clone().or_else(|| self.env.config.target_id.clone());
        let chosen = match &wanted {
            Some(w) => pages.clone().find(|t| t.target_id == w.as_str()),
            None => pages.next(),
        };
        // The tab we had is gone after a reconnect (a new browser behind the endpoint):
        // supervise the browser's page instead, or open one; never sit detached.
        let fresh = match (&had, chosen) {
            (Some(old), None) => Some(old.clone()),
            _ => None,
        };
        let chosen = chosen.or_else(|| fresh.as_ref().and_then(|_| pages.next()));
        if let Some(old_tab_id) = fresh {
            self.on_fresh_browser(old_tab_id, chosen.map(|c| c.target_id.to_string()));
        }
        match chosen {
            Some(chosen) => {
                let target = chosen.target_id.to_string();
                let url = chosen.url.as_deref().unwrap_or("").to_owned();
                if had.as_deref() != Some(target.as_str()) {
                    // A new browser behind the endpoint, or the first connect.
                    if let Some(old) = self.current.take() {
                        self.remove_tab(old);
                    }
                }
                let title = chosen.title.as_deref();
                let context = chosen.browser_context_id.as_deref();
                let key = match self.by_target.get(&target) {
                    Some(k) => *k,
                    None => self.add_tab(&target, None, &url, title, false, context),
                };
                if let Some(tab) = self.tabs.get_mut(&key) {
                    tab.target_url.clone_from(&url);
                    if let Some(context) = context {
                        tab.browser_context_id = Some(context.to_owned());
                    }
                    if let Some(title) = chosen.title.as_deref() {
                        tab.title = title.to_owned();
                    }
                }
                self.make_current(key);
                self.with_tab(key, |tab, out, env| tab.attach(out, env, &url));
            }
            None if self.current.is_none() && had.is_some() => {} // opening one
            None => {
                self.out.warn(Warning::NoPageTarget { wanted });
                if let Some(key) = self.current {
                    self.with_tab(key, |tab, out, env| tab.on_disconnected(out, env));
                }
            }
        }
        self.out.act_for(None, &[]);
        let t = self.env.config.setup_timeout;
        let auto_attach = to_raw(&cdp::SetAutoAttachParams {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: true,
        });
        self.out.send(
            None,
            "Target.setAutoAttach",
            auto_attach.as_deref(),
            Purpose::Browser(step::AUTO_ATTACH),
            t,
        );
        let discover = to_raw(&cdp::DiscoverTargetsParams { discover: true });
        self.out.send(
            None,
            "Target.setDiscoverTargets",
            discover.as_deref(),
            Purpose::Browser(step::DISCOVER),
            t,
        );
        Ok(())
    }

    /// The tab we had is not in the browser we reconnected to: it goes, with everything
    /// it held (`tab_closed`), and the embedder is told (`fresh_browser`). With no page
    /// to supervise (`new_tab` `None`), one is opened; it becomes current when it attaches.
    fn on_fresh_browser(&mut self, old_tab_id: String, new_tab: Option<String>) {
        if let Some(old) = self.current.take() {
            self.remove_tab(old);
        }
        if new_tab.is_none() {
            let params = to_raw(&cdp::CreateTargetParams {
                url: "about:blank",
                browser_context_id: None,
            });
            let t = self.env.config.setup_timeout;
            self.out.send(
                None,
                "Target.createTarget",
                params.as_deref(),
                Purpose::Browser(step::OPEN_FRESH),
                t,
            );
        }
        self.out.warn(Warning::FreshBrowser {
            old_tab_id,
            tab_id: new_tab,
        });
    }

    /// A target's URL and title, from `targetInfoChanged` or `getTargetInfo`.
    fn on_target_info(&mut self, info: &cdp::TargetInfo<'_>) {
        let Some(key) = self.by_target.get(info.target_id.as_ref()).copied() else {
            return;
        };
        if let Some(tab) = self.tabs.get_mut(&key) {
            if let Some(url) = info.url.as_deref() {
                url.clone_into(&mut tab.target_url);
            }
            if let Some(title) = info.title.as_deref() {
                title.clone_into(&mut tab.title);
            }
            if let Some(context) = info.browser_context_id.as_deref() {
                if tab.browser_context_id.as_deref() != Some(context) {
                    tab.browser_context_id = Some(context.to_owned());
                }
            }
        }
        self.update_tab_info(key);
    }

    // ---- events: to the tab that owns the session, or the browser's ------------------

    fn on_event(
        &mut self,
        method: &str,
        session: Option<&str>,
        event: &mut CdpEvent<'_>,
    ) -> Result<(), InputError> {
        use CdpEvent as E;
        let key = match (&*event, session) {
            (E::AttachedToTarget(_), None) => return self.on_browser_attached(event),
            (E::DownloadWillBegin(ev), _) => {
                let key = self
                    .tabs
                    .values()
                    .find(|t| t.has_frame(&ev.frame_id))
                    .map(|t| t.key);
                let tab_id = key
                    .and_then(|k| self.tabs.get(&k))
                    .map(|t| t.tab_id.clone());
                let act = key.and_then(|k| {
                    let mut acts = self.acts_running.iter().filter(|(_, (t, _))| *t == k);
                    acts.next_back().map(|(id, _)| *id)
                });
                self.downloads.on_will_begin(&mut self.out, tab_id, act, ev);
                return Ok(());
            }
            (E::DownloadProgress(ev), _) => {
                let (config, t) = (
                    self.env.config.downloads.as_ref(),
                    self.env.config.setup_timeout,
                );
                self.downloads.on_progress(&mut self.out, config, t, ev);
                return Ok(());
            }
            (E::TargetInfoChanged(ev), _) => {
                let info = &ev.target_info;
                self.on_target_info(info);
                return Ok(());
            }
            (E::TargetDestroyed(ev), _) => {
                let target = ev.target_id.to_string();
                self.on_target_gone(&target);
                return Ok(());
            }
            // The params name the session; the envelope may be the browser or a parent.
            (E::DetachedFromTarget(ev), _) => self.owner_of(&ev.session_id),
            (_, Some(s)) => self.owner_of(s),
            (_, None) => None,
        };
        let Some(key) = key else {
            return match &*event {
                // A session already dropped with its frame or tab.
                E::DetachedFromTarget(_) => Ok(()),
                // A child under a parent nobody tracks: never leave a frame frozen.
                E::AttachedToTarget(ev) => {
                    if ev.waiting_for_debugger {
                        self.resume(&ev.session_id);
                    }
                    Err(InputError::UnknownSession {
                        method: method.to_owned(),
                        session_id: session.unwrap_or("(browser)").to_owned(),
                    })
                }
                _ => Err(InputError::UnknownSession {
                    method: method.to_owned(),
                    session_id: session.unwrap_or("(browser)").to_owned(),
                }),
            };
        };
        let page_gone = matches!(&*event, E::DetachedFromTarget(ev)
            if self.tabs.get(&key).and_then(|t| t.page_session_id()) == Some(ev.session_id.as_ref()));
        let dialog = matches!(&*event, E::DialogOpening(_) | E::RequestPaused(_));
        let sharing = if dialog {
            self.sharing_renderer(key)
        } else {
            Vec::new()
        };
        let crashed = matches!(&*event, E::TargetCrashed);
        // A page's load: its title is known now (no event says so: Chromium facts, "A crash, a
        // title, a reload").
        let loaded = matches!(&*event, E::LoadEventFired)
            && session.is_some()
            && self.tabs.get(&key).and_then(|t| t.page_session_id()) == session;
        // Only a dialog event can open a dialog that other tabs must hear of.
        let newest_before = if sharing.is_empty() {
            None
        } else {
            self.tabs
                .get(&key)
                .and_then(|t| t.newest_pending().map(str::to_owned))
        };
        let r = self
            .with_tab_sharing(key, &sharing, |tab, out, env| {
                tab.on_event(out, env, method, session, event)
            })
            .unwrap_or(Ok(()));
        // A child (an OOPIF, a worker) the tab now tracks is routed to it.
        if let E::AttachedToTarget(ev) = &*event {
            if self
                .tabs
                .get(&key)
                .is_some_and(|t| t.owns_session(&ev.session_id))
            {
                let child = ev.session_id.to_string();
                self.route_session(&child, key);
            }
        }
        // A new dialog stalls the running actions and evaluates of the tabs that share its
        // renderer too (Chromium facts: "Tabs that share a renderer"): they end as blocked, as
        // by one of their own.
        let opened = self
            .tabs
            .get(&key)
            .filter(|_| !sharing.is_empty())
            .and_then(|t| t.newest_unanswered().cloned())
            .filter(|d| Some(&d.id) != newest_before.as_ref());
        if let Some(dialog) = opened {
            for other in sharing {
                self.with_tab(other, |tab, out, env| {
                    tab.on_shared_dialog(out, env, &dialog)
                });
            }
        }
        if page_gone {
            // The tab's target is gone (closed, or detached by someone else). The last
            // tab stays, detached, so that a one-tab client sees what it always saw.
            if self.tabs.len() > 1 {
                self.remove_tab(key);
            }
        } else if crashed {
            self.update_tab_info(key);
        } else if loaded {
            self.ask_target_info(key);
        }
        r
    }

    /// `Target.getTargetInfo` for a tab's title.
    fn ask_target_info(&mut self, key: TabKey) {
        let Some(target) = self.tabs.get(&key).map(|t| t.tab_id.to_string()) else {
            return;
        };
        self.out.act_for(None, &[]);
        let params = to_raw(&cdp::TargetIdParams { target_id: &target });
        let t = self.env.config.setup_timeout;
        self.out.send(
            None,
            "Target.getTargetInfo",
            params.as_deref(),
            Purpose::Browser(step::TARGET_INFO),
            t,
        );
    }

    /// A page the browser attached (auto-attach, or our own `attachToTarget`): a new tab,
    /// or the session of a tab that is attaching.
    fn on_browser_attached(&mut self, event: &CdpEvent<'_>) -> Result<(), InputError> {
        let CdpEvent::AttachedToTarget(ev) = event else {
            return Ok(());
        };
        let info = &ev.target_info;
        let session = ev.session_id.as_ref();
        let waiting = ev.waiting_for_debugger;
        if info.kind != "page" {
            // Not a tab (`browser_ui`, workers of the browser): never leave it frozen,
            // and let it go.
            self.let_go(session, waiting);
            return Ok(());
        }
        let target = info.target_id.as_ref();
        if let Some(key) = self.by_target.get(target).copied() {
            let Some(tab) = self.tabs.get(&key) else {
                return Ok(());
            };
            if tab.is_attaching() {
                self.with_tab(key, |tab, out, env| tab.on_page_attached(out, env, session));
            } else if tab.page_session_id() != Some(session) {
                // A second session for a page we hold (our attach and the auto-attach
                // raced): keep the first.
                self.let_go(session, waiting);
            }
            return Ok(());
        }
        // The last tab stayed after its target was destroyed, for a one-tab client: with
        // another page, it is gone (and no longer takes the calls that name no tab).
        if let Some(dead) = self.destroyed_last.take() {
            self.remove_tab(dead);
        }
        if self.tabs.len() >= self.env.config.max_tabs {
            if self.over_bound.len() < self.env.config.max_tabs
                && self.over_bound.insert(target.to_owned())
            {
                self.out.warn(Warning::TabCapReached {
                    limit: self.env.config.max_tabs,
                    target_id: target.to_owned(),
                });
            }
            self.let_go(session, waiting);
            return Ok(());
        }
        let opener = info
            .opener_id
            .as_deref()
            .filter(|o| self.by_target.contains_key(*o))
            .map(str::to_owned);
        let url = info.url.as_deref().unwrap_or("");
        let title = info.title.as_deref();
        let access = info.can_access_opener;
        let context = info.browser_context_id.as_deref();
        let key = self.add_tab(target, opener.as_deref(), url, title, access, context);
        self.with_tab(key, |tab, out, env| {
            tab.adopt_session(out, env, session, waiting)
        });
        self.session_owner.insert(session.to_owned(), key);
        // A tab opened by the current tab comes to the front, as a person sees it; its
        // opener's running actions name it.
        let opener_key = opener
            .as_deref()
            .and_then(|o| self.by_target.get(o).copied());
        if let Some(opener_key) = opener_key {
            for (tab, opened) in self.acts_running.values_mut() {
                if *tab == opener_key && opened.len() < crate::limits::DEFAULT_MAX_TABS {
                    opened.push(target.to_owned());
                }
            }
        }
        let by_current = opener_key.is_some() && opener_key == self.current;
        let asked = self.select_on_attach.as_deref() == Some(target);
        if by_current || asked || self.current.is_none() {
            if asked {
                self.select_on_attach = None;
            }
            self.make_current(key);
        }
        Ok(())
    }

    /// A tab the embedder opened: current as soon as it is a tab.
    fn select_when_attached(&mut self, target: &str) {
        match self.by_target.get(target).copied() {
            Some(key) => self.make_current(key),
            None => self.select_on_attach = Some(target.to_owned()),
        }
    }

    /// A target Chromium destroyed: its tab goes (the last one stays, detached, until
    /// another page attaches).
    fn on_target_gone(&mut self, target: &str) {
        if let Some(key) = self.by_target.get(target).copied() {
            if self.tabs.len() > 1 {
                self.remove_tab(key);
            } else {
                self.with_tab(key, |tab, out, env| tab.on_closed(out, env));
                self.destroyed_last = Some(key);
            }
        }
    }

    /// Resumes a target that waits for the debugger.
    fn resume(&mut self, session: &str) {
        self.out.act_for(None, &[]);
        let t = self.env.config.setup_timeout;
        self.out.send(
            Some(session),
            "Runtime.runIfWaitingForDebugger",
            None,
            Purpose::Browser(step::LET_GO),
            t,
        );
    }

    /// Resumes a target we do not keep (when it waits) and detaches from it.
    fn let_go(&mut self, session: &str, waiting: bool) {
        if waiting {
            self.resume(session);
        }
        let t = self.env.config.setup_timeout;
        let params = to_raw(&cdp::DetachFromTargetParams {
            session_id: session,
        });
        self.out.send(
            None,
            "Target.detachFromTarget",
            params.as_deref(),
            Purpose::Browser(step::LET_GO),
            t,
        );
    }

    // ---- the tab table ---------------------------------------------------------------

    fn add_tab(
        &mut self,
        target: &str,
        opener: Option<&str>,
        url: &str,
        title: Option<&str>,
        opener_access: bool,
        context: Option<&str>,
    ) -> TabKey {
        self.last_key += 1;
        let key = TabKey(self.last_key);
        let mut tab = TabSupervisor::new(key, target, opener, &self.env);
        url.clone_into(&mut tab.target_url);
        tab.browser_context_id = context.map(str::to_owned);
        tab.title = title.unwrap_or_default().to_owned();
        tab.opener_access = opener_access;
        self.tabs.insert(key, tab);
        self.by_target.insert(target.to_owned(), key);
        let info = self.tabs.get(&key).map(|t| t.info(&self.env, false));
        if let Some(info) = info {
            if let Some(t) = self.tabs.get_mut(&key) {
                t.last_info = Some(info.clone());
            }
            self.out.emit(Event::Diff(Diff::TabOpened { tab: info }));
        }
        key
    }

    /// Forgets a tab: its commands end, its dialogs close `remote`, its frames go; the
    /// current tab passes to its opener, else the most recently current tab.
    fn remove_tab(&mut self, key: TabKey) {
        let Some(tab) = self.tabs.get(&key) else {
            return;
        };
        let opener = tab
            .opener
            .as_deref()
            .and_then(|o| self.by_target.get(o).copied());
        let tab_id = tab.tab_id.to_string();
        let ids: Vec<(u64, InFlight)> = {
            let mine: Vec<u64> = self
                .out
                .commands_in_flight
                .iter()
                .filter(|(_, c)| c.tab == Some(key))
                .map(|(id, _)| id)
                .collect();
            mine.into_iter()
                .filter_map(|id| self.out.commands_in_flight.remove(id).map(|c| (id, c)))
                .collect()
        };
        for (id, cmd) in ids {
            let error = CommandError::SessionGone {
                method: cmd.method.clone(),
                session_id: cmd.session_id.clone().unwrap_or_default(),
                reason: crate::error::SessionGoneReason::Detached,
            };
            self.fail_command(id, cmd, error);
        }
        self.with_tab(key, |tab, out, env| tab.on_closed(out, env));
        self.tabs.remove(&key);
        self.by_target.remove(&tab_id);
        self.session_owner.retain(|_, k| *k != key);
        self.tab_deadlines.set(key, None);
        self.recently_current.retain(|k| *k != key);
        let gone: Vec<u64> = self
            .acts_running
            .iter()
            .filter(|(_, (k, _))| *k == key)
            .map(|(id, _)| *id)
            .collect();
        for act in gone {
            self.acts_running.remove(&act);
            self.downloads.act_gone(act);
        }
        self.over_bound.clear();
        if self.destroyed_last == Some(key) {
            self.destroyed_last = None;
        }
        self.out.emit(Event::Diff(Diff::TabClosed { tab_id }));
        if self.current == Some(key) {
            self.current = None;
            let next = opener
                .filter(|o| self.tabs.contains_key(o))
                .or_else(|| self.recently_current.last().copied())
                .or_else(|| self.tabs.keys().next().copied());
            match next {
                Some(next) => self.make_current(next),
                None => self.emit_current(),
            }
        }
    }

    fn make_current(&mut self, key: TabKey) {
        if !self.tabs.contains_key(&key) {
            return;
        }
        let before = self.current;
        self.current = Some(key);
        self.recently_current.retain(|k| *k != key);
        self.recently_current.push(key);
        self.emit_current();
        if let Some(before) = before.filter(|b| *b != key) {
            self.update_tab_info(before);
        }
        self.update_tab_info(key);
    }

    /// A `current_tab` diff when the current tab changed since the last one.
    fn emit_current(&mut self) {
        if self.current_emitted_key.is_some() && self.current_emitted_key == self.current {
            return;
        }
        self.current_emitted_key = self.current;
        if self.current_emitted.as_deref() == self.current_tab() {
            return;
        }
        let now = self.current_tab().map(str::to_owned);
        {
            self.current_emitted.clone_from(&now);
            self.out.emit(Event::Diff(Diff::CurrentTab { tab_id: now }));
        }
    }

    /// A `tab_updated` diff when the tab's entry changed.
    fn update_tab_info(&mut self, key: TabKey) {
        let current = Some(key) == self.current;
        let Some(tab) = self.tabs.get_mut(&key) else {
            return;
        };
        if tab.info_changed(&self.env, current) {
            let info = tab.info(&self.env, current);
            tab.last_info = Some(info.clone());
            self.out.emit(Event::Diff(Diff::TabUpdated { tab: info }));
        }
    }

    /// The tab a call names (`None`: the current one).
    fn key_of(&self, tab_id: Option<&str>) -> Result<TabKey, CommandError> {
        match tab_id {
            Some(t) => self
                .by_target
                .get(t)
                .copied()
                .ok_or_else(|| CommandError::NoSuchTab {
                    tab_id: t.to_owned(),
                }),
            None => self.current.ok_or(CommandError::NotAttached),
        }
    }

    fn ax_key(&self, tab_id: Option<&str>) -> Result<TabKey, AxError> {
        self.key_of(tab_id).map_err(|e| match e {
            CommandError::NoSuchTab { tab_id } => AxError::NoSuchTab { tab_id },
            _ => AxError::NotAttached,
        })
    }

    fn check_command_bound(&self) -> Result<(), CommandError> {
        let limit = self.env.config.max_commands_in_flight;
        if self.out.commands_in_flight.embedder_count() >= limit {
            return Err(CommandError::TooManyInFlight { limit });
        }
        Ok(())
    }

    /// The tab that owns `session`: the routing table, checked against the tab (a
    /// session that went is dropped from it on its next message).
    fn owner_of(&mut self, session: &str) -> Option<TabKey> {
        // A busy page's messages come in runs from one session: the last route first.
        if let Some((last, key, removals)) = &self.last_route {
            if last.as_str() == session
                && self
                    .tabs
                    .get(key)
                    .is_some_and(|t| t.sessions_removals() == *removals)
            {
                return Some(*key);
            }
        }
        let key = self.session_owner.get(session).copied()?;
        let Some(tab) = self.tabs.get(&key).filter(|t| t.owns_session(session)) else {
            self.session_owner.remove(session);
            return None;
        };
        let removals = tab.sessions_removals();
        match &mut self.last_route {
            Some((last, k, r)) => {
                last.clear();
                last.push_str(session);
                *k = key;
                *r = removals;
            }
            None => self.last_route = Some((session.to_owned(), key, removals)),
        }
        Some(key)
    }

    /// Routes `session` to `key` from now on. Sessions that went leave stale entries
    /// behind (dropped on their next message); past twice the sessions the tabs hold, the
    /// table is rebuilt from them, so it stays bounded.
    fn route_session(&mut self, session: &str, key: TabKey) {
        if self.session_owner.get(session) == Some(&key) {
            return;
        }
        if self.session_owner.len() >= 2 * self.session_bound() {
            self.session_owner.clear();
            for t in self.tabs.values() {
                for s in t.session_ids() {
                    self.session_owner.insert(s, t.key);
                }
            }
        }
        self.session_owner.insert(session.to_owned(), key);
    }

    /// The routing table's bound before a rebuild: the sessions the tabs may hold.
    fn session_bound(&self) -> usize {
        64 + self.tabs.values().map(|t| t.session_count()).sum::<usize>()
    }

    /// Tabs that share `key`'s renderer process: a tab and its opener (or its popups)
    /// when the popup can reach its opener and they are on the same site (see [`crate::manual::chromium_facts`], tabs that
    /// share a renderer share its stalls). Same host stands for same site.
    fn sharing_renderer(&self, key: TabKey) -> Vec<TabKey> {
        let Some(tab) = self.tabs.get(&key) else {
            return Vec::new();
        };
        let Some(site) = tab.site() else {
            return Vec::new();
        };
        self.tabs
            .values()
            .filter(|other| other.key != key)
            .filter(|other| {
                // A popup that can reach its opener shares its process (a `noopener`
                // one, such as a `target=_blank` link's, does not).
                let related = (other.opener_access
                    && other.opener.as_deref() == Some(&*tab.tab_id))
                    || (tab.opener_access && tab.opener.as_deref() == Some(&*other.tab_id));
                related && other.site().as_deref() == Some(site.as_str())
            })
            .map(|other| other.key)
            .collect()
    }

    /// The newest pending dialog of a tab that shares `key`'s renderer, if any.
    fn shared_renderer_dialog(&self, key: TabKey) -> Option<String> {
        self.sharing_renderer(key)
            .into_iter()
            .filter_map(|k| self.tabs.get(&k)?.newest_pending().map(str::to_owned))
            .max_by_key(|id| dialog_number(id))
    }

    fn shared_renderer_pending(&self, key: TabKey) -> Option<PendingDialog> {
        let id = self.shared_renderer_dialog(key)?;
        self.tabs
            .values()
            .flat_map(|t| t.pending_dialogs())
            .find(|d| d.id == id)
            .cloned()
    }

    /// Ends a command that got no reply: its tab hears why (or the browser, for its own).
    fn fail_command(&mut self, id: u64, cmd: InFlight, error: CommandError) {
        match cmd.tab {
            Some(key) if self.tabs.contains_key(&key) => {
                self.with_tab(key, |tab, out, env| {
                    tab.fail_command(out, env, id, cmd, error)
                });
            }
            _ => {
                self.contexts.failed(id);
                if cmd.purpose == Purpose::User {
                    self.out.command_finished(id, Err(error));
                } else if cmd.purpose == Purpose::Browser(step::OPEN_FRESH)
                    && matches!(error, CommandError::Timeout { .. })
                {
                    // (A disconnect meanwhile is not fatal: the next connect starts over.)
                    let message = error.to_string();
                    self.out.warn(Warning::NoTabAfterReconnect { message });
                }
            }
        }
    }

    /// Runs `f` on tab `key` with the connection's outbox lent to it; afterwards, the
    /// tab's page entry and deadline are brought up to date.
    fn with_tab<R>(
        &mut self,
        key: TabKey,
        f: impl FnOnce(&mut TabSupervisor, &mut Outbox, &TabEnv) -> R,
    ) -> Option<R> {
        self.with_tab_sharing(key, &[], f)
    }

    fn with_tab_sharing<R>(
        &mut self,
        key: TabKey,
        sharing: &[TabKey],
        f: impl FnOnce(&mut TabSupervisor, &mut Outbox, &TabEnv) -> R,
    ) -> Option<R> {
        let tab = self.tabs.get_mut(&key)?;
        self.out.act_for(Some(key), sharing);
        let mark = self.out.events.len();
        let r = f(tab, &mut self.out, &self.env);
        tab.update_page(&mut self.out, &self.env);
        let deadline = tab.next_deadline();
        // The page session, once the tab knows it (from its attach's reply or event). The
        // last route answers for a busy page's own messages without hashing.
        let routed_last =
            |s: &str| matches!(&self.last_route, Some((l, k, _)) if l == s && *k == key);
        let page_session = tab
            .page_session_id()
            .filter(|s| !routed_last(s) && !self.session_owner.contains_key(*s))
            .map(str::to_owned);
        if let Some(s) = page_session {
            self.route_session(&s, key);
        }
        self.out.act_for(None, &[]);
        self.tab_deadlines.set(key, deadline);
        // Whatever changes a tab's entry (its page entry, its top frame's URL) comes with a
        // diff; an input that emitted nothing, or only console errors (most console calls),
        // changed nothing of it.
        if self.out.events.len() > mark {
            self.after_tab_events(key, mark);
            let only_console = self
                .out
                .events
                .iter()
                .skip(mark)
                .all(|e| matches!(e, Event::Diff(Diff::ConsoleError { .. })));
            if !only_console {
                self.update_tab_info(key);
            }
        }
        Some(r)
    }

    /// What the browser reads off a tab's new events: a page entry that changed its
    /// `tabs` entry, an action's answer that must name the tabs it opened.
    fn after_tab_events(&mut self, key: TabKey, mark: usize) {
        if self.acts_running.is_empty() {
            return;
        }
        let mut title = None;
        for event in self.out.events.iter_mut().skip(mark) {
            if let Event::ActFinished { id, outcome } = event {
                if let Some((_, opened)) = self.acts_running.remove(&id.0) {
                    if let Ok(result) = outcome {
                        result.opened_tabs = opened;
                        // The title the action read is the freshest the tab has.
                        if !result.title.is_empty() {
                            title = Some(result.title.clone());
                        }
                    }
                }
            }
        }
        if let (Some(title), Some(tab)) = (title, self.tabs.get_mut(&key)) {
            tab.title = title;
        }
        // Each answer names the downloads its action began; one still arriving holds it.
        let finished_acts = self
            .out
            .events
            .iter()
            .skip(mark)
            .any(|e| matches!(e, Event::ActFinished { .. }));
        if finished_acts {
            let now = self.out.now();
            let tail: Vec<Event> = self.out.events.drain(mark..).collect();
            for event in tail {
                if let Some(event) = self.downloads.on_act_finished(event, now) {
                    self.out.events.push_back(event);
                }
            }
        }
    }

    /// After every input: the current tab is reported when it changed.
    fn after_input(&mut self) {
        self.emit_current();
    }
}

/// The number of a dialog id `d-N`, for ordering dialogs across tabs.
fn dialog_number(id: &str) -> u64 {
    id.strip_prefix("d-")
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}
