"""What Chromium says when a page asks for a permission that is denied without a prompt:
nothing, on raw CDP.

    python3 tests/traces/recipes/permission-requests.py OUT.jsonl [CHROMIUM]

A page on loopback with `Runtime`, `Log` and `Audits` enabled on its session and every
permission denied (`Browser.grantPermissions {permissions: []}`) asks in turn for the
position (`getCurrentPosition`, `watchPosition`), notifications
(`Notification.requestPermission`), the camera (`getUserMedia`) and the clipboard
(`readText`), each under a user gesture; every event of the half second after each answer
is printed. Prints one `finding: ...` line per request (written into
src/manual/chromium_facts.md, "Permissions").
"""
import json

import raw_cdp

CALLS = {
    "getCurrentPosition": "new Promise(d => navigator.geolocation.getCurrentPosition(() => d('ok'), "
                          "e => d('error ' + e.code + ' ' + e.message), {timeout: 2000}))",
    "watchPosition": "new Promise(d => navigator.geolocation.watchPosition(() => d('ok'), e => d('error ' + e.code)))",
    "Notification.requestPermission": "Notification.requestPermission().then(s => 'state ' + s, e => 'error ' + e)",
    "getUserMedia video": "navigator.mediaDevices.getUserMedia({video: true}).then(() => 'ok', e => 'error ' + e.name)",
    "clipboard.readText": "navigator.clipboard.readText().then(() => 'ok', e => 'error ' + e.name)",
}


def record(r, base):
    page, s = raw_cdp.attach_page(r)
    for m in ["Log.enable", "Audits.enable"]:
        r.reply(r.send(m, session=s))
    r.reply(r.send("Page.navigate", {"url": base + "/p1"}, session=s))
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired", 10)
    r.pump_for(0.5)  # the favicon's 404 and the like, before the requests
    r.reply(r.send("Browser.grantPermissions", {"permissions": []}))
    for name, expr in CALLS.items():
        start = len(r.events)
        res = r.reply(r.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True,
                                                  "returnByValue": True, "userGesture": True}, session=s), 10)
        r.pump_for(0.5)
        events = [e.get("method") for _, e in r.events[start:]]
        value = res.get("result", {}).get("result", {}).get("value") or res
        print(f"finding: {name} -> {value}; events in the next 0.5 s: {json.dumps(events)}")
    r.close()


if __name__ == "__main__":
    raw_cdp.run(raw_cdp.two_pages(), record, "h25-perm-requests-")
