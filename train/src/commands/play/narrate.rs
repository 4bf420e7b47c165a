//! The log: one sentence per play, written from the engine's events
//! ("Bot 2 played Yellow Hit 2 → you press twice: 0 + 3 cards").

use super::cards::{cards, colour_long, face_long, times};
use uno_env::Event;

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

    /// `you_form` for the human, `other_form` for a bot ("press" / "presses").
    pub fn verb<'a>(&self, seat: usize, you_form: &'a str, other_form: &'a str) -> &'a str {
        if seat == self.human {
            you_form
        } else {
            other_form
        }
    }
}

/// Summarises the cards `seat` takes from the events starting at `i`:
/// consecutive presses ("press twice: 0 + 3 cards") or one draw ("draw 2").
/// Returns the text (empty when there is nothing to take) and the next index.
fn take_summary(ev: &[Event], mut i: usize, seat: usize, names: &Names) -> (String, usize) {
    let mut presses = Vec::new();
    while let Some(Event::Pressed { seat: s, fired }) = ev.get(i) {
        if *s != seat {
            break;
        }
        presses.push(*fired);
        i += 1;
    }
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
        let text = format!(
            "{} {} {}: {}",
            names.subj(seat),
            names.verb(seat, "press", "presses"),
            times(presses.len()),
            tail
        );
        return (text, i);
    }
    if let Some(Event::Drew { seat: s, n }) = ev.get(i)
        && *s == seat
    {
        let text = format!(
            "{} {} {}",
            names.subj(seat),
            names.verb(seat, "draw", "draws"),
            cards(*n)
        );
        return (text, i + 1);
    }
    (String::new(), i)
}

/// Upper-cases the first letter.
fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
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

/// The log lines for one step's events.
pub fn narrate(ev: &[Event], names: &Names, uses_pile: bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    let push = |cur: &mut String, part: String| {
        if part.is_empty() {
            return;
        }
        if cur.is_empty() {
            *cur = capitalise(&part);
        } else {
            cur.push_str(" → ");
            cur.push_str(&part);
        }
    };
    let flush = |cur: &mut String, lines: &mut Vec<String>| {
        if !cur.is_empty() {
            lines.push(std::mem::take(cur));
        }
    };
    let mut i = 0;
    while i < ev.len() {
        let e = &ev[i];
        i += 1;
        match e {
            Event::Played { seat, face } => {
                flush(&mut cur, &mut lines);
                cur = format!("{} played {}", names.cap(*seat), face_long(*face));
            }
            Event::Colour { seat, colour } => {
                let part = if cur.is_empty() {
                    format!("{} named {}", names.cap(*seat), colour_long(*colour))
                } else {
                    format!("colour {}", colour_long(*colour))
                };
                push(&mut cur, part);
            }
            Event::Target { seat, target } => {
                let part = if cur.is_empty() {
                    format!("{} targets {}", names.cap(*seat), names.subj(*target))
                } else {
                    format!("at {}", names.subj(*target))
                };
                push(&mut cur, part);
            }
            Event::Hit { seat, n } => {
                let (t, next) = take_summary(ev, i, *seat, names);
                i = next;
                let part = if *n == 0 && !uses_pile {
                    format!("{} (until it fires)", t)
                } else {
                    t
                };
                push(&mut cur, part);
            }
            Event::Pressed { seat, fired }
                if cur.is_empty() && !matches!(ev.get(i), Some(Event::Pressed { .. })) =>
            {
                let what = if *fired == 0 {
                    "nothing".to_string()
                } else {
                    cards(*fired)
                };
                cur = format!("{} pressed the launcher: {what}", names.cap(*seat));
            }
            Event::Pressed { seat, .. } => {
                let (t, next) = take_summary(ev, i - 1, *seat, names);
                i = next;
                push(&mut cur, t);
            }
            Event::Drew { seat, .. } => {
                let (t, next) = take_summary(ev, i - 1, *seat, names);
                i = next;
                push(&mut cur, t);
            }
            Event::Skipped { seat } => {
                push(
                    &mut cur,
                    format!(
                        "{} {} skipped",
                        names.subj(*seat),
                        names.verb(*seat, "are", "is")
                    ),
                );
            }
            Event::Reversed => push(&mut cur, "direction reversed".into()),
            Event::Traded { a, b } => push(
                &mut cur,
                format!("{} and {} trade hands", names.subj(*a), names.subj(*b)),
            ),
            Event::DiscardedAll { n, .. } => {
                if *n > 0 {
                    push(&mut cur, format!("{} more discarded", cards(*n)));
                }
            }
            Event::Stacked { total, .. } => push(&mut cur, format!("Mega Hit stack now {total}")),
            Event::Uno {
                seat,
                called,
                caught,
            } => {
                let part = if *called {
                    format!(
                        "{} {} UNO!",
                        names.subj(*seat),
                        names.verb(*seat, "call", "calls")
                    )
                } else if *caught {
                    let (t, next) = take_summary(ev, i, *seat, names);
                    i = next;
                    format!(
                        "{} did not call UNO and {} caught: {}",
                        names.subj(*seat),
                        names.verb(*seat, "are", "is"),
                        t
                    )
                } else {
                    format!("{} did not call UNO (not caught)", names.subj(*seat))
                };
                push(&mut cur, part);
            }
            Event::Challenge {
                challenger,
                offender,
                bluff,
                shown,
            } => {
                let loser = if *bluff { *offender } else { *challenger };
                let (t, next) = take_summary(ev, i, loser, names);
                i = next;
                // F-6: the offender shows their hand to the challenger, so
                // the human sees it when they challenged.
                if *challenger == names.human && !shown.is_empty() {
                    let hand: Vec<String> = shown.iter().map(|f| f.name()).collect();
                    push(
                        &mut cur,
                        format!(
                            "{} {}: {}",
                            names.subj(*offender),
                            names.verb(*offender, "show", "shows"),
                            hand.join(" ")
                        ),
                    );
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
                push(&mut cur, part);
            }
            Event::Slap { loser } => {
                let (t, next) = take_summary(ev, i, *loser, names);
                i = next;
                push(
                    &mut cur,
                    format!(
                        "SLAP! {} {} slowest: {}",
                        names.subj(*loser),
                        names.verb(*loser, "were", "was"),
                        t
                    ),
                );
            }
            Event::Timeout { seat } => {
                flush(&mut cur, &mut lines);
                let (t, next) = take_summary(ev, i, *seat, names);
                i = next;
                cur = format!("{} ran out of time (F-3) → {}", names.cap(*seat), t);
            }
            Event::Refill { n } => {
                let what = if uses_pile {
                    format!("draw pile reshuffled from the discards ({})", cards(*n))
                } else {
                    format!("launcher reloaded with {}", cards(*n))
                };
                push(&mut cur, what);
            }
            Event::StartCard { face } => {
                flush(&mut cur, &mut lines);
                cur = format!("Start card: {}", face_long(*face));
            }
            Event::RoundOver { winner, points } => {
                flush(&mut cur, &mut lines);
                lines.push(match winner {
                    Some(w) => format!(
                        "{} {} the round: {} points",
                        names.cap(*w),
                        names.verb(*w, "win", "wins"),
                        points
                    ),
                    None => "The round was cut short (decision cap): no points".into(),
                });
            }
        }
    }
    flush(&mut cur, &mut lines);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use uno_env::Face;

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
