//! The Python bindings' trajectory fixture: Rust must reproduce it exactly.
//! `UPDATE_FIXTURE=1 cargo test -p uno-e2e` rewrites it (then commit it).

use std::path::PathBuf;

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../python/tests/data/trajectory.json")
}

#[test]
fn rust_reproduces_the_python_fixture() {
    let want = uno_e2e::fixture();
    let p = path();
    if std::env::var_os("UPDATE_FIXTURE").is_some() {
        let text = serde_json::to_string_pretty(&want).unwrap() + "\n";
        std::fs::write(&p, text).unwrap();
    }
    let text = std::fs::read_to_string(&p).expect("fixture file");
    let got: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(got, want, "fixture {} differs from the engine", p.display());
}

#[test]
fn vec_runs_do_not_depend_on_threads() {
    let one = uno_e2e::vec_run("attack-2010", 4, 16, 5, "round", "win", 300, 1);
    let two = uno_e2e::vec_run("attack-2010", 4, 16, 5, "round", "win", 300, 2);
    assert!(
        one["finished"].as_u64().unwrap() > 0,
        "no game ended: no auto-reset compared"
    );
    assert_eq!(one, two);
}

#[test]
fn crc32_matches_zlib() {
    assert_eq!(uno_e2e::crc32(0, b"123456789"), 0xCBF4_3926);
    let c = uno_e2e::crc32(0, b"1234");
    assert_eq!(uno_e2e::crc32(c, b"56789"), 0xCBF4_3926);
}
