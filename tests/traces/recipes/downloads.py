"""Where download events go and what they carry, on raw CDP, with the behaviour set once at
browser level.

    python3 tests/traces/recipes/downloads.py OUT.jsonl [CHROMIUM]

A page on 127.0.0.1 with a same-origin `download` link to a 20 KB file, a blob download
made by script (its anchor in the document: a detached anchor's click downloads nothing), and a link to a large slow file (canceled with `Browser.cancelDownload`).
Prints one `finding: ...` line per fact (written into src/manual/chromium_facts.md,
"Downloads"). The files land in a fresh temp folder, listed at the end.
"""
import http.server
import os
import tempfile
import time

import raw_cdp

PAGE = b"""<!doctype html><title>downloads</title>
<a id=att href=/file.bin download style="position:absolute;left:0;top:0;width:150px;height:40px;display:block">att</a>
<button id=blob style="position:absolute;left:0;top:50px;width:150px;height:40px" onclick="
const a=document.createElement('a');a.href=window.URL.createObjectURL(new Blob(['x'.repeat(3000)]));a.download='made.txt';document.body.appendChild(a);a.click()">blob</button>
<a id=big href=/big.bin download style="position:absolute;left:0;top:100px;width:150px;height:40px;display:block">big</a>"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/file.bin":
            body = b"y" * 20000
            self.send_response(200)
            self.send_header("content-type", "application/octet-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/big.bin":
            self.send_response(200)
            self.send_header("content-type", "application/octet-stream")
            self.send_header("content-length", str(50 * 1024 * 1024))
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b"z" * 65536)
                    self.wfile.flush()
                    time.sleep(0.05)
            except Exception:
                pass
        else:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)


def since(r, mark, pred, within):
    """The first event after `mark` (an index into r.events) that satisfies `pred`."""
    for t, e in r.events[mark:]:
        if pred(e):
            return t, e
    return r.pump_until(pred, within)


def click(r, s, x, y):
    for kind in ("mousePressed", "mouseReleased"):
        r.reply(r.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                     "clickCount": 1}, session=s))


def record(r, base):
    folder = tempfile.mkdtemp(prefix="h25-downloads-")
    res = r.reply(r.send("Browser.setDownloadBehavior", {"behavior": "allowAndName", "downloadPath": folder,
                                                         "eventsEnabled": True}))
    print("finding: browser-level setDownloadBehavior ->", res.get("error") or res.get("result"))
    page, s = raw_cdp.attach_page(r)
    r.reply(r.send("Page.navigate", {"url": base + "/"}, session=s))
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired", 10)

    def done(guid):
        return lambda e: (e.get("method") == "Browser.downloadProgress" and e["params"]["guid"] == guid
                          and e["params"]["state"] != "inProgress")

    for name, (x, y) in (("attachment", (20, 20)), ("blob", (20, 70))):
        mark = len(r.events)
        click(r, s, x, y)
        begin = since(r, mark, lambda e: e.get("method") == "Browser.downloadWillBegin", 5)
        print(f"finding: {name} begin ->", begin and (begin[1].get("sessionId"), begin[1]["params"]))
        guid = begin[1]["params"]["guid"]
        end = since(r, mark, done(guid), 10)
        print(f"finding: {name} end ->", end and (end[1].get("sessionId"), end[1]["params"]))
        progress = [e for _, e in r.events if e.get("method") == "Browser.downloadProgress"
                    and e["params"]["guid"] == guid]
        print(f"finding: {name} progress events:", len(progress))
    page_level = [e["method"] for _, e in r.events if e.get("method", "").startswith("Page.download")]
    print("finding: page-level download events on the page session:", sorted(set(page_level)))

    mark = len(r.events)
    click(r, s, 20, 120)
    begin = since(r, mark, lambda e: e.get("method") == "Browser.downloadWillBegin"
                         and e["params"]["url"].endswith("/big.bin"), 5)
    guid = begin[1]["params"]["guid"]
    first = since(r, mark, lambda e: e.get("method") == "Browser.downloadProgress" and e["params"]["guid"] == guid
                         and e["params"]["receivedBytes"] > 0, 10)
    print("finding: big first progress ->", first and first[1]["params"])
    mark = len(r.events)
    res = r.reply(r.send("Browser.cancelDownload", {"guid": guid}))
    print("finding: cancelDownload ->", res.get("error") or res.get("result"))
    end = since(r, mark, done(guid), 10)
    print("finding: big end ->", end and end[1]["params"])
    r.pump_for(0.5)
    print("finding: files in the folder:", sorted((f, os.path.getsize(os.path.join(folder, f)))
                                                  for f in os.listdir(folder)))
    r.close()


if __name__ == "__main__":
    raw_cdp.run(Handler, record, "h25-dl-")
