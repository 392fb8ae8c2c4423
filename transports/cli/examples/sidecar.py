#!/usr/bin/env python3
"""Drive the `cdp-supervise` sidecar from Python over stdio (no dependencies).

    cargo build -p cdp-supervise && python3 transports/cli/examples/sidecar.py [path/to/cdp-supervise]

It launches a headless Chromium through the sidecar, waits for the page, runs a script that
raises a `confirm`, sees at once that the script is blocked by the dialog, accepts the dialog,
reads the script's answer, takes a snapshot and stops. Exits non-zero if any step fails.
"""
import json
import os
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CDP_SUPERVISE", "target/debug/cdp-supervise")
page = "data:text/html,<title>Sidecar example</title><h1>Hello</h1>"
sidecar = subprocess.Popen([binary, "watch", "--url", page], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)


def send(**command):
    sidecar.stdin.write(json.dumps(command) + "\n")
    sidecar.stdin.flush()


seen = []  # every line so far: answers may come in any order


def until(predicate):
    """The first line, seen or still to come, that matches; each line is one JSON object."""
    for message in seen:
        if predicate(message):
            seen.remove(message)
            return message
    for line in sidecar.stdout:
        message = json.loads(line)
        if predicate(message):
            return message
        seen.append(message)
    raise SystemExit("the sidecar ended early")


# 1. The page is live once its top frame shows the URL we asked for.
until(lambda m: m.get("op") in ("frame_added", "frame_updated")
      and m["frame"]["url"].startswith("data:text/html") and m["frame"]["parent_frame_id"] is None)

# 2. A script that raises a confirm: the sidecar says at once which dialog blocks it.
send(id=1, cmd="cdp", method="Runtime.evaluate",
     params={"expression": "confirm('Proceed?') ? 'yes' : 'no'", "returnByValue": True})
blocked = until(lambda m: m.get("type") == "blocked" and m.get("id") == 1)
print("blocked by", blocked["dialog_id"])

# 3. Accept it; the dialog's record comes back, then the script's own answer.
send(id=2, cmd="dialog", action="accept", dialog_id=blocked["dialog_id"])
answered = until(lambda m: m.get("type") in ("result", "error") and m.get("id") == 2)
print("dialog closed by", answered["dialog"]["closed_by"])
result = until(lambda m: m.get("type") in ("result", "error") and m.get("id") == 1)
value = result["result"]["result"]["value"]
print("the script returned", value)

# 4. A snapshot, then stop (end of input would do the same).
send(id=3, cmd="snapshot")
snapshot = until(lambda m: m.get("type") == "result" and m.get("id") == 3)["snapshot"]
print("page is", snapshot["page"]["state"], "with", len(snapshot["pending_dialogs"]), "pending dialogs")
send(id=4, cmd="stop")
until(lambda m: m.get("id") == 4)
code = sidecar.wait(30)
assert (value, answered["dialog"]["closed_by"], code) == ("yes", "agent", 0), (value, code)
print("ok")
