#!/usr/bin/env python3
"""`browser_wait_for`, `browser_navigate_back` / `_forward`, `browser_resize`, `browser_find`
and `browser_console_messages {level}` of `cdp-supervise mcp`, driven by the official MCP
client SDK for Python (PyPI `mcp`) over stdio, against a real headless Chromium the server
launches.

    python3 transports/cli/tests/mcp/test_mcp_toolbox_wait.py path/to/cdp-supervise

A top page on 127.0.0.1 with a cross-site iframe on localhost (an OOPIF): browser_find by
role answers the iframe's button with its ref and frame; text that appears 800 ms later
inside the OOPIF is waited for (answered within a second of it, with a screenshot); text
that never comes is an `isError` result at its budget; text gone; a sleep (`time`, seconds);
a resize seen by `matchMedia`; the found ref clicked; back and forward across three
cacheable pages; the console filtered by level, lines of every level written by timers
between calls (top page and OOPIF) listed once. Times are printed and asserted generously
(the machine is loaded). Exits non-zero on the first failed check.
"""
import asyncio
import http.server
import os
import re
import socketserver
import sys
import threading
import time

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mcp import BINARY, browsers_gone, check, chromium_pids, text_of  # noqa: E402


def serve():
    """The pages: /wait (top, 127.0.0.1) with the OOPIF /late (localhost); /h1../h3 cacheable."""
    ports = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            cache = "no-store"
            if self.path.startswith("/wait"):
                body = ('<title>toolbox top</title><h1>Toolbox</h1><p id=loading>Loading the shop</p>'
                        f'<iframe src="http://localhost:{ports["port"]}/late" width=400 height=200></iframe>'
                        '<script>window.unload = ms => setTimeout(() => document.getElementById("loading").remove(), ms);'
                        'const mq = matchMedia("(max-width: 600px)"); window.narrow = mq.matches;'
                        'mq.addEventListener("change", e => { window.narrow = e.matches; console.log("narrow=" + e.matches); });'
                        '</script>')
            elif self.path.startswith("/late"):
                body = ('<title>frame</title><h2>Inside the frame</h2>'
                        '<button onclick="window.clicked = (window.clicked||0) + 1">Frame button</button>'
                        '<script>window.later = ms => setTimeout(() => { const p = document.createElement("p");'
                        'p.textContent = "Arrived late"; document.body.appendChild(p); }, ms);</script>')
            elif re.match(r"^/h[123]$", self.path):
                name = self.path[1:]
                body = (f'<title>history {name}</title><h1>{name}</h1><script>window.restored = false;'
                        'addEventListener("pageshow", e => { window.restored = e.persisted; });</script>')
                cache = "max-age=3600"
            else:
                self.send_response(404)
                self.end_headers()
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.send_header("cache-control", cache)
            self.end_headers()
            self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports["port"] = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return ports["port"]


async def timed(client, tool, args):
    started = time.monotonic()
    r = await client.call_tool(tool, args)
    return r, time.monotonic() - started


async def main():
    before = chromium_pids("cdp-supervise-profile")
    port = serve()
    base = f"http://127.0.0.1:{port}"
    target = StdioServerParameters(command=BINARY, args=["mcp"], env={**os.environ})
    async with Client(target) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ["browser_wait_for", "browser_navigate_back", "browser_navigate_forward",
                     "browser_resize", "browser_find"]:
            check(name in tools, f"{name} is listed")
            props = (tools[name].input_schema or {}).get("properties", {})
            check(all("description" in p for p in props.values()), f"{name}: every argument is described")
        check("level" in tools["browser_console_messages"].input_schema.get("properties", {}),
              "browser_console_messages takes `level`")

        r = await client.call_tool("browser_navigate", {"url": f"{base}/wait"})
        check(not r.is_error and "toolbox top" in text_of(r), "navigate to a page with a cross-site iframe", r)

        r = await client.call_tool("browser_find", {"role": "button"})
        m = re.search(r'button "Frame button" \[ref=(e\d+)\] \(frame (\w+)\)', text_of(r))
        check(not r.is_error and m is not None, "browser_find by role answers the OOPIF's button with its ref and frame", r)
        ref, frame = m.group(1), m.group(2)
        r = await client.call_tool("browser_find", {"text": "inside THE frame"})
        check(not r.is_error and "heading" in text_of(r) and frame in text_of(r), "browser_find by text, in the OOPIF", r)
        check("Toolbox" not in text_of(r), "only the matching lines come back", r)

        r = await client.call_tool("browser_evaluate", {"function": "() => { window.later(800); return 1; }",
                                                        "frame_id": frame})
        check(not r.is_error, "the late text is scheduled in the OOPIF", r)
        r, took = await timed(client, "browser_wait_for", {"text": "Arrived late"})
        print(f"  browser_wait_for text: {took:.3f} s")
        check(not r.is_error and any(c.type == "image" for c in r.content), "the text inside the OOPIF is waited for, with a screenshot", r)
        check(0.7 <= took < 2.5, f"answered within a second of its appearing at 0.8 s ({took:.3f} s)", r)

        r, took = await timed(client, "browser_wait_for", {"text": "Never here", "timeout_ms": 1500})
        print(f"  browser_wait_for text that never comes: {took:.3f} s")
        check(r.is_error and "Never here" in text_of(r) and "1500 ms" in text_of(r),
              "text that never comes is an error saying so", r)
        check(1.4 <= took < 4.0, f"at its budget of 1.5 s ({took:.3f} s)", r)

        await client.call_tool("browser_evaluate", {"function": "() => { window.unload(500); return 1; }"})
        r, took = await timed(client, "browser_wait_for", {"textGone": "Loading the shop"})
        print(f"  browser_wait_for textGone: {took:.3f} s")
        check(not r.is_error and 0.4 <= took < 3.0, "text gone is waited for", r)

        r, took = await timed(client, "browser_wait_for", {"time": 0.3})
        check(not r.is_error and took >= 0.3, "time is a sleep in seconds", r)

        r = await client.call_tool("browser_resize", {"width": 500, "height": 400})
        check(not r.is_error and "narrow=true" in text_of(r), "a resize is seen by matchMedia (its change handler logged)", r)
        r = await client.call_tool("browser_evaluate", {"function": "() => innerWidth + 'x' + innerHeight + ' ' + window.narrow"})
        check("500x400 true" in text_of(r), "the viewport is 500x400 and the media query matches", r)
        r = await client.call_tool("browser_resize", {"width": 5, "height": 400})
        check(r.is_error and "width" in text_of(r), "a size out of bounds is refused, naming it", r)

        await client.call_tool("browser_evaluate", {"function": "() => { console.error('oops from the page'); return 1; }"})
        r = await client.call_tool("browser_console_messages", {"level": "error"})
        check("oops from the page" in text_of(r) and "narrow=true" not in text_of(r), "level error shows errors only", r)
        r = await client.call_tool("browser_console_messages", {})
        check("oops from the page" in text_of(r) and "narrow=true" in text_of(r), "every level by default", r)

        # Lines written by timers between calls (no action running), top page and OOPIF.
        await client.call_tool("browser_evaluate", {"function": "() => { setTimeout(() => { console.info('info from a timer');"
                                                    " console.warn('warning from a timer'); console.debug('debug from a timer'); }, 300); return 1; }"})
        await client.call_tool("browser_evaluate", {"function": "() => { setTimeout(() => console.log('log from the frame timer'), 300); return 1; }",
                                                    "frame_id": frame})
        await asyncio.sleep(1.2)
        r = await client.call_tool("browser_console_messages", {"level": "error"})
        check(not r.is_error and "from a timer" not in text_of(r) and "frame timer" not in text_of(r),
              "level error leaves the timers' lines out", r)
        r = await client.call_tool("browser_console_messages", {"level": "warning"})
        check("[warning] warning from a timer" in text_of(r) and "info from a timer" not in text_of(r),
              "level warning: the warning, not the info", r)
        r = await client.call_tool("browser_console_messages", {})
        for line in ["[info] info from a timer", "[warning] warning from a timer", "[debug] debug from a timer",
                     f"[log] log from the frame timer (frame {frame})"]:
            check(line in text_of(r), f"a line written between calls is listed: {line}", r)
        check("oops from the page" not in text_of(r), "lines listed before are not listed again", r)
        r = await client.call_tool("browser_console_messages", {})
        check(not r.is_error and "No console messages since the last call" in text_of(r), "nothing new since", r)

        r = await client.call_tool("browser_click", {"ref": ref})
        check(not r.is_error, "the found ref is clicked", r)
        r = await client.call_tool("browser_evaluate", {"function": "() => window.clicked", "frame_id": frame})
        check(text_of(r).startswith("1"), "the OOPIF's button got the click", r)

        for p in ["/h1", "/h2", "/h3"]:
            r = await client.call_tool("browser_navigate", {"url": f"{base}{p}"})
            check(not r.is_error, f"navigate {p}", r)
        for tool, to in [("browser_navigate_back", "/h2"), ("browser_navigate_back", "/h1"),
                         ("browser_navigate_forward", "/h2"), ("browser_navigate_forward", "/h3")]:
            r, took = await timed(client, tool, {})
            print(f"  {tool} to {to}: {took:.3f} s")
            check(not r.is_error and f"{to} (\"history" in text_of(r) and ", settled" in text_of(r), f"{tool} to {to}", r)
            r2 = await client.call_tool("browser_evaluate", {"function": "() => window.restored"})
            check(text_of(r2).startswith("true"), f"{to} came from the back/forward cache", r2)
            check(took < 5.0, f"{tool}: settled at the restore, not at a budget ({took:.3f} s)", r)
        r = await client.call_tool("browser_navigate_forward", {})
        check(r.is_error and "forward" in text_of(r), "forward at the last entry says so", r)
        await client.call_tool("browser_close", {})
    check(browsers_gone(before), "no browser left running")


if __name__ == "__main__":
    asyncio.run(main())
    print("all MCP toolbox checks passed")
