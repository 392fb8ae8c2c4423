"""Raw-CDP probe of browser contexts (`Target.createBrowserContext`), no supervisor between.

One browser-level WebSocket with the supervisor's setup (`Target.setAutoAttach {autoAttach,
waitForDebuggerOnStart, flatten}` and `Target.setDiscoverTargets` at browser level, sent
before any context exists), then: two contexts A and B (`disposeOnDetach: true`), a tab in
each (`Target.createTarget {browserContextId}`), a cookie set by a loopback page in A and read
in B, a popup opened in A, an alert left pending in A's tab while B evaluates, the contexts
listed, A disposed with the alert still open (what its tabs send, how long the reply takes),
the contexts listed again, an unknown context disposed, a tab asked in an unknown context,
the default context disposed.
A second WebSocket then creates a context with `disposeOnDetach: true` and a tab in it and
closes: the first lists the contexts again.

    python3 contexts_probe.py ../e2e/tabs-contexts.jsonl [CHROMIUM]

Needs the `websocket-client` package. Prints what it found (`<step>: <finding>`).
Recorded with this script: ../e2e/tabs-contexts.jsonl (the manual's facts on browser contexts).
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

from raw_cdp import FLAGS, Recorder


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        extra = []
        if path == "/login":
            body = "<title>login</title><p>logged in"
            extra.append(("set-cookie", "session=agent-a; Path=/"))
        elif path == "/plain":
            body = "<title>plain</title><p>plain"
        elif path == "/leave":
            body = ("<title>leave?</title><script>addEventListener('beforeunload', e => "
                    "{ e.preventDefault(); e.returnValue = ''; })</script><p>leave")
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def say(step, text):
    print(f"{step}: {text}", flush=True)


def attached_page(r, since, within=5.0):
    """The next browser-level attachedToTarget of a page after event index `since`."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        for _, e in r.events[since:]:
            if (e.get("method") == "Target.attachedToTarget" and "sessionId" not in e
                    and e["params"]["targetInfo"]["type"] == "page"):
                return e["params"]
        r.pump_once(0.1)
    return None


def setup(r, session):
    """What the supervisor sends a new page before resuming it, pipelined."""
    for m in ("Page.enable", "Runtime.enable"):
        r.send(m, {}, session)
    r.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                    "flatten": True}, session)
    return r.send("Runtime.runIfWaitingForDebugger", {}, session)


def evaluate(r, session, expr, within=5.0, gesture=False):
    cid = r.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                       "userGesture": gesture}, session)
    end = time.monotonic() + within
    while cid not in r.replies and time.monotonic() < end:
        r.pump_once(end - time.monotonic())
    msg = r.replies.get(cid)
    return None if msg is None else msg.get("result", {}).get("result", {}).get("value", msg)


def record(r, base, ws_url):
    r.reply(r.send("Target.getTargets"))
    r.reply(r.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                            "flatten": True}))
    r.reply(r.send("Target.setDiscoverTargets", {"discover": True}))
    r.pump_for(0.3)

    a = r.reply(r.send("Target.createBrowserContext", {"disposeOnDetach": True}))["result"]["browserContextId"]
    b = r.reply(r.send("Target.createBrowserContext", {"disposeOnDetach": True}))["result"]["browserContextId"]
    say("create", f"two contexts {a[:8]}.. {b[:8]}..")

    tabs = {}
    for name, ctx, url in (("A", a, f"{base}/login"), ("B", b, f"{base}/plain")):
        since = len(r.events)
        created = r.reply(r.send("Target.createTarget", {"url": url, "browserContextId": ctx}))
        target = created["result"]["targetId"]
        ev = attached_page(r, since)
        if ev is None:
            say("attach", f"{name}: no browser-level attachedToTarget")
            continue
        info = ev["targetInfo"]
        say("attach", f"{name}: attached waiting={ev['waitingForDebugger']} "
            f"browserContextId matches={info.get('browserContextId') == ctx} url={info['url']!r} "
            f"same target={info['targetId'] == target}")
        tabs[name] = ev["sessionId"]
        r.reply(setup(r, ev["sessionId"]))
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired"
                 and e.get("sessionId") == tabs.get("A"), 5)
    r.pump_for(0.5)
    say("cookie", f"A reads {evaluate(r, tabs['A'], 'document.cookie')!r}, "
        f"B reads {evaluate(r, tabs['B'], 'document.cookie')!r}")

    since = len(r.events)
    evaluate(r, tabs["A"], "window.w = window.open('/plain?popup'); 1", gesture=True)
    ev = attached_page(r, since)
    if ev is None:
        say("popup", "no browser-level attachedToTarget")
    else:
        info = ev["targetInfo"]
        say("popup", f"attached at browser level, waiting={ev['waitingForDebugger']} "
            f"openerId set={bool(info.get('openerId'))} browserContextId is A={info.get('browserContextId') == a}")
        tabs["popup"] = ev["sessionId"]
        r.reply(setup(r, ev["sessionId"]))

    # A beforeunload handler in the popup (it answers to nothing while A is disposed).
    evaluate(r, tabs["popup"], "location.href = '/leave'; 1")
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired"
                 and e.get("sessionId") == tabs.get("popup"), 5)
    evaluate(r, tabs["popup"], "document.body.click(); 1", gesture=True)

    r.send("Runtime.evaluate", {"expression": "setTimeout(() => alert('in A'), 0); 1"}, tabs["A"])
    got = r.pump_until(lambda e: e.get("method") == "Page.javascriptDialogOpening", 5)
    say("alert", f"A's alert opening on A's session={got is not None and got[1].get('sessionId') == tabs['A']}")
    t0 = time.monotonic()
    value = evaluate(r, tabs["B"], "6 * 7", within=3)
    say("alert", f"B evaluates with A's alert open: {value!r} in {time.monotonic() - t0:.3f}s")

    listed = r.reply(r.send("Target.getBrowserContexts"))["result"]["browserContextIds"]
    say("list", f"lists A={a in listed} B={b in listed} ({len(listed)} ids; the default is not listed)")

    since = len(r.events)
    t0 = time.monotonic()
    cid = r.send("Target.disposeBrowserContext", {"browserContextId": a})
    reply = r.reply(cid, within=15)
    took = time.monotonic() - t0
    say("dispose", f"A with its alert open: reply {json.dumps(reply.get('result', reply.get('error')))} "
        f"after {took:.3f}s")
    r.pump_for(1.0)
    after = [(e["method"], e.get("sessionId") is not None) for _, e in r.events[since:]]
    say("dispose", f"events after: {after}")
    listed = r.reply(r.send("Target.getBrowserContexts"))["result"]["browserContextIds"]
    say("list", f"after dispose lists A={a in listed} B={b in listed}")
    say("dispose", f"B still evaluates: {evaluate(r, tabs['B'], '1 + 1')!r}")
    targets = r.reply(r.send("Target.getTargets"))["result"]["targetInfos"]
    say("targets", f"pages left: {sorted((t.get('browserContextId') == b, t['url'][-6:]) for t in targets if t['type'] == 'page')}")

    bad = r.reply(r.send("Target.disposeBrowserContext", {"browserContextId": "NOPE"}))
    say("unknown", f"dispose: {json.dumps(bad.get('error'))}")
    bad = r.reply(r.send("Target.disposeBrowserContext", {"browserContextId": a}))
    say("unknown", f"dispose again: {json.dumps(bad.get('error'))}")
    bad = r.reply(r.send("Target.createTarget", {"url": "about:blank", "browserContextId": "NOPE"}))
    say("unknown", f"createTarget: {json.dumps(bad.get('error'))}")
    default = r.reply(r.send("Target.getBrowserContexts"))["result"].get("defaultBrowserContextId")
    bad = r.reply(r.send("Target.disposeBrowserContext", {"browserContextId": default}))
    say("default", f"dispose the default context: {json.dumps(bad.get('error', bad.get('result')))}")

    # disposeOnDetach: a second connection's context, with a tab, goes when it closes.
    other = Recorder(ws_url, open(os.devnull, "w"))
    c = other.reply(other.send("Target.createBrowserContext", {"disposeOnDetach": True}))["result"]["browserContextId"]
    other.reply(other.send("Target.createTarget", {"url": f"{base}/plain", "browserContextId": c}))
    listed = r.reply(r.send("Target.getBrowserContexts"))["result"]["browserContextIds"]
    say("detach", f"second connection's context listed={c in listed}")
    since = len(r.events)
    other.close()
    time.sleep(0.5)
    r.pump_for(1.0)
    listed = r.reply(r.send("Target.getBrowserContexts"))["result"]["browserContextIds"]
    gone = [e["method"] for _, e in r.events[since:]]
    say("detach", f"after it closed listed={c in listed}; first connection saw {gone}")
    r.reply(r.send("Target.disposeBrowserContext", {"browserContextId": b}))
    r.pump_for(0.5)


def main():
    out_path = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CHROME", "/usr/bin/chromium")
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    profile = tempfile.mkdtemp(prefix="contexts-recipe-")
    browser = subprocess.Popen([chromium, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(200):
            if os.path.exists(port_file) and len(open(port_file).read().splitlines()) >= 2:
                break
            time.sleep(0.05)
        port, path = open(port_file).read().splitlines()[:2]
        ws_url = f"ws://127.0.0.1:{port}{path}"
        with open(out_path, "w") as out:
            r = Recorder(ws_url, out)
            record(r, base, ws_url)
            r.close()
    finally:
        browser.terminate()
        browser.wait(10)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
