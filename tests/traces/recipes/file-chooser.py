"""What a file chooser blocks, where it is reported and where it is answered, on raw CDP.

    python3 tests/traces/recipes/file-chooser.py OUT.jsonl [CHROMIUM]

A page on 127.0.0.1 with a file input and an OOPIF from localhost with another; the page
session and the OOPIF session both get `Page.setInterceptFileChooserDialog {enabled:
true}`. Prints one `finding: ...` line per fact (written into src/manual/chromium_facts.md,
"File choosers"). The files uploaded are made in a fresh temp folder.
"""
import http.server
import json
import os
import socketserver
import tempfile
import threading

import raw_cdp

INNER = b"""<!doctype html><title>inner</title><input type=file id=f style="position:absolute;left:0;top:0;width:150px;height:40px">
<script>window.seen=[];document.getElementById('f').addEventListener('change',e=>{for(const f of e.target.files)seen.push(f.name+':'+f.size)});</script>"""


def handler(inner_port):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("/inner"):
                body = INNER
            else:
                body = (f"""<!doctype html><title>outer</title>
<input type=file id=f style="position:absolute;left:0;top:0;width:150px;height:40px">
<input type=file id=m multiple style="position:absolute;left:0;top:50px;width:150px;height:40px">
<iframe src="http://localhost:{inner_port}/inner" style="position:absolute;left:0;top:120px;width:300px;height:100px"></iframe>
<script>window.seen=[];for(const id of ['f','m'])document.getElementById(id).addEventListener('change',e=>{{for(const f of e.target.files)seen.push(id+':'+f.name+':'+f.size)}});</script>""").encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def click(r, s, x, y):
    for kind in ("mousePressed", "mouseReleased"):
        r.reply(r.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                     "clickCount": 1}, session=s))


def evaluate(r, s, expr, within=3.0):
    cid = r.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=s)
    try:
        return r.reply(cid, within)
    except SystemExit:
        return None


def record(r, base):
    files = tempfile.mkdtemp(prefix="h25-upload-")
    a = os.path.join(files, "a.txt")
    b = os.path.join(files, "b.bin")
    open(a, "w").write("hello")
    open(b, "wb").write(b"x" * 2048)
    page, s = raw_cdp.attach_page(r)
    r.reply(r.send("Page.setInterceptFileChooserDialog", {"enabled": True}, session=s))
    r.reply(r.send("Page.navigate", {"url": base + "/"}, session=s))
    att = r.pump_until(lambda e: e.get("method") == "Target.attachedToTarget"
                       and e["params"]["targetInfo"]["type"] == "iframe", 10)
    child = att[1]["params"]["sessionId"]
    child_frame = att[1]["params"]["targetInfo"]["targetId"]
    for m, p in (("Page.enable", {}), ("Runtime.enable", {}),
                 ("Page.setInterceptFileChooserDialog", {"enabled": True}),
                 ("Runtime.runIfWaitingForDebugger", {})):
        r.send(m, p, session=child)
    r.pump_until(lambda e: e.get("method") == "Page.loadEventFired" and e.get("sessionId") == s, 10)
    r.pump_for(0.5)

    # 1. The top frame's single input.
    click(r, s, 20, 20)
    ev = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 5)
    print("finding: top click ->", ev and (ev[1].get("sessionId") == s, ev[1]["params"]))
    top_node = ev[1]["params"]["backendNodeId"]
    res = evaluate(r, s, "1+1")
    print("finding: evaluate while a chooser is pending answers:", res is not None and res.get("result"))
    click(r, s, 20, 20)
    ev2 = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 5)
    print("finding: a second click gives another event:", ev2 is not None and ev2[1]["params"])
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [a, b], "backendNodeId": top_node}, session=s))
    print("finding: two files on a selectSingle input ->", res.get("error") or res.get("result"))
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [a], "backendNodeId": top_node}, session=s))
    print("finding: setFileInputFiles without DOM.enable ->", res.get("error") or res.get("result"))
    r.pump_for(0.3)
    print("finding: page saw", evaluate(r, s, "JSON.stringify(seen)")["result"]["result"]["value"])

    # 2. The multiple input.
    click(r, s, 20, 70)
    ev = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 5)
    print("finding: multiple ->", ev and ev[1]["params"])
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [a, b], "backendNodeId": ev[1]["params"]["backendNodeId"]}, session=s))
    r.pump_for(0.3)
    print("finding: page saw", evaluate(r, s, "JSON.stringify(seen)")["result"]["result"]["value"])

    # 3. The OOPIF's input: reported on which session, answered where.
    click(r, s, 20, 140)
    ev = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 5)
    print("finding: OOPIF click -> on child session:", ev and ev[1].get("sessionId") == child,
          "frame is the OOPIF:", ev and ev[1]["params"]["frameId"] == child_frame, ev and ev[1]["params"])
    node = ev[1]["params"]["backendNodeId"]
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [a], "backendNodeId": node}, session=s))
    print("finding: OOPIF node answered on the page session ->", res.get("error") or res.get("result"))
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [a], "backendNodeId": node}, session=child))
    print("finding: OOPIF node answered on its own session ->", res.get("error") or res.get("result"))
    r.pump_for(0.3)
    print("finding: OOPIF saw", evaluate(r, child, "JSON.stringify(seen)")["result"]["result"]["value"])

    # 4. An OOPIF session that does not intercept: is its chooser reported anywhere?
    r.reply(r.send("Page.setInterceptFileChooserDialog", {"enabled": False}, session=child))
    click(r, s, 20, 140)
    ev = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 2)
    print("finding: OOPIF not intercepting, page intercepting ->", ev and ev[1])
    res = evaluate(r, child, "1+1")
    print("finding: OOPIF evaluate after an unintercepted chooser:", res is not None and res.get("result"))
    # 5. A missing file.
    r.reply(r.send("Page.setInterceptFileChooserDialog", {"enabled": True}, session=child))
    click(r, s, 20, 20)
    ev = r.pump_until(lambda e: e.get("method") == "Page.fileChooserOpened", 5)
    res = r.reply(r.send("DOM.setFileInputFiles", {"files": [files + "/missing"], "backendNodeId": ev[1]["params"]["backendNodeId"]}, session=s))
    r.pump_for(0.3)
    print("finding: a missing file ->", res.get("error") or res.get("result"),
          evaluate(r, s, "JSON.stringify([...document.getElementById('f').files].map(f=>f.name+':'+f.size))")["result"]["result"]["value"])
    r.close()


def main():
    inner = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler(0))
    inner.daemon_threads = True
    threading.Thread(target=inner.serve_forever, daemon=True).start()
    raw_cdp.run(handler(inner.server_address[1]), record, "h25-chooser-")
    inner.shutdown()


if __name__ == "__main__":
    main()
