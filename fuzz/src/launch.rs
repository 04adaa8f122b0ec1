//! Loads PTX and launches its kernels under small budgets (shared by the `run` and
//! `gen_run` targets and by the regression replayer).

use ptxvm_vm::{Device, DeviceProps, LaunchConfig};

/// Steps per launch.
pub const STEPS: u64 = 50_000;

pub fn run_all(text: &str, seed: u32) {
    let props = DeviceProps {
        global_memory: 256 << 20,
        launch_memory: 256 << 20,
        ..DeviceProps::default()
    };
    let dev = Device::with_props(props);
    let Ok(m) = dev.load_ptx("fuzz.ptx", text) else {
        return;
    };
    let Ok(kernels) = dev.kernels(m) else {
        return;
    };
    for (k, name) in kernels.iter().take(3).enumerate() {
        let Ok(params) = dev.params(m, name) else {
            continue;
        };
        let mut args: Vec<Vec<u8>> = Vec::new();
        for p in &params {
            if p.size == 8 && !p.is_array {
                let Ok(a) = dev.malloc(4096) else {
                    return;
                };
                args.push(a.to_le_bytes().to_vec());
            } else {
                args.push(vec![(seed >> (k % 4)) as u8 & 3; p.size as usize]);
            }
        }
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        let pick = (seed as usize).wrapping_add(k);
        let cfg = LaunchConfig {
            grid: [[1, 2, 1][pick % 3], 1, 1],
            block: [[32, 1, 64, 33][(pick / 3) % 4], 1, 1],
            max_steps: STEPS,
            threads: 1,
            ..LaunchConfig::default()
        };
        let mut stats = ptxvm_vm::Stats::default();
        let _ = dev.launch(m, name, &cfg, &refs, &mut stats);
        assert!(
            stats.printf.len() as u64 <= cfg.printf_fifo,
            "printf output beyond the FIFO"
        );
    }
}
