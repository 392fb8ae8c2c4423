"""What the raw-CDP recipes share: Chromium's flags and a recorder that writes every message
both ways in the trace format (SPEC section 7) while it waits for replies and events.

Imported by the recipes beside it (`bfcache-back.py`, `settle-signals.py`). Needs the
`websocket-client` package.
"""
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--site-per-process", "--remote-debugging-port=0"]


class Recorder:
    def __init__(self, ws_url, out):
        self.ws = websocket.create_connection(ws_url, suppress_origin=True, max_size=None)
        self.out = out
        self.t0 = time.monotonic()
        self.next_id = 0
        self.replies = {}
        self.events = []
        self.line(json.dumps({"t": 0.0, "dir": "connect"}))

    def now(self):
        return round(time.monotonic() - self.t0, 6)

    def line(self, text):
        self.out.write(text + "\n")

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        text = json.dumps(msg)
        self.line(f'{{"t": {self.now()}, "dir": "out", "msg": {text}}}')
        self.ws.send(text)
        return self.next_id

    def pump_once(self, timeout):
        self.ws.settimeout(max(timeout, 0.001))
        try:
            raw = self.ws.recv()
        except websocket.WebSocketTimeoutException:
            return
        self.line(f'{{"t": {self.now()}, "dir": "in", "msg": {raw}}}')
        msg = json.loads(raw)
        if "id" in msg:
            self.replies[msg["id"]] = msg
        else:
            self.events.append((self.now(), msg))

    def reply(self, cid, within=10.0):
        end = time.monotonic() + within
        while cid not in self.replies:
            if time.monotonic() > end:
                raise SystemExit(f"no reply to command {cid}")
            self.pump_once(end - time.monotonic())
        return self.replies[cid]

    def pump_until(self, pred, within):
        """Reads until an event satisfies `pred`; returns it with its time, or None."""
        start = len(self.events)
        end = time.monotonic() + within
        while time.monotonic() < end:
            for t, e in self.events[start:]:
                if pred(e):
                    return t, e
            start = len(self.events)
            self.pump_once(end - time.monotonic())
        return None

    def pump_for(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            self.pump_once(end - time.monotonic())

    def close(self):
        self.line(json.dumps({"t": self.now(), "dir": "disconnect"}))
        self.ws.close()


def two_pages(link_style=""):
    """A handler for two static, cacheable pages, /p1 and /p2, each linking to the other."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            name = self.path.strip("/").split("?")[0]
            if name not in ("p1", "p2"):
                self.send_response(404)
                self.end_headers()
                return
            other = "p2" if name == "p1" else "p1"
            style = f' style="{link_style}"' if link_style else ""
            body = (f"<!doctype html><html><head><meta charset=utf-8><title>page {name}</title>"
                    f"</head><body><h1>{name}</h1><a href=/{other}{style}>{other}</a></body></html>").encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("cache-control", "max-age=3600")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def run(handler, record, prefix):
    """Serves `handler` on loopback, launches a headless Chromium with a fresh profile and
    calls `record(recorder, base_url)` with a recorder writing to `argv[1]` (Chromium from
    `argv[2]`, `$CHROME` or `chromium`). Stops both afterwards, whatever happens."""
    out_path = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CHROME", "chromium")
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    profile = tempfile.mkdtemp(prefix=prefix)
    browser = subprocess.Popen([chromium, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(200):
            if os.path.exists(port_file) and len(open(port_file).read().splitlines()) >= 2:
                break
            time.sleep(0.05)
        port, path = open(port_file).read().splitlines()[:2]
        with open(out_path, "w") as out:
            record(Recorder(f"ws://127.0.0.1:{port}{path}", out), base)
    finally:
        browser.terminate()
        browser.wait(10)
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def attach_page(r):
    """Attaches the browser's page as the supervisor does (getTargets, attachToTarget
    {flatten}, then Page.enable, Runtime.enable, Page.getFrameTree and setAutoAttach
    pipelined); returns the page's target id and its session id."""
    targets = r.reply(r.send("Target.getTargets"))["result"]["targetInfos"]
    page = next(t["targetId"] for t in targets if t["type"] == "page")
    s = r.reply(r.send("Target.attachToTarget", {"targetId": page, "flatten": True}))["result"]["sessionId"]
    setup = [r.send("Page.enable", session=s), r.send("Runtime.enable", session=s),
             r.send("Page.getFrameTree", session=s),
             r.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                             "flatten": True}, session=s)]
    for cid in setup:
        r.reply(cid)
    return page, s


def history_actions(r, base, steps):
    """The back/forward-cache recipes' run: attach the page, then each step of `steps` as
    the act flow does it (`("navigate", path)`, or `("history", -1 | 1)` for back or forward
    through `Page.navigateToHistoryEntry`), each waiting for the `load` or for a
    `BackForwardCacheRestore`, then 1.5 s, a screenshot and the title (said on stderr)."""
    page, s = attach_page(r)

    def top_loaded(e):
        p = e.get("params", {})
        if e.get("sessionId") != s:
            return False
        if e.get("method") == "Page.lifecycleEvent" and p.get("frameId") == page:
            return p.get("name") == "load"
        if e.get("method") == "Page.frameNavigated" and "parentId" not in p.get("frame", {}):
            return p.get("type") == "BackForwardCacheRestore"
        return False

    def act(name, send_input):
        started = r.now()
        lifecycle = r.send("Page.setLifecycleEventsEnabled", {"enabled": True}, session=s)
        send_input()
        r.reply(lifecycle)
        found = r.pump_until(top_loaded, 10.0)
        what = "nothing within 10 s"
        if found:
            t, e = found
            kind = e["params"].get("name") or e["params"].get("type")
            what = f"{e['method']} {kind} after {t - started:.3f} s"
        r.pump_for(1.5)
        shot = r.send("Page.captureScreenshot", {"format": "webp"}, session=s)
        title = r.send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True},
                       session=s)
        r.reply(shot)
        value = r.reply(title)["result"]["result"].get("value")
        print(f"{name}: {what}; title {value!r}", file=sys.stderr)

    def navigate(path):
        return lambda: r.reply(r.send("Page.navigate", {"url": base + path}, session=s))

    def history(step):
        def go():
            entries = r.reply(r.send("Page.getNavigationHistory", session=s))["result"]
            entry = entries["entries"][entries["currentIndex"] + step]["id"]
            r.reply(r.send("Page.navigateToHistoryEntry", {"entryId": entry}, session=s))
        return go

    for kind, arg in steps:
        if kind == "navigate":
            act(f"navigate {arg}", navigate(arg))
        else:
            act("back" if arg < 0 else "forward", history(arg))
    r.close()
