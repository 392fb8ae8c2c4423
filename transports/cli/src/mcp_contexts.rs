//! Browser contexts (`Target.createBrowserContext`), as the MCP sessions use them: one per
//! session, its own cookies, storage, tabs and dialogs. The client's context methods, in
//! one place.

use cdp_supervisor::TabInfo;
use cdp_supervisor_blocking::Client;

/// Creates a browser context; its id.
pub fn create(client: &Client) -> Result<String, String> {
    let _ = client;
    Err(unavailable())
}

/// Opens a tab at `url` in context `context_id`; the tab's id.
pub fn new_tab(client: &Client, url: &str, context_id: &str) -> Result<String, String> {
    let _ = (client, url, context_id);
    Err(unavailable())
}

/// Disposes of a context and every tab in it.
pub fn dispose(client: &Client, context_id: &str) -> Result<(), String> {
    let _ = (client, context_id);
    Err(unavailable())
}

/// The context a tab belongs to (`None`: the browser's default context, or not known).
pub fn of(tab: &TabInfo) -> Option<&str> {
    let _ = tab;
    None
}

fn unavailable() -> String {
    "browser contexts are not available in this build: start the server with --shared-context"
        .into()
}
