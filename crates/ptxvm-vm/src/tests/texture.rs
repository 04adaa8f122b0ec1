//! Textures and surfaces through the library API: objects over device memory, `.texref`
//! variables bound to them, layered resources, and the faults of bad handles. Expected values
//! are worked out by hand in the comments (the sampling formula: `ops/texture.rs`).

use crate::ops::texture::{AddrMode, Elem, Filter, Geom, Layout, Sampler};
use crate::{Device, Engine, LaunchConfig, Stats, VmError};

/// Loads `ptx`, lets `setup` create objects (its result is the kernel's arguments after
/// the output buffer), launches `k(out, ...)` on one thread and returns `words` u32 of `out`.
fn run(
    engine: Engine,
    ptx: &str,
    words: usize,
    setup: &dyn Fn(&Device, crate::ModuleId) -> Vec<u64>,
) -> Result<Vec<u32>, VmError> {
    let dev = Device::new();
    let m = dev.load_ptx("t.ptx", ptx)?;
    let out = dev.malloc(4 * words as u64)?;
    let mut args: Vec<Vec<u8>> = vec![out.to_le_bytes().to_vec()];
    args.extend(setup(&dev, m).into_iter().map(|v| v.to_le_bytes().to_vec()));
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        threads: 1,
        engine,
        ..LaunchConfig::default()
    };
    dev.launch(m, "k", &cfg, &refs, &mut Stats::default())?;
    let b = dev.read(out, 4 * words as u64)?;
    Ok(b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Runs on every engine; they must agree.
fn run_all(
    ptx: &str,
    words: usize,
    setup: &dyn Fn(&Device, crate::ModuleId) -> Vec<u64>,
) -> Result<Vec<u32>, String> {
    // Device addresses differ between devices: errors are compared without them.
    let msg = |e: VmError| super::without_addresses(&e.to_string());
    let r = run(Engine::Reference, ptx, words, setup).map_err(msg);
    for e in [Engine::Interp, Engine::Jit] {
        let o = run(e, ptx, words, setup).map_err(msg);
        assert_eq!(o, r, "engine {} differs from the reference", e.name());
    }
    r
}

/// Device memory holding `vals` as f32.
fn f32_buf(dev: &Device, vals: &[f32]) -> u64 {
    let a = dev.malloc(4 * vals.len() as u64).unwrap();
    let b: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    dev.write(a, &b).unwrap();
    a
}

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

#[test]
fn texref_variable_bound_through_the_api() {
    // A unified-mode `.texref` bound to a 1D linear texture of [0, 1, 2, 3]: at x = 1.75,
    // u_B = 1.25, i = 1, k = 64 (α = 0.25): 0.75·1 + 0.25·2 = 1.25. `txq.width` of the
    // variable is 4; the variable's address (`mov.u64`) names it too.
    let ptx = format!(
        "{HEAD}.global .texref tr;\n.visible .entry k(.param .u64 out)\n{{\n .reg .b64 %rd<4>;\n .reg .f32 %f<8>;\n .reg .b32 %r<4>;\n ld.param.u64 %rd1, [out];\n mov.f32 %f1, 0f3FE00000;\n tex.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [tr, {{%f1}}];\n st.global.f32 [%rd1], %f2;\n txq.width.b32 %r1, [tr];\n st.global.u32 [%rd1+4], %r1;\n mov.u64 %rd2, tr;\n tex.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}];\n st.global.f32 [%rd1+8], %f2;\n ret;\n}}\n"
    );
    let got = run_all(&ptx, 3, &|dev, m| {
        let base = f32_buf(dev, &[0.0, 1.0, 2.0, 3.0]);
        let lay = Layout::packed(base, Elem::F32, 1, Geom::D1, 4, 1, 1, 1).unwrap();
        let s = Sampler {
            filter: Filter::Linear,
            ..Sampler::default()
        };
        let h = dev.create_texture(lay, s).unwrap();
        dev.bind_ref(m, "tr", h).unwrap();
        vec![]
    })
    .unwrap();
    assert_eq!(got, vec![1.25f32.to_bits(), 4, 1.25f32.to_bits()]);
}

#[test]
fn unbound_texref_faults() {
    let ptx = format!(
        "{HEAD}.global .texref tr;\n.visible .entry k(.param .u64 out)\n{{\n .reg .b32 %r<4>;\n txq.width.b32 %r1, [tr];\n ret;\n}}\n"
    );
    let e = run_all(&ptx, 1, &|_, _| vec![]).unwrap_err();
    assert!(e.contains("is not a texture or surface object"), "{e}");
}

#[test]
fn layered_textures_and_surfaces() {
    // A 2D layered texture of 3 layers of 2x2 texels, texel (x, y) of layer l = 100l + 10y + x.
    // tex.a2d with s32 coordinates reads layer 2, (1, 0) = 201; the layer index clamps (7 →
    // 2): (0, 1) = 210. tld4.r.a2d at (1.0, 1.0) of layer 1 gathers (0,1), (1,1), (1,0),
    // (0,0) = 110, 111, 101, 100. suld.b.a1d of a 1D layered u32 surface (2 layers of 4)
    // reads layer 1, byte x 8 = texel 6.
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u64 t, .param .u64 s)\n{{\n .reg .b64 %rd<4>;\n .reg .f32 %f<12>;\n .reg .b32 %r<12>;\n ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [t];\n ld.param.u64 %rd3, [s];\n mov.u32 %r1, 2;\n mov.u32 %r2, 1;\n mov.u32 %r3, 0;\n tex.a2d.v4.f32.s32 {{%f1, %f2, %f3, %f4}}, [%rd2, {{%r1, %r2, %r3, %r3}}];\n st.global.f32 [%rd1], %f1;\n mov.u32 %r1, 7;\n tex.a2d.v4.f32.s32 {{%f1, %f2, %f3, %f4}}, [%rd2, {{%r1, %r3, %r2, %r3}}];\n st.global.f32 [%rd1+4], %f1;\n mov.u32 %r4, 1;\n mov.f32 %f5, 0f3F800000;\n tld4.r.a2d.v4.f32.f32 {{%f1, %f2, %f3, %f4}}, [%rd2, {{%r4, %f5, %f5, %f5}}];\n st.global.f32 [%rd1+8], %f1;\n st.global.f32 [%rd1+12], %f2;\n st.global.f32 [%rd1+16], %f3;\n st.global.f32 [%rd1+20], %f4;\n mov.u32 %r5, 8;\n suld.b.a1d.b32.trap %r6, [%rd3, {{%r2, %r5}}];\n st.global.u32 [%rd1+24], %r6;\n ret;\n}}\n"
    );
    let got = run_all(&ptx, 7, &|dev, _| {
        let mut v = Vec::new();
        for l in 0..3 {
            for y in 0..2 {
                for x in 0..2 {
                    v.push((100 * l + 10 * y + x) as f32);
                }
            }
        }
        let base = f32_buf(dev, &v);
        let lay = Layout::packed(base, Elem::F32, 1, Geom::Layered2, 2, 2, 1, 3).unwrap();
        let t = dev.create_texture(lay, Sampler::default()).unwrap();
        let sb = dev.malloc(32).unwrap();
        let b: Vec<u8> = (0..8u32).flat_map(|i| i.to_le_bytes()).collect();
        dev.write(sb, &b).unwrap();
        let sl = Layout::packed(sb, Elem::U32, 1, Geom::Layered1, 4, 1, 1, 2).unwrap();
        let s = dev.create_surface(sl).unwrap();
        vec![t, s]
    })
    .unwrap();
    let f = |v: f32| v.to_bits();
    assert_eq!(
        got,
        vec![
            f(201.0),
            f(210.0),
            f(110.0),
            f(111.0),
            f(101.0),
            f(100.0),
            6
        ]
    );
}

#[test]
fn destroyed_handles_and_freed_memory_fault() {
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u64 t)\n{{\n .reg .b64 %rd<4>;\n .reg .f32 %f<8>;\n .reg .b32 %r<4>;\n ld.param.u64 %rd2, [t];\n mov.u32 %r1, 0;\n tex.1d.v4.f32.s32 {{%f1, %f2, %f3, %f4}}, [%rd2, {{%r1}}];\n ret;\n}}\n"
    );
    let e = run_all(&ptx, 1, &|dev, _| {
        let base = f32_buf(dev, &[1.0]);
        let lay = Layout::packed(base, Elem::F32, 1, Geom::D1, 1, 1, 1, 1).unwrap();
        let h = dev.create_texture(lay, Sampler::default()).unwrap();
        dev.destroy_object(h).unwrap();
        vec![h]
    })
    .unwrap_err();
    assert!(e.contains("is not a texture or surface object"), "{e}");
    let e = run_all(&ptx, 1, &|dev, _| {
        let base = f32_buf(dev, &[1.0]);
        let lay = Layout::packed(base, Elem::F32, 1, Geom::D1, 1, 1, 1, 1).unwrap();
        let h = dev.create_texture(lay, Sampler::default()).unwrap();
        dev.free(base).unwrap();
        vec![h]
    })
    .unwrap_err();
    assert!(e.contains("free"), "{e}");
}

#[test]
fn creation_is_checked() {
    let dev = Device::new();
    let base = dev.malloc(64).unwrap();
    let lay = |w, elem| Layout::packed(base, elem, 1, Geom::D1, w, 1, 1, 1).unwrap();
    // Larger than its allocation, outside any allocation, a zero extent.
    assert!(dev.create_surface(lay(17, Elem::F32)).is_err());
    assert!(
        dev.create_surface(Layout {
            base: 8,
            ..lay(1, Elem::F32)
        })
        .is_err()
    );
    assert!(dev.create_surface(lay(0, Elem::F32)).is_err());
    // Linear filtering of integers needs read=float; 32-bit integers cannot read as floats.
    let lin = Sampler {
        filter: Filter::Linear,
        ..Sampler::default()
    };
    assert!(dev.create_texture(lay(4, Elem::U8), lin).is_err());
    let rf = Sampler {
        read_float: true,
        address: [AddrMode::Wrap; 3],
        ..lin
    };
    assert!(dev.create_texture(lay(4, Elem::U8), rf).is_ok());
    assert!(dev.create_texture(lay(4, Elem::U32), rf).is_err());
    assert!(dev.destroy_object(12345).is_err());
}

#[test]
fn cubemaps() {
    // Two cubes of 2x2 faces; texel (x, y) of face f of cube n = 100n + 10f + 2y + x; point
    // sampling. Worked by hand from the face table (`ops::texture::cube_face`):
    // (1, 0.5, -0.5): +X, (sc, tc) = (-z, -y) = (0.5, -0.5) → (u, v) = (0.75, 0.25) → (1, 0) = 1.
    // (0.2, -3, 0.9): −Y, (x, -z)/3 = (0.0667, -0.3) → (0.533, 0.35) → (1, 0) = 31.
    // (-0.1, 0.2, -0.7): −Z, (-x, -y)/0.7 = (0.143, -0.286) → (0.571, 0.357) → (1, 0) = 51.
    // acube, cube 1, (0, 0, 2): +Z, (x, -y) = (0, 0) → (0.5, 0.5) → (1, 1) = 100 + 40 + 3 = 143.
    // tld4.r.cube at (1, 0, 0) (+X centre, (0.5, 0.5) → u_B = v_B = 0.5): footprint (0, 1),
    // (1, 1), (1, 0), (0, 0) = 2, 3, 1, 0.
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u64 t, .param .u64 a)\n{{\n .reg .b64 %rd<4>;\n .reg .f32 %f<16>;\n .reg .b32 %r<4>;\n ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [t];\n ld.param.u64 %rd3, [a];\n\
 mov.f32 %f1, 0f3F800000;\n mov.f32 %f2, 0f3F000000;\n mov.f32 %f3, 0fBF000000;\n tex.cube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd2, {{%f1, %f2, %f3, %f3}}];\n st.global.f32 [%rd1], %f4;\n\
 mov.f32 %f1, 0f3E4CCCCD;\n mov.f32 %f2, 0fC0400000;\n mov.f32 %f3, 0f3F666666;\n tex.cube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd2, {{%f1, %f2, %f3, %f3}}];\n st.global.f32 [%rd1+4], %f4;\n\
 mov.f32 %f1, 0fBDCCCCCD;\n mov.f32 %f2, 0f3E4CCCCD;\n mov.f32 %f3, 0fBF333333;\n tex.cube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd2, {{%f1, %f2, %f3, %f3}}];\n st.global.f32 [%rd1+8], %f4;\n\
 mov.u32 %r1, 1;\n mov.f32 %f1, 0f00000000;\n mov.f32 %f3, 0f40000000;\n tex.acube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%r1, %f1, %f1, %f3}}];\n st.global.f32 [%rd1+12], %f4;\n\
 mov.f32 %f1, 0f3F800000;\n mov.f32 %f2, 0f00000000;\n tld4.r.cube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd2, {{%f1, %f2, %f2, %f2}}];\n st.global.f32 [%rd1+16], %f4;\n st.global.f32 [%rd1+20], %f5;\n st.global.f32 [%rd1+24], %f6;\n st.global.f32 [%rd1+28], %f7;\n ret;\n}}\n"
    );
    let got = run_all(&ptx, 8, &|dev, _| {
        let mut v = Vec::new();
        for n in 0..2 {
            for f in 0..6 {
                for t in 0..4 {
                    v.push((100 * n + 10 * f + t) as f32);
                }
            }
        }
        let base = f32_buf(dev, &v);
        let one = Layout::packed(base, Elem::F32, 1, Geom::Cube, 2, 2, 1, 6).unwrap();
        let arr = Layout::packed(base, Elem::F32, 1, Geom::CubeLayered, 2, 2, 1, 12).unwrap();
        let t = dev.create_texture(one, Sampler::default()).unwrap();
        let a = dev.create_texture(arr, Sampler::default()).unwrap();
        // A cube needs square faces and six layers.
        let bad = Layout::packed(base, Elem::F32, 1, Geom::Cube, 2, 1, 1, 6).unwrap();
        assert!(dev.create_texture(bad, Sampler::default()).is_err());
        vec![t, a]
    })
    .unwrap();
    let f = |v: f32| v.to_bits();
    assert_eq!(
        got,
        vec![
            f(1.0),
            f(31.0),
            f(51.0),
            f(143.0),
            f(2.0),
            f(3.0),
            f(1.0),
            f(0.0)
        ]
    );
}

#[test]
fn independent_mode_samplerref_bound_through_the_api() {
    // `texmode_independent`: `[tr, smp, c]` reads the texels of the texture bound to `tr` (a
    // 1D point-sampled [0, 1, 2, 3]) with the sampling state of the object bound to `smp`
    // (linear, unnormalized): at x = 1.75, 0.75·1 + 0.25·2 = 1.25 (as
    // `texref_variable_bound_through_the_api`); the texture's handle as its own sampler
    // (`[t, t, c]`) reads point-sampled texel floor(1.75) = 1. A surface as the sampler
    // faults. (The kernel is accepted by ptxas.)
    let ptx = ".version 8.0\n.target sm_80, texmode_independent\n.address_size 64\n.global .texref tr;\n.global .samplerref smp;\n.visible .entry k(.param .u64 out, .param .u64 t)\n{\n .reg .b64 %rd<4>;\n .reg .f32 %f<8>;\n ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [t];\n mov.f32 %f1, 0f3FE00000;\n tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tr, smp, {%f1}];\n st.global.f32 [%rd1], %f2;\n tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd2, %rd2, {%f1}];\n st.global.f32 [%rd1+4], %f2;\n ret;\n}\n";
    let setup = |surface_sampler: bool| {
        move |dev: &Device, m: crate::ModuleId| {
            let base = f32_buf(dev, &[0.0, 1.0, 2.0, 3.0]);
            let lay = Layout::packed(base, Elem::F32, 1, Geom::D1, 4, 1, 1, 1).unwrap();
            let t = dev.create_texture(lay, Sampler::default()).unwrap();
            let s = if surface_sampler {
                dev.create_surface(lay).unwrap()
            } else {
                let s = Sampler {
                    filter: Filter::Linear,
                    ..Sampler::default()
                };
                dev.create_texture(lay, s).unwrap()
            };
            dev.bind_ref(m, "tr", t).unwrap();
            dev.bind_ref(m, "smp", s).unwrap();
            vec![t]
        }
    };
    let got = run_all(ptx, 2, &setup(false)).unwrap();
    assert_eq!(got, vec![1.25f32.to_bits(), 1.0f32.to_bits()]);
    let e = run_all(ptx, 2, &setup(true)).unwrap_err();
    assert!(e.contains("is a surface object, not a texture one"), "{e}");
}

#[test]
fn mipmapped_textures_through_the_api() {
    // A 1D f32 chain of 3 levels over one allocation: level 0 = [1, 1, 1, 1], level 1 = [3, 3],
    // level 2 = [7] (Layout::level places them one after another). Normalized, point,
    // linear mipmap filtering, levels [0, +inf) (the library's default sampler):
    // `tex.level` 0.75 → q = 192: 0.25·1 + 0.75·3 = 2.5; 1.5 → 0.5·3 + 0.5·7 = 5; 9 → level 2 = 7;
    // `tex.grad` with dPdx = 0.5 (·4 = 2 → LOD 1) → 3; `tex` → level 0 = 1; txq: 3 levels.
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u64 t)\n{{\n .reg .b64 %rd<4>;\n .reg .f32 %f<12>;\n .reg .b32 %r<2>;\n ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [t];\n mov.f32 %f1, 0f3F000000;\n mov.f32 %f6, 0f3F400000;\n tex.level.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}], %f6;\n st.global.f32 [%rd1], %f2;\n mov.f32 %f6, 0f3FC00000;\n tex.level.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}], %f6;\n st.global.f32 [%rd1+4], %f2;\n mov.f32 %f6, 0f41100000;\n tex.level.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}], %f6;\n st.global.f32 [%rd1+8], %f2;\n mov.f32 %f7, 0f00000000;\n tex.grad.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}], {{%f1}}, {{%f7}};\n st.global.f32 [%rd1+12], %f2;\n tex.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}];\n st.global.f32 [%rd1+16], %f2;\n txq.num_mipmap_levels.b32 %r1, [%rd2];\n st.global.u32 [%rd1+20], %r1;\n ret;\n}}\n"
    );
    let got = run_all(&ptx, 6, &|dev, _| {
        let base = f32_buf(dev, &[1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 7.0]);
        let lay = Layout::packed(base, Elem::F32, 1, Geom::D1, 4, 1, 1, 1)
            .unwrap()
            .with_levels(3);
        let s = Sampler {
            normalized: true,
            mip_filter: Filter::Linear,
            ..Sampler::default()
        };
        vec![dev.create_texture(lay, s).unwrap()]
    })
    .unwrap();
    let f = |i: usize| f32::from_bits(got[i]);
    assert_eq!([f(0), f(1), f(2), f(3), f(4)], [2.5, 5.0, 7.0, 3.0, 1.0]);
    assert_eq!(got[5], 3);
}

#[test]
fn mipmapped_creation_is_checked() {
    let dev = Device::new();
    let base = dev.malloc(4 * 7).unwrap();
    let lay = |levels| {
        Layout::packed(base, Elem::F32, 1, Geom::D1, 4, 1, 1, 1)
            .unwrap()
            .with_levels(levels)
    };
    let s = Sampler::default();
    // 4 texels have at most 3 levels; the chain must fit its allocation (7 floats do).
    assert!(dev.create_texture(lay(3), s).is_ok());
    assert!(dev.create_texture(lay(4), s).is_err());
    assert!(dev.create_texture(lay(0), s).is_err());
    let small = dev.malloc(4 * 6).unwrap();
    assert!(
        dev.create_texture(
            Layout {
                base: small,
                ..lay(3)
            },
            s
        )
        .is_err()
    );
    // A surface is one level; pitched linear memory has one level.
    assert!(dev.create_surface(lay(2)).is_err());
    assert!(dev.create_surface(lay(2).level(1).unwrap()).is_ok());
    assert!(
        dev.create_texture(
            Layout {
                linear: true,
                ..lay(2)
            },
            s
        )
        .is_err()
    );
    // Linear mipmap filtering of integers needs read=float.
    let u8s = Layout::packed(base, Elem::U8, 1, Geom::D1, 4, 1, 1, 1)
        .unwrap()
        .with_levels(3);
    let lin = Sampler {
        mip_filter: Filter::Linear,
        ..s
    };
    assert!(dev.create_texture(u8s, lin).is_err());
    assert!(
        dev.create_texture(
            u8s,
            Sampler {
                read_float: true,
                ..lin
            }
        )
        .is_ok()
    );
}
