//! Checks an action against the tab before anything is sent: attached, no dialog in the
//! way, the target's frame known, and the OOPIFs between the target and the top.

use crate::act::{ActError, Action, Scroll, Target};
use crate::dialogs::Dialogs;
use crate::error::CommandError;
use crate::flow::act::NodeAt;
use crate::tab::Tab;

/// Where an action runs: the page session, the top frame, and the node it aims at.
pub(crate) struct Plan {
    pub page_session: String,
    pub top_frame: String,
    pub node: Option<NodeAt>,
    /// The other elements: a `select`'s or `fill`'s fields, in order, and a `drag`'s end
    /// when it is an element.
    pub extra: Vec<NodeAt>,
}

/// The action's target, if it names one.
fn target(action: &Action) -> Option<&Target> {
    match action {
        Action::Click { target }
        | Action::Scroll(Scroll::To(target))
        | Action::Hover { target }
        | Action::Drag { from: target, .. } => Some(target),
        Action::Type { target, .. } => target.as_ref(),
        _ => None,
    }
}

/// Plans `action`, or says why it cannot run. `resolve_ref` turns a ref into its frame and
/// `backendNodeId` (`None`: not in the current snapshot).
pub(crate) fn plan(
    tab: &Tab,
    dialogs: &Dialogs,
    action: &Action,
    resolve_ref: impl Fn(&str) -> Option<(String, i64)>,
) -> Result<Plan, ActError> {
    let page_session = tab.page_session().ok_or(CommandError::NotAttached)?;
    let top_frame = tab.page_target().ok_or(CommandError::NotAttached)?;
    // Navigations go through a dialog (Chromium closes it); input would be swallowed.
    let navigates = matches!(
        action,
        Action::Navigate { .. } | Action::Reload | Action::Back | Action::Forward
    );
    if let (false, Some(d)) = (navigates, dialogs.newest_pending()) {
        return Err(ActError::Blocked {
            dialog_id: d.to_owned(),
        });
    }
    let node = match target(action) {
        Some(t) => element(tab, t, &resolve_ref)?,
        None => None,
    };
    let mut extra = Vec::new();
    for t in crate::flow::act::extra_targets(action)? {
        extra.extend(element(tab, t, &resolve_ref)?);
    }
    Ok(Plan {
        page_session: page_session.to_owned(),
        top_frame: top_frame.to_owned(),
        node,
        extra,
    })
}

/// The element a target names (`None`: a point).
fn element(
    tab: &Tab,
    target: &Target,
    resolve_ref: &impl Fn(&str) -> Option<(String, i64)>,
) -> Result<Option<NodeAt>, ActError> {
    Ok(match target {
        Target::Point { .. } => None,
        Target::Ref(r) => {
            let (frame_id, id) =
                resolve_ref(r).ok_or_else(|| ActError::StaleRef { r: r.clone() })?;
            let mut node = node_at(tab, &frame_id, id)?;
            node.reference = Some(r.clone());
            Some(node)
        }
        Target::Node {
            frame_id,
            backend_node_id,
        } => Some(node_at(tab, frame_id, *backend_node_id)?),
    })
}

/// A node in `frame_id`: the session that holds it, and every OOPIF above it (innermost
/// first) with its parent's session.
fn node_at(tab: &Tab, frame_id: &str, backend_node_id: i64) -> Result<NodeAt, ActError> {
    let session = tab.route_command(Some(frame_id), "DOM.getContentQuads")?;
    let mut levels = Vec::new();
    let mut current = Some(frame_id.to_owned());
    // Bounded by the frame table (a cycle cannot form, but the walk is capped anyway).
    let mut steps = tab.frames.len();
    while let (Some(id), true) = (current.take(), steps > 0) {
        steps -= 1;
        let Some(frame) = tab.frames.get(&id) else {
            break;
        };
        let parent = frame.info.parent_frame_id.clone();
        if frame.info.is_oopif {
            if let Some(p) = parent.as_deref() {
                let parent_session = tab.route_command(Some(p), "DOM.getFrameOwner")?;
                levels.push((parent_session, id.clone()));
            }
        }
        current = parent;
    }
    Ok(NodeAt {
        frame_id: frame_id.to_owned(),
        session,
        backend_node_id,
        reference: None,
        levels,
    })
}
