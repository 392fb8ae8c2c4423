//! The limits both transports configure their client with: the WebSocket's, and the
//! budget of the queries a client makes of its own.

/// WebSocket message and frame cap: large enough for full-page screenshots.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::limits::MAX_MESSAGE_SIZE, 256 << 20);
/// ```
pub const MAX_MESSAGE_SIZE: usize = 256 << 20;

/// The WebSocket read buffer per connection. The usual 128 KiB was most of a supervised
/// tab's memory (the smol crate's many-tabs benchmark); large messages still grow their
/// own buffer.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::limits::READ_BUFFER_SIZE, 8 * 1024);
/// ```
pub const READ_BUFFER_SIZE: usize = 8 * 1024;

/// How long a client's own browser query (`browser_contexts`) may take.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::limits::BROWSER_QUERY_TIMEOUT.as_secs(), 10);
/// ```
pub const BROWSER_QUERY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
