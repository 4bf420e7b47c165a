//! End-to-end test of the full-screen `uno-attack play` in a pseudo-terminal
//! (tmux, 120 x 40): a fixed seed, a full round played with scripted keys
//! chosen from what the screen shows, refusals of bad keys, the help
//! overlay, the transcript, and the replay viewer; a long paste, and the
//! signals that stop the game (the terminal restored, the transcript whole).
//! Skips with a note when tmux is not installed. Every wait has a time limit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_uno-attack")
}

fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// A tmux session on a private server: its own socket file (in the temp
/// directory, beside the test's other files) and no config file. Dropping it
/// kills the server and removes the socket file, which tmux leaves behind. A
/// private server keeps the test clear of any other tmux on the machine, and
/// of a server still shutting down after an earlier session.
struct Tmux {
    socket: PathBuf,
    name: String,
}

impl Tmux {
    /// A `tmux` command aimed at the private server on `socket`.
    fn tmux(socket: &Path) -> Command {
        let mut c = Command::new("tmux");
        c.env_remove("TMUX")
            .arg("-S")
            .arg(socket)
            .args(["-f", "/dev/null"]);
        c
    }

    /// Kills the server on `socket` and removes its socket file.
    fn stop(socket: &Path) {
        let _ = Self::tmux(socket).arg("kill-server").output();
        let _ = std::fs::remove_file(socket);
    }

    /// Starts `cmd` in a detached 120 x 40 session. Starting a tmux server
    /// can fail for reasons of the machine, not the program under test
    /// ("server exited unexpectedly" is a known race of tmux's start-up), so
    /// it is tried a few times; the last error is returned.
    fn start(name: &str, cmd: &str) -> Result<Tmux, String> {
        let socket = tmp(&format!("tmux-{name}"));
        let mut err = String::new();
        for attempt in 1..=5u64 {
            let out = Self::tmux(&socket)
                .args([
                    "new-session",
                    "-d",
                    "-x",
                    "120",
                    "-y",
                    "40",
                    "-s",
                    name,
                    cmd,
                ])
                .output()
                .map_err(|e| format!("cannot run tmux: {e}"))?;
            if out.status.success() {
                return Ok(Tmux {
                    socket,
                    name: name.to_string(),
                });
            }
            err = format!(
                "tmux new-session failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
            Self::stop(&socket);
            std::thread::sleep(Duration::from_millis(200 * attempt));
        }
        Err(err)
    }

    fn screen(&self) -> String {
        let o = Self::tmux(&self.socket)
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let ok = Self::tmux(&self.socket)
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .expect("send-keys");
        assert!(ok.success());
    }

    /// Waits until the screen satisfies `pred`; panics with the screen after `limit`.
    fn wait(&self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > limit {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        Self::stop(&self.socket);
    }
}

/// The move counter shown in the table panel ("Round 1 · move 12").
fn move_no(screen: &str) -> Option<u32> {
    let i = screen.find("· move ")? + "· move ".len();
    let digits: String = screen[i..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The phase in the status line ("YOUR TURN · Your turn [play]: …").
fn phase(screen: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains("YOUR TURN"))?;
    let a = line.find('[')? + 1;
    let b = line[a..].find(']')? + a;
    Some(line[a..b].to_string())
}

fn over(s: &str) -> bool {
    s.contains("ROUND OVER") || s.contains("MATCH OVER")
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("uno-play-tui-{}-{name}", std::process::id()))
}

#[test]
fn tui_plays_a_full_round_with_scripted_keys() {
    if !have_tmux() {
        eprintln!(
            "note: tmux is not installed; skipping the terminal UI test (the --plain tests cover the game)"
        );
        return;
    }
    let tr = tmp("t.json");
    let cmd = format!(
        "{} play --rules attack-2010 --players 3 --seed 5 --think-ms 0 --anim-ms 50 \
         --uno-window-ms 0 --rounds 1 --transcript {}; echo EXITED $?; sleep 60",
        bin(),
        tr.display()
    );
    let t = match Tmux::start("play", &cmd) {
        Ok(t) => t,
        Err(e) => {
            // Nothing of ours has run yet: the session's command cannot end
            // (it finishes with `sleep 60`), so this is the machine's tmux.
            eprintln!(
                "note: {e}; skipping the terminal UI test (the --plain tests cover the game)"
            );
            return;
        }
    };
    let w = Duration::from_secs(15);
    let s = t.wait("the table on your turn", w, |s| {
        s.contains("Your hand") && s.contains("Log") && s.contains("YOUR TURN")
    });
    for part in [
        "Players",
        "Table",
        "Launcher",
        "Top card:",
        "Colour:",
        "Direction:",
        "bot: ",
    ] {
        assert!(s.contains(part), "missing {part}:\n{s}");
    }

    // A key that means nothing is refused; the game goes on.
    t.keys(&["x"]);
    t.wait("the refusal", w, |s| s.contains("Key `x` does nothing"));
    // The help overlay opens and closes.
    t.keys(&["?"]);
    t.wait("help", w, |s| {
        s.contains("Help") && s.contains("draw a card / press")
    });
    t.keys(&["Escape"]);
    t.wait("help closed", w, |s| !s.contains("draw a card / press"));

    let deadline = Instant::now() + Duration::from_secs(120);
    let mut turns = 0;
    let mut refused = 0;
    loop {
        assert!(Instant::now() < deadline, "the round did not end in time");
        let s = t.wait("your turn or the round's end", w, |s| {
            over(s) || s.contains("YOUR TURN")
        });
        if over(&s) {
            break;
        }
        let mv = move_no(&s).expect("move number on screen");
        let ph = phase(&s).expect("phase in the status line");
        let key = match ph.as_str() {
            "play" | "after-draw" => "Enter",
            "stack" => "d",
            "choose-colour" => "r",
            "choose-target" => "1",
            "challenge" => "a",
            "uno-call" => "u",
            "bonus-play" => "p",
            other => panic!("unexpected phase {other}"),
        };
        t.keys(&[key]);
        let s = t.wait("the move to be taken or refused", w, |s| {
            over(s) || move_no(s) != Some(mv) || s.contains("cannot be played")
        });
        if !over(&s) && move_no(&s) == Some(mv) {
            // Nothing playable: the refusal names the rule; press the launcher.
            refused += 1;
            t.keys(&["d"]);
            t.wait("the press", w, |s| over(s) || move_no(s) != Some(mv));
        }
        turns += 1;
    }
    assert!(turns > 0, "you played");
    let s = t.screen();
    assert!(s.contains("total"), "scores shown:\n{s}");
    t.keys(&["q"]);
    let s = t.wait("the program to exit", w, |s| s.contains("EXITED"));
    assert!(s.contains("EXITED 0"), "{s}");
    assert!(s.contains("Transcript written"), "{s}");

    let text = std::fs::read_to_string(&tr).expect("transcript written");
    let tj: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let steps = tj["steps"].as_array().expect("steps");
    let mine = steps.iter().filter(|s| s["human"] == true).count();
    assert!(
        mine >= turns,
        "{mine} human steps for {turns} turns ({refused} refusals)"
    );
    assert!(
        steps.last().unwrap()["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "round-over")
    );
    drop(t);

    // The replay viewer steps forward and back.
    let cmd = format!(
        "{} replay {}; echo EXITED $?; sleep 60",
        bin(),
        tr.display()
    );
    let r = Tmux::start("replay", &cmd).expect("a second tmux session starts where the first did");
    r.wait("the replay", w, |s| {
        s.contains("Replay —") && s.contains("step 0/")
    });
    r.keys(&["Right"]);
    r.wait("step 1", w, |s| s.contains("step 1/"));
    r.keys(&["End"]);
    let last = format!("step {}/{}", steps.len(), steps.len());
    r.wait("the last step", w, |s| s.contains(&last));
    r.keys(&["Left"]);
    r.wait("a step back", w, |s| !s.contains(&last));
    r.keys(&["q"]);
    r.wait("replay exit", w, |s| s.contains("EXITED 0"));
    let _ = std::fs::remove_file(&tr);
}

/// Starts `cmd` in a tmux session, or says why the test is skipped.
fn start_or_skip(name: &str, cmd: &str) -> Option<Tmux> {
    if !have_tmux() {
        eprintln!("note: tmux is not installed; skipping this terminal UI test");
        return None;
    }
    match Tmux::start(name, cmd) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("note: {e}; skipping this terminal UI test");
            None
        }
    }
}

impl Tmux {
    /// Types `text` as it is (tmux `send-keys -l`), as a paste without bracketing.
    fn literal(&self, text: &str) {
        let ok = Self::tmux(&self.socket)
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .expect("send-keys -l");
        assert!(ok.success());
    }

    /// A tmux format of the pane (`#{alternate_on}`).
    fn pane(&self, format: &str) -> String {
        let o = Self::tmux(&self.socket)
            .args(["display-message", "-p", "-t", &self.name, format])
            .output()
            .expect("tmux display-message");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }
}

/// The pid of the running `uno-attack` whose command line holds `marker`
/// (found in /proc; `None` where there is no /proc).
fn pid_of(marker: &str) -> Option<u32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if comm.trim() == "uno-attack" && String::from_utf8_lossy(&cmdline).contains(marker) {
            return Some(pid);
        }
    }
    None
}

/// After the program: `stty` shows the line discipline back in cooked mode.
const STTY: &str =
    "echo STTY $(stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon\\|-\\?echo'); sleep 60";

/// Bytes typed into `t`'s pane that nothing has read yet (FIONREAD on its tty).
#[cfg(unix)]
fn unread(t: &Tmux) -> Option<usize> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(t.pane("#{pane_tty}"))
        .ok()?;
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD stores one c_int through the pointer, which points to
    // `n`; the descriptor is open until `tty` drops.
    let r = unsafe { libc::ioctl(tty.as_raw_fd(), libc::FIONREAD, &mut n) };
    (r == 0).then_some(n.max(0) as usize)
}

#[cfg(unix)]
#[test]
fn a_long_paste_is_read_or_dropped_not_left_unread() {
    // crossterm reads the terminal edge-triggered, 1024 bytes a wake-up:
    // what was left of a long paste stayed unread until more input came,
    // and once it filled the terminal's 4 KiB input queue no key (not q,
    // not Ctrl-C) reached the game again.
    let cmd = format!(
        "{} play --rules classic --players 2 --seed 1 --think-ms 0; echo EXITED $?; {STTY}",
        bin()
    );
    let Some(t) = start_or_skip("paste", &cmd) else {
        return;
    };
    let w = Duration::from_secs(15);
    t.wait("your turn", w, |s| s.contains("YOUR TURN"));
    // 60 KB, in pieces (a tmux command holds less).
    let piece = "x".repeat(2000);
    for _ in 0..30 {
        t.literal(&piece);
    }
    let start = Instant::now();
    while unread(&t).expect("the pane's tty") > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?} bytes of the paste are still unread after 10 s; screen:\n{}",
            unread(&t),
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    t.keys(&["q"]);
    let s = t.wait("the program to exit", w, |s| s.contains("STTY"));
    assert!(s.contains("EXITED 0"), "{s}");
    assert!(s.contains("STTY icanon echo"), "{s}");
}

#[cfg(unix)]
#[test]
fn a_signal_restores_the_terminal_and_keeps_the_transcript() {
    if !Path::new("/proc/self/cmdline").exists() {
        eprintln!("note: no /proc to find the game's pid; skipping the signal test");
        return;
    }
    for (sig, signal) in [
        ("TERM", libc::SIGTERM),
        ("HUP", libc::SIGHUP),
        ("INT", libc::SIGINT),
    ] {
        let tr = tmp(&format!("signal-{sig}.json"));
        let cmd = format!(
            "{} play --rules attack-2010 --players 3 --seed 5 --think-ms 0 --transcript {}; \
             echo EXITED $?; {STTY}",
            bin(),
            tr.display()
        );
        let Some(t) = start_or_skip(&format!("signal-{sig}"), &cmd) else {
            return;
        };
        let w = Duration::from_secs(15);
        t.wait("your turn", w, |s| s.contains("YOUR TURN"));
        assert_eq!(t.pane("#{alternate_on}"), "1", "the game is full screen");
        let pid = pid_of(&tr.display().to_string()).expect("the game's pid");
        // SAFETY: kill sends a signal to the pid of the game this test started.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
        let s = t.wait("the program to exit", w, |s| s.contains("STTY"));
        assert!(s.contains("EXITED 130"), "SIG{sig}:\n{s}");
        assert!(
            s.contains("STTY icanon echo"),
            "SIG{sig} left raw mode:\n{s}"
        );
        assert!(s.contains("Transcript written"), "SIG{sig}:\n{s}");
        assert_eq!(
            t.pane("#{alternate_on}"),
            "0",
            "SIG{sig}: alternate screen left on"
        );
        let text = std::fs::read_to_string(&tr).expect("transcript");
        let tj: serde_json::Value = serde_json::from_str(&text).expect("a whole transcript");
        assert!(tj["steps"].is_array());
        let _ = std::fs::remove_file(&tr);
    }
}
