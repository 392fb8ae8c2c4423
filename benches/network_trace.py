#!/usr/bin/env python3
"""The heavy trace with a real page's network traffic in it, for `cargo bench --bench replay`.

    python3 benches/network_trace.py [--copies N] > /tmp/heavy-with-network.jsonl
    cargo bench --bench replay -- /tmp/heavy-with-network.jsonl

`tests/traces/heavy-ad-page.jsonl` was recorded before the supervisor enabled the Network
domain, so it has no `Network.*` event. This takes every `Network.*` event of
`tests/traces/many-requests.jsonl` (a real recording: a page of 206 requests, 4 of them in
cross-site OOPIFs, 1 482 events) N times (default 2: 412 requests, 2 964 events, about what
a page of 24 ads asks for), gives each copy request ids of its own, puts them on the heavy
trace's page session, and spreads them evenly over the heavy trace's incoming messages after
that session attached. Times are taken from the message each is placed after.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "tests", "traces")
copies = int(sys.argv[sys.argv.index("--copies") + 1]) if "--copies" in sys.argv else 2

heavy = [json.loads(l) for l in open(os.path.join(TRACES, "heavy-ad-page.jsonl"))]
recorded = [json.loads(l) for l in open(os.path.join(TRACES, "many-requests.jsonl"))]
network = [o["msg"] for o in recorded
           if o["dir"] == "in" and o.get("msg", {}).get("method", "").startswith("Network.")]

# The heavy trace's page session: the first attached page.
page_session = next(o["msg"]["params"]["sessionId"] for o in heavy
                    if o.get("msg", {}).get("method") == "Target.attachedToTarget"
                    and o["msg"]["params"]["targetInfo"]["type"] == "page")
start = next(i for i, o in enumerate(heavy)
             if o.get("msg", {}).get("params", {}).get("sessionId") == page_session) + 1

events = []
for c in range(copies):
    for m in network:
        m = json.loads(json.dumps(m))
        m["sessionId"] = page_session
        params = m.get("params", {})
        if "requestId" in params:
            params["requestId"] = f"{params['requestId']}-{c}"
        if "loaderId" in params:
            params["loaderId"] = f"{params['loaderId']}-{c}"
        events.append(m)

incoming_after = [i for i in range(start, len(heavy)) if heavy[i]["dir"] == "in"]
step = len(incoming_after) / max(len(events), 1)
places = {}
for k, m in enumerate(events):
    places.setdefault(incoming_after[int(k * step)], []).append(m)

out = sys.stdout
for i, o in enumerate(heavy):
    out.write(json.dumps(o, separators=(",", ":")) + "\n")
    for m in places.get(i, []):
        out.write(json.dumps({"t": o["t"], "dir": "in", "msg": m}, separators=(",", ":")) + "\n")
print(f"{len(events)} Network events added ({copies} copies of {len(network)})", file=sys.stderr)
