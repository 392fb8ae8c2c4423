//! The guarantee that a launched browser never outlives the process that launched it, even
//! when that process is killed with `SIGKILL` and runs no destructor.
//!
//! Why this design: Linux's parent-death signal (`prctl(PR_SET_PDEATHSIG)`) needs `unsafe`
//! code between `fork` and `exec` (and fires when the spawning *thread* ends, not the
//! process). Instead the browser runs in a process group of its own, and a tiny reaper
//! (`sh`, in a process group of its own too, so a terminal's Ctrl-C or a harness killing
//! the launcher's group leaves it running) waits on a pipe whose only writer is the
//! launcher: std opens pipes close-on-exec, so neither the browser nor any other child
//! inherits the write end. When the launcher dies, the kernel closes that end, the
//! reaper's `read` sees end of file, and it ends the browser's group (`SIGTERM`, then
//! `SIGKILL` after a grace) and removes the profile directory. On a normal drop the
//! launcher closes the browser itself and then disarms the reaper with a `done` line.
//!
//! The reaper is started before the browser, so there is no window in which the browser
//! runs unguarded except the instant between its spawn and the write of its group id.

use std::io::{self, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// The reaper's script. `$1` is the profile directory. (`kill -SIG -PGID` without `--`:
/// dash's builtin `kill` rejects `--`.) The first line on stdin is the
/// browser's process group id; then it waits for end of file (the launcher died) or a
/// `done` line (the launcher closed the browser itself).
const SCRIPT: &str = r#"
read -r pgid || pgid=
case "$pgid" in ''|*[!0-9]*) pgid= ;; esac
while read -r line; do
  [ "$line" = done ] && exit 0
done
if [ -n "$pgid" ]; then
  kill -TERM "-$pgid" 2>/dev/null
  i=0
  while [ "$i" -lt 30 ] && kill -0 "-$pgid" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
  kill -KILL "-$pgid" 2>/dev/null
fi
i=0
while [ "$i" -lt 20 ] && [ -e "$1" ]; do
  rm -rf -- "$1" 2>/dev/null
  [ -e "$1" ] && sleep 0.1
  i=$((i+1))
done
"#;

/// A running reaper: the child `sh` and the write end of its stdin.
#[derive(Debug)]
pub(crate) struct Reaper {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Reaper {
    /// Starts the reaper for the profile at `profile_dir`.
    pub(crate) fn start(profile_dir: &Path) -> io::Result<Reaper> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(SCRIPT)
            .arg("cdp-supervise-reaper")
            .arg(profile_dir)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take();
        Ok(Reaper { child, stdin })
    }

    /// Tells the reaper which process group to end: the browser's (its pid, as it leads
    /// its own group).
    pub(crate) fn arm(&mut self, browser_pgid: u32) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = writeln!(stdin, "{browser_pgid}").and_then(|()| stdin.flush());
        }
    }

    /// The browser is closed and its profile removed: the reaper exits without acting.
    pub(crate) fn disarm(mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = writeln!(stdin, "done").and_then(|()| stdin.flush());
        }
        let _ = self.child.wait();
    }
}
