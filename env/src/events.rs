//! What happened during a step, for logs, statistics and user interfaces.
//!
//! The engine reports every public event to an [`Events`] sink. The unit type
//! `()` ignores them all at no cost, which is what the hot path uses.

use crate::card::{Colour, Face};

/// Receives the events of a step. Every method defaults to doing nothing.
pub trait Events {
    /// `seat` played a card.
    fn played(&mut self, _seat: usize, _face: Face) {}
    /// `seat` pressed the launcher and it fired `fired` cards (0 = a miss).
    fn pressed(&mut self, _seat: usize, _fired: usize) {}
    /// `seat` drew `n` cards from the draw pile.
    fn drew(&mut self, _seat: usize, _n: usize) {}
    /// `seat` named a colour.
    fn colour(&mut self, _seat: usize, _colour: Colour) {}
    /// `seat` chose `target`.
    fn target(&mut self, _seat: usize, _target: usize) {}
    /// `seat` lost their turn.
    fn skipped(&mut self, _seat: usize) {}
    /// The direction of play reversed.
    fn reversed(&mut self) {}
    /// `seat` is hit for `n` presses/cards (before taking them).
    fn hit(&mut self, _seat: usize, _n: usize) {}
    /// `a` and `b` traded hands.
    fn traded(&mut self, _a: usize, _b: usize) {}
    /// `seat` discarded `n` extra cards with a Discard All.
    fn discarded_all(&mut self, _seat: usize, _n: usize) {}
    /// `seat` stacked a Hit card; the stack now totals `total`.
    fn stacked(&mut self, _seat: usize, _total: usize) {}
    /// `seat` called UNO, or did not (and was or was not caught).
    fn uno(&mut self, _seat: usize, _called: bool, _caught: bool) {}
    /// `challenger` challenged `offender`'s Wild Draw Four; `bluff` says
    /// whether it was illegal; `shown` is the hand the offender showed the
    /// challenger (F-6), by face in face order (the Wild Draw Four already played).
    fn challenge(&mut self, _challenger: usize, _offender: usize, _bluff: bool, _shown: &[Face]) {}
    /// `loser` was slowest to slap.
    fn slap(&mut self, _loser: usize) {}
    /// `seat` timed out (F-3).
    fn timeout(&mut self, _seat: usize) {}
    /// `n` cards went from the discard pile back into the launcher / draw pile.
    fn refill(&mut self, _n: usize) {}
    /// The start card was turned (after any returned ones).
    fn start_card(&mut self, _face: Face) {}
    /// The round ended; `winner` is `None` when it was cut short.
    fn round_over(&mut self, _winner: Option<usize>, _points: u32) {}

    /// F-7: the slowest seat of a SLAP race. `racers` is the bit set of seats
    /// in the race and `drawn` the engine's reaction-model pick (already drawn
    /// from the state's generator, so the chance stream is the same either
    /// way). An interactive game returns the real race's loser; a seat that is
    /// not a racer is ignored (`drawn` stands).
    fn slap_loser(&mut self, _racers: u16, drawn: usize) -> usize {
        drawn
    }
    /// C-4: whether `seat`, who did not call UNO, is caught. `drawn` is the
    /// engine's draw with `catch_probability` (already made); an interactive
    /// game may impose the real catch instead.
    fn uno_caught(&mut self, _seat: usize, drawn: bool) -> bool {
        drawn
    }
}

impl Events for () {}

/// An event, as a value (what [`EventLog`] records). Fields are as documented
/// on the matching [`Events`] method.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// See [`Events::played`].
    Played { seat: usize, face: Face },
    /// See [`Events::pressed`].
    Pressed { seat: usize, fired: usize },
    /// See [`Events::drew`].
    Drew { seat: usize, n: usize },
    /// See [`Events::colour`].
    Colour { seat: usize, colour: Colour },
    /// See [`Events::target`].
    Target { seat: usize, target: usize },
    /// See [`Events::skipped`].
    Skipped { seat: usize },
    /// See [`Events::reversed`].
    Reversed,
    /// See [`Events::hit`].
    Hit { seat: usize, n: usize },
    /// See [`Events::traded`].
    Traded { a: usize, b: usize },
    /// See [`Events::discarded_all`].
    DiscardedAll { seat: usize, n: usize },
    /// See [`Events::stacked`].
    Stacked { seat: usize, total: usize },
    /// See [`Events::uno`].
    Uno {
        seat: usize,
        called: bool,
        caught: bool,
    },
    /// See [`Events::challenge`].
    Challenge {
        challenger: usize,
        offender: usize,
        bluff: bool,
        /// Empty in transcripts written before 2026-11-24.
        #[serde(default)]
        shown: Vec<Face>,
    },
    /// See [`Events::slap`].
    Slap { loser: usize },
    /// See [`Events::timeout`].
    Timeout { seat: usize },
    /// See [`Events::refill`].
    Refill { n: usize },
    /// See [`Events::start_card`].
    StartCard { face: Face },
    /// See [`Events::round_over`].
    RoundOver { winner: Option<usize>, points: u32 },
}

/// Outcomes of the reaction races (F-7 SLAP, C-4 UNO catch) decided outside
/// the engine — by a person at the keyboard, or read back from a transcript —
/// and imposed on the next step by an [`EventLog`]. `None` keeps the engine's draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imposed {
    /// The SLAP race's slowest seat.
    pub slap_loser: Option<usize>,
    /// Whether the player who did not call UNO is caught.
    pub uno_caught: Option<bool>,
}

impl Imposed {
    /// The race outcomes recorded in `events` (a transcript step), to replay
    /// them exactly.
    pub fn from_events(events: &[Event]) -> Imposed {
        let mut out = Imposed::default();
        for e in events {
            match *e {
                Event::Slap { loser } => out.slap_loser = Some(loser),
                Event::Uno {
                    called: false,
                    caught,
                    ..
                } => out.uno_caught = Some(caught),
                _ => {}
            }
        }
        out
    }
}

/// Records every event as an [`Event`] value (`.0`), imposing the race
/// outcomes in `.1` (none by default).
#[derive(Clone, Debug, Default)]
pub struct EventLog(pub Vec<Event>, pub Imposed);

impl EventLog {
    /// An empty log that imposes `outcomes` on the step it records.
    pub fn imposing(outcomes: Imposed) -> EventLog {
        EventLog(Vec::new(), outcomes)
    }
}

impl Events for EventLog {
    fn played(&mut self, seat: usize, face: Face) {
        self.0.push(Event::Played { seat, face });
    }
    fn pressed(&mut self, seat: usize, fired: usize) {
        self.0.push(Event::Pressed { seat, fired });
    }
    fn drew(&mut self, seat: usize, n: usize) {
        self.0.push(Event::Drew { seat, n });
    }
    fn colour(&mut self, seat: usize, colour: Colour) {
        self.0.push(Event::Colour { seat, colour });
    }
    fn target(&mut self, seat: usize, target: usize) {
        self.0.push(Event::Target { seat, target });
    }
    fn skipped(&mut self, seat: usize) {
        self.0.push(Event::Skipped { seat });
    }
    fn reversed(&mut self) {
        self.0.push(Event::Reversed);
    }
    fn hit(&mut self, seat: usize, n: usize) {
        self.0.push(Event::Hit { seat, n });
    }
    fn traded(&mut self, a: usize, b: usize) {
        self.0.push(Event::Traded { a, b });
    }
    fn discarded_all(&mut self, seat: usize, n: usize) {
        self.0.push(Event::DiscardedAll { seat, n });
    }
    fn stacked(&mut self, seat: usize, total: usize) {
        self.0.push(Event::Stacked { seat, total });
    }
    fn uno(&mut self, seat: usize, called: bool, caught: bool) {
        self.0.push(Event::Uno {
            seat,
            called,
            caught,
        });
    }
    fn challenge(&mut self, challenger: usize, offender: usize, bluff: bool, shown: &[Face]) {
        self.0.push(Event::Challenge {
            challenger,
            offender,
            bluff,
            shown: shown.to_vec(),
        });
    }
    fn slap(&mut self, loser: usize) {
        self.0.push(Event::Slap { loser });
    }
    fn timeout(&mut self, seat: usize) {
        self.0.push(Event::Timeout { seat });
    }
    fn refill(&mut self, n: usize) {
        self.0.push(Event::Refill { n });
    }
    fn start_card(&mut self, face: Face) {
        self.0.push(Event::StartCard { face });
    }
    fn round_over(&mut self, winner: Option<usize>, points: u32) {
        self.0.push(Event::RoundOver { winner, points });
    }
    fn slap_loser(&mut self, _racers: u16, drawn: usize) -> usize {
        self.1.slap_loser.unwrap_or(drawn) // the engine ignores a non-racer
    }
    fn uno_caught(&mut self, _seat: usize, drawn: bool) -> bool {
        self.1.uno_caught.unwrap_or(drawn)
    }
}
