//! Timing probe of the learner on this machine: one PPO update of a
//! 4,096-sample minibatch (400 inputs, 120 actions, the default 256 x 256
//! network) and batched inference at 1, 64, 256 and 1,024 rows.
//! `cargo run --release -p uno-train --example bench_learner` (a measurement,
//! not a test: it asserts nothing).
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use uno_agents::neural::{NetConfig, NeuralPolicy};
use uno_train::learner::{Learner, LearnerConfig, RolloutBatch};

fn main() {
    let (d, a, n) = (400usize, 120usize, 4096usize);
    let net = NetConfig::new(d, a);
    let cfg = LearnerConfig {
        epochs: 1,
        minibatch_size: n,
        ..LearnerConfig::default()
    };
    let mut learner = Learner::new(net, cfg).expect("learner");
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut b = RolloutBatch::default();
    for _ in 0..n {
        b.obs.extend((0..d).map(|_| rng.random::<f32>()));
        b.masks.extend((0..a).map(|j| j % 3 == 0));
        b.actions
            .push(3 * rng.random_range(0..(a as u32).div_ceil(3)));
        b.old_logp.push(-3.0);
        b.advantages.push(rng.random::<f32>() - 0.5);
        b.returns.push(rng.random::<f32>());
        b.old_values.push(0.0);
    }
    learner.update(&b, 3e-4);
    let reps = 5;
    let t = Instant::now();
    for _ in 0..reps {
        learner.update(&b, 3e-4);
    }
    let per = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "update (1 epoch, 1 minibatch of {n}): {:.1} ms, {:.0} samples/s",
        per * 1e3,
        n as f64 / per
    );
    let policy = NeuralPolicy::new(learner.inference_model());
    for batch in [1usize, 64, 256, 1024] {
        let mut out = vec![0.0; batch * a];
        let obs = &b.obs[..batch * d];
        let masks = &b.masks[..batch * a];
        policy.act_batch(obs, masks, batch, &mut out).expect("fwd");
        let reps = (20_000 / batch).max(20);
        let t = Instant::now();
        for _ in 0..reps {
            policy.act_batch(obs, masks, batch, &mut out).expect("fwd");
        }
        let per = t.elapsed().as_secs_f64() / reps as f64;
        println!(
            "inference batch {batch}: {:.3} ms/call, {:.0} samples/s",
            per * 1e3,
            batch as f64 / per
        );
    }
    let t = Instant::now();
    let _ = learner.inference_model();
    println!(
        "inference_model(): {:.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
}
