//! The log: one sentence per play, written from the engine's events
//! ("Bot 2 played Yellow Hit 2 → you press twice: 0 + 3 cards").

use super::cards::{capitalise, cards, colour_long, face_long, sorted_hand, times};
use uno_env::game::iter_bits;
use uno_env::rules::Scoring;
use uno_env::{Event, Face, Game, Phase, State};

/// Names seats from the human's point of view ("you", "Bot 2").
#[derive(Clone, Debug)]
pub struct Names {
    /// Display name per seat.
    pub names: Vec<String>,
    /// The human's seat.
    pub human: usize,
}

impl Names {
    /// "You" at the human's seat, "Bot k" elsewhere.
    pub fn new(players: usize, human: usize) -> Names {
        let names = (0..players)
            .map(|p| {
                if p == human {
                    "You".to_string()
                } else {
                    format!("Bot {p}")
                }
            })
            .collect();
        Names { names, human }
    }

    /// The seat's name as a sentence subject in mid-sentence ("you", "Bot 2").
    pub fn subj(&self, seat: usize) -> String {
        if seat == self.human {
            "you".into()
        } else {
            self.names[seat].clone()
        }
    }

    /// The seat's name at the start of a sentence ("You", "Bot 2").
    pub fn cap(&self, seat: usize) -> String {
        self.names[seat].clone()
    }

    /// The seat's possessive at the start of a sentence ("Your", "Bot 2's").
    pub fn possessive(&self, seat: usize) -> String {
        if seat == self.human {
            "Your".into()
        } else {
            format!("{}'s", self.names[seat])
        }
    }

    /// `you_form` for the human, `other_form` for a bot ("press" / "presses").
    pub fn verb<'a>(&self, seat: usize, you_form: &'a str, other_form: &'a str) -> &'a str {
        if seat == self.human {
            you_form
        } else {
            other_form
        }
    }
}

/// What a step revealed beyond its events, read from the positions before
/// and after it (the engine's events carry counts, not cards): the cards a
/// Discard All sent to the pile (public), the cards the human took (shown to
/// the human only), the card whose effect resumes after an UNO call, and how
/// the round's end changed the scores (C-7).
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Cards a Discard All discarded besides the card played (A-5; public).
    pub discarded: Vec<Face>,
    /// Cards the human took in this step (their own hand: never a bot's).
    pub received: Vec<Face>,
    /// The card (and its owner) whose effect resumes after an UNO decision.
    pub pending: Option<(usize, Face)>,
    /// The match's scoring (C-7); `None` narrates the round's end as `winner`.
    pub scoring: Option<Scoring>,
    /// The points each seat got in the round that ended in this step.
    pub round_points: Vec<u32>,
    /// Match totals after the step.
    pub scores: Vec<u32>,
    /// Seats eliminated in this step (C-7 challenge).
    pub eliminated: Vec<usize>,
    /// The match's target score (C-7).
    pub target: u32,
    /// Seats still in the match after the step.
    pub active: usize,
    /// The match ended in this step.
    pub match_over: bool,
}

/// The sorted faces of the physical cards in `bits`.
fn faces_of(game: &Game, bits: u128) -> Vec<Face> {
    sorted_hand(iter_bits(bits).map(|c| game.face_of(c)).collect())
}

/// What the step from `before` to `after` (with `events`) revealed; `human`
/// is the seat whose drawn cards may be named.
pub fn known(game: &Game, before: &State, after: &State, events: &[Event], human: usize) -> Known {
    let mut k = Known::default();
    for e in events {
        if let Event::DiscardedAll { seat, n } = *e
            && n > 0
        {
            let mut gone = faces_of(game, before.hand(seat) & !after.hand(seat));
            let played = events.iter().find_map(|e| match *e {
                Event::Played { seat: s, face } if s == seat => Some(face),
                _ => None,
            });
            if let Some(p) = played
                && let Some(at) = gone.iter().position(|f| *f == p)
            {
                gone.remove(at);
            }
            // Only when the cards are certain (nothing else left the hand).
            if gone.len() == n {
                k.discarded = gone;
            }
        }
    }
    let took = events.iter().any(|e| {
        matches!(*e, Event::Pressed { seat, fired } if seat == human && fired > 0)
            || matches!(*e, Event::Drew { seat, n } if seat == human && n > 0)
    });
    let traded = events
        .iter()
        .any(|e| matches!(*e, Event::Traded { a, b } if a == human || b == human));
    if took && !traded {
        k.received = faces_of(game, after.hand(human) & !before.hand(human));
    }
    if before.phase() == Phase::UnoCall
        && let (Some(seat), Some(face)) = (before.current_player(), before.pending_face())
    {
        k.pending = Some((seat, face));
    }
    let opts = &game.rules().options;
    k.scoring = Some(opts.scoring);
    k.target = opts.target_score;
    k.scores = after.scores().to_vec();
    k.active = after.num_active();
    k.match_over = after.is_match_over();
    if events.iter().any(|e| matches!(e, Event::RoundOver { .. })) {
        k.round_points = after.round_points();
        k.eliminated = (0..after.num_players())
            .filter(|&p| before.is_active(p) && !after.is_active(p))
            .collect();
    }
    k
}

/// "R7, G2, wild".
fn list(faces: &[Face]) -> String {
    faces
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The log lines of a deal's events without the start card itself (it is in
/// the round's intro line): only its effect (F-8, K-3, A-7…), e.g. "Bot 1
/// draws 2 cards".
pub fn start_effects(ev: &[Event], names: &Names, uses_pile: bool) -> Vec<String> {
    narrate(ev, names, uses_pile)
        .into_iter()
        .filter_map(|l| match l.strip_prefix("Start card: ") {
            Some(rest) => rest.split_once(" → ").map(|(_, effect)| capitalise(effect)),
            None => Some(l),
        })
        .collect()
}

/// The log lines for one step's events (nothing known beyond them).
pub fn narrate(ev: &[Event], names: &Names, uses_pile: bool) -> Vec<String> {
    narrate_known(ev, names, uses_pile, &Known::default())
}

/// Builds the lines of one step: the sentence being written and those done.
struct Narrator<'a> {
    ev: &'a [Event],
    names: &'a Names,
    uses_pile: bool,
    known: &'a Known,
    lines: Vec<String>,
    cur: String,
    /// Starts the next part when the sentence is empty ("Bot 2's Red Reverse").
    prefix: Option<String>,
    /// The human's received cards were named.
    named_received: bool,
}

impl Narrator<'_> {
    fn push(&mut self, part: String) {
        if part.is_empty() {
            return;
        }
        if self.cur.is_empty() {
            match self.prefix.take() {
                Some(p) => self.cur = format!("{p} → {part}"),
                None => self.cur = capitalise(&part),
            }
        } else {
            self.cur.push_str(" → ");
            self.cur.push_str(&part);
        }
    }

    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.lines.push(std::mem::take(&mut self.cur));
        }
    }

    /// " (R7, G2)" after the human's cards, once per step.
    fn received(&mut self, seat: usize) -> String {
        if seat != self.names.human || self.named_received || self.known.received.is_empty() {
            return String::new();
        }
        self.named_received = true;
        format!(" ({})", list(&self.known.received))
    }

    /// Summarises the cards `seat` takes from the events starting at `i`:
    /// consecutive presses ("press twice: 0 + 3 cards") or one draw ("draw
    /// 2"), with a reload of the launcher or pile among them noted after.
    /// Returns the text (empty when there is nothing to take) and the next index.
    fn take(&mut self, mut i: usize, seat: usize) -> (String, usize) {
        let ev = self.ev;
        let names = self.names;
        let takes = |e: Option<&Event>| matches!(e, Some(Event::Pressed { seat: s, .. }) | Some(Event::Drew { seat: s, .. }) if *s == seat);
        let mut refills = Vec::new();
        let mut presses = Vec::new();
        let mut drew = None;
        loop {
            match ev.get(i) {
                Some(Event::Pressed { seat: s, fired }) if *s == seat && drew.is_none() => {
                    presses.push(*fired);
                    i += 1;
                }
                Some(Event::Drew { seat: s, n })
                    if *s == seat && presses.is_empty() && drew.is_none() =>
                {
                    drew = Some(*n);
                    i += 1;
                }
                // A reload in the middle of (or just before) the taking.
                Some(Event::Refill { n }) if takes(ev.get(i + 1)) && drew.is_none() => {
                    refills.push(*n);
                    i += 1;
                }
                _ => break,
            }
        }
        let reloaded: String = refills
            .iter()
            .map(|n| {
                if self.uses_pile {
                    format!(" (draw pile reshuffled from the discards: {})", cards(*n))
                } else {
                    format!(" (launcher reloaded with {})", cards(*n))
                }
            })
            .collect();
        if !presses.is_empty() {
            let total: usize = presses.iter().sum();
            let list: Vec<String> = presses.iter().map(|p| p.to_string()).collect();
            let tail = if presses.len() == 1 {
                if total == 0 {
                    "nothing".to_string()
                } else {
                    cards(total)
                }
            } else {
                format!("{} = {}", list.join(" + "), cards(total))
            };
            let mine = self.received(seat);
            let text = format!(
                "{} {} {}: {tail}{mine}{reloaded}",
                names.subj(seat),
                names.verb(seat, "press", "presses"),
                times(presses.len()),
            );
            return (text, i);
        }
        if let Some(n) = drew {
            let mine = self.received(seat);
            let text = format!(
                "{} {} {}{mine}{reloaded}",
                names.subj(seat),
                names.verb(seat, "draw", "draws"),
                cards(n)
            );
            return (text, i);
        }
        (String::new(), i)
    }

    /// The lines of a round's end under the match's scoring (C-7).
    fn round_over(&mut self, winner: Option<usize>, points: u32) {
        let names = self.names;
        let k = self.known;
        let Some(w) = winner else {
            self.lines
                .push("The round was cut short (decision cap): no points".into());
            return;
        };
        let wins = format!(
            "{} {} the round",
            names.cap(w),
            names.verb(w, "win", "wins")
        );
        match k.scoring {
            None | Some(Scoring::Winner) => {
                let total = k
                    .scores
                    .get(w)
                    .map_or(String::new(), |t| format!(" (total {t})"));
                self.lines.push(format!("{wins}: {points} points{total}"));
            }
            Some(_) => {
                // Penalty and challenge: each other player scores what they
                // hold, against them; the winner scores nothing (C-7).
                let taken: Vec<String> = k
                    .round_points
                    .iter()
                    .enumerate()
                    .filter(|&(p, &pt)| p != w && pt > 0)
                    .map(|(p, pt)| format!("{} +{pt}", names.cap(p)))
                    .collect();
                let taken = if taken.is_empty() {
                    "nobody else holds any".to_string()
                } else {
                    taken.join(", ")
                };
                self.lines.push(format!(
                    "{wins} (no penalty): penalty points for the cards left — {taken}"
                ));
            }
        }
        for &p in &k.eliminated {
            let total = k.scores.get(p).copied().unwrap_or(0);
            self.lines.push(format!(
                "{} total reaches {total} (target {}): {} {} eliminated (C-7)",
                names.possessive(p),
                k.target,
                names.subj(p),
                names.verb(p, "are", "is")
            ));
        }
        if k.scoring == Some(Scoring::Penalty) && k.match_over {
            self.lines.push(format!(
                "A total reached {}: the match ends and the lowest total wins (C-7)",
                k.target
            ));
        }
        if k.scoring == Some(Scoring::Challenge) && !k.match_over && k.active == 2 {
            self.lines.push(
                "Two players remain: they play one head-to-head hand with the two-player rules, and its winner wins the match (C-7)"
                    .into(),
            );
        }
    }
}

/// The log lines for one step's events, with what the positions around it
/// revealed ([`known`]).
pub fn narrate_known(ev: &[Event], names: &Names, uses_pile: bool, known: &Known) -> Vec<String> {
    let mut n = Narrator {
        ev,
        names,
        uses_pile,
        known,
        lines: Vec::new(),
        cur: String::new(),
        prefix: None,
        named_received: false,
    };
    let mut i = 0;
    while i < ev.len() {
        let e = &ev[i];
        i += 1;
        match e {
            Event::Played { seat, face } => {
                n.flush();
                n.prefix = None;
                n.cur = format!("{} played {}", names.cap(*seat), face_long(*face));
            }
            Event::Colour { seat, colour } => {
                let part = if n.cur.is_empty() && n.prefix.is_none() {
                    format!("{} named {}", names.cap(*seat), colour_long(*colour))
                } else {
                    format!("colour {}", colour_long(*colour))
                };
                n.push(part);
            }
            Event::Target { seat, target } => {
                let part = if n.cur.is_empty() && n.prefix.is_none() {
                    format!(
                        "{} {} {}",
                        names.cap(*seat),
                        names.verb(*seat, "target", "targets"),
                        names.subj(*target)
                    )
                } else {
                    format!("at {}", names.subj(*target))
                };
                n.push(part);
            }
            Event::Hit { seat, n: k } => {
                let (t, next) = n.take(i, *seat);
                i = next;
                let part = if *k == 0 && !uses_pile {
                    format!("{} (until it fires)", t)
                } else {
                    t
                };
                n.push(part);
            }
            Event::Pressed { seat, fired }
                if n.cur.is_empty()
                    && n.prefix.is_none()
                    && !matches!(ev.get(i), Some(Event::Pressed { .. })) =>
            {
                let what = if *fired == 0 {
                    "nothing".to_string()
                } else {
                    cards(*fired)
                };
                let mine = n.received(*seat);
                n.cur = format!("{} pressed the launcher: {what}{mine}", names.cap(*seat));
            }
            Event::Pressed { seat, .. } | Event::Drew { seat, .. } => {
                let (t, next) = n.take(i - 1, *seat);
                i = next;
                n.push(t);
            }
            Event::Skipped { seat } => {
                n.push(format!(
                    "{} {} skipped",
                    names.subj(*seat),
                    names.verb(*seat, "are", "is")
                ));
            }
            Event::Reversed => n.push("direction reversed".into()),
            Event::Traded { a, b } => n.push(format!(
                "{} and {} trade hands",
                names.subj(*a),
                names.subj(*b)
            )),
            Event::DiscardedAll { n: k, .. } => {
                if *k > 0 {
                    let part = if known.discarded.len() == *k {
                        format!("also discarded {}", list(&known.discarded))
                    } else {
                        format!("{} more discarded", cards(*k))
                    };
                    n.push(part);
                }
            }
            Event::Stacked { total, .. } => n.push(format!("Mega Hit stack now {total}")),
            Event::Uno {
                seat,
                called,
                caught,
            } => {
                // An UNO decision of its own (explicit UNO) is a sentence of
                // its own; the card's effect follows on the next line.
                let alone = n.cur.is_empty() && n.prefix.is_none();
                let part = if *called {
                    format!(
                        "{} {} UNO!",
                        names.subj(*seat),
                        names.verb(*seat, "call", "calls")
                    )
                } else if *caught {
                    let (t, next) = n.take(i, *seat);
                    i = next;
                    let t = if t.is_empty() { t } else { format!(": {t}") };
                    format!(
                        "{} did not call UNO and {} caught{t}",
                        names.subj(*seat),
                        names.verb(*seat, "are", "is"),
                    )
                } else {
                    format!("{} did not call UNO (not caught)", names.subj(*seat))
                };
                n.push(part);
                if alone {
                    n.flush();
                    if let Some((owner, face)) = known.pending {
                        n.prefix = Some(format!("{} {}", names.possessive(owner), face_long(face)));
                    }
                }
            }
            Event::Challenge {
                challenger,
                offender,
                bluff,
                shown,
            } => {
                let loser = if *bluff { *offender } else { *challenger };
                let (t, next) = n.take(i, loser);
                i = next;
                // F-6: the offender shows their hand to the challenger, so
                // the human sees it when they challenged.
                if *challenger == names.human && !shown.is_empty() {
                    let hand: Vec<String> = sorted_hand(shown.to_vec())
                        .iter()
                        .map(|f| f.name())
                        .collect();
                    n.push(format!(
                        "{} {}: {}",
                        names.subj(*offender),
                        names.verb(*offender, "show", "shows"),
                        hand.join(" ")
                    ));
                }
                let part = if *bluff {
                    format!(
                        "{} {}: it was a bluff! {}",
                        names.subj(*challenger),
                        names.verb(*challenger, "challenge", "challenges"),
                        t
                    )
                } else {
                    format!(
                        "{} {}: it was legal, {}",
                        names.subj(*challenger),
                        names.verb(*challenger, "challenge", "challenges"),
                        t
                    )
                };
                n.push(part);
            }
            Event::Slap { loser } => {
                let (t, next) = n.take(i, *loser);
                i = next;
                n.push(format!(
                    "SLAP! {} {} slowest: {}",
                    names.subj(*loser),
                    names.verb(*loser, "were", "was"),
                    t
                ));
            }
            Event::Timeout { seat } => {
                n.flush();
                n.prefix = None;
                let (t, next) = n.take(i, *seat);
                i = next;
                n.cur = format!("{} ran out of time (F-3) → {}", names.cap(*seat), t);
            }
            Event::Refill { n: k } => {
                let what = if uses_pile {
                    format!("draw pile reshuffled from the discards ({})", cards(*k))
                } else {
                    format!("launcher reloaded with {}", cards(*k))
                };
                n.push(what);
            }
            Event::StartCard { face } => {
                n.flush();
                n.prefix = None;
                n.cur = format!("Start card: {}", face_long(*face));
            }
            Event::RoundOver { winner, points } => {
                n.flush();
                n.round_over(*winner, *points);
            }
        }
    }
    n.flush();
    n.lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use uno_env::Face;

    use uno_env::action::{Action, DRAW, PASS};
    use uno_env::{EventLog, Rules, Scenario};

    fn f(n: &str) -> Face {
        Face::parse(n).unwrap()
    }

    /// Plays `action` and narrates it with what the positions revealed.
    fn step(g: &Game, s: &mut State, action: usize, names: &Names) -> Vec<String> {
        let before = s.clone();
        let mut ev = EventLog::default();
        g.apply_with(s, action, &mut ev).unwrap();
        let k = known(g, &before, s, &ev.0, names.human);
        narrate_known(&ev.0, names, g.uses_pile(), &k)
    }

    #[test]
    fn discard_all_names_the_discarded_cards() {
        // Every card played is public: A-5's extra cards are named.
        let g = Game::new(Rules::preset("attack-2010").unwrap(), 3).unwrap();
        let sc = Scenario {
            hands: vec![
                vec![f("Y-discard-all"), f("Y3"), f("Y7"), f("R5")],
                vec![f("G1"), f("B3")],
                vec![f("G2"), f("G4")],
            ],
            top: Some(f("Y1")),
            ..Default::default()
        };
        let mut s = g.scenario(&sc).unwrap();
        let names = Names::new(3, 1);
        let play = Action::parse("play:Y-discard-all").unwrap().id();
        assert_eq!(
            step(&g, &mut s, play, &names),
            vec!["Bot 0 played Yellow Discard All → also discarded Y3, Y7"]
        );
    }

    #[test]
    fn your_drawn_cards_are_named_and_the_bots_stay_anonymous() {
        let g = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
        let sc = Scenario {
            hands: vec![vec![f("R5"), f("R7")], vec![f("G1"), f("G3")]],
            top: Some(f("B9")),
            launcher: Some(vec![f("Y2"), f("Y4"), f("G8"), f("B1")]),
            ..Default::default()
        };
        let mut s = g.scenario(&sc).unwrap();
        let names = Names::new(2, 0);
        let mine = s.hand(0);
        let lines = step(&g, &mut s, DRAW, &names);
        let got = faces_of(&g, s.hand(0) & !mine);
        assert_eq!(got.len(), 1);
        assert_eq!(lines, vec![format!("You draw 1 card ({})", got[0].name())]);
        if s.phase() == Phase::AfterDraw {
            step(&g, &mut s, PASS, &names);
        }
        // The bot's draw: a count, never the card.
        let lines = step(&g, &mut s, DRAW, &names);
        assert_eq!(lines, vec!["Bot 1 draws 1 card"]);
    }

    #[test]
    fn an_uno_decision_is_its_own_line_and_the_card_effect_follows() {
        let names = Names::new(3, 0);
        let known = Known {
            pending: Some((2, f("Y-reverse"))),
            ..Default::default()
        };
        let ev = vec![
            Event::Uno {
                seat: 2,
                called: true,
                caught: false,
            },
            Event::Reversed,
        ];
        assert_eq!(
            narrate_known(&ev, &names, false, &known),
            vec![
                "Bot 2 calls UNO!",
                "Bot 2's Yellow Reverse → direction reversed"
            ]
        );
        // Caught, with the launcher reloaded before the penalty presses.
        let known = Known {
            pending: Some((0, f("Y-skip"))),
            ..Default::default()
        };
        let ev = vec![
            Event::Uno {
                seat: 0,
                called: false,
                caught: true,
            },
            Event::Refill { n: 40 },
            Event::Pressed { seat: 0, fired: 0 },
            Event::Pressed { seat: 0, fired: 5 },
            Event::Skipped { seat: 1 },
        ];
        assert_eq!(
            narrate_known(&ev, &names, false, &known),
            vec![
                "You did not call UNO and are caught: you press twice: 0 + 5 = 5 cards (launcher reloaded with 40 cards)",
                "Your Yellow Skip → Bot 1 is skipped"
            ]
        );
        let ev = vec![Event::Target { seat: 0, target: 1 }];
        assert_eq!(narrate(&ev, &names, false), vec!["You target Bot 1"]);
    }

    #[test]
    fn the_round_end_says_what_happens_to_the_scores_under_each_scoring() {
        // C-7: winner scores the others' cards; penalty and challenge give
        // each other player the points they hold; challenge eliminates.
        let names = Names::new(3, 0);
        let ev = vec![Event::RoundOver {
            winner: Some(1),
            points: 120,
        }];
        let winner = Known {
            scoring: Some(Scoring::Winner),
            scores: vec![0, 120, 0],
            round_points: vec![0, 120, 0],
            ..Default::default()
        };
        assert_eq!(
            narrate_known(&ev, &names, false, &winner),
            vec!["Bot 1 wins the round: 120 points (total 120)"]
        );
        let penalty = Known {
            scoring: Some(Scoring::Penalty),
            scores: vec![40, 0, 80],
            round_points: vec![40, 0, 80],
            target: 500,
            ..Default::default()
        };
        assert_eq!(
            narrate_known(&ev, &names, false, &penalty),
            vec![
                "Bot 1 wins the round (no penalty): penalty points for the cards left — You +40, Bot 2 +80"
            ]
        );
        let challenge = Known {
            scoring: Some(Scoring::Challenge),
            scores: vec![512, 0, 80],
            round_points: vec![40, 0, 80],
            eliminated: vec![0],
            target: 500,
            active: 2,
            ..Default::default()
        };
        let lines = narrate_known(&ev, &names, false, &challenge);
        assert_eq!(
            lines[1],
            "Your total reaches 512 (target 500): you are eliminated (C-7)"
        );
        assert!(lines[2].starts_with("Two players remain"), "{lines:?}");
    }

    #[test]
    fn hit_is_one_sentence() {
        let names = Names::new(3, 0);
        let ev = vec![
            Event::Played {
                seat: 2,
                face: Face::parse("Y-hit2").unwrap(),
            },
            Event::Hit { seat: 0, n: 2 },
            Event::Pressed { seat: 0, fired: 0 },
            Event::Pressed { seat: 0, fired: 3 },
        ];
        assert_eq!(
            narrate(&ev, &names, false),
            vec!["Bot 2 played Yellow Hit 2 → you press twice: 0 + 3 = 3 cards"]
        );
    }

    #[test]
    fn the_offenders_hand_is_shown_to_the_challenger_only() {
        // F-6: the offender shows their hand to the challenger.
        let shown = vec![Face::parse("R5").unwrap(), Face::parse("G7").unwrap()];
        let challenge = |challenger, offender| {
            vec![Event::Challenge {
                challenger,
                offender,
                bluff: true,
                shown: shown.clone(),
            }]
        };
        let names = Names::new(3, 0);
        let you = narrate(&challenge(0, 2), &names, false).join("\n");
        assert!(you.contains("Bot 2 shows: R5 G7"), "{you}");
        let bots = narrate(&challenge(1, 2), &names, false).join("\n");
        assert!(!bots.contains("R5"), "{bots}");
    }
}
