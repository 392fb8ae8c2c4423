//! The end-to-end tests' helpers, written once for both transports: a real headless
//! Chromium (or the missing-browser rule), the demo and bridge sites, the relays and the
//! dialog-closing proxy, and a recorded client per scenario for each transport.
#![allow(dead_code, unused_imports)]

pub mod act_site;
pub mod auth_site;
pub mod ax_checks;
pub mod ax_site;
pub mod blocking;
pub mod bridge_site;
pub mod demo_tree;
pub mod dialog_proxy;
pub mod input_site;
pub mod network_site;
pub mod noise_canvas;
pub mod relay;
pub mod renderer_site;
pub mod site;
pub mod smol;
pub mod switch_relay;
pub mod tabs_site;
pub mod tls_relay;
pub mod toolbox_site;
pub mod upload_site;
