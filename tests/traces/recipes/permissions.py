"""How to deny every permission for every origin without a prompt, and grant a few, on raw
CDP.

    python3 tests/traces/recipes/permissions.py OUT.jsonl [CHROMIUM]

Three pages in turn, each asking for the position (`getCurrentPosition`, 3 s timeout) and
reading `navigator.permissions.query` for geolocation and notifications: with no override,
after `Browser.grantPermissions {permissions: []}` (no origin: every origin), and after
`Browser.grantPermissions {permissions: ["geolocation"]}`. Prints one `finding: ...` line
per fact (written into src/manual/chromium_facts.md, "Permissions").
"""
import raw_cdp

ASK = """new Promise(done => {
  const t0 = performance.now();
  const out = {};
  Promise.all(['geolocation', 'notifications', 'camera', 'clipboard-read'].map(n =>
      navigator.permissions.query({name: n}).then(s => out[n] = s.state, e => out[n] = 'error ' + e.name)))
    .then(() => navigator.geolocation.getCurrentPosition(
      p => done(JSON.stringify({position: 'ok', ms: performance.now() - t0, ...out})),
      e => done(JSON.stringify({position: 'error ' + e.code + ' ' + e.message, ms: Math.round(performance.now() - t0), ...out})),
      {timeout: 3000}));
  setTimeout(() => done(JSON.stringify({position: 'no answer in 5 s', ...out})), 5000);
})"""


def ask(r, s, label):
    res = r.reply(r.send("Runtime.evaluate", {"expression": ASK, "awaitPromise": True, "returnByValue": True,
                                              "userGesture": True}, session=s), 10)
    print(f"finding: {label} ->", res.get("result", {}).get("result", {}).get("value") or res)


def record(r, base):
    page, s = raw_cdp.attach_page(r)
    r.reply(r.send("Page.navigate", {"url": base + "/p1"}, session=s))
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired", 10)
    ask(r, s, "no override")
    res = r.reply(r.send("Browser.grantPermissions", {"permissions": []}))
    print("finding: grantPermissions [] (no origin) ->", res.get("error") or res.get("result"))
    ask(r, s, "after grantPermissions []")
    res = r.reply(r.send("Browser.grantPermissions", {"permissions": ["geolocation"]}))
    print("finding: grantPermissions [geolocation] ->", res.get("error") or res.get("result"))
    ask(r, s, "after grantPermissions [geolocation]")
    res = r.reply(r.send("Browser.grantPermissions", {"permissions": ["clipboard-read"]}))
    print("finding: a web name (clipboard-read) ->", res.get("error") or res.get("result"))
    res = r.reply(r.send("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "denied"}))
    print("finding: setPermission geolocation denied, no origin ->", res.get("error") or res.get("result"))
    ask(r, s, "after setPermission denied")
    r.close()


if __name__ == "__main__":
    raw_cdp.run(raw_cdp.two_pages(), record, "h25-perm-")
