//! The full-screen game: the app state, the event loop (keys, bot think
//! delays, Flash's real-time timer, the UNO window, the SLAP race and the
//! launcher's suspense) and what each key does in each phase.

use super::cards::{face_long, sorted_hand};
use super::input::{Intent, Typeahead, intent};
use super::render::{self, Overlay, View};
use super::session::{Race, Session};
use super::{Args, CmdResult};
use std::io::Write;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use uno_env::action::{ACCEPT, CALL_UNO, CHALLENGE, COLOUR, DRAW, NO_UNO, PASS};
use uno_env::{Event, Face, Phase};

/// How long the SLAP race waits for your key.
const SLAP_WINDOW: Duration = Duration::from_millis(2000);
/// How long you have to catch a bot that did not call UNO.
const CATCH_WINDOW: Duration = Duration::from_millis(2000);

/// A bot's action held back while you race: the action, the race, its start.
#[derive(Clone, Copy, Debug)]
pub struct PendingRace {
    /// The bot's chosen action (played when the race ends).
    pub action: usize,
    /// What is raced.
    pub race: Race,
    /// When the race started.
    pub start: Instant,
}

/// The interactive game's state around the session.
pub struct App {
    /// The game.
    pub s: Session,
    /// Selected card (index into the sorted hand).
    pub cursor: usize,
    /// Selected choice in a picker.
    pub picker: usize,
    /// The last message (text, true for a refusal).
    pub message: Option<(String, bool)>,
    /// The help overlay is open.
    pub help: bool,
    /// Symbols as well as colours.
    pub colour_blind: bool,
    /// Log lines scrolled back from the bottom.
    pub log_scroll: usize,
    /// When the position last changed (bot think delay, timers).
    pub changed_at: Instant,
    /// Your press waiting for its suspense to end: action and start.
    pub pending: Option<(usize, Instant)>,
    /// Launcher suspense length.
    pub anim: Duration,
    /// Bot think delay.
    pub think: Duration,
    /// Your turn's time limit (F-3), if any.
    pub timer: Option<Duration>,
    /// Time to call UNO once on one card, if limited.
    pub uno_window: Option<Duration>,
    /// `u` was pressed before the card landed: call UNO automatically.
    pub uno_armed: bool,
    /// A race in progress (SLAP, or catching a bot's missing UNO call).
    pub race: Option<PendingRace>,
    /// What your last press of the launcher did.
    pub last_press: Option<String>,
    /// Leave the loop.
    pub quit: bool,
    /// (round, decisions) when the human's turn was last noticed.
    seen: (usize, u32),
}

impl App {
    /// A new app around a session.
    pub fn new(s: Session, a: &Args) -> App {
        let default_timer = if s.game.random_unit() { 10.0 } else { 0.0 };
        let t = a.timer_secs.unwrap_or(default_timer);
        App {
            s,
            cursor: 0,
            picker: 0,
            message: None,
            help: false,
            colour_blind: a.colour_blind,
            log_scroll: 0,
            changed_at: Instant::now(),
            pending: None,
            anim: Duration::from_millis(a.anim_ms),
            think: Duration::from_millis(a.think_ms),
            timer: (t > 0.0).then(|| Duration::from_secs_f64(t)),
            uno_window: (a.uno_window_ms > 0).then(|| Duration::from_millis(a.uno_window_ms)),
            uno_armed: false,
            race: None,
            last_press: None,
            quit: false,
            seen: (usize::MAX, u32::MAX),
        }
    }

    /// Your hand, sorted.
    pub fn hand(&self) -> Vec<Face> {
        sorted_hand(self.s.state.hand_faces(&self.s.game, self.s.human))
    }

    /// True when the human can act now (no animation, race or overlay pending).
    pub fn human_ready(&self) -> bool {
        self.s.human_to_act() && self.pending.is_none() && self.race.is_none()
    }

    /// The choices of the current picker phase (action ids), empty outside pickers.
    pub fn picker_items(&self) -> Vec<usize> {
        if !self.s.human_to_act() {
            return Vec::new();
        }
        let mask = self.s.legal();
        match self.s.state.phase() {
            Phase::ChooseColour | Phase::ChooseTarget | Phase::Challenge | Phase::UnoCall => (DRAW
                ..uno_env::NUM_ACTIONS)
                .filter(|&i| mask >> i & 1 == 1)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn refuse(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), true));
    }

    fn info(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), false));
    }

    /// Applies the human's action (with launcher suspense for a press).
    fn human_act(&mut self, a: usize) {
        if a == DRAW && !self.s.uses_pile() && !self.anim.is_zero() {
            if self.s.legal() >> DRAW & 1 == 0 {
                self.refuse("You cannot press the launcher now.");
                return;
            }
            self.pending = Some((a, Instant::now()));
            self.message = None;
            return;
        }
        self.apply_human(a);
    }

    fn apply_human(&mut self, a: usize) {
        let before = self.s.state.hand_len(self.s.human);
        match self.s.act(a) {
            Ok(()) => {
                self.changed_at = Instant::now();
                self.message = None;
                if a == DRAW {
                    self.describe_press(before);
                }
                if a != CALL_UNO && self.s.state.phase() != Phase::UnoCall {
                    self.uno_armed = false;
                }
            }
            Err(e) => self.refuse(format!("✗ {e}")),
        }
    }

    /// Sets the launcher panel's last-press line from the last step's events.
    fn describe_press(&mut self, before: usize) {
        let fired: Vec<usize> = self
            .s
            .last_events
            .iter()
            .filter_map(|e| match e {
                Event::Pressed { seat, fired } if *seat == self.s.human => Some(*fired),
                Event::Drew { seat, n } if *seat == self.s.human => Some(*n),
                _ => None,
            })
            .collect();
        let total: usize = fired.iter().sum();
        let after = self.s.state.hand_len(self.s.human);
        let got: Vec<String> = self.s.last_received.iter().map(|f| f.name()).collect();
        let got = if got.is_empty() {
            String::new()
        } else {
            format!(": {}", got.join(" "))
        };
        self.last_press = Some(if self.s.uses_pile() {
            format!(
                "You drew {}{got}",
                super::cards::cards(after.saturating_sub(before))
            )
        } else if total == 0 {
            "click… nothing came out".into()
        } else {
            format!("BANG! {}{got}", super::cards::cards(total))
        });
    }

    fn play_card_at(&mut self, idx: usize) {
        let hand = self.hand();
        let Some(&f) = hand.get(idx) else {
            self.refuse(format!("You have no card #{}.", idx + 1));
            return;
        };
        self.cursor = idx;
        let mask = self.s.legal();
        if mask >> f.index() & 1 == 0 {
            let why = match self.s.act(f.index()) {
                Err(e) => e,
                Ok(()) => return,
            };
            self.refuse(format!("✗ {} cannot be played: {why}", face_long(f)));
            return;
        }
        self.human_act(f.index());
    }

    fn take_choice(&mut self, idx: usize) {
        let items = self.picker_items();
        match items.get(idx) {
            Some(&a) => self.human_act(a),
            None => self.refuse(format!("No choice #{} here.", idx + 1)),
        }
    }

    /// On a new decision of yours: select the first playable card (or the drawn one).
    fn notice_turn(&mut self) {
        if !self.s.human_to_act() {
            return;
        }
        let key = (self.s.state.round(), self.s.state.decisions());
        if key == self.seen {
            return;
        }
        self.seen = key;
        self.picker = 0;
        let hand = self.hand();
        let mask = self.s.legal();
        self.cursor = match self.s.state.drawn_card() {
            Some(c) => {
                let f = self.s.game.face_of(c);
                hand.iter().position(|h| *h == f).unwrap_or(0)
            }
            None => hand
                .iter()
                .position(|f| mask >> f.index() & 1 == 1)
                .unwrap_or(self.cursor.min(hand.len().saturating_sub(1))),
        };
    }

    /// What a key does now.
    pub fn handle(&mut self, it: Intent) {
        if it == Intent::Quit {
            self.quit = true;
            return;
        }
        self.notice_turn();
        if self.help {
            if matches!(it, Intent::Help | Intent::Close | Intent::Enter) {
                self.help = false;
            }
            return;
        }
        match it {
            Intent::Help => {
                self.help = true;
                return;
            }
            Intent::LogUp => {
                self.log_scroll = (self.log_scroll + 5).min(self.s.log.len().saturating_sub(1));
                return;
            }
            Intent::LogDown => {
                self.log_scroll = self.log_scroll.saturating_sub(5);
                return;
            }
            Intent::Close => return,
            _ => {}
        }
        if let Some(r) = self.race {
            match (r.race, it) {
                (Race::Slap { .. }, Intent::Slap) | (Race::Catch { .. }, Intent::Challenge) => {
                    self.finish_race(Some(r.start.elapsed().as_millis() as u64));
                }
                (Race::Slap { .. }, _) => self.refuse("SLAP race: press space!"),
                (Race::Catch { seat }, _) => self.refuse(format!(
                    "{} did not call UNO: press c to catch them!",
                    self.s.names.cap(seat)
                )),
            }
            return;
        }
        if self.pending.is_some() {
            return;
        }
        if self.s.state.is_round_over() {
            match it {
                Intent::Enter | Intent::No => {
                    if self.s.can_continue() {
                        match self.s.next_round() {
                            Ok(()) => {
                                self.changed_at = Instant::now();
                                self.info("A new round is dealt.");
                            }
                            Err(e) => self.refuse(e),
                        }
                    } else {
                        self.quit = true;
                    }
                }
                _ => self.refuse("The round is over: Enter for the next round, q to quit."),
            }
            return;
        }
        if !self.s.human_to_act() {
            if it == Intent::Uno
                && self.s.game.rules().options.uno_call == uno_env::rules::UnoCall::Explicit
            {
                self.uno_armed = true;
                self.info("UNO armed: it is called as soon as you are down to one card.");
            } else {
                let who = self
                    .s
                    .state
                    .current_player()
                    .map_or("nobody".into(), |p| self.s.names.cap(p));
                self.refuse(format!("Not your turn ({who} is deciding)."));
            }
            return;
        }
        let phase = self.s.state.phase();
        let items = self.picker_items();
        let hand_len = self.hand().len();
        match it {
            Intent::Left => {
                if items.is_empty() {
                    self.cursor = self.cursor.saturating_sub(1);
                } else {
                    self.picker = self.picker.saturating_sub(1);
                }
            }
            Intent::Right => {
                if items.is_empty() {
                    self.cursor = (self.cursor + 1).min(hand_len.saturating_sub(1));
                } else {
                    self.picker = (self.picker + 1).min(items.len() - 1);
                }
            }
            Intent::Up => self.picker = self.picker.saturating_sub(1),
            Intent::Down => {
                self.picker = (self.picker + 1).min(items.len().saturating_sub(1));
            }
            Intent::NextPlayable => {
                let hand = self.hand();
                let mask = self.s.legal();
                let n = hand.len();
                let next = (1..=n)
                    .map(|k| (self.cursor + k) % n.max(1))
                    .find(|&i| mask >> hand[i].index() & 1 == 1);
                match next {
                    Some(i) => self.cursor = i,
                    None => self.refuse("No playable card: press d."),
                }
            }
            Intent::Enter => {
                if items.is_empty() {
                    self.play_card_at(self.cursor);
                } else {
                    self.take_choice(self.picker);
                }
            }
            Intent::Number(k) => {
                if items.is_empty() {
                    self.play_card_at(k - 1);
                } else {
                    self.take_choice(k - 1);
                }
            }
            Intent::Draw => match phase {
                Phase::Play | Phase::Stack => self.human_act(DRAW),
                _ => self.refuse(format!("You cannot draw now ({}).", self.s.prompt())),
            },
            Intent::Pass => match phase {
                Phase::AfterDraw | Phase::BonusPlay => self.human_act(PASS),
                _ => {
                    self.refuse("Nothing to pass now (p keeps a drawn card or skips a bonus play).")
                }
            },
            Intent::Uno => match phase {
                Phase::UnoCall => self.human_act(CALL_UNO),
                _ if self.s.game.rules().options.uno_call == uno_env::rules::UnoCall::Auto => {
                    self.info("UNO is called automatically in these rules.")
                }
                _ => {
                    self.uno_armed = true;
                    self.info("UNO armed: it is called as soon as you are down to one card.");
                }
            },
            Intent::No => match phase {
                Phase::UnoCall => self.human_act(NO_UNO),
                _ => self.refuse("n answers the UNO call or deals the next round."),
            },
            Intent::Colour(c) => match phase {
                Phase::ChooseColour => self.human_act(COLOUR + c.index()),
                _ => self.refuse("No colour to name now."),
            },
            Intent::Challenge => match phase {
                Phase::Challenge => self.human_act(CHALLENGE),
                _ => self.refuse("Nothing to challenge."),
            },
            Intent::Accept => match phase {
                Phase::Challenge => self.human_act(ACCEPT),
                _ => self.refuse("Nothing to accept."),
            },
            Intent::Slap => self.refuse("No SLAP race now."),
            Intent::Unknown(c) => {
                // A control character (U+0085, U+009B: CSI) typed as text is
                // named, not drawn: a terminal may act on it.
                let c = super::plain::echo(&c.to_string());
                self.refuse(format!("Key `{c}` does nothing: press ? for help."))
            }
            Intent::Quit | Intent::Help | Intent::Close | Intent::LogUp | Intent::LogDown => {}
        }
    }

    /// Advances time: suspense, races, bots, timers.
    pub fn tick(&mut self) {
        let now = Instant::now();
        if let Some((a, start)) = self.pending {
            if now - start >= self.anim {
                self.pending = None;
                self.apply_human(a);
            }
            return;
        }
        if let Some(r) = self.race {
            let window = match r.race {
                Race::Slap { .. } => SLAP_WINDOW,
                Race::Catch { .. } => CATCH_WINDOW,
            };
            if now - r.start >= window {
                self.finish_race(None);
            }
            return;
        }
        if self.help || self.s.state.is_round_over() {
            return;
        }
        if self.s.bot_to_act() {
            if now - self.changed_at >= self.think {
                let played = match self.s.bot_choice() {
                    Some(a) => match self.s.race_of(a) {
                        // You race: the bot's action waits for your key (or the window).
                        Some(race) if self.s.human_races(race) => {
                            self.race = Some(PendingRace {
                                action: a,
                                race,
                                start: Instant::now(),
                            });
                            self.message = None;
                            true
                        }
                        _ => self.s.bot_play_unraced(a),
                    },
                    None => false,
                };
                if !played {
                    self.refuse("A bot made no legal move.");
                    self.quit = true;
                }
                self.changed_at = Instant::now();
            }
            return;
        }
        self.notice_turn();
        match self.s.state.phase() {
            Phase::Play => {
                if let Some(t) = self.timer
                    && now - self.changed_at >= t
                {
                    match self.s.timeout() {
                        Ok(()) => self.refuse("⏱ Time's up (F-3)!"),
                        Err(e) => self.refuse(e),
                    }
                    self.changed_at = Instant::now();
                }
            }
            Phase::UnoCall => {
                if self.uno_armed {
                    self.uno_armed = false;
                    self.apply_human(CALL_UNO);
                } else if let Some(w) = self.uno_window
                    && now - self.changed_at >= w
                {
                    self.apply_human(NO_UNO);
                    self.refuse("Too slow to call UNO!");
                }
            }
            _ => {}
        }
    }

    /// Ends the race in progress with your reaction (`None`: no key in time)
    /// and plays the bot's held-back action with its outcome.
    fn finish_race(&mut self, ms: Option<u64>) {
        let Some(r) = self.race.take() else { return };
        let ok = match r.race {
            Race::Slap { slapper } => self.s.finish_slap(r.action, slapper, ms),
            Race::Catch { seat } => self.s.finish_catch(r.action, seat, ms.is_some()),
        };
        if !ok {
            self.refuse("A bot made no legal move.");
            self.quit = true;
        }
        self.changed_at = Instant::now();
    }

    /// The view the renderer draws.
    pub fn view(&self) -> View<'_> {
        let now = Instant::now();
        let overlay = if self.help {
            Overlay::Help
        } else if let Some(r) = self.race {
            match r.race {
                Race::Slap { .. } => Overlay::Slap,
                Race::Catch { seat } => Overlay::Catch {
                    who: self.s.names.cap(seat),
                },
            }
        } else if self.s.state.is_round_over() {
            Overlay::RoundOver {
                more: self.s.can_continue(),
            }
        } else if !self.picker_items().is_empty() && self.pending.is_none() {
            Overlay::Picker {
                items: self.picker_items(),
                selected: self.picker,
            }
        } else {
            Overlay::None
        };
        let mut status = self.s.prompt();
        if self.human_ready() {
            if self.s.state.phase() == Phase::Play
                && let Some(t) = self.timer
            {
                let left = t.saturating_sub(now - self.changed_at);
                status.push_str(&format!("   ⏱ {:.1} s", left.as_secs_f64()));
            }
            if self.s.state.phase() == Phase::UnoCall
                && let Some(w) = self.uno_window
            {
                let left = w.saturating_sub(now - self.changed_at);
                status.push_str(&format!("   press u within {:.1} s", left.as_secs_f64()));
            }
            status = format!("YOUR TURN · {status}");
        }
        if self.uno_armed {
            status.push_str("   (UNO armed)");
        }
        if !self.s.state.is_active(self.s.human) {
            status.push_str("   (you are eliminated, C-7: watching; q quits)");
        }
        let anim = self.pending.map(|(_, start)| {
            let frames = ["▁", "▂▃", "▃▄▅", "▄▅▆▇", "▅▆▇█▇"];
            let k = ((now - start).as_millis() / 120) as usize % frames.len();
            format!("pressing… {}", frames[k])
        });
        View {
            game: &self.s.game,
            state: &self.s.state,
            names: &self.s.names,
            human: self.s.human,
            log: &self.s.log,
            log_scroll: self.log_scroll,
            title: format!(
                "UNO — {} · {} players · {}",
                self.s.game.rules().name,
                self.s.state.num_players(),
                self.s.bot_note
            ),
            cursor: Some(self.cursor),
            legal: if self.human_ready() {
                self.s.legal()
            } else {
                0
            },
            message: self.message.clone(),
            status,
            launcher_anim: anim.or_else(|| self.last_press.clone()),
            colour_blind: self.colour_blind,
            reveal: false,
            hand_scroll: 0,
            overlay,
            keys: "←→ select · Enter play · d draw/press · p pass · u UNO · ? help · q quit".into(),
        }
    }
}

/// Set by SIGINT, SIGTERM or SIGHUP while `play` or `replay` runs (see [`stop_signal`]).
static STOP: AtomicBool = AtomicBool::new(false);

/// How long the game has, after a signal, to restore the terminal and
/// write the transcript before the program exits regardless.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Catches SIGINT, SIGTERM and SIGHUP (`kill`, a closed terminal; Ctrl-C is
/// a key in raw mode) for `play` (full-screen and `--plain`) and the replay
/// viewer: the full-screen views would otherwise die with the terminal left
/// in raw mode and on the alternate screen, and every view without its
/// transcript's last steps. The flag it returns is raised; the game's loop
/// sees it within one poll and ends as `q` does, then exits through
/// [`exit_interrupted`]. If it has not ended within [`STOP_GRACE`] (a
/// terminal gone for good can keep crossterm's read from returning; a
/// stdout nobody reads blocks a print), the handler restores the terminal if
/// it is still in raw mode and exits the same way regardless.
pub fn stop_signal() -> &'static AtomicBool {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // One handler per process: if another is installed (tests), keys still quit.
        let _ = ctrlc::set_handler(|| {
            STOP.store(true, Ordering::SeqCst);
            std::thread::sleep(STOP_GRACE);
            // Only a full-screen view is in raw mode: plain mode's stdout
            // gets no escape sequences.
            if crossterm::terminal::is_raw_mode_enabled().unwrap_or(false) {
                restore_terminal();
            }
            exit_interrupted();
        });
    });
    &STOP
}

/// Exits with [`INTERRUPTED`](crate::commands::INTERRUPTED) once no
/// transcript write is under way (holding off any other), so a signal
/// never leaves the transcript cut short of the steps being written.
pub fn exit_interrupted() -> ! {
    let _writing = super::transcript::hold_writes();
    std::process::exit(crate::commands::INTERRUPTED);
}

/// Leaves raw mode and the alternate screen. A failure (the terminal is
/// gone) is reported if stderr can take it, never a panic.
pub fn restore_terminal() {
    if let Err(e) = ratatui::try_restore() {
        let _ = writeln!(std::io::stderr(), "cannot restore the terminal: {e}");
    }
}

/// Runs the full-screen game.
pub fn run(s: Session, a: &Args) -> CmdResult {
    let mut app = App::new(s, a);
    let stop = stop_signal();
    let mut typeahead = Typeahead::new();
    let mut terminal = ratatui::try_init()
        .map_err(|e| format!("cannot open the terminal ({e}): use --plain to play line by line"))?;
    let result = (|| -> Result<(), String> {
        while !app.quit && !stop.load(Ordering::SeqCst) {
            terminal
                .draw(|f| render::draw(f, &app.view()))
                .map_err(|e| e.to_string())?;
            let dropped = typeahead
                .keys(Duration::from_millis(40), |k| {
                    if let Some(it) = intent(k) {
                        app.handle(it);
                    }
                    app.tick();
                    !app.quit
                })
                .map_err(|e| e.to_string())?;
            if let Some(n) = dropped {
                app.refuse(format!(
                    "Ignored {n} bytes of input typed ahead (a long paste?): keys are read one at a time."
                ));
            }
            if !app.quit {
                app.tick();
            }
        }
        Ok(())
    })();
    restore_terminal();
    let saved = app.s.save();
    if stop.load(Ordering::SeqCst) {
        // A signal: the terminal may be gone (SIGHUP), so nothing here may panic on output.
        if let (Ok(()), Some(p)) = (&saved, &app.s.transcript_path) {
            let _ = writeln!(std::io::stdout(), "Transcript written to {}.", p.display());
        }
        let _ = writeln!(std::io::stderr(), "stopped by a signal");
        exit_interrupted();
    }
    result?;
    saved?;
    if let Some(p) = &app.s.transcript_path {
        println!("Transcript written to {}.", p.display());
    }
    let scores: Vec<String> = (0..app.s.state.num_players())
        .map(|p| format!("{} {}", app.s.names.cap(p), app.s.state.scores()[p]))
        .collect();
    println!("Scores: {}.", scores.join(", "));
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The reaction races at the table, driven through the app as the event
    //! loop would (no terminal): F-7 SLAP and C-4 catching a silent bot.
    use super::*;
    use crate::commands::play::replay::Replay;
    use crate::commands::play::test_session;

    fn app(flags: &[&str]) -> App {
        let mut argv = vec!["--think-ms", "0", "--anim-ms", "0", "--bot", "heuristic"];
        argv.extend_from_slice(flags);
        let (session, a) = test_session(&argv);
        App::new(session, &a)
    }

    /// Ticks (the human plays the first legal action) until a race starts.
    fn until_race(app: &mut App) -> Option<PendingRace> {
        for _ in 0..20_000 {
            if app.race.is_some() {
                return app.race;
            }
            if app.s.state.is_round_over() {
                if !app.s.can_continue() {
                    return None;
                }
                app.s.next_round().unwrap();
            } else if app.s.human_to_act() {
                let a = app.s.legal().trailing_zeros() as usize;
                app.s.act(a).unwrap();
            }
            app.tick();
        }
        None
    }

    fn slap_loser(events: &[Event]) -> usize {
        events
            .iter()
            .find_map(|e| match e {
                Event::Slap { loser } => Some(*loser),
                _ => None,
            })
            .expect("a SLAP")
    }

    #[test]
    fn a_control_character_typed_is_named_not_drawn() {
        let mut app = app(&["--rules", "classic", "--players", "2"]);
        while !app.s.human_to_act() {
            app.tick();
        }
        app.handle(Intent::Unknown('\u{9b}'));
        let (text, refused) = app.message.clone().unwrap();
        assert!(refused);
        assert_eq!(text, "Key `\\u{9b}` does nothing: press ? for help.");
        app.handle(Intent::Unknown('é'));
        assert_eq!(
            app.message.unwrap().0,
            "Key `é` does nothing: press ? for help."
        );
    }

    #[test]
    fn f7_slap_is_a_real_race_against_the_bots_times() {
        let path = std::env::temp_dir().join(format!("uno-slap-{}.json", std::process::id()));
        let p = path.to_str().unwrap();
        let mut app = app(&[
            "--rules",
            "flash",
            "--players",
            "4",
            "--seed",
            "3",
            "--transcript",
            p,
        ]);
        let (mut quick, mut late) = (false, false);
        while !(quick && late) {
            let r = until_race(&mut app).expect("a bot plays a SLAP in the match");
            let Race::Slap { slapper } = r.race else {
                panic!("only SLAP races without explicit UNO")
            };
            assert_ne!(slapper, app.s.human);
            assert_eq!(app.view().overlay, render::Overlay::Slap);
            let before = app.s.state.hand_len(app.s.human);
            if !quick {
                // A key press at once beats every bot (their times are ≥ 0.6 × 600 ms).
                app.handle(Intent::Slap);
                let loser = slap_loser(&app.s.last_events);
                assert_ne!(loser, app.s.human);
                let line = app
                    .s
                    .log
                    .iter()
                    .rev()
                    .find(|l| l.starts_with("SLAP race: you"));
                let line = line.expect("the race's times are logged");
                // The slowest bot by the logged times is the one who draws.
                let slowest = (0..4)
                    .filter_map(|p| {
                        let name = app.s.names.cap(p);
                        let at = line.find(&format!("{name} "))?;
                        let ms: u64 = line[at + name.len() + 1..]
                            .split(' ')
                            .next()?
                            .parse()
                            .ok()?;
                        Some((ms, p))
                    })
                    .max()
                    .unwrap()
                    .1;
                assert_eq!(loser, slowest, "{line}");
                assert!(app.s.transcript.steps.last().unwrap().slap_ms.is_some());
                quick = true;
            } else {
                // No key within the window: you are the slowest.
                app.finish_race(None);
                assert_eq!(slap_loser(&app.s.last_events), app.s.human);
                assert!(app.s.state.hand_len(app.s.human) > before);
                late = true;
            }
            assert!(app.race.is_none());
        }
        app.s.save().unwrap();
        // The transcript replays with the races' real outcomes.
        let t = crate::commands::play::transcript::Transcript::load(&path).unwrap();
        let replay = Replay::build(t).expect("the raced game replays");
        // Every race line, with the bots' times, replays as it was shown.
        let races: Vec<&String> = app
            .s
            .log
            .iter()
            .filter(|l| l.starts_with("SLAP race:"))
            .collect();
        assert!(races.len() >= 2);
        for line in races {
            assert!(replay.log.contains(line), "{line}");
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn f8_the_first_deals_start_effect_is_logged_live_and_in_the_replay() {
        // Seed 4, 3-player flash: the start card is a Draw Two (F-8), so the
        // first player picked draws two and misses the turn.
        let path = std::env::temp_dir().join(format!("uno-f8-{}.json", std::process::id()));
        let mut app = app(&[
            "--rules",
            "flash",
            "--players",
            "3",
            "--seed",
            "4",
            "--transcript",
            path.to_str().unwrap(),
        ]);
        let log = app.s.log.clone();
        assert!(log[1].contains("start card Yellow Draw Two"), "{log:?}");
        assert!(log[2].contains("draws 2 cards"), "{log:?}");
        assert!(!log.iter().any(|l| l.starts_with("Start card")), "{log:?}");
        app.s.save().unwrap();
        let t = crate::commands::play::transcript::Transcript::load(&path).unwrap();
        let replay = Replay::build(t).unwrap();
        assert_eq!(replay.log[1..3], log[1..3]);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn c4_you_catch_a_bot_that_forgets_to_call_uno() {
        let rules = std::env::temp_dir().join(format!("uno-explicit-{}.toml", std::process::id()));
        std::fs::write(
            &rules,
            "preset = \"classic\"\n[options]\nuno_call = \"explicit\"\n",
        )
        .unwrap();
        let r = rules.to_str().unwrap();
        let mut app = app(&[
            "--rules",
            r,
            "--players",
            "2",
            "--seed",
            "5",
            "--bot-forgets-uno",
            "1",
        ]);
        let mut outcomes = Vec::new();
        for catch in [true, false] {
            let race = until_race(&mut app).expect("the bot gets down to one card");
            let Race::Catch { seat } = race.race else {
                panic!("no SLAP in classic")
            };
            // The bot has played its second-to-last card and said nothing.
            assert_eq!(app.s.state.hand_len(seat), 1);
            assert_eq!(app.s.state.phase(), Phase::UnoCall);
            assert!(matches!(app.view().overlay, render::Overlay::Catch { .. }));
            if catch {
                app.handle(Intent::Challenge); // `c`
            } else {
                app.finish_race(None); // the window closes
            }
            let caught = app.s.last_events.iter().any(
                |e| matches!(e, Event::Uno { seat: s, called: false, caught: true } if *s == seat),
            );
            // Two players: you are the only one who can catch the bot.
            assert_eq!(caught, catch);
            assert_eq!(app.s.state.hand_len(seat), if catch { 3 } else { 1 });
            outcomes.push(caught);
            // Finish the round so the next one may give another chance.
            while !app.s.state.is_round_over() && app.race.is_none() {
                if app.s.human_to_act() {
                    let a = app.s.legal().trailing_zeros() as usize;
                    app.s.act(a).unwrap();
                }
                app.tick();
            }
        }
        assert_eq!(outcomes, vec![true, false]);
        let _ = std::fs::remove_file(&rules);
    }
}
