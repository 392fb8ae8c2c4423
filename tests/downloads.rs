//! Downloads, scripted: the browser-level behaviour set once at connect, each download in
//! the snapshot with start and finish diffs, the embedder's rename, the size limit, the
//! bound.

mod harness;

use cdp_supervisor::downloads::{DownloadConfig, DownloadState};
use cdp_supervisor::{Config, Diff, Event};
use harness::{Harness, PAGE, PS};

fn config(max_bytes: u64, renames: bool) -> Config {
    let mut d = DownloadConfig::new("/dl");
    d.max_bytes = max_bytes;
    d.embedder_renames = renames;
    let mut c = Config::default();
    c.downloads = Some(d);
    c
}

fn begin(h: &mut Harness, guid: &str) {
    h.recv(&format!(
        r#"{{"method":"Browser.downloadWillBegin","params":{{"frameId":"{PAGE}","guid":"{guid}","url":"http://a.test/{guid}.bin","suggestedFilename":"{guid}.bin"}}}}"#
    ));
}

fn progress(h: &mut Harness, guid: &str, received: u64, total: u64, state: &str) {
    let path = if state == "completed" {
        format!(r#","filePath":"/dl/{guid}""#)
    } else {
        String::new()
    };
    h.recv(&format!(
        r#"{{"method":"Browser.downloadProgress","params":{{"guid":"{guid}","receivedBytes":{received},"totalBytes":{total},"state":"{state}"{path}}}}}"#
    ));
}

fn finished(h: &Harness) -> Vec<cdp_supervisor::downloads::Download> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Diff(Diff::DownloadFinished { download }) => Some(download.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_behaviour_is_set_once_at_browser_level_and_never_on_a_page_session() {
    let h = Harness::attached(config(100, false));
    let set = h.sent_with("Browser.setDownloadBehavior");
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].session_id, None);
    assert!(set[0].json.contains(r#""behavior":"allowAndName""#));
    assert!(set[0].json.contains(r#""downloadPath":"/dl""#));
    assert!(set[0].json.contains(r#""eventsEnabled":true"#));
    assert!(!h.sent_on(PS).contains(&"Browser.setDownloadBehavior"));
    let none = Harness::attached(Config::default());
    assert!(none.sent_with("Browser.setDownloadBehavior").is_empty());
}

#[test]
fn a_download_is_listed_from_its_start_and_finished_with_its_path() {
    let mut h = Harness::attached(config(1 << 20, false));
    begin(&mut h, "g1");
    let s = h.snapshot();
    let d = &s.downloads[0];
    assert_eq!(
        (d.id.as_str(), d.state, d.tab_id.as_deref()),
        ("g1", DownloadState::InProgress, Some(PAGE))
    );
    assert_eq!(d.suggested_filename, "g1.bin");
    progress(&mut h, "g1", 10, 20, "inProgress");
    assert!(finished(&h).is_empty());
    progress(&mut h, "g1", 20, 20, "completed");
    let done = &finished(&h)[0];
    assert_eq!(done.state, DownloadState::Completed);
    assert_eq!(done.path.as_deref(), Some("/dl/g1"));
    assert_eq!((done.received_bytes, done.total_bytes), (20, 20));
    assert_eq!(h.snapshot().downloads[0], *done);
    // A repeated end changes nothing.
    progress(&mut h, "g1", 20, 20, "completed");
    assert_eq!(finished(&h).len(), 1);
}

#[test]
fn with_the_embedder_renaming_a_download_finishes_at_the_saved_path() {
    let mut h = Harness::attached(config(1 << 20, true));
    begin(&mut h, "g1");
    progress(&mut h, "g1", 5, 5, "completed");
    let asked: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::DownloadCompleted {
                id,
                file_path,
                suggested_filename,
            } => Some((id.clone(), file_path.clone(), suggested_filename.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [("g1".into(), "/dl/g1".into(), "g1.bin".into())]);
    assert!(finished(&h).is_empty(), "not before the rename");
    assert!(h.sup.download_saved(h.now, "g1", Ok("/dl/g1.bin".into())));
    h.drain();
    let done = &finished(&h)[0];
    assert_eq!(done.path.as_deref(), Some("/dl/g1.bin"));
    assert!(!h.sup.download_saved(h.now, "g1", Ok("/dl/again".into())));
    h.snapshot();
}

#[test]
fn a_download_over_the_limit_is_canceled_once_and_reported() {
    let mut h = Harness::attached(config(1000, false));
    begin(&mut h, "big");
    progress(&mut h, "big", 100, 5000, "inProgress");
    progress(&mut h, "big", 200, 5000, "inProgress");
    let cancels = h.sent_with("Browser.cancelDownload");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].session_id, None);
    assert!(cancels[0].json.contains(r#""guid":"big""#));
    progress(&mut h, "big", 0, 5000, "canceled");
    let done = &finished(&h)[0];
    assert_eq!(done.state, DownloadState::Canceled);
    let why = done.error.as_deref().unwrap();
    assert!(
        why.contains("--max-download-bytes") && why.contains("1000"),
        "{why}"
    );
    assert_eq!(done.path, None);
    h.snapshot();
}

#[test]
fn the_snapshot_keeps_the_last_twenty_and_ignores_unknown_progress() {
    let mut h = Harness::attached(config(1 << 20, false));
    for i in 0..25 {
        begin(&mut h, &format!("g{i}"));
    }
    let s = h.snapshot();
    assert_eq!(s.downloads.len(), 20);
    assert_eq!(s.downloads[0].id, "g5");
    progress(&mut h, "g0", 1, 1, "completed");
    progress(&mut h, "never", 1, 1, "completed");
    assert!(finished(&h).is_empty());
    h.recv(r#"{"method":"Browser.downloadProgress","params":{"guid":"g9","receivedBytes":-1,"totalBytes":1e300,"state":"odd"}}"#);
    h.snapshot();
}
