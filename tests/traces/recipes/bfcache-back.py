"""Records `back` into the back/forward cache over raw CDP (no supervisor in between).

Two static, cacheable pages on loopback; a headless Chromium launched with the flags of
`cdp-supervisor-chromium`; the commands the supervisor sends, in its order: attach
(`Target.getTargets`, `attachToTarget {flatten}`, then `Page.enable`, `Runtime.enable`,
`Page.getFrameTree`, `Target.setAutoAttach` pipelined), then five actions as the act flow
sends them (`Page.setLifecycleEventsEnabled` pipelined before each): navigate /p1,
navigate /p2, back (`Page.getNavigationHistory`, then `Page.navigateToHistoryEntry`),
navigate /p2, back. After each action it waits for the `load`, or for the
`frameNavigated` of type `BackForwardCacheRestore` (a restore sends no `load`), then
1.5 s, then takes a webp screenshot and `document.title` as the flow does.

    python3 bfcache-back.py OUT.jsonl [CHROMIUM]

Needs the `websocket-client` package. Prints, per action, what settled it and when.
Recorded with this script: ../e2e/bfcache-back.jsonl (fact "A back/forward cache restore
sends no load" of the manual).
"""
import http.server
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

from raw_cdp import FLAGS, Recorder



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
        body = (f"<!doctype html><html><head><meta charset=utf-8><title>page {name}</title></head>"
                f"<body><h1>{name}</h1><a href=/{other}>{other}</a></body></html>").encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("cache-control", "max-age=3600")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    out_path = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CHROME", "chromium")
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    profile = tempfile.mkdtemp(prefix="bfcache-recipe-")
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
        shutil.rmtree(profile, ignore_errors=True)


def record(r, base):
    targets = r.reply(r.send("Target.getTargets"))["result"]["targetInfos"]
    page = next(t["targetId"] for t in targets if t["type"] == "page")
    s = r.reply(r.send("Target.attachToTarget", {"targetId": page, "flatten": True}))["result"]["sessionId"]
    setup = [r.send("Page.enable", session=s), r.send("Runtime.enable", session=s),
             r.send("Page.getFrameTree", session=s),
             r.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                             "flatten": True}, session=s)]
    for cid in setup:
        r.reply(cid)

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

    def back():
        history = r.reply(r.send("Page.getNavigationHistory", session=s))["result"]
        entry = history["entries"][history["currentIndex"] - 1]["id"]
        r.reply(r.send("Page.navigateToHistoryEntry", {"entryId": entry}, session=s))

    act("navigate /p1", navigate("/p1"))
    act("navigate /p2", navigate("/p2"))
    act("back", back)
    act("navigate /p2", navigate("/p2"))
    act("back", back)
    r.close()


main()
