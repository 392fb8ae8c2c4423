#!/usr/bin/env python3
"""`browser_network_requests` / `browser_network_request` of `cdp-supervise mcp`, driven by the
official MCP client SDK for Python (PyPI `mcp`) against a real headless Chromium.

    python3 transports/cli/tests/mcp/test_mcp_network.py path/to/cdp-supervise

A page on 127.0.0.1 fetches a missing path (404), an API with `?key=` and an `Authorization`
header, posts a form body, loads a script, and holds a cross-site iframe (localhost: an OOPIF)
that fetches data of its own. Over stdio: the list names each request with its status and
frame (the iframe's under the iframe's frame), static resources only with `static: true`,
`filter` narrows it, the key and the header are redacted, one request's response body and
request body come back, and a second call lists only what came since. Over streamable HTTP
(a browser context per session): a second agent sees none of the first one's requests.
Exits non-zero on the first failed check.
"""
import asyncio
import http.server
import os
import re
import socketserver
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mcp import BINARY, check, start_http_server, stop_server, text_of  # noqa: E402

from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

SECRET_KEY = "KEY0123secret"
SECRET_AUTH = "Bearer TOKEN456secret"


def serve():
    ports = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body, kind="text/html"):
            data = body.encode()
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.send_header("cache-control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            got = self.rfile.read(length).decode()
            self.reply(200, f"posted {got}", "text/plain")

        def do_GET(self):
            port = ports["port"]
            if self.path.startswith("/top"):
                self.reply(200, (
                    "<title>net top</title><script src=/app.js></script>"
                    f'<iframe src="http://localhost:{port}/frame" width=300 height=100></iframe>'
                    "<script>"
                    "Promise.all(["
                    "fetch('/missing').then(r => r.text()),"
                    f"fetch('/api?key={SECRET_KEY}', {{headers: {{Authorization: '{SECRET_AUTH}'}}}}).then(r => r.text()),"
                    "fetch('/echo', {method: 'POST', body: 'name=agent'}).then(r => r.text()),"
                    "]).then(() => document.title = 'net done');"
                    "</script>"))
            elif self.path.startswith("/frame-data"):
                self.reply(200, "data of the frame", "text/plain")
            elif self.path.startswith("/frame"):
                self.reply(200, "<title>frame</title><script>fetch('/frame-data').then(r => r.text())</script>")
            elif self.path.startswith("/api"):
                self.reply(200, '{"answer": 42}', "application/json")
            elif self.path.startswith("/app.js"):
                self.reply(200, "window.app = 1;", "text/javascript")
            elif self.path.startswith("/quiet"):
                self.reply(200, "<title>quiet</title><p>nothing fetched")
            else:
                self.reply(404, "not found", "text/plain")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports["port"] = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return ports["port"]


def index_of(listing, path):
    m = re.search(r"^\[(\d+)\] \S+ \S*" + re.escape(path), listing, re.M)
    return int(m.group(1)) if m else None


async def until_listed(client, paths, include_static=False):
    """The listing once every path is in it (the page's requests end at their own pace)."""
    seen = ""
    for _ in range(50):
        r = await client.call_tool("browser_network_requests", {"static": include_static})
        check(not r.is_error, "browser_network_requests answers", r)
        seen += text_of(r) + "\n"
        if all(index_of(seen, p) is not None for p in paths):
            return seen
        await asyncio.sleep(0.1)
    raise SystemExit(f"FAILED: {paths} never all listed:\n{seen}")


async def stdio_checks(port):
    target = StdioServerParameters(command=BINARY, args=["mcp"], env={**os.environ})
    async with Client(target) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        check({"browser_network_requests", "browser_network_request"} <= names, "both network tools are listed")

        r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/top"})
        check(not r.is_error, "navigate to the page", r)
        listing = await until_listed(client, ["/top", "/missing", "/api", "/echo", "/frame-data"], include_static=True)
        print(listing)
        check(SECRET_KEY not in listing and "key=<redacted>" in listing, "the URL's key is redacted in the list")
        missing = re.search(r"^\[\d+\] GET \S+/missing => \[404\].*$", listing, re.M)
        check(missing is not None, "the failing request is listed with its 404")
        top_line = re.search(r"^\[\d+\] GET \S+/top => \[200\].*top frame (\S+?)[,)]", listing, re.M)
        check(top_line is not None, "the page's document is listed in the top frame")
        top_frame = top_line.group(1)
        frame_data = re.search(r"^\[\d+\] GET http://localhost:\d+/frame-data => \[200\].*\bframe (\S+?)[,)]", listing, re.M)
        check(frame_data is not None and frame_data.group(1) != top_frame,
              f"the cross-site iframe's request is listed with the iframe's own frame ({frame_data and frame_data.group(1)})")
        check(re.search(r"/missing => .*frame " + re.escape(top_frame), listing) is not None,
              "the top page's request names the top frame")
        check(index_of(listing, "/app.js") is not None, "static: true lists the script")

        api = index_of(listing, "/api")
        r = await client.call_tool("browser_network_request", {"index": api})
        text = text_of(r)
        check(not r.is_error and "Authorization: <redacted>" in text and SECRET_AUTH not in text and SECRET_KEY not in text,
              "one request's headers: Authorization redacted", r)
        check('"answer": 42' in text, "its response body is read back", r)
        check(re.search(r"Frame: " + re.escape(top_frame), text) is not None, "and its frame is named", r)

        r = await client.call_tool("browser_network_request", {"index": index_of(listing, "/echo"), "part": "request-body"})
        check(not r.is_error and "name=agent" in text_of(r), "a POST's request body is read back", r)
        r = await client.call_tool("browser_network_request", {"index": index_of(listing, "/frame-data"), "part": "response-body"})
        check(not r.is_error and "data of the frame" in text_of(r), "the OOPIF's response body is read on its own session", r)

        r = await client.call_tool("browser_network_requests", {})
        check(not r.is_error and "No network requests since the last call" in text_of(r),
              "a second call lists only what came since (nothing)", r)
        r = await client.call_tool("browser_network_request", {"index": 100000})
        check(r.is_error and "no network request 100000" in text_of(r), "an unknown index is an error naming it", r)
        r = await client.call_tool("browser_network_request", {"index": 0})
        check(r.is_error and "index" in text_of(r), "a bad index is refused, named", r)

        # A fresh load: without `static` the script is left out, said so; `filter` narrows.
        r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/top"})
        check(not r.is_error, "navigate again", r)
        text = await until_listed(client, ["/missing", "/frame-data"])
        check(index_of(text, "/app.js") is None and "static resources left out: pass static: true" in text,
              "without static the script is left out, and the result says so")
        r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/top"})
        check(not r.is_error, "and again", r)
        await asyncio.sleep(0.5)
        r = await client.call_tool("browser_network_requests", {"filter": "MISSING"})
        text = text_of(r)
        check(index_of(text, "/missing") is not None and index_of(text, "/api") is None and index_of(text, "/top") is None,
              "filter keeps only matching URLs (case-insensitive)", r)


async def http_checks(port):
    server, url, _ = start_http_server()
    try:
        async with Client(url) as first:
            r = await first.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/top"})
            check(not r.is_error, "agent A navigates", r)
            listing = await until_listed(first, ["/missing", "/frame-data"])
            check(index_of(listing, "/missing") is not None, "agent A sees its requests")
            async with Client(url) as second:
                r = await second.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/quiet"})
                check(not r.is_error, "agent B navigates elsewhere", r)
                r = await second.call_tool("browser_network_requests", {"static": True})
                text = text_of(r)
                check(not r.is_error and "/quiet" in text and "/missing" not in text and "/top" not in text,
                      "agent B lists only its own tab's requests", r)
    finally:
        stop_server(server)


async def main():
    port = serve()
    await stdio_checks(port)
    await http_checks(port)
    print("all MCP network checks passed")


if __name__ == "__main__":
    asyncio.run(main())
