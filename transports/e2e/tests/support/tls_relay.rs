//! https for the end-to-end tests without a TLS crate: a throwaway self-signed certificate
//! made by the `openssl` command, and a TLS-terminating TCP relay in `python3` (stdlib
//! `ssl`) on `127.0.0.1` that forwards each connection, decrypted, to a plain-HTTP port
//! on `127.0.0.1`. Chromium must be launched with `--ignore-certificate-errors`.
//!
//! The relay is a child process: dropping [`TlsRelay`] kills it (by its own handle) and
//! removes the temp directory; if the test process dies without dropping it, the relay
//! sees its stdin close and exits by itself.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The relay: prints its port, then serves each connection in a thread with one
/// `select` loop (an `SSLSocket` must not be read and written from two threads at once).
const RELAY_PY: &str = r#"
import os, select, socket, ssl, sys, threading
cert, key, upstream = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(('127.0.0.1', 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)

def serve(raw):
    tls = up = None
    try:
        raw.settimeout(10)
        tls = ctx.wrap_socket(raw, server_side=True)
        tls.settimeout(None)
        up = socket.create_connection(('127.0.0.1', upstream))
        while True:
            ready = [tls] if tls.pending() else select.select([tls, up], [], [])[0]
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (up if s is tls else tls).sendall(data)
    except Exception:
        pass
    finally:
        for s in (tls, up, raw):
            try:
                s and s.close()
            except Exception:
                pass

def parent_gone():
    sys.stdin.read()
    os._exit(0)

threading.Thread(target=parent_gone, daemon=True).start()
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"#;

/// Whether `openssl` and `python3` (with `ssl`) are there. When one is missing, a run with
/// `CI` set fails; elsewhere the test prints a loud SKIPPED line and returns (the rule of
/// `chromium_for_test`).
pub fn tls_tools_for_test(test: &str) -> bool {
    let works = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let missing: Vec<&str> = [
        ("openssl", works("openssl", &["version"])),
        ("python3", works("python3", &["-c", "import ssl, select"])),
    ]
    .into_iter()
    .filter_map(|(name, ok)| (!ok).then_some(name))
    .collect();
    if missing.is_empty() {
        return true;
    }
    let missing = missing.join(" and ");
    if std::env::var_os("CI").is_some() {
        panic!(
            "{test}: {missing} not found and CI is set (Debian: apt-get install openssl python3)"
        );
    }
    eprintln!("\n!!!!! SKIPPED {test}: {missing} not found (needed to serve https) !!!!!\n");
    false
}

/// A running TLS relay to a plain-HTTP port; stops when dropped.
pub struct TlsRelay {
    child: Child,
    // Held so that the relay's stdin stays open while it runs; closed on drop.
    stdin: Option<ChildStdin>,
    port: u16,
    dir: PathBuf,
}

impl TlsRelay {
    /// Makes a self-signed certificate for `127.0.0.1` / `localhost` (valid one day) in a
    /// fresh temp directory and starts the relay to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> TlsRelay {
        Self::start_with(upstream, false)
    }

    /// Like [`TlsRelay::start`], but the certificate is signed by a throwaway CA
    /// ([`TlsRelay::ca_path`]) and a second, unrelated CA is made too
    /// ([`TlsRelay::other_ca_path`]): for clients that check certificates against a CA file.
    pub fn start_with_ca(upstream: u16) -> TlsRelay {
        Self::start_with(upstream, true)
    }

    fn start_with(upstream: u16, with_ca: bool) -> TlsRelay {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cdp-supervise-tls-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(&dir)
                .stdin(Stdio::null())
                .output()
                .expect("run openssl");
            assert!(
                out.status.success(),
                "openssl {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        if with_ca {
            for ca in ["ca", "other-ca"] {
                openssl(&[
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-days",
                    "1",
                    "-subj",
                    &format!("/CN=cdp-supervise test {ca}"),
                    "-keyout",
                    &format!("{ca}-key.pem"),
                    "-out",
                    &format!("{ca}.pem"),
                ]);
            }
            openssl(&[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "key.pem",
                "-out",
                "cert.csr",
            ]);
            std::fs::write(
                dir.join("ext.cnf"),
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
            )
            .unwrap();
            openssl(&[
                "x509",
                "-req",
                "-in",
                "cert.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca-key.pem",
                "-CAcreateserial",
                "-days",
                "1",
                "-extfile",
                "ext.cnf",
                "-out",
                "cert.pem",
            ]);
        } else {
            openssl(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-days",
                "1",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout",
                "key.pem",
                "-out",
                "cert.pem",
            ]);
        }
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(RELAY_PY)
            .arg(&cert)
            .arg(&key)
            .arg(upstream.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the python3 TLS relay");
        let stdin = child.stdin.take();
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
        let port = match read.ok().and_then(|_| line.trim().parse::<u16>().ok()) {
            Some(port) => port,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(&dir);
                panic!("the TLS relay did not print its port (got {line:?})");
            }
        };
        TlsRelay {
            child,
            stdin,
            port,
            dir,
        }
    }

    /// The CA that signed the relay's certificate (made by [`TlsRelay::start_with_ca`]).
    pub fn ca_path(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// A CA that signed nothing the relay serves.
    pub fn other_ca_path(&self) -> PathBuf {
        self.dir.join("other-ca.pem")
    }

    /// The relay's port on `127.0.0.1`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://{host}:PORT{path}`, `host` being `127.0.0.1` or `localhost`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.port)
    }
}

impl Drop for TlsRelay {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
