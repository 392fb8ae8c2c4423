//! Each tab's network requests, replayed from a real recording
//! (`tests/traces/many-requests.jsonl`: a page of 206 requests on 127.0.0.1, 4 of them ad
//! iframes on localhost, each an OOPIF with requests of its own).

mod harness;

use cdp_supervisor::network::{NetworkRequest, RequestState, MAX_NETWORK_REQUESTS};
use cdp_supervisor::Diff;
use harness::replay_trace;
use std::collections::HashMap;

#[test]
fn a_page_of_many_requests_keeps_its_last_two_hundred_each_with_its_frame() {
    let mut listed: Vec<NetworkRequest> = Vec::new();
    let run = replay_trace("many-requests", |sup, _, _| {
        // The last listing (the tab, and so its ring, stays after the final disconnect).
        if let Ok(all) = sup.network_requests(None, 0) {
            listed = all;
        }
    });
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
    assert_eq!(
        listed.len(),
        MAX_NETWORK_REQUESTS,
        "the ring is full, never over"
    );
    let (first, last) = (listed[0].index, listed[listed.len() - 1].index);
    assert_eq!((first, last), (7, 206), "the 6 oldest went");
    assert!(listed.windows(2).all(|w| w[1].index == w[0].index + 1));
    assert!(
        listed.iter().all(|r| r.state == RequestState::Finished),
        "{listed:#?}"
    );
    assert!(listed.iter().all(|r| r.status == Some(200)));
    // Query values are never kept.
    let api: Vec<_> = listed.iter().filter(|r| r.url.contains("/api/")).collect();
    assert_eq!(api.len(), 30);
    assert!(
        api.iter().all(|r| r.url.ends_with("?key=<redacted>")),
        "{api:#?}"
    );
    // The ads' own requests name the ads' frames, on the ads' sessions (the frames as the
    // diffs told them: the final disconnect clears the tree).
    let mut oopifs: HashMap<String, String> = HashMap::new();
    let mut page_session = None;
    for d in run.diffs() {
        match d {
            Diff::FrameAdded { frame, .. } | Diff::FrameUpdated { frame, .. } => {
                if let (true, Some(s)) = (frame.is_oopif, &frame.session_id) {
                    oopifs.insert(frame.frame_id.clone(), s.clone());
                }
            }
            Diff::Page { page: Some(p), .. } if p.session_id.is_some() => {
                page_session = p.session_id.clone();
            }
            _ => {}
        }
    }
    assert_eq!(oopifs.len(), 4, "{oopifs:?}");
    let tracks: Vec<_> = listed
        .iter()
        .filter(|r| r.url.contains("/track/"))
        .collect();
    assert_eq!(tracks.len(), 20);
    for r in tracks {
        let session = r
            .frame_id
            .as_ref()
            .and_then(|f| oopifs.get(f))
            .unwrap_or_else(|| panic!("{r:?} names no ad frame"));
        assert_eq!(session, &r.session_id);
        assert_ne!(Some(&r.session_id), page_session.as_ref());
    }
    // The ads' documents are requested on the page session and finish on their own.
    let ads: Vec<_> = listed.iter().filter(|r| r.url.contains("/ad?n=")).collect();
    assert_eq!(ads.len(), 4);
    assert!(ads
        .iter()
        .all(|r| r.resource_type == "Document" && r.encoded_data_length.is_some()));
}
