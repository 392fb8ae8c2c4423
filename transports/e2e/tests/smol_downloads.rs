//! End-to-end: downloads over the smol transport (the same API as the blocking client's):
//! a 20 KB attachment and a blob download are each named by the click that started them,
//! with their final path and size, and the files are there.

mod support;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::downloads::DownloadConfig;
use cdp_supervisor_smol::Client;
use support::smol::*;
use support::upload_site::{assert_saved, UploadSite, SMALL_DOWNLOADS};

#[test]
fn clicks_name_their_downloads() {
    smol::block_on(async {
        let test = "downloads";
        let Some(browser) = browser_or_skip("smol-downloads") else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("h25-smol-downloads-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut o = options(test);
        o.config.downloads = Some(DownloadConfig::new(dir.to_string_lossy()));
        let site = UploadSite::start();
        let client = Client::connect(browser.ws_url(), o).await.unwrap();
        wait_live(&client).await;
        let ao = ActOptions::default();
        let go = Action::Navigate {
            url: site.url("/downloads"),
        };
        client.act(go, ao).await.unwrap();
        for (y, name, size) in SMALL_DOWNLOADS {
            let click = Action::Click {
                target: Target::Point { x: 20.0, y },
            };
            assert_saved(&client.act(click, ao).await.unwrap(), &dir, name, size);
        }
        client.stop().await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    });
}
