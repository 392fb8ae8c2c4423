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
