#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets from the recorded traces (tests/traces/*.jsonl).

Usage: python3 fuzz/seed.py   (run-all.sh calls it; the corpus dirs are gitignored)

- trace_lines: each trace cut into chunks of consecutive lines (each chunk is a valid
  trace: lines parse, times do not decrease), so inputs stay small for libFuzzer.
- raw_messages: the `in` messages of each trace, one per line, in chunks, with the
  trace's page target and page session renamed to the ones the target's preamble uses
  (`PAGE`, `S-PAGE`) so that events reach the handlers; a `\\x01` line between chunks of
  time advances the clock.
  A few more use the control lines that attach popups, close tabs and call into tabs.
- operations: a few fixed byte strings (the target's input is structured, not trace text).
- sidecar_lines: the sidecar's stdin commands (every command of its README, valid and
  mistyped), a few per input.
"""
import glob
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = sorted(glob.glob(os.path.join(HERE, "..", "tests", "traces", "*.jsonl")))
CHUNK = 40
MAX_CHUNKS_PER_TRACE = 40


def write(target, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def chunks(items):
    for n, i in enumerate(range(0, len(items), CHUNK)):
        if n >= MAX_CHUNKS_PER_TRACE:
            break
        yield items[i : i + CHUNK]


def page_ids(entries):
    """The page target id and page session id of a trace, from its attach."""
    target = session = None
    attach_ids = set()
    for e in entries:
        msg = e.get("msg") or {}
        if e.get("dir") == "out" and msg.get("method") == "Target.attachToTarget":
            target = msg.get("params", {}).get("targetId")
            attach_ids.add(msg.get("id"))
        if e.get("dir") == "in" and msg.get("id") in attach_ids:
            session = (msg.get("result") or {}).get("sessionId") or session
            if session:
                break
    return target, session


def main():
    if not TRACES:
        sys.exit("no traces under tests/traces")
    for path in TRACES:
        with open(path, "rb") as f:
            lines = [l for l in f.read().split(b"\n") if l.strip()]
        for c in chunks(lines):
            write("trace_lines", b"\n".join(c) + b"\n")
        entries = [json.loads(l) for l in lines]
        target, session = page_ids(entries)
        msgs = []
        for e in entries:
            if e.get("dir") != "in":
                continue
            text = json.dumps(e["msg"], separators=(",", ":"))
            if target:
                text = text.replace(target, "PAGE")
            if session:
                text = text.replace(session, "S-PAGE")
            msgs.append(text.encode())
        for c in chunks(msgs):
            write("raw_messages", b"\n".join(c) + b"\n\x01\x14\n")
    # Several tabs without guessing their JSON (control lines 4-6 of raw_messages.rs):
    # popups paused or not, same-site or cross-site, with or without access, their calls,
    # a dialog in one, closes.
    dialog = (b'{"method":"Page.javascriptDialogOpening","params":{"url":"http://a.test/",'
              b'"frameId":"T1","message":"hi","type":"alert","hasBrowserHandler":false,'
              b'"defaultPrompt":""},"sessionId":"S-T1"}')
    for seed in [
        b"\x04\x17\n\x06\x03\x01\n" + dialog + b"\n\x06\x03\x00\n\x05\x00\n\x01\x14\n",
        b"\x04\x1f\n\x04\x13\n\x04\x03\n\x04\x01\n\x06\x00\x01\n\x02\n\x03\n\x01\x28\n",
        b"\x04\x07\n\x06\x07\x00\n\x06\x02\x02\n\x05\x06\n\x06\x04\x01\n\x01\x0c\n",
    ]:
        write("raw_messages", seed)
    for seed in [b"", b"\x00" * 64, bytes(range(256)), b"\x0d\x00\x01" * 40]:
        write("operations", seed)
    commands = [
        b'{"id":1,"cmd":"snapshot"}',
        b'{"id":2,"cmd":"dialog","action":"accept","prompt_text":"x","dialog_id":"d-1"}',
        b'{"id":3,"cmd":"cdp","method":"Runtime.evaluate","params":{"expression":"1"},"frame_id":"F","timeout_ms":5000}',
        b'{"id":4,"cmd":"policy","policy":"auto_dismiss"}',
        b'{"id":"x","cmd":"settle","action":"dismiss"}',
        b'{"id":[1],"cmd":"recover"}',
        b'{"id":null,"cmd":"stop"}',
        b'{"id":7,"cmd":"cdp","method":"M","timeout_ms":1e300}',
        b'{"id":8,"cmd":"dialog","action":"accept","dialog_id":5}',
        b'\xff\xfe{"cmd":"snapshot"}',
    ]
    for i in range(len(commands)):
        write("sidecar_lines", b"\n".join(commands[i:i + 3]) + b"\n")


if __name__ == "__main__":
    main()
