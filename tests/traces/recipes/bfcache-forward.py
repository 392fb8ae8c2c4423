"""Records `back` then `forward` into the back/forward cache over raw CDP (no supervisor in
between).

Two static, cacheable pages on loopback; a headless Chromium launched with the flags of
`cdp-supervisor-chromium`; the commands the supervisor sends, in its order: attach
(`Target.getTargets`, `attachToTarget {flatten}`, then `Page.enable`, `Runtime.enable`,
`Page.getFrameTree`, `Target.setAutoAttach` pipelined), then four actions as the act flow
sends them (`Page.setLifecycleEventsEnabled` pipelined before each): navigate /p1,
navigate /p2, back, forward (each `Page.getNavigationHistory`, then
`Page.navigateToHistoryEntry` of the entry before or after the current one). After each action it waits for the `load`, or for the
`frameNavigated` of type `BackForwardCacheRestore` (a restore sends no `load`), then
1.5 s, then takes a webp screenshot and `document.title` as the flow does.

    python3 bfcache-forward.py OUT.jsonl [CHROMIUM]

Needs the `websocket-client` package. Prints, per action, what settled it and when.
Recorded with this script: ../e2e/bfcache-forward.jsonl (fact "A back/forward cache restore
sends no load" of the manual: a forward restore is like a back one).
"""
import sys

from raw_cdp import attach_page, run, two_pages


def main():
    run(two_pages(''), record, "bfcache-forward-recipe-")

def record(r, base):
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
            history = r.reply(r.send("Page.getNavigationHistory", session=s))["result"]
            entry = history["entries"][history["currentIndex"] + step]["id"]
            r.reply(r.send("Page.navigateToHistoryEntry", {"entryId": entry}, session=s))
        return go

    act("navigate /p1", navigate("/p1"))
    act("navigate /p2", navigate("/p2"))
    act("back", history(-1))
    act("forward", history(1))
    r.close()


main()
