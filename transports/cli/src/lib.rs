//! # cdp-supervise
//!
//! The supervisor as a sidecar process: `cdp-supervise watch` supervises a tab and speaks
//! JSON lines on stdin and stdout; `cdp-supervise replay` replays a recorded trace. The
//! protocol is in this crate's README. The library half holds what the binary and its
//! tests share: the protocol's pure parts ([`protocol`]), the demo site ([`demo`]) and
//! the loopback HTTP server it runs on ([`serve`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod demo;
pub mod evaluate;
pub mod find;
pub mod lines;
pub mod live_view;
pub mod mcp;
pub mod mcp_input;
pub mod mcp_schema;
pub mod mcp_tabs;
pub mod mcp_toolbox;
pub mod network;
pub mod protocol;
pub mod serve;
