#!/usr/bin/env python3
"""`cdp-supervise mcp` driven by the official MCP client SDK for Python (PyPI `mcp`).

    python3 transports/cli/tests/mcp/test_mcp.py path/to/cdp-supervise [--transport stdio|http]

Against a real headless Chromium the server launches: list the tools; navigate to a local
page with a cross-site iframe; a snapshot shows the iframe's button with a ref; click it by
ref and get an image back; an `alert` raised from inside the iframe is named in the next
result; answer it with browser_handle_dialog; a `while(true){}` evaluate with a 1 s budget
returns an error in time and the next call works; `function` is called (an arrow, an async
function, with an element ref) and a stuck one ends in its budget; a snapshot with an
alert pending in the nested OOPIF answers at once, naming the dialog; browser_tabs lists,
opens, selects and closes tabs, and a click that opens a tab says so; browser_close leaves
no browser running.
Then an unreachable --cdp endpoint: an error naming --fallback-local, and with it a local
browser and the warning in the first result, the URL's secret redacted in both. Then when
the browser starts: with the server (before any tool call), or with `--lazy` at the first
call. Then, with a display (CI: `xvfb-run -a`), `--headed`: a browser with a window,
supervised the same way.
With `--transport http` the same agent checks run over streamable HTTP (`mcp --port 0`), the
session in a browser context of its own (browser_close then closes that context), and the
server's SIGTERM closes the browser.
Exits non-zero on the first failed check.
"""
import asyncio
import http.server
import os
import re
import socketserver
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

ARGS = [a for a in sys.argv[1:] if not a.startswith("--transport")]
BINARY = os.path.abspath(ARGS[0] if ARGS else "target/debug/cdp-supervise")
TRANSPORT = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--transport=")), None) or (
    sys.argv[sys.argv.index("--transport") + 1] if "--transport" in sys.argv else "stdio")


def serve():
    """Two sites on loopback: the top page on 127.0.0.1, its iframe on localhost (an OOPIF),
    which nests one back on 127.0.0.1 (an OOPIF in the top's renderer)."""
    ports = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("/top"):
                body = (f'<title>MCP top</title><h1>Shop</h1>'
                        f'<iframe id="f" src="http://localhost:{ports["port"]}/frame" width="400" height="200"></iframe>')
            elif self.path.startswith("/opener"):
                body = ('<title>Opener</title><a href="/popup" target="_blank">Open the popup</a>'
                        '<button onclick="window.count = (window.count||0) + 1">Count</button>')
            elif self.path.startswith("/popup"):
                body = '<title>Popup</title><h1>In the popup</h1>'
            elif self.path.startswith("/frame"):
                body = ('<title>frame</title><button id="b" onclick="window.clicked = (window.clicked||0) + 1; '
                        'console.log(\'clicked in frame\')">Buy now</button>'
                        '<button id="a" onclick="setTimeout(() => alert(\'Hello from the frame\'), 50)">Alert me</button>'
                        f'<iframe id="n" src="http://127.0.0.1:{ports["port"]}/nested" width="300" height="80"></iframe>')
            elif self.path.startswith("/upload"):
                body = ('<title>upload</title><input type=file id=f style="position:absolute;left:0;top:0;'
                        'width:300px;height:80px" onchange="document.title = this.files[0].name + \' \' + '
                        'this.files[0].size">')
            elif self.path.startswith("/download"):
                body = ('<title>download</title><a href="/file.bin" download style="position:absolute;left:0;'
                        'top:0;width:300px;height:80px;display:block">Get the file</a>')
            elif self.path.startswith("/file.bin"):
                data = b"x" * 20000
                self.send_response(200)
                self.send_header("content-type", "application/octet-stream")
                self.send_header("content-disposition", 'attachment; filename="file.bin"')
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            elif self.path.startswith("/nested"):
                body = ('<title>nested</title><button onclick="setTimeout(() => alert(\'Hello from the nested frame\'), 50)">'
                        'Deep alert</button>')
            else:
                body = "nothing here"
            data = body.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports["port"] = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return ports["port"]


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def check(cond, what, result=None):
    if not cond:
        detail = text_of(result) if result is not None else ""
        raise SystemExit(f"FAILED: {what}\n{detail}")
    print(f"ok - {what}")


def chromium_pids(profile_hint):
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return {l.split()[0] for l in out.splitlines() if "chromium" in l and profile_hint in l}


def browsers_gone(before):
    """Whether, within 5 s, no browser runs that this run started (others may run tests of
    their own meanwhile: only those not in `before` count)."""
    for _ in range(50):
        if not (chromium_pids("cdp-supervise-profile") - before):
            return True
        time.sleep(0.1)
    return False


def start_http_server(*flags):
    """`cdp-supervise mcp --port 0 FLAGS`: the process, its MCP URL, and what it said on stderr
    (a list the reader thread keeps appending to)."""
    proc = subprocess.Popen([BINARY, "mcp", "--port", "0", *flags], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = []
    url = None
    while url is None:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit(f"FAILED: the HTTP server did not start: {''.join(said)}")
        said.append(line)
        m = re.search(r"MCP server on (http://\S+/mcp)", line)
        url = m.group(1).rstrip(";") if m else None

    def drain():
        for line in proc.stderr:
            said.append(line)
    threading.Thread(target=drain, daemon=True).start()
    return proc, url, said


def stop_server(proc):
    proc.terminate()
    proc.wait(30)


async def main(transport="stdio"):
    before = chromium_pids("cdp-supervise-profile")
    port = serve()
    top = f"http://127.0.0.1:{port}/top"
    files = tempfile.mkdtemp(prefix="mcp-test-files-")
    upload_root = os.path.join(files, "uploads")
    downloads = os.path.join(files, "downloads")
    os.makedirs(upload_root)
    flags = ["--upload-root", upload_root, "--downloads", downloads]
    if transport == "http":
        server, url, _ = start_http_server(*flags)
        target = url
    else:
        server = None
        target = StdioServerParameters(command=BINARY, args=["mcp", *flags], env={**os.environ})
    try:
        await agent_checks(target, port, top, before, own_context=transport == "http",
                           upload_root=upload_root)
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(files, ignore_errors=True)
    check(browsers_gone(before), "no browser left running")


async def agent_checks(target, port, top, before, own_context, upload_root):
    async with Client(target) as client:
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        expected = {"browser_navigate", "browser_snapshot", "browser_click", "browser_type",
                    "browser_press_key", "browser_scroll", "browser_take_screenshot",
                    "browser_evaluate", "browser_handle_dialog", "browser_console_messages",
                    "browser_close", "browser_tabs"}
        check(expected <= names, f"the tools are listed ({len(names)})")
        for t in tools.tools:
            props = (t.input_schema or {}).get("properties", {})
            check(all("description" in p for p in props.values()), f"{t.name}: every argument is described")

        r = await client.call_tool("browser_navigate", {"url": top})
        check(not r.is_error and "MCP top" in text_of(r), "navigate to a page with a cross-site iframe", r)

        r = await client.call_tool("browser_snapshot", {})
        snap = text_of(r)
        m = re.search(r'button "Buy now" \[ref=(e\d+)\]', snap)
        check(not r.is_error and m is not None, "the snapshot shows the iframe's button with a ref", r)
        check(re.search(r"- iframe .*:", snap) is not None, "the button sits under its iframe", r)
        ref = m.group(1)

        r = await client.call_tool("browser_click", {"element": "Buy now", "ref": ref})
        images = [c for c in r.content if getattr(c, "type", "") == "image"]
        check(not r.is_error and images and images[0].data, "click by ref answers with an image", r)
        check("clicked in frame" in text_of(r), "the click's console line comes back", r)

        alert_ref = re.search(r'button "Alert me" \[ref=(e\d+)\]', snap).group(1)
        r = await client.call_tool("browser_click", {"ref": alert_ref})
        r = await client.call_tool("browser_snapshot", {}) if "Hello from the frame" not in text_of(r) else r
        check("Hello from the frame" in text_of(r), "an alert from inside the iframe is named in the next result", r)
        m = re.search(r"(d-\d+) alert", text_of(r))
        r = await client.call_tool("browser_handle_dialog", {"accept": True, "dialog_id": m.group(1)})
        check(not r.is_error and "accepted" in text_of(r), "browser_handle_dialog answers it", r)
        check("Pending dialogs: none" in text_of(r), "and no dialog is pending after", r)

        started = time.monotonic()
        r = await client.call_tool("browser_evaluate", {"expression": "while(true){}", "timeout_ms": 1000})
        took = time.monotonic() - started
        check(r.is_error and took < 3.0, f"a while(true) evaluate with a 1 s budget errs in time ({took:.2f} s)", r)
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        check(not r.is_error and "MCP top" in text_of(r), "the next call works", r)

        r = await client.call_tool("browser_evaluate", {"function": "() => 6*7"})
        check(not r.is_error and text_of(r).startswith("42"), "`function` is called: () => 6*7 answers 42", r)
        r = await client.call_tool("browser_evaluate", {"function": "async () => { await new Promise(r => setTimeout(r, 10)); return document.title; }"})
        check(not r.is_error and text_of(r).startswith('"MCP top"'), "an async function's promise is awaited", r)
        r = await client.call_tool("browser_evaluate", {"function": "(element) => element.tagName", "ref": ref})
        check(not r.is_error and text_of(r).startswith('"BUTTON"'), "with a ref, the function is called with the element", r)
        r = await client.call_tool("browser_evaluate", {"expression": "() => 6*7"})
        check(not r.is_error and text_of(r).startswith("42"), "an expression whose value is a function calls it", r)
        started = time.monotonic()
        r = await client.call_tool("browser_evaluate", {"function": "() => { while (true) {} }", "timeout_ms": 1000})
        took = time.monotonic() - started
        check(r.is_error and "ran past its 1000 ms budget" in text_of(r), "a stuck function is terminated at its budget", r)
        check(took < 1.5, f"within its budget + 0.5 s ({took:.2f} s)", r)
        started = time.monotonic()
        r = await client.call_tool("browser_evaluate", {"function": "() => 6*7"})
        took = time.monotonic() - started
        check(not r.is_error and text_of(r).startswith("42") and took < 0.5,
              f"and the next call answers 42 at once ({took:.2f} s)", r)

        r = await client.call_tool("browser_snapshot", {})
        m = re.search(r'button "Deep alert" \[ref=(e\d+)\]', text_of(r))
        check(not r.is_error and m is not None, "the nested OOPIF's button has a ref", r)
        r = await client.call_tool("browser_click", {"ref": m.group(1)})
        dialog = re.search(r"(d-\d+) alert", text_of(r))
        if dialog is None:
            r = await client.call_tool("browser_console_messages", {})
            dialog = re.search(r"(d-\d+) alert", text_of(r))
        check(dialog is not None and "Hello from the nested frame" in text_of(r), "an alert in the nested OOPIF is named", r)
        started = time.monotonic()
        r = await client.call_tool("browser_snapshot", {})
        took = time.monotonic() - started
        check(r.is_error and dialog.group(1) in text_of(r) and "blocks the renderer" in text_of(r),
              "a snapshot with the nested OOPIF's alert pending is blocked by that dialog, named", r)
        check(took < 0.1, f"and answers at once ({took * 1000:.0f} ms)", r)
        r = await client.call_tool("browser_handle_dialog", {"accept": True, "dialog_id": dialog.group(1)})
        check(not r.is_error, "the nested OOPIF's alert is answered", r)
        r = await client.call_tool("browser_snapshot", {})
        check(not r.is_error and "Deep alert" in text_of(r) and "Buy now" in text_of(r), "then every frame is outlined again", r)

        r = await client.call_tool("browser_click", {})
        check(r.is_error and "ref" in text_of(r), "a missing argument is an error naming it", r)

        await tabs(client, port)
        await doors_and_modal_states(client, port, upload_root, own_context)

        r = await client.call_tool("browser_close", {})
        check(not r.is_error and "Closed" in text_of(r), "browser_close answers", r)
        if own_context:
            r = await client.call_tool("browser_tabs", {"action": "list"})
            check(not r.is_error and "- 1:" not in text_of(r),
                  "browser_close closed this session's context: a fresh one has one tab", r)
        else:
            # Still connected: the browser itself is gone after browser_close, not only at exit.
            check(browsers_gone(before), "browser_close closes the launched browser while the session goes on")


async def doors_and_modal_states(client, port, upload_root, own_context):
    """Doors an agent may not open by default, named with the flag that opens them; a file
    chooser answered with browser_file_upload (only under --upload-root); a download named
    by the click that started it (over HTTP in the session's own browser context, which
    gets the server's download folder too)."""
    r = await client.call_tool("browser_navigate", {"url": "file:///etc/passwd"})
    check(r.is_error and "--allow-file-access" in text_of(r) and "root:" not in text_of(r),
          "file:///etc/passwd is refused, naming --allow-file-access", r)
    r = await client.call_tool("browser_navigate", {"url": "javascript:alert(1)"})
    check(r.is_error and "--allow-internal-urls" in text_of(r),
          "javascript: is refused, naming --allow-internal-urls", r)

    r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/upload"})
    check(not r.is_error, "navigate to a page with a file input", r)
    r = await client.call_tool("browser_click", {"x": 60, "y": 40})
    check("file_chooser" in text_of(r) and "browser_file_upload" in text_of(r),
          "a click on a file input names a pending file chooser", r)
    r = await client.call_tool("browser_file_upload", {"paths": ["/etc/hostname"]})
    check(r.is_error and "--upload-root" in text_of(r),
          "a file outside the upload root is refused, naming --upload-root", r)
    path = os.path.join(upload_root, "hello.txt")
    with open(path, "w") as f:
        f.write("hello")
    r = await client.call_tool("browser_file_upload", {"paths": [path]})
    check(not r.is_error and "Pending dialogs: none" in text_of(r), "browser_file_upload answers the chooser", r)
    for _ in range(50):
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        if "hello.txt 5" in text_of(r):
            break
        await asyncio.sleep(0.1)
    check("hello.txt 5" in text_of(r), "the page's change handler sees the file's name and size", r)

    r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/download"})
    check(not r.is_error, "navigate to a page with a download link", r)
    r = await client.call_tool("browser_click", {"x": 60, "y": 40})
    check(not r.is_error and "Download file.bin" in text_of(r) and "completed, 20000 of" in text_of(r)
          and "saved as" in text_of(r), "the click names the download it started, with its path", r)


async def tabs(client, port):
    """browser_tabs list / new / select / close by index, as Playwright MCP has them; a click
    that opens a tab says so, and every result ends with the tabs that opened or closed and
    the current tab."""
    r = await client.call_tool("browser_navigate", {"url": f"http://127.0.0.1:{port}/opener"})
    check(not r.is_error and "Current tab: 0: [Opener]" in text_of(r), "every result names the current tab", r)
    check("### Tabs" not in text_of(r), "and no tabs section when no tab opened or closed", r)
    r = await client.call_tool("browser_snapshot", {})
    link = re.search(r'link "Open the popup" \[ref=(e\d+)\]', text_of(r))
    check(link is not None, "the link has a ref", r)
    r = await client.call_tool("browser_click", {"ref": link.group(1)})
    text = text_of(r)
    check(not r.is_error and "opened a new tab: 1: [" in text and "Tab 1: " in text,
          "a click that opens a tab names it in its result", r)
    check("### Tabs\n- opened 1: " in text and ", opened by tab 0" in text, "the tabs section says it opened", r)
    check("Current tab: 1: " in text, "and that it is the current tab now", r)

    r = await client.call_tool("browser_tabs", {"action": "list"})
    text = text_of(r)
    check(not r.is_error and "### Open tabs\n- 0: [Opener]" in text and "- 1: (current) [" in text,
          "browser_tabs list shows both tabs, the popup current", r)
    r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
    check(not r.is_error and "Popup" in text_of(r), "the next tool acts on the popup", r)

    r = await client.call_tool("browser_tabs", {"action": "select", "index": 0})
    text = text_of(r)
    check(not r.is_error and "- 0: (current) [Opener]" in text and "Current tab: 0: [Opener]" in text,
          "browser_tabs select makes tab 0 current", r)
    r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
    check(not r.is_error and "Opener" in text_of(r), "and the next tool acts on it", r)

    r = await client.call_tool("browser_tabs", {"action": "new", "url": f"http://127.0.0.1:{port}/popup?new"})
    text = text_of(r)
    check(not r.is_error and "Opened a new tab" in text and "- 2: (current) [" in text,
          "browser_tabs new opens a third tab, current", r)
    check("- opened 2: " in text, "named as opened in the tabs section", r)

    r = await client.call_tool("browser_tabs", {"action": "close"})
    text = text_of(r)
    check(not r.is_error and "Closed tab 2: " in text and "- closed: " in text,
          "browser_tabs close without index closes the current tab", r)
    check("Current tab: 0: [Opener]" in text, "and the tab current before it is current again", r)
    r = await client.call_tool("browser_tabs", {"action": "close", "index": 1})
    text = text_of(r)
    listed = text.split("### Open tabs")[1].split("Pending dialogs")[0]
    check(not r.is_error and "Closed tab 1: [" in text and "/popup)." in text and "- 1:" not in listed,
          "browser_tabs close with an index closes that tab", r)
    r = await client.call_tool("browser_tabs", {"action": "select", "index": 5})
    check(r.is_error and "No tab 5" in text_of(r), "a tab index out of range is an error", r)
    r = await client.call_tool("browser_tabs", {"action": "fly"})
    check(r.is_error and "action" in text_of(r), "an unknown action is an error naming it", r)


def closed_port():
    """A loopback port nothing listens on."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def unreachable_endpoint():
    """--cdp to a dead endpoint: an error naming the way out; with --fallback-local, a local
    browser and the warning in the first result. The URL's secret never shows."""
    dead = f"ws://127.0.0.1:{closed_port()}/devtools/browser/x?apiKey=SECRET123"
    before = chromium_pids("cdp-supervise-profile")
    params = StdioServerParameters(command=BINARY, args=["mcp", "--cdp", dead], env={**os.environ})
    async with Client(params) as client:
        r = await client.call_tool("browser_navigate", {"url": "data:text/html,<title>x</title>"})
        check(r.is_error and "--fallback-local" in text_of(r), "an unreachable --cdp is an error naming --fallback-local", r)
        check("SECRET123" not in text_of(r), "the endpoint's secret is redacted in the error", r)
    args = ["mcp", "--cdp", dead, "--fallback-local"]
    params = StdioServerParameters(command=BINARY, args=args, env={**os.environ})
    async with Client(params) as client:
        r = await client.call_tool("browser_navigate", {"url": "data:text/html,<title>Fallback</title>"})
        text = text_of(r)
        check(not r.is_error and "Fallback" in text, "--fallback-local supervises a local browser", r)
        check("Warning:" in text and "local headless Chromium instead" in text,
              "the first result carries the fallback warning", r)
        check("SECRET123" not in text, "the endpoint's secret is redacted in the warning", r)
        check(bool(chromium_pids("cdp-supervise-profile") - before), "a local browser runs")
        r = await client.call_tool("browser_evaluate", {"expression": "document.title"})
        check(not r.is_error and "Warning:" not in text_of(r), "the warning is said once", r)
    check(browsers_gone(before), "the fallback browser is closed at end of input")


def server_browsers():
    """The browsers (main processes) whose parent is a cdp-supervise this script started."""
    rows = [l.split(None, 2) for l in
            subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout.splitlines()[1:]]
    servers = {pid for pid, ppid, args in rows if ppid == str(os.getpid()) and BINARY in args}
    return {pid for pid, ppid, args in rows if ppid in servers and "chromium" in args}


def wait_until(cond, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


async def eager_and_lazy():
    """The browser starts with the server, so the first call does not pay the launch; with
    --lazy, at the first call. Either way it is closed at end of input."""
    before = chromium_pids("cdp-supervise-profile")
    params = StdioServerParameters(command=BINARY, args=["mcp"], env={**os.environ})
    async with Client(params) as client:
        await client.list_tools()
        check(wait_until(lambda: bool(server_browsers()), 15), "the browser starts with the server, before any tool call")
        r = await client.call_tool("browser_navigate", {"url": "data:text/html,<title>Eager</title>", "wait": "load"})
        check(not r.is_error and "Eager" in text_of(r), "and the first call uses it", r)
        check(len(server_browsers()) == 1, "one browser, not a second one at the first call")
    check(browsers_gone(before), "the early browser is closed at end of input")
    params = StdioServerParameters(command=BINARY, args=["mcp", "--lazy"], env={**os.environ})
    async with Client(params) as client:
        await client.list_tools()
        check(not wait_until(lambda: bool(server_browsers()), 1.5), "--lazy: no browser before the first call")
        r = await client.call_tool("browser_navigate", {"url": "data:text/html,<title>Lazy</title>"})
        check(not r.is_error and "Lazy" in text_of(r), "--lazy: the first call launches it", r)
        check(len(server_browsers()) == 1, "--lazy: one browser runs")
    check(browsers_gone(before), "the lazy browser is closed at end of input")
    # End of input while the early start is still under way: it is waited for and closed.
    params = StdioServerParameters(command=BINARY, args=["mcp"], env={**os.environ})
    async with Client(params) as client:
        await client.list_tools()
    check(browsers_gone(before), "a browser still starting at end of input is closed too")
    # SIGTERM (what a client sends a server that does not exit at once) closes it too,
    # also while it is still starting.
    for wait in (0.4, 3.0):
        server = subprocess.Popen([BINARY, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        server.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
                           '"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')
        server.stdin.flush()
        server.stdout.readline()
        time.sleep(wait)
        server.terminate()
        server.wait(30)
        check(browsers_gone(before), f"SIGTERM {wait} s after the handshake closes the browser")


async def headed():
    """--headed under a display (CI runs this file under xvfb-run): a browser with a window,
    not headless, supervised like the headless one and closed at end of input."""
    if not os.environ.get("DISPLAY"):
        check(not os.environ.get("CI"), "a display for the --headed check (CI runs this under xvfb-run)")
        print("skip - --headed: no DISPLAY")
        return
    before = chromium_pids("cdp-supervise-profile")
    params = StdioServerParameters(command=BINARY, args=["mcp", "--headed"], env={**os.environ})
    async with Client(params) as client:
        page = "data:text/html,<title>Headed</title><button>Go</button>"
        r = await client.call_tool("browser_navigate", {"url": page})
        check(not r.is_error and "Headed" in text_of(r), "--headed launches a browser with a window", r)
        r = await client.call_tool("browser_evaluate", {"expression": "navigator.userAgent"})
        agent = text_of(r)
        check(not r.is_error and "Chrome/" in agent and "Headless" not in agent, "and it is not headless", r)
        r = await client.call_tool("browser_snapshot", {})
        check(re.search(r'button "Go" \[ref=e\d+\]', text_of(r)) is not None, "its snapshot has refs", r)
    check(browsers_gone(before), "the headed browser is closed at end of input")


if __name__ == "__main__":
    if TRANSPORT == "http":
        asyncio.run(main("http"))
        print("all MCP checks passed over streamable HTTP")
    else:
        asyncio.run(main())
        asyncio.run(unreachable_endpoint())
        asyncio.run(eager_and_lazy())
        asyncio.run(headed())
        print("all MCP checks passed")
