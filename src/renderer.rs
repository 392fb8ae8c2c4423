//! Which sessions of the tab a pending dialog blocks: those whose documents run in the
//! renderer process that shows it (see [`crate::manual::chromium_facts`], "A dialog blocks
//! its renderer, and only it").
//!
//! Chromium names no target's process. Under site isolation a renderer holds the documents
//! of one site of the tab, so a dialog blocks its own frame's session and every session
//! whose root document is of the same site (the top frame and an OOPIF nested back on the
//! top's site share one). [`site_key`] is never finer than a site: a frame that shares the
//! renderer is always counted, and at worst a frame of a neighbouring site is counted too.

use crate::snapshot::PendingDialog;
use crate::tab::Tab;

/// A key at least as coarse as the site of an origin or URL (`scheme://host`, the host cut
/// to its last two labels unless it is an IP address), for grouping sessions by renderer;
/// `None` for one without a host (`about:blank`, `data:`, an opaque origin).
///
/// A registrable domain has at least two labels, so two hosts of one site always share
/// their last two (`a.example.co.uk` and `b.example.co.uk` give `co.uk`): coarser, never
/// finer, and no public-suffix list is needed.
pub(crate) fn site_key(origin_or_url: &str) -> Option<String> {
    let (scheme, rest) = origin_or_url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        // An IPv6 literal: the whole bracketed address.
        host_port.split_inclusive(']').next().unwrap_or(host_port)
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let is_ip = host.starts_with('[') || host.split('.').all(|l| l.parse::<u8>().is_ok());
    let key = if is_ip {
        host.as_str()
    } else {
        let mut dots = host.rmatch_indices('.').map(|(i, _)| i);
        let _last = dots.next();
        match dots.next() {
            Some(i) => host.get(i + 1..).unwrap_or(&host),
            None => host.as_str(),
        }
    };
    Some(format!("{}://{key}", scheme.to_ascii_lowercase()))
}

/// The site key of a session's own document: the top frame's for the page session, the
/// OOPIF's for a child session.
fn session_site(tab: &Tab, session_id: &str) -> Option<String> {
    let session = tab.sessions.get(session_id)?;
    let root = tab.frames.get(&session.target_id)?;
    site_key(&root.info.origin).or_else(|| site_key(&root.info.url))
}

/// The session that runs a frame's document: an OOPIF's own, else its owner's.
fn frame_session<'t>(tab: &'t Tab, frame_id: &str) -> Option<&'t str> {
    let frame = tab.frames.get(frame_id)?;
    Some(
        frame
            .info
            .session_id
            .as_deref()
            .unwrap_or(&frame.owner_session),
    )
}

/// Every session of the tab that one of `dialogs` blocks, with the dialog (the first of
/// `dialogs` that blocks it). A dialog of a frame the tab does not know blocks the page
/// session, as a dialog naming no frame is the top's.
pub(crate) fn blocked_sessions<'d>(
    tab: &Tab,
    dialogs: impl IntoIterator<Item = &'d PendingDialog>,
) -> Vec<(String, &'d PendingDialog)> {
    let mut blocked: Vec<(String, &'d PendingDialog)> = Vec::new();
    for dialog in dialogs {
        let Some(own) = frame_session(tab, &dialog.frame_id).or_else(|| tab.page_session()) else {
            continue;
        };
        let site = session_site(tab, own);
        for id in tab.sessions.ids() {
            let shares = id == own || (site.is_some() && session_site(tab, id) == site);
            if shares && !blocked.iter().any(|(s, _)| s == id) {
                blocked.push((id.to_owned(), dialog));
            }
        }
    }
    blocked
}

#[cfg(test)]
mod tests {
    use super::site_key;

    #[test]
    fn a_site_key_is_scheme_and_the_last_two_labels_or_the_whole_ip() {
        let k = |s: &str| site_key(s);
        assert_eq!(
            k("http://127.0.0.1:8080/a").as_deref(),
            Some("http://127.0.0.1")
        );
        assert_ne!(k("http://127.0.0.1:1"), k("http://127.0.0.2:1"));
        assert_eq!(k("http://127.0.0.1:1"), k("http://127.0.0.1:2/x"));
        assert_ne!(k("http://localhost:1"), k("http://127.0.0.1:1"));
        assert_ne!(k("http://a.test"), k("https://a.test"));
        assert_eq!(k("https://a.b.Example.com./x"), k("https://example.com"));
        assert_eq!(k("https://a.example.co.uk"), k("https://b.example.co.uk"));
        assert_eq!(k("http://u:p@[::1]:9/").as_deref(), Some("http://[::1]"));
        assert_eq!(k("about:blank"), None);
        assert_eq!(k("null"), None);
        assert_eq!(k("http:///x"), None);
    }
}
