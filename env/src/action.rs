//! The action space: one fixed layout for every edition and table size.
//!
//! | ids | action | name |
//! | --- | --- | --- |
//! | 0..79 | play a card of face *f* (id = face index) | `play:R5`, `play:wild` |
//! | 79 | press the launcher / draw a card | `draw` (alias `press`) |
//! | 80 | pass: keep the drawn card (F-2) or skip the bonus play (A-21) | `pass` |
//! | 81..85 | name a colour after a wild | `colour:red` … `colour:blue` |
//! | 85..94 | choose the seat at relative offset 1..9 (Trade Hands, Attack-Attack, targeted draws) | `target:+1` … |
//! | 94 | challenge a Wild Draw Four (F-6) | `challenge` |
//! | 95 | accept it | `accept` |
//! | 96 | call UNO (C-4, `uno_call = explicit`) | `uno` |
//! | 97 | do not call UNO | `no-uno` |
//!
//! Wild colours and targets are their own decision phases, so the same few
//! ids serve every wild kind; see `docs/env.md` for the state machine.

use crate::card::{Colour, Face, NUM_FACES};

/// First play action (play face 0).
pub const PLAY: usize = 0;
/// Press the launcher / draw a card.
pub const DRAW: usize = NUM_FACES;
/// Pass.
pub const PASS: usize = DRAW + 1;
/// First colour action.
pub const COLOUR: usize = PASS + 1;
/// First target action (offset +1).
pub const TARGET: usize = COLOUR + 4;
/// Challenge a Wild Draw Four.
pub const CHALLENGE: usize = TARGET + 9;
/// Accept a Wild Draw Four.
pub const ACCEPT: usize = CHALLENGE + 1;
/// Call UNO.
pub const CALL_UNO: usize = ACCEPT + 1;
/// Do not call UNO.
pub const NO_UNO: usize = CALL_UNO + 1;
/// Size of the action space.
pub const NUM_ACTIONS: usize = NO_UNO + 1;

/// A decoded action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Play a card of this face.
    Play(Face),
    /// Press / draw.
    Draw,
    /// Pass.
    Pass,
    /// Name a colour.
    Colour(Colour),
    /// Choose the player `offset` seats further on (1..=9).
    Target(u8),
    /// Challenge a Wild Draw Four.
    Challenge,
    /// Accept a Wild Draw Four.
    Accept,
    /// Call UNO.
    CallUno,
    /// Do not call UNO.
    NoUno,
}

impl Action {
    /// The action with this id, if in range.
    pub fn from_id(id: usize) -> Option<Action> {
        Some(match id {
            i if i < DRAW => Action::Play(Face(i as u8)),
            DRAW => Action::Draw,
            PASS => Action::Pass,
            i if (COLOUR..TARGET).contains(&i) => Action::Colour(Colour::ALL[i - COLOUR]),
            i if (TARGET..CHALLENGE).contains(&i) => Action::Target((i - TARGET + 1) as u8),
            CHALLENGE => Action::Challenge,
            ACCEPT => Action::Accept,
            CALL_UNO => Action::CallUno,
            NO_UNO => Action::NoUno,
            _ => return None,
        })
    }

    /// The action's id; [`NUM_ACTIONS`], which no game accepts, for a payload
    /// outside the action space (a face id past 78, a target offset outside 1..=9).
    pub fn id(self) -> usize {
        match self {
            Action::Play(f) if f.index() >= NUM_FACES => NUM_ACTIONS,
            Action::Target(o) if !(1..=9).contains(&o) => NUM_ACTIONS,
            Action::Play(f) => PLAY + f.index(),
            Action::Draw => DRAW,
            Action::Pass => PASS,
            Action::Colour(c) => COLOUR + c.index(),
            Action::Target(o) => TARGET + o as usize - 1,
            Action::Challenge => CHALLENGE,
            Action::Accept => ACCEPT,
            Action::CallUno => CALL_UNO,
            Action::NoUno => NO_UNO,
        }
    }

    /// Stable human-readable name.
    pub fn name(self) -> String {
        match self {
            Action::Play(f) => format!("play:{}", f.name()),
            Action::Draw => "draw".into(),
            Action::Pass => "pass".into(),
            Action::Colour(c) => format!("colour:{}", c.name()),
            Action::Target(o) => format!("target:+{o}"),
            Action::Challenge => "challenge".into(),
            Action::Accept => "accept".into(),
            Action::CallUno => "uno".into(),
            Action::NoUno => "no-uno".into(),
        }
    }

    /// Parses a name written by [`Action::name`] (also `press`, `color:…`, a bare face name, or an id).
    pub fn parse(s: &str) -> Option<Action> {
        let s = s.trim().to_ascii_lowercase();
        if let Ok(id) = s.parse::<usize>() {
            return Action::from_id(id);
        }
        match s.as_str() {
            "draw" | "press" => return Some(Action::Draw),
            "pass" | "keep" => return Some(Action::Pass),
            "challenge" => return Some(Action::Challenge),
            "accept" => return Some(Action::Accept),
            "uno" => return Some(Action::CallUno),
            "no-uno" => return Some(Action::NoUno),
            _ => {}
        }
        if let Some((head, arg)) = s.split_once(':') {
            return match head {
                "play" => Face::parse(arg).map(Action::Play),
                "colour" | "color" => Colour::parse(arg).map(Action::Colour),
                "target" => {
                    let o: u8 = arg.trim_start_matches('+').parse().ok()?;
                    (1..=9).contains(&o).then_some(Action::Target(o))
                }
                _ => None,
            };
        }
        Face::parse(&s).map(Action::Play)
    }
}

/// Name of action `id` (`"?"` when out of range).
pub fn action_name(id: usize) -> String {
    Action::from_id(id).map_or_else(|| "?".into(), Action::name)
}

/// A set of action ids as a bit mask (bit i = action i).
pub type ActionMask = u128;

crate::card::display_and_parse!(Action, "an action");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_displays_and_parses_back_with_from_str() {
        use crate::{Colour, Face, Kind, Phase};
        for id in 0..NUM_ACTIONS {
            let a = Action::from_id(id).unwrap();
            assert_eq!(a.to_string().parse::<Action>(), Ok(a));
        }
        for c in Colour::ALL {
            assert_eq!(c.to_string().parse::<Colour>(), Ok(c));
        }
        for f in Face::all() {
            assert_eq!(f.to_string().parse::<Face>(), Ok(f));
            assert_eq!(f.kind().to_string().parse::<Kind>(), Ok(f.kind()));
        }
        for p in Phase::ALL {
            assert_eq!(p.to_string().parse::<Phase>(), Ok(p));
        }
        let e = "play:Q9".parse::<Action>().unwrap_err();
        assert_eq!(e.to_string(), "`play:Q9` is not the name of an action");
        assert!("dance".parse::<Phase>().is_err());
    }

    #[test]
    fn names_round_trip_for_every_id() {
        assert_eq!(NUM_ACTIONS, 98);
        for id in 0..NUM_ACTIONS {
            let a = Action::from_id(id).unwrap();
            assert_eq!(a.id(), id);
            assert_eq!(Action::parse(&a.name()), Some(a), "{}", a.name());
        }
        assert_eq!(Action::from_id(NUM_ACTIONS), None);
        assert_eq!(Action::parse("press"), Some(Action::Draw));
        assert_eq!(Action::parse("target:+10"), None);
        assert_eq!(Action::parse("play:Q9"), None);
    }
}
