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
