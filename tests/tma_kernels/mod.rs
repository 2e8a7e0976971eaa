//! The TMA kernels the GPU test launches, built with cutlet's assembler and
//! the `cutlet::atom` TMA emitters, shared with the ptxas test so that what
//! the GPU runs is also assembled in CI. Each kernel runs one block of
//! [`THREADS`] threads (a cluster of two for the multicast) over one
//! [`BOX_BYTES`]-byte shared tile of bf16: a box of [`BOX_COLS`] x
//! [`BOX_ROWS`] elements, innermost (column) first, 128-byte rows.

#![allow(dead_code)]

use cutlet::arch::ArchKind;
use cutlet::atom::{
    emit_prefetch_tensor_map, emit_tensor_map_address, emit_tma_load, emit_tma_load_multicast,
    emit_tma_store, emit_tma_store_arrive, emit_tma_store_fence, emit_tma_store_wait, Coord,
};
use cutlet::device::TmaSwizzle;
use cutlet::ptx::{Kernel, Module, Param, ParamType, Reg, RegClass, SpecialReg};

/// Threads per block.
pub const THREADS: u32 = 128;
/// Box columns (the contiguous dimension): 64 bf16 = 128 bytes.
pub const BOX_COLS: u32 = 64;
/// Box rows.
pub const BOX_ROWS: u32 = 128;
/// Bytes of one bf16 element.
pub const ELEMENT_BYTES: u32 = 2;
/// Bytes of the shared tile (one whole box).
pub const BOX_BYTES: u32 = BOX_COLS * BOX_ROWS * ELEMENT_BYTES;
/// Bytes one thread moves per `v4.b32` access.
const VECTOR_BYTES: u32 = 16;
/// CTAs in the multicast kernel's cluster; each loads `BOX_ROWS / CLUSTER` rows.
pub const CLUSTER: u32 = 2;

/// Global load kernel: `tma_load_box(tmap, out, c0, c1)` loads the box at
/// `{c0, c1}` into shared memory and writes the raw shared bytes to `out`.
pub const LOAD: &str = "tma_load_box";
/// Global store kernel: `tma_store_box(tmap, src, c0, c1)` copies `src`
/// (raw shared bytes) into shared memory and TMA-stores the box at `{c0, c1}`.
pub const STORE: &str = "tma_store_box";
/// Multicast kernel: `tma_multicast_box(tmap, out, c0, c1)`, in clusters of
/// two: CTA `r` loads rows `[r * 64, r * 64 + 64)` of the box at `{c0, c1}`
/// into both CTAs (mask `0b11`); each writes its whole tile to
/// `out + ctaid.x * BOX_BYTES`.
pub const MULTICAST: &str = "tma_multicast_box";

/// A kernel's opening: the map param, a global pointer param, the
/// coordinates and the tile.
struct Opening {
    k: Kernel,
    map: Reg,
    global: Reg,
    c0: Reg,
    c1: Reg,
    tid: Reg,
    leader: Reg,
    tile: Reg,
}

fn opening(name: &str, pointer: &str) -> Opening {
    let mut k = Kernel::new(name).unwrap();
    k.max_threads(THREADS, 1, 1);
    let tmap: Param = k.param("tmap", ParamType::TENSOR_MAP).unwrap();
    let pointer = k.param(pointer, ParamType::U64).unwrap();
    let c0 = k.param("c0", ParamType::U32).unwrap();
    let c1 = k.param("c1", ParamType::U32).unwrap();
    let tile = k.shared_static("tile", 1024, BOX_BYTES).unwrap();
    let map = emit_tensor_map_address(&mut k, &tmap).unwrap();
    let global = k.load_param(&pointer).unwrap();
    k.cvta_to_global(global, global);
    let c0 = k.load_param(&c0).unwrap();
    let c1 = k.load_param(&c1).unwrap();
    let tid = k.special(SpecialReg::TidX);
    let leader = k.reg(RegClass::Pred);
    k.push(format!("setp.eq.u32 {leader}, {tid}, 0;"));
    let tile = k.shared_address(&tile);
    Opening {
        k,
        map,
        global,
        c0,
        c1,
        tid,
        leader,
        tile,
    }
}

/// Declares the mbarrier; the leader prefetches the map and initializes the
/// barrier for one arrival; `fence.mbarrier_init` publishes it to the
/// cluster. Returns the barrier's shared-window address.
fn init_barrier(o: &mut Opening) -> Reg {
    let bar = o.k.shared_static("bar", 8, 8).unwrap();
    let skip = o.k.new_label("init_done").unwrap();
    o.k.push(format!("@!{} bra {skip};", o.leader));
    emit_prefetch_tensor_map(&mut o.k, o.map).unwrap();
    o.k.snippet(
        "sm90/mbarrier",
        "mbarrier_init",
        &[("bar", &bar), ("count", &1)],
    )
    .unwrap();
    o.k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])
        .unwrap();
    o.k.place_label(&skip);
    o.k.shared_address(&bar)
}

/// Every thread moves its `v4.b32` vectors of the tile between shared and
/// global memory (`to_global`: tile -> `global`; else `global` -> tile).
fn copy_tile(o: &mut Opening, global: Reg, to_global: bool) {
    let k = &mut o.k;
    let offset = k.reg(RegClass::B32);
    k.push(format!("shl.b32 {offset}, {}, 4;", o.tid));
    let smem = k.reg(RegClass::B32);
    k.push(format!("add.u32 {smem}, {}, {offset};", o.tile));
    let wide = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {wide}, {offset};"));
    let gmem = k.reg(RegClass::B64);
    k.push(format!("add.u64 {gmem}, {global}, {wide};"));
    let v = k.regs(RegClass::B32, 4);
    let vec = format!("{{{}, {}, {}, {}}}", v[0], v[1], v[2], v[3]);
    let step = THREADS * VECTOR_BYTES;
    for i in 0..BOX_BYTES / step {
        let at = i * step;
        if to_global {
            k.push(format!("ld.shared.v4.b32 {vec}, [{smem}+{at}];"));
            k.push(format!("st.global.v4.b32 [{gmem}+{at}], {vec};"));
        } else {
            k.push(format!("ld.global.v4.b32 {vec}, [{gmem}+{at}];"));
            k.push(format!("st.shared.v4.b32 [{smem}+{at}], {vec};"));
        }
    }
}

fn module(kernel: Kernel) -> String {
    let mut module = Module::new(ArchKind::Sm90);
    module.add_kernel(kernel).unwrap();
    module.emit().unwrap()
}

/// The PTX of [`LOAD`].
pub fn load_ptx() -> String {
    let mut o = opening(LOAD, "out");
    let bar = init_barrier(&mut o);
    o.k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    let skip = o.k.new_label("load_issued").unwrap();
    o.k.push(format!("@!{} bra {skip};", o.leader));
    o.k.snippet(
        "sm90/mbarrier",
        "mbarrier_arrive_expect_tx",
        &[("bar", &bar), ("bytes", &BOX_BYTES)],
    )
    .unwrap();
    let coords = [Coord::Reg(o.c0), Coord::Reg(o.c1)];
    emit_tma_load(&mut o.k, o.tile, o.map, &coords, bar).unwrap();
    o.k.place_label(&skip);
    o.k.snippet(
        "sm90/mbarrier",
        "mbarrier_wait_parity",
        &[("bar", &bar), ("phase", &0)],
    )
    .unwrap();
    let out = o.global;
    copy_tile(&mut o, out, true);
    module(o.k)
}

/// The PTX of [`STORE`].
pub fn store_ptx() -> String {
    let mut o = opening(STORE, "src");
    let src = o.global;
    copy_tile(&mut o, src, false);
    emit_tma_store_fence(&mut o.k).unwrap();
    o.k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    let skip = o.k.new_label("store_done").unwrap();
    o.k.push(format!("@!{} bra {skip};", o.leader));
    emit_prefetch_tensor_map(&mut o.k, o.map).unwrap();
    let coords = [Coord::Reg(o.c0), Coord::Reg(o.c1)];
    emit_tma_store(&mut o.k, o.map, &coords, o.tile).unwrap();
    emit_tma_store_arrive(&mut o.k).unwrap();
    emit_tma_store_wait(&mut o.k, 0).unwrap();
    // The writes, not only the reads of shared memory, are done before exit.
    o.k.snippet("sm90/bulk_copy", "bulk_wait_group", &[("pending", &0)])
        .unwrap();
    o.k.place_label(&skip);
    module(o.k)
}

/// The PTX of [`MULTICAST`].
pub fn multicast_ptx() -> String {
    let mut o = opening(MULTICAST, "out");
    let bar = init_barrier(&mut o);
    // Both CTAs' barriers are initialized before either CTA multicasts.
    o.k.snippet("sm90/cluster", "cluster_sync", &[]).unwrap();
    let skip = o.k.new_label("load_issued").unwrap();
    o.k.push(format!("@!{} bra {skip};", o.leader));
    // This CTA receives the whole box: its own half and its peer's.
    o.k.snippet(
        "sm90/mbarrier",
        "mbarrier_arrive_expect_tx",
        &[("bar", &bar), ("bytes", &BOX_BYTES)],
    )
    .unwrap();
    let rank = o.k.reg(RegClass::B32);
    o.k.push(format!("mov.u32 {rank}, %cluster_ctarank;"));
    let rows = BOX_ROWS / CLUSTER;
    let dst = o.k.reg(RegClass::B32);
    o.k.push(format!(
        "mad.lo.u32 {dst}, {rank}, {}, {};",
        BOX_BYTES / CLUSTER,
        o.tile
    ));
    let row = o.k.reg(RegClass::B32);
    o.k.push(format!("mad.lo.u32 {row}, {rank}, {rows}, {};", o.c1));
    let mask = o.k.reg(RegClass::B16);
    o.k.push(format!("mov.b16 {mask}, {};", (1u32 << CLUSTER) - 1));
    let coords = [Coord::Reg(o.c0), Coord::Reg(row)];
    emit_tma_load_multicast(&mut o.k, dst, o.map, &coords, bar, mask).unwrap();
    o.k.place_label(&skip);
    o.k.snippet(
        "sm90/mbarrier",
        "mbarrier_wait_parity",
        &[("bar", &bar), ("phase", &0)],
    )
    .unwrap();
    let cta = o.k.special(SpecialReg::CtaidX);
    let base = o.k.reg(RegClass::B64);
    o.k.push(format!("mul.wide.u32 {base}, {cta}, {BOX_BYTES};"));
    o.k.push(format!("add.u64 {base}, {base}, {};", o.global));
    copy_tile(&mut o, base, true);
    // No CTA exits while its peer's copies may still land in it.
    o.k.snippet("sm90/cluster", "cluster_sync", &[]).unwrap();
    module(o.k)
}

/// Byte offset in the shared box of element (`row`, `col`) under `swizzle`
/// (128-byte rows; the 128B swizzle moves 16-byte chunk `c` of row `r` to
/// chunk `c ^ (r % 8)`).
pub fn shared_offset(row: usize, col: usize, swizzle: TmaSwizzle) -> usize {
    let byte = col * ELEMENT_BYTES as usize;
    let (chunk, within) = (byte / 16, byte % 16);
    let chunk = match swizzle {
        TmaSwizzle::None => chunk,
        TmaSwizzle::B128 => chunk ^ (row % 8),
        other => panic!("the TMA tests use no swizzle or 128B, not {other}"),
    };
    row * (BOX_COLS * ELEMENT_BYTES) as usize + chunk * 16 + within
}
