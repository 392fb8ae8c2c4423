//! [`Config`]: how the supervisor behaves, and the dialog bridge's settings.

use std::time::Duration;

use crate::dialog::DialogPolicy;
use crate::limits::{
    DEFAULT_MAX_COMMANDS_IN_FLIGHT, DEFAULT_MAX_FRAMES, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_TABS,
};
use crate::url_policy::UrlPolicy;

/// How the supervisor behaves. `Config::default()` is the documented defaults.
///
/// ```
/// use cdp_supervisor::{Config, DialogPolicy};
/// use std::time::Duration;
/// let mut config = Config::default();
/// config.policy = DialogPolicy::AutoDismiss;
/// config.dialog_timeout = Duration::from_secs(5);
/// assert_eq!(config.max_frames, 10_000);
/// assert!(config.bridge.is_none());
/// assert!(config.upload_roots.is_empty()); // no upload allowed by default
/// ```
/// `#[non_exhaustive]`: start from `Config::default()` and set the fields you need, so that
/// new settings do not break you.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// The tab to supervise; `None` picks the first target of type `page` (see
    /// [`crate::manual::chromium_facts`], attaching).
    pub target_id: Option<String>,
    /// The dialog policy at start.
    pub policy: DialogPolicy,
    /// When the watchdog dismisses a `must_respond` dialog (default 300 s).
    pub dialog_timeout: Duration,
    /// Deadline of the supervisor's own commands and of dialog answers (default 10 s).
    pub setup_timeout: Duration,
    /// A page whose `Page.enable` gets no reply within this is reported `blocked`
    /// (a dialog left open by an earlier client wedges the tab; default 5 s).
    pub enable_timeout: Duration,
    /// Tabs supervised at most; a page attaching beyond it is resumed and detached at
    /// once, untracked, with a warning (default 64).
    pub max_tabs: usize,
    /// Frames tracked at most (per tab); beyond it the oldest-known frame other than the top is
    /// dropped with its subtree (default 10 000).
    pub max_frames: usize,
    /// Sessions tracked at most; a child attaching beyond it is resumed and detached at
    /// once, untracked (default 10 000).
    pub max_sessions: usize,
    /// Embedder commands in flight at most; one more fails at once (default 1 024).
    pub max_commands_in_flight: usize,
    /// Run the dialog bridge on every page and OOPIF session (`None`: off).
    pub bridge: Option<BridgeConfig>,
    /// Where navigations may go: an act `navigate` and a new tab's URL are checked
    /// before anything is sent (default: everywhere; an agent's server sets
    /// [`UrlPolicy::agent`](crate::url_policy::UrlPolicy::agent) with its flags).
    pub url_policy: UrlPolicy,
    /// The folders a file chooser may be answered with files from (absolute paths;
    /// default: none, so every upload is refused). The core checks each file lexically
    /// against them; the transport canonicalises paths and checks the files exist first
    /// (see [`crate::manual::rules`], file choosers).
    pub upload_roots: Vec<String>,
    /// Where downloads go and how large they may be, set at browser level at connect
    /// (`None`: Chromium's own behaviour, nothing tracked; the transports set it).
    pub downloads: Option<crate::downloads::DownloadConfig>,
    /// The permissions pages get; every other one is denied for every origin without a
    /// prompt, set at browser level at connect (`None`: Chromium's own behaviour; the CLI
    /// sets it).
    pub permissions: Option<crate::permissions::PermissionConfig>,
    /// HTTP sign-in challenges: answered with these credentials, or pending (`None`:
    /// Chromium's own behaviour, no interception; see [`crate::http_auth`]).
    pub http_auth: Option<crate::http_auth::HttpAuthConfig>,
    /// Whether every page and OOPIF session gets `Network.enable` (with small buffers), so
    /// that each tab keeps its last requests ([`crate::network`]); default on. Off saves
    /// the events (see [`crate::manual::rules`], network requests).
    pub network: bool,
}

/// The dialog bridge's settings (see [`crate::manual::rules`], the dialog bridge).
///
/// ```
/// use cdp_supervisor::{BridgeConfig, Config};
/// let mut config = Config::default();
/// config.bridge = Some(BridgeConfig::new("an unguessable secret"));
/// assert_eq!(config.bridge.as_ref().map(|b| b.token.as_str()), Some("an unguessable secret"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BridgeConfig {
    /// The bridge's secret: only requests carrying it become dialogs. It must be
    /// unguessable. The transports fill an empty token from the OS's random source; the
    /// core given an empty token accepts no bridge request, so dialogs fall back to native.
    pub token: String,
}

impl BridgeConfig {
    /// The bridge with this secret token.
    pub fn new(token: impl Into<String>) -> Self {
        BridgeConfig {
            token: token.into(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_id: None,
            policy: DialogPolicy::MustRespond,
            dialog_timeout: Duration::from_secs(300),
            setup_timeout: Duration::from_secs(10),
            enable_timeout: Duration::from_secs(5),
            max_tabs: DEFAULT_MAX_TABS,
            max_frames: DEFAULT_MAX_FRAMES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_commands_in_flight: DEFAULT_MAX_COMMANDS_IN_FLIGHT,
            bridge: None,
            url_policy: UrlPolicy::default(),
            upload_roots: Vec::new(),
            downloads: None,
            permissions: None,
            http_auth: None,
            network: true,
        }
    }
}
