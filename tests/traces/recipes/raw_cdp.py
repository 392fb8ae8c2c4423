"""What the raw-CDP recipes share: Chromium's flags and a recorder that writes every message
both ways in the trace format (SPEC section 7) while it waits for replies and events.

Imported by the recipes beside it (`bfcache-back.py`, `settle-signals.py`). Needs the
`websocket-client` package.
"""
import json
import time

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--site-per-process", "--remote-debugging-port=0"]


class Recorder:
    def __init__(self, ws_url, out):
        self.ws = websocket.create_connection(ws_url, suppress_origin=True, max_size=None)
        self.out = out
        self.t0 = time.monotonic()
        self.next_id = 0
        self.replies = {}
        self.events = []
        self.line(json.dumps({"t": 0.0, "dir": "connect"}))

    def now(self):
        return round(time.monotonic() - self.t0, 6)

    def line(self, text):
        self.out.write(text + "\n")

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        text = json.dumps(msg)
        self.line(f'{{"t": {self.now()}, "dir": "out", "msg": {text}}}')
        self.ws.send(text)
        return self.next_id

    def pump_once(self, timeout):
        self.ws.settimeout(max(timeout, 0.001))
        try:
            raw = self.ws.recv()
        except websocket.WebSocketTimeoutException:
            return
        self.line(f'{{"t": {self.now()}, "dir": "in", "msg": {raw}}}')
        msg = json.loads(raw)
        if "id" in msg:
            self.replies[msg["id"]] = msg
        else:
            self.events.append((self.now(), msg))

    def reply(self, cid, within=10.0):
        end = time.monotonic() + within
        while cid not in self.replies:
            if time.monotonic() > end:
                raise SystemExit(f"no reply to command {cid}")
            self.pump_once(end - time.monotonic())
        return self.replies[cid]

    def pump_until(self, pred, within):
        """Reads until an event satisfies `pred`; returns it with its time, or None."""
        start = len(self.events)
        end = time.monotonic() + within
        while time.monotonic() < end:
            for t, e in self.events[start:]:
                if pred(e):
                    return t, e
            start = len(self.events)
            self.pump_once(end - time.monotonic())
        return None

    def pump_for(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            self.pump_once(end - time.monotonic())

    def close(self):
        self.line(json.dumps({"t": self.now(), "dir": "disconnect"}))
        self.ws.close()
