//! Each pipeline of `cutlet::pipeline` drives a small kernel through its
//! whole contract (acquire, copy, commit, wait, read, release, advance; for
//! the store ring acquire, write, fence, store, commit, tail), and ptxas
//! must accept the emitted text for the ring's target.

mod common;

use cutlet::arch::ArchKind;
use cutlet::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CpAsync;
use cutlet::pipeline::{
    OrderedSequenceBarrier, Pipeline, PipelineCpAsync, PipelineTmaAsync, PipelineTmaStore, Release,
    RemoteArrival, StoreAcquire, TmaAsyncConfig,
};
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

/// A 4-stage mbarrier ring on sm_90a, warp-specialized: thread 0 produces
/// (waits on `empty`, arms `full` with the stage's bytes, one bulk copy per
/// stage), threads 32..160 (a warpgroup) consume (wait on `full`, read,
/// release on `empty`), and the producer ends with its tail. With
/// `cluster_ctas = 2` the consumers release through remote arrivals on the
/// peer CTA's `empty` barrier (the multicast shape), counted per the
/// cluster's row and column.
fn tma_async_ring(cluster_ctas: u32) -> String {
    let consumers = 128;
    let config = TmaAsyncConfig {
        stages: 4,
        stage_bytes: consumers * 16,
        tx_bytes: consumers * 16,
        release: Release::EmptyBarrier {
            arrivals: TmaAsyncConfig::multicast_arrivals(consumers, [cluster_ctas, 1]),
        },
        cluster_ctas,
    };
    let mut k = Kernel::new("tma_async_ring").unwrap();
    k.max_threads(32 + consumers, 1, 1);
    let src_param = k.param("src", ParamType::U64).unwrap();
    let dst_param = k.param("dst", ParamType::U64).unwrap();
    let chunks_param = k.param("chunks", ParamType::U32).unwrap();
    let smem_var = k.shared_dynamic("ring", 128).unwrap();
    let (src, dst) = (
        k.load_param(&src_param).unwrap(),
        k.load_param(&dst_param).unwrap(),
    );
    k.cvta_to_global(src, src);
    k.cvta_to_global(dst, dst);
    let chunks = k.load_param(&chunks_param).unwrap();
    let tid = k.special(SpecialReg::TidX);
    let smem = k.shared_address(&smem_var);
    let remote = (cluster_ctas > 1).then(|| {
        let (cta, signal) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
        k.push(format!("mov.u32 {cta}, %cluster_ctarank;"));
        k.push(format!("xor.b32 {cta}, {cta}, 1;"));
        k.push(format!("setp.ge.u32 {signal}, {tid}, 32;"));
        RemoteArrival { cta, signal }
    });
    let pipe = PipelineTmaAsync::new(&mut k, config, smem, "ring", remote).unwrap();
    let (leader, consumer, more) = (
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
    );
    k.push(format!("setp.eq.u32 {leader}, {tid}, 0;"));
    k.push(format!("setp.ge.u32 {consumer}, {tid}, 32;"));
    pipe.init(&mut k, leader).unwrap();
    let (c, at) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    let (global, values) = (k.reg(RegClass::B64), k.regs(RegClass::B32, 4));
    let (consume, exit) = (
        k.new_label("consume").unwrap(),
        k.new_label("exit").unwrap(),
    );
    k.push(format!("@{consumer} bra {consume};"));
    k.push(format!("@!{leader} bra {exit};"));

    // Producer.
    let state = pipe.producer_start(&mut k);
    let produce = k.new_label("produce").unwrap();
    k.mov(c, 0);
    k.place_label(&produce);
    pipe.producer_acquire(&mut k, &state).unwrap();
    k.push(format!(
        "mul.wide.u32 {global}, {c}, {};",
        config.stage_bytes
    ));
    k.push(format!("add.u64 {global}, {global}, {src};"));
    k.snippet(
        "sm90/bulk_copy",
        "bulk_load_g2s",
        &[
            ("dst", &state.stage),
            ("src", &global),
            ("bytes", &config.stage_bytes),
            ("bar", &state.full),
        ],
    )
    .unwrap();
    pipe.producer_commit(&mut k, &state).unwrap();
    pipe.advance(&mut k, &state).unwrap();
    k.push(format!("add.u32 {c}, {c}, 1;"));
    k.push(format!("setp.lt.u32 {more}, {c}, {chunks};"));
    k.push(format!("@{more} bra {produce};"));
    pipe.producer_tail(&mut k, &state).unwrap();
    k.push(format!("bra.uni {exit};"));

    // Consumers.
    k.place_label(&consume);
    let state = pipe.consumer_start(&mut k);
    let top = k.new_label("chunk").unwrap();
    k.mov(c, 0);
    k.place_label(&top);
    pipe.consumer_wait(&mut k, &state).unwrap();
    k.push(format!("sub.u32 {at}, {tid}, 32;"));
    k.push(format!("shl.b32 {at}, {at}, 4;"));
    k.push(format!("add.u32 {at}, {at}, {};", state.stage));
    k.push(format!(
        "ld.shared.v4.b32 {{{}, {}, {}, {}}}, [{at}];",
        values[0], values[1], values[2], values[3]
    ));
    pipe.consumer_release(&mut k, &state).unwrap();
    pipe.advance(&mut k, &state).unwrap();
    k.push(format!("mad.lo.u32 {at}, {c}, {}, {tid};", consumers));
    k.push(format!("mul.wide.u32 {global}, {at}, 16;"));
    k.push(format!("add.u64 {global}, {global}, {dst};"));
    k.push(format!(
        "st.global.v4.b32 [{global}], {{{}, {}, {}, {}}};",
        values[0], values[1], values[2], values[3]
    ));
    k.push(format!("add.u32 {c}, {c}, 1;"));
    k.push(format!("setp.lt.u32 {more}, {c}, {chunks};"));
    k.push(format!("@{more} bra {top};"));
    k.place_label(&exit);
    if cluster_ctas > 1 {
        // No CTA exits while a peer may still arrive on its barriers.
        k.snippet("sm90/cluster", "cluster_sync", &[]).unwrap();
    }
    assemble(ArchKind::Sm90, k)
}

#[test]
fn tma_async_ring_assembles_for_sm90a() {
    let text = tma_async_ring(1);
    assert_eq!(text.matches("mbarrier.init.shared::cta.b64").count(), 8);
    assert!(text.contains("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r"));
    assert!(text.contains(", 2048;"));
    assert!(!text.contains("barrier.cluster"));
}

#[test]
fn multicast_tma_async_ring_assembles_for_sm90a() {
    let text = tma_async_ring(2);
    assert!(text.contains("+32], 256;"), "{text}");
    assert!(text.contains("mapa.shared::cluster.u32"));
    // The default semantics, as CUTLASS's ClusterBarrier::arrive:
    // `.release.cluster` put MEMBAR.ALL.GPU before every arrival.
    assert!(text.contains("mbarrier.arrive.shared::cluster.b64"));
    assert!(!text.contains("release.cluster.shared::cluster"));
    assert!(text.contains("barrier.cluster.arrive.aligned;"));
}

/// A 3-stage bulk-store ring on sm_90a: each of 128 threads loads its 16
/// bytes of chunk `c` from global memory and writes them to stage `c % 3`
/// (`st.shared`), fences, and after the barrier thread 0 stores the chunk
/// out with one bulk store and commits it; thread 0 waits for all its
/// stores at the end. `acquire` places the acquire as CUTLASS does, before
/// a barrier of its own that precedes the writes, or folded into the
/// barrier that precedes the previous stage's store.
fn tma_store_ring(acquire: StoreAcquire) -> String {
    let (stages, stage_bytes) = (3, THREADS * 16);
    let mut k = Kernel::new("tma_store_ring").unwrap();
    k.required_threads(THREADS, 1, 1);
    let src_param = k.param("src", ParamType::U64).unwrap();
    let dst_param = k.param("dst", ParamType::U64).unwrap();
    let chunks_param = k.param("chunks", ParamType::U32).unwrap();
    let smem_var = k.shared_dynamic("ring", 128).unwrap();
    let (src, dst) = (
        k.load_param(&src_param).unwrap(),
        k.load_param(&dst_param).unwrap(),
    );
    k.cvta_to_global(src, src);
    k.cvta_to_global(dst, dst);
    let chunks = k.load_param(&chunks_param).unwrap();
    let tid = k.special(SpecialReg::TidX);
    let base = k.shared_address(&smem_var);
    let (issuer, wrap, more) = (
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
    );
    k.push(format!("setp.eq.u32 {issuer}, {tid}, 0;"));
    let ring = PipelineTmaStore::new(stages, acquire, issuer, "out").unwrap();
    let (stage, end, c, at) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    let (global, values) = (k.reg(RegClass::B64), k.regs(RegClass::B32, 4));
    k.mov(stage, base);
    k.push(format!("add.u32 {end}, {base}, {};", stages * stage_bytes));
    let (top, issued, done) = (
        k.new_label("chunk").unwrap(),
        k.new_label("issued").unwrap(),
        k.new_label("done").unwrap(),
    );
    k.mov(c, 0);
    k.place_label(&top);
    k.push(format!("setp.ge.u32 {more}, {c}, {chunks};"));
    k.push(format!("@{more} bra {done};"));
    if acquire == StoreAcquire::BeforeWrites {
        ring.producer_acquire(&mut k).unwrap();
        // Every writer learns that the stage is free.
        k.push("bar.sync 0;");
    }
    k.push(format!("mad.lo.u32 {at}, {c}, {THREADS}, {tid};"));
    k.push(format!("mul.wide.u32 {global}, {at}, 16;"));
    k.push(format!("add.u64 {global}, {global}, {src};"));
    k.push(format!(
        "ld.global.v4.b32 {{{}, {}, {}, {}}}, [{global}];",
        values[0], values[1], values[2], values[3]
    ));
    k.push(format!("shl.b32 {at}, {tid}, 4;"));
    k.push(format!("add.u32 {at}, {at}, {stage};"));
    k.push(format!(
        "st.shared.v4.b32 [{at}], {{{}, {}, {}, {}}};",
        values[0], values[1], values[2], values[3]
    ));
    ring.producer_fence(&mut k).unwrap();
    if acquire == StoreAcquire::BeforePreviousStore {
        // The next chunk's stage, freed before this barrier.
        ring.producer_acquire(&mut k).unwrap();
    }
    k.push("bar.sync 0;");
    k.push(format!("@!{issuer} bra {issued};"));
    k.push(format!("mul.wide.u32 {global}, {c}, {stage_bytes};"));
    k.push(format!("add.u64 {global}, {global}, {dst};"));
    ring.issue_store(&mut k, global, (stage, 0), stage_bytes)
        .unwrap();
    ring.producer_commit(&mut k).unwrap();
    k.place_label(&issued);
    k.push(format!("add.u32 {stage}, {stage}, {stage_bytes};"));
    k.push(format!("setp.ge.u32 {wrap}, {stage}, {end};"));
    k.push(format!(
        "@{wrap} sub.u32 {stage}, {stage}, {};",
        stages * stage_bytes
    ));
    k.push(format!("add.u32 {c}, {c}, 1;"));
    k.push(format!("bra.uni {top};"));
    k.place_label(&done);
    ring.producer_tail(&mut k).unwrap();
    let text = assemble(ArchKind::Sm90, k);
    assert_eq!(text.matches("fence.proxy.async.shared::cta;").count(), 1);
    assert_eq!(
        text.matches("cp.async.bulk.global.shared::cta.bulk_group [%rd")
            .count(),
        1
    );
    assert_eq!(text.matches("cp.async.bulk.commit_group;").count(), 1);
    assert_eq!(text.matches("cp.async.bulk.wait_group 0;").count(), 1);
    text
}

#[test]
fn tma_store_ring_assembles_for_sm90a() {
    let text = tma_store_ring(StoreAcquire::BeforeWrites);
    assert_eq!(text.matches("cp.async.bulk.wait_group.read 2;").count(), 1);
    assert_eq!(text.matches("bar.sync 0;").count(), 2);
}

#[test]
fn tma_store_ring_with_the_acquire_folded_assembles_for_sm90a() {
    let text = tma_store_ring(StoreAcquire::BeforePreviousStore);
    assert_eq!(text.matches("cp.async.bulk.wait_group.read 1;").count(), 1);
    assert_eq!(text.matches("bar.sync 0;").count(), 1);
}

/// The ping-pong order on sm_90a: two warpgroups take turns, `turns`
/// times, through two stages (an "MMA" and an "epilogue", here each one
/// store of the group's index to shared memory).
#[test]
fn ordered_sequence_barrier_assembles_for_sm90a() {
    let (depth, length, group_size) = (2, 2, 128);
    let mut k = Kernel::new("ping_pong_order").unwrap();
    k.max_threads(length * group_size, 1, 1);
    let turns_param = k.param("turns", ParamType::U32).unwrap();
    let bytes = OrderedSequenceBarrier::shared_bytes(depth, length);
    let bars = k.shared_static("order", 8, bytes).unwrap();
    let log = k.shared_static("log", 16, 16).unwrap();
    let turns = k.load_param(&turns_param).unwrap();
    let tid = k.special(SpecialReg::TidX);
    let (base, log) = (k.shared_address(&bars), k.shared_address(&log));
    let order = OrderedSequenceBarrier::new(depth, length, group_size, base).unwrap();
    let (leader, more) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
    let (group, turn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    k.push(format!("setp.eq.u32 {leader}, {tid}, 0;"));
    order.init(&mut k, leader).unwrap();
    k.push(format!("div.u32 {group}, {tid}, {group_size};"));
    let state = order.start(&mut k, group);
    let top = k.new_label("turn").unwrap();
    k.mov(turn, 0);
    k.place_label(&top);
    for stage in 0..depth {
        order.wait(&mut k, &state).unwrap();
        k.push(format!("st.shared.u32 [{log}+{}], {group};", 4 * stage));
        order.arrive(&mut k, &state).unwrap();
    }
    k.push(format!("add.u32 {turn}, {turn}, 1;"));
    k.push(format!("setp.lt.u32 {more}, {turn}, {turns};"));
    k.push(format!("@{more} bra {top};"));
    let text = assemble(ArchKind::Sm90, k);
    assert_eq!(text.matches("], 128;").count(), 4);
    assert_eq!(text.matches("mbarrier.arrive.shared::cta.b64").count(), 2);
}
