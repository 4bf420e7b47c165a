//! `uno-attack replay FILE`: rebuilds the game from a transcript (rules +
//! seed + steps, checking that every step replays to the recorded events)
//! and steps through it — full screen (Enter/→ next, ← back, q quit) or as
//! text with `--plain`.

use super::CmdResult;
use super::cards::{cards, sorted_hand};
use super::input::Typeahead;
use super::narrate::{Names, known, narrate_known, start_effects};
use super::render::{self, Overlay, View};
use super::session::{prompt, round_intro, scores_line};
use super::transcript::Transcript;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::layout::Rect;
use std::sync::atomic::Ordering;
use std::time::Duration;
use uno_env::{Event, EventLog, Game, Imposed, Rules, State, action_name};

/// The race outcomes in a step's recorded events (JSON): the SLAP loser and
/// whether a silent UNO was caught.
fn recorded_races(events: &[serde_json::Value]) -> Imposed {
    let events: Vec<Event> = events
        .iter()
        .filter_map(|e| serde_json::from_value(e.clone()).ok())
        .collect();
    Imposed::from_events(&events)
}

/// A transcript rebuilt into positions.
pub struct Replay {
    /// The transcript.
    pub t: Transcript,
    /// The compiled game.
    pub game: Game,
    /// Seat names.
    pub names: Names,
    /// The position before any step, then after each step, with the log length then.
    pub frames: Vec<(State, usize)>,
    /// Every log line.
    pub log: Vec<String>,
}

impl Replay {
    /// Replays every step on the engine; a step that does not reproduce its
    /// recorded events is an error.
    pub fn build(t: Transcript) -> Result<Replay, String> {
        let rules =
            Rules::from_toml_str(&t.rules_toml).map_err(|e| format!("its rules_toml: {e}"))?;
        let game = Game::new(rules, t.players).map_err(|e| e.to_string())?;
        if t.human_seat >= t.players {
            return Err(format!("human seat {} is not at the table", t.human_seat));
        }
        if t.names.len() != t.players {
            return Err(format!(
                "names has {} entries for {} players",
                t.names.len(),
                t.players
            ));
        }
        if t.scores.len() != t.players {
            return Err(format!(
                "scores has {} entries for {} players",
                t.scores.len(),
                t.players
            ));
        }
        if let Some(w) = t.match_winner.filter(|&w| w >= t.players) {
            return Err(format!("match winner {w} is not at the table"));
        }
        let names = Names {
            names: t.names.clone(),
            human: t.human_seat,
        };
        let mut first_deal = EventLog::default();
        let mut s = game.new_state_with(t.seed, 0, &mut first_deal);
        let mut log = vec![
            format!(
                "{} · {} players · seed {} · bot {}",
                game.rules().name,
                t.players,
                t.seed,
                t.bot
            ),
            round_intro(&game, &s, &names),
        ];
        log.extend(start_effects(&first_deal.0, &names, game.uses_pile()));
        let mut frames = vec![(s.clone(), log.len())];
        for (i, step) in t.steps.iter().enumerate() {
            // Races decided at the table (SLAP, UNO catch) are replayed as recorded.
            let mut ev = EventLog::imposing(recorded_races(&step.events));
            let before = s.clone();
            // The seat a step names is shown as the one who acted (or timed
            // out): it must be the one to move; a next round has none.
            let seat = |p: Option<usize>| p.map_or("nobody".into(), |p| format!("seat {p}"));
            let to_move = match step.kind.as_str() {
                "next-round" => None,
                _ => s.current_player(),
            };
            if step.seat != to_move {
                return Err(format!(
                    "step {} ({}): {} is recorded, but {} is to move",
                    i + 1,
                    step.kind,
                    seat(step.seat),
                    seat(to_move)
                ));
            }
            let res = match step.kind.as_str() {
                "action" => {
                    let a = step.action.ok_or_else(|| {
                        format!("step {}: an action step without an action", i + 1)
                    })?;
                    // An id outside the action space is the engine's error below.
                    if a < uno_env::NUM_ACTIONS && action_name(a) != step.name {
                        return Err(format!(
                            "step {}: action {a} is `{}`, but is recorded with the name `{}`",
                            i + 1,
                            action_name(a),
                            step.name
                        ));
                    }
                    game.apply_with(&mut s, a, &mut ev)
                }
                k @ ("timeout" | "next-round") => {
                    if step.name != k || step.action.is_some() {
                        return Err(format!(
                            "step {}: a {k} step is recorded with the name {:?} and action {:?}",
                            i + 1,
                            step.name,
                            step.action
                        ));
                    }
                    if k == "timeout" {
                        game.timeout(&mut s, &mut ev)
                    } else {
                        game.next_round_with(&mut s, &mut ev)
                    }
                }
                k => return Err(format!("step {}: unknown step kind `{k}`", i + 1)),
            };
            res.map_err(|e| format!("step {} ({}): {e}", i + 1, step.name))?;
            let got: Vec<serde_json::Value> =
                ev.0.iter()
                    .filter_map(|e| serde_json::to_value(e).ok())
                    .collect();
            let got = as_recorded(got, &step.events);
            if step.round != s.round() {
                return Err(format!(
                    "step {} ({}) is recorded in round {}, but replays in round {}",
                    i + 1,
                    step.name,
                    step.round,
                    s.round()
                ));
            }
            if got != step.events {
                return Err(format!(
                    "step {} ({}) does not replay to the recorded events: the transcript and this engine disagree",
                    i + 1,
                    step.name
                ));
            }
            if step.kind == "next-round" {
                log.push(String::new());
                log.push(round_intro(&game, &s, &names));
                log.extend(start_effects(&ev.0, &names, game.uses_pile()));
            } else {
                // The race line, as logged at the table, goes before the step's lines.
                if let Some(line) = &step.slap_race {
                    log.push(line.clone());
                }
                let k = known(&game, &before, &s, &ev.0, t.human_seat);
                log.extend(narrate_known(&ev.0, &names, game.uses_pile(), &k));
            }
            // Transcripts before 2026-12 kept only your time.
            if let (Some(ms), None) = (step.slap_ms, &step.slap_race) {
                log.push(format!("(your SLAP reaction: {ms} ms)"));
            }
            frames.push((s.clone(), log.len()));
        }
        // The recorded totals are those the steps lead to (a hand-edited
        // score would otherwise be shown as if it were the game's).
        if t.scores != s.scores() || t.match_winner != s.match_winner() {
            return Err(format!(
                "the recorded scores {:?} (match winner {:?}) are not what the steps replay to: {:?} ({:?})",
                t.scores,
                t.match_winner,
                s.scores(),
                s.match_winner()
            ));
        }
        Ok(Replay {
            t,
            game,
            names,
            frames,
            log,
        })
    }

    /// What step `i` (1-based; 0 = the deal) was, in words.
    pub fn step_title(&self, i: usize) -> String {
        if i == 0 {
            return "the deal".into();
        }
        let st = &self.t.steps[i - 1];
        match st.seat {
            Some(p) => format!("{} · {}", self.names.cap(p), st.name),
            None => st.name.clone(),
        }
    }
}

/// Seat `p`'s hand as one line ("Bot 2 (3 cards): R5 G7 wild"; "Your hand
/// (…)" for yours; "Bot 2: eliminated (C-7)" for a seat out of the match).
pub fn hand_line(r: &Replay, s: &State, p: usize) -> String {
    let who = if p == r.t.human_seat {
        "Your hand".to_string()
    } else {
        r.names.cap(p)
    };
    if !s.is_active(p) {
        return format!("{who}: eliminated (C-7)");
    }
    let hand: Vec<String> = sorted_hand(s.hand_faces(&r.game, p))
        .iter()
        .map(|f| f.name())
        .collect();
    format!("{who} ({}): {}", cards(hand.len()), hand.join(" "))
        .trim_end()
        .to_string()
}

/// Prints the whole game as text: each step's log lines, then the hands
/// (replay is after the game, so every hand is shown): all of them after
/// each deal, and after any other step those that changed.
pub fn print_plain(r: &Replay) {
    let mut shown = 0;
    for (i, (s, upto)) in r.frames.iter().enumerate() {
        if i > 0 {
            println!("[step {}/{}] {}", i, r.frames.len() - 1, r.step_title(i));
        }
        for l in &r.log[shown..*upto] {
            if l.is_empty() {
                println!();
            } else {
                println!("  {l}");
            }
        }
        shown = *upto;
        let deal = i == 0 || r.t.steps[i - 1].kind == "next-round";
        for p in 0..s.num_players() {
            let changed = i > 0 && r.frames[i - 1].0.hand(p) != s.hand(p);
            if deal || changed {
                println!("    {}", hand_line(r, s, p));
            }
        }
        if s.is_round_over() && i + 1 < r.frames.len() {
            println!("  {}", scores_line(&r.game, s, &r.names));
        }
        if i + 1 == r.frames.len() {
            let scores = scores_line(&r.game, s, &r.names);
            println!(
                "End: {}. {}",
                prompt(&r.game, s, r.t.human_seat, &r.names),
                scores
            );
        }
    }
}

/// The full-screen replay viewer.
pub fn run_tui(r: Replay, colour_blind: bool) -> CmdResult {
    let mut i = 0usize;
    let last = r.frames.len() - 1;
    let stop = super::tui::stop_signal();
    let mut typeahead = Typeahead::new();
    let mut terminal = ratatui::try_init().map_err(|e| {
        format!("cannot open the terminal ({e}): use --plain for line-based output")
    })?;
    let mut hand_scroll = 0usize;
    let res = (|| -> Result<(), String> {
        while !stop.load(Ordering::SeqCst) {
            let (s, upto) = &r.frames[i];
            let view = View {
                game: &r.game,
                state: s,
                names: &r.names,
                human: r.t.human_seat,
                log: &r.log[..*upto],
                log_scroll: 0,
                title: format!(
                    "Replay — {} · {} players · seed {} · step {i}/{last}: {}",
                    r.game.rules().name,
                    r.t.players,
                    r.t.seed,
                    r.step_title(i)
                ),
                cursor: None,
                legal: 0,
                message: None,
                status: prompt(&r.game, s, r.t.human_seat, &r.names),
                launcher_anim: None,
                colour_blind,
                reveal: true,
                hand_scroll,
                overlay: Overlay::None,
                keys: "Enter/→ next · ← back · Home/End first/last · ↑↓ scroll hands · q quit"
                    .into(),
            };
            let size = terminal.size().map_err(|e| e.to_string())?;
            let limit = render::hand_scroll_limit(&view, Rect::new(0, 0, size.width, size.height));
            hand_scroll = hand_scroll.min(limit);
            terminal
                .draw(|f| render::draw(f, &view))
                .map_err(|e| e.to_string())?;
            // A long paste's unread tail is dropped (no message: nothing here takes text).
            let mut quit = false;
            typeahead
                .keys(Duration::from_millis(200), |k| {
                    match k.code {
                        KeyCode::Char('q') | KeyCode::Esc => quit = true,
                        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                            quit = true
                        }
                        KeyCode::Enter
                        | KeyCode::Right
                        | KeyCode::Char('l')
                        | KeyCode::Char(' ') => i = (i + 1).min(last),
                        KeyCode::Left | KeyCode::Char('h') | KeyCode::Backspace => {
                            i = i.saturating_sub(1)
                        }
                        KeyCode::Home => i = 0,
                        KeyCode::End => i = last,
                        KeyCode::Up | KeyCode::Char('k') => {
                            hand_scroll = hand_scroll.saturating_sub(1)
                        }
                        KeyCode::Down | KeyCode::Char('j') => {
                            hand_scroll = (hand_scroll + 1).min(limit)
                        }
                        _ => {}
                    }
                    !quit
                })
                .map_err(|e| e.to_string())?;
            if quit {
                return Ok(());
            }
        }
        Ok(())
    })();
    super::tui::restore_terminal();
    if stop.load(Ordering::SeqCst) {
        super::tui::exit_interrupted();
    }
    res
}

/// The replayed events `got` in the form of the `recorded` ones: a challenge
/// event recorded before 2026-11-24 has no `shown` (the offender's hand,
/// F-6), so the replayed one is compared without it.
fn as_recorded(
    mut got: Vec<serde_json::Value>,
    recorded: &[serde_json::Value],
) -> Vec<serde_json::Value> {
    for (g, r) in got.iter_mut().zip(recorded) {
        if r["event"] == "challenge"
            && r.get("shown").is_none()
            && let Some(o) = g.as_object_mut()
        {
            o.remove("shown");
        }
    }
    got
}

#[cfg(test)]
mod as_recorded_tests {
    use super::as_recorded;
    use serde_json::json;

    #[test]
    fn old_challenge_events_are_compared_without_the_shown_hand() {
        let replayed = || {
            vec![
                json!({"event": "played", "seat": 0, "face": "wild-draw4"}),
                json!({"event": "challenge", "challenger": 1, "offender": 0, "bluff": true, "shown": ["R3"]}),
            ]
        };
        let old = vec![
            json!({"event": "played", "seat": 0, "face": "wild-draw4"}),
            json!({"event": "challenge", "challenger": 1, "offender": 0, "bluff": true}),
        ];
        assert_eq!(as_recorded(replayed(), &old), old);
        // A new transcript keeps the hand, and a different hand still differs.
        let new = replayed();
        assert_eq!(as_recorded(replayed(), &new), new);
        let mut other = replayed();
        other[1]["shown"] = json!(["G7"]);
        assert_ne!(as_recorded(replayed(), &other), other);
    }
}
