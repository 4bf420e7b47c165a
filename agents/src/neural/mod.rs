//! Burn-backed neural network agent: the policy/value network, checkpoints on disk and a batched
//! inference wrapper with masked action selection.
//!
//! Everything here takes the observation size and action count as runtime values (see
//! [`NetConfig`]); nothing depends on constants of the rules engine.

mod agent;
mod checkpoint;
mod device;
mod net;
mod policy;

use std::path::{Path, PathBuf};

pub use agent::{
    EXPECTED, NeuralAgent, build_checkpoint, check_compatible, check_compatible_all,
    check_meta_compatible, naming_checkpoint, playing_choices, playing_mask, register, summarize,
};
pub use checkpoint::{
    CHECKPOINT_FORMAT_VERSION, CheckpointMeta, META_FILE, MODEL_FILE, OPTIM_FILE, TableMeta,
    bad_weights, load_checkpoint, load_checkpoint_on, load_weights, read_meta, save_checkpoint,
    save_weights, tmp_path_for, write_atomic, write_meta,
};
pub use device::{available_devices, device_by_name};
pub use net::{LAYER_NORM_EPSILON, MAX_PARAMS, MAX_WEIGHT, NamedParam, NetConfig, PolicyValueNet};
pub use policy::{
    MASKED_LOGIT, NeuralPolicy, apply_mask, masked_argmax, masked_log_softmax, sample_masked,
};

/// Errors of the neural agent: checkpoint I/O and validation, bad configs and bad input shapes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NeuralError {
    /// The checkpoint directory does not exist (or is not a directory).
    #[error("checkpoint directory {path} {what}", path = .0.display(), what = if .0.exists() {
        "is a file, not a directory"
    } else if .0.to_string_lossy().contains('?') {
        "does not exist (the one option after `?` is `?sample`)"
    } else {
        "does not exist"
    })]
    MissingDir(PathBuf),
    /// A file the checkpoint needs is missing (or something else, such as a
    /// directory, is in its place).
    #[error("checkpoint file {} {}", .0.display(), if .0.exists() {
        "is not a file (something else is in its place)"
    } else {
        "is missing"
    })]
    MissingFile(PathBuf),
    /// The directory is a training run's, not a checkpoint: its checkpoints
    /// are in `latest/` and `best/`.
    #[error(
        "{} is a training run, not a checkpoint: use its latest/ or best/ checkpoint ({}/latest)",
        .0.display(),
        .0.display()
    )]
    RunDir(PathBuf),
    /// An I/O error while reading or writing a checkpoint file.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `meta.json` is not valid JSON or does not have the expected fields.
    #[error("corrupt checkpoint metadata {path}: {message}")]
    CorruptMeta {
        /// Path of the metadata file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The checkpoint was written by an incompatible format version.
    #[error("unsupported checkpoint format version {found} (this build reads {expected})")]
    UnsupportedFormat {
        /// Version this build understands.
        expected: u32,
        /// Version found in the file.
        found: u32,
    },
    /// A weights file (`model.bpk`/`optim.bpk`) is unreadable, truncated or does not match the
    /// network described by the metadata.
    #[error("corrupt or mismatched weights {path}: {message}")]
    CorruptWeights {
        /// Path of the weights file.
        path: PathBuf,
        /// Burn's description of the problem.
        message: String,
    },
    /// Writing weights failed.
    #[error("cannot save weights to {path}: {message}")]
    SaveWeights {
        /// Target path.
        path: PathBuf,
        /// Burn's description of the problem.
        message: String,
    },
    /// The checkpoint was trained on a different observation encoding version.
    #[error("observation version mismatch: expected {expected}, checkpoint has {found}")]
    ObsVersionMismatch {
        /// Version the caller expects.
        expected: u32,
        /// Version stored in the checkpoint.
        found: u32,
    },
    /// The checkpoint's observation size differs from the caller's.
    #[error("observation size mismatch: expected {expected}, checkpoint has {found}")]
    ObsDimMismatch {
        /// Size the caller expects.
        expected: usize,
        /// Size stored in the checkpoint.
        found: usize,
    },
    /// The checkpoint's action count differs from the caller's.
    #[error("action count mismatch: expected {expected}, checkpoint has {found}")]
    NumActionsMismatch {
        /// Count the caller expects.
        expected: usize,
        /// Count stored in the checkpoint.
        found: usize,
    },
    /// A network config is invalid (zero sizes, too large, inconsistent with the metadata).
    #[error("invalid network config: {0}")]
    InvalidConfig(String),
    /// The checkpoint was trained for other rules than the game it is asked to play.
    #[error("{0}")]
    RulesMismatch(String),
    /// The compute device named is not available in this build.
    #[error("{0}")]
    Device(String),
    /// Input slices have the wrong length for the requested batch.
    #[error("shape error: {0}")]
    Shape(String),
    /// A check of a checkpoint's metadata that names no file (a version,
    /// a size, the network config) failed for the checkpoint in `dir`.
    #[error("checkpoint {}: {source}", .dir.display())]
    InCheckpoint {
        /// The checkpoint directory.
        dir: PathBuf,
        /// What is wrong with it.
        source: Box<NeuralError>,
    },
}

impl NeuralError {
    /// This error, naming checkpoint `dir` when it names no file of its own
    /// (so that with several checkpoints the message says which one).
    pub fn in_checkpoint(self, dir: &Path) -> NeuralError {
        match self {
            NeuralError::UnsupportedFormat { .. }
            | NeuralError::ObsVersionMismatch { .. }
            | NeuralError::ObsDimMismatch { .. }
            | NeuralError::NumActionsMismatch { .. }
            | NeuralError::InvalidConfig(_) => NeuralError::InCheckpoint {
                dir: dir.to_path_buf(),
                source: Box::new(self),
            },
            other => other,
        }
    }

    /// The error itself, or the one an [`NeuralError::InCheckpoint`] wraps.
    pub fn root(&self) -> &NeuralError {
        match self {
            NeuralError::InCheckpoint { source, .. } => source.root(),
            other => other,
        }
    }
}
