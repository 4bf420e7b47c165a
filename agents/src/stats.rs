//! Statistics for the arena: Wilson intervals, win-rate differences, Bradley–Terry ratings.

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `wins` successes in `n` trials at normal quantile `z`.
pub fn wilson(wins: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = wins as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At 0 or n wins the bound is exactly 0 or 1; the formula leaves
    // rounding dust there (2e-19, printed as such in JSON).
    let lo = if wins == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if wins as f64 == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// Difference of two win rates measured in the same `n` games (each game won by
/// at most one of the two): the observed difference and the adjusted Wald
/// interval of Bonett and Price (2012) for paired proportions — one win
/// added to each agent and two games to `n`, then the multinomial variance
/// `(pa + pb - (pa - pb)^2) / (n + 2)` — clamped to [-1, 1]. Unlike the
/// plain normal interval it keeps a width at 0 % / 100 % and stays inside
/// [-1, 1] for small `n`; at thousands of games the two agree.
pub fn diff_ci(wins_a: u64, wins_b: u64, n: u64, z: f64) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, -1.0, 1.0);
    }
    let nf = n as f64;
    let d = (wins_a as f64 - wins_b as f64) / nf;
    let m = nf + 2.0;
    let (pa, pb) = ((wins_a as f64 + 1.0) / m, (wins_b as f64 + 1.0) / m);
    let centre = pa - pb;
    let half = z * ((pa + pb - centre * centre) / m).max(0.0).sqrt();
    (d, (centre - half).max(-1.0), (centre + half).min(1.0))
}

/// Bradley–Terry strengths from a win matrix (`wins[i][j]` = games i won against j),
/// by the MM algorithm with half a win of prior against each opponent played
/// (so undefeated agents stay finite). Returned as Elo-scale ratings
/// (`400 * log10(strength)`), centred on a mean of 0.
pub fn bradley_terry(wins: &[Vec<f64>]) -> Vec<f64> {
    let k = wins.len();
    let mut w = wins.to_vec();
    for i in 0..k {
        for j in 0..k {
            if i != j && wins[i][j] + wins[j][i] > 0.0 {
                w[i][j] += 0.5;
            }
        }
    }
    let mut p = vec![1.0f64; k];
    for _ in 0..10_000 {
        let mut next = vec![0.0; k];
        for i in 0..k {
            let won: f64 = (0..k).filter(|&j| j != i).map(|j| w[i][j]).sum();
            let den: f64 = (0..k)
                .filter(|&j| j != i)
                .map(|j| (w[i][j] + w[j][i]) / (p[i] + p[j]))
                .sum();
            next[i] = if den > 0.0 { won / den } else { p[i] };
        }
        let g = (next.iter().map(|x| x.max(1e-300).ln()).sum::<f64>() / k as f64).exp();
        let mut delta = 0.0f64;
        for i in 0..k {
            let v = next[i] / g;
            delta = delta.max((v - p[i]).abs() / p[i].max(1e-300));
            p[i] = v;
        }
        if delta < 1e-12 {
            break;
        }
    }
    let r: Vec<f64> = p.iter().map(|x| 400.0 * x.max(1e-300).log10()).collect();
    let mean = r.iter().sum::<f64>() / k.max(1) as f64;
    r.iter().map(|x| x - mean).collect()
}

/// Elo points per natural-log unit of Bradley–Terry strength (`400 / ln 10`).
const ELO_PER_LN: f64 = 400.0 / std::f64::consts::LN_10;

/// The covariance (Elo² scale) of the centred Bradley–Terry `ratings` fitted
/// to `wins` ([`bradley_terry`]), from the Fisher information of the games
/// each pair decided (`wins[i][j] + wins[j][i]`): the Moore–Penrose inverse of
/// that information (its null direction, shifting every rating alike, is the
/// one the centring removes). `None` when the pairs played do not connect
/// every agent (their ratings are then not comparable). The prior of
/// [`bradley_terry`] is left out: at thousands of games it does not matter.
pub fn bradley_terry_cov(wins: &[Vec<f64>], ratings: &[f64]) -> Option<Vec<Vec<f64>>> {
    let k = ratings.len();
    // Information of θ = ln strength, plus 1/k in every cell: L + 11ᵀ/k,
    // whose inverse minus 11ᵀ/k is L⁺ for a connected comparison graph.
    let mut info = vec![vec![1.0 / k as f64; k]; k];
    for i in 0..k {
        for j in 0..k {
            if i == j {
                continue;
            }
            let n = wins[i][j] + wins[j][i];
            let pi = 1.0 / (1.0 + 10f64.powf((ratings[j] - ratings[i]) / 400.0));
            let v = n * pi * (1.0 - pi);
            info[i][i] += v;
            info[i][j] -= v;
        }
    }
    let mut cov = invert(info)?;
    for row in &mut cov {
        for c in row.iter_mut() {
            *c = (*c - 1.0 / k as f64) * ELO_PER_LN * ELO_PER_LN;
        }
    }
    Some(cov)
}

/// The inverse of a small square matrix by Gauss–Jordan elimination with
/// partial pivoting; `None` when it is singular (to rounding).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let k = a.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    let mut inv: Vec<Vec<f64>> = (0..k)
        .map(|i| (0..k).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for c in 0..k {
        let p = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(c, p);
        inv.swap(c, p);
        let d = a[c][c];
        for j in 0..k {
            a[c][j] /= d;
            inv[c][j] /= d;
        }
        for r in 0..k {
            if r != c {
                let f = a[r][c];
                if f != 0.0 {
                    for j in 0..k {
                        a[r][j] -= f * a[c][j];
                        inv[r][j] -= f * inv[c][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_known_values() {
        let (lo, hi) = wilson(50, 100, Z95);
        assert!(
            (lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(0, 10, Z95);
        assert!(lo == 0.0 && (hi - 0.2775).abs() < 1e-4, "{lo} {hi}");
        // Exact bounds at the ends, for every sample size (no rounding dust).
        for n in [1, 7, 300, 20_000] {
            assert_eq!(wilson(0, n, Z95).0, 0.0, "n = {n}");
            assert_eq!(wilson(n, n, Z95).1, 1.0, "n = {n}");
        }
        let (lo, hi) = wilson(81, 263, Z95);
        assert!(
            (lo - 0.2553).abs() < 1e-3 && (hi - 0.3662).abs() < 1e-3,
            "{lo} {hi}"
        );
    }

    #[test]
    fn difference_interval_by_hand_and_at_the_edges() {
        // 8 wins to 2 in 10 games: the observed +0.6; adjusted rates 9/12 and
        // 3/12, centre 0.5, variance (1 - 0.25) / 12 = 0.0625, half-width
        // 1.96 * 0.25 = 0.49.
        let (d, lo, hi) = diff_ci(8, 2, 10, Z95);
        assert!((d - 0.6).abs() < 1e-12);
        assert!((lo - (0.5 - Z95 * 0.25)).abs() < 1e-12, "{lo}");
        assert!((hi - (0.5 + Z95 * 0.25)).abs() < 1e-12, "{hi}");
        // Inside [-1, 1], and never of zero width, at 100 % and small n
        // (the plain normal interval gave [+42.8, +117.2] points for 9 to 1
        // and [+100, +100] for one game).
        for (a, b, n) in [(9, 1, 10), (1, 0, 1), (0, 1, 1), (5, 0, 5), (0, 0, 3)] {
            let (d, lo, hi) = diff_ci(a, b, n, Z95);
            assert!((-1.0..=1.0).contains(&lo) && (-1.0..=1.0).contains(&hi));
            assert!(lo < hi, "{a}:{b} of {n}: [{lo}, {hi}]");
            assert!(lo <= d && d <= hi, "{a}:{b} of {n}: {d} in [{lo}, {hi}]");
        }
        // At arena sizes it is the normal interval to three decimals.
        let (d, lo, hi) = diff_ci(10_340, 9_660, 20_000, Z95);
        let half = Z95 * ((0.517 + 0.483 - d * d) / 20_000.0).sqrt();
        assert!((lo - (d - half)).abs() < 1e-4 && (hi - (d + half)).abs() < 1e-4);
    }

    #[test]
    fn bradley_terry_orders_and_scales() {
        // 75 % head-to-head is about 191 Elo.
        let r = bradley_terry(&[vec![0.0, 7500.0], vec![2500.0, 0.0]]);
        assert!(((r[0] - r[1]) - 190.85).abs() < 0.5, "{r:?}");
        let r = bradley_terry(&[
            vec![0.0, 60.0, 80.0],
            vec![40.0, 0.0, 60.0],
            vec![20.0, 40.0, 0.0],
        ]);
        assert!(r[0] > r[1] && r[1] > r[2]);
    }

    #[test]
    fn bradley_terry_cov_matches_the_two_agent_closed_form() {
        // Two agents, 1,000 decided games, 600 to 400: Var(θ₁ − θ₂) is
        // 1 / (n π (1 − π)) at the fitted π, and each centred rating carries
        // a quarter of it.
        let wins = vec![vec![0.0, 600.0], vec![400.0, 0.0]];
        let r = bradley_terry(&wins);
        let cov = bradley_terry_cov(&wins, &r).expect("connected");
        let pi = 1.0 / (1.0 + 10f64.powf((r[1] - r[0]) / 400.0));
        let var_diff = ELO_PER_LN * ELO_PER_LN / (1000.0 * pi * (1.0 - pi));
        let got = cov[0][0] + cov[1][1] - 2.0 * cov[0][1];
        assert!((got - var_diff).abs() < 1e-9 * var_diff, "{got} {var_diff}");
        assert!((cov[0][0] - var_diff / 4.0).abs() < 1e-9 * var_diff);
        // Centred: the ratings' sum has no variance.
        let sum: f64 = cov.iter().flatten().sum();
        assert!(sum.abs() < 1e-9 * var_diff, "{sum}");
    }

    #[test]
    fn bradley_terry_cov_shrinks_with_games_and_needs_a_connected_league() {
        let league = |n: f64| {
            vec![
                vec![0.0, 0.6 * n, 0.7 * n],
                vec![0.4 * n, 0.0, 0.6 * n],
                vec![0.3 * n, 0.4 * n, 0.0],
            ]
        };
        let se = |n: f64| {
            let w = league(n);
            let c = bradley_terry_cov(&w, &bradley_terry(&w)).unwrap();
            c[0][0].sqrt()
        };
        // Four times the games, half the standard error.
        assert!((se(1000.0) / se(4000.0) - 2.0).abs() < 1e-3);
        // Agent 2 never played: its rating is not comparable.
        let apart = vec![
            vec![0.0, 60.0, 0.0],
            vec![40.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0],
        ];
        assert!(bradley_terry_cov(&apart, &bradley_terry(&apart)).is_none());
    }
}
