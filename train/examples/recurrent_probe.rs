//! Research probe (session 33, docs/research-4p.md, "Does memory help?"): does memory (a GRU over the learner seat's own
//! observations within a round) lift the shipped 4-player attack-2010 network
//! against 3 x heuristic?
//!
//! The network is the shipped `PolicyValueNet` (trunk 488→256→256, heads 98 + 1)
//! plus `h_t = GRU(obs_t, h_{t-1})` (H = 128) injected through a zero-initialised
//! `Linear(H → 256)` added to the trunk's last (post-ReLU) activation. With the
//! projection at zero the function is the shipped network's. Trained with PPO and
//! truncated BPTT (whole env-sequences of T learner decisions per minibatch,
//! hidden state stored at each chunk start, reset at every round start).
//!
//! Not part of the trainer: a separate PPO loop on `SoloVecEnv` against three
//! heuristics, kept so the experiment can be repeated and extended.
//!
//! Modes (first argument; run from the repository's root):
//!   check                     exactness check vs the shipped network on real observations
//!   eval  [rounds]            evaluate the shipped network (zero projection) — calibration
//!   evalfile FILE.bpk ROUNDS on|amnesia|off   evaluate a saved probe network
//!   train <minutes> <on|off|aux> [tag]   train, quick evals, final evaluation; saves target/probe-<tag>.bpk
//!                             (`aux`, session 34: memory off, plus an auxiliary loss, weight AUX,
//!                             predicting each opponent's cards per colour from the trunk)
//!   export FILE.bpk DIR       a network trained without memory (`off`, `aux`) as a
//!                             `checkpoint:` directory (the shipped architecture)
//! Env: ENVS (1024), T (32), MB (4 minibatches), EPOCHS (3), LR (1e-4), ETHREADS (2), QUICK_MIN (5),
//! AUX (1.0)
//!
//! `cargo run --release -p uno-train --example recurrent_probe -- eval 20000`

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::activation::{relu, sigmoid, tanh};
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::time::Instant;
use uno_agents::SoloVecEnv;
use uno_agents::neural::{
    EXPECTED, NamedParam, PolicyValueNet, load_checkpoint_on, masked_argmax, playing_mask,
    sample_masked, save_checkpoint,
};
use uno_agents::parse_spec;
use uno_agents::stats::{Z95, wilson};
use uno_env::obs::OBS_SIZE;
use uno_env::vec_env::Buffers;
use uno_env::{EnvConfig, NUM_ACTIONS, Rules};
use uno_train::learner::{global_grad_norm, scale_grads};
use uno_train::ppo::{compute_gae, masked_entropy, masked_log_softmax};

const H: usize = 128;
const D: usize = OBS_SIZE;
const A: usize = NUM_ACTIONS;
const CKPT: &str = "checkpoints/attack-2010-4p";
/// Auxiliary targets: for each opponent (seats 1..=3 after the learner's, by seat
/// number), its cards of each colour and its wild cards, divided by [`AUX_SCALE`].
const AUX_K: usize = 3 * 5;
const AUX_SCALE: f32 = 5.0;

/// The auxiliary targets of game `i`'s position (the learner to decide), into `out` (`AUX_K`).
fn aux_targets(env: &SoloVecEnv, i: usize, out: &mut [f32]) {
    let (game, state) = (env.game(), env.state(i));
    let n = game.num_players();
    let me = env.learner(i);
    out.fill(0.0);
    for r in 1..n.min(4) {
        for f in state.hand_faces(game, (me + r) % n) {
            let c = f.colour().map_or(4, |c| c as usize);
            out[(r - 1) * 5 + c] += 1.0 / AUX_SCALE;
        }
    }
}

#[derive(Module, Debug)]
struct RecNet {
    l1: Linear,
    l2: Linear,
    policy: Linear,
    value: Linear,
    gx: Linear,
    gh: Linear,
    proj: Linear,
    /// Auxiliary head (session 34): predicts the opponents' hands from the trunk.
    aux: Linear,
    memory: bool,
}

fn linear_from(w: &[f32], b: &[f32], din: usize, dout: usize, dev: &Device) -> Linear {
    Linear {
        weight: Param::from_tensor(Tensor::<2>::from_data(
            TensorData::new(w.to_vec(), [din, dout]),
            dev,
        )),
        bias: Some(Param::from_tensor(Tensor::<1>::from_data(
            TensorData::new(b.to_vec(), [dout]),
            dev,
        ))),
    }
}

impl RecNet {
    fn from_base(base: &PolicyValueNet, memory: bool, dev: &Device, seed: u64) -> RecNet {
        let p = base.parameters().expect("parameters");
        let get = |n: &str| p.iter().find(|q| q.name == n).expect(n);
        let lin = |n: &str| {
            let w = get(&format!("{n}.weight"));
            let b = get(&format!("{n}.bias"));
            linear_from(&w.values, &b.values, w.shape[0], w.shape[1], dev)
        };
        assert_eq!(base.hidden(), vec![256, 256]);
        dev.seed(seed);
        RecNet {
            l1: lin("trunk.0"),
            l2: lin("trunk.1"),
            policy: lin("policy"),
            value: lin("value"),
            gx: LinearConfig::new(D, 3 * H).init(dev),
            gh: LinearConfig::new(H, 3 * H).init(dev),
            proj: linear_from(&vec![0.0; H * 256], &[0.0; 256], H, 256, dev),
            aux: LinearConfig::new(256, AUX_K).init(dev),
            memory,
        }
    }

    fn trunk(&self, x: Tensor<2>) -> Tensor<2> {
        relu(self.l2.forward(relu(self.l1.forward(x))))
    }

    fn heads(&self, z: Tensor<2>) -> (Tensor<2>, Tensor<1>) {
        (
            self.policy.forward(z.clone()),
            self.value.forward(z).squeeze_dim::<1>(1),
        )
    }

    /// One GRU step from the input projection `gx` `[b, 3H]` and `h` `[b, H]`.
    fn gru(&self, gx: Tensor<2>, h: Tensor<2>) -> Tensor<2> {
        let gh = self.gh.forward(h.clone());
        let r = sigmoid(gx.clone().narrow(1, 0, H) + gh.clone().narrow(1, 0, H));
        let z = sigmoid(gx.clone().narrow(1, H, H) + gh.clone().narrow(1, H, H));
        let n = tanh(gx.narrow(1, 2 * H, H) + r * gh.narrow(1, 2 * H, H));
        let one_minus_z = z.clone().neg().add_scalar(1.0);
        one_minus_z * n + z * h
    }

    /// One decision for a batch: logits, values, new hidden state.
    fn step(&self, x: Tensor<2>, h: Tensor<2>) -> (Tensor<2>, Tensor<1>, Tensor<2>) {
        let mut z = self.trunk(x.clone());
        let h = if self.memory {
            let h = self.gru(self.gx.forward(x), h);
            z = z + self.proj.forward(h.clone());
            h
        } else {
            h
        };
        let (l, v) = self.heads(z);
        (l, v, h)
    }

    /// A time-major sequence `x` `[T*B, D]` from `h0` `[B, H]`; `keep[t]` `[B, 1]` is 0 where
    /// the hidden state resets before step t.
    fn seq(
        &self,
        x: Tensor<2>,
        h0: Tensor<2>,
        keep: &[Tensor<2>],
        b: usize,
    ) -> (Tensor<2>, Tensor<1>, Tensor<2>) {
        let mut z = self.trunk(x.clone());
        if self.memory {
            let gx = self.gx.forward(x);
            let mut h = h0;
            let mut hs = Vec::with_capacity(keep.len());
            for (t, k) in keep.iter().enumerate() {
                h = self.gru(gx.clone().narrow(0, t * b, b), h * k.clone());
                hs.push(h.clone());
            }
            z = z + self.proj.forward(Tensor::cat(hs, 0));
        }
        let aux = self.aux.forward(z.clone());
        let (l, v) = self.heads(z);
        (l, v, aux)
    }
}

fn host<const N: usize>(t: Tensor<N>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("host")
}

fn env_config() -> EnvConfig {
    EnvConfig::new(Rules::preset("attack-2010").expect("rules"), 4)
}

fn make_env(n: usize, seed: u64, threads: usize) -> SoloVecEnv {
    SoloVecEnv::new(
        env_config(),
        n,
        seed,
        threads,
        &[parse_spec("heuristic").expect("spec")],
        None,
    )
    .expect("env")
}

/// The choices (the `checkpoint:` agent's playing mask) of game `i` as booleans; returns the count.
fn choices_row(env: &SoloVecEnv, i: usize, out: &mut [bool]) -> u32 {
    let c = playing_mask(env.game(), env.state(i));
    for (a, o) in out.iter_mut().enumerate() {
        *o = c >> a & 1 == 1;
    }
    c.count_ones()
}

/// Win share `w / n` with its 95 % Wilson interval (the arena's).
fn win_share(w: u64, n: u64) -> (f64, f64, f64) {
    let (lo, hi) = wilson(w, n, Z95);
    (w as f64 / n.max(1) as f64, lo, hi)
}

/// Greedy evaluation: `n` games x `per` rounds each (learner seat rotated), GRU state
/// carried within each round. Returns (wins, rounds, truncated). With `amnesia` the
/// hidden state is zeroed before every decision (memory ablated; the GRU still sees the
/// current observation).
fn evaluate(
    net: &RecNet,
    n: usize,
    per: u64,
    seed: u64,
    threads: usize,
    amnesia: bool,
) -> (u64, u64, u64) {
    let dev = Device::flex();
    let mut env = make_env(n, seed, threads);
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).expect("reset");
    let mut h = Tensor::<2>::zeros([n, H], &dev);
    let mut done_count = vec![0u64; n];
    let (mut wins, mut rounds, mut trunc) = (0u64, 0u64, 0u64);
    let mut mask = vec![false; n * A];
    let mut actions = vec![0u32; n];
    while done_count.iter().any(|&c| c < per) {
        for i in 0..n {
            choices_row(&env, i, &mut mask[i * A..(i + 1) * A]);
        }
        let x = Tensor::<2>::from_data(TensorData::new(buf.obs.to_vec(), [n, D]), &dev);
        let (l, _, hn) = net.step(x, h);
        let logits = host(l);
        for i in 0..n {
            actions[i] = masked_argmax(&logits[i * A..(i + 1) * A], &mask[i * A..(i + 1) * A])
                .expect("a legal action") as u32;
        }
        let seats: Vec<usize> = (0..n).map(|i| env.learner(i)).collect();
        env.step(&actions, buf.batch()).expect("step");
        let mut keep = vec![1.0f32; n];
        for i in 0..n {
            if amnesia || buf.terminated[i] | buf.truncated[i] != 0 {
                keep[i] = 0.0;
            }
            if buf.terminated[i] | buf.truncated[i] != 0 {
                if done_count[i] < per {
                    rounds += 1;
                    wins += (buf.winner[i] == seats[i] as i32) as u64;
                    trunc += buf.truncated[i] as u64;
                }
                done_count[i] += 1;
            }
        }
        h = hn * Tensor::<2>::from_data(TensorData::new(keep, [n, 1]), &dev);
    }
    (wins, rounds, trunc)
}

/// Evaluates `net` (see [`evaluate`]) and prints its win share; returns it.
fn report_eval(
    label: &str,
    net: &RecNet,
    n: usize,
    per: u64,
    seed: u64,
    threads: usize,
    amnesia: bool,
) -> f64 {
    let t = Instant::now();
    let (w, r, tr) = evaluate(net, n, per, seed, threads, amnesia);
    let (share, lo, hi) = win_share(w, r);
    println!(
        "EVAL {label}: win share {share:.4} [{lo:.4}, {hi:.4}] over {r} rounds ({tr} truncated), {:.1}s",
        t.elapsed().as_secs_f64()
    );
    share
}

fn env_or<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

/// The shipped network (run from the repository's root); its loading error otherwise.
fn load_base(dev: &Device) -> Result<PolicyValueNet, String> {
    load_checkpoint_on(Path::new(CKPT), Some(EXPECTED), dev)
        .map(|(net, _)| net)
        .map_err(|e| format!("{CKPT}: {e} (run from the repository's root)"))
}

/// Writes the probe network in `path`, whose memory path must be unused (a zero
/// projection: the `off` and `aux` arms), as a `checkpoint:` directory `dir`
/// holding the shipped network's architecture (the auxiliary head is dropped).
fn export(path: &str, dir: &str) -> Result<(), String> {
    let dev = Device::flex();
    let (base, mut meta) =
        load_checkpoint_on(Path::new(CKPT), Some(EXPECTED), &dev).map_err(|e| e.to_string())?;
    let net = RecNet::from_base(&base, false, &dev, 7)
        .try_load_file(path)
        .map_err(|e| format!("{path}: {e}"))?;
    let pmax = host(net.proj.weight.val())
        .iter()
        .chain(&host(net.proj.bias.as_ref().expect("bias").val()))
        .fold(0.0f32, |m, v| m.max(v.abs()));
    if pmax != 0.0 {
        return Err(format!(
            "{path}: its memory projection is not zero (largest |weight| {pmax}); \
             only networks trained without memory can be exported"
        ));
    }
    let layer = |name: &str| match name {
        "trunk.0" => &net.l1,
        "trunk.1" => &net.l2,
        "policy" => &net.policy,
        _ => &net.value,
    };
    let params: Vec<NamedParam> = base
        .parameters()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|p| {
            let (layer_name, part) = p.name.rsplit_once('.').expect("layer.part");
            let l = layer(layer_name);
            let values = match part {
                "weight" => host(l.weight.val()),
                _ => host(l.bias.as_ref().expect("bias").val()),
            };
            NamedParam { values, ..p }
        })
        .collect();
    let out = base
        .with_parameters(&params, &dev)
        .map_err(|e| e.to_string())?;
    meta.trained_with = serde_json::json!({
        "from": CKPT,
        "probe": path,
        "note": "fine-tuned by train/examples/recurrent_probe.rs (docs/research-4p.md), not by uno-attack train",
    });
    meta.eval = serde_json::json!({});
    save_checkpoint(Path::new(dir), &out, &meta).map_err(|e| e.to_string())
}

fn check() {
    let dev = Device::flex();
    let base = load_base(&dev).expect("loaded in main");
    let net = RecNet::from_base(&base, true, &dev, 7);
    // Real observations: a few steps of games against heuristics, random learner actions.
    let n = 256;
    let mut env = make_env(n, 3, 2);
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).expect("reset");
    let mut h = Tensor::<2>::zeros([n, H], &dev);
    let mut max = 0.0f32;
    let mut maxv = 0.0f32;
    for _ in 0..20 {
        let x = Tensor::<2>::from_data(TensorData::new(buf.obs.to_vec(), [n, D]), &dev);
        let (l0, v0) = base.forward(x.clone());
        let (l1, v1, hn) = net.step(x, h);
        h = hn;
        let (l0, l1, v0, v1) = (host(l0), host(l1), host(v0), host(v1));
        max = l0
            .iter()
            .zip(&l1)
            .map(|(a, b)| (a - b).abs())
            .fold(max, f32::max);
        maxv = v0
            .iter()
            .zip(&v1)
            .map(|(a, b)| (a - b).abs())
            .fold(maxv, f32::max);
        env.step_random(buf.batch(), true).expect("step");
    }
    let hn = host(h);
    let hmag = hn.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
    println!(
        "CHECK: max |logit diff| {max:e}, max |value diff| {maxv:e} over 20 x {n} rows (GRU state max |h| {hmag:.3}, nonzero => memory path live)"
    );
}

struct Roll {
    obs: Vec<f32>,
    mask: Vec<bool>,
    forced: Vec<bool>,
    actions: Vec<i64>,
    logp: Vec<f32>,
    values: Vec<f32>,
    rewards: Vec<f32>,
    dones: Vec<bool>,
    h0: Vec<f32>,
    aux: Vec<f32>,
}

fn train(minutes: f64, memory: bool, aux_coef: f32, tag: &str) {
    let n: usize = env_or("ENVS", 1024);
    let tlen: usize = env_or("T", 32);
    let mbs: usize = env_or("MB", 4);
    let epochs: usize = env_or("EPOCHS", 3);
    let lr: f64 = env_or("LR", 1e-4);
    let ethreads: usize = env_or("ETHREADS", 2);
    let quick_min: f64 = env_or("QUICK_MIN", 5.0);
    let seed: u64 = env_or("SEED", 1);
    let (gamma, lambda, clip, ent_c, vf_c, max_norm) =
        (0.99f32, 0.9f32, 0.2f32, 0.01f32, 0.5f32, 0.5f32);
    println!(
        "TRAIN {tag}: memory {memory}, auxiliary loss {aux_coef}, envs {n}, T {tlen}, minibatches {mbs}, epochs {epochs}, lr {lr}, env threads {ethreads}, {minutes} min"
    );
    let adev = Device::flex().autodiff();
    let cpu = Device::flex();
    let base = load_base(&adev).expect("loaded in main");
    let mut model = RecNet::from_base(&base, memory, &adev, seed);
    let mut optim = AdamWConfig::new()
        .with_weight_decay(0.0)
        .with_epsilon(1e-5)
        .init();
    let mut env = make_env(n, 1000 + seed, ethreads);
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).expect("reset");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut h = Tensor::<2>::zeros([n, H], &cpu);
    let start = Instant::now();
    let mut next_quick = 0.0f64;
    let (mut decisions, mut ep_count, mut ep_ret_sum, mut ep_len_sum, mut ep_wins) =
        (0u64, 0u64, 0f64, 0u64, 0u64);
    let mut running_ret = vec![0f32; n];
    let mut iter = 0u64;
    let mut t_roll = 0f64;
    let mut t_learn = 0f64;
    let mut quick = Vec::new();
    loop {
        let elapsed = start.elapsed().as_secs_f64() / 60.0;
        if elapsed >= next_quick {
            let net = model.valid().to_device(&cpu);
            let w = report_eval(
                &format!("{tag} quick t={elapsed:.1}min iter {iter} decisions {decisions}"),
                &net,
                1000,
                8,
                77,
                ethreads,
                false,
            );
            quick.push((elapsed, w));
            let dt = start.elapsed().as_secs_f64();
            println!(
                "STATS {tag}: t={elapsed:.1}min iters {iter} learner decisions {decisions} ({:.0}/s overall; rollout {:.0}s learn {:.0}s), episodes {ep_count}, mean return {:.4}, train win {:.4}, env decisions per learner decision {:.2}",
                decisions as f64 / dt,
                t_roll,
                t_learn,
                ep_ret_sum / ep_count.max(1) as f64,
                ep_wins as f64 / ep_count.max(1) as f64,
                ep_len_sum as f64 / decisions.max(1) as f64,
            );
            ep_ret_sum = 0.0;
            ep_count = 0;
            ep_wins = 0;
            next_quick += quick_min;
        }
        if elapsed >= minutes {
            break;
        }
        // ---- rollout ----
        let tr = Instant::now();
        let net = model.valid().to_device(&cpu);
        let mut r = Roll {
            obs: Vec::with_capacity(tlen * n * D),
            mask: vec![false; tlen * n * A],
            forced: vec![false; tlen * n],
            actions: vec![0; tlen * n],
            logp: vec![0.0; tlen * n],
            values: vec![0.0; tlen * n],
            rewards: vec![0.0; tlen * n],
            dones: vec![false; tlen * n],
            h0: host(h.clone()),
            aux: vec![0.0; tlen * n * AUX_K],
        };
        let mut actions = vec![0u32; n];
        for t in 0..tlen {
            let base_i = t * n;
            for i in 0..n {
                let c = choices_row(&env, i, &mut r.mask[(base_i + i) * A..(base_i + i + 1) * A]);
                r.forced[base_i + i] = c == 1;
                if aux_coef > 0.0 {
                    let k = base_i + i;
                    aux_targets(&env, i, &mut r.aux[k * AUX_K..(k + 1) * AUX_K]);
                }
            }
            r.obs.extend_from_slice(&buf.obs);
            let x = Tensor::<2>::from_data(TensorData::new(buf.obs.to_vec(), [n, D]), &cpu);
            let (l, v, hn) = net.step(x, h);
            let (logits, vals) = (host(l), host(v));
            for i in 0..n {
                let k = base_i + i;
                let (a, lp) = sample_masked(
                    &logits[i * A..(i + 1) * A],
                    &r.mask[k * A..(k + 1) * A],
                    &mut rng,
                )
                .expect("legal");
                actions[i] = a as u32;
                r.actions[k] = a as i64;
                r.logp[k] = lp;
                r.values[k] = vals[i];
            }
            env.step(&actions, buf.batch()).expect("step");
            let mut keep = vec![1.0f32; n];
            for i in 0..n {
                let k = base_i + i;
                let d = buf.terminated[i] | buf.truncated[i] != 0;
                let rew = buf.reward[i] + if buf.truncated[i] != 0 { -1.0 } else { 0.0 };
                r.rewards[k] = rew;
                r.dones[k] = d;
                running_ret[i] += rew;
                if d {
                    keep[i] = 0.0;
                    ep_count += 1;
                    ep_ret_sum += running_ret[i] as f64;
                    ep_wins += (buf.reward[i] > 0.5) as u64;
                    running_ret[i] = 0.0;
                    ep_len_sum += buf.episode_len[i] as u64;
                }
            }
            h = hn * Tensor::<2>::from_data(TensorData::new(keep, [n, 1]), &cpu);
        }
        decisions += (tlen * n) as u64;
        let x = Tensor::<2>::from_data(TensorData::new(buf.obs.to_vec(), [n, D]), &cpu);
        let (_, v, _) = net.step(x, h.clone());
        let boot = host(v);
        let gae = compute_gae(&r.rewards, &r.values, &r.dones, &boot, n, gamma, lambda);
        t_roll += tr.elapsed().as_secs_f64();
        // ---- learn ----
        let tl = Instant::now();
        let mut envs: Vec<usize> = (0..n).collect();
        let b = n / mbs;
        let (mut s_kl, mut s_clip, mut s_ent, mut s_vl, mut s_gn, mut s_cnt, mut s_aux) =
            (0f64, 0f64, 0f64, 0f64, 0f64, 0f64, 0f64);
        for _ in 0..epochs {
            envs.shuffle(&mut rng);
            for group in envs.chunks(b) {
                let rows: Vec<usize> = (0..tlen)
                    .flat_map(|t| group.iter().map(move |&e| t * n + e))
                    .collect();
                let m = rows.len();
                let mut xo = Vec::with_capacity(m * D);
                let mut mk = Vec::with_capacity(m * A);
                for &k in &rows {
                    xo.extend_from_slice(&r.obs[k * D..(k + 1) * D]);
                    mk.extend_from_slice(&r.mask[k * A..(k + 1) * A]);
                }
                let mut adv: Vec<f32> = rows.iter().map(|&k| gae.advantages[k]).collect();
                let w: Vec<f32> = rows
                    .iter()
                    .map(|&k| if r.forced[k] { 0.0 } else { 1.0 })
                    .collect();
                let wsum: f32 = w.iter().sum::<f32>().max(1.0);
                let mean = adv.iter().zip(&w).map(|(a, w)| a * w).sum::<f32>() / wsum;
                let var = adv
                    .iter()
                    .zip(&w)
                    .map(|(a, w)| w * (a - mean) * (a - mean))
                    .sum::<f32>()
                    / wsum;
                let sd = var.sqrt() + 1e-8;
                for a in adv.iter_mut() {
                    *a = (*a - mean) / sd;
                }
                let ret: Vec<f32> = rows.iter().map(|&k| gae.returns[k]).collect();
                let olp: Vec<f32> = rows.iter().map(|&k| r.logp[k]).collect();
                let act: Vec<i64> = rows.iter().map(|&k| r.actions[k]).collect();
                let mut h0 = Vec::with_capacity(group.len() * H);
                for &e in group {
                    h0.extend_from_slice(&r.h0[e * H..(e + 1) * H]);
                }
                let keep: Vec<Tensor<2>> = (0..tlen)
                    .map(|t| {
                        let kv: Vec<f32> = group
                            .iter()
                            .map(|&e| {
                                if t > 0 && r.dones[(t - 1) * n + e] {
                                    0.0
                                } else {
                                    1.0
                                }
                            })
                            .collect();
                        Tensor::<2>::from_data(TensorData::new(kv, [group.len(), 1]), &adev)
                    })
                    .collect();
                let x = Tensor::<2>::from_data(TensorData::new(xo, [m, D]), &adev);
                let h0t = Tensor::<2>::from_data(TensorData::new(h0, [group.len(), H]), &adev);
                let legal = Tensor::<2, Bool>::from_data(TensorData::new(mk, [m, A]), &adev);
                let (logits, values, aux_pred) = model.seq(x, h0t, &keep, group.len());
                let logp_all = masked_log_softmax(logits, legal);
                let act_t = Tensor::<2, Int>::from_data(TensorData::new(act, [m, 1]), &adev);
                let logp = logp_all.clone().gather(1, act_t).squeeze_dim::<1>(1);
                let wt = Tensor::<1>::from_data(TensorData::new(w, [m]), &adev);
                let advt = Tensor::<1>::from_data(TensorData::new(adv, [m]), &adev);
                let olpt = Tensor::<1>::from_data(TensorData::new(olp, [m]), &adev);
                let rett = Tensor::<1>::from_data(TensorData::new(ret, [m]), &adev);
                let log_ratio = logp - olpt;
                let ratio = log_ratio.clone().exp();
                let s1 = ratio.clone() * advt.clone();
                let s2 = ratio.clone().clamp(1.0 - clip, 1.0 + clip) * advt;
                let pl = (s1.min_pair(s2) * wt.clone()).sum().div_scalar(wsum).neg();
                let ent = (masked_entropy(logp_all) * wt.clone())
                    .sum()
                    .div_scalar(wsum);
                let err = values - rett;
                let vl = (err.clone() * err * wt.clone())
                    .sum()
                    .div_scalar(wsum)
                    .mul_scalar(0.5);
                let mut loss = pl + vl.clone().mul_scalar(vf_c) - ent.clone().mul_scalar(ent_c);
                if aux_coef > 0.0 {
                    let mut tg = Vec::with_capacity(m * AUX_K);
                    for &k in &rows {
                        tg.extend_from_slice(&r.aux[k * AUX_K..(k + 1) * AUX_K]);
                    }
                    let tg = Tensor::<2>::from_data(TensorData::new(tg, [m, AUX_K]), &adev);
                    let d = aux_pred - tg;
                    let al = (d.clone() * d).mean();
                    s_aux += f64::from(al.clone().detach().into_scalar::<f32>());
                    loss = loss + al.mul_scalar(aux_coef);
                }
                {
                    let lr_d = log_ratio.clone().detach();
                    let rd = ratio.detach();
                    let kl = ((rd.clone() - 1.0) - lr_d) * wt.clone().detach();
                    s_kl += f64::from(kl.sum().into_scalar::<f32>() / wsum);
                    let cf = (rd - 1.0).abs().greater_elem(clip).float() * wt.detach();
                    s_clip += f64::from(cf.sum().into_scalar::<f32>() / wsum);
                    s_ent += f64::from(ent.detach().into_scalar::<f32>());
                    s_vl += f64::from(vl.detach().into_scalar::<f32>());
                }
                let mut grads = GradientsParams::from_grads(loss.backward(), &model);
                let norm = global_grad_norm(&model, &grads);
                if norm > max_norm {
                    scale_grads(&model, &mut grads, max_norm / (norm + 1e-6));
                }
                s_gn += f64::from(norm);
                s_cnt += 1.0;
                model = optim.step(lr, model, grads);
            }
        }
        t_learn += tl.elapsed().as_secs_f64();
        iter += 1;
        if iter % 5 == 1 {
            let pn = host(model.proj.weight.val());
            let pmax = pn.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
            println!(
                "iter {iter}: t={:.1}min kl {:.5} clip {:.3} entropy {:.3} vloss {:.4} gradnorm {:.3} aux {:.5} |proj|max {pmax:.4} rollout {:.1}s/iter learn {:.1}s/iter, {:.0} decisions/s",
                start.elapsed().as_secs_f64() / 60.0,
                s_kl / s_cnt,
                s_clip / s_cnt,
                s_ent / s_cnt,
                s_vl / s_cnt,
                s_gn / s_cnt,
                s_aux / s_cnt,
                t_roll / iter as f64,
                t_learn / iter as f64,
                decisions as f64 / start.elapsed().as_secs_f64()
            );
        }
    }
    let out = format!("target/probe-{tag}.bpk");
    if let Err(e) = model.clone().save_file(out.as_str()) {
        eprintln!("error: cannot save {out}: {e}");
    }
    println!("saved {out}");
    println!(
        "QUICK TREND {tag}: {:?}",
        quick
            .iter()
            .map(|(t, w)| format!("{t:.1}min:{w:.4}"))
            .collect::<Vec<_>>()
    );
    let net = model.valid().to_device(&cpu);
    let final_rounds: u64 = env_or("FINAL_ROUNDS", 20000);
    report_eval(
        &format!("{tag} FINAL"),
        &net,
        1000,
        final_rounds / 1000,
        11,
        ethreads,
        false,
    );
}

/// What the command line asks for.
enum Mode {
    Check,
    Eval(u64),
    EvalFile(String, u64, String),
    Train(f64, bool, f32, String),
    Export(String, String),
}

const USAGE: &str = "usage: recurrent_probe check | eval [ROUNDS] | evalfile FILE.bpk ROUNDS on|amnesia|off | train MINUTES on|off|aux [TAG] | export FILE.bpk DIR";

fn parse_args(args: &[String]) -> Result<Mode, String> {
    let num = |i: usize, what: &str| -> Result<f64, String> {
        let v: f64 = args
            .get(i)
            .ok_or_else(|| format!("missing {what}"))?
            .parse()
            .map_err(|_| format!("{what} `{}` is not a number", args[i]))?;
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(format!("{what} must be positive, not {v}"))
        }
    };
    let onoff = |i: usize, modes: &[&str]| -> Result<String, String> {
        match args.get(i) {
            Some(m) if modes.contains(&m.as_str()) => Ok(m.clone()),
            other => Err(format!("expected one of {modes:?}, got {other:?}")),
        }
    };
    match args.get(1).map(String::as_str) {
        Some("check") => Ok(Mode::Check),
        Some("eval") if args.len() == 2 => Ok(Mode::Eval(20_000)),
        Some("eval") => Ok(Mode::Eval(num(2, "ROUNDS")? as u64)),
        Some("evalfile") => {
            let path = args.get(2).ok_or("missing FILE.bpk")?.clone();
            if !Path::new(&path).is_file() {
                return Err(format!("{path}: no such file"));
            }
            let rounds = num(3, "ROUNDS")? as u64;
            Ok(Mode::EvalFile(
                path,
                rounds,
                onoff(4, &["on", "amnesia", "off"])?,
            ))
        }
        Some("train") => {
            let minutes = num(2, "MINUTES")?;
            let arm = onoff(3, &["on", "off", "aux"])?;
            let memory = arm == "on";
            let aux_coef = if arm == "aux" {
                let c: f32 = env_or("AUX", 1.0);
                if !(c.is_finite() && c > 0.0) {
                    return Err(format!("AUX must be a positive number, not {c}"));
                }
                c
            } else {
                0.0
            };
            let tag = args.get(4).cloned().unwrap_or_else(|| {
                match arm.as_str() {
                    "on" => "rnn",
                    "aux" => "aux",
                    _ => "ff",
                }
                .into()
            });
            Ok(Mode::Train(minutes, memory, aux_coef, tag))
        }
        Some("export") => {
            let path = args.get(2).ok_or("missing FILE.bpk")?.clone();
            if !Path::new(&path).is_file() {
                return Err(format!("{path}: no such file"));
            }
            let dir = args.get(3).ok_or("missing DIR")?.clone();
            Ok(Mode::Export(path, dir))
        }
        _ => Err("no mode given".into()),
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mode = match parse_args(&args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    // Every mode starts from the shipped network: a missing one is an error here.
    if let Err(e) = load_base(&Device::flex()) {
        eprintln!("error: {e}");
        return std::process::ExitCode::from(2);
    }
    match mode {
        Mode::Check => check(),
        Mode::Eval(rounds) => {
            let dev = Device::flex();
            let base = load_base(&dev).expect("loaded above");
            let net = RecNet::from_base(&base, true, &dev, 7);
            let threads: usize = env_or("ETHREADS", 2);
            report_eval(
                "shipped (zero projection, memory path on)",
                &net,
                1000,
                rounds.div_ceil(1000),
                11,
                threads,
                false,
            );
        }
        Mode::EvalFile(path, rounds, mode) => {
            let dev = Device::flex();
            let base = load_base(&dev).expect("loaded above");
            let net = match RecNet::from_base(&base, true, &dev, 7).try_load_file(path.as_str()) {
                Ok(net) => net,
                Err(e) => {
                    eprintln!("error: {path}: {e}");
                    return std::process::ExitCode::from(2);
                }
            };
            let mut net = net;
            net.memory = mode != "off";
            let threads: usize = env_or("ETHREADS", 2);
            report_eval(
                &format!("{path} mode {mode}"),
                &net,
                1000,
                rounds.div_ceil(1000),
                11,
                threads,
                mode == "amnesia",
            );
        }
        Mode::Train(minutes, memory, aux_coef, tag) => train(minutes, memory, aux_coef, &tag),
        Mode::Export(path, dir) => {
            if let Err(e) = export(&path, &dir) {
                eprintln!("error: {e}");
                return std::process::ExitCode::from(2);
            }
            println!("wrote {dir} (play it as checkpoint:{dir})");
        }
    }
    std::process::ExitCode::SUCCESS
}
