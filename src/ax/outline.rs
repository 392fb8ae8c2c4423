//! One outline for the whole tab from each frame's accessibility tree.
//!
//! Each frame's tree comes from its own `Accessibility.getFullAXTree`; an `Iframe` node has
//! no children there, so the child frame's tree is grafted under it (the child's owner
//! element, from `DOM.getFrameOwner` on the parent's session, is the `Iframe` node's
//! `backendDOMNodeId`). The walk is iterative with a visited set, so a malformed tree (a
//! cycle, a node listed twice, a frame claimed by two owners) costs nothing but itself.

use std::collections::{HashMap, HashSet};

use super::node::AxNode;
use super::refs::{AxRef, RefEntry, RefTable};

/// Lines of the outline at most, by default.
pub const DEFAULT_MAX_NODES: usize = 2_000;
/// Indentation stops growing here, so a pathological nesting cannot blow up the text.
const MAX_INDENT: usize = 64;
/// Names and texts longer than this are cut (with `…`).
const MAX_NAME_CHARS: usize = 300;

/// One frame's tree, and where it hangs in the tab.
#[derive(Debug, Clone, Copy)]
pub struct FrameAx<'a> {
    /// The frame.
    pub frame_id: &'a str,
    /// Its document (refs are stable within one document only).
    pub document: &'a str,
    /// The parent frame; `None` for the root of the outline.
    pub parent_frame_id: Option<&'a str>,
    /// The `<iframe>` element in the parent that holds it.
    pub owner_backend_node_id: Option<i64>,
    /// Its nodes, as `getFullAXTree` listed them.
    pub nodes: &'a [AxNode],
}

/// Bounds of one outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutlineLimits {
    /// Lines at most (nodes and text).
    pub max_nodes: usize,
    /// Characters of text at most; the text is cut at a line end.
    pub max_chars: Option<usize>,
}

impl Default for OutlineLimits {
    fn default() -> Self {
        OutlineLimits {
            max_nodes: DEFAULT_MAX_NODES,
            max_chars: None,
        }
    }
}

/// The outline, its refs, and what it could not show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outline {
    /// One node a line: `- button "OK" [ref=e5]`.
    pub text: String,
    /// The refs the text shows, in order.
    pub refs: Vec<AxRef>,
    /// Whether a budget cut something that would have been shown.
    pub truncated: bool,
    /// Child frames that were given but never reached: their `<iframe>` is not in the
    /// parent's tree (hidden), or the start node excludes them. Reported only when the
    /// outline is not truncated (then the budget explains it).
    pub unreached_frames: Vec<String>,
}

enum Kind {
    /// Not shown, nor its subtree (inline text boxes: their StaticText says it).
    Skip,
    /// Not shown; its children are.
    Transparent,
    Text,
    Element,
    Frame,
}

fn kind(node: &AxNode) -> Kind {
    match node.role.as_str() {
        "InlineTextBox" | "LineBreak" => Kind::Skip,
        _ if node.ignored => Kind::Transparent,
        "StaticText" => Kind::Text,
        "RootWebArea" => Kind::Transparent,
        "Iframe" | "IframePresentational" => Kind::Frame,
        "generic" | "none" | "presentation" | "" | "MenuListPopup" if node.name.is_empty() => {
            Kind::Transparent
        }
        _ => Kind::Element,
    }
}

/// The role as the outline shows it: ARIA roles as they are, Chromium's internal ones in
/// lower case (`StaticText` is text, `Iframe` is iframe).
fn display_role(role: &str) -> String {
    match role {
        "StaticText" => "text".into(),
        "Iframe" | "IframePresentational" => "iframe".into(),
        _ => role.to_lowercase(),
    }
}

fn clip(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(MAX_NAME_CHARS) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

fn quoted(text: &str) -> String {
    format!(
        "\"{}\"",
        clip(text).replace('\\', "\\\\").replace('"', "\\\"")
    )
}

struct Line {
    depth: usize,
    text_only: bool,
    role: String,
    name: String,
    value: Option<String>,
    states: String,
    number: Option<u64>,
    target: Option<RefEntry>,
}

enum Work {
    Node {
        frame: usize,
        node: usize,
        depth: usize,
        /// The nearest shown element above, whose name a text child would repeat.
        shown_above: Option<usize>,
    },
    Frame {
        frame: usize,
        depth: usize,
    },
}

struct FrameIndex<'a> {
    by_id: HashMap<&'a str, usize>,
    root: Option<usize>,
}

fn index<'a>(frame: &FrameAx<'a>) -> FrameIndex<'a> {
    let by_id: HashMap<&str, usize> = frame
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let children: HashSet<&str> = frame
        .nodes
        .iter()
        .flat_map(|n| n.children.iter().map(String::as_str))
        .collect();
    let root = frame
        .nodes
        .iter()
        .position(|n| !children.contains(n.id.as_str()))
        .or(if frame.nodes.is_empty() {
            None
        } else {
            Some(0)
        });
    FrameIndex { by_id, root }
}

fn states_text(node: &AxNode) -> String {
    let s = &node.states;
    let mut out = String::new();
    match s.checked.as_deref() {
        Some("true") => out.push_str(" [checked]"),
        Some("mixed") => out.push_str(" [checked=mixed]"),
        _ => {}
    }
    if s.disabled {
        out.push_str(" [disabled]");
    }
    if s.expanded == Some(true) {
        out.push_str(" [expanded]");
    }
    if s.selected {
        out.push_str(" [selected]");
    }
    if s.focused {
        out.push_str(" [focused]");
    }
    if let Some(level) = s.level {
        out.push_str(&format!(" [level={level}]"));
    }
    out
}

/// Builds the outline of `frames` (the first is the root) and gives its nodes refs from
/// `table`, which then holds this outline's refs.
///
/// `start` scopes the outline to one node's subtree: `(frame index, backend_node_id)`.
///
/// ```
/// use cdp_supervisor::ax::{build_outline, AxNode, FrameAx, OutlineLimits, RefTable};
/// let nodes = AxNode::parse_tree(r#"{"nodes":[
///   {"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2"],"backendDOMNodeId":1},
///   {"nodeId":"2","role":{"value":"button"},"name":{"value":"OK"},"childIds":["3"],"backendDOMNodeId":2},
///   {"nodeId":"3","role":{"value":"StaticText"},"name":{"value":"OK"},"backendDOMNodeId":3}]}"#)?;
/// let top = FrameAx { frame_id: "F", document: "d", parent_frame_id: None,
///     owner_backend_node_id: None, nodes: &nodes };
/// let mut table = RefTable::default();
/// let outline = build_outline(&[top], None, OutlineLimits::default(), &mut table);
/// assert_eq!(outline.text, "- button \"OK\" [ref=e1]\n");
/// assert_eq!(table.lookup("e1").map(|e| e.target.backend_node_id), Some(Some(2)));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn build_outline(
    frames: &[FrameAx<'_>],
    start: Option<(usize, i64)>,
    limits: OutlineLimits,
    table: &mut RefTable,
) -> Outline {
    let indexes: Vec<FrameIndex<'_>> = frames.iter().map(index).collect();
    // Child frames by (parent frame index, owner element).
    let mut children_of: HashMap<(usize, i64), Vec<usize>> = HashMap::new();
    let position: HashMap<&str, usize> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (f.frame_id, i))
        .collect();
    for (i, f) in frames.iter().enumerate().skip(1) {
        let parent = f.parent_frame_id.and_then(|p| position.get(p).copied());
        if let (Some(parent), Some(owner)) = (parent, f.owner_backend_node_id) {
            children_of.entry((parent, owner)).or_default().push(i);
        }
    }

    let mut lines: Vec<Line> = Vec::new();
    let mut truncated = false;
    let mut visited: HashSet<(usize, usize)> = HashSet::new();
    let mut frames_reached: HashSet<usize> = HashSet::new();
    let mut nth: HashMap<(usize, String, String), u32> = HashMap::new();
    let mut stack: Vec<Work> = Vec::new();

    match start {
        Some((frame, backend)) => {
            let node = frames.get(frame).and_then(|f| {
                f.nodes
                    .iter()
                    .position(|n| n.backend_node_id == Some(backend))
            });
            if let Some(node) = node {
                frames_reached.insert(frame);
                stack.push(Work::Node {
                    frame,
                    node,
                    depth: 0,
                    shown_above: None,
                });
            }
        }
        None if !frames.is_empty() => stack.push(Work::Frame { frame: 0, depth: 0 }),
        None => {}
    }

    'walk: while let Some(work) = stack.pop() {
        let (frame, node, depth, shown_above) = match work {
            Work::Frame { frame, depth } => {
                if !frames_reached.insert(frame) {
                    continue;
                }
                if let Some(root) = indexes.get(frame).and_then(|ix| ix.root) {
                    stack.push(Work::Node {
                        frame,
                        node: root,
                        depth,
                        shown_above: None,
                    });
                }
                continue;
            }
            Work::Node {
                frame,
                node,
                depth,
                shown_above,
            } => (frame, node, depth, shown_above),
        };
        if !visited.insert((frame, node)) {
            continue;
        }
        let (Some(f), Some(ix)) = (frames.get(frame), indexes.get(frame)) else {
            continue;
        };
        let Some(n) = f.nodes.get(node) else {
            continue;
        };
        let mut child_depth = depth;
        let mut child_above = shown_above;
        match kind(n) {
            Kind::Skip => continue,
            Kind::Transparent => {}
            Kind::Text => {
                let repeats = shown_above.and_then(|i| lines.get(i)).is_some_and(|l| {
                    l.name.trim() == n.name.trim() || l.value.as_deref() == Some(n.name.as_str())
                });
                if !n.name.trim().is_empty() && !repeats {
                    if lines.len() >= limits.max_nodes {
                        truncated = true;
                        break 'walk;
                    }
                    lines.push(Line {
                        depth,
                        text_only: true,
                        role: "text".into(),
                        name: n.name.clone(),
                        value: None,
                        states: String::new(),
                        number: None,
                        target: None,
                    });
                }
                // A StaticText's children are its inline boxes.
                continue;
            }
            Kind::Element | Kind::Frame => {
                if lines.len() >= limits.max_nodes {
                    truncated = true;
                    break 'walk;
                }
                let role = display_role(&n.role);
                let count = nth
                    .entry((frame, role.clone(), n.name.clone()))
                    .or_insert(0);
                let this_nth = *count;
                *count = count.saturating_add(1);
                let number = table.assign(f.frame_id, f.document, n.backend_node_id);
                let target = RefEntry {
                    target: AxRef {
                        id: format!("e{number}"),
                        role: role.clone(),
                        name: n.name.clone(),
                        nth: this_nth,
                        frame_id: f.frame_id.to_owned(),
                        backend_node_id: n.backend_node_id,
                    },
                    document: f.document.to_owned(),
                };
                lines.push(Line {
                    depth,
                    text_only: false,
                    role,
                    name: n.name.clone(),
                    value: n.value.clone(),
                    states: states_text(n),
                    number: Some(number),
                    target: Some(target),
                });
                child_depth = depth + 1;
                child_above = Some(lines.len() - 1);
                if matches!(kind(n), Kind::Frame) {
                    if let Some(owner) = n.backend_node_id {
                        if let Some(kids) = children_of.get(&(frame, owner)) {
                            for &kid in kids.iter().rev() {
                                stack.push(Work::Frame {
                                    frame: kid,
                                    depth: child_depth,
                                });
                            }
                        }
                    }
                }
            }
        }
        for child in n.children.iter().rev() {
            if let Some(&c) = ix.by_id.get(child.as_str()) {
                stack.push(Work::Node {
                    frame,
                    node: c,
                    depth: child_depth,
                    shown_above: child_above,
                });
            }
        }
    }

    let (text, shown, cut) = render(&lines, limits.max_chars);
    truncated |= cut;
    let mut refs = Vec::new();
    for line in lines.into_iter().take(shown) {
        if let (Some(number), Some(target)) = (line.number, line.target) {
            refs.push(target.target.clone());
            table.describe(number, target);
        }
    }
    table.commit();
    let unreached_frames = if truncated {
        Vec::new()
    } else {
        frames
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(i, _)| !frames_reached.contains(i))
            .map(|(_, f)| f.frame_id.to_owned())
            .collect()
    };
    Outline {
        text,
        refs,
        truncated,
        unreached_frames,
    }
}

/// The text of `lines`, how many lines it shows, and whether `max_chars` cut it.
fn render(lines: &[Line], max_chars: Option<usize>) -> (String, usize, bool) {
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(line) = lines.get(i) else { break };
        let next_depth = |k: usize| lines.get(k).map(|l| l.depth);
        let has_children = next_depth(i + 1).is_some_and(|d| d > line.depth);
        let mut text = String::new();
        text.push_str(&"  ".repeat(line.depth.min(MAX_INDENT)));
        let mut consumed = 1;
        if line.text_only {
            text.push_str(&format!("- text: {}", clip(&line.name)));
        } else {
            text.push_str("- ");
            text.push_str(&line.role);
            if !line.name.is_empty() {
                text.push(' ');
                text.push_str(&quoted(&line.name));
            }
            text.push_str(&line.states);
            if let Some(n) = line.number {
                text.push_str(&format!(" [ref=e{n}]"));
            }
            // A lone text child is shown inline, as `- paragraph [ref=e2]: Some text`.
            let lone_text = lines
                .get(i + 1)
                .filter(|l| l.text_only && l.depth == line.depth + 1)
                .filter(|_| next_depth(i + 2).is_none_or(|d| d <= line.depth));
            if let Some(value) = line.value.as_ref().filter(|_| has_children) {
                // `: value` would read as the children's parent line: a state instead.
                text.push_str(&format!(" [value={}]:", quoted(value)));
            } else if let Some(value) = &line.value {
                text.push_str(": ");
                text.push_str(&clip(value));
            } else if let Some(t) = lone_text {
                text.push_str(": ");
                text.push_str(&clip(&t.name));
                consumed = 2;
            } else if has_children {
                text.push(':');
            }
        }
        text.push('\n');
        if max_chars.is_some_and(|max| out.len() + text.len() > max) {
            return (out, i, true);
        }
        out.push_str(&text);
        i += consumed;
    }
    (out, lines.len(), false)
}
