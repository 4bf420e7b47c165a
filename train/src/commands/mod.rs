//! One module per subcommand; each exposes `Args` (clap) and `run`.
// The `Args` doc comments are the `--help` text, written for a terminal:
// `<dir>` and `[:N]` there are placeholders, not HTML or intra-doc links.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

pub mod arena;
pub mod bench;
pub mod play;
pub mod simulate;
pub mod train;

/// A subcommand's failure: printed as one line, exit code 2.
pub type CmdResult = Result<(), String>;

/// Loads rules from a preset name or TOML path and compiles them for `players`.
pub fn load_game(rules: &str, players: usize) -> Result<uno_env::Game, String> {
    let r = uno_env::Rules::load(rules).map_err(|e| e.to_string())?;
    uno_env::Game::new(r, players).map_err(|e| e.to_string())
}

/// Makes `checkpoint:<dir>` agent specs buildable (the neural agent lives behind a hook).
pub fn register_neural() {
    uno_agents::neural::register();
}
