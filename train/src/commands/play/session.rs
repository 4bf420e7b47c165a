//! The game being played, independent of the front end: the engine's game
//! and state, the bots, the narrated log, and the transcript being recorded.

use super::bots::{BotChoice, build_seats};
use super::narrate::{Names, known, narrate_known, start_effects};
use super::transcript::{FORMAT, Step, Transcript};
use super::{Args, cards};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use uno_agents::Agent;
use uno_env::action::{CALL_UNO, NO_UNO};
use uno_env::rules::{Scoring, UnoCall};
use uno_env::{Effect, Event, EventLog, Game, Imposed, Phase, State, action_name};

/// A reaction race the human takes part in, found by previewing an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Race {
    /// F-7: the action makes a SLAP; the opponents of `slapper` race.
    Slap {
        /// The seat whose card is the SLAP.
        slapper: usize,
    },
    /// C-4: `seat` (a bot) plays on without calling UNO; you may catch them.
    Catch {
        /// The silent bot.
        seat: usize,
    },
}

/// One match at the table: you, the bots, the log and the transcript.
pub struct Session {
    /// The compiled rules and table size.
    pub game: Game,
    /// The current position.
    pub state: State,
    /// The human's seat.
    pub human: usize,
    /// One agent per bot seat (`None` at the human's seat).
    pub bots: Vec<Option<Box<dyn Agent + Send>>>,
    /// Seat names ("You", "Bot 2").
    pub names: Names,
    /// Every log line so far.
    pub log: Vec<String>,
    /// The game so far, as recorded.
    pub transcript: Transcript,
    /// Where the transcript is written, if anywhere.
    pub transcript_path: Option<PathBuf>,
    /// Which bot plays, and why.
    pub bot_note: String,
    /// The events of the last step.
    pub last_events: Vec<Event>,
    /// The cards you took in the last step (your own hand only).
    pub last_received: Vec<uno_env::Face>,
    /// Stop after this many rounds (0 = the whole match).
    pub max_rounds: usize,
    /// The bots' simulated reactions (SLAP times, forgotten UNO calls).
    reactions: ChaCha8Rng,
    /// A bot's mean SLAP reaction time, in ms.
    bot_reaction_ms: u64,
    /// Probability that a bot forgets to call UNO (explicit UNO only).
    forget_uno: f64,
    /// The SLAP race line of the step being played (recorded with it).
    race_note: Option<String>,
    /// A save of the transcript failed (told once in the log).
    save_failed: bool,
}

impl Session {
    /// Deals the first round of a new match.
    pub fn new(game: Game, a: &Args, choice: &BotChoice) -> Result<Session, String> {
        let n = game.num_players();
        let bots = build_seats(&choice.spec, n, a.seat, a.seed)?;
        let mut first_deal = EventLog::default();
        let state = game.new_state_with(a.seed, 0, &mut first_deal);
        let names = Names::new(n, a.seat);
        let transcript = Transcript {
            format: FORMAT.into(),
            rules: a.rules.clone(),
            rules_toml: game.rules().to_toml(),
            players: n,
            seed: a.seed,
            human_seat: a.seat,
            bot: choice.spec.to_string(),
            names: names.names.clone(),
            steps: Vec::new(),
            scores: vec![0; n],
            match_winner: None,
        };
        let mut s = Session {
            game,
            state,
            human: a.seat,
            bots,
            names,
            log: Vec::new(),
            transcript,
            transcript_path: a.transcript.clone(),
            bot_note: choice.note.clone(),
            last_events: Vec::new(),
            last_received: Vec::new(),
            max_rounds: a.rounds,
            reactions: ChaCha8Rng::seed_from_u64(a.seed ^ 0x51A9_5EED),
            bot_reaction_ms: a.bot_reaction_ms,
            forget_uno: a.bot_forgets_uno,
            race_note: None,
            save_failed: false,
        };
        // Written once now (no steps yet), so a path that cannot be written
        // is refused before the first move rather than after the game.
        s.save()?;
        s.log.push(format!(
            "{} · {} players · seed {} · {}",
            s.game.rules().name,
            n,
            a.seed,
            s.bot_note
        ));
        let intro = s.round_intro();
        s.log.push(intro);
        let effects = start_effects(&first_deal.0, &s.names, s.uses_pile());
        s.log.extend(effects);
        Ok(s)
    }

    /// "Round 1: Bot 2 deals; start card Red 5".
    pub fn round_intro(&self) -> String {
        round_intro(&self.game, &self.state, &self.names)
    }

    /// True when a draw pile (not a launcher) supplies cards.
    pub fn uses_pile(&self) -> bool {
        self.game.uses_pile()
    }

    /// True when it is the human's decision.
    pub fn human_to_act(&self) -> bool {
        self.state.current_player() == Some(self.human)
    }

    /// True when a bot must decide.
    pub fn bot_to_act(&self) -> bool {
        matches!(self.state.current_player(), Some(p) if p != self.human)
    }

    /// The legal actions now (bit mask).
    pub fn legal(&self) -> u128 {
        self.game.legal_mask(&self.state)
    }

    /// The current seat takes `action`; an illegal one is refused with the
    /// engine's reason. A race it starts that you are not in (a SLAP you
    /// play) is decided by the bots' simulated reactions.
    pub fn act(&mut self, action: usize) -> Result<(), String> {
        let imposed = self.bots_only_race(action);
        self.act_imposed(action, imposed)
    }

    /// [`act`](Self::act), with race outcomes decided at the table imposed.
    pub fn act_imposed(&mut self, action: usize, imposed: Imposed) -> Result<(), String> {
        let seat = self
            .state
            .current_player()
            .ok_or_else(|| "the round is over".to_string())?;
        let mut ev = EventLog::imposing(imposed);
        let before = self.state.clone();
        if let Err(e) = self.game.apply_with(&mut self.state, action, &mut ev) {
            self.race_note = None;
            return Err(e.to_string());
        }
        self.record(
            "action",
            Some(seat),
            Some(action),
            action_name(action),
            ev.0,
            &before,
        );
        Ok(())
    }

    /// The action the bot to move picks (not yet played). With explicit UNO
    /// a bot forgets to call with probability `--bot-forgets-uno`.
    pub fn bot_choice(&mut self) -> Option<usize> {
        let seat = self.state.current_player()?;
        let bot = self.bots.get_mut(seat)?.as_mut()?;
        let a = bot.act(&self.game, &self.state, seat);
        if a == CALL_UNO && self.reactions.random::<f64>() < self.forget_uno {
            return Some(NO_UNO);
        }
        Some(a)
    }

    /// Plays a bot's chosen action with race outcomes imposed; false (and a
    /// log line) if the engine refused it.
    fn bot_play(&mut self, a: usize, imposed: Imposed) -> bool {
        match self.act_imposed(a, imposed) {
            Ok(()) => true,
            Err(e) => {
                self.log.push(format!("(bot error: {e})"));
                false
            }
        }
    }

    /// The bot to move picks and plays its action, without you in any race
    /// (line mode: a race you are in keeps the engine's reaction model, F-7,
    /// and catches are the engine's `catch_probability`, C-4); returns it.
    pub fn bot_step(&mut self) -> Option<usize> {
        let a = self.bot_choice()?;
        self.bot_play_unraced(a).then_some(a)
    }

    /// Plays a bot's chosen action, any race in it decided without you.
    pub fn bot_play_unraced(&mut self, a: usize) -> bool {
        let imposed = self.bots_only_race(a);
        self.bot_play(a, imposed)
    }

    /// The race `action` by the current seat starts, if any, found by playing
    /// it on a copy of the position.
    pub fn race_of(&self, action: usize) -> Option<Race> {
        let actor = self.state.current_player()?;
        let mut probe = self.state.clone();
        let mut ev = EventLog::default();
        self.game.apply_with(&mut probe, action, &mut ev).ok()?;
        ev.0.iter().find_map(|e| match *e {
            Event::Slap { .. } => Some(Race::Slap { slapper: actor }),
            Event::Uno {
                seat,
                called: false,
                ..
            } if seat != self.human => Some(Race::Catch { seat }),
            _ => None,
        })
    }

    /// True when the human races in `race` (an opponent in a SLAP; anyone
    /// at the table may catch a silent bot), and only while still in the
    /// match (a seat eliminated under C-7 watches).
    pub fn human_races(&self, race: Race) -> bool {
        self.state.is_active(self.human)
            && match race {
                Race::Slap { slapper } => slapper != self.human,
                Race::Catch { .. } => self.game.rules().options.uno_call == UnoCall::Explicit,
            }
    }

    /// The simulated SLAP reaction times of the bots racing against `slapper`, in ms.
    pub fn bot_reactions(&mut self, slapper: usize) -> Vec<(usize, u64)> {
        let mean = self.bot_reaction_ms as f64;
        (0..self.state.num_players())
            .filter(|&p| p != slapper && p != self.human && self.state.is_active(p))
            .map(|p| {
                (
                    p,
                    (mean * self.reactions.random_range(0.6..1.4)).round() as u64,
                )
            })
            .collect()
    }

    /// The outcome of a race the human is not in: the slowest simulated bot
    /// in a SLAP; the engine's `catch_probability` for a catch.
    fn bots_only_race(&mut self, action: usize) -> Imposed {
        match self.race_of(action) {
            Some(Race::Slap { slapper }) if !self.human_races(Race::Slap { slapper }) => {
                let times = self.bot_reactions(slapper);
                let loser = slowest(&times, None);
                let line = race_line(&self.names, &times, None);
                self.log.push(line.clone());
                self.race_note = Some(line);
                Imposed {
                    slap_loser: loser,
                    uno_caught: None,
                }
            }
            _ => Imposed::default(),
        }
    }

    /// Plays a bot's SLAP with the race decided by your reaction (`None`: no
    /// key in time) against the bots' simulated times; the slowest draws (F-7).
    pub fn finish_slap(&mut self, action: usize, slapper: usize, human_ms: Option<u64>) -> bool {
        let times = self.bot_reactions(slapper);
        let loser = slowest(&times, Some((self.human, human_ms)));
        let line = race_line(&self.names, &times, Some(human_ms));
        let line_copy = line.clone();
        let ok = self.bot_play(
            action,
            Imposed {
                slap_loser: loser,
                uno_caught: None,
            },
        );
        if ok {
            // The race line goes before the step's own lines ("… slowest: …").
            let at = self.log.len() - self.transcript.steps.last().map_or(0, |s| s.log.len());
            self.log.insert(at, line);
            if let Some(step) = self.transcript.steps.last_mut() {
                step.slap_ms = human_ms;
                step.slap_race = Some(line_copy);
            }
        }
        ok
    }

    /// Plays a bot's silent last-but-one card with the catch decided at the
    /// table (C-4): caught if you pressed the catch key in time; otherwise
    /// the other bots catch by `catch_probability` (none in a 2-player game).
    pub fn finish_catch(&mut self, action: usize, seat: usize, you_caught: bool) -> bool {
        let other_bots = (0..self.state.num_players())
            .any(|p| p != seat && p != self.human && self.state.is_active(p));
        let uno_caught = if you_caught {
            Some(true)
        } else if other_bots {
            None
        } else {
            Some(false)
        };
        if you_caught {
            self.log.push(format!(
                "You caught {} not calling UNO!",
                self.names.subj(seat)
            ));
        }
        self.bot_play(
            action,
            Imposed {
                slap_loser: None,
                uno_caught,
            },
        )
    }

    /// F-3: the current player ran out of time.
    pub fn timeout(&mut self) -> Result<(), String> {
        let seat = self.state.current_player();
        let mut ev = EventLog::default();
        let before = self.state.clone();
        self.game
            .timeout(&mut self.state, &mut ev)
            .map_err(|e| e.to_string())?;
        self.record("timeout", seat, None, "timeout".into(), ev.0, &before);
        Ok(())
    }

    /// True when another round may be dealt (the round is over, the match is
    /// not, and `--rounds` is not reached).
    pub fn can_continue(&self) -> bool {
        self.state.phase() == Phase::RoundOver
            && (self.max_rounds == 0 || self.state.round() < self.max_rounds)
    }

    /// Deals the next round of the match.
    pub fn next_round(&mut self) -> Result<(), String> {
        let mut ev = EventLog::default();
        let before = self.state.clone();
        self.game
            .next_round_with(&mut self.state, &mut ev)
            .map_err(|e| e.to_string())?;
        let intro = self.round_intro();
        self.log.push(String::new());
        self.log.push(intro);
        self.record("next-round", None, None, "next-round".into(), ev.0, &before);
        Ok(())
    }

    fn record(
        &mut self,
        kind: &str,
        seat: Option<usize>,
        action: Option<usize>,
        name: String,
        events: Vec<Event>,
        before: &State,
    ) {
        self.last_received.clear();
        let lines = if kind == "next-round" {
            start_effects(&events, &self.names, self.uses_pile())
        } else {
            let k = known(&self.game, before, &self.state, &events, self.human);
            self.last_received = k.received.clone();
            narrate_known(&events, &self.names, self.uses_pile(), &k)
        };
        self.log.extend(lines.iter().cloned());
        self.transcript.steps.push(Step {
            kind: kind.into(),
            round: self.state.round(),
            seat,
            human: seat == Some(self.human) && kind != "next-round",
            action,
            name,
            events: events
                .iter()
                .filter_map(|e| serde_json::to_value(e).ok())
                .collect(),
            log: lines,
            slap_ms: None,
            slap_race: self.race_note.take(),
        });
        self.transcript.scores = self.state.scores().to_vec();
        self.transcript.match_winner = self.state.match_winner();
        self.last_events = events;
        // Written whenever the game waits for you (and at a round's end): a
        // game killed while you think (Ctrl-C, a closed terminal) keeps every
        // step so far. A failure is told once, in the log.
        let waits = self.state.is_round_over() || self.state.current_player() == Some(self.human);
        if waits
            && let Err(e) = self.save()
            && !self.save_failed
        {
            self.save_failed = true;
            self.log.push(format!("transcript not saved: {e}"));
        }
    }

    /// Writes the transcript, if a path was given.
    pub fn save(&mut self) -> Result<(), String> {
        match &self.transcript_path {
            Some(p) => self.transcript.save(p),
            None => Ok(()),
        }
    }

    /// A one-line description of the decision the current seat faces.
    pub fn prompt(&self) -> String {
        prompt(&self.game, &self.state, self.human, &self.names)
    }
}
/// The slowest racer: the bot with the longest time, or you (`you`: your
/// seat and time, `None` for no key in time, which always loses). Ties go to you.
fn slowest(bots: &[(usize, u64)], you: Option<(usize, Option<u64>)>) -> Option<usize> {
    bots.iter()
        .copied()
        .chain(you.map(|(seat, ms)| (seat, ms.unwrap_or(u64::MAX))))
        .max_by_key(|&(_, t)| t)
        .map(|(p, _)| p)
}

/// "SLAP race: you 412 ms, Bot 2 530 ms, Bot 3 655 ms."
fn race_line(names: &Names, bots: &[(usize, u64)], you: Option<Option<u64>>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(ms) = you {
        parts.push(match ms {
            Some(ms) => format!("you {ms} ms"),
            None => "you: no slap in time".into(),
        });
    }
    parts.extend(
        bots.iter()
            .map(|&(p, ms)| format!("{} {ms} ms", names.cap(p))),
    );
    format!("SLAP race: {}.", parts.join(", "))
}

/// "Round 1: Bot 2 deals; start card Red 5".
pub fn round_intro(game: &Game, state: &State, names: &Names) -> String {
    format!(
        "Round {}: {} {}; start card {}",
        state.round(),
        names.cap(state.dealer()),
        names.verb(state.dealer(), "deal", "deals"),
        cards::face_long(state.top_face(game))
    )
}

/// What a target is chosen for: the card being resolved (Trade Hands,
/// Wild Attack-Attack, or a targeted draw/hit card).
pub fn target_purpose(game: &Game, state: &State) -> String {
    // The start card's target is chosen with no card pending.
    let face = state.pending_face().unwrap_or_else(|| state.top_face(game));
    let name = cards::face_long(face);
    match game.effect_of(face.kind()) {
        Effect::TradeHands => "choose a player to trade hands with (Trade Hands)".into(),
        Effect::Hit { .. } => format!("choose who takes the {name}"),
        _ => "choose a player".into(),
    }
}

/// The match totals, eliminated seats marked (C-7): "You 40, Bot 1 512
/// (eliminated)"; under `penalty`/`challenge` the totals are penalty points.
pub fn scores_line(game: &Game, state: &State, names: &Names) -> String {
    let scores: Vec<String> = (0..state.num_players())
        .map(|p| {
            let out = if state.is_active(p) {
                ""
            } else {
                " (eliminated)"
            };
            format!("{} {}{out}", names.cap(p), state.scores()[p])
        })
        .collect();
    let note = scoring_rule(game).map_or(String::new(), |r| format!(" ({r})"));
    format!("Scores: {}{note}.", scores.join(", "))
}

/// How the totals count under penalty or challenge scoring (C-7), in words;
/// `None` under `winner` scoring, where they are plain points.
pub fn scoring_rule(game: &Game) -> Option<String> {
    let opts = &game.rules().options;
    let end = match opts.scoring {
        Scoring::Winner => return None,
        Scoring::Penalty => format!("at {} the lowest total wins", opts.target_score),
        Scoring::Challenge => format!("reaching {} eliminates", opts.target_score),
    };
    Some(format!(
        "penalty points (C-7): each player scores the cards they hold; {end}"
    ))
}

/// What pressing a pending Mega Hit stack does: every hit, or (A-8,
/// `stop_hits_on_fire`) presses that stop at the first press that fires.
pub fn stack_press(game: &Game, state: &State) -> String {
    let n = cards::times(state.pending_hits());
    if game.rules().options.stop_hits_on_fire {
        format!("press the launcher until it fires, at most {n}; A-8")
    } else {
        format!("press the launcher {n}")
    }
}

/// What the current seat must decide, in words.
pub fn prompt(game: &Game, state: &State, human: usize, names: &Names) -> String {
    let Some(p) = state.current_player() else {
        return match state.match_winner() {
            Some(w) => format!(
                "Match over: {} {} the match",
                names.cap(w),
                names.verb(w, "win", "wins")
            ),
            None => "Round over".into(),
        };
    };
    let who = if p == human {
        "Your turn".to_string()
    } else {
        format!("{}'s turn", names.cap(p))
    };
    let what = match state.phase() {
        Phase::Play => {
            if game.uses_pile() {
                "play a card or draw".to_string()
            } else {
                "play a card or press the launcher".to_string()
            }
        }
        Phase::ChooseColour => "name a colour".into(),
        Phase::ChooseTarget => target_purpose(game, state),
        Phase::AfterDraw => "play the drawn card or keep it (pass)".into(),
        Phase::Stack => format!(
            "hits pending ({}): stack a Hit card, or {}",
            state.pending_hits(),
            stack_press(game, state)
        ),
        Phase::Challenge => "a Wild Draw Four: challenge or accept".into(),
        Phase::UnoCall => "one card left: call UNO!".into(),
        Phase::BonusPlay => "bonus play: one more card, or pass".into(),
        Phase::RoundOver | Phase::MatchOver => String::new(),
    };
    format!("{who} [{}]: {what}", state.phase().name())
}

#[cfg(test)]
mod race_tests {
    use super::*;
    use uno_env::{Face, Scenario};

    /// A seat eliminated under C-7 watches: it neither slaps nor catches.
    #[test]
    fn an_eliminated_human_takes_part_in_no_race() {
        let toml = std::env::temp_dir().join(format!("uno-races-{}.toml", std::process::id()));
        std::fs::write(
            &toml,
            "preset = \"classic\"\n[options]\nuno_call = \"explicit\"\nscoring = \"challenge\"\n",
        )
        .unwrap();
        let (mut s, _) = crate::commands::play::test_session(&[
            "--rules",
            toml.to_str().unwrap(),
            "--players",
            "3",
            "--bot",
            "heuristic",
        ]);
        let _ = std::fs::remove_file(&toml);
        let catch = Race::Catch { seat: 1 };
        let slap = Race::Slap { slapper: 1 };
        assert!(s.human_races(catch) && s.human_races(slap));
        let face = |n: &str| Face::parse(n).unwrap();
        let sc = Scenario {
            hands: vec![
                vec![],
                vec![face("R5"), face("G7")],
                vec![face("Y3"), face("B2")],
            ],
            top: Some(face("R1")),
            current: 1,
            eliminated: vec![s.human],
            ..Scenario::default()
        };
        s.state = s.game.scenario(&sc).unwrap();
        assert!(!s.state.is_active(s.human));
        assert!(!s.human_races(catch) && !s.human_races(slap));
    }
}
