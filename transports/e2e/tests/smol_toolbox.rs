//! End-to-end: the toolbox actions over the smol transport (the blocking tests cover each
//! in depth; these check the async client reaches every one, OOPIFs included): hover shows
//! a menu inside a nested OOPIF, select takes an option by label in an OOPIF and fires
//! `change`, fill sets fields in two frames, drag reorders two lists (mouse events, HTML5); wait sees text arrive in
//! an OOPIF, back and forward move the history, resize is seen by `matchMedia`, and find
//! answers a ref in an OOPIF that a click works on.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, ActResult, Action, FillField, Target, WaitFor};
use cdp_supervisor::ax::{AxOptions, AxSnapshot, FindQuery};
use cdp_supervisor_smol::{Browser, Client};
use serde_json::json;
use support::ax_checks::by_name;
use support::input_site;
use support::smol::*;
use support::toolbox_site;

async fn connect(test: &str) -> Option<(Client, Browser)> {
    let browser = browser_or_skip(test)?;
    let client = Client::connect(browser.ws_url(), options(test))
        .await
        .unwrap();
    wait_live(&client).await;
    Some((client, browser))
}

async fn act(client: &Client, action: Action) -> ActResult {
    let mut o = ActOptions::default();
    o.timeout = Duration::from_secs(10);
    client.act(action, o).await.unwrap()
}

/// Navigates to `url`; the frame ids of the OOPIFs at `paths`, once loaded.
async fn open(client: &Client, url: String, paths: &[&str]) -> Vec<String> {
    let r = act(client, Action::Navigate { url }).await;
    assert!(r.navigated, "{r:?}");
    oopifs_loaded(client, paths).await
}

/// A snapshot in which `role` `name` has a ref (the frames' trees can come a moment late).
async fn snapshot_with(client: &Client, role: &str, name: &str) -> AxSnapshot {
    let end = Instant::now() + WAIT;
    loop {
        let snap = client.ax_snapshot(AxOptions::default()).await.unwrap();
        if by_name(&snap, role, name).is_some() {
            return snap;
        }
        assert!(Instant::now() < end, "no {role} {name:?} in\n{}", snap.text);
        smol::Timer::after(Duration::from_millis(50)).await;
    }
}

fn reference(snap: &AxSnapshot, role: &str, name: &str) -> Target {
    let r =
        by_name(snap, role, name).unwrap_or_else(|| panic!("{role} {name:?} in\n{}", snap.text));
    Target::Ref(r.id.clone())
}

fn logged(r: &ActResult, text: &str, frame: Option<&str>) -> bool {
    r.console
        .iter()
        .any(|l| l.text == text && (frame.is_none() || l.frame_id.as_deref() == frame))
}

#[test]
fn hover_select_fill_and_drag_reach_into_oopifs() {
    smol::block_on(async {
        let Some((c, _browser)) = connect("toolbox-input").await else {
            return;
        };
        let site = input_site::start();
        let frames = open(&c, site.url("/"), &["/cross", "/nested"]).await;
        let (cross, nested) = (frames[0].as_str(), frames[1].as_str());

        // Hover: the nested OOPIF's :hover menu shows in the next snapshot.
        let snap = snapshot_with(&c, "button", "Menu").await;
        assert!(by_name(&snap, "link", "Secret item").is_none());
        let target = reference(&snap, "button", "Menu");
        let r = act(&c, Action::Hover { target }).await;
        assert!(
            r.settled && logged(&r, "menu hovered", Some(nested)),
            "{r:?}"
        );
        let snap = snapshot_with(&c, "link", "Secret item").await;

        // Select by label in the cross OOPIF: the value set, its change handler run.
        let color = reference(&snap, "combobox", "Color");
        let r = act(&c, Action::select(color, vec!["Green".into()]).unwrap()).await;
        assert_eq!(
            eval(&c, Some(cross), "document.getElementById('color').value").await,
            json!("g")
        );
        assert_eq!(
            eval(&c, Some(cross), "events.join()").await,
            json!("input:color,change:color")
        );
        assert!(logged(&r, "color changed to g", Some(cross)), "{r:?}");

        // Fill: a field of the top page and a radio of the OOPIF in one call.
        let field = |role: &str, name: &str, value: &str| FillField {
            target: reference(&snap, role, name),
            value: value.into(),
            name: Some(name.into()),
            kind: None,
        };
        let fill = Action::fill(vec![
            field("textbox", "Name", "Ada Lovelace"),
            field("radio", "Large", "true"),
        ])
        .unwrap();
        let r = act(&c, fill).await;
        assert_eq!(r.fields.len(), 2, "{:?}", r.fields);
        assert_eq!(
            eval(&c, None, "document.getElementById('name').value").await,
            json!("Ada Lovelace")
        );
        assert_eq!(
            eval(&c, Some(cross), "document.getElementById('large').checked").await,
            json!(true)
        );
        assert!(
            eval(&c, Some(cross), "events.includes('change:large')")
                .await
                .as_bool()
                .unwrap(),
            "the radio's change fired"
        );

        // Drag: the mouse-events list reordered.
        let snap = snapshot_with(&c, "listitem", "H3").await;
        let drag = Action::Drag {
            from: reference(&snap, "listitem", "M1"),
            to: reference(&snap, "listitem", "M3"),
        };
        let r = act(&c, drag).await;
        assert!(r.settled, "{r:?}");
        assert_eq!(eval(&c, None, "order('mlist')").await, json!("M2,M3,M1"));
        let drag = Action::Drag {
            from: reference(&snap, "listitem", "H1"),
            to: reference(&snap, "listitem", "H3"),
        };
        let r = act(&c, drag).await;
        assert!(logged(&r, "drag list: H2,H3,H1", None), "{r:?}");
        assert_eq!(eval(&c, None, "order('hlist')").await, json!("H2,H3,H1"));
        c.stop().await.unwrap();
    });
}

#[test]
fn wait_history_resize_and_find_over_smol() {
    smol::block_on(async {
        let Some((c, _browser)) = connect("toolbox").await else {
            return;
        };
        let site = toolbox_site::start();

        // Back and forward across two cacheable pages.
        for p in ["/h1", "/h2"] {
            let r = act(&c, Action::Navigate { url: site.url(p) }).await;
            assert!(r.settled, "{p}: {r:?}");
        }
        let r = act(&c, Action::Back).await;
        assert!(r.navigated && r.url.ends_with("/h1"), "{r:?}");
        assert_eq!(r.title, "history h1");
        let r = act(&c, Action::Forward).await;
        assert!(r.navigated && r.url.ends_with("/h2"), "{r:?}");
        assert_eq!(r.title, "history h2");

        // Wait for text that arrives inside the OOPIF 500 ms from now.
        let frame = open(&c, site.url("/wait"), &["/late"]).await.remove(0);
        eval(&c, Some(&frame), "window.later(500)").await;
        let started = Instant::now();
        let r = act(&c, Action::Wait(WaitFor::Text("arrived late".into()))).await;
        assert!(r.settled, "{r:?}");
        assert!(
            started.elapsed() >= Duration::from_millis(400),
            "not before it came"
        );
        assert!(eval(&c, Some(&frame), "!!window.appearedAt")
            .await
            .as_bool()
            .unwrap());

        // Resize: the page's matchMedia sees the narrow viewport.
        assert_eq!(eval(&c, None, "window.narrow").await, json!(false));
        let r = act(
            &c,
            Action::Resize {
                width: 500,
                height: 400,
            },
        )
        .await;
        assert!(r.settled && logged(&r, "narrow=true", None), "{r:?}");
        assert_eq!(eval(&c, None, "window.narrow").await, json!(true));

        // Find by text in the OOPIF; a click on its ref runs the frame's handler.
        let ax = c.ax_snapshot(AxOptions::default()).await.unwrap();
        let found = ax.find(&FindQuery::new(Some("frame button"), None, None).unwrap());
        assert_eq!(found.total, 1, "{found:?}\n{}", ax.text);
        let hit = &found.matches[0];
        assert_eq!(
            hit.frame_id.as_deref(),
            Some(frame.as_str()),
            "in the OOPIF"
        );
        let target = Target::Ref(hit.reference.clone().unwrap());
        let r = act(&c, Action::Click { target }).await;
        assert!(r.settled, "{r:?}");
        assert_eq!(eval(&c, Some(&frame), "window.clicked").await, json!(1));
        c.stop().await.unwrap();
    });
}
