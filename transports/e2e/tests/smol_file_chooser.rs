//! End-to-end: a file chooser in an OOPIF over the smol transport (the same API as the
//! blocking client's): pending for its frame, refused outside the upload root naming
//! `--upload-root`, accepted with a file the frame's `change` handler then sees.

mod support;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor_smol::Client;
use serde_json::json;
use support::smol::*;
use support::upload_site::UploadSite;

#[test]
fn an_oopif_chooser_is_answered_with_a_file_under_the_root() {
    smol::block_on(async {
        let test = "file-chooser";
        let Some(browser) = browser_or_skip("smol-file-chooser") else {
            return;
        };
        let root = std::env::temp_dir().join(format!("h25-smol-upload-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let file = root.join("c.txt");
        std::fs::write(&file, "abc").unwrap();
        let mut o = options(test);
        o.config.upload_roots = vec![root.to_string_lossy().into_owned()];
        let site = UploadSite::start();
        let client = Client::connect(browser.ws_url(), o).await.unwrap();
        wait_live(&client).await;
        let ao = ActOptions::default();
        client
            .act(Action::Navigate { url: site.url("/") }, ao)
            .await
            .unwrap();
        let snap = client
            .wait_for(WAIT, "the OOPIF", |s| {
                find(s, "/cross").is_some_and(|f| f.is_oopif)
            })
            .await
            .unwrap();
        let cross = find(&snap, "/cross").unwrap().frame_id.clone();
        while eval(&client, Some(&cross), "document.readyState").await != json!("complete") {
            smol::Timer::after(std::time::Duration::from_millis(20)).await;
        }
        let click = Action::Click {
            target: Target::Point { x: 20.0, y: 140.0 },
        };
        client.act(click, ao).await.unwrap();
        let d = wait_dialog_of(&client, "file_chooser").await;
        assert_eq!(d.frame_id, cross);
        let e = client
            .upload_files(&["/etc/hostname"], Some(&d.id))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "upload_refused");
        assert!(e.to_string().contains("--upload-root"), "{e}");
        let closed = client
            .upload_files(&[&file.to_string_lossy()], Some(&d.id))
            .await
            .unwrap();
        assert!(closed.accepted);
        let seen = eval(&client, Some(&cross), "JSON.stringify(seen)").await;
        assert_eq!(seen, json!(r#"["inner:c.txt:3"]"#));
        client.stop().await.unwrap();
        let _ = std::fs::remove_dir_all(&root);
    });
}
