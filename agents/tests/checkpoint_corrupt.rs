//! A corrupt or mismatched checkpoint is an error naming the problem, never a
//! panic or an abort (docs: "Bad input gets a clear error and loses
//! nothing"). A small network is saved once; then its `model.bpk` is cut and
//! overwritten byte by byte and its `meta.json` is mangled, and each result is
//! loaded through the public paths: `load_checkpoint` (the trainer and the
//! Python binding), `NeuralAgent::load` and a `checkpoint:` agent spec (the
//! CLI). A load that succeeds must give a network that runs and gives finite
//! outputs (the damaged bytes did not matter, e.g. a parameter id).

#![cfg(feature = "neural")]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use uno_agents::neural::{
    CheckpointMeta, EXPECTED, MAX_WEIGHT, META_FILE, MODEL_FILE, NetConfig, NeuralAgent,
    NeuralError, NeuralPolicy, PolicyValueNet, load_checkpoint, save_checkpoint,
};
use uno_agents::{AgentSpec, build};
use uno_env::vec_env::Picker;
use uno_env::{NUM_ACTIONS, OBS_SIZE, OBS_VERSION};

/// Bytes of the burnpack header: magic, version, metadata length.
const BPK_HEADER: usize = 10;

/// A fresh scratch directory for this test (removed by [`Scratch`]'s drop).
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "uno-ckpt-corrupt-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tiny network of the shape this build plays (with LayerNorm, so every
/// kind of tensor is in the file).
fn small_config() -> NetConfig {
    NetConfig {
        obs_dim: OBS_SIZE,
        num_actions: NUM_ACTIONS,
        hidden: vec![3, 2],
        layer_norm: true,
    }
}

/// Saves the small network into `dir`; returns `(meta.json, model.bpk)`.
/// Its `meta.json` has no `model_crc32`, as checkpoints written before
/// 2026-11-29: the checks these tests damage the weights for run before the
/// checksum's, and without it a damage they let through loads (see
/// [`a_checksum_refuses_weights_changed_after_the_save`]).
fn save_small(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let (meta, model) = save_small_checked(dir);
    let mut v: Value = serde_json::from_slice(&meta).expect("json");
    v.as_object_mut().expect("object").remove("model_crc32");
    let meta = serde_json::to_vec_pretty(&v).expect("json");
    std::fs::write(dir.join(META_FILE), &meta).expect("write meta");
    (meta, model)
}

/// [`save_small`] as `save_checkpoint` writes it: with the weights' checksum.
fn save_small_checked(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let cfg = small_config();
    let net = PolicyValueNet::new_seeded(&cfg, &burn::tensor::Device::flex(), 7).expect("net");
    let meta = CheckpointMeta::new("attack-2010", 2, OBS_VERSION, cfg);
    save_checkpoint(dir, &net, &meta).expect("save");
    (
        std::fs::read(dir.join(META_FILE)).expect("meta"),
        std::fs::read(dir.join(MODEL_FILE)).expect("model"),
    )
}

/// Checks: `save_checkpoint` records the CRC-32 of `model.bpk` in `meta.json`,
/// and a load refuses weights that no longer match it, naming the file: each
/// byte of the tensor data changed in place (a change the other checks let
/// through when it leaves usable numbers, as the test's own control shows),
/// bytes appended, and the weights of another checkpoint. A malformed
/// checksum is refused as metadata; a removed one loads unchecked.
#[test]
fn a_checksum_refuses_weights_changed_after_the_save() {
    let s = Scratch::new("crc");
    let dir = &s.0;
    let (meta, model) = save_small_checked(dir);
    let v: Value = serde_json::from_slice(&meta).expect("json");
    let crc = v["model_crc32"].as_str().expect("model_crc32 written");
    assert_eq!(crc, format!("{:08x}", crc32fast::hash(&model)));
    assert_eq!(load_all(dir, "unchanged"), Outcome::Loaded);
    let start = data_start(&model);
    let mut harmless_unchecked = 0;
    for at in (start..model.len()).step_by(29) {
        let mut m = model.clone();
        // The lowest mantissa bit of a weight: still a usable number.
        m[at - (at - start) % 4] ^= 1;
        let what = format!("low bit of the number at byte {at} flipped");
        match load_model(dir, &m, &what) {
            Outcome::Refused(e) => assert!(
                e.contains(MODEL_FILE) && e.contains("CRC-32") && e.contains(crc),
                "{what}: {e}"
            ),
            Outcome::Loaded => panic!("{what}: loaded"),
        }
        // Without the checksum, the same file loads.
        std::fs::write(
            dir.join(META_FILE),
            edited(&meta, |v| {
                v.as_object_mut().expect("object").remove("model_crc32");
            }),
        )
        .expect("write meta");
        if load_all(dir, &what) == Outcome::Loaded {
            harmless_unchecked += 1;
        }
        std::fs::write(dir.join(META_FILE), &meta).expect("write meta");
    }
    assert!(
        harmless_unchecked > 0,
        "no flipped bit loaded without the checksum"
    );
    let mut longer = model.clone();
    longer.extend([0u8; 100]);
    assert!(
        matches!(load_model(dir, &longer, "100 bytes appended"), Outcome::Refused(e) if e.contains("CRC-32"))
    );
    // Another checkpoint's weights, of the same shape, under this meta.json.
    let other = Scratch::new("crc-other");
    let cfg = small_config();
    let net = PolicyValueNet::new_seeded(&cfg, &burn::tensor::Device::flex(), 8).expect("net");
    save_checkpoint(
        &other.0,
        &net,
        &CheckpointMeta::new("attack-2010", 2, OBS_VERSION, cfg),
    )
    .expect("save");
    let theirs = std::fs::read(other.0.join(MODEL_FILE)).expect("model");
    assert!(
        matches!(load_model(dir, &theirs, "another checkpoint's weights"), Outcome::Refused(e) if e.contains("another checkpoint"))
    );
    std::fs::write(dir.join(MODEL_FILE), &model).expect("write model");
    for bad in [
        json!("1234567"),
        json!("123456789"),
        json!("xyzxyzxy"),
        json!(5),
    ] {
        let e = match load_meta(
            dir,
            &edited(&meta, |v| v["model_crc32"] = bad.clone()),
            "bad crc",
        ) {
            Outcome::Refused(e) => e,
            Outcome::Loaded => panic!("model_crc32 = {bad}: loaded"),
        };
        assert!(
            e.contains("model_crc32") || e.contains(META_FILE),
            "{bad}: {e}"
        );
    }
}

/// End of the burnpack header and metadata: where the tensor data starts.
fn data_start(model: &[u8]) -> usize {
    let len = u32::from_le_bytes(model[6..10].try_into().expect("4 bytes")) as usize;
    (BPK_HEADER + len).div_ceil(256) * 256
}

/// What loading `dir` gave through every public path.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Loaded, and the network runs with finite outputs.
    Loaded,
    /// Refused with this error (the same through every path).
    Refused(String),
}

/// Loads `dir` through `load_checkpoint`, `NeuralAgent::load` and a
/// `checkpoint:` spec, each inside `catch_unwind`. Fails the test (naming
/// `what`) on a panic, on paths that disagree, on an empty error message, or
/// on a loaded network whose outputs are not finite.
fn load_all(dir: &Path, what: &str) -> Outcome {
    let caught = |name: &str, r: std::thread::Result<Result<(), String>>| match r {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{what}: {name} panicked: {msg}")
        }
    };
    let direct = caught(
        "load_checkpoint",
        catch_unwind(AssertUnwindSafe(|| {
            let (net, _) = load_checkpoint(dir, Some(EXPECTED)).map_err(|e| e.to_string())?;
            runs_finite(NeuralPolicy::new(net), what);
            Ok(())
        })),
    );
    let agent = caught(
        "NeuralAgent::load",
        catch_unwind(AssertUnwindSafe(|| {
            NeuralAgent::load(dir, false, 1)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })),
    );
    let spec = caught(
        "checkpoint: spec",
        catch_unwind(AssertUnwindSafe(|| {
            build(&AgentSpec::Checkpoint(dir.to_path_buf()), 1)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })),
    );
    assert_eq!(
        direct.is_ok(),
        agent.is_ok(),
        "{what}: paths disagree: {direct:?} / {agent:?}"
    );
    assert_eq!(
        direct.is_ok(),
        spec.is_ok(),
        "{what}: paths disagree: {direct:?} / {spec:?}"
    );
    // Every refusal names the checkpoint (or a file in it): given several
    // checkpoints, the user can tell which one is bad.
    let shown = dir.display().to_string();
    for e in [&direct, &agent, &spec]
        .into_iter()
        .filter_map(|r| r.as_ref().err())
    {
        assert!(
            e.contains(&shown),
            "{what}: the error does not name {shown}: {e}"
        );
    }
    match direct {
        Ok(()) => Outcome::Loaded,
        Err(e) => {
            assert!(!e.trim().is_empty(), "{what}: empty error message");
            Outcome::Refused(e)
        }
    }
}

/// A loaded network must run on an observation and give finite outputs.
fn runs_finite(policy: NeuralPolicy, what: &str) {
    let obs = vec![0.5f32; OBS_SIZE];
    let mask = vec![true; NUM_ACTIONS];
    let mut logits = vec![0f32; NUM_ACTIONS];
    let mut values = vec![0f32; 1];
    policy
        .forward_batch(&obs, &mask, 1, &mut logits, Some(&mut values))
        .unwrap_or_else(|e| panic!("{what}: loaded, but the forward pass fails: {e}"));
    assert!(
        logits.iter().chain(&values).all(|v| v.is_finite()),
        "{what}: loaded, but the outputs are not finite"
    );
}

/// Writes `model` as the checkpoint's weights and loads it.
fn load_model(dir: &Path, model: &[u8], what: &str) -> Outcome {
    std::fs::write(dir.join(MODEL_FILE), model).expect("write model");
    load_all(dir, what)
}

/// Writes `meta` as the checkpoint's metadata and loads it.
fn load_meta(dir: &Path, meta: &[u8], what: &str) -> Outcome {
    std::fs::write(dir.join(META_FILE), meta).expect("write meta");
    load_all(dir, what)
}

/// Checks that the saved checkpoint loads (the baseline every mutation
/// departs from).
#[test]
fn the_small_checkpoint_loads() {
    let s = Scratch::new("ok");
    save_small(&s.0);
    assert_eq!(load_all(&s.0, "unchanged"), Outcome::Loaded);
}

/// Checks (a): `model.bpk` cut at every length of its header and metadata,
/// and at a stride through its tensor data, is refused, naming the file.
#[test]
fn truncated_weights_are_errors() {
    let s = Scratch::new("cut");
    let (_, model) = save_small(&s.0);
    let start = data_start(&model);
    let cuts = (0..=start).chain((start..model.len()).step_by(61));
    for cut in cuts {
        match load_model(&s.0, &model[..cut], &format!("cut at {cut}")) {
            Outcome::Refused(e) => assert!(e.contains(MODEL_FILE), "cut at {cut}: {e}"),
            Outcome::Loaded => panic!("cut at {cut} of {} loaded", model.len()),
        }
    }
    // Bytes appended after the last tensor do not matter.
    let mut longer = model.clone();
    longer.extend([0u8; 100]);
    load_model(&s.0, &longer, "100 bytes appended");
}

/// Checks (b): each byte of the header and metadata overwritten with 0x00,
/// 0xFF, a digit and a random value, and bytes of the tensor data at a
/// stride overwritten with 0xFF, give an error or a network that runs with
/// finite outputs. Never a panic.
#[test]
fn overwritten_weight_bytes_are_errors_or_harmless() {
    let s = Scratch::new("flip");
    let (_, model) = save_small(&s.0);
    let start = data_start(&model);
    let mut rng = Picker::new(2026, 1);
    let mut refused = 0;
    for at in 0..start {
        let random = rng.below(256) as u8;
        for value in [0x00, 0xFF, b'7', random] {
            if model[at] == value {
                continue;
            }
            let mut m = model.clone();
            m[at] = value;
            let what = format!("byte {at} set to {value:#04x}");
            if let Outcome::Refused(_) = load_model(&s.0, &m, &what) {
                refused += 1;
            }
        }
    }
    assert!(refused > start, "only {refused} header mutations refused");
    for at in (start..model.len()).step_by(37) {
        let mut m = model.clone();
        m[at] = 0xFF;
        load_model(&s.0, &m, &format!("data byte {at} set to 0xff"));
    }
}

/// Checks (b), damaged exponents: a weight made huge but finite (1e35, what a
/// damaged exponent byte gives) is refused, naming the file and the bound; so
/// is one just past the bound, while one at it loads. Then the top exponent
/// bit of every 13th stored number is flipped in turn (0.05 becomes about
/// 1.7e37): each copy is refused or loads a network with finite outputs.
/// Before session 42 such weights loaded and the network played on infinite
/// or NaN logits.
#[test]
fn huge_finite_weights_are_errors() {
    let s = Scratch::new("exp");
    let (_, model) = save_small(&s.0);
    let start = data_start(&model);
    for (value, loads) in [
        (1e35f32, false),
        (-1e35, false),
        (-1.01e6, false),
        (MAX_WEIGHT, true),
        (-2.5, true),
    ] {
        let mut m = model.clone();
        m[start..start + 4].copy_from_slice(&value.to_le_bytes());
        let what = format!("first weight {value:e}");
        match load_model(&s.0, &m, &what) {
            Outcome::Loaded => assert!(loads, "{what}: loaded"),
            Outcome::Refused(e) => {
                assert!(!loads, "{what}: refused: {e}");
                assert!(e.contains(MODEL_FILE) && e.contains("1e6"), "{what}: {e}");
            }
        }
    }
    let mut refused = 0;
    for at in (start..model.len() - 3).step_by(4 * 13) {
        let mut m = model.clone();
        m[at + 3] ^= 0x40;
        let what = format!("exponent bit of the number at byte {at} flipped");
        if let Outcome::Refused(_) = load_model(&s.0, &m, &what) {
            refused += 1;
        }
    }
    assert!(refused > 0, "no flipped exponent was refused");
}

/// Checks (b), the allocation case: a header claiming far more metadata than
/// the file holds (up to the format's 100 MB limit and past it) is refused
/// without reading that much; a file as long as it claims, all zeros, is too.
#[test]
fn a_header_claiming_a_huge_length_is_an_error() {
    let s = Scratch::new("huge");
    let (_, model) = save_small(&s.0);
    for claim in [u32::MAX, 100 << 20, (100 << 20) - 1, 1 << 24, 70_000] {
        let mut m = model.clone();
        m[6..10].copy_from_slice(&claim.to_le_bytes());
        let what = format!("metadata length {claim}");
        assert!(
            matches!(load_model(&s.0, &m, &what), Outcome::Refused(_)),
            "{what}"
        );
    }
}

/// Checks: a network described by `meta.json` that is far larger than the
/// weights file (up to the `MAX_PARAMS` limit, a gigabyte of weights) is
/// refused before it is built, not after allocating and initialising it.
#[test]
fn a_meta_json_describing_a_huge_network_is_refused_quickly() {
    let s = Scratch::new("bignet");
    let (meta, _) = save_small(&s.0);
    let mut v: Value = serde_json::from_slice(&meta).expect("json");
    v["net"]["hidden"] = json!([16000, 16000]);
    let t = std::time::Instant::now();
    let out = load_meta(
        &s.0,
        &serde_json::to_vec(&v).expect("json"),
        "hidden=[16000,16000]",
    );
    assert!(
        matches!(&out, Outcome::Refused(e) if e.contains(MODEL_FILE)),
        "{out:?}"
    );
    // Three loads of a 256M-parameter network would take many seconds.
    assert!(t.elapsed().as_secs() < 3, "took {:?}", t.elapsed());
}

/// The saved `meta.json` with `edit` applied to its JSON value.
fn edited(meta: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(meta).expect("json");
    edit(&mut v);
    serde_json::to_vec(&v).expect("json")
}

/// Checks (c): `meta.json` mangled — not JSON, cut short, non-UTF-8, deep
/// nesting, fields missing, fields of the wrong type, huge, negative or NaN
/// numbers, sizes that disagree with each other, with the weights or with
/// this build — is refused naming the problem (or, for a change that does
/// not matter, loads a working network). Never a panic.
#[test]
fn mangled_meta_json_is_an_error() {
    let s = Scratch::new("meta");
    let (meta, _) = save_small(&s.0);
    let dir = &s.0;
    let refused = |bytes: &[u8], what: &str| match load_meta(dir, bytes, what) {
        Outcome::Refused(e) => e,
        Outcome::Loaded => panic!("{what}: loaded"),
    };

    // Not JSON, or not a JSON object.
    for (bytes, what) in [
        (&b""[..], "empty"),
        (b"{", "open brace"),
        (b"null", "null"),
        (b"[]", "array"),
        (b"42", "number"),
        (b"\xff\xfe{\"a\":1}", "non-UTF-8 prefix"),
        (
            b"{\"format_version\": 1, \"rules\": \"\xc3\x28\"}",
            "bad UTF-8 in a string",
        ),
    ] {
        let e = refused(bytes, what);
        assert!(e.contains(META_FILE), "{what}: {e}");
    }
    // Cut at every length.
    for cut in 0..meta.len() {
        let _ = refused(&meta[..cut], &format!("meta cut at {cut}"));
    }
    // Deeply nested values in free-form and typed fields.
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    for field in ["trained_with", "net", "tables"] {
        let text = String::from_utf8(meta.clone()).expect("utf8");
        let text = text.replacen('{', &format!("{{\"{field}\": {deep},"), 1);
        let _ = refused(text.as_bytes(), &format!("deep {field}"));
    }
    // Every field missing in turn (the ones with defaults may go).
    let v: Value = serde_json::from_slice(&meta).expect("json");
    let fields: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
    for f in &fields {
        let m = edited(&meta, |v| {
            v.as_object_mut().expect("object").remove(f);
        });
        let optional = ["steps", "updates", "trained_with", "eval"].contains(&f.as_str());
        let out = load_meta(dir, &m, &format!("no {f}"));
        assert_eq!(optional, out == Outcome::Loaded, "no {f}: {out:?}");
    }
    for f in ["obs_dim", "num_actions", "hidden", "layer_norm"] {
        let m = edited(&meta, |v| {
            v["net"].as_object_mut().expect("object").remove(f);
        });
        // A missing `hidden` is the default [256, 256], which the weights do not fit.
        let _ = refused(&m, &format!("no net.{f}"));
    }
    // Every field given values of every wrong type and out-of-range numbers.
    let weird = [
        json!(null),
        json!("NaN"),
        json!("1"),
        json!(-1),
        json!(1.5),
        json!(1e18),
        json!(f64::MAX),
        json!(u64::MAX),
        json!(i64::MIN),
        json!([]),
        json!({}),
        json!(true),
    ];
    for f in &fields {
        for w in &weird {
            let m = edited(&meta, |v| v[f.as_str()] = w.clone());
            let _ = load_meta(dir, &m, &format!("{f} = {w}"));
        }
    }
    for f in ["obs_dim", "num_actions", "hidden", "layer_norm"] {
        for w in weird.iter().filter(|w| **w != v["net"][f]) {
            let m = edited(&meta, |v| v["net"][f] = w.clone());
            let _ = refused(&m, &format!("net.{f} = {w}"));
        }
    }
    // The network's shape: huge, negative, zero, NaN, or other than the weights'.
    for hidden in [
        json!([1e18]),
        json!([1_000_000_000_000_000_000u64]),
        json!([u64::MAX, u64::MAX]),
        json!([-1]),
        json!([0]),
        json!([]),
        json!(["NaN"]),
        json!([3.5]),
        json!([3]),
        json!([2, 3]),
        json!([3, 2, 1]),
        json!([3, 2, 0]),
        json!([100_000, 100_000]),
        json!(vec![1; 100_000]),
    ] {
        let m = edited(&meta, |v| v["net"]["hidden"] = hidden.clone());
        let _ = refused(&m, &format!("hidden = {hidden}"));
    }
    // Sizes that disagree with each other, the weights or this build.
    type Edit = Box<dyn Fn(&mut Value)>;
    let mismatches: [(&str, Edit); 9] = [
        (
            "obs_dim +1",
            Box::new(|v| v["obs_dim"] = json!(OBS_SIZE + 1)),
        ),
        (
            "net.obs_dim +1",
            Box::new(|v| v["net"]["obs_dim"] = json!(OBS_SIZE + 1)),
        ),
        (
            "both obs_dim 5",
            Box::new(|v| {
                v["obs_dim"] = json!(5);
                v["net"]["obs_dim"] = json!(5);
            }),
        ),
        (
            "both num_actions +1",
            Box::new(|v| {
                v["num_actions"] = json!(NUM_ACTIONS + 1);
                v["net"]["num_actions"] = json!(NUM_ACTIONS + 1);
            }),
        ),
        (
            "obs_version +1",
            Box::new(|v| v["obs_version"] = json!(OBS_VERSION + 1)),
        ),
        ("obs_version 0", Box::new(|v| v["obs_version"] = json!(0))),
        (
            "format_version 2",
            Box::new(|v| v["format_version"] = json!(2)),
        ),
        (
            "no LayerNorm",
            Box::new(|v| v["net"]["layer_norm"] = json!(false)),
        ),
        ("players 0", Box::new(|v| v["players"] = json!(0))),
    ];
    for (what, edit) in &mismatches {
        let e = refused(&edited(&meta, edit), what);
        assert!(
            !e.contains("Shape {"),
            "{what}: burn's words, not ours: {e}"
        );
    }
    for (field, value) in [
        ("rules_toml", json!("[[[ not toml")),
        ("rules", json!("attack\u{1b}[2J")),
    ] {
        let _ = refused(&edited(&meta, |v| v[field] = value), field);
    }
    // Tables of absurd sizes or types.
    for tables in [
        json!([{"rules": "classic", "players": 0}]),
        json!([{"rules": "classic", "players": 1_000_000}]),
        json!([{"rules": 5, "players": 2}]),
        json!("classic"),
    ] {
        let _ = refused(&edited(&meta, |v| v["tables"] = tables.clone()), "tables");
    }
    // A meta.json larger than the 16 MB limit.
    let mut big = meta.clone();
    big.extend(std::iter::repeat_n(b' ', 17 << 20));
    let e = refused(&big, "17 MB meta.json");
    assert!(e.contains("larger than"), "{e}");
}

/// Checks: a checkpoint directory whose files are directories, or missing,
/// is refused naming the path.
#[test]
fn missing_or_misplaced_files_are_errors() {
    let s = Scratch::new("missing");
    let dir = &s.0;
    save_small(dir);
    std::fs::remove_file(dir.join(MODEL_FILE)).expect("rm");
    assert!(
        matches!(load_all(dir, "no model.bpk"), Outcome::Refused(e) if e.contains(MODEL_FILE) && e.ends_with("is missing"))
    );
    std::fs::create_dir(dir.join(MODEL_FILE)).expect("mkdir");
    assert!(
        matches!(load_all(dir, "model.bpk a dir"), Outcome::Refused(e) if e.contains(MODEL_FILE) && e.contains("is not a file"))
    );
    std::fs::remove_file(dir.join(META_FILE)).expect("rm");
    std::fs::create_dir(dir.join(META_FILE)).expect("mkdir");
    assert!(
        matches!(load_all(dir, "meta.json a dir"), Outcome::Refused(e) if e.contains(META_FILE) && e.contains("is not a file"))
    );
    let gone = dir.join("nowhere");
    assert!(matches!(load_all(&gone, "no dir"), Outcome::Refused(_)));
    // The typed error for the common case, not just a message.
    assert!(matches!(
        load_checkpoint(&gone, None),
        Err(NeuralError::MissingDir(_))
    ));
}

/// `model` with the CBOR text `from` in its metadata replaced by `to` (the
/// occurrence number `nth`, or every one when `None`), the header's metadata
/// length and the data section's alignment fixed up: a well-formed file whose
/// tensors claim another element type.
fn with_dtype(model: &[u8], from: &str, to: &str, nth: Option<usize>) -> Vec<u8> {
    let cbor = |s: &str| {
        let mut v = vec![0x60 + s.len() as u8];
        v.extend(s.as_bytes());
        v
    };
    let (from, to) = (cbor(from), cbor(to));
    let meta_len = u32::from_le_bytes(model[6..10].try_into().expect("4 bytes")) as usize;
    let meta = &model[BPK_HEADER..BPK_HEADER + meta_len];
    let mut out_meta = Vec::new();
    let (mut i, mut seen) = (0, 0);
    while i < meta.len() {
        if meta[i..].starts_with(&from) {
            if nth.is_none_or(|n| n == seen) {
                out_meta.extend(&to);
            } else {
                out_meta.extend(&from);
            }
            seen += 1;
            i += from.len();
        } else {
            out_meta.push(meta[i]);
            i += 1;
        }
    }
    let mut out = model[..6].to_vec();
    out.extend((out_meta.len() as u32).to_le_bytes());
    out.extend(out_meta);
    out.resize((out.len()).div_ceil(256) * 256, 0);
    out.extend(&model[data_start(model)..]);
    out
}

/// Checks (b), element types: a well-formed file whose tensors (one at a
/// time, then all) claim another element type than f32 — the same width
/// (i32, u32, flex32) or another (f16, f64, i8, ...) — is refused naming the
/// file: weights read as integers are not the network that was saved.
#[test]
fn weights_of_another_element_type_are_errors() {
    let s = Scratch::new("dtype");
    let (_, model) = save_small(&s.0);
    let tensors = model.windows(4).filter(|w| *w == b"\x63F32").count();
    assert!(tensors >= 8, "{tensors} f32 tensors found in the header");
    for to in [
        "I32", "U32", "Flex32", "F16", "BF16", "F64", "I64", "U64", "I16", "U16", "I8", "U8",
    ] {
        for nth in (0..tensors).map(Some).chain([None]) {
            let m = with_dtype(&model, "F32", to, nth);
            let what = format!("tensor {nth:?} as {to}");
            match load_model(&s.0, &m, &what) {
                Outcome::Refused(e) => assert!(e.contains(MODEL_FILE), "{what}: {e}"),
                Outcome::Loaded => panic!("{what}: loaded"),
            }
        }
    }
    // The rewriting itself is sound: F32 for F32 loads.
    assert_eq!(
        load_model(&s.0, &with_dtype(&model, "F32", "F32", None), "F32"),
        Outcome::Loaded
    );
}
