//! Checkpoints on disk: a directory holding `model.bpk` (burnpack weights), `meta.json`
//! ([`CheckpointMeta`]) and, when written by the trainer, `optim.bpk` (optimizer state).
//!
//! Every file is written to a temporary name in the same directory and then renamed over the
//! final name, so a crash never leaves a half-written file under a real name. `meta.json` is
//! written last.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::{DType, Device, Tensor};
use serde::{Deserialize, Serialize};

use super::net::usable_weight;
use super::{MAX_WEIGHT, NetConfig, NeuralError, PolicyValueNet};
use uno_env::OBS_VERSION;
use uno_env::obs::{LEGACY_OBS, OBS_SIZE};

/// Checkpoint format version written by this build (and the only one it reads).
pub const CHECKPOINT_FORMAT_VERSION: u32 = 1;
/// File name of the network weights inside a checkpoint directory.
pub const MODEL_FILE: &str = "model.bpk";
/// File name of the metadata inside a checkpoint directory.
pub const META_FILE: &str = "meta.json";
/// File name of the optimizer state inside a checkpoint directory (written by the trainer).
pub const OPTIM_FILE: &str = "optim.bpk";

/// Largest `meta.json` we agree to read (a sanity bound against pointing at a huge file).
const MAX_META_BYTES: u64 = 16 << 20;

/// Metadata stored next to the weights as `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    /// Checkpoint format version ([`CHECKPOINT_FORMAT_VERSION`]).
    pub format_version: u32,
    /// Name of the rule set the network was trained for.
    pub rules: String,
    /// Number of players of the games it was trained on.
    pub players: usize,
    /// Version of the observation encoding.
    pub obs_version: u32,
    /// Observation vector length.
    pub obs_dim: usize,
    /// Number of actions.
    pub num_actions: usize,
    /// Network shape.
    pub net: NetConfig,
    /// Environment steps (samples) trained on so far.
    #[serde(default)]
    pub steps: u64,
    /// PPO updates performed so far.
    #[serde(default)]
    pub updates: u64,
    /// CRC-32 of `model.bpk`, as 8 hex digits, recorded when the checkpoint is written
    /// ([`write_meta`]) and checked when it is loaded: weights damaged after the save are
    /// refused even where the damage leaves usable numbers. Absent in checkpoints written
    /// before 2026-11-29, which are loaded unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_crc32: Option<String>,
    /// The full rules trained on, as TOML (absent in checkpoints written
    /// before 2026-11-23: those were trained on the preset named by `rules`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_toml: Option<String>,
    /// Every table of a run that trained on several (`rules` and `players`
    /// above are the first); empty for a run on one table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<TableMeta>,
    /// Free-form description of the training run (hyper-parameters, seed, command line...).
    #[serde(default)]
    pub trained_with: serde_json::Value,
    /// Free-form evaluation results.
    #[serde(default)]
    pub eval: serde_json::Value,
}

/// One table (rules and table size) a network was trained on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableMeta {
    /// Name of the rule set.
    pub rules: String,
    /// Number of players.
    pub players: usize,
    /// The full rules, as TOML.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_toml: Option<String>,
}

impl TableMeta {
    /// The rules of this table: `rules_toml`, or the preset named by `rules`.
    pub fn trained_rules(&self) -> Option<uno_env::Rules> {
        match &self.rules_toml {
            Some(text) => uno_env::Rules::from_toml_str(text).ok(),
            None => uno_env::Rules::preset(&self.rules).ok(),
        }
    }
}

impl CheckpointMeta {
    /// The rules the network was trained on: `rules_toml`, or for older
    /// checkpoints the preset named by `rules` (`None` when neither is known).
    pub fn trained_rules(&self) -> Option<uno_env::Rules> {
        self.main_table().trained_rules()
    }

    /// The first (for most runs the only) table the network was trained on.
    pub fn main_table(&self) -> TableMeta {
        TableMeta {
            rules: self.rules.clone(),
            players: self.players,
            rules_toml: self.rules_toml.clone(),
        }
    }

    /// Every table the network was trained on: [`CheckpointMeta::tables`],
    /// or the one named by `rules` and `players`.
    pub fn all_tables(&self) -> Vec<TableMeta> {
        if self.tables.is_empty() {
            vec![self.main_table()]
        } else {
            self.tables.clone()
        }
    }

    /// The table it was trained on for `rules`: the one of this size, else
    /// the first of these rules (`None` when no table has these rules).
    pub fn table_for(&self, rules: &str, players: usize) -> Option<TableMeta> {
        self.table_where(players, |t| t.rules == rules)
    }

    /// The table that passes `keep` with `players` seats, or else the first
    /// that passes `keep` (the network plays any table size).
    pub fn table_where(
        &self,
        players: usize,
        keep: impl Fn(&TableMeta) -> bool,
    ) -> Option<TableMeta> {
        let tables = self.all_tables();
        let same: Vec<&TableMeta> = tables.iter().filter(|t| keep(t)).collect();
        let table = same
            .iter()
            .find(|t| t.players == players)
            .or(same.first())?;
        Some((*table).clone())
    }

    /// Metadata for a fresh network with zero steps/updates and empty free-form fields.
    pub fn new(rules: impl Into<String>, players: usize, obs_version: u32, net: NetConfig) -> Self {
        Self {
            format_version: CHECKPOINT_FORMAT_VERSION,
            rules: rules.into(),
            players,
            obs_version,
            obs_dim: net.obs_dim,
            num_actions: net.num_actions,
            net,
            steps: 0,
            updates: 0,
            model_crc32: None,
            rules_toml: None,
            tables: Vec::new(),
            trained_with: serde_json::Value::Null,
            eval: serde_json::Value::Null,
        }
    }

    /// Checks internal consistency (format version, sizes agree with the net config).
    pub fn validate(&self) -> Result<(), NeuralError> {
        if self.format_version != CHECKPOINT_FORMAT_VERSION {
            return Err(NeuralError::UnsupportedFormat {
                expected: CHECKPOINT_FORMAT_VERSION,
                found: self.format_version,
            });
        }
        if self.net.obs_dim != self.obs_dim || self.net.num_actions != self.num_actions {
            return Err(NeuralError::InvalidConfig(format!(
                "metadata says obs_dim={} num_actions={} but net config says obs_dim={} \
                 num_actions={}",
                self.obs_dim, self.num_actions, self.net.obs_dim, self.net.num_actions
            )));
        }
        if let Some(crc) = &self.model_crc32
            && parse_crc32(crc).is_none()
        {
            return Err(NeuralError::InvalidConfig(format!(
                "metadata's model_crc32 {crc:?} is not 8 hex digits"
            )));
        }
        for t in self.all_tables() {
            // Printed in notes and errors: no escape sequences.
            if t.rules.chars().any(char::is_control) {
                return Err(NeuralError::InvalidConfig(format!(
                    "metadata names its rules {:?}, which holds control characters",
                    t.rules
                )));
            }
            // Rules that do not parse would make every rules check pass
            // unseen (`trained_rules` is `None` for unknown ones).
            if let Some(text) = &t.rules_toml
                && let Err(e) = uno_env::Rules::from_toml_str(text)
            {
                return Err(NeuralError::InvalidConfig(format!(
                    "metadata's rules_toml for `{}` is not valid rules: {e}",
                    t.rules
                )));
            }
            if !(uno_env::MIN_PLAYERS..=uno_env::MAX_PLAYERS).contains(&t.players) {
                return Err(NeuralError::InvalidConfig(format!(
                    "metadata says it was trained on `{}` with {} players (a table has {} to {})",
                    t.rules,
                    t.players,
                    uno_env::MIN_PLAYERS,
                    uno_env::MAX_PLAYERS
                )));
            }
        }
        self.net.validate()
    }

    /// Checks `(obs_version, obs_dim, num_actions)` against what the caller expects.
    pub fn check_expected(&self, expected: (u32, usize, usize)) -> Result<(), NeuralError> {
        let (obs_version, obs_dim, num_actions) = expected;
        if self.obs_version != obs_version {
            return Err(NeuralError::ObsVersionMismatch {
                expected: obs_version,
                found: self.obs_version,
            });
        }
        if self.obs_dim != obs_dim {
            return Err(NeuralError::ObsDimMismatch {
                expected: obs_dim,
                found: self.obs_dim,
            });
        }
        if self.num_actions != num_actions {
            return Err(NeuralError::NumActionsMismatch {
                expected: num_actions,
                found: self.num_actions,
            });
        }
        Ok(())
    }

    /// Like [`check_expected`](Self::check_expected), but also accepts a checkpoint of an
    /// earlier observation layout that the current one extends ([`uno_env::obs::LEGACY_OBS`])
    /// when `expected` is the current layout; returns the length to widen its input to.
    pub fn check_loadable(
        &self,
        expected: (u32, usize, usize),
    ) -> Result<Option<usize>, NeuralError> {
        let strict = self.check_expected(expected);
        let (version, dim, actions) = expected;
        let legacy = (version, dim) == (OBS_VERSION, OBS_SIZE)
            && actions == self.num_actions
            && LEGACY_OBS.contains(&(self.obs_version, self.obs_dim));
        match strict {
            Err(_) if legacy => Ok(Some(dim)),
            Err(NeuralError::ObsVersionMismatch { .. })
                if (version, dim) == (OBS_VERSION, OBS_SIZE) =>
            {
                // A known earlier version whose sizes are wrong: name the size
                // (against that version's layout), not the version.
                match LEGACY_OBS.iter().find(|(v, _)| *v == self.obs_version) {
                    Some(&(v, legacy_dim)) => self
                        .check_expected((v, legacy_dim, actions))
                        .map(|()| Some(dim)),
                    None => strict.map(|()| None),
                }
            }
            other => other.map(|()| None),
        }
    }

    /// The metadata after the network was widened to the current observation layout.
    /// (The weights file's checksum describes the file, not the widened network.)
    fn upgraded(mut self, obs_version: u32, obs_dim: usize) -> Self {
        self.model_crc32 = None;
        self.obs_version = obs_version;
        self.obs_dim = obs_dim;
        self.net.obs_dim = obs_dim;
        self
    }
}

fn io_err(path: &Path, source: std::io::Error) -> NeuralError {
    NeuralError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A unique temporary path next to `path` (same directory, so a rename is atomic).
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn tmp_path_for(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// Writes `bytes` to `path` atomically (temp file in the same directory, fsync, rename).
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), NeuralError> {
    let tmp = tmp_path_for(path);
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path, e));
    }
    Ok(())
}

/// Saves the network weights to `path` (burnpack) atomically.
pub fn save_weights(net: &PolicyValueNet, path: &Path) -> Result<(), NeuralError> {
    let tmp = tmp_path_for(path);
    let saved = net
        .clone()
        .save_file(&tmp)
        .map_err(|e| NeuralError::SaveWeights {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| io_err(path, e)));
    if saved.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    saved
}

/// Counts the weights that are not usable: NaN, infinite or beyond ±[`MAX_WEIGHT`].
#[derive(Default)]
struct BadWeights {
    bad: usize,
    total: usize,
}

impl ModuleVisitor for BadWeights {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Ok(values) = param.val().into_data().try_into_vec::<f32>() {
            self.total += values.len();
            self.bad += values.iter().filter(|&&v| !usable_weight(v)).count();
        }
    }
}

/// Loads weights from `path` into `net` (which fixes the structure and the device).
///
/// Missing, truncated or structurally mismatched files give an error, never a panic; so do
/// weights that are not all finite numbers within ±[`MAX_WEIGHT`] (bytes damaged in place,
/// which keep the file's length, or a training run that diverged): such a network would
/// play decisions with infinite or NaN logits, i.e. silently as its first legal action.
pub fn load_weights(net: PolicyValueNet, path: &Path) -> Result<PolicyValueNet, NeuralError> {
    check_weights_file(path, &net.config())?;
    load_checked_weights(net, path)
}

/// [`load_weights`] for a file that passed [`check_weights_file`].
fn load_checked_weights(net: PolicyValueNet, path: &Path) -> Result<PolicyValueNet, NeuralError> {
    let net = net
        .try_load_file(path)
        .map_err(|e| NeuralError::CorruptWeights {
            path: path.to_path_buf(),
            message: describe_load_error(&e.to_string()),
        })?;
    let (bad, total) = bad_weights(&net);
    if bad > 0 {
        return Err(NeuralError::CorruptWeights {
            path: path.to_path_buf(),
            message: format!(
                "{bad} of its {total} weights are not finite numbers within ±{MAX_WEIGHT:e} (NaN, infinite or huge; \
                 trained weights are a few units at most): the file is damaged, or the run that wrote it diverged"
            ),
        });
    }
    Ok(net)
}

/// The length of the regular file at `path`; `None` when nothing is there or
/// something else is (a directory, a named pipe); an error when it cannot be
/// looked at (e.g. permission denied).
fn regular_file_len(path: &Path) -> Result<Option<u64>, NeuralError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path, e)),
    }
}

/// Bytes of a burnpack header: magic number (4), format version (2), metadata length (4, LE).
const BPK_HEADER: u64 = 10;
/// Alignment of a burnpack file's tensor data section.
const BPK_ALIGN: u64 = 256;

/// Checks, before burn reads it, that the weights file at `path` exists and is long enough
/// for what its header claims and for the network `config` describes (its parameters as
/// f32). A `meta.json` edited to describe a far larger network is refused here, before that
/// network is built (up to [`MAX_PARAMS`](super::MAX_PARAMS) parameters, a gigabyte), and a
/// header claiming more metadata than the file holds is refused before burn allocates it.
fn check_weights_file(path: &Path, config: &NetConfig) -> Result<(), NeuralError> {
    let corrupt = |message: String| NeuralError::CorruptWeights {
        path: path.to_path_buf(),
        message,
    };
    // Looked at before it is opened: opening a named pipe put in its place
    // would wait for a writer, for ever.
    let len =
        regular_file_len(path)?.ok_or_else(|| NeuralError::MissingFile(path.to_path_buf()))?;
    let mut file = fs::File::open(path).map_err(|e| io_err(path, e))?;
    let mut header = [0u8; BPK_HEADER as usize];
    if len < BPK_HEADER {
        return Err(corrupt(format!(
            "the file is {len} bytes, shorter than a burnpack header ({BPK_HEADER} bytes): it is truncated or not a weights file"
        )));
    }
    file.read_exact(&mut header).map_err(|e| io_err(path, e))?;
    let meta_len = u64::from(u32::from_le_bytes([
        header[6], header[7], header[8], header[9],
    ]));
    let data_start = (BPK_HEADER + meta_len).div_ceil(BPK_ALIGN) * BPK_ALIGN;
    if BPK_HEADER + meta_len > len {
        return Err(corrupt(format!(
            "the file's header is damaged or the file truncated: it claims {meta_len} bytes of metadata, but the file is {len} bytes"
        )));
    }
    let params = config.num_params() as u64;
    let needed = data_start.saturating_add(params.saturating_mul(4));
    if len < needed {
        return Err(corrupt(format!(
            "the file is {len} bytes, too short for the network meta.json describes ({params} parameters, at least {needed} bytes): \
             meta.json was edited, or the file is truncated"
        )));
    }
    // burn adopts each tensor's stored element type and panics ("Expected float dtype")
    // when it is not a float one: every weight must be stored as f32, as this program
    // writes them. Reading the tensor list reads no tensor data.
    let tensors = burn_pack::Reader::from_file_exact(path)
        .and_then(burn_pack::Reader::into_tensors)
        .map_err(|e| corrupt(describe_load_error(&e.to_string())))?;
    if let Some(t) = tensors.iter().find(|t| t.dtype != DType::F32) {
        return Err(corrupt(format!(
            "tensor {} is stored as {:?}, not as f32 numbers: the file is damaged, or was not written by this program",
            t.name, t.dtype
        )));
    }
    Ok(())
}

/// Burn's load error in a user's words where it is a known case: weights of
/// other shapes than the network `meta.json` describes, or a damaged header.
/// Other errors keep burn's text.
fn describe_load_error(burn: &str) -> String {
    const SHAPE: &str = ": shape mismatch, expected Shape { dims: [";
    if let Some(at) = burn.find(SHAPE) {
        let name = burn[..at].rsplit('"').next().unwrap_or("?");
        let rest = &burn[at + SHAPE.len()..];
        let wants = rest.split(']').next().unwrap_or("?");
        let has = rest
            .split("record has Shape { dims: [")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .unwrap_or("?");
        let n = burn.matches("shape mismatch").count();
        let more = if n > 1 {
            format!(" and {} more tensor(s)", n - 1)
        } else {
            String::new()
        };
        return format!(
            "the weights do not fit the network meta.json describes ({name} is [{has}] in the file, the network needs [{wants}]{more}): \
             meta.json was edited, or the weights come from another checkpoint"
        );
    }
    if burn.contains("Metadata deserialization error") {
        return format!("the file's header is damaged ({burn})");
    }
    burn.to_string()
}

/// How many of `net`'s weights are not usable (NaN, infinite or beyond ±[`MAX_WEIGHT`]), and
/// how many it has. A checkpoint with any is refused, and training stops before saving one.
pub fn bad_weights(net: &PolicyValueNet) -> (usize, usize) {
    let mut check = BadWeights::default();
    net.visit(&mut check);
    (check.bad, check.total)
}

/// Writes `model.bpk` and then `meta.json` into `dir` (created if needed), each atomically.
pub fn save_checkpoint(
    dir: &Path,
    net: &PolicyValueNet,
    meta: &CheckpointMeta,
) -> Result<(), NeuralError> {
    meta.validate()?;
    if meta.obs_dim != net.obs_dim() || meta.num_actions != net.num_actions() {
        return Err(NeuralError::InvalidConfig(format!(
            "metadata (obs_dim={}, num_actions={}) does not describe the network \
             (obs_dim={}, num_actions={})",
            meta.obs_dim,
            meta.num_actions,
            net.obs_dim(),
            net.num_actions()
        )));
    }
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    save_weights(net, &dir.join(MODEL_FILE))?;
    write_meta(dir, meta)
}

/// The CRC-32 of `bytes`, as [`CheckpointMeta::model_crc32`] writes it.
fn crc32_hex(bytes: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(bytes))
}

/// The value of a `model_crc32` string: exactly 8 hex digits.
fn parse_crc32(text: &str) -> Option<u32> {
    (text.len() == 8 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(text, 16).ok())
        .flatten()
}

/// Refuses the weights file at `path` when `meta` records a checksum it does not have.
fn check_model_crc32(path: &Path, meta: &CheckpointMeta) -> Result<(), NeuralError> {
    let Some(want) = meta.model_crc32.as_deref().and_then(parse_crc32) else {
        return Ok(());
    };
    let bytes = fs::read(path).map_err(|e| io_err(path, e))?;
    let got = crc32fast::hash(&bytes);
    if got == want {
        return Ok(());
    }
    Err(NeuralError::CorruptWeights {
        path: path.to_path_buf(),
        message: format!(
            "its CRC-32 is {got:08x}, but {META_FILE} records {want:08x} for it: the file was \
             damaged after it was saved, or belongs to another checkpoint"
        ),
    })
}

/// Writes `meta.json` into an existing `dir` atomically, with the CRC-32 of the
/// `model.bpk` beside it (none when there is none yet).
pub fn write_meta(dir: &Path, meta: &CheckpointMeta) -> Result<(), NeuralError> {
    let path = dir.join(META_FILE);
    let model = dir.join(MODEL_FILE);
    let model_crc32 = match fs::read(&model) {
        Ok(bytes) => Some(crc32_hex(&bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(&model, e)),
    };
    let meta = CheckpointMeta {
        model_crc32,
        ..meta.clone()
    };
    let json = serde_json::to_vec_pretty(&meta).map_err(|e| NeuralError::CorruptMeta {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&path, &json)
}

/// Reads and validates `DIR/meta.json`.
pub fn read_meta(dir: &Path) -> Result<CheckpointMeta, NeuralError> {
    if !dir.is_dir() {
        return Err(NeuralError::MissingDir(dir.to_path_buf()));
    }
    let path = dir.join(META_FILE);
    // Missing only when it is not there: a directory that cannot be read is
    // an I/O error naming the cause (e.g. permission denied).
    // A run directory given for a checkpoint (a likely slip): say where its
    // checkpoints are.
    let missing = |path: PathBuf| {
        if dir.join("latest").join(META_FILE).is_file() {
            NeuralError::RunDir(dir.to_path_buf())
        } else {
            NeuralError::MissingFile(path)
        }
    };
    let Some(len) = regular_file_len(&path)? else {
        return Err(missing(path));
    };
    if len > MAX_META_BYTES {
        return Err(NeuralError::CorruptMeta {
            path,
            message: format!("file is {len} bytes, larger than {MAX_META_BYTES}"),
        });
    }
    let bytes = fs::read(&path).map_err(|e| io_err(&path, e))?;
    let meta: CheckpointMeta =
        serde_json::from_slice(&bytes).map_err(|e| NeuralError::CorruptMeta {
            path: path.clone(),
            message: e.to_string(),
        })?;
    meta.validate().map_err(|e| e.in_checkpoint(dir))?;
    Ok(meta)
}

/// Loads a checkpoint for inference on `Device::flex()`.
///
/// `expected` is `(obs_version, obs_dim, num_actions)`; a mismatch is an error.
pub fn load_checkpoint(
    dir: &Path,
    expected: Option<(u32, usize, usize)>,
) -> Result<(PolicyValueNet, CheckpointMeta), NeuralError> {
    load_checkpoint_on(dir, expected, &Device::flex())
}

/// Loads a checkpoint onto `device` (e.g. an autodiff device for training).
///
/// A checkpoint of an earlier observation layout ([`CheckpointMeta::check_loadable`]) comes
/// back widened to the current one, with metadata describing the widened network.
pub fn load_checkpoint_on(
    dir: &Path,
    expected: Option<(u32, usize, usize)>,
    device: &Device,
) -> Result<(PolicyValueNet, CheckpointMeta), NeuralError> {
    let meta = read_meta(dir)?;
    let widen_to = match expected {
        Some(expected) => meta
            .check_loadable(expected)
            .map_err(|e| e.in_checkpoint(dir))?,
        None => None,
    };
    let model = dir.join(MODEL_FILE);
    // Before the network is built: a meta.json describing a huge network must not cost
    // a gigabyte and seconds of initialisation to find that the weights do not fit.
    check_weights_file(&model, &meta.net)?;
    let net = PolicyValueNet::new(&meta.net, device)?;
    let net = load_checked_weights(net, &model)?;
    // Last: the checks above name damage more precisely (truncated, NaN weights, …);
    // this one refuses what they let through.
    check_model_crc32(&model, &meta)?;
    match (widen_to, expected) {
        (Some(dim), Some((version, _, _))) => {
            let net = net.widened_input(dim, device)?;
            Ok((net, meta.upgraded(version, dim)))
        }
        _ => Ok((net, meta)),
    }
}
