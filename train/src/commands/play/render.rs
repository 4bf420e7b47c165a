//! Drawing the table with ratatui: title, opponents, top card and colour,
//! launcher, the log, your hand, the status line, and overlays (pickers,
//! round over, SLAP race, help). Used by `play` and `replay` alike.

use super::cards::{
    capitalise, card_style, cards, colour_long, colour_symbol, face_long, label, sorted_hand,
    term_colour,
};
use super::input::HELP;
use super::narrate::Names;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use uno_env::rules::Scoring;
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
    /// Rows the hands panel is scrolled down (replay; play keeps the selected card in view).
    pub hand_scroll: usize,
    /// A popup.
    pub overlay: Overlay,
    /// The key hints at the bottom.
    pub keys: String,
}

/// Rows a line `line_width` columns wide takes wrapped to `width` columns (one
/// more than its width alone says once it wraps, as words move whole).
fn wrapped_rows(line_width: usize, width: usize) -> usize {
    match line_width {
        w if w <= width.max(1) => 1,
        w => w.div_ceil(width.max(1)) + 1,
    }
}

/// Rows of the status area: the status line and the last message, each
/// wrapped to the terminal's width (2 to 4, so that a refusal's reason is read
/// whole at 80 columns).
fn status_height(v: &View, width: u16) -> u16 {
    let rows = |text: &str| wrapped_rows(Line::raw(text).width(), usize::from(width));
    let message = v.message.as_ref().map_or(1, |(m, _)| rows(m));
    (rows(&v.status) + message).clamp(2, 4) as u16
}

/// The frame's areas: title, top panels, log, hand, status, keys. The hand
/// grows with the cards, leaving the log at least two lines.
fn layout(v: &View, area: Rect) -> [Rect; 6] {
    let n = v.state.num_players();
    let top_h = (n as u16 + 2).max(8);
    let status_h = status_height(v, area.width);
    let rest = area.height.saturating_sub(1 + top_h + status_h + 1);
    let rows = hand_rows(v, area.width.saturating_sub(2) as usize).len() as u16;
    let hand_h = (rows + 2).min(rest.saturating_sub(4)).max(3);
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(top_h),
        Constraint::Min(0),
        Constraint::Length(hand_h),
        Constraint::Length(status_h),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// How far the hands panel can scroll in a terminal of `area` (rows that do not fit).
pub fn hand_scroll_limit(v: &View, area: Rect) -> usize {
    let hand = layout(v, area)[3];
    let visible = (hand.height.saturating_sub(2) as usize).max(1);
    hand_rows(v, hand.width.saturating_sub(2) as usize)
        .len()
        .saturating_sub(visible)
}

/// Draws a whole frame.
pub fn draw(f: &mut Frame, v: &View) {
    let area = f.area();
    let [title, top, log, hand, status, keys] = layout(v, area);
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

/// Cuts `text` to `w` display cells, ending in "…" when cut.
fn fit(text: &str, w: usize) -> String {
    if text.chars().count() <= w {
        return text.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(w - 1).collect();
    out.push('…');
    out
}

/// The Players panel: name, cards, score and the UNO flag always fit (at 80
/// columns too); "out", the dealer and each bot's public facts follow as room
/// allows (the dealer shortened to "dlr", the facts cut with "…").
fn draw_seats(f: &mut Frame, area: Rect, v: &View) {
    let st = v.state;
    let inner = area.width.saturating_sub(2) as usize;
    let name_w = (0..st.num_players())
        .map(|p| v.names.cap(p).chars().count())
        .max()
        .unwrap_or(5)
        .clamp(3, 8);
    // Wide: "12 cards  score  123"; narrow: " 12   123" under a titled header.
    let wide = inner >= 2 + name_w + 22 + 5 + 10;
    let mut lines = Vec::new();
    for p in 0..st.num_players() {
        let turn = if st.current_player() == Some(p) {
            "▶ "
        } else {
            "  "
        };
        let k = st.hand_len(p);
        let counts = if wide {
            format!(
                " {k:>2} {}  score {:>4}",
                if k == 1 { "card " } else { "cards" },
                st.scores()[p]
            )
        } else {
            format!(" {k:>3} {:>5}", st.scores()[p])
        };
        let name = fit(&v.names.cap(p), name_w);
        let mut used = 2 + name_w + counts.chars().count();
        let mut spans = vec![
            Span::raw(turn),
            Span::styled(
                format!("{name:<name_w$}"),
                if p == v.human {
                    Style::default().add_modifier(Modifier::BOLD)
                } else {
                    Style::default()
                },
            ),
            Span::raw(counts),
        ];
        if st.uno_called(p) {
            used += 6;
            spans.push(Span::styled(
                "  UNO!",
                Style::default()
                    .fg(Color::LightRed)
                    .add_modifier(Modifier::BOLD),
            ));
        }
        if !st.is_active(p) {
            let out = if used + 12 <= inner {
                "  eliminated"
            } else {
                " out"
            };
            used += out.chars().count();
            spans.push(Span::styled(out, Style::default().fg(Color::LightRed)));
        }
        if st.dealer() == p {
            let d = if used + 10 <= inner {
                "  (dealer)"
            } else {
                " dlr"
            };
            used += d.chars().count();
            spans.push(Span::styled(d, Style::default().fg(Color::DarkGray)));
        }
        let shown = super::cards::shown(v.game, st, p);
        if p != v.human && !shown.is_empty() && used + 8 <= inner {
            spans.push(Span::styled(
                format!("  {}", fit(&shown, inner - used - 2)),
                Style::default().fg(Color::DarkGray),
            ));
        }
        lines.push(Line::from(spans));
    }
    let title = if wide {
        " Players ".to_string()
    } else {
        fit(" Players: cards, score ", inner).to_string()
    };
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn draw_table(f: &mut Frame, area: Rect, v: &View) {
    let st = v.state;
    let g = v.game;
    let top = st.top_face(g);
    let (dir, seat) = if g.random_unit() {
        ("the unit picks", "")
    } else if st.direction() > 0 {
        ("→ left", " (seat +1)")
    } else {
        ("← right", " (seat -1)")
    };
    let dir = if area.width < 30 {
        dir.to_string()
    } else {
        format!("{dir}{seat}")
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
                Line::from(if area.width < 32 {
                    format!("Misses: {m} {bar}")
                } else {
                    format!("Presses since firing: {m} {bar}")
                }),
                Line::from(if area.width < 24 {
                    format!("Last fired: {}", st.last_fired())
                } else {
                    format!("Last press fired: {}", st.last_fired())
                }),
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
    let width = area.width.saturating_sub(2) as usize;
    let end = v.log.len().saturating_sub(v.log_scroll);
    // The newest entries that fill the panel, each wrapped to its width (a
    // long entry, such as the hand a challenged bot shows, is read whole);
    // the oldest of them may show only its last rows.
    let mut rows: Vec<String> = Vec::new();
    for entry in v.log[..end].iter().rev() {
        let mut wrapped = wrap_entry(entry, width);
        wrapped.append(&mut rows);
        rows = wrapped;
        if rows.len() >= h {
            break;
        }
    }
    let lines: Vec<Line> = rows[rows.len().saturating_sub(h)..]
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

/// `text` in rows of at most `width` columns, broken at spaces (a word wider
/// than a row is cut between characters); rows after the first are indented
/// by two columns, so an entry's continuation reads apart from the next entry.
fn wrap_entry(text: &str, width: usize) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    const INDENT: &str = "  ";
    let width = width.max(INDENT.len() + 1);
    let mut rows = Vec::new();
    let mut row = String::new();
    // Columns `row` takes, and whether it holds nothing but its indent.
    let (mut used, mut fresh) = (0, true);
    for word in text.split(' ') {
        let w = word.width();
        let sep = usize::from(!fresh);
        if used + sep + w <= width {
            if !fresh {
                row.push(' ');
            }
            row.push_str(word);
            (used, fresh) = (used + sep + w, false);
            continue;
        }
        if !fresh {
            rows.push(std::mem::replace(&mut row, INDENT.to_string()));
            (used, fresh) = (INDENT.len(), true);
        }
        if used + w <= width {
            row.push_str(word);
            (used, fresh) = (used + w, false);
            continue;
        }
        // A word wider than a row: cut between characters.
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && !fresh {
                rows.push(std::mem::replace(&mut row, INDENT.to_string()));
                used = INDENT.len();
            }
            row.push(c);
            (used, fresh) = (used + cw, false);
        }
    }
    rows.push(row);
    rows
}

/// One row of the hand panel and the cards it holds (indices into the
/// sorted hand of the row's seat).
struct HandRow {
    line: Line<'static>,
    first: usize,
    count: usize,
}

/// Lays the cards of `seat` out in rows of at most `width` cells, the first
/// row after `lead` and the others indented as far.
fn wrap_cards(
    v: &View,
    seat: usize,
    lead: Option<Span<'static>>,
    width: usize,
    out: &mut Vec<HandRow>,
) {
    let hand = sorted_hand(v.state.hand_faces(v.game, seat));
    let mine = seat == v.human && !v.reveal;
    let indent = lead.as_ref().map_or(0, |l| l.width());
    let mut row: Vec<Span<'static>> = lead.into_iter().collect();
    let (mut w, mut first, mut count) = (indent, 0, 0);
    for (i, face) in hand.iter().enumerate() {
        let mut item = Vec::new();
        if mine && i < 10 {
            item.push(Span::styled(
                format!("{}:", (i + 1) % 10),
                Style::default().fg(Color::DarkGray),
            ));
        }
        let legal = v.legal >> face.index() & 1 == 1;
        let selected = mine && v.cursor == Some(i) && v.legal != 0;
        let bright = if v.reveal {
            true
        } else {
            legal || v.legal == 0
        };
        item.push(Span::styled(
            format!(" {} ", label(*face, v.colour_blind)),
            card_style(*face, bright, selected),
        ));
        item.push(Span::raw(" "));
        let iw: usize = item.iter().map(|s| s.width()).sum();
        if count > 0 && w + iw > width {
            out.push(HandRow {
                line: Line::from(std::mem::take(&mut row)),
                first,
                count,
            });
            row.push(Span::raw(" ".repeat(indent)));
            w = indent;
            first = i;
            count = 0;
        }
        row.extend(item);
        w += iw;
        count += 1;
    }
    out.push(HandRow {
        line: Line::from(row),
        first,
        count,
    });
}

/// The hand panel's rows at `width`: your hand, or (replay) every seat's,
/// one seat after another, each starting with its name.
fn hand_rows(v: &View, width: usize) -> Vec<HandRow> {
    let mut rows = Vec::new();
    if !v.reveal {
        wrap_cards(v, v.human, None, width, &mut rows);
        return rows;
    }
    let n = v.state.num_players();
    let label_w = (0..n)
        .map(|p| v.names.cap(p).chars().count())
        .max()
        .unwrap_or(3)
        .min(8);
    for p in 0..n {
        let lead = Span::styled(
            format!(
                "{:<label_w$} {:>2}: ",
                fit(&v.names.cap(p), label_w),
                v.state.hand_len(p)
            ),
            if v.state.current_player() == Some(p) {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            },
        );
        wrap_cards(v, p, Some(lead), width, &mut rows);
    }
    rows
}

/// Your hand (play) or every hand (replay), wrapped to the panel's width.
/// When the rows do not fit, play scrolls to keep the selected card in view
/// and replay scrolls by `hand_scroll`; the title says what is hidden.
fn draw_hand(f: &mut Frame, area: Rect, v: &View) {
    let rows = hand_rows(v, area.width.saturating_sub(2) as usize);
    let visible = (area.height.saturating_sub(2) as usize).max(1);
    let max_start = rows.len().saturating_sub(visible);
    let start = if v.reveal {
        v.hand_scroll.min(max_start)
    } else {
        let at = v
            .cursor
            .and_then(|c| rows.iter().position(|r| c < r.first + r.count))
            .unwrap_or(0);
        (at + 1).saturating_sub(visible).min(max_start)
    };
    let end = (start + visible).min(rows.len());
    let cards_in = |rs: &[HandRow]| rs.iter().map(|r| r.count).sum::<usize>();
    let above = cards_in(&rows[..start]);
    let below = cards_in(&rows[end..]);
    let mut more = Vec::new();
    if above > 0 {
        more.push(format!("+{above} more ↑"));
    }
    if below > 0 {
        more.push(format!("+{below} more ↓"));
    }
    let more = if more.is_empty() {
        String::new()
    } else if v.reveal {
        format!(" · {} (↑↓ scroll)", more.join(" "))
    } else {
        format!(" · {}", more.join(" "))
    };
    let title = if v.reveal {
        format!(" Every hand{more} ")
    } else {
        let hand = v.state.hand_len(v.human);
        format!(" Your hand ({}){more} ", cards(hand))
    };
    let lines: Vec<Line> = rows
        .into_iter()
        .skip(start)
        .take(visible)
        .map(|r| r.line)
        .collect();
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
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
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
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
    // Room for the wrapped lines.
    let inner = w.min(area.width).saturating_sub(2).max(1) as usize;
    let rows: usize = lines.iter().map(|l| wrapped_rows(l.width(), inner)).sum();
    let h = rows as u16 + 2;
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
    let penalty = v.game.rules().options.scoring != Scoring::Winner;
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
    if let Some(rule) = super::session::scoring_rule(v.game) {
        lines.push(Line::from(format!("{}.", capitalise(&rule))));
    }
    lines.push(Line::from(""));
    let pts = st.round_points();
    for (p, pt) in pts.iter().enumerate() {
        let out = if st.is_active(p) { "" } else { "  eliminated" };
        let gained = if penalty && *pt > 0 {
            format!("+{pt} penalty")
        } else {
            format!("+{pt}")
        };
        lines.push(Line::from(format!(
            "  {:<7} {gained:<12} total {}{out}",
            v.names.cap(p),
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
    } else if more && !st.is_active(v.human) && !v.reveal {
        lines.push(Line::styled(
            "You are eliminated (C-7): the bots play on without you.",
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ));
        lines.push(Line::from("Enter / n: watch the next round · q: quit"));
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
    popup(f, area, title, lines, 64);
}

fn draw_picker(f: &mut Frame, area: Rect, v: &View, items: &[usize], selected: usize) {
    let st = v.state;
    let title = match st.phase() {
        Phase::ChooseColour => " Choose a colour (r y g b, or ↑↓ Enter) ",
        Phase::ChooseTarget => " Choose a player (number, or ↑↓ Enter) ",
        // (the first line says what for)
        Phase::Challenge => " Wild Draw Four: c challenge · a accept ",
        Phase::UnoCall => " One card left: u UNO! · n no call ",
        _ => " Choose ",
    };
    let head: Vec<Line> = if st.phase() == Phase::ChooseTarget {
        let what = super::session::target_purpose(v.game, st);
        vec![Line::styled(
            capitalise(&what),
            Style::default().add_modifier(Modifier::BOLD),
        )]
    } else {
        Vec::new()
    };
    let lines: Vec<Line> = head
        .into_iter()
        .chain(items.iter().enumerate().map(|(i, &a)| {
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
        }))
        .collect();
    popup(f, area, title, lines, 56);
}

#[cfg(test)]
mod tests {
    //! The frame drawn into a test buffer: every hand in replay, a big hand
    //! that scrolls to the selected card, and the Players panel at 80 columns.
    use super::*;
    use ratatui::{Terminal, backend::TestBackend};
    use uno_env::{Rules, Scenario};

    /// The screen as text, one line per row.
    pub(crate) fn screen(v: &View, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| draw(f, v)).unwrap();
        let buf = t.backend().buffer().clone();
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A table of attack-2010 where seat `p` holds `sizes[p]` cards, dealt
    /// in deck order (the top card is the deck's last).
    fn table(sizes: &[usize]) -> (Game, State, Names) {
        let players = sizes.len();
        let g = Game::new(Rules::preset("attack-2010").unwrap(), players).unwrap();
        let mut deck = (0..g.deck_size()).map(|c| g.face_of(c));
        let top = deck.next();
        let hands = sizes
            .iter()
            .map(|&n| deck.by_ref().take(n).collect())
            .collect();
        let sc = Scenario {
            hands,
            top,
            scores: Some((0..players as u32).map(|p| 100 + p * 37).collect()),
            dealer: 1,
            ..Default::default()
        };
        let s = g.scenario(&sc).unwrap();
        (g, s, Names::new(players, 0))
    }

    fn view<'a>(g: &'a Game, s: &'a State, names: &'a Names, reveal: bool) -> View<'a> {
        View {
            game: g,
            state: s,
            names,
            human: 0,
            log: &[],
            log_scroll: 0,
            title: "test".into(),
            cursor: Some(0),
            legal: if reveal { 0 } else { g.legal_mask(s) },
            message: None,
            status: String::new(),
            launcher_anim: None,
            colour_blind: false,
            reveal,
            hand_scroll: 0,
            overlay: Overlay::None,
            keys: String::new(),
        }
    }

    /// The text between the hand panel's top border and its bottom border.
    fn hand_panel(screen: &str, title: &str) -> (String, String) {
        let lines: Vec<&str> = screen.lines().collect();
        let top = lines.iter().position(|l| l.contains(title)).expect(title);
        let bottom = (top + 1..lines.len())
            .find(|&i| lines[i].starts_with('└'))
            .unwrap();
        (lines[top].to_string(), lines[top + 1..bottom].join("\n"))
    }

    #[test]
    fn a_long_refusal_wraps_and_is_shown_whole() {
        let (g, s, names) = table(&[7, 7, 7, 7]);
        let mut v = view(&g, &s, &names, false);
        v.status = "YOUR TURN · choose a card (←/→ and Enter), d to press the launcher".into();
        let why = "✗ Green 7 cannot be played: G7 does not match Y3 (active colour yellow): \
                   play a yellow card, a 3 or a wild, or press the launcher (end of reason)";
        v.message = Some((why.into(), true));
        for (w, h) in [(80, 24), (100, 30)] {
            let screen = screen(&v, w, h);
            let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains("(end of reason)"), "{w}x{h}:\n{screen}");
            assert!(flat.contains("G7 does not match Y3"), "{w}x{h}:\n{screen}");
            // The frame fits the terminal.
            assert!(screen.lines().count() <= h as usize, "{screen}");
        }
        // A short message keeps the two rows of before.
        v.message = Some(("✗ No.".into(), true));
        assert_eq!(status_height(&v, 80), 2);
    }

    #[test]
    fn a_long_log_entry_wraps_and_is_read_whole() {
        // Rows of at most the width, broken at spaces, continuations indented;
        // the words come back in order.
        let text = "Bot 2 shows: R1 R2 R3 Y4 Y5 G6 G7 B8 B9 wild wild-draw4 skip reverse (end)";
        for width in [1, 5, 12, 30, 78, 200] {
            let rows = wrap_entry(text, width);
            for (i, r) in rows.iter().enumerate() {
                assert!(r.chars().count() <= width.max(3), "{width}: {rows:?}");
                assert_eq!(i > 0, r.starts_with("  "), "{width}: {rows:?}");
            }
            let words: String = rows.iter().map(|r| r.trim()).collect::<Vec<_>>().join(" ");
            if width >= 14 {
                assert_eq!(words, text, "{width}: {rows:?}");
            } else {
                // Words wider than a row are cut between characters.
                assert_eq!(words.replace(' ', ""), text.replace(' ', ""), "{width}");
            }
        }
        assert_eq!(wrap_entry("short", 78), vec!["short".to_string()]);
        // Width by columns: ★ (colour-blind wild) is one column, 漢 two.
        assert_eq!(
            wrap_entry("★★★ ★★", 5),
            vec!["★★★".to_string(), "  ★★".into()]
        );
        assert_eq!(
            wrap_entry("漢漢 漢", 5),
            vec!["漢漢".to_string(), "  漢".into()]
        );

        // On the screen: the whole entry at 80 columns, the newest entry last.
        let (g, s, names) = table(&[7, 7, 7, 7]);
        let log: Vec<String> = (0..30)
            .map(|i| format!("entry {i}"))
            .chain(std::iter::once(
                "classic · 2 players · seed 1 · bot: shipped checkpoint checkpoints/universal \
                 (chosen in bots.toml: it beats classic-2p head to head, 52.9 % [52.2, 53.6] \
                 of 20,000 games) (end of entry)"
                    .to_string(),
            ))
            .collect();
        let mut v = view(&g, &s, &names, false);
        v.log = &log;
        let screen = screen(&v, 80, 24);
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("checkpoints/universal")
                && flat.contains("of 20,000 games) (end of entry)"),
            "{screen}"
        );
        assert!(flat.contains("entry 29"), "{screen}");
        // Scrolled back past it: the entries before it, the newest of them last.
        v.log_scroll = 1;
        let screen = super::tests::screen(&v, 80, 24);
        assert!(!screen.contains("(end of entry)"), "{screen}");
        let last = screen.lines().rfind(|l| l.contains("entry 2"));
        assert!(last.is_some_and(|l| l.contains("entry 29")), "{screen}");
    }

    #[test]
    fn replay_shows_every_seats_hand() {
        let (g, s, names) = table(&[5, 6, 7, 8]);
        let screen = screen(&view(&g, &s, &names, true), 80, 24);
        assert!(!screen.contains("You's"), "{screen}");
        let (_, body) = hand_panel(&screen, "Every hand");
        for p in 0..4 {
            let want = format!("{:<5} {:>2}: ", names.cap(p), s.hand_len(p));
            assert!(body.contains(&want), "{want}\n{screen}");
            for face in s.hand_faces(&g, p) {
                assert!(body.contains(&face.name()), "{}\n{screen}", face.name());
            }
        }
    }

    #[test]
    fn replay_scrolls_the_hands_when_they_do_not_fit() {
        let (g, s, names) = table(&[9; 10]);
        let mut v = view(&g, &s, &names, true);
        let area = Rect::new(0, 0, 80, 24);
        let limit = hand_scroll_limit(&v, area);
        assert!(limit > 0);
        let (title, body) = hand_panel(&screen(&v, 80, 24), "Every hand");
        assert!(
            title.contains("more ↓") && title.contains("scroll"),
            "{title}"
        );
        assert!(body.contains("You "), "{body}");
        v.hand_scroll = limit;
        let (title, body) = hand_panel(&screen(&v, 80, 24), "Every hand");
        assert!(
            title.contains("more ↑") && !title.contains("more ↓"),
            "{title}"
        );
        assert!(body.contains("Bot 9"), "{body}");
    }

    #[test]
    fn a_big_hand_grows_and_scrolls_to_the_selected_card() {
        let (g, s, names) = table(&[36, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
        let hand = sorted_hand(s.hand_faces(&g, 0));
        let mut v = view(&g, &s, &names, false);
        v.legal = u128::MAX;
        for (cursor, hidden) in [(0, "more ↓"), (35, "more ↑")] {
            v.cursor = Some(cursor);
            let screen = screen(&v, 80, 24);
            let (title, body) = hand_panel(&screen, "Your hand");
            assert!(title.contains("36 cards"), "{title}");
            assert!(title.contains(hidden), "{title}\n{screen}");
            // More than the old two-line box, and the selected card is in view.
            assert!(body.lines().count() >= 2, "{body}");
            let label = format!(" {} ", hand[cursor].name());
            assert!(body.contains(&label), "{label}\n{screen}");
        }
        // A taller terminal shows every card.
        v.cursor = Some(35);
        let screen = screen(&v, 80, 40);
        let (title, body) = hand_panel(&screen, "Your hand");
        assert!(!title.contains("more"), "{title}");
        for f in &hand {
            assert!(body.contains(&f.name()), "{}", f.name());
        }
    }

    #[test]
    fn the_players_panel_keeps_cards_score_and_uno_at_80_columns() {
        for players in [4, 10] {
            let mut sizes = vec![7; players];
            sizes[2] = 1;
            let (g, s, names) = table(&sizes);
            let screen = screen(&view(&g, &s, &names, false), 80, 24);
            let rows: Vec<&str> = screen.lines().skip(2).take(players).collect();
            for (p, row) in rows.iter().enumerate() {
                let panel: String = row.chars().take(30).collect();
                let score = s.scores()[p].to_string();
                assert!(panel.contains(&names.cap(p)), "{panel}");
                assert!(panel.contains(&score), "score {score}: {panel}");
                assert!(panel.contains(&format!(" {} ", s.hand_len(p))), "{panel}");
                if p == 2 {
                    assert!(panel.contains("UNO!"), "{panel}");
                }
                if p == 1 {
                    assert!(panel.contains("dealer") || panel.contains("dlr"), "{panel}");
                }
            }
            assert!(!screen.contains("1 cards"), "{screen}");
        }
    }
}
