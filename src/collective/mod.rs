//! Collectives: the mainloops and epilogues that one thread block runs
//! together, each behind a trait with a written contract, as CUTLASS 3.x
//! composes a `CollectiveMma` and a `CollectiveEpilogue` at the kernel layer.
//!
//! # The seam
//!
//! | trait | host side | device side |
//! |---|---|---|
//! | [`Mainloop`] | `params` (roles), `shared_storage`, `alignment`, `can_implement` | `emit_prologue`; one body (`emit_mainloop`) |
//! | [`WarpSpecializedMainloop`] (a [`Mainloop`]) | `ring_bytes`, `tensor_maps` | a producer part (`emit_producer` per tile, `emit_producer_tail`) and a consumer part (`emit_consumer` or `emit_consumer_overlapped` per tile, `emit_consumer_skip`) |
//! | [`Epilogue`] | `params`, `shared_storage`, `alignment`, `can_implement` | `emit_params` at entry, `emit_prologue` per tile, `emit_store` of the accumulators |
//!
//! The kernel layer (`crate::kernel::gemm`) composes a mainloop, an
//! epilogue and a tile scheduler; it hands each collective a
//! [`TileContext`] (what they share: types, majors, tile, warps) beside the
//! collective's own spec ([`MainloopSpec`], [`EpilogueSpec`]), and on the
//! device a [`BlockContext`] (thread index, shared memory, the declared
//! parameters, the work tile, each operand's [`GlobalOperand`]). Pipelines
//! come from `crate::pipeline`, instructions from `crate::atom` and
//! `crate::tiled`; nothing here imports the kernel or device layers.
//!
//! | item | file |
//! |---|---|
//! | [`Mainloop`] | `mainloop.rs` |
//! | [`WarpSpecializedMainloop`], [`ConsumerOverlap`] | `mainloop_warp_specialized.rs` |
//! | [`Epilogue`] | `epilogue.rs` |
//! | [`MainloopPolicy`], [`EpiloguePolicy`], [`CStaging`], their tags and specs | `dispatch_policy.rs` |
//! | [`TileContext`], [`BlockContext`], [`GlobalOperand`], [`SharedStorage`] | `tile_context.rs`, `block.rs`, `shared_storage.rs` |
//! | `pointer_operands` | `pointer_operands.rs`: what the SM70 and SM80 mainloops share (their parameters, alignment, prologue and zeroed accumulators) |
//! | [`OperandSmem`] | `smem_layout.rs`: an operand's swizzled shared-memory tile and its `cp.async` thread mapping |
//! | [`Sm70MmaPipelined`], [`SharedAccess`] | `sm70_mma_pipelined.rs` and its folder: the SM70 two-stage mainloop, global -> registers -> shared, `ld.shared` fragments, `mma.sync.m8n8k4` on quad pairs (`contract.rs`: its [`Mainloop`] impl) |
//! | [`Sm90TiledMma`] | `sm90_tiled_mma.rs`: the SM90 consumers' tiled MMA (a wgmma atom over the warpgroups along M) and its C partition: the mainloop allocates the accumulators with its fragment layout, both SM90 epilogues read every accumulator's row and column through it |
//! | `context_tiled_mma` | `tiled_mma_of.rs`: the tiled MMA of a kernel's context (SM70 quad pairs or SM80 warps), shared by mainloop and epilogue |
//! | [`Sm80MmaMultistage`] | `sm80_mma_multistage.rs` and its folder: the SM80 multistage `cp.async` + `ldmatrix` + `mma.sync` mainloop (`contract.rs`: its [`Mainloop`] impl) |
//! | [`Sm90TmaGmmaWarpSpecialized`] | `sm90_mma_tma_gmma_ss_warpspecialized/`: the SM90 TMA + wgmma mainloop, a producer part (TMA, multicast in clusters) and a consumer part (wgmma from shared-memory descriptors); its `a_operand.rs` is the seam where the RS mainloop differs, its `rules.rs` the SM90 mainloop rules |
//! | [`Sm90TmaGmmaRsWarpSpecialized`] | `sm90_mma_tma_gmma_rs_warpspecialized/`: the same with A through registers (the `_RS` wgmma, for a tf32 A that is M-major): the shared mainloop and its reader of A (`a_fragment.rs`) |
//! | [`MainloopSm90TmaGmmaWarpSpecializedFp8`] | `sm90_mma_tma_gmma_ss_warpspecialized_fp8/`: the FP8 mainloop's promotion (CUTLASS's `GmmaFP8Accumulation`): the SS mainloop's consumers multiply into a second accumulator set and add it into the f32 accumulators every promotion interval, times A's and B's block scales where they have them ([`BlockScaleIo`]) |
//! | [`EpilogueSm90NoSmem`] | `epilogue_sm90/`: the SM90 epilogue storing from the wgmma accumulators |
//! | [`EpilogueSm90TmaStore`], [`TmaEpilogueParams`], [`CLoad`] | `epilogue_sm90/tma_store/`: the SM90 epilogue storing D with TMA through shared memory (`mod.rs`: its types and shared-memory layout; `store.rs`: a tile's store (its frame, subtiles and TMA stores on a `PipelineTmaStore`); `fusion.rs`: one element through the fusion expression; `matrix_copy.rs`: the `stmatrix`/`ldmatrix` copies of the tiled MMA's fragment; `stmatrix.rs`: the register-to-shared copies and their shared addresses; `tail.rs`: a row-major D's columns after its last whole chunk; `c_load.rs`: C loaded with TMA or read from global memory; `../contract.rs`: its [`Epilogue`] impl) |
//! | [`LinearScalars`] | `epilogue_params.rs`: what the SM80 and SM90 epilogues declare and load alike (C's and D's roles, alpha and beta, a tile's C, D and bias addresses) |
//! | [`EpilogueSm80`], [`VectorMapping`] | `epilogue_sm80/`: D = alpha * acc + beta * C (or the fusion expression), staged through shared memory (`contract.rs`: its [`Epilogue`] impl); `epilogue_fusion.rs`: the bias reads and the expression |

/// Bytes of one `cp.async` copy and one epilogue vector.
pub(crate) const VECTOR_BYTES: u32 = 16;

/// Alignment in bytes of the kernel's dynamic shared memory (a multiple of
/// the swizzle period the mainloop's `ldmatrix` XOR immediates rely on).
pub(crate) const SMEM_ALIGN: u32 = 1024;

mod block;
mod dispatch_policy;
mod epilogue;
mod epilogue_fusion;
mod epilogue_params;
mod epilogue_sm80;
mod epilogue_sm90;
mod mainloop;
mod mainloop_warp_specialized;
mod pointer_operands;
pub(crate) use pointer_operands::pointer_params;
mod shared_storage;
mod sm70_mma_pipelined;
mod sm80_mma_multistage;
mod sm90_mma_tma_gmma_rs_warpspecialized;
mod sm90_mma_tma_gmma_ss_warpspecialized;
mod sm90_mma_tma_gmma_ss_warpspecialized_fp8;
pub use sm90_mma_tma_gmma_ss_warpspecialized_fp8::BlockScaleIo;
mod sm90_tiled_mma;
mod smem_layout;
mod tile_context;
mod tiled_mma_of;

pub use block::{BlockContext, GlobalOperand};
pub use dispatch_policy::{
    CStaging, EpilogueNoSmemWarpSpecialized, EpiloguePolicy, EpilogueSm80Staged, EpilogueSpec,
    EpilogueTag, EpilogueTmaWarpSpecialized, MainloopPolicy, MainloopSm70TwoStage,
    MainloopSm80CpAsync, MainloopSm90TmaGmmaWarpSpecialized, MainloopSm90TmaGmmaWarpSpecializedFp8,
    MainloopSpec, MainloopTag, DEFAULT_PROMOTION_INTERVAL,
};
pub use epilogue::{Epilogue, SourceRead};
pub use epilogue_params::LinearScalars;
pub(crate) use epilogue_sm80::staging_bytes;
pub use epilogue_sm80::{EpilogueInputs, EpilogueSm80, VectorMapping};
pub use epilogue_sm90::{
    CLoad, EpilogueSm90NoSmem, EpilogueSm90TmaStore, Sm90EpilogueInputs, Sm90TmaEpilogueInputs,
    TmaEpilogueParams, VectorReads, MAX_HELD_COLUMN_VALUES,
};
pub use mainloop::Mainloop;
pub use mainloop_warp_specialized::{ConsumerOverlap, WarpSpecializedMainloop};
pub use shared_storage::SharedStorage;
pub use sm70_mma_pipelined::{SharedAccess, Sm70MmaPipelined, SM70_STAGES};
pub use sm80_mma_multistage::{Accumulators, G2sMapping, MainloopInputs, Sm80MmaMultistage};
pub use sm90_mma_tma_gmma_rs_warpspecialized::Sm90TmaGmmaRsWarpSpecialized;
pub(crate) use sm90_mma_tma_gmma_ss_warpspecialized::{
    check_sm90_block_scales, check_sm90_mainloop, check_sm90_promotion, reads_a_from_registers,
};
pub use sm90_mma_tma_gmma_ss_warpspecialized::{
    EdgeMap, Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized, MAX_ACCUMULATOR_REGISTERS,
    MAX_TRANSPOSED_BLOCK_SCALE_TILE_N, STAGE_ALIGN,
};
pub use sm90_tiled_mma::Sm90TiledMma;
pub(crate) use smem_layout::tile_stage_bytes;
pub use smem_layout::OperandSmem;
pub use tile_context::TileContext;
