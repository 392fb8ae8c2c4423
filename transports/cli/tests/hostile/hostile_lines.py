#!/usr/bin/env python3
"""Writes the sidecar's hostile stdin lines (one per line, some not UTF-8) to a file.

Every line must get exactly one final answer (`result` or `error`) and leave the sidecar
running; the check then asks one ordinary evaluate to prove the tab is usable.
"""
import json, sys

lines = []
def add(obj_or_bytes):
    if isinstance(obj_or_bytes, bytes):
        lines.append(obj_or_bytes)
    elif isinstance(obj_or_bytes, str):
        lines.append(obj_or_bytes.encode())
    else:
        lines.append(json.dumps(obj_or_bytes).encode())

numbers = [1e300, -1e300, -1, 0, 1.5, 2**64, -(2**63) - 1, "1000", None, True, [], {}]
for n in numbers:
    add({"id": 1, "cmd": "cdp", "method": "Runtime.evaluate", "params": {"expression": "1"}, "timeout_ms": n})
    add({"id": 2, "cmd": "evaluate", "expression": "1", "timeout_ms": n})
    add({"id": 3, "cmd": "dialog", "action": "accept", "dialog_id": n})
    add({"id": n, "cmd": "snapshot"})
    add({"id": 4, "cmd": "settle", "action": n})
    add({"id": 5, "cmd": "policy", "policy": n})
    add({"id": 6, "cmd": "cdp", "method": n, "params": n, "frame_id": n})
    add({"id": 7, "cmd": n})
    add({"id": 8, "cmd": "act", "action": "click", "x": n, "y": n})
    add({"id": 9, "cmd": "ax_snapshot", "timeout_ms": n, "max_nodes": n})
    # The tab commands: never a string where one is wanted, so none opens, selects or
    # closes a tab (the check's last evaluate needs the one tab).
    add({"id": 40, "cmd": "tab_select", "tab_id": n})
    add({"id": 41, "cmd": "tab_close", "tab_id": "NO-SUCH-TAB", "force": n})
    add({"id": 42, "cmd": "tab_new", "url": n})
    add({"id": 43, "cmd": "evaluate", "expression": "1", "tab_id": n})
    add({"id": 44, "cmd": "dialog", "action": "accept", "tab_id": n})
# raw numbers as text beyond f64 / i64
add(b'{"id": 10, "cmd": "cdp", "method": "Runtime.evaluate", "params": {}, "timeout_ms": 1e999}')
add(b'{"id": 11, "cmd": "snapshot", "extra": 123456789012345678901234567890}')
# wrong types
for bad in ["", "no json", "[]", "[1,2]", "null", "true", "42", '"str"', "{}", '{"id":{}}', '{"cmd":5}',
            '{"id":12,"cmd":"cdp"}', '{"id":13,"cmd":"cdp","method":"Nope.nothing"}',
            '{"id":14,"cmd":"dialog"}', '{"id":15,"cmd":"dialog","action":"maybe"}',
            '{"id":16,"cmd":"dialog","action":"accept","dialog_id":"d-999999"}',
            '{"id":17,"cmd":"cdp","method":"Runtime.evaluate","params":{"expression":"1"},"frame_id":"NO-SUCH-FRAME"}',
            '{"id":18,"cmd":"evaluate","expression":"1","frame_id":"NO-SUCH-FRAME"}',
            '{"id":19,"cmd":"evaluate","expression":"1","ref":"e999999"}',
            '{"id":20,"cmd":"act","action":"click","ref":"e999999"}',
            '{"id":21,"cmd":"act","action":"fly"}', '{"id":22,"cmd":"act"}',
            '{"id":23,"cmd":"recover","extra":[1,2,3]}',
            '{"id":24,"cmd":"snapshot"', '{"id":25,"cmd":"snapshot"}}', '{"id":26,"cmd":"snapshot",}',
            '\ufeff{"id":27,"cmd":"snapshot"}', '{"id":28,"cmd":"snapshot"} trailing',
            '{"id":"x","cmd":"snapshot","id":"y"}']:
    add(bad)
# deep nesting
add(b'{"id":29,"cmd":"cdp","method":"Runtime.evaluate","params":' + b'[' * 100000 + b']' * 100000 + b'}')
add(b'[' * 1000000)
add(b'{"a":' * 200000)
# invalid UTF-8
add(b'\xff\xfe\xfd')
add(b'{"id":30,"cmd":"snapshot","x":"\xc3\x28"}')
add(b'{"id":31,"cmd":"\xed\xa0\x80"}')
add(b'\x00\x00\x00')
# huge lines
add(b'{"id":32,"cmd":"cdp","method":"Runtime.evaluate","params":{"expression":"' + b'x' * (10 * 1024 * 1024) + b'"}}')
add(b'y' * (10 * 1024 * 1024))
# control characters and escapes
add('{"id":33,"cmd":"cdp","method":"Runtime.evaluate\\u0000","params":{"expression":"1"}}')
add('{"id":34,"cmd":"evaluate","expression":"\\ud800"}')

with open(sys.argv[1], "wb") as f:
    for l in lines:
        assert b"\n" not in l
        f.write(l + b"\n")
print(len(lines))
