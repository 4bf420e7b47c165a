//! Weight averaging of checkpoints: writes a checkpoint whose network is the
//! parameter-wise mean of several of one shape (e.g. a run's last pool
//! snapshots, as in stochastic weight averaging), with the first one's
//! metadata and a note naming the sources.
//!
//! ```sh
//! cargo run -p uno-agents --release --example average -- OUT DIR1 DIR2 [DIR…]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use uno_agents::neural::{EXPECTED, NeuralPolicy, PolicyValueNet, save_checkpoint};

fn run(out: &Path, dirs: &[PathBuf]) -> Result<(), String> {
    let mut loaded = Vec::new();
    for d in dirs {
        let (policy, meta) =
            NeuralPolicy::load(d, Some(EXPECTED)).map_err(|e| format!("{}: {e}", d.display()))?;
        loaded.push((policy, meta));
    }
    let (_, first) = &loaded[0];
    for (d, (_, m)) in dirs.iter().zip(&loaded) {
        if (m.rules.as_str(), m.players) != (first.rules.as_str(), first.players) {
            return Err(format!(
                "{} was trained for {} at {} players, not {} at {}",
                d.display(),
                m.rules,
                m.players,
                first.rules,
                first.players
            ));
        }
    }
    let nets: Vec<&PolicyValueNet> = loaded.iter().map(|(p, _)| p.net()).collect();
    let device = burn::tensor::Device::flex();
    let avg = PolicyValueNet::average(&nets, &device).map_err(|e| e.to_string())?;
    let mut meta = first.clone();
    let sources: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    if let Some(obj) = meta.trained_with.as_object_mut() {
        obj.insert("averaged_from".into(), sources.into());
    }
    // The first checkpoint's evaluations do not describe the average.
    meta.eval = serde_json::Value::Null;
    save_checkpoint(out, &avg, &meta).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: average OUT DIR1 DIR2 [DIR…]");
        return ExitCode::from(2);
    }
    let dirs: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
    match run(Path::new(&args[0]), &dirs) {
        Ok(()) => {
            println!("wrote {}", args[0]);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
