//! The emulated device models: one table of GPUs, each with its compute capability and the
//! resource limits a program can observe (the CUDA Programming Guide's "Technical
//! Specifications per Compute Capability" table and NVIDIA's data sheets for the named
//! board). `ptxvm run --arch`, the driver's device attributes and its occupancy calculator
//! read this table; nothing else hard-codes a limit of a GPU generation.
//!
//! Global memory is not a property of the model: the device offers what the host grants
//! (`DeviceProps::global_memory`).

use ptxvm_fp::tensor::TcArch;

/// One emulated GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuModel {
    /// The architecture name as `--arch` takes it (`sm_80`, `sm_90a`).
    pub arch: &'static str,
    /// The board it models (`A100`).
    pub board: &'static str,
    /// Compute capability.
    pub major: u32,
    pub minor: u32,
    /// Whether arch-specific features (`sm_90a`, `sm_100a`) are available.
    pub arch_specific: bool,
    pub sm_count: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_warps_per_sm: u32,
    /// 32-bit registers per SM, per block and per thread.
    pub regs_per_sm: u32,
    pub regs_per_block: u32,
    pub regs_per_thread: u32,
    /// Register allocation granularity per warp (registers).
    pub reg_alloc_unit: u32,
    /// Shared memory per SM, the default per-block limit (48 KiB), the opt-in per-block
    /// maximum and what the system reserves per block, bytes.
    pub shared_per_sm: u32,
    pub shared_per_block: u32,
    pub shared_per_block_optin: u32,
    pub shared_reserved_per_block: u32,
    pub l2_bytes: u32,
    /// Core and memory clocks in kHz, memory bus width in bits.
    pub clock_khz: u32,
    pub mem_clock_khz: u32,
    pub mem_bus_bits: u32,
    /// Thread block clusters (sm_90+): the portable maximum is 8 CTAs, 16 with the
    /// non-portable opt-in.
    pub clusters: bool,
    /// The tensor-core generation: selects the measured arithmetic of `mma`/`wmma`/`wgmma`
    /// (F, L, e0 and output rounding per instruction and type; the parameter table is
    /// `ptxvm_fp::tensor::TcArch::fdpa`, sources in `shared/spec/tensor-core-arithmetic.md`).
    pub tensor: TcArch,
}

impl GpuModel {
    /// Compute capability as an integer (80 for 8.0).
    /// Whether the GPU has the 5th-generation tensor cores (`tcgen05`, Tensor Memory):
    /// sm_100a, sm_101a, sm_103a and sm_110a (not sm_120a).
    pub fn has_tcgen05(&self) -> bool {
        self.arch_specific && matches!(self.sm(), 100 | 101 | 103 | 110)
    }

    pub fn sm(&self) -> u32 {
        self.major * 10 + self.minor
    }

    /// Whether code compiled for `target` (a `.target` name such as `sm_86` or `sm_90a`)
    /// can run on this device, as the driver's JIT decides: plain targets run on any device
    /// of equal or higher compute capability; arch-specific ones (`a` suffix) only on
    /// exactly their own; family ones (`f` suffix) on the same major version at an equal or
    /// higher minor.
    pub fn runs_target(&self, target: &str) -> bool {
        let Some(rest) = target
            .strip_prefix("sm_")
            .or(target.strip_prefix("compute_"))
        else {
            return false;
        };
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let suffix = &rest[digits.len()..];
        let Ok(n) = digits.parse::<u32>() else {
            return false;
        };
        let n = canonical_sm(n);
        match suffix {
            "" => n <= self.sm(),
            "a" => n == self.sm() && self.arch_specific,
            "f" => n / 10 == self.major && n <= self.sm() && self.arch_specific,
            _ => false,
        }
    }
}

const KIB: u32 = 1024;
const MIB: u32 = 1024 * 1024;

/// The table, in order of compute capability.
pub static MODELS: &[GpuModel] = &[
    GpuModel {
        arch: "sm_70",
        board: "V100",
        major: 7,
        minor: 0,
        arch_specific: false,
        sm_count: 80,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 96 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 96 * KIB,
        shared_reserved_per_block: 0,
        l2_bytes: 6 * MIB,
        clock_khz: 1_530_000,
        mem_clock_khz: 877_000,
        mem_bus_bits: 4096,
        clusters: false,
        tensor: TcArch::Volta,
    },
    GpuModel {
        arch: "sm_75",
        board: "T4",
        major: 7,
        minor: 5,
        arch_specific: false,
        sm_count: 40,
        max_threads_per_sm: 1024,
        max_blocks_per_sm: 16,
        max_warps_per_sm: 32,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 64 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 64 * KIB,
        shared_reserved_per_block: 0,
        l2_bytes: 4 * MIB,
        clock_khz: 1_590_000,
        mem_clock_khz: 5_001_000,
        mem_bus_bits: 256,
        clusters: false,
        tensor: TcArch::Turing,
    },
    GpuModel {
        arch: "sm_80",
        board: "A100",
        major: 8,
        minor: 0,
        arch_specific: false,
        sm_count: 108,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 164 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 163 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 40 * MIB,
        clock_khz: 1_410_000,
        mem_clock_khz: 1_215_000,
        mem_bus_bits: 5120,
        clusters: false,
        tensor: TcArch::Ampere,
    },
    GpuModel {
        arch: "sm_86",
        board: "A40",
        major: 8,
        minor: 6,
        arch_specific: false,
        sm_count: 84,
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 16,
        max_warps_per_sm: 48,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 100 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 99 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 6 * MIB,
        clock_khz: 1_740_000,
        mem_clock_khz: 7_251_000,
        mem_bus_bits: 384,
        clusters: false,
        tensor: TcArch::Ampere,
    },
    GpuModel {
        arch: "sm_89",
        board: "L40S",
        major: 8,
        minor: 9,
        arch_specific: false,
        sm_count: 142,
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 24,
        max_warps_per_sm: 48,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 100 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 99 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 96 * MIB,
        clock_khz: 2_520_000,
        mem_clock_khz: 9_001_000,
        mem_bus_bits: 384,
        clusters: false,
        tensor: TcArch::Ada,
    },
    GpuModel {
        arch: "sm_90a",
        board: "H100",
        major: 9,
        minor: 0,
        arch_specific: true,
        sm_count: 132,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 228 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 227 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 50 * MIB,
        clock_khz: 1_980_000,
        mem_clock_khz: 2_619_000,
        mem_bus_bits: 5120,
        clusters: true,
        tensor: TcArch::Hopper,
    },
    GpuModel {
        arch: "sm_100a",
        board: "B200",
        major: 10,
        minor: 0,
        arch_specific: true,
        sm_count: 148,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 228 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 227 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 126 * MIB,
        clock_khz: 1_965_000,
        mem_clock_khz: 3_996_000,
        mem_bus_bits: 8192,
        clusters: true,
        tensor: TcArch::Blackwell,
    },
    // CC 10.3 (Blackwell Ultra). The per-SM limits are the CUDA C++ Programming Guide's
    // "Technical Specifications per Compute Capability" column 10.x (the same as 10.0:
    // 64 warps, 32 blocks, 228 KiB shared memory per SM, 227 KiB per block opt-in, 1 KiB
    // reserved). The board: NVIDIA's "Inside NVIDIA Blackwell Ultra" technical blog (160 SMs
    // on the full die, 288 GB HBM3e at 8 TB/s over the B200's 8192-bit interface); B300
    // enables 148 of them, as B200 does. NVIDIA publishes no separate clock or L2 size for it,
    // so those are the B200's. Tensor cores: the B200's generation (no published recordings
    // of a B300 differ from it).
    GpuModel {
        arch: "sm_103a",
        board: "B300",
        major: 10,
        minor: 3,
        arch_specific: true,
        sm_count: 148,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 228 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 227 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 126 * MIB,
        clock_khz: 1_965_000,
        mem_clock_khz: 3_996_000,
        mem_bus_bits: 8192,
        clusters: true,
        tensor: TcArch::Blackwell,
    },
    // CC 11.0 (Jetson Thor; `sm_101` before CUDA 13 renamed it `sm_110`). Per-SM limits: 24
    // resident blocks (CUDA 13's `cuda_occupancy.h`, `cudaOccMaxBlocksPerMultiprocessor`,
    // which gives 24 for CC 10.1 and 11.0, as for 8.9 and 12.x); 48 warps = 1536 threads,
    // 228 KiB shared memory per SM, 227 KiB per block opt-in and 1 KiB reserved as the
    // Programming Guide's column 11.0 was recalled (not checked against the guide's text). The board: the Jetson AGX
    // Thor (T5000) data sheet: 2560 CUDA cores = 20 SMs, GPU maximum frequency 1.575 GHz,
    // 128 GB LPDDR5X on a 256-bit interface at 273 GB/s (a 4266 MHz memory clock, double data
    // rate). The L2 size is not in the data sheet: ptxvm reports 32 MiB (a choice). Tensor
    // cores: the B200's generation (5th-generation, tcgen05).
    GpuModel {
        arch: "sm_110a",
        board: "Jetson AGX Thor",
        major: 11,
        minor: 0,
        arch_specific: true,
        sm_count: 20,
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 24, // cuda_occupancy.h (CUDA 13): CC 11.0 and 12.x
        max_warps_per_sm: 48,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 228 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 227 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 32 * MIB,
        clock_khz: 1_575_000,
        mem_clock_khz: 4_266_000,
        mem_bus_bits: 256,
        clusters: true,
        tensor: TcArch::Blackwell,
    },
    GpuModel {
        arch: "sm_120a",
        board: "RTX 5090",
        major: 12,
        minor: 0,
        arch_specific: true,
        sm_count: 170,
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 24, // cuda_occupancy.h (CUDA 13): CC 11.0 and 12.x
        max_warps_per_sm: 48,
        regs_per_sm: 65536,
        regs_per_block: 65536,
        regs_per_thread: 255,
        reg_alloc_unit: 256,
        shared_per_sm: 100 * KIB,
        shared_per_block: 48 * KIB,
        shared_per_block_optin: 99 * KIB,
        shared_reserved_per_block: KIB,
        l2_bytes: 96 * MIB,
        clock_khz: 2_407_000,
        mem_clock_khz: 14_001_000,
        mem_bus_bits: 512,
        clusters: true,
        tensor: TcArch::RtxBlackwell,
    },
];

/// The compute capability a target number names: CUDA 13 renamed Thor's `sm_101` to
/// `sm_110` (the same GPU, compute capability 11.0), so PTX written for `sm_101a` runs on it.
fn canonical_sm(n: u32) -> u32 {
    if n == 101 { 110 } else { n }
}

/// The model for an `--arch` name: `sm_90` and `sm_90a` are the same board (the `a`
/// features are available on it), likewise `sm_100`/`sm_100a`, `sm_103`/`sm_103a`,
/// `sm_110`/`sm_110a` (and its old name `sm_101`/`sm_101a`) and `sm_120`/`sm_120a`;
/// `compute_XX` is accepted as a synonym.
pub fn model(arch: &str) -> Option<&'static GpuModel> {
    let a = arch.trim();
    let a = a
        .strip_prefix("compute_")
        .map_or(a.to_string(), |r| format!("sm_{r}"));
    let a = match a.strip_prefix("sm_101") {
        Some(rest) => format!("sm_110{rest}"),
        None => a,
    };
    let base = a.trim_end_matches(['a', 'f']);
    MODELS
        .iter()
        .find(|m| m.arch == a || m.arch.trim_end_matches('a') == base)
}

/// The GPU `ptxvm run` emulates for a module of `.target` `target` when no `--arch` is
/// given: the model of that name when it runs it, else the H100 (sm_90a) when it runs it (an
/// older plain target), else the first model that does; `None` when no model runs it (an
/// arch-specific target of a GPU not in the table, such as `sm_121a`).
pub fn model_for_target(target: &str) -> Option<&'static GpuModel> {
    if let Some(m) = model(target)
        && m.runs_target(target)
    {
        return Some(m);
    }
    MODELS
        .iter()
        .find(|m| m.arch == "sm_90a" && m.runs_target(target))
        .or_else(|| MODELS.iter().find(|m| m.runs_target(target)))
}

/// The default model of the driver: sm_80 (A100), which every current toolchain targets
/// without arch-specific features.
pub fn default_model() -> &'static GpuModel {
    &MODELS[2]
}

/// The names `--arch` accepts, for messages.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.arch).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_targets() {
        assert_eq!(model("sm_80").map(|m| m.board), Some("A100"));
        assert_eq!(model("sm_90").map(|m| m.arch), Some("sm_90a"));
        assert_eq!(model("compute_86").map(|m| m.board), Some("A40"));
        assert!(model("sm_61").is_none());
        assert_eq!(default_model().sm(), 80);
        let h100 = model("sm_90a").unwrap();
        assert!(h100.runs_target("sm_90a"));
        assert!(h100.runs_target("sm_80"));
        assert!(!h100.runs_target("sm_100a"));
        let by_target = |t: &str| model_for_target(t).map(|m| m.arch);
        assert_eq!(by_target("sm_80"), Some("sm_80"));
        assert_eq!(by_target("sm_90"), Some("sm_90a"));
        assert_eq!(by_target("sm_100f"), Some("sm_100a"));
        assert_eq!(by_target("sm_52"), Some("sm_90a"));
        assert_eq!(by_target("sm_87"), Some("sm_90a"));
        assert_eq!(by_target("sm_103a"), Some("sm_103a"));
        assert_eq!(by_target("sm_103f"), Some("sm_103a"));
        assert_eq!(by_target("sm_110a"), Some("sm_110a"));
        assert_eq!(by_target("sm_110f"), Some("sm_110a"));
        assert_eq!(by_target("sm_101a"), Some("sm_110a"));
        assert_eq!(by_target("sm_121a"), None);
        assert_eq!(model("sm_101").map(|m| m.arch), Some("sm_110a"));
        assert_eq!(model("compute_103a").map(|m| m.board), Some("B300"));
        let b300 = model("sm_103a").unwrap();
        assert!(b300.has_tcgen05() && b300.runs_target("sm_100f"));
        assert!(!b300.runs_target("sm_100a") && !b300.runs_target("sm_110f"));
        let thor = model("sm_110a").unwrap();
        assert!(thor.has_tcgen05() && thor.runs_target("sm_101a"));
        assert!(!thor.runs_target("sm_103f"));
        assert_eq!(by_target("sm_121"), None);
        let a100 = model("sm_80").unwrap();
        assert!(!a100.runs_target("sm_86"));
        assert!(!a100.runs_target("sm_80a"));
        assert!(a100.runs_target("sm_52"));
        for m in MODELS {
            assert_eq!(m.max_warps_per_sm * 32, m.max_threads_per_sm, "{}", m.arch);
            assert!(m.shared_per_block_optin <= m.shared_per_sm);
        }
    }
}
