//! The game being played, independent of the front end: the engine's game
//! and state, the bots, the narrated log, and the transcript being recorded.

use super::bots::{BotChoice, build_seats};
use super::narrate::{Names, narrate};
use super::transcript::{FORMAT, Step, Transcript};
use super::{Args, cards};
use std::path::PathBuf;
use uno_agents::Agent;
use uno_env::{Event, EventLog, Game, Phase, State, action_name};

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
    /// Stop after this many rounds (0 = the whole match).
    pub max_rounds: usize,
}

impl Session {
    /// Deals the first round of a new match.
    pub fn new(game: Game, a: &Args, choice: &BotChoice) -> Result<Session, String> {
        let n = game.num_players();
        let bots = build_seats(&choice.spec, n, a.seat, a.seed)?;
        let state = game.new_state(a.seed);
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
            max_rounds: a.rounds,
        };
        s.log.push(format!(
            "{} · {} players · seed {} · {}",
            s.game.rules().name,
            n,
            a.seed,
            s.bot_note
        ));
        let intro = s.round_intro();
        s.log.push(intro);
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

    /// The current seat takes `action`; an illegal one is refused with the engine's reason.
    pub fn act(&mut self, action: usize) -> Result<(), String> {
        let seat = self
            .state
            .current_player()
            .ok_or_else(|| "the round is over".to_string())?;
        let mut ev = EventLog::default();
        self.game
            .apply_with(&mut self.state, action, &mut ev)
            .map_err(|e| e.to_string())?;
        self.record(
            "action",
            Some(seat),
            Some(action),
            action_name(action),
            ev.0,
        );
        Ok(())
    }

    /// The bot to move picks and plays its action; returns it.
    pub fn bot_step(&mut self) -> Option<usize> {
        let seat = self.state.current_player()?;
        let bot = self.bots.get_mut(seat)?.as_mut()?;
        let a = bot.act(&self.game, &self.state, seat);
        match self.act(a) {
            Ok(()) => Some(a),
            Err(e) => {
                self.log.push(format!("(bot error: {e})"));
                None
            }
        }
    }

    /// F-3: the current player ran out of time.
    pub fn timeout(&mut self) -> Result<(), String> {
        let seat = self.state.current_player();
        let mut ev = EventLog::default();
        self.game
            .timeout(&mut self.state, &mut ev)
            .map_err(|e| e.to_string())?;
        self.record("timeout", seat, None, "timeout".into(), ev.0);
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
        self.game
            .next_round_with(&mut self.state, &mut ev)
            .map_err(|e| e.to_string())?;
        let intro = self.round_intro();
        self.log.push(String::new());
        self.log.push(intro);
        self.record("next-round", None, None, "next-round".into(), ev.0);
        Ok(())
    }

    fn record(
        &mut self,
        kind: &str,
        seat: Option<usize>,
        action: Option<usize>,
        name: String,
        events: Vec<Event>,
    ) {
        let lines = narrate(&events, &self.names, self.uses_pile());
        let lines: Vec<String> = if kind == "next-round" {
            // The start card is already in the intro line; keep the start effects.
            lines
                .into_iter()
                .filter(|l| !l.starts_with("Start card"))
                .collect()
        } else {
            lines
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
        });
        self.transcript.scores = self.state.scores().to_vec();
        self.transcript.match_winner = self.state.match_winner();
        self.last_events = events;
        if self.state.is_round_over() {
            let _ = self.save();
        }
    }

    /// The seat that must race in a SLAP just played, if the human is among
    /// the opponents (the engine has already resolved it: F-7's reaction model).
    pub fn slap_race(&self) -> Option<usize> {
        let mut player = None;
        for e in &self.last_events {
            match e {
                Event::Played { seat, .. } => player = Some(*seat),
                Event::Slap { loser } if player != Some(self.human) => return Some(*loser),
                _ => {}
            }
        }
        None
    }

    /// Notes the human's SLAP reaction on the last step (display only).
    pub fn note_slap(&mut self, ms: Option<u64>, loser: usize) {
        let text = match ms {
            Some(ms) => format!(
                "Your SLAP: {ms} ms. The engine's reaction model (F-7) picked {} as slowest.",
                self.names.subj(loser)
            ),
            None => format!(
                "You did not slap in time. The engine's reaction model (F-7) picked {} as slowest.",
                self.names.subj(loser)
            ),
        };
        self.log.push(text);
        if let Some(step) = self.transcript.steps.last_mut() {
            step.slap_ms = ms;
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
        Phase::ChooseTarget => "choose a player".into(),
        Phase::AfterDraw => "play the drawn card or keep it (pass)".into(),
        Phase::Stack => format!(
            "hits pending ({}): stack a Hit card or press them all",
            state.pending_hits()
        ),
        Phase::Challenge => "a Wild Draw Four: challenge or accept".into(),
        Phase::UnoCall => "one card left: call UNO!".into(),
        Phase::BonusPlay => "bonus play: one more card, or pass".into(),
        Phase::RoundOver | Phase::MatchOver => String::new(),
    };
    format!("{who} [{}]: {what}", state.phase().name())
}
