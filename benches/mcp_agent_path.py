#!/usr/bin/env python3
"""The agent path, measured: `cdp-supervise mcp` against the MCP servers agents already use.

    python3 benches/mcp_agent_path.py [--binary target/release/cdp-supervise] [--rounds 10]
                                      [--npm-dir DIR | --no-peers] [--json OUT.json]
    python3 benches/mcp_agent_path.py --agents 8 [--binary ...] [--rounds 10] [--json OUT.json]

Drives each server with the official MCP SDK for Python (PyPI `mcp`) over stdio, on pages
this script serves on loopback, through one fixed sequence a round: navigate to the page,
snapshot, click a button that starts nothing, type into a text box, evaluate
`document.title` (as `() => document.title` where `function` is called), click a button whose handler calls `alert()`, answer that dialog.
Each call is timed from the request to its answer, as an agent's client sees it; the
medians per call are printed, with the time from starting the server to the end of its
first navigate (the handshake and the browser's launch included).

Servers, one session each, their rounds interleaved so that the machine's noise falls on
all alike:
- `ours`: `cdp-supervise mcp` with the default `wait` ("quiet");
- `ours-load`: the same with `wait: "load"` on navigate, click and type;
- `playwright`: `@playwright/mcp` (`--headless --isolated --no-sandbox`);
- `devtools`: `chrome-devtools-mcp` (`--headless --isolated --no-sandbox`, usage
  statistics and CrUX look-ups off).
The two peers run when they are installed under `--npm-dir` (default: a temporary folder
where this script runs `npm install @playwright/mcp@latest chrome-devtools-mcp@latest`);
without npm or the registry they are left out and said so. Every browser is `$CHROME`
(default /usr/bin/chromium), headless, on loopback pages only.

With `--agents N`: one `cdp-supervise mcp --port 0` (streamable HTTP, a browser context per
session) and one browser; the same sequence (`wait: "load"`) by 1 agent, then by N agents at
once, each its own session; the per-call medians of each and their ratio (N at once / 1), and
the memory per session: the proportional set size (PSS, shared pages split among the
processes that share them) of the server and of its browser's processes with N sessions
connected, each one round in, less the same with none, divided by N.

The ratios printed: `ours / playwright` and `ours-load / devtools`, per call and over the
whole sequence (the sum of the medians). Each server answers as it ships: Playwright MCP's
actions answer with a snapshot of the page, ours with a screenshot, chrome-devtools-mcp's
with a line of text; the table measures what an agent waits for, not equal work.
"""
import argparse
import asyncio
import http.server
import json
import os
import re
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

CALLS = ["navigate", "snapshot", "click", "type", "evaluate", "click_dialog", "handle_dialog"]

PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Agent path {round}</title></head>
<body><h1>Agent path</h1>
<button id=save onclick="document.getElementById('out').textContent = 'saved ' + (++window.n)">Save</button>
<label>Name <input id=name></label>
<button id=alert onclick="alert('Hello from the page')">Alert</button>
<p id=out></p><script>window.n = 0;</script></body></html>"""


def serve():
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            m = re.match(r"/page\?r=(\d+)", self.path)
            body = (PAGE.format(round=m.group(1)) if m else "not found").encode()
            self.send_response(200 if m else 404)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


class Flavor:
    """How one server names its tools, its arguments and its element refs."""

    def __init__(self, name, wait=None):
        self.name = name
        self.wait = wait

    def ref(self, snapshot, role, name):
        if self.name == "devtools":
            m = re.search(rf'uid=(\S+) {role} "{re.escape(name)}"', snapshot)
        else:
            m = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[ref=([^\]]+)\]', snapshot)
        if not m:
            raise SystemExit(f"{self.name}: no {role} {name!r} in the snapshot:\n{snapshot[:2000]}")
        return m.group(1)

    def calls(self, url):
        """(call name, tool, arguments or a function of the snapshot's text) in order."""
        w = {"wait": self.wait} if self.wait else {}
        if self.name == "devtools":
            return [
                ("navigate", "navigate_page", {"type": "url", "url": url}),
                ("snapshot", "take_snapshot", {}),
                ("click", "click", lambda s: {"uid": self.ref(s, "button", "Save")}),
                ("type", "fill", lambda s: {"uid": self.ref(s, "textbox", "Name"), "value": "hello"}),
                ("evaluate", "evaluate_script", {"function": "() => document.title"}),
                ("click_dialog", "click", lambda s: {"uid": self.ref(s, "button", "Alert")}),
                ("handle_dialog", "handle_dialog", {"action": "accept"}),
            ]
        target = "target" if self.name == "playwright" else "ref"
        return [
            ("navigate", "browser_navigate", {"url": url, **w}),
            ("snapshot", "browser_snapshot", {}),
            ("click", "browser_click",
             lambda s: {"element": "Save button", target: self.ref(s, "button", "Save"), **w}),
            ("type", "browser_type",
             lambda s: {"element": "Name box", target: self.ref(s, "textbox", "Name"), "text": "hello", **w}),
            # Playwright MCP's `function` is called; ours takes the expression itself.
            ("evaluate", "browser_evaluate", {"function": "() => document.title"}
             if self.name == "playwright" else {"expression": "document.title"}),
            ("click_dialog", "browser_click",
             lambda s: {"element": "Alert button", target: self.ref(s, "button", "Alert"), **w}),
            ("handle_dialog", "browser_handle_dialog", {"accept": True}),
        ]


class Run:
    """One server's session, its timings and the checks on its answers."""

    def __init__(self, flavor, command, args, cwd):
        self.flavor = flavor
        # A scratch working directory: Playwright MCP writes its output folder there.
        self.params = StdioServerParameters(command=command, args=args, env={**os.environ}, cwd=cwd) if cwd else None
        self.times = {c: [] for c in CALLS}
        self.started_at = None
        self.first_navigate = None

    async def round(self, client, base, n, record):
        snapshot = ""
        for name, tool, args in self.flavor.calls(f"{base}/page?r={n}"):
            if callable(args):
                args = args(snapshot)
            start = time.perf_counter()
            r = await client.call_tool(tool, args)
            took = time.perf_counter() - start
            text = text_of(r)
            if r.is_error:
                raise SystemExit(f"{self.flavor.name}: {tool} {args} failed:\n{text[:2000]}")
            if name == "snapshot":
                snapshot = text
            if name == "evaluate" and f"Agent path {n}" not in text:
                raise SystemExit(f"{self.flavor.name}: evaluate answered {text[:500]!r}")
            if name == "click_dialog" and "Hello from the page" not in text:
                raise SystemExit(f"{self.flavor.name}: the alert is not named:\n{text[:2000]}")
            if record:
                self.times[name].append(took)
            elif name == "navigate":
                self.first_navigate = time.perf_counter() - self.started_at


async def drive(runs, base, rounds):
    from contextlib import AsyncExitStack
    async with AsyncExitStack() as stack:
        clients = []
        for run in runs:
            run.started_at = time.perf_counter()
            client = await stack.enter_async_context(Client(run.params))
            # A warm-up round; its navigate pays whatever launch is left.
            await run.round(client, base, 0, record=False)
            clients.append(client)
            print(f"{run.flavor.name}: started", file=sys.stderr)
        for n in range(1, rounds + 1):
            for run, client in zip(runs, clients):
                await run.round(client, base, n, record=True)
        # Leaving closes each server's input: each closes its browser.


def peers(npm_dir):
    """The peers' entry points under `npm_dir`, installing them there when missing."""
    pw = os.path.join(npm_dir, "node_modules/@playwright/mcp/cli.js")
    cdt = os.path.join(npm_dir, "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js")
    if not (os.path.exists(pw) and os.path.exists(cdt)):
        if not shutil.which("npm"):
            print("peers left out: npm is not installed", file=sys.stderr)
            return None
        print(f"installing the peers into {npm_dir} ...", file=sys.stderr)
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", npm_dir,
                            "@playwright/mcp@latest", "chrome-devtools-mcp@latest"],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(f"peers left out: npm install failed:\n{r.stderr[-2000:]}", file=sys.stderr)
            return None
    version = lambda d: json.load(open(os.path.join(npm_dir, "node_modules", d, "package.json")))["version"]
    return {"playwright": (pw, version("@playwright/mcp")),
            "devtools": (cdt, version("chrome-devtools-mcp"))}


def descendants(pid):
    rows = [l.split() for l in subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True,
                                               text=True).stdout.splitlines()[1:]]
    found, frontier = set(), {str(pid)}
    while frontier:
        frontier = {p for p, pp in rows if pp in frontier} - found
        found |= frontier
    return found


def pss_mib(pids):
    """The processes' proportional set size, in MiB (0 for one that is gone)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                total += next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return total / 1024


def memory(server_pid):
    """(the server's PSS, its browser's PSS) in MiB."""
    return pss_mib([server_pid]), pss_mib(descendants(server_pid))


async def scale(binary, base, agents, rounds, json_path):
    """1 agent, then `agents` at once, on one HTTP server and one browser."""
    proc = subprocess.Popen([binary, "mcp", "--port", "0"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = None
    while url is None:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("the HTTP server did not start")
        m = re.search(r"MCP server on (http://\S+/mcp)", line)
        url = m.group(1).rstrip(";") if m else None
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    measured = {}

    async def one(barrier):
        run = Run(Flavor("ours-load", wait="load"), binary, [], None)
        run.started_at = time.perf_counter()
        async with Client(url) as client:
            await run.round(client, base, 0, record=False)
            if barrier is not None:
                await barrier.wait()
                if "with" not in measured:
                    measured["with"] = memory(proc.pid)
                await barrier.wait()
            for n in range(1, rounds + 1):
                await run.round(client, base, n, record=True)
        return run

    try:
        solo = await one(None)
        await asyncio.sleep(1.0)  # its context disposed of
        measured["none"] = memory(proc.pid)
        barrier = asyncio.Barrier(agents)
        crowd = await asyncio.gather(*(one(barrier) for _ in range(agents)))
    finally:
        proc.terminate()
        proc.wait(30)
    med1 = {c: statistics.median(solo.times[c]) * 1000 for c in CALLS}
    medn = {c: statistics.median([t for r in crowd for t in r.times[c]]) * 1000 for c in CALLS}
    print(f"medians of {rounds} rounds, wait: load; 1 agent, then {agents} at once on one server and one browser")
    print(f"| call | 1 agent ms | {agents} agents ms | ratio |")
    print("|---|---|---|---|")
    for c in CALLS + ["sequence"]:
        a = sum(med1.values()) if c == "sequence" else med1[c]
        b = sum(medn.values()) if c == "sequence" else medn[c]
        print(f"| {c} | {a:.0f} | {b:.0f} | {b / a:.2f} |")
    (s0, b0), (s1, b1) = measured["none"], measured["with"]
    per_server, per_browser = (s1 - s0) / agents, (b1 - b0) / agents
    print(f"memory (PSS): server {s0:.1f} MiB with no session, {s1:.1f} with {agents}; browser {b0:.0f} MiB, "
          f"{b1:.0f} with {agents}: per session {per_server:.2f} MiB in the server, {per_browser:.1f} MiB in the browser")
    out = {"rounds": rounds, "agents": agents, "median_ms_1": med1, f"median_ms_{agents}": medn,
           "pss_mib": {"server_none": s0, "server_with": s1, "browser_none": b0, "browser_with": b1,
                       "per_session_server": per_server, "per_session_browser": per_browser}}
    print(json.dumps(out))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(out, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="target/release/cdp-supervise")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--npm-dir", default=None)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--agents", type=int, default=None,
                    help="1 agent, then this many at once, over streamable HTTP")
    a = ap.parse_args()
    chrome = os.environ.get("CHROME", "/usr/bin/chromium")
    os.environ["CHROME"] = chrome
    binary = os.path.abspath(a.binary)
    if a.agents:
        asyncio.run(scale(binary, serve(), a.agents, a.rounds, a.json))
        return
    scratch = tempfile.mkdtemp(prefix="mcp-bench-")
    runs = [Run(Flavor("ours"), binary, ["mcp"], scratch),
            Run(Flavor("ours-load", wait="load"), binary, ["mcp"], scratch)]
    versions = {}
    tmp = None
    if not a.no_peers:
        npm_dir = os.path.abspath(a.npm_dir) if a.npm_dir else (tmp := tempfile.mkdtemp(prefix="mcp-peers-"))
        found = peers(npm_dir)
        if found:
            pw, versions["playwright"] = found["playwright"]
            cdt, versions["devtools"] = found["devtools"]
            runs.append(Run(Flavor("playwright"), "node", [
                pw, "--headless", "--isolated", "--no-sandbox", "--executable-path", chrome],
                scratch))
            runs.append(Run(Flavor("devtools"), "node", [
                cdt, "--headless", "--isolated", "--executablePath", chrome,
                "--chromeArg=--no-sandbox", "--no-usage-statistics", "--no-performance-crux",
                "--no-page-id-routing"], scratch))
    base = serve()
    try:
        asyncio.run(drive(runs, base, a.rounds))
    finally:
        for d in (tmp, scratch):
            if d:
                shutil.rmtree(d, ignore_errors=True)
    report(runs, a.rounds, versions, a.json)


def report(runs, rounds, versions, json_path):
    med = {r.flavor.name: {c: statistics.median(r.times[c]) * 1000 for c in CALLS} for r in runs}
    names = [r.flavor.name for r in runs]
    pairs = [("ours", "playwright"), ("ours-load", "devtools")]
    pairs = [(a, b) for a, b in pairs if a in med and b in med]
    head = ["call"] + [f"{n} ms" for n in names] + [f"{a}/{b}" for a, b in pairs]
    rows = []
    for c in CALLS + ["sequence"]:
        vals = {n: (sum(med[n].values()) if c == "sequence" else med[n][c]) for n in names}
        rows.append([c] + [f"{vals[n]:.0f}" for n in names]
                    + [f"{vals[a] / vals[b]:.2f}" for a, b in pairs])
    first = {r.flavor.name: r.first_navigate * 1000 for r in runs}
    rows.append(["start to first navigate"] + [f"{first[n]:.0f}" for n in names]
                + [f"{first[a] / first[b]:.2f}" for a, b in pairs])
    print(f"medians of {rounds} rounds; peers: "
          + (", ".join(f"{k} {v}" for k, v in versions.items()) or "none"))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    out = {"rounds": rounds, "versions": versions, "median_ms": med, "start_to_first_navigate_ms": first}
    print(json.dumps(out))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
