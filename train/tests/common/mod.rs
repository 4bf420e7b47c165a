//! Helpers shared by the `play` end-to-end tests.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The `uno-attack` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_uno-attack")
}

/// A path in the temporary directory, unique to this test process.
pub fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("uno-play-{}-{name}", std::process::id()))
}

/// The last 40 lines of `s`, for failure messages.
pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// Starts `uno-attack` with `args` and piped stdin, stdout and stderr.
pub fn spawn_piped(args: &[&str]) -> Child {
    Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn uno-attack")
}
