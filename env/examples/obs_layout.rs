//! Prints the observation layout as a Markdown table (used for docs/env.md).
fn main() {
    println!("| piece | offset | shape | meaning |\n| --- | --- | --- | --- |");
    for p in uno_env::obs::PIECES.iter() {
        println!(
            "| `{}` | {} | {:?} | {} |",
            p.name, p.offset, p.shape, p.doc
        );
    }
    println!(
        "\nTotal: {} values (`OBS_SIZE`), version {}; oracle: {} values.",
        uno_env::OBS_SIZE,
        uno_env::OBS_VERSION,
        uno_env::obs::ORACLE_SIZE
    );
}
