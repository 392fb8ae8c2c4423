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
import sys

from raw_cdp import history_actions, run, two_pages


def main():
    run(two_pages(''), record, "bfcache-recipe-")


def record(r, base):
    history_actions(r, base, [("navigate", "/p1"), ("navigate", "/p2"), ("history", -1),
                              ("navigate", "/p2"), ("history", -1)])


main()
