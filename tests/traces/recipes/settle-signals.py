"""Records, over raw CDP, the Chromium behaviour the act flow's settling rests on.

A headless Chromium launched with the flags of `cdp-supervisor-chromium`, two static pages
on loopback (each a link to the other, 100 px tall at the top), the supervisor's attach
commands, then:

1. `Page.setLifecycleEventsEnabled` re-sends the current document's lifecycle events
   (`commit`, `DOMContentLoaded`, `load`, `networkAlmostIdle`, `networkIdle`; never
   `init`) before its reply.
2. Six navigations: after three of them nothing is sent, and `networkAlmostIdle` comes
   about 1-2 s after the `load`; after the other three a no-op `Runtime.evaluate` goes to
   the page 0.55 s after the `load`, and `networkAlmostIdle` follows at once.
3. Twelve clicks on the link (three mouse events, then a no-op `Runtime.evaluate` sent at
   the mouse release's reply, then 0.3 s): `Page.frameRequestedNavigation` comes after the
   release's reply in some of them, before the evaluate's reply in all.

    python3 settle-signals.py OUT.jsonl [CHROMIUM]

Needs the `websocket-client` package. Prints what it saw. Recorded with this script:
../e2e/settle-signals.jsonl (the manual's Chromium facts "Enabling lifecycle events
re-sends the current document's", "networkAlmostIdle is noticed at a task", "A link's
navigation can be reported after the click's reply").
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
                f"<body><a href=/{other} style=\"display:block;height:100px\">{other}</a></body></html>").encode()
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
    r.reply(r.send("Page.navigate", {"url": base + "/p1"}, session=s))
    r.pump_for(2.5)

    # 1. Enabling re-sends the current document's events, before the reply.
    n = len(r.events)
    r.reply(r.send("Page.setLifecycleEventsEnabled", {"enabled": True}, session=s))
    resent = [e["params"]["name"] for _, e in r.events[n:] if e.get("method") == "Page.lifecycleEvent"]
    print(f"re-sent before the enable's reply: {resent}", file=sys.stderr)

    def lifecycle(name, loader):
        return lambda e: (e.get("method") == "Page.lifecycleEvent" and e["params"]["name"] == name
                          and e["params"]["loaderId"] == loader)

    # 2. networkAlmostIdle without and with a task on the renderer after the quiet window.
    for i, poke in enumerate([None, 0.55, None, 0.55, None, 0.55]):
        start = r.now()
        loader = r.reply(r.send("Page.navigate", {"url": base + ("/p2" if i % 2 == 0 else "/p1")},
                                session=s))["result"]["loaderId"]
        load, _ = r.pump_until(lifecycle("load", loader), 10)
        if poke is not None:
            r.pump_for(poke - (r.now() - load))
            r.send("Runtime.evaluate", {"expression": "0", "returnByValue": True}, session=s)
        idle, _ = r.pump_until(lifecycle("networkAlmostIdle", loader), 10)
        print(f"load after {load - start:.3f} s, networkAlmostIdle {idle - load:.3f} s later"
              f" ({'poked' if poke else 'not poked'})", file=sys.stderr)
        r.pump_for(0.1)

    # 3. A click on the link: its navigation against the release's reply and a barrier's.
    late = missed = 0
    for i in range(12):
        r.pump_for(0.3)
        n = len(r.events)
        ids = [r.send("Input.dispatchMouseEvent", {"type": t, "x": 20, "y": 50, "button": "left",
                                                   "clickCount": 1}, session=s)
               for t in ("mouseMoved", "mousePressed", "mouseReleased")]
        r.reply(ids[-1])
        at_reply = [e["method"] for _, e in r.events[n:]]
        r.reply(r.send("Runtime.evaluate", {"expression": "0", "returnByValue": True}, session=s))
        at_barrier = [e["method"] for _, e in r.events[n:]]
        late += "Page.frameRequestedNavigation" not in at_reply
        missed += "Page.frameRequestedNavigation" not in at_barrier
        r.pump_until(lambda e: e.get("method") == "Page.lifecycleEvent" and e["params"]["name"] == "load", 5)
    print(f"clicks: the navigation came after the release's reply {late}/12 times, "
          f"after the barrier's {missed}/12", file=sys.stderr)
    r.close()


main()
