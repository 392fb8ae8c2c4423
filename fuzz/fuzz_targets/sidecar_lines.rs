//! The sidecar's stdin (`cdp-supervise watch`): arbitrary bytes split into lines with the
//! same capped reader `watch` uses, each line parsed with `parse_line`. Neither may panic;
//! every line gives a command or an error whose line is one JSON object with
//! `"type":"error"`, a `code` and the line's `id`; a parsed `cdp` deadline is within its
//! cap.
#![no_main]

use cdp_supervise::lines::{Line, LineReader};
use cdp_supervise::protocol::{parse_line, too_long_line, Command, MAX_CDP_TIMEOUT};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A small cap so that libFuzzer's short inputs also reach the over-long path.
    let mut lines = LineReader::new(data, 256);
    let mut count = 0usize;
    while let Ok(Some(line)) = lines.next_line() {
        count += 1;
        assert!(count <= data.len() + 1, "more lines than bytes");
        let answer = match line {
            Line::TooLong { len } => {
                assert!(len > 256);
                too_long_line(len, 256)
            }
            Line::Bytes(bytes) => {
                assert!(bytes.len() <= 256);
                match parse_line(&bytes) {
                    Ok(request) => {
                        if let Command::Cdp { timeout, .. } = request.command {
                            assert!(timeout <= MAX_CDP_TIMEOUT);
                        }
                        continue;
                    }
                    Err(e) => e.to_line(),
                }
            }
        };
        let v: serde_json::Value = serde_json::from_str(&answer).expect("an error line is JSON");
        assert_eq!(v["type"], "error");
        assert_eq!(v["code"], "bad_request");
        assert!(v.get("id").is_some() && v["message"].is_string());
    }
    // The whole input as one line, uncapped: parse_line alone.
    let _ = parse_line(data);
});
