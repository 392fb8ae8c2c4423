"""HTTP sign-in challenges on raw CDP: what a Basic challenge looks like with and without
`Fetch.enable {handleAuthRequests: true}`, what wrong credentials give, and what the
interception costs a page of 200 requests.

    python3 tests/traces/recipes/http-auth.py OUT.jsonl [CHROMIUM]

`/secret` wants `Basic` credentials `user:right` (realm "probe"). Prints one
`finding: ...` line per fact (written into src/manual/chromium_facts.md, "HTTP sign-in").
The credentials are made up for the probe, and redacted from the trace all the same.
"""
import base64
import http.server
import time

import raw_cdp

GOOD = "Basic " + base64.b64encode(b"user:right").decode()
MANY = ("<!doctype html><title>many</title>" +
        "".join(f"<img src=/img/{i}.gif width=1 height=1>" for i in range(200))).encode()
GIF = base64.b64decode("R0lGODlhAQABAAAAACw=")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, ctype, body, extra=()):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.send_header("cache-control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/secret"):
            if self.headers.get("authorization") == GOOD:
                self.send(200, "text/html", b"<title>inside</title>signed in")
            else:
                self.send(401, "text/html", b"<title>401</title>no", [("www-authenticate", 'Basic realm="probe"')])
        elif self.path.startswith("/many"):
            self.send(200, "text/html", MANY)
        elif self.path.startswith("/img/"):
            self.send(200, "image/gif", GIF)
        else:
            self.send(200, "text/html", b"<title>blank</title>")


def title(r, s):
    res = r.reply(r.send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session=s))
    return res["result"]["result"].get("value")


def load(r, s, url, on_event=None, within=10):
    """Navigates and answers paused requests / challenges with `on_event` until the load."""
    mark = len(r.events)
    t0 = time.monotonic()
    r.send("Page.navigate", {"url": url}, session=s)
    end = t0 + within
    seen = mark
    while time.monotonic() < end:
        r.pump_once(0.05)
        for _, e in r.events[seen:]:
            if e.get("method") == "Page.loadEventFired":
                return time.monotonic() - t0
            if on_event:
                on_event(e)
        seen = len(r.events)
    return None


def record(r, base):
    page, s = raw_cdp.attach_page(r)
    t = load(r, s, base + "/secret?none")
    print("finding: no interception, a challenge ->", t is not None and f"loads in {t:.2f}s, title {title(r, s)!r}")

    r.reply(r.send("Fetch.enable", {"handleAuthRequests": True, "patterns": [{"urlPattern": "*"}]}, session=s))
    challenges = []

    def answer(creds):
        def on(e):
            m, p = e.get("method"), e.get("params", {})
            if m == "Fetch.requestPaused":
                r.send("Fetch.continueRequest", {"requestId": p["requestId"]}, session=s)
            elif m == "Fetch.authRequired":
                challenges.append(p)
                if creds is None:
                    resp = {"response": "CancelAuth"}
                elif len([c for c in challenges if c["requestId"] == p["requestId"]]) > 1:
                    resp = {"response": "CancelAuth"}
                else:
                    resp = {"response": "ProvideCredentials", "username": creds[0], "password": creds[1]}
                r.send("Fetch.continueWithAuth", {"requestId": p["requestId"], "authChallengeResponse": resp},
                       session=s)
        return on

    t = load(r, s, base + "/secret?right", answer(("user", "right")))
    c = challenges[0]
    print("finding: a challenge ->", {k: c[k] for k in ("authChallenge", "resourceType")}, "frameId" in c)
    print("finding: right credentials ->", f"{len(challenges)} challenge(s), title {title(r, s)!r}")
    # Chromium caches the credentials of an origin and realm: the other cases go to the
    # other site of the same server (localhost), never answered right.
    other = base.replace("127.0.0.1", "localhost")
    challenges.clear()
    t = load(r, s, other + "/secret?cancel", answer(None))
    print("finding: CancelAuth ->", f"{len(challenges)} challenge(s), title {title(r, s)!r}")
    challenges.clear()
    t0 = time.monotonic()
    t = load(r, s, other + "/secret?wrong", answer(("user", "wrong")))
    ids = [c["requestId"] for c in challenges]
    print("finding: wrong credentials ->", f"{len(challenges)} challenges, same requestId: {len(set(ids)) == 1}, "
          f"title {title(r, s)!r}, {time.monotonic() - t0:.2f}s")

    times = {"on": [], "off": []}
    for rnd in range(3):
        t = load(r, s, base + f"/many?on{rnd}", answer(None), 30)
        times["on"].append(t)
    r.reply(r.send("Fetch.disable", session=s))
    for rnd in range(3):
        times["off"].append(load(r, s, base + f"/many?off{rnd}", None, 30))
    print("finding: 200 requests, load in s, with interception:", [round(x, 3) for x in times["on"]],
          "without:", [round(x, 3) for x in times["off"]])
    r.close()


def redact(path):
    """Credentials never reach a trace, not even the probe's made-up ones."""
    import re
    text = open(path).read()
    open(path, "w").write(re.sub(r'"password": "[^"]*"', '"password": "<redacted>"', text))


if __name__ == "__main__":
    import sys
    raw_cdp.run(Handler, record, "h25-auth-")
    redact(sys.argv[1])
