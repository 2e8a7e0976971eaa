//! Atoms: one hardware instruction each, with its thread/value layouts.
//!
//! # Contract: MMA atoms ([`MmaAtom`], CuTe's `MMA_Traits` + `MMA_Op`)
//! An MMA atom names one `mma` instruction (or one scalar FMA) and describes
//! it with layouts from [`crate::layout`]. Atoms are data: each is one
//! `const` [`MmaAtom`] value named as in CUTLASS
//! (`SM80_16x8x16_F32BF16BF16F32_TN`), a row of its architecture's table
//! ([`SM80_MMA`], [`SM70_MMA`], [`SM90_GMMA`], [`SM90_GMMA_F8`], [`SM90_GMMA_I8`]); collectives pick one with
//! [`MmaAtom::for_types`] (SM80 only) or [`gmma_atom`] (SM90) and ask
//! it every fact below instead of knowing it. A new instruction family is
//! new rows, or a `const fn` that generates them, not new code: the
//! shape, register counts, operand source and layouts are all fields (the
//! SM90 wgmma `64xNx16` / `64xNx8` for N = 8..256, four type families,
//! `SS`/`RS`, are one macro-generated table).
//!
//! | item | meaning |
//! |---|---|
//! | `name()` | the CUTLASS name |
//! | `min_arch()` | the oldest architecture that has the instruction |
//! | `shape_mnk()` | the (M,N,K) extent of one instruction |
//! | `types()` | D, A, B, C element types, the order of the name (`F32BF16BF16F32`) |
//! | `regs()` | registers per thread for A, B, C/D and their classes; value `v` lives in register `v / per_reg`, the lower index in the low bits |
//! | `source()` | where A and B come from: registers, or shared-memory descriptors (wgmma `SS`, `RS`) |
//! | `opcode()` | the instruction with its shape and types |
//! | `snippet()` | the `ptx/` family and snippet that emit the instruction |
//! | `thr_id()` | the threads that execute it together, logical thread -> lane: `32:1` for a warp, `(4,2):(1,16)` for an SM70 quad pair, `1:0` for one thread |
//! | `a_layout()` | (thread, value) -> (m,k) of the M x K tile, as a column-major index `m + M*k` |
//! | `b_layout()` | (thread, value) -> (n,k) of the N x K tile, index `n + N*k` |
//! | `c_layout()` | (thread, value) -> (m,n) of the M x N tile, index `m + M*n` (C and D) |
//! | `emit(...)` | writes the instruction into a [`Kernel`](crate::ptx::Kernel) given its registers |
//! | `emit_wgmma(...)` | the same for SM90 wgmma atoms: accumulators, A descriptor or registers, B descriptor, `scale-d`, transposes |
//!
//! The layouts are stored as [`AtomLayout`] values, `const` data, so a table
//! (or a `const fn` generating one) holds them without parsing.
//!
//! `_TN` is CuTe's naming: A is K-major ("T", row-major M x K) and B is
//! K-major ("N", column-major K x N) in the instruction's own fragments;
//! the tiles in memory may have any major, which the copies handle.
//!
//! # Contract: copy atoms ([`CopyTraits`], CuTe's `Copy_Traits`)
//! A copy atom names one data-movement instruction (`cp.async`, `ldmatrix`,
//! a vector load or store) with its source and destination
//! (thread, value) -> bit layouts:
//!
//! | item | meaning |
//! |---|---|
//! | `NAME` | the CUTLASS name |
//! | `thr_id()` | the threads that execute it together |
//! | `src_layout()` | (thread, value) -> bit of the source, as CuTe's `SrcLayout` |
//! | `dst_layout()` | (thread, value) -> bit of the destination, as CuTe's `DstLayout` |
//! | `ref_layout()` | the layout the partitioner tiles with (CuTe's `RefLayout`) |
//! | `emit...` | on each tag: writes the instruction given registers and addresses |
//!
//! # SM90 TMA copies ([`SM90_TMA_LOAD`], [`SM90_TMA_LOAD_MULTICAST`], [`SM90_TMA_STORE`])
//! A TMA copy is issued by one thread for a whole box that a tensor map
//! describes, so its values per thread are the box's, not the
//! instruction's: the tags carry `NAME`, `MIN_ARCH`, `SNIPPET`, `thr_id()`
//! and `src_layout(box_bits)`/`dst_layout(box_bits)` (CuTe's
//! `Copy_Traits<SM90_TMA_LOAD_OP, NumBitsPerTMA>`) but are not
//! [`CopyTraits`] atoms. They are emitted by free functions
//! (`copy_sm90_tma.rs`); the host side of the map is
//! [`TmaTiled`](crate::device::TmaTiled).
//!
//! | item | emits |
//! |---|---|
//! | [`emit_tensor_map_address`] | the generic address of a by-value map param (`cvta.param`) |
//! | [`emit_prefetch_tensor_map`] | `prefetch.tensormap` |
//! | [`emit_tma_load`] | `cp.async.bulk.tensor.Nd` global -> shared, completing on an mbarrier |
//! | [`emit_tma_load_multicast`] | the same to every CTA of a 16-bit cluster mask |
//! | [`emit_tma_store`] | `cp.async.bulk.tensor.Nd` shared -> global, in a bulk group |
//! | [`emit_tma_store_fence`], [`emit_tma_store_arrive`], [`emit_tma_store_wait`] | CuTe's `tma_store_fence/arrive/wait` |
//!
//! # SM90 wgmma: atoms and shared-memory descriptors
//!
//! | item | file | CuTe counterpart |
//! |---|---|---|
//! | [`SM90_GMMA`], [`gmma_atom`] | `mma_sm90_gmma.rs` | `SM90_64xNx16_F32BF16BF16_SS` ... in `mma_traits_sm90_gmma.hpp` |
//! | [`MmaAtom::emit_wgmma`], [`ScaleD`], [`GmmaA`], [`emit_wgmma_fence`], [`emit_wgmma_commit`], [`emit_wgmma_wait`] | `mma_sm90_gmma.rs`, `ptx/sm90/wgmma.ptx` | `cute/arch/mma_sm90_gmma.hpp`, `warpgroup_arrive/commit_batch/wait` |
//! | [`GmmaSwizzle`], [`gmma_smem_atom`], [`gmma_smem_layout`] | `gmma_desc.rs` | `GMMA::LayoutType`, `GMMA::Layout_{K,MN}_*_Atom<T>`, `tile_to_shape` |
//! | [`GmmaDescriptor`] (`from_layout`, `bits`, `emit`, `slice`, `slice_offset_bytes`) | `gmma_desc.rs` | `GmmaDescriptor`, `make_gmma_desc`, `DescriptorIterator` |
//!
//! The raw snippets live in `ptx/`, one file per instruction family per
//! architecture; the Rust metadata lives here, one file per family per
//! architecture (`mma_sm80.rs`, `copy_sm80.rs`, ...).

mod atom_layout;
mod copy_atom;
mod copy_sm75;
mod copy_sm80;
mod copy_sm90_stsm;
mod copy_sm90_tma;
mod copy_universal;
mod copy_value;
mod emit;
mod gmma_desc;
mod gmma_tile;
mod mma_atom;
mod mma_lookup;
mod mma_sm70;
mod mma_sm80;
mod mma_sm90_gmma;
mod mma_sm90_gmma_8bit;
mod mma_universal;

pub use atom_layout::{AtomLayout, AtomMode};
pub use copy_atom::{CopyAtom, CopyTraits};
pub use copy_sm75::{SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N};
pub use copy_sm80::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;
pub use copy_sm90_stsm::{SM90_U16x8_STSM_T, SM90_U32x4_STSM_N};
pub use copy_sm90_tma::{
    emit_prefetch_tensor_map, emit_tensor_map_address, emit_tma_load, emit_tma_load_multicast,
    emit_tma_store, emit_tma_store_arrive, emit_tma_store_fence, emit_tma_store_wait, Coord,
    SM90_TMA_LOAD, SM90_TMA_LOAD_MULTICAST, SM90_TMA_STORE, TMA_MAX_RANK,
};
pub use copy_universal::{MemorySpace, UniversalCopy};
pub use copy_value::CopyValue;
pub use gmma_desc::{gmma_smem_atom, gmma_smem_layout, GmmaDescriptor, GmmaSwizzle};
pub use mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
pub use mma_sm70::{
    SM70_8x8x4_F16F16F16F16_NN, SM70_8x8x4_F16F16F16F16_NT, SM70_8x8x4_F16F16F16F16_TN,
    SM70_8x8x4_F16F16F16F16_TT, SM70_8x8x4_F32F16F16F32_NN, SM70_8x8x4_F32F16F16F32_NT,
    SM70_8x8x4_F32F16F16F32_TN, SM70_8x8x4_F32F16F16F32_TT, SM70_MMA,
};
pub use mma_sm80::{
    SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN,
    SM80_16x8x8_F32TF32TF32F32_TN, SM80_MMA,
};
pub use mma_sm90_gmma::{
    emit_wgmma_commit, emit_wgmma_fence, emit_wgmma_wait, gmma_atom, GmmaA, ScaleD, SM90_GMMA,
};
pub use mma_sm90_gmma_8bit::{SM90_GMMA_F8, SM90_GMMA_I8};
pub use mma_universal::UniversalFMA;
