//! The accessibility outline built from real Chromium trees: a page with a heading, a
//! srcdoc iframe with a checkbox, a cross-site iframe with a button, and inside it a nested
//! cross-site iframe with a link (captured by `tests/fixtures/ax/capture.py`).

use cdp_supervisor::ax::{build_outline, AxNode, FrameAx, OutlineLimits, RefTable};
use serde_json::Value;

/// A frame id, its parent, its owner element and its nodes.
type FrameRow = (String, Option<String>, Option<i64>, Vec<AxNode>);

struct Fixture {
    frames: Vec<FrameRow>,
}

fn fixture() -> Fixture {
    let text = include_str!("fixtures/ax/four-frames.json");
    let json: Value = serde_json::from_str(text).unwrap();
    let frames = json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let nodes = AxNode::parse_tree(&serde_json::json!({ "nodes": f["nodes"] }).to_string())
                .unwrap();
            (
                f["frame_id"].as_str().unwrap().to_owned(),
                f["parent_frame_id"].as_str().map(str::to_owned),
                f["owner_backend_node_id"].as_i64(),
                nodes,
            )
        })
        .collect();
    Fixture { frames }
}

impl Fixture {
    fn view(&self) -> Vec<FrameAx<'_>> {
        self.frames
            .iter()
            .map(|(id, parent, owner, nodes)| FrameAx {
                frame_id: id,
                document: "doc",
                parent_frame_id: parent.as_deref(),
                owner_backend_node_id: *owner,
                nodes,
            })
            .collect()
    }
}

fn line_of<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in\n{text}"))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[test]
fn every_frame_of_four_is_in_the_outline_with_its_own_frame_id() {
    let fx = fixture();
    let mut table = RefTable::default();
    let out = build_outline(&fx.view(), None, OutlineLimits::default(), &mut table);
    println!("{}", out.text);
    assert!(!out.truncated);
    assert!(out.unreached_frames.is_empty());

    let heading = line_of(&out.text, "heading \"Title here\"");
    assert!(heading.contains("[level=1]"));
    let checkbox = line_of(&out.text, "checkbox \"Agree\"");
    assert!(checkbox.contains("[checked]"));
    let button = line_of(&out.text, "button \"Press me\"");
    let link = line_of(&out.text, "link \"A link\"");
    // Each sits under its iframe: the srcdoc and OOPIF one level down, the nested OOPIF two.
    assert_eq!(indent(heading), 0);
    assert_eq!(indent(checkbox), 2);
    assert_eq!(indent(button), 2);
    assert_eq!(indent(link), 4);
    let iframes: Vec<&str> = out
        .text
        .lines()
        .filter(|l| l.contains("- iframe"))
        .collect();
    assert_eq!(iframes.len(), 3, "{}", out.text);
    assert!(iframes.iter().all(|l| l.ends_with(':')));

    let frame_of = |name: &str| {
        out.refs
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.frame_id.clone())
            .unwrap()
    };
    let ids: Vec<String> = ["Title here", "Agree", "Press me", "A link"]
        .iter()
        .map(|n| frame_of(n))
        .collect();
    for (i, (frame, ..)) in fx.frames.iter().enumerate() {
        assert_eq!(&ids[i], frame, "node {i} in its own frame");
    }
    // A textbox shows its value; its text child is not repeated.
    assert!(line_of(&out.text, "- textbox").ends_with(": typed"));
    assert!(!out.text.contains("- text: typed"));
    // A value with children is a state, so the children's parent line ends with `:`.
    assert!(line_of(&out.text, "- combobox").ends_with("[value=\"One\"]:"));
    // Two buttons named "Off": nth 0 and 1, the first disabled.
    let offs: Vec<u32> = out
        .refs
        .iter()
        .filter(|r| r.name == "Off")
        .map(|r| r.nth)
        .collect();
    assert_eq!(offs, [0, 1]);
    assert!(line_of(&out.text, "button \"Off\"").contains("[disabled]"));
    // Inline text boxes never show; a paragraph's lone text is inline.
    assert!(!out.text.to_lowercase().contains("inlinetextbox"));
    assert!(line_of(&out.text, "paragraph").ends_with(": Some text"));
    // Refs resolve to what they name.
    let button_ref = out.refs.iter().find(|r| r.name == "Press me").unwrap();
    let entry = table.lookup(&button_ref.id).unwrap();
    assert_eq!(entry.target.backend_node_id, button_ref.backend_node_id);
}

#[test]
fn refs_survive_a_resnapshot_after_one_text_changes() {
    let mut fx = fixture();
    let mut table = RefTable::default();
    let first = build_outline(&fx.view(), None, OutlineLimits::default(), &mut table);
    // The heading's text changes (same DOM nodes).
    for node in fx.frames[0].3.iter_mut() {
        if node.name == "Title here" {
            node.name = "Another title".into();
        }
    }
    let second = build_outline(&fx.view(), None, OutlineLimits::default(), &mut table);
    assert_ne!(first.text, second.text);
    for r in &first.refs {
        let again = second
            .refs
            .iter()
            .find(|s| s.backend_node_id == r.backend_node_id && s.frame_id == r.frame_id)
            .unwrap();
        assert_eq!(again.id, r.id, "{} kept its ref", r.name);
    }
    // A new document is new nodes: new refs, never an old number.
    let max_old = first
        .refs
        .iter()
        .map(|r| r.id[1..].parse::<u64>().unwrap())
        .max()
        .unwrap();
    let mut nav = fx.view();
    nav[0].document = "doc-after-navigation";
    let third = build_outline(&nav, None, OutlineLimits::default(), &mut table);
    let top = &fx.frames[0].0;
    for r in third.refs.iter().filter(|r| &r.frame_id == top) {
        assert!(
            r.id[1..].parse::<u64>().unwrap() > max_old,
            "{} is new",
            r.id
        );
    }
}

#[test]
fn the_node_budget_is_exact() {
    let fx = fixture();
    let full = build_outline(
        &fx.view(),
        None,
        OutlineLimits::default(),
        &mut RefTable::default(),
    );
    let lines = full.text.lines().count();
    // Every line of the full outline is one node (lone texts inline make lines < nodes).
    for max in 1..lines + 3 {
        let limits = OutlineLimits {
            max_nodes: max,
            max_chars: None,
        };
        let out = build_outline(&fx.view(), None, limits, &mut RefTable::default());
        let all_shown = out.text == full.text;
        assert_eq!(out.truncated, !all_shown, "max_nodes {max}:\n{}", out.text);
        // The cut outline is the full one up to its last line (which may lose its `:` or
        // its inline text, cut with its children).
        let lines: Vec<&str> = out.text.lines().collect();
        let full_lines: Vec<&str> = full.text.lines().collect();
        if let Some((last, before)) = lines.split_last() {
            assert_eq!(before, &full_lines[..before.len()]);
            let head = last.split(" [ref=").next().unwrap();
            assert!(full_lines[before.len()].starts_with(head), "{last}");
        }
    }
    let limits = OutlineLimits {
        max_nodes: 2_000,
        max_chars: Some(60),
    };
    let out = build_outline(&fx.view(), None, limits, &mut RefTable::default());
    assert!(out.truncated && out.text.len() <= 60 && out.text.ends_with('\n'));
    assert_eq!(out.refs.len(), out.text.matches("[ref=").count());
}

#[test]
fn a_hidden_iframe_is_reported_not_dropped_and_a_scope_shows_one_subtree() {
    let fx = fixture();
    let mut view = fx.view();
    view[2].owner_backend_node_id = Some(999_999); // no such element in the top's tree
    let out = build_outline(
        &view,
        None,
        OutlineLimits::default(),
        &mut RefTable::default(),
    );
    assert!(!out.text.contains("Press me"));
    // The OOPIF and the frame nested in it are both unreached, by id.
    assert_eq!(
        out.unreached_frames,
        [fx.frames[2].0.clone(), fx.frames[3].0.clone()]
    );

    // Scoped to the OOPIF's <iframe> element in the top frame: only that subtree.
    let owner = fx.frames[2].2.unwrap();
    let out = build_outline(
        &fx.view(),
        Some((0, owner)),
        OutlineLimits::default(),
        &mut RefTable::default(),
    );
    assert!(out.text.starts_with("- iframe"));
    assert!(out.text.contains("Press me") && out.text.contains("A link"));
    assert!(!out.text.contains("Title here") && !out.text.contains("Agree"));
}

#[test]
fn a_malformed_tree_costs_nothing_but_itself() {
    // A cycle, a child listed twice, unknown children, a frame claiming an unknown parent.
    let nodes = AxNode::parse_tree(
        r#"{"nodes":[
        {"nodeId":"1","role":{"value":"button"},"name":{"value":"A"},"childIds":["2","2","9"],"backendDOMNodeId":1},
        {"nodeId":"2","role":{"value":"button"},"name":{"value":"B"},"childIds":["1"],"backendDOMNodeId":2}]}"#,
    )
    .unwrap();
    let frames = [
        FrameAx {
            frame_id: "F",
            document: "d",
            parent_frame_id: None,
            owner_backend_node_id: None,
            nodes: &nodes,
        },
        FrameAx {
            frame_id: "G",
            document: "d",
            parent_frame_id: Some("nope"),
            owner_backend_node_id: Some(1),
            nodes: &nodes,
        },
    ];
    let out = build_outline(
        &frames,
        None,
        OutlineLimits::default(),
        &mut RefTable::default(),
    );
    assert_eq!(out.refs.len(), 2, "{}", out.text);
    assert_eq!(out.unreached_frames, ["G"]);
    let empty = build_outline(
        &[],
        None,
        OutlineLimits::default(),
        &mut RefTable::default(),
    );
    assert_eq!(empty.text, "");
}
