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

/// Chromium says nothing when a page asks for a permission it denies: with permissions
/// managed, the script that says it in the console goes on every page and OOPIF session
/// (new documents, and the loaded one); without, nothing is added.
#[test]
fn the_request_watch_goes_on_every_page_and_oopif_session() {
    use cdp_supervisor::permissions::REQUEST_WATCH_SCRIPT;
    let mut c = Config::default();
    c.permissions = Some(PermissionConfig::deny_all());
    let mut h = Harness::attached(c);
    h.attach_oopif(harness::PS, "S-C", "C", harness::PAGE);
    let added = h.sent_with("Page.addScriptToEvaluateOnNewDocument");
    let sessions: Vec<Option<&str>> = added.iter().map(|a| a.session_id.as_deref()).collect();
    assert_eq!(sessions, [Some(harness::PS), Some("S-C")]);
    let source = serde_json::to_string(REQUEST_WATCH_SCRIPT).unwrap();
    for a in added {
        assert!(a.json.contains(&source), "{}", a.json);
        assert!(a.json.contains(r#""runImmediately":true"#), "{}", a.json);
    }
    let mut h = Harness::attached(Config::default());
    h.attach_oopif(harness::PS, "S-C", "C", harness::PAGE);
    assert!(h
        .sent_with("Page.addScriptToEvaluateOnNewDocument")
        .is_empty());
}
