//! The transport's half of a download: the file. Chromium writes a download as
//! `DIR/<guid>` (`allowAndName`); once it completed, the driver gives it its suggested name,
//! unique in the folder, and tells the core where it is
//! ([`Supervisor::download_saved`](cdp_supervisor::Supervisor::download_saved)).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The suggested name, safe as one file name in the folder: its last path component,
/// without control characters or a leading dot; `download` when nothing is left.
///
/// ```
/// use cdp_supervisor_driver::downloads::safe_name;
/// assert_eq!(safe_name("../../etc/passwd"), "passwd");
/// assert_eq!(safe_name("..\\x.txt"), "x.txt");
/// assert_eq!(safe_name(".hidden"), "hidden");
/// assert_eq!(safe_name(""), "download");
/// ```
pub fn safe_name(suggested: &str) -> String {
    let last = suggested.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = last.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim().trim_start_matches('.').trim();
    if clean.is_empty() {
        "download".to_owned()
    } else {
        clean.to_owned()
    }
}

/// `name`, or `stem (N).ext` for the first N that makes it new in the folder.
fn candidate(name: &str, n: u32) -> String {
    if n == 0 {
        return name.to_owned();
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem} ({n}).{ext}"),
        _ => format!("{name} ({n})"),
    }
}

/// Moves a completed download at `file_path` to its suggested name in the same folder,
/// never over an existing file (`name (1).ext`, ...); returns the new path.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("dl-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// for guid in ["g1", "g2"] {
///     std::fs::write(dir.join(guid), guid)?;
/// }
/// let save = |guid: &str| cdp_supervisor_driver::downloads::save(&dir.join(guid).to_string_lossy(), "a.txt");
/// let (first, second) = (save("g1").map_err(std::io::Error::other)?, save("g2").map_err(std::io::Error::other)?);
/// assert!(first.ends_with("/a.txt") && second.ends_with("/a (1).txt"), "{first} {second}");
/// assert_eq!(std::fs::read_to_string(&second)?, "g2");
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn save(file_path: &str, suggested: &str) -> Result<String, String> {
    let from = Path::new(file_path);
    let dir = from
        .parent()
        .ok_or_else(|| format!("{file_path:?} has no folder"))?;
    let name = safe_name(suggested);
    for n in 0..1000 {
        let to: PathBuf = dir.join(candidate(&name, n));
        // A hard link fails if the name is taken: never overwrites, even in a race.
        match std::fs::hard_link(from, &to) {
            Ok(()) => {
                std::fs::remove_file(from)
                    .map_err(|e| format!("saved as {to:?} but {file_path:?} stays: {e}"))?;
                return Ok(to.to_string_lossy().into_owned());
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(_) if !to.exists() => {
                // No hard links here: rename, after checking the name is free.
                std::fs::rename(from, &to)
                    .map_err(|e| format!("cannot save {file_path:?} as {to:?}: {e}"))?;
                return Ok(to.to_string_lossy().into_owned());
            }
            Err(_) => continue,
        }
    }
    Err(format!("no free name for {name:?} in {dir:?}"))
}
