//! The SM90 kernel builder (CUTLASS's `CollectiveBuilder` with
//! `KernelScheduleAuto` and `StageCountAutoCarveout`): schedule, tile,
//! cluster and stages for element types, majors and a problem.

use super::{GemmSpec, KernelSchedule, TileSchedulerPolicy};
use crate::arch::ArchKind;
use crate::collective::{EpiloguePolicy, EpilogueSpec, MainloopPolicy, MainloopSpec};
use crate::gemm::{default_tile_k, ClusterShape, GemmMajors, GemmTypes, OperandMajor, OutputMajor};
use crate::numeric::ElementType;

/// Most stages the SM90 builder picks, except for the kernels below.
const MAX_SM90_STAGES: u32 = 8;
/// Most stages it picks for a ping-pong kernel of whole tiles (the
/// persistent scheduler): its narrow tiles (64 x 64 and narrower: 16 KiB
/// a stage or less) make few blocks at a small M, each streaming its
/// weights alone, so the ring's depth is what keeps the DRAM busy. H200,
/// 2026-11-28, swap-AB ping-pong 64-row tiles, cutlet / cuBLASLt, two
/// rounds: 64x4096x4096 (64 blocks) 0.91-0.92 with 8 stages, 0.97-0.98
/// with 10, 1.00 with 13; 32x4096x1024 0.86-0.87 with 8, 0.92 with 16;
/// 64x8192x4096 1.02 with 8, 1.04 with 12-13; 16x8192x4096 1.00 with 8,
/// 1.02 with 13-20. The cooperative 128 x 16 kernel of 16x14336x4096
/// gained nothing from 12, and split-K units of 8 to 16 k-tiles lost 1-3%
/// (1x1024x8192, 32x1024x4096), so the others keep 8. A ping-pong
/// kernel of K in 2 splits keeps them too where its tiles are at most
/// [`MAX_SM90_DEEP_SPLIT_TILE_N`] wide (swap-AB's, for a few rows).
const MAX_SM90_PINGPONG_STAGES: u32 = 16;
/// Widest tile of a ping-pong kernel of K in 2 splits that keeps
/// [`MAX_SM90_PINGPONG_STAGES`]. H200, 2026-11-29, µs, two rounds, 16
/// stages against 8 in the cooperative 128-row kernel's 4 splits
/// (swap-AB): 64x16 at 16x4096x16384 36.0-36.2 against 37.1-37.2,
/// 1x4096x16384 35.5-35.7 against 36.3-36.4, 64x32 at 32x4096x4096
/// 14.8-14.9 against 15.3. The 64x64 kernel of a small N in 2 splits,
/// 13 stages against 8, went both ways: 192x256x7168 (L = 3) 13.8-13.9
/// against 14.6-14.8, 256x256x4096 (L = 3) 12.0 against 12.3-12.4,
/// 1024x256x6144 15.4-15.6 against 14.5-14.6; it keeps 8.
const MAX_SM90_DEEP_SPLIT_TILE_N: u32 = 32;

/// The SM90 warp-specialized GEMM of `schedule` for these types and majors
/// (C and D of one type and major), with `tile` and `cluster` (M, N), the
/// TMA-store epilogue (the register-store one where TileN is not a
/// multiple of the TMA store's 32-column subtile: 8, 16, 24, 40, ...),
/// and as many stages as the shared memory holds beside
/// the epilogue's buffers (CUTLASS's `StageCountAutoCarveout`): at most 8,
/// or 16 for the ping-pong schedule, whose 64-row tiles feed on a deep ring
/// where a small M makes few blocks.
/// [`GemmSpec::with_sm90_epilogue`] swaps the epilogue.
///
/// ```
/// use cutlet::gemm::{GemmMajors, GemmTypes};
/// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let spec = sm90_spec(
///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
///     KernelSchedule::TmaWarpSpecializedCooperative, [128, 256, 64], [2, 1],
/// ).unwrap();
/// assert_eq!(spec.mainloop.stages(), 4);
/// assert_eq!(spec.block_threads(), 384);
/// // 4 stages and their 8 barriers (rounded to 1024), 4 subtile buffers of D
/// // and 4 of C with their 4 barriers, alignment.
/// assert_eq!(spec.shared_mem_bytes(), (4 * 49152 + 1024) + (2 * 16384 + 32) + 1024);
///
/// // Ping-pong 64 x 64 tiles: 16 KiB a stage, 13 fit beside the epilogue's
/// // 16 KiB (13 x 16384 + 1024 + 16416 + 1024 = 231,456 of 232,448 bytes).
/// let narrow = |schedule| sm90_spec(
///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
///     schedule, [64, 64, 64], [1, 1],
/// ).unwrap().mainloop.stages();
/// assert_eq!(narrow(KernelSchedule::TmaWarpSpecializedPingpong), 13);
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule.
pub fn sm90_spec(
    types: GemmTypes,
    majors: GemmMajors,
    schedule: KernelSchedule,
    tile: [u32; 3],
    cluster: impl Into<ClusterShape>,
) -> crate::Result<GemmSpec> {
    let arch = ArchKind::Sm90;
    let spec = GemmSpec {
        arch,
        types,
        majors,
        tile,
        cluster: cluster.into(),
        mainloop: MainloopSpec {
            policy: MainloopPolicy::Sm90TmaGmmaWarpSpecialized { stages: 2 },
            warps: [4, 1, 1],
        },
        epilogue: EpilogueSpec {
            policy: EpiloguePolicy::Sm90TmaWarpSpecialized,
            fusion: Default::default(),
        },
        scheduler: TileSchedulerPolicy::Persistent,
        reduction: super::Reduction::Deterministic,
        schedule,
    };
    // The TMA-store epilogue stages 16- and 32-bit D; an FP8 D is stored
    // from registers.
    let epilogue = if tile[1].is_multiple_of(32) && types.d.size_bits() >= 16 {
        EpiloguePolicy::Sm90TmaWarpSpecialized
    } else {
        EpiloguePolicy::Sm90NoSmem
    };
    spec.with_sm90_epilogue(epilogue)
}

/// The default SM90 GEMM for these types and majors: the cooperative
/// schedule, 128x256 (BK one 128-byte row: 64 for 16-bit inputs, 32 for
/// tf32), a 2x1 cluster, stages as many as fit.
///
/// ```
/// use cutlet::kernel::gemm::{sm90_default_spec, KernelSchedule, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{F16, F32};
///
/// let spec = sm90_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::MN, OutputMajor::N).unwrap();
/// assert_eq!((spec.tile, spec.cluster.mnk()), ([128, 256, 64], [2, 1, 1]));
/// assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedCooperative);
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule.
pub fn sm90_default_spec(
    a: ElementType,
    b: ElementType,
    d: ElementType,
    acc: ElementType,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
) -> crate::Result<GemmSpec> {
    let bk = default_tile_k(a);
    sm90_spec(
        GemmTypes::new(a, b, d, d, acc),
        GemmMajors::new(a_major, b_major, d_major),
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 256, bk],
        [2, 1],
    )
}

/// The SM90 GEMM for a problem `[m, n, k, l]` on a GPU of `sm_count` SMs,
/// as `KernelScheduleAuto` picks: where two waves of 128x256 tiles fill the
/// GPU and K is above 1024, the cooperative kernel with 256x128 tiles in a
/// 1x2 cluster (cuBLAS's shape; in a 2x1 cluster where 256x128 tiles take
/// fewer waves of the persistent grid than 128x256 ones, 128x256 in a 2x1
/// cluster where the 1x2 cluster would take more, or where 256x128 tiles
/// would get fewer stages: an f32 D, tf32; for 16-bit inputs and D with a
/// K-major B, 256x160 tiles of half-depth k-tiles, 7 stages, in a 1x2
/// cluster where their rounds of tiles take at least 1.5% less time than
/// that pick's, counted as rounds x tile area, and 128x224 tiles in a 2x1
/// cluster where theirs take at least 3% less than that; for an i32 D,
/// s8/u8 inputs' exact sums, the ping-pong 128x128 kernel in a 1x2 cluster, which hides
/// the four-byte D's epilogue), else the ping-pong
/// 128x128 kernel without a cluster (more, smaller
/// tiles, each one's epilogue hidden behind the other warpgroup's
/// mainloop). Where A passes through registers (tf32 with an M-major A),
/// the cooperative 128x256 kernel wherever its tiles fill half the SMs,
/// else ping-pong. The register-store epilogue instead of the TMA store where
/// that cannot write D exactly ([`GemmSpec::with_epilogue_for_output`]: a
/// row-major D narrower than one 16-byte chunk, or a column-major D whose M
/// is not whole chunks).
///
/// Swap-AB first, for a small M (at most 128, N at least 4 M, a K-major
/// A): the transposed problem D^T = B^T · A^T on a narrow tile whose N is
/// M rounded up to 8 (at least 16; for s8/u8 inputs up to the integer
/// wgmma's next width, 48 for M = 40), split along K where K is long (not
/// for s8/u8 inputs, whose K-splitting would need f32 partial tiles); the
/// spec is then that problem's kernel (A's and B's types and majors
/// exchanged, D's major flipped: [`sm90_pick_for_problem`] says so, and
/// [`GemmSpec::transposed`] gives the problem's view). See
/// `Sm90Pick::swapped` in the source for the rule and its measurements.
///
/// Split-K next: where the problem's 128x128 tiles (times L) fill at most
/// half the SMs and K has at least 64 k-tiles, the cooperative 128x128
/// kernel splits each tile's K loop into the most of 8,
/// 4 or 2 units whose count fits one wave of the SMs and leaves each unit 8
/// k-tiles or more ([`Decomposition::SplitK`](super::Decomposition)), with
/// f32 accumulation and A read from shared memory; where that is 8 splits
/// and N is at least 1024, 128x64 tiles in 4 splits (where those units fit
/// one wave), and where it is 4 splits of at most 16 k-tiles, 128x64 tiles
/// in 2; 8 splits of at least 12 tiles and 16 k-tiles each, and any split
/// count of at least 12 tiles and 64 k-tiles each, run in clusters of 2
/// (2x1, or 1x2 where the tiles along M are odd). Where N is at most 512,
/// 16-bit inputs, and those 128x128 splits would run without a cluster:
/// the ping-pong kernel on 64 x BN tiles instead (BN the narrowest of 16,
/// 32 and 64 that holds N), in the most of 8, 4 or 2 splits whose units
/// fit one wave and keep 8 k-tiles each.
///
/// Whole ping-pong 64x64 tiles (unswapped, 13 stages for 16-bit inputs;
/// 64x16 where N is at most 16),
/// where M is a multiple of 64 and they make at most one wave of blocks
/// and either fill three quarters of it with K at most 8192 (128 x 4096,
/// 512 x 1024), or K is too short to split; or, where 64x64 tiles take
/// more than a wave, M is at least 128 and K is 4096 to 8192 (16-bit
/// types), 64x128 tiles that fill three quarters of a wave (128 x 8192,
/// 256 x 4096, 1024 x 1024). Past M = 64 this comes before swap-AB and split-K.
///
/// Otherwise, where the problem's 128x128 tiles fill at most half the SMs
/// (few tiles, K too short to split), the ping-pong kernel on 128x64
/// tiles (at most one wave of them); and where the ping-pong 128x128
/// tiles take at least two rounds of the SMs over at least two rows of
/// tiles, 128x112 tiles (16-bit types, K-major B) where their rounds x tile
/// area come out at least 10% less; else, for 16-bit inputs and D with a
/// K-major B, the cooperative kernel of 256x128 or 128x256 tiles (chosen
/// as for two waves above) where its rounds x tile area are no more than
/// ping-pong 128x128's and K is at least 8192, or at least 4096 over two
/// rounds (2048x4096x4096, 1024x4096x8192). See `Sm90Pick::for_problem`
/// in the source for the measurements.
///
/// ```
/// use cutlet::gemm::{GemmMajors, GemmTypes};
/// use cutlet::kernel::gemm::{sm90_spec_for_problem, KernelSchedule, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32, I32, I8, TF32};
///
/// let big = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [4096, 4096, 4096, 1], 132).unwrap();
/// assert_eq!(big.schedule, KernelSchedule::TmaWarpSpecializedCooperative);
/// // cuBLAS's shape: 256x128 tiles in a 1x2 cluster.
/// assert_eq!((big.tile, big.cluster.mnk()), ([256, 128, 64], [1, 2, 1]));
/// let small = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [2048, 2048, 2048, 1], 132).unwrap();
/// assert_eq!(small.schedule, KernelSchedule::TmaWarpSpecializedPingpong);
/// // A short K: ping-pong hides the epilogue.
/// let short = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [8192, 8192, 1024, 1], 132).unwrap();
/// assert_eq!((short.schedule, short.cluster.mnk()), (KernelSchedule::TmaWarpSpecializedPingpong, [1, 1, 1]));
/// // Between one and two rounds of big tiles: at 2048x4096 the 512 tiles of
/// // 128x128 take 4 rounds of 132 (4 x 16384 of area), the 256 of 256x128
/// // take 2 (2 x 32768): no more, so the cooperative kernel where K is at
/// // least 8192, or 4096 over two rounds. At 1536x4096 the 384 ping-pong
/// // tiles take 3 rounds (3 x 16384) against 2 (2 x 32768): ping-pong.
/// let mid = |m, n, k| sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [m, n, k, 1], 132).unwrap();
/// assert_eq!((mid(2048, 4096, 16384).tile, mid(2048, 4096, 16384).cluster.mnk()), ([256, 128, 64], [1, 2, 1]));
/// assert_eq!(mid(2048, 4096, 4096).schedule, KernelSchedule::TmaWarpSpecializedCooperative);
/// assert_eq!(mid(1536, 4096, 16384).schedule, KernelSchedule::TmaWarpSpecializedPingpong);
/// // One round (128 tiles of 256x128 at 1024x4096): K of at least 8192.
/// assert_eq!(mid(1024, 4096, 8192).schedule, KernelSchedule::TmaWarpSpecializedCooperative);
/// assert_eq!(mid(1024, 4096, 4096).schedule, KernelSchedule::TmaWarpSpecializedPingpong);
/// // 4097 columns make a 17th column of 128x256 tiles one column wide: 544
/// // tiles, 5 waves on 132 SMs. 256x128 tiles: 16 x 33 = 528, 4 waves.
/// // An f32 D leaves 256x128 tiles 3 stages: 128x256 keeps 4.
/// let wide = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, F32, F32, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [4096, 4096, 4096, 1], 132).unwrap();
/// assert_eq!((wide.tile, wide.cluster.mnk(), wide.mainloop.stages()), ([128, 256, 64], [2, 1, 1], 4));
/// // 4096x14336: 16 x 112 = 1792 tiles of 256x128 take 14 rounds of 132,
/// // 16 x 90 = 1440 of 256x160 take 11, 1.8% less time.
/// let mlp = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [4096, 14336, 4096, 1], 132).unwrap();
/// assert_eq!((mlp.tile, mlp.cluster.mnk(), mlp.mainloop.stages()), ([256, 160, 32], [1, 2, 1], 7));
/// // 1024x14336: 4 x 90 = 360 tiles of 256x160 take 3 rounds (3 x 40960
/// // elements of area), 8 x 64 = 512 of 128x224 take 4 (4 x 28672), 6.7%
/// // less time.
/// let mlp = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [1024, 14336, 4096, 1], 132).unwrap();
/// assert_eq!((mlp.tile, mlp.cluster.mnk(), mlp.mainloop.stages()), ([128, 224, 64], [2, 1, 1], 4));
/// let ragged = sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [4095, 4097, 4093, 1], 132).unwrap();
/// assert_eq!((ragged.schedule, ragged.tile, ragged.cluster.mnk()), (KernelSchedule::TmaWarpSpecializedCooperative, [256, 128, 64], [2, 1, 1]));
/// // tf32 with an M-major A (read from registers): the cooperative 128x256
/// // kernel from 66 of its tiles on (half of 132 SMs; 16 x 8 = 128 at 2048³),
/// // ping-pong below.
/// let tf32 = |m, n, k| sm90_spec_for_problem(GemmTypes::new(TF32, TF32, F32, F32, F32), GemmMajors::new(OperandMajor::MN, OperandMajor::K, OutputMajor::N), [m, n, k, 1], 132).unwrap();
/// assert_eq!((tf32(2048, 2048, 2048).schedule, tf32(2048, 2048, 2048).tile), (KernelSchedule::TmaWarpSpecializedCooperative, [128, 256, 32]));
/// assert_eq!(tf32(4095, 4097, 4093).tile, [128, 256, 32]);
/// assert_eq!(tf32(1000, 1000, 1000).schedule, KernelSchedule::TmaWarpSpecializedPingpong);
/// // Split-K with the splits outer: 512x512 is 4 x 8 = 32 tiles of 128x64,
/// // 132 / 32 = 4 units a tile fit one wave (128 units), and K = 16384 is
/// // 256 k-tiles, 64 a split: no cluster, the blocks that start together
/// // on the same split of neighbouring tiles.
/// let bf = |m, n, k| sm90_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), [m, n, k, 1], 132).unwrap();
/// let outer = bf(512, 512, 16384);
/// assert_eq!((outer.tile, outer.cluster.mnk()), ([128, 64, 64], [1, 1, 1]));
/// assert!(outer.kernel_name().ends_with("_splitk4"));
/// // 512x512x8192 would leave 32 k-tiles a split: 128x128 tiles, 16 of them,
/// // 132 / 16 = 8 splits, in 2x1 clusters (4 tiles along M), two CTAs on
/// // the same k-tiles of neighbouring tiles, B multicast. 3 x 4 tiles
/// // (384x512, 3 x 8 tiles of 128x64 making 96 units in 4 splits, under
/// // three quarters of the wave): along N.
/// assert!(bf(512, 512, 8192).kernel_name().ends_with("_splitk8"));
/// assert_eq!(bf(512, 512, 8192).cluster.mnk(), [2, 1, 1]);
/// assert_eq!(bf(384, 512, 16384).cluster.mnk(), [1, 2, 1]);
/// // 8 k-tiles a split (K = 4096): no cluster.
/// assert_eq!(bf(512, 512, 4096).cluster.mnk(), [1, 1, 1]);
/// // An N of at most 512 whose 128x128 splits run unclustered: split-K on
/// // ping-pong 64-row tiles of the narrowest TileN (16, 32, 64) that holds
/// // N, in the most splits (8, 4, 2) that fit a wave: 512 x 512 x 4096 is
/// // 8 x 8 = 64 tiles of 64x64, 2 splits (128 units of 32 k-tiles).
/// let small = bf(512, 512, 4096);
/// assert_eq!((small.schedule, small.tile), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 64, 64]));
/// assert!(small.kernel_name().ends_with("_splitk2"));
/// // Whole 64-row tiles fill the wave at 8192 x 16 x 4096 (128 of them):
/// // 64x16 where N is at most 16.
/// assert_eq!(bf(8192, 16, 4096).tile, [64, 16, 64]);
/// assert!(!bf(8192, 16, 4096).kernel_name().contains("splitk"));
/// // 16 x 16 x 7168: one 64x16 tile, 8 splits of 14 k-tiles; 2048 x 64 x
/// // 4096: 32 tiles of 64x64, 4 splits.
/// assert_eq!(bf(16, 16, 7168).tile, [64, 16, 64]);
/// assert!(bf(16, 16, 7168).kernel_name().ends_with("_splitk8"));
/// assert!(bf(2048, 64, 4096).kernel_name().ends_with("_pingpong_c1x1_splitk4"));
/// // Any split count with 64 k-tiles a split: 768 x 1024 is 48 tiles, 2
/// // splits of 64 k-tiles at K = 8192, in 2x1; at K = 4096, 32: none.
/// let square = bf(768, 1024, 8192);
/// assert!(square.kernel_name().ends_with("_splitk2"));
/// assert_eq!(square.cluster.mnk(), [2, 1, 1]);
/// assert_eq!(bf(768, 1024, 4096).cluster.mnk(), [1, 1, 1]);
/// // One row of 64 tiles (M = 128): 1x2, 2 splits of 128 k-tiles.
/// assert_eq!(bf(128, 8192, 16384).cluster.mnk(), [1, 2, 1]);
/// assert!(bf(128, 8192, 16384).kernel_name().ends_with("_splitk2"));
/// // 128 x 1536: 12 tiles of 128x128 would take 8 splits; one row of
/// // tiles runs narrow ones that fill the wave instead: 32 tiles of 128x48
/// // in 4 splits of 28 k-tiles (128 units; 128x64 in 5: 120).
/// let row = bf(128, 1536, 7168);
/// assert_eq!(row.tile, [128, 48, 64]);
/// assert!(row.kernel_name().ends_with("_splitk4"));
/// // 128 x 1024 x 4096 (64 k-tiles, at least 16 a split): 32 tiles of
/// // 128x32 in 4 (128 units); at K = 8192, 22 of 128x48 in 6 (132).
/// assert_eq!(bf(128, 1024, 4096).tile, [128, 32, 64]);
/// assert!(bf(128, 1024, 4096).kernel_name().ends_with("_splitk4"));
/// assert_eq!(bf(128, 1024, 8192).tile, [128, 48, 64]);
/// assert!(bf(128, 1024, 8192).kernel_name().ends_with("_splitk6"));
/// // A row of 16 tiles of 128 columns (N = 2048) keeps 128x64 in 4.
/// assert_eq!(bf(128, 2048, 8192).tile, [128, 64, 64]);
/// // Two to four rows of 128x64 tiles with 64 k-tiles a split run with
/// // the splits outer, unclustered: 256 x 1024 x 16384 is 2 x 16 tiles in
/// // 4 splits (128 units).
/// let outer = bf(256, 1024, 16384);
/// assert_eq!((outer.tile, outer.cluster.mnk()), ([128, 64, 64], [1, 1, 1]));
/// assert!(outer.kernel_name().ends_with("_splitk4"));
/// // And 72 to 128 rows two rows of ping-pong 64x128 tiles: 128 x 4096 x
/// // 16384 is 2 x 32 of them in 2 splits of 128 k-tiles, 128 x 2048 x
/// // 16384 2 x 16 in 4 of 64.
/// let rows = bf(128, 4096, 16384);
/// assert_eq!((rows.schedule, rows.tile), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 128, 64]));
/// assert!(rows.kernel_name().ends_with("_c1x1_splitk2"));
/// assert!(bf(128, 2048, 16384).kernel_name().ends_with("_c1x1_splitk4"));
/// // At 65 rows the second row would hold one: 128x128 splits in 1x2.
/// assert_eq!(bf(65, 4096, 16384).tile, [128, 128, 64]);
/// // 384 x 1024 x 4096: 24 tiles of 128x128 would take 4 splits of 16
/// // k-tiles; 48 tiles of 128x64 in 2 splits (96 units, one wave) instead
/// // (its 96 tiles of 64x64 fill less than three quarters of a wave). At
/// // K = 8192 (32 k-tiles a split) 128x128 stays.
/// let pairs = bf(384, 1024, 4096);
/// assert_eq!(pairs.tile, [128, 64, 64]);
/// assert!(pairs.kernel_name().ends_with("_splitk2"));
/// assert_eq!(bf(384, 1024, 8192).tile, [128, 128, 64]);
/// assert!(bf(384, 1024, 8192).kernel_name().ends_with("_splitk4"));
/// // 512 x 1024 x 4096: 128 tiles of 64x64, whole.
/// assert_eq!(bf(512, 1024, 4096).tile, [64, 64, 64]);
/// // 768 x 1024: 48 tiles, 2 splits. K = 2048 is 32 k-tiles: too short to split.
/// assert!(bf(768, 1024, 4096).kernel_name().ends_with("_splitk2"));
/// // 1024 x 1024 x 4096: 128 whole 64x128 tiles fill a wave instead.
/// assert_eq!(bf(1024, 1024, 4096).tile, [64, 128, 64]);
/// assert!(!bf(512, 512, 2048).kernel_name().contains("splitk"));
/// // Few tiles, a short K: 768 x 1024 is 6 x 8 = 48 tiles of 128x128, at
/// // most half of 132 SMs; 128x64 tiles make 96 (64x128 ones too, under
/// // three quarters of a wave).
/// assert_eq!((bf(768, 1024, 1024).schedule, bf(768, 1024, 1024).tile), (KernelSchedule::TmaWarpSpecializedPingpong, [128, 64, 64]));
/// // So does 1024 x 1024: 64x128 tiles take K of 4096 to 8192 only.
/// assert_eq!(bf(1024, 1024, 1024).tile, [128, 64, 64]);
/// // 4096 x 1024: 256 tiles of 128x128, past half the SMs.
/// assert_eq!(bf(4096, 1024, 1024).tile, [128, 128, 64]);
/// // Up to 16 rows of K-major A and B, and B up to 4096 x 4096: the GEMV
/// // kernel, 8 rows a tile up to M = 8, 16 above, 16 columns (1 x 4096: 256
/// // blocks), 8 warps slicing K; 8 rows over K of 4096 and more stage 8
/// // k-steps a warp in a shared-memory ring.
/// let decode = bf(1, 4096, 4096);
/// assert_eq!((decode.tile, decode.mainloop.warps), ([8, 16, 32], [1, 1, 8]));
/// assert!(decode.kernel_name().ends_with("_gemv_ring"));
/// assert_eq!(bf(16, 4096, 4096).tile, [16, 16, 32]);
/// assert!(bf(16, 4096, 4096).kernel_name().ends_with("_gemv"));
/// // Past K = 4 N, a narrow B up to K = 4096: 8 columns a block, 16 warps
/// // (16 x 16 x 4096: 2 blocks); with 16 rows not past K = 4096.
/// let narrow = bf(16, 16, 4096);
/// assert_eq!((narrow.tile, narrow.mainloop.warps), ([16, 8, 32], [1, 1, 16]));
/// assert!(narrow.kernel_name().ends_with("_gemv"));
/// assert!(!bf(16, 16, 7168).kernel_name().contains("_gemv"));
/// // With 8 rows the narrow form's ring (K = 4096), and past K = 4096 up
/// // to K = 16384 the ring alone: 8 columns up to N = 512, 16 past it
/// // (those up to K = 8192 beyond 4 rows); the swap-AB split kernel
/// // beyond.
/// let ring = bf(8, 16, 4096);
/// assert_eq!((ring.tile, ring.mainloop.warps), ([8, 8, 32], [1, 1, 16]));
/// assert!(ring.kernel_name().ends_with("_gemv_ring"));
/// assert_eq!(bf(1, 512, 16384).tile, [8, 8, 32]);
/// assert!(bf(1, 512, 16384).kernel_name().ends_with("_gemv_ring"));
/// let ring = bf(4, 1024, 16384);
/// assert_eq!((ring.tile, ring.mainloop.warps), ([8, 16, 32], [1, 1, 8]));
/// assert!(ring.kernel_name().ends_with("_gemv_ring"));
/// assert!(!bf(8, 1024, 16384).kernel_name().contains("_gemv"));
/// assert!(!bf(16, 512, 8192).kernel_name().contains("_gemv"));
/// // K of at most 1024 over at least 3 rounds of 16-column blocks (4 x 8192
/// // x 1024: 512 blocks on 132 SMs): 4 warps, each on 256 of K.
/// assert_eq!(bf(4, 8192, 1024).mainloop.warps, [1, 1, 4]);
/// assert_eq!(bf(16, 4096, 1024).mainloop.warps, [1, 1, 8]);
/// // From 5 rows, K up to 2048 over at least 4096 x 2048 elements of B:
/// // swap-AB's whole 64x16 ping-pong tiles where they make at most a wave
/// // (16 x 8192 x 1024: 128 tiles).
/// let swapped = bf(16, 8192, 1024);
/// assert_eq!((swapped.schedule, swapped.tile), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 16, 64]));
/// assert_eq!(swapped.majors.d, OutputMajor::M);
/// // Swap-AB past that: 16 x 4096 x 8192 runs as 4096 x 16 (D^T
/// // column-major). 32 cooperative 128x16 tiles in 4 splits of 32 k-tiles
/// // would make 128 units; 64 ping-pong 64x16 tiles in 2 splits make as
/// // many (7/8 of a wave and more), and run, 16 stages deep.
/// let decode = bf(16, 4096, 8192);
/// assert_eq!((decode.tile, decode.majors.d), ([64, 16, 64], OutputMajor::M));
/// assert_eq!(decode.mainloop.stages(), 16);
/// assert!(decode.kernel_name().ends_with("_splitk2"));
/// // 16 x 3072: 24 tiles in 4 splits, 48 in 2: 96 units, under 7/8 of a
/// // wave, stay cooperative.
/// assert!(bf(16, 3072, 8192).kernel_name().contains("_128x16x64_w4x1x1_s8_cooperative_c1x1_epi_nosmem_splitk4"));
/// // 16 x 14336 is 112 tiles of 128x16: no room for a second unit each.
/// assert!(!bf(16, 14336, 4096).kernel_name().contains("splitk"));
/// // 64 x 1024 x 8192: 1024 / 64 = 16 ping-pong 64x64 tiles, at most a
/// // quarter of 132 SMs: 8 splits of 16 k-tiles (128 units), each
/// // consumer warpgroup adding its own units' partial tiles.
/// let split64 = bf(64, 1024, 8192);
/// assert_eq!((split64.schedule, split64.tile, split64.majors.d), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 64, 64], OutputMajor::M));
/// assert!(split64.kernel_name().ends_with("_splitk8"));
/// // 64 x 2048 x 8192: 32 tiles, 4 splits. 64 x 4096 x 16384: 64 tiles,
/// // past a quarter of the SMs: cooperative 128x64 tiles, 32 in 4 splits.
/// assert!(bf(64, 2048, 8192).kernel_name().ends_with("_pingpong_c1x1_splitk4"));
/// let wide = bf(64, 4096, 16384);
/// assert_eq!((wide.schedule, wide.tile), (KernelSchedule::TmaWarpSpecializedCooperative, [128, 64, 64]));
/// assert!(wide.kernel_name().ends_with("_splitk4"));
/// // 16 x 8192 x 4096: 64 tiles of 128x16 in 2 splits make 128 units; 128
/// // ping-pong 64x16 tiles make as many blocks, within one wave: unsplit.
/// let wave = bf(16, 8192, 4096);
/// assert_eq!((wave.schedule, wave.tile), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 16, 64]));
/// assert!(!wave.kernel_name().contains("splitk"));
/// // So do they at any K up to 32 rows (8 x 8192 x 16384: 128 blocks of
/// // 256 k-tiles, 16 stages deep), past 32 rows only where the 2 splits
/// // would keep at most 32 k-tiles each (64 x 8192 x 32768 keeps 2 splits).
/// let long = bf(8, 8192, 16384);
/// assert_eq!((long.tile, long.mainloop.stages()), ([64, 16, 64], 16));
/// assert!(!long.kernel_name().contains("splitk"));
/// assert!(bf(64, 8192, 32768).kernel_name().ends_with("_splitk2"));
/// // 128 x 8192 x 4096: 2 x 64 = 128 whole ping-pong 64x128 tiles fill a
/// // wave, unswapped; so do 256 x 4096 (4 x 32).
/// assert_eq!((bf(128, 8192, 4096).schedule, bf(128, 8192, 4096).tile), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 128, 64]));
/// assert_eq!(bf(128, 8192, 4096).majors.d, OutputMajor::N);
/// assert_eq!(bf(256, 4096, 4096).majors.d, OutputMajor::N);
/// // 128 x 4096 x 4096: 2 x 64 = 128 whole ping-pong 64x64 tiles fill a
/// // wave of 132 SMs, unswapped, 13 stages deep.
/// let square = bf(128, 4096, 4096);
/// assert_eq!((square.schedule, square.tile, square.majors.d), (KernelSchedule::TmaWarpSpecializedPingpong, [64, 64, 64], OutputMajor::N));
/// assert_eq!(square.mainloop.stages(), 13);
/// // And where K is too short to split: 128 x 1024 x 1024, 32 of them.
/// assert_eq!(bf(128, 1024, 1024).tile, [64, 64, 64]);
/// // 256 x 4096 x 4096: 256 of them take two waves; 4 x 32 = 128 whole
/// // 64x128 tiles fill one (8 stages), where M is at least 128.
/// let wide = bf(256, 4096, 4096);
/// assert_eq!((wide.tile, wide.majors.d, wide.mainloop.stages()), ([64, 128, 64], OutputMajor::N, 8));
/// // 256 x 14336: 2 x 112 = 224 tiles of 128x128 would take 2 rounds of
/// // 132; one wave holds 66 tiles a row, 14336 / 66 -> 224 columns: 2 x 64
/// // = 128 cooperative 128x224 tiles, no cluster.
/// let one_wave = bf(256, 14336, 4096);
/// assert_eq!((one_wave.schedule, one_wave.tile, one_wave.cluster.mnk()), (KernelSchedule::TmaWarpSpecializedCooperative, [128, 224, 64], [1, 1, 1]));
/// // 256 x 6144: 96 tiles of 128x128 leave 36 SMs idle; 2 x 64 of 128x96.
/// assert_eq!(bf(256, 6144, 4096).tile, [128, 96, 64]);
/// // 512 x 8192 would take 128x256 tiles (33 a row): ping-pong 128x128.
/// assert_eq!(bf(512, 8192, 4096).tile, [128, 128, 64]);
/// // Where one wave would need more than 224 columns, 128x112 tiles if
/// // their rounds take 10% less area: 256 x 28672 is 2 x 224 = 448 tiles of
/// // 128x128 in 4 rounds of 132 (4 x 16384 elements of area), 2 x 256 =
/// // 512 of 128x112 in 4 as well (4 x 14336), 12.5% less.
/// assert_eq!(bf(256, 28672, 4096).tile, [128, 112, 64]);
/// // One row of tiles keeps 128x128 (128 x 14336: 112 tiles, one round).
/// assert_eq!(bf(128, 14336, 4096).tile, [128, 128, 64]);
/// // s8 inputs into an i32 D: ping-pong 128x128 tiles of 128 k in a 1x2
/// // cluster, one warpgroup's epilogue under the other's MMAs.
/// let int8 = GemmTypes::new(I8, I8, I32, I32, I32);
/// let k_major = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
/// let exact = sm90_spec_for_problem(int8, k_major, [4096, 4096, 4096, 1], 132).unwrap();
/// assert_eq!((exact.schedule, exact.tile, exact.cluster.mnk()), (KernelSchedule::TmaWarpSpecializedPingpong, [128, 128, 128], [1, 2, 1]));
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule.
pub fn sm90_spec_for_problem(
    types: GemmTypes,
    majors: GemmMajors,
    [m, n, k, l]: [u32; 4],
    sm_count: u32,
) -> crate::Result<GemmSpec> {
    sm90_pick_for_problem(types, majors, [m, n, k, l], sm_count, None).map(|(spec, _)| spec)
}

/// [`sm90_spec_for_problem`] with swap-AB as asked (`None`: as the pick
/// finds it pays; `Some(false)`: never; `Some(true)`: always, on the
/// transposed problem's own pick where M is too large for a narrow tile),
/// and whether the spec is the transposed problem's kernel (run it with
/// [`Gemm::from_transposed_spec`](crate::device::gemm::Gemm::from_transposed_spec)).
///
/// ```
/// use cutlet::gemm::{GemmMajors, GemmTypes};
/// use cutlet::kernel::gemm::{sm90_pick_for_problem, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let (types, majors) = (GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N));
/// let (spec, swapped) = sm90_pick_for_problem(types, majors, [4096, 4096, 4096, 1], 132, Some(true)).unwrap();
/// assert!(swapped);
/// assert_eq!(spec.transposed().majors, majors);
/// let (_, swapped) = sm90_pick_for_problem(types, majors, [16, 4096, 4096, 1], 132, Some(false)).unwrap();
/// assert!(!swapped);
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule.
pub fn sm90_pick_for_problem(
    types: GemmTypes,
    majors: GemmMajors,
    [m, n, k, l]: [u32; 4],
    sm_count: u32,
    swap: Option<bool>,
) -> crate::Result<(GemmSpec, bool)> {
    let facts = Sm90PickFacts::of(types, majors);
    let transposed = || Sm90PickFacts::of(types.transposed(), majors.transposed());
    let pick = Sm90Pick::choose(
        types,
        majors,
        [m, n, k, l],
        sm_count,
        facts,
        transposed,
        swap,
    );
    let (kernel_m, kernel_n) = if pick.swap { (n, m) } else { (m, n) };
    let spec = pick
        .spec(types, majors)?
        .with_epilogue_for_output(kernel_m, kernel_n)?;
    Ok((spec, pick.swap))
}

/// The kernel shape [`sm90_spec_for_problem`] picks: schedule, tile and
/// cluster, worked out from the problem alone (no spec is built), so that
/// a GEMM picking for each call can look its kernel up by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Sm90Pick {
    pub(crate) schedule: KernelSchedule,
    pub(crate) tile: [u32; 3],
    pub(crate) cluster: ClusterShape,
    /// Split-K's units per tile (1: whole tiles).
    pub(crate) splits: u32,
    /// Whether the kernel computes the transposed problem D^T = B^T · A^T
    /// (swap-AB; its schedule, tile and cluster are that problem's).
    pub(crate) swap: bool,
    /// The GEMV kernel's warps slicing K (a [`KernelSchedule::Multistage`]
    /// pick's); 0 for the SM90 kernels.
    pub(crate) warps: u32,
    /// Whether the GEMV kernel stages its k-steps in a shared-memory ring
    /// ([`GemmSpec::gemv_ring`]); false for the SM90 kernels.
    pub(crate) ring: bool,
}

/// Fewest k-tiles a problem has before the pick splits K: 64 (K = 4096 of
/// a 16-bit type, 2048 of tf32); each split keeps at least 8.
const SPLIT_MIN_K_TILES: u32 = 64;
const SPLIT_MIN_K_TILES_PER_SPLIT: u32 = 8;
/// Most splits the pick makes.
const SPLIT_MAX: u32 = 8;
/// Fewest 128x128 tiles (times L) and k-tiles per split for which the
/// pick's 8 splits run in a cluster of 2 (see `Sm90Pick::split_k`).
const SPLIT_CLUSTER_MIN_TILES: u64 = 12;
const SPLIT_CLUSTER_MIN_K_TILES_PER_SPLIT: u32 = 16;
/// Fewest k-tiles per split for which any split count of 128x128 tiles
/// runs in a cluster of 2.
const SPLIT_CLUSTER_LONG_K_TILES_PER_SPLIT: u32 = 64;
/// Fewest k-tiles per split of a clustered 128x128 split for which it
/// keeps its tiles where a wide row would take 128x64 ones.
const SPLIT_CLUSTER_OVER_NARROW_K_TILES_PER_SPLIT: u32 = 32;
/// The most k-tiles a split of 128x128 tiles in 4 splits keeps where 128x64
/// tiles in 2 splits replace them ([`Sm90Pick::split_k`]).
const SPLIT_NARROW_PAIRS_MAX_K_TILES_PER_SPLIT: u32 = 16;
/// Most tiles along M for which [`Sm90Pick::outer_split`] takes split
/// tiles with the splits outer (M = 512 in 128x64 tiles).
const OUTER_SPLIT_MAX_TILES_M: u32 = 4;
/// The TileNs [`Sm90Pick::one_wave`] takes (multiples of 16).
const ONE_WAVE_TILE_N: std::ops::RangeInclusive<u32> = 80..=224;
/// Most 128-row tiles along M for which [`Sm90Pick::one_wave`] weighs one
/// wave of wide tiles (M = 512).
const ONE_WAVE_MAX_TILES_M: u32 = 4;
/// Fewest rows for which [`Sm90Pick::outer_split`] takes two rows of
/// ping-pong 64x128 tiles: the second row holds at least 8 of them. With
/// one (65x4096x16384, H200, 2026-11-29) the rule lost, 0.843-0.856 against
/// the clustered 128x128 splits' 0.901; at 72 rows it gained (72x2048x32768
/// 0.895-0.899 against 0.882-0.883).
const OUTER_SPLIT_PINGPONG_MIN_M: u32 = 72;
/// The TileNs [`Sm90Pick::one_row`] weighs for a single row of 128-row
/// split tiles, and the fewest k-tiles each of its splits keeps.
const ONE_ROW_TILE_N: [u32; 3] = [32, 48, 64];
const ONE_ROW_MIN_K_TILES_PER_SPLIT: u32 = 16;
/// The most 128-column tiles (N = 1536) of the row [`Sm90Pick::one_row`]
/// takes.
const ONE_ROW_MAX_TILES_N: u32 = 12;
/// Largest N for which [`Sm90Pick::small_split`] splits 64-row ping-pong
/// tiles (the N it was measured at: 16 to 512).
const SMALL_SPLIT_MAX_N: u32 = 512;
/// The TileNs [`Sm90Pick::small_split`] takes: the narrowest that holds N.
const SMALL_SPLIT_TILE_N: [u32; 3] = [16, 32, 64];
/// Largest M swap-AB takes without being asked.
const SWAP_MAX_M: u32 = 128;
/// Most rows of M for which swap-AB splits K whatever its length (past
/// them, up to 64 rows, only where K is at least 4 N), and for which its
/// ping-pong 64-row tiles run unsplit or in half the splits at any split
/// length ([`Sm90Pick::swapped`]).
const SWAP_FEW_ROWS: u32 = 32;
/// Past [`SWAP_FEW_ROWS`] rows of M, swap-AB's split units of at most this
/// many k-tiles give way to unsplit ping-pong 64-row tiles that make as
/// many blocks ([`Sm90Pick::swapped`]); up to those rows they do at any K.
const SWAP_UNSPLIT_MAX_K_TILES_PER_SPLIT: u32 = 32;
/// Eighths of a wave that swap-AB's 64-row ping-pong tiles in half the
/// cooperative kernel's splits fill at least where they replace it
/// ([`Sm90Pick::swapped`]). H200, 2026-11-29, µs, two rounds: with 128
/// blocks of 132 they won (16x4096x16384 36.0-36.2 against 37.1-37.2,
/// 32x4096x4096 14.8-14.9 against 15.3, 8x4224x7168 19.8 against
/// 20.0-20.1); with 96 they tied or lost (24x3072x6144 16.1-16.2 either
/// way, 16x1024x8192 with L = 3 18.3 against 18.0-18.1, 4x1024x32768
/// with L = 3 53.5-53.6 against 52.5).
const SWAP_HALF_SPLITS_MIN_EIGHTHS: u64 = 7;
/// Swap-AB's split units of fewer k-tiles than this, past 32 rows of M,
/// give way to tiles half as wide split to keep this many
/// ([`Sm90Pick::swapped`]).
const SWAP_HALVED_MIN_K_TILES_PER_SPLIT: u32 = 16;
/// Most k-tiles of a problem that [`Sm90Pick::wave64`]'s wave of whole
/// 64-row tiles takes (K = 8192 of a 16-bit type); past it split-K held.
const WAVE64_MAX_K_TILES: u32 = 128;
/// Largest M the GEMV kernel takes.
const GEMV_MAX_M: u32 = 16;
/// Most elements of B (N x K) the GEMV kernel takes: past 4096 x 4096 the
/// swap-AB kernels stream B faster (H200, 2026-11-27, M = 1: 8192 x 8192
/// 38.3 µs against 36.7, 14336 x 4096 34.6 against 31.6).
const GEMV_MAX_B_ELEMENTS: u64 = 1 << 24;
/// The GEMV kernel's warps (slicing K) and k-steps in flight per warp.
const GEMV_WARPS: u32 = 8;
const GEMV_UNROLL: u32 = 4;
/// The GEMV kernel's TileN: two 8-column mma groups per block.
const GEMV_TILE_N: u32 = 16;
/// The GEMV kernel's TileN and warps past K = 4 N (a narrow B): one
/// 8-column group per block, 16 warps slicing K.
const GEMV_NARROW_TILE_N: u32 = 8;
const GEMV_NARROW_WARPS: u32 = 16;
/// Largest K the narrow GEMV takes past K = 4 N (16-bit inputs; beyond it
/// split 64-row tiles stream B faster).
const GEMV_NARROW_MAX_K: u32 = 4096;
/// The GEMV kernel's warps where K is at most [`GEMV_SHORT_MAX_K`] and its
/// 16-column blocks take at least [`GEMV_SHORT_MIN_ROUNDS`] rounds of the
/// SMs (N of 6336 and up on 132 SMs): 4, each slicing twice the K. H200,
/// 2026-11-29, bf16, µs against 8 warps, one process, two rounds:
/// 16x8192x1024 9.5 against 9.8, 8x8192x1024 9.1-9.2 against 9.3-9.4,
/// 4x8192x1024 8.8-8.9 against 9.2, 16x14336x1024 12.8 against 13.1-13.2,
/// 1x14336x1024 11.8 against 11.9-12.0; with fewer blocks 4 warps lost
/// (16x4096x1024 7.5-7.6 against 6.9-7.1, 1x4096x1024 6.7-6.8 against
/// 6.4-6.5, 16x1024x1024 5.8 against 5.2), and at K = 4096 too
/// (16x4096x4096 15.4-15.5 against 14.2-14.5).
const GEMV_SHORT_WARPS: u32 = 4;
/// Fewest K for which the GEMV kernel's 8-row blocks of 16 columns stage
/// their k-steps in a shared-memory ring ([`GemmSpec::gemv_ring`]),
/// [`GEMV_RING_UNROLL`] of them in flight a warp (16-bit inputs). H200,
/// 2026-11-29, bf16, µs, the ring against registers (4 in flight), two
/// rounds in one call: 1x1024x4096 6.5-6.6 against 7.9, 1x4096x4096
/// 13.2-13.3 against 13.8; with 16 rows it lost (16x4096x4096 16.7-16.8
/// against 14.3-14.4, 16x1024x16384 17.7-17.9 against 14.4-14.6), and at
/// K = 1024 (1x4096x1024 6.9-7.0 against 6.5, 8x8192x1024 10.4-10.6
/// against 9.4).
const GEMV_RING_MIN_K: u32 = 4096;
/// Most N for which the ring past K = 4 N beyond [`GEMV_NARROW_MAX_K`]
/// keeps the narrow form's 8-column blocks (16 past it). H200, 2026-11-29,
/// bf16, µs, M = 1, 2, 4, 8, one call: at K = 4096 the narrow ring against
/// the narrow registers, 128 columns 5.4-5.9 against 5.8-6.2, 256 columns
/// 5.5-6.0 against 5.7-6.1; at K = 8192 against the pick's swap-AB 64x16
/// in 8 splits, N = 256 6.5-7.1 against 7.9-8.1, N = 512 6.9-8.0 against
/// 8.8-9.0 (16 columns: 7.5-8.1), N = 1024 with 16 columns 8.7-9.7
/// against 10.0-10.1 (8 columns: 8.9-10.6). Below N = 128 (a later call
/// the same day, M = 1 and 8, two rounds): at K = 4096 the narrow ring
/// 5.1-5.6 against the registers' 5.4-6.1 (N = 8 to 100), at K = 8192
/// 6.1-6.8 against the split kernel's 7.3-8.0.
const GEMV_NARROW_RING_MAX_N: u32 = 512;
/// Largest K the ring takes past K = 4 N beyond [`GEMV_NARROW_MAX_K`] (8
/// rows; B's bound keeps N x K within [`GEMV_MAX_B_ELEMENTS`]). H200,
/// 2026-11-29, bf16, µs, two rounds, against the pick's swap-AB 64x16 in
/// 8 splits: at K = 16384 the 8-column ring 8.0-8.6 against 9.1-10.0 for
/// M = 1 to 4 and N = 8 to 256, 9.1-9.5 against 9.2-9.9 for M = 8, N = 512
/// 9.4-11.0 against 11.3-11.6.
const GEMV_RING_PAST_NARROW_MAX_K: u32 = 16384;
/// Largest K past [`GEMV_NARROW_MAX_K`] for which the ring in 16-column
/// blocks (N past [`GEMV_NARROW_RING_MAX_N`], K past 4 N) serves more than
/// [`GEMV_RING_LONG_WIDE_MAX_M`] rows. H200, 2026-11-29, bf16, µs, two
/// rounds, the ring against the swap-AB split pick: N = 1024, K = 16384,
/// M = 1, 2, 4 13.2-13.5 against 14.1-14.3, M = 8 14.6 against 14.3; K =
/// 12288, M = 1 10.9-11.0 against 11.7-11.8, M = 8 12.3 against 12.0.
const GEMV_RING_WIDE_MAX_K: u32 = 8192;
/// Most rows for which the ring in 16-column blocks past K = 4 N runs
/// beyond [`GEMV_RING_WIDE_MAX_K`] (up to [`GEMV_RING_PAST_NARROW_MAX_K`]).
const GEMV_RING_LONG_WIDE_MAX_M: u32 = 4;
const GEMV_RING_UNROLL: u32 = 8;
/// Fewest rows, least B (N x K elements) and most K at which the GEMV
/// gives way to swap-AB's whole 64-row ping-pong tiles where those make at
/// most one wave (16-bit inputs, K at most 4 N): N of 4096 to 8448 at
/// K = 2048, 8192 to 8448 at K = 1024 on 132 SMs. H200, 2026-11-29, bf16,
/// µs, the GEMV against swap-AB's pick (64x16 tiles, 16 stages, unsplit),
/// two rounds in one call: 16x8192x2048 14.2-14.3 against 12.7,
/// 16x8192x1024 9.4-9.5 against 8.8-8.9, 16x4096x2048 9.7-9.8 against
/// 8.8-9.0, 12 rows the same within 0.1, 8x8192x2048 13.3-13.4 against
/// 12.6, 8x8192x1024 9.1 against 8.8, 8x4096x2048 9.1-9.2 against 8.8.
/// Below them the GEMV held: with 4 rows 13.2 against 12.5-12.6
/// (8192x2048) but 8.8 against 8.7-8.8 (8192x1024) and 6.6-6.7 against
/// 6.9 (4096x1024), with half the B (4096x1024, 2048x2048) 7.0-8.0
/// against 6.9-8.2, past K = 2048 (4096x4096) 14.1-14.5 against 14.2-14.5,
/// and past a wave of tiles (16x14336x1024, 128x16 tiles) 12.9 against
/// 12.6.
const GEMV_SWAP_SHORT_MIN_M: u32 = 5;
/// Least B (N x K elements, 16.8 MB of a 16-bit type) for
/// [`GEMV_SWAP_SHORT_MIN_M`]'s rule.
const GEMV_SWAP_SHORT_MIN_B_ELEMENTS: u64 = 1 << 23;
/// Most K for [`GEMV_SWAP_SHORT_MIN_M`]'s rule.
const GEMV_SWAP_SHORT_MAX_K: u32 = 2048;
const GEMV_SHORT_MAX_K: u32 = 1024;
const GEMV_SHORT_MIN_ROUNDS: u64 = 3;

impl Sm90Pick {
    /// Whole `tile` tiles on `schedule` (an SM90 kernel's), no cluster,
    /// not swapped ([`in_cluster`](Self::in_cluster),
    /// [`split`](Self::split) and [`swap_ab`](Self::swap_ab) change that).
    fn whole_tiles(schedule: KernelSchedule, tile: [u32; 3]) -> Sm90Pick {
        Sm90Pick {
            schedule,
            tile,
            cluster: ClusterShape::ONE,
            splits: 1,
            swap: false,
            warps: 0,
            ring: false,
        }
    }

    /// The GEMV kernel's pick ([`GemmSpec::gemv`], or
    /// [`GemmSpec::gemv_ring`] where `ring`): `tile` blocks (rows,
    /// columns, k-step) on `warps` warps slicing K.
    fn gemv_kernel(tile: [u32; 3], warps: u32, ring: bool) -> Sm90Pick {
        Sm90Pick {
            warps,
            ring,
            ..Sm90Pick::whole_tiles(KernelSchedule::Multistage, tile)
        }
    }

    /// This pick in a `[cm, cn]` cluster.
    fn in_cluster(self, [cm, cn]: [u32; 2]) -> Sm90Pick {
        Sm90Pick {
            cluster: ClusterShape::new(cm, cn),
            ..self
        }
    }

    /// This pick with K split into `splits` units a tile (1: whole tiles).
    fn split(self, splits: u32) -> Sm90Pick {
        Sm90Pick { splits, ..self }
    }

    /// This pick for the transposed problem D^T = B^T · A^T (swap-AB).
    fn swap_ab(self) -> Sm90Pick {
        Sm90Pick { swap: true, ..self }
    }

    /// The spec of this pick for `types` and `majors` (split-K: the
    /// split-K scheduler and [`GemmSpec::with_k_splitting_epilogue`]).
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule.
    pub(crate) fn spec(&self, types: GemmTypes, majors: GemmMajors) -> crate::Result<GemmSpec> {
        let (types, majors) = if self.swap {
            (types.transposed(), majors.transposed())
        } else {
            (types, majors)
        };
        if self.schedule == KernelSchedule::Multistage {
            let [rows, cols, _] = self.tile;
            let spec = if self.ring {
                GemmSpec::gemv_ring(types, majors, [rows, cols], self.warps, GEMV_RING_UNROLL)
            } else {
                GemmSpec::gemv(types, majors, [rows, cols], self.warps, GEMV_UNROLL)
            };
            spec.validate()?;
            return Ok(spec);
        }
        let mut spec = sm90_spec(types, majors, self.schedule, self.tile, self.cluster)?;
        if self.splits > 1 {
            spec.scheduler = TileSchedulerPolicy::SplitK {
                splits: self.splits,
            };
            spec = spec.with_k_splitting_epilogue()?;
            spec.validate()?;
        }
        Ok(spec)
    }

    /// Swap-AB's 64-row tiles of a problem of `n` columns (the kernel's M)
    /// and `l` batches, and whether they run split on the ping-pong
    /// schedule there, where they make at most a quarter of a wave of
    /// `sm_count` SMs ([`swapped`](Self::swapped)'s first path, which
    /// [`gemv`](Self::gemv) yields to).
    fn swap_narrow_tiles(n: u32, l: u32, sm_count: u32, facts: Sm90PickFacts) -> (u64, bool) {
        let tiles = u64::from(n.div_ceil(64)) * u64::from(l);
        let split = facts.swap_pingpong_split_ok && 4 * tiles <= u64::from(sm_count);
        (tiles, split)
    }

    /// Whether `spec` is this pick's kernel shape.
    pub(crate) fn is(&self, spec: &GemmSpec) -> bool {
        let splits = match spec.scheduler {
            TileSchedulerPolicy::SplitK { splits } => splits,
            _ => 1,
        };
        !self.swap
            && (self.schedule, self.tile, self.cluster, self.splits)
                == (spec.schedule, spec.tile, spec.cluster, splits)
    }

    /// Swap-AB's pick for a small M: the transposed problem D^T = B^T ·
    /// A^T, whose N' = M fits a narrow tile (wgmma's N steps by 8: N' = M
    /// rounded up to 8, at least 16), without a cluster. Taken where M is
    /// at most [`SWAP_MAX_M`] and N at least 4 M, or for any M up to 256
    /// where `forced` (`GemmBuilder::swap_ab(true)`). The kernel, from
    /// the H200 sweep of issue 28 (BENCHMARKS.md; cutlet / cuBLASLt):
    ///
    /// - M at most 32, or at most 64 with K at least 4 N, where the
    ///   ping-pong 64 x N' tiles make at most a quarter of a wave (N up
    ///   to 2112 on 132 SMs): those tiles with their K loop split as
    ///   [`splits_for`](Self::splits_for) splits, each consumer warpgroup
    ///   adding its own units' partial tiles in its epilogue turn. Twice
    ///   the units of the cooperative 128 x N' kernel's split, each half
    ///   the partial tile to hand over (H200, 2026-11-28, bf16, cutlet /
    ///   cuBLASLt, two rounds, against the cooperative pick before it):
    ///   64x1024x8192 0.93 against 0.82-0.83, 64x1024x16384 0.95-0.96
    ///   against 0.88-0.89, 64x1024x4096 0.90 against 0.86, 48x1024x8192
    ///   0.98 against 0.90, 32x1024x8192 0.98 against 0.92-0.93,
    ///   32x1024x4096 0.97-0.98 against 0.93-0.94, 16x1024x8192 0.99
    ///   against 0.96, 1x1024x8192 0.97-0.98 against 0.96, 64x2048x8192
    ///   (4 splits) 0.97-0.98 against 0.89-0.90; a wash at 32x2048x16384
    ///   (0.95) and at M <= 16 with K = 16384 (1.00-1.04 either way); 12
    ///   stages instead of 8 lost 0-3%.
    /// - Otherwise, M at most 32, or at most 64 with K at least 4 N: the
    ///   cooperative 128 x N' kernel with its K loop split as
    ///   [`splits_for`](Self::splits_for) splits (16x4096x4096 1.00 with 4
    ///   splits, against 0.72 unswapped; 64x1024x16384 0.91 with 8,
    ///   against 0.71), unless the ping-pong 64 x N' kernel's tiles make
    ///   at least as many blocks within one wave (and, past 32 rows, the
    ///   splits would keep at most 32 k-tiles each): then that one,
    ///   unsplit, 16 stages deep (H200, 2026-11-28, two to four rounds:
    ///   1x8192x4096 1.01 against 0.92-0.93 in 2 splits, 16x8192x4096
    ///   0.99-1.01 against 0.90-0.92, 32x8192x4096 0.99-1.00 against 0.90,
    ///   32x6144x4096 0.98 against 0.94-0.96, 16x6144x4096 0.95 against
    ///   0.96-0.98. Longer splits held then, with 8 stages: 8x8192x8192
    ///   0.94 against 0.97-0.98. With 16, 2026-11-29, µs, two rounds
    ///   against the 2 splits: 8x8192x8192 35.7 against 37.0,
    ///   1x8192x8192 35.6-36.1 against 36.9-37.0, 32x8192x8192 36.9-37.1
    ///   against 37.7-37.8, 8x8192x16384 65.8-65.9 against 67.0-67.4,
    ///   8x5120x6144 19.7-19.8 against 21.2-21.3, 32x7168x7168 29.4
    ///   against 31.1, e4m3 1x7168x12288 26.0-26.2 against 26.9; lost by
    ///   1-1.5%: 16x2048x16384 with L = 3, 54.3-54.4 against 53.8-53.9,
    ///   tf32 16x6144x8192 54.3-54.5 against 53.6-53.7, and past 32 rows
    ///   64x8192x32768 135.5-135.8 against 133.3-133.7). Up to 32 rows,
    ///   where the 64 x N' tiles in half the splits make as many blocks
    ///   and fill at least 7/8 of a wave, those, 16 stages deep
    ///   ([`SWAP_HALF_SPLITS_MIN_EIGHTHS`], [`MAX_SM90_DEEP_SPLIT_TILE_N`]:
    ///   16x4096x16384 in 2 splits 36.0-36.2 µs against 37.1-37.2 in 4).
    ///   Past 32 rows, where
    ///   the splits would keep fewer than 16 k-tiles each, 128 x N'/2
    ///   tiles in splits of at least 16, where those fit one wave (H200,
    ///   2026-11-28, two rounds: 64x1024x4096, 128x32 tiles in 4 splits,
    ///   0.86 against 0.77-0.79 for 128x64 in 8; at 64x1024x8192, 16
    ///   k-tiles a split already, 128x32 in 8 ran 0.84 against 0.81-0.82,
    ///   not taken; at 64x1024x16384 the 8 splits of 128x64 stayed ahead,
    ///   0.89 against 0.84); where K
    ///   is too short to split, the ping-pong 64 x
    ///   N' kernel where its tiles fit one wave (16x4096x1024 0.92,
    ///   against 0.63), else the cooperative one (16x14336x4096 1.02-1.06,
    ///   against 0.70).
    /// - Otherwise, for M up to 64: the ping-pong 64 x N' kernel where
    ///   its tiles fill between a quarter of the SMs and one wave
    ///   (64x4096x4096 0.86-0.92, against 0.68-0.75), the cooperative
    ///   128 x N' one past a wave (64x14336x4096 1.01-1.06, against
    ///   0.74-0.79); below a quarter of the SMs the unswapped pick.
    /// - For 64 < M <= 128, only the ping-pong 64 x N' kernel within that
    ///   band of tiles and with K at most 8192, where whole unswapped 64x64
    ///   tiles do not fill a wave first ([`wave64`](Self::wave64),
    ///   which took 128x4096x4096, and with 64x128 tiles 128x8192x4096 and
    ///   x8192, over this kernel later) (128x4096x4096 0.93,
    ///   against 0.79; 128x8192x1024 0.96, against 0.87). With K = 16384
    ///   or past a wave the unswapped pick stayed ahead (128x4096x16384
    ///   0.92 split in 4 against 0.82 swapped; 128x14336x4096 0.96
    ///   against 0.94; 128x1024x16384 split in 8 0.75, swapped 0.58).
    fn swapped(
        bk: u32,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        forced: bool,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        let auto = m <= SWAP_MAX_M && u64::from(n) >= 4 * u64::from(m);
        if !(auto || forced) || m == 0 || m > 256 {
            return None;
        }
        let bn = m.next_multiple_of(8).max(16);
        // The integer wgmma's N past 24 steps by 16.
        let bn = if facts.integer_mma && bn > 24 {
            bn.next_multiple_of(16)
        } else {
            bn
        };
        let pick = |schedule, tile, splits| {
            Sm90Pick::whole_tiles(schedule, tile)
                .split(splits)
                .swap_ab()
        };
        let cooperative = KernelSchedule::TmaWarpSpecializedCooperative;
        let pingpong = KernelSchedule::TmaWarpSpecializedPingpong;
        let (narrow_tiles, small_split) = Sm90Pick::swap_narrow_tiles(n, l, sm_count, facts);
        let sms = u64::from(sm_count);
        let long_k = u64::from(k) >= 4 * u64::from(n);
        if (m <= SWAP_FEW_ROWS || (m <= 64 && long_k)) && facts.swap_split_ok {
            // Where the 64-row tiles make at most a quarter of a wave,
            // they run split on the ping-pong schedule.
            if small_split {
                let tile = [64, bn, bk];
                if let Some(splits) = Sm90Pick::splits_for(tile, [n, m, k, l], sm_count) {
                    return Some(pick(pingpong, tile, splits));
                }
            }
            let tile = [128, bn, bk];
            if let Some(splits) = Sm90Pick::splits_for(tile, [n, m, k, l], sm_count) {
                // Where the 64-row tiles alone make as many blocks, within
                // one wave, they run unsplit: no partial tiles to add (past
                // 32 rows only where the splits would be short, at most
                // SWAP_UNSPLIT_MAX_K_TILES_PER_SPLIT k-tiles).
                let units = u64::from(n.div_ceil(128)) * u64::from(l) * u64::from(splits);
                let per_split = k.div_ceil(bk.max(1)) / splits;
                if narrow_tiles >= units
                    && narrow_tiles <= sms
                    && (m <= SWAP_FEW_ROWS || per_split <= SWAP_UNSPLIT_MAX_K_TILES_PER_SPLIT)
                {
                    return Some(pick(pingpong, [64, bn, bk], 1));
                }
                // Up to 32 rows, where the 64-row tiles in half the splits
                // make as many blocks, filling 7/8 of a wave at least (4
                // splits: 2), they run so, with a 16-stage ring
                // (MAX_SM90_DEEP_SPLIT_TILE_N).
                let halved = narrow_tiles * u64::from(splits / 2);
                if m <= SWAP_FEW_ROWS
                    && splits >= 4
                    && facts.swap_pingpong_split_ok
                    && halved >= units
                    && halved <= sms
                    && 8 * halved >= SWAP_HALF_SPLITS_MIN_EIGHTHS * sms
                {
                    return Some(pick(pingpong, [64, bn, bk], splits / 2));
                }
                // Past 32 rows, splits shorter than
                // SWAP_HALVED_MIN_K_TILES_PER_SPLIT k-tiles give way to
                // tiles half as wide in fewer, longer splits.
                if m > SWAP_FEW_ROWS && per_split < SWAP_HALVED_MIN_K_TILES_PER_SPLIT {
                    let half = [128, (bn / 2).next_multiple_of(8), bk];
                    let longer = Sm90Pick::splits_keeping(
                        half,
                        [n, m, k, l],
                        sm_count,
                        SWAP_HALVED_MIN_K_TILES_PER_SPLIT,
                    );
                    if let Some(splits) = longer {
                        return Some(pick(cooperative, half, splits));
                    }
                }
                return Some(pick(cooperative, tile, splits));
            }
        }
        if m <= 64 || forced {
            if narrow_tiles > sms {
                return Some(pick(cooperative, [128, bn, bk], 1));
            }
            if m <= SWAP_FEW_ROWS || 4 * narrow_tiles >= sms || forced {
                return Some(pick(pingpong, [64, bn, bk], 1));
            }
            return None;
        }
        // 64 < M <= 128: only the ping-pong kernel within one wave, K at
        // most 8192.
        (4 * narrow_tiles >= sms && narrow_tiles <= sms && k <= 8192)
            .then(|| pick(pingpong, [64, bn, bk], 1))
    }

    /// Whole ping-pong 64x64 (or 64x128) tiles, unswapped, with their deep ring (13
    /// stages of 16 KiB for 16-bit inputs), where M is a multiple of 64,
    /// those tiles make at most one wave of blocks and either fill three
    /// quarters of it with K at most 8192, or K is too short to split
    /// ([`SPLIT_MIN_K_TILES`]). Each
    /// block streams its slice of the weights with 208 KiB in flight, and
    /// a block holds half the rows of a 128-row tile, so twice as many
    /// blocks stream. Taken before swap-AB past M = 64 (at most 64 rows,
    /// swap-AB's narrow tiles waste no rows) and before split-K. H200,
    /// 2026-11-28, bf16, cutlet / cuBLASLt, two rounds, against the pick
    /// before it: 128x4096x4096 (128 blocks) 1.10-1.12 against swap-AB
    /// 64x128's 0.95-0.96; 128x4096x1024 0.89-0.90 against 0.80;
    /// 512x1024x4096 0.98-0.99 against 128x64 in 2 splits' 0.83-0.86;
    /// 64x1024x1024 (16 blocks) 0.98-1.01 against 128x64's 0.83-0.86,
    /// 128x1024x1024 0.99 against 0.86-0.90, 256x1024x1024 1.02-1.04
    /// against 0.90. Where they leave most of the GPU idle and K is long
    /// enough to split, split-K stayed ahead (64x1024x4096 0.76 against
    /// 0.85, 128x1024x4096 0.78 against 0.87, 512x512x16384 0.59 against
    /// 0.83), and past a wave they lost (128x8192x8192 0.82-0.88 against
    /// 0.91-0.92, 1024x1024x4096 0.76 against 0.88). A second call of the
    /// rule against the pick before it (same process, two rounds):
    /// 128x4096x8192 1.10-1.11 against 1.01, 512x1024x8192 0.99-1.09
    /// against 0.89-0.93, 256x2048x8192 1.11-1.13 against 0.92-0.94,
    /// 1024x512x4096 1.03 against 0.74-0.75, 128x2048x1024 1.03-1.05
    /// against 0.91-0.93, 256x512x1024 0.89-0.93 against 0.79-0.80,
    /// 256x2048x4096 0.94-0.95 against 0.93-0.95; e4m3 (fast accumulation)
    /// 128x4096x4096 0.95-0.98 against 0.83-0.84, 512x1024x4096 0.99
    /// against 0.85-0.87. With K = 16384 split-K held (512x1024x16384 0.85
    /// against 0.94; 128x4096x16384 a wash), hence K at most 8192; with a
    /// partial row of tiles swap-AB's 64x96 held (96x4096x4096 0.92
    /// against 1.12-1.13), hence whole rows.
    ///
    /// Where 64x64 tiles take more than a wave, 64x128 ones (8 stages of
    /// 24 KiB: 192 KiB in flight a block) where M is at least 128 and K
    /// has 64 to 128 k-tiles (4096 to 8192 of a 16-bit type), their wave
    /// three quarters full or more. H200, 2026-11-28, one round, pinned
    /// against the pick before: 256x4096x4096 1.02 against split-K's 0.87,
    /// 256x4096x8192 1.08 against 0.95, 512x2048x4096 1.11 against 0.90,
    /// 1024x1024x4096 0.97 against 0.88 (128x64 tiles there: 0.80); two
    /// rounds in one call against the pick before (b770c6a):
    /// 256x4096x4096 1.04-1.05 against 0.89-0.90, 512x2048x4096 1.05
    /// against 0.89-0.91, 2048x512x4096 0.90-1.02 against 0.84,
    /// 1024x1024x8192 0.89-0.90 either way. At M = 128 (two rows of 64,
    /// H200, 2026-11-28, two rounds, against swap-AB's 64x128 tiles):
    /// 128x8192x4096 0.991-0.994 against 0.944-0.955, 128x8192x8192
    /// 0.957-0.973 against 0.894-0.897. Not taken with a short K
    /// (128x8192x1024 0.87-0.89 against swap-AB's 0.89-0.91) nor a long
    /// one (128x8192x16384 0.98 against split-K's 0.96-0.97: within the
    /// noise; 128x4096x16384 0.81 against 0.95).
    ///
    /// Where N is at most 16, 64x16 tiles instead of 64x64 (as many
    /// blocks, a quarter of the B loads and MMAs; 16-bit inputs). H200,
    /// 2026-11-29, two rounds, pinned against the 64x64 pick: 8192x16x1024
    /// 1.07 against 0.92, 8192x16x4096 1.04 against 0.84, 8192x16x7168 1.03
    /// against 0.81, 2048x16x1024 1.16 against 1.06 (cooperative 128x16
    /// tiles 1.01-1.07, 64x16 in 2 splits 0.89-0.97).
    fn wave64(
        bk: u32,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        let sms = u64::from(sm_count);
        let k_tiles = k.div_ceil(bk.max(1));
        let tiles = |bn: u32| u64::from(m.div_ceil(64)) * u64::from(n.div_ceil(bn)) * u64::from(l);
        let fills =
            |tiles: u64| tiles <= sms && 4 * tiles >= 3 * sms && k_tiles <= WAVE64_MAX_K_TILES;
        let short = tiles(64) <= sms && k_tiles < SPLIT_MIN_K_TILES;
        let bn = if facts.square64_ok && (fills(tiles(64)) || short) {
            if n <= 16 && facts.small_split_narrow_ok {
                16
            } else {
                64
            }
        } else if facts.wide64_ok && m >= 128 && k_tiles >= SPLIT_MIN_K_TILES && fills(tiles(128)) {
            128
        } else {
            return None;
        };
        (m.is_multiple_of(64) && tiles(bn) > 0).then_some(Sm90Pick::whole_tiles(
            KernelSchedule::TmaWarpSpecializedPingpong,
            [64, bn, bk],
        ))
    }

    /// The GEMV kernel's pick ([`GemmSpec::gemv`]): for M up to
    /// [`GEMV_MAX_M`], B of at most [`GEMV_MAX_B_ELEMENTS`] (N x K up to
    /// 4096 x 4096) and K at most 4 N (a block per 16 columns: with
    /// N = 1024 its 64 blocks streamed K = 8192 at 0.86-0.93x cuBLASLt
    /// against swap-AB's 0.96-1.01, K = 16384 at 0.74-0.80 against
    /// 0.99-1.05), where the types and majors allow it (K-major A and B,
    /// 16-bit or tf32 inputs, f32 accumulation) and swap-AB is not asked
    /// for: 8-row tiles up to M = 8, 16-row ones above, 16 columns, 8 warps
    /// slicing K (4 where K is at most 1024 over at least 3 rounds of
    /// blocks: [`GEMV_SHORT_WARPS`]), 4 k-steps in flight per warp. H200,
    /// 2026-11-27, cutlet / cuBLASLt, GEMV against the swap-AB pick: 1 x 4096 x 4096 1.05
    /// against 0.96-0.99, 16 x 4096 x 4096 1.01-1.04 against 0.96-0.97,
    /// 1 x 4096 x 1024 1.07-1.16 against 0.90-1.03, 1 x 1024 x 4096 1.09-1.10
    /// against 0.94-0.99, 1 x 1024 x 1024 2.04 against 1.46; the tile, warp
    /// and unroll sweep found nothing faster by more than 2%.
    ///
    /// Past K = 4 N, a B narrow enough that K is at most
    /// [`GEMV_NARROW_MAX_K`] (16-bit inputs): blocks of 8 columns, 16 warps
    /// slicing K ([`GEMV_NARROW_TILE_N`], [`GEMV_NARROW_WARPS`]), where the
    /// other kernels leave most of the GPU idle on a few tiles. H200,
    /// 2026-11-29, bf16, cutlet / cuBLASLt, against the pick before it
    /// (ping-pong 128x64 tiles at K = 1024, 64-row tiles split in 8 at
    /// K = 4096, swap-AB at M = 1): 8 x 16 x 1024 1.31 against 0.84, 1 x 16
    /// x 1024 1.34 against 1.00, 8 x 16 x 4096 1.33 against 1.17, 1 x 64 x
    /// 4096 1.37 against 1.15, 8 x 256 x 4096 1.37 against 1.21; at K = 7168
    /// the split kernels stayed ahead (16 x 128 x 7168 0.99 against 1.11,
    /// 8 x 32 x 16384 0.77 against 0.85), and 16-column blocks of 8 warps
    /// lost at K = 4096 (1.04-1.08).
    ///
    /// With 8 rows (M up to 8) of 16-bit inputs and K of
    /// [`GEMV_RING_MIN_K`] and more, the k-steps are staged in a
    /// shared-memory ring ([`GemmSpec::gemv_ring`]), in 16-column blocks and
    /// in the narrow form's. Past K = 4 N the ring also takes K up to
    /// [`GEMV_RING_PAST_NARROW_MAX_K`], in 8-column blocks up to N =
    /// [`GEMV_NARROW_RING_MAX_N`] and in 16-column ones past it (those up
    /// to K = [`GEMV_RING_WIDE_MAX_K`] beyond [`GEMV_RING_LONG_WIDE_MAX_M`]
    /// rows; the constants give the figures).
    ///
    /// With 16 rows (M of 9 to 16) and K of at least [`SPLIT_MIN_K_TILES`]
    /// k-tiles (and at most 4 N), where swap-AB's 64-row ping-pong tiles make at most a
    /// quarter of a wave (N up to 2112 on 132 SMs), those run in splits
    /// instead ([`swapped`](Self::swapped)). H200, 2026-11-29, bf16, µs,
    /// pinned, two rounds: 16x2048x8192 64x16 in 4 splits 14.5-14.6 against
    /// the GEMV's 17.0-17.1, 12x2048x8192 14.4 against 16.5, 16x2048x4096
    /// 10.6 against 11.1-11.2, 16x1024x4096 8.4 (4 splits; the pick takes
    /// 8) against 8.7; at 8 rows the ring stayed ahead (8x2048x8192 14.1
    /// against 14.3-14.4). From [`GEMV_SWAP_SHORT_MIN_M`] rows, with K at
    /// most [`GEMV_SWAP_SHORT_MAX_K`] over at least
    /// [`GEMV_SWAP_SHORT_MIN_B_ELEMENTS`] of B (16-bit inputs), swap-AB's
    /// whole 64-row tiles run instead where they make at most one wave (the
    /// constants give the figures).
    fn gemv(
        a: ElementType,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
        swap: Option<bool>,
    ) -> Option<Sm90Pick> {
        let b_elements = u64::from(n) * u64::from(k);
        if !facts.gemv_ok
            || swap == Some(true)
            || m == 0
            || m > GEMV_MAX_M
            || b_elements > GEMV_MAX_B_ELEMENTS
        {
            return None;
        }
        let rows = if m <= 8 { 8 } else { 16 };
        // Swap-AB's 64-row ping-pong tiles take over (the swapped pick)
        // where they stream B faster: 16 rows over a K long enough to split
        // where those tiles make at most a quarter of a wave (the swapped
        // pick's small-split path), and from 5 rows a short K over half as
        // many elements of B as the GEMV takes, where the whole tiles make
        // at most one wave.
        let swappable = swap.is_none() && u64::from(k) <= 4 * u64::from(n) && facts.swap_ok;
        let (tiles64, small_split) = Sm90Pick::swap_narrow_tiles(n, l, sm_count, facts);
        let long_k_split =
            rows == 16 && small_split && k.div_ceil(default_tile_k(a).max(1)) >= SPLIT_MIN_K_TILES;
        let short_k_wave = m >= GEMV_SWAP_SHORT_MIN_M
            && a.size_bytes() == 2
            && k <= GEMV_SWAP_SHORT_MAX_K
            && b_elements >= GEMV_SWAP_SHORT_MIN_B_ELEMENTS
            && tiles64 <= u64::from(sm_count);
        if swappable && (long_k_split || short_k_wave) {
            return None;
        }
        // Past K = 4 N only a narrow B, in blocks of 8 columns; with 8 rows
        // up to K = 16384 the ring form, 8 columns up to N = 512 (the ring's
        // narrow form) and 16 past it (up to K = 8192 beyond 4 rows).
        let ring_past_narrow =
            rows == 8 && k > GEMV_NARROW_MAX_K && k <= GEMV_RING_PAST_NARROW_MAX_K;
        let narrow_ring = rows == 8 && facts.gemv_narrow_ring_ok;
        let wide_ring_past_narrow = ring_past_narrow
            && n > GEMV_NARROW_RING_MAX_N
            && (k <= GEMV_RING_WIDE_MAX_K || m <= GEMV_RING_LONG_WIDE_MAX_M)
            && facts.gemv_ring_ok;
        let cols = if u64::from(k) <= 4 * u64::from(n) {
            GEMV_TILE_N
        } else if (facts.gemv_narrow_ok && k <= GEMV_NARROW_MAX_K)
            || (ring_past_narrow && n <= GEMV_NARROW_RING_MAX_N && narrow_ring)
        {
            GEMV_NARROW_TILE_N
        } else if wide_ring_past_narrow {
            GEMV_TILE_N
        } else {
            return None;
        };
        // A short K over many blocks: half the warps, each on twice the K.
        let blocks = u64::from(n.div_ceil(cols));
        let warps = if cols == GEMV_NARROW_TILE_N {
            GEMV_NARROW_WARPS
        } else if k <= GEMV_SHORT_MAX_K && blocks >= GEMV_SHORT_MIN_ROUNDS * u64::from(sm_count) {
            GEMV_SHORT_WARPS
        } else {
            GEMV_WARPS
        };
        // 8 rows over a long K: the k-steps staged in a shared-memory ring.
        let ring = k >= GEMV_RING_MIN_K
            && if cols == GEMV_TILE_N {
                rows == 8 && facts.gemv_ring_ok
            } else {
                narrow_ring
            };
        let tile = [rows, cols, 64 / a.size_bytes().max(1)];
        Some(Sm90Pick::gemv_kernel(tile, warps, ring))
    }

    /// The most splits (8, 4 or 2) whose units over a problem's `tile`
    /// tiles fit one wave of `sm_count` SMs and keep
    /// [`SPLIT_MIN_K_TILES_PER_SPLIT`] k-tiles each, where K has at least
    /// [`SPLIT_MIN_K_TILES`] k-tiles.
    fn splits_for(tile: [u32; 3], problem: [u32; 4], sm_count: u32) -> Option<u32> {
        Sm90Pick::splits_keeping(tile, problem, sm_count, SPLIT_MIN_K_TILES_PER_SPLIT)
    }

    /// [`splits_for`](Self::splits_for) with at least `per_split` k-tiles a
    /// split.
    fn splits_keeping(
        [bm, bn, bk]: [u32; 3],
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        per_split: u32,
    ) -> Option<u32> {
        let tiles = u64::from(m.div_ceil(bm)) * u64::from(n.div_ceil(bn)) * u64::from(l);
        let k_tiles = k.div_ceil(bk.max(1));
        if tiles == 0 || k_tiles < SPLIT_MIN_K_TILES {
            return None;
        }
        let room = u64::from(sm_count) / tiles;
        [SPLIT_MAX, 4, 2]
            .into_iter()
            .find(|&s| u64::from(s) <= room && k_tiles / s >= per_split)
    }

    /// Split-K over a single row of 128-row tiles (M at most 128), where
    /// [`split_k`](Self::split_k) would make 8 splits of 128x128 tiles
    /// (it asks here first) and N is 1024 to 1536 (8 to [`ONE_ROW_MAX_TILES_N`]
    /// tiles of 128 columns): of 128x32, 128x48 and 128x64 tiles, each
    /// with the most splits (2 to 8) whose units fit one wave and keep
    /// [`ONE_ROW_MIN_K_TILES_PER_SPLIT`] k-tiles, the one that makes the
    /// most units (on a tie, the fewer splits), where they fill three
    /// quarters of the wave. On 132 SMs: 128 x 1024 x 4096 (64 k-tiles)
    /// 32 tiles of 128x32 in 4 splits (128 units; 128x48: 22 x 4 = 88,
    /// 128x64: 16 x 4 = 64); at K = 8192 or 16384 22 tiles of 128x48 in 6
    /// (132; 128x32 and 128x64 make 128); 128 x 1536 x 7168 (112 k-tiles)
    /// 32 of 128x48 in 4 (128; 128x64 in 5: 120, 128x32 in 2: 96).
    /// Each unit streams its own narrow slice of B while the GPU's SMs all
    /// run one: H200, 2026-11-28, bf16, cutlet / cuBLASLt, two rounds in
    /// two device calls, and the rule against the pick before it (the
    /// 128x64 tiles in 4 splits), three rounds in a third:
    /// 128x1024x4096 0.945-0.952 against 0.853-0.874 (128x48 in 6:
    /// 0.92); 128x1024x8192 0.945-0.973 against 0.857-0.872 (128x32 in 4:
    /// 0.93-0.97, 128x64 in 8: 0.86); 128x1024x16384 0.914-0.924 against
    /// 0.809-0.831 (128x32 in 4: 0.85-0.88); 128x1536x7168 0.948-0.965
    /// against 0.930-0.944 (128x64 in 5: 0.93, 128x96 in 8: 0.79). More
    /// units than SMs lost (128x32 in 8 at 128x1024: 0.71-0.76), and so
    /// did clusters (1x2: 0.82-0.90). Rows of 16 tiles lost: 128x2048x8192
    /// 0.962-0.974 (128x48 in 3) against 128x64 in 4's 0.992-0.998, hence
    /// N at most 1536. With a partial row it held: 96x1024x8192 0.92-0.93
    /// against 0.89-0.90, 112x1024x4096 0.89 against 0.82-0.83,
    /// 80x1024x16384 0.72 against 0.70 (three rounds, the same call).
    /// 16-bit inputs: the types measured.
    fn one_row(bk: u32, [m, n, k, l]: [u32; 4], sm_count: u32) -> Option<Sm90Pick> {
        let row_tiles = n.div_ceil(128);
        if m.div_ceil(128) != 1 || n < 1024 || row_tiles > ONE_ROW_MAX_TILES_N {
            return None;
        }
        let k_tiles = k.div_ceil(bk.max(1));
        let sms = u64::from(sm_count);
        // (units, splits, TileN) of each tile's most splits.
        let choices = ONE_ROW_TILE_N.iter().filter_map(|&bn| {
            let tiles = u64::from(n.div_ceil(bn)) * u64::from(l);
            (2..=SPLIT_MAX)
                .rev()
                .find(|&s| {
                    tiles * u64::from(s) <= sms && k_tiles / s >= ONE_ROW_MIN_K_TILES_PER_SPLIT
                })
                .map(|s| (tiles * u64::from(s), s, bn))
        });
        let (units, splits, bn) = choices.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
        (4 * units >= 3 * sms).then_some(
            Sm90Pick::whole_tiles(KernelSchedule::TmaWarpSpecializedCooperative, [128, bn, bk])
                .split(splits),
        )
    }

    /// Split-K on ping-pong 64-row tiles for an N of at most
    /// [`SMALL_SPLIT_MAX_N`] (MoE routers, LoRA, heads): 64 x BN tiles, BN
    /// the narrowest of [`SMALL_SPLIT_TILE_N`] that holds N, in the most
    /// splits (8, 4 or 2) whose units fit one wave with at least
    /// [`SPLIT_MIN_K_TILES_PER_SPLIT`] k-tiles each, where K has at least
    /// [`SPLIT_MIN_K_TILES`] k-tiles. 128x128 tiles leave most of each
    /// block's rows or columns empty there and make too few units to fill
    /// the GPU (one tile in 8 splits at 8 x 16 x 7168), and each split's
    /// finisher adds 64 KiB partial tiles. H200, 2026-11-29, bf16, cutlet /
    /// cuBLASLt, two rounds, against the 128x128 split-K pick before it:
    /// 8x16x4096 (64x16, 8 splits) 1.17 against 0.66, 16x16x7168 1.09
    /// against 0.59, 512x16x7168 1.03 against 0.57, 2048x16x4096 (4
    /// splits) 1.08 against 0.69, 64x64x7168 (64x64, 8) 0.92 against 0.61,
    /// 512x64x4096 0.97 against 0.67, 2048x64x4096 (4) 1.04 against 0.75,
    /// 128x128x4096 (8) 1.01 against 0.70, 512x128x7168 1.01 against
    /// 0.70, 2048x128x4096 (2) 0.98-1.02 against 0.82, 128x256x4096 1.02
    /// against 0.68, 512x256x4096 (4) 1.02 against 0.75, 128x512x4096 1.01
    /// against 0.69, 512x512x4096 (2) 1.03 against 0.81, 512x512x7168 0.90
    /// against 0.78, 256x256x16384 0.86-0.87 against 0.61, 256x512x16384
    /// 0.87-0.89 against 0.74. More units than a wave lost (2048x64x4096
    /// in 8 splits 0.94, 512x512x4096 in 4 0.93), and so did cooperative
    /// 128x64 tiles (0.72-0.90) and ping-pong 64x128 ones (0.63-0.95,
    /// except 512x512x7168 in 4 splits, 0.95). Where the 128x128 splits
    /// run in clusters ([`split_k`](Self::split_k)) they stay: 512x512x16384
    /// 0.65 in 2 splits of 64x64 against 0.85, 384x512x16384 0.75 against
    /// 0.85, 512x512x8192 0.86 against 0.83-0.84 (a tie).
    fn small_split(
        bk: u32,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        if !facts.small_split_ok || n == 0 || n > SMALL_SPLIT_MAX_N {
            return None;
        }
        let k_tiles = k.div_ceil(bk.max(1));
        if k_tiles < SPLIT_MIN_K_TILES {
            return None;
        }
        let bn = SMALL_SPLIT_TILE_N
            .into_iter()
            .filter(|&bn| facts.small_split_narrow_ok || bn == 64)
            .find(|&bn| n <= bn)
            .unwrap_or(64);
        let tiles = u64::from(m.div_ceil(64)) * u64::from(n.div_ceil(bn)) * u64::from(l);
        let splits = [SPLIT_MAX, 4, 2].into_iter().find(|&splits| {
            tiles * u64::from(splits) <= u64::from(sm_count)
                && k_tiles / splits >= SPLIT_MIN_K_TILES_PER_SPLIT
        })?;
        Some(
            Sm90Pick::whole_tiles(KernelSchedule::TmaWarpSpecializedPingpong, [64, bn, bk])
                .split(splits),
        )
    }

    /// Split-K's pick: where the problem's 128x128 tiles fill at most half
    /// the SMs and K is long (at least [`SPLIT_MIN_K_TILES`] k-tiles), the
    /// cooperative 128x128 kernel with the most splits (8, 4 or 2) whose
    /// units fit one wave of the SMs and keep 8 k-tiles each. Measured on
    /// an H200 (BENCHMARKS.md, issue 28): 512x512x16384 (16 tiles, 8
    /// splits) 0.25x cuBLASLt -> 0.71x, 128x4096x16384 (32 tiles, 4) 0.51x
    /// -> 0.92x, 1024x1024x4096 (64, 2) 0.72x -> 0.86x.
    ///
    /// Where that makes 8 splits and N is at least 1024 (a wide row of few
    /// tiles), 128x64 tiles in 4 splits instead, where their units fit one
    /// wave: half the partial tiles to add, each half the size (H200:
    /// 128x1536x7168 0.69x -> 0.96x, 128x1024x4096 0.59x -> 0.83x,
    /// 256x1024x8192 0.72x -> 1.00x; 512x512x16384 stays on 128x128, where
    /// 128x64 in 4 ran 0.69x against 0.74x). Where it makes 4 splits of
    /// at most 16 k-tiles without a cluster, 128x64 tiles in 2 where their
    /// units fit one wave: H200, 2026-11-28, 512x1024x4096 0.83x and
    /// 0.91x against 0.71x and 0.81x, three runs. With 32 k-tiles a split
    /// it was a wash (512x1024x8192 0.96x and 0.86x against 0.93x and
    /// 0.98x), and two splits stay on 128x128 (1024x1024x4096 0.89x
    /// against 0.79x for whole 128x64 tiles).
    ///
    /// Where 8 splits of 128x128 tiles remain, with at least 12 tiles and
    /// 16 k-tiles a split, the units run in clusters of 2 CTAs (2x1 where
    /// the tiles along M are even, else 1x2 where those along N are): the
    /// two CTAs of a cluster run the same k-tiles of neighbouring tiles and
    /// multicast the operand they share (H200, 2026-11-28, cutlet /
    /// cuBLASLt, clusters against none: 512x512x16384 0.85-0.86x against
    /// 0.79-0.81x, L2 traffic 138 MB against 155; 512x512x8192 0.83-0.85x
    /// against 0.80-0.82x; 384x512x16384 in 1x2 0.81-0.82x against
    /// 0.73-0.76x, where 2x1 would leave half a cluster tile idle, 0.68x).
    /// Fewer tiles or k-tiles lose to the cluster's handshakes: 8 tiles
    /// (256x512x16384) 0.68-0.70x against 0.71x, 8 k-tiles a split
    /// (512x512x4096) 0.74-0.76x against 0.77-0.79x.
    ///
    /// With any split count, at least 12 tiles and 64 k-tiles a split run
    /// in clusters of 2 too (H200, 2026-11-28, same process, clusters
    /// against none: 1024x1024x8192 in 2 splits 0.89-0.90x against
    /// 0.76-0.84x, 512x1024x16384 in 4 0.95x against 0.86x, 128x8192x16384
    /// in 2 (1x2) 0.97x against 0.93-0.94x, 128x4096x16384 in 4 (1x2)
    /// 0.95x against 0.94x, 256x4096x16384 in 2 1.03x either way); at 32
    /// k-tiles a split it was a wash (1024x1024x4096 in 2 0.87x against
    /// 0.88x, 512x1024x8192 in 4 0.96x against 0.94x). And where the wide
    /// row's 128x64 tiles would replace 8 clustered splits of at least 32
    /// k-tiles, the clustered 128x128 ones stay: 256x1024x16384 0.89x
    /// against 0.80x (128x64 tiles in 2x1 clusters 0.86-0.88x). 128x64
    /// tiles in clusters lost everywhere else they were tried
    /// (128x1536x7168 0.90x against 0.95x, 128x1024x8192 0.81x against
    /// 0.88x, 256x1024x8192 0.93x against 0.98x).
    ///
    /// Since 2026-11-29 [`outer_split`](Self::outer_split) takes the
    /// problems of two to four rows of 128x64 tiles with 64 k-tiles a split
    /// before these rules see them (512x512x16384, 256x1024x16384 and
    /// 512x1024x16384 among those above).
    fn split_k(
        bk: u32,
        problem: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        let [m, n, k, l] = problem;
        let tile = [128, 128, bk];
        let splits = Sm90Pick::splits_for(tile, problem, sm_count)?;
        if splits == SPLIT_MAX && facts.one_row_ok {
            if let Some(row) = Sm90Pick::one_row(bk, problem, sm_count) {
                return Some(row);
            }
        }
        let pick = |tile, splits| {
            Sm90Pick::whole_tiles(KernelSchedule::TmaWarpSpecializedCooperative, tile).split(splits)
        };
        let k_tiles = k.div_ceil(bk.max(1));
        let per_split = k_tiles / splits;
        let (tiles_m, tiles_n) = (m.div_ceil(128), n.div_ceil(128));
        let tiles = u64::from(tiles_m) * u64::from(tiles_n) * u64::from(l);
        let clustered = facts.split_cluster_ok
            && tiles >= SPLIT_CLUSTER_MIN_TILES
            && (per_split >= SPLIT_CLUSTER_LONG_K_TILES_PER_SPLIT
                || splits == SPLIT_MAX && per_split >= SPLIT_CLUSTER_MIN_K_TILES_PER_SPLIT);
        let cluster = match (tiles_m % 2, tiles_n % 2) {
            _ if !clustered => ClusterShape::ONE,
            (0, _) => ClusterShape::new(2, 1),
            (_, 0) => ClusterShape::new(1, 2),
            _ => ClusterShape::ONE,
        };
        let narrow_units =
            4 * u64::from(m.div_ceil(128)) * u64::from(n.div_ceil(64)) * u64::from(l);
        let narrow_fits =
            narrow_units <= u64::from(sm_count) && k_tiles / 4 >= SPLIT_MIN_K_TILES_PER_SPLIT;
        let long_cluster = cluster != ClusterShape::ONE
            && per_split >= SPLIT_CLUSTER_OVER_NARROW_K_TILES_PER_SPLIT;
        if splits == SPLIT_MAX && n >= 1024 && narrow_fits && !long_cluster {
            return Some(pick([128, 64, bk], 4));
        }
        let narrow_pairs_fit =
            narrow_units <= 2 * u64::from(sm_count) && k_tiles / 2 >= SPLIT_MIN_K_TILES_PER_SPLIT;
        if splits == 4
            && per_split <= SPLIT_NARROW_PAIRS_MAX_K_TILES_PER_SPLIT
            && n >= 1024
            && narrow_pairs_fit
            && cluster == ClusterShape::ONE
        {
            return Some(pick([128, 64, bk], 2));
        }
        Some(Sm90Pick {
            cluster,
            ..pick(tile, splits)
        })
    }

    /// Split-K without a cluster, the splits the outer order of the units
    /// ([`SplitK::interleave`](crate::kernel::gemm::SplitK::interleave)):
    /// cooperative 128x64 tiles where they lie two to
    /// [`OUTER_SPLIT_MAX_TILES_M`] deep along M, and ping-pong 64x128 tiles
    /// for [`OUTER_SPLIT_PINGPONG_MIN_M`] to 128 rows (two rows of them); in
    /// either case at least two
    /// tiles along N, the most splits (8, 4 or 2) whose units fit one wave
    /// with at least
    /// [`SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT`](crate::kernel::gemm::SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT)
    /// k-tiles each, where they fill three quarters of the wave. On 132
    /// SMs: 512 x 512 x 16384 (4 x 8 tiles of 128x64, 256 k-tiles) in 4
    /// splits, 128 units; 512 x 1024 x 16384 (4 x 16) in 2; 128 x 4096 x
    /// 16384 (2 x 32 tiles of 64x128) in 2. The blocks that start together
    /// run the same split of neighbouring tiles, and L2 serves their reads
    /// of A and B once (see [`SplitK`](crate::kernel::gemm::SplitK)).
    /// H200, 2026-11-29, bf16, cutlet / cuBLASLt, two rounds, against the
    /// clustered 128x128 splits before it: 512x512x16384 0.941-0.957
    /// against 0.844-0.860, 256x1024x16384 1.018-1.025 against
    /// 0.918-0.932, 512x1024x16384 0.986-0.989 against 0.956-0.957,
    /// 128x4096x16384 1.005-1.014 against 0.962-0.963. The 64x128 tiles,
    /// A/B against the rules after this one (H200, 2026-11-29, two
    /// rounds): 128x2048x16384 in 4 splits 0.955-0.956 against 0.863,
    /// 96x4096x12288 in 2 0.998-1.002 against 0.972-0.974,
    /// 100x4096x24576 in 2 1.004-1.005 against 0.962-0.963,
    /// 128x1024x32768 in 8 0.897 against 0.848, 72x2048x32768 in 4
    /// 0.895-0.899 against 0.882-0.883. Eight tiles deep it lost
    /// (1024x512x16384 0.734-0.895 against 0.961-0.962); where 64x128
    /// tiles would need 8 splits of 32 k-tiles (128x1024x16384) it lost
    /// too (0.79-0.86 against 0.93), and that is left to the rules after it.
    fn outer_split(
        bk: u32,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        let (schedule, tile) = if (OUTER_SPLIT_PINGPONG_MIN_M..=128).contains(&m) {
            if !(facts.small_split_ok && facts.wide64_ok) {
                return None;
            }
            (KernelSchedule::TmaWarpSpecializedPingpong, [64, 128, bk])
        } else {
            if !facts.one_row_ok {
                return None;
            }
            (KernelSchedule::TmaWarpSpecializedCooperative, [128, 64, bk])
        };
        let (tiles_m, tiles_n) = (m.div_ceil(tile[0]), n.div_ceil(tile[1]));
        if !(2..=OUTER_SPLIT_MAX_TILES_M).contains(&tiles_m) || tiles_n < 2 {
            return None;
        }
        let tiles = u64::from(tiles_m) * u64::from(tiles_n) * u64::from(l);
        let k_tiles = k.div_ceil(bk.max(1));
        let sms = u64::from(sm_count);
        let splits = [SPLIT_MAX, 4, 2].into_iter().find(|&s| {
            tiles * u64::from(s) <= sms
                && k_tiles / s >= crate::kernel::gemm::SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT
        })?;
        (4 * tiles * u64::from(splits) >= 3 * sms)
            .then(|| Sm90Pick::whole_tiles(schedule, tile).split(splits))
    }

    /// One wave of whole cooperative 128xTN tiles without a cluster, for
    /// two to [`ONE_WAVE_MAX_TILES_M`] rows of 128-row tiles where 128x128
    /// tiles would take more than a wave, or fill it less than all but
    /// not half (half or less is [`wave64`](Sm90Pick::wave64)'s): TN the
    /// narrowest multiple of 16 whose tiles fit one wave, within
    /// [`ONE_WAVE_TILE_N`] and not 128, where they fill three quarters of
    /// it; K at least 1024. On 132 SMs: 256 x 14336 is 2 x 66 tiles a wave
    /// at most, TN = 14336 / 66 -> 224 (2 x 64 tiles); 256 x 6144 -> 96;
    /// 512 x 6144 (33 a row) -> 192; 512 x 8192 would take 256 (kept on
    /// ping-pong 128x128). The tiles of a wave run at once, each streaming
    /// its own columns of B once, where 128x128 tiles leave a second
    /// round (or idle SMs) and ping-pong 128x112 a second tile on each SM.
    /// H200, 2026-11-29, bf16, cutlet / cuBLASLt, two rounds, against the
    /// pick before (ping-pong 128x128, or 128x112 from K = 2048):
    ///
    /// | problem | TN | before | one wave |
    /// |---|---|---|---|
    /// | 256x14336x1024 / 4096 | 224 | 0.965-0.968 / 0.990-0.993 | 1.016-1.018 / 1.009-1.019 |
    /// | 256x14336x8192 / 16384 | 224 | 1.010-1.016 / 1.086-1.089 | 1.064-1.070 / 1.118 |
    /// | 256x12288x1024 / 4096 | 192 | 0.907-0.916 / 0.904-0.905 | 1.044-1.058 / 1.027 |
    /// | 256x10240x1024 / 4096 | 160 | 0.813-0.816 / 0.810-0.813 | 0.988-0.998 / 1.051-1.053 |
    /// | 384x8192x1024 / 4096 | 192 | 0.899-0.902 / 0.901-0.903 | 1.049-1.050 / 1.022 |
    /// | 512x6144x1024 / 4096 | 192 | 0.854-0.864 / 0.874-0.876 | 0.978-0.990 / 0.992-0.997 |
    /// | 256x6144x4096 | 96 | 0.899-0.906 | 1.026-1.044 |
    /// | 256x5120x4096 | 80 | 0.849-0.862 | 1.075-1.081 |
    /// | 192x14336x1024 / 4096 | 224 | 0.848-0.855 / 0.587-0.600 | 0.937-0.944 / 0.894-0.898 |
    /// | 256x11008x4096 | 176 | 0.823-0.825 | 0.916-0.924 |
    /// | 256x7168x4096 | 112 | 0.927-0.957 | 0.969-1.003 |
    /// | 256x6144x1024 | 96 | 0.962-0.964 | 1.058-1.069 |
    /// | 320x6144x1024 | 144 | 0.783-0.788 | 0.869-0.942 |
    /// | 384x3072x4096 | 80 | 0.719-0.722 | 0.938-0.946 |
    /// | 512x3072x4096 | 96 | 0.840-0.845 | 1.023-1.030 |
    /// | 192x12288x8192 | 192 | 0.753-0.790 | 1.078-1.099 |
    /// | 160x14336x4096 | 224 | 0.460-0.462 | 0.795-0.797 |
    /// | 129x7168x4096 | 112 | 0.465-0.475 | 0.501-0.502 |
    ///
    /// Where it lost: 512x8192x1024 and 4096 in 128x256 tiles (0.970 and
    /// 1.003-1.005 against 0.994-1.003 and 1.020-1.022), hence TN at most
    /// 224; 256x11008x1024 in 128x176 (0.791-0.795 against 0.818-0.827),
    /// whose last column of tiles holds 96 of B's 176 rows, and two
    /// batches of 129x3072x4096 in 128x96 (0.487-0.488 against
    /// 0.547-0.548), whose second row of tiles holds one row of A: boxes
    /// mostly past the operand's rows cost more than whole ones (see
    /// [`TensorMapRequest::clip_rows`](crate::gemm::TensorMapRequest)).
    /// 2x1 clusters of the same tiles ran 1-4% behind no cluster.
    fn one_wave(
        bk: u32,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
    ) -> Option<Sm90Pick> {
        let rows = m.div_ceil(128);
        if !facts.one_wave_ok
            || facts.register_store_d
            || k < 1024
            || !(2..=ONE_WAVE_MAX_TILES_M).contains(&rows)
        {
            return None;
        }
        // No batch (L = 0) runs nothing: no pick of its own.
        let per_row = sm_count.checked_div(rows.checked_mul(l)?)?;
        let tile_n = n.div_ceil(per_row.max(1)).next_multiple_of(16);
        if tile_n == 128 || !ONE_WAVE_TILE_N.contains(&tile_n) {
            return None;
        }
        let tiles = u64::from(rows) * u64::from(n.div_ceil(tile_n)) * u64::from(l);
        (tiles <= u64::from(sm_count) && 4 * tiles >= 3 * u64::from(sm_count))
            .then(|| Sm90Pick::cooperative([128, tile_n, bk], [1, 1]))
    }

    /// The cooperative kernel of whole `tile` tiles in a `[cm, cn]` cluster.
    fn cooperative(tile: [u32; 3], cluster: [u32; 2]) -> Sm90Pick {
        Sm90Pick::whole_tiles(KernelSchedule::TmaWarpSpecializedCooperative, tile)
            .in_cluster(cluster)
    }

    /// The cooperative kernel of 256x128 or 128x256 tiles for a problem
    /// `[m, n, l]` (its big-problem pick before the half-depth and 128x224
    /// tiles are weighed): 256x128 tiles in the 2x1 cluster where they take
    /// fewer rounds than 128x256 ones, else 256x128 in a 1x2 cluster where
    /// that takes no more rounds, else 128x256 in a 2x1 cluster.
    fn tall_or_wide(bk: u32, [m, n, l]: [u32; 3], sm_count: u32) -> Sm90Pick {
        let cooperative = Sm90Pick::cooperative;
        let (wide, tall_tile) = (cooperative([128, 256, bk], [2, 1]), [256, 128, bk]);
        let waves_of = |tile, cluster| waves([m, n, l], tile, cluster, sm_count);
        // The same work in 256x128 tiles where that takes fewer waves:
        // 4095x4097 is 32x17 = 544 tiles of 128x256 (5 waves on 132 SMs,
        // the last one a 128x1 sliver wide) but 16x33 = 528 of 256x128
        // (4). Those keep the 2x1 cluster: in a 1x2 one 4095x4097x4093
        // ran at 624 TFLOP/s against 740.
        if waves_of(tall_tile, wide.cluster) < waves_of(wide.tile, wide.cluster) {
            cooperative(tall_tile, wide.cluster.mn())
        } else if waves_of(tall_tile, ClusterShape::new(1, 2)) <= waves_of(wide.tile, wide.cluster)
        {
            // Otherwise cuBLAS's shape, 256x128 in a 1x2 cluster, walked
            // along M (`RasterOrder::Auto`): H100, cutlet / cuBLASLt, bf16
            // 4096³ 0.993-0.994 against 0.988-0.989 for 128x256 2x1,
            // 4096x14336x4096 0.982-0.985 against 0.972-0.980, 8192³
            // 1.019-1.020 against 1.012-1.014.
            cooperative(tall_tile, [1, 2])
        } else {
            wide
        }
    }

    /// The pick for a problem `[m, n, k, l]` of these types and majors, with
    /// swap-AB as asked: [`for_problem`](Self::for_problem), and where
    /// swap-AB is asked for but M is too large for its narrow tiles, the
    /// transposed problem's own pick (with `transposed()`'s facts).
    pub(crate) fn choose(
        types: GemmTypes,
        majors: GemmMajors,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
        transposed: impl FnOnce() -> Sm90PickFacts,
        swap: Option<bool>,
    ) -> Sm90Pick {
        let pick = Sm90Pick::for_problem(types.a, majors.a, [m, n, k, l], sm_count, facts, swap);
        if swap != Some(true) || pick.swap {
            return pick;
        }
        let problem = [n, m, k, l];
        let facts = transposed();
        let pick = Sm90Pick::for_problem(types.b, majors.b, problem, sm_count, facts, Some(false));
        pick.swap_ab()
    }

    /// The pick for a problem `[m, n, k, l]` of A's element type and major
    /// on a GPU of `sm_count` SMs, with what the types and majors allow
    /// ([`Sm90PickFacts`]); `swap`: swap-AB as picked (`None`), never
    /// (`Some(false)`), or wherever M allows a narrow tile (`Some(true)`).
    pub(crate) fn for_problem(
        a: ElementType,
        a_major: OperandMajor,
        [m, n, k, l]: [u32; 4],
        sm_count: u32,
        facts: Sm90PickFacts,
        swap: Option<bool>,
    ) -> Sm90Pick {
        let bk = default_tile_k(a);
        if let Some(pick) = Sm90Pick::gemv(a, [m, n, k, l], sm_count, facts, swap) {
            return pick;
        }
        let wave64 = Sm90Pick::wave64(bk, [m, n, k, l], sm_count, facts);
        if let Some(pick) = wave64.filter(|_| m > 64 && swap != Some(true)) {
            return pick;
        }
        if facts.swap_ok && swap != Some(false) {
            let forced = swap == Some(true);
            if let Some(pick) = Sm90Pick::swapped(bk, [m, n, k, l], sm_count, forced, facts) {
                return pick;
            }
        }
        if facts.split_ok {
            if let Some(pick) = Sm90Pick::outer_split(bk, [m, n, k, l], sm_count, facts) {
                return pick;
            }
            let split = Sm90Pick::split_k(bk, [m, n, k, l], sm_count, facts);
            // The small split yields to 128x128 splits in clusters, which
            // share their loads (512x512x16384: 0.65x in 2 splits of 64x64
            // against 0.85x in 8 clustered ones).
            if split.is_none_or(|split| split.cluster == ClusterShape::ONE) {
                if let Some(pick) = Sm90Pick::small_split(bk, [m, n, k, l], sm_count, facts) {
                    return pick;
                }
            }
            if let Some(pick) = split {
                return pick;
            }
        }
        let cooperative = Sm90Pick::cooperative;
        let wide = cooperative([128, 256, bk], [2, 1]);
        let big_tiles = u64::from(m.div_ceil(128)) * u64::from(n.div_ceil(256)) * u64::from(l);
        // A through registers (tf32, M-major A): where a warpgroup multiplies
        // two 64-row blocks (ping-pong's 128 rows, 256x128 tiles) its loads
        // cost more, so the cooperative 128x256 kernel wherever its tiles fill
        // half the SMs (H100, cutlet / cuBLASLt: 8192x8192x1024 0.94 against
        // ping-pong's 0.90, 2048³ 0.93 against 0.89, 4095x4097x4093 305
        // TFLOP/s against 256x128's 273; 1000³ stays on ping-pong, 1.01
        // against 0.63).
        if crate::collective::reads_a_from_registers(a, a_major) {
            if 2 * big_tiles >= u64::from(sm_count) {
                return wide;
            }
        } else if big_tiles >= 2 * u64::from(sm_count) && k > 1024 {
            // With fewer stages, 256x128 tiles lose (an f32 D's epilogue
            // buffers leave them 3: H100, bf16 in, f32 out, cutlet /
            // cuBLASLt 0.90-0.92 against 128x256 2x1's 0.99-1.03 at 4096³,
            // 8192³ and 4096x14336x4096; tf32 0.94-0.98 against 1.00-1.01).
            // An i32 D: the ping-pong 128x128 kernel in a 1x2 cluster, whose
            // warpgroups take turns so that one's epilogue runs under the
            // other's MMAs. H200, s8 x s8 -> i32, cutlet / cuBLASLt:
            // 4096³ 0.994 against 128x256 2x1's 0.968; 4096x14336x4096
            // 0.953 against 0.941; 8192³ 1.014 against 1.011; 256x128
            // tiles (3 stages) ran 0.83-0.95.
            if facts.integer_d {
                return Sm90Pick::whole_tiles(
                    KernelSchedule::TmaWarpSpecializedPingpong,
                    [128, 128, bk],
                )
                .in_cluster([1, 2]);
            }
            // A D the register-store epilogue writes (an FP8 D, an output
            // scale or amax): ping-pong 128x128 hides it behind the other
            // warpgroup's MMAs. H200, e4m3 in, e4m3 D with scale and amax,
            // fast accumulation, time of the plain bf16-D GEMM over this:
            // 4096³ 0.945 against the cooperative 128x256's 0.820, 8192³
            // 1.006 against 0.903, 4096x14336x4096 0.929 against 0.796.
            if facts.register_store_d {
                return Sm90Pick::whole_tiles(
                    KernelSchedule::TmaWarpSpecializedPingpong,
                    [128, 128, bk],
                );
            }
            if !facts.tall_ok {
                return wide;
            }
            // A short K leaves the cooperative kernel's epilogue exposed:
            // ping-pong hides it (8192x8192x1024 bf16 on the H100: 654
            // TFLOP/s against 622).
            let waves_of = |tile, cluster| waves([m, n, l], tile, cluster, sm_count);
            let big = Sm90Pick::tall_or_wide(bk, [m, n, l], sm_count);
            // 256x160 tiles of half-depth k-tiles (64-byte rows, 7 stages)
            // in a 1x2 cluster where their rounds of tiles take at least
            // 1.5% less time than the pick's (rounds x tile area): at
            // 4096x14336 256x128 tiles make 16 x 112 = 1792 tiles, 13.6
            // rounds of 132 (14), 256x160 ones 16 x 90 = 1440, 10.9 (11),
            // 1.8% less. H100, cutlet / cuBLASLt, bf16 and f16
            // 4096x14336x4096: 1.006-1.007 against 0.986-0.992. (With
            // 128-byte rows they get 3 stages and ran 0.96-0.99; half-depth
            // k-tiles alone ran 0.983 at 4096³ against 0.996.)
            let cost = |p: Sm90Pick| {
                let [tm, tn, _] = p.tile;
                waves_of(p.tile, p.cluster) * u64::from(tm * tn)
            };
            let mut pick = big;
            if facts.deep_ok {
                let deep = cooperative(deep_tile(bk), [1, 2]);
                if cost(deep) * 1000 <= cost(big) * 985 {
                    pick = deep;
                }
            }
            // 128x224 tiles in a 2x1 cluster where their rounds take at
            // least 3% less time than that pick's: at 1024x14336 they make
            // 8 x 64 = 512 tiles, 3.9 rounds of 132 (4 x 128 x 224), the
            // 256x160 ones 3 rounds of 256 x 160, 6.7% more. H200,
            // 2026-11-28, bf16, cutlet / cuBLASLt: 1024x14336x4096 0.966
            // against 0.925, 1024x14336x8192 0.983 against 0.935. Their 4
            // stages (45 KiB a stage) and lower arithmetic intensity (81
            // flops a byte against 98) ask for the margin.
            if facts.row224_ok {
                let row224 = cooperative(row224_tile(bk), [2, 1]);
                if cost(row224) * 1000 <= cost(pick) * 970 {
                    pick = row224;
                }
            }
            return pick;
        }
        // Few tiles and a K too short to split: where 128x128 tiles would
        // fill at most half the SMs, 128x64 ones (twice as many, at most one
        // wave). H200, bf16, cutlet / cuBLASLt, 128x128 against 128x64:
        // 64x1024x1024 0.67 against 0.85, 512x1024x1024 0.70 against 0.90,
        // 1024x1024x1024 0.79 against 0.98, 256x4096x1024 0.83 against 1.03;
        // past half the SMs 128x128 stayed ahead (4096x1024x1024, 256
        // tiles: 0.96 against 0.84).
        if let Some(pick) = wave64 {
            return pick;
        }
        if let Some(pick) = Sm90Pick::one_wave(bk, [m, n, k, l], sm_count, facts) {
            return pick;
        }
        let tiles = u64::from(m.div_ceil(128)) * u64::from(n.div_ceil(128)) * u64::from(l);
        let tile_n = if facts.narrow_ok && 2 * tiles <= u64::from(sm_count) {
            64
        } else {
            128
        };
        // No cluster: at 2048³ bf16 on the H100 a 2x1 cluster ran 454
        // TFLOP/s, none 519.
        let pick = Sm90Pick::whole_tiles(
            KernelSchedule::TmaWarpSpecializedPingpong,
            [128, tile_n, bk],
        );
        // 128x112 tiles where 128x128 ones take at least two rounds and
        // the narrower ones' rounds x tile area come out at least 10% less,
        // with at least two rows of tiles and K past 1024: at 256x14336,
        // 2 x 112 = 224 tiles of 128x128 take 2 rounds of 132, the second
        // 70% full, and 2 x 128 = 256 of 128x112 take 2 as well, 12.5% less
        // area. H200, 2026-11-28, bf16, cutlet / cuBLASLt, two to four
        // rounds against 128x128: 256x14336x4096 0.975-1.005 against
        // 0.92-0.94, 256x14336x8192 1.01-1.03 against 0.93, 256x14336x16384
        // 1.10 against 1.02, 256x10240x4096 0.81 against 0.74,
        // 256x28672x4096 1.07 against 0.99, 384x8192x4096 0.89 against
        // 0.82, 384x14336x8192 0.96 against 0.90, 512x6144x4096 0.87
        // against 0.80, 512x10240x4096 0.95 against 0.88, 512x14336x4096
        // 1.08 against 1.00; 256x14336x1024 a wash (0.91-0.92 against
        // 0.91-0.93). With one row of tiles they lost where the model gave
        // them the same 12.5% (128x14336xK 0.91-0.98 against 0.97-1.00,
        // 128x57344x8192 0.99 against 1.03).
        let row112 = Sm90Pick {
            tile: row112_tile(bk),
            ..pick
        };
        let cost = |p: Sm90Pick| {
            let [tm, tn, _] = p.tile;
            waves([m, n, l], p.tile, p.cluster, sm_count) * u64::from(tm * tn)
        };
        let rounds = waves([m, n, l], pick.tile, pick.cluster, sm_count);
        if facts.row112_ok
            && k > 1024
            && tile_n == 128
            && m.div_ceil(128) >= 2
            && rounds >= 2
            && cost(row112) * 10 <= cost(pick) * 9
        {
            return row112;
        }
        // Between one and two rounds of 128x256 tiles (from two on, the
        // big-problem branch above takes them): the cooperative 256x128 or
        // 128x256 kernel where its rounds x tile area are no more than ping-pong
        // 128x128's, K at least 8192, or 4096 over two rounds. At
        // 2048x4096 the 16 x 32 = 512 tiles of 128x128 take 4 rounds of
        // 132 (4 x 16384 of area), the 8 x 32 = 256 of 256x128 take 2 (2 x
        // 32768): the same, and the cooperative tiles read 25% fewer bytes
        // a flop. H200, 2026-11-29, bf16, cutlet / cuBLASLt, one to two
        // rounds against ping-pong 128x128: 2048x4096x16384 0.993-0.997
        // against 0.966-0.969, 8192x1024x16384 0.990 against 0.967-0.970,
        // 1024x4096x8192 0.994-0.997 against 0.985-0.986, 2048x4096x4096
        // 1.001-1.007 against 0.987-0.996; with one round at K = 4096 a
        // wash (1024x4096x4096 0.988-0.992 against 0.998, 2048x2048x4096
        // 0.990 against 1.000). Where the 128x128 tiles take one round
        // (128 at 512x4096, 64 of 256x128 a round too) the cost keeps
        // ping-pong: 512x4096x16384 0.99 against the cooperative 0.57.
        if facts.deep_ok && !facts.integer_d && !facts.register_store_d && tile_n == 128 {
            let big = Sm90Pick::tall_or_wide(bk, [m, n, l], sm_count);
            let two_rounds = waves([m, n, l], big.tile, big.cluster, sm_count) >= 2;
            if (k >= 8192 || k >= 4096 && two_rounds) && cost(big) <= cost(pick) {
                return big;
            }
        }
        pick
    }
}

/// What the types and majors of a GEMM allow its per-problem pick
/// ([`Sm90Pick::for_problem`]), worked out once from the specs they make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sm90PickFacts {
    /// The cooperative 256x128 kernel keeps as many stages as the 128x256
    /// one (true for a 16-bit D, false for an f32 one).
    pub(crate) tall_ok: bool,
    /// The cooperative 256x160 kernel with half-depth k-tiles (64-byte
    /// rows) in a 1x2 cluster builds, for 16-bit inputs read from shared
    /// memory and a 16-bit D (where 256x128 tiles keep their stages): the
    /// types it was measured with. It needs a K-major B (an N-major B's
    /// TileN is a multiple of 64).
    pub(crate) deep_ok: bool,
    /// The cooperative 128x224 kernel in a 2x1 cluster builds, where
    /// `deep_ok` holds (the types the pick measured it with; a K-major B,
    /// an N-major B's TileN being a multiple of 64).
    pub(crate) row224_ok: bool,
    /// The ping-pong 128x112 kernel builds, where `deep_ok` holds (the
    /// types the pick measured it with; a K-major B).
    pub(crate) row112_ok: bool,
    /// The cooperative kernels of [`Sm90Pick::one_wave`] build without a
    /// cluster (128x80 to 128x224 tiles), where `deep_ok` holds and D is
    /// written by the TMA-store epilogue (the types and outputs it was
    /// measured with).
    pub(crate) one_wave_ok: bool,
    /// The split-K kernel (cooperative 128x128 without a cluster) builds
    /// for these types and majors (f32 accumulation), and reads A from shared memory (split-K with A through registers is
    /// built only when asked for: the pick was measured without it).
    pub(crate) split_ok: bool,
    /// And so does its 8-split form in 2x1 and 1x2 clusters.
    pub(crate) split_cluster_ok: bool,
    /// And its 128x32, 128x48 and 128x64 forms, for 16-bit inputs (the
    /// types [`Sm90Pick::one_row`] was measured with).
    pub(crate) one_row_ok: bool,
    /// Swap-AB's narrow kernels build for the transposed problem: A is
    /// K-major (it becomes the kernel's B, whose narrow TileN must be
    /// K-major) and the cooperative 128x16 kernel and the ping-pong 64x16
    /// one build, and so does the split one (`swap_split_ok`) unless the
    /// inputs are s8/u8 (their swapped problems run whole).
    pub(crate) swap_ok: bool,
    /// And the cooperative 128x16 kernel split along K builds (f32
    /// accumulators: not for s8/u8 inputs, whose swapped problems run
    /// whole).
    pub(crate) swap_split_ok: bool,
    /// And so does the ping-pong 64x16 one split along K, for 16-bit
    /// inputs (the types [`Sm90Pick::swapped`] measured it with).
    pub(crate) swap_pingpong_split_ok: bool,
    /// The ping-pong 128x64 kernel builds, with A read from shared memory
    /// ([`Sm90Pick::for_problem`]'s pick for few tiles and a short K).
    pub(crate) narrow_ok: bool,
    /// The ping-pong 64x64 kernel builds, with A read from shared memory
    /// ([`Sm90Pick::wave64`]).
    pub(crate) square64_ok: bool,
    /// And the ping-pong 64x128 one.
    pub(crate) wide64_ok: bool,
    /// The ping-pong 64x64 kernel split along K builds, unswapped, for
    /// 16-bit inputs read from shared memory (the types
    /// [`Sm90Pick::small_split`] measured it with).
    pub(crate) small_split_ok: bool,
    /// And so do its narrower tiles, 64x16 and 64x32, and 64x16 whole
    /// ([`Sm90Pick::wave64`]'s for N up to 16); a K-major B: an N-major
    /// B's TileN is a multiple of 64.
    pub(crate) small_split_narrow_ok: bool,
    /// The GEMV kernel ([`GemmSpec::gemv`]) builds: K-major A and B of
    /// one 16-bit type or tf32, f32 accumulation, a D the SM80 epilogue
    /// stores (a GEMM whose fused epilogue only the SM90 epilogues read
    /// clears it: [`ProblemPicks`](crate::device::gemm)).
    pub(crate) gemv_ok: bool,
    /// And its narrow form past K = 4 N ([`GEMV_NARROW_TILE_N`] columns,
    /// [`GEMV_NARROW_WARPS`] warps), for 16-bit inputs (the types it was
    /// measured with).
    pub(crate) gemv_narrow_ok: bool,
    /// And its ring form ([`GemmSpec::gemv_ring`], 8 rows, 16 columns,
    /// [`GEMV_RING_UNROLL`] k-steps in flight), for 16-bit inputs (the
    /// types it was measured with).
    pub(crate) gemv_ring_ok: bool,
    /// And the ring form of its narrow form (8 rows, [`GEMV_NARROW_TILE_N`]
    /// columns, [`GEMV_NARROW_WARPS`] warps), for 16-bit inputs.
    pub(crate) gemv_narrow_ring_ok: bool,
    /// D is i32 (the exact sums of s8/u8 inputs): four bytes an element,
    /// as many as A and B bring per element of a square problem's K-tile
    /// pair, so the epilogue is worth hiding behind the other warpgroup's
    /// MMAs (the ping-pong kernel).
    pub(crate) integer_d: bool,
    /// D is written by the register-store epilogue: an e4m3/e5m2 D (which
    /// the TMA-store epilogue does not stage), or an output scale or amax
    /// (set by [`ProblemPicks`](crate::device::gemm) from the fusion); the
    /// ping-pong kernel hides that epilogue.
    pub(crate) register_store_d: bool,
    /// s8/u8 inputs (s32 accumulators): the integer wgmma, whose N is 8,
    /// 16, 24 or a multiple of 16.
    pub(crate) integer_mma: bool,
}

impl Sm90PickFacts {
    /// The facts of these types and majors: the stages of the cooperative
    /// kernels the pick weighs, from their specs. C takes D's type and
    /// major in every SM90 kernel, so `types.c` and `majors.c` are not read.
    pub(crate) fn of(types: GemmTypes, majors: GemmMajors) -> Sm90PickFacts {
        let GemmTypes { a, b, d, acc, .. } = types;
        let a_major = majors.a;
        let bk = default_tile_k(a);
        let spec_of = |schedule, tile, cluster| {
            sm90_spec(
                GemmTypes::new(a, b, d, d, acc),
                GemmMajors::new(a_major, majors.b, majors.d),
                schedule,
                tile,
                cluster,
            )
        };
        let stages = |tile: [u32; 3], cluster: [u32; 2]| {
            spec_of(KernelSchedule::TmaWarpSpecializedCooperative, tile, cluster)
                .map(|spec| spec.mainloop.stages())
        };
        // 256x128 tiles keep the stages of 128x256 ones (the shared memory
        // the epilogue leaves: true for a 16-bit D, false for an f32 one).
        let tall_ok = match (
            stages([256, 128, bk], [1, 2]),
            stages([128, 256, bk], [2, 1]),
        ) {
            (Ok(tall), Ok(wide)) => tall >= wide,
            _ => false,
        };
        let deep_ok = tall_ok
            && a.size_bytes() == 2
            && d.size_bytes() == 2
            && !crate::collective::reads_a_from_registers(a, a_major)
            && stages(deep_tile(bk), [1, 2]).is_ok();
        let row224_ok = deep_ok && stages(row224_tile(bk), [2, 1]).is_ok();
        let row112_ok = deep_ok
            && spec_of(
                KernelSchedule::TmaWarpSpecializedPingpong,
                row112_tile(bk),
                [1, 1],
            )
            .is_ok();
        let one_wave_ok = deep_ok
            && d != ElementType::I32
            && [ONE_WAVE_TILE_N.start(), ONE_WAVE_TILE_N.end()]
                .iter()
                .all(|&&tn| stages([128, tn, bk], [1, 1]).is_ok());
        let split = Sm90Pick::whole_tiles(
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 128, bk],
        )
        .split(2);
        let types = GemmTypes::new(a, b, d, d, acc);
        let pingpong = KernelSchedule::TmaWarpSpecializedPingpong;
        let narrow_builds = |kernels: &[(KernelSchedule, u32, u32)]| {
            a_major == OperandMajor::K
                && kernels.iter().all(|&(schedule, rows, splits)| {
                    let narrow = Sm90Pick {
                        schedule,
                        tile: [rows, 16, bk],
                        splits,
                        swap: true,
                        ..split
                    };
                    narrow.spec(types, majors).is_ok()
                })
        };
        let whole = narrow_builds(&[(split.schedule, 128, 1), (pingpong, 64, 1)]);
        let swap_split_ok = whole && narrow_builds(&[(split.schedule, 128, 2)]);
        let swap_pingpong_split_ok =
            swap_split_ok && a.size_bytes() == 2 && narrow_builds(&[(pingpong, 64, 2)]);
        // Swapped without splits only for s8/u8 inputs, where it was
        // measured (H200, 16x4096x4096 s8: 1.11x cuBLASLt, 0.57x unswapped);
        // other types whose split kernel does not build (f16 accumulators)
        // keep the unswapped pick.
        let swap_ok = swap_split_ok || (whole && acc == ElementType::I32);
        let split_ok = !crate::collective::reads_a_from_registers(a, a_major)
            && split
                .spec(
                    GemmTypes::new(a, b, d, d, acc),
                    GemmMajors::new(a_major, majors.b, majors.d),
                )
                .is_ok();
        // And in clusters of 2 along M and along N (8 splits).
        let split_cluster_ok = split_ok
            && [[2, 1], [1, 2]].iter().all(|&[cm, cn]| {
                split
                    .in_cluster([cm, cn])
                    .split(SPLIT_MAX)
                    .spec(types, GemmMajors::new(a_major, majors.b, majors.d))
                    .is_ok()
            });
        let one_row_ok = split_ok
            && a.size_bytes() == 2
            && ONE_ROW_TILE_N.iter().all(|&bn| {
                let narrow = Sm90Pick {
                    tile: [128, bn, bk],
                    ..split
                };
                narrow
                    .spec(types, GemmMajors::new(a_major, majors.b, majors.d))
                    .is_ok()
            });
        // A ping-pong kernel of `rows` x `cols` tiles builds, A read from shared memory.
        let pingpong_builds = |rows, cols| {
            !crate::collective::reads_a_from_registers(a, a_major)
                && spec_of(pingpong, [rows, cols, bk], [1, 1]).is_ok()
        };
        let narrow_ok = pingpong_builds(128, 64);
        let square64_ok = pingpong_builds(64, 64);
        let wide64_ok = pingpong_builds(64, 128);
        let small_split_builds = |cols| {
            let small = Sm90Pick {
                schedule: pingpong,
                tile: [64, cols, bk],
                ..split
            };
            small.spec(types, majors).is_ok()
        };
        let small_split_ok = split_ok && a.size_bytes() == 2 && small_split_builds(64);
        let small_split_narrow_ok = small_split_ok
            && pingpong_builds(64, 16)
            && SMALL_SPLIT_TILE_N[..2]
                .iter()
                .all(|&cols| small_split_builds(cols));
        // The GEMV pick of `rows` x `cols` blocks on `warps` warps, in its
        // register or ring form, builds (as `Sm90Pick::spec` makes it).
        let gemv_builds = |rows, cols, warps, ring| {
            Sm90Pick::gemv_kernel([rows, cols, bk], warps, ring)
                .spec(types, GemmMajors::new(a_major, majors.b, majors.d))
                .is_ok()
        };
        let gemv_ok = gemv_builds(8, GEMV_TILE_N, GEMV_WARPS, false);
        let gemv_ring_ok =
            gemv_ok && a.size_bytes() == 2 && gemv_builds(8, GEMV_TILE_N, GEMV_WARPS, true);
        let gemv_narrow_ok = gemv_ok
            && a.size_bytes() == 2
            && [8, 16]
                .iter()
                .all(|&rows| gemv_builds(rows, GEMV_NARROW_TILE_N, GEMV_NARROW_WARPS, false));
        let gemv_narrow_ring_ok =
            gemv_narrow_ok && gemv_builds(8, GEMV_NARROW_TILE_N, GEMV_NARROW_WARPS, true);
        Sm90PickFacts {
            tall_ok,
            deep_ok,
            row224_ok,
            row112_ok,
            one_wave_ok,
            split_ok,
            split_cluster_ok,
            one_row_ok,
            swap_ok,
            swap_split_ok,
            swap_pingpong_split_ok,
            narrow_ok,
            square64_ok,
            wide64_ok,
            small_split_ok,
            small_split_narrow_ok,
            gemv_ok,
            gemv_narrow_ok,
            gemv_ring_ok,
            gemv_narrow_ring_ok,
            integer_d: d == ElementType::I32,
            register_store_d: d.size_bits() == 8,
            integer_mma: acc == ElementType::I32,
        }
    }
}

/// The tile of the half-depth cooperative kernel the pick weighs
/// (256x160, TileK half of the 128-byte row's `bk`: 64-byte rows).
const fn deep_tile(bk: u32) -> [u32; 3] {
    [256, 160, bk / 2]
}

/// The tile of the cooperative 128x224 kernel the pick weighs (a 2x1
/// cluster, TileK the 128-byte row's `bk`).
const fn row224_tile(bk: u32) -> [u32; 3] {
    [128, 224, bk]
}

/// The tile of the ping-pong 128x112 kernel the pick weighs (no cluster;
/// the register-store epilogue, 112 not being a multiple of the TMA
/// store's 32-column subtile).
const fn row112_tile(bk: u32) -> [u32; 3] {
    [128, 112, bk]
}

/// How many rounds of tiles the persistent scheduler's grid on `sm_count`
/// SMs takes over a problem `[m, n, l]` in `tile` tiles launched in
/// `cluster` clusters: the tile grid rounded up to whole clusters, over the
/// CTAs of the grid it launches.
fn waves([m, n, l]: [u32; 3], tile: [u32; 3], cluster: ClusterShape, sm_count: u32) -> u64 {
    let [cm, cn] = [cluster.m.max(1), cluster.n.max(1)];
    let (tiles_m, tiles_n) = (m.div_ceil(tile[0].max(1)), n.div_ceil(tile[1].max(1)));
    let scheduler = super::Persistent {
        raster_log: 0,
        cluster: ClusterShape::new(cm, cn),
    };
    let (ctas, ..) =
        super::TileScheduler::grid_on_device(&scheduler, tiles_m, tiles_n, l, sm_count);
    let cluster_tiles =
        u64::from(tiles_m.div_ceil(cm)) * u64::from(tiles_n.div_ceil(cn)) * u64::from(l);
    (cluster_tiles * u64::from(cm * cn)).div_ceil(u64::from(ctas.max(1)))
}

/// Every default SM90 kernel: for each supported type combination (those
/// of [`sm80_default_specs`](super::sm80_default_specs); tf32 with a
/// K-major B, its A K-major or M-major, read through registers),
/// every major of A, B and D, the cooperative 128x256 kernel in a 2x1
/// cluster, the ping-pong 128x128 kernels (1x1 and 2x1 clusters),
/// where A is not read through registers the cooperative 256x128 kernel
/// in a 1x2 cluster ([`sm90_spec_for_problem`]'s pick for large problems),
/// and for 16-bit inputs with a K-major B the cooperative 256x160 kernel
/// of half-depth k-tiles (TileK 32: 64-byte rows) in a 1x2 cluster (its
/// pick where 256x160 tiles take fewer rounds of the GPU) and the
/// cooperative 128x224 kernel in a 2x1 cluster (its pick where 128x224
/// tiles take fewer rounds still) and the ping-pong 128x112 kernel (its
/// pick where 128x128 tiles leave much of their last round idle).
///
/// ```
/// use cutlet::kernel::gemm::sm90_default_specs;
///
/// let specs = sm90_default_specs();
/// // 5 16-bit combinations x 8 majors + tf32 x 2 majors of A x 2 of D, 3 kernels
/// // each, 256x128 1x2 for all but the 2 tf32 kernels with an M-major A, and
/// // 256x160x32 1x2 for the 16-bit combinations with a K-major B (2 majors of
/// // A x 2 of D), and so for 128x224x64 2x1 and ping-pong 128x112x64.
/// assert_eq!(specs.len(), 3 * (5 * 8 + 4) + (5 * 8 + 2) + 5 * 4 + 5 * 4 + 5 * 4);
/// assert!(specs.iter().any(|s| s.tile == [128, 112, 64]));
/// assert!(specs.iter().any(|s| s.tile == [256, 160, 32] && s.mainloop.stages() == 7));
/// assert!(specs.iter().any(|s| s.tile == [128, 224, 64] && s.mainloop.stages() == 4));
/// ```
pub fn sm90_default_specs() -> Vec<GemmSpec> {
    let majors = [OperandMajor::K, OperandMajor::MN];
    let mut specs = Vec::new();
    for (ab, d, acc) in super::builder::DEFAULT_TYPES {
        for a_major in majors {
            for b_major in majors {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    let bk = default_tile_k(ab);
                    for (schedule, tile, cluster) in [
                        (
                            KernelSchedule::TmaWarpSpecializedCooperative,
                            [128, 256, bk],
                            [2, 1],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedPingpong,
                            [128, 128, bk],
                            [1, 1],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedPingpong,
                            [128, 128, bk],
                            [2, 1],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedCooperative,
                            [256, 128, bk],
                            [1, 2],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedCooperative,
                            deep_tile(bk),
                            [1, 2],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedCooperative,
                            row224_tile(bk),
                            [2, 1],
                        ),
                        (
                            KernelSchedule::TmaWarpSpecializedPingpong,
                            row112_tile(bk),
                            [1, 1],
                        ),
                    ] {
                        if tile[0] == 256 && crate::collective::reads_a_from_registers(ab, a_major)
                        {
                            continue;
                        }
                        // Half-depth k-tiles, 224 and 112 columns: the
                        // pick's, for 16-bit inputs.
                        if (tile[2] != bk || matches!(tile[1], 224 | 112)) && ab.size_bytes() != 2 {
                            continue;
                        }
                        if let Ok(spec) = sm90_spec(
                            GemmTypes::new(ab, ab, d, d, acc),
                            GemmMajors::new(a_major, b_major, d_major),
                            schedule,
                            tile,
                            cluster,
                        ) {
                            specs.push(spec);
                        }
                    }
                }
            }
        }
    }
    specs
}

impl GemmSpec {
    /// This SM90 spec for an `m x n` output: with the register-store
    /// epilogue where its TMA-store epilogue cannot write D's rows exactly,
    /// else unchanged. A row-major D's TMA store covers each row's whole
    /// 16-byte chunks and the epilogue writes the rest of the row itself,
    /// so it takes any N of at least one chunk (8 16-bit or 4 f32
    /// elements); a column-major D's M must be whole chunks
    /// ([`tma_store_rows_exact`](crate::gemm::tma_store_rows_exact)).
    ///
    /// ```
    /// use cutlet::collective::EpiloguePolicy;
    /// use cutlet::kernel::gemm::{sm90_default_spec, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm90_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// assert_eq!(spec.clone().with_epilogue_for_output(4095, 4097).unwrap(), spec);
    /// let narrow = spec.clone().with_epilogue_for_output(4095, 7).unwrap();
    /// assert_eq!(narrow.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    /// let column_major = sm90_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::M).unwrap();
    /// let ragged = column_major.with_epilogue_for_output(4095, 4096).unwrap();
    /// assert_eq!(ragged.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule.
    pub fn with_epilogue_for_output(self, m: u32, n: u32) -> crate::Result<GemmSpec> {
        let contiguous = match self.majors.d {
            OutputMajor::N => n,
            OutputMajor::M => m,
        };
        let fits = crate::gemm::tma_store_takes(
            self.types.d,
            u64::from(contiguous),
            crate::gemm::stores_whole_chunks(self.majors.d),
        );
        if self.epilogue.policy == EpiloguePolicy::Sm90TmaWarpSpecialized && !fits {
            return self.with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem);
        }
        Ok(self)
    }

    /// The SM90 kernel that runs in this one's place while this one
    /// compiles: the cooperative schedule with 128x128 tiles (the same BK)
    /// and no cluster, with the same types, majors, epilogue and fusion,
    /// its stages recounted. Each consumer thread keeps 64 accumulators
    /// rather than 128, which roughly halves the driver's compile (H100,
    /// bf16: 150-158 ms against 268-399 ms for the cooperative 128x256
    /// kernel and 303-349 ms for ping-pong 128x128), and it runs within a
    /// few percent of them (0.95 of cuBLASLt at bf16 4096³). Every SM90
    /// kernel adds the same products in the same order for each element of
    /// D and ends with the same epilogue, so both write the same bits.
    ///
    /// `None` for a spec that is not SM90, whose consumer threads keep
    /// no more than 64 accumulators already (nothing to gain), or whose
    /// scheduler splits K (split-K, stream-K): its workspace is laid out
    /// by its tile (a record per tile, a slot of the tile's size per
    /// split), and a stand-in of other tiles would find its flags where the
    /// first kernel left partial tiles, and reach past the bytes sized for
    /// it.
    ///
    /// ```
    /// use cutlet::kernel::gemm::{sm90_default_spec, KernelSchedule, OperandMajor, OutputMajor, TileSchedulerPolicy};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm90_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// let stand_in = spec.sm90_stand_in().unwrap();
    /// assert_eq!((stand_in.tile, stand_in.cluster.mnk()), ([128, 128, 64], [1, 1, 1]));
    /// assert_eq!(stand_in.schedule, KernelSchedule::TmaWarpSpecializedCooperative);
    /// assert_eq!((stand_in.types, stand_in.majors, stand_in.epilogue.policy), (spec.types, spec.majors, spec.epilogue.policy));
    /// assert!(stand_in.sm90_stand_in().is_none());
    /// // Split-K's kernel compiles once, at the full level.
    /// let mut split_k = spec.clone();
    /// split_k.scheduler = TileSchedulerPolicy::SplitK { splits: 8 };
    /// assert!(split_k.sm90_stand_in().is_none());
    /// ```
    pub fn sm90_stand_in(&self) -> Option<GemmSpec> {
        if self.arch != ArchKind::Sm90
            || matches!(
                self.scheduler,
                TileSchedulerPolicy::SplitK { .. } | TileSchedulerPolicy::StreamK
            )
        {
            return None;
        }
        // Accumulators a consumer thread keeps: its warpgroup's share of the
        // tile over 128 threads (half the tile's rows when cooperative).
        let rows = match self.schedule {
            KernelSchedule::TmaWarpSpecializedPingpong => self.tile[0],
            _ => self.tile[0] / 2,
        };
        if rows * self.tile[1] / 128 <= 64 {
            return None;
        }
        let mut stand_in = self.clone();
        stand_in.schedule = KernelSchedule::TmaWarpSpecializedCooperative;
        stand_in.tile = [128, 128, self.tile[2]];
        stand_in.cluster = ClusterShape::ONE;
        stand_in.with_sm90_epilogue(self.epilogue.policy).ok()
    }

    /// The epilogue of a kernel whose scheduler splits K (split-K,
    /// stream-K): the TMA-store one where the tile is at most 128x128,
    /// else the register-store one; its stages recounted (at most 8, as
    /// for every kernel but the ping-pong one of whole tiles or of K in 2
    /// splits of narrow tiles). A larger tile's accumulators (128 a
    /// thread), the TMA store of C's subtiles and the reduction's loads
    /// spill (ptxas: 128x256 split-K 2 with C read, 8 spill stores). H100,
    /// 1536x1408x4096 as one wave of 128x128 tiles: the TMA store 32.1 µs,
    /// the register store 34.8 (a warp's store of 16 bytes a row leaves
    /// half of every sector unwritten).
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule.
    pub fn with_k_splitting_epilogue(self) -> crate::Result<GemmSpec> {
        let [bm, bn, _] = self.tile;
        let policy = match self.epilogue.policy {
            EpiloguePolicy::Sm90TmaWarpSpecialized if bm * bn > 128 * 128 => {
                EpiloguePolicy::Sm90NoSmem
            }
            policy => policy,
        };
        // Recounted: a split ping-pong kernel keeps at most 8 stages,
        // unless it splits K in 2 with narrow tiles
        // (MAX_SM90_DEEP_SPLIT_TILE_N).
        self.with_sm90_epilogue(policy)
    }

    /// This spec with the fused epilogue `fusion`; an SM90 spec with the
    /// TMA-store epilogue takes the register-store one where the fusion has
    /// an output scale or amax ([`OutputQuantization`](crate::gemm::OutputQuantization),
    /// which the register-store epilogue applies).
    ///
    /// ```
    /// use cutlet::collective::EpiloguePolicy;
    /// use cutlet::kernel::gemm::{sm90_default_spec, Epilogue, OperandMajor, OutputMajor, OutputQuantization};
    /// use cutlet::numeric::ElementType::{BF16, F32, F8E4M3};
    ///
    /// let spec = sm90_default_spec(F8E4M3, F8E4M3, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90TmaWarpSpecialized);
    /// let amax = Epilogue::linear_combination().with_output(OutputQuantization { d_scale: false, d_amax: true });
    /// let spec = spec.with_fusion(amax).unwrap();
    /// assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule.
    pub fn with_fusion(mut self, fusion: crate::gemm::Epilogue) -> crate::Result<GemmSpec> {
        let quantized = fusion.output() != crate::gemm::OutputQuantization::default();
        self.epilogue.fusion = fusion;
        if quantized && self.epilogue.policy == EpiloguePolicy::Sm90TmaWarpSpecialized {
            return self.with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem);
        }
        Ok(self)
    }

    /// This SM90 spec with epilogue `policy`
    /// ([`EpiloguePolicy::Sm90TmaWarpSpecialized`] or
    /// [`EpiloguePolicy::Sm90NoSmem`]), its stages recounted for the
    /// shared memory the epilogue leaves.
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::collective::EpiloguePolicy;
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let tma = sm90_spec(
    ///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
    ///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
    ///     KernelSchedule::TmaWarpSpecializedPingpong, [128, 128, 64], [1, 1],
    /// ).unwrap();
    /// let direct = tma.clone().with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem).unwrap();
    /// assert!(direct.mainloop.stages() > tma.mainloop.stages());
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule.
    pub fn with_sm90_epilogue(mut self, policy: EpiloguePolicy) -> crate::Result<GemmSpec> {
        self.epilogue.policy = policy;
        let limit = self.arch.max_dynamic_shared_bytes();
        let most = match (self.schedule, self.scheduler) {
            (KernelSchedule::TmaWarpSpecializedPingpong, TileSchedulerPolicy::Persistent) => {
                MAX_SM90_PINGPONG_STAGES
            }
            (
                KernelSchedule::TmaWarpSpecializedPingpong,
                TileSchedulerPolicy::SplitK { splits: 2 },
            ) if self.tile[1] <= MAX_SM90_DEEP_SPLIT_TILE_N => MAX_SM90_PINGPONG_STAGES,
            _ => MAX_SM90_STAGES,
        };
        let mut stages = 2;
        while stages < most && {
            self.set_stages(stages + 1);
            self.shared_mem_bytes() <= limit
        } {
            stages += 1;
        }
        self.set_stages(stages);
        self.validate()?;
        Ok(self)
    }

    /// This SM90 spec of e4m3/e5m2 inputs with the FP8 mainloop
    /// ([`MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8`]), promoting its
    /// partial sums every `interval` wgmma k-steps; its stages stay.
    ///
    /// ```
    /// use cutlet::collective::MainloopPolicy;
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32, F8E4M3};
    ///
    /// let spec = |tile| sm90_spec(
    ///     GemmTypes::new(F8E4M3, F8E4M3, BF16, BF16, F32),
    ///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
    ///     KernelSchedule::TmaWarpSpecializedCooperative, tile, [2, 1],
    /// ).unwrap();
    /// let promoting = spec([128, 128, 128]).with_fp8_promotion(4).unwrap();
    /// assert!(matches!(promoting.mainloop.policy, MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { promotion_interval: 4, .. }));
    /// // Each consumer of a 128 x 256 tile holds 128 accumulators: two sets do not fit.
    /// assert!(spec([128, 256, 128]).with_fp8_promotion(4).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the broken rule
    /// (inputs that are not e4m3/e5m2, an interval that is not whole
    /// k-tiles, a tile with no room for the second accumulator set).
    pub fn with_fp8_promotion(mut self, interval: u32) -> crate::Result<GemmSpec> {
        self.mainloop.policy = MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
            stages: self.mainloop.stages(),
            promotion_interval: interval,
        };
        self.validate()?;
        Ok(self)
    }
}
