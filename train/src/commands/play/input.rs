//! Keys → intents. The mapping is the same in every phase; what an intent
//! does depends on the phase (see `tui::App::handle`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use uno_env::Colour;

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// `q`, Ctrl-C: leave the game.
    Quit,
    /// `?`: toggle the help overlay.
    Help,
    /// Esc: close an overlay.
    Close,
    /// ← / `h`.
    Left,
    /// → / `l`.
    Right,
    /// ↑ / `k`.
    Up,
    /// ↓ / `j`.
    Down,
    /// Enter: play the selected card / take the selected choice / next round.
    Enter,
    /// `1`..`9`, `0` (= 10): the n-th card or choice (1-based).
    Number(usize),
    /// Tab: select the next playable card.
    NextPlayable,
    /// `d`: draw / press the launcher.
    Draw,
    /// `p`: pass (keep the drawn card, skip the bonus play).
    Pass,
    /// `u`: call UNO.
    Uno,
    /// `n`: do not call UNO; next round.
    No,
    /// `r`, `y`, `g`, `b` in the colour picker.
    Colour(Colour),
    /// `c`: challenge a Wild Draw Four; catch a bot that did not call UNO.
    Challenge,
    /// `a`: accept it.
    Accept,
    /// Space: SLAP.
    Slap,
    /// PgUp: scroll the log back.
    LogUp,
    /// PgDn: scroll the log forward.
    LogDown,
    /// Any other key, by name.
    Unknown(char),
}

/// The intent of a key press (`None` for keys that mean nothing at all, e.g. Shift alone).
pub fn intent(k: KeyEvent) -> Option<Intent> {
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        return match k.code {
            KeyCode::Char('c') | KeyCode::Char('q') => Some(Intent::Quit),
            _ => None,
        };
    }
    Some(match k.code {
        KeyCode::Char('q') => Intent::Quit,
        KeyCode::Char('?') | KeyCode::F(1) => Intent::Help,
        KeyCode::Esc => Intent::Close,
        KeyCode::Left | KeyCode::Char('h') => Intent::Left,
        KeyCode::Right | KeyCode::Char('l') => Intent::Right,
        KeyCode::Up | KeyCode::Char('k') => Intent::Up,
        KeyCode::Down | KeyCode::Char('j') => Intent::Down,
        KeyCode::Enter => Intent::Enter,
        KeyCode::Tab => Intent::NextPlayable,
        KeyCode::Char(c @ '1'..='9') => Intent::Number(c as usize - '0' as usize),
        KeyCode::Char('0') => Intent::Number(10),
        KeyCode::Char('d') => Intent::Draw,
        KeyCode::Char('p') => Intent::Pass,
        KeyCode::Char('u') => Intent::Uno,
        KeyCode::Char('n') => Intent::No,
        KeyCode::Char('r') => Intent::Colour(Colour::Red),
        KeyCode::Char('y') => Intent::Colour(Colour::Yellow),
        KeyCode::Char('g') => Intent::Colour(Colour::Green),
        KeyCode::Char('b') => Intent::Colour(Colour::Blue),
        KeyCode::Char('c') => Intent::Challenge,
        KeyCode::Char('a') => Intent::Accept,
        KeyCode::Char(' ') => Intent::Slap,
        KeyCode::PageUp => Intent::LogUp,
        KeyCode::PageDown => Intent::LogDown,
        KeyCode::Char(c) => Intent::Unknown(c),
        _ => return None,
    })
}

/// The help overlay's lines.
pub const HELP: &[&str] = &[
    "Keys",
    "",
    "  ← → / h l     move along your hand (or a picker)",
    "  ↑ ↓ / k j     move in a picker",
    "  Enter         play the selected card / take the choice",
    "  1..9, 0       play the n-th card / take the n-th choice",
    "  Tab           select the next playable card",
    "  d             draw a card / press the launcher",
    "  p             pass (keep the drawn card, skip a bonus play)",
    "  u             call UNO (press it with two cards to call as you play)",
    "  n             do not call UNO; next round when a round is over",
    "  r y g b       name a colour in the colour picker",
    "  c / a         challenge / accept a Wild Draw Four",
    "  c             catch a bot that did not call UNO (explicit UNO)",
    "  space         SLAP when the race starts",
    "  PgUp / PgDn   scroll the log",
    "  ?             this help (Esc closes it)",
    "  q             quit (the transcript is written)",
    "",
    "Playable cards are bright; the rest are dimmed.",
];
