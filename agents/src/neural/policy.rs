//! Batched inference on the plain (non-autodiff) flex device, plus host-side masked action
//! selection: argmax and sampling from the masked softmax with a caller-provided RNG.

use std::path::Path;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use rand::Rng;

use super::{CheckpointMeta, NamedParam, NeuralError, PolicyValueNet, load_checkpoint};

/// Logit written in place of illegal actions: large, negative and finite (never `-inf`, which
/// would give NaN in `exp * log` and in gradients).
pub const MASKED_LOGIT: f32 = -1.0e9;

/// Inference wrapper around a [`PolicyValueNet`] on `Device::flex()` without autodiff.
#[derive(Debug, Clone)]
pub struct NeuralPolicy {
    net: PolicyValueNet,
    device: Device,
}

impl NeuralPolicy {
    /// Wraps a network, moving it to the plain flex device and dropping autodiff.
    pub fn new(net: PolicyValueNet) -> Self {
        Self::new_on(net, Device::flex())
    }

    /// Wraps a network on `device` (see [`super::device_by_name`]), dropping autodiff.
    pub fn new_on(net: PolicyValueNet, device: Device) -> Self {
        let net = net.valid().to_device(&device);
        Self { net, device }
    }

    /// Loads a checkpoint directory (see [`load_checkpoint`]).
    pub fn load(
        dir: &Path,
        expected: Option<(u32, usize, usize)>,
    ) -> Result<(Self, CheckpointMeta), NeuralError> {
        let (net, meta) = load_checkpoint(dir, expected)?;
        Ok((Self::new(net), meta))
    }

    /// A policy built from weights alone on the plain flex device (see
    /// [`PolicyValueNet::from_parameters`], which reads the shape and checks them).
    pub fn from_parameters(params: &[NamedParam]) -> Result<Self, NeuralError> {
        let device = Device::flex();
        let net = PolicyValueNet::from_parameters(params, &device)?;
        Ok(Self::new_on(net, device))
    }

    /// The same policy with the weights `params` on the same device (see
    /// [`PolicyValueNet::with_parameters`], which checks them).
    pub fn with_parameters(&self, params: &[NamedParam]) -> Result<Self, NeuralError> {
        let net = self.net.with_parameters(params, &self.device)?;
        Ok(Self {
            net,
            device: self.device.clone(),
        })
    }

    /// The wrapped network.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// Observation length the network expects.
    pub fn obs_dim(&self) -> usize {
        self.net.obs_dim()
    }

    /// Number of actions (logits per sample).
    pub fn num_actions(&self) -> usize {
        self.net.num_actions()
    }

    /// Runs the network on `batch` observations (`obs` is `[batch * obs_dim]`, row-major) and
    /// writes masked logits (`[batch * num_actions]`, illegal = [`MASKED_LOGIT`]) and, if
    /// given, values (`[batch]`).
    pub fn forward_batch(
        &self,
        obs: &[f32],
        masks: &[bool],
        batch: usize,
        out_logits: &mut [f32],
        out_values: Option<&mut [f32]>,
    ) -> Result<(), NeuralError> {
        let (d, a) = (self.obs_dim(), self.num_actions());
        check_len("obs", obs.len(), batch * d)?;
        check_len("masks", masks.len(), batch * a)?;
        check_len("out_logits", out_logits.len(), batch * a)?;
        if let Some(v) = out_values.as_deref() {
            check_len("out_values", v.len(), batch)?;
        }
        if batch == 0 {
            return Ok(());
        }
        let (logits, values) = self.run(obs, batch);
        let logits = to_host(logits.into_data())?;
        check_len("network logits", logits.len(), batch * a)?;
        out_logits.copy_from_slice(&logits);
        apply_mask(out_logits, masks);
        if let Some(out_values) = out_values {
            let values = to_host(values.into_data())?;
            check_len("network values", values.len(), batch)?;
            out_values.copy_from_slice(&values);
        }
        Ok(())
    }

    /// Only the value head's estimates for `batch` observations (`obs` is `[batch * obs_dim]`),
    /// written to `out_values` (`[batch]`): for critics, whose logits nobody reads.
    pub fn values_batch(
        &self,
        obs: &[f32],
        batch: usize,
        out_values: &mut [f32],
    ) -> Result<(), NeuralError> {
        check_len("obs", obs.len(), batch * self.obs_dim())?;
        check_len("out_values", out_values.len(), batch)?;
        if batch == 0 {
            return Ok(());
        }
        let values = to_host(self.run(obs, batch).1.into_data())?;
        check_len("network values", values.len(), batch)?;
        out_values.copy_from_slice(&values);
        Ok(())
    }

    /// The network's raw outputs for `batch` rows of `obs` (lengths checked by the caller).
    fn run(&self, obs: &[f32], batch: usize) -> (Tensor<2>, Tensor<1>) {
        let x = Tensor::<2>::from_data(
            TensorData::new(obs.to_vec(), [batch, self.obs_dim()]),
            &self.device,
        );
        self.net.forward(x)
    }

    /// Masked logits for a batch (see [`forward_batch`](Self::forward_batch)), without values.
    pub fn act_batch(
        &self,
        obs: &[f32],
        masks: &[bool],
        batch: usize,
        out_logits: &mut [f32],
    ) -> Result<(), NeuralError> {
        self.forward_batch(obs, masks, batch, out_logits, None)
    }

    /// Greedy (masked argmax) actions for a batch; rows without a legal action get `usize::MAX`.
    pub fn greedy_batch(
        &self,
        obs: &[f32],
        masks: &[bool],
        batch: usize,
        out_actions: &mut [usize],
    ) -> Result<(), NeuralError> {
        check_len("out_actions", out_actions.len(), batch)?;
        let a = self.num_actions();
        let mut logits = vec![0.0; batch * a];
        self.act_batch(obs, masks, batch, &mut logits)?;
        for (i, out) in out_actions.iter_mut().enumerate() {
            let row = i * a..(i + 1) * a;
            *out = masked_argmax(&logits[row.clone()], &masks[row]).unwrap_or(usize::MAX);
        }
        Ok(())
    }
}

fn check_len(what: &str, got: usize, want: usize) -> Result<(), NeuralError> {
    if got == want {
        Ok(())
    } else {
        Err(NeuralError::Shape(format!(
            "{what} has length {got}, expected {want}"
        )))
    }
}

/// A tensor's `f32` values on the host.
pub(super) fn to_host(data: TensorData) -> Result<Vec<f32>, NeuralError> {
    data.try_into_vec::<f32>()
        .map_err(|e| NeuralError::Shape(format!("cannot read a tensor: {e:?}")))
}

/// Overwrites the logits of illegal actions (`mask[i] == false`) with [`MASKED_LOGIT`].
///
/// `logits` and `mask` must have the same length (extra entries of the longer one are ignored).
pub fn apply_mask(logits: &mut [f32], mask: &[bool]) {
    for (l, &legal) in logits.iter_mut().zip(mask) {
        if !legal {
            *l = MASKED_LOGIT;
        }
    }
}

/// Index of the largest logit among legal actions (first one on ties), `None` if none is legal.
pub fn masked_argmax(logits: &[f32], mask: &[bool]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, (&l, &legal)) in logits.iter().zip(mask).enumerate() {
        if legal && best.is_none_or(|(_, b)| l > b) {
            best = Some((i, l));
        }
    }
    best.map(|(i, _)| i)
}

/// Log-softmax over legal actions computed in f64; illegal entries get [`MASKED_LOGIT`].
///
/// Returns `false` (leaving `out` filled with [`MASKED_LOGIT`]) if no action is legal.
pub fn masked_log_softmax(logits: &[f32], mask: &[bool], out: &mut [f32]) -> bool {
    out.fill(MASKED_LOGIT);
    let Some((max, log_z)) = log_normaliser(logits, mask) else {
        return false;
    };
    for ((o, &l), &legal) in out.iter_mut().zip(logits).zip(mask) {
        if legal {
            *o = ((f64::from(l) - max) - log_z) as f32;
        }
    }
    true
}

/// `(max legal logit, ln sum exp(l - max))`, or `None` if nothing is legal.
fn log_normaliser(logits: &[f32], mask: &[bool]) -> Option<(f64, f64)> {
    let max = logits
        .iter()
        .zip(mask)
        .filter(|&(_, &legal)| legal)
        .map(|(&l, _)| f64::from(l))
        .fold(None, |m: Option<f64>, l| Some(m.map_or(l, |m| m.max(l))))?;
    let sum: f64 = logits
        .iter()
        .zip(mask)
        .filter(|&(_, &legal)| legal)
        .map(|(&l, _)| (f64::from(l) - max).exp())
        .sum();
    Some((max, sum.ln()))
}

/// Samples an action from the softmax over legal actions (computed in f64 on the host).
///
/// Returns the action and its log-probability, or `None` if no action is legal.
pub fn sample_masked<R: Rng + ?Sized>(
    logits: &[f32],
    mask: &[bool],
    rng: &mut R,
) -> Option<(usize, f32)> {
    let (max, log_z) = log_normaliser(logits, mask)?;
    let total = log_z.exp();
    let mut u = rng.random::<f64>() * total;
    let mut last_legal = None;
    for (i, (&l, &legal)) in logits.iter().zip(mask).enumerate() {
        if !legal {
            continue;
        }
        let w = (f64::from(l) - max).exp();
        last_legal = Some((i, l));
        if u < w {
            return Some((i, ((f64::from(l) - max) - log_z) as f32));
        }
        u -= w;
    }
    // Rounding can leave `u` just past the last weight: take the last legal action.
    last_legal.map(|(i, l)| (i, ((f64::from(l) - max) - log_z) as f32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neural::{
        CheckpointMeta, META_FILE, MODEL_FILE, NetConfig, read_meta, save_checkpoint,
    };
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        std::env::temp_dir().join(format!(
            "uno-neural-test-{tag}-{}-{nanos}",
            std::process::id()
        ))
    }

    fn small_cfg() -> NetConfig {
        NetConfig {
            obs_dim: 6,
            num_actions: 5,
            hidden: vec![16, 8],
            layer_norm: true,
        }
    }

    fn meta_for(cfg: &NetConfig) -> CheckpointMeta {
        CheckpointMeta::new("attack", 2, 3, cfg.clone())
    }

    #[test]
    fn masked_argmax_skips_illegal_and_handles_empty() {
        let logits = [5.0, 1.0, 3.0, 3.0];
        assert_eq!(masked_argmax(&logits, &[false, true, true, true]), Some(2));
        assert_eq!(masked_argmax(&logits, &[true, true, true, true]), Some(0));
        assert_eq!(masked_argmax(&logits, &[false; 4]), None);
    }

    #[test]
    fn masked_log_softmax_matches_hand_computation() {
        let logits = [0.0, 100.0, (2.0f32).ln(), 0.0];
        let mask = [true, false, true, true];
        let mut out = [0.0; 4];
        assert!(masked_log_softmax(&logits, &mask, &mut out));
        // Legal weights 1, 2, 1 -> probabilities 1/4, 1/2, 1/4.
        assert!((out[0] - (0.25f32).ln()).abs() < 1e-6);
        assert!((out[2] - (0.5f32).ln()).abs() < 1e-6);
        assert!((out[3] - (0.25f32).ln()).abs() < 1e-6);
        assert_eq!(out[1], MASKED_LOGIT);
        assert!(!masked_log_softmax(&logits, &[false; 4], &mut out));
    }

    #[test]
    fn sampling_follows_masked_softmax() {
        let logits = [0.0, 50.0, (3.0f32).ln(), 0.0];
        let mask = [true, false, true, false];
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut counts = [0usize; 4];
        let n = 20_000;
        for _ in 0..n {
            let (a, logp) = sample_masked(&logits, &mask, &mut rng).expect("legal action");
            counts[a] += 1;
            let want = if a == 0 { 0.25f32 } else { 0.75 };
            assert!((logp - want.ln()).abs() < 1e-6);
        }
        assert_eq!(counts[1] + counts[3], 0, "illegal action sampled");
        let p2 = counts[2] as f64 / n as f64;
        assert!((p2 - 0.75).abs() < 0.02, "p(a=2) = {p2}");
        assert_eq!(sample_masked(&logits, &[false; 4], &mut rng), None);
    }

    #[test]
    fn act_batch_masks_and_checks_shapes() {
        let cfg = small_cfg();
        let net = PolicyValueNet::new(&cfg, &Device::flex()).expect("valid config");
        let policy = NeuralPolicy::new(net);
        let batch = 3;
        let obs: Vec<f32> = (0..batch * 6).map(|i| i as f32 * 0.1).collect();
        let mut masks = vec![true; batch * 5];
        masks[1] = false;
        masks[7] = false;
        let mut logits = vec![0.0; batch * 5];
        let mut values = vec![0.0; batch];
        policy
            .forward_batch(&obs, &masks, batch, &mut logits, Some(&mut values))
            .expect("forward");
        assert_eq!(logits[1], MASKED_LOGIT);
        assert_eq!(logits[7], MASKED_LOGIT);
        assert!(logits.iter().all(|l| l.is_finite()));
        assert!(logits[0] > -1.0e3 && values.iter().all(|v| v.is_finite()));
        // Row results do not depend on the rest of the batch.
        let mut single = vec![0.0; 5];
        policy
            .act_batch(&obs[6..12], &masks[5..10], 1, &mut single)
            .expect("forward");
        for (x, y) in single.iter().zip(&logits[5..10]) {
            assert!((x - y).abs() < 1e-5);
        }
        assert!(matches!(
            policy.act_batch(&obs[..5], &masks[..5], 1, &mut single),
            Err(NeuralError::Shape(_))
        ));
        let mut actions = vec![0usize; batch];
        policy
            .greedy_batch(&obs, &masks, batch, &mut actions)
            .expect("greedy");
        assert_ne!(actions[0], 1);
        assert_ne!(actions[1], 2);
    }

    #[test]
    fn checkpoint_round_trip_gives_identical_logits() {
        let dir = temp_dir("roundtrip");
        let cfg = small_cfg();
        let net = PolicyValueNet::new(&cfg, &Device::flex()).expect("valid config");
        let mut meta = meta_for(&cfg);
        meta.steps = 1234;
        meta.trained_with = serde_json::json!({"lr": 3e-4});
        save_checkpoint(&dir, &net, &meta).expect("save");
        assert!(dir.join(MODEL_FILE).is_file() && dir.join(META_FILE).is_file());
        // No temporary files left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");

        let (policy, meta2) = NeuralPolicy::load(&dir, Some((3, 6, 5))).expect("load");
        // The metadata as given, and the weights file's checksum.
        let model = std::fs::read(dir.join(MODEL_FILE)).expect("model");
        let model_crc32 = Some(format!("{:08x}", crc32fast::hash(&model)));
        assert_eq!(
            meta2,
            CheckpointMeta {
                model_crc32,
                ..meta
            }
        );
        let original = NeuralPolicy::new(net);
        let obs: Vec<f32> = (0..12).map(|i| (i as f32).sin()).collect();
        let masks = vec![true; 10];
        let (mut a, mut b) = (vec![0.0; 10], vec![0.0; 10]);
        original.act_batch(&obs, &masks, 2, &mut a).expect("fwd");
        policy.act_batch(&obs, &masks, 2, &mut b).expect("fwd");
        assert_eq!(a, b);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_version_1_checkpoint_loads_widened_and_plays_the_same() {
        use uno_env::obs::{LEGACY_OBS, OBS_SIZE};
        use uno_env::{NUM_ACTIONS, OBS_VERSION};
        let dir = temp_dir("legacy");
        let (v1, v1_dim) = LEGACY_OBS[0];
        assert_eq!(v1, 1);
        let cfg = NetConfig {
            hidden: vec![32, 16],
            ..NetConfig::new(v1_dim, NUM_ACTIONS)
        };
        let net = PolicyValueNet::new_seeded(&cfg, &Device::flex(), 5).expect("net");
        save_checkpoint(
            &dir,
            &net,
            &CheckpointMeta::new("attack-2010", 4, v1, cfg.clone()),
        )
        .expect("save");
        let current = (OBS_VERSION, OBS_SIZE, NUM_ACTIONS);
        let (policy, meta) = NeuralPolicy::load(&dir, Some(current)).expect("load legacy");
        assert_eq!((meta.obs_version, meta.obs_dim), (OBS_VERSION, OBS_SIZE));
        assert_eq!(meta.net.obs_dim, OBS_SIZE);
        assert_eq!(policy.obs_dim(), OBS_SIZE);
        // A current observation and its version-1 prefix give the same logits.
        let wide: Vec<f32> = (0..2 * OBS_SIZE).map(|i| (i as f32 * 0.37).sin()).collect();
        let narrow: Vec<f32> = wide
            .chunks(OBS_SIZE)
            .flat_map(|row| row[..v1_dim].to_vec())
            .collect();
        let masks = vec![true; 2 * NUM_ACTIONS];
        let (mut a, mut b) = (vec![0.0; 2 * NUM_ACTIONS], vec![0.0; 2 * NUM_ACTIONS]);
        NeuralPolicy::new(net)
            .act_batch(&narrow, &masks, 2, &mut a)
            .expect("fwd");
        policy.act_batch(&wide, &masks, 2, &mut b).expect("fwd");
        assert_eq!(a, b);
        // Any other layout is still refused.
        let mut meta = read_meta(&dir).expect("meta");
        meta.obs_dim = v1_dim + 1;
        meta.net.obs_dim = v1_dim + 1;
        // … naming what is wrong with it, not the (supported) version.
        let e = meta
            .check_loadable(current)
            .expect_err("refused")
            .to_string();
        assert!(e.contains(&format!("{}", v1_dim + 1)), "{e}");
        assert!(!e.contains("version"), "{e}");
        meta.obs_dim = v1_dim;
        meta.num_actions = NUM_ACTIONS - 1;
        let e = meta
            .check_loadable(current)
            .expect_err("refused")
            .to_string();
        assert!(e.contains(&format!("{}", NUM_ACTIONS - 1)), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_checkpoints_give_errors_not_panics() {
        let dir = temp_dir("bad");
        let cfg = small_cfg();
        let net = PolicyValueNet::new(&cfg, &Device::flex()).expect("valid config");
        assert!(matches!(
            load_checkpoint(&dir, None),
            Err(NeuralError::MissingDir(_))
        ));
        save_checkpoint(&dir, &net, &meta_for(&cfg)).expect("save");

        // Expected-shape mismatches, each naming the checkpoint (an arena
        // given several says which one).
        let refused = |e: NeuralError| {
            assert!(
                e.to_string()
                    .starts_with(&format!("checkpoint {}: ", dir.display())),
                "{e}"
            );
            e
        };
        let refused_load = |expected| {
            refused(
                load_checkpoint(&dir, Some(expected))
                    .map(|_| ())
                    .unwrap_err(),
            )
        };
        assert!(matches!(
            refused_load((4, 6, 5)).root(),
            NeuralError::ObsVersionMismatch {
                expected: 4,
                found: 3
            }
        ));
        assert!(matches!(
            refused_load((3, 7, 5)).root(),
            NeuralError::ObsDimMismatch {
                expected: 7,
                found: 6
            }
        ));
        assert!(matches!(
            refused_load((3, 6, 9)).root(),
            NeuralError::NumActionsMismatch {
                expected: 9,
                found: 5
            }
        ));

        // Truncated weights.
        let model = dir.join(MODEL_FILE);
        let bytes = std::fs::read(&model).expect("read model");
        for cut in [0, 7, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&model, &bytes[..cut]).expect("truncate");
            assert!(
                matches!(
                    load_checkpoint(&dir, None),
                    Err(NeuralError::CorruptWeights { .. })
                ),
                "cut at {cut}"
            );
        }
        // Weights of a different architecture than the metadata describes.
        let other = NetConfig {
            hidden: vec![16, 9],
            ..cfg.clone()
        };
        let other_net = PolicyValueNet::new(&other, &Device::flex()).expect("valid");
        crate::neural::save_weights(&other_net, &model).expect("save other");
        let e = load_checkpoint(&dir, None).map(|_| ()).unwrap_err();
        assert!(matches!(e, NeuralError::CorruptWeights { .. }), "{e}");
        // Said in the user's words, naming a tensor and both shapes.
        let text = e.to_string();
        assert!(
            text.contains("the weights do not fit the network meta.json describes")
                && text.contains("trunk.1.weight is [16, 9] in the file")
                && !text.contains("Shape {"),
            "{text}"
        );
        std::fs::remove_file(&model).expect("rm");
        assert!(matches!(
            load_checkpoint(&dir, None),
            Err(NeuralError::MissingFile(_))
        ));
        // A named pipe in its place is refused, not opened: opening it waited
        // for a writer for ever (arena, play, bench and train --init hung).
        if std::process::Command::new("mkfifo")
            .arg(&model)
            .status()
            .is_ok_and(|s| s.success())
        {
            let (tx, rx) = std::sync::mpsc::channel();
            let d = dir.clone();
            std::thread::spawn(move || {
                let _ = tx.send(
                    load_checkpoint(&d, None)
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                );
            });
            let got = rx
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("loading a checkpoint whose model.bpk is a named pipe hung");
            let e = got.unwrap_err();
            assert!(
                e.contains("is not a file (something else is in its place)"),
                "{e}"
            );
            std::fs::remove_file(&model).expect("rm fifo");
        }

        // Corrupt / inconsistent metadata.
        let meta_path = dir.join(META_FILE);
        std::fs::write(&meta_path, b"{\"format_version\": 1, \"rules\": ").expect("write");
        assert!(matches!(
            read_meta(&dir),
            Err(NeuralError::CorruptMeta { .. })
        ));
        let mut meta = meta_for(&cfg);
        meta.format_version = 99;
        std::fs::write(&meta_path, serde_json::to_vec(&meta).expect("json")).expect("write");
        let e = refused(read_meta(&dir).unwrap_err());
        assert!(matches!(
            e.root(),
            NeuralError::UnsupportedFormat { found: 99, .. }
        ));
        let mut meta = meta_for(&cfg);
        meta.obs_dim = 7;
        std::fs::write(&meta_path, serde_json::to_vec(&meta).expect("json")).expect("write");
        let e = refused(read_meta(&dir).unwrap_err());
        assert!(matches!(e.root(), NeuralError::InvalidConfig(_)));
        let mut meta = meta_for(&cfg);
        meta.net.hidden = vec![1 << 20, 1 << 20];
        std::fs::write(&meta_path, serde_json::to_vec(&meta).expect("json")).expect("write");
        let e = refused(read_meta(&dir).unwrap_err());
        assert!(matches!(e.root(), NeuralError::InvalidConfig(_)));
        // A table size no game has (0, 1, 11 players) is corrupt metadata.
        for players in [0, 1, 11, 99] {
            let mut meta = meta_for(&cfg);
            meta.players = players;
            std::fs::write(&meta_path, serde_json::to_vec(&meta).expect("json")).expect("write");
            match read_meta(&dir)
                .map_err(refused)
                .as_ref()
                .map_err(NeuralError::root)
            {
                Err(NeuralError::InvalidConfig(m)) => {
                    assert!(m.contains(&format!("{players} players")), "{m}")
                }
                other => panic!("{players} players: {other:?}"),
            }
        }
        std::fs::remove_file(&meta_path).expect("rm");
        assert!(matches!(read_meta(&dir), Err(NeuralError::MissingFile(_))));
        // A training run's directory: pointed to its checkpoints.
        std::fs::create_dir_all(dir.join("latest")).expect("mkdir");
        std::fs::write(dir.join("latest").join(META_FILE), "{}").expect("write");
        let e = read_meta(&dir).unwrap_err();
        assert!(matches!(e, NeuralError::RunDir(_)), "{e:?}");
        assert!(e.to_string().contains("use its latest/ or best/"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn net_config_defaults_and_validation() {
        let cfg: NetConfig =
            serde_json::from_str(r#"{"obs_dim": 10, "num_actions": 4}"#).expect("json");
        assert_eq!(cfg.hidden, vec![256, 256]);
        assert!(!cfg.layer_norm);
        assert_eq!(
            cfg.num_params(),
            10 * 256 + 256 + 256 * 256 + 256 + 256 * 4 + 4 + 257
        );
        assert!(NetConfig::new(0, 4).validate().is_err());
        assert!(NetConfig::new(4, 0).validate().is_err());
        let zero_hidden = NetConfig {
            hidden: vec![8, 0],
            ..NetConfig::new(4, 4)
        };
        assert!(PolicyValueNet::new(&zero_hidden, &Device::flex()).is_err());
    }

    #[test]
    fn metadata_with_unreadable_rules_or_escape_sequences_is_refused() {
        let cfg = small_cfg();
        let mut meta = meta_for(&cfg);
        meta.rules = "classic".into();
        meta.rules_toml = Some(uno_env::Rules::preset("classic").unwrap().to_toml());
        assert!(meta.validate().is_ok());
        // Rules that do not parse used to skip the rules check unseen.
        let mut bad = meta.clone();
        bad.rules_toml = Some("this is = not rules".into());
        let e = bad.validate().unwrap_err().to_string();
        assert!(
            e.contains("rules_toml for `classic` is not valid rules"),
            "{e}"
        );
        // The name is echoed in notes and errors.
        let mut bad = meta.clone();
        bad.rules = "cl\u{1b}[31massic".into();
        let e = bad.validate().unwrap_err().to_string();
        assert!(e.contains("control characters"), "{e}");
    }
}
