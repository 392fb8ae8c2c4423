"""Records a crashed OOPIF over raw CDP (no supervisor in between).

A top page on 127.0.0.1 with a cross-site iframe (localhost, an OOPIF) that nests an
iframe back on 127.0.0.1 (an OOPIF in the top's renderer); a headless Chromium launched
with the flags of `cdp-supervisor-chromium`; attach as the supervisor does (browser-level
`Target.setAutoAttach`, then per session `Page.enable`, `Runtime.enable`,
`Target.setAutoAttach`, `Runtime.runIfWaitingForDebugger` pipelined). Then `Page.crash` on
the first-level OOPIF's session, and: what arrives within 2 s; whether a
`Runtime.evaluate` on the crashed session is answered; whether the top page still
answers; what `Page.reload` of the top page does to the crashed frame (the recovery).

    python3 oopif-crash.py OUT.jsonl [CHROMIUM]

Needs the `websocket-client` package. Prints what it found, one line per finding.
Recorded with this script: ../e2e/raw-oopif-crash.jsonl (fact "A crashed OOPIF" of the manual).
"""
import http.server
import json
import time

import raw_cdp

PORT = {}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        p = PORT["p"]
        if self.path.startswith("/top"):
            body = f"<title>top</title><iframe src='http://localhost:{p}/frame'></iframe>"
        elif self.path.startswith("/frame"):
            body = f"<title>frame</title><p>frame</p><iframe src='http://127.0.0.1:{p}/nested'></iframe>"
        elif self.path.startswith("/nested"):
            body = "<title>nested</title><p>nested</p>"
        else:
            self.send_response(404)
            self.end_headers()
            return
        b = body.encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)


def main():
    def record(rec, base):
        PORT["p"] = int(base.rsplit(":", 1)[1])
        run(rec, f"{base}/top")
        rec.close()

    raw_cdp.run(Handler, record, "oopif-crash-")


def set_up(rec, session):
    """The supervisor's per-session set-up, pipelined, resume last."""
    for m, p in (("Page.enable", {}), ("Runtime.enable", {}),
                 ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}),
                 ("Runtime.runIfWaitingForDebugger", {})):
        rec.send(m, p, session)


def run(rec, top_url):
    sessions = {}  # targetId -> sessionId
    rec.reply(rec.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}))
    is_page = lambda e: (e.get("method") == "Target.attachedToTarget"
                         and e["params"]["targetInfo"]["type"] == "page")
    hit = next((x for x in rec.events if is_page(x[1])), None) or rec.pump_until(is_page, 5)
    page = hit[1]["params"]["sessionId"]
    set_up(rec, page)
    rec.pump_for(0.5)
    seen = set()

    def follow(within):
        """Sets up every OOPIF that attaches, for `within` seconds."""
        end = time.monotonic() + within
        while time.monotonic() < end:
            for _, e in list(rec.events):
                if e.get("method") == "Target.attachedToTarget":
                    sid = e["params"]["sessionId"]
                    info = e["params"]["targetInfo"]
                    if info["type"] == "iframe" and sid not in seen:
                        seen.add(sid)
                        # Its url is '' when it attaches: name it by where it attached.
                        where = "/frame" if e.get("sessionId") == page else "/nested"
                        sessions[info["targetId"]] = (sid, where)
                        set_up(rec, sid)
            rec.pump_once(0.05)

    rec.send("Page.navigate", {"url": top_url}, page)
    follow(3)
    frame = next((t for t, (s, u) in sessions.items() if u.endswith("/frame")), None)
    if frame is None:
        raise SystemExit(f"no OOPIF attached: {sessions}")
    crashed_sid = sessions[frame][0]
    print(f"oopif sessions: {[(u, s) for (s, u) in sessions.values()]}")
    t0 = rec.now()
    n0 = len(rec.events)
    crash_id = rec.send("Page.crash", {}, crashed_sid)
    rec.pump_for(2.0)
    for t, e in rec.events[n0:]:
        print(f"+{t - t0:.3f}s {e.get('method')} session={e.get('sessionId')} "
              f"params={json.dumps(e.get('params'))[:200]}")
    print(f"Page.crash replied: {crash_id in rec.replies}")
    ev = rec.send("Runtime.evaluate", {"expression": "1+1", "returnByValue": True}, crashed_sid)
    rec.pump_for(1.0)
    print(f"evaluate on the crashed session: {rec.replies.get(ev)}")
    top = rec.send("Runtime.evaluate", {"expression": "[...document.querySelectorAll('iframe')].length",
                                        "returnByValue": True}, page)
    print(f"evaluate on the top page: {rec.reply(top, 3)}")
    tree = rec.reply(rec.send("Page.getFrameTree", {}, page), 3)
    print(f"frame tree after the crash: {json.dumps(tree['result'])[:600]}")
    targets = rec.reply(rec.send("Target.getTargets", {}), 3)
    print("targets: " + json.dumps([(t["type"], t["url"], t["targetId"]) for t in targets["result"]["targetInfos"]]))
    # A lighter recovery: the parent sets the iframe's src again.
    n2 = len(rec.events)
    t2 = rec.now()
    rec.send("Runtime.evaluate", {"expression": "const f = document.querySelector('iframe'); f.src = f.src; 1",
                                  "returnByValue": True}, page)
    follow(2)
    for t, e in rec.events[n2:]:
        if e.get("method") in ("Target.attachedToTarget", "Target.detachedFromTarget", "Page.frameNavigated",
                               "Page.frameDetached", "Page.frameAttached"):
            print(f"src again +{t - t2:.3f}s {e.get('method')} session={e.get('sessionId')} "
                  f"params={json.dumps(e.get('params'))[:160]}")
    # The recovery: reloading the parent (the top page).
    n1 = len(rec.events)
    t1 = rec.now()
    rec.send("Page.reload", {}, page)
    follow(3)
    for t, e in rec.events[n1:]:
        if e.get("method") in ("Target.attachedToTarget", "Target.detachedFromTarget", "Page.frameNavigated",
                               "Page.frameDetached", "Inspector.targetCrashed", "Target.targetCrashed"):
            print(f"reload +{t - t1:.3f}s {e.get('method')} session={e.get('sessionId')} "
                  f"params={json.dumps(e.get('params'))[:160]}")


if __name__ == "__main__":
    main()
