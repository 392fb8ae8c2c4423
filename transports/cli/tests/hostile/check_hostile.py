#!/usr/bin/env python3
"""The hostile-lines check: the sidecar answers every hostile stdin line and stays usable.

    check_hostile.py SIDECAR_BINARY

Writes the lines of hostile_lines.py to `SIDECAR watch` (a launched headless Chromium on a
data: page), then an ordinary evaluate that must answer 2, then `stop`. Requires one final
answer (`result` or `error`) per line, no panic, exit 0, and prints the counts.
"""
import json, os, subprocess, sys, tempfile, threading

here = os.path.dirname(os.path.abspath(__file__))
binary = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "hostile.txt")
    subprocess.run([sys.executable, os.path.join(here, "hostile_lines.py"), path], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path, "rb") as f:
        hostile = f.read().split(b"\n")[:-1]
    final = b'{"id":"final","cmd":"cdp","method":"Runtime.evaluate","params":{"expression":"1+1","returnByValue":true}}'
    proc = subprocess.Popen([binary, "watch", "--url", "data:text/html,<title>hostile</title>"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers, final_value, stopped = 0, None, False
    done = threading.Event()

    def writer():
        for line in hostile:
            proc.stdin.write(line + b"\n")
        proc.stdin.write(final + b"\n")
        proc.stdin.flush()
        done.wait(120)
        try:
            proc.stdin.write(b'{"id":"stop","cmd":"stop"}\n')
            proc.stdin.close()
        except BrokenPipeError:
            pass

    err_lines = []
    threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True).start()
    threading.Thread(target=writer, daemon=True).start()
    for raw in proc.stdout:
        msg = json.loads(raw)
        if msg.get("type") not in ("result", "error"):
            continue
        if msg.get("id") == "stop":
            stopped = True
            continue
        answers += 1
        if msg.get("type") == "error":
            assert msg.get("code"), f"an error without a code: {msg}"
        if msg.get("id") == "final":
            final_value = msg.get("result", {}).get("result", {}).get("value")
            done.set()
    code = proc.wait(60)
    panicked = any(b"panicked" in l for l in err_lines)
    print(f"hostile lines: {len(hostile)} tried, {answers - 1 if final_value is not None else answers} answered; "
          f"evaluate after them: {final_value}; exit {code}")
    ok = (answers == len(hostile) + 1 and final_value == 2 and code == 0 and stopped and not panicked)
    if not ok:
        sys.stderr.write(b"".join(err_lines[-30:]).decode(errors="replace"))
        sys.exit(1)
