//! The policy/value network: an MLP trunk with a policy head (logits) and a value head.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::nn::{Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig, Relu};
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

use super::NeuralError;

/// Largest parameter count a [`NetConfig`] may describe (guards against absurd configs read from
/// corrupt files, which would otherwise abort on allocation).
pub const MAX_PARAMS: usize = 1 << 28;

/// Largest weight magnitude a network may be given (from a file or a caller).
/// Trained networks hold weights of a few units (the shipped ones at most 1.73);
/// a damaged exponent byte makes values such as 1e35, still finite, which overflow
/// the forward pass to infinity and NaN. So does a run that diverged.
pub const MAX_WEIGHT: f32 = 1e6;

/// Whether `v` may be a weight: a finite number of magnitude at most [`MAX_WEIGHT`]
/// (NaN fails the comparison).
pub(crate) fn usable_weight(v: f32) -> bool {
    v.abs() <= MAX_WEIGHT
}

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

/// As in messages: "hidden [256, 256], layer_norm false (1278 inputs, 98 outputs)".
impl std::fmt::Display for NetConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "hidden {:?}, layer_norm {} ({} inputs, {} outputs)",
            self.hidden, self.layer_norm, self.obs_dim, self.num_actions
        )
    }
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

/// One parameter tensor of a network, by name (see [`PolicyValueNet::parameters`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedParam {
    /// `trunk.{i}.weight`, `trunk.{i}.bias`, `norms.{i}.gamma`, `norms.{i}.beta`,
    /// `policy.weight`, `policy.bias`, `value.weight` or `value.bias`.
    pub name: String,
    /// Dimensions: a weight is `[inputs, outputs]` (a layer computes `x · W + b`).
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub values: Vec<f32>,
}

/// Epsilon of the trunk's LayerNorms (burn's default), for re-implementations of the forward pass.
pub const LAYER_NORM_EPSILON: f64 = 1e-5;

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

/// The lock every network construction holds while it draws its initial weights from the
/// device's generator, which burn keeps per process: without it, a network built on one
/// thread (a checkpoint loaded for an opponent, a test) could draw from the generator between
/// another thread's seeding and its draws, and change that seeded network's weights.
fn init_lock() -> std::sync::MutexGuard<'static, ()> {
    static INIT_LOCK: Mutex<()> = Mutex::new(());
    INIT_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl PolicyValueNet {
    /// Builds a freshly initialised network on `device` (its weights drawn from the
    /// device's generator; [`PolicyValueNet::new_seeded`] for reproducible ones; the
    /// parameters are materialised eagerly).
    pub fn new(config: &NetConfig, device: &Device) -> Result<Self, NeuralError> {
        let _guard = init_lock();
        Self::build(config, device)
    }

    /// [`PolicyValueNet::new`] for a caller that holds [`init_lock`].
    fn build(config: &NetConfig, device: &Device) -> Result<Self, NeuralError> {
        config.validate()?;
        let mut trunk = Vec::with_capacity(config.hidden.len());
        let mut norms = Vec::new();
        let mut prev = config.obs_dim;
        for &h in &config.hidden {
            trunk.push(LinearConfig::new(prev, h).init(device));
            if config.layer_norm {
                norms.push(
                    LayerNormConfig::new(h)
                        .with_epsilon(LAYER_NORM_EPSILON)
                        .init(device),
                );
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

    /// Builds a network whose initial weights and parameter ids depend only on `seed`: seeds
    /// `device` and initialises under the process-wide lock that every construction takes, so
    /// no other construction (seeded or not, e.g. a checkpoint being loaded on another
    /// thread) draws from the device's generator in between.
    pub fn new_seeded(config: &NetConfig, device: &Device, seed: u64) -> Result<Self, NeuralError> {
        let _guard = init_lock();
        device.seed(seed);
        let net = Self::build(config, device)?;
        Ok(net.map(&mut SeededIds::new(seed)))
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

    /// Every parameter, in the order of the forward pass: for each hidden layer `i`,
    /// `trunk.{i}.weight` `[in, out]` and `trunk.{i}.bias` `[out]` (then, with LayerNorm,
    /// `norms.{i}.gamma` and `norms.{i}.beta`, normalising over the layer's units with
    /// [`LAYER_NORM_EPSILON`] and the biased variance), a ReLU after each; then the heads
    /// `policy.weight` `[last, num_actions]`, `policy.bias`, `value.weight` `[last, 1]`,
    /// `value.bias` `[1]`. A missing bias is written as zeros, so the list has one layout.
    pub fn parameters(&self) -> Result<Vec<NamedParam>, NeuralError> {
        let mut out = Vec::with_capacity(4 * self.trunk.len() + 4);
        let linear =
            |out: &mut Vec<NamedParam>, name: &str, l: &Linear| -> Result<(), NeuralError> {
                let [din, dout] = l.weight.dims();
                let (weight, bias) = linear_host(l)?;
                out.push(NamedParam {
                    name: format!("{name}.weight"),
                    shape: vec![din, dout],
                    values: weight,
                });
                out.push(NamedParam {
                    name: format!("{name}.bias"),
                    shape: vec![dout],
                    values: bias,
                });
                Ok(())
            };
        for (i, layer) in self.trunk.iter().enumerate() {
            linear(&mut out, &format!("trunk.{i}"), layer)?;
            if let Some(norm) = self.norms.get(i) {
                let [d] = norm.gamma.dims();
                let beta = match &norm.beta {
                    Some(b) => host(b.val())?,
                    None => vec![0.0; d],
                };
                out.push(NamedParam {
                    name: format!("norms.{i}.gamma"),
                    shape: vec![d],
                    values: host(norm.gamma.val())?,
                });
                out.push(NamedParam {
                    name: format!("norms.{i}.beta"),
                    shape: vec![d],
                    values: beta,
                });
            }
        }
        linear(&mut out, "policy", &self.policy)?;
        linear(&mut out, "value", &self.value)?;
        Ok(out)
    }

    /// The network's shape.
    pub fn config(&self) -> NetConfig {
        NetConfig {
            obs_dim: self.obs_dim,
            num_actions: self.num_actions,
            hidden: self.hidden(),
            layer_norm: !self.norms.is_empty(),
        }
    }

    /// The widths of the hidden layers.
    pub fn hidden(&self) -> Vec<usize> {
        self.trunk.iter().map(|l| l.weight.dims()[1]).collect()
    }

    /// A larger network computing exactly the same function (Net2Net-style growth), ready to
    /// learn more: `config` keeps the observation and action sizes, every existing hidden layer
    /// is at least as wide, and added layers (after the existing ones) are at least as wide as
    /// the last one. The old units keep their weights and ignore the new ones (zero weights);
    /// new units get fresh random inputs (from `seed`) and start with zero weight into the old
    /// units and the heads; an added layer carries the previous layer's units through an
    /// identity block (exact after a ReLU, whose outputs are never negative). LayerNorm
    /// networks cannot grow this way (the normalisation would change) and are refused.
    pub fn grown(
        &self,
        config: &NetConfig,
        device: &Device,
        seed: u64,
    ) -> Result<Self, NeuralError> {
        let old = self.hidden();
        let refuse = |why: String| {
            Err(NeuralError::InvalidConfig(format!(
                "cannot grow {old:?} to {:?}: {why}",
                config.hidden
            )))
        };
        if !self.norms.is_empty() || config.layer_norm {
            return refuse("LayerNorm networks cannot grow exactly".into());
        }
        if config.obs_dim != self.obs_dim || config.num_actions != self.num_actions {
            return refuse(format!(
                "observation/action sizes {}/{} differ from {}/{}",
                config.obs_dim, config.num_actions, self.obs_dim, self.num_actions
            ));
        }
        let last = old.last().copied().unwrap_or(self.obs_dim);
        let narrower = config.hidden.len() < old.len()
            || old.iter().zip(&config.hidden).any(|(o, n)| n < o)
            || config.hidden[old.len()..].iter().any(|&n| n < last);
        if narrower {
            return refuse(
                "every layer must be at least as wide, added layers at least as wide as the last"
                    .into(),
            );
        }
        let mut net = Self::new_seeded(config, device, seed)?;
        // `carried`: how many leading inputs of the current layer are the old network's units.
        let mut carried = self.obs_dim;
        for (j, layer) in net.trunk.iter_mut().enumerate() {
            let [din, dout] = layer.weight.dims();
            let (mut w, mut b) = linear_host(layer)?;
            match self.trunk.get(j) {
                Some(src) => {
                    let ow = host(src.weight.val())?;
                    let od = old[j];
                    for i in 0..din {
                        for o in 0..od {
                            w[i * dout + o] = if i < carried { ow[i * od + o] } else { 0.0 };
                        }
                    }
                    if let Some(ob) = &src.bias {
                        b[..od].copy_from_slice(&host(ob.val())?);
                    }
                    carried = od;
                }
                None => {
                    for i in 0..din {
                        for o in 0..carried {
                            w[i * dout + o] = if i == o { 1.0 } else { 0.0 };
                        }
                    }
                    b[..carried].fill(0.0);
                }
            }
            set_linear(layer, w, b, device);
        }
        for (head, src) in [
            (&mut net.policy, &self.policy),
            (&mut net.value, &self.value),
        ] {
            let [din, dout] = head.weight.dims();
            let (ow, b) = linear_host(src)?;
            let mut w = vec![0.0; din * dout];
            w[..carried * dout].copy_from_slice(&ow[..carried * dout]);
            set_linear(head, w, b, device);
        }
        Ok(net)
    }

    /// The parameter-wise mean of networks of one shape (weight averaging, as
    /// in stochastic weight averaging over a run's snapshots). Networks of
    /// other shapes, or with LayerNorm, are refused.
    pub fn average(nets: &[&PolicyValueNet], device: &Device) -> Result<Self, NeuralError> {
        let Some(first) = nets.first() else {
            return Err(NeuralError::InvalidConfig("no networks to average".into()));
        };
        for n in nets {
            if !n.norms.is_empty()
                || n.hidden() != first.hidden()
                || (n.obs_dim, n.num_actions) != (first.obs_dim, first.num_actions)
            {
                return Err(NeuralError::InvalidConfig(format!(
                    "cannot average networks of shapes {}→{:?}→{} and {}→{:?}→{} (or with LayerNorm)",
                    first.obs_dim,
                    first.hidden(),
                    first.num_actions,
                    n.obs_dim,
                    n.hidden(),
                    n.num_actions
                )));
            }
        }
        let k = nets.len() as f32;
        let mean = |layer: &dyn Fn(&PolicyValueNet) -> &Linear| -> Result<(Vec<f32>, Vec<f32>), NeuralError> {
            let mut w: Vec<f32> = Vec::new();
            let mut b: Vec<f32> = Vec::new();
            for n in nets {
                let (lw, lb) = linear_host(layer(n))?;
                if w.is_empty() {
                    w = vec![0.0; lw.len()];
                    b = vec![0.0; lb.len()];
                }
                w.iter_mut().zip(&lw).for_each(|(a, x)| *a += x / k);
                b.iter_mut().zip(&lb).for_each(|(a, x)| *a += x / k);
            }
            Ok((w, b))
        };
        let mut net = (*first).clone();
        for j in 0..net.trunk.len() {
            let (w, b) = mean(&|n: &PolicyValueNet| &n.trunk[j])?;
            set_linear(&mut net.trunk[j], w, b, device);
        }
        let (w, b) = mean(&|n: &PolicyValueNet| &n.policy)?;
        set_linear(&mut net.policy, w, b, device);
        let (w, b) = mean(&|n: &PolicyValueNet| &n.value)?;
        set_linear(&mut net.value, w, b, device);
        Ok(net)
    }

    /// The same network reading a longer observation whose first `obs_dim()` values are the
    /// old ones: the input layer gets zero weights for the added values, so on any vector that
    /// extends an old one it computes exactly what the old network computed (used to load
    /// checkpoints of an earlier observation layout, [`uno_env::obs::LEGACY_OBS`]).
    pub fn widened_input(&self, obs_dim: usize, device: &Device) -> Result<Self, NeuralError> {
        let old = self.obs_dim;
        if obs_dim < old {
            return Err(NeuralError::InvalidConfig(format!(
                "cannot widen the input from {old} to {obs_dim} values"
            )));
        }
        let widen = |layer: &Linear| -> Result<Linear, NeuralError> {
            let [din, dout] = layer.weight.dims();
            debug_assert_eq!(din, old);
            let (mut w, b) = linear_host(layer)?;
            w.resize(obs_dim * dout, 0.0);
            let mut out = layer.clone();
            set_linear(&mut out, w, b, device);
            Ok(out)
        };
        let mut net = self.clone();
        match net.trunk.first_mut() {
            Some(first) => *first = widen(first)?,
            None => {
                net.policy = widen(&net.policy)?;
                net.value = widen(&net.value)?;
            }
        }
        net.obs_dim = obs_dim;
        Ok(net)
    }

    /// A network built from `params` alone, named as by [`PolicyValueNet::parameters`]
    /// but in any order: the shape ([`NetConfig`]) is read from the weights
    /// (`trunk.{i}.weight` gives the hidden widths, `norms.0.gamma` LayerNorm,
    /// `policy.weight` the input and action sizes), then the list is checked as by
    /// [`PolicyValueNet::with_parameters`]. For weights trained by another program.
    pub fn from_parameters(params: &[NamedParam], device: &Device) -> Result<Self, NeuralError> {
        let shape_of = |name: &str| -> Result<&[usize], NeuralError> {
            params
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.shape.as_slice())
                .ok_or_else(|| NeuralError::InvalidConfig(format!("parameter {name} is missing")))
        };
        let mut hidden = Vec::new();
        let mut first_in = None;
        while let Some(p) = params
            .iter()
            .find(|p| p.name == format!("trunk.{}.weight", hidden.len()))
        {
            match p.shape.as_slice() {
                [din, out] => {
                    first_in.get_or_insert(*din);
                    hidden.push(*out);
                }
                other => {
                    return Err(NeuralError::InvalidConfig(format!(
                        "parameter {} must be a matrix [in, out], got shape {other:?}",
                        p.name
                    )));
                }
            }
        }
        let (obs_dim, num_actions) = match shape_of("policy.weight")? {
            [din, a] => (first_in.unwrap_or(*din), *a),
            other => {
                return Err(NeuralError::InvalidConfig(format!(
                    "parameter policy.weight must be a matrix [in, actions], got shape {other:?}"
                )));
            }
        };
        let config = NetConfig {
            obs_dim,
            num_actions,
            layer_norm: params.iter().any(|p| p.name == "norms.0.gamma"),
            hidden,
        };
        let net = Self::new_seeded(&config, device, 0)?;
        // Into the network's own order; unknown names go last, where the check names them.
        let order = net.parameters()?;
        let rank = |name: &str| {
            order
                .iter()
                .position(|p| p.name == name)
                .unwrap_or(usize::MAX)
        };
        let mut sorted = params.to_vec();
        sorted.sort_by_key(|p| rank(&p.name));
        net.with_parameters(&sorted, device)
    }

    /// The same network with the weights `params`, the inverse of
    /// [`PolicyValueNet::parameters`]: the list must name every parameter in the
    /// same order with the same shape (e.g. weights edited on the host, or taken
    /// from another program that trained the same architecture). Values that are
    /// not finite or beyond ±[`MAX_WEIGHT`], or any other name, shape or count, are refused; nothing is changed
    /// then. The parameters keep their ids, so optimizer state stays attached.
    pub fn with_parameters(
        &self,
        params: &[NamedParam],
        device: &Device,
    ) -> Result<Self, NeuralError> {
        let expected = self.parameters()?;
        if params.len() != expected.len() {
            return Err(NeuralError::InvalidConfig(format!(
                "expected {} parameter tensors, got {}",
                expected.len(),
                params.len()
            )));
        }
        for (want, got) in expected.iter().zip(params) {
            if got.name != want.name || got.shape != want.shape {
                return Err(NeuralError::InvalidConfig(format!(
                    "parameter {} {:?} expected where {} {:?} was given",
                    want.name, want.shape, got.name, got.shape
                )));
            }
            let len: usize = want.shape.iter().product();
            if got.values.len() != len {
                return Err(NeuralError::InvalidConfig(format!(
                    "parameter {} has shape {:?} ({len} values) but {} values",
                    got.name,
                    got.shape,
                    got.values.len()
                )));
            }
            if let Some(i) = got.values.iter().position(|&v| !usable_weight(v)) {
                let v = got.values[i];
                let what = if v.is_finite() {
                    format!("beyond ±{MAX_WEIGHT:e}")
                } else {
                    "not finite".to_string()
                };
                return Err(NeuralError::InvalidConfig(format!(
                    "parameter {} holds a value that is {what} ({v:e} at index {i})",
                    got.name
                )));
            }
        }
        let mut net = self.clone();
        let mut it = params.iter();
        let mut next = || it.next().map(|p| p.values.clone()).unwrap_or_default();
        for i in 0..net.trunk.len() {
            let (w, b) = (next(), next());
            set_linear(&mut net.trunk[i], w, b, device);
            if let Some(norm) = net.norms.get_mut(i) {
                let (gamma, beta) = (next(), next());
                set_vector(&mut norm.gamma, gamma, device);
                match &mut norm.beta {
                    Some(b) => set_vector(b, beta, device),
                    // `parameters` lists a missing beta as zeros; it stays missing then.
                    None if beta.iter().all(|&v| v == 0.0) => {}
                    None => {
                        let mut b = Param::from_tensor(Tensor::<1>::zeros([beta.len()], device));
                        set_vector(&mut b, beta, device);
                        norm.beta = Some(b);
                    }
                }
            }
        }
        let (w, b) = (next(), next());
        set_linear(&mut net.policy, w, b, device);
        let (w, b) = (next(), next());
        set_linear(&mut net.value, w, b, device);
        Ok(net)
    }
}

/// A parameter tensor's values on the host.
fn host<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>, NeuralError> {
    super::policy::to_host(t.into_data())
}

/// A linear layer's weight (`[d_in, d_out]`, row-major) and bias (zeros when it has none),
/// on the host: the counterpart of [`set_linear`].
fn linear_host(layer: &Linear) -> Result<(Vec<f32>, Vec<f32>), NeuralError> {
    let bias = match &layer.bias {
        Some(b) => host(b.val())?,
        None => vec![0.0; layer.weight.dims()[1]],
    };
    Ok((host(layer.weight.val())?, bias))
}

/// Replaces a linear layer's weight (`[d_in, d_out]`, row-major) and bias.
/// The input width is `w.len() / b.len()`, so a layer may get more inputs.
/// The parameters keep their ids (seeded, or read from a checkpoint), so a
/// grown or widened network saves byte-identically run after run.
fn set_linear(layer: &mut Linear, w: Vec<f32>, b: Vec<f32>, device: &Device) {
    let dout = b.len();
    let din = w.len() / dout;
    let weight_id = layer.weight.id;
    let bias_id = layer.bias.as_ref().map(|b| b.id);
    layer.weight = Param::from_tensor(Tensor::<2>::from_data(
        TensorData::new(w, [din, dout]),
        device,
    ));
    layer.weight.id = weight_id;
    let mut bias = Param::from_tensor(Tensor::<1>::from_data(TensorData::new(b, [dout]), device));
    if let Some(id) = bias_id {
        bias.id = id;
    }
    layer.bias = Some(bias);
}

/// Replaces a vector parameter's values, keeping its id.
fn set_vector(param: &mut Param<Tensor<1>>, v: Vec<f32>, device: &Device) {
    let id = param.id;
    let n = v.len();
    *param = Param::from_tensor(Tensor::<1>::from_data(TensorData::new(v, [n]), device));
    param.id = id;
}

/// Forces the lazy initialisation of every float parameter.
struct Materialize;

/// Gives every parameter an id drawn from `seed` (burn draws them from the operating system), so
/// that a run repeated with the same seed writes byte-identical weight and optimizer files: the
/// ids are saved with the weights and key the optimizer's state.
struct SeededIds {
    next: u64,
}

impl SeededIds {
    fn new(seed: u64) -> Self {
        // SplitMix64's finaliser: nearby seeds give unrelated id ranges.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Self {
            next: z ^ (z >> 31),
        }
    }
}

impl ModuleMapper for SeededIds {
    fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        param.id = ParamId::from(self.next);
        self.next = self.next.wrapping_add(1);
        param
    }
}

impl ModuleVisitor for Materialize {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    fn outputs(net: &PolicyValueNet, x: &[f32], rows: usize) -> (Vec<f32>, Vec<f32>) {
        let d = net.obs_dim();
        let t = Tensor::<2>::from_data(TensorData::new(x.to_vec(), [rows, d]), &Device::flex());
        let (l, v) = net.forward(t);
        (host(l).expect("logits"), host(v).expect("values"))
    }

    fn config(hidden: &[usize]) -> NetConfig {
        NetConfig {
            obs_dim: 5,
            num_actions: 4,
            hidden: hidden.to_vec(),
            layer_norm: false,
        }
    }

    /// The forward pass computed by hand from [`PolicyValueNet::parameters`].
    fn forward_from_parameters(
        params: &[NamedParam],
        x: &[f32],
        rows: usize,
    ) -> (Vec<f32>, Vec<f32>) {
        let get = |name: &str| params.iter().find(|p| p.name == name);
        let dense = |h: &[f32], p: &str| -> Vec<f32> {
            let (w, b) = (
                get(&format!("{p}.weight")).unwrap(),
                get(&format!("{p}.bias")).unwrap(),
            );
            let (din, dout) = (w.shape[0], w.shape[1]);
            let mut y = Vec::with_capacity(rows * dout);
            for r in 0..rows {
                for o in 0..dout {
                    let dot: f32 = (0..din)
                        .map(|i| h[r * din + i] * w.values[i * dout + o])
                        .sum();
                    y.push(dot + b.values[o]);
                }
            }
            y
        };
        let mut h = x.to_vec();
        let mut i = 0;
        while get(&format!("trunk.{i}.weight")).is_some() {
            h = dense(&h, &format!("trunk.{i}"));
            if let Some(gamma) = get(&format!("norms.{i}.gamma")) {
                let beta = get(&format!("norms.{i}.beta")).unwrap();
                let d = gamma.shape[0];
                for row in h.chunks_mut(d) {
                    let mean = row.iter().sum::<f32>() / d as f32;
                    let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
                    let sd = (var + LAYER_NORM_EPSILON as f32).sqrt();
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = (*v - mean) / sd * gamma.values[j] + beta.values[j];
                    }
                }
            }
            h.iter_mut().for_each(|v| *v = v.max(0.0));
            i += 1;
        }
        (dense(&h, "policy"), dense(&h, "value"))
    }

    /// A seeded network has the same weights while other threads build networks
    /// (a checkpoint loaded for an opponent, another test): every construction draws
    /// under one lock. Before, an unseeded construction could draw from the device's
    /// generator between a seeding and its draws (a trainer test failed about one
    /// run in seven while another test loaded checkpoints in a loop).
    #[test]
    fn seeded_weights_do_not_depend_on_networks_built_by_other_threads() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let cfg = NetConfig {
            hidden: vec![32, 32],
            ..NetConfig::new(8, 4)
        };
        let dev = Device::flex();
        let weights = |net: PolicyValueNet| -> Vec<Vec<f32>> {
            let params = net.parameters().expect("parameters");
            params.into_iter().map(|p| p.values).collect()
        };
        let reference = weights(PolicyValueNet::new_seeded(&cfg, &dev, 7).expect("net"));
        let (stop, built) = (AtomicBool::new(false), AtomicUsize::new(0));
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let _ = PolicyValueNet::new(&cfg, &dev).expect("net");
                    built.fetch_add(1, Ordering::Relaxed);
                }
            });
            // Until the other thread has built 300 networks alongside.
            let mut k = 0;
            while built.load(Ordering::Relaxed) < 300 && k < 1_000_000 {
                let again = weights(PolicyValueNet::new_seeded(&cfg, &dev, 7).expect("net"));
                if again != reference {
                    stop.store(true, Ordering::Relaxed);
                    panic!("construction {k} drew other weights");
                }
                k += 1;
            }
            stop.store(true, Ordering::Relaxed);
        });
    }

    #[test]
    fn the_named_parameters_compute_the_network() {
        let dev = Device::flex();
        let x: Vec<f32> = (0..5 * 7)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) / 3.0)
            .collect();
        for (hidden, layer_norm) in [(&[8, 6][..], false), (&[8, 6][..], true), (&[][..], false)] {
            let mut cfg = config(hidden);
            cfg.layer_norm = layer_norm;
            let mut net = PolicyValueNet::new_seeded(&cfg, &dev, 3).expect("net");
            // LayerNorm starts as gamma 1, beta 0: give them other values, so
            // that a swapped or dropped one shows.
            for (k, norm) in net.norms.iter_mut().enumerate() {
                let [d] = norm.gamma.dims();
                let g: Vec<f32> = (0..d).map(|j| 0.5 + 0.1 * (j + k) as f32).collect();
                let b: Vec<f32> = (0..d).map(|j| 0.2 - 0.05 * j as f32).collect();
                norm.gamma =
                    Param::from_tensor(Tensor::<1>::from_data(TensorData::new(g, [d]), &dev));
                norm.beta = Some(Param::from_tensor(Tensor::<1>::from_data(
                    TensorData::new(b, [d]),
                    &dev,
                )));
            }
            let params = net.parameters().expect("parameters");
            let total: usize = params.iter().map(|p| p.values.len()).sum();
            assert_eq!(total, cfg.num_params(), "{hidden:?}");
            for p in &params {
                assert_eq!(
                    p.values.len(),
                    p.shape.iter().product::<usize>(),
                    "{}",
                    p.name
                );
            }
            let (l0, v0) = outputs(&net, &x, 7);
            let (l, v) = forward_from_parameters(&params, &x, 7);
            let diff = l.iter().chain(&v).zip(l0.iter().chain(&v0));
            let max = diff.map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(
                max < 1e-4,
                "{hidden:?} layer_norm {layer_norm}: differ by {max}"
            );
        }
    }

    #[test]
    fn a_grown_network_computes_the_same_function() {
        let dev = Device::flex();
        let small = PolicyValueNet::new_seeded(&config(&[8, 6]), &dev, 3).expect("net");
        let x: Vec<f32> = (0..5 * 7)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) / 3.0)
            .collect();
        let (l0, v0) = outputs(&small, &x, 7);
        for hidden in [&[8, 6][..], &[16, 6], &[8, 10], &[12, 9, 9], &[8, 6, 6, 20]] {
            let big = small.grown(&config(hidden), &dev, 4).expect("grow");
            assert_eq!(big.hidden(), hidden);
            let (l, v) = outputs(&big, &x, 7);
            let diff = l.iter().chain(&v).zip(l0.iter().chain(&v0));
            let max = diff.map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(max < 1e-5, "{hidden:?}: outputs differ by {max}");
        }
        // The new units are live: their incoming weights are not zero.
        let big = small.grown(&config(&[16, 6]), &dev, 4).expect("grow");
        let w = host(big.trunk[0].weight.val()).expect("w");
        assert!((0..5).any(|i| (8..16).any(|o| w[i * 16 + o] != 0.0)));
    }

    #[test]
    fn a_widened_input_ignores_the_added_values() {
        let dev = Device::flex();
        for (hidden, layer_norm) in [(&[8, 6][..], false), (&[8, 6][..], true), (&[][..], false)] {
            let mut cfg = config(hidden);
            cfg.layer_norm = layer_norm;
            let small = PolicyValueNet::new_seeded(&cfg, &dev, 3).expect("net");
            let old: Vec<f32> = (0..5 * 7)
                .map(|i| ((i * 37 % 11) as f32 - 5.0) / 3.0)
                .collect();
            let (l0, v0) = outputs(&small, &old, 7);
            let wide = small.widened_input(9, &dev).expect("widen");
            assert_eq!(wide.obs_dim(), 9);
            // Each row: the old five values, then four arbitrary new ones.
            let new: Vec<f32> = old
                .chunks(5)
                .enumerate()
                .flat_map(|(r, row)| {
                    let extra = [r as f32 + 1.0, -2.5, 7.0, 0.25];
                    row.iter().copied().chain(extra)
                })
                .collect();
            let (l, v) = outputs(&wide, &new, 7);
            assert_eq!((l, v), (l0, v0), "{hidden:?} layer_norm {layer_norm}");
        }
        let small = PolicyValueNet::new_seeded(&config(&[8]), &dev, 3).expect("net");
        assert!(small.widened_input(4, &dev).is_err(), "narrower input");
    }

    /// Every parameter's id, in visiting order.
    fn ids(net: &PolicyValueNet) -> Vec<ParamId> {
        struct Ids(Vec<ParamId>);
        impl ModuleVisitor for Ids {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                self.0.push(param.id);
            }
        }
        let mut v = Ids(Vec::new());
        net.visit(&mut v);
        v.0
    }

    #[test]
    fn grown_and_widened_networks_keep_deterministic_parameter_ids() {
        // The ids are saved with the weights: ids from the operating system
        // made `--init` / `--grow` runs differ byte for byte.
        let dev = Device::flex();
        let small = PolicyValueNet::new_seeded(&config(&[8, 6]), &dev, 3).expect("net");
        let grow = || small.grown(&config(&[12, 9, 9]), &dev, 4).expect("grow");
        assert_eq!(ids(&grow()), ids(&grow()));
        let fresh = PolicyValueNet::new_seeded(&config(&[12, 9, 9]), &dev, 4).expect("net");
        assert_eq!(
            ids(&grow()),
            ids(&fresh),
            "a grown network has the seed's ids"
        );
        let wide = small.widened_input(9, &dev).expect("widen");
        assert_eq!(ids(&wide), ids(&small), "a widened network keeps its ids");
    }

    #[test]
    fn an_average_is_the_parameter_wise_mean() {
        let dev = Device::flex();
        let a = PolicyValueNet::new_seeded(&config(&[8, 6]), &dev, 3).expect("net");
        let b = PolicyValueNet::new_seeded(&config(&[8, 6]), &dev, 4).expect("net");
        let x: Vec<f32> = (0..5 * 7)
            .map(|i| ((i * 13 % 7) as f32 - 3.0) / 2.0)
            .collect();
        // The mean of copies of one network is that network.
        let same = PolicyValueNet::average(&[&a, &a, &a], &dev).expect("avg");
        let ((l, v), (l0, v0)) = (outputs(&same, &x, 7), outputs(&a, &x, 7));
        let max = l.iter().chain(&v).zip(l0.iter().chain(&v0));
        let max = max.map(|(p, q)| (p - q).abs()).fold(0.0, f32::max);
        assert!(max < 1e-6, "outputs differ by {max}");
        let ab = PolicyValueNet::average(&[&a, &b], &dev).expect("avg");
        for (m, (p, q)) in [
            (&ab.trunk[0], (&a.trunk[0], &b.trunk[0])),
            (&ab.trunk[1], (&a.trunk[1], &b.trunk[1])),
            (&ab.policy, (&a.policy, &b.policy)),
            (&ab.value, (&a.value, &b.value)),
        ] {
            let w = host(m.weight.val()).expect("w");
            let (wp, wq) = (
                host(p.weight.val()).expect("w"),
                host(q.weight.val()).expect("w"),
            );
            assert!(
                w.iter()
                    .zip(wp.iter().zip(&wq))
                    .all(|(m, (p, q))| (m - (p + q) / 2.0).abs() < 1e-6)
            );
            assert!(wp != wq, "the two networks differ");
        }
        let other = PolicyValueNet::new_seeded(&config(&[8, 5]), &dev, 3).expect("net");
        let err = PolicyValueNet::average(&[&a, &other], &dev).expect_err("shapes");
        assert!(err.to_string().contains("cannot average"), "{err}");
        assert!(PolicyValueNet::average(&[], &dev).is_err());
    }

    #[test]
    fn growth_that_cannot_preserve_the_function_is_refused() {
        let dev = Device::flex();
        let small = PolicyValueNet::new_seeded(&config(&[8, 6]), &dev, 3).expect("net");
        for hidden in [&[8][..], &[4, 6], &[8, 6, 5]] {
            let err = small.grown(&config(hidden), &dev, 4).expect_err("narrower");
            assert!(err.to_string().contains("cannot grow"), "{err}");
        }
        let mut ln = config(&[8, 6]);
        ln.layer_norm = true;
        assert!(small.grown(&ln, &dev, 4).is_err());
        let mut other = config(&[8, 6]);
        other.obs_dim = 6;
        assert!(small.grown(&other, &dev, 4).is_err());
    }
    #[test]
    fn with_parameters_inverts_parameters_and_refuses_what_does_not_fit() {
        let dev = Device::flex();
        let x: Vec<f32> = (0..15).map(|i| (i as f32 * 0.37).sin()).collect();
        for layer_norm in [false, true] {
            let cfg = NetConfig {
                layer_norm,
                ..config(&[6, 3])
            };
            let net = PolicyValueNet::new_seeded(&cfg, &dev, 3).expect("net");
            let params = net.parameters().expect("parameters");
            let same = net.with_parameters(&params, &dev).expect("round trip");
            assert_eq!(outputs(&same, &x, 3), outputs(&net, &x, 3));
            assert_eq!(same.parameters().expect("parameters"), params);

            // An edit reaches the forward pass: +1 on the value bias moves every value by 1.
            let mut edited = params.clone();
            let vb = edited.iter_mut().find(|p| p.name == "value.bias").unwrap();
            vb.values[0] += 1.0;
            let moved = net.with_parameters(&edited, &dev).expect("edited");
            let ((l0, v0), (l1, v1)) = (outputs(&net, &x, 3), outputs(&moved, &x, 3));
            assert_eq!(l0, l1);
            for (a, b) in v0.iter().zip(&v1) {
                assert!((b - a - 1.0).abs() < 1e-5, "{a} -> {b}");
            }

            let refused = |ps: &[NamedParam], needle: &str| {
                let e = net.with_parameters(ps, &dev).expect_err(needle).to_string();
                assert!(e.contains(needle), "{e:?} lacks {needle:?}");
            };
            refused(&params[1..], "parameter tensors");
            let mut swapped = params.clone();
            swapped.swap(0, 1);
            refused(&swapped, "trunk.0.weight");
            let mut reshaped = params.clone();
            reshaped[0].shape = vec![6, 5];
            refused(&reshaped, "trunk.0.weight [5, 6] expected");
            let mut short = params.clone();
            short[1].values.pop();
            refused(&short, "but 5 values");
            let mut nan = params.clone();
            nan.last_mut().unwrap().values[0] = f32::NAN;
            refused(&nan, "not finite");
            let mut huge = params.clone();
            huge[0].values[2] = -1e35;
            refused(
                &huge,
                "trunk.0.weight holds a value that is beyond ±1e6 (-1e35 at index 2)",
            );
            // The bound itself is a weight.
            let mut large = params.clone();
            large[0].values[2] = MAX_WEIGHT;
            assert!(net.with_parameters(&large, &dev).is_ok());
        }
    }
    #[test]
    fn from_parameters_reads_the_shape_from_the_weights() {
        let dev = Device::flex();
        let x: Vec<f32> = (0..10).map(|i| (i as f32 * 0.61).cos()).collect();
        for (hidden, layer_norm) in [(vec![], false), (vec![7], false), (vec![6, 3], true)] {
            let cfg = NetConfig {
                layer_norm,
                ..config(&hidden)
            };
            let net = PolicyValueNet::new_seeded(&cfg, &dev, 9).expect("net");
            let params = net.parameters().expect("parameters");
            let mut shuffled = params.clone();
            shuffled.reverse();
            let rebuilt = PolicyValueNet::from_parameters(&shuffled, &dev).expect("rebuilt");
            assert_eq!(rebuilt.config(), cfg);
            assert_eq!(rebuilt.hidden(), hidden);
            assert_eq!((rebuilt.obs_dim(), rebuilt.num_actions()), (5, 4));
            assert_eq!(rebuilt.parameters().expect("parameters"), params);
            assert_eq!(outputs(&rebuilt, &x, 2), outputs(&net, &x, 2));
        }
        let net = PolicyValueNet::new_seeded(&config(&[6]), &dev, 9).expect("net");
        let params = net.parameters().expect("parameters");
        let without = |name: &str| -> Vec<NamedParam> {
            params.iter().filter(|p| p.name != name).cloned().collect()
        };
        let err = |ps: &[NamedParam]| {
            PolicyValueNet::from_parameters(ps, &dev)
                .expect_err("refused")
                .to_string()
        };
        assert!(err(&without("policy.weight")).contains("policy.weight is missing"));
        // Without its first layer's weight the list reads as a linear network whose
        // policy head takes 6 inputs; the unknown trunk.0.bias is then refused.
        assert!(err(&without("trunk.0.weight")).contains("parameter tensors"));
        let mut flat = params.clone();
        flat[0].shape = vec![30];
        assert!(err(&flat).contains("must be a matrix"));
    }
}
