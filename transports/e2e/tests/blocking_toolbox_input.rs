//! End-to-end: the form and pointer actions (hover, select, fill, drag) against a real
//! headless Chromium with `--site-per-process`, over the blocking transport: a hover menu
//! in a nested OOPIF shows in the next snapshot; a `<select>` in an OOPIF takes an option by
//! label and its `change` fires; five fields in two frames filled in one call; two
//! sortable lists (mouse events, HTML5 drag and drop) reordered by drag.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, ActResult, Action, FieldKind, FillField, Target};
use cdp_supervisor::ax::{AxOptions, AxSnapshot};
use cdp_supervisor_blocking::Client;
use serde_json::json;
use support::ax_checks::by_name;
use support::blocking::*;
use support::input_site;
use support::site::Site;

fn world(test: &str) -> Option<World<Site>> {
    world_on(test, options(test), input_site::start)
}

/// Opens the top page; (cross, nested) frame ids, both loaded.
fn open(w: &World<Site>) -> (String, String) {
    let url = w.site.url("/");
    let r = w
        .client
        .act(Action::Navigate { url }, ActOptions::default())
        .unwrap();
    assert!(r.navigated, "{r:?}");
    let [cross, nested] =
        <[String; 2]>::try_from(oopifs_loaded(&w.client, &["/cross", "/nested"])).unwrap();
    (cross, nested)
}

/// A snapshot in which `role` `name` has a ref (the frames' trees can come a moment late).
fn snapshot_with(client: &Client, role: &str, name: &str) -> AxSnapshot {
    let end = Instant::now() + WAIT;
    loop {
        let snap = client.ax_snapshot(AxOptions::default()).unwrap();
        if by_name(&snap, role, name).is_some() {
            return snap;
        }
        assert!(Instant::now() < end, "no {role} {name:?} in\n{}", snap.text);
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn reference(snap: &AxSnapshot, role: &str, name: &str) -> Target {
    let r =
        by_name(snap, role, name).unwrap_or_else(|| panic!("{role} {name:?} in\n{}", snap.text));
    Target::Ref(r.id.clone())
}

fn act(client: &Client, action: Action) -> ActResult {
    client.act(action, ActOptions::default()).unwrap()
}

fn console(r: &ActResult) -> Vec<(String, Option<String>)> {
    r.console
        .iter()
        .map(|l| (l.text.clone(), l.frame_id.clone()))
        .collect()
}

#[test]
fn hover_select_and_fill_reach_into_nested_oopifs() {
    let Some(w) = world("toolbox-input-forms") else {
        return;
    };
    let (cross, nested) = open(&w);
    let c = &w.client;

    // (a) A menu shown on :hover inside the nested OOPIF appears in the next snapshot.
    let snap = snapshot_with(c, "button", "Menu");
    assert!(
        by_name(&snap, "link", "Secret item").is_none(),
        "{}",
        snap.text
    );
    let r = act(
        c,
        Action::Hover {
            target: reference(&snap, "button", "Menu"),
        },
    );
    assert!(r.settled, "{r:?}");
    assert!(
        console(&r).contains(&("menu hovered".into(), Some(nested.clone()))),
        "{:?}",
        r.console
    );
    let after = snapshot_with(c, "link", "Secret item");
    assert!(after.text.contains("Secret item"));

    // (b) A <select> in an OOPIF takes an option by label; its change handler runs.
    let color = reference(&after, "combobox", "Color");
    let r = act(
        c,
        Action::select(color.clone(), vec!["Green".into()]).unwrap(),
    );
    assert_eq!(
        eval(c, Some(&cross), "document.getElementById('color').value"),
        json!("g")
    );
    assert_eq!(
        eval(c, Some(&cross), "events.join()"),
        json!("input:color,change:color")
    );
    assert!(
        console(&r).contains(&("color changed to g".into(), Some(cross.clone()))),
        "{:?}",
        r.console
    );
    assert_eq!(r.fields.len(), 1, "{r:?}");
    // A value that matches no option: an error naming it and the options; nothing changes.
    let e = c
        .act(
            Action::select(color, vec!["Mauve".into()]).unwrap(),
            ActOptions::default(),
        )
        .unwrap_err();
    assert_eq!(e.code(), "bad_request");
    let text = e.to_string();
    assert!(
        text.contains("\"Mauve\"") && text.contains("3 options: \"Red\" (value \"r\"), \"Green\""),
        "{text}"
    );
    assert_eq!(
        eval(c, Some(&cross), "document.getElementById('color').value"),
        json!("g")
    );

    // (c) Five fields in two frames in one call; the checkbox already checked stays checked
    // and is not clicked.
    let field = |role: &str, name: &str, value: &str, kind: Option<FieldKind>| FillField {
        target: reference(&after, role, name),
        value: value.into(),
        name: Some(name.into()),
        kind,
    };
    let fill = Action::fill(vec![
        field("textbox", "Name", "Ada Lovelace", None),
        field(
            "textbox",
            "Bio",
            "Line one\nline two",
            Some(FieldKind::Textbox),
        ),
        field("checkbox", "Agree", "true", None),
        field("radio", "Large", "true", Some(FieldKind::Radio)),
        field("combobox", "Color", "Blue", None),
    ])
    .unwrap();
    let started = Instant::now();
    let r = act(c, fill);
    assert!(started.elapsed() < Duration::from_secs(5), "one budget");
    assert_eq!(r.fields.len(), 5, "{:?}", r.fields);
    assert!(r.fields[2].contains("already checked"), "{:?}", r.fields);
    let top = eval(
        c,
        None,
        "(() => { const $ = id => document.getElementById(id); return JSON.stringify([$('name').value, $('bio').value, $('agree').checked, events]); })()",
    );
    let top: serde_json::Value = serde_json::from_str(top.as_str().unwrap()).unwrap();
    assert_eq!(top[0], "Ada Lovelace");
    assert_eq!(top[1], "Line one\nline two");
    assert_eq!(top[2], true);
    assert_eq!(
        top[3],
        json!(["input:name", "change:name", "input:bio", "change:bio"]),
        "no click on the checkbox that was set already"
    );
    let inner = eval(
        c,
        Some(&cross),
        "(() => { const $ = id => document.getElementById(id); return JSON.stringify([$('large').checked, $('small').checked, $('color').value, events.slice(2)]); })()",
    );
    let inner: serde_json::Value = serde_json::from_str(inner.as_str().unwrap()).unwrap();
    assert_eq!(inner[0], true);
    assert_eq!(inner[1], false);
    assert_eq!(inner[2], "b");
    assert!(
        inner[3]
            .as_array()
            .unwrap()
            .contains(&json!("change:large"))
            && inner[3]
                .as_array()
                .unwrap()
                .contains(&json!("change:color")),
        "{inner}"
    );
}

#[test]
fn drag_reorders_a_mouse_events_list_and_an_html5_list() {
    let Some(w) = world("toolbox-input-drag") else {
        return;
    };
    open(&w);
    let c = &w.client;
    let snap = snapshot_with(c, "listitem", "H3");
    let drag = |from: &str, to: &str| Action::Drag {
        from: reference(&snap, "listitem", from),
        to: reference(&snap, "listitem", to),
    };
    let r = act(c, drag("M1", "M3"));
    assert!(r.settled, "{r:?}");
    assert_eq!(eval(c, None, "order('mlist')"), json!("M2,M3,M1"));
    let moves = eval(c, None, "mmoves").as_u64().unwrap();
    assert!(
        moves >= 4,
        "the button was held while it moved ({moves} moves)"
    );
    assert!(
        console(&r).iter().any(|(t, _)| t == "mouse list: M2,M3,M1"),
        "{:?}",
        r.console
    );
    let r = act(c, drag("H1", "H3"));
    assert_eq!(eval(c, None, "order('hlist')"), json!("H2,H3,H1"), "{r:?}");
    assert!(
        console(&r).iter().any(|(t, _)| t == "drag list: H2,H3,H1"),
        "{:?}",
        r.console
    );
}
