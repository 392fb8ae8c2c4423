//! Recording every frame in both directions to a trace file: JSON Lines with
//! `t` in seconds since the recorder started, `dir` and the message exactly as sent.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use serde_json::value::RawValue;

/// Writes a trace file. Each line is flushed at once so that a trace survives a crash.
///
/// ```
/// let path = std::env::temp_dir().join(format!("doc-trace-{}.jsonl", std::process::id()));
/// let mut recorder = cdp_supervisor_driver::record::Recorder::create(&path)?;
/// recorder.connect()?;
/// recorder.outgoing(r#"{"id":1,"method":"Target.getTargets","params":{}}"#)?;
/// recorder.incoming(r#"{"id":1,"result":{"targetInfos":[]}}"#)?;
/// recorder.disconnect()?;
/// assert_eq!(std::fs::read_to_string(&path)?.lines().count(), 4);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Recorder {
    out: BufWriter<File>,
    start: Instant,
    /// The last `t` written: a trace's times never decrease.
    last_t: f64,
}

impl Recorder {
    /// Creates (truncates) the trace file at `path`.
    pub fn create(path: &Path) -> io::Result<Recorder> {
        let file = File::create(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create trace file {}: {e}", path.display()),
            )
        })?;
        Ok(Recorder {
            out: BufWriter::new(file),
            start: Instant::now(),
            last_t: 0.0,
        })
    }

    /// A `connect` line: the WebSocket opened.
    pub fn connect(&mut self) -> io::Result<()> {
        self.line("connect", None)
    }

    /// A `connect` line naming the WebSocket URL with its credentials redacted
    /// ([`redact_url`](crate::endpoint::redact_url)); when any were, the line says so
    /// (`"redacted":true`) instead of storing them.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("doc-trace-url-{}.jsonl", std::process::id()));
    /// let mut recorder = cdp_supervisor_driver::record::Recorder::create(&path)?;
    /// recorder.connect_to("ws://u:p@h:1/x?apiKey=SECRET")?;
    /// let text = std::fs::read_to_string(&path)?;
    /// assert!(text.contains(r#""redacted":true"#) && !text.contains("SECRET") && !text.contains("u:p"));
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn connect_to(&mut self, url: &str) -> io::Result<()> {
        let t = self.next_t();
        let header = serde_json::json!({
            "url": crate::endpoint::redact_url(url),
            "redacted": crate::endpoint::has_secrets(url),
        });
        let fields = header.to_string();
        let fields = fields.strip_prefix('{').unwrap_or("}");
        writeln!(self.out, "{{\"t\":{t},\"dir\":\"connect\",{fields}")?;
        self.out.flush()
    }

    /// A `disconnect` line: the WebSocket closed.
    pub fn disconnect(&mut self) -> io::Result<()> {
        self.line("disconnect", None)
    }

    /// An `out` line: a message written to the browser; a sign-in's password is
    /// redacted (credentials never reach a trace).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("doc-trace-auth-{}.jsonl", std::process::id()));
    /// let mut recorder = cdp_supervisor_driver::record::Recorder::create(&path)?;
    /// recorder.outgoing(r#"{"id":1,"method":"Fetch.continueWithAuth","params":{"requestId":"r","authChallengeResponse":{"response":"ProvideCredentials","username":"u","password":"hunter2"}},"sessionId":"S"}"#)?;
    /// drop(recorder);
    /// let text = std::fs::read_to_string(&path)?;
    /// assert!(!text.contains("hunter2") && text.contains("<redacted>"), "{text}");
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn outgoing(&mut self, json: &str) -> io::Result<()> {
        if json.contains("\"Fetch.continueWithAuth\"") {
            return self.line("out", Some(&redact_password(json)));
        }
        self.line("out", Some(json))
    }

    /// An `in` line: a message read from the browser.
    pub fn incoming(&mut self, json: &str) -> io::Result<()> {
        self.line("in", Some(json))
    }

    fn next_t(&mut self) -> f64 {
        let t = self.start.elapsed().as_secs_f64().max(self.last_t);
        self.last_t = t;
        t
    }

    fn line(&mut self, dir: &str, msg: Option<&str>) -> io::Result<()> {
        let t = self.next_t();
        match msg {
            // Embedded verbatim, as sent; text that is not JSON (never from Chromium)
            // is kept as a string so the trace stays parseable.
            Some(m) if serde_json::from_str::<&RawValue>(m).is_ok() => {
                writeln!(self.out, "{{\"t\":{t},\"dir\":\"{dir}\",\"msg\":{m}}}")?
            }
            Some(m) => writeln!(
                self.out,
                "{{\"t\":{t},\"dir\":\"{dir}\",\"msg\":{}}}",
                serde_json::Value::String(m.to_owned())
            )?,
            None => writeln!(self.out, "{{\"t\":{t},\"dir\":\"{dir}\"}}")?,
        }
        self.out.flush()
    }
}

/// The message with its `authChallengeResponse.password` replaced by `<redacted>` (the
/// whole message's params dropped if it cannot be read).
fn redact_password(json: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(json) else {
        return r#"{"method":"Fetch.continueWithAuth","redacted":true}"#.to_owned();
    };
    if let Some(p) = v
        .pointer_mut("/params/authChallengeResponse/password")
        .filter(|p| p.is_string())
    {
        *p = serde_json::Value::String("<redacted>".into());
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_parseable_lines() {
        let path = std::env::temp_dir().join(format!("rec-test-{}.jsonl", std::process::id()));
        {
            let mut r = Recorder::create(&path).unwrap();
            r.connect().unwrap();
            r.connect_to("ws://u:p@h:1/x?token=T").unwrap();
            r.outgoing(r#"{"id":1,"method":"Target.getTargets","params":{}}"#)
                .unwrap();
            r.incoming(r#"{"id":1,"result":{}}"#).unwrap();
            r.incoming("not json").unwrap();
            r.disconnect().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
        assert_eq!(trace.entries.len(), 6);
        assert!(text.contains(r#""url":"ws://<redacted>@h:1/x?token=<redacted>""#));
    }
}
