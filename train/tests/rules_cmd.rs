//! `uno-attack rules` as a user runs it: the report of a rules file is itself
//! a rules file the other subcommands accept, and bad input is one line on
//! stderr with exit code 2.

use std::process::{Command, Output};

fn uno(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_uno-attack"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn a_rules_files_report_is_a_rules_file_that_plays() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("house.toml");
    std::fs::write(
        &file,
        "preset = \"attack-2010\"\nname = \"house\"\n[options]\nmega_hit = false\n",
    )
    .unwrap();
    let out = uno(&["rules", "--rules", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("# house: 112 cards, drawn from the launcher (hazard model).\n# Plays at 2 to 10 players.\n# Differs from preset `attack-2010` in 1 setting:\n#   options.mega_hit\n"),
        "{text}"
    );
    // The report, saved, is the same rules: `simulate` plays it.
    let report = dir.path().join("report.toml");
    std::fs::write(&report, &text).unwrap();
    let expected = uno_env::Rules::load(file.to_str().unwrap()).unwrap();
    assert_eq!(
        uno_env::Rules::load(report.to_str().unwrap()).unwrap(),
        expected
    );
    let sim = uno(&[
        "simulate",
        "--rules",
        report.to_str().unwrap(),
        "--players",
        "3",
        "--games",
        "5",
    ]);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
}

#[test]
fn rules_that_cannot_play_at_the_table_size_asked_for_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.toml");
    std::fs::write(&file, "preset = \"classic\"\n[options]\nhand_size = 20\n").unwrap();
    let path = file.to_str().unwrap();
    // Without --players the report says which sizes play ...
    let out = uno(&["rules", "--rules", path]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "# Plays at 2 to 5 players; not at 6 to 10. At 6: deck of 108 cards cannot deal 6 hands of 20"
    ));
    // ... with it, a size that does not is an error.
    for (args, message) in [
        (
            vec!["rules", "--rules", path, "--players", "8"],
            "error: deck of 108 cards cannot deal 8 hands of 20",
        ),
        (
            vec!["rules", "--rules", "no-such-preset"],
            "error: unknown rules `no-such-preset`",
        ),
        (
            vec!["rules", "--players", "11"],
            "error: invalid player count 11",
        ),
    ] {
        let out = uno(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with(message) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}
