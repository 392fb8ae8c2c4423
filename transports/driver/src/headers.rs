//! Extra HTTP headers for the browser endpoint (hosted browsers take a key as
//! `Authorization: Bearer ...`): sent on the WebSocket upgrade and on the `/json/version`
//! lookup, and never shown. Their values are secrets: `Debug` prints the names only, and no
//! error or log line of this crate names a value.

use crate::endpoint::REDACTED;

/// The most headers kept; more are refused when parsed.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::headers::MAX_HEADERS, 32);
/// ```
pub const MAX_HEADERS: usize = 32;

/// The longest header (name and value) accepted.
const MAX_HEADER_LEN: usize = 8 * 1024;

/// Headers a client may not set: the WebSocket handshake and the HTTP framing own them.
const RESERVED: &[&str] = &[
    "host",
    "connection",
    "upgrade",
    "content-length",
    "transfer-encoding",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-accept",
    "sec-websocket-extensions",
];

/// The extra headers of a connection, in the order given (a name may repeat).
///
/// ```
/// use cdp_supervisor_driver::headers::CdpHeaders;
/// let mut headers = CdpHeaders::default();
/// headers.push_flag("Authorization: Bearer SECRET")?;
/// assert_eq!(headers.iter().next(), Some(("Authorization", "Bearer SECRET")));
/// // Debug names the header, never its value.
/// assert_eq!(format!("{headers:?}"), "CdpHeaders([\"Authorization: <redacted>\"])");
/// assert!(headers.push_flag("no colon").is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CdpHeaders {
    headers: Vec<(String, String)>,
}

impl std::fmt::Debug for CdpHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self
            .headers
            .iter()
            .map(|(name, _)| format!("{name}: {REDACTED}"))
            .collect();
        f.debug_tuple("CdpHeaders").field(&names).finish()
    }
}

impl CdpHeaders {
    /// Adds `name: value`. Refused (saying why, never echoing the value): a name that is
    /// not an HTTP token, a value with a control character (a CR or LF would start a new
    /// header) or another character outside printable ASCII, a header the handshake owns (`Host`, `Upgrade`, `Sec-WebSocket-*`, ...),
    /// more than [`MAX_HEADERS`], or one over 8 KiB.
    ///
    /// ```
    /// use cdp_supervisor_driver::headers::CdpHeaders;
    /// let mut h = CdpHeaders::default();
    /// assert!(h.push("X-Api-Key", "k").is_ok());
    /// assert!(h.push("Bad Name", "k").is_err());
    /// assert!(h.push("X", "a\r\nHost: evil").unwrap_err().contains("control character"));
    /// assert!(h.push("Upgrade", "x").unwrap_err().contains("handshake"));
    /// assert!(h.push("X", "café").unwrap_err().contains("printable ASCII"));
    /// ```
    pub fn push(&mut self, name: &str, value: &str) -> Result<(), String> {
        let name = name.trim();
        let value = value.trim();
        let is_token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(is_token) {
            return Err(format!(
                "header name {name:?} is not an HTTP token (letters, digits, - and the like)"
            ));
        }
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(format!(
                "the value of header {name} holds a control character"
            ));
        }
        if value
            .chars()
            .any(|c| c != '\t' && !(' '..='~').contains(&c))
        {
            return Err(format!(
                "the value of header {name} holds a character outside printable ASCII"
            ));
        }
        if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "header {name} is set by the WebSocket handshake itself, not by a flag"
            ));
        }
        if name.len() + value.len() > MAX_HEADER_LEN {
            return Err(format!("header {name} is over 8 KiB"));
        }
        if self.headers.len() >= MAX_HEADERS {
            return Err(format!("more than {MAX_HEADERS} headers"));
        }
        self.headers.push((name.to_owned(), value.to_owned()));
        Ok(())
    }

    /// Adds a `NAME:VALUE` flag (as `--cdp-header` takes it; spaces around either are
    /// dropped).
    pub fn push_flag(&mut self, flag: &str) -> Result<(), String> {
        let (name, value) = flag.split_once(':').ok_or_else(|| {
            "a header is NAME:VALUE (e.g. 'Authorization: Bearer KEY')".to_owned()
        })?;
        self.push(name, value)
    }

    /// `(name, value)` pairs, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are none.
    ///
    /// ```
    /// assert!(cdp_supervisor_driver::headers::CdpHeaders::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }

    /// Appends the headers to `map`, an HTTP request's (the WebSocket upgrade's). `push`
    /// let through only names and values HTTP accepts, so this fails only on a header
    /// built some other way; its errors name the header, never its value.
    ///
    /// ```
    /// use cdp_supervisor_driver::headers::CdpHeaders;
    /// let mut h = CdpHeaders::default();
    /// h.push("Authorization", "Bearer K")?;
    /// let mut map = http::HeaderMap::new();
    /// h.append_to(&mut map)?;
    /// assert_eq!(map["authorization"], "Bearer K");
    /// # Ok::<(), String>(())
    /// ```
    pub fn append_to(&self, map: &mut http::HeaderMap) -> Result<(), String> {
        for (name, value) in self.iter() {
            let header = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("header name {name:?} is not valid"))?;
            let value = http::HeaderValue::from_str(value)
                .map_err(|_| format!("the value of header {name} is not valid"))?;
            map.append(header, value);
        }
        Ok(())
    }

    /// The headers as HTTP request lines (`Name: value\r\n` each), for a request written
    /// by hand (the `/json/version` lookup).
    ///
    /// ```
    /// use cdp_supervisor_driver::headers::CdpHeaders;
    /// let mut h = CdpHeaders::default();
    /// h.push("A", "1")?;
    /// assert_eq!(h.request_lines(), "A: 1\r\n");
    /// # Ok::<(), String>(())
    /// ```
    pub fn request_lines(&self) -> String {
        self.headers
            .iter()
            .map(|(n, v)| format!("{n}: {v}\r\n"))
            .collect()
    }

    /// `text` with every header value of these replaced by `<redacted>`: for a message
    /// that might quote one (a server's reply echoing a request).
    ///
    /// ```
    /// use cdp_supervisor_driver::headers::CdpHeaders;
    /// let mut h = CdpHeaders::default();
    /// h.push("Authorization", "Bearer SECRET")?;
    /// assert_eq!(h.redact("got Bearer SECRET"), "got <redacted>");
    /// # Ok::<(), String>(())
    /// ```
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (_, value) in &self.headers {
            if value.len() >= 4 {
                out = out.replace(value.as_str(), REDACTED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_never_echo_the_value() {
        let mut h = CdpHeaders::default();
        let e = h.push("X", "SECRET\nmore").unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        let e = h.push("Host", "SECRET").unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        let e = h.push_flag("SECRET-without-colon").unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        let e = h.push("X", "SECRET\u{e9}").unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        for i in 0..MAX_HEADERS {
            h.push(&format!("X-{i}"), "v").unwrap();
        }
        assert!(h.push("X-more", "v").is_err());
        assert!(!format!("{h:?}").contains("v\""));
    }

    #[test]
    fn flag_spacing_is_dropped() {
        let mut h = CdpHeaders::default();
        h.push_flag(" Authorization :  Bearer a:b ").unwrap();
        assert_eq!(
            h.iter().collect::<Vec<_>>(),
            [("Authorization", "Bearer a:b")]
        );
    }
}
