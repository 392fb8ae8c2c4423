"""Records, over raw CDP, how navigations to a `javascript:` URL and to the "doors" an
agent should not open by default (`file:`, `chrome:`) behave, and what can stop them.

A headless Chromium launched with the flags of `cdp-supervisor-chromium`, one page on
127.0.0.1 attached as the supervisor attaches (browser-level auto-attach, then per session
`Page.enable`, `Runtime.enable`, `Page.setLifecycleEventsEnabled`). Scenarios, each printed:

1. `Page.navigate {url: "javascript:alert(1)"}`: the reply, and when the dialog opens.
2. `Page.navigate {url: "file:///etc/hostname"}` and `chrome://version`: what commits.
3. A link on the page to `file:///etc/hostname` clicked (a renderer-initiated navigation):
   whether `Page.frameRequestedNavigation` / `frameStartedNavigating` arrive before the
   commit and whether `Page.stopLoading` (sent on `frameStartedNavigating`) stops it.
4. `window.open('chrome://version')` from the page: the popup's attach (paused by
   `waitForDebuggerOnStart`), its url, and whether `Target.closeTarget` before resuming it
   keeps it from loading.
5. A link to another origin, stopped with `Page.stopLoading` on `frameRequestedNavigation`
   or `frameStartedNavigating`.
6. A `target=_blank` popup to it, closed (`Target.closeTarget`) on its first navigation.

    python3 doors.py OUT.jsonl [CHROMIUM]

Needs the `websocket-client` package. Recorded with this script: ../e2e/raw-doors.jsonl.
"""
import http.server
import json

import raw_cdp


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = ("<title>doors</title><body style='margin:0'>"
                "<a id=f href='file:///etc/hostname' style='display:block;width:300px;height:40px'>file</a>"
                "<a id=c href='chrome://version' style='display:block;width:300px;height:40px'>chrome</a>"
                "<button id=p onclick=\"window.open('chrome://version')\" style='width:300px;height:40px'>popup</button>"
                f"<a id=o href='{OTHER['url']}' style='display:block;width:300px;height:40px'>other origin</a>"
                f"<a id=w href='{OTHER['url']}' target=_blank style='display:block;width:300px;height:40px'>other in a popup</a>"
                "</body>").encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


OTHER = {}


def main():
    def record(rec, base):
        port = base.rsplit(":", 1)[1]
        # Another origin (another site): where a blocked-origins list would send nobody.
        OTHER["url"] = f"http://localhost:{port}/other"
        run(rec, f"{base}/")
        rec.close()

    raw_cdp.run(Handler, record, "doors-")


def show(rec, since, t0, label, methods=None):
    for t, e in rec.events[since:]:
        m = e.get("method")
        if methods is None or m in methods:
            print(f"{label} +{t - t0:.3f}s {m} session={e.get('sessionId')} "
                  f"params={json.dumps(e.get('params'))[:220]}")


def top_url(rec, page):
    r = rec.reply(rec.send("Runtime.evaluate", {"expression": "location.href", "returnByValue": True}, page), 5)
    return r.get("result", {}).get("result", {}).get("value")


def run(rec, page_url):
    rec.reply(rec.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}))
    is_page = lambda e: (e.get("method") == "Target.attachedToTarget"
                         and e["params"]["targetInfo"]["type"] == "page")
    hit = next((x for x in rec.events if is_page(x[1])), None) or rec.pump_until(is_page, 5)
    page = hit[1]["params"]["sessionId"]
    for m, p in (("Page.enable", {}), ("Runtime.enable", {}), ("Page.setLifecycleEventsEnabled", {"enabled": True}),
                 ("Runtime.runIfWaitingForDebugger", {})):
        rec.send(m, p, page)
    rec.pump_for(0.3)
    nav = ("Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameNavigated",
           "Page.javascriptDialogOpening", "Page.javascriptDialogClosed", "Target.attachedToTarget",
           "Page.frameStoppedLoading", "Page.navigatedWithinDocument")

    def load(url):
        rec.reply(rec.send("Page.navigate", {"url": url}, page), 10)
        rec.pump_for(1.0)

    # 1. javascript: as a navigation.
    load(page_url)
    n, t0 = len(rec.events), rec.now()
    cid = rec.send("Page.navigate", {"url": "javascript:alert(1)"}, page)
    r = rec.reply(cid, 5)
    print(f"1 javascript: reply after {rec.now() - t0:.3f}s: {json.dumps(r)[:300]}")
    rec.pump_for(1.0)
    show(rec, n, t0, "1", nav)
    rec.reply(rec.send("Page.handleJavaScriptDialog", {"accept": True}, page), 5)
    rec.pump_for(0.3)
    print(f"1 url after: {top_url(rec, page)}")

    # 2. file: and chrome: by the client.
    for url in ("file:///etc/hostname", "chrome://version"):
        load(page_url)
        n, t0 = len(rec.events), rec.now()
        r = rec.reply(rec.send("Page.navigate", {"url": url}, page), 10)
        print(f"2 {url} reply: {json.dumps(r)[:300]}")
        rec.pump_for(1.0)
        show(rec, n, t0, "2", nav)
        print(f"2 url after: {top_url(rec, page)}")

    # 3. A link to file: / chrome: clicked; stop it as soon as it is requested.
    for link in ("f", "c"):
        for stop in (False, True):
            load(page_url)
            n, t0 = len(rec.events), rec.now()
            rec.send("Runtime.evaluate", {"expression": f"document.getElementById('{link}').click()"}, page)
            if stop:
                got = rec.pump_until(lambda e: e.get("method") in ("Page.frameRequestedNavigation",
                                                                  "Page.frameStartedNavigating"), 3)
                if got:
                    print(f"3 {link} stopping on {got[1]['method']} at +{got[0] - t0:.3f}s")
                    rec.send("Page.stopLoading", {}, page)
            rec.pump_for(1.0)
            show(rec, n, t0, f"3 {link} stop={stop}", nav)
            print(f"3 {link} stop={stop} url after: {top_url(rec, page)}")

    # 4. A popup to chrome://version: close it before it runs.
    for close in (False, True):
        load(page_url)
        n, t0 = len(rec.events), rec.now()
        rec.send("Runtime.evaluate", {"expression": "document.getElementById('p').click()", "userGesture": True}, page)
        got = rec.pump_until(lambda e: is_page(e) and e["params"].get("waitingForDebugger"), 3)
        if not got:
            print("4 no popup attached")
            continue
        info = got[1]["params"]["targetInfo"]
        sid = got[1]["params"]["sessionId"]
        print(f"4 close={close} popup attached +{got[0] - t0:.3f}s url={info.get('url')!r} opener={info.get('openerId')}")
        if close:
            r = rec.reply(rec.send("Target.closeTarget", {"targetId": info["targetId"]}), 5)
            print(f"4 closeTarget: {json.dumps(r)[:200]}")
        else:
            for m, p in (("Page.enable", {}), ("Runtime.runIfWaitingForDebugger", {})):
                rec.send(m, p, sid)
        rec.pump_for(1.5)
        show(rec, n, t0, f"4 close={close}", nav + ("Target.targetInfoChanged", "Target.detachedFromTarget",
                                                     "Target.targetDestroyed"))


    # 5. A link to another origin, stopped with Page.stopLoading as soon as it is requested.
    for stop_on in (None, "Page.frameRequestedNavigation", "Page.frameStartedNavigating"):
        load(page_url)
        n, t0 = len(rec.events), rec.now()
        rec.send("Runtime.evaluate", {"expression": "document.getElementById('o').click()"}, page)
        if stop_on:
            got = rec.pump_until(lambda e: e.get("method") == stop_on, 3)
            if got:
                print(f"5 stop on {stop_on} at +{got[0] - t0:.3f}s url={got[1]['params'].get('url')}")
                rec.send("Page.stopLoading", {}, page)
        rec.pump_for(1.0)
        show(rec, n, t0, f"5 stop_on={stop_on}", nav)
        print(f"5 stop_on={stop_on} url after: {top_url(rec, page)}")

    # 6. A target=_blank link to another origin: the popup's first navigation.
    load(page_url)
    n, t0 = len(rec.events), rec.now()
    rec.send("Runtime.evaluate", {"expression": "document.getElementById('w').click()", "userGesture": True}, page)
    got = rec.pump_until(lambda e: is_page(e) and e["params"].get("waitingForDebugger"), 3)
    if got:
        info = got[1]["params"]["targetInfo"]
        sid = got[1]["params"]["sessionId"]
        print(f"6 popup attached +{got[0] - t0:.3f}s url={info.get('url')!r} opener={info.get('openerId')}")
        for m, p in (("Page.enable", {}), ("Runtime.runIfWaitingForDebugger", {})):
            rec.send(m, p, sid)
        first = rec.pump_until(lambda e: e.get("sessionId") == sid and e.get("method") in
                               ("Page.frameRequestedNavigation", "Page.frameStartedNavigating"), 3)
        if first:
            print(f"6 popup's first {first[1]['method']} +{first[0] - t0:.3f}s url={first[1]['params'].get('url')}")
            r = rec.reply(rec.send("Target.closeTarget", {"targetId": info["targetId"]}), 5)
            print(f"6 closeTarget: {json.dumps(r)[:200]}")
        rec.pump_for(1.0)
        show(rec, n, t0, "6", nav + ("Target.targetInfoChanged", "Target.detachedFromTarget", "Target.targetDestroyed"))
    else:
        print("6 no popup attached")


if __name__ == "__main__":
    main()
