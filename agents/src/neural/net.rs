//! The policy/value network: an MLP trunk with a policy head (logits) and a value head.

use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::{Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig, Relu};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

use super::NeuralError;

/// Largest parameter count a [`NetConfig`] may describe (guards against absurd configs read from
/// corrupt files, which would otherwise abort on allocation).
pub const MAX_PARAMS: usize = 1 << 28;

/// Half-width of the uniform initialisation of the policy head, so that a fresh network starts
/// close to the uniform policy over legal actions.
const POLICY_HEAD_INIT: f64 = 0.01;

/// Shape of a [`PolicyValueNet`]; all sizes are runtime values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetConfig {
    /// Length of one observation vector.
    pub obs_dim: usize,
    /// Number of actions (policy logits).
    pub num_actions: usize,
    /// Widths of the hidden layers of the trunk.
    #[serde(default = "default_hidden")]
    pub hidden: Vec<usize>,
    /// Whether each hidden layer is followed by a LayerNorm (before the ReLU).
    #[serde(default)]
    pub layer_norm: bool,
}

fn default_hidden() -> Vec<usize> {
    vec![256, 256]
}

impl NetConfig {
    /// A config with the default trunk (`[256, 256]`, no LayerNorm).
    pub fn new(obs_dim: usize, num_actions: usize) -> Self {
        Self {
            obs_dim,
            num_actions,
            hidden: default_hidden(),
            layer_norm: false,
        }
    }

    /// Number of trainable parameters this config describes (saturating).
    pub fn num_params(&self) -> usize {
        let mut total: usize = 0;
        let mut prev = self.obs_dim;
        for &h in &self.hidden {
            total = total.saturating_add(prev.saturating_mul(h).saturating_add(h));
            if self.layer_norm {
                total = total.saturating_add(h.saturating_mul(2));
            }
            prev = h;
        }
        total = total.saturating_add(
            prev.saturating_mul(self.num_actions)
                .saturating_add(self.num_actions),
        );
        total.saturating_add(prev.saturating_add(1))
    }

    /// Checks that every size is positive and the network is not absurdly large.
    pub fn validate(&self) -> Result<(), NeuralError> {
        if self.obs_dim == 0 {
            return Err(NeuralError::InvalidConfig("obs_dim must be > 0".into()));
        }
        if self.num_actions == 0 {
            return Err(NeuralError::InvalidConfig("num_actions must be > 0".into()));
        }
        if self.hidden.contains(&0) {
            return Err(NeuralError::InvalidConfig(format!(
                "hidden layer widths must be > 0, got {:?}",
                self.hidden
            )));
        }
        if self.num_params() > MAX_PARAMS {
            return Err(NeuralError::InvalidConfig(format!(
                "network too large: {} parameters (max {MAX_PARAMS})",
                self.num_params()
            )));
        }
        Ok(())
    }
}

/// MLP trunk (Linear → optional LayerNorm → ReLU per hidden layer) with policy and value heads.
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    trunk: Vec<Linear>,
    norms: Vec<LayerNorm>,
    policy: Linear,
    value: Linear,
    act: Relu,
    obs_dim: usize,
    num_actions: usize,
}

impl PolicyValueNet {
    /// Builds a freshly initialised network on `device` (seed the device first for
    /// reproducible weights; the parameters are materialised eagerly).
    pub fn new(config: &NetConfig, device: &Device) -> Result<Self, NeuralError> {
        config.validate()?;
        let mut trunk = Vec::with_capacity(config.hidden.len());
        let mut norms = Vec::new();
        let mut prev = config.obs_dim;
        for &h in &config.hidden {
            trunk.push(LinearConfig::new(prev, h).init(device));
            if config.layer_norm {
                norms.push(LayerNormConfig::new(h).init(device));
            }
            prev = h;
        }
        let policy = LinearConfig::new(prev, config.num_actions)
            .with_initializer(Initializer::Uniform {
                min: -POLICY_HEAD_INIT,
                max: POLICY_HEAD_INIT,
            })
            .init(device);
        let value = LinearConfig::new(prev, 1).init(device);
        let net = Self {
            trunk,
            norms,
            policy,
            value,
            act: Relu::new(),
            obs_dim: config.obs_dim,
            num_actions: config.num_actions,
        };
        // burn initialises parameters lazily (on first use); force it now so the weights depend
        // only on the device seed at construction time, not on what runs in between.
        net.visit(&mut Materialize);
        Ok(net)
    }

    /// Builds a network whose initial weights depend only on `seed`: seeds `device` and
    /// initialises under a process-wide lock, so concurrent constructions through this function
    /// cannot interleave their random draws.
    pub fn new_seeded(config: &NetConfig, device: &Device, seed: u64) -> Result<Self, NeuralError> {
        static INIT_LOCK: Mutex<()> = Mutex::new(());
        let _guard = INIT_LOCK
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        device.seed(seed);
        Self::new(config, device)
    }

    /// Length of the observation vector this network expects.
    pub fn obs_dim(&self) -> usize {
        self.obs_dim
    }

    /// Number of policy logits this network produces.
    pub fn num_actions(&self) -> usize {
        self.num_actions
    }

    /// Forward pass: `x` is `[batch, obs_dim]`; returns raw (unmasked) logits
    /// `[batch, num_actions]` and values `[batch]`.
    pub fn forward(&self, x: Tensor<2>) -> (Tensor<2>, Tensor<1>) {
        let mut h = x;
        for (i, layer) in self.trunk.iter().enumerate() {
            h = layer.forward(h);
            if let Some(norm) = self.norms.get(i) {
                h = norm.forward(h);
            }
            h = self.act.forward(h);
        }
        let logits = self.policy.forward(h.clone());
        let value = self.value.forward(h).squeeze_dim::<1>(1);
        (logits, value)
    }
}

/// Forces the lazy initialisation of every float parameter.
struct Materialize;

impl ModuleVisitor for Materialize {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}
