//! The transport's half of a file chooser's answer: the files themselves. The core touches
//! no file, so before it is asked to upload, each path is made canonical (symlinks
//! resolved: a link under an allowed root that points outside it is judged by where it
//! points) and checked to be a readable regular file; Chromium would upload a missing
//! path as an empty file without an error (see the core's manual, Chromium facts, "File
//! choosers"). The core then checks the canonical paths against the allowed roots, made
//! canonical the same way when the driver starts.

use std::path::Path;

/// The allowed upload roots, canonical where they exist (a root that does not exist is
/// kept as given: no canonical file can lie under it unless it appears later).
///
/// ```
/// let roots = cdp_supervisor_driver::upload::canonical_roots(&["/".to_owned()]);
/// assert_eq!(roots, ["/"]);
/// ```
pub fn canonical_roots(roots: &[String]) -> Vec<String> {
    roots
        .iter()
        .map(|root| match std::fs::canonicalize(root) {
            Ok(path) => path.to_string_lossy().into_owned(),
            Err(_) => root.clone(),
        })
        .collect()
}

/// Each file made canonical, or why one cannot be uploaded (missing, not a regular file,
/// unreadable, not valid UTF-8).
///
/// ```
/// use cdp_supervisor_driver::upload::checked_files;
/// let e = checked_files(&["/no/such/file".to_owned()]).unwrap_err();
/// assert!(e.contains("/no/such/file"), "{e}");
/// assert!(checked_files(&["/".to_owned()]).unwrap_err().contains("not a regular file"));
/// ```
pub fn checked_files(files: &[String]) -> Result<Vec<String>, String> {
    files.iter().map(|f| checked_file(f)).collect()
}

fn checked_file(file: &str) -> Result<String, String> {
    let path = Path::new(file);
    if !path.is_absolute() {
        return Err(format!("{file:?} is not an absolute path"));
    }
    let canonical =
        std::fs::canonicalize(path).map_err(|e| format!("{file:?} cannot be uploaded: {e}"))?;
    let meta =
        std::fs::metadata(&canonical).map_err(|e| format!("{file:?} cannot be uploaded: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{file:?} is not a regular file"));
    }
    std::fs::File::open(&canonical).map_err(|e| format!("{file:?} cannot be read: {e}"))?;
    canonical
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{file:?} is not valid UTF-8 once resolved"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_is_judged_by_where_it_points() {
        let dir = std::env::temp_dir().join(format!("h25-upload-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root")).unwrap();
        std::fs::write(dir.join("outside.txt"), "x").unwrap();
        std::fs::write(dir.join("root/in.txt"), "y").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("outside.txt"), dir.join("root/link")).unwrap();
        let root = canonical_roots(&[dir.join("root").to_string_lossy().into_owned()]);
        let inside = checked_files(&[dir.join("root/./in.txt").to_string_lossy().into()]).unwrap();
        assert!(inside[0].starts_with(&root[0]) && inside[0].ends_with("in.txt"));
        #[cfg(unix)]
        {
            let link = checked_files(&[dir.join("root/link").to_string_lossy().into()]).unwrap();
            assert!(!link[0].starts_with(&format!("{}/", root[0])), "{link:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
