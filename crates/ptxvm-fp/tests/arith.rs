//! Conformance suite for `.f32`/`.f64` arithmetic and approximate functions
//! (`ptxvm_fp::arith`, `ptxvm_fp::approx`). The checks live in `gen_arith` so that
//! `examples/coverage_arith.rs` counts exactly the cases run here.

#[path = "gen_arith/mod.rs"]
mod gen_arith;

fn run(i: usize) {
    let (form, reference, check) = gen_arith::rows()[i];
    let n = check();
    assert!(n > 0, "{form} ({reference}) ran no case");
}

macro_rules! row_tests {
    ($($name:ident = $i:expr;)*) => { $( #[test] fn $name() { run($i); } )* };
}

row_tests! {
    add_f32 = 0; sub_f32 = 1; mul_f32 = 2; div_f32 = 3;
    add_f64 = 4; sub_f64 = 5; mul_f64 = 6; div_f64 = 7;
    fma_f32 = 8; fma_f64 = 9; ptx_f32_forms = 10; ptx_f64_forms = 11;
    sqrt = 12; misc_f32 = 13; misc_f64 = 14; approx_f32 = 15; approx_f64 = 16;
}

#[test]
fn every_row_has_a_test() {
    assert_eq!(gen_arith::rows().len(), 17);
}

#[test]
fn soft_fma_tricky_cases() {
    use ptxvm_fp::{Rnd, arith::fma_f64_soft};
    // Exact cancellation: a*b + c == 0 gives -0 only under .rm.
    assert_eq!(
        fma_f64_soft(2.0, 3.0, -6.0, Rnd::Rm).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(fma_f64_soft(2.0, 3.0, -6.0, Rnd::Rz).to_bits(), 0);
    // Tiny addend below the product's ulp decides the directed result.
    let t = f64::from_bits(1);
    assert_eq!(fma_f64_soft(1.0, 1.0, t, Rnd::Rp), 1.0 + f64::EPSILON);
    assert_eq!(
        fma_f64_soft(1.0, 1.0, -t, Rnd::Rz),
        1.0 - f64::EPSILON / 2.0
    );
    assert_eq!(fma_f64_soft(1.0, 1.0, -t, Rnd::Rn), 1.0);
}

#[test]
fn avx512_detection_is_stable() {
    let a = ptxvm_fp::arith::has_avx512();
    assert_eq!(a, ptxvm_fp::arith::has_avx512());
    #[cfg(target_arch = "x86_64")]
    assert_eq!(a, std::is_x86_feature_detected!("avx512f"));
}
