//! Permissions never prompt: at connect, the supervisor denies every permission for every
//! origin and grants only those the embedder listed, with one browser-level
//! `Browser.grantPermissions {permissions: [...]}` and no origin (see
//! [`crate::manual::chromium_facts`], "Permissions": it sets every other permission
//! `denied`, for all origins).

use serde::Serialize;
use serde_json::value::RawValue;

use crate::wire::to_raw;

/// Which permissions the pages get; every other one is denied without a prompt.
///
/// ```
/// use cdp_supervisor::{permissions::PermissionConfig, Config};
/// let mut config = Config::default();
/// config.permissions = Some(PermissionConfig::grant(["geolocation", "clipboard-read"]));
/// let granted = config.permissions.map(|p| p.granted);
/// assert_eq!(granted, Some(vec!["geolocation".to_owned(), "clipboard-read".to_owned()]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionConfig {
    /// The permissions granted, by their web name (`geolocation`, `clipboard-read`, see
    /// [`WEB_NAMES`]) or Chromium's (`clipboardReadWrite`).
    pub granted: Vec<String>,
}

impl PermissionConfig {
    /// Deny everything.
    pub fn deny_all() -> Self {
        PermissionConfig::default()
    }

    /// Grant `names`, deny the rest.
    pub fn grant<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        PermissionConfig {
            granted: names.into_iter().map(Into::into).collect(),
        }
    }
}

/// The permission names of the web (the Permissions API's and the policy's) and the
/// `Browser.PermissionType` each is granted as (Chromium takes only its own names).
pub const WEB_NAMES: &[(&str, &str)] = &[
    ("geolocation", "geolocation"),
    ("notifications", "notifications"),
    ("push", "notifications"),
    ("camera", "videoCapture"),
    ("microphone", "audioCapture"),
    ("clipboard-read", "clipboardReadWrite"),
    ("clipboard-write", "clipboardSanitizedWrite"),
    ("midi", "midi"),
    ("midi-sysex", "midiSysex"),
    ("background-sync", "backgroundSync"),
    ("persistent-storage", "durableStorage"),
    ("screen-wake-lock", "wakeLockScreen"),
    ("idle-detection", "idleDetection"),
    ("local-fonts", "localFonts"),
    ("storage-access", "storageAccess"),
    ("window-management", "windowManagement"),
    ("payment-handler", "paymentHandler"),
    ("accelerometer", "sensors"),
    ("gyroscope", "sensors"),
    ("magnetometer", "sensors"),
    ("display-capture", "displayCapture"),
    ("nfc", "nfc"),
];

/// Chromium's name for a permission named the web's way (a name it does not know is
/// passed on as given: Chromium's own names work too).
///
/// ```
/// use cdp_supervisor::permissions::chromium_name;
/// assert_eq!(chromium_name("clipboard-read"), "clipboardReadWrite");
/// assert_eq!(chromium_name("videoCapture"), "videoCapture");
/// ```
pub fn chromium_name(web: &str) -> &str {
    WEB_NAMES
        .iter()
        .find(|(w, _)| *w == web)
        .map_or(web, |(_, c)| c)
}

/// The script added to every document of every page and iframe session when the
/// supervisor manages permissions: Chromium sends nothing when a page asks for a permission
/// it then denies without a prompt (see [`crate::manual::chromium_facts`], "Permissions"),
/// so the calls that ask for one say it in the console, with the permission's state, as a
/// `warning` line an action's answer carries (`[cdp-supervisor] the page asked for
/// permission "geolocation": denied, without a prompt`). It wraps each call once per
/// document, keeps the page's own behaviour (the original runs, with its arguments and
/// `this`), and never throws into the page.
///
/// ```
/// use cdp_supervisor::permissions::REQUEST_WATCH_SCRIPT;
/// assert!(REQUEST_WATCH_SCRIPT.contains("getCurrentPosition"));
/// assert!(REQUEST_WATCH_SCRIPT.contains("requestPermission"));
/// ```
pub const REQUEST_WATCH_SCRIPT: &str = r#"(() => {
  const mark = Symbol.for('cdp-supervisor.permission-requests');
  if (globalThis[mark]) return;
  try { Object.defineProperty(globalThis, mark, {value: true}); } catch (e) { return; }
  const warn = console.warn.bind(console);
  const perms = typeof navigator !== 'undefined' && navigator.permissions;
  const query = perms && perms.query.bind(perms);
  const tell = (name, state) => warn('[cdp-supervisor] the page asked for permission "' + name
    + '": ' + (state === 'granted' ? 'granted'
      : (state || 'denied') + ', without a prompt (only the permissions the supervisor grants are given)'));
  const say = name => {
    try {
      if (!query) return tell(name);
      query({name}).then(s => tell(name, s.state), () => tell(name));
    } catch (e) { tell(name); }
  };
  const wrap = (owner, method, names) => {
    try {
      const original = owner && owner[method];
      if (typeof original !== 'function') return;
      const wrapped = {[method](...args) {
        try { names(args).forEach(say); } catch (e) {}
        return original.apply(this, args);
      }}[method];
      owner[method] = wrapped;
    } catch (e) {}
  };
  const proto = c => globalThis[c] && globalThis[c].prototype;
  const one = name => () => [name];
  wrap(proto('Geolocation'), 'getCurrentPosition', one('geolocation'));
  wrap(proto('Geolocation'), 'watchPosition', one('geolocation'));
  wrap(globalThis.Notification, 'requestPermission', one('notifications'));
  wrap(proto('MediaDevices'), 'getUserMedia', ([c]) =>
    [c && c.video && 'camera', c && c.audio && 'microphone'].filter(Boolean));
  wrap(proto('MediaDevices'), 'getDisplayMedia', one('display-capture'));
  wrap(proto('Clipboard'), 'read', one('clipboard-read'));
  wrap(proto('Clipboard'), 'readText', one('clipboard-read'));
  wrap(proto('Navigator'), 'requestMIDIAccess', one('midi'));
  wrap(proto('StorageManager'), 'persist', one('persistent-storage'));
  wrap(proto('Document'), 'requestStorageAccess', one('storage-access'));
  wrap(globalThis, 'getScreenDetails', one('window-management'));
  wrap(globalThis.IdleDetector, 'requestPermission', one('idle-detection'));
})()"#;

#[derive(Serialize)]
struct AddScript<'a> {
    source: &'a str,
    #[serde(rename = "runImmediately")]
    run_immediately: bool,
}

/// `Page.addScriptToEvaluateOnNewDocument` for [`REQUEST_WATCH_SCRIPT`], on this document
/// too.
pub(crate) fn request_watch_params() -> Option<Box<RawValue>> {
    to_raw(&AddScript {
        source: REQUEST_WATCH_SCRIPT,
        run_immediately: true,
    })
}

#[derive(Serialize)]
struct GrantParams<'a> {
    permissions: Vec<&'a str>,
    #[serde(rename = "browserContextId", skip_serializing_if = "Option::is_none")]
    browser_context_id: Option<&'a str>,
}

/// `Browser.grantPermissions` for `config`, in `context` (`None`: the default browser
/// context; a context the supervisor creates needs its own).
pub(crate) fn grant_params(
    config: &PermissionConfig,
    context: Option<&str>,
) -> Option<Box<RawValue>> {
    let mut permissions: Vec<&str> = config.granted.iter().map(|n| chromium_name(n)).collect();
    permissions.sort_unstable();
    permissions.dedup();
    to_raw(&GrantParams {
        permissions,
        browser_context_id: context,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_chromium_names_sorted_once() {
        let c = PermissionConfig::grant(["gyroscope", "accelerometer", "geolocation"]);
        let p = grant_params(&c, None).unwrap();
        assert_eq!(p.get(), r#"{"permissions":["geolocation","sensors"]}"#);
        let none = grant_params(&PermissionConfig::deny_all(), Some("CTX")).unwrap();
        assert_eq!(none.get(), r#"{"permissions":[],"browserContextId":"CTX"}"#);
    }
}
