#!/usr/bin/env python3
"""Eight agents at once on one `cdp-supervise mcp --port 0` and one browser, each a session of
the official MCP Python SDK's streamable HTTP client (PyPI `mcp`), plus the HTTP server's
safety checks.

    python3 transports/cli/tests/mcp/test_mcp_agents.py path/to/cdp-supervise

Each agent logs in to a loopback page that sets a cookie, opens a popup, answers its own
dialog, logs to the console and evaluates: none sees another's cookie, tab, dialog or console
line (every result of agent N names no other agent). After the sessions end (the client's
DELETE), `Target.getBrowserContexts` (raw CDP to the browser the server launched) lists none
of theirs; an idle session's context goes after --idle-timeout; one session over
--max-sessions is refused, naming the flag. Then: `--host 0.0.0.0` without a token refuses to
start; with a token, a request without it is 401 and the token never shows on stderr; a
request from a foreign Origin is 403 (all sent to 127.0.0.1 only).
Exits non-zero on the first failed check.
"""
import asyncio
import base64
import http.client
import http.server
import json
import os
import re
import socket
import socketserver
import subprocess
import sys
import threading
import time

from mcp.client.client import Client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mcp import BINARY, check, start_http_server, stop_server, text_of  # noqa: E402

AGENTS = 8


def serve():
    """Loopback pages: /login?a=N sets the cookie agent=N; /home?a=N has a popup link, an
    alert button and a console button, all naming agent N."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            n = re.search(r"a=(\d+)", self.path)
            n = n.group(1) if n else "?"
            headers = [("content-type", "text/html")]
            if self.path.startswith("/login"):
                headers.append(("set-cookie", f"agent={n}; Path=/"))
                body = f"<title>Logged in {n}</title>logged in as agent {n}"
            elif self.path.startswith("/home"):
                body = (f'<title>Home {n}</title>'
                        f'<a href="/popup?a={n}" target="_blank">Open popup</a>'
                        f'<button onclick="setTimeout(() => alert(\'dialog of agent {n}\'), 10)">Alert</button>'
                        f'<button onclick="console.log(\'console of agent {n}\'); console.error(\'error of agent {n}\')">Log</button>')
            elif self.path.startswith("/popup"):
                body = f"<title>Popup {n}</title>popup of agent {n}"
            else:
                body = "nothing"
            data = body.encode()
            self.send_response(200)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


class RawCdp:
    """The smallest WebSocket client that speaks CDP to the browser endpoint (text frames,
    masked, no extensions): enough for Target.getBrowserContexts."""

    def __init__(self, ws_url):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", ws_url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the browser closed the socket")
            data += chunk
        return data

    def call(self, method, params=None):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params or {}}).encode()
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._recv_exact(2), "big")
            elif n == 127:
                n = int.from_bytes(self._recv_exact(8), "big")
            msg = self._recv_exact(n)
            if b0 & 0x0F != 1:
                continue
            reply = json.loads(msg)
            if reply.get("id") == self.next_id:
                return reply

    def contexts(self):
        return set(self.call("Target.getBrowserContexts")["result"]["browserContextIds"])

    def close(self):
        self.sock.close()


def browser_url(said):
    for _ in range(150):
        for line in said:
            m = re.search(r"browser at (ws://\S+)", line)
            if m:
                return m.group(1)
        time.sleep(0.1)
    raise SystemExit("FAILED: the server never said where its browser is:\n" + "".join(said))


def foreign(text, n):
    """The other agents a text names."""
    return sorted({m for m in re.findall(r"agent[= ](\d+)", text) if m != str(n)})


async def agent(url, port, n, seen):
    """One agent's errand; `seen[n]` collects every text it was answered."""
    texts = seen.setdefault(n, [])

    async def call(client, tool, args):
        r = await client.call_tool(tool, args)
        texts.append(text_of(r))
        return r

    base = f"http://127.0.0.1:{port}"
    async with Client(url) as client:
        r = await call(client, "browser_navigate", {"url": f"{base}/login?a={n}", "wait": "load"})
        check(not r.is_error and f"Logged in {n}" in text_of(r), f"agent {n}: logged in", r)
        r = await call(client, "browser_evaluate", {"function": "() => document.cookie"})
        check(not r.is_error and text_of(r).startswith(f'"agent={n}"'), f"agent {n}: sees its own cookie only", r)
        r = await call(client, "browser_navigate", {"url": f"{base}/home?a={n}", "wait": "load"})
        r = await call(client, "browser_snapshot", {})
        snap = text_of(r)
        link = re.search(r'link "Open popup" \[ref=(e\d+)\]', snap)
        alert = re.search(r'button "Alert" \[ref=(e\d+)\]', snap)
        log = re.search(r'button "Log" \[ref=(e\d+)\]', snap)
        check(link and alert and log, f"agent {n}: its page has refs", r)
        r = await call(client, "browser_click", {"ref": link.group(1), "wait": "load"})
        check(not r.is_error and "opened a new tab: 1: [" in text_of(r), f"agent {n}: the popup opens in its tabs", r)
        # The click answers at its own tab's settle; the popup may still be loading.
        for _ in range(50):
            r = await call(client, "browser_evaluate", {"expression": "document.title + ' ' + document.cookie"})
            if r.is_error or f"Popup {n}" in text_of(r):
                break
            await asyncio.sleep(0.1)
        check(not r.is_error and f"Popup {n} agent={n}" in text_of(r), f"agent {n}: the popup is current, in its context", r)
        r = await call(client, "browser_tabs", {"action": "list"})
        listed = text_of(r).split("### Open tabs")[1].split("Pending dialogs")[0]
        check(not r.is_error and listed.count("\n- ") == 2, f"agent {n}: two tabs listed, its own", r)
        r = await call(client, "browser_tabs", {"action": "select", "index": 0})
        r = await call(client, "browser_click", {"ref": alert.group(1), "wait": "load"})
        if f"dialog of agent {n}" not in text_of(r):
            r = await call(client, "browser_tabs", {"action": "list"})
        check(f"dialog of agent {n}" in text_of(r), f"agent {n}: its dialog is named", r)
        dialog = re.search(r"(d-\d+) alert \"dialog of agent " + str(n), text_of(r))
        r = await call(client, "browser_handle_dialog", {"accept": True})
        check(not r.is_error and dialog.group(1) in text_of(r) and "accepted" in text_of(r),
              f"agent {n}: answers its own dialog (no dialog_id needed)", r)
        r = await call(client, "browser_click", {"ref": log.group(1)})
        check(not r.is_error and f"console of agent {n}" in text_of(r), f"agent {n}: its console line comes back", r)
        r = await call(client, "browser_console_messages", {})
        check(not r.is_error and f"error of agent {n}" in text_of(r), f"agent {n}: its console error is listed", r)
        r = await call(client, "browser_evaluate", {"function": "() => 6*7"})
        check(not r.is_error and text_of(r).startswith("42"), f"agent {n}: evaluates", r)
    others = foreign("\n".join(texts), n)
    check(not others, f"agent {n}: no result named another agent {others}")


async def agents_at_once(port):
    server, url, said = start_http_server()
    try:
        cdp = RawCdp(browser_url(said))
        before = cdp.contexts()
        seen = {}
        started = time.monotonic()
        await asyncio.gather(*(agent(url, port, n, seen) for n in range(AGENTS)))
        print(f"# {AGENTS} agents in {time.monotonic() - started:.1f} s")
        left = cdp.contexts() - before
        for _ in range(50):
            if not left:
                break
            time.sleep(0.1)
            left = cdp.contexts() - before
        check(not left, f"every session's end disposed of its context ({len(left)} left)")

        cdp.close()
    finally:
        stop_server(server)


async def idle_timeout(port):
    """An idle session's context goes after --idle-timeout, the client still connected; its
    next call runs in a fresh context and says so."""
    server, url, said = start_http_server("--idle-timeout", "2")
    try:
        cdp = RawCdp(browser_url(said))
        before = cdp.contexts()
        async with Client(url) as client:
            r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/login?a=9", "wait": "load"})
            check(not r.is_error and len(cdp.contexts() - before) == 1, "a new session has a context of its own", r)
            deadline = time.monotonic() + 15
            while cdp.contexts() - before and time.monotonic() < deadline:
                await asyncio.sleep(0.25)
            check(not (cdp.contexts() - before), "an idle session's context is disposed of after --idle-timeout")
            r = await client.call_tool("browser_tabs", {"action": "list"})
            check(not r.is_error and "closed after 2 s without a call" in text_of(r),
                  "its next call runs in a fresh context, and says so", r)
        cdp.close()
    finally:
        stop_server(server)


async def max_sessions():
    server, url, _ = start_http_server("--max-sessions", "1", "--lazy")
    try:
        async with Client(url) as first:
            await first.list_tools()
            refused = None
            try:
                async with Client(url) as second:
                    await second.list_tools()
            except Exception as e:  # the SDK raises on a refused initialize
                refused = e
            check(refused is not None and "--max-sessions" in repr(refused),
                  f"one session over --max-sessions is refused, naming the flag ({refused!r:.200})")
        async with Client(url) as again:
            await again.list_tools()
        check(True, "once the first session ended, a new one is let in")
    finally:
        stop_server(server)


def post(port, headers, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = body or json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    conn.request("POST", "/mcp", body=body, headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status


def safety():
    token = "tok-" + os.urandom(8).hex()
    env = {k: v for k, v in os.environ.items() if k != "CDP_SUPERVISE_TOKEN"}
    refused = subprocess.run([BINARY, "mcp", "--port", "0", "--host", "0.0.0.0", "--lazy"],
                             capture_output=True, text=True, timeout=30, env=env)
    check(refused.returncode != 0 and "--auth-token" in refused.stderr and "not loopback" in refused.stderr,
          "--host 0.0.0.0 without a token refuses to start, naming --auth-token")

    proc = subprocess.Popen([BINARY, "mcp", "--port", "0", "--host", "0.0.0.0", "--lazy", "--auth-token", token],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = [proc.stderr.readline()]
    port = int(re.search(r":(\d+)/mcp", said[0]).group(1))
    check(post(port, {}) == 401, "with a token, a request without it is 401")
    check(post(port, {"authorization": "Bearer wrong"}) == 401, "and one with a wrong token is 401")
    check(post(port, {"authorization": f"Bearer {token}"}) == 200, "and one with the token is served")
    proc.terminate()
    _, rest = proc.communicate(timeout=30)
    check(token not in "".join(said) + rest, "the token never shows on stderr")

    server, url, _ = start_http_server("--lazy")
    port = int(re.search(r":(\d+)/mcp", url).group(1))
    check(post(port, {"origin": "http://evil.example"}) == 403, "a foreign Origin is refused (403)")
    check(post(port, {"origin": f"http://localhost:{port}"}) == 200, "a loopback Origin is served")
    check(post(port, {}) == 200, "a request without Origin (not from a web page) is served")
    stop_server(server)


if __name__ == "__main__":
  port = serve()
  asyncio.run(agents_at_once(port))
  asyncio.run(idle_timeout(port))
  asyncio.run(max_sessions())
  safety()
  print("all MCP agent checks passed")
