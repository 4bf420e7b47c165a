//! End-to-end trainer tests: a short run learns, resume continues the run,
//! and bad checkpoints or flags give errors, not panics.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use uno_agents::{AgentSpec, ArenaConfig, run_arena};
use uno_env::Rules;
use uno_train::learner::LearnerConfig;
use uno_train::selfplay::{OpponentMix, TrainConfig, TrainError, Trainer};

fn tiny(steps: u64) -> TrainConfig {
    TrainConfig {
        rules: "classic".into(),
        players: 2,
        steps,
        envs: 64,
        batch_samples: 2048,
        hidden: vec![64],
        learner: LearnerConfig {
            minibatch_size: 512,
            epochs: 3,
            lr: 1e-3,
            ..LearnerConfig::default()
        },
        opponents: OpponentMix {
            self_play: 0.0,
            snapshot: 0.0,
            heuristic: 0.0,
            random: 1.0,
        },
        eval_every: 0,
        snapshot_every: 0,
        checkpoint_every: 5,
        threads: 1,
        tensorboard: false,
        seed: 3,
        ..TrainConfig::default()
    }
}

/// A tiny run that was started and checkpointed (nothing trained), in a
/// temporary directory: the directory and the run's path in it.
fn saved_tiny_run() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut t = Trainer::new(tiny(5_000), &out, false).unwrap();
    t.save().unwrap();
    (dir, out)
}

/// A tiny run trained to `steps` in a temporary directory: the directory,
/// the run's path in it and its counters when it finished.
fn trained_tiny_run(
    steps: u64,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    uno_train::selfplay::TrainerState,
) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut t = Trainer::new(tiny(steps), &out, false).unwrap();
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    let state = t.state().clone();
    (dir, out, state)
}

/// The values of scalar `key` in the lines of a run's `metrics.jsonl`, in order.
fn series(metrics: &str, key: &str) -> Vec<f64> {
    metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["scalars"][key].as_f64())
        .collect()
}

/// Win rate (and its lower 95 % bound) of checkpoint `dir` against `random` in 2-player classic.
fn win_rate_vs_random(dir: &Path, games: u64) -> (f64, f64) {
    uno_agents::neural::register();
    let cfg = ArenaConfig {
        rules: Rules::preset("classic").unwrap(),
        players: 2,
        agents: vec![AgentSpec::Checkpoint(dir.to_path_buf()), AgentSpec::Random],
        games,
        seed: 99,
        threads: 1,
    };
    let r = run_arena(&cfg, None).unwrap();
    (r.agents[0].win_rate, r.agents[0].win_ci[0])
}

#[test]
fn short_training_beats_random_measurably() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // The untrained network, saved before any update, plays close to random.
    let mut t = Trainer::new(tiny(250_000), &out, false).unwrap();
    t.save().unwrap();
    let (before, _) = win_rate_vs_random(&out.join("latest"), 600);
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    let (after, after_low) = win_rate_vs_random(&out.join("latest"), 600);
    // 600 games: the 95 % interval is about ±4 points; a 10-point gain with the
    // lower bound above 0.6 cannot come from chance.
    assert!(
        after_low > 0.6,
        "after training: {after:.3} (lower bound {after_low:.3}), before {before:.3}"
    );
    assert!(
        after > before + 0.10,
        "before {before:.3}, after {after:.3}"
    );
}

#[test]
fn resume_continues_steps_updates_and_optimizer() {
    let (_dir, out, first) = trained_tiny_run(20_000);
    assert!(first.steps >= 20_000 && first.updates >= 1);
    let meta1: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("latest/meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta1["updates"].as_u64(), Some(first.updates));
    // A run killed after its checkpoint leaves lines the resume will redo, the last maybe cut.
    let orphan = format!(
        "{{\"step\":{},\"wall_time\":0.0,\"scalars\":{{\"train/lr\":1.0}}}}\n{{\"step\":",
        first.steps + 1
    );
    let jsonl = out.join("metrics.jsonl");
    let before = std::fs::read_to_string(&jsonl).unwrap();
    std::fs::write(&jsonl, before.clone() + &orphan).unwrap();
    // Resume with a larger budget: counters continue from the checkpoint.
    let mut t = Trainer::new(tiny(40_000), &out, true).unwrap();
    assert!(
        t.notes()
            .iter()
            .any(|n| n.contains("2 line(s) of metrics.jsonl came after the checkpoint")),
        "{:?}",
        t.notes()
    );
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap(), before);
    assert_eq!(t.state().steps, first.steps);
    assert_eq!(t.state().updates, first.updates);
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    assert!(t.state().steps >= 40_000);
    assert!(t.state().updates > first.updates);
    // (`run` flushed the metrics.) Every update logs a real throughput, the first ones of a fresh start
    // and of a resume included (they used to log 0).
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let rates = series(&metrics, "perf/steps_per_sec");
    assert!(rates.len() >= 2, "{metrics}");
    assert!(rates.iter().all(|&r| r > 0.0), "{rates:?}");
    // Every line is a whole record, and the steps never go back.
    let steps: Vec<u64> = metrics
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["step"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
    // A 2-player classic round takes tens of decisions.
    let lengths = series(&metrics, "train/episode_length");
    assert!(!lengths.is_empty(), "{metrics}");
    assert!(
        lengths.iter().all(|&l| (5.0..500.0).contains(&l)),
        "{lengths:?}"
    );
    assert!(
        !metrics.contains("classic-2p/episode_length"),
        "one table: no per-table lengths"
    );
    let learner: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("latest/learner.json")).unwrap())
            .unwrap();
    assert_eq!(
        learner["updates"].as_u64(),
        Some(t.state().updates),
        "optimizer/learner state continues"
    );
    // A run for other rules cannot resume this one.
    drop(t);
    let mut other = tiny(40_000);
    other.rules = "attack-2010".into();
    let err = Trainer::new(other, &out, true)
        .expect_err("mismatched resume must fail")
        .to_string();
    assert!(err.contains("cannot resume"), "{err}");
}

#[test]
fn corrupt_or_mismatched_checkpoints_are_errors() {
    let (_dir, out) = saved_tiny_run();
    let latest = out.join("latest");
    // Trained for classic: refused for another edition, accepted (with a note) at another table size.
    let attack = uno_env::Game::new(Rules::preset("attack-2010").unwrap(), 2).unwrap();
    let err = uno_agents::neural::check_compatible(&latest, &attack)
        .unwrap_err()
        .to_string();
    assert!(err.contains("trained for rules `classic`"), "{err}");
    let four = uno_env::Game::new(Rules::preset("classic").unwrap(), 4).unwrap();
    assert!(
        uno_agents::neural::check_compatible(&latest, &four)
            .unwrap()
            .is_some()
    );
    let same = uno_env::Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    assert_eq!(
        uno_agents::neural::check_compatible(&latest, &same).unwrap(),
        None
    );
    // The metadata records the full rules; a variant of the same name plays,
    // with a note naming what changed.
    let meta = uno_agents::neural::read_meta(&latest).unwrap();
    assert_eq!(
        meta.trained_rules().unwrap(),
        Rules::preset("classic").unwrap()
    );
    let variant = Rules::from_toml_str("preset = \"classic\"\n[options]\nhand_size = 5\n").unwrap();
    let variant = uno_env::Game::new(variant, 2).unwrap();
    let note = uno_agents::neural::check_compatible(&latest, &variant)
        .unwrap()
        .expect("a note");
    assert!(note.contains("options.hand_size"), "{note}");
    // The same rules under another name play (with a note); other cards
    // under the trained name are refused (they are another game).
    let renamed = Rules::from_toml_str("preset = \"classic\"\nname = \"house\"\n").unwrap();
    let renamed = uno_env::Game::new(renamed, 2).unwrap();
    let note = uno_agents::neural::check_compatible(&latest, &renamed)
        .unwrap()
        .expect("a note");
    assert!(note.contains("the same rules as `house`"), "{note}");
    let impostor = Rules::from_toml_str("preset = \"attack-2010\"\nname = \"classic\"\n").unwrap();
    let impostor = uno_env::Game::new(impostor, 2).unwrap();
    let err = uno_agents::neural::check_compatible(&latest, &impostor)
        .unwrap_err()
        .to_string();
    assert!(err.contains("other cards"), "{err}");
    // Truncated weights.
    let bytes = std::fs::read(latest.join("model.bpk")).unwrap();
    std::fs::write(latest.join("model.bpk"), &bytes[..bytes.len() / 3]).unwrap();
    assert!(Trainer::new(tiny(5_000), &out, true).is_err());
    assert!(uno_agents::neural::NeuralAgent::load(&latest, false, 0).is_err());
    // Wrong observation version in meta.json.
    std::fs::write(latest.join("model.bpk"), &bytes).unwrap();
    let meta = std::fs::read_to_string(latest.join("meta.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&meta).unwrap();
    v["obs_version"] = serde_json::json!(uno_env::OBS_VERSION + 1);
    std::fs::write(latest.join("meta.json"), v.to_string()).unwrap();
    let err = uno_agents::neural::NeuralAgent::load(&latest, false, 0)
        .expect_err("wrong obs version")
        .to_string();
    assert!(err.to_lowercase().contains("obs"), "{err}");
    // The program names which checkpoint does not fit (the mismatch message
    // itself does not), in `arena` and in `train --init`.
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let spec = format!("checkpoint:{},random", latest.display());
    let fresh = out.with_file_name(format!("init-from-mismatch-{}", std::process::id()));
    for args in [
        vec![
            "arena",
            "--rules",
            "classic",
            "--players",
            "2",
            "--agents",
            &spec,
            "--games",
            "2",
        ],
        vec![
            "train",
            "--rules",
            "classic",
            "--players",
            "2",
            "--steps",
            "1000",
            "--init",
            latest.to_str().unwrap(),
            "--out",
            fresh.to_str().unwrap(),
        ],
    ] {
        let o = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&latest.display().to_string()),
            "{args:?}: {err}"
        );
        assert!(err.contains("observation version"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&fresh);
    // Garbage meta.json.
    std::fs::write(latest.join("meta.json"), "{ not json").unwrap();
    assert!(uno_agents::neural::NeuralAgent::load(&latest, false, 0).is_err());
    assert!(Trainer::new(tiny(5_000), &out, true).is_err());
}

#[test]
fn cli_rejects_bad_flags_with_exit_code_2() {
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    // A training config with a TOML syntax error (the parser writes two lines).
    let bad_toml = std::env::temp_dir().join(format!("uno-bad-config-{}.toml", std::process::id()));
    std::fs::write(&bad_toml, "rules = \"classic\"\n[learner\nlr = 1\n").unwrap();
    let bad_toml = bad_toml.to_str().unwrap().to_string();
    for args in [
        vec!["train", "--config", &bad_toml, "--out", "/tmp/uno-never"],
        vec![
            "train",
            "--resume",
            "--init",
            "x",
            "--out",
            "/tmp/uno-never",
        ],
        vec!["replay"],
        vec![
            "train",
            "--players",
            "11",
            "--steps",
            "10",
            "--out",
            "/tmp/uno-never",
        ],
        vec![
            "train",
            "--rules",
            "nope",
            "--steps",
            "10",
            "--out",
            "/tmp/uno-never",
        ],
        vec!["train", "--steps", "-5"],
        // Tables of a mixed run: malformed, too many players, listed twice,
        // or given with --rules.
        vec!["train", "--tables", "classic", "--out", "/tmp/uno-never"],
        vec!["train", "--tables", "classic:11", "--out", "/tmp/uno-never"],
        vec![
            "train",
            "--tables",
            "classic:2,classic:2",
            "--out",
            "/tmp/uno-never",
        ],
        vec![
            "train",
            "--tables",
            "classic:2,nope:2",
            "--out",
            "/tmp/uno-never",
        ],
        vec![
            "train",
            "--tables",
            "classic:2",
            "--rules",
            "flash",
            "--out",
            "/tmp/uno-never",
        ],
        vec!["simulate", "--players", "1"],
        vec!["arena", "--agents", "heuristic,bogus", "--games", "10"],
        vec![
            "arena",
            "--agents",
            "checkpoint:/nonexistent/dir,random",
            "--games",
            "10",
        ],
        vec!["bench", "--envs", "0"],
        vec!["bench", "--envs", "100000000", "--seconds", "0.1"],
        vec!["bench", "--threads", "257"],
        vec!["bench", "--opponents", "nobody", "--seconds", "0.1"],
        vec![
            "bench",
            "--rules",
            "attack-2010",
            "--players",
            "2",
            "--opponents",
            concat!(
                "checkpoint:",
                env!("CARGO_MANIFEST_DIR"),
                "/../checkpoints/classic-2p"
            ),
            "--seconds",
            "0.1",
        ],
        // Negative numbers are values (an invalid seed), not unknown flags.
        vec!["simulate", "--seed", "-1"],
        vec!["simulate", "--games", "0"],
        vec!["arena", "--games", "1.5"],
        // One agent compares nothing; three cannot share two seats (and the
        // part-block note is not printed before that error).
        vec!["arena", "--agents", "heuristic", "--games", "4"],
        vec![
            "arena",
            "--players",
            "2",
            "--agents",
            "heuristic,random,greedy",
            "--games",
            "4",
        ],
        vec![
            "arena",
            "--agents",
            "search:samples=0,random",
            "--games",
            "2",
        ],
        vec!["arena", "--threads", "100000", "--games", "2"],
        vec!["train", "--threads", "5000", "--out", "/tmp/uno-never"],
        vec!["train", "--steps", "2.5", "--out", "/tmp/uno-never"],
        vec!["simulate", "--rules", "/no/such/rules.toml"],
        vec![
            "arena",
            "--agents",
            "search:base=bogus,random",
            "--games",
            "2",
        ],
        // A search's base checkpoint is checked like any other (trained for classic).
        vec![
            "arena",
            "--rules",
            "attack-2010",
            "--agents",
            concat!(
                "search:samples=2,base=checkpoint:",
                env!("CARGO_MANIFEST_DIR"),
                "/../checkpoints/classic-2p,random"
            ),
            "--games",
            "2",
        ],
    ] {
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(
            err.lines().filter(|l| !l.trim().is_empty()).count(),
            1,
            "one line: {args:?}: {err}"
        );
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        if args.starts_with(&["train", "--config"]) {
            assert!(err.contains("line 2, column 9"), "{err}");
        }
        if args == ["replay"] {
            assert!(err.contains("<FILE>"), "{err}");
        }
    }
    std::fs::remove_file(&bad_toml).ok();
    assert!(
        !Path::new("/tmp/uno-never").exists(),
        "a refused run leaves no directory"
    );
}

/// Runs `uno-attack ARGS`, which must succeed, and parses its JSON output.
fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn cli_counts_accept_exponents_and_name_the_bad_value() {
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let v = cli_json(&[
        "simulate",
        "--rules",
        "classic",
        "--players",
        "2",
        "--games",
        "2e1",
        "--json",
    ]);
    assert_eq!(v["games"], 20, "{v}");
    let out = std::process::Command::new(bin)
        .args(["bench", "--seconds", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--seconds"), "{err}");
    assert!(!err.contains("--envs"), "names only the bad flag: {err}");
    // --eval-games and --envs used to say "invalid digit found in string"
    // for 1e3, which --steps and --games take.
    for args in [
        &["train", "--eval-games", "1e3", "--envs", "abc"][..],
        &["bench", "--envs", "2e6"],
        &["bench", "--envs", "0"],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let want = match args[args.len() - 1] {
            "abc" => "`abc` is not a number",
            "2e6" => "`2e6` is out of range (1 to 1048576)",
            _ => "`0` is out of range (1 to 1048576)",
        };
        assert!(
            err.contains(want) && !err.contains("invalid digit"),
            "{args:?}: {err}"
        );
    }
    let v = cli_json(&[
        "bench",
        "--rules",
        "classic",
        "--players",
        "2",
        "--envs",
        "1.6e1",
        "--seconds",
        "0.05",
        "--no-obs",
        "--json",
    ]);
    assert_eq!(v[0]["envs"], 16, "{v}");
}

#[test]
fn cli_bench_names_what_a_rules_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("variant.toml");
    std::fs::write(
        &rules,
        "preset = \"attack-2010\"\n[options]\nmega_hit = false\n",
    )
    .unwrap();
    let bench = |r: &str| {
        cli_json(&[
            "bench",
            "--rules",
            r,
            "--seconds",
            "0.05",
            "--envs",
            "8",
            "--no-obs",
            "--json",
        ])
    };
    let v = bench(rules.to_str().unwrap());
    assert_eq!(v[0]["rules"], "attack-2010", "{v}");
    assert_eq!(
        v[0]["rules_changed"],
        serde_json::json!(["options.mega_hit"]),
        "{v}"
    );
    let v = bench("attack-2010");
    assert!(v[0].get("rules_changed").is_none(), "{v}");
}

#[test]
fn cli_bench_measures_the_single_agent_env() {
    let v = cli_json(&[
        "bench",
        "--rules",
        "classic",
        "--players",
        "3",
        "--envs",
        "64",
        "--threads",
        "2",
        "--seconds",
        "0.2",
        "--opponents",
        "heuristic,random",
        "--json",
    ]);
    let runs = v.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{v}");
    for r in runs {
        assert_eq!(r["opponents"], "heuristic,random", "{r}");
        assert_eq!(r["threads"], 2, "{r}");
        assert!(r["steps"].as_u64().unwrap() >= 64 * 16, "{r}");
        assert!(r["episodes"].as_u64().unwrap() > 0, "{r}");
        // The median round's rate, beside the wall-clock one.
        assert!(r["steady_steps_per_sec"].as_f64().unwrap() > 0.0, "{r}");
        // The share of its time the run had the CPU: some (how much depends
        // on the other tests sharing the cores), and not more than its
        // threads can use, with a margin for the rest of the process.
        let share = r["cpu_share"].as_f64().unwrap();
        assert!(share > 0.0 && share < 1.5, "{r}");
    }
}

#[test]
fn perf_report_prints_a_row_for_every_preset_and_table_size() {
    // The script behind the tables of docs/performance.md, run briefly on
    // this build's binary.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let o = std::process::Command::new(format!("{root}/scripts/perf-report"))
        .arg("0.02")
        .env("UNO_BIN", env!("CARGO_BIN_EXE_uno-attack"))
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    for rules in [
        "attack-1999",
        "attack-2010",
        "attack-modern",
        "flash",
        "classic",
    ] {
        for players in [2, 4] {
            let row = format!("| {rules} | {players} | ");
            let line = out.lines().find(|l| l.starts_with(&row)).expect(&row);
            // Five figures: four rates and the episodes per second.
            assert_eq!(line.matches(" | ").count(), 6, "{line}");
            assert_eq!(line.matches('M').count(), 4, "{line}");
        }
    }
    assert_eq!(out.matches("2 threads / 1 thread").count(), 4, "{out}");
    // Short runs say nothing of their CPU share; bench's own notes stay out.
    assert!(!err.contains("note:"), "{err}");
}

#[test]
fn cli_bench_prints_an_opponents_note_once_not_once_per_mode() {
    let ckpt = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/classic-2p");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args([
            "bench",
            "--rules",
            "classic",
            "--players",
            "3",
            "--envs",
            "16",
        ])
        .args(["--seconds", "0.05", "--opponents"])
        .arg(format!("checkpoint:{ckpt}"))
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    // Both modes measured, one note.
    assert_eq!(out.matches("learner decisions").count(), 2, "{out}");
    assert_eq!(
        err.matches("was trained with 2 players, playing with 3")
            .count(),
        1,
        "{err}"
    );
}

#[test]
fn cli_bench_threads_zero_means_every_core_as_in_arena_and_train() {
    let v = cli_json(&[
        "bench",
        "--rules",
        "classic",
        "--players",
        "2",
        "--envs",
        "16",
        "--threads",
        "0",
        "--seconds",
        "0.05",
        "--no-obs",
        "--json",
    ]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let r = &v.as_array().unwrap()[0];
    assert_eq!(r["threads"], cores.min(16), "{v}");
    // Too many threads to even parse is "too many", not "not a number".
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(["bench", "--threads", "100000000000000000000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 256 threads"), "{err}");
}

#[test]
fn cli_arena_notes_a_part_rotation_block() {
    // Seats are balanced over whole blocks of K games (K agents): 3 games of
    // 2 agents get a note, 4 do not.
    for (games, noted) in [("3", true), ("4", false)] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
            .args([
                "arena",
                "--rules",
                "classic",
                "--agents",
                "heuristic,random",
            ])
            .args(["--games", games, "--json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert_eq!(err.contains("not a multiple of 2"), noted, "{games}: {err}");
    }
}

#[test]
fn cli_output_into_a_closed_pipe_ends_quietly() {
    // `uno-attack arena … | head -1`: the reader goes away; the program must
    // not panic with "failed printing to stdout".
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args([
            "simulate",
            "--rules",
            "classic",
            "--players",
            "2",
            "--games",
            "50",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn cli_output_that_cannot_be_written_is_an_error_not_a_panic() {
    // `uno-attack bench --json > /dev/full`: every write fails (ENOSPC).
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(["bench", "--seconds", "0.05", "--envs", "16", "--json"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error: cannot write the output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_training_configs_are_refused_before_the_run_starts() {
    let dir = tempfile::tempdir().unwrap();
    type Breaker = fn(&mut TrainConfig);
    let cases: [(&str, Breaker); 19] = [
        ("steps must be positive", |c| c.steps = 0),
        ("envs must be positive", |c| c.envs = 0),
        ("batch_samples must be positive", |c| c.batch_samples = 0),
        ("gamma", |c| c.gamma = 2.0),
        ("lambda", |c| c.lambda = f32::NAN),
        ("truncation_reward", |c| c.truncation_reward = f32::INFINITY),
        ("self_play", |c| c.opponents.self_play = -1.0),
        ("heuristic", |c| c.opponents.heuristic = f64::NAN),
        ("all 0", |c| c.opponents.random = 0.0),
        // Each finite, the sum not: the draw always picked `random`.
        ("must be finite, not inf", |c| {
            c.opponents.snapshot = 1e308;
            c.opponents.heuristic = 1e308;
        }),
        ("entropy_coef", |c| c.learner.entropy_coef = f32::NAN),
        ("RULES:PLAYERS", |c| c.tables = vec!["classic-2".into()]),
        ("number of tables", |c| {
            c.tables = vec!["classic:2".into(), "flash:3".into()];
            c.envs = 1;
        }),
        // Not a TOML integer: it used to fail only when config.toml was
        // written, leaving metrics files that blocked the next attempt.
        ("seed must be at most 9223372036854775807", |c| {
            c.seed = 1 << 63
        }),
        ("eval_games must be at most", |c| c.eval_games = 1 << 40),
        ("checkpoint_every must be at least 1", |c| {
            c.checkpoint_every = 0
        }),
        ("pool_size must be at least 1", |c| c.pool_size = 0),
        // Collected in memory before the update: 1e15 used to run until the
        // machine ran out of memory, losing the run.
        ("batch_samples must be at most 2097152", |c| {
            c.batch_samples = 1_000_000_000_000_000
        }),
        // An update is not interrupted part-way: 1e9 epochs never ended.
        ("epochs must be at most 1000", |c| {
            c.learner.epochs = 1_000_000_000
        }),
    ];
    for (i, (field, break_it)) in cases.into_iter().enumerate() {
        let mut cfg = tiny(5_000);
        break_it(&mut cfg);
        assert!(cfg.validate().is_err(), "{field}");
        let out = dir.path().join(format!("run{i}"));
        let err = Trainer::new(cfg, &out, false).expect_err(field).to_string();
        assert!(err.contains(field), "{field}: {err}");
        assert!(!out.exists(), "{field}: a refused run leaves no directory");
    }
    assert!(tiny(5_000).validate().is_ok());
}

#[test]
fn trainer_errors_are_typed_and_name_the_file() {
    let (dir, out) = saved_tiny_run();
    // A config problem is a `Config` error, from `validate` and from `new`.
    let bad = TrainConfig {
        envs: 0,
        ..tiny(5_000)
    };
    assert!(matches!(bad.validate(), Err(TrainError::Config(m)) if m.contains("envs")));
    assert!(matches!(
        uno_train::selfplay::parse_table("attack-2010"),
        Err(TrainError::Config(m)) if m.contains("RULES:PLAYERS")
    ));
    // A corrupt trainer.json: `Corrupt`, naming the file; nothing rewritten.
    let file = out.join("trainer.json");
    std::fs::write(&file, "{ not json").unwrap();
    match Trainer::new(tiny(5_000), &out, true) {
        Err(TrainError::Corrupt { path, .. }) => assert_eq!(path, file),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ not json");
    // `--out` naming a file: `NotADirectory` (a new run), `NoRun` (a resume).
    let plain = dir.path().join("plain-file");
    std::fs::write(&plain, "x").unwrap();
    match Trainer::new(tiny(5_000), &plain, false) {
        Err(TrainError::NotADirectory(p)) => assert_eq!(p, plain),
        other => panic!("expected NotADirectory, got {other:?}"),
    }
    assert!(matches!(
        Trainer::new(tiny(5_000), &plain, true),
        Err(TrainError::NoRun(_))
    ));
    // A directory that cannot be created: `Io`, with the OS error as source.
    match Trainer::new(tiny(5_000), &plain.join("sub"), false) {
        Err(
            e @ TrainError::Io {
                action: "create", ..
            },
        ) => {
            assert!(std::error::Error::source(&e).is_some(), "{e}");
        }
        other => panic!("expected Io, got {other:?}"),
    }
}

#[test]
fn a_new_run_does_not_overwrite_an_existing_one() {
    let (_dir, out) = saved_tiny_run();
    let before = std::fs::read(out.join("trainer.json")).unwrap();
    let err = Trainer::new(tiny(5_000), &out, false)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("--resume"), "{err}");
    assert_eq!(std::fs::read(out.join("trainer.json")).unwrap(), before);
    assert!(
        Trainer::new(tiny(5_000), &out, true).is_ok(),
        "--resume continues it"
    );
}

#[test]
fn an_incomplete_or_missing_run_is_never_overwritten_or_silently_restarted() {
    let (dir, out) = saved_tiny_run();
    let model = out.join("latest/model.bpk");
    let before = std::fs::read(&model).unwrap();
    let err = |cfg: TrainConfig, dir: &std::path::Path, resume: bool| {
        Trainer::new(cfg, dir, resume)
            .expect_err("refused")
            .to_string()
    };

    // A checkpoint without its meta.json: --resume refuses, naming the file.
    let meta = out.join("latest/meta.json");
    let meta_text = std::fs::read(&meta).unwrap();
    std::fs::remove_file(&meta).unwrap();
    let e = err(tiny(5_000), &out, true);
    assert!(
        e.contains("cannot resume") && e.contains("meta.json"),
        "{e}"
    );
    // With evaluation off the run has no best/: the message suggests no
    // checkpoint to start from (it used to name the missing best/).
    assert!(!out.join("best").exists());
    assert!(!e.contains("--init"), "{e}");
    // With a best/ checkpoint it suggests that one.
    let best = out.join("best");
    std::fs::create_dir(&best).unwrap();
    for f in std::fs::read_dir(out.join("latest")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, best.join(f.file_name().unwrap())).unwrap();
    }
    std::fs::write(best.join("meta.json"), &meta_text).unwrap();
    let e = err(tiny(5_000), &out, true);
    assert!(e.contains(&format!("--init {}", best.display())), "{e}");
    std::fs::remove_dir_all(&best).unwrap();
    std::fs::write(&meta, &meta_text).unwrap();

    // No trainer.json, but checkpoints: a new run still refuses the directory,
    // and --resume names the missing file.
    let counters = std::fs::read(out.join("trainer.json")).unwrap();
    std::fs::remove_file(out.join("trainer.json")).unwrap();
    let e = err(tiny(5_000), &out, false);
    assert!(e.contains("already holds a training run"), "{e}");
    let e = err(tiny(5_000), &out, true);
    assert!(e.contains("trainer.json"), "{e}");
    std::fs::write(out.join("trainer.json"), &counters).unwrap();

    // A network of another shape cannot resume this one.
    let e = err(
        TrainConfig {
            hidden: vec![32],
            ..tiny(5_000)
        },
        &out,
        true,
    );
    assert!(e.contains("cannot resume") && e.contains("hidden"), "{e}");
    assert_eq!(
        std::fs::read(&model).unwrap(),
        before,
        "nothing was written"
    );

    // --resume of a directory that does not exist (a typo) starts nothing.
    let typo = dir.path().join("rnu");
    let e = err(tiny(5_000), &typo, true);
    assert!(e.contains("no run to resume"), "{e}");
    assert!(!typo.exists());
    // A directory without checkpoints (stopped before the first) starts afresh,
    // also when it holds what such a run writes at its start.
    let fresh = dir.path().join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    assert!(Trainer::new(tiny(5_000), &fresh, true).is_ok());
    std::fs::write(fresh.join("metrics.jsonl"), "").unwrap();
    std::fs::write(fresh.join("events.out.tfevents.1.host"), "").unwrap();
    assert!(Trainer::new(tiny(5_000), &fresh, true).is_ok());
    // A directory that holds other things is not a run (the parent of the
    // runs, a home directory): --resume refuses rather than write a new run
    // in among them.
    let parent = dir.path();
    std::fs::write(parent.join(".bashrc"), "# mine").unwrap();
    let listing = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let was = listing(parent);
    let e = err(tiny(5_000), parent, true);
    assert!(
        e.contains("holds no training run") && e.contains(".bashrc") && e.contains("fresh"),
        "{e}"
    );
    assert_eq!(listing(parent), was, "nothing was written");
    // And the intact run resumes.
    assert!(Trainer::new(tiny(5_000), &out, true).is_ok());
}

#[test]
fn checkpoints_follow_the_run_s_update_count_across_a_resume() {
    // checkpoint_every counts the run's updates, not the session's: a run
    // stopped at update 2 and resumed saves at updates 3 and 6 (before
    // 2026-11-29, at 5 and 8), as its pool snapshots do.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cfg = TrainConfig {
        checkpoint_every: 3,
        ..pooled(50_000_000)
    };
    // The update count of the run's `latest/` (0: none saved yet).
    let latest = |out: &Path| -> u64 {
        std::fs::read_to_string(out.join("latest/meta.json")).map_or(0, |text| {
            let meta: serde_json::Value = serde_json::from_str(&text).unwrap();
            meta["updates"].as_u64().unwrap()
        })
    };
    // Runs until `until` updates, returning the saved checkpoint's update
    // count after each update of this session.
    let session = |resume: bool, until: u64| -> Vec<(u64, u64)> {
        let mut t = Trainer::new(cfg.clone(), &out, resume).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let mut seen = Vec::new();
        t.run(stop.clone(), |p| {
            seen.push((p.updates, latest(&out)));
            if p.updates >= until {
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        })
        .unwrap();
        seen
    };
    assert_eq!(session(false, 2), [(1, 0), (2, 0)]);
    assert_eq!(latest(&out), 2, "saved on stopping");
    assert_eq!(session(true, 7), [(3, 3), (4, 3), (5, 3), (6, 6), (7, 6)]);
    assert_eq!(latest(&out), 7);
}

#[test]
fn a_stop_during_a_rollout_does_not_count_its_thrown_away_steps() {
    // Ctrl-C mid-rollout throws that rollout away; the saved counters are
    // the last update's, so its steps do not use up the run's --steps.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut t = Trainer::new(tiny(50_000_000), &out, false).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mut updates = 0;
    let mut at_update = Vec::new();
    {
        let stop = stop.clone();
        // After the second update, stop 30 ms into the next rollout (a stop
        // that lands in an update instead finishes it: the check holds too).
        t.run(stop.clone(), |p| {
            if p.updates > updates {
                updates = p.updates;
                at_update.push(p.steps);
                if updates == 2 {
                    let stop = stop.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(std::time::Duration::from_millis(30));
                        stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    });
                }
            }
        })
        .unwrap();
    }
    let s = t.state().clone();
    assert!(s.updates >= 2, "{s:?}");
    assert_eq!(Some(&s.steps), at_update.last(), "{s:?} {at_update:?}");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("trainer.json")).unwrap()).unwrap();
    assert_eq!(saved["steps"], s.steps);
}

#[test]
fn arena_agent_lists_keep_multi_option_specs_together() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args([
            "arena",
            "--rules",
            "classic",
            "--agents",
            "heuristic:danger_cards=1,wild_penalty=2,search:samples=2,z=1",
            "--games",
            "4",
            "--json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let specs: Vec<&str> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["spec"].as_str().unwrap())
        .collect();
    assert_eq!(
        specs,
        [
            "heuristic:danger_cards=1,wild_penalty=2.0",
            "search:samples=2,z=1.0"
        ]
    );
}

#[test]
fn shipped_configs_parse_and_start_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut n = 0;
    for entry in std::fs::read_dir(&configs).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let cfg: TrainConfig =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let cfg = TrainConfig { steps: 1, ..cfg };
        Trainer::new(cfg, &dir.path().join(format!("run{n}")), false)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n >= 1, "no configs in {}", configs.display());
}

/// Masked logits of checkpoint `dir` on a fixed observation.
fn logits_of(dir: &Path) -> Vec<f32> {
    use uno_agents::neural::NeuralPolicy;
    let (p, _) = NeuralPolicy::load(dir, None).unwrap();
    let obs: Vec<f32> = (0..p.obs_dim()).map(|i| (i as f32 * 0.37).sin()).collect();
    let masks = vec![true; p.num_actions()];
    let mut out = vec![0.0; p.num_actions()];
    p.act_batch(&obs, &masks, 1, &mut out).unwrap();
    out
}

#[test]
fn init_starts_a_new_run_from_another_checkpoints_weights() {
    let dir = tempfile::tempdir().unwrap();
    // A 2-player classic checkpoint with a 64-wide network…
    let mut a = Trainer::new(tiny(10_000), &dir.path().join("a"), false).unwrap();
    a.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    a.save().unwrap();
    let src = dir.path().join("a/latest");
    // …starts a 4-player attack run: same weights, its network shape, fresh counters.
    let cfg = TrainConfig {
        rules: "attack-2010".into(),
        players: 4,
        hidden: vec![8, 8],
        init: Some(src.clone()),
        ..tiny(10_000)
    };
    let mut b = Trainer::new(cfg, &dir.path().join("b"), false).unwrap();
    assert_eq!(b.config().hidden, vec![64]);
    assert_eq!(b.state().steps, 0);
    b.save().unwrap();
    assert_eq!(logits_of(&src), logits_of(&dir.path().join("b/latest")));
    // A missing checkpoint is an error naming it.
    let bad = TrainConfig {
        init: Some(dir.path().join("nope")),
        ..tiny(10_000)
    };
    let err = Trainer::new(bad, &dir.path().join("c"), false).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn a_version_1_run_starts_a_new_run_with_init_but_does_not_resume() {
    use uno_agents::neural::{CheckpointMeta, NetConfig};
    use uno_train::learner::Learner;
    let (v1, v1_dim) = uno_env::obs::LEGACY_OBS[0];
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    let latest = old.join("latest");
    let net = NetConfig {
        hidden: vec![64],
        ..NetConfig::new(v1_dim, uno_env::NUM_ACTIONS)
    };
    let learner = Learner::new(net.clone(), LearnerConfig::default()).unwrap();
    learner
        .save(&latest, &CheckpointMeta::new("classic", 2, v1, net))
        .unwrap();
    // --resume: refused, naming the way forward.
    let err = Trainer::new(tiny(5_000), &old, true)
        .expect_err("a version-1 run cannot resume")
        .to_string();
    assert!(
        err.contains("observation version 1") && err.contains("--init"),
        "{err}"
    );
    // --init: the network is widened to the current observation and trains.
    let cfg = TrainConfig {
        init: Some(latest.clone()),
        ..tiny(2_048)
    };
    let new = dir.path().join("new");
    let mut trainer = Trainer::new(cfg, &new, false).unwrap();
    trainer
        .run(Arc::new(AtomicBool::new(false)), |_| {})
        .unwrap();
    let meta = uno_agents::neural::read_meta(&new.join("latest")).unwrap();
    assert_eq!(meta.obs_version, uno_env::OBS_VERSION);
    assert_eq!(meta.obs_dim, uno_env::OBS_SIZE);
}

#[test]
fn a_run_that_ends_between_evaluations_is_evaluated_and_keeps_a_best() {
    // The README's short run (fewer updates than `eval_every`) must still
    // leave results and a `best/` for `arena --agents checkpoint:…/best`.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cfg = TrainConfig {
        eval_every: 25,
        eval_games: 20,
        ..tiny(5_000)
    };
    let mut t = Trainer::new(cfg, &out, false).unwrap();
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    assert!(t.state().updates < 25);
    assert!(
        t.state().eval["random"]["games"].as_u64().is_some(),
        "{}",
        t.state().eval
    );
    assert!(out.join("best/meta.json").is_file());
    assert!(uno_agents::neural::NeuralAgent::load(&out.join("best"), false, 0).is_ok());
}

#[test]
fn staleness_is_zero_on_the_first_update_and_measured_after() {
    // The first batch is all the current network's; later ones carry
    // episodes begun under earlier networks (policy/stale_kl > 0).
    let (_dir, out, state) = trained_tiny_run(60_000);
    assert!(state.updates >= 3, "{} updates", state.updates);
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let kl = series(&metrics, "policy/stale_kl");
    let clipped = series(&metrics, "policy/stale_clip_frac");
    assert_eq!(kl.len() as u64, state.updates, "{kl:?}");
    // Rounding only (the host's and the learner's log-softmax differ in the
    // last bits), against at least 1e-4 once some samples are an update old.
    assert!(kl[0] < 1e-9 && clipped[0] == 0.0, "{kl:?} {clipped:?}");
    assert!(kl[1..].iter().any(|&k| k > 1e-4), "{kl:?}");
    assert!(
        kl.iter()
            .chain(&clipped)
            .all(|v| v.is_finite() && *v >= 0.0)
    );
    assert!(clipped.iter().all(|&c| c <= 1.0), "{clipped:?}");
}

#[test]
fn every_evaluation_of_a_run_plays_the_same_deals() {
    // The shipped classic network (it wins most games against `random` and
    // about half against `heuristic`), trained on with a learning rate too
    // small to change any decision: the network is
    // the same at every evaluation; on the same deals its results are then
    // the same too (they differed when every evaluation dealt anew, so
    // `best/` picked lucky deals).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../checkpoints/classic-2p");
    let mut cfg = TrainConfig {
        eval_every: 1,
        eval_games: 200,
        init: Some(shipped),
        ..tiny(30_000)
    };
    cfg.learner.lr = 1e-12;
    let mut t = Trainer::new(cfg, &out, false).unwrap();
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    assert!(t.state().updates >= 2, "{} updates", t.state().updates);
    drop(t);
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    for key in ["eval/win_rate_vs_random", "eval/win_rate_vs_heuristic"] {
        let rates = series(&metrics, key);
        assert!(rates.len() >= 2, "{key}: {rates:?}");
        assert!(rates.iter().all(|r| *r == rates[0]), "{key}: {rates:?}");
    }
}

/// One network trained on several tables (`tables`): every table's games feed
/// the batch, the checkpoint names them all and plays on any of them, the
/// evaluation covers each, and a resume must name the same tables.
#[test]
fn a_run_on_several_tables_trains_one_network_for_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mixed");
    let mixed = |steps: u64| TrainConfig {
        tables: vec!["classic:2".into(), "attack-2010:3".into()],
        envs: 32,
        batch_samples: 512,
        eval_every: 2,
        eval_games: 30,
        ..tiny(steps)
    };
    // A variant that keeps its preset's name cannot sit beside the preset at
    // the same table size: the two would share a name in metrics and meta.json.
    let variant = dir.path().join("variant.toml");
    std::fs::write(&variant, "preset = \"classic\"\n[options]\nhand_size = 5\n").unwrap();
    let clash = TrainConfig {
        tables: vec!["classic:2".into(), format!("{}:2", variant.display())],
        ..mixed(8_000)
    };
    let err = Trainer::new(clash, &out, false)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("two tables are classic-2p"), "{err}");
    assert!(!out.exists());
    let mut t = Trainer::new(mixed(8_000), &out, false).unwrap();
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    let s = t.state().clone();
    assert_eq!(s.episodes_per_table.len(), 2);
    assert!(
        s.episodes_per_table.iter().all(|&e| e > 0),
        "{:?}",
        s.episodes_per_table
    );
    assert_eq!(s.episodes_per_table.iter().sum::<u64>(), s.episodes);
    // The first table names the run, as in a one-table run.
    assert_eq!(
        (t.config().rules.as_str(), t.config().players),
        ("classic", 2)
    );
    drop(t);
    let meta = uno_agents::neural::read_meta(&out.join("latest")).unwrap();
    let tables: Vec<(String, usize)> = meta
        .all_tables()
        .into_iter()
        .map(|t| (t.rules, t.players))
        .collect();
    assert_eq!(
        tables,
        vec![("classic".to_string(), 2), ("attack-2010".to_string(), 3)]
    );
    // Plays on either table's rules without a note; other rules are refused.
    let game = |r: &str, n| uno_env::Game::new(Rules::preset(r).unwrap(), n).unwrap();
    let check = |g: &uno_env::Game| uno_agents::neural::check_compatible(&out.join("latest"), g);
    assert_eq!(check(&game("classic", 2)).unwrap(), None);
    assert_eq!(check(&game("attack-2010", 3)).unwrap(), None);
    assert!(
        check(&game("attack-2010", 2))
            .unwrap()
            .unwrap()
            .contains("3 players")
    );
    let err = check(&game("flash", 2)).unwrap_err().to_string();
    assert!(
        err.contains("`classic`, `attack-2010`, not `flash`"),
        "{err}"
    );
    // The evaluation: each table on its own, and the means.
    let eval = &meta.eval;
    for tag in ["classic-2p", "attack-2010-3p"] {
        let games = eval["tables"][tag]["heuristic"]["games"].as_u64();
        assert_eq!(games, Some(30), "{eval}");
    }
    let mean = (eval["tables"]["classic-2p"]["random"]["win_rate"]
        .as_f64()
        .unwrap()
        + eval["tables"]["attack-2010-3p"]["random"]["win_rate"]
            .as_f64()
            .unwrap())
        / 2.0;
    assert!((eval["random"]["win_rate"].as_f64().unwrap() - mean).abs() < 1e-9);
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    assert!(metrics.contains("eval/attack-2010-3p/win_rate_vs_heuristic"));
    // Episode lengths, per table and overall, from the episodes each update saw.
    for key in [
        "train/episode_length",
        "train/classic-2p/episode_length",
        "train/attack-2010-3p/episode_length",
    ] {
        let v = series(&metrics, key);
        assert!(!v.is_empty() && v.iter().all(|&l| l > 3.0), "{key}: {v:?}");
    }
    // Resuming with other tables is refused; with the same ones it continues.
    let mut other = mixed(16_000);
    other.tables.reverse();
    let err = Trainer::new(other, &out, true)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("cannot resume"), "{err}");
    let t = Trainer::new(mixed(16_000), &out, true).unwrap();
    assert_eq!(t.state().steps, s.steps);
    assert_eq!(t.state().episodes_per_table, s.episodes_per_table);
}

/// A tiny run that snapshots every update into a pool of 2.
fn pooled(steps: u64) -> TrainConfig {
    TrainConfig {
        envs: 16,
        batch_samples: 256,
        hidden: vec![16],
        learner: LearnerConfig {
            minibatch_size: 256,
            epochs: 1,
            ..LearnerConfig::default()
        },
        snapshot_every: 1,
        pool_size: 2,
        checkpoint_every: 1,
        opponents: OpponentMix {
            self_play: 0.0,
            snapshot: 1.0,
            heuristic: 0.0,
            random: 1.0,
        },
        ..tiny(steps)
    }
}

/// The pool entries of a run's `trainer.json`.
fn pool_entries(run: &Path) -> Vec<String> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("trainer.json")).unwrap()).unwrap();
    v["pool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

/// The names in a directory, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn train_to_end(t: &mut Trainer) {
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
}

/// The audit's workflow: rename a run, start a new one under the old name,
/// then continue the renamed one. The renamed run must play and prune only
/// the snapshots in its own `pool/`, never the new run's.
#[test]
fn a_renamed_run_keeps_its_own_pool_and_leaves_other_runs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("exp");
    let mut t = Trainer::new(pooled(10_000), &exp, false).unwrap();
    train_to_end(&mut t);
    drop(t);
    // Recorded relative to the run directory.
    let entries = pool_entries(&exp);
    assert_eq!(entries.len(), 2, "{entries:?}");
    for e in &entries {
        assert!(e.starts_with("pool/update-"), "{e}");
        assert!(exp.join(e).join("meta.json").is_file(), "{e}");
    }
    // Builds before 2026-11-24 recorded them as --out was given (here
    // absolute): write them so, as the audit's run had them.
    let file = exp.join("trainer.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    state["pool"] = serde_json::json!(entries.iter().map(|e| exp.join(e)).collect::<Vec<_>>());
    std::fs::write(&file, state.to_string()).unwrap();
    let old = dir.path().join("exp-old");
    std::fs::rename(&exp, &old).unwrap();
    // A new run under the old name: its own pool/update-000001 and 2.
    let mut t = Trainer::new(pooled(10_000), &exp, false).unwrap();
    train_to_end(&mut t);
    drop(t);
    let new_pool = names_in(&exp.join("pool"));
    assert!(!new_pool.is_empty());
    let new_model = std::fs::read(exp.join("pool").join(&new_pool[0]).join("model.bpk")).unwrap();
    // The renamed run resumes with its own snapshots (no note: every one loads).
    let mut t = Trainer::new(pooled(40_000), &old, true).unwrap();
    assert!(t.notes().is_empty(), "{:?}", t.notes());
    let resumed: Vec<String> = t
        .state()
        .pool
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(resumed, entries);
    let updates = t.state().updates;
    train_to_end(&mut t);
    assert!(t.state().updates >= updates + 2, "it pruned its pool");
    drop(t);
    // The new run lost nothing; the old run's pool is its own, pool_size long.
    assert_eq!(names_in(&exp.join("pool")), new_pool);
    assert_eq!(
        std::fs::read(exp.join("pool").join(&new_pool[0]).join("model.bpk")).unwrap(),
        new_model
    );
    let entries = pool_entries(&old);
    assert_eq!(entries.len(), 2, "{entries:?}");
    let on_disk: Vec<String> = names_in(&old.join("pool"))
        .into_iter()
        .map(|n| format!("pool/{n}"))
        .collect();
    assert_eq!(on_disk, entries, "the pool on disk is the listed one");

    // A snapshot that is gone is left out with a note naming it, and the
    // listed paths follow the loaded pool.
    std::fs::remove_dir_all(old.join(&entries[0])).unwrap();
    // (A budget above the run's steps: a resume with nothing to train is refused.)
    let t = Trainer::new(pooled(400_000), &old, true).unwrap();
    let notes = t.notes().join("\n");
    assert!(
        notes.contains("cannot be loaded") && notes.contains(&entries[0]),
        "{notes}"
    );
    assert_eq!(t.state().pool.len(), 1);
    assert_eq!(t.state().pool[0].display().to_string(), entries[1]);
}

#[test]
fn resume_refuses_rules_that_changed_since_the_run_trained() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("variant.toml");
    std::fs::write(&rules, "preset = \"classic\"\n[options]\nhand_size = 5\n").unwrap();
    let cfg = TrainConfig {
        rules: rules.display().to_string(),
        ..tiny(5_000)
    };
    let out = dir.path().join("run");
    Trainer::new(cfg.clone(), &out, false)
        .unwrap()
        .save()
        .unwrap();
    let model = std::fs::read(out.join("latest/model.bpk")).unwrap();
    // The rules file edited since (same name, other settings).
    std::fs::write(&rules, "preset = \"classic\"\n[options]\nhand_size = 6\n").unwrap();
    let err = Trainer::new(cfg.clone(), &out, true)
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("cannot resume")
            && err.contains("other settings")
            && err.contains("options.hand_size"),
        "{err}"
    );
    // The preset the variant starts from has the same name: refused too.
    let err = Trainer::new(tiny(5_000), &out, true)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("options.hand_size"), "{err}");
    assert_eq!(std::fs::read(out.join("latest/model.bpk")).unwrap(), model);
    // The rules it trained on resume.
    std::fs::write(&rules, "preset = \"classic\"\n[options]\nhand_size = 5\n").unwrap();
    assert!(Trainer::new(cfg, &out, true).is_ok());
}

#[test]
fn resume_applies_changed_learner_settings_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut t = Trainer::new(pooled(2_000), &out, false).unwrap();
    train_to_end(&mut t);
    let steps = t.state().steps;
    assert!(t.state().updates >= 1);
    drop(t);
    let mut changed = pooled(steps + 2_000);
    changed.learner.epochs = 2;
    changed.learner.entropy_coef = 0.05;
    let mut t = Trainer::new(changed, &out, true).unwrap();
    let notes = t.notes().join("\n");
    assert!(
        notes.contains("epochs 1 → 2") && notes.contains("entropy_coef 0.01 → 0.05"),
        "{notes}"
    );
    train_to_end(&mut t);
    drop(t);
    // What trains is what config.toml and meta.json say.
    let learner: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("latest/learner.json")).unwrap())
            .unwrap();
    assert_eq!(learner["config"]["epochs"].as_u64(), Some(2), "{learner}");
    let config: TrainConfig =
        toml::from_str(&std::fs::read_to_string(out.join("config.toml")).unwrap()).unwrap();
    assert_eq!(config.learner.epochs, 2);
    let meta = uno_agents::neural::read_meta(&out.join("latest")).unwrap();
    assert_eq!(meta.trained_with["learner"]["epochs"].as_u64(), Some(2));
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    assert_eq!(series(&metrics, "train/epochs").last(), Some(&2.0));
    // Unchanged settings: no note.
    let done = config.steps;
    let err = Trainer::new(config.clone(), &out, true)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(err, TrainError::NothingToTrain { budget, .. } if budget == done),
        "{err}"
    );
    let more = TrainConfig {
        steps: done * 10,
        ..config
    };
    let t = Trainer::new(more, &out, true).unwrap();
    assert!(t.notes().is_empty(), "{:?}", t.notes());
}

#[test]
fn a_second_trainer_on_the_same_directory_is_refused() {
    use uno_train::selfplay::LOCK_FILE;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let first = Trainer::new(tiny(5_000), &out, false).unwrap();
    let lock = out.join(LOCK_FILE);
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap().trim(),
        std::process::id().to_string()
    );
    for resume in [false, true] {
        let err = Trainer::new(tiny(5_000), &out, resume)
            .expect_err("refused while the first runs")
            .to_string();
        assert!(
            err.contains("another `train`") && err.contains(LOCK_FILE),
            "{err}"
        );
        // Not "process <our own pid>": the holder is in this process.
        assert!(err.contains("a Trainer of this same process"), "{err}");
    }
    assert!(lock.is_file(), "the refused trainer left the lock alone");
    drop(first);
    assert!(!lock.exists(), "released with the trainer");
    // The system's lock decides, not the id in the file: a file left behind
    // is taken over whatever it holds. Empty (its process died before
    // writing its id), our own id (in a container `train` gets the same id
    // on every start), or the id of a process that runs but holds no lock
    // (after a reboot): each is taken over.
    #[cfg(unix)]
    let live = std::os::unix::process::parent_id().to_string();
    #[cfg(not(unix))]
    let live = "1".to_string();
    for left in [String::new(), std::process::id().to_string(), live] {
        std::fs::write(&lock, format!("{left}\n")).unwrap();
        let t = Trainer::new(tiny(5_000), &out, true).unwrap_or_else(|e| panic!("{left:?}: {e}"));
        assert_eq!(
            std::fs::read_to_string(&lock).unwrap(),
            format!("{}\n", std::process::id()),
            "the file now holds our id alone"
        );
        // The takeover is one of the trainer's notes (the library prints nothing).
        let noted = t
            .notes()
            .iter()
            .any(|n| n.contains("taking over the lock") && n.contains(&format!("process {left})")));
        assert_eq!(noted, !left.is_empty(), "{left:?}: {:?}", t.notes());
        // Held: refused, naming the holder.
        let err = Trainer::new(tiny(5_000), &out, true)
            .expect_err("refused while held")
            .to_string();
        assert!(err.contains("a Trainer of this same process"), "{err}");
        drop(t);
        assert!(!lock.exists());
    }
    // A lock left by a process that is gone (a pid above Linux's limit) is taken over.
    std::fs::write(&lock, "4194305\n").unwrap();
    let t = Trainer::new(tiny(5_000), &out, true).unwrap();
    assert!(
        t.notes()
            .iter()
            .any(|n| n.contains("taking over the lock") && n.contains("process 4194305")),
        "{:?}",
        t.notes()
    );
    drop(t);
    assert!(!lock.exists());
}

#[test]
fn a_new_run_refuses_a_directory_holding_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("project");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("config.toml"), "# my precious config\n").unwrap();
    std::fs::write(out.join("metrics.jsonl"), "keep\n").unwrap();
    let err = Trainer::new(tiny(5_000), &out, false)
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("not empty") && err.contains("config.toml") && err.contains("metrics.jsonl"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("config.toml")).unwrap(),
        "# my precious config\n"
    );
    assert_eq!(names_in(&out), ["config.toml", "metrics.jsonl"]);
    // An empty directory is fine.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(Trainer::new(tiny(5_000), &empty, false).is_ok());
}

#[test]
fn eval_games_0_in_a_config_turns_evaluation_off() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cfg = TrainConfig {
        eval_every: 1,
        eval_games: 0,
        ..pooled(10_000)
    };
    let mut t = Trainer::new(cfg, &out, false).unwrap();
    train_to_end(&mut t);
    assert!(t.state().updates >= 2);
    assert!(t.state().eval.is_null(), "{}", t.state().eval);
    drop(t);
    assert!(!out.join("best").exists());
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    assert!(!metrics.contains("eval/"), "{metrics}");
}

#[test]
fn weights_damaged_in_place_are_refused_naming_the_checkpoint() {
    let (_dir, out) = saved_tiny_run();
    let latest = out.join("latest");
    let model = latest.join("model.bpk");
    let mut bytes = std::fs::read(&model).unwrap();
    // The file keeps its length; the last third of the weights become NaN.
    let n = bytes.len();
    bytes[n * 2 / 3..n - 8].fill(0xFF);
    std::fs::write(&model, &bytes).unwrap();
    let err = uno_agents::neural::NeuralAgent::load(&latest, false, 0)
        .expect_err("NaN weights refused")
        .to_string();
    assert!(
        err.contains("not finite") && err.contains(&model.display().to_string()),
        "{err}"
    );
    let err = Trainer::new(tiny(5_000), &out, true)
        .expect_err("no resume from NaN weights")
        .to_string();
    assert!(err.contains("not finite"), "{err}");
}

/// Writes `tiny.toml` in `dir`: a training config of 16 games, 256-sample
/// updates and a 16-unit network (one epoch, no TensorBoard), with `top` and
/// `learner` lines added to its top level and its `[learner]` table.
fn tiny_cli_config(dir: &Path, top: &str, learner: &str) -> std::path::PathBuf {
    let path = dir.join("tiny.toml");
    std::fs::write(
        &path,
        format!(
            "envs = 16\nbatch_samples = 256\nhidden = [16]\ntensorboard = false\n{top}\
             [learner]\nminibatch_size = 256\nepochs = 1\n{learner}"
        ),
    )
    .unwrap();
    path
}

/// The CLI: a second `train` on a running one's --out is refused (exit 2);
/// Ctrl-C saves a checkpoint, releases the lock and exits with 130;
/// `--resume --eval-games N` turns evaluation back on after `--eval-games 0`;
/// and SIGTERM stops a run as Ctrl-C does.
#[cfg(unix)]
#[test]
fn cli_train_lock_interrupt_and_eval_games() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_cli_config(
        dir.path(),
        "eval_every = 2\neval_games = 10\ncheckpoint_every = 1\n",
        "",
    );
    let config = config.to_str().unwrap();
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let base = [
        "train",
        "--rules",
        "classic",
        "--players",
        "2",
        "--config",
        config,
    ];
    let first = Command::new(bin)
        .args(base)
        .args(["--steps", "1e12", "--eval-games", "0", "--out", out_s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !out.join("latest/meta.json").is_file() {
        assert!(start.elapsed() < Duration::from_secs(120), "no checkpoint");
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = Command::new(bin)
        .args(["train", "--out", out_s, "--resume", "--steps", "1e12"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("another `train`"), "{err}");
    stops_and_saves(first, libc::SIGINT, &out);
    assert!(!out.join("best").exists(), "--eval-games 0: no evaluation");
    // --eval-games given on resume replaces the stored 0: evaluation is on again.
    let trainer_json = |out: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("trainer.json")).unwrap()).unwrap()
    };
    // `--steps` for 3,000 steps past the run's.
    let later = |out: &Path| (trainer_json(out)["steps"].as_u64().unwrap() + 3_000).to_string();
    let steps = later(&out);
    // A stale lock (its process is gone) is taken over, and the command
    // prints the trainer's note saying so.
    std::fs::write(out.join(uno_train::selfplay::LOCK_FILE), "4194305\n").unwrap();
    let resumed = Command::new(bin)
        .args(["train", "--out", out_s, "--resume", "--eval-games", "10"])
        .args(["--steps", &steps])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(err.contains("taking over the lock"), "{err}");
    assert!(out.join("best/meta.json").is_file(), "{err}");
    let config: TrainConfig =
        toml::from_str(&std::fs::read_to_string(out.join("config.toml")).unwrap()).unwrap();
    assert_eq!((config.eval_every, config.eval_games), (2, 10));
    let said = String::from_utf8_lossy(&resumed.stdout);
    assert!(said.contains("last evaluation: {"), "{said}");
    // A resume that evaluates nothing does not pass the earlier session's
    // evaluation off as its own (it printed it as "last evaluation").
    let steps = later(&out);
    let quiet = Command::new(bin)
        .args(["train", "--out", out_s, "--resume", "--eval-games", "0"])
        .args(["--steps", &steps])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&quiet.stdout);
    assert_eq!(
        quiet.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    assert!(
        said.contains("no evaluation in this session") && !said.contains("last evaluation"),
        "{said}"
    );
    assert!(String::from_utf8_lossy(&quiet.stderr).contains("resuming"));
    // SIGTERM (what `timeout`, systemd, Docker and batch schedulers send)
    // saves and exits as Ctrl-C does.
    let updates = |out: &Path| trainer_json(out)["updates"].as_u64().unwrap();
    // A resumed run, once it has saved a new update.
    let resumed_and_saving = || {
        let before = updates(&out);
        let child = Command::new(bin)
            .args(["train", "--out", out_s, "--resume", "--steps", "1e12"])
            .args(["--eval-games", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while updates(&out) == before {
            assert!(start.elapsed() < Duration::from_secs(120), "no checkpoint");
            std::thread::sleep(Duration::from_millis(50));
        }
        child
    };
    stops_and_saves(resumed_and_saving(), libc::SIGTERM, &out);
    // coreutils `timeout` sends SIGTERM twice at once (to the process, then to
    // its group): that is one request to save and stop, not "quit at once".
    let fourth = resumed_and_saving();
    // SAFETY: signals the child this test spawned.
    unsafe { libc::kill(fourth.id() as i32, libc::SIGTERM) };
    stops_and_saves(fourth, libc::SIGTERM, &out);
}

/// Ctrl-C (or SIGTERM) stops `arena` after the games under way: it prints
/// the games played (its JSON says how many were asked for) and exits with
/// 130; a league says it has no ratings; `simulate` reports its rounds so
/// far; `bench` reports the measurement under way. Before, Ctrl-C lost every
/// game (and every measurement).
#[cfg(unix)]
#[test]
fn cli_arena_simulate_and_bench_stopped_by_a_signal_report_what_they_did() {
    let base = ["arena", "--rules", "classic", "--players", "2"];
    for (extra, signal) in [
        (vec!["--agents", "heuristic,random", "--json"], libc::SIGINT),
        (vec!["--agents", "heuristic,random"], libc::SIGTERM),
        (
            vec!["--agents", "heuristic,random,greedy", "--league"],
            libc::SIGINT,
        ),
    ] {
        let args = [&base[..], &extra, &["--games", "1e12", "--threads", "2"]].concat();
        let (stdout, stderr) = signalled(&args, signal);
        assert!(
            stderr.contains("interrupted: finishing the games"),
            "{stderr}"
        );
        if extra.contains(&"--league") {
            assert!(stdout.is_empty(), "{stdout}");
            assert!(stderr.contains("no ratings"), "{stderr}");
        } else if extra.contains(&"--json") {
            let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let games = r["games"].as_u64().unwrap();
            assert!(games > 0, "{stdout}");
            assert_eq!(r["games_asked"].as_u64(), Some(1_000_000_000_000));
            assert_eq!(r["agents"][0]["games"].as_u64(), Some(games));
        } else {
            assert!(
                stdout.contains("of 1000000000000 games (stopped early)"),
                "{stdout}"
            );
        }
    }
    // `simulate` too: the rounds played so far, in order.
    let args = [
        "simulate", "--rules", "classic", "--games", "1e12", "--json",
    ];
    let (stdout, _) = signalled(&args, libc::SIGINT);
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(r["games"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["games_asked"].as_u64(), Some(1_000_000_000_000));
    assert_eq!(r["invariant_violations"].as_u64(), Some(0));
    // `bench`: the measurement under way, over the time it ran, and no
    // second mode (without `--no-obs` it would measure two).
    let args = ["bench", "--rules", "classic", "--seconds", "3600", "--json"];
    let (stdout, stderr) = signalled(&args, libc::SIGINT);
    assert!(
        stderr.contains("interrupted: reporting what was measured"),
        "{stderr}"
    );
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let r = r.as_array().unwrap();
    assert_eq!(r.len(), 1, "{stdout}");
    assert_eq!(r[0]["stopped_early"].as_bool(), Some(true), "{stdout}");
    assert_eq!(r[0]["obs"].as_bool(), Some(false), "{stdout}");
    let seconds = r[0]["seconds"].as_f64().unwrap();
    assert!(seconds > 0.0 && seconds < 60.0, "{stdout}");
    assert!(r[0]["steps"].as_u64().unwrap() > 0, "{stdout}");
    assert!(r[0]["steps_per_sec"].as_f64().unwrap() > 0.0, "{stdout}");
    let (stdout, _) = signalled(&["bench", "--seconds", "3600", "--no-obs"], libc::SIGTERM);
    assert!(stdout.contains("(stopped early: "), "{stdout}");
    assert!(stdout.contains("; median round "), "{stdout}");
    assert!(stdout.contains("of 3600 s)"), "{stdout}");
}

/// Runs `uno-attack ARGS`, sends it `signal` after a second and a half (long
/// enough to install its handler and play some games), and returns its
/// stdout and stderr; it must exit with 130, without a panic.
#[cfg(unix)]
fn signalled(args: &[&str], signal: i32) -> (String, String) {
    use std::process::{Command, Stdio};
    let child = Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signals the child this test spawned.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(out.status.code(), Some(130), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (stdout, stderr)
}

/// Sends `signal` to a running `train` into `out`, which must save, say
/// `stopped after`, release its lock and exit with 130.
#[cfg(unix)]
fn stops_and_saves(mut child: std::process::Child, signal: i32, out: &Path) {
    // SAFETY: signals the child this test spawned.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert_eq!(status.code(), Some(130), "signal {signal}: {stdout}");
    assert!(stdout.contains("stopped after"), "{stdout}");
    assert!(!out.join(uno_train::selfplay::LOCK_FILE).exists());
}

/// `train --help` names the defaults the config supplies; `threads = 0` in a
/// config means every core (it meant 1 for stepping); `--resume` of a file
/// says that it is not a directory.
#[test]
fn cli_train_help_defaults_threads_0_and_a_file_as_out() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let help = Command::new(bin)
        .args(["train", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for default in ["else attack-2010", "else 2e6", "else 256", "else 1000"] {
        assert!(help.contains(default), "{default}: {help}");
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("t0.toml");
    std::fs::write(
        &config,
        "threads = 0\nenvs = 8\nbatch_samples = 64\nhidden = [8]\neval_every = 0\ntensorboard = false\n\
         [learner]\nminibatch_size = 64\nepochs = 1\n",
    )
    .unwrap();
    let out = dir.path().join("run");
    let run = Command::new(bin)
        .args(["train", "--rules", "classic", "--steps", "1"])
        .args([
            "--config",
            config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let cfg: TrainConfig =
        toml::from_str(&std::fs::read_to_string(out.join("config.toml")).unwrap()).unwrap();
    // The run records the 0 as given, not this machine's core count, so a
    // resume elsewhere uses that machine's cores.
    assert_eq!(cfg.threads, 0);
    assert_eq!(
        cfg.resolved_threads(),
        rayon::current_num_threads().min(256)
    );
    let pinned = TrainConfig { threads: 3, ..cfg };
    assert_eq!(pinned.resolved_threads(), 3);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    // Resumed, or a new run (it said "File exists"): refused, the file untouched.
    for (flags, says) in [
        (&["--resume"][..], "not a directory"),
        (&["--steps", "1"][..], "is a file, not a directory"),
    ] {
        let e = Command::new(bin)
            .arg("train")
            .args(flags)
            .args(["--out", file.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&e.stderr);
        assert_eq!(e.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    }
}

#[test]
fn a_diverging_update_stops_the_run_and_keeps_the_last_checkpoint() {
    let (_dir, out, first) = trained_tiny_run(5_000);
    let saved = first.updates;
    let model = std::fs::read(out.join("latest/model.bpk")).unwrap();
    let counters = std::fs::read(out.join("trainer.json")).unwrap();
    // Resumed with an absurd learning rate, the first update blows the weights up.
    let mut wild = tiny(40_000);
    wild.learner.lr = 1e10;
    wild.lr_anneal = false;
    let mut t = Trainer::new(wild, &out, true).unwrap();
    let err = t
        .run(Arc::new(AtomicBool::new(false)), |_| {})
        .expect_err("a diverged update must stop the run")
        .to_string();
    assert!(
        err.contains(&format!("diverged at update {}", saved + 1)),
        "{err}"
    );
    assert!(
        err.contains(&format!("checkpoint of update {saved}")),
        "{err}"
    );
    drop(t);
    // Nothing from the diverged update reached the run directory's checkpoint.
    assert_eq!(std::fs::read(out.join("latest/model.bpk")).unwrap(), model);
    assert_eq!(std::fs::read(out.join("trainer.json")).unwrap(), counters);
    assert!(!out.join(uno_train::selfplay::LOCK_FILE).exists());
    // Its metrics were logged: the divergence shows in metrics.jsonl.
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics.lines().count() as u64, saved + 1, "{metrics}");
}

/// Weights that grow huge but stay finite can make the next rollout's
/// outputs NaN: that is a divergence (an error), not a panic of the update.
#[test]
fn a_learning_rate_that_breaks_the_rollout_is_a_divergence_not_a_panic() {
    for lr in [1e15, 1e25] {
        let (_dir, out, first) = trained_tiny_run(5_000);
        let model = std::fs::read(out.join("latest/model.bpk")).unwrap();
        let mut wild = tiny(200_000);
        wild.learner.lr = lr;
        wild.lr_anneal = false;
        let mut t = Trainer::new(wild, &out, true).unwrap();
        let err = t
            .run(Arc::new(AtomicBool::new(false)), |_| {})
            .expect_err("the run must stop")
            .to_string();
        assert!(
            err.contains("training diverged at update"),
            "lr {lr}: {err}"
        );
        assert!(
            err.contains(&format!("checkpoint of update {}", first.updates)),
            "lr {lr}: {err}"
        );
        drop(t);
        assert_eq!(std::fs::read(out.join("latest/model.bpk")).unwrap(), model);
    }
}

/// `--resume` keeps how a run started: a config cannot change `init` or
/// `grow` (they were recorded and ignored), and a run that lost its
/// config.toml resumes with the settings its checkpoint records (it used
/// to fall back to the defaults: another run's rules and network).
#[test]
fn cli_resume_keeps_the_runs_start_and_recorded_settings() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("tiny.toml");
    std::fs::write(
        &cfg,
        "rules = \"classic\"\nplayers = 2\nenvs = 16\nbatch_samples = 256\nhidden = [16]\neval_every = 0\nsnapshot_every = 0\ntensorboard = false\nthreads = 1\n[learner]\nminibatch_size = 128\n",
    )
    .unwrap();
    let out = dir.path().join("run");
    let train = |extra: &[&str]| {
        Command::new(bin)
            .arg("train")
            .args(["--out", out.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = train(&["--config", cfg.to_str().unwrap(), "--steps", "2000"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Resumed at the steps it already has: told, not silently "done".
    let o = train(&["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("nothing to train"), "{err}");
    // ... and the run is left as it was, also with a --steps below its own
    // (which used to be written into its config.toml and meta.json).
    let files = |d: &Path| {
        let mut all = std::collections::BTreeMap::new();
        let mut todo = vec![d.to_path_buf()];
        while let Some(p) = todo.pop() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    todo.push(e);
                } else {
                    all.insert(e.clone(), std::fs::read(&e).unwrap());
                }
            }
        }
        all
    };
    let run_files = files(&out);
    let o = train(&["--resume", "--steps", "1000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("left as it was"),
        "{err}"
    );
    assert!(files(&out) == run_files, "the run changed");
    let before = std::fs::read(out.join("trainer.json")).unwrap();
    let init = dir.path().join("init.toml");
    std::fs::write(&init, "init = \"checkpoints/classic-2p\"\n").unwrap();
    let o = train(&["--resume", "--config", init.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot change them"), "{err}");
    assert_eq!(std::fs::read(out.join("trainer.json")).unwrap(), before);
    // No config.toml: the checkpoint's record (classic, hidden [16]) is used.
    std::fs::remove_file(out.join("config.toml")).unwrap();
    let o = train(&["--resume", "--steps", "12000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("has no config.toml"), "{err}");
    let written = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(written.contains("rules = \"classic\""), "{written}");
    assert!(written.contains("hidden = [16]"), "{written}");
}

/// `--resume --config FILE` changes only the settings FILE names: the run's
/// rules, table and other `[learner]` settings stay (a config that sets no
/// rules, such as configs/fast.toml, used to put the default attack-2010 in
/// place of the run's and have the resume refused).
#[test]
fn cli_resume_with_a_config_changes_only_what_it_names() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let dir = tempfile::tempdir().unwrap();
    let first = tiny_cli_config(dir.path(), "eval_every = 0\n", "lr = 0.001\n");
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let run = Command::new(bin)
        .args("train --rules classic --players 2 --steps 1".split(' '))
        .args(["--config", first.to_str().unwrap(), "--out", out_s])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // `train --resume --out RUN --config FILE`, FILE holding `changes`.
    let resume_with = |changes: &str| {
        let change = dir.path().join("change.toml");
        std::fs::write(&change, changes).unwrap();
        Command::new(bin)
            .args(["train", "--resume", "--out", out_s])
            .args(["--config", change.to_str().unwrap()])
            .output()
            .unwrap()
    };
    // (A budget above the steps the first run already has, or there is
    // nothing to train and the run is left as it was.)
    let run = resume_with("steps = 20000\n[learner]\nlr = 0.0005\n");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("resuming classic at 2 players"), "{err}");
    let cfg: TrainConfig =
        toml::from_str(&std::fs::read_to_string(out.join("config.toml")).unwrap()).unwrap();
    assert_eq!((cfg.rules.as_str(), cfg.players), ("classic", 2));
    assert_eq!((cfg.envs, cfg.batch_samples, cfg.steps), (16, 256, 20000));
    assert_eq!((cfg.learner.epochs, cfg.learner.minibatch_size), (1, 256));
    assert!((cfg.learner.lr - 0.0005).abs() < 1e-9, "{}", cfg.learner.lr);
    // A changed table is still refused, by name.
    let run = resume_with("rules = \"flash\"\n");
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot resume"), "{err}");
}

/// A 4-player attack-2010 run with every kind of opponent, snapshots and evaluations.
fn mixed(steps: u64, seed: u64, threads: usize) -> TrainConfig {
    TrainConfig {
        rules: "attack-2010".into(),
        players: 4,
        opponents: OpponentMix {
            self_play: 0.4,
            snapshot: 0.3,
            heuristic: 0.3,
            random: 0.1,
        },
        eval_every: 3,
        eval_games: 24,
        seed,
        threads,
        ..pooled(steps)
    }
}

/// The bytes of a file in a run.
fn bytes_of(run: &Path, file: &str) -> Vec<u8> {
    std::fs::read(run.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Reproducibility: the same config and seed train byte-identical networks on one thread or
/// two (rollouts, opponents drawn from the pool, evaluations, learning), and so does resuming
/// each run with a larger budget (the optimizer state it reads back is the same). Another seed
/// trains another network, so the comparison can fail.
#[test]
fn the_same_seed_trains_the_same_network_on_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, seed: u64, threads: usize| {
        let out = dir.path().join(name);
        let mut t = Trainer::new(mixed(6_000, seed, threads), &out, false).unwrap();
        train_to_end(&mut t);
        assert!(t.state().updates >= 3, "{:?}", t.state());
        out
    };
    let one = run("one", 5, 1);
    let two = run("two", 5, 2);
    let other = run("other", 6, 1);
    for file in ["latest/model.bpk", "best/model.bpk"] {
        assert!(
            bytes_of(&one, file) == bytes_of(&two, file),
            "{file}: 1 and 2 threads differ"
        );
    }
    assert!(bytes_of(&one, "latest/model.bpk") != bytes_of(&other, "latest/model.bpk"));
    let evals = |run: &Path| {
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("latest/meta.json")).unwrap())
                .unwrap();
        m["eval"].clone()
    };
    assert!(!evals(&one).is_null());
    assert_eq!(evals(&one), evals(&two));
    for (out, threads) in [(&one, 1), (&two, 2)] {
        let mut t = Trainer::new(mixed(10_000, 5, threads), out, true).unwrap();
        train_to_end(&mut t);
    }
    assert!(
        bytes_of(&one, "latest/model.bpk") == bytes_of(&two, "latest/model.bpk"),
        "resumed runs differ"
    );
}

/// A resume with another `--seed` rolls out new games but evaluates on the
/// deals the run started with, so `best/` stays a paired comparison.
#[test]
fn a_resume_with_another_seed_keeps_the_evaluation_deals() {
    let (_dir, out) = saved_tiny_run();
    let evaluated = |seed: u64| {
        let cfg = TrainConfig {
            seed,
            eval_games: 200,
            ..tiny(5_000)
        };
        let mut t = Trainer::new(cfg, &out, true).unwrap();
        t.evaluate().unwrap();
        let eval = t.state().eval.clone();
        (eval, t.state().eval_seed)
    };
    let (first, seed_first) = evaluated(3);
    let (reseeded, seed_reseeded) = evaluated(4_321);
    assert_eq!(seed_first, Some(3 ^ 0xE7A1));
    assert_eq!(seed_reseeded, seed_first);
    assert_eq!(first, reseeded);
    // The deals do matter: other deals give other results for this network.
    let other = run_arena(
        &ArenaConfig {
            rules: Rules::preset("classic").unwrap(),
            players: 2,
            agents: vec![AgentSpec::Checkpoint(out.join("latest")), AgentSpec::Random],
            games: 200,
            seed: 4_321 ^ 0xE7A1,
            threads: 1,
        },
        None,
    )
    .unwrap();
    // (The deals show in the wins against `random`, or, for a network that
    // loses every game, in how many were cut short at the decision cap.)
    let result = |e: &serde_json::Value| {
        let wins = e["random"]["win_rate"].as_f64().unwrap() * 200.0;
        (
            wins.round() as u64,
            e["random"]["truncated"].as_u64().unwrap(),
        )
    };
    assert_ne!(
        (other.agents[0].wins, other.truncated),
        result(&first),
        "{first}"
    );
}

/// An `optim.bpk` of another network decodes; training used to panic on its
/// shapes at the first update. Now the resume is refused, naming the file.
#[test]
fn an_optimizer_state_of_another_network_is_refused_on_resume() {
    let (_dir, out) = saved_tiny_run();
    let optim = out.join("latest/optim.bpk");
    let own = std::fs::read(&optim).unwrap();
    for (other_seed, hidden) in [(3, vec![32]), (9, vec![64])] {
        // The same seed gives the same parameter ids (other shapes); another
        // seed gives other ids.
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        let cfg = TrainConfig {
            seed: other_seed,
            hidden,
            ..tiny(5_000)
        };
        let mut t = Trainer::new(cfg, &other, false).unwrap();
        train_to_end_of_one_update(&mut t);
        drop(t);
        std::fs::copy(other.join("latest/optim.bpk"), &optim).unwrap();
        let err = Trainer::new(tiny(10_000), &out, true)
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains("optim.bpk") && err.contains("the state of another network"),
            "{err}"
        );
    }
    // Its own state resumes and trains.
    std::fs::write(&optim, own).unwrap();
    let mut t = Trainer::new(tiny(10_000), &out, true).unwrap();
    train_to_end_of_one_update(&mut t);
}

/// Runs `t` until it has made one update more and saved it.
fn train_to_end_of_one_update(t: &mut Trainer) {
    let before = t.state().updates;
    t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
    assert!(t.state().updates > before);
    t.save().unwrap();
}

/// Ctrl-C during an evaluation stops it (it used to play all its games
/// first); nothing of it is recorded.
#[test]
fn an_interrupted_evaluation_records_nothing() {
    let (_dir, out) = saved_tiny_run();
    let cfg = TrainConfig {
        eval_games: 100_000,
        ..tiny(5_000)
    };
    let mut t = Trainer::new(cfg, &out, true).unwrap();
    let stop = AtomicBool::new(true);
    assert!(!t.evaluate_until(&stop).unwrap());
    assert!(t.state().eval.is_null(), "{}", t.state().eval);
    assert!(t.state().best_vs_heuristic.is_none());
    assert!(!out.join("best").exists());
    // Not raised: evaluated and recorded.
    let mut t = {
        drop(t);
        Trainer::new(
            TrainConfig {
                eval_games: 20,
                ..tiny(5_000)
            },
            &out,
            true,
        )
        .unwrap()
    };
    assert!(t.evaluate_until(&AtomicBool::new(false)).unwrap());
    assert!(!t.state().eval.is_null());
    assert!(out.join("best").exists());
}

/// A run trained on a rules file given by a relative path resumes from any
/// directory (config.toml records the absolute path), and one whose rules
/// file is gone resumes with the rules its checkpoint records, with a note.
#[test]
fn a_relative_rules_path_resumes_from_another_directory_and_a_moved_file_from_the_checkpoint() {
    let bin = env!("CARGO_BIN_EXE_uno-attack");
    let dir = std::env::temp_dir().join(format!("uno-rel-rules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("short.toml"),
        "preset = \"classic\"\nname = \"short\"\n[options]\ntarget_score = 60\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("tiny.toml"),
        "envs = 16\nbatch_samples = 256\nhidden = [8]\neval_every = 0\ncheckpoint_every = 1\n\
         snapshot_every = 0\ntensorboard = false\n[learner]\nminibatch_size = 128\nepochs = 1\n",
    )
    .unwrap();
    let train = |cwd: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new(bin)
            .current_dir(cwd)
            .arg("train")
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        stderr
    };
    let run = dir.join("run");
    let run_arg = run.to_str().unwrap();
    train(
        &dir,
        &[
            "--rules",
            "short.toml",
            "--players",
            "2",
            "--steps",
            "600",
            "--config",
            "tiny.toml",
            "--out",
            "run",
        ],
    );
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap();
    let recorded = dir.join("short.toml").display().to_string();
    assert!(
        config.contains(&format!("rules = {recorded:?}")),
        "{config}"
    );
    // From another directory: the file is found by its absolute path.
    let elsewhere = std::env::temp_dir();
    let stderr = train(
        &elsewhere,
        &["--out", run_arg, "--resume", "--steps", "20000"],
    );
    assert!(!stderr.contains("cannot read rules file"), "{stderr}");
    assert!(
        stderr.contains(&format!("resuming {recorded} at 2 players")),
        "{stderr}"
    );
    // The file moved: the checkpoint's rules, named so on the start line too.
    std::fs::rename(dir.join("short.toml"), dir.join("moved.toml")).unwrap();
    let stderr = train(
        &elsewhere,
        &["--out", run_arg, "--resume", "--steps", "40000"],
    );
    assert!(
        stderr.contains("cannot read rules file")
            && stderr.contains("resuming with the rules `short`")
            && stderr.contains("resuming short at 2 players"),
        "{stderr}"
    );
    let meta = std::fs::read_to_string(run.join("latest/meta.json")).unwrap();
    assert!(meta.contains("\"rules\": \"short\""), "{meta}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_train_refuses_a_config_thread_count_before_starting_threads() {
    // `threads = 100000` in a config file used to start that many threads
    // before the check refused it (minutes, or no end); `--threads` was
    // refused at once.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("t.toml");
    std::fs::write(&cfg, "threads = 100000\n").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(["train", "--steps", "1000", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("run"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("train with threads = 100000 still running after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("threads must be at most 256"), "{err}");
    assert!(!dir.path().join("run").exists(), "nothing is written");
}

#[test]
fn a_resume_before_the_first_checkpoint_starts_anew_and_says_so_once() {
    // A run killed before its first checkpoint leaves config.toml and a line
    // of metrics: `--resume` starts anew, and its notes no longer speak of
    // "the checkpoint this run continues from (step 0)".
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(
        out.join("config.toml"),
        toml::to_string(&tiny(5_000)).unwrap(),
    )
    .unwrap();
    std::fs::write(
        out.join("metrics.jsonl"),
        "{\"step\":4096,\"wall_time\":1.0,\"scalars\":{\"train/lr\":0.001}}\n",
    )
    .unwrap();
    let t = Trainer::new(tiny(5_000), &out, true).unwrap();
    assert!(!t.resumed());
    let notes = t.notes().join("\n");
    assert!(notes.contains("no checkpoint in"), "{notes}");
    assert!(notes.contains("before its first checkpoint"), "{notes}");
    assert!(!notes.contains("continues from"), "{notes}");
    drop(t);
    let (_keep, saved) = saved_tiny_run();
    assert!(Trainer::new(tiny(50_000), &saved, true).unwrap().resumed());
}
