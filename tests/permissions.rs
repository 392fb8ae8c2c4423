//! Permissions, scripted: denied for every origin at connect, at browser level, but for
//! the granted ones (by Chromium's names).

mod harness;

use cdp_supervisor::permissions::PermissionConfig;
use cdp_supervisor::Config;
use harness::Harness;

#[test]
fn every_permission_is_denied_at_browser_level_but_the_granted_ones() {
    let mut c = Config::default();
    c.permissions = Some(PermissionConfig::grant(["geolocation", "clipboard-read"]));
    let h = Harness::attached(c);
    let grant = h.sent_with("Browser.grantPermissions");
    assert_eq!(grant.len(), 1);
    assert_eq!(grant[0].session_id, None, "browser-level");
    assert!(
        grant[0]
            .json
            .contains(r#""permissions":["clipboardReadWrite","geolocation"]"#),
        "{}",
        grant[0].json
    );
    assert!(!grant[0].json.contains("origin"), "every origin");
    let mut deny = Config::default();
    deny.permissions = Some(PermissionConfig::deny_all());
    let h = Harness::attached(deny);
    assert!(h
        .last_sent("Browser.grantPermissions")
        .json
        .contains(r#""permissions":[]"#));
    assert!(Harness::attached(Config::default())
        .sent_with("Browser.grantPermissions")
        .is_empty());
}
