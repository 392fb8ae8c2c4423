"""Raw-CDP probe of the browser and every tab in it (SPEC section 16, facts 23-25d).

One browser-level WebSocket, flatten sessions, no supervisor: each scenario launches a
fresh headless Chromium, talks CDP by hand and records every message both ways in the
section 7 trace format (the exact text sent and received) to `tabs-<scenario>.jsonl`.
Pages are served by this script on 127.0.0.1 and, as another site, on localhost.

    python3 tabs_probe.py [OUT_DIR] [SCENARIO ...]

OUT_DIR defaults to ../e2e (beside this folder); with no scenario named, all run. Needs
`pip install websocket-client` and /usr/bin/chromium (or $CHROMIUM). What each scenario
found is printed as `<scenario>: <finding>` lines on stdout. Recorded with this script:
../e2e/tabs-*.jsonl.
"""
import http.server, socketserver, threading, subprocess, sys, json, time, os, shutil, tempfile
import urllib.parse
import websocket  # websocket-client

CHROMIUM = os.environ.get('CHROMIUM', '/usr/bin/chromium')
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--site-per-process', '--remote-debugging-port=0']

# ---------------------------------------------------------------- pages

def page(path, q):
    """The body served for `path`; `q` is the parsed query string."""
    arg = lambda k, d='': q.get(k, [d])[0]
    box = 'position:fixed;left:10px;width:300px;height:40px;'
    if path == '/plain':
        return f"<title>plain {arg('n')}</title><p>plain page {arg('n')}</p>"
    if path == '/alert':
        return f"<title>alerter</title><script>alert({json.dumps(arg('m', 'first'))})</script><p>after the alert"
    if path == '/opener':
        # Three click targets at known places: a target=_blank link, a window.open button,
        # a button opening two windows in one gesture.
        a, b = arg('a', '/plain?n=blank'), arg('b', '/alert')
        c1, c2 = arg('c1', '/plain?n=c1'), arg('c2', '/plain?n=c2')
        return (f"<title>opener</title><body style='margin:0'>"
                f"<a id=a href='{a}' target=_blank style='{box}top:10px;display:block;background:#ccc'>blank link</a>"
                f"<button id=b style='{box}top:60px' onclick='window.w = window.open({json.dumps(b)})'>window.open</button>"
                f"<button id=c style='{box}top:110px' onclick='window.w1 = window.open({json.dumps(c1)}); window.w2 = window.open({json.dumps(c2)})'>two opens</button>"
                f"</body>")
    if path == '/withframe':
        # A cross-site iframe (an OOPIF) and a dedicated worker.
        return (f"<title>with frame</title><iframe src='{arg('src')}'></iframe>"
                "<script>window.wk = new Worker('/worker.js')</script>")
    if path == '/worker.js':
        return "setInterval(() => {}, 1000)"
    if path == '/beforeunload':
        return ("<title>leave?</title><body style='margin:0;height:100vh'>"
                "<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; })</script>"
                "<div style='position:fixed;left:0;top:0;width:300px;height:300px'>click me</div></body>")
    return None


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        body = page(u.path, urllib.parse.parse_qs(u.query))
        if body is None:
            self.send_response(404); self.send_header('content-length', '0'); self.end_headers(); return
        b = body.encode()
        ctype = 'application/javascript' if u.path.endswith('.js') else 'text/html'
        self.send_response(200); self.send_header('content-type', ctype)
        self.send_header('content-length', str(len(b))); self.end_headers(); self.wfile.write(b)


PORTS = []
for _ in range(2):
    s = socketserver.ThreadingTCPServer(('127.0.0.1', 0), H); s.daemon_threads = True
    PORTS.append(s.server_address[1])
    threading.Thread(target=s.serve_forever, daemon=True).start()
SAME = f'http://127.0.0.1:{PORTS[0]}'    # the opener's site
OTHER = f'http://localhost:{PORTS[1]}'   # another site

# ---------------------------------------------------------------- the CDP client

class Cdp:
    """A fresh Chromium and one browser-level WebSocket, every message recorded."""

    def __init__(self, trace):
        self.t0 = time.monotonic()
        self.dir = tempfile.mkdtemp(prefix='tabs-probe-')
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f'--user-data-dir={self.dir}', 'about:blank'],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.dir, 'DevToolsActivePort')
        for _ in range(300):
            if os.path.exists(port_file):
                lines = open(port_file).read().split('\n')
                if len(lines) >= 2 and lines[1]:
                    break
            time.sleep(0.05)
        else:
            raise RuntimeError('no DevToolsActivePort')
        time.sleep(0.3)  # let the first tab settle so every run starts alike
        self.f = open(trace, 'w')
        self.lock = threading.Lock()
        self.cv = threading.Condition(self.lock)
        self.msgs = []        # (t, parsed) of every incoming message
        self.replies = {}     # id -> (t, parsed)
        self.next_id = 0
        self.ws = websocket.create_connection(f'ws://127.0.0.1:{lines[0]}{lines[1]}',
                                              suppress_origin=True, max_size=None)
        self._rec(self.now(), 'connect', None)
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def now(self):
        return time.monotonic() - self.t0

    def _rec(self, t, d, raw):
        line = f'{{"t":{t:.9f},"dir":"{d}"' + (f',"msg":{raw}' if raw is not None else '') + '}\n'
        self.f.write(line)

    def _read(self):
        while True:
            try:
                raw = self.ws.recv()
            except Exception:
                break
            if not raw:
                break
            with self.cv:
                t = self.now()
                self._rec(t, 'in', raw)
                m = json.loads(raw)
                self.msgs.append((t, m))
                if 'id' in m:
                    self.replies[m['id']] = (t, m)
                self.cv.notify_all()
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def send(self, method, params=None, session=None):
        """Sends a command; returns (id, time sent)."""
        with self.cv:
            self.next_id += 1
            m = {'id': self.next_id, 'method': method, 'params': params or {}}
            if session:
                m['sessionId'] = session
            raw = json.dumps(m, separators=(',', ':'))
            t = self.now()
            self._rec(t, 'out', raw)
            self.ws.send(raw)
            return self.next_id, t

    def reply(self, i, timeout=5.0):
        """The reply to command `i` as (time, message), or None at the deadline."""
        end = time.monotonic() + timeout
        with self.cv:
            while i not in self.replies:
                left = end - time.monotonic()
                if left <= 0 or self.closed:
                    return None
                self.cv.wait(left)
            return self.replies[i]

    def call(self, method, params=None, session=None, timeout=5.0):
        i, _ = self.send(method, params, session)
        r = self.reply(i, timeout)
        return r[1] if r else None

    def mark(self):
        with self.lock:
            return len(self.msgs)

    def wait(self, method, since=0, timeout=5.0, session=None, pred=lambda p: True):
        """The first event `method` (on `session` if given, '' for browser level) received
        after index `since` that satisfies `pred(params)`: (index, time, message) or None."""
        end = time.monotonic() + timeout
        with self.cv:
            k = since
            while True:
                while k < len(self.msgs):
                    t, m = self.msgs[k]
                    if m.get('method') == method and (session is None or m.get('sessionId', '') == session) \
                            and pred(m.get('params', {})):
                        return k, t, m
                    k += 1
                left = end - time.monotonic()
                if left <= 0 or self.closed:
                    return None
                self.cv.wait(left)

    def events(self, since=0, until=None):
        with self.lock:
            return [m for _, m in self.msgs[since:until] if 'method' in m]

    def settle(self, secs):
        time.sleep(secs)

    def close(self):
        try:
            self.send('Browser.close')
            time.sleep(0.5)
        except Exception:
            pass
        try:
            self.ws.close()
        except Exception:
            pass
        with self.lock:
            self._rec(self.now(), 'disconnect', None)
            self.f.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill(); self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- helpers

OUT = {}


def say(scn, text):
    print(f'{scn}: {text}', flush=True)
    OUT.setdefault(scn, []).append(text)


def first_page(c):
    r = c.call('Target.getTargets')
    pages = [t for t in r['result']['targetInfos'] if t['type'] == 'page']
    return r['result']['targetInfos'], pages[0]['targetId']


def setup(c, sid, resume=True):
    """Fact 1-2: pipelined set-up of a page session, `runIfWaitingForDebugger` last.
    Returns the command ids."""
    ids = [c.send('Page.enable', session=sid)[0],
           c.send('Runtime.enable', session=sid)[0],
           c.send('Target.setAutoAttach', {'autoAttach': True, 'waitForDebuggerOnStart': True, 'flatten': True}, session=sid)[0],
           c.send('Page.getFrameTree', session=sid)[0]]
    if resume:
        ids.append(c.send('Runtime.runIfWaitingForDebugger', session=sid)[0])
    return ids


def browser_auto_attach(c):
    return c.call('Target.setAutoAttach', {'autoAttach': True, 'waitForDebuggerOnStart': True, 'flatten': True})


def navigate(c, sid, url):
    k = c.mark()
    c.call('Page.navigate', {'url': url}, session=sid)
    return c.wait('Page.loadEventFired', k, 10, session=sid)


def click(c, sid, x, y):
    """A user gesture: press and release, pipelined (no wait for replies)."""
    a = c.send('Input.dispatchMouseEvent', {'type': 'mousePressed', 'x': x, 'y': y, 'button': 'left', 'clickCount': 1}, session=sid)
    b = c.send('Input.dispatchMouseEvent', {'type': 'mouseReleased', 'x': x, 'y': y, 'button': 'left', 'clickCount': 1}, session=sid)
    return a[0], b[0]


def new_page_attach(c, since, timeout=5.0):
    """The next browser-level attach of a page."""
    return c.wait('Target.attachedToTarget', since, timeout, session='',
                  pred=lambda p: p['targetInfo']['type'] == 'page')


def brief(m):
    """A short view of an event for the findings."""
    p = m.get('params', {})
    s = m.get('sessionId', '')
    extra = ''
    if m['method'] == 'Target.attachedToTarget':
        ti = p['targetInfo']
        extra = f" type={ti['type']} target={ti['targetId'][:8]} url={ti['url']!r} waiting={p['waitingForDebugger']} opener={ti.get('openerId', '-')[:8]}"
    elif m['method'] in ('Target.detachedFromTarget',):
        extra = f" session={p.get('sessionId', '')[:8]} target={p.get('targetId', '')[:8]}"
    elif m['method'].startswith('Target.target'):
        ti = p.get('targetInfo', p)
        extra = f" target={ti.get('targetId', '')[:8]} type={ti.get('type')} title={ti.get('title')!r} url={ti.get('url')!r}"
    elif m['method'] == 'Page.javascriptDialogOpening':
        extra = f" type={p['type']} message={p['message']!r}"
    return f"{m['method']}{extra}{' @' + s[:8] if s else ' @browser'}"


def ago(t, t0):
    return f'{(t - t0) * 1000:.0f} ms'


def open_opener(c, scn, **links):
    """Browser-level auto-attach, the first page set up and navigated to /opener.
    Returns the page's session id."""
    k = c.mark()
    browser_auto_attach(c)
    _, _, m = new_page_attach(c, k)
    sid = m['params']['sessionId']
    setup(c, sid)
    q = urllib.parse.urlencode(links)
    navigate(c, sid, f'{SAME}/opener?{q}')
    return sid


# ---------------------------------------------------------------- scenarios

def scn_a1(c, scn='a1'):
    """Browser-level auto-attach: what attaches at once, paused or not; do the page's
    OOPIFs and workers arrive at browser level?"""
    infos, page = first_page(c)
    say(scn, 'getTargets types: ' + ', '.join(f"{t['type']}:{t['url']}" for t in infos))
    k = c.mark()
    r = browser_auto_attach(c)
    say(scn, f'browser-level setAutoAttach replied {json.dumps(r)}')
    c.settle(0.5)
    for m in c.events(k):
        say(scn, 'at once: ' + brief(m))
    att = [m for m in c.events(k) if m['method'] == 'Target.attachedToTarget']
    sid = [m['params']['sessionId'] for m in att if m['params']['targetInfo']['targetId'] == page][0]
    # Page session without its own auto-attach: navigate to a page with an OOPIF and a worker.
    c.call('Page.enable', session=sid)
    c.call('Runtime.enable', session=sid)
    k = c.mark()
    navigate(c, sid, f'{SAME}/withframe?src={urllib.parse.quote(OTHER + "/plain?n=frame")}')
    c.settle(1.0)
    for m in c.events(k):
        if m['method'].startswith('Target.'):
            say(scn, 'without page-level auto-attach, after navigating to an OOPIF+worker page: ' + brief(m))
    if not [m for m in c.events(k) if m['method'].startswith('Target.')]:
        say(scn, 'without page-level auto-attach: no Target event at all for the OOPIF or the worker')
    # Now the page-level auto-attach (fact 1): where do they arrive?
    k = c.mark()
    c.call('Target.setAutoAttach', {'autoAttach': True, 'waitForDebuggerOnStart': True, 'flatten': True}, session=sid)
    c.settle(0.5)
    for m in c.events(k):
        if m['method'].startswith('Target.'):
            say(scn, 'after page-level setAutoAttach: ' + brief(m))
            if m['method'] == 'Target.attachedToTarget' and m['params']['waitingForDebugger']:
                c.send('Runtime.runIfWaitingForDebugger', session=m['params']['sessionId'])
    c.settle(0.3)


def scn_a2(c, scn='a2'):
    """The page attached and set up first, then the browser-level auto-attach: a second
    session for the same page?"""
    _, page = first_page(c)
    k = c.mark()
    c.call('Target.attachToTarget', {'targetId': page, 'flatten': True})
    _, _, m = c.wait('Target.attachedToTarget', k)
    sid = m['params']['sessionId']
    say(scn, f'attachToTarget: ' + brief(m))
    for i in setup(c, sid):
        c.reply(i)
    navigate(c, sid, f'{SAME}/withframe?src={urllib.parse.quote(OTHER + "/plain?n=frame")}')
    c.settle(0.8)
    for m in c.events(k):
        if m['method'] == 'Target.attachedToTarget' and m.get('sessionId') == sid and m['params']['waitingForDebugger']:
            c.send('Runtime.runIfWaitingForDebugger', session=m['params']['sessionId'])
    c.settle(0.3)
    k = c.mark()
    r = browser_auto_attach(c)
    say(scn, f'browser-level setAutoAttach replied {json.dumps(r)}')
    c.settle(0.8)
    for m in c.events(k):
        say(scn, 'after browser-level setAutoAttach: ' + brief(m))
    again = [m for m in c.events(k) if m['method'] == 'Target.attachedToTarget'
             and m['params']['targetInfo']['targetId'] == page]
    say(scn, f'the already attached page attached again: {bool(again)}'
        + (f" with a new session {again[0]['params']['sessionId'] != sid}" if again else ''))
    if again:
        sid2 = again[0]['params']['sessionId']
        # Do both sessions get the page's events? A Runtime.evaluate on each.
        r1 = c.call('Runtime.evaluate', {'expression': '1+1'}, session=sid)
        r2 = c.call('Runtime.evaluate', {'expression': '2+2'}, session=sid2)
        say(scn, f'evaluate on the first session {json.dumps(r1.get("result"))}, on the second {json.dumps(r2.get("result"))}')
        # An alert: reported on which sessions?
        k = c.mark()
        c.call('Page.enable', session=sid2)
        i, _ = c.send('Runtime.evaluate', {'expression': "alert('both?')"}, session=sid)
        c.settle(0.5)
        for m in c.events(k):
            if m['method'].startswith('Page.javascriptDialog'):
                say(scn, 'alert with both sessions Page.enabled: ' + brief(m))
        r = c.call('Page.handleJavaScriptDialog', {'accept': True}, session=sid)
        c.reply(i)
        c.settle(0.3)
        for m in c.events(k):
            if m['method'] == 'Page.javascriptDialogClosed':
                say(scn, 'closed: ' + brief(m))
        # Detaching the second session leaves the first working?
        c.call('Target.detachFromTarget', {'sessionId': sid2})
        r1 = c.call('Runtime.evaluate', {'expression': '3+3'}, session=sid)
        say(scn, f'after detaching the second session, the first evaluates: {json.dumps(r1.get("result"))}')


def scn_a3(c, scn='a3'):
    """Target.setDiscoverTargets: targetCreated / targetInfoChanged / targetDestroyed."""
    _, page = first_page(c)
    k = c.mark()
    c.call('Target.setDiscoverTargets', {'discover': True})
    c.settle(0.3)
    for m in c.events(k):
        say(scn, 'on setDiscoverTargets: ' + brief(m))
    k = c.mark()
    r = c.call('Target.createTarget', {'url': f'{SAME}/plain?n=created'})
    tid = r['result']['targetId']
    c.settle(1.0)
    for m in c.events(k):
        say(scn, 'createTarget, load: ' + brief(m))
    # A title change by script: does targetInfoChanged carry it?
    k = c.mark()
    ks = c.mark()
    c.call('Target.attachToTarget', {'targetId': tid, 'flatten': True})
    _, _, m = c.wait('Target.attachedToTarget', ks)
    sid = m['params']['sessionId']
    c.settle(0.5)
    for m in c.events(k):
        say(scn, 'attach: ' + brief(m))
    k = c.mark()
    c.call('Runtime.evaluate', {'expression': "document.title = 'renamed by script'"}, session=sid)
    c.settle(1.5)
    for m in c.events(k):
        say(scn, 'document.title set by script: ' + brief(m))
    if not [m for m in c.events(k) if m['method'].startswith('Target.')]:
        say(scn, 'document.title set by script: no Target event in 1.5 s')
    r = c.call('Target.getTargetInfo', {'targetId': tid})
    say(scn, 'getTargetInfo: ' + json.dumps(r['result']['targetInfo']))
    k = c.mark()
    navigate(c, sid, f'{OTHER}/plain?n=cross')
    c.settle(1.5)
    for m in c.events(k):
        if m['method'].startswith('Target.'):
            say(scn, 'cross-site navigation: ' + brief(m))
    k = c.mark()
    c.call('Target.closeTarget', {'targetId': tid})
    c.settle(0.5)
    for m in c.events(k):
        say(scn, 'closeTarget: ' + brief(m))


def scn_b(c, scn='b'):
    """Popups under browser-level auto-attach: target=_blank, window.open with an alert
    as its first script, Target.createTarget."""
    sid = open_opener(c, scn, a=f'{SAME}/plain?n=blank', b=f'{SAME}/alert?m=first')
    c.settle(0.3)
    # target=_blank
    k = c.mark()
    t0 = c.now()
    click(c, sid, 100, 30)
    hit = new_page_attach(c, k)
    m = hit[2]
    say(scn, f'target=_blank after {ago(hit[1], t0)}: ' + json.dumps(m))
    psid = m['params']['sessionId']
    ids = setup(c, psid)
    for i in ids:
        r = c.reply(i)
        if r and 'error' in r[1]:
            say(scn, f'_blank set-up error {json.dumps(r[1])}')
    c.wait('Page.loadEventFired', k, 5, session=psid)
    c.settle(0.3)
    for m in c.events(k):
        if m['method'].startswith('Target.') or m['method'].startswith('Page.frameNavigated'):
            say(scn, '_blank: ' + brief(m))
    ti = c.call('Target.getTargetInfo', {'targetId': hit[2]['params']['targetInfo']['targetId']})
    say(scn, '_blank getTargetInfo after load: ' + json.dumps(ti['result']['targetInfo']))
    # window.open to an alert page
    k = c.mark()
    t0 = c.now()
    click(c, sid, 100, 80)
    hit = new_page_attach(c, k)
    m = hit[2]
    say(scn, f'window.open after {ago(hit[1], t0)}: ' + json.dumps(m))
    psid = m['params']['sessionId']
    ids = setup(c, psid)
    d = c.wait('Page.javascriptDialogOpening', k, 5)
    if d:
        say(scn, f"dialog {ago(d[1], t0)} after the click: " + json.dumps(d[2]))
    for i in ids:
        r = c.reply(i, 1)
        say(scn, f'set-up reply {i}: ' + (json.dumps(r[1])[:200] if r else 'none yet'))
    r = c.call('Page.handleJavaScriptDialog', {'accept': True}, session=psid)
    say(scn, 'answer: ' + json.dumps(r))
    c.wait('Page.loadEventFired', k, 5, session=psid)
    for m in c.events(k):
        if m['method'].startswith('Target.') or m['method'].startswith('Page.javascriptDialog'):
            say(scn, 'window.open: ' + brief(m))
    # Target.createTarget
    k = c.mark()
    r = c.call('Target.createTarget', {'url': f'{SAME}/plain?n=created'})
    hit = new_page_attach(c, k)
    say(scn, 'createTarget: ' + json.dumps(hit[2]))
    for i in setup(c, hit[2]['params']['sessionId']):
        c.reply(i)
    c.settle(0.5)


def stall(c, scn, label, opener_sid, release, wait=3.0):
    """Sends an evaluate on the opener, waits up to `wait` s for its reply, then calls
    `release()` and reports when the reply came."""
    i, ts = c.send('Runtime.evaluate', {'expression': '1+1', 'returnByValue': True}, session=opener_sid)
    r = c.reply(i, wait)
    if r:
        say(scn, f'{label}: the opener evaluate replied after {ago(r[0], ts)} (not stalled)')
        release()
        return
    tr = c.now()
    release()
    r = c.reply(i, 10)
    if r:
        say(scn, f'{label}: the opener evaluate got no reply for {wait:.0f} s; it replied {ago(r[0], tr)} after the release')
    else:
        say(scn, f'{label}: the opener evaluate never replied')


def popup(c, sid, scn, x, y, set_up=True):
    """Clicks at (x, y) and returns the popup's attachedToTarget params (set up and
    resumed when `set_up`)."""
    k = c.mark()
    click(c, sid, x, y)
    hit = new_page_attach(c, k)
    p = hit[2]['params']
    say(scn, 'popup ' + brief(hit[2]) + f" canAccessOpener={p['targetInfo']['canAccessOpener']}")
    if set_up:
        setup(c, p['sessionId'])
    return p, k


def scn_c(c, scn='c'):
    """Shared renderers: does a popup's alert, or a popup left paused, stall its opener?"""
    sid = open_opener(c, scn, a=f'{SAME}/alert?m=noopener', b=f'{SAME}/alert?m=same-site')
    # 1. same-site window.open popup with its alert pending
    p, k = popup(c, sid, scn, 100, 80)
    d = c.wait('Page.javascriptDialogOpening', k, 5, session=p['sessionId'])
    say(scn, 'same-site popup dialog: ' + brief(d[2]))
    stall(c, scn, 'same-site popup alert pending', sid,
          lambda: c.send('Page.handleJavaScriptDialog', {'accept': True}, session=p['sessionId']))
    c.settle(0.3)
    # ... and the other way: the opener's alert pending, an evaluate in the same-site popup
    k = c.mark()
    c.send('Runtime.evaluate', {'expression': "alert('opener')"}, session=sid)
    c.wait('Page.javascriptDialogOpening', k, 5, session=sid)
    popup_sid = p['sessionId']
    i, ts = c.send('Runtime.evaluate', {'expression': '1+1', 'returnByValue': True}, session=popup_sid)
    r = c.reply(i, 3)
    if r:
        say(scn, f'opener alert pending: the same-site popup evaluate replied after {ago(r[0], ts)} (not stalled)')
        c.send('Page.handleJavaScriptDialog', {'accept': True}, session=sid)
    else:
        tr = c.now()
        c.send('Page.handleJavaScriptDialog', {'accept': True}, session=sid)
        r = c.reply(i, 5)
        say(scn, 'opener alert pending: the same-site popup evaluate got no reply for 3 s; '
            + (f'it replied {ago(r[0], tr)} after the answer' if r else 'never replied'))
    c.settle(0.3)
    # 2. same-site target=_blank (noopener) with its alert pending
    p, k = popup(c, sid, scn, 100, 30)
    d = c.wait('Page.javascriptDialogOpening', k, 5, session=p['sessionId'])
    say(scn, 'same-site _blank (noopener) dialog: ' + brief(d[2]))
    stall(c, scn, 'same-site _blank (noopener) alert pending', sid,
          lambda: c.send('Page.handleJavaScriptDialog', {'accept': True}, session=p['sessionId']))
    c.settle(0.3)
    # 3. cross-site popup with its alert pending
    navigate(c, sid, f'{SAME}/opener?' + urllib.parse.urlencode({'b': f'{OTHER}/alert?m=cross-site', 'a': f'{SAME}/plain?n=paused'}))
    p, k = popup(c, sid, scn, 100, 80)
    d = c.wait('Page.javascriptDialogOpening', k, 5, session=p['sessionId'])
    say(scn, 'cross-site popup dialog: ' + brief(d[2]))
    stall(c, scn, 'cross-site popup alert pending', sid,
          lambda: c.send('Page.handleJavaScriptDialog', {'accept': True}, session=p['sessionId']))
    c.settle(0.3)
    # 4. same-site popup left paused (target=_blank here is /plain, same-site)
    navigate(c, sid, f'{SAME}/opener?' + urllib.parse.urlencode({'b': f'{SAME}/plain?n=paused', 'a': f'{SAME}/plain?n=blank-paused'}))
    p, k = popup(c, sid, scn, 100, 80, set_up=False)
    stall(c, scn, 'same-site window.open popup left paused', sid,
          lambda: setup(c, p['sessionId']))
    c.settle(0.3)
    # 5. same-site target=_blank (noopener) left paused
    p, k = popup(c, sid, scn, 100, 30, set_up=False)
    stall(c, scn, 'same-site _blank (noopener) left paused', sid,
          lambda: setup(c, p['sessionId']))
    c.settle(0.3)
    # 6-9. Popups left paused: does the call that opened one (the click's mouseReleased, an
    # evaluate calling window.open) reply before the popup is resumed? Does another
    # evaluate on the opener?
    paused_opener_call(c, scn, sid, 'link', f'{SAME}/plain?n=link-same')
    paused_opener_call(c, scn, sid, 'click', f'{SAME}/plain?n=click-same')
    paused_opener_call(c, scn, sid, 'click', f'{OTHER}/plain?n=click-cross')
    paused_opener_call(c, scn, sid, 'evaluate', f'{SAME}/plain?n=eval-same')
    paused_opener_call(c, scn, sid, 'evaluate', f'{OTHER}/plain?n=eval-cross')


def paused_opener_call(c, scn, sid, how, url, wait=3.0):
    what = 'target=_blank link (noopener)' if how == 'link' else how
    label = f'{"same" if url.startswith(SAME) else "cross"}-site popup opened by {what}, left paused'
    if how in ('click', 'link'):
        navigate(c, sid, f'{SAME}/opener?' + urllib.parse.urlencode({'b': url, 'a': url}))
    k = c.mark()
    if how in ('click', 'link'):
        _, opening = click(c, sid, 100, 80 if how == 'click' else 30)
    else:
        opening, _ = c.send('Runtime.evaluate', {'expression': f'window.w = window.open({json.dumps(url)}), 1', 'userGesture': True}, session=sid)
    hit = new_page_attach(c, k)
    p = hit[2]['params']
    i, ts = c.send('Runtime.evaluate', {'expression': '1+1', 'returnByValue': True}, session=sid)
    r = c.reply(i, wait)
    say(scn, f'{label}: another opener evaluate ' + (f'replied after {ago(r[0], ts)}' if r else f'got no reply in {wait:.0f} s'))
    r = c.reply(opening, max(0.0, wait - (c.now() - ts)))
    say(scn, f'{label}: the opening call ({how}) ' + (f'replied {ago(r[0], hit[1])} after the attach, before the resume' if r else f'got no reply in {wait:.0f} s'))
    tr = c.now()
    setup(c, p['sessionId'])
    if not r:
        r = c.reply(opening, 5)
        say(scn, f'{label}: the opening call ({how}) ' + (f'replied {ago(r[0], tr)} after the resume' if r else 'never replied'))
    c.settle(0.3)
    c.call('Target.closeTarget', {'targetId': p['targetInfo']['targetId']})
    c.settle(0.2)


def scn_d(c, scn='d'):
    """Closing a tab three ways; commands in flight on the closing tab."""
    c.call('Target.setDiscoverTargets', {'discover': True})
    sid = open_opener(c, scn, b=f'{SAME}/beforeunload', a=f'{SAME}/plain?n=x')
    never = {'expression': 'new Promise(() => {})', 'awaitPromise': True}
    # 1. window.close() from the popup (a script-opened window may close itself)
    p, k = popup(c, sid, scn, 100, 80)
    ps = p['sessionId']
    c.wait('Page.loadEventFired', k, 5, session=ps)
    k = c.mark()
    inflight, _ = c.send('Runtime.evaluate', never, session=ps)
    closing, _ = c.send('Runtime.evaluate', {'expression': 'window.close()'}, session=ps)
    c.wait('Target.targetDestroyed', k, 5)
    after, _ = c.send('Runtime.evaluate', {'expression': '1'}, session=ps)
    c.settle(0.8)
    for m in c.events(k):
        say(scn, 'window.close(): ' + brief(m))
    for lab, i in (('in-flight awaitPromise', inflight), ('window.close() evaluate', closing), ('evaluate after close', after)):
        r = c.reply(i, 0.1)
        say(scn, f'window.close(): {lab} reply: ' + (json.dumps(r[1]) if r else 'none'))
    # 2. Target.closeTarget with beforeunload armed (after a gesture in the popup)
    p, k = popup(c, sid, scn, 100, 80)
    ps = p['sessionId']
    c.wait('Page.loadEventFired', k, 5, session=ps)
    for i in click(c, ps, 50, 50):
        c.reply(i)
    k = c.mark()
    inflight, _ = c.send('Runtime.evaluate', never, session=ps)
    r = c.call('Target.closeTarget', {'targetId': p['targetInfo']['targetId']})
    say(scn, 'closeTarget replied: ' + json.dumps(r))
    d = c.wait('Page.javascriptDialogOpening', k, 1.5)
    if d:
        say(scn, 'closeTarget raised ' + brief(d[2]) + '; accepting')
        c.send('Page.handleJavaScriptDialog', {'accept': True}, session=ps)
    c.wait('Target.targetDestroyed', k, 5)
    c.settle(0.8)
    for m in c.events(k):
        say(scn, 'closeTarget: ' + brief(m))
    r = c.reply(inflight, 0.1)
    say(scn, 'closeTarget: in-flight awaitPromise reply: ' + (json.dumps(r[1]) if r else 'none'))
    # 3. Page.close with beforeunload armed: first stay (dismiss), then leave (accept)
    p, k = popup(c, sid, scn, 100, 80)
    ps = p['sessionId']
    c.wait('Page.loadEventFired', k, 5, session=ps)
    for i in click(c, ps, 50, 50):
        c.reply(i)
    k = c.mark()
    inflight, _ = c.send('Runtime.evaluate', never, session=ps)
    close1, _ = c.send('Page.close', session=ps)
    d = c.wait('Page.javascriptDialogOpening', k, 3)
    say(scn, 'Page.close #1: ' + (json.dumps(d[2]) if d else 'no dialog'))
    r = c.reply(close1, 0.5)
    say(scn, 'Page.close #1 reply before the answer: ' + (json.dumps(r[1]) if r else 'none'))
    if d:
        r = c.call('Page.handleJavaScriptDialog', {'accept': False}, session=ps)
        say(scn, 'dismissed (stay): ' + json.dumps(r))
    c.settle(0.5)
    r = c.call('Runtime.evaluate', {'expression': 'location.href'}, session=ps, timeout=2)
    say(scn, 'after staying, the popup evaluates: ' + (json.dumps(r) if r else 'no reply'))
    for i in click(c, ps, 50, 50):
        c.reply(i)
    k2 = c.mark()
    close2, _ = c.send('Page.close', session=ps)
    d = c.wait('Page.javascriptDialogOpening', k2, 3)
    say(scn, 'Page.close #2: ' + (brief(d[2]) if d else 'no dialog'))
    if d:
        r = c.call('Page.handleJavaScriptDialog', {'accept': True}, session=ps)
        say(scn, 'accepted (leave): ' + json.dumps(r))
    c.wait('Target.targetDestroyed', k, 5)
    c.settle(0.8)
    for m in c.events(k):
        say(scn, 'Page.close: ' + brief(m))
    for lab, i in (('in-flight awaitPromise', inflight), ('Page.close #1', close1), ('Page.close #2', close2)):
        r = c.reply(i, 0.1)
        say(scn, f'Page.close: {lab} reply: ' + (json.dumps(r[1]) if r else 'none'))
    # 4. Page.close without beforeunload
    navigate(c, sid, f'{SAME}/opener?' + urllib.parse.urlencode({'b': f'{SAME}/plain?n=plain'}))
    p, k = popup(c, sid, scn, 100, 80)
    ps = p['sessionId']
    c.wait('Page.loadEventFired', k, 5, session=ps)
    k = c.mark()
    inflight, _ = c.send('Runtime.evaluate', never, session=ps)
    close1, _ = c.send('Page.close', session=ps)
    c.wait('Target.targetDestroyed', k, 5)
    c.settle(0.8)
    for m in c.events(k):
        say(scn, 'Page.close (no beforeunload): ' + brief(m))
    for lab, i in (('in-flight awaitPromise', inflight), ('Page.close', close1)):
        r = c.reply(i, 0.1)
        say(scn, f'Page.close (no beforeunload): {lab} reply: ' + (json.dumps(r[1]) if r else 'none'))
    r = c.call('Runtime.evaluate', {'expression': '1'}, session=ps, timeout=1)
    say(scn, 'a command on the closed session: ' + (json.dumps(r) if r else 'none'))


def crash(c, scn, label, ps, others):
    """Page.crash on session `ps`; reports what each session in `others` (name -> sid)
    sees, whether later commands reply, and what a Page.reload does."""
    k = c.mark()
    i_crash, t0 = c.send('Page.crash', session=ps)
    d = c.wait('Inspector.targetCrashed', k, 5, session=ps)
    say(scn, f'{label}: Inspector.targetCrashed ' + (f'after {ago(d[1], t0)}' if d else 'never'))
    c.settle(0.8)
    for m in c.events(k):
        say(scn, f'{label}: after Page.crash: ' + brief(m))
    i_eval, _ = c.send('Runtime.evaluate', {'expression': '1+1'}, session=ps)
    r = c.reply(i_eval, 1.5)
    say(scn, f'{label}: evaluate after the crash: ' + (json.dumps(r[1]) if r else 'no reply in 1.5 s'))
    for name, osid in others.items():
        r = c.call('Runtime.evaluate', {'expression': '1+1'}, session=osid, timeout=1.5)
        say(scn, f'{label}: evaluate on {name} after the crash: ' + (json.dumps(r.get('result', r)) if r else 'no reply in 1.5 s'))
    k = c.mark()
    i_reload, tr = c.send('Page.reload', session=ps)
    r = c.reply(i_reload, 5)
    say(scn, f'{label}: Page.reload reply: ' + (f'{json.dumps(r[1])} after {ago(r[0], tr)}' if r else 'none in 5 s'))
    c.wait('Page.loadEventFired', k, 5, session=ps)
    c.settle(0.5)
    for m in c.events(k):
        if not m['method'].startswith('Network.'):
            say(scn, f'{label}: after Page.reload: ' + brief(m))
    r = c.call('Runtime.evaluate', {'expression': 'location.href'}, session=ps, timeout=2)
    say(scn, f'{label}: evaluate after the reload: ' + (json.dumps(r) if r else 'no reply'))
    for lab, i in (('Page.crash', i_crash), ('evaluate sent after the crash', i_eval)):
        r = c.reply(i, 0.1)
        say(scn, f'{label}: {lab} reply at the end: ' + (json.dumps(r[1]) if r else 'none'))


def scn_e(c, scn='e'):
    """Page.crash on a popup's session (cross-site, then same-site), and on an OOPIF's."""
    c.call('Target.setDiscoverTargets', {'discover': True})
    sid = open_opener(c, scn, b=f'{OTHER}/plain?n=cross-popup', a=f'{SAME}/plain?n=same-popup')
    p, k = popup(c, sid, scn, 100, 80)
    c.wait('Page.loadEventFired', k, 5, session=p['sessionId'])
    crash(c, scn, 'cross-site popup', p['sessionId'], {'the opener': sid})
    c.call('Target.closeTarget', {'targetId': p['targetInfo']['targetId']})
    # same-site popup: window.open to the same origin (shares the opener's renderer)
    navigate(c, sid, f'{SAME}/opener?' + urllib.parse.urlencode({'b': f'{SAME}/plain?n=same-popup'}))
    p, k = popup(c, sid, scn, 100, 80)
    c.wait('Page.loadEventFired', k, 5, session=p['sessionId'])
    crash(c, scn, 'same-site popup', p['sessionId'], {'the opener': sid})
    k = c.mark()
    r = c.call('Page.reload', session=sid)
    c.wait('Page.loadEventFired', k, 5, session=sid)
    say(scn, 'same-site popup: the opener Page.reload: ' + json.dumps(r))
    for m in c.events(k):
        if m['method'].startswith('Inspector.') or m['method'].startswith('Target.'):
            say(scn, 'same-site popup: the opener reload: ' + brief(m))
    r = c.call('Runtime.evaluate', {'expression': 'location.href'}, session=sid, timeout=2)
    say(scn, 'same-site popup: the opener evaluates after its reload: ' + (json.dumps(r) if r else 'no reply'))
    c.call('Target.closeTarget', {'targetId': p['targetInfo']['targetId']})
    c.settle(0.3)
    # an OOPIF
    k = c.mark()
    navigate(c, sid, f'{SAME}/withframe?src={urllib.parse.quote(OTHER + "/plain?n=frame")}')
    hit = c.wait('Target.attachedToTarget', k, 5, session=sid, pred=lambda p: p['targetInfo']['type'] == 'iframe')
    fsid = hit[2]['params']['sessionId']
    say(scn, 'OOPIF ' + brief(hit[2]))
    setup(c, fsid)
    c.wait('Page.loadEventFired', hit[0], 5, session=sid)
    c.settle(1.0)
    k = c.mark()
    i_crash, t0 = c.send('Page.crash', session=fsid)
    c.settle(1.5)
    for m in c.events(k):
        say(scn, 'OOPIF Page.crash: ' + brief(m))
    r = c.reply(i_crash, 0.1)
    say(scn, 'OOPIF Page.crash reply: ' + (json.dumps(r[1]) if r else 'none'))
    r = c.call('Runtime.evaluate', {'expression': '1+1'}, session=fsid, timeout=1.5)
    say(scn, 'OOPIF evaluate after the crash: ' + (json.dumps(r) if r else 'no reply in 1.5 s'))
    r = c.call('Runtime.evaluate', {'expression': 'document.title'}, session=sid, timeout=1.5)
    say(scn, 'page evaluate after the OOPIF crash: ' + (json.dumps(r.get('result', r)) if r else 'no reply in 1.5 s'))
    r = c.call('Page.getFrameTree', session=sid, timeout=1.5)
    say(scn, 'page frame tree after the OOPIF crash: ' + (json.dumps(r.get('result', r)) if r else 'no reply'))
    # Reviving the frame: navigate it again from the parent.
    k = c.mark()
    r = c.call('Runtime.evaluate', {'expression': "document.querySelector('iframe').src = document.querySelector('iframe').src + '&again', 1"}, session=sid)
    hit = c.wait('Target.attachedToTarget', k, 5, session=sid)
    if hit:
        setup(c, hit[2]['params']['sessionId'])
    c.settle(1.0)
    for m in c.events(k):
        if not m['method'].startswith('Network.'):
            say(scn, 'OOPIF crashed, its iframe re-navigated by the parent: ' + brief(m))
    for lab, i in (('Page.crash', i_crash),):
        r = c.reply(i, 0.1)
        say(scn, f'OOPIF {lab} reply at the end: ' + (json.dumps(r[1]) if r else 'none'))


def scn_f(c, scn='f'):
    """Two window.open calls in one gesture; window.open from Runtime.evaluate."""
    sid = open_opener(c, scn, c1=f'{SAME}/plain?n=one', c2=f'{SAME}/plain?n=two')
    k = c.mark()
    click(c, sid, 100, 130)
    c.settle(1.5)
    pages = [m for m in c.events(k) if m['method'] == 'Target.attachedToTarget']
    for m in pages:
        say(scn, 'two opens, one gesture: ' + brief(m))
        setup(c, m['params']['sessionId'])
    r = c.call('Runtime.evaluate', {'expression': '[window.w1 !== null, window.w2 !== null]', 'returnByValue': True}, session=sid)
    say(scn, f'two opens: window.open results non-null: {json.dumps(r["result"]["result"]["value"])}; pages attached: {len(pages)}')
    for label, expr, gesture in (
            ('window.open from Runtime.evaluate userGesture=false', "window.open('/plain?n=eval-false') !== null", False),
            ('window.open from Runtime.evaluate userGesture=true', "window.open('/plain?n=eval-true') !== null", True),
            ('two window.open in one Runtime.evaluate userGesture=true', "[window.open('/plain?n=e1') !== null, window.open('/plain?n=e2') !== null]", True)):
        k = c.mark()
        i, _ = c.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True, 'userGesture': gesture}, session=sid)
        # Each popup is set up and resumed as it attaches: the evaluate that opened it
        # replies only once it is resumed.
        end = time.monotonic() + 1.5
        seen = k
        pages = []
        while time.monotonic() < end:
            hit = new_page_attach(c, seen, max(0.0, end - time.monotonic()))
            if not hit:
                break
            seen = hit[0] + 1
            pages.append(hit[2])
            setup(c, hit[2]['params']['sessionId'])
        r = c.reply(i, 3)
        say(scn, f'{label}: returned ' + (json.dumps(r[1]['result']['result']['value']) if r else 'no reply') + f', pages attached: {len(pages)}')
        wo = [m for m in c.events(k) if m['method'] == 'Page.windowOpen']
        for m in wo:
            say(scn, f'{label}: Page.windowOpen on the opener: ' + json.dumps(m['params']))
    c.settle(0.3)


SCENARIOS = {
    'a1-browser-auto-attach': scn_a1,
    'a2-attached-then-browser-auto-attach': scn_a2,
    'a3-discover-targets': scn_a3,
    'b-popups-attach-paused': scn_b,
    'c-shared-renderer-stalls': scn_c,
    'd-closing': scn_d,
    'e-crash': scn_e,
    'f-two-opens-one-gesture': scn_f,
}

if __name__ == '__main__':
    args = sys.argv[1:]
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e')
    if args and os.path.isdir(args[0]):
        out_dir, args = args[0], args[1:]
    chosen = [n for n in SCENARIOS if not args or any(n.startswith(a) for a in args)]
    for name in chosen:
        c = Cdp(os.path.join(out_dir, f'tabs-{name}.jsonl'))
        try:
            SCENARIOS[name](c, name.split('-')[0])
        except Exception as e:
            import traceback; traceback.print_exc()
            say(name, f'probe error: {e!r}')
        finally:
            c.close()
