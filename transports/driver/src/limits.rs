//! The WebSocket limits both transports configure their client with.

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
