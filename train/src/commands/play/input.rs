//! Keys → intents. The mapping is the same in every phase; what an intent
//! does depends on the phase (see `tui::App::handle`).

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::time::Duration;
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

/// Terminal input that crossterm will never read. crossterm (0.29) waits for
/// the terminal with an edge-triggered epoll and reads at most 1024 bytes per
/// wake-up, returning as soon as they hold a key: what is left of a longer
/// burst (a paste) stays in the terminal's input queue until more input
/// arrives. Once that queue (4 KiB) is full, nothing more can arrive, and no
/// key — not `q`, not Ctrl-C, which raw mode passes as a key — reaches the
/// game again. `stuck` finds such bytes (still unread after two polls that
/// returned nothing: bytes with a wake-up pending are read by the next poll)
/// and discards them, so that the next key wakes crossterm again.
pub struct Typeahead {
    #[cfg(unix)]
    tty: Option<tty::Tty>,
    /// Polls in a row that returned nothing while bytes were unread.
    idle: u8,
}

impl Typeahead {
    /// Watches the terminal crossterm reads: stdin if it is one, else `/dev/tty`.
    pub fn new() -> Typeahead {
        Typeahead {
            #[cfg(unix)]
            tty: tty::Tty::open(),
            idle: 0,
        }
    }

    /// Waits up to `wait` for input, then hands every key press already
    /// read to `key` (at most 1,024: a paste is thousands of keys, and a
    /// frame each took seconds) until it returns `false`. When nothing came,
    /// the number of stuck bytes it discarded, if any.
    pub fn keys(
        &mut self,
        wait: Duration,
        mut key: impl FnMut(KeyEvent) -> bool,
    ) -> std::io::Result<Option<usize>> {
        if !event::poll(wait)? {
            return Ok(self.stuck());
        }
        self.idle = 0;
        for _ in 0..1024 {
            if let Event::Key(k) = event::read()?
                && k.kind != KeyEventKind::Release
                && !key(k)
            {
                break;
            }
            if !event::poll(Duration::ZERO)? {
                break;
            }
        }
        Ok(None)
    }

    /// After a poll that returned nothing: the number of stuck bytes
    /// discarded, if there were any.
    fn stuck(&mut self) -> Option<usize> {
        #[cfg(unix)]
        if let Some(tty) = &self.tty {
            let n = tty.pending();
            if n == 0 {
                self.idle = 0;
                return None;
            }
            self.idle += 1;
            if self.idle >= 2 {
                self.idle = 0;
                return Some(tty.discard()).filter(|&n| n > 0);
            }
        }
        None
    }
}

#[cfg(unix)]
mod tty {
    use std::os::fd::{AsRawFd, RawFd};

    /// The terminal crossterm reads keys from (as its `tty_fd` chooses).
    pub struct Tty {
        /// `/dev/tty`, opened when stdin is not a terminal.
        file: Option<std::fs::File>,
    }

    impl Tty {
        pub fn open() -> Option<Tty> {
            // SAFETY: isatty only inspects the descriptor.
            if unsafe { libc::isatty(libc::STDIN_FILENO) } == 1 {
                return Some(Tty { file: None });
            }
            let file = std::fs::File::open("/dev/tty").ok()?;
            Some(Tty { file: Some(file) })
        }

        fn fd(&self) -> RawFd {
            self.file
                .as_ref()
                .map_or(libc::STDIN_FILENO, |f| f.as_raw_fd())
        }

        /// Bytes waiting in the terminal's input queue.
        pub fn pending(&self) -> usize {
            let mut n: libc::c_int = 0;
            // SAFETY: FIONREAD stores one c_int through the pointer, which
            // points to `n`; the descriptor is open for the Tty's lifetime.
            let r = unsafe { libc::ioctl(self.fd(), libc::FIONREAD, &mut n) };
            if r == 0 { n.max(0) as usize } else { 0 }
        }

        /// Discards the input queue; returns how many bytes it held.
        pub fn discard(&self) -> usize {
            let n = self.pending();
            // SAFETY: tcflush takes a descriptor and a queue selector; the
            // descriptor is open for the Tty's lifetime.
            unsafe { libc::tcflush(self.fd(), libc::TCIFLUSH) };
            n
        }
    }
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
