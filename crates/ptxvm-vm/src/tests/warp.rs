//! Warp-level instructions and the membermask rules of the `.sync` forms.

use super::{fault_of, run_kernel, stores};
use crate::FaultKind;

fn warp(body: &str, block: u32, words: usize) -> Vec<Vec<u32>> {
    match run_kernel(body, 1, block, words) {
        Ok((v, _)) => v,
        Err(e) => panic!("{e}"),
    }
}

/// The manual's shfl semantics, written from the lane's point of view.
fn shfl_ref(mode: &str, lane: i32, b: i32, c: i32, vals: &[u32]) -> (u32, bool) {
    let b = b & 31;
    let seg = (c >> 8) & 31;
    let clamp = c & 31;
    let max_lane = (lane & seg) | (clamp & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        "up" => (lane - b, lane - b >= max_lane),
        "down" => (lane + b, lane + b <= max_lane),
        "bfly" => (lane ^ b, (lane ^ b) <= max_lane),
        _ => {
            let j = min_lane | (b & !seg);
            (j, j <= max_lane)
        }
    };
    if ok {
        (vals[j as usize], true)
    } else {
        (vals[lane as usize], false)
    }
}

#[test]
fn shfl_modes_clamp_and_segments() {
    let vals: Vec<u32> = (0..32).map(|l| l * 7 + 100).collect();
    let mut body = String::from("    mad.lo.u32 %r1, %r0, 7, 100;\n");
    let mut cases = Vec::new();
    for (mode, b, c) in [
        ("down", 1, 0x1f),
        ("down", 5, 0x1f),
        ("up", 3, 0),
        ("bfly", 6, 0x1f),
        ("idx", 9, 0x1f),
        ("idx", 40, 0x1f),
        ("down", 2, 0x181f), // width-8 segments
        ("up", 2, 0x1800),
        ("idx", 3, 0x181f),
        ("bfly", 4, 0x1c1f), // width-4 segments
        ("down", 1, 0x0f),   // clamp at lane 15
    ] {
        cases.push((mode, b, c));
    }
    let mut regs = Vec::new();
    for (k, (mode, b, c)) in cases.iter().enumerate() {
        let d = 10 + 2 * k;
        body.push_str(&format!(
            "    shfl.sync.{mode}.b32 %r{d}|%p1, %r1, {b}, {c}, 0xffffffff;\n    selp.u32 %r{}, 1, 0, %p1;\n",
            d + 1
        ));
        regs.push(format!("%r{d}"));
        regs.push(format!("%r{}", d + 1));
    }
    let rs: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    body.push_str(&stores(&rs));
    let got = warp(&body, 32, rs.len());
    for (lane, g) in got.iter().enumerate() {
        for (k, (mode, b, c)) in cases.iter().enumerate() {
            let (v, p) = shfl_ref(mode, lane as i32, *b, *c, &vals);
            assert_eq!(
                (g[2 * k], g[2 * k + 1]),
                (v, p as u32),
                "shfl.{mode} b={b} c={c:#x} lane {lane}"
            );
        }
    }
}

#[test]
fn votes_match_redux_elect() {
    let body = r#"
    and.b32 %r1, %r0, 3;
    setp.eq.u32 %p1, %r1, 0;
    vote.sync.ballot.b32 %r10, %p1, 0xffffffff;
    vote.sync.any.pred %p2, %p1, 0xffffffff;
    vote.sync.all.pred %p3, %p1, 0xffffffff;
    @%p1 vote.sync.uni.pred %p4, %p1, 0x11111111;
    selp.u32 %r11, 1, 0, %p2;
    selp.u32 %r12, 1, 0, %p3;
    selp.u32 %r13, 1, 0, %p4;
    match.any.sync.b32 %r14, %r1, 0xffffffff;
    match.all.sync.b32 %r15|%p5, %r1, 0xffffffff;
    selp.u32 %r16, 1, 0, %p5;
    redux.sync.add.u32 %r17, %r0, 0xffffffff;
    sub.s32 %r2, 10, %r0;
    redux.sync.min.s32 %r18, %r2, 0xffffffff;
    redux.sync.max.u32 %r19, %r2, 0xffffffff;
    redux.sync.xor.b32 %r20, %r0, 0xffffffff;
    elect.sync %r21|%p6, 0xfffffff0;
    selp.u32 %r22, 1, 0, %p6;
    vote.ballot.b32 %r23, !%p1;
"#
    .to_string();
    let mut body = body;
    body.push_str(&stores(&[
        "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%r16", "%r17", "%r18", "%r19", "%r20",
        "%r21", "%r22", "%r23",
    ]));
    // Lanes 0..3 run elect with a mask excluding them: that is a membermask fault, so
    // guard the elect to lanes ≥ 4 by running only where the mask includes the lane.
    let body = body.replace(
        "    elect.sync %r21|%p6, 0xfffffff0;\n",
        "    setp.ge.u32 %p7, %r0, 4;\n    @%p7 elect.sync %r21|%p6, 0xfffffff0;\n",
    );
    let got = warp(&body, 32, 14);
    let ballot: u32 = (0..32).filter(|l| l % 4 == 0).fold(0, |m, l| m | 1 << l);
    let sum: u32 = (0..32).sum();
    let xor = (0..32u32).fold(0, |a, b| a ^ b);
    for lane in 0..32u32 {
        let g = &got[lane as usize];
        assert_eq!(g[0], ballot);
        assert_eq!((g[1], g[2]), (1, 0));
        assert_eq!(
            g[3],
            (lane % 4 == 0) as u32,
            "lanes 0,4,8,.. (mask 0x11111111)"
        );
        let same: u32 = (0..32)
            .filter(|l| l % 4 == lane % 4)
            .fold(0, |m, l| m | 1 << l);
        assert_eq!(g[4], same);
        assert_eq!((g[5], g[6]), (0, 0));
        assert_eq!(g[7], sum);
        assert_eq!(g[8], (10 - 31i32) as u32);
        assert_eq!(
            g[9],
            u32::MAX,
            "unsigned max: lane 11 has 10 - 11 = 0xffffffff"
        );
        assert_eq!(g[10], xor);
        if lane >= 4 {
            assert_eq!((g[11], g[12]), (4, (lane == 4) as u32));
        }
        assert_eq!(g[13], !ballot);
    }
}

#[test]
fn divergent_partial_masks_and_activemask() {
    // The two halves of the warp shuffle within themselves from different branches.
    let body = r#"
    setp.lt.u32 %p1, %r0, 16;
    @%p1 bra LOW;
    activemask.b32 %r11;
    shfl.sync.bfly.b32 %r10, %r0, 1, 0x1f, 0xffff0000;
    bra.uni JOIN;
LOW:
    activemask.b32 %r11;
    shfl.sync.idx.b32 %r10, %r0, 15, 0x1f, 0x0000ffff;
JOIN:
    activemask.b32 %r12;
"#
    .to_string()
        + &stores(&["%r10", "%r11", "%r12"]);
    let got = warp(&body, 32, 3);
    for lane in 0..32u32 {
        let g = &got[lane as usize];
        if lane < 16 {
            assert_eq!(g[0], 15);
            assert_eq!(g[1], 0x0000_ffff);
        } else {
            assert_eq!(g[0], lane ^ 1);
            assert_eq!(g[1], 0xffff_0000);
        }
        assert_eq!(g[2], 0xffff_ffff, "reconverged");
    }
}

#[test]
fn exited_lanes_and_partial_warps() {
    // Lanes ≥ 20 exit; the others shuffle with the full mask (exited lanes do not block).
    let body = "    setp.ge.u32 %p1, %r0, 20;\n    @%p1 exit;\n    shfl.sync.down.b32 %r10, %r0, 1, 0x1f, 0xffffffff;\n    bar.warp.sync 0xffffffff;\n    vote.sync.ballot.b32 %r11, 1, 0xffffffff;\n"
        .to_string()
        + &stores(&["%r10", "%r11"]);
    let got = warp(&body, 32, 2);
    for lane in 0..20u32 {
        assert_eq!(got[lane as usize][1], 0x000f_ffff);
        if lane < 19 {
            assert_eq!(got[lane as usize][0], lane + 1);
        }
    }
    // A block of 40 threads: warp 1 has 8 lanes; the full mask still works.
    let body = "    vote.sync.ballot.b32 %r10, 1, 0xffffffff;\n".to_string() + &stores(&["%r10"]);
    let got = warp(&body, 40, 1);
    assert_eq!(got[0][0], u32::MAX);
    assert_eq!(got[39][0], 0xff);
}

#[test]
fn membermask_faults() {
    // The executing lane is not in its own membermask.
    let f = fault_of(
        "    shfl.sync.idx.b32 %r10, %r0, 0, 0x1f, 0xfffffffe;\n",
        32,
    );
    assert_eq!(f.kind, FaultKind::MemberMask);
    assert_eq!(f.site.lane, 0);
    assert!(f.message.contains("does not include"), "{}", f.message);
    // Lanes 0 and 1 wait at different shfl.sync instructions: neither can complete.
    let body = r#"
    setp.ge.u32 %p2, %r0, 2;
    @%p2 exit;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 bra A;
    shfl.sync.idx.b32 %r10, %r0, 0, 0x1f, 0x3;
    bra.uni DONE;
A:
    shfl.sync.idx.b32 %r10, %r0, 1, 0x1f, 0x3;
DONE:
"#;
    let f = fault_of(body, 32);
    assert_eq!(f.kind, FaultKind::MemberMask);
    assert!(f.message.contains("can never arrive"), "{}", f.message);
    // A member lane waits at a CTA barrier the waiting lane never reaches.
    let body = r#"
    setp.eq.u32 %p1, %r0, 0;
    @%p1 bra A;
    bar.sync 0;
    bra.uni DONE;
A:
    bar.warp.sync 0xffffffff;
DONE:
"#;
    let f = fault_of(body, 32);
    assert_eq!(f.kind, FaultKind::MemberMask);
    assert!(f.message.contains("barrier 0"), "{}", f.message);
}
