//! `uno_attack._core`: the pyo3 extension behind the `uno_attack` Python package.
//!
//! It binds the `uno-env` crate without re-implementing any rule: `PyGame`
//! and `PyState` expose the engine (OpenSpiel-style game / state split),
//! `PyVecEnv` wraps the vectorized core and lets it write straight into
//! numpy arrays that Python owns (allocated once, same objects every step, the
//! GIL released while the games run), and `PyAgent` exposes the built-in
//! agents of `uno-agents` (the burn-backed `checkpoint:` agent included) for
//! the Gymnasium opponents. Dicts cross the boundary as JSON through Python's
//! `json` module, so 128-bit card sets stay exact. The Gymnasium and
//! PettingZoo wrappers are plain Python in `python/uno_attack/`.

#![warn(missing_docs)]

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{
    PyIndexError, PyMemoryError, PyOverflowError, PyTypeError, PyUserWarning, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple, PyType,
};
use std::sync::{Arc, Mutex};
use uno_env::obs::{ORACLE_SIZE, PIECES, encode, encode_oracle, write_mask};
use uno_env::vec_env::{BatchMut, terminal_rewards};
use uno_env::{
    Action, EnvConfig, Episode, EventLog, Game, MAX_PLAYERS, NUM_ACTIONS, OBS_SIZE, OBS_VERSION,
    PRESETS, RewardMode, Rules, Scenario, State, VecEnv,
};

mod policy;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A `VecEnv` that could not be built: `MemoryError` when memory ran out, else `ValueError`.
fn env_error(e: uno_env::ConfigError) -> PyErr {
    match e {
        uno_env::ConfigError::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
        e => value_error(e),
    }
}

/// A single-agent `VecEnv` that could not be built: `MemoryError` when memory ran out, else `ValueError`.
fn solo_env_error(e: uno_agents::AgentError) -> PyErr {
    match e {
        uno_agents::AgentError::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
        e => value_error(e),
    }
}

/// The process that loaded the extension (set when the module is initialised).
static LOADED_IN: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

/// A rayon pool of this process's own, for a `fork()`ed child (see [`fork_safe`]).
static CHILD_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// Runs `f`, which may run the networks' kernels (burn's CPU backend and its
/// matrix products spread large batches over rayon's global pool), so that it
/// cannot hang in a `fork()`ed child. The global pool is created once per
/// process, and a child forked after the parent created it inherits the pool
/// without its threads: work handed to it would wait forever (a
/// `multiprocessing` worker with the `fork` start method, after a large
/// `Policy.forward` or a `checkpoint:` opponent in the parent). In the process
/// that loaded the extension `f` runs as is; in any other (a forked child)
/// it runs in a pool of that process's own, so the kernels use that pool.
pub(crate) fn fork_safe<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pid = std::process::id();
    if LOADED_IN.get().is_none_or(|&p| p == pid) {
        return f();
    }
    let pool = {
        // A lock poisoned by a panic still holds a usable pool (or none).
        let mut slot = CHILD_POOL.lock().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Some((p, pool)) if *p == pid => Some(pool.clone()),
            // None yet, or the parent's (this child forked from a child).
            _ => rayon::ThreadPoolBuilder::new()
                .thread_name(|i| format!("uno-attack-fork-{i}"))
                .build()
                .ok()
                .map(|pool| {
                    let pool = Arc::new(pool);
                    // A parent's pool is left as it is (its threads are not here).
                    if let Some(old) = slot.replace((pid, pool.clone())) {
                        std::mem::forget(old);
                    }
                    pool
                }),
        }
    };
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// The error for an array that another thread holds while this call needs it
/// (numpy's borrow flags, which the env's `reset` / `step` and `Policy.forward`
/// set while they run with the GIL released).
fn busy(what: &str, e: numpy::BorrowError) -> PyErr {
    match e {
        numpy::BorrowError::AlreadyBorrowed => pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{what} is in use by a call running in another thread (a VecEnv reset or step writing \
             its buffers, or a Policy.forward reading them, with the GIL released): call this \
             when that call has returned, or pass a copy"
        )),
        other => value_error(format!("{what}: {other}")),
    }
}

/// `arr` (already of `T` and `D`, C-contiguous) read-only for Rust, or
/// [`busy`] when another thread's call holds it.
fn read_array<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<numpy::PyReadonlyArray<'py, T, D>> {
    arr.cast::<numpy::PyArray<T, D>>()?
        .try_readonly()
        .map_err(|e| busy(what, e))
}

/// `json.dumps`'s `default` hook: a numpy scalar (`np.int64(7)`, `np.float32`,
/// `np.bool_`, as parameter sweeps produce them) becomes its Python value;
/// anything else is json's own TypeError.
#[pyfunction]
fn json_default<'py>(o: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if is_numpy_scalar(o)? {
        return o.call_method0("item");
    }
    Err(PyTypeError::new_err(format!(
        "Object of type {} is not JSON serializable",
        type_name(o)
    )))
}

/// Whether `o` is a numpy scalar (`np.int64(7)`, `np.bool_`, …): its type
/// comes from numpy and it has `item()`, which gives its Python value.
fn is_numpy_scalar(o: &Bound<'_, PyAny>) -> PyResult<bool> {
    let module: String = o
        .get_type()
        .getattr("__module__")?
        .extract()
        .unwrap_or_default();
    Ok(module == "numpy" && o.hasattr("item")?)
}

/// Keyword arguments for `json.dumps`: numpy scalars as Python values
/// ([`json_default`]), and no NaN or infinity (`allow_nan=False`).
fn dumps_kwargs<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    kwargs.set_item("default", wrap_pyfunction!(json_default, py)?)?;
    Ok(kwargs)
}

/// `json.dumps(obj)` (see [`dumps_kwargs`]).
fn dumps(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = obj.py();
    py.import("json")?
        .call_method("dumps", (obj,), Some(&dumps_kwargs(py)?))?
        .extract()
}

/// `json.loads(text)`.
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A dotted path into a rules dict (`options.mega_hit`, `deck[2]`), for messages.
fn key_path(path: &[String]) -> String {
    let mut out = String::new();
    for k in path {
        if !k.starts_with('[') && !out.is_empty() {
            out.push('.');
        }
        out.push_str(k);
    }
    out
}

/// Walks a Python rules dict before it becomes JSON: a non-finite float is a
/// ValueError naming its key, and the paths of `None` values are collected
/// (`None` inside a list is a ValueError at once).
fn scan_rules_dict(
    obj: &Bound<'_, PyAny>,
    path: &mut Vec<String>,
    nulls: &mut Vec<Vec<String>>,
) -> PyResult<()> {
    // A rules dict is a few levels deep; a deeper one is a mistake or a
    // cycle (`d["options"] = d`), refused before the recursion overflows.
    const MAX_DEPTH: usize = 32;
    if path.len() > MAX_DEPTH {
        return Err(value_error(format!(
            "invalid rules dict: nested more than {MAX_DEPTH} levels deep at `{}…` (a dict or list that contains itself?)",
            key_path(&path[..8])
        )));
    }
    if obj.is_none() {
        if path.last().is_some_and(|k| k.starts_with('[')) {
            return Err(value_error(format!(
                "invalid rules dict: `{}` is None (TOML has no null)",
                key_path(path)
            )));
        }
        nulls.push(path.clone());
    } else if let Ok(d) = obj.cast::<PyDict>() {
        for (k, v) in d.iter() {
            path.push(k.str()?.to_string());
            scan_rules_dict(&v, path, nulls)?;
            path.pop();
        }
    } else if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        for (i, v) in obj.try_iter()?.enumerate() {
            path.push(format!("[{i}]"));
            scan_rules_dict(&v?, path, nulls)?;
            path.pop();
        }
    } else if let Ok(f) = obj.cast::<PyFloat>()
        && !f.value().is_finite()
    {
        return Err(value_error(format!(
            "invalid rules dict: `{}` is {}, not a finite number",
            key_path(path),
            f.value()
        )));
    } else if obj.cast::<PyInt>().is_ok() && obj.cast::<PyBool>().is_err() {
        if obj.extract::<i64>().is_err() {
            return Err(value_error(format!(
                "invalid rules dict: `{}` is {}, beyond any setting's range (64-bit integers)",
                key_path(path),
                obj.str()?
            )));
        }
    } else if obj.cast::<PyString>().is_err()
        && obj.cast::<PyBool>().is_err()
        && obj.cast::<PyFloat>().is_err()
        // numpy scalars become their Python values (`json_default`).
        && !is_numpy_scalar(obj)?
    {
        return Err(PyTypeError::new_err(format!(
            "invalid rules dict: `{}` is a {}, not a number, string, bool, list or dict",
            key_path(path),
            type_name(obj)
        )));
    }
    Ok(())
}

/// Removes the `None` entries found by [`scan_rules_dict`] from the JSON value.
fn drop_nulls(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// True when `path` leads to a null in `v` (false when it leads nowhere).
fn is_null_at(v: &serde_json::Value, path: &[String]) -> bool {
    path.iter()
        .try_fold(v, |v, k| v.get(k.as_str()))
        .is_some_and(serde_json::Value::is_null)
}

/// Rules from a dict in the TOML schema. TOML has no null, so a `None` value is
/// accepted only where the resolved rules hold no value either (an optional
/// setting left unset, as in `Game.rules()` output, which therefore round-trips);
/// anywhere else it is a ValueError naming the key.
fn rules_from_dict(obj: &Bound<'_, PyAny>) -> PyResult<Rules> {
    let mut nulls = Vec::new();
    scan_rules_dict(obj, &mut Vec::new(), &mut nulls)?;
    let null_error = |path: &[String]| {
        value_error(format!(
            "invalid rules dict: `{}` is None, and TOML has no null: leave the key out to keep the preset's value",
            key_path(path)
        ))
    };
    // `preset` only names the base: it is never part of the resolved rules.
    if let Some(p) = nulls.iter().find(|p| p.len() == 1 && p[0] == "preset") {
        return Err(null_error(p));
    }
    let json = dumps(obj)?;
    let mut value: serde_json::Value =
        serde_json::from_str(&json).map_err(|e| value_error(format!("invalid rules dict: {e}")))?;
    drop_nulls(&mut value);
    let value: toml::Value = serde_json::from_value(value)
        .map_err(|e| value_error(format!("invalid rules dict: {e}")))?;
    let rules = Rules::from_toml_value(value).map_err(|e| {
        // The rules fail without the None entries: name one that may be the cause
        // (not an optional setting, which a preset may leave unset).
        let optional = |path: &Vec<String>| {
            PRESETS.iter().any(|p| {
                Rules::preset(p)
                    .ok()
                    .and_then(|r| serde_json::to_value(&r).ok())
                    .is_some_and(|v| is_null_at(&v, path))
            })
        };
        match nulls.iter().find(|p| !optional(p)) {
            Some(p) => value_error(format!(
                "{e} (`{}` is None, and TOML has no null: it was left out)",
                key_path(p)
            )),
            None => value_error(e),
        }
    })?;
    if !nulls.is_empty() {
        let resolved = serde_json::to_value(&rules).map_err(value_error)?;
        for path in &nulls {
            if !is_null_at(&resolved, path) {
                return Err(null_error(path));
            }
        }
    }
    Ok(rules)
}

/// The table of a constructor's `rules` and `players` arguments (defaults:
/// `attack-2010`, 4 players). A `Game` passed as the rules brings its table
/// size, which `players` may repeat but not contradict.
fn table_from_py(
    rules: Option<&Bound<'_, PyAny>>,
    players: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Rules, usize)> {
    let players = players.map(|p| int_arg(p, "players")).transpose()?;
    if let Some(g) = rules.and_then(|r| r.cast::<PyGame>().ok()) {
        let game = &g.get().game;
        let n = game.num_players();
        return match players {
            Some(p) if p != n as i128 => Err(value_error(format!(
                "rules is a Game for {n} players, and players = {p}: leave players out, or make the Game for {p}"
            ))),
            _ => Ok((game.rules().clone(), n)),
        };
    }
    let players = players_arg(players.unwrap_or(4))?;
    let rules = match rules {
        Some(r) => rules_from_py(r)?,
        None => Rules::preset("attack-2010").map_err(value_error)?,
    };
    Ok((rules, players))
}

/// Rules from a preset name, a TOML file path, TOML text, or a dict (the TOML
/// schema); a `Game` is [`table_from_py`]'s.
fn rules_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Rules> {
    if obj.cast::<PyDict>().is_ok() {
        return rules_from_dict(obj);
    }
    let spec: String = if obj.cast::<PyString>().is_ok() {
        obj.extract()?
    } else {
        // os.PathLike (a str one: bytes paths and bytes are refused by name).
        let kind = obj
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        let bad = || {
            value_error(format!(
                "rules must be a preset name, a TOML path or text, or a dict, not {kind}"
            ))
        };
        obj.py()
            .import("os")?
            .call_method1("fspath", (obj,))
            .map_err(|_| bad())?
            .extract()
            .map_err(|_| bad())?
    };
    let trimmed = spec.trim();
    if uno_env::rules::preset_name(trimmed).is_none()
        && !std::path::Path::new(trimmed).exists()
        // TOML text has a line break or a `key = value`; a `.toml` name is a
        // path even with a `=` in it (a missing file is reported as such).
        && (spec.contains('\n') || (spec.contains('=') && !trimmed.ends_with(".toml")))
    {
        return Rules::from_toml_str(&spec).map_err(value_error);
    }
    Rules::load(trimmed).map_err(value_error)
}

fn episode_from_str(s: &str) -> PyResult<Episode> {
    match s {
        "round" => Ok(Episode::Round),
        "match" => Ok(Episode::Match),
        _ => Err(value_error(format!(
            "episode must be \"round\" or \"match\", not {s:?}"
        ))),
    }
}

fn reward_from_str(s: &str) -> PyResult<RewardMode> {
    match s {
        "win" => Ok(RewardMode::Win),
        "points" => Ok(RewardMode::Points),
        _ => Err(value_error(format!(
            "reward must be \"win\" or \"points\", not {s:?}"
        ))),
    }
}

/// The error for an action id outside the action space (`id` as Python prints it).
fn out_of_range(id: impl std::fmt::Display) -> PyErr {
    value_error(format!(
        "action id {id} is out of range (the action space has {NUM_ACTIONS} actions)"
    ))
}

/// An action given as an id or a name (`"play:R5"`, `"draw"`, `"colour:red"`, …).
/// An id is a Python int or a numpy integer; anything else (a float, even a
/// whole one, a bool, None) is a TypeError, and an int outside the action
/// space is a ValueError.
fn action_from_py(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    if obj.cast::<PyString>().is_ok() {
        let s: String = obj.extract()?;
        let s = s.as_str();
        return Action::parse(s)
            .map(Action::id)
            .ok_or_else(|| value_error(format!("unknown action name {s:?}")));
    }
    if obj.cast::<PyBool>().is_ok() || obj.cast::<PyFloat>().is_ok() {
        return Err(not_an_action(obj));
    }
    match obj.extract::<i64>() {
        Ok(id) if (0..NUM_ACTIONS as i64).contains(&id) => Ok(id as usize),
        Ok(id) => Err(out_of_range(id)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(out_of_range(obj.str()?)),
        Err(_) => Err(not_an_action(obj)),
    }
}

/// The Python type name of `obj` (`float`, `str`, `numpy.float64` prints as `float64`).
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// The TypeError for an action that is neither an integer id nor a name.
fn not_an_action(obj: &Bound<'_, PyAny>) -> PyErr {
    let ty = type_name(obj);
    PyTypeError::new_err(format!(
        "an action is an integer action id or a name string, got {ty}"
    ))
}

/// A seat argument: an int, with a negative or too large one reported like
/// any seat not at the table (IndexError).
fn seat_arg(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<usize> {
    let not_here =
        |seat: String| PyIndexError::new_err(format!("seat {seat} is not at this table of {n}"));
    if obj.cast::<PyBool>().is_ok() || obj.cast::<PyFloat>().is_ok() {
        return Err(int_type_error("seat", obj));
    }
    match obj.extract::<i64>() {
        Ok(s) if (0..n as i64).contains(&s) => Ok(s as usize),
        Ok(s) => Err(not_here(s.to_string())),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err(not_here(obj.str()?.to_string()))
        }
        Err(_) => Err(int_type_error("seat", obj)),
    }
}

/// An integer argument `name` (a table size, a batch, a thread count): a
/// bool or a float is a TypeError, an int beyond ±2^127 a ValueError that
/// says it is out of range (pyo3 would raise an OverflowError).
fn int_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<i128> {
    if obj.cast::<PyBool>().is_ok() || obj.cast::<PyFloat>().is_ok() {
        return Err(int_type_error(name, obj));
    }
    match obj.extract::<i128>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(value_error(format!(
            "{name} = {} is out of range",
            obj.str()?
        ))),
        Err(_) => Err(int_type_error(name, obj)),
    }
}

/// An unsigned 64-bit argument `name` (a seed, a stream), extracted as pyo3 does,
/// with an `OverflowError` that names the argument and its range (pyo3's says only
/// "int too big to convert" or "can't convert negative int to unsigned"). A bool is
/// a `TypeError`, as for every other int argument (pyo3 took `True` for 1).
fn u64_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    if obj.cast::<PyBool>().is_ok() {
        return Err(int_type_error(name, obj));
    }
    obj.extract::<u64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(obj.py()) {
            let shown = obj.str().map_or_else(|_| "?".into(), |s| s.to_string());
            PyOverflowError::new_err(format!(
                "{name} = {shown} is out of range: it is an unsigned 64-bit integer (0 to 2**64 - 1)"
            ))
        } else {
            // pyo3's says "'float' object cannot be interpreted as an
            // integer", naming no argument.
            int_type_error(name, obj)
        }
    })
}

/// A `seed` argument (see [`u64_arg`]).
fn seed_arg(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    u64_arg(obj, "seed")
}

/// A `stream` argument (see [`u64_arg`]).
fn stream_arg(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    u64_arg(obj, "stream")
}

/// [`int_arg`] with a default for an argument left out.
fn opt_int_arg(obj: Option<&Bound<'_, PyAny>>, name: &str, default: i128) -> PyResult<i128> {
    obj.map_or(Ok(default), |o| int_arg(o, name))
}

/// The TypeError for an argument `name` that should be an int.
fn int_type_error(name: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    let ty = type_name(obj);
    PyTypeError::new_err(format!("{name} must be an int, got {ty}"))
}

/// The `players` argument as a table size: a negative or huge int gets the
/// same ValueError as any table outside 2..=10 (pyo3 would raise an
/// OverflowError for a `usize`; `Game::new` checks the range itself).
fn players_arg(players: i128) -> PyResult<usize> {
    usize::try_from(players).map_err(|_| {
        value_error(format!(
            "invalid player count {players}: UNO needs {} to {MAX_PLAYERS} players (C-1)",
            uno_env::MIN_PLAYERS
        ))
    })
}

/// A size argument `name` (a batch, a thread count): an int of at least 1; a
/// smaller (negative included) or huge one is a ValueError that says so.
fn size_arg(v: i128, name: &str) -> PyResult<usize> {
    if v < 1 {
        return Err(value_error(format!("{name} must be at least 1, got {v}")));
    }
    usize::try_from(v).map_err(|_| value_error(format!("{name} = {v} is too large")))
}

/// Name of action `id` (raises ValueError when out of range).
#[pyfunction]
fn action_name(id: &Bound<'_, PyAny>) -> PyResult<String> {
    let id = int_arg(id, "an action id")?;
    if !(0..NUM_ACTIONS as i128).contains(&id) {
        return Err(value_error(format!(
            "action id {id} is out of range (the action space has {NUM_ACTIONS} actions)"
        )));
    }
    Ok(uno_env::action_name(id as usize))
}

/// Id of the action with this name (also accepts aliases such as `press`, `color:red`, `R5`).
#[pyfunction]
fn action_id(name: &str) -> PyResult<usize> {
    Action::parse(name)
        .map(Action::id)
        .ok_or_else(|| value_error(format!("unknown action name {name:?}")))
}

/// Every action name, indexed by id.
#[pyfunction]
fn action_names() -> Vec<String> {
    (0..NUM_ACTIONS).map(uno_env::action_name).collect()
}

/// The observation layout: a list of dicts `name`, `offset`, `shape`, `size`, `doc`.
#[pyfunction]
fn obs_pieces(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for p in PIECES.iter() {
        let d = PyDict::new(py);
        d.set_item("name", p.name)?;
        d.set_item("offset", p.offset)?;
        d.set_item("shape", PyTuple::new(py, p.shape)?)?;
        d.set_item("size", p.size())?;
        d.set_item("doc", p.doc)?;
        list.append(d)?;
    }
    Ok(list)
}

/// `obj` (any array-like of numbers: bools, ints or floats) as a C-contiguous numpy
/// array of `dtype`; anything else (None, strings, objects, which numpy would turn
/// into NaN or fail on) is a TypeError "`expected`, got <type>[: <numpy's reason>]".
fn contiguous<'py>(
    obj: &Bound<'py, PyAny>,
    dtype: &str,
    expected: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let np = py.import("numpy")?;
    let refused = |why: String| PyTypeError::new_err(format!("{expected}, got {why}"));
    let arr = np
        .call_method1("asarray", (obj,))
        .map_err(|e| refused(format!("{}: {}", type_name(obj), e.value(py))))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "b" | "i" | "u" | "f") {
        let what = match kind.as_str() {
            _ if obj.is_none() => "None".to_string(),
            "U" => format!("{} of str", type_name(obj)),
            "S" => format!("{} of bytes", type_name(obj)),
            "O" => format!("{} of objects (None, or mixed values)", type_name(obj)),
            _ => format!("{} of {}", type_name(obj), arr.getattr("dtype")?.str()?),
        };
        return Err(refused(what));
    }
    np.call_method1("ascontiguousarray", (&arr, dtype))
        .map_err(|e| refused(format!("{}: {}", type_name(obj), e.value(py))))
}

/// A readable dump of an observation vector, piece by piece (non-zero values only).
#[pyfunction]
fn describe_obs(obs: &Bound<'_, PyAny>) -> PyResult<String> {
    // Any array-like of numbers (a list, float64, a strided row) as float32.
    let expected = format!("an observation must be an array of {OBS_SIZE} numbers");
    let arr = contiguous(obs, "float32", &expected)?;
    if arr.cast::<PyArray1<f32>>().is_err() {
        let shape = arr
            .getattr("shape")
            .and_then(|s| s.str())
            .map_or_else(|_| "?".into(), |s| s.to_string());
        return Err(value_error(format!(
            "an observation is one row of {OBS_SIZE} values, got an array of shape {shape}"
        )));
    }
    let arr: PyReadonlyArray1<'_, f32> = read_array(&arr, "the observation")?;
    let s = arr.as_slice().map_err(value_error)?;
    if s.len() != OBS_SIZE {
        return Err(value_error(format!(
            "an observation has {OBS_SIZE} values, got {}",
            s.len()
        )));
    }
    Ok(uno_env::obs::describe(s))
}

/// The static part of a game: compiled rules and the number of players.
#[pyclass(name = "Game", module = "uno_attack._core", frozen)]
struct PyGame {
    game: Arc<Game>,
}

#[pymethods]
impl PyGame {
    /// `Game(rules="attack-2010", players=4)`: rules is a preset name, a TOML
    /// path or text, a dict in the TOML schema (may start with `preset`), or a
    /// `Game`, whose table size is then the default for `players`.
    #[new]
    #[pyo3(signature = (rules = None, players = None), text_signature = "(rules=None, players=None)")]
    fn new(rules: Option<&Bound<'_, PyAny>>, players: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let (rules, players) = table_from_py(rules, players)?;
        let game = Game::new(rules, players).map_err(value_error)?;
        Ok(PyGame {
            game: Arc::new(game),
        })
    }

    /// Players at the table.
    #[getter]
    fn num_players(&self) -> usize {
        self.game.num_players()
    }

    /// Cards in the deck.
    #[getter]
    fn deck_size(&self) -> usize {
        self.game.deck_size()
    }

    /// `(low, high)` float32 arrays: the range of every value of an observation
    /// (`OBS_SIZE`), or with `oracle=True` of an oracle vector (`ORACLE_SIZE`),
    /// in positions reached in play (the Gymnasium and PettingZoo spaces).
    #[pyo3(signature = (oracle = false))]
    fn obs_bounds<'py>(
        &self,
        py: Python<'py>,
        oracle: bool,
    ) -> (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>) {
        let (mut low, mut high) = uno_env::obs::bounds(&self.game);
        if !oracle {
            low.truncate(OBS_SIZE);
            high.truncate(OBS_SIZE);
        }
        (PyArray1::from_vec(py, low), PyArray1::from_vec(py, high))
    }

    /// Total points of the whole deck (C-6): the most a hand can hold, so
    /// `-deck_points / 100` bounds a seat's `points` reward for a round.
    #[getter]
    fn deck_points(&self) -> u32 {
        self.game.deck_points()
    }

    /// Size of the action space (98).
    #[getter]
    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The rules' display name.
    #[getter]
    fn name(&self) -> String {
        self.game.rules().name.clone()
    }

    /// The rules as a dict (the TOML schema).
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(self.game.rules()).map_err(value_error)?;
        loads(py, &json)
    }

    /// The rules as TOML text.
    fn rules_toml(&self) -> String {
        self.game.rules().to_toml()
    }

    /// A new match on ChaCha stream `stream` of `seed` (dealer drawn, first round dealt).
    #[pyo3(signature = (seed = 0, stream = 0))]
    fn new_state(
        &self,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
        #[pyo3(from_py_with = stream_arg)] stream: u64,
    ) -> PyState {
        PyState::wrap(
            self.game.clone(),
            self.game.new_state_on_stream(seed, stream),
        )
    }

    /// A hand-built position from a dict (or JSON text) in the Scenario schema:
    /// `hands`, `top`, `colour`, `launcher`, `discard`, `current`, `direction`,
    /// `dealer`, `seed`, `scores`, `misses`, `eliminated`.
    fn scenario(&self, scenario: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let json = if scenario.cast::<PyString>().is_ok() {
            scenario.extract::<String>()?
        } else {
            dumps(scenario)?
        };
        let sc: Scenario = serde_json::from_str(&json)
            .map_err(|e| value_error(format!("invalid scenario: {e}")))?;
        let st = self.game.scenario(&sc).map_err(value_error)?;
        Ok(PyState::wrap(self.game.clone(), st))
    }

    /// A state from JSON text written by `State.to_json()`.
    fn state_from_json(&self, text: &str) -> PyResult<PyState> {
        let st =
            State::from_json(text).map_err(|e| value_error(format!("invalid state JSON: {e}")))?;
        self.adopt(st)
    }

    /// A state from a dict written by `State.to_dict()`.
    fn state_from_dict(&self, d: &Bound<'_, PyAny>) -> PyResult<PyState> {
        self.state_from_json(&dumps(d)?)
    }

    /// Pickling: `Game(rules_toml(), players)` rebuilds the same game.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, (String, usize))> {
        let g = &slf.get().game;
        Ok((
            slf.py().get_type::<PyGame>(),
            (g.rules().to_toml(), g.num_players()),
        ))
    }

    /// The game is immutable: a copy shares the compiled rules.
    fn __copy__(&self) -> PyGame {
        PyGame {
            game: self.game.clone(),
        }
    }

    /// The game is immutable: a deep copy shares the compiled rules.
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.__copy__()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(rules={:?}, players={})",
            self.game.rules().name,
            self.game.num_players()
        )
    }
}

impl PyGame {
    fn adopt(&self, st: State) -> PyResult<PyState> {
        if st.num_players() != self.game.num_players() {
            return Err(value_error(format!(
                "the state has {} players, the game {}",
                st.num_players(),
                self.game.num_players()
            )));
        }
        self.game
            .check_invariants(&st)
            .map_err(|e| value_error(format!("invalid state for this game: {e}")))?;
        Ok(PyState::wrap(self.game.clone(), st))
    }
}

/// Rebuilds a pickled `State` (see `State.__reduce__`): `game.state_from_json(state)`
/// with its last events (JSON text of the event dicts) restored.
#[pyfunction]
#[pyo3(name = "_state_from_json", signature = (game, state, events = None))]
fn state_from_json_fn(
    game: PyRef<'_, PyGame>,
    state: &str,
    events: Option<&str>,
) -> PyResult<PyState> {
    let mut st = game.state_from_json(state)?;
    if let Some(events) = events {
        st.events = serde_json::from_str(events)
            .map_err(|e| value_error(format!("invalid events JSON: {e}")))?;
    }
    Ok(st)
}

/// One position of a match, bound to its game.
#[pyclass(name = "State", module = "uno_attack._core")]
struct PyState {
    game: Arc<Game>,
    /// Boxed: a `State` is aligned to a cache line (64 bytes), and a Python
    /// object's memory is aligned only to 16, which pyo3 does not correct
    /// (PyO3/pyo3#3607); a box is allocated with the state's own alignment.
    state: Box<State>,
    events: Vec<uno_env::Event>,
}

impl PyState {
    fn wrap(game: Arc<Game>, state: State) -> Self {
        PyState {
            game,
            state: Box::new(state),
            events: Vec::new(),
        }
    }

    /// `seat` (an int; IndexError when not at the table), or the seat to act
    /// (seat 0 once the round is over) when None.
    fn seat_or_current(&self, seat: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        match seat {
            Some(s) => seat_arg(s, self.game.num_players()),
            None => Ok(self.state.current_player().unwrap_or(0)),
        }
    }

    fn events_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.events).map_err(value_error)?;
        loads(py, &json)
    }
}

#[pymethods]
impl PyState {
    /// The game this state belongs to.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame {
            game: self.game.clone(),
        }
    }

    /// Players at the table.
    #[getter]
    fn num_players(&self) -> usize {
        self.state.num_players()
    }

    /// The decision phase (`play`, `choose-colour`, …, `round-over`, `match-over`).
    #[getter]
    fn phase(&self) -> &'static str {
        self.state.phase().name()
    }

    /// The seat to act, or None when the round is over.
    #[getter]
    fn current_player(&self) -> Option<usize> {
        self.state.current_player()
    }

    /// True when the round (hand) is over (or the match).
    fn is_round_over(&self) -> bool {
        self.state.is_round_over()
    }

    /// True when the match is decided.
    fn is_match_over(&self) -> bool {
        self.state.is_match_over()
    }

    /// True when the round was cut short by the decision cap.
    fn is_truncated(&self) -> bool {
        self.state.is_truncated()
    }

    /// Winner of the round just finished, if any.
    #[getter]
    fn round_winner(&self) -> Option<usize> {
        self.state.round_winner()
    }

    /// Winner of the match, once decided.
    #[getter]
    fn match_winner(&self) -> Option<usize> {
        self.state.match_winner()
    }

    /// Match scores per seat.
    #[getter]
    fn scores(&self) -> Vec<u32> {
        self.state.scores().to_vec()
    }

    /// Points each seat scored in the round just finished.
    #[getter]
    fn round_points(&self) -> Vec<u32> {
        self.state.round_points()
    }

    /// Decisions taken so far in this round.
    #[getter]
    fn decisions(&self) -> u32 {
        self.state.decisions()
    }

    /// Rounds started in this match (1 for the first).
    #[getter]
    fn round(&self) -> usize {
        self.state.round()
    }

    /// The dealer's seat.
    #[getter]
    fn dealer(&self) -> usize {
        self.state.dealer()
    }

    /// +1 when play goes left, -1 when it goes right.
    #[getter]
    fn direction(&self) -> i32 {
        self.state.direction()
    }

    /// Cards in the launcher / draw pile.
    #[getter]
    fn pile_len(&self) -> usize {
        self.state.pile_len()
    }

    /// The face on top of the discard pile (e.g. `R5`).
    #[getter]
    fn top_face(&self) -> String {
        self.state.top_face(&self.game).name()
    }

    /// The active colour (`red`, …), or None while it is being named.
    #[getter]
    fn active_colour(&self) -> Option<&'static str> {
        self.state.active_colour().map(|c| c.name())
    }

    /// The faces in `seat`'s hand (names, deck order).
    fn hand(&self, seat: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let seat = self.seat_or_current(Some(seat))?;
        Ok(self
            .state
            .hand_faces(&self.game, seat)
            .into_iter()
            .map(|f| f.name())
            .collect())
    }

    /// Cards in `seat`'s hand.
    fn hand_len(&self, seat: &Bound<'_, PyAny>) -> PyResult<usize> {
        let seat = self.seat_or_current(Some(seat))?;
        Ok(self.state.hand_len(seat))
    }

    /// False once `seat` is eliminated from the match (C-7 challenge scoring).
    fn is_active(&self, seat: &Bound<'_, PyAny>) -> PyResult<bool> {
        let seat = self.seat_or_current(Some(seat))?;
        Ok(self.state.is_active(seat))
    }

    /// What `seat` has shown of its hand this round (public; the observation's
    /// `history` piece and `seats` flags): a dict with `named_colour` (the colour it last
    /// named after a wild, or None), `last_played_colour` (of its last coloured card, or
    /// None), `taken_since_play` (cards that entered its hand since it last played, the
    /// deal included, up to 31) and `pressed_on` (colours it pressed/drew on by choice in its turn since then).
    fn history<'py>(
        &self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let seat = self.seat_or_current(Some(seat))?;
        let s = &self.state;
        let d = PyDict::new(py);
        d.set_item("named_colour", s.named_colour(seat).map(|c| c.name()))?;
        d.set_item(
            "last_played_colour",
            s.last_played_colour(seat).map(|c| c.name()),
        )?;
        d.set_item("taken_since_play", s.taken_since_play(seat))?;
        let pressed: Vec<&str> = s.pressed_colours(seat).map(|c| c.name()).collect();
        d.set_item("pressed_on", pressed)?;
        Ok(d)
    }

    /// The legal action ids, ascending (empty when the round is over).
    fn legal_actions(&self) -> Vec<usize> {
        self.game.legal_actions(&self.state)
    }

    /// The legal action names, in id order.
    fn legal_action_names(&self) -> Vec<String> {
        self.game
            .legal_actions(&self.state)
            .into_iter()
            .map(uno_env::action_name)
            .collect()
    }

    /// The legal actions as a uint8 array of length 98 (1 = legal).
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let mut m = vec![0u8; NUM_ACTIONS];
        write_mask(self.game.legal_mask(&self.state), &mut m).map_err(value_error)?;
        Ok(PyArray1::from_vec(py, m))
    }

    /// Applies an action (id or name) for the current player and returns the
    /// step's events as dicts. An illegal action raises ValueError with the
    /// engine's reason and leaves the state unchanged.
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let a = action_from_py(action)?;
        let mut log = EventLog::default();
        self.game
            .apply_with(&mut self.state, a, &mut log)
            .map_err(value_error)?;
        self.events = log.0;
        self.events_list(py)
    }

    /// Starts the next round of the match (only after a round is over and the match goes on).
    fn next_round<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut log = EventLog::default();
        self.game
            .next_round_with(&mut self.state, &mut log)
            .map_err(value_error)?;
        self.events = log.0;
        self.events_list(py)
    }

    /// F-3: the current player's time ran out (they draw and the turn passes).
    fn timeout<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut log = EventLog::default();
        self.game
            .timeout(&mut self.state, &mut log)
            .map_err(value_error)?;
        self.events = log.0;
        self.events_list(py)
    }

    /// The events of the last `apply` / `next_round` / `timeout`, as dicts.
    fn last_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.events_list(py)
    }

    /// What `seat` (default: the seat to act; seat 0 once the round is over) may see:
    /// float32 array of OBS_SIZE.
    #[pyo3(signature = (seat = None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = self.seat_or_current(seat)?;
        let mut v = vec![0f32; OBS_SIZE];
        encode(&self.game, &self.state, seat, &mut v).map_err(value_error)?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// The observation plus every hidden part (other hands, launcher contents):
    /// float32 array of ORACLE_SIZE, for debugging and research (the same default seat).
    #[pyo3(signature = (seat = None))]
    fn oracle_observation<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = self.seat_or_current(seat)?;
        let mut v = vec![0f32; ORACLE_SIZE];
        encode_oracle(&self.game, &self.state, seat, &mut v).map_err(value_error)?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// Zero-sum rewards per seat for the finished round (`reward` = "win" or
    /// "points"; `match_end` scores the match winner instead). All zeros while
    /// the round goes on or when it was cut short.
    #[pyo3(signature = (reward = "win", match_end = false))]
    fn rewards(&self, reward: &str, match_end: bool) -> PyResult<Vec<f32>> {
        let mode = reward_from_str(reward)?;
        let mut out = [0f32; MAX_PLAYERS];
        if self.state.is_round_over() {
            terminal_rewards(&self.game, &self.state, mode, match_end, &mut out);
        }
        Ok(out[..self.game.num_players()].to_vec())
    }

    /// None when every invariant holds, else the first violation.
    fn check_invariants(&self) -> Option<String> {
        self.game
            .check_invariants(&self.state)
            .err()
            .map(|e| e.to_string())
    }

    /// The full state (including the chance generator) as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.state.to_json())
    }

    /// The full state as JSON text.
    fn to_json(&self) -> String {
        self.state.to_json()
    }

    /// A state `seat` (default: the seat to act; seat 0 once the round is over)
    /// cannot tell from this one:
    /// its own hand and every public fact kept, the other hands and the
    /// launcher / draw pile dealt anew from the cards it cannot see, a fresh
    /// chance generator (OpenSpiel's `resample_from_infostate`). For
    /// determinized search; deterministic in `seed`.
    #[pyo3(signature = (seed, seat = None))]
    fn resample_hidden(
        &self,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
        seat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyState> {
        let seat = self.seat_or_current(seat)?;
        let t = self
            .game
            .resample_hidden(&self.state, seat, seed)
            .map_err(|e| value_error(e.to_string()))?;
        Ok(PyState::wrap(self.game.clone(), t))
    }

    /// An independent copy.
    fn clone(&self) -> PyState {
        PyState {
            game: self.game.clone(),
            state: self.state.clone(),
            events: self.events.clone(),
        }
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    /// Pickling: `_state_from_json(game, to_json(), last events as JSON)`; the
    /// chance generator is part of the JSON, so a loaded state continues identically.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (PyGame, String, String))> {
        let restore = py.import("uno_attack._core")?.getattr("_state_from_json")?;
        let events = serde_json::to_string(&self.events).map_err(value_error)?;
        Ok((restore, (self.game(), self.state.to_json(), events)))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyState>() {
            Ok(o) => o.borrow().state == self.state,
            Err(_) => false,
        }
    }

    /// A text picture of the whole position (every hand shown).
    fn render(&self) -> String {
        let g = &self.game;
        let s = &self.state;
        let mut out = String::new();
        let colour = s.active_colour().map_or("none", |c| c.name());
        out.push_str(&format!(
            "{} · round {} · phase {} · decision {} · direction {}\n",
            g.rules().name,
            s.round(),
            s.phase().name(),
            s.decisions(),
            if s.direction() < 0 { "right" } else { "left" },
        ));
        out.push_str(&format!(
            "top {} (active colour {colour}) · {} {} cards\n",
            s.top_face(g).name(),
            if g.uses_pile() {
                "draw pile"
            } else {
                "launcher"
            },
            s.pile_len(),
        ));
        for p in 0..g.num_players() {
            let marker = if s.current_player() == Some(p) {
                ">"
            } else {
                " "
            };
            let hand: Vec<String> = s.hand_faces(g, p).into_iter().map(|f| f.name()).collect();
            let mut flags = String::new();
            if s.uno_called(p) {
                flags.push_str(" UNO");
            }
            if !s.is_active(p) {
                flags.push_str(" out");
            }
            out.push_str(&format!(
                "{marker} player_{p} score {:>4} ({:>2} cards){flags}: {}\n",
                s.scores()[p],
                hand.len(),
                hand.join(" ")
            ));
        }
        if let Some(w) = s.round_winner() {
            out.push_str(&format!("round won by player_{w}\n"));
        }
        if let Some(w) = s.match_winner() {
            out.push_str(&format!("match won by player_{w}\n"));
        }
        if s.is_truncated() {
            out.push_str("round cut short (decision cap)\n");
        }
        if let Some(p) = s.current_player() {
            let legal: Vec<String> = g
                .legal_actions(s)
                .into_iter()
                .map(uno_env::action_name)
                .collect();
            out.push_str(&format!("player_{p} may: {}\n", legal.join(", ")));
        }
        out
    }

    fn __repr__(&self) -> String {
        format!(
            "State(phase={:?}, current_player={}, round={}, decisions={})",
            self.state.phase().name(),
            self.state
                .current_player()
                .map_or("None".to_string(), |p| p.to_string()),
            self.state.round(),
            self.state.decisions()
        )
    }
}

/// A built-in agent from a spec string (`random`, `random-play`, `first-legal`,
/// `greedy`, `heuristic`, `heuristic:key=value,...`, `search:...`,
/// `checkpoint:DIR[?sample]`).
#[pyclass(name = "Agent", module = "uno_attack._core")]
struct PyAgent {
    agent: Mutex<Box<dyn uno_agents::Agent + Send>>,
    spec: String,
    /// The checkpoint directories the agent plays from (its own, or a search's base).
    checkpoints: Vec<std::path::PathBuf>,
    /// Games the checkpoints were found compatible with (checked once per game).
    checked: Mutex<Vec<Arc<Game>>>,
    /// The agent remembers its decisions (one instance per game only).
    remembers: bool,
}

impl PyAgent {
    /// Checks once per game (the same rules and table size) that the agent's
    /// checkpoints were trained for it, with `check_compatible_all` as the CLI's
    /// arena does: ValueError when not (not cached: it raises again), a
    /// UserWarning for a note (another table size, a variant of the preset).
    fn check_game(&self, py: Python<'_>, game: &Arc<Game>) -> PyResult<()> {
        if self.checkpoints.is_empty() {
            return Ok(());
        }
        let seen = |checked: &[Arc<Game>]| {
            checked.iter().any(|g| {
                Arc::ptr_eq(g, game)
                    || (g.num_players() == game.num_players() && g.rules() == game.rules())
            })
        };
        if seen(&self.checked.lock().map_err(value_error)?) {
            return Ok(());
        }
        let notes = uno_agents::neural::check_compatible_all(&self.checkpoints, game)
            .map_err(|(dir, e)| value_error(uno_agents::neural::naming_checkpoint(&dir, &e)))?;
        {
            let mut checked = self.checked.lock().map_err(value_error)?;
            if !seen(&checked) {
                checked.push(game.clone());
            }
        }
        // Warned with no lock held (a warning filter runs Python code).
        for note in notes {
            let message = std::ffi::CString::new(note.replace('\0', " ")).map_err(value_error)?;
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
        }
        Ok(())
    }
}

#[pymethods]
impl PyAgent {
    /// `Agent(spec, seed=0)`; a bad spec raises ValueError.
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, #[pyo3(from_py_with = seed_arg)] seed: u64) -> PyResult<Self> {
        let parsed = uno_agents::parse_spec(spec).map_err(value_error)?;
        let agent = fork_safe(|| uno_agents::build(&parsed, seed)).map_err(value_error)?;
        Ok(PyAgent {
            agent: Mutex::new(agent),
            spec: spec.to_string(),
            checkpoints: parsed.checkpoints(),
            checked: Mutex::new(Vec::new()),
            remembers: parsed.remembers(),
        })
    }

    /// The spec the agent was built from.
    #[getter]
    fn spec(&self) -> String {
        self.spec.clone()
    }

    /// The action the seat to act takes in `state` (a legal action id). A
    /// checkpoint agent (or a search on one) first checks, once per game, that
    /// it was trained for these rules: ValueError when not, a UserWarning for
    /// another table size or a variant of the preset.
    fn act(&self, py: Python<'_>, state: &PyState) -> PyResult<usize> {
        let seat = state
            .state
            .current_player()
            .ok_or_else(|| value_error("the round is over: nobody is to act"))?;
        self.check_game(py, &state.game)?;
        let mut guard = self.agent.lock().map_err(value_error)?;
        let agent: &mut (dyn uno_agents::Agent + Send) = &mut **guard;
        Ok(fork_safe(|| agent.act(&state.game, &state.state, seat)))
    }

    /// The action of the seat to act in every game of `env` (a `VecEnv`):
    /// int64 [num_envs], ready for `env.step`. A checkpoint agent decides
    /// them all in one batched forward pass. Only for agents that remember
    /// nothing between decisions (not `heuristic` or `search`, which need
    /// one instance per game): ValueError for those.
    fn act_batch<'py>(
        &self,
        py: Python<'py>,
        env: PyRef<'py, PyVecEnv>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        if self.remembers {
            return Err(value_error(format!(
                "`{}` remembers its decisions, so one instance cannot play many games at once: use one Agent per game and act()",
                self.spec
            )));
        }
        self.check_game(py, &env.game)?;
        let inner = &env.env;
        let n = inner.num_envs();
        let states: Vec<&State> = (0..n).map(|i| inner.state(i)).collect();
        let seats: Vec<usize> = states
            .iter()
            .map(|s| s.current_player().unwrap_or(0))
            .collect();
        let mut out = vec![0usize; n];
        let game = inner.game();
        let agent = &self.agent;
        py.detach(|| -> PyResult<()> {
            let mut guard = agent.lock().map_err(value_error)?;
            let agent: &mut (dyn uno_agents::Agent + Send) = &mut **guard;
            fork_safe(|| agent.act_batch(game, &states, &seats, None, &mut out));
            Ok(())
        })?;
        Ok(PyArray1::from_vec(
            py,
            out.into_iter().map(|a| a as i64).collect(),
        ))
    }

    /// Reseeds the agent and forgets any memory.
    fn reset(&self, #[pyo3(from_py_with = seed_arg)] seed: u64) -> PyResult<()> {
        self.agent.lock().map_err(value_error)?.reset(seed);
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?})", self.spec)
    }
}

/// The buffers of a batch, as numpy arrays owned by Python and written by Rust.
struct Arrays {
    obs: Py<PyArray2<f32>>,
    mask: Py<PyArray2<u8>>,
    seat: Py<PyArray1<i32>>,
    reward: Py<PyArray1<f32>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<u8>>,
    truncated: Py<PyArray1<u8>>,
    final_obs: Py<PyArray2<f32>>,
    episode_len: Py<PyArray1<u32>>,
    winner: Py<PyArray1<i32>>,
    legal_ids: Py<PyArray2<u8>>,
    legal_count: Py<PyArray1<u8>>,
}

/// The env behind a `VecEnv`: every seat's decisions (multi-agent), or one
/// learner seat per game with built-in opponents stepped in Rust.
enum Inner {
    Multi(VecEnv),
    Solo(uno_agents::SoloVecEnv),
}

impl Inner {
    fn num_envs(&self) -> usize {
        match self {
            Inner::Multi(e) => e.num_envs(),
            Inner::Solo(e) => e.num_envs(),
        }
    }
    fn threads(&self) -> usize {
        match self {
            Inner::Multi(e) => e.threads(),
            Inner::Solo(e) => e.threads(),
        }
    }
    fn game(&self) -> &Game {
        match self {
            Inner::Multi(e) => e.game(),
            Inner::Solo(e) => e.game(),
        }
    }
    fn state(&self, i: usize) -> &State {
        match self {
            Inner::Multi(e) => e.state(i),
            Inner::Solo(e) => e.state(i),
        }
    }
    fn seed(&self) -> u64 {
        match self {
            Inner::Multi(e) => e.seed(),
            Inner::Solo(e) => e.seed(),
        }
    }
    fn reseed(&mut self, seed: u64) {
        match self {
            Inner::Multi(e) => e.reseed(seed),
            Inner::Solo(e) => e.reseed(seed),
        }
    }
    fn reset(&mut self, b: BatchMut<'_>) -> Result<(), String> {
        match self {
            Inner::Multi(e) => e.reset(b).map_err(|e| e.to_string()),
            Inner::Solo(e) => e.reset(b).map_err(|e| e.to_string()),
        }
    }
    fn step(&mut self, actions: &[u32], b: BatchMut<'_>) -> Result<(), String> {
        match self {
            Inner::Multi(e) => e.step(actions, b).map_err(|e| e.to_string()),
            Inner::Solo(e) => e.step(actions, b).map_err(|e| e.to_string()),
        }
    }
    fn step_random(&mut self, b: BatchMut<'_>, write_obs: bool) -> Result<(), String> {
        match self {
            Inner::Multi(e) => e.step_random(b, write_obs).map_err(|e| e.to_string()),
            Inner::Solo(e) => e.step_random(b, write_obs).map_err(|e| e.to_string()),
        }
    }
}

/// Agent specs from `opponents=`: one string (every opponent seat) or a
/// sequence of strings (one per seat after the learner's).
fn opponent_specs(opponents: &Bound<'_, PyAny>) -> PyResult<Vec<uno_agents::AgentSpec>> {
    let names: Vec<String> = if let Ok(s) = opponents.cast::<PyString>() {
        vec![s.to_string()]
    } else {
        opponents.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "opponents must be an agent spec string or a list of them, got {}",
                type_name(opponents)
            ))
        })?
    };
    names
        .iter()
        .map(|n| uno_agents::parse_spec(n).map_err(value_error))
        .collect()
}

/// A batch of games stepped together in Rust, writing into numpy buffers that
/// are reused every step (`obs`, `mask`, `reward`, `terminated`, …), with
/// auto-reset that keeps the finished episode's `final_obs`.
///
/// `VecEnv(rules, players, num_envs, seed, threads, ...)` steps every seat
/// (`step(actions)` takes the action of each game's seat to act). With
/// `opponents` (an agent spec, or one per seat after the learner's) it is
/// single-agent: built-in agents play every other seat in Rust and every row
/// is a decision of the learner, in `seat` (`None`: rotating). See the
/// package README for every buffer and argument.
#[pyclass(name = "VecEnv", module = "uno_attack._core")]
struct PyVecEnv {
    /// Dropped by hand (see `Drop`): not in a forked child, where its worker
    /// threads do not exist to be joined.
    env: std::mem::ManuallyDrop<Inner>,
    /// The compiled game, shared by every `state(i)` and `game` handed out
    /// (one copy per env, not per call; agents recognise it by pointer).
    game: Arc<Game>,
    arrays: Arrays,
    scratch: Vec<u32>,
    /// The process that built the env: its worker threads live only there.
    pid: u32,
    /// Rows of the legal-id buffers (`num_envs`, or 0 when they are off).
    legal_rows: usize,
    /// A `reset` has written the first observations (until then the buffers hold zeros).
    started: bool,
}

impl Drop for PyVecEnv {
    /// Drops the env, except in a `fork()`ed child of the process that built it
    /// with worker threads: they do not exist there, and joining them panicked
    /// (`threads should not terminate unexpectedly`, printed by `del env` or at
    /// the child's exit). There the env is left to the process's end, as its
    /// memory is: the child's copy of the parent's.
    fn drop(&mut self) {
        if self.env.threads() > 1 && std::process::id() != self.pid {
            return;
        }
        // SAFETY: `env` is not used after this (the env is being dropped), and
        // this is the only place that drops it.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.env) }
    }
}

impl PyVecEnv {
    /// Refuses to step before the first `reset`: the buffers would still hold zeros, and a
    /// training loop would record them as every game's first observation.
    fn check_started(&self, what: &str) -> PyResult<()> {
        if self.started {
            return Ok(());
        }
        Err(value_error(format!(
            "call reset() first: {what}() before it would start from buffers of zeros, not the games' first observations"
        )))
    }
}

/// Checks a shared buffer before Rust writes into it: numpy lets a user
/// retype (`a.dtype = np.int32`), reshape or freeze an array in place, and
/// Rust would then write float bits into ints. Returns it writeable.
fn writable<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    a: &'py Py<numpy::PyArray<T, D>>,
    py: Python<'py>,
    name: &str,
    rows: usize,
    cols: Option<usize>,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    use numpy::{PyArrayDescrMethods, PyUntypedArrayMethods};
    let b = a.bind(py);
    let want = numpy::dtype::<T>(py);
    let shape = b.shape();
    let want_shape: Vec<usize> = std::iter::once(rows).chain(cols).collect();
    if !b.dtype().is_equiv_to(&want) || shape != want_shape.as_slice() {
        return Err(value_error(format!(
            "buffer `{name}` was changed to dtype {} and shape {:?}; the env writes {} values of shape {:?} into it: do not change its dtype or shape (copy it instead)",
            b.dtype(),
            shape,
            want,
            want_shape
        )));
    }
    // Rust writes rows in order: strides set in place (Fortran order, or a
    // gap between values) would scramble the rows numpy shows, or be refused
    // later by a message that names no buffer.
    if !b.is_c_contiguous() {
        return Err(value_error(format!(
            "buffer `{name}` was changed to strides {:?}; the env writes its rows one after another \
             (C order): do not change its strides (copy it instead)",
            b.strides()
        )));
    }
    b.try_readwrite().map_err(|e| match e {
        // Another thread's call reads it with the GIL released (a
        // `Policy.forward(env.obs)`): refused, and nothing changes.
        numpy::BorrowError::AlreadyBorrowed => busy(&format!("buffer `{name}`"), e),
        _ => value_error(format!(
            "buffer `{name}` cannot be written ({e}): the env writes every buffer in place"
        )),
    })
}

/// A new numpy array of `shape` and `dtype` filled with `fill`, allocated by
/// numpy (`numpy.full`): when memory runs out that is numpy's MemoryError,
/// not a panic.
fn np_buffer<T: numpy::Element, D: numpy::ndarray::Dimension>(
    py: Python<'_>,
    shape: &[usize],
    dtype: &str,
    fill: i32,
) -> PyResult<Py<numpy::PyArray<T, D>>> {
    // A view of a longer array, starting at its first cache-line boundary
    // (so that every row boundary a multiple of 64 games in lies on one: two
    // threads' parts of a batch then share no line), with `TAIL_PAD` bytes of
    // the allocation unused after the rows, as in Rust's `Buffers` (a thread
    // stepping the last games then prefetches into them, not into the next
    // buffer's first rows, which another thread may be writing).
    let count: usize = shape.iter().product();
    let pad = uno_env::vec_env::tail_pad::<T>();
    let size = std::mem::size_of::<T>();
    let line = uno_env::BUFFER_ALIGN;
    let slack = line / size;
    let whole = py
        .import("numpy")?
        .call_method1("full", (count + slack + pad, fill, dtype))?
        .cast_into::<PyArray1<T>>()?;
    // numpy aligns an array to at least its element's size, so the offset to
    // the next line is a whole number of elements.
    let skip = (line - whole.data() as usize % line) % line / size;
    let a = whole
        .get_item(pyo3::types::PySlice::new(
            py,
            skip as isize,
            (skip + count) as isize,
            1,
        ))?
        .call_method1("reshape", (shape.to_vec(),))?;
    Ok(a.cast_into::<numpy::PyArray<T, D>>()?.unbind())
}

impl PyVecEnv {
    /// Runs `f` on mutable views of every buffer, with the GIL released.
    fn with_batch<R: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut Inner, &[u32], BatchMut<'_>) -> R + Send,
    ) -> PyResult<R> {
        if self.env.threads() > 1 && std::process::id() != self.pid {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "this VecEnv was built with threads={} in process {} and is used in process {} (a fork): its worker threads exist only in the process that built it. Build the env in the child process, use threads=1, or the 'spawn' or 'forkserver' start method of multiprocessing",
                self.env.threads(),
                self.pid,
                std::process::id()
            )));
        }
        let a = &self.arrays;
        let n = self.env.num_envs();
        let ln = self.legal_rows;
        let mut obs = writable(&a.obs, py, "obs", n, Some(OBS_SIZE))?;
        let mut mask = writable(&a.mask, py, "mask", n, Some(NUM_ACTIONS))?;
        let mut seat = writable(&a.seat, py, "seat", n, None)?;
        let mut reward = writable(&a.reward, py, "reward", n, None)?;
        let mut rewards = writable(&a.rewards, py, "rewards", n, Some(MAX_PLAYERS))?;
        let mut terminated = writable(&a.terminated, py, "terminated", n, None)?;
        let mut truncated = writable(&a.truncated, py, "truncated", n, None)?;
        let mut final_obs = writable(&a.final_obs, py, "final_obs", n, Some(OBS_SIZE))?;
        let mut episode_len = writable(&a.episode_len, py, "episode_len", n, None)?;
        let mut winner = writable(&a.winner, py, "winner", n, None)?;
        let mut legal_ids = writable(&a.legal_ids, py, "legal_ids", ln, Some(NUM_ACTIONS))?;
        let mut legal_count = writable(&a.legal_count, py, "legal_count", ln, None)?;
        let batch = BatchMut {
            obs: obs.as_slice_mut().map_err(value_error)?,
            mask: mask.as_slice_mut().map_err(value_error)?,
            seat: seat.as_slice_mut().map_err(value_error)?,
            reward: reward.as_slice_mut().map_err(value_error)?,
            rewards: rewards.as_slice_mut().map_err(value_error)?,
            terminated: terminated.as_slice_mut().map_err(value_error)?,
            truncated: truncated.as_slice_mut().map_err(value_error)?,
            final_obs: final_obs.as_slice_mut().map_err(value_error)?,
            episode_len: episode_len.as_slice_mut().map_err(value_error)?,
            winner: winner.as_slice_mut().map_err(value_error)?,
            legal_ids: legal_ids.as_slice_mut().map_err(value_error)?,
            legal_count: legal_count.as_slice_mut().map_err(value_error)?,
        };
        let env: &mut Inner = &mut self.env;
        let actions = &self.scratch[..];
        Ok(py.detach(move || match env {
            // The opponents' networks may run on rayon (see `fork_safe`).
            Inner::Solo(_) => fork_safe(move || f(env, actions, batch)),
            Inner::Multi(_) => f(env, actions, batch),
        }))
    }

    fn step_tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let a = &self.arrays;
        PyTuple::new(
            py,
            [
                a.obs.bind(py).as_any(),
                a.mask.bind(py).as_any(),
                a.seat.bind(py).as_any(),
                a.reward.bind(py).as_any(),
                a.terminated.bind(py).as_any(),
                a.truncated.bind(py).as_any(),
            ],
        )
    }

    /// Copies `actions` (a one-dimensional array or sequence of integer action
    /// ids, any integer dtype) into the scratch buffer. Anything else raises
    /// before a game is touched: a non-integer dtype (float, even with whole
    /// values, bool, str, complex, …) is a TypeError; a wrong shape or length
    /// or an id outside the action space is a ValueError.
    fn load_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.env.num_envs();
        self.scratch.clear();
        macro_rules! fast_path {
            ($($t:ty),*) => {$(
                if let Ok(arr) = actions.extract::<PyReadonlyArray1<'_, $t>>()
                    && let Ok(s) = arr.as_slice()
                {
                    return self.fill_scratch(s.iter().map(|&v| v as i128), n);
                }
            )*};
        }
        fast_path!(i64, i32, u32, u8, u64, i16, u16, i8);
        // An iterator (a generator) has no length: numpy would make it one
        // object; a set has no order (numpy, too, makes it one object).
        if actions.is_none()
            || actions.cast::<PyDict>().is_ok()
            || actions.cast::<PyString>().is_ok()
            || actions.cast::<PySet>().is_ok()
            || actions.cast::<PyFrozenSet>().is_ok()
            || actions.hasattr("__next__")?
        {
            return Err(PyTypeError::new_err(format!(
                "actions must be a one-dimensional array of integer action ids, got {}",
                type_name(actions)
            )));
        }
        let py = actions.py();
        let np = py.import("numpy")?;
        // numpy makes `[True, 13]` an int64 array: a bool among the ids is
        // refused here, as a bool array (and a bool action anywhere) is.
        if actions.cast::<PyList>().is_ok() || actions.cast::<PyTuple>().is_ok() {
            let np_bool = np.getattr("bool_")?;
            for item in actions.try_iter()? {
                let item = item?;
                if item.cast::<PyBool>().is_ok() || item.is_instance(&np_bool)? {
                    return Err(PyTypeError::new_err(
                        "actions must be integer action ids, got a bool among them",
                    ));
                }
            }
        }
        let arr = np.call_method1("asarray", (actions,)).map_err(|e| {
            value_error(format!(
                "actions must be a one-dimensional array of integer action ids: {e}"
            ))
        })?;
        let dtype = arr.getattr("dtype")?;
        let kind: String = dtype.getattr("kind")?.extract()?;
        if !matches!(kind.as_str(), "i" | "u" | "O") {
            let name = match kind.as_str() {
                "U" => "str".to_string(),
                "S" => "bytes".to_string(),
                _ => dtype.getattr("name")?.str()?.to_string(),
            };
            return Err(PyTypeError::new_err(format!(
                "actions must be integer action ids, got {name}"
            )));
        }
        let ndim: usize = arr.getattr("ndim")?.extract()?;
        if ndim != 1 {
            return Err(value_error(format!(
                "actions must be a one-dimensional integer array, got {ndim} dimensions"
            )));
        }
        match kind.as_str() {
            "i" => {
                let conv = np.call_method1("ascontiguousarray", (&arr, "int64"))?;
                let conv: PyReadonlyArray1<'_, i64> = read_array(&conv, "actions")?;
                let s = conv.as_slice().map_err(value_error)?;
                self.fill_scratch(s.iter().map(|&v| v as i128), n)
            }
            "u" => {
                let conv = np.call_method1("ascontiguousarray", (&arr, "uint64"))?;
                let conv: PyReadonlyArray1<'_, u64> = read_array(&conv, "actions")?;
                let s = conv.as_slice().map_err(value_error)?;
                self.fill_scratch(s.iter().map(|&v| v as i128), n)
            }
            _ => {
                // An object array: a list holding an int beyond int64, or mixed values.
                let items: Vec<Bound<'_, PyAny>> = arr.try_iter()?.collect::<PyResult<_>>()?;
                if items.len() != n {
                    return Err(value_error(format!(
                        "{} actions for {n} games",
                        items.len()
                    )));
                }
                for (i, x) in items.iter().enumerate() {
                    if x.cast::<PyString>().is_ok() {
                        return Err(PyTypeError::new_err(format!(
                            "actions must be integer action ids, got str (game {i})"
                        )));
                    }
                    let id = action_from_py(x).map_err(|e| {
                        if e.is_instance_of::<PyTypeError>(py) {
                            let ty = type_name(x);
                            PyTypeError::new_err(format!(
                                "actions must be integer action ids, got {ty} (game {i})"
                            ))
                        } else {
                            value_error(format!("game {i}: {}", e.value(py)))
                        }
                    })?;
                    self.scratch.push(id as u32);
                }
                Ok(())
            }
        }
    }

    /// Checks `n` action ids (each in the action space) into the scratch buffer.
    fn fill_scratch(&mut self, it: impl ExactSizeIterator<Item = i128>, n: usize) -> PyResult<()> {
        if it.len() != n {
            return Err(value_error(format!("{} actions for {n} games", it.len())));
        }
        for (i, v) in it.enumerate() {
            if !(0..NUM_ACTIONS as i128).contains(&v) {
                return Err(value_error(format!(
                    "game {i}: action id {v} is out of range (the action space has {NUM_ACTIONS} actions)"
                )));
            }
            self.scratch.push(v as u32);
        }
        Ok(())
    }
}

#[pymethods]
impl PyVecEnv {
    /// `VecEnv(rules="attack-2010", players=4, num_envs=1024, seed=0, threads=1,
    /// episode="round", reward="win", legal_ids=False, opponents=None, seat=None)`.
    /// With `opponents` (an agent spec, or one per seat after the learner's)
    /// the env is single-agent: built-in agents play every other seat in Rust
    /// and every row is a decision of the learner, in `seat` (`None`: rotating).
    /// `rules` may be a `Game`, whose table size is then the default for `players`.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(
        signature = (rules = None, players = None, num_envs = None, seed = 0, threads = None, episode = "round", reward = "win", legal_ids = false, opponents = None, seat = None),
        text_signature = "(rules=None, players=None, num_envs=1024, seed=0, threads=1, episode='round', reward='win', legal_ids=False, opponents=None, seat=None)"
    )]
    fn new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
        num_envs: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
        threads: Option<&Bound<'_, PyAny>>,
        episode: &str,
        reward: &str,
        legal_ids: bool,
        opponents: Option<&Bound<'_, PyAny>>,
        seat: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (rules, players) = table_from_py(rules, players)?;
        let num_envs = size_arg(opt_int_arg(num_envs, "num_envs", 1024)?, "num_envs")?;
        let threads = size_arg(opt_int_arg(threads, "threads", 1)?, "threads")?;
        let config = EnvConfig {
            rules,
            players,
            episode: episode_from_str(episode)?,
            reward: reward_from_str(reward)?,
        };
        let seat = seat.map(|s| int_arg(s, "seat")).transpose()?;
        // The buffers first, through numpy (a failed allocation is numpy's
        // MemoryError), and only for a batch size the env accepts.
        if num_envs > uno_env::vec_env::MAX_ENVS {
            return Err(value_error(format!(
                "num_envs must be between 1 and {}, not {num_envs}",
                uno_env::vec_env::MAX_ENVS
            )));
        }
        Game::new(config.rules.clone(), config.players).map_err(value_error)?;
        let n = num_envs;
        // The legal-id lists are optional: zero rows turn them off.
        let ln = if legal_ids { n } else { 0 };
        let arrays = Arrays {
            obs: np_buffer(py, &[n, OBS_SIZE], "float32", 0)?,
            mask: np_buffer(py, &[n, NUM_ACTIONS], "uint8", 0)?,
            seat: np_buffer(py, &[n], "int32", 0)?,
            reward: np_buffer(py, &[n], "float32", 0)?,
            rewards: np_buffer(py, &[n, MAX_PLAYERS], "float32", 0)?,
            terminated: np_buffer(py, &[n], "uint8", 0)?,
            truncated: np_buffer(py, &[n], "uint8", 0)?,
            final_obs: np_buffer(py, &[n, OBS_SIZE], "float32", 0)?,
            episode_len: np_buffer(py, &[n], "uint32", 0)?,
            winner: np_buffer(py, &[n], "int32", -1)?,
            legal_ids: np_buffer(py, &[ln, NUM_ACTIONS], "uint8", 0)?,
            legal_count: np_buffer(py, &[ln], "uint8", 0)?,
        };
        let env = match opponents {
            None => {
                if seat.is_some() {
                    return Err(value_error(
                        "seat= picks the learner's seat of a single-agent env: give opponents= too",
                    ));
                }
                Inner::Multi(VecEnv::new(config, num_envs, seed, threads).map_err(env_error)?)
            }
            Some(o) => {
                let specs = opponent_specs(o)?;
                let seat = match seat {
                    None => None,
                    Some(s) if (0..players as i128).contains(&s) => Some(s as usize),
                    Some(s) => {
                        return Err(value_error(format!(
                            "the learner's seat must be a seat of the table, 0 to {}, not {s}",
                            players - 1
                        )));
                    }
                };
                let env = py
                    .detach(|| {
                        fork_safe(|| {
                            uno_agents::SoloVecEnv::new(
                                config, num_envs, seed, threads, &specs, seat,
                            )
                        })
                    })
                    .map_err(solo_env_error)?;
                for note in env.notes() {
                    let message =
                        std::ffi::CString::new(note.replace('\0', " ")).map_err(value_error)?;
                    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
                }
                Inner::Solo(env)
            }
        };
        Ok(PyVecEnv {
            game: Arc::new(env.game().clone()),
            env: std::mem::ManuallyDrop::new(env),
            arrays,
            scratch: Vec::with_capacity(n),
            pid: std::process::id(),
            legal_rows: ln,
            started: false,
        })
    }

    /// Restarts every game (episode counters back to 0) from the base seed,
    /// after replacing it with `seed` when one is given; returns `(obs, mask, seat)`.
    /// Without a seed it replays the same deals as the previous reset.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let seed = seed.map(seed_arg).transpose()?;
        let old = self.env.seed();
        if let Some(seed) = seed {
            self.env.reseed(seed);
        }
        let done = self
            .with_batch(py, |env, _, b| env.reset(b))
            .and_then(|r| r.map_err(value_error));
        if let Err(e) = done {
            // A reset that fails changes nothing, the base seed included.
            self.env.reseed(old);
            return Err(e);
        }
        self.started = true;
        let a = &self.arrays;
        PyTuple::new(
            py,
            [
                a.obs.bind(py).as_any(),
                a.mask.bind(py).as_any(),
                a.seat.bind(py).as_any(),
            ],
        )
    }

    /// Applies one action per game (for the seat in `seat`) and returns
    /// `(obs, mask, seat, reward, terminated, truncated)`, the same arrays every call.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.check_started("step")?;
        self.load_actions(actions)?;
        self.with_batch(py, |env, acts, b| env.step(acts, b))?
            .map_err(value_error)?;
        self.step_tuple(py)
    }

    /// Steps every game with a uniformly random legal action (seeded per game).
    /// With `write_obs=False` (benchmark mode) `obs`, `mask` and `final_obs` are
    /// not written and go stale; `seat`, the rewards, the done flags,
    /// `episode_len`, `winner` and `legal_ids` stay current.
    #[pyo3(signature = (write_obs = true))]
    fn step_random<'py>(
        &mut self,
        py: Python<'py>,
        write_obs: bool,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.check_started("step_random")?;
        self.with_batch(py, move |env, _, b| env.step_random(b, write_obs))?
            .map_err(value_error)?;
        self.step_tuple(py)
    }

    /// A copy of game `i`'s current state.
    fn state(&self, i: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let n = self.env.num_envs();
        let i = int_arg(i, "a game index")?;
        if !(0..n as i128).contains(&i) {
            return Err(PyIndexError::new_err(format!(
                "game {i} out of range ({n} games)"
            )));
        }
        let i = i as usize;
        Ok(PyState::wrap(self.game.clone(), self.env.state(i).clone()))
    }

    /// The compiled game.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame {
            game: self.game.clone(),
        }
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }

    /// The base seed: episode `k` of game `i` is
    /// `Game.new_state(seed ^ (k * 0x9E3779B97F4A7C15 mod 2**64), stream=i)`.
    #[getter]
    fn seed(&self) -> u64 {
        self.env.seed()
    }

    fn __len__(&self) -> usize {
        self.env.num_envs()
    }

    /// Threads used.
    #[getter]
    fn threads(&self) -> usize {
        self.env.threads()
    }

    /// The opponents' specs, one per seat after the learner's, of a
    /// single-agent env (`None` for a multi-agent one).
    #[getter]
    fn opponents(&self) -> Option<Vec<String>> {
        match &*self.env {
            Inner::Multi(_) => None,
            Inner::Solo(e) => Some(e.opponents().iter().map(|s| s.to_string()).collect()),
        }
    }

    /// Players per table.
    #[getter]
    fn num_players(&self) -> usize {
        self.env.game().num_players()
    }

    /// Observation of the seat to act: float32 [n, OBS_SIZE].
    #[getter]
    fn obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.arrays.obs.bind(py).clone()
    }

    /// Legal actions of the seat to act (1 = legal): uint8 [n, 98].
    #[getter]
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        self.arrays.mask.bind(py).clone()
    }

    /// Seat to act: int32 [n].
    #[getter]
    fn seat<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.arrays.seat.bind(py).clone()
    }

    /// Reward of the seat that just acted: float32 [n].
    #[getter]
    fn reward<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.arrays.reward.bind(py).clone()
    }

    /// Reward of every seat this step: float32 [n, 10].
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.arrays.rewards.bind(py).clone()
    }

    /// Episode ended by the rules: uint8 [n] of 0/1 (use `.astype(bool)`, not `~`).
    #[getter]
    fn terminated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.arrays.terminated.bind(py).clone()
    }

    /// Episode cut short by the decision cap: uint8 [n] of 0/1 (use `.astype(bool)`, not `~`).
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.arrays.truncated.bind(py).clone()
    }

    /// Final observation of a finished episode, of the seat that made the last
    /// move (the previous step's `seat`): float32 [n, OBS_SIZE].
    #[getter]
    fn final_obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.arrays.final_obs.bind(py).clone()
    }

    /// Decisions in the episode that ended at this step, 0 where none did: uint32 [n].
    #[getter]
    fn episode_len<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.arrays.episode_len.bind(py).clone()
    }

    /// Winner of the episode that ended at this step (-1 when it had none, or none
    /// ended): int32 [n].
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.arrays.winner.bind(py).clone()
    }

    /// Legal action ids of the seat to act, in increasing order: uint8 [n, 98];
    /// only the first `legal_count[i]` entries of row `i` are meaningful.
    /// Written only when made with `legal_ids=True` (else shape [0, 98]).
    #[getter]
    fn legal_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        self.arrays.legal_ids.bind(py).clone()
    }

    /// Number of legal actions of the seat to act: uint8 [n] (with `legal_ids=True`).
    #[getter]
    fn legal_count<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.arrays.legal_count.bind(py).clone()
    }

    fn __repr__(&self) -> String {
        let opponents = match self.opponents() {
            Some(o) => format!(", opponents={o:?}"),
            None => String::new(),
        };
        format!(
            "VecEnv(rules={:?}, players={}, num_envs={}, threads={}{opponents})",
            self.env.game().rules().name,
            self.env.game().num_players(),
            self.env.num_envs(),
            self.env.threads()
        )
    }
}

/// The extension module `uno_attack._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    LOADED_IN.get_or_init(std::process::id);
    uno_agents::neural::register(); // `checkpoint:<dir>` agents
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add_class::<PyVecEnv>()?;
    m.add_class::<PyAgent>()?;
    m.add_class::<policy::PyPolicy>()?;
    m.add_function(wrap_pyfunction!(action_name, m)?)?;
    m.add_function(wrap_pyfunction!(action_id, m)?)?;
    m.add_function(wrap_pyfunction!(action_names, m)?)?;
    m.add_function(wrap_pyfunction!(obs_pieces, m)?)?;
    m.add_function(wrap_pyfunction!(describe_obs, m)?)?;
    m.add_function(wrap_pyfunction!(state_from_json_fn, m)?)?;
    m.add("NUM_ACTIONS", NUM_ACTIONS)?;
    m.add("OBS_SIZE", OBS_SIZE)?;
    m.add("ORACLE_SIZE", ORACLE_SIZE)?;
    m.add("OBS_VERSION", OBS_VERSION)?;
    m.add("MAX_PLAYERS", MAX_PLAYERS)?;
    m.add("MIN_PLAYERS", uno_env::MIN_PLAYERS)?;
    m.add("PRESETS", PRESETS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
