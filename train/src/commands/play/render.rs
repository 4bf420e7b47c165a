//! Drawing the table with ratatui: title, opponents, top card and colour,
//! launcher, the log, your hand, the status line, and overlays (pickers,
//! round over, SLAP race, help). Used by `play` and `replay` alike.

use super::cards::{
    card_style, cards, colour_long, colour_symbol, face_long, label, sorted_hand, term_colour,
};
use super::input::HELP;
use super::narrate::Names;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use uno_env::{Action, Game, Phase, State, action_name};

/// A popup drawn over the table.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// Nothing.
    None,
    /// The keys.
    Help,
    /// The round is over; `more` when another round follows.
    RoundOver {
        /// Another round can be dealt.
        more: bool,
    },
    /// The SLAP race.
    Slap,
    /// A bot did not call UNO: catch it.
    Catch {
        /// The bot's name.
        who: String,
    },
    /// A choice (colour, target, challenge, UNO) among these action ids.
    Picker {
        /// Action ids.
        items: Vec<usize>,
        /// Selected index.
        selected: usize,
    },
}

/// Everything the renderer needs, borrowed from the app or the replay.
pub struct View<'a> {
    /// The game.
    pub game: &'a Game,
    /// The position shown.
    pub state: &'a State,
    /// Seat names.
    pub names: &'a Names,
    /// Whose hand is shown at the bottom.
    pub human: usize,
    /// Log lines.
    pub log: &'a [String],
    /// Lines scrolled back from the bottom.
    pub log_scroll: usize,
    /// Title bar text.
    pub title: String,
    /// Selected card in the hand.
    pub cursor: Option<usize>,
    /// Legal actions to highlight (0 = nothing playable now).
    pub legal: u128,
    /// The last message (text, true for a refusal).
    pub message: Option<(String, bool)>,
    /// Whose turn and what to decide.
    pub status: String,
    /// The launcher panel's extra line (suspense frames or the last press).
    pub launcher_anim: Option<String>,
    /// Symbols as well as colours.
    pub colour_blind: bool,
    /// Show every hand (replay).
    pub reveal: bool,
    /// A popup.
    pub overlay: Overlay,
    /// The key hints at the bottom.
    pub keys: String,
}

/// Draws a whole frame.
pub fn draw(f: &mut Frame, v: &View) {
    let area = f.area();
    let n = v.state.num_players();
    let top_h = (n as u16 + 2).max(8);
    let hand_h = 4;
    let [title, top, log, hand, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(top_h),
        Constraint::Min(3),
        Constraint::Length(hand_h),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(
        Paragraph::new(v.title.clone()).style(Style::default().add_modifier(Modifier::BOLD)),
        title,
    );
    let [seats, table, launcher] = Layout::horizontal([
        Constraint::Percentage(38),
        Constraint::Percentage(34),
        Constraint::Percentage(28),
    ])
    .areas(top);
    draw_seats(f, seats, v);
    draw_table(f, table, v);
    draw_launcher(f, launcher, v);
    draw_log(f, log, v);
    draw_hand(f, hand, v);
    draw_status(f, status, v);
    f.render_widget(
        Paragraph::new(v.keys.clone()).style(Style::default().fg(Color::DarkGray)),
        keys,
    );
    match &v.overlay {
        Overlay::None => {}
        Overlay::Help => draw_help(f, area),
        Overlay::RoundOver { more } => draw_round_over(f, area, v, *more),
        Overlay::Slap => race_popup(
            f,
            area,
            " SLAP race ",
            "SLAP!  Press SPACE now!",
            "The slowest to slap draws two (F-7); the bots are racing too.",
        ),
        Overlay::Catch { who } => race_popup(
            f,
            area,
            " Catch! ",
            &format!("{who} did not call UNO!  Press c now!"),
            "Catch them before the next turn and they take the penalty (C-4).",
        ),
        Overlay::Picker { items, selected } => draw_picker(f, area, v, items, *selected),
    }
}

fn colour_span(c: Option<uno_env::Colour>, colour_blind: bool) -> Span<'static> {
    let text = match c {
        Some(c) if colour_blind => format!("{} {}", colour_symbol(Some(c)), colour_long(c)),
        Some(c) => colour_long(c).to_string(),
        None => "none yet".into(),
    };
    Span::styled(
        text,
        Style::default()
            .fg(term_colour(c))
            .add_modifier(Modifier::BOLD),
    )
}

fn draw_seats(f: &mut Frame, area: Rect, v: &View) {
    let st = v.state;
    let mut lines = Vec::new();
    for p in 0..st.num_players() {
        let turn = if st.current_player() == Some(p) {
            "▶ "
        } else {
            "  "
        };
        let mut spans = vec![
            Span::raw(turn),
            Span::styled(
                format!("{:<7}", v.names.cap(p)),
                if p == v.human {
                    Style::default().add_modifier(Modifier::BOLD)
                } else {
                    Style::default()
                },
            ),
            Span::raw(format!(
                " {:>2} cards  score {:>4}",
                st.hand_len(p),
                st.scores()[p]
            )),
        ];
        if st.uno_called(p) {
            spans.push(Span::styled(
                "  UNO!",
                Style::default()
                    .fg(Color::LightRed)
                    .add_modifier(Modifier::BOLD),
            ));
        }
        if !st.is_active(p) {
            spans.push(Span::raw("  out"));
        }
        if st.dealer() == p {
            spans.push(Span::styled(
                "  (dealer)",
                Style::default().fg(Color::DarkGray),
            ));
        }
        let shown = super::cards::shown(st, p);
        if p != v.human && !shown.is_empty() {
            spans.push(Span::styled(
                format!("  {shown}"),
                Style::default().fg(Color::DarkGray),
            ));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Players ")),
        area,
    );
}

fn draw_table(f: &mut Frame, area: Rect, v: &View) {
    let st = v.state;
    let g = v.game;
    let top = st.top_face(g);
    let dir = if g.random_unit() {
        "the unit picks".to_string()
    } else if st.direction() > 0 {
        "→ left (seat +1)".to_string()
    } else {
        "← right (seat -1)".to_string()
    };
    let mut lines = vec![
        Line::from(vec![
            Span::raw("Top card: "),
            Span::styled(
                format!(" {} ", label(top, v.colour_blind)),
                card_style(top, true, false),
            ),
        ]),
        Line::from(format!("          {}", face_long(top))),
        Line::from(vec![
            Span::raw("Colour:   "),
            colour_span(st.active_colour(), v.colour_blind),
        ]),
        Line::from(format!("Direction: {dir}")),
    ];
    if st.pending_hits() > 0 {
        lines.push(Line::styled(
            format!("Mega Hit stack: {} hits pending", st.pending_hits()),
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ));
    }
    lines.push(Line::from(format!(
        "Round {} · move {}",
        st.round(),
        st.decisions()
    )));
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Table ")),
        area,
    );
}

fn draw_launcher(f: &mut Frame, area: Rect, v: &View) {
    let st = v.state;
    let (title, mut lines) = if v.game.uses_pile() {
        (
            " Draw pile ",
            vec![Line::from(format!("Cards left: {}", st.pile_len()))],
        )
    } else {
        let m = st.misses();
        let bar: String = "▮".repeat(m.min(8)) + &"▯".repeat(4usize.saturating_sub(m));
        (
            " Launcher ",
            vec![
                Line::from(format!("Cards left: {}", st.pile_len())),
                Line::from(format!("Presses since firing: {m} {bar}")),
                Line::from(format!("Last press fired: {}", st.last_fired())),
            ],
        )
    };
    if let Some(a) = &v.launcher_anim {
        lines.push(Line::styled(
            a.clone(),
            Style::default()
                .fg(Color::LightYellow)
                .add_modifier(Modifier::BOLD),
        ));
    }
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn draw_log(f: &mut Frame, area: Rect, v: &View) {
    let h = area.height.saturating_sub(2) as usize;
    let end = v.log.len().saturating_sub(v.log_scroll);
    let start = end.saturating_sub(h);
    let lines: Vec<Line> = v.log[start..end]
        .iter()
        .map(|l| Line::from(l.clone()))
        .collect();
    let title = if v.log_scroll > 0 {
        format!(" Log (scrolled back {} lines; PgDn) ", v.log_scroll)
    } else {
        " Log ".into()
    };
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn draw_hand(f: &mut Frame, area: Rect, v: &View) {
    let hand = sorted_hand(v.state.hand_faces(v.game, v.human));
    let mut spans = Vec::new();
    for (i, face) in hand.iter().enumerate() {
        let legal = v.legal >> face.index() & 1 == 1;
        let selected = v.cursor == Some(i) && v.legal != 0;
        let num = if i < 10 {
            format!("{}:", (i + 1) % 10)
        } else {
            String::new()
        };
        spans.push(Span::styled(num, Style::default().fg(Color::DarkGray)));
        spans.push(Span::styled(
            format!(" {} ", label(*face, v.colour_blind)),
            card_style(*face, legal || v.legal == 0 && !v.reveal, selected),
        ));
        spans.push(Span::raw(" "));
    }
    let mut lines = vec![Line::from(spans)];
    if v.reveal {
        for p in 0..v.state.num_players() {
            if p == v.human {
                continue;
            }
            let other: Vec<String> = sorted_hand(v.state.hand_faces(v.game, p))
                .iter()
                .map(|f| label(*f, v.colour_blind))
                .collect();
            lines.push(Line::from(format!(
                "{}: {}",
                v.names.cap(p),
                other.join(" ")
            )));
        }
    }
    let title = format!(
        " {} hand ({}) ",
        if v.reveal {
            format!("{}'s", v.names.cap(v.human))
        } else {
            "Your".into()
        },
        cards(hand.len())
    );
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(title)),
        area,
    );
}

fn draw_status(f: &mut Frame, area: Rect, v: &View) {
    let mut lines = vec![Line::styled(
        v.status.clone(),
        Style::default().add_modifier(Modifier::BOLD),
    )];
    if let Some((m, err)) = &v.message {
        let style = if *err {
            Style::default().fg(Color::LightRed)
        } else {
            Style::default().fg(Color::LightGreen)
        };
        lines.push(Line::styled(m.clone(), style));
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// A rectangle of `w` x `h` centred in `area` (clipped to it).
fn centred(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn popup(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line>, w: u16) {
    let h = lines.len() as u16 + 2;
    let r = centred(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(title.to_string())),
        r,
    );
}

fn draw_help(f: &mut Frame, area: Rect) {
    let lines = HELP.iter().map(|l| Line::from(*l)).collect();
    popup(f, area, " Help ", lines, 72);
}

fn race_popup(f: &mut Frame, area: Rect, title: &str, call: &str, note: &str) {
    let lines = vec![
        Line::styled(
            call.to_string(),
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ),
        Line::from(note.to_string()),
    ];
    popup(f, area, title, lines, 76);
}

fn draw_round_over(f: &mut Frame, area: Rect, v: &View, more: bool) {
    let st = v.state;
    let mut lines = Vec::new();
    match st.round_winner() {
        Some(w) => lines.push(Line::from(format!(
            "{} {} round {}.",
            v.names.cap(w),
            v.names.verb(w, "win", "wins"),
            st.round()
        ))),
        None => lines.push(Line::from("The round was cut short.")),
    }
    lines.push(Line::from(""));
    let pts = st.round_points();
    for (p, pt) in pts.iter().enumerate() {
        lines.push(Line::from(format!(
            "  {:<7} +{:<4} total {}",
            v.names.cap(p),
            pt,
            st.scores()[p]
        )));
    }
    lines.push(Line::from(""));
    if let Some(w) = st.match_winner() {
        lines.push(Line::styled(
            format!(
                "{} {} the match!",
                v.names.cap(w),
                v.names.verb(w, "win", "wins")
            ),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        lines.push(Line::from("q: quit"));
    } else if more {
        lines.push(Line::from("Enter / n: next round · q: quit"));
    } else {
        lines.push(Line::from("Enter / q: quit"));
    }
    let title = if st.is_match_over() {
        " MATCH OVER "
    } else {
        " ROUND OVER "
    };
    popup(f, area, title, lines, 50);
}

fn draw_picker(f: &mut Frame, area: Rect, v: &View, items: &[usize], selected: usize) {
    let st = v.state;
    let title = match st.phase() {
        Phase::ChooseColour => " Choose a colour (r y g b, or ↑↓ Enter) ",
        Phase::ChooseTarget => " Choose a player (number, or ↑↓ Enter) ",
        Phase::Challenge => " Wild Draw Four: c challenge · a accept ",
        Phase::UnoCall => " One card left: u UNO! · n no call ",
        _ => " Choose ",
    };
    let lines: Vec<Line> = items
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let text = match Action::from_id(a) {
                Some(Action::Colour(c)) => {
                    let sym = if v.colour_blind {
                        format!("{} ", colour_symbol(Some(c)))
                    } else {
                        String::new()
                    };
                    let s = Span::styled(
                        format!("{sym}{}", colour_long(c)),
                        Style::default()
                            .fg(term_colour(Some(c)))
                            .add_modifier(Modifier::BOLD),
                    );
                    Line::from(vec![Span::raw(format!("{} ", i + 1)), s])
                }
                Some(Action::Target(o)) => {
                    let seat = (v.human + o as usize) % st.num_players();
                    Line::from(format!(
                        "{} {} ({}, score {})",
                        i + 1,
                        v.names.cap(seat),
                        cards(st.hand_len(seat)),
                        st.scores()[seat]
                    ))
                }
                _ => Line::from(format!("{} {}", i + 1, action_name(a))),
            };
            if i == selected {
                text.style(Style::default().add_modifier(Modifier::REVERSED))
            } else {
                text
            }
        })
        .collect();
    popup(f, area, title, lines, 52);
}
