//! The pages of the form and pointer action tests (hover, select, fill, drag), shared with
//! the sidecar and MCP SDK tests (`transports/cli/tests/pages/toolbox_input/`): a top page
//! on `http://127.0.0.1:P` with two sortable lists and three fields, a cross-site iframe on
//! `localhost` (an OOPIF) with a `<select>` and two radios, and in it an iframe back on
//! `127.0.0.1` (an OOPIF inside an OOPIF) with a menu shown on `:hover`.

use cdp_supervise::demo::other_host;
use cdp_supervise::serve::{Request, Response};

use super::site::Site;

const TOP: &str = include_str!("../../../cli/tests/pages/toolbox_input/top.html");
const CROSS: &str = include_str!("../../../cli/tests/pages/toolbox_input/cross.html");
const NESTED: &str = include_str!("../../../cli/tests/pages/toolbox_input/nested.html");

fn handle(req: &Request) -> Response {
    let page = match req.path.split('?').next().unwrap_or("/") {
        "/" => TOP,
        "/cross" => CROSS,
        "/nested" => NESTED,
        _ => return Response::not_found(),
    };
    Response::html(page.replace("{{OTHER}}", &other_host(&req.host)))
}

/// Starts the site.
pub fn start() -> Site {
    Site::serve(handle)
}
