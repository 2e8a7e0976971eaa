//! Split-K with the splits as the outer order of the units (`SplitK`'s
//! interleave: no cluster, tiles at least two deep along M and N, at least
//! `SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT` k-tiles a split), on an H100/H200:
//! ragged M, N and K over three batches, the spread reduction of 8 splits
//! of 128x128 tiles, and the ping-pong kernel's 64x128 tiles (its two
//! warpgroups on units of their own), each exact against the host (small integers,
//! an f32 D: every order of the sums gives the same bits), run twice on one
//! workspace (a finisher that left its record dirty fails the second run),
//! D poisoned first.

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{Arguments, Decomposition, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::gemm::ClusterShape;
use cutlet::kernel::gemm::{KernelSchedule, OperandMajor, OutputMajor, SplitK, WalkLaunch};
use cutlet::numeric::ElementType;
use cutlet_harness::sm90_or_skip;
use half::bf16;

mod common;
use common::exact::{integers, wrong_products};

/// Runs `m x n x k` over `l` batches (K-major A and B, row-major f32 D) on
/// the `schedule` kernel of `tile` tiles in `splits` splits without a
/// cluster, twice, and checks every element of D against the host's exact
/// sums; first checks that the launch takes the splits outer.
fn check_outer(
    test: &str,
    [m, n, k, l]: [usize; 4],
    schedule: KernelSchedule,
    tile: [u32; 3],
    splits: u32,
) {
    let Some(device) = sm90_or_skip(test, "split-K's kernels") else {
        return;
    };
    let scheduler = SplitK {
        splits,
        raster_log: 3,
        tile: [tile[0], tile[1]],
        cluster: ClusterShape::ONE,
    };
    let walk =
        WalkLaunch::of([m as u32, n as u32], [tile[0], tile[1]], [3, 0]).with_k(k as u32, tile[2]);
    assert_eq!(
        scheduler.interleave(&walk),
        walk.tiles_m * walk.tiles_n,
        "{test}: the launch should take the splits outer"
    );
    let stream = device.default_stream();
    // Integers in -2..=2: every sum is exact in f32 and f64, in any order.
    let (a, b) = (integers(1, l * m * k, 2), integers(2, l * n * k, 2));
    let to_bf16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
    let da: CudaSlice<bf16> = stream.clone_htod(&to_bf16(&a)).unwrap();
    let db: CudaSlice<bf16> = stream.clone_htod(&to_bf16(&b)).unwrap();
    let dc: CudaSlice<f32> = stream.alloc_zeros(l * m * n).unwrap();
    let mut dd: CudaSlice<f32> = stream.clone_htod(&vec![f32::NAN; l * m * n]).unwrap();
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .schedule(schedule)
        .tile(tile)
        .cluster([1, 1])
        .decomposition(Decomposition::SplitK(splits))
        .build(&device)
        .unwrap();
    let mut args = Arguments::new(
        GemmShape::new(m, n, k, l),
        Operand::new(da.as_view(), k, m * k),
        Operand::new(db.as_view(), k, n * k),
        Operand::new(dc.as_view(), n, m * n),
        OutputOperand::new(dd.as_view_mut(), n, m * n),
        1.0,
        0.0,
    );
    let name = gemm.spec_for(&args).kernel_name();
    let part = format!("_{}x{}x{}_", tile[0], tile[1], tile[2]);
    assert!(
        name.contains(&part)
            && name.contains("_c1x1_")
            && name.ends_with(&format!("_splitk{splits}")),
        "{test}: ran {name}"
    );
    for _ in 0..2 {
        gemm.run(&mut args, &stream).unwrap();
    }
    drop(args);
    let got = stream.clone_dtoh(&dd).unwrap();
    let wrong = wrong_products(test, [m, n, k, l], &a, &b, &got);
    assert_eq!(wrong, 0, "{test} ({name}): {wrong} elements wrong");
}

/// 128x64 tiles in 2 splits over 3 batches of 300 x 200 x 8232: 3 x 4
/// tiles a batch, 129 k-tiles (64 and 65 a split), the last tile along M
/// and N partial, and units of one split running across the batches.
#[test]
fn ragged_batched_splits_outer_match_the_host() {
    check_outer(
        "ragged_batched_splits_outer_match_the_host",
        [300, 200, 8232, 3],
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 64, 64],
        2,
    );
}

/// 128x128 tiles in 8 splits of 256 x 256 x 32808 (2 x 2 tiles, 513
/// k-tiles): the reduction spread over the splits, every unit of the walk
/// at once (32 blocks).
#[test]
fn spread_reduction_with_the_splits_outer_matches_the_host() {
    check_outer(
        "spread_reduction_with_the_splits_outer_matches_the_host",
        [256, 256, 32808, 1],
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 128, 64],
        8,
    );
}

/// Ping-pong 64x128 tiles in 2 splits over two batches of 100 x 600 x
/// 8232 (2 x 5 tiles a batch, the second row and the last column partial):
/// the two warpgroups take units of their own.
#[test]
fn ping_pong_splits_outer_match_the_host() {
    check_outer(
        "ping_pong_splits_outer_match_the_host",
        [100, 600, 8232, 2],
        KernelSchedule::TmaWarpSpecializedPingpong,
        [64, 128, 64],
        2,
    );
}
