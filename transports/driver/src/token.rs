//! The dialog bridge's per-supervisor secret.
//!
//! Only bridge requests carrying the token become dialogs, so a page cannot forge one:
//! it must be unguessable. 16 bytes from the kernel's CSPRNG, hex-encoded; no new
//! dependency for it.

use std::io::Read;

#[cfg(test)]
use cdp_supervisor::BridgeConfig;
use cdp_supervisor::Config;

/// Bytes of randomness in a token (128 bits).
pub const TOKEN_BYTES: usize = 16;

/// A fresh random token: [`TOKEN_BYTES`] bytes of `/dev/urandom` as lowercase hex.
///
/// ```
/// let t = cdp_supervisor_driver::token::random_token()?;
/// assert_eq!(t.len(), 32);
/// assert_ne!(t, cdp_supervisor_driver::token::random_token()?);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("reading the bridge token from /dev/urandom failed: {e}"),
            )
        })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Gives `config` a random bridge token when the bridge is on and the embedder set none;
/// an embedder's own token is kept.
///
/// ```
/// use cdp_supervisor_driver::cdp_supervisor::{BridgeConfig, Config};
/// let mut config = Config::default();
/// config.bridge = Some(BridgeConfig::default());
/// cdp_supervisor_driver::token::fill_bridge_token(&mut config)?;
/// assert_eq!(config.bridge.map(|b| b.token.len()), Some(32));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn fill_bridge_token(config: &mut Config) -> std::io::Result<()> {
    if let Some(bridge) = config.bridge.as_mut().filter(|b| b.token.is_empty()) {
        bridge.token = random_token()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_hex_and_differ() {
        let a = random_token().unwrap();
        assert_eq!(a.len(), 2 * TOKEN_BYTES);
        assert!(a
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_ne!(a, random_token().unwrap());
    }

    #[test]
    fn fills_only_when_the_bridge_is_on_and_no_token_is_set() {
        let mut off = Config::default();
        fill_bridge_token(&mut off).unwrap();
        assert!(off.bridge.is_none());
        let mut on = Config::default();
        on.bridge = Some(BridgeConfig::default());
        fill_bridge_token(&mut on).unwrap();
        assert_eq!(on.bridge.unwrap().token.len(), 2 * TOKEN_BYTES);
        let mut own = Config::default();
        own.bridge = Some(BridgeConfig::new("mine"));
        fill_bridge_token(&mut own).unwrap();
        assert_eq!(own.bridge.unwrap().token, "mine");
    }
}
