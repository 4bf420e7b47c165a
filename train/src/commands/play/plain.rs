//! `--plain`: a line-based game for screen readers and scripts. The state is
//! printed as short text lines with a numbered menu of the legal actions;
//! one command is read per line from stdin (a menu number, an action name
//! such as `play:R5`, `R5`, `draw`, `colour:red`, `target:+1`, or `help`,
//! `look`, `quit`). Bad input prints a message and the prompt again; end of
//! input quits cleanly, and so does SIGINT, SIGTERM or SIGHUP (exit code 130).

use super::cards::{cards, colour_long, face_long, sort_key};
use super::session::{Session, scores_line, stack_press};
use super::{Args, CmdResult};
use std::io::{BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use uno_env::{Action, Face, NUM_FACES, Phase, action_name};

/// The legal actions in menu order: playable cards (hand order), then the rest by id.
pub fn menu(s: &Session) -> Vec<usize> {
    let mask = s.legal();
    let mut cards_: Vec<usize> = (0..NUM_FACES).filter(|&i| mask >> i & 1 == 1).collect();
    cards_.sort_by_key(|&i| sort_key(Face(i as u8)));
    let rest = (NUM_FACES..uno_env::NUM_ACTIONS).filter(|&i| mask >> i & 1 == 1);
    cards_.into_iter().chain(rest).collect()
}

/// A menu entry: the action's name and what it means.
pub fn describe(s: &Session, a: usize) -> String {
    let name = action_name(a);
    let what = match Action::from_id(a) {
        Some(Action::Play(f)) => face_long(f),
        Some(Action::Draw) => {
            if s.uses_pile() {
                "draw a card".into()
            } else if s.state.phase() == Phase::Stack {
                stack_press(&s.game, &s.state)
            } else {
                "press the launcher".into()
            }
        }
        Some(Action::Pass) => "pass".into(),
        Some(Action::Colour(c)) => colour_long(c).into(),
        Some(Action::Target(o)) => {
            let seat = (s.human + o as usize) % s.state.num_players();
            format!("{} ({})", s.names.cap(seat), cards(s.state.hand_len(seat)))
        }
        Some(Action::Challenge) => "challenge the Wild Draw Four".into(),
        Some(Action::Accept) => "accept it".into(),
        Some(Action::CallUno) => "call UNO".into(),
        Some(Action::NoUno) => "do not call UNO".into(),
        None => String::new(),
    };
    format!("{name}  ({what})")
}

/// The table as text lines (for `--plain` and screen readers).
pub fn table_lines(s: &Session) -> Vec<String> {
    let st = &s.state;
    let g = &s.game;
    let mut out = Vec::new();
    let top = face_long(st.top_face(g));
    let colour = st
        .active_colour()
        .map_or("none yet".into(), |c| colour_long(c).to_lowercase());
    let dir = if g.random_unit() {
        "the unit picks who plays".to_string()
    } else if st.direction() > 0 {
        "left (seat +1)".to_string()
    } else {
        "right (seat -1)".to_string()
    };
    out.push(format!(
        "Top card: {top}; active colour {colour}; direction: {dir}."
    ));
    if g.uses_pile() {
        out.push(format!("Draw pile: {}.", cards(st.pile_len())));
    } else {
        out.push(format!(
            "Launcher: {} left; {} since it last fired; last press fired {}.",
            cards(st.pile_len()),
            match st.misses() {
                1 => "1 press".to_string(),
                m => format!("{m} presses"),
            },
            st.last_fired()
        ));
    }
    if st.pending_hits() > 0 {
        out.push(format!(
            "Pending Mega Hit stack: {}.",
            match st.pending_hits() {
                1 => "1 press".to_string(),
                n => format!("{n} presses"),
            }
        ));
    }
    for p in 0..st.num_players() {
        if p == s.human {
            continue;
        }
        let uno = if st.uno_called(p) { ", UNO!" } else { "" };
        let out_ = if st.is_active(p) { "" } else { ", eliminated" };
        let turn = if st.current_player() == Some(p) {
            ", to play"
        } else {
            ""
        };
        let shown = match super::cards::shown(g, st, p) {
            t if t.is_empty() => t,
            t => format!("; {t}"),
        };
        out.push(format!(
            "{}: {}{uno}, score {}{out_}{turn}{shown}.",
            s.names.cap(p),
            cards(st.hand_len(p)),
            st.scores()[p]
        ));
    }
    let mask = s.legal();
    let mine = s.human_to_act();
    let hand: Vec<String> = super::cards::sorted_hand(st.hand_faces(g, s.human))
        .into_iter()
        .map(|f| {
            let mark = if mine && mask >> f.index() & 1 == 1 {
                "*"
            } else {
                ""
            };
            format!("{}{mark}", f.name())
        })
        .collect();
    out.push(format!(
        "Your hand ({}), score {}: {}{}",
        st.hand_len(s.human),
        st.scores()[s.human],
        hand.join(" "),
        if mine { "  (* = playable)" } else { "" }
    ));
    out
}

const HELP: &str = "Commands: a menu number; an action name (play:R5 or R5, draw, pass, \
colour:red, target:+1, challenge, accept, uno, no-uno); look (the table again); help; quit.";

/// The commands between rounds (and while an eliminated player watches).
const HELP_BETWEEN_ROUNDS: &str = "Commands between rounds: Enter (or next, n) starts the next \
round; look (the table as the round ended, and the scores); help; quit.";

/// How often a wait (for a line, or while a bot thinks) looks at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// How long the end of input waits for a signal that may come with it
/// (SIGHUP from a closed terminal) before it is taken for a quit.
const EOF_GRACE: Duration = Duration::from_millis(50);

/// The longest line read as a command: a longer one (a paste, a binary
/// file, `/dev/zero`) is refused unread past this, not kept in memory.
pub const MAX_LINE: usize = 4096;

/// A line of input and when it arrived (`None`: a line longer than [`MAX_LINE`]).
type Line = (Instant, Option<String>);

/// Reads one line of at most [`MAX_LINE`] bytes into `bytes`, without its
/// line break: `Ok(Some(true))`. A longer line is `Ok(Some(false))` as soon
/// as its first bytes show it too long; the caller skips the rest
/// (`BufRead::skip_until`). `Ok(None)` at the end of input.
fn read_line(r: &mut impl BufRead, bytes: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    bytes.clear();
    let n = Read::take(&mut *r, MAX_LINE as u64 + 1).read_until(b'\n', bytes)?;
    if n == 0 {
        return Ok(None);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        return Ok(Some(true));
    }
    // Else the last line, without a line break, or a line too long.
    Ok(Some(n <= MAX_LINE))
}

/// What the reader thread sends: a line, or the end of input.
fn reader() -> Receiver<Line> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut bytes = Vec::new();
        loop {
            // Bytes, not `lines()`: a line that is not UTF-8 is bad input to
            // refuse like any other, not the end of input.
            let line = match read_line(&mut stdin, &mut bytes) {
                Ok(None) | Err(_) => break,
                Ok(Some(true)) => {
                    let line = String::from_utf8_lossy(&bytes);
                    Some(line.trim_end_matches('\r').to_string())
                }
                Ok(Some(false)) => None,
            };
            let long = line.is_none();
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
            // The rest of the long line, one buffer at a time.
            if long && stdin.skip_until(b'\n').is_err() {
                break;
            }
        }
    });
    rx
}

/// `line` as it may be shown back: control characters (escape sequences,
/// the bytes of an arrow key in a line-mode terminal) written as escapes so
/// they cannot move the cursor or retitle the window, and cut after 40
/// characters.
pub fn echo(line: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::new();
    for (i, c) in line.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// A line read, a time-out, the end of input, or a signal (SIGINT, SIGTERM, SIGHUP).
enum Input {
    Line(String),
    Timeout,
    Eof,
    Stopped,
}

/// The next line from `rx`, or what ended the wait: `end` passing, the end
/// of input, or `stop` raised by a signal (looked at every [`POLL`]: the
/// reader thread's blocking read of stdin does not return on a signal).
fn recv(rx: &Receiver<Line>, end: Option<Instant>, stop: &AtomicBool) -> Result<Line, Input> {
    loop {
        if stop.load(Ordering::SeqCst) {
            return Err(Input::Stopped);
        }
        let wait = match end {
            Some(end) => POLL.min(end.saturating_duration_since(Instant::now())),
            None => POLL,
        };
        let got = rx.recv_timeout(wait);
        // A signal wins over what woke the wait: a closed terminal (SIGHUP)
        // ends the input too, and stdin closed after `kill` is no quit.
        if stop.load(Ordering::SeqCst) {
            return Err(Input::Stopped);
        }
        match got {
            Ok(l) => return Ok(l),
            Err(RecvTimeoutError::Disconnected) => {
                // A closed terminal ends the input as its SIGHUP arrives,
                // and the handler's thread may raise the flag a moment
                // after the reader sees the end: wait that moment.
                sleep_unless(stop, EOF_GRACE);
                return Err(if stop.load(Ordering::SeqCst) {
                    Input::Stopped
                } else {
                    Input::Eof
                });
            }
            Err(RecvTimeoutError::Timeout) if end.is_some_and(|e| Instant::now() >= e) => {
                return Err(Input::Timeout);
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Sleeps for `d`, or until `stop` is raised (a bot's think time is up to a minute).
fn sleep_unless(stop: &AtomicBool, d: Duration) {
    let end = Instant::now() + d;
    while !stop.load(Ordering::SeqCst) {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(POLL));
    }
}

/// The next line (until `end`, if given), skipping lines that arrived before
/// `stale_before`: typed after a time-out, they were meant for the menu the
/// time-out took away, not for the one now shown.
fn read(
    rx: &Receiver<Line>,
    end: Option<Instant>,
    stale_before: Option<Instant>,
    stop: &AtomicBool,
) -> Input {
    let _ = std::io::stdout().flush();
    loop {
        let got = match recv(rx, end, stop) {
            Ok(l) => l,
            Err(ended) => return ended,
        };
        match got {
            (at, line) if stale_before.is_some_and(|s| at < s) => {
                match line {
                    Some(line) => println!(
                        "Ignored `{}`: typed after your time ran out, before this prompt.",
                        echo(line.trim())
                    ),
                    None => println!(
                        "Ignored a line typed after your time ran out, before this prompt."
                    ),
                }
                print!("> ");
                let _ = std::io::stdout().flush();
            }
            (_, None) => {
                println!(
                    "Ignored a line longer than {MAX_LINE} bytes: not a command. Type help for the commands."
                );
                print!("> ");
                let _ = std::io::stdout().flush();
            }
            (_, Some(line)) => return Input::Line(line),
        }
    }
}

/// Runs the line-based game.
pub fn run(mut s: Session, a: &Args) -> CmdResult {
    // SIGINT, SIGTERM and SIGHUP end the game as `quit` does (the same
    // handler as the full-screen game's), with exit code 130.
    let stop = super::tui::stop_signal();
    let rx = reader();
    // In plain mode the timer runs only when asked for explicitly.
    let timer = a
        .timer_secs
        .filter(|t| *t > 0.0)
        .map(Duration::from_secs_f64);
    let think = Duration::from_millis(a.think_ms);
    let mut shown = 0usize;
    println!(
        "uno-attack plain mode: {}, {} players. Type help for the commands.",
        s.game.rules().name,
        s.game.num_players()
    );
    let mut need_table = true;
    // The current turn's (round, decision) and when its time runs out.
    let mut deadline: Option<((usize, u32), Instant)> = None;
    // After a time-out, lines typed before the next prompt are not answers
    // to it (they were meant for the menu that timed out).
    let mut timed_out = false;
    let mut stale_before: Option<Instant> = None;
    let mut prompt = |timed_out: &mut bool| {
        print!("> ");
        if std::mem::take(timed_out) {
            stale_before = Some(Instant::now());
        }
        stale_before
    };
    let mut stopped = false;
    loop {
        if stop.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        for line in &s.log[shown..] {
            println!("{line}");
        }
        shown = s.log.len();
        if s.state.is_round_over() {
            println!("{}", scores_line(&s.game, &s.state, &s.names));
            if !s.can_continue() {
                println!("{}", s.prompt());
                break;
            }
            if s.state.is_active(s.human) {
                println!("Round over. Press Enter for the next round, or type quit.");
            } else {
                println!(
                    "You are eliminated (C-7: your total reached the target, {}). The bots play on without you: press Enter to watch the next round, or type quit.",
                    s.game.rules().options.target_score
                );
            }
            let stale = prompt(&mut timed_out);
            match read(&rx, None, stale, stop) {
                Input::Eof => break,
                Input::Stopped => {
                    stopped = true;
                    break;
                }
                Input::Line(l) => match l.trim().to_ascii_lowercase().as_str() {
                    "" | "next" | "n" => {
                        s.next_round()?;
                        need_table = true;
                    }
                    "q" | "quit" | "exit" => break,
                    "help" | "?" | "h" => println!("{HELP_BETWEEN_ROUNDS}"),
                    // The scores follow, as after every command here.
                    "look" | "l" | "state" => {
                        for l in table_lines(&s) {
                            println!("{l}");
                        }
                    }
                    other => println!(
                        "Not understood: `{}`. Press Enter for the next round, or type quit (help lists the commands).",
                        echo(other)
                    ),
                },
                Input::Timeout => {}
            }
            continue;
        }
        if s.bot_to_act() {
            sleep_unless(stop, think);
            if stop.load(Ordering::SeqCst) {
                continue;
            }
            if s.bot_step().is_none() {
                return Err("a bot made no legal move".into());
            }
            need_table = true;
            continue;
        }
        // The human's decision.
        let items = menu(&s);
        if need_table {
            println!(
                "-- Round {}, move {}. {}",
                s.state.round(),
                s.state.decisions(),
                s.prompt()
            );
            for l in table_lines(&s) {
                println!("{l}");
            }
            println!("Choose:");
            for (i, &act) in items.iter().enumerate() {
                println!("  {} {}", i + 1, describe(&s, act));
            }
            need_table = false;
        }
        let stale = prompt(&mut timed_out);
        // F-3: the time is per turn. `help`, `look`, bad input or a refused
        // move do not restart it (the deadline is set once per decision).
        let turn = (s.state.round(), s.state.decisions());
        let end = timer
            .filter(|_| s.state.phase() == Phase::Play)
            .map(|t| match deadline {
                Some((k, end)) if k == turn => end,
                _ => {
                    let end = Instant::now() + t;
                    deadline = Some((turn, end));
                    end
                }
            });
        let line = match read(&rx, end, stale, stop) {
            Input::Eof => {
                println!();
                println!("End of input: quitting.");
                break;
            }
            Input::Stopped => {
                stopped = true;
                break;
            }
            Input::Timeout => {
                s.timeout()?;
                need_table = true;
                timed_out = true;
                continue;
            }
            Input::Line(l) => l,
        };
        let cmd = line.trim().to_ascii_lowercase();
        match cmd.as_str() {
            "" => println!("Type a menu number or an action name (help lists the commands)."),
            "q" | "quit" | "exit" => {
                println!("Quitting.");
                break;
            }
            "help" | "?" | "h" => println!("{HELP}"),
            "look" | "l" | "state" => need_table = true,
            _ => {
                // Any run of digits, signed or not, is a menu number (one
                // too long for a usize, or negative, is simply not in the
                // menu). `+5` is not the action with id 5, which
                // `Action::parse` would take it for.
                let digits = cmd.strip_prefix(['+', '-']).unwrap_or(&cmd);
                let action = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    match cmd
                        .strip_prefix('+')
                        .unwrap_or(&cmd)
                        .parse::<usize>()
                        .ok()
                        .and_then(|k| items.get(k.wrapping_sub(1)))
                    {
                        Some(&act) => Some(act),
                        None => {
                            println!("No item {} in the menu (1..{}).", echo(&cmd), items.len());
                            None
                        }
                    }
                } else {
                    match Action::parse(&cmd) {
                        Some(act) => Some(act.id()),
                        None => {
                            println!(
                                "Not understood: `{}`. Type help for the commands.",
                                echo(line.trim())
                            );
                            None
                        }
                    }
                };
                if let Some(act) = action {
                    match s.act(act) {
                        Ok(()) => need_table = true,
                        Err(e) => println!("Refused: {e}"),
                    }
                }
            }
        }
    }
    if stopped {
        stop_cleanly(s, shown);
    }
    for line in &s.log[shown..] {
        println!("{line}");
    }
    s.save()?;
    if let Some(p) = &s.transcript_path {
        println!("Transcript written to {}.", p.display());
    }
    Ok(())
}

/// The end after a signal: what `quit` does (the rest of the log, the
/// transcript written and said so), then exit code 130. Nothing here may
/// panic on output: after SIGHUP the terminal may be gone.
fn stop_cleanly(mut s: Session, shown: usize) -> ! {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out);
    let _ = writeln!(out, "Stopped by a signal: quitting.");
    for line in &s.log[shown..] {
        let _ = writeln!(out, "{line}");
    }
    match (s.save(), &s.transcript_path) {
        (Ok(()), Some(p)) => {
            let _ = writeln!(out, "Transcript written to {}.", p.display());
        }
        (Err(e), _) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
        }
        (Ok(()), None) => {}
    }
    let _ = out.flush();
    let _ = writeln!(std::io::stderr(), "stopped by a signal");
    super::tui::exit_interrupted()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::play::test_session;
    use uno_env::Scenario;

    /// A session of `rules` (a preset or a TOML file) whose position has the
    /// human (seat 0) facing a stacked Hit 2 with a Hit card in hand.
    fn facing_a_stack(rules: &str) -> Session {
        let argv = ["--rules", rules, "--players", "3", "--bot", "heuristic"];
        let (mut s, _) = test_session(&argv);
        let f = |names: &[&str]| -> Vec<Face> {
            names.iter().map(|n| Face::parse(n).unwrap()).collect()
        };
        let sc = Scenario {
            hands: vec![f(&["G-hit2", "G7"]), f(&["B1"]), f(&["R-hit2", "R8"])],
            top: Some(Face::parse("R5").unwrap()),
            current: 2,
            ..Default::default()
        };
        s.state = s.game.scenario(&sc).unwrap();
        s.game
            .apply(
                &mut s.state,
                Action::Play(Face::parse("R-hit2").unwrap()).id(),
            )
            .unwrap();
        assert_eq!(
            (s.state.phase(), s.state.current_player()),
            (Phase::Stack, Some(0))
        );
        s
    }

    #[test]
    fn the_stack_press_says_hits_stop_on_fire_under_a8() {
        let draw = Action::Draw.id();
        // attack-2010 stops hits on the first press that fires.
        let s = facing_a_stack("attack-2010");
        assert_eq!(
            describe(&s, draw),
            "draw  (press the launcher until it fires, at most twice; A-8)"
        );
        // Without A-8 every hit is pressed.
        let path = std::env::temp_dir().join(format!("uno-a8-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "preset = \"attack-2010\"\n[options]\nstop_hits_on_fire = false\n",
        )
        .unwrap();
        let s = facing_a_stack(path.to_str().unwrap());
        std::fs::remove_file(&path).ok();
        assert_eq!(describe(&s, draw), "draw  (press the launcher twice)");
    }
}
