#!/usr/bin/env python3
"""Hostile lines to `cdp-supervise mcp` over stdio (no browser: `--lazy`, and no call needs one).

    python3 transports/cli/tests/mcp/test_mcp_hostile.py path/to/cdp-supervise

Between valid requests: text that is not JSON, bytes that are not UTF-8, a line over the 4 MiB
bound, JSON that is not a JSON-RPC message, a request with an object id, unknown methods and
tools, `arguments` of the wrong type, arguments with wrong types and out of range. The server
answers every well-formed request (an error naming what is wrong, or a tool result with
`isError`), answers a JSON line that is not a JSON-RPC message with -32600 (the official SDK
leaves text that is not JSON unanswered, as the other official SDKs do: there is no id to
answer, and answering garbage can start an error storm between two peers), never panics, and
still serves the next request; at end of input it exits 0.
Exits non-zero on the first failed check.
"""
import json
import os
import subprocess
import sys

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/cdp-supervise")


def check(cond, what, detail=""):
    if not cond:
        raise SystemExit(f"FAILED: {what}\n{detail}")
    print(f"ok - {what}")


def req(id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m).encode()


def call(id, name, arguments):
    return req(id, "tools/call", {"name": name, "arguments": arguments})


lines = [
    req(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "hostile", "version": "1"}}),
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b"not json at all",
    b"\xff\xfe\xfd",
    b"{" * 100_000,
    b"x" * (5 * 1024 * 1024),
    b"[]",
    b'{"id":{},"method":"x"}',
    b'"just a string"',
    req(2, "tools/list"),
    req(3, "no/such/method"),
    call(4, "browser_fly", {}),
    call(5, "browser_click", {"ref": 5}),
    call(6, "browser_navigate", {"url": "about:blank", "timeout_ms": -1}),
    call(7, "browser_navigate", {"url": "about:blank", "wait": "soon"}),
    call(8, "browser_click", {"x": 1e308, "y": "a"}),
    call(9, "browser_tabs", {"action": "select", "index": -3}),
    call(10, "browser_evaluate", {"function": "() => 1", "expression": "1"}),
    req(11, "tools/call", {"name": "browser_click", "arguments": []}),
    call(13, "browser_navigate", {"url": "file:///etc/passwd"}),
    call(14, "browser_navigate", {"url": "chrome://settings"}),
    call(15, "browser_file_upload", {"paths": "/etc/passwd"}),
    call(16, "browser_handle_dialog", {"accept": True, "username": "u"}),
    req(12, "ping"),
]
proc = subprocess.run([BINARY, "mcp", "--lazy"], input=b"\n".join(lines) + b"\n",
                      capture_output=True, timeout=60)
answers = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.strip()]
by_id = {a.get("id"): a for a in answers if a.get("id") is not None}
stderr = proc.stderr.decode(errors="replace")

check(proc.returncode == 0, f"exits 0 at end of input (rc {proc.returncode})", stderr[-2000:])
check("panicked" not in stderr, "no panic", stderr[-2000:])
check(all(i in by_id for i in range(1, 17)), f"every well-formed request is answered ({sorted(by_id)})")
listed = {t["name"] for t in by_id[2]["result"]["tools"]}
# Every tool, the toolbox's included (a new tool changes this count on purpose).
check(len(listed) == 24 and {"browser_navigate", "browser_handle_dialog", "browser_fill_form",
                             "browser_wait_for", "browser_network_requests"} <= listed,
      "tools/list still answers after the garbage, every tool listed")
check(by_id[3]["error"]["code"] == -32601, "an unknown method is -32601")
check(by_id[4]["error"]["code"] == -32602 and "browser_fly" in by_id[4]["error"]["message"],
      "an unknown tool is -32602, named")
for i, arg in [(5, "ref"), (6, "timeout_ms"), (7, "wait"), (8, "y"), (9, "index"), (10, "function")]:
    r = by_id[i]["result"]
    text = r["content"][0]["text"]
    check(r["isError"] and arg in text, f"a bad `{arg}` is a tool result with isError naming it", text)
check("error" in by_id[11], "`arguments` that is not an object is refused")
for i, flag in [(13, "--allow-file-access"), (14, "--allow-internal-urls")]:
    r = by_id[i]["result"]
    text = r["content"][0]["text"]
    check(r["isError"] and flag in text and "root:" not in text,
          f"a navigation through a shut door is refused, naming {flag}", text)
for i, arg in [(15, "paths"), (16, "password")]:
    r = by_id[i]["result"]
    text = r["content"][0]["text"]
    check(r["isError"] and arg in text, f"a bad `{arg}` is a tool result with isError naming it", text)
check(by_id[12]["result"] == {}, "ping answers last")
bare = [a for a in answers if a.get("id") is None]
check(len(bare) == 3 and all(a["error"]["code"] == -32600 for a in bare),
      f"each JSON line that is not a JSON-RPC message gets -32600 ({len(bare)})")
print("all MCP hostile-line checks passed")
