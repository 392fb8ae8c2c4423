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
import sys

from raw_cdp import attach_page, run, two_pages


def main():
    run(two_pages('display:block;height:100px'), record, "bfcache-recipe-")

def record(r, base):
    page, s = attach_page(r)
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
