//! File choosers: which files an answer may upload, and the command that uploads them.
//!
//! A file input's chooser is reported by `Page.fileChooserOpened` on the session of its
//! frame (an OOPIF's on its own session) when that session intercepts choosers, and is
//! answered there with `DOM.setFileInputFiles` on the input's `backendNodeId` (see
//! [`crate::manual::chromium_facts`], "File choosers"). Dismissing one sends nothing: an
//! intercepted chooser holds no script, so there is nothing to release.
//!
//! Which files may go is split between the core and the transport, because the core
//! touches no file:
//! - the **transport** makes each path absolute and canonical (symlinks resolved, so a link
//!   under a root that points outside it is seen for what it is) and checks that it is a
//!   readable regular file, before it calls the core (Chromium uploads a missing path as
//!   an empty file, without an error);
//! - the **core** checks, lexically after normalising `.` and `..`, that each path lies
//!   under one of [`crate::Config::upload_roots`], that there is at least one, and that a
//!   `selectSingle` chooser gets exactly one; otherwise nothing is sent.

use std::path::{Component, Path, PathBuf};

use crate::cdp;
use crate::wire::to_raw;
use serde_json::value::RawValue;

/// The `mode` of a chooser that takes one file.
pub(crate) const SELECT_SINGLE: &str = "selectSingle";

/// `path` with `.` and `..` resolved lexically; `None` when it is not absolute or climbs
/// above its root.
fn normalise(path: &str) -> Option<PathBuf> {
    let path = Path::new(path);
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                // `pop` fails at the root: the path climbs above it.
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(name) => out.push(name),
        }
    }
    Some(out)
}

/// Why the files of an answer are refused (the text names the setting that allows more).
pub(crate) fn check_upload(
    roots: &[String],
    files: &[String],
    mode: Option<&str>,
) -> Result<(), String> {
    const HOW: &str = "allow its folder with --upload-root DIR (repeatable; Config::upload_roots)";
    if files.is_empty() {
        return Err(
            "no file given: accept a file chooser with at least one file, or dismiss it".into(),
        );
    }
    if mode == Some(SELECT_SINGLE) && files.len() > 1 {
        return Err(format!(
            "this file input takes one file (mode selectSingle), {} given",
            files.len()
        ));
    }
    if roots.is_empty() {
        return Err(format!(
            "no upload root is allowed, so no file may be uploaded: {HOW}"
        ));
    }
    let roots: Vec<PathBuf> = roots.iter().filter_map(|r| normalise(r)).collect();
    for file in files {
        let Some(path) = normalise(file) else {
            return Err(format!("{file:?} is not an absolute path"));
        };
        if !roots
            .iter()
            .any(|root| path.starts_with(root) && path != *root)
        {
            return Err(format!(
                "{file:?} is not under an allowed upload root: {HOW}"
            ));
        }
    }
    Ok(())
}

/// `DOM.setFileInputFiles` for the chooser's input.
pub(crate) fn set_files_params(files: &[String], backend_node_id: i64) -> Option<Box<RawValue>> {
    to_raw(&cdp::SetFileInputFilesParams {
        files,
        backend_node_id,
    })
}

/// `Page.setInterceptFileChooserDialog {enabled: true}`, sent on every page and OOPIF
/// session so that no chooser waits for a person.
pub(crate) fn intercept_params() -> Option<Box<RawValue>> {
    to_raw(&cdp::EnabledParams { enabled: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn files_must_lie_under_a_root_after_normalising() {
        let roots = v(&["/srv/up/"]);
        assert!(check_upload(&roots, &v(&["/srv/up/a.txt"]), None).is_ok());
        assert!(check_upload(&roots, &v(&["/srv/up/./x/../a.txt"]), None).is_ok());
        let e = check_upload(&roots, &v(&["/srv/up/../etc/passwd"]), None).unwrap_err();
        assert!(e.contains("--upload-root"), "{e}");
        assert!(check_upload(&roots, &v(&["/srv/upload/a"]), None).is_err());
        assert!(check_upload(&roots, &v(&["/srv/up"]), None).is_err());
        assert!(check_upload(&roots, &v(&["a.txt"]), None).is_err());
        assert!(check_upload(&roots, &v(&["/../../srv/up/a"]), None).is_err());
    }

    #[test]
    fn no_root_no_file_and_single_mode_are_refused() {
        let e = check_upload(&[], &v(&["/srv/up/a"]), None).unwrap_err();
        assert!(e.contains("--upload-root"), "{e}");
        assert!(check_upload(&v(&["/srv"]), &[], None).is_err());
        let two = v(&["/srv/a", "/srv/b"]);
        assert!(check_upload(&v(&["/srv"]), &two, Some(SELECT_SINGLE)).is_err());
        assert!(check_upload(&v(&["/srv"]), &two, Some("selectMultiple")).is_ok());
    }
}
