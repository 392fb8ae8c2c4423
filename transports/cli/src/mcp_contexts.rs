//! Browser contexts (`Target.createBrowserContext`), as the MCP sessions use them: one per
//! session, its own cookies, storage, tabs and dialogs. The client's context calls, in one
//! place, their errors as text for a tool result.

use cdp_supervisor::TabInfo;
use cdp_supervisor_blocking::Client;

/// Creates a browser context; its id.
pub fn create(client: &Client) -> Result<String, String> {
    client.create_context().map_err(|e| e.to_string())
}

/// Opens a tab at `url` in context `context_id`; the tab's id.
pub fn new_tab(client: &Client, url: &str, context_id: &str) -> Result<String, String> {
    client
        .new_tab_in_context(url, Some(context_id))
        .map(|tab| tab.tab_id)
        .map_err(|e| e.to_string())
}

/// Disposes of a context and every tab in it.
pub fn dispose(client: &Client, context_id: &str) -> Result<(), String> {
    client
        .dispose_context(context_id)
        .map_err(|e| e.to_string())
}

/// The context a tab belongs to (`None`: the browser's default context, or not known).
pub fn of(tab: &TabInfo) -> Option<&str> {
    tab.browser_context_id.as_deref()
}
