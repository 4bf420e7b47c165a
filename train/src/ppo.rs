//! PPO maths: generalised advantage estimation and advantage normalisation on host slices, and
//! the clipped PPO loss (masked log-softmax, clipped surrogate, optionally clipped value loss,
//! masked entropy) on burn tensors.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Int, Tensor};
use serde::{Deserialize, Serialize};

/// Logit used for illegal actions inside the loss (large finite negative, never `-inf`).
pub const MASKED_LOGIT: f32 = -1.0e9;

/// Advantages and returns (`advantages + values`) produced by [`compute_gae`].
#[derive(Clone, Debug, PartialEq)]
pub struct Gae {
    /// GAE(λ) advantages, same layout as the inputs.
    pub advantages: Vec<f32>,
    /// Value targets: `advantages[i] + values[i]`.
    pub returns: Vec<f32>,
}

/// Generalised advantage estimation over `num_envs` interleaved trajectories.
///
/// Inputs are time-major: entry `t * num_envs + e` is step `t` of trajectory `e`.
/// `dones[i]` is true when the episode ended *at* step `i` (no bootstrapping past it);
/// `bootstrap[e]` is the value estimate of the state after the last stored step of
/// trajectory `e` (ignored when that step is terminal).
///
/// # Panics
/// If the slice lengths are inconsistent (a programming error, not a data error).
pub fn compute_gae(
    rewards: &[f32],
    values: &[f32],
    dones: &[bool],
    bootstrap: &[f32],
    num_envs: usize,
    gamma: f32,
    lambda: f32,
) -> Gae {
    let n = rewards.len();
    assert!(num_envs > 0, "compute_gae: num_envs must be > 0");
    assert_eq!(values.len(), n, "compute_gae: values length");
    assert_eq!(dones.len(), n, "compute_gae: dones length");
    assert_eq!(bootstrap.len(), num_envs, "compute_gae: bootstrap length");
    assert_eq!(
        n % num_envs,
        0,
        "compute_gae: length not a multiple of num_envs"
    );
    let steps = n / num_envs;
    let (gamma, lambda) = (f64::from(gamma), f64::from(lambda));
    let mut advantages = vec![0.0f32; n];
    for (e, &boot) in bootstrap.iter().enumerate() {
        let mut next_value = f64::from(boot);
        let mut running = 0.0f64;
        for t in (0..steps).rev() {
            let i = t * num_envs + e;
            let not_done = if dones[i] { 0.0 } else { 1.0 };
            let delta =
                f64::from(rewards[i]) + gamma * next_value * not_done - f64::from(values[i]);
            running = delta + gamma * lambda * not_done * running;
            advantages[i] = running as f32;
            next_value = f64::from(values[i]);
        }
    }
    let returns = advantages.iter().zip(values).map(|(a, v)| a + v).collect();
    Gae {
        advantages,
        returns,
    }
}

/// Normalises in place to zero mean and unit (population) standard deviation.
///
/// Slices of length < 2 are set to zero (a single sample has no spread).
pub fn normalize_advantages(adv: &mut [f32]) {
    if adv.len() < 2 {
        adv.fill(0.0);
        return;
    }
    let n = adv.len() as f64;
    let mean = adv.iter().map(|&a| f64::from(a)).sum::<f64>() / n;
    let var = adv
        .iter()
        .map(|&a| (f64::from(a) - mean).powi(2))
        .sum::<f64>()
        / n;
    let scale = 1.0 / (var.sqrt() + 1e-8);
    for a in adv.iter_mut() {
        *a = ((f64::from(*a) - mean) * scale) as f32;
    }
}

/// Fraction of the variance of `returns` explained by `values` (1 = perfect, ≤ 0 = useless).
///
/// Returns `NaN` when `returns` has zero variance.
pub fn explained_variance(values: &[f32], returns: &[f32]) -> f32 {
    let n = returns.len().min(values.len());
    if n == 0 {
        return f32::NAN;
    }
    let var = |xs: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = xs.collect();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64
    };
    let var_y = var(&mut returns[..n].iter().map(|&r| f64::from(r)));
    if var_y == 0.0 {
        return f32::NAN;
    }
    let var_res = var(&mut returns[..n]
        .iter()
        .zip(&values[..n])
        .map(|(&r, &v)| f64::from(r) - f64::from(v)));
    (1.0 - var_res / var_y) as f32
}

/// Coefficients of the PPO loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PpoLossConfig {
    /// Ratio clipping range ε (ratio is clipped to `[1-ε, 1+ε]`).
    pub clip_eps: f32,
    /// Weight of the value loss.
    pub value_coef: f32,
    /// Weight of the entropy bonus.
    pub entropy_coef: f32,
    /// If set, the value prediction is clipped to `old_value ± value_clip` (PPO2 style).
    pub value_clip: Option<f32>,
}

impl Default for PpoLossConfig {
    fn default() -> Self {
        Self {
            clip_eps: 0.2,
            value_coef: 0.5,
            entropy_coef: 0.01,
            value_clip: None,
        }
    }
}

/// One minibatch of PPO inputs as tensors on the training device.
#[derive(Clone, Debug)]
pub struct PpoTensors {
    /// Raw network logits `[n, num_actions]`.
    pub logits: Tensor<2>,
    /// Network value predictions `[n]`.
    pub values: Tensor<1>,
    /// Legal-action mask `[n, num_actions]` (true = legal).
    pub legal: Tensor<2, Bool>,
    /// Taken actions `[n, 1]`.
    pub actions: Tensor<2, Int>,
    /// Log-probabilities of the taken actions under the behaviour policy `[n]`.
    pub old_logp: Tensor<1>,
    /// Advantages (already normalised if wanted) `[n]`.
    pub advantages: Tensor<1>,
    /// Value targets `[n]`.
    pub returns: Tensor<1>,
    /// Value predictions at collection time `[n]` (used for value clipping).
    pub old_values: Tensor<1>,
}

/// Scalar diagnostics of one loss evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LossStats {
    /// Total loss that was minimised.
    pub total: f32,
    /// Clipped surrogate policy loss (negated objective).
    pub policy_loss: f32,
    /// Value loss (0.5 · squared error, possibly clipped).
    pub value_loss: f32,
    /// Mean entropy of the masked policy.
    pub entropy: f32,
    /// Approximate KL(old ‖ new), the `(r - 1) - ln r` estimator.
    pub approx_kl: f32,
    /// Fraction of samples whose ratio was outside `[1-ε, 1+ε]`.
    pub clip_frac: f32,
}

/// Log-softmax over legal actions; illegal entries become ≈ [`MASKED_LOGIT`].
pub fn masked_log_softmax(logits: Tensor<2>, legal: Tensor<2, Bool>) -> Tensor<2> {
    log_softmax(logits.mask_fill(legal.bool_not(), MASKED_LOGIT), 1)
}

/// Per-row entropy `[n]` of a masked log-softmax (illegal entries contribute 0).
pub fn masked_entropy(logp_all: Tensor<2>) -> Tensor<1> {
    (logp_all.clone().exp() * logp_all)
        .sum_dim(1)
        .squeeze_dim::<1>(1)
        .neg()
}

/// Clipped surrogate loss `-mean(min(r·A, clip(r, 1-ε, 1+ε)·A))` (a one-element tensor).
pub fn clipped_surrogate(ratio: Tensor<1>, advantages: Tensor<1>, clip_eps: f32) -> Tensor<1> {
    let surr1 = ratio.clone() * advantages.clone();
    let surr2 = ratio.clamp(1.0 - clip_eps, 1.0 + clip_eps) * advantages;
    surr1.min_pair(surr2).mean().neg()
}

/// Value loss `0.5·mean((v - R)²)`, or with clipping `0.5·mean(max((v-R)², (v_clip-R)²))`.
pub fn value_loss(
    values: Tensor<1>,
    old_values: Tensor<1>,
    returns: Tensor<1>,
    value_clip: Option<f32>,
) -> Tensor<1> {
    let err = values.clone() - returns.clone();
    let sq = err.clone() * err;
    let per_sample = match value_clip {
        Some(c) => {
            let clipped = old_values.clone() + (values - old_values).clamp(-c, c);
            let err_c = clipped - returns;
            sq.max_pair(err_c.clone() * err_c)
        }
        None => sq,
    };
    per_sample.mean().mul_scalar(0.5)
}

/// The PPO loss of one minibatch: returns the differentiable total loss (one element) and
/// its diagnostics (read back to the host).
pub fn ppo_loss(t: PpoTensors, cfg: &PpoLossConfig) -> (Tensor<1>, LossStats) {
    let logp_all = masked_log_softmax(t.logits, t.legal);
    let logp = logp_all.clone().gather(1, t.actions).squeeze_dim::<1>(1);
    let log_ratio = logp - t.old_logp;
    let ratio = log_ratio.clone().exp();

    let policy_loss = clipped_surrogate(ratio.clone(), t.advantages, cfg.clip_eps);
    let v_loss = value_loss(t.values, t.old_values, t.returns, cfg.value_clip);
    let entropy = masked_entropy(logp_all).mean();
    let total = policy_loss.clone() + v_loss.clone().mul_scalar(cfg.value_coef)
        - entropy.clone().mul_scalar(cfg.entropy_coef);

    let ratio_d = ratio.detach();
    let approx_kl = (ratio_d.clone().sub_scalar(1.0) - log_ratio.detach())
        .mean()
        .into_scalar::<f32>();
    let clip_frac = ratio_d
        .sub_scalar(1.0)
        .abs()
        .greater_elem(cfg.clip_eps)
        .float()
        .mean()
        .into_scalar::<f32>();
    let stats = LossStats {
        total: total.clone().detach().into_scalar::<f32>(),
        policy_loss: policy_loss.detach().into_scalar::<f32>(),
        value_loss: v_loss.detach().into_scalar::<f32>(),
        entropy: entropy.detach().into_scalar::<f32>(),
        approx_kl,
        clip_frac,
    };
    (total, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::{Device, TensorData};

    fn t1(v: &[f32]) -> Tensor<1> {
        Tensor::<1>::from_data(TensorData::new(v.to_vec(), [v.len()]), &Device::flex())
    }

    fn t2(v: &[f32], rows: usize) -> Tensor<2> {
        Tensor::<2>::from_data(
            TensorData::new(v.to_vec(), [rows, v.len() / rows]),
            &Device::flex(),
        )
    }

    fn b2(v: &[bool], rows: usize) -> Tensor<2, Bool> {
        Tensor::<2, Bool>::from_data(
            TensorData::new(v.to_vec(), [rows, v.len() / rows]),
            &Device::flex(),
        )
    }

    fn host(t: Tensor<1>) -> Vec<f32> {
        t.into_data().try_into_vec::<f32>().expect("f32 data")
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn gae_three_step_episode_by_hand() {
        // One episode of 3 steps, reward only at the end.
        let rewards = [0.0, 0.0, 1.0];
        let values = [0.5, 0.6, 0.7];
        let dones = [false, false, true];
        let (g, l) = (0.9f32, 0.8f32);
        let out = compute_gae(&rewards, &values, &dones, &[123.0], 1, g, l);
        // delta2 = 1 - 0.7 = 0.3 (terminal: bootstrap ignored)
        // delta1 = 0 + 0.9*0.7 - 0.6 = 0.03;  A1 = 0.03 + 0.72*0.3 = 0.246
        // delta0 = 0 + 0.9*0.6 - 0.5 = 0.04;  A0 = 0.04 + 0.72*0.246 = 0.21712
        let want = [0.21712, 0.246, 0.3];
        for (a, w) in out.advantages.iter().zip(want) {
            assert!(close(*a, w), "{:?}", out.advantages);
        }
        for i in 0..3 {
            assert!(close(out.returns[i], want[i] + values[i]));
        }
        // With lambda = 1 and gamma = 1 the return is the undiscounted episode reward.
        let mc = compute_gae(&rewards, &values, &dones, &[0.0], 1, 1.0, 1.0);
        assert!(
            mc.returns.iter().all(|&r| close(r, 1.0)),
            "{:?}",
            mc.returns
        );
    }

    #[test]
    fn gae_bootstraps_and_resets_across_episode_boundaries() {
        // Two interleaved envs, 2 steps each. Env 0: episode ends at t=0, new one at t=1
        // (unfinished, bootstrap 2.0). Env 1: one unfinished episode (bootstrap 1.0).
        let rewards = [1.0, 0.0, 0.0, 0.5];
        let values = [0.2, 0.1, 0.3, 0.4];
        let dones = [true, false, false, false];
        let out = compute_gae(&rewards, &values, &dones, &[2.0, 1.0], 2, 0.5, 1.0);
        // env0 t1: 0 + 0.5*2 - 0.3 = 0.7 ; env0 t0: 1 - 0.2 = 0.8 (no leak from t1)
        // env1 t1: 0.5 + 0.5*1 - 0.4 = 0.6 ; env1 t0: 0 + 0.5*0.4 - 0.1 + 0.5*0.6 = 0.4
        let want = [0.8, 0.4, 0.7, 0.6];
        for (a, w) in out.advantages.iter().zip(want) {
            assert!(close(*a, w), "{:?}", out.advantages);
        }
    }

    #[test]
    fn normalisation_gives_zero_mean_unit_std() {
        let mut a = [1.0, 2.0, 3.0, 4.0];
        normalize_advantages(&mut a);
        let s = 1.25f32.sqrt();
        let want = [-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s];
        for (x, w) in a.iter().zip(want) {
            assert!(close(*x, w), "{a:?}");
        }
        let mut one = [5.0];
        normalize_advantages(&mut one);
        assert_eq!(one, [0.0]);
    }

    #[test]
    fn explained_variance_extremes() {
        let r = [1.0, 2.0, 3.0];
        assert!(close(explained_variance(&r, &r), 1.0));
        assert!(close(explained_variance(&[2.0, 2.0, 2.0], &r), 0.0));
        assert!(explained_variance(&r, &[1.0, 1.0, 1.0]).is_nan());
    }

    #[test]
    fn clipped_surrogate_known_ratios() {
        let eps = 0.2;
        // A>0: ratio 1.5 is clipped to 1.2; ratio 0.5 is not (min picks 0.5).
        // A<0: ratio 1.5 unclipped (min picks -1.5*|A|); ratio 0.5 clipped to 0.8.
        let ratio = t1(&[1.5, 0.5, 1.5, 0.5, 1.0]);
        let adv = t1(&[2.0, 2.0, -1.0, -1.0, 3.0]);
        let loss = clipped_surrogate(ratio, adv, eps).into_scalar::<f32>();
        let objective = (1.2 * 2.0 + 0.5 * 2.0 - 1.5 - 0.8 + 3.0) / 5.0;
        assert!(close(loss, -objective), "loss {loss} want {}", -objective);
    }

    #[test]
    fn entropy_of_uniform_masked_distribution_is_ln_legal() {
        let logits = t2(&[0.3, 7.0, 0.3, 0.3, -2.0, 5.0, 5.0, 1.0], 2);
        let legal = b2(&[true, false, true, true, false, true, true, false], 2);
        let lp = masked_log_softmax(logits, legal);
        let ent = host(masked_entropy(lp.clone()));
        assert!(close(ent[0], 3f32.ln()), "{ent:?}");
        assert!(close(ent[1], 2f32.ln()), "{ent:?}");
        let lp: Vec<f32> = lp.into_data().try_into_vec::<f32>().expect("f32");
        assert!(close(lp[0], -(3f32.ln())) && close(lp[5], -(2f32.ln())));
        assert!(lp[1] < -1e8 && lp[4] < -1e8 && lp.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn value_loss_plain_and_clipped() {
        let v = t1(&[1.0, 0.0]);
        let old = t1(&[0.0, 0.0]);
        let ret = t1(&[2.0, 1.0]);
        // plain: 0.5 * mean(1, 1) = 0.5
        let plain = value_loss(v.clone(), old.clone(), ret.clone(), None).into_scalar::<f32>();
        assert!(close(plain, 0.5));
        // clip 0.5: v_clip = (0.5, 0) -> errs (1.5², 1) -> max(1, 2.25)=2.25, max(1,1)=1
        let clipped = value_loss(v, old, ret, Some(0.5)).into_scalar::<f32>();
        assert!(close(clipped, 0.5 * (2.25 + 1.0) / 2.0), "{clipped}");
    }

    #[test]
    fn ppo_loss_stats_on_known_input() {
        // Two samples, 3 actions; uniform new policy over the legal actions.
        let logits = t2(&[0.0, 0.0, 9.0, 0.0, 0.0, 0.0], 2);
        let legal = b2(&[true, true, false, true, true, true], 2);
        let dev = Device::flex();
        let actions = Tensor::<2, Int>::from_data(TensorData::new(vec![1i64, 2], [2, 1]), &dev);
        // old probs: sample0 had p=0.25 (ratio 2 -> clipped), sample1 had p=1/3 (ratio 1).
        let old_logp = t1(&[0.25f32.ln(), (1.0f32 / 3.0).ln()]);
        let cfg = PpoLossConfig {
            clip_eps: 0.2,
            value_coef: 0.5,
            entropy_coef: 0.1,
            value_clip: None,
        };
        let (loss, stats) = ppo_loss(
            PpoTensors {
                logits,
                values: t1(&[0.0, 1.0]),
                legal,
                actions,
                old_logp,
                advantages: t1(&[1.0, 1.0]),
                returns: t1(&[1.0, 1.0]),
                old_values: t1(&[0.0, 0.0]),
            },
            &cfg,
        );
        let policy = -(1.2 + 1.0) / 2.0;
        let value = 0.5 * (1.0 + 0.0) / 2.0;
        let entropy = (2f32.ln() + 3f32.ln()) / 2.0;
        assert!(close(stats.policy_loss, policy), "{stats:?}");
        assert!(close(stats.value_loss, value), "{stats:?}");
        assert!(close(stats.entropy, entropy), "{stats:?}");
        assert!(close(stats.clip_frac, 0.5), "{stats:?}");
        let kl = ((2.0 - 1.0) - 2f32.ln()) / 2.0;
        assert!(close(stats.approx_kl, kl), "{stats:?}");
        let total = policy + 0.5 * value - 0.1 * entropy;
        assert!(close(stats.total, total) && close(loss.into_scalar::<f32>(), total));
    }
}
