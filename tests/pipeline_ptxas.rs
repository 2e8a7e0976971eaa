//! Each pipeline of `cutlet::pipeline` drives a small kernel through its
//! whole contract (acquire, copy, commit, wait, read, release, advance), and
//! ptxas must accept the emitted text for the ring's target.

mod common;

use cutlet::arch::ArchKind;
use cutlet::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CpAsync;
use cutlet::pipeline::{Pipeline, PipelineCpAsync};
use cutlet::ptx::{Kernel, Module, ParamType, RegClass, SpecialReg};

/// Assembles `kernel` alone in a module for `arch`; returns the text.
fn assemble(arch: ArchKind, kernel: Kernel) -> String {
    let mut module = Module::new(arch);
    module.add_kernel(kernel).unwrap();
    let text = module.emit().unwrap();
    common::ptxas::assemble(&text, arch.ptx_target());
    text
}

/// Threads of the test kernels' blocks.
const THREADS: u32 = 128;

/// A 3-stage `cp.async` ring on sm_80: each of 128 threads copies 16 bytes
/// of tile `t` into stage `t % 3`, and after the wait reads its neighbour's
/// 16 bytes (visible through the wait's `bar.sync`) and stores them.
#[test]
fn cp_async_ring_assembles_for_sm80() {
    let (stages, stage_bytes) = (3, THREADS * 16);
    let mut k = Kernel::new("cp_async_ring").unwrap();
    k.required_threads(THREADS, 1, 1);
    let src_param = k.param("src", ParamType::U64).unwrap();
    let dst_param = k.param("dst", ParamType::U64).unwrap();
    let tiles_param = k.param("tiles", ParamType::U32).unwrap();
    let smem_var = k.shared_dynamic("ring", 128).unwrap();
    let (src, dst) = (
        k.load_param(&src_param).unwrap(),
        k.load_param(&dst_param).unwrap(),
    );
    k.cvta_to_global(src, src);
    k.cvta_to_global(dst, dst);
    let tiles = k.load_param(&tiles_param).unwrap();
    let tid = k.special(SpecialReg::TidX);
    let smem = k.shared_address(&smem_var);
    let ring = PipelineCpAsync::new(&mut k, smem, stages, stage_bytes).unwrap();
    let (read, write) = (ring.consumer_state(), ring.producer_state());
    let (mine, theirs) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    k.push(format!("shl.b32 {mine}, {tid}, 4;"));
    k.push(format!("add.u32 {theirs}, {tid}, 1;"));
    k.push(format!("and.b32 {theirs}, {theirs}, {};", THREADS - 1));
    k.push(format!("shl.b32 {theirs}, {theirs}, 4;"));
    let (fetch, t, size, in_range) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::Pred),
    );
    let (from, to, at) = (
        k.reg(RegClass::B64),
        k.reg(RegClass::B64),
        k.reg(RegClass::B32),
    );
    let values = k.regs(RegClass::B32, 4);
    k.mov(fetch, 0);
    // The producer's step: tile `fetch` (zero-filled past the last).
    let produce = |k: &mut Kernel| {
        ring.producer_acquire(k, &write).unwrap();
        k.push(format!("setp.lt.u32 {in_range}, {fetch}, {tiles};"));
        k.push(format!("selp.u32 {size}, 16, 0, {in_range};"));
        k.push(format!("mad.lo.u32 {at}, {fetch}, {stage_bytes}, {mine};"));
        k.push(format!("cvt.u64.u32 {from}, {at};"));
        k.push(format!("add.u64 {from}, {from}, {src};"));
        k.push(format!("add.u32 {at}, {}, {mine};", write.stage));
        CpAsync::emit(k, &at, from, &size).unwrap();
        ring.producer_commit(k, &write).unwrap();
        ring.advance(k, &write).unwrap();
        k.push(format!("add.u32 {fetch}, {fetch}, 1;"));
    };
    for _ in 0..stages - 1 {
        produce(&mut k);
    }
    let (top, done) = (k.new_label("tile").unwrap(), k.new_label("done").unwrap());
    k.mov(t, 0);
    k.place_label(&top);
    k.push(format!("setp.ge.u32 {in_range}, {t}, {tiles};"));
    k.push(format!("@{in_range} bra {done};"));
    ring.consumer_wait(&mut k, &read).unwrap();
    k.push(format!("add.u32 {at}, {}, {theirs};", read.stage));
    k.push(format!(
        "ld.shared.v4.b32 {{{}, {}, {}, {}}}, [{at}];",
        values[0], values[1], values[2], values[3]
    ));
    ring.consumer_release(&mut k, &read).unwrap();
    ring.advance(&mut k, &read).unwrap();
    k.push(format!("mad.lo.u32 {at}, {t}, {stage_bytes}, {mine};"));
    k.push(format!("cvt.u64.u32 {to}, {at};"));
    k.push(format!("add.u64 {to}, {to}, {dst};"));
    k.push(format!(
        "st.global.v4.b32 [{to}], {{{}, {}, {}, {}}};",
        values[0], values[1], values[2], values[3]
    ));
    produce(&mut k);
    k.push(format!("add.u32 {t}, {t}, 1;"));
    k.push(format!("bra {top};"));
    k.place_label(&done);
    ring.drain(&mut k).unwrap();
    let text = assemble(ArchKind::Sm80, k);
    assert_eq!(text.matches("cp.async.commit_group;").count(), 3);
    assert_eq!(text.matches("cp.async.wait_group 1;").count(), 1);
    assert_eq!(text.matches("cp.async.wait_group 0;").count(), 1);
}
