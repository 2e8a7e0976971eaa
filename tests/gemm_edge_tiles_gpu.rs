//! The last tiles along M and N load their rows through maps of their own
//! (`TensorMapRequest::clip_rows`: boxes that stop at the operand's rows,
//! the rest of the stage left as it was), on an H100/H200: partial last rows
//! and columns of tiles on the cooperative and ping-pong kernels, in 2x1
//! and 1x2 clusters (one operand clipped, the multicast one whole), split
//! along K, and swap-AB's narrow tiles over a few rows. Each is exact
//! against the host (small integers, an f32 D: every order of the sums
//! gives the same bits), D poisoned first, and the elements after D's last
//! left untouched.

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{Arguments, Decomposition, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::gemm::GemmOperand;
use cutlet::kernel::gemm::{KernelSchedule, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::sm90_or_skip;
use half::bf16;

mod common;
use common::exact::{integers, wrong_products};

/// The kernel to pin: its schedule, tile, cluster, splits (1: whole tiles)
/// and whether it runs the problem swapped; and the operands whose last
/// tile must load through an edge map.
struct Pinned {
    schedule: KernelSchedule,
    tile: [u32; 3],
    cluster: [u32; 2],
    splits: u32,
    swap: bool,
    edges: &'static [GemmOperand],
}

impl Pinned {
    /// The cooperative kernel of `tile` tiles in a `cluster`, in `splits`.
    const fn cooperative(
        tile: [u32; 3],
        cluster: [u32; 2],
        splits: u32,
        edges: &'static [GemmOperand],
    ) -> Pinned {
        Pinned {
            schedule: KernelSchedule::TmaWarpSpecializedCooperative,
            tile,
            cluster,
            splits,
            swap: false,
            edges,
        }
    }

    /// The ping-pong kernel of whole `tile` tiles without a cluster,
    /// swapped or not; both operands' last tiles clipped.
    const fn ping_pong(tile: [u32; 3], swap: bool) -> Pinned {
        Pinned {
            schedule: KernelSchedule::TmaWarpSpecializedPingpong,
            tile,
            cluster: [1, 1],
            splits: 1,
            swap,
            edges: A_AND_B,
        }
    }
}

/// Elements after D's last that must keep their value.
const GUARD: usize = 4096;

/// Runs `m x n x k` over `l` batches (K-major A and B, row-major f32 D) on
/// the `pinned` kernel and checks every element of D against the host's
/// exact sums, and the guard after D.
fn check(test: &str, [m, n, k, l]: [usize; 4], pinned: Pinned) {
    let Some(device) = sm90_or_skip(test, "the SM90 kernels' edge maps") else {
        return;
    };
    let stream = device.default_stream();
    // Integers in -2..=2: every sum is exact in f32 and f64, in any order.
    let (a, b) = (integers(11, l * m * k, 2), integers(12, l * n * k, 2));
    let to_bf16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
    let da: CudaSlice<bf16> = stream.clone_htod(&to_bf16(&a)).unwrap();
    let db: CudaSlice<bf16> = stream.clone_htod(&to_bf16(&b)).unwrap();
    let dc: CudaSlice<f32> = stream.alloc_zeros(l * m * n).unwrap();
    let sentinel = 12345.0f32;
    let mut poisoned = vec![f32::NAN; l * m * n];
    poisoned.extend(std::iter::repeat_n(sentinel, GUARD));
    let mut dd: CudaSlice<f32> = stream.clone_htod(&poisoned).unwrap();
    let decomposition = match pinned.splits {
        1 => Decomposition::DataParallel,
        splits => Decomposition::SplitK(splits),
    };
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .schedule(pinned.schedule)
        .tile(pinned.tile)
        .cluster(pinned.cluster)
        .decomposition(decomposition)
        .swap_ab(pinned.swap)
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
    let spec = gemm.spec_for(&args);
    let name = spec.kernel_name();
    let [tm, tn, tk] = pinned.tile;
    assert!(
        name.contains(&format!("_{tm}x{tn}x{tk}_")),
        "{test}: ran {name}"
    );
    let edges: Vec<GemmOperand> = spec
        .kernel()
        .unwrap()
        .tensor_maps()
        .iter()
        .filter(|request| request.clip_rows)
        .map(|request| request.operand)
        .collect();
    assert_eq!(
        edges, pinned.edges,
        "{test} ({name}): the operands with edge maps"
    );
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&dd).unwrap();
    let wrong = wrong_products(test, [m, n, k, l], &a, &b, &got);
    assert_eq!(wrong, 0, "{test} ({name}): {wrong} elements wrong");
    let guard = &got[l * m * n..];
    assert!(
        guard.iter().all(|&x| x == sentinel),
        "{test} ({name}): an element after D's last was written"
    );
}

const A_AND_B: &[GemmOperand] = &[GemmOperand::A, GemmOperand::B];

/// Cooperative 128x128 tiles over two batches of 160 x 300 x 1000: the
/// second row of tiles holds 32 rows of A, the third column 44 rows of B
/// (a 48-row box), K ragged.
#[test]
fn cooperative_partial_row_and_column_match_the_host() {
    check(
        "cooperative_partial_row_and_column_match_the_host",
        [160, 300, 1000, 2],
        Pinned::cooperative([128, 128, 64], [1, 1], 1, A_AND_B),
    );
}

/// Ping-pong 64x128 tiles over 129 x 200 x 520 (K ragged against 64):
/// the third row of 64-row tiles holds one row of A (an 8-row box).
#[test]
fn ping_pong_one_row_past_the_tiles_matches_the_host() {
    check(
        "ping_pong_one_row_past_the_tiles_matches_the_host",
        [129, 200, 520, 1],
        Pinned::ping_pong([64, 128, 64], false),
    );
}

/// Cooperative 128x224 tiles (the one-wave pick's) over 200 x 500 x 776.
#[test]
fn wide_tiles_partial_row_and_column_match_the_host() {
    check(
        "wide_tiles_partial_row_and_column_match_the_host",
        [200, 500, 776, 1],
        Pinned::cooperative([128, 224, 64], [1, 1], 1, A_AND_B),
    );
}

/// 2x1 clusters over 300 x 260 x 640: A's last row clipped; B, which the
/// pair multicasts in halves, loads whole boxes.
#[test]
fn clusters_along_m_clip_a_alone() {
    check(
        "clusters_along_m_clip_a_alone",
        [300, 260, 640, 1],
        Pinned::cooperative([128, 128, 64], [2, 1], 1, &[GemmOperand::A]),
    );
}

/// 1x2 clusters over 300 x 260 x 640: B's last column clipped, A whole.
#[test]
fn clusters_along_n_clip_b_alone() {
    check(
        "clusters_along_n_clip_b_alone",
        [300, 260, 640, 1],
        Pinned::cooperative([128, 128, 64], [1, 2], 1, &[GemmOperand::B]),
    );
}

/// 128x64 tiles in 3 splits over 170 x 130 x 3000: the partial tiles'
/// partial sums through the workspace.
#[test]
fn split_k_partial_row_and_column_match_the_host() {
    check(
        "split_k_partial_row_and_column_match_the_host",
        [170, 130, 3000, 1],
        Pinned::cooperative([128, 64, 64], [1, 1], 3, A_AND_B),
    );
}

/// Swap-AB's ping-pong 64x16 tiles over 5 x 1000 x 2048: the kernel's B
/// is A's 5 rows (an 8-row box), its A the 1000 rows of B (the last of 16
/// tiles holding 40).
#[test]
fn swapped_narrow_tiles_match_the_host() {
    check(
        "swapped_narrow_tiles_match_the_host",
        [5, 1000, 2048, 1],
        Pinned::ping_pong([64, 16, 64], true),
    );
}
