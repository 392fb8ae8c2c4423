#!/usr/bin/env python3
"""`cdp-supervise mcp` through the official MCP client SDK for Python: sign-in prompts,
warnings between calls, and a `javascript:` navigation.

    python3 transports/cli/tests/mcp/test_mcp_faults.py path/to/cdp-supervise

Against a real headless Chromium the server launches (stdio unless said), a loopback server with an
HTTP Basic page (`/secret`, user `user`) and an open one, `localhost` blocked:

- `mcp --http-auth`: navigating to `/secret` names the pending `http_auth` dialog;
  `browser_handle_dialog` with a wrong password answers an error saying they were refused
  (the request canceled, no new prompt); navigating again and answering with the right
  one loads the page, and the answer says so. No result ever shows a password.
- A navigation the page's script starts between two calls to a blocked origin is refused,
  and the next result names the `navigation_refused` warning once; a link the agent clicks
  that opens a popup to the blocked origin: the popup is closed, and the click's result
  names the warning.
- Over HTTP (`mcp --port 0`), two sessions: the refused navigation of one session's page
  is named in that session's next result, not in the other's.
- A click that makes the page ask for the position: its console lines say the page asked
  for "geolocation", denied without a prompt; the page got PERMISSION_DENIED.
- `mcp --allow-internal-urls --grant-permissions geolocation`: `browser_navigate` to
  `javascript:alert(1)` names the alert in its own answer, and answering it works; the
  Permissions API says geolocation is `granted`.

Exits non-zero on the first failed check.
"""
import asyncio
import base64
import http.server
import os
import socketserver
import sys
import threading
import time

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from test_mcp import BINARY, browsers_gone, check, chromium_pids, start_http_server, stop_server, text_of

PASSWORD = "correct-horse-42"
WRONG = "wrong-battery-7"


def serve():
    """`/secret` wants Basic `user:PASSWORD` (realm `faults`); `/home` is an open page with a
    link that opens a popup on the other site (localhost)."""
    ports = {}
    good = "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            extra = {}
            if self.path.startswith("/secret"):
                if self.headers.get("authorization") == good:
                    status, body = 200, "<title>inside</title>signed in"
                else:
                    status, body = 401, "<title>denied</title>no"
                    extra["www-authenticate"] = 'Basic realm="faults"'
            elif self.path.startswith("/perm"):
                status, body = 200, ('<title>perm</title><button onclick="navigator.geolocation.getCurrentPosition('
                                     '() => document.title = \'position\', e => document.title = \'error \' + e.code)">'
                                     'Where am I</button>')
            elif self.path.startswith("/home"):
                status, body = 200, (f'<title>home</title><a href="http://localhost:{ports["port"]}/popup" '
                                     'target="_blank">Open the other site</a> '
                                     f'<a href="http://localhost:{ports["port"]}/same">Go to the other site</a>')
            else:
                status, body = 200, "<title>open</title>open"
            data = body.encode()
            self.send_response(status)
            self.send_header("content-type", "text/html")
            self.send_header("cache-control", "no-store")
            self.send_header("content-length", str(len(data)))
            for k, v in extra.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a closed popup's request cut short

    server = Server(("127.0.0.1", 0), Handler)
    ports["port"] = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return ports["port"]


def no_password(r, what):
    text = text_of(r)
    check(PASSWORD not in text and WRONG not in text, f"{what}: no password in the result", r)


async def sign_in_and_warnings(port):
    base = f"http://127.0.0.1:{port}"
    args = ["mcp", "--http-auth", "--blocked-origins", f"http://localhost:{port}"]
    async with Client(StdioServerParameters(command=BINARY, args=args, env={**os.environ})) as client:
        await client.call_tool("browser_navigate", {"url": f"{base}/home"})
        t0 = time.monotonic()
        r = await client.call_tool("browser_navigate", {"url": f"{base}/secret"})
        took = time.monotonic() - t0
        check("http_auth" in text_of(r) and "username" in text_of(r),
              "a sign-in challenge is pending and named with how to answer", r)
        check(took < 5, f"the navigation ends at the challenge, not at its budget ({took:.2f} s)")
        t0 = time.monotonic()
        r = await client.call_tool("browser_handle_dialog",
                                   {"accept": True, "username": "user", "password": WRONG})
        took = time.monotonic() - t0
        check(r.is_error and "refused" in text_of(r), "a wrong password is answered as refused", r)
        check(took < 3, f"and at once ({took:.2f} s)")
        check("Pending dialogs: none" in text_of(r), "and not asked again (no retry)", r)
        no_password(r, "the refusal")

        # The canceled sign-in's navigation may still be ending in Chromium: a navigation
        # sent at once to the same URL can come back net::ERR_ABORTED (seen 2 runs in 3).
        await asyncio.sleep(1.0)
        r = await client.call_tool("browser_navigate", {"url": f"{base}/secret"})
        check("http_auth" in text_of(r), "the next load asks again", r)
        r = await client.call_tool("browser_handle_dialog",
                                   {"accept": True, "username": "user", "password": PASSWORD})
        check(not r.is_error and "/secret" in text_of(r), "the right password loads the page", r)
        no_password(r, "the sign-in")
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        check(not r.is_error and "inside" in text_of(r), "the signed-in page is there", r)

        # Permissions: denied without a prompt, and the click that asked says so.
        r = await client.call_tool("browser_navigate", {"url": f"{base}/perm"})
        r = await client.call_tool("browser_snapshot", {})
        ref = next((line.split("[ref=")[1].split("]")[0] for line in text_of(r).splitlines()
                    if "Where am I" in line and "[ref=" in line), None)
        check(ref is not None, "the button has a ref", r)
        r = await client.call_tool("browser_click", {"element": "the button", "ref": ref})
        check('the page asked for permission "geolocation": denied, without a prompt' in text_of(r),
              "the click's console lines name the permission the page asked for, denied", r)
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        check("error 1" in text_of(r), "and the page was told PERMISSION_DENIED", r)

        # A navigation the page starts between calls, to the blocked origin.
        r = await client.call_tool("browser_navigate", {"url": f"{base}/home"})
        check(not r.is_error and "home" in text_of(r), "an open page loads", r)
        r = await client.call_tool("browser_evaluate", {
            "expression": f"setTimeout(() => location.href = 'http://localhost:{port}/away', 300), 'armed'"})
        check(not r.is_error and "navigation_refused" not in text_of(r), "the page arms a timer", r)
        await asyncio.sleep(1.5)
        r = await client.call_tool("browser_evaluate", {"expression": "location.href"})
        text = text_of(r)
        check("Warnings since the last result" in text and "navigation_refused" in text
              and f"localhost:{port}/away" in text, "the next result names the refused navigation", r)
        check(f"{base}/home" in text, "and the page stayed where it was", r)
        r = await client.call_tool("browser_evaluate", {"expression": "1 + 1"})
        check("navigation_refused" not in text_of(r), "the warning is said once", r)

        # A link the agent clicks in the same tab: the click's own answer says it, once.
        r = await client.call_tool("browser_snapshot", {})
        ref = next((line.split("[ref=")[1].split("]")[0] for line in text_of(r).splitlines()
                    if "Go to the other site" in line and "[ref=" in line), None)
        r = await client.call_tool("browser_click", {"element": "the link", "ref": ref})
        text = text_of(r)
        check("kept where it was" in text and f"localhost:{port}/same" in text
              and "navigation_refused" not in text,
              "a refused link the agent clicked is said by the click, not again as a warning", r)

        # A link the agent clicks opens a popup to the blocked origin.
        r = await client.call_tool("browser_snapshot", {})
        ref = next((line.split("[ref=")[1].split("]")[0] for line in text_of(r).splitlines()
                    if "Open the other site" in line and "[ref=" in line), None)
        check(ref is not None, "the link has a ref", r)
        r = await client.call_tool("browser_click", {"element": "the link", "ref": ref})
        text = text_of(r)
        for _ in range(20):
            if "navigation_refused" in text:
                break
            await asyncio.sleep(0.25)
            r = await client.call_tool("browser_tabs", {"action": "list"})
            text += text_of(r)
        check("navigation_refused" in text and "popup was closed" in text,
              "the refused popup is named in a result, closed", r)
        r = await client.call_tool("browser_tabs", {"action": "list"})
        check(f"localhost:{port}" not in text_of(r), "and no tab shows the blocked origin", r)


async def javascript_url_and_a_grant(port):
    args = ["mcp", "--allow-internal-urls", "--grant-permissions", "geolocation"]
    async with Client(StdioServerParameters(command=BINARY, args=args, env={**os.environ})) as client:
        r = await client.call_tool("browser_navigate", {"url": "data:text/html,<title>start</title>"})
        check(not r.is_error, "a first page", r)
        r = await client.call_tool("browser_navigate", {"url": "javascript:alert(1)"})
        text = text_of(r)
        check("alert" in text and "browser_handle_dialog" in text and "ERR_ABORTED" not in text,
              "javascript:alert(1) names its dialog in its own answer", r)
        r = await client.call_tool("browser_handle_dialog", {"accept": True})
        check(not r.is_error and "accepted" in text_of(r), "and the alert is answered", r)
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        check(not r.is_error and "start" in text_of(r), "the page is still there", r)
        r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/open"})
        r = await client.call_tool("browser_evaluate", {
            "expression": "navigator.permissions.query({name: 'geolocation'}).then(s => s.state)"})
        check("granted" in text_of(r), "--grant-permissions geolocation grants it", r)


async def warnings_per_session(port):
    """Over HTTP two sessions, each in its own browser context: the refused navigation of
    one session's page is named in that session's next result only."""
    base = f"http://127.0.0.1:{port}"
    server, url, _ = start_http_server("--blocked-origins", f"http://localhost:{port}")
    try:
        async with Client(url) as a, Client(url) as b:
            for c in (a, b):
                r = await c.call_tool("browser_navigate", {"url": f"{base}/home"})
                check(not r.is_error and "home" in text_of(r), "a session loads its page", r)
            r = await a.call_tool("browser_evaluate", {
                "expression": f"setTimeout(() => location.href = 'http://localhost:{port}/a', 300), 'armed'"})
            check(not r.is_error, "session A's page arms a timer", r)
            await asyncio.sleep(1.5)
            r = await b.call_tool("browser_evaluate", {"expression": "1 + 1"})
            check("navigation_refused" not in text_of(r), "session B hears nothing of A's page", r)
            r = await a.call_tool("browser_evaluate", {"expression": "1 + 1"})
            check("navigation_refused" in text_of(r) and f"localhost:{port}/a" in text_of(r),
                  "session A's next result names its page's refused navigation", r)
    finally:
        stop_server(server)


async def main():
    before = chromium_pids("cdp-supervise-profile")
    port = serve()
    await sign_in_and_warnings(port)
    await javascript_url_and_a_grant(port)
    await warnings_per_session(port)
    check(browsers_gone(before), "no browser left running")


if __name__ == "__main__":
    asyncio.run(main())
    print("all MCP fault checks passed")
