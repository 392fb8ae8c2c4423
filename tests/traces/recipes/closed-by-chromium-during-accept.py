"""Records a dialog that Chromium closes by itself while an accept is in flight.

A `confirm` loop in the top frame on 127.0.0.1 while a cross-site iframe (localhost) and
its same-site children reload every few milliseconds: a commit that passed Chromium's
dialog commit-deferral just before the dialog showed cancels it (`result: false`) after
the accept was sent; the accept's reply is "No dialog is showing".

    python3 closed-by-chromium-during-accept.py OUT.jsonl [auto_accept|must_respond] [CLI]

With must_respond the script answers each dialog on stdin (an agent's accept). It stops
at the first dialog closed with `accepted: false` while the supervisor attributed it to
an answer (the behaviour before the fix); after the fix, stop it by hand or by timeout.
Recorded with this script: ../dialog-closed-by-chromium-during-*.jsonl.
"""
import http.server, socketserver, threading, subprocess, sys, json, time, os
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self,*a): pass
    def do_GET(self):
        port = self.server.server_address[1]
        p = self.path
        if p.startswith('/top'):
            body = f"""<title>top</title><iframe src="http://localhost:{PORTS[1]}/mid"></iframe>
<script>
let n = 0; window.results = [];
function ask() {{ n++; const r = confirm('q' + n); window.results.push(r); setTimeout(ask, 15); }}
setTimeout(ask, 300);
</script>"""
        elif p.startswith('/mid'):
            body = f"""<title>mid</title>""" + "".join(f'<iframe src="http://localhost:{PORTS[1]}/leaf{i}"></iframe>' for i in range(6)) + "<script>setTimeout(() => location.reload(), 40)</script>"
        elif p.startswith('/leaf'):
            body = """<title>leaf</title><script>setTimeout(() => location.reload(), 10)</script>"""
        else:
            body = "nothing"
        b = body.encode()
        self.send_response(200); self.send_header('content-type','text/html'); self.send_header('content-length',str(len(b))); self.end_headers(); self.wfile.write(b)
servers=[]; PORTS=[]
for i in range(3):
    s = socketserver.ThreadingTCPServer(('127.0.0.1',0), H); s.daemon_threads=True
    servers.append(s); PORTS.append(s.server_address[1])
    threading.Thread(target=s.serve_forever, daemon=True).start()
trace = sys.argv[1]
policy = sys.argv[2] if len(sys.argv) > 2 else 'must_respond'
cli_path = sys.argv[3] if len(sys.argv) > 3 else 'target/debug/cdp-supervise'
cli = subprocess.Popen([cli_path,'watch','--url',f'http://127.0.0.1:{PORTS[0]}/top','--policy',policy,'--record',trace], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
found = 0; t0=time.time(); total=0
for line in cli.stdout:
    d = json.loads(line)
    if policy == 'must_respond' and d.get('type')=='diff' and d.get('op')=='dialog_opened':
        cli.stdin.write(json.dumps({"id": total+100, "cmd":"dialog","action":"accept","dialog_id":d['dialog']['id']})+"\n"); cli.stdin.flush()
    if d.get('type')=='error': print('ERR', line.strip(), file=sys.stderr)
    if d.get('type')=='diff' and d.get('op')=='dialog_closed':
        total += 1
        dl = d['dialog']
        if not dl.get('accepted') and dl.get('closed_by') in ('agent', 'auto_policy'):
            print('FOUND', json.dumps(dl), file=sys.stderr); found += 1
            break
    if time.time()-t0 > 40: break
print('dialogs closed', total, 'found', found, file=sys.stderr)
cli.stdin.write('{"id":1,"cmd":"stop"}\n'); cli.stdin.flush()
try: cli.wait(20)
except: cli.kill()
print('exit', cli.returncode, file=sys.stderr)
