//! Compute devices by name: `cpu` (burn's pure-Rust `flex` backend, the
//! default and the only one built by default), `wgpu` and `cuda` (cargo
//! features of the same names on `uno-agents` / `uno-train`).

use burn::tensor::Device;

use super::NeuralError;

/// Device names this build can use.
pub fn available_devices() -> Vec<&'static str> {
    let mut v = vec!["cpu"];
    if cfg!(feature = "wgpu") {
        v.push("wgpu");
    }
    if cfg!(feature = "cuda") {
        v.push("cuda");
    }
    v
}

/// The device called `name` (`cpu`, `wgpu`, `cuda`, `cuda:N`, in any case, as
/// `Rules::load` reads preset names), without autodiff.
pub fn device_by_name(name: &str) -> Result<Device, NeuralError> {
    match name.to_ascii_lowercase().as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" | "gpu" => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
        #[cfg(feature = "cuda")]
        n if n == "cuda" || n.starts_with("cuda:") => {
            let index = n
                .strip_prefix("cuda:")
                .map_or(Ok(0), |i| i.parse::<usize>())
                .map_err(|_| {
                    NeuralError::Device(format!("device `{n}`: expected cuda or cuda:<index>"))
                })?;
            Ok(Device::cuda(index))
        }
        other => Err(NeuralError::Device(format!(
            "device `{other}` is not available in this build (available: {}; build with \
             `--features wgpu` or `--features cuda` for GPUs)",
            available_devices().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_always_available_and_unknown_devices_are_errors() {
        assert!(device_by_name("cpu").is_ok());
        assert!(device_by_name("CPU").is_ok(), "in any case");
        let err = device_by_name("tpu").unwrap_err().to_string();
        assert!(err.contains("not available"), "{err}");
        assert!(available_devices().contains(&"cpu"));
    }
}
