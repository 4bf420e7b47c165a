//! The static part of a game (OpenSpiel's *game*): rules compiled into lookup
//! tables, the player count, and the sizes of the spaces.
//!
//! Physical cards are numbered `0..deck_size` in deck-list order; a set of cards
//! is a `u128` bit set, so matching, legality and card counting are a few
//! bitwise operations. Every table here is derived from [`Rules`]; nothing is
//! specific to an edition.

use crate::action::NUM_ACTIONS;
use crate::card::{Colour, Face, Kind, NUM_COLOURS, NUM_FACES, NUM_KINDS};
use crate::error::ConfigError;
use crate::rng::{chance_cut, cut};
use crate::rules::{CardCount, Effect, LauncherModel, Rules, Supply, TurnOrder};

/// Most players at a table (C-1).
pub const MAX_PLAYERS: usize = 10;
/// Fewest players at a table (C-1).
pub const MIN_PLAYERS: usize = 2;
/// Longest card-count distribution the launcher supports.
pub const MAX_FIRE: usize = 32;

/// The launcher (or draw pile) compiled for fast sampling.
#[derive(Clone, Debug)]
pub(crate) enum Launcher {
    /// A draw pile: every "press" draws exactly one card.
    Pile,
    /// Fires with probability `hazard[min(misses, len - 1)]` (as
    /// [`chance_cut`]s), then fires a count drawn from `cdf` (as [`cut`]s).
    Hazard {
        hazard: [u32; 16],
        len: u8,
        cdf: [u32; MAX_FIRE],
        max: u8,
    },
    /// Fires on the presses in `fires` (bit i = press i+1 since refill, mod
    /// period), a count drawn from `cdf` (as [`cut`]s).
    Pattern {
        fires: u128,
        period: u16,
        cdf: [u32; MAX_FIRE],
        max: u8,
    },
    /// Always one card.
    DrawOne,
    /// A fixed list of outcomes, cycled.
    Scripted(Vec<u8>),
}

/// Cumulative distribution of `1 + NegBin(r, mean)` capped at `max` (index i = i+1 cards).
fn count_cdf(c: &CardCount) -> ([f32; MAX_FIRE], u8) {
    let max = (c.max as usize).min(MAX_FIRE);
    let p = c.r / (c.r + c.mean);
    let mut pmf = p.powf(c.r);
    let mut acc = 0.0f64;
    let mut cdf = [1.0f32; MAX_FIRE];
    for (k, slot) in cdf.iter_mut().enumerate().take(max - 1) {
        acc += pmf;
        *slot = acc as f32;
        pmf *= (k as f64 + c.r) / (k as f64 + 1.0) * (1.0 - p);
    }
    (cdf, max as u8)
}

/// Compiled, immutable description of one game: rules, table size, tables.
///
/// Its `Debug` names the rules, the table size and the deck size (the
/// lookup tables compiled from the rules are left out; [`Game::rules`] has
/// the whole rules).
#[derive(Clone)]
pub struct Game {
    rules: Rules,
    players: u8,
    pub(crate) deck_size: u8,
    pub(crate) card_face: [u8; 128],
    /// `1 << card_face[c]`: the face of each physical card as an action bit;
    /// entry 128 (the `trailing_zeros` of an empty set) is 0.
    pub(crate) card_face_bit: [u128; 129],
    pub(crate) all_cards: u128,
    pub(crate) face_cards: [u128; NUM_FACES],
    pub(crate) colour_cards: [u128; NUM_COLOURS],
    pub(crate) kind_cards: [u128; NUM_KINDS],
    pub(crate) wild_cards: u128,
    pub(crate) stackable: u128,
    pub(crate) not_last: u128,
    pub(crate) restricted: u128,
    pub(crate) redraw: u128,
    /// Cards whose kind's own effect is a targeted Hit (Wild Attack-Attack,
    /// [`crate::rules::Options::attack_resume`] says where play resumes
    /// after them. Hits targeted only by `targeted_draws` (F-4's variant)
    /// resume after the victim (A-3, K-1).
    pub(crate) attack_cards: u128,
    pub(crate) face_score: [u16; NUM_FACES],
    pub(crate) effect: [Effect; NUM_KINDS],
    pub(crate) launcher: Launcher,
    pub(crate) random_unit: bool,
    pub(crate) face_in_deck: u128,
    /// Per physical card as the top card: the cards that match it by kind,
    /// and every wild (C-3; colour is added from the active colour).
    pub(crate) match_top: [u128; 128],
    /// `colour_cards` indexed by the state's colour byte; entry 4 (no active
    /// colour) is empty, so the lookup needs no branch.
    pub(crate) colour_or_none: [u128; NUM_COLOURS + 1],
    /// `restricted` when F-6's restriction is enforced (no bluffing), else empty.
    pub(crate) restricted_enforced: u128,
    /// Face groups for [`Game::faces_mask`]: each face's copies are adjacent
    /// card ids; `group_top` has the highest card of each group, `group_rest`
    /// the others.
    pub(crate) group_top: u128,
    pub(crate) group_rest: u128,
    /// The groups ascend in face id and the CPU has BMI2 (`pext` / `pdep`):
    /// a card set's faces come from a carry trick and two bit gathers, not a
    /// walk over the cards.
    pub(crate) fast_faces: bool,
    /// The observation's `hand` slot of each card, by 64-bit half of the
    /// card set: entries 0–63 are `card_face` of cards 0–63 and 64–127, and
    /// entry 64 + i (past a half's last card) is [`crate::obs::HAND_SPILL`]`[i]`.
    pub(crate) hand_slot: [[u8; 64 + crate::obs::HAND_FIXED]; 2],
    /// The observation's constant `rules` piece.
    pub(crate) obs_rules: [f32; crate::obs::NUM_RULE_FLAGS],
    /// The observation's `edition` piece (constant for the game).
    pub(crate) obs_edition: [f32; crate::obs::NUM_EDITION],
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("rules", &self.rules.name)
            .field("players", &self.players)
            .field("deck_size", &self.deck_size)
            .finish_non_exhaustive()
    }
}

impl Game {
    /// Compiles `rules` for a table of `players` (2..=10, C-1).
    pub fn new(rules: Rules, players: usize) -> Result<Game, ConfigError> {
        rules.validate()?;
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(ConfigError::Players(players));
        }
        let size = rules.deck_size();
        let hand = rules.options.hand_size as usize;
        let mut g = Game {
            players: players as u8,
            deck_size: size as u8,
            card_face: [0; 128],
            card_face_bit: [0; 129],
            all_cards: 0,
            face_cards: [0; NUM_FACES],
            colour_cards: [0; NUM_COLOURS],
            kind_cards: [0; NUM_KINDS],
            wild_cards: 0,
            stackable: 0,
            not_last: 0,
            restricted: 0,
            redraw: 0,
            attack_cards: 0,
            face_score: [0; NUM_FACES],
            effect: [Effect::None; NUM_KINDS],
            launcher: Launcher::Pile,
            random_unit: rules.options.turn_order == TurnOrder::RandomUnit,
            face_in_deck: 0,
            match_top: [0; 128],
            colour_or_none: [0; NUM_COLOURS + 1],
            restricted_enforced: 0,
            group_top: 0,
            group_rest: 0,
            fast_faces: false,
            hand_slot: [[0; 64 + crate::obs::HAND_FIXED]; 2],
            obs_rules: [0.0; crate::obs::NUM_RULE_FLAGS],
            obs_edition: [0.0; crate::obs::NUM_EDITION],
            rules,
        };
        let mut i = 0usize;
        for (kind, n) in g.rules.deck.clone() {
            let faces: Vec<Face> = if kind.is_wild() {
                vec![Face::wild(kind).expect("wild"); n as usize]
            } else {
                crate::card::Colour::ALL
                    .iter()
                    .flat_map(|c| {
                        std::iter::repeat_n(Face::coloured(kind, *c).expect("coloured"), n as usize)
                    })
                    .collect()
            };
            for f in faces {
                let bit = 1u128 << i;
                g.card_face[i] = f.0;
                g.card_face_bit[i] = 1u128 << f.0;
                g.all_cards |= bit;
                g.face_cards[f.index()] |= bit;
                g.kind_cards[kind.index()] |= bit;
                g.face_in_deck |= 1u128 << f.index();
                match f.colour() {
                    Some(c) => g.colour_cards[c.index()] |= bit,
                    None => g.wild_cards |= bit,
                }
                i += 1;
            }
        }
        let targeted_draws = g.rules.options.targeted_draws;
        for (kind, r) in &g.rules.kinds {
            let mut eff = r.effect;
            let cards = g.kind_cards[kind.index()];
            if let Effect::Hit { targeted: true, .. } = eff {
                g.attack_cards |= cards;
            }
            // F-4 variant (004: "Targeted Draw 2 & Wild Draw 4 Cards"): every
            // coloured draw/hit card and the Wild Draw Four name their victim.
            if let Effect::Hit { n, targeted: false } = eff
                && targeted_draws
                && (!kind.is_wild() || r.no_active_colour)
            {
                eff = Effect::Hit { n, targeted: true };
            }
            g.effect[kind.index()] = eff;
            if r.stackable {
                g.stackable |= cards;
            }
            // a Trade Hands effect is never a last card, and is put back
            // when turned as the start card, whichever kind carries it (a
            // Wild Customizable too, A-19).
            let trade = eff == Effect::TradeHands;
            if r.not_last || trade {
                g.not_last |= cards;
            }
            if r.no_active_colour {
                g.restricted |= cards;
            }
            if r.start_redraw || trade {
                g.redraw |= cards;
            }
        }
        g.compile_tables();
        for f in Face::all() {
            g.face_score[f.index()] = g.rules.kinds.get(&f.kind()).map_or(0, |r| r.score);
        }
        if g.all_cards & !g.redraw == 0 {
            return Err(ConfigError::Invalid(
                "every card is returned when turned as the start card".into(),
            ));
        }
        // C-2: after the deal a start card must be left that is not returned
        // (A-9, F-8, K-3), however the cards fall.
        let returned = g.redraw.count_ones() as usize;
        if size < players * hand + 1 + returned {
            return Err(ConfigError::DeckTooSmall {
                deck: size,
                players,
                hand,
                returned,
            });
        }
        g.launcher = match (g.rules.supply, &g.rules.launcher) {
            (Supply::Pile, _) => Launcher::Pile,
            (Supply::Launcher, LauncherModel::Hazard { hazard, cards }) => {
                let mut h = [0u32; 16];
                for (d, s) in h.iter_mut().zip(hazard) {
                    *d = chance_cut(*s as f32);
                }
                let (cdf, max) = count_cdf(cards);
                Launcher::Hazard {
                    hazard: h,
                    len: hazard.len() as u8,
                    cdf: cdf.map(cut),
                    max,
                }
            }
            (Supply::Launcher, LauncherModel::Bernoulli { p, cards }) => {
                let mut h = [0u32; 16];
                h[0] = chance_cut(*p as f32);
                let (cdf, max) = count_cdf(cards);
                Launcher::Hazard {
                    hazard: h,
                    len: 1,
                    cdf: cdf.map(cut),
                    max,
                }
            }
            (
                Supply::Launcher,
                LauncherModel::Pattern {
                    fires,
                    period,
                    cards,
                },
            ) => {
                let bits = fires.iter().fold(0u128, |m, f| m | 1u128 << (f - 1));
                let (cdf, max) = count_cdf(cards);
                Launcher::Pattern {
                    fires: bits,
                    period: *period,
                    cdf: cdf.map(cut),
                    max,
                }
            }
            (Supply::Launcher, LauncherModel::DrawOne) => Launcher::DrawOne,
            (Supply::Launcher, LauncherModel::Scripted { outcomes }) => {
                Launcher::Scripted(outcomes.clone())
            }
        };
        g.obs_rules = crate::obs::rules_piece(&g);
        g.obs_edition = crate::obs::edition_piece(&g);
        Ok(g)
    }

    /// Derives the lookup tables of the legal-action mask from the card sets.
    fn compile_tables(&mut self) {
        for c in iter_bits(self.all_cards) {
            let kind = self.face_of(c).kind();
            self.match_top[c] = self.kind_cards[kind.index()] | self.wild_cards;
        }
        self.colour_or_none[..NUM_COLOURS].copy_from_slice(&self.colour_cards);
        if !self.rules.options.wd4_bluffing {
            self.restricted_enforced = self.restricted;
        }
        for (half, slots) in self.hand_slot.iter_mut().enumerate() {
            slots[..64].copy_from_slice(&self.card_face[half * 64..half * 64 + 64]);
            slots[64..].copy_from_slice(&crate::obs::HAND_SPILL);
        }
        let n = self.deck_size as usize;
        let mut ascending = true;
        for c in 0..n {
            if c + 1 == n || self.card_face[c + 1] != self.card_face[c] {
                self.group_top |= 1u128 << c;
            } else {
                self.group_rest |= 1u128 << c;
            }
            ascending &= c == 0 || self.card_face[c] >= self.card_face[c - 1];
        }
        // Asked in any case: it also enables the card draws' `pdep`.
        let bmi2 = detect_bmi2();
        self.fast_faces = ascending && bmi2;
    }

    /// The faces of a set of physical cards, as a face bit set (the card
    /// plays of the legal-action mask).
    #[inline]
    pub fn faces_mask(&self, cards: u128) -> u128 {
        #[cfg(target_arch = "x86_64")]
        if self.fast_faces {
            // SAFETY: `fast_faces` is set only when the CPU has BMI2.
            return unsafe { faces_bmi2(cards, self) };
        }
        self.faces_by_card(cards)
    }

    /// [`Game::faces_mask`] card by card (any deck order, any CPU).
    #[inline]
    pub(crate) fn faces_by_card(&self, cards: u128) -> u128 {
        // The first four cards without a data-dependent branch (an empty set's
        // `trailing_zeros` is 128, whose table entry is 0): the number of
        // playable cards varies from step to step, and a loop over them
        // mispredicts its exit about once per step. Larger sets finish in the loop.
        let mut m = 0u128;
        let mut c = cards;
        for _ in 0..4 {
            m |= self.card_face_bit[c.trailing_zeros() as usize];
            c &= c.wrapping_sub(1);
        }
        iter_bits(c).fold(m, |m, i| m | self.card_face_bit[i])
    }

    /// Compiles a preset or TOML file for `players`.
    pub fn from_spec(spec: &str, players: usize) -> Result<Game, ConfigError> {
        Game::new(Rules::load(spec)?, players)
    }

    /// The rules this game was compiled from.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Players at the table.
    pub fn num_players(&self) -> usize {
        self.players as usize
    }

    /// Cards in the deck.
    pub fn deck_size(&self) -> usize {
        self.deck_size as usize
    }

    /// Size of the action space (the same for every edition and table size).
    pub fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The face of physical card `card`.
    ///
    /// # Panics
    /// If `card` is 128 or more (a card past the deck but below 128 reads
    /// as face 0: check against [`Game::deck_size`]).
    pub fn face_of(&self, card: usize) -> Face {
        Face(self.card_face[card])
    }

    /// Physical cards bearing `face`, as a bit set.
    ///
    /// # Panics
    /// For a face that is not one of the 79 (`Face(79)` and above; [`Face::from_index`]
    /// and [`Face::parse`] never make one).
    pub fn cards_of_face(&self, face: Face) -> u128 {
        self.face_cards[face.index()]
    }

    /// Physical cards whose face has colour `colour` (wilds have none), as a bit set.
    pub fn cards_of_colour(&self, colour: Colour) -> u128 {
        self.colour_cards[colour.index()]
    }

    /// Every physical card of the deck, as a bit set.
    pub fn all_cards(&self) -> u128 {
        self.all_cards
    }

    /// Points a card left in hand scores (C-6).
    ///
    /// # Panics
    /// For a face that is not one of the 79, as [`Game::cards_of_face`].
    pub fn score_of(&self, face: Face) -> u16 {
        self.face_score[face.index()]
    }

    /// The effect a kind has in this game (after options such as `targeted_draws`).
    pub fn effect_of(&self, kind: Kind) -> Effect {
        self.effect[kind.index()]
    }

    /// True when faces of this kind are in the deck.
    pub fn has_face(&self, face: Face) -> bool {
        // A face past the table (`Face(200)`) is in no deck; a plain shift
        // wrapped around to another face in release builds.
        face.index() < NUM_FACES && self.face_in_deck >> face.index() & 1 == 1
    }

    /// True when a draw pile (not a launcher) supplies cards.
    pub fn uses_pile(&self) -> bool {
        matches!(self.launcher, Launcher::Pile)
    }

    /// True when UNO Flash's random unit picks who plays next (F-1).
    pub fn random_unit(&self) -> bool {
        self.random_unit
    }

    /// True when a kind counts as a Hit card for Mega Hit stacking.
    ///
    /// # Panics
    /// For a face that is not one of the 79, as [`Game::cards_of_face`].
    pub fn is_stackable(&self, face: Face) -> bool {
        self.face_cards[face.index()] & self.stackable != 0
    }

    /// Total points of the cards in a set (C-6).
    pub fn points(&self, cards: u128) -> u32 {
        iter_bits(cards)
            .map(|c| self.face_score[self.card_face[c] as usize] as u32)
            .sum()
    }

    /// Total points of the whole deck (C-6): the most any hand can hold.
    pub fn deck_points(&self) -> u32 {
        self.points(self.all_cards)
    }
}

/// Iterates the indices of the set bits of a 128-bit set, lowest first.
#[inline]
pub fn iter_bits(mut m: u128) -> impl Iterator<Item = usize> {
    // One 128-bit loop (branch-free `trailing_zeros`): iterating the two
    // 64-bit halves separately costs fewer instructions but mispredicts more.
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

/// Set once a [`Game`] has found BMI2 on this CPU ([`detect_bmi2`]). A card
/// draw tests it (one byte compare) rather than the standard library's
/// feature cache (a load through the GOT and two tests, on every draw).
/// False, the portable path, is right on any CPU, so a draw made before any
/// `Game` exists is still correct.
#[cfg(target_arch = "x86_64")]
static BMI2: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True when the CPU has BMI2 (`pdep`, `pext`); records it in [`BMI2`] for
/// the card draws.
fn detect_bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let yes = std::arch::is_x86_feature_detected!("bmi2");
        if yes {
            BMI2.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        yes
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The faces of `cards` when each face's copies are adjacent card ids in
/// ascending face order. Within each group, adding the group's lower bits
/// (`rest`) to the cards held among them carries into the group's top bit
/// exactly when one is held (the sum never leaves the group); with the top
/// card itself that marks every face held. `pext` packs those marks, one
/// per group in deck order, and `pdep` spreads them onto the deck's face ids
/// (`faces`), which ascend in the same order.
///
/// # Safety
/// The CPU must have BMI2 ([`detect_bmi2`]).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) unsafe fn faces_bmi2(cards: u128, g: &Game) -> u128 {
    use bmi2::{pdep, pext};
    let (rest, top, faces) = (g.group_rest, g.group_top, g.face_in_deck);
    let marks = ((cards & rest).wrapping_add(rest) | cards) & top;
    // SAFETY: the caller checked BMI2.
    let (lo, hi) = unsafe {
        (
            pext(marks as u64, top as u64),
            pext((marks >> 64) as u64, (top >> 64) as u64),
        )
    };
    let packed = lo as u128 | (hi as u128) << (top as u64).count_ones();
    let f_lo = faces as u64;
    // SAFETY: as above.
    let (out_lo, out_hi) = unsafe {
        (
            pdep(packed as u64, f_lo),
            pdep((packed >> f_lo.count_ones()) as u64, (faces >> 64) as u64),
        )
    };
    out_lo as u128 | (out_hi as u128) << 64
}

/// Index of the `k`-th (0-based) set bit of `m`; `k` must be below `m.count_ones()`.
#[inline]
pub(crate) fn select_bit(m: u128, k: u32) -> u32 {
    select_one(m, k).0
}

/// The `k`-th (0-based) set bit of `m` as its index and as a one-bit set;
/// `k` must be below `m.count_ones()`. The set is built from two 64-bit
/// halves, so a caller that clears or moves the card pays no 128-bit
/// variable shift (about 7 instructions, twice in a draw).
#[inline]
pub(crate) fn select_one(m: u128, k: u32) -> (u32, u128) {
    let lo = m as u64;
    let c = lo.count_ones();
    // Pick the half by value, not by branch: for a random card the half is a
    // coin flip, which a branch would mispredict half of the time.
    let high = k >= c;
    let (word, skip) = std::hint::select_unpredictable(high, ((m >> 64) as u64, c), (lo, 0));
    let bit = isolate64(word, k - skip);
    let (l, h) = std::hint::select_unpredictable(high, (0, bit), (bit, 0));
    (
        (high as u32) << 6 | bit.trailing_zeros(),
        l as u128 | (h as u128) << 64,
    )
}

/// The `k`-th set bit of `x` alone.
#[inline]
fn isolate64(x: u64, k: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if BMI2.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: `BMI2` is set only after the CPU was found to have
            // BMI2. `pdep` deposits bit k onto the k-th set bit of `x`.
            return unsafe { bmi2::pdep(1u64 << k, x) };
        }
    }
    isolate64_portable(x, k)
}

/// [`isolate64`] on a CPU without BMI2, kept out of line so that the
/// draws that inline `isolate64` stay small.
#[cold]
#[inline(never)]
fn isolate64_portable(x: u64, k: u32) -> u64 {
    1 << select64_portable(x, k)
}

/// `pdep` and `pext` as inline assembly. The intrinsics of
/// `core::arch` need `#[target_feature(enable = "bmi2")]` functions, which
/// cannot be inlined into the engine (built for x86-64-v2, checked for BMI2
/// at run time): every card drawn paid a call and the register moves around
/// it. An `asm!` block is inlined like any instruction.
#[cfg(target_arch = "x86_64")]
mod bmi2 {
    /// One BMI2 instruction of two registers, `$name`: where the build
    /// enables BMI2 (x86-64-v3, as `scripts/miri` makes, whose interpreter
    /// runs no assembly) the intrinsic `$intrinsic`, which then inlines;
    /// otherwise the instruction as inline assembly.
    macro_rules! op {
        ($(#[$doc:meta])* $name:ident, $intrinsic:ident) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// The CPU must have BMI2.
            #[inline(always)]
            pub(super) unsafe fn $name(src: u64, mask: u64) -> u64 {
                #[cfg(target_feature = "bmi2")]
                // SAFETY: BMI2 is enabled for the whole build.
                return unsafe { core::arch::x86_64::$intrinsic(src, mask) };
                #[cfg(not(target_feature = "bmi2"))]
                {
                    let out: u64;
                    // SAFETY: the caller checked BMI2; the instruction reads
                    // and writes registers only.
                    unsafe {
                        core::arch::asm!(
                            concat!(stringify!($name), " {out}, {src}, {mask}"),
                            src = in(reg) src,
                            mask = in(reg) mask,
                            out = lateout(reg) out,
                            options(pure, nomem, nostack, preserves_flags),
                        );
                    }
                    out
                }
            }
        };
    }

    op!(
        /// Deposits the low bits of `src` onto the set bits of `mask`.
        pdep,
        _pdep_u64
    );
    op!(
        /// Gathers the bits of `src` at the set bits of `mask` into the low bits.
        pext,
        _pext_u64
    );
}

#[inline]
fn select64_portable(x: u64, mut k: u32) -> u32 {
    let mut base = 0;
    let mut x = x;
    // Skip whole bytes by popcount, then scan the byte.
    loop {
        let c = (x as u8).count_ones();
        if k < c {
            break;
        }
        k -= c;
        x >>= 8;
        base += 8;
    }
    let mut b = x as u8;
    for _ in 0..k {
        b &= b - 1;
    }
    base + b.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_cuts_decide_as_the_float_compares() {
        // The launcher's integer thresholds (fire or not, how many cards)
        // must give the float compares' outcome for every 24-bit draw `x`:
        // checked at and around each threshold, at both ends, and on a
        // sweep, for edge probabilities and every preset's count CDF.
        let unit = |x: u32| x as f32 * (1.0 / (1u32 << 24) as f32);
        let mut ps = vec![
            0.0,
            -0.5,
            1.0,
            1.5,
            1e-9,
            0.5,
            0.1,
            0.3,
            1.0 - 1e-7,
            f32::MIN_POSITIVE,
            f32::NAN,
        ];
        for preset in crate::PRESETS {
            let g = Game::new(crate::Rules::preset(preset).unwrap(), 2).unwrap();
            match &g.rules.launcher {
                LauncherModel::Hazard { hazard, cards } => {
                    ps.extend(count_cdf(cards).0);
                    ps.extend(hazard.iter().map(|&h| h as f32));
                }
                LauncherModel::Bernoulli { p, cards } => {
                    ps.extend(count_cdf(cards).0);
                    ps.push(*p as f32);
                }
                LauncherModel::Pattern { cards, .. } => ps.extend(count_cdf(cards).0),
                _ => {}
            }
        }
        for &p in &ps {
            let reach = cut(p);
            let fire = chance_cut(p);
            let near = |c: u32| c.saturating_sub(2)..=c.saturating_add(2).min((1 << 24) - 1);
            let xs = near(reach)
                .chain(near(fire.min(1 << 24)))
                .chain([0, (1 << 24) - 1])
                .chain((0..1u32 << 24).step_by(9973));
            for x in xs {
                assert_eq!(x >= reach, unit(x) >= p, "count cut of {p} at {x}");
                let by_float = p >= 1.0 || (p > 0.0 && unit(x) < p);
                let by_cut = fire == u32::MAX || (fire != 0 && x < fire);
                assert_eq!(by_cut, by_float, "fire cut of {p} at {x}");
            }
        }
    }

    #[test]
    fn select_bit_matches_naive() {
        let masks = [
            1u128,
            0xF0F0,
            u128::MAX,
            (1u128 << 100) | (1 << 3) | (1 << 64),
            0x8000_0000_0000_0001u128 << 60,
        ];
        for m in masks {
            let bits: Vec<usize> = iter_bits(m).collect();
            for (k, b) in bits.iter().enumerate() {
                assert_eq!(select_bit(m, k as u32) as usize, *b);
                // The card as a one-bit set, as a draw takes it.
                assert_eq!(select_one(m, k as u32), (*b as u32, 1u128 << b));
                for half in [m as u64, (m >> 64) as u64] {
                    if (k as u32) < half.count_ones() {
                        let portable = isolate64_portable(half, k as u32);
                        assert_eq!(portable, 1 << iter_bits(half as u128).nth(k).unwrap());
                        // Both paths of `isolate64` (the `pdep` one where the CPU has it).
                        #[cfg(target_arch = "x86_64")]
                        if detect_bmi2() {
                            // SAFETY: checked just above.
                            assert_eq!(unsafe { bmi2::pdep(1 << k, half) }, portable);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn faces_mask_matches_the_card_walk() {
        // The legal mask's card plays (C-3): the carry-and-gather path must
        // give the faces the card-by-card walk gives, on every preset's deck.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for preset in crate::rules::PRESETS {
            let g = Game::new(Rules::preset(preset).unwrap(), 4).unwrap();
            assert_eq!(g.fast_faces, detect_bmi2(), "{preset}: groups ascend");
            let mut sets = vec![0, g.all_cards, g.group_top, g.group_rest];
            sets.extend(iter_bits(g.all_cards).map(|c| 1u128 << c));
            for _ in 0..2000 {
                let r = (next() as u128) << 64 | next() as u128;
                // Sparse and dense sets.
                sets.push(r & (next() as u128) & (next() as u128) & g.all_cards);
                sets.push(r & g.all_cards);
            }
            for cards in sets {
                let walk = g.faces_by_card(cards);
                assert_eq!(g.faces_mask(cards), walk, "{preset}: {cards:#x}");
                let naive = iter_bits(cards).fold(0u128, |m, c| m | 1u128 << g.card_face[c]);
                assert_eq!(walk, naive);
            }
        }
    }

    #[test]
    fn count_distribution_has_mean_three_and_a_half() {
        let (cdf, max) = count_cdf(&CardCount::default());
        assert_eq!(max, 12);
        let mut mean = 0.0;
        let mut prev = 0.0;
        for (i, c) in cdf.iter().take(max as usize).enumerate() {
            mean += (i + 1) as f64 * (*c as f64 - prev);
            prev = *c as f64;
        }
        assert!((mean - 3.5).abs() < 0.05, "mean {mean}");
        // P(>= 8) about 5 % (launcher.md).
        let p8 = 1.0 - cdf[6] as f64;
        assert!((0.03..0.07).contains(&p8), "P(>=8) {p8}");
    }
}
