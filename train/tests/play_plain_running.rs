//! `uno-attack play --plain` driven while it runs, reading its output as it
//! comes: SIGTERM, SIGHUP and SIGINT end it cleanly (exit code 130, the
//! transcript written) at your prompt and while a bot thinks; `help` and
//! `look` between rounds; the bot's note names every table size its
//! checkpoint was trained at; the millisecond flags take counts as the count
//! flags do and name their range. Every wait has a time limit.
#![cfg(all(unix, feature = "cli"))]

mod common;

use common::{spawn_piped, tail, tmp};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// A running `uno-attack` whose stdout is read as it comes.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    out: Vec<u8>,
    err: std::thread::JoinHandle<String>,
}

impl Running {
    /// Starts `uno-attack` with piped stdin, stdout and stderr.
    fn start(args: &[&str]) -> Running {
        let mut child = spawn_piped(args);
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, chunks) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Running {
            child,
            stdin,
            chunks,
            out: Vec::new(),
            err,
        }
    }

    /// Stdout so far.
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.out).into_owned()
    }

    /// Reads stdout until `done` holds for it, or panics after `limit`.
    fn wait_for(&mut self, limit: Duration, done: impl Fn(&str) -> bool) {
        let end = Instant::now() + limit;
        while !done(&self.out()) {
            let left = end.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(c) => self.out.extend_from_slice(&c),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("not seen within {limit:?}; stdout:\n{}", tail(&self.out()));
                }
            }
        }
    }

    /// Writes `text` to stdin.
    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    /// Sends `signal` to the program.
    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill sends a signal to the pid of the child this test started.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, signal) },
            0
        );
    }

    /// Waits for the exit (stdin still open: a signal, not the end of input,
    /// ends the game) at most `limit`: the exit code (`None`: killed by a
    /// signal), stdout and stderr.
    fn finish(mut self, limit: Duration) -> (Option<i32>, String, String) {
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(st) = self.child.try_wait().expect("wait") {
                break st;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("did not exit within {limit:?}: {}", tail(&self.out()));
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        drop(self.stdin.take());
        while let Ok(c) = self.chunks.recv_timeout(Duration::from_secs(2)) {
            self.out.extend_from_slice(&c);
        }
        let out = self.out();
        let err = self.err.join().unwrap_or_default();
        (status.code(), out, err)
    }
}

/// Runs `play --plain` with `args` and `quit` on stdin: exit code, stdout, stderr.
fn quit_at_once(args: &[&str]) -> (Option<i32>, String, String) {
    let mut a = vec!["play", "--plain", "--think-ms", "0"];
    a.extend_from_slice(args);
    let mut run = Running::start(&a);
    run.send("quit\n");
    run.finish(Duration::from_secs(30))
}

#[test]
fn the_bots_note_names_every_table_size_its_checkpoint_was_trained_at() {
    // checkpoints/universal was trained at 2 and 4 players for every preset
    // (its meta.json); no checkpoint ships for 3. The note used to name one
    // size, which one depending on the preset.
    for rules in ["attack-1999", "attack-2010"] {
        let (code, out, err) = quit_at_once(&["--rules", rules, "--players", "3"]);
        assert_eq!(code, Some(0), "{err}");
        let line = out.lines().nth(1).unwrap_or_default();
        assert!(
            line.contains("bot: shipped checkpoint")
                && line.contains("universal was trained with 2 and 4 players, playing with 3"),
            "{rules}: {line}"
        );
        assert!(!line.contains("trained at"), "{rules}: {line}");
    }
}

/// `play --plain` of classic, 2 players, with `seed` (1: your turn first,
/// menu item 1 is Yellow 3), against the heuristic, thinking `think_ms`,
/// with `more` flags.
fn classic(seed: &str, think_ms: &str, more: &[&str]) -> Running {
    let mut args = vec![
        "play",
        "--plain",
        "--rules",
        "classic",
        "--players",
        "2",
        "--seed",
        seed,
        "--bot",
        "heuristic",
        "--think-ms",
        think_ms,
    ];
    args.extend_from_slice(more);
    Running::start(&args)
}

/// [`classic`] with seed 1 and a fresh transcript at `transcript`.
fn classic_recorded(think_ms: &str, transcript: &PathBuf) -> Running {
    let _ = std::fs::remove_file(transcript);
    classic(
        "1",
        think_ms,
        &["--transcript", transcript.to_str().unwrap()],
    )
}

/// The steps you took, by name, in the transcript at `path`.
fn your_steps(path: &PathBuf) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("transcript written");
    let t: serde_json::Value = serde_json::from_str(&text).expect("a whole transcript");
    t["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["human"] == true)
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The exit of a `--plain` game stopped by a signal: code 130, and the
/// transcript reported written, as `quit` does.
fn assert_stopped_cleanly(name: &str, (code, out, err): &(Option<i32>, String, String)) {
    assert_eq!(*code, Some(130), "{name}: stderr {err}\n{}", tail(out));
    assert!(
        out.contains("Stopped by a signal: quitting.") && out.contains("Transcript written to "),
        "{name}: {}",
        tail(out)
    );
    assert!(err.contains("stopped by a signal"), "{name}: {err}");
}

#[test]
fn plain_mode_stops_cleanly_on_sigterm_sighup_and_sigint_at_your_prompt() {
    for (name, signal) in [
        ("TERM", libc::SIGTERM),
        ("HUP", libc::SIGHUP),
        ("INT", libc::SIGINT),
    ] {
        let tr = tmp(&format!("prompt-{name}.json"));
        let mut run = classic_recorded("0", &tr);
        run.wait_for(Duration::from_secs(20), |o| {
            o.contains("Choose:") && o.ends_with("> ")
        });
        let start = Instant::now();
        run.signal(signal);
        let end = run.finish(Duration::from_secs(5));
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{name}: slow exit"
        );
        assert_stopped_cleanly(name, &end);
        assert_eq!(your_steps(&tr), Vec::<String>::new(), "{name}");
        std::fs::remove_file(&tr).ok();
    }
}

#[test]
fn plain_mode_stops_cleanly_while_a_bot_thinks_and_keeps_your_last_move() {
    // The bot thinks for a minute after your move; the transcript was last
    // written when the game waited for you, so your move is in it only if
    // the signal ends the game cleanly.
    let tr = tmp("thinking.json");
    let mut run = classic_recorded("60000", &tr);
    run.wait_for(Duration::from_secs(20), |o| {
        o.contains("1 play:Y3") && o.ends_with("> ")
    });
    run.send("1\n");
    run.wait_for(Duration::from_secs(5), |o| {
        o.contains("You played Yellow 3")
    });
    let start = Instant::now();
    run.signal(libc::SIGTERM);
    let end = run.finish(Duration::from_secs(5));
    assert!(start.elapsed() < Duration::from_secs(1), "slow exit");
    assert_stopped_cleanly("TERM", &end);
    assert_eq!(your_steps(&tr), vec!["play:Y3".to_string()]);
    std::fs::remove_file(&tr).ok();
}

#[test]
fn help_and_look_are_understood_between_rounds() {
    let mut run = classic("3", "0", &[]);
    // Menu item 1 at every prompt until the round is over.
    let prompts = |o: &str| o.matches("\n> ").count();
    let mut answered = 0;
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < Duration::from_secs(20), "no round's end");
        run.wait_for(Duration::from_secs(10), |o| {
            prompts(o) > answered && o.ends_with("> ")
        });
        answered = prompts(&run.out());
        if run.out().contains("Round over. Press Enter") {
            break;
        }
        run.send("1\n");
    }
    let before = run.out().len();
    run.send("help\nlook\nquit\n");
    let (code, out, err) = run.finish(Duration::from_secs(10));
    assert_eq!(code, Some(0), "{err}");
    let after = &out[before..];
    assert!(!after.contains("Not understood"), "{after}");
    assert!(
        after.contains("Commands between rounds: Enter (or next, n) starts the next round"),
        "{after}"
    );
    // `look`: the table as the round ended, then the scores again.
    assert!(
        after.contains("Top card: ") && after.contains("Your hand ("),
        "{after}"
    );
    assert!(after.matches("Scores: ").count() >= 2, "{after}");
}

#[test]
fn millisecond_flags_take_counts_and_name_their_range() {
    let (code, _, err) = quit_at_once(&["--anim-ms", "99999999999999999999"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("`99999999999999999999` is out of range (0 to 60000 ms, one minute)"),
        "{err}"
    );
    // `1e3` as --games takes `2e4` (and --timer-secs took it already).
    let (code, out, err) = quit_at_once(&[
        "--anim-ms",
        "1e3",
        "--uno-window-ms",
        "2.5e3",
        "--timer-secs",
        "1e3",
        "--bot",
        "heuristic",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Quitting."), "{}", tail(&out));
}
