//! Card faces: colour + kind, packed in one byte.
//!
//! A *face* is what is printed on a card ("Red 5", "Wild Attack-Attack"). The
//! same face may appear several times in a deck; the engine tracks physical
//! cards by index in the deck and faces by [`Face`]. There are [`NUM_FACES`]
//! faces across every edition: 18 coloured kinds x 4 colours, then 7 wild kinds.
//!
//! Names are short and stable: `R5`, `Y-skip`, `G-hit2`, `wild`,
//! `wild-attack-attack`. [`Face::parse`] reads them back (case-insensitive).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Number of colours (red, yellow, green, blue).
pub const NUM_COLOURS: usize = 4;
/// Number of coloured kinds (numbers 0-9 and the coloured action cards).
pub const NUM_COLOURED_KINDS: usize = 18;
/// Number of wild kinds.
pub const NUM_WILD_KINDS: usize = 7;
/// Number of kinds of every sort.
pub const NUM_KINDS: usize = NUM_COLOURED_KINDS + NUM_WILD_KINDS;
/// Number of distinct faces (coloured kinds x colours + wild kinds).
pub const NUM_FACES: usize = NUM_COLOURED_KINDS * NUM_COLOURS + NUM_WILD_KINDS;

/// One of the four card colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Colour {
    /// Red.
    Red = 0,
    /// Yellow.
    Yellow = 1,
    /// Green.
    Green = 2,
    /// Blue.
    Blue = 3,
}

impl Colour {
    /// All colours in index order.
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Yellow, Colour::Green, Colour::Blue];

    /// The colour with this index (0..4).
    pub fn from_index(i: usize) -> Option<Colour> {
        Self::ALL.get(i).copied()
    }

    /// Index 0..4.
    pub fn index(self) -> usize {
        self as usize
    }

    /// One-letter code used in face names.
    pub fn letter(self) -> char {
        ['R', 'Y', 'G', 'B'][self as usize]
    }

    /// Lower-case full name.
    pub fn name(self) -> &'static str {
        ["red", "yellow", "green", "blue"][self as usize]
    }

    /// Parses a letter (`r`) or a name (`red`), case-insensitive.
    pub fn parse(s: &str) -> Option<Colour> {
        let s = s.to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|c| s == c.name() || s == c.letter().to_ascii_lowercase().to_string())
    }
}

/// What is printed on a card, colour aside. Serialized by its [`Kind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// Number 0.
    N0 = 0,
    /// Number 1.
    N1,
    /// Number 2.
    N2,
    /// Number 3.
    N3,
    /// Number 4.
    N4,
    /// Number 5.
    N5,
    /// Number 6.
    N6,
    /// Number 7.
    N7,
    /// Number 8.
    N8,
    /// Number 9.
    N9,
    /// Skip.
    Skip,
    /// Reverse.
    Reverse,
    /// Draw Two (Flash, classic).
    Draw2,
    /// Hit 1 (attack-2010).
    Hit1,
    /// Hit 2 (every Attack edition).
    Hit2,
    /// Discard All (Attack).
    DiscardAll,
    /// Trade Hands (attack-1999).
    TradeHands,
    /// SLAP (Flash).
    Slap,
    /// Wild.
    Wild,
    /// Wild Draw Four (Flash, classic).
    WildDraw4,
    /// Wild All Hit (attack-1999).
    WildAllHit,
    /// Wild Hit-Fire (attack-1999).
    WildHitFire,
    /// Wild Attack-Attack (attack-2010, attack-modern).
    WildAttackAttack,
    /// Wild Customizable (attack-modern).
    WildCustom,
    /// Wild Hit 4 (attack-modern).
    WildHit4,
}

impl Kind {
    /// Every kind in index order.
    pub const ALL: [Kind; NUM_KINDS] = [
        Kind::N0,
        Kind::N1,
        Kind::N2,
        Kind::N3,
        Kind::N4,
        Kind::N5,
        Kind::N6,
        Kind::N7,
        Kind::N8,
        Kind::N9,
        Kind::Skip,
        Kind::Reverse,
        Kind::Draw2,
        Kind::Hit1,
        Kind::Hit2,
        Kind::DiscardAll,
        Kind::TradeHands,
        Kind::Slap,
        Kind::Wild,
        Kind::WildDraw4,
        Kind::WildAllHit,
        Kind::WildHitFire,
        Kind::WildAttackAttack,
        Kind::WildCustom,
        Kind::WildHit4,
    ];

    /// Index 0..NUM_KINDS.
    pub fn index(self) -> usize {
        self as usize
    }

    /// True for wild kinds (no colour of their own).
    pub fn is_wild(self) -> bool {
        self as usize >= NUM_COLOURED_KINDS
    }

    /// The number printed on a number card.
    pub fn number(self) -> Option<u8> {
        ((self as u8) < 10).then_some(self as u8)
    }

    /// Stable kebab-case name (`skip`, `hit2`, `wild-attack-attack`; numbers are `0`..`9`).
    pub fn name(self) -> &'static str {
        const NAMES: [&str; NUM_KINDS] = [
            "0",
            "1",
            "2",
            "3",
            "4",
            "5",
            "6",
            "7",
            "8",
            "9",
            "skip",
            "reverse",
            "draw2",
            "hit1",
            "hit2",
            "discard-all",
            "trade-hands",
            "slap",
            "wild",
            "wild-draw4",
            "wild-all-hit",
            "wild-hit-fire",
            "wild-attack-attack",
            "wild-custom",
            "wild-hit4",
        ];
        NAMES[self as usize]
    }

    /// Parses a kind name as written by [`Kind::name`].
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.to_ascii_lowercase();
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// A card face, packed: coloured faces are `kind * 4 + colour` (0..72), wild
/// faces `72 + (kind - 18)` (72..79).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Face(pub u8);

impl Face {
    /// The face with this kind and colour; `None` for wild kinds, which take no colour.
    pub fn coloured(kind: Kind, colour: Colour) -> Option<Face> {
        (!kind.is_wild()).then(|| Face(kind as u8 * 4 + colour as u8))
    }

    /// The face of a wild kind; `None` for coloured kinds.
    pub fn wild(kind: Kind) -> Option<Face> {
        kind.is_wild().then(|| {
            Face((NUM_COLOURED_KINDS * NUM_COLOURS) as u8 + kind as u8 - NUM_COLOURED_KINDS as u8)
        })
    }

    /// The face for a kind and an optional colour (wild kinds ignore the colour).
    pub fn new(kind: Kind, colour: Option<Colour>) -> Option<Face> {
        if kind.is_wild() {
            Face::wild(kind)
        } else {
            Face::coloured(kind, colour?)
        }
    }

    /// Index 0..NUM_FACES.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The face with this index, if in range.
    pub fn from_index(i: usize) -> Option<Face> {
        (i < NUM_FACES).then_some(Face(i as u8))
    }

    /// Every face in index order.
    pub fn all() -> impl Iterator<Item = Face> {
        (0..NUM_FACES as u8).map(Face)
    }

    /// The kind printed on the face.
    ///
    /// # Panics
    /// For a face past the 79 (`Face(79)` and above; [`Face::from_index`]
    /// and [`Face::parse`] never make one).
    pub fn kind(self) -> Kind {
        let i = self.0 as usize;
        if i < NUM_COLOURED_KINDS * NUM_COLOURS {
            Kind::ALL[i / 4]
        } else {
            Kind::ALL[NUM_COLOURED_KINDS + i - NUM_COLOURED_KINDS * NUM_COLOURS]
        }
    }

    /// The face's colour; `None` for wilds.
    pub fn colour(self) -> Option<Colour> {
        let i = self.0 as usize;
        (i < NUM_COLOURED_KINDS * NUM_COLOURS).then(|| Colour::ALL[i % 4])
    }

    /// True for a wild face.
    pub fn is_wild(self) -> bool {
        self.colour().is_none()
    }

    /// Stable name: `R5`, `Y-skip`, `wild-hit4` (`?<id>` for an id past the 79 faces).
    pub fn name(self) -> String {
        if self.index() >= NUM_FACES {
            return format!("?{}", self.0);
        }
        match self.colour() {
            None => self.kind().name().to_string(),
            Some(c) => match self.kind().number() {
                Some(n) => format!("{}{}", c.letter(), n),
                None => format!("{}-{}", c.letter(), self.kind().name()),
            },
        }
    }

    /// Parses a face name as written by [`Face::name`] (case-insensitive).
    pub fn parse(s: &str) -> Option<Face> {
        let t = s.trim();
        if let Some(k) = Kind::parse(t).filter(|k| k.is_wild()) {
            return Face::wild(k);
        }
        let mut chars = t.chars();
        let colour = Colour::parse(&chars.next()?.to_string())?;
        let rest = chars.as_str().trim_start_matches('-');
        let kind = Kind::parse(rest)?;
        Face::coloured(kind, colour)
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Face {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Face {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Face::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown card face `{s}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_names_round_trip() {
        for f in Face::all() {
            assert_eq!(Face::parse(&f.name()), Some(f), "{}", f.name());
        }
        assert_eq!(Face::parse("r5"), Face::coloured(Kind::N5, Colour::Red));
        assert_eq!(Face::parse("B-hit2").unwrap().kind(), Kind::Hit2);
        assert_eq!(
            Face::parse("wild-attack-attack").unwrap().kind(),
            Kind::WildAttackAttack
        );
        assert_eq!(Face::parse("X5"), None);
        assert_eq!(Face::parse("R-wild"), None);
    }

    #[test]
    fn face_layout() {
        assert_eq!(NUM_FACES, 79);
        let f = Face::coloured(Kind::Slap, Colour::Blue).unwrap();
        assert_eq!(f.index(), 71);
        assert_eq!(Face::wild(Kind::Wild).unwrap().index(), 72);
        assert_eq!(Face::wild(Kind::WildHit4).unwrap().index(), 78);
        for f in Face::all() {
            assert_eq!(Face::new(f.kind(), f.colour()), Some(f));
            assert_eq!(f.is_wild(), f.kind().is_wild());
        }
    }
}

/// `FromStr` through `parse` (and, unless the type has its own, `Display` as
/// the stable name), for a type with `name(self)` and
/// `parse(&str) -> Option<Self>`.
macro_rules! display_and_parse {
    ($t:ty, $what:literal) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.name())
            }
        }

        crate::card::display_and_parse!($t, $what, parse only);
    };
    ($t:ty, $what:literal, parse only) => {
        impl std::str::FromStr for $t {
            type Err = crate::error::ParseNameError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t>::parse(s).ok_or_else(|| crate::error::ParseNameError {
                    what: $what,
                    text: s.to_string(),
                })
            }
        }
    };
}
pub(crate) use display_and_parse;

display_and_parse!(Colour, "a colour");
display_and_parse!(Kind, "a card kind");
// Face has its own `Display` above.
display_and_parse!(Face, "a face", parse only);
