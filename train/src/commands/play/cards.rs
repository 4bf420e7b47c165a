//! How cards look: long names for the log, short labels for the hand,
//! terminal colours, colour-blind symbols, and the hand's sort order.

use ratatui::style::{Color, Modifier, Style};
use uno_env::{Colour, Face, Kind};

/// A kind's printed name ("Hit 2", "Wild Attack-Attack").
pub fn kind_long(k: Kind) -> String {
    match k {
        Kind::Skip => "Skip".into(),
        Kind::Reverse => "Reverse".into(),
        Kind::Draw2 => "Draw Two".into(),
        Kind::Hit1 => "Hit 1".into(),
        Kind::Hit2 => "Hit 2".into(),
        Kind::DiscardAll => "Discard All".into(),
        Kind::TradeHands => "Trade Hands".into(),
        Kind::Slap => "SLAP".into(),
        Kind::Wild => "Wild".into(),
        Kind::WildDraw4 => "Wild Draw Four".into(),
        Kind::WildAllHit => "Wild All Hit".into(),
        Kind::WildHitFire => "Wild Hit-Fire".into(),
        Kind::WildAttackAttack => "Wild Attack-Attack".into(),
        Kind::WildCustom => "Wild Customizable".into(),
        Kind::WildHit4 => "Wild Hit 4".into(),
        n => n.number().map(|d| d.to_string()).unwrap_or_default(),
    }
}

/// A colour's display name ("Red").
pub fn colour_long(c: Colour) -> &'static str {
    ["Red", "Yellow", "Green", "Blue"][c.index()]
}

/// What `seat` has shown of its hand this round, as the bots see it (the
/// observation's `history` piece and pressed-on flags): "named Red, pressed on
/// Blue" ("drew on Blue" in an edition with a draw pile, not a launcher);
/// empty when it has shown nothing.
pub fn shown(game: &uno_env::Game, st: &uno_env::State, seat: usize) -> String {
    let mut parts = Vec::new();
    if let Some(c) = st.named_colour(seat) {
        parts.push(format!("named {}", colour_long(c)));
    }
    if let Some(c) = st.last_played_colour(seat) {
        parts.push(format!("last played {}", colour_long(c)));
    }
    let pressed: Vec<&str> = st.pressed_colours(seat).map(colour_long).collect();
    if !pressed.is_empty() {
        let verb = if game.uses_pile() { "drew" } else { "pressed" };
        parts.push(format!("{verb} on {}", pressed.join("/")));
    }
    parts.join(", ")
}

/// A face as a person says it: "Red 5", "Yellow Hit 2", "Wild Attack-Attack".
pub fn face_long(f: Face) -> String {
    match f.colour() {
        Some(c) => format!("{} {}", colour_long(c), kind_long(f.kind())),
        None => kind_long(f.kind()),
    }
}

/// The colour-blind symbol of a colour (shape, not hue).
pub fn colour_symbol(c: Option<Colour>) -> char {
    match c {
        Some(Colour::Red) => '▲',
        Some(Colour::Yellow) => '●',
        Some(Colour::Green) => '■',
        Some(Colour::Blue) => '◆',
        None => '★',
    }
}

/// A card's label in the hand: its stable name (`R5`, `Y-hit2`, `wild`),
/// prefixed by the colour's symbol in colour-blind mode.
pub fn label(f: Face, colour_blind: bool) -> String {
    if colour_blind {
        format!("{}{}", colour_symbol(f.colour()), f.name())
    } else {
        f.name()
    }
}

/// The terminal colour of a card colour.
pub fn term_colour(c: Option<Colour>) -> Color {
    match c {
        Some(Colour::Red) => Color::Red,
        Some(Colour::Yellow) => Color::Yellow,
        Some(Colour::Green) => Color::Green,
        Some(Colour::Blue) => Color::Blue,
        None => Color::Magenta,
    }
}

/// Style of a card in the hand: bold on its colour when playable, dimmed otherwise.
pub fn card_style(f: Face, legal: bool, selected: bool) -> Style {
    let c = term_colour(f.colour());
    let mut s = if legal {
        let fg = if matches!(f.colour(), Some(Colour::Yellow) | Some(Colour::Green)) {
            Color::Black
        } else {
            Color::White
        };
        Style::default().bg(c).fg(fg).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(c).add_modifier(Modifier::DIM)
    };
    if selected {
        s = s.add_modifier(Modifier::UNDERLINED | Modifier::REVERSED);
    }
    s
}

/// Sort key of the hand: colour (wilds last), then kind.
pub fn sort_key(f: Face) -> (usize, usize) {
    (f.colour().map_or(4, |c| c.index()), f.kind().index())
}

/// The hand's faces, one per card, sorted by colour then kind.
pub fn sorted_hand(mut faces: Vec<Face>) -> Vec<Face> {
    faces.sort_by_key(|f| sort_key(*f));
    faces
}

/// Upper-cases the first letter.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// "once", "twice", "3 times".
pub fn times(n: usize) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

/// "1 card", "3 cards".
pub fn cards(n: usize) -> String {
    if n == 1 {
        "1 card".into()
    } else {
        format!("{n} cards")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uno_env::{Game, Rules, Scenario, action::Action};

    #[test]
    fn shown_lists_what_a_seat_revealed() {
        let g = Game::new(Rules::preset("classic").unwrap(), 3).unwrap();
        let f = |n: &str| Face::parse(n).unwrap();
        let sc = Scenario {
            hands: vec![
                vec![f("wild"), f("R7"), f("G2")],
                vec![f("G1"), f("B3")],
                vec![f("Y1"), f("Y4")],
            ],
            top: Some(f("R5")),
            ..Default::default()
        };
        let mut s = g.scenario(&sc).unwrap();
        let play = |actions: &[&str], s: &mut uno_env::State| {
            for a in actions {
                g.apply(s, Action::parse(a).unwrap().id()).unwrap();
            }
        };
        assert_eq!(shown(&g, &s, 0), "");
        play(&["play:R7", "draw", "pass"], &mut s);
        assert_eq!(shown(&g, &s, 0), "last played Red");
        assert_eq!(shown(&g, &s, 1), "drew on Red");
        play(&["draw", "pass", "play:wild", "colour:blue"], &mut s);
        assert_eq!(shown(&g, &s, 0), "named Blue, last played Red");
    }

    #[test]
    fn a_draw_pile_is_drawn_on_and_a_launcher_pressed_on() {
        let f = |n: &str| Face::parse(n).unwrap();
        for (preset, said) in [
            ("classic", "drew on Red"),
            ("flash", "drew on Red"),
            ("attack-2010", "pressed on Red"),
            ("attack-1999", "pressed on Red"),
        ] {
            let g = Game::new(Rules::preset(preset).unwrap(), 2).unwrap();
            let sc = Scenario {
                hands: vec![vec![f("R7"), f("G2")], vec![f("G1"), f("B3")]],
                top: Some(f("R5")),
                ..Default::default()
            };
            let mut s = g.scenario(&sc).unwrap();
            for a in ["play:R7", "draw"] {
                g.apply(&mut s, Action::parse(a).unwrap().id()).unwrap();
            }
            assert_eq!(shown(&g, &s, 1), said, "{preset}");
        }
    }
}
