//! The ptxvm container: "a cubin that is really PTX". Toolchains that turn PTX into SASS
//! (Triton through `ptxas`, numba-cuda through nvJitLink, CuPy through NVRTC) hand the driver
//! an ELF cubin; ptxvm's drop-ins give them this ELF instead, and ptxvm's driver accepts it
//! wherever a cubin is accepted (module and library loads, link inputs and outputs, ELF
//! entries of fatbins).
//!
//! Layout (documented in `docs/container.md`): an ELF64 little-endian file with the CUDA
//! machine number (EM_CUDA, 190) and OS ABI (0x33), so tools that sniff `\x7fELF` treat it as
//! a cubin; no program headers; sections `.shstrtab`, `.ptxvm.ptx` (the PTX text, NUL
//! terminated) and `.ptxvm.info` (JSON: format, version, target, and per kernel the name,
//! parameter offsets and sizes, registers, static shared and local memory, maximum threads);
//! the section header table last, so the file's length follows from its header (a loader
//! given only a pointer finds the end).

use crate::arch::GpuModel;
use crate::device::CheckedModule;

/// ELF machine number of CUDA.
pub const EM_CUDA: u16 = 190;
/// ELF OS ABI of CUDA cubins.
pub const ELFOSABI_CUDA: u8 = 0x33;
/// The section holding the PTX text.
pub const PTX_SECTION: &str = ".ptxvm.ptx";
/// The section holding the metadata (JSON).
pub const INFO_SECTION: &str = ".ptxvm.info";
/// The `format` value of the metadata.
pub const FORMAT: &str = "ptxvm-container";

/// A kernel's metadata, as a cubin's consumers read it (`cuFuncGetAttribute`, `ptxas -v`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelMeta {
    pub name: String,
    /// (offset, size) of each parameter in the parameter buffer.
    pub params: Vec<(u32, u32)>,
    pub regs: u32,
    pub shared: u32,
    pub local: u32,
    pub max_threads: u32,
}

/// A container's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub ptx: String,
    /// The `.target` the PTX was checked for (`sm_80`).
    pub target: String,
    pub kernels: Vec<KernelMeta>,
}

impl Container {
    /// The metadata of a checked module on a device model.
    pub fn describe(
        ptx: &str,
        target: &str,
        checked: &std::sync::Arc<CheckedModule>,
        model: &'static GpuModel,
    ) -> Result<Container, String> {
        let dev = crate::Device::with_props(crate::DeviceProps::for_model(model));
        let m = dev
            .load_checked(checked.clone())
            .map_err(|e| e.to_string())?;
        let mut kernels = Vec::new();
        for name in checked.kernel_names() {
            let k = dev.kernel(m, &name).map_err(|e| e.to_string())?;
            let a = k.attrs(model);
            kernels.push(KernelMeta {
                params: k.params().iter().map(|p| (p.offset, p.size)).collect(),
                name,
                regs: a.regs,
                shared: a.shared_static,
                local: a.local_bytes,
                max_threads: a.max_threads,
            });
        }
        let _ = dev.unload(m);
        Ok(Container {
            ptx: ptx.to_string(),
            target: target.to_string(),
            kernels,
        })
    }

    fn info_json(&self) -> String {
        let kernels: Vec<serde_json::Value> = self
            .kernels
            .iter()
            .map(|k| {
                serde_json::json!({
                    "name": k.name,
                    "params": k.params.iter().map(|&(o, s)| serde_json::json!([o, s])).collect::<Vec<_>>(),
                    "regs": k.regs,
                    "shared": k.shared,
                    "local": k.local,
                    "max_threads": k.max_threads,
                })
            })
            .collect();
        serde_json::json!({
            "format": FORMAT,
            "version": 1,
            "target": self.target,
            "kernels": kernels,
        })
        .to_string()
    }

    /// The container as ELF bytes.
    pub fn to_elf(&self) -> Vec<u8> {
        let shstr = b"\0.shstrtab\0.ptxvm.ptx\0.ptxvm.info\0".to_vec();
        let (n_shstrtab, n_ptx, n_info) = (1u32, 11u32, 22u32);
        let mut ptx = self.ptx.as_bytes().to_vec();
        ptx.push(0);
        let info = self.info_json().into_bytes();
        let mut out = vec![0u8; 64];
        let place = |out: &mut Vec<u8>, data: &[u8], align: usize| -> (u64, u64) {
            while !out.len().is_multiple_of(align) {
                out.push(0);
            }
            let off = out.len() as u64;
            out.extend_from_slice(data);
            (off, data.len() as u64)
        };
        let s_shstr = place(&mut out, &shstr, 1);
        let s_ptx = place(&mut out, &ptx, 8);
        let s_info = place(&mut out, &info, 8);
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
        let shoff = out.len() as u64;
        // Section headers: null, .shstrtab, .ptxvm.ptx, .ptxvm.info.
        let sh = |name: u32, kind: u32, (off, size): (u64, u64), align: u64| {
            let mut h = Vec::with_capacity(64);
            h.extend_from_slice(&name.to_le_bytes());
            h.extend_from_slice(&kind.to_le_bytes());
            h.extend_from_slice(&0u64.to_le_bytes()); // flags
            h.extend_from_slice(&0u64.to_le_bytes()); // addr
            h.extend_from_slice(&off.to_le_bytes());
            h.extend_from_slice(&size.to_le_bytes());
            h.extend_from_slice(&0u32.to_le_bytes()); // link
            h.extend_from_slice(&0u32.to_le_bytes()); // info
            h.extend_from_slice(&align.to_le_bytes());
            h.extend_from_slice(&0u64.to_le_bytes()); // entsize
            h
        };
        out.extend_from_slice(&[0u8; 64]);
        out.extend(sh(n_shstrtab, 3, s_shstr, 1)); // SHT_STRTAB
        out.extend(sh(n_ptx, 1, s_ptx, 8)); // SHT_PROGBITS
        out.extend(sh(n_info, 1, s_info, 8));
        // The ELF header.
        let sm: u32 = self
            .target
            .trim_start_matches("sm_")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        let mut h = Vec::with_capacity(64);
        h.extend_from_slice(b"\x7fELF");
        h.extend_from_slice(&[2, 1, 1, ELFOSABI_CUDA, 8, 0, 0, 0, 0, 0, 0, 0]);
        h.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC, as cubins
        h.extend_from_slice(&EM_CUDA.to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes()); // version
        h.extend_from_slice(&0u64.to_le_bytes()); // entry
        h.extend_from_slice(&0u64.to_le_bytes()); // phoff
        h.extend_from_slice(&shoff.to_le_bytes());
        h.extend_from_slice(&sm.to_le_bytes()); // flags: the SM number
        h.extend_from_slice(&64u16.to_le_bytes()); // ehsize
        h.extend_from_slice(&0u16.to_le_bytes()); // phentsize
        h.extend_from_slice(&0u16.to_le_bytes()); // phnum
        h.extend_from_slice(&64u16.to_le_bytes()); // shentsize
        h.extend_from_slice(&4u16.to_le_bytes()); // shnum
        h.extend_from_slice(&1u16.to_le_bytes()); // shstrndx
        out[..64].copy_from_slice(&h);
        out
    }

    /// Reads a container from ELF bytes: `None` if the ELF is not one (an NVIDIA cubin, or
    /// garbage). Every offset is checked.
    pub fn from_elf(b: &[u8]) -> Option<Container> {
        let u16_at = |o: usize| Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?));
        let u32_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
        let u64_at = |o: usize| Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?));
        if b.get(..4)? != b"\x7fELF" || *b.get(4)? != 2 || *b.get(5)? != 1 {
            return None;
        }
        let shoff = usize::try_from(u64_at(0x28)?).ok()?;
        let shentsize = u16_at(0x3a)? as usize;
        let shnum = u16_at(0x3c)? as usize;
        let shstrndx = u16_at(0x3e)? as usize;
        if shentsize < 64 || shnum > 4096 {
            return None;
        }
        let section = |i: usize| -> Option<(u32, &[u8])> {
            let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
            let name = u32_at(h)?;
            let off = usize::try_from(u64_at(h + 24)?).ok()?;
            let size = usize::try_from(u64_at(h + 32)?).ok()?;
            Some((name, b.get(off..off.checked_add(size)?)?))
        };
        let (_, strtab) = section(shstrndx)?;
        let name_of = |n: u32| -> Option<&str> {
            let s = strtab.get(n as usize..)?;
            let end = s.iter().position(|&c| c == 0)?;
            std::str::from_utf8(&s[..end]).ok()
        };
        let (mut ptx, mut info) = (None, None);
        for i in 0..shnum {
            let (n, data) = section(i)?;
            match name_of(n) {
                Some(PTX_SECTION) => ptx = Some(data),
                Some(INFO_SECTION) => info = Some(data),
                _ => {}
            }
        }
        let ptx = ptx?;
        let end = ptx.iter().position(|&c| c == 0).unwrap_or(ptx.len());
        let ptx = String::from_utf8(ptx[..end].to_vec()).ok()?;
        let info: serde_json::Value = serde_json::from_slice(info?).ok()?;
        if info["format"] != FORMAT {
            return None;
        }
        let kernels = info["kernels"]
            .as_array()
            .map(|ks| {
                ks.iter()
                    .map(|k| KernelMeta {
                        name: k["name"].as_str().unwrap_or("").to_string(),
                        params: k["params"]
                            .as_array()
                            .map(|ps| {
                                ps.iter()
                                    .map(|p| {
                                        (
                                            p[0].as_u64().unwrap_or(0) as u32,
                                            p[1].as_u64().unwrap_or(0) as u32,
                                        )
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        regs: k["regs"].as_u64().unwrap_or(0) as u32,
                        shared: k["shared"].as_u64().unwrap_or(0) as u32,
                        local: k["local"].as_u64().unwrap_or(0) as u32,
                        max_threads: k["max_threads"].as_u64().unwrap_or(0) as u32,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Container {
            ptx,
            target: info["target"].as_str().unwrap_or("").to_string(),
            kernels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p, .param .u32 n)\n{\n\t.reg .b32 %r<2>;\n\t.shared .align 4 .b8 s[256];\n\tld.param.u32 %r1, [n];\n\tst.shared.u32 [s], %r1;\n\tret;\n}\n";

    #[test]
    fn round_trip_and_metadata() {
        let checked = std::sync::Arc::new(crate::check_ptx("k.ptx", PTX).unwrap());
        let model = crate::arch::model("sm_80").unwrap();
        let c = Container::describe(PTX, "sm_80", &checked, model).unwrap();
        assert_eq!(c.kernels.len(), 1);
        let k = &c.kernels[0];
        assert_eq!(k.name, "k");
        assert_eq!(k.params, vec![(0, 8), (8, 4)]);
        assert_eq!(k.shared, 256);
        let elf = c.to_elf();
        assert_eq!(&elf[..4], b"\x7fELF");
        assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), EM_CUDA);
        // The file ends with its section headers: its length follows from the header.
        let shoff = u64::from_le_bytes(elf[0x28..0x30].try_into().unwrap()) as usize;
        assert_eq!(elf.len(), shoff + 4 * 64);
        assert_eq!(Container::from_elf(&elf), Some(c));
        // Truncations and garbage are refused, never a panic.
        for n in 0..elf.len() {
            let _ = Container::from_elf(&elf[..n]);
        }
        let mut bad = elf.clone();
        bad[0x28] = 0xff;
        assert!(Container::from_elf(&bad).is_none());
    }

    #[test]
    fn maxnreg_bounds_the_registers() {
        // 99 64-bit values live at once (registers are estimated from liveness).
        let live: String = (1..100)
            .map(|i| format!("\tmov.u64 %rd{i}, {i};\n"))
            .chain((1..100).map(|i| format!("\tst.shared.u64 [s+{}], %rd{i};\n", 8 * (i % 32))))
            .collect();
        let many = PTX
            .replace(
                ".reg .b32 %r<2>;",
                ".reg .b32 %r<2>;\n\t.reg .b64 %rd<100>;",
            )
            .replace("\tret;", &format!("{live}\tret;"));
        let model = crate::arch::model("sm_80").unwrap();
        let regs = |ptx: &str| {
            let checked = std::sync::Arc::new(crate::check_ptx("k.ptx", ptx).unwrap());
            Container::describe(ptx, "sm_80", &checked, model)
                .unwrap()
                .kernels[0]
                .regs
        };
        assert!(regs(&many) > 100);
        let limited = many.replace(
            "(.param .u64 p, .param .u32 n)\n",
            "(.param .u64 p, .param .u32 n)\n.maxnreg 38\n",
        );
        assert_ne!(limited, many);
        assert_eq!(regs(&limited), 38);
    }
}
