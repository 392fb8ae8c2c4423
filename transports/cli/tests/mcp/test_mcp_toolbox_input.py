#!/usr/bin/env python3
"""The form and pointer tools of `cdp-supervise mcp`, driven by the official MCP client SDK
for Python (PyPI `mcp`), against a real headless Chromium (`--site-per-process`):

    python3 transports/cli/tests/mcp/test_mcp_toolbox_input.py path/to/cdp-supervise

The pages (shared with the sidecar and e2e tests, `transports/cli/tests/pages/toolbox_input/`):
a top page on 127.0.0.1, an iframe on localhost (an OOPIF) and in it one back on 127.0.0.1
(an OOPIF inside an OOPIF).
- browser_hover on a menu button in the nested OOPIF: its :hover menu is in the next snapshot;
- browser_select_option in the OOPIF by label: the `change` handler's console line comes back;
  a value that matches no option is an isError result listing the options;
- browser_fill_form: five fields in two frames in one call (text, textarea, a checkbox already
  checked set to "true" stays checked, a radio, a select), verified by browser_evaluate;
- browser_drag: a mouse-events sortable list and an HTML5 draggable list reordered;
- each tool's schema describes every argument, and Playwright MCP's names are accepted.
Exits non-zero on the first failed check.
"""
import asyncio
import http.server
import json
import os
import re
import socketserver
import sys
import threading

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mcp import BINARY, browsers_gone, check, chromium_pids, text_of  # noqa: E402

PAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pages", "toolbox_input")


def serve():
    """The three pages on loopback; `{{OTHER}}` becomes the other site's host:port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            name = {"/": "top.html", "/cross": "cross.html", "/nested": "nested.html"}.get(self.path)
            if name is None:
                self.send_response(404)
                self.end_headers()
                return
            host = self.headers.get("host", "")
            port = host.rsplit(":", 1)[-1]
            other = f"127.0.0.1:{port}" if host.startswith("localhost") else f"localhost:{port}"
            with open(os.path.join(PAGES, name), encoding="utf-8") as f:
                data = f.read().replace("{{OTHER}}", other).encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def ref_of(snapshot, role, name):
    m = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[ref=(e\d+)\]', snapshot)
    return m.group(1) if m else None


async def snapshot_with(client, role, name):
    """A snapshot in which `role` `name` has a ref (the frames' trees can come a moment late)."""
    for _ in range(100):
        r = await client.call_tool("browser_snapshot", {})
        snap = text_of(r)
        if ref_of(snap, role, name):
            return snap
        await asyncio.sleep(0.1)
    raise SystemExit(f"FAILED: no {role} {name!r} in\n{snap}")


async def evaluate(client, function, ref=None):
    args = {"function": function}
    if ref:
        args["ref"] = ref
    r = await client.call_tool("browser_evaluate", args)
    check(not r.is_error, f"evaluate {function}", r)
    return json.loads(text_of(r).split("\nPending dialogs")[0])


async def main():
    before = chromium_pids("cdp-supervise-profile")
    port = serve()
    target = StdioServerParameters(command=BINARY, args=["mcp"], env={**os.environ})
    async with Client(target) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ["browser_hover", "browser_select_option", "browser_fill_form", "browser_drag"]:
            check(name in tools, f"{name} is listed")
            props = tools[name].input_schema.get("properties", {})
            check(all("description" in p for p in props.values()), f"{name}: every argument is described")
        fields = tools["browser_fill_form"].input_schema["properties"]["fields"]
        check("fields" in tools["browser_fill_form"].input_schema.get("required", []), "fields is required")
        check(fields.get("maxItems") == 50, "at most 50 fields", None)

        r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/"})
        check(not r.is_error and "toolbox input" in text_of(r), "navigate to the top page", r)
        snap = await snapshot_with(client, "button", "Menu")
        snap = await snapshot_with(client, "listitem", "H3") if not ref_of(snap, "listitem", "H3") else snap
        check(ref_of(snap, "link", "Secret item") is None, "the hover menu is hidden at first")

        # (a) A :hover menu in the nested OOPIF.
        r = await client.call_tool("browser_hover", {"element": "Menu button", "target": ref_of(snap, "button", "Menu")})
        check(not r.is_error and "menu hovered" in text_of(r), "hover: the page saw the mouse enter", r)
        check(any(getattr(c, "type", "") == "image" for c in r.content), "hover: a screenshot comes back", r)
        after = await snapshot_with(client, "link", "Secret item")
        check(ref_of(after, "link", "Secret item") is not None, "the hover menu is in the next snapshot")

        # (b) A <select> in an OOPIF, by label.
        color = ref_of(after, "combobox", "Color")
        r = await client.call_tool("browser_select_option", {"ref": color, "values": ["Green"]})
        check(not r.is_error and "color changed to g" in text_of(r), "select by label fires change", r)
        check(await evaluate(client, "(el) => el.value", color) == "g", "the select holds Green")
        r = await client.call_tool("browser_select_option", {"target": color, "values": ["Mauve"]})
        check(r.is_error and '"Mauve"' in text_of(r) and '"Red"' in text_of(r),
              "a value that matches no option is an error listing the options", r)

        # (c) Five fields in two frames in one call.
        r = await client.call_tool("browser_fill_form", {"fields": [
            {"name": "Name", "type": "textbox", "target": ref_of(after, "textbox", "Name"), "value": "Ada"},
            {"name": "Bio", "type": "textbox", "ref": ref_of(after, "textbox", "Bio"), "value": "Two\nlines"},
            {"name": "Agree", "type": "checkbox", "ref": ref_of(after, "checkbox", "Agree"), "value": "true"},
            {"name": "Large", "type": "radio", "ref": ref_of(after, "radio", "Large"), "value": "true"},
            {"name": "Color", "type": "combobox", "ref": color, "value": "Blue"},
        ]})
        check(not r.is_error and "checkbox already checked" in text_of(r), "fill_form: five fields", r)
        top = await evaluate(client, "() => { const $ = id => document.getElementById(id); "
                                     "return [$('name').value, $('bio').value, $('agree').checked, events]; }")
        check(top == ["Ada", "Two\nlines", True, ["input:name", "change:name", "input:bio", "change:bio"]],
              f"the top frame's fields are set, the checkbox never clicked: {top}")
        large = ref_of(after, "radio", "Large")
        check(await evaluate(client, "(el) => el.checked", large) is True, "the radio in the OOPIF is checked")
        check(await evaluate(client, "(el) => el.value", color) == "b", "the select holds Blue")

        # (d) Two sortable lists reordered by drag.
        r = await client.call_tool("browser_drag", {
            "startElement": "M1", "startRef": ref_of(after, "listitem", "M1"),
            "endElement": "M3", "endRef": ref_of(after, "listitem", "M3")})
        check(not r.is_error and "mouse list: M2,M3,M1" in text_of(r), "drag reorders the mouse-events list", r)
        r = await client.call_tool("browser_drag", {
            "startTarget": ref_of(after, "listitem", "H1"), "endTarget": ref_of(after, "listitem", "H3")})
        check(not r.is_error and "drag list: H2,H3,H1" in text_of(r), "drag reorders the HTML5 list", r)
        order = await evaluate(client, "() => order('mlist') + ' ' + order('hlist')")
        check(order == "M2,M3,M1 H2,H3,H1", f"both lists reordered: {order}")

        r = await client.call_tool("browser_drag", {"startRef": ref_of(after, "listitem", "H1")})
        check(r.is_error and "endTarget" in text_of(r), "a drag without its end names endTarget", r)
        await client.call_tool("browser_close", {})
    check(browsers_gone(before), "no browser left running")


if __name__ == "__main__":
    asyncio.run(main())
