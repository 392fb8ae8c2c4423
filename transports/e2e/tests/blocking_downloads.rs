//! End-to-end: downloads against a real headless Chromium, over the blocking transport.
//! A 20 KB attachment and a blob download are each named by the click that started them,
//! with their final path and size, and the files are there; a download over the limit is
//! canceled and reported, and leaves no file.

mod support;

use cdp_supervisor::act::{ActOptions, ActResult, Action, Target};
use cdp_supervisor::downloads::{DownloadConfig, DownloadState};
use cdp_supervisor_blocking::Client;
use support::blocking::*;
use support::upload_site::{assert_saved, UploadSite, SMALL_DOWNLOADS};

fn click(client: &Client, y: f64) -> ActResult {
    client
        .act(
            Action::Click {
                target: Target::Point { x: 20.0, y },
            },
            ActOptions::default(),
        )
        .unwrap()
}

#[test]
fn clicks_name_their_downloads_and_an_oversized_one_is_canceled() {
    let test = "downloads";
    let Some(browser) = browser_or_skip(test) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h25-downloads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut options = options(test);
    let mut downloads = DownloadConfig::new(dir.to_string_lossy());
    downloads.max_bytes = 100_000;
    options.config.downloads = Some(downloads);
    let site = UploadSite::start();
    let client = Client::connect(browser.ws_url(), options).unwrap();
    wait_live(&client);
    client
        .act(
            Action::Navigate {
                url: site.url("/downloads"),
            },
            ActOptions::default(),
        )
        .unwrap();

    for (y, name, size) in SMALL_DOWNLOADS {
        let t0 = std::time::Instant::now();
        assert_saved(&click(&client, y), &dir, name, size);
        eprintln!("{name}: click answered in {:?}", t0.elapsed());
    }

    let r = click(&client, 120.0);
    let [d] = r.downloads.as_slice() else {
        panic!("the big download named by the click: {r:?}");
    };
    let done = client
        .wait_for(WAIT, "the big download canceled", |s| {
            s.downloads
                .iter()
                .any(|x| x.id == d.id && x.state == DownloadState::Canceled)
        })
        .unwrap();
    let big = done.downloads.iter().find(|x| x.id == d.id).unwrap();
    assert!(
        big.error
            .as_deref()
            .unwrap()
            .contains("--max-download-bytes"),
        "{big:?}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["file.bin", "made.txt"], "no partial file is left");
    assert_eq!(done.downloads.len(), 3);
    client.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loopback server of one slow download: `/slow.bin` (300 000 bytes, 10 KB every 100 ms,
/// three seconds in all) and `/`, a page whose link at (0,0)-(150,40) downloads it. Its
/// port; it serves until the test process ends.
fn slow_site() -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                if first.contains("/slow.bin") {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 300000\r\n\
                         Content-Disposition: attachment; filename=\"slow.bin\"\r\nConnection: close\r\n\r\n"
                    );
                    for _ in 0..30 {
                        if stream.write_all(&[b's'; 10_000]).is_err() {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                    return;
                }
                let body = "<title>slow</title><a href=/slow.bin download style=\"position:absolute;left:0;top:0;width:150px;height:40px;display:block\">slow</a>";
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}

/// A tab closed while its download runs: the download is not lost nor left half-done
/// unreported. It ends in the snapshot (`completed` with the whole file at its path, or
/// `canceled`), and no partial file stays in the folder. (Chromium 156 goes on with it at
/// browser level: it completes.)
#[test]
fn a_tab_closed_mid_download_leaves_no_partial_file_unreported() {
    let test = "downloads-tab-closed";
    let Some(browser) = browser_or_skip(test) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("h25-downloads-closed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut options = options(test);
    options.config.downloads = Some(DownloadConfig::new(dir.to_string_lossy()));
    let port = slow_site();
    let client = Client::connect(browser.ws_url(), options).unwrap();
    wait_live(&client);
    let tab = client
        .new_tab(&format!("http://127.0.0.1:{port}/"))
        .unwrap();
    client
        .wait_for(WAIT, "the page in the new tab", |s| {
            s.tabs
                .iter()
                .any(|t| t.tab_id == tab.tab_id && t.title == "slow")
        })
        .unwrap();
    // Started by the page's script (a click would wait for it within its settle budget).
    eval(&client, None, "document.querySelector('a').click(), 1");
    let started = client
        .wait_for(WAIT, "the download started", |s| !s.downloads.is_empty())
        .unwrap();
    let d = started.downloads[0].clone();
    assert_eq!(d.state, DownloadState::InProgress, "still running: {d:?}");
    assert_eq!(d.tab_id.as_deref(), Some(tab.tab_id.as_str()), "{d:?}");
    client.close_tab(Some(&tab.tab_id), true).unwrap();
    let done = client
        .wait_for(WAIT, "the download ended", |s| {
            s.downloads
                .iter()
                .any(|x| x.id == d.id && x.state != DownloadState::InProgress)
        })
        .unwrap();
    let ended = done.downloads.iter().find(|x| x.id == d.id).unwrap();
    assert!(
        done.tabs.iter().all(|t| t.tab_id != tab.tab_id),
        "the tab is gone"
    );
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    eprintln!("after the tab closed: {ended:?}, files {files:?}");
    match ended.state {
        DownloadState::Completed => {
            let path = ended.path.as_deref().unwrap();
            assert_eq!(std::fs::metadata(path).unwrap().len(), 300_000, "{ended:?}");
            assert_eq!(files, ["slow.bin"], "only the whole file");
        }
        _ => assert!(files.is_empty(), "a canceled download left {files:?}"),
    }
    client.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
