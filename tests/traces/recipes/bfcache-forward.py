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

from raw_cdp import history_actions, run, two_pages


def main():
    run(two_pages(''), record, "bfcache-forward-recipe-")


def record(r, base):
    history_actions(r, base, [("navigate", "/p1"), ("navigate", "/p2"), ("history", -1),
                              ("history", 1)])


main()
