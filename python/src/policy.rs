//! `uno_attack.Policy`: a checkpoint's network for Python code — its logits and
//! values on any batch of observations, and its parameters as numpy arrays (to
//! analyse it, use it as a teacher or baseline, or port it to another framework),
//! and back: weights trained elsewhere in the same layout become a policy that
//! saves as a checkpoint for the arena, `play` and the `checkpoint:` agent.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyFileExistsError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use uno_agents::neural::{
    CheckpointMeta, NamedParam, NeuralPolicy, check_meta_compatible, save_checkpoint,
};
use uno_env::Game;
use uno_env::{NUM_ACTIONS, OBS_SIZE, OBS_VERSION};

use crate::{contiguous, fork_safe, loads, read_array, table_from_py, value_error};

/// Rows per piece of `Policy.forward`: Ctrl-C is seen between pieces (tens of ms each).
const FORWARD_CHUNK: usize = 4096;

/// A checkpoint's policy/value network (`Policy(path)`), evaluated in Rust.
#[pyclass(name = "Policy", module = "uno_attack._core", frozen)]
pub(crate) struct PyPolicy {
    policy: NeuralPolicy,
    meta: CheckpointMeta,
    /// The checkpoint it was loaded from (`None` for one built by `from_parameters`).
    path: Option<PathBuf>,
    /// Whether its parameters were replaced (`with_parameters`) since it was loaded.
    edited: bool,
}

/// `obj` as a C-contiguous array of `dtype` with two dimensions (one row is
/// made a batch of one), and whether it was one row.
fn rows<'py>(
    obj: &Bound<'py, PyAny>,
    dtype: &str,
    what: &str,
    width: usize,
) -> PyResult<(Bound<'py, PyAny>, bool)> {
    let arr = contiguous(obj, dtype, &format!("{what} must be an array of numbers"))?;
    let ndim: usize = arr.getattr("ndim")?.extract()?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let one = ndim == 1;
    if !(one || ndim == 2) || shape.last() != Some(&width) {
        // The caller's shape (numpy makes a 0-d array 1-d on the way), as Python writes it.
        let given: Vec<usize> = obj
            .getattr("shape")
            .and_then(|s| s.extract())
            .unwrap_or(shape);
        let given = match given.as_slice() {
            [d] => format!("({d},)"),
            dims => format!(
                "({})",
                dims.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(value_error(format!(
            "{what} must have shape ({width},) or (n, {width}), got {given}"
        )));
    }
    let arr = if one {
        arr.call_method1("reshape", ((1usize, width),))?
    } else {
        arr
    };
    Ok((arr, one))
}

#[pymethods]
impl PyPolicy {
    /// `Policy(path)`: loads a checkpoint directory (a `ValueError` names what is wrong
    /// with a missing, corrupt or mismatched one).
    #[new]
    fn new(path: PathBuf) -> PyResult<Self> {
        let (policy, meta) =
            fork_safe(|| NeuralPolicy::load(&path, Some((OBS_VERSION, OBS_SIZE, NUM_ACTIONS))))
                .map_err(|e| value_error(format!("checkpoint {}: {e}", path.display())))?;
        Ok(PyPolicy {
            policy,
            meta,
            path: Some(path),
            edited: false,
        })
    }

    /// The checkpoint directory it was loaded from (`None` for a policy built by
    /// `from_parameters`).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// Observation length the network reads (`OBS_SIZE`).
    #[getter]
    fn obs_dim(&self) -> usize {
        self.policy.obs_dim()
    }

    /// Number of logits (`NUM_ACTIONS`).
    #[getter]
    fn num_actions(&self) -> usize {
        self.policy.num_actions()
    }

    /// Widths of the hidden layers.
    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.policy.net().hidden()
    }

    /// Whether each hidden layer has a LayerNorm before its ReLU.
    #[getter]
    fn layer_norm(&self) -> bool {
        self.meta.net.layer_norm
    }

    /// The checkpoint's metadata (`meta.json`) as a dict, as loaded: a checkpoint of an
    /// older observation version is migrated, and its `obs_dim` / `obs_version` say so.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.meta).map_err(value_error)?;
        loads(py, &json)
    }

    /// `(logits, values)` for observations `obs` (`[n, OBS_SIZE]`, or one row): float32
    /// `[n, NUM_ACTIONS]` and `[n]` (one row in: `[NUM_ACTIONS]` and a float). With `mask`
    /// (`[n, NUM_ACTIONS]`, non-zero = legal) illegal actions get a logit of -1e9, as in the
    /// `checkpoint:` agent (which also leaves out a press that can bring no card while a
    /// card can be played; see docs/agents.md). A value of `obs` that is not finite
    /// raises `ValueError`. A large batch runs in pieces of 4,096 rows, and Ctrl-C
    /// (`KeyboardInterrupt`) stops it between two pieces.
    #[pyo3(signature = (obs, mask = None))]
    fn forward<'py>(
        &self,
        py: Python<'py>,
        obs: &Bound<'py, PyAny>,
        mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (d, a) = (self.policy.obs_dim(), self.policy.num_actions());
        let (obs_arr, one) = rows(obs, "float32", "obs", d)?;
        let obs_arr: PyReadonlyArray2<'py, f32> = read_array(&obs_arr, "obs")?;
        let n = obs_arr.shape()[0];
        let legal: Vec<bool> = match mask {
            Some(m) => {
                let (m_arr, _) = rows(m, "bool", "mask", a)?;
                let m_arr: PyReadonlyArray2<'py, bool> = read_array(&m_arr, "mask")?;
                if m_arr.shape()[0] != n {
                    return Err(value_error(format!(
                        "mask has {} rows for {n} observations",
                        m_arr.shape()[0]
                    )));
                }
                m_arr.as_slice().map_err(value_error)?.to_vec()
            }
            None => vec![true; n * a],
        };
        let x = obs_arr.as_slice().map_err(value_error)?;
        // A NaN or infinity would come out as NaN logits and values, silently.
        if let Some(k) = x.iter().position(|v| !v.is_finite()) {
            return Err(value_error(format!(
                "obs holds {} at row {}, column {}: observations are finite",
                x[k],
                k / d,
                k % d
            )));
        }
        let mut logits = vec![0.0f32; n * a];
        let mut values = vec![0.0f32; n];
        // In pieces of FORWARD_CHUNK rows, with Python's signal handlers run between them, so
        // Ctrl-C stops a long batch within a piece. Rows are independent: the logits are the
        // ones a single call gives; a value may differ in its last bits, as values of one row
        // do between batch sizes anyway (the backend's matrix product for the 1-wide head).
        let pieces = logits
            .chunks_mut(FORWARD_CHUNK * a)
            .zip(values.chunks_mut(FORWARD_CHUNK))
            .zip(
                x.chunks(FORWARD_CHUNK * d)
                    .zip(legal.chunks(FORWARD_CHUNK * a)),
            );
        for ((l, v), (x, m)) in pieces {
            let rows = v.len();
            py.detach(|| fork_safe(|| self.policy.forward_batch(x, m, rows, l, Some(v))))
                .map_err(value_error)?;
            py.check_signals()?;
        }
        if one {
            let v = values[0];
            return Ok((
                PyArray1::from_vec(py, logits).into_any(),
                v.into_pyobject(py)?.into_any(),
            ));
        }
        let logits = PyArray1::from_vec(py, logits).reshape([n, a])?;
        Ok((logits.into_any(), PyArray1::from_vec(py, values).into_any()))
    }

    /// The network's parameters as `{name: float32 array}` in the order of the forward pass:
    /// per hidden layer `i`, `trunk.{i}.weight` `[in, out]` and `trunk.{i}.bias` (with
    /// LayerNorm, `norms.{i}.gamma`, `norms.{i}.beta`, epsilon 1e-5, biased variance), each
    /// followed by a ReLU; then `policy.weight` `[last, NUM_ACTIONS]`, `policy.bias`,
    /// `value.weight` `[last, 1]`, `value.bias`. A layer computes `x @ weight + bias`.
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let params = fork_safe(|| self.policy.net().parameters()).map_err(value_error)?;
        let out = PyDict::new(py);
        for p in params {
            let arr = PyArray1::from_vec(py, p.values);
            let arr = match p.shape.as_slice() {
                [r, c] => arr.reshape([*r, *c])?.into_any(),
                _ => arr.into_any(),
            };
            out.set_item(p.name, arr)?;
        }
        Ok(out)
    }

    /// A new `Policy` computing with the weights `params` (`{name: array}`, the layout of
    /// `parameters()`: every name, each array of its shape, any float or integer dtype,
    /// finite values within ±1e6), e.g. a port trained in PyTorch or JAX. A missing or
    /// unknown name, a wrong shape or a value that is not finite or beyond ±1e6 raises
    /// `ValueError`; this policy is unchanged either way.
    fn with_parameters(&self, params: &Bound<'_, PyDict>) -> PyResult<PyPolicy> {
        let expected = fork_safe(|| self.policy.net().parameters()).map_err(value_error)?;
        let mut unknown: Vec<String> = Vec::new();
        for key in params.keys() {
            let name: String = key
                .extract()
                .map_err(|_| value_error(format!("parameter names are strings, got {key}")))?;
            if !expected.iter().any(|p| p.name == name) {
                unknown.push(name);
            }
        }
        if !unknown.is_empty() {
            return Err(value_error(format!(
                "unknown parameter(s) {unknown:?}; this network has {:?}",
                expected.iter().map(|p| &p.name).collect::<Vec<_>>()
            )));
        }
        let mut given = Vec::with_capacity(expected.len());
        for want in expected {
            let Some(obj) = params.get_item(&want.name)? else {
                return Err(value_error(format!("parameter {} is missing", want.name)));
            };
            let p = named_param(&want.name, &obj)?;
            if p.shape != want.shape {
                return Err(value_error(format!(
                    "parameter {} must have shape {:?}, got {:?}",
                    want.name, want.shape, p.shape
                )));
            }
            given.push(p);
        }
        let policy = fork_safe(|| self.policy.with_parameters(&given)).map_err(value_error)?;
        Ok(PyPolicy {
            policy,
            meta: self.meta.clone(),
            path: self.path.clone(),
            edited: true,
        })
    }

    /// A new `Policy` from weights alone (`{name: array}` in the layout of
    /// `parameters()`; the hidden widths, LayerNorm and sizes are read from the shapes:
    /// no `trunk.*` entries is a linear policy) for the table `rules` / `players` (as
    /// `Game` takes them), which its `meta` and a saved checkpoint record. The input must
    /// be `OBS_SIZE` wide and the policy head `NUM_ACTIONS`; anything else, a name out of
    /// place or a value that is not finite raises `ValueError`.
    #[staticmethod]
    #[pyo3(signature = (params, rules = None, players = None))]
    fn from_parameters(
        params: &Bound<'_, PyDict>,
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyPolicy> {
        let (rules, players) = table_from_py(rules, players)?;
        Game::new(rules.clone(), players).map_err(value_error)?;
        let mut given = Vec::with_capacity(params.len());
        for (key, obj) in params.iter() {
            let name: String = key
                .extract()
                .map_err(|_| value_error(format!("parameter names are strings, got {key}")))?;
            given.push(named_param(&name, &obj)?);
        }
        let policy = fork_safe(|| NeuralPolicy::from_parameters(&given)).map_err(value_error)?;
        let net = policy.net();
        if (net.obs_dim(), net.num_actions()) != (OBS_SIZE, NUM_ACTIONS) {
            return Err(value_error(format!(
                "a policy reads {OBS_SIZE} observation values and gives {NUM_ACTIONS} logits; \
                 these weights have {} and {}",
                net.obs_dim(),
                net.num_actions()
            )));
        }
        let mut meta = CheckpointMeta::new(rules.name.clone(), players, OBS_VERSION, net.config());
        meta.rules_toml = Some(rules.to_toml());
        Ok(PyPolicy {
            policy,
            meta,
            path: None,
            edited: true,
        })
    }

    /// Checks that this network was trained for the table `rules` / `players` (as `Game`
    /// takes them), as `uno-attack arena` and `checkpoint:` agents do: `ValueError` when
    /// not (other rules, or other cards under the same name), else the notes, one line
    /// each (another table size, other settings of the same rules; empty when none).
    #[pyo3(signature = (rules = None, players = None))]
    fn check_table(
        &self,
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<String>> {
        let (rules, players) = table_from_py(rules, players)?;
        let game = Game::new(rules, players).map_err(value_error)?;
        let shown = match &self.path {
            Some(p) => p.display().to_string(),
            None => "(from parameters)".to_string(),
        };
        let notes = check_meta_compatible(&self.meta, &shown, &game).map_err(value_error)?;
        Ok(notes.map_or_else(Vec::new, |n| n.lines().map(str::to_string).collect()))
    }

    /// Writes this network as a checkpoint directory `path` (`model.bpk` and `meta.json`,
    /// each written atomically; the directory is created if needed), which
    /// `Policy(path)`, `checkpoint:path` agents and `uno-attack arena` / `play` load.
    /// The metadata is the loaded checkpoint's; after `with_parameters` its evaluation
    /// results are dropped and `trained_with` says where the weights came from (with
    /// `note`, a free-form description such as how they were trained). A directory
    /// that already holds files (a checkpoint, a training run) is refused with
    /// `FileExistsError` unless `overwrite=True`; nothing is written then.
    #[pyo3(signature = (path, note = None, overwrite = false))]
    fn save(
        &self,
        py: Python<'_>,
        path: PathBuf,
        note: Option<String>,
        overwrite: bool,
    ) -> PyResult<()> {
        if !overwrite {
            refuse_a_directory_in_use(&path)?;
        }
        let mut meta = self.meta.clone();
        if self.edited || note.is_some() {
            let before = std::mem::take(&mut meta.trained_with);
            let mut with = serde_json::json!({
                "parameters_from_python": self.edited,
                "note": note,
            });
            if let Some(from) = &self.path {
                with["from"] = from.display().to_string().into();
                with["before"] = before;
            }
            meta.trained_with = with;
        }
        if self.edited {
            meta.eval = serde_json::json!({});
        }
        py.detach(|| fork_safe(|| save_checkpoint(&path, self.policy.net(), &meta)))
            .map_err(|e| value_error(format!("checkpoint {}: {e}", path.display())))
    }

    fn __repr__(&self) -> String {
        let from = match &self.path {
            Some(p) => format!("{:?}", p.display().to_string()),
            None => "from parameters".to_string(),
        };
        format!(
            "Policy({from}: {} -> {:?} -> {} actions, trained for {} at {} players)",
            self.policy.obs_dim(),
            self.policy.net().hidden(),
            self.policy.num_actions(),
            self.meta.rules,
            self.meta.players
        )
    }
}

/// `FileExistsError` when `path` is a directory that holds anything, naming a
/// few of its entries (so that `save` does not replace a checkpoint unasked).
fn refuse_a_directory_in_use(path: &Path) -> PyResult<()> {
    let Ok(entries) = std::fs::read_dir(path) else {
        return Ok(()); // missing (created by the save) or not a directory (its error)
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let more = names.len().saturating_sub(3);
    names.truncate(3);
    let mut held = names.join(", ");
    if more > 0 {
        held.push_str(&format!(" and {more} more"));
    }
    Err(PyFileExistsError::new_err(format!(
        "checkpoint {}: the directory already holds {held}; pass overwrite=True to \
         write the checkpoint there anyway (its model.bpk and meta.json are replaced)",
        path.display()
    )))
}

/// One parameter from Python: `obj` as float32 values with its shape.
fn named_param(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<NamedParam> {
    let arr = contiguous(
        obj,
        "float32",
        &format!("parameter {name} must be an array of numbers"),
    )?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let values: Vec<f32> = arr.call_method1("reshape", (-1,))?.extract()?;
    Ok(NamedParam {
        name: name.to_string(),
        shape,
        values,
    })
}
