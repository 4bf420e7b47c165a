//! Checkpoints: the input is a checkpoint directory's two files, loaded as
//! the CLI, the trainer and the Python binding load one. Any panic is a
//! finding, and so is a load that succeeds with a network that has weights
//! that are not finite, or whose forward pass fails. (Finite but huge weights
//! may give non-finite outputs: the f32 arithmetic overflows. The agent still
//! picks a legal action from them; that is checked too.)
//!
//! Input: one mode byte (bit 0: check against this build's observation
//! sizes, as `checkpoint:` agents do, which also widens an earlier
//! layout's network), two bytes of `meta.json` length (little-endian), then
//! `meta.json`, then `model.bpk`. Seeds: run the target with
//! `UNO_FUZZ_CHECKPOINT_SEEDS=DIR` set (it writes small real checkpoints in
//! this form to DIR and exits), as `scripts/fuzz` does.
#![no_main]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use uno_agents::neural::{
    CheckpointMeta, EXPECTED, META_FILE, MODEL_FILE, NetConfig, NeuralPolicy, PolicyValueNet,
    bad_weights, load_checkpoint, masked_argmax, masked_log_softmax, save_checkpoint,
};
use uno_env::obs::LEGACY_OBS;
use uno_env::{NUM_ACTIONS, OBS_SIZE, OBS_VERSION};

/// One scratch checkpoint directory per fuzzing process.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("uno-fuzz-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Small real checkpoints as fuzz inputs: this build's sizes (with and
/// without LayerNorm), an earlier layout's (widened on load) and a toy net.
fn write_seeds(out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    let legacy = LEGACY_OBS.first().copied();
    let mut nets = vec![
        (1u8, OBS_VERSION, OBS_SIZE, NUM_ACTIONS, vec![2], false),
        (1, OBS_VERSION, OBS_SIZE, NUM_ACTIONS, vec![2, 1], true),
        (0, 1, 3, 2, vec![2], true),
    ];
    if let Some((v, d)) = legacy {
        nets.push((1, v, d, NUM_ACTIONS, vec![1], false));
    }
    for (k, (mode, version, obs_dim, num_actions, hidden, layer_norm)) in
        nets.into_iter().enumerate()
    {
        let cfg = NetConfig {
            obs_dim,
            num_actions,
            hidden,
            layer_norm,
        };
        let net =
            PolicyValueNet::new_seeded(&cfg, &burn::tensor::Device::flex(), k as u64).unwrap();
        let meta = CheckpointMeta::new("attack-2010", 2, version, cfg);
        let dir = scratch().join(format!("seed-{k}"));
        save_checkpoint(&dir, &net, &meta).unwrap();
        let json = std::fs::read(dir.join(META_FILE)).unwrap();
        let model = std::fs::read(dir.join(MODEL_FILE)).unwrap();
        let mut input = vec![mode];
        input.extend((json.len() as u16).to_le_bytes());
        input.extend(json);
        input.extend(model);
        std::fs::write(out.join(format!("seed-{k}")), input).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fuzz_target!(
    init: {
        if let Some(out) = std::env::var_os("UNO_FUZZ_CHECKPOINT_SEEDS") {
            write_seeds(Path::new(&out));
            std::process::exit(0);
        }
    },
    |data: &[u8]| {
        let [mode, a, b, rest @ ..] = data else {
            return;
        };
        let meta_len = (u16::from_le_bytes([*a, *b]) as usize).min(rest.len());
        let (json, model) = rest.split_at(meta_len);
        let dir = scratch();
        std::fs::write(dir.join(META_FILE), json).unwrap();
        std::fs::write(dir.join(MODEL_FILE), model).unwrap();
        let expected = (mode & 1 == 1).then_some(EXPECTED);
        let Ok((net, meta)) = load_checkpoint(dir, expected) else {
            return;
        };
        assert_eq!(
            (net.obs_dim(), net.num_actions()),
            (meta.obs_dim, meta.num_actions),
            "HARNESS: the metadata does not describe the loaded network"
        );
        assert_eq!(
            bad_weights(&net).0,
            0,
            "HARNESS: loaded a network with weights that are not finite or beyond the bound"
        );
        let policy = NeuralPolicy::new(net);
        let (d, n) = (policy.obs_dim(), policy.num_actions());
        let obs = vec![0.5f32; d];
        let mask: Vec<bool> = (0..n).map(|i| i % 3 != 1).collect();
        let mut logits = vec![0f32; n];
        let mut values = [0f32];
        policy
            .forward_batch(&obs, &mask, 1, &mut logits, Some(&mut values))
            .unwrap_or_else(|e| panic!("HARNESS: loaded, but the forward pass fails: {e}"));
        let best = masked_argmax(&logits, &mask).expect("HARNESS: no action chosen");
        assert!(mask[best], "HARNESS: an illegal action chosen");
        let mut logp = vec![0f32; n];
        masked_log_softmax(&logits, &mask, &mut logp);
    }
);
