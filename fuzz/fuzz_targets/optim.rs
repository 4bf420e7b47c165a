//! Optimizer state: the input is a learner checkpoint's `optim.bpk` (AdamW's
//! moments), resumed as `uno-attack train --resume` resumes a run. The other
//! files of the checkpoint are those of a small real learner. Any panic is a
//! finding: a damaged file must be refused by the learner's own check, not
//! caught by its backstop around burn's loader (libFuzzer aborts on any panic,
//! caught or not). So is a state that loads and then makes the next update
//! panic.
//!
//! Seeds: run the target with `UNO_FUZZ_OPTIM_SEEDS=DIR` set (it writes the
//! small learner's `optim.bpk` after one and after two updates to DIR and
//! exits), as `scripts/fuzz` does.
#![no_main]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use uno_agents::neural::{CheckpointMeta, NetConfig, OPTIM_FILE};
use uno_train::learner::{Learner, LearnerConfig, RolloutBatch};

const OBS: usize = 3;
const ACTIONS: usize = 2;

/// One scratch checkpoint directory per fuzzing process, holding a small
/// learner saved after one update (so its optimizer has moments).
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("uno-fuzz-optim-{}", std::process::id()));
        let mut learner = Learner::new(net(), config()).unwrap();
        learner.update(&batch(), 1e-3);
        learner.save(&dir, &meta()).unwrap();
        dir
    })
}

fn net() -> NetConfig {
    NetConfig {
        obs_dim: OBS,
        num_actions: ACTIONS,
        hidden: vec![2],
        layer_norm: true,
    }
}

fn config() -> LearnerConfig {
    LearnerConfig {
        epochs: 1,
        minibatch_size: 4,
        ..LearnerConfig::default()
    }
}

fn meta() -> CheckpointMeta {
    CheckpointMeta::new("attack-2010", 2, 1, net())
}

/// Four samples of a made-up one-step game.
fn batch() -> RolloutBatch {
    let mut b = RolloutBatch::default();
    for i in 0..4 {
        b.obs.extend([i as f32, 1.0, -0.5]);
        b.masks.extend([true, i % 2 == 0]);
        b.actions.push(0);
        b.old_logp.push(-0.7);
        b.advantages.push(i as f32 - 1.5);
        b.returns.push(0.25 * i as f32);
        b.old_values.push(0.1);
    }
    b
}

fuzz_target!(
    init: {
        if let Some(out) = std::env::var_os("UNO_FUZZ_OPTIM_SEEDS") {
            let out = Path::new(&out);
            std::fs::create_dir_all(out).unwrap();
            std::fs::copy(scratch().join(OPTIM_FILE), out.join("seed-1")).unwrap();
            let (mut learner, meta) = Learner::load(scratch(), None).unwrap();
            learner.update(&batch(), 1e-3);
            let dir = scratch().with_extension("seed-2");
            learner.save(&dir, &meta).unwrap();
            std::fs::copy(dir.join(OPTIM_FILE), out.join("seed-2")).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            std::fs::remove_dir_all(scratch()).unwrap();
            std::process::exit(0);
        }
    },
    |data: &[u8]| {
        let dir = scratch();
        std::fs::write(dir.join(OPTIM_FILE), data).unwrap();
        let Ok((mut learner, _)) = Learner::load(dir, None) else {
            return;
        };
        // Loaded: the next update must run (its numbers may overflow; the
        // trainer's divergence check is what catches that, not a panic).
        learner.update(&batch(), 1e-3);
    }
);
