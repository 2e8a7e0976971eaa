//! Where the SM90 pick takes the GEMV kernel (`sm90_pick_for_problem`, no
//! GPU needed): M up to 16 with K-major A and B of a 16-bit type or tf32,
//! B up to 4096 x 4096 elements and K at most 4 N (past it, a 16-bit B up
//! to K = 4096 in 8-column blocks), swap-AB not forced; 8-row tiles up to
//! M = 8, 16 above; 8-row tiles of a 16-bit type with K of 4096 and more
//! stage their k-steps in a shared-memory ring (`_gemv_ring`), which past
//! K = 4 N also takes K up to 16384 (8-column blocks up to N = 512,
//! 16-column past it, those up to K = 8192 beyond 4 rows); 16-row tiles
//! give way to swap-AB's 64-row split tiles where K has 64 k-tiles or more
//! and those tiles make at most a quarter of a wave; from 5 rows, a K of at
//! most 2048 over at least 4096 x 2048 elements of B (16-bit) gives way to
//! swap-AB's whole 64-row tiles where those make at most one wave.

use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{sm90_pick_for_problem, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, F8E4M3, TF32};

fn picks_gemv(
    (a, d): (ElementType, ElementType),
    (a_major, b_major): (OperandMajor, OperandMajor),
    [m, n, k]: [u32; 3],
    swap: Option<bool>,
) -> Option<[u32; 3]> {
    let types = GemmTypes::new(a, a, d, d, F32);
    let majors = GemmMajors::new(a_major, b_major, OutputMajor::N);
    let (spec, swapped) = sm90_pick_for_problem(types, majors, [m, n, k, 1], 132, swap).unwrap();
    let name = spec.kernel_name();
    (name.ends_with("_gemv") || name.ends_with("_gemv_ring")).then(|| {
        assert!(!swapped, "{}", spec.kernel_name());
        spec.tile
    })
}

const KK: (OperandMajor, OperandMajor) = (OperandMajor::K, OperandMajor::K);

#[test]
fn a_few_rows_of_k_major_operands_take_the_gemv_kernel() {
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [1, 4096, 4096], None),
        Some([8, 16, 32])
    );
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [8, 4096, 4096], None),
        Some([8, 16, 32])
    );
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [9, 4096, 4096], None),
        Some([16, 16, 32])
    );
    assert_eq!(
        picks_gemv((F16, F32), KK, [16, 1024, 1024], None),
        Some([16, 16, 32])
    );
    // 16 rows with K of 4096 and more (at most 4 N) where swap-AB's 64-row
    // tiles make at most a quarter of a wave: those, in splits.
    assert_eq!(picks_gemv((F16, F32), KK, [16, 1024, 4096], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [12, 2048, 8192], None), None);
    // Not where swap-AB is turned off.
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [16, 2048, 8192], Some(false)),
        Some([16, 16, 32])
    );
    // From 5 rows, K up to 2048 over at least 4096 x 2048 elements of a
    // 16-bit B, where swap-AB's whole 64-row tiles make at most one wave
    // (N up to 8448 on 132 SMs): those.
    for shape in [
        [16, 8192, 1024],
        [5, 4096, 2048],
        [8, 8192, 2048],
        [12, 8448, 1000],
    ] {
        assert_eq!(picks_gemv((BF16, BF16), KK, shape, None), None, "{shape:?}");
    }
    // Not with 4 rows, half that B, K past 2048, more than a wave of
    // tiles, tf32 or swap-AB turned off.
    let held = [
        ((BF16, BF16), [4, 8192, 2048], None, [8, 16, 32]),
        ((BF16, BF16), [16, 4096, 1024], None, [16, 16, 32]),
        ((BF16, BF16), [8, 4096, 4096], None, [8, 16, 32]),
        ((BF16, BF16), [16, 14336, 1024], None, [16, 16, 32]),
        ((TF32, F32), [16, 8192, 1024], None, [16, 16, 16]),
        ((BF16, BF16), [16, 8192, 1024], Some(false), [16, 16, 32]),
    ];
    for (types, shape, swap, tile) in held {
        assert_eq!(
            picks_gemv(types, KK, shape, swap),
            Some(tile),
            "{types:?} {shape:?}"
        );
    }
    assert_eq!(
        picks_gemv((TF32, F32), KK, [4, 4096, 1024], None),
        Some([8, 16, 16])
    );
    // Past K = 4 N, a narrow 16-bit B up to K = 4096: 8 columns a block
    // (and 16 warps slicing K).
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [8, 16, 4096], None),
        Some([8, 8, 32])
    );
    assert_eq!(
        picks_gemv((F16, F16), KK, [16, 512, 4096], None),
        Some([16, 8, 32])
    );
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [1, 16, 1024], None),
        Some([8, 8, 32])
    );
    // swap_ab(false) does not turn it off: the GEMV kernel does not swap.
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [1, 4096, 4096], Some(false)),
        Some([8, 16, 32])
    );
}

/// The kernel name of the problem's pick (bf16, K-major A and B).
fn pick_name([m, n, k]: [u32; 3]) -> String {
    let types = GemmTypes::new(BF16, BF16, BF16, BF16, F32);
    let majors = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
    let (spec, _) = sm90_pick_for_problem(types, majors, [m, n, k, 1], 132, None).unwrap();
    spec.kernel_name()
}

#[test]
fn eight_rows_over_a_long_k_stage_their_k_steps_in_a_ring() {
    for shape in [[1, 4096, 4096], [8, 1024, 4096], [2, 2048, 8192]] {
        let name = pick_name(shape);
        assert!(name.ends_with("_w1x1x8_s8_gemv_ring"), "{shape:?}: {name}");
    }
    // Past K = 4 N: the narrow form's ring (K = 4096), and up to
    // K = 16384 the ring in 8-column blocks up to N = 512, 16-column ones
    // past it.
    for shape in [
        [8, 128, 4096],
        [8, 16, 4096],
        [1, 1, 4096],
        [3, 1000, 4096],
        [1, 512, 8192],
        [8, 256, 6000],
        [8, 127, 8192],
        [8, 100, 16384],
        [2, 512, 16384],
    ] {
        let name = pick_name(shape);
        assert!(name.contains("_8x8x32_"), "{shape:?}: {name}");
        assert!(name.ends_with("_w1x1x16_s8_gemv_ring"), "{shape:?}: {name}");
    }
    for shape in [
        [4, 1024, 8192],
        [8, 2000, 8192],
        [1, 513, 4100],
        [4, 1024, 16384],
        [1, 600, 12000],
    ] {
        let name = pick_name(shape);
        assert!(name.contains("_8x16x32_"), "{shape:?}: {name}");
        assert!(name.ends_with("_w1x1x8_s8_gemv_ring"), "{shape:?}: {name}");
    }
    // 16 rows, K = 1024, the narrow form with 16 rows, tf32: the
    // registers.
    for shape in [[9, 4096, 4096], [1, 4096, 1024], [16, 256, 4096]] {
        let name = pick_name(shape);
        assert!(name.ends_with("_gemv"), "{shape:?}: {name}");
    }
    let types = GemmTypes::new(TF32, TF32, F32, F32, F32);
    let majors = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
    let (tf32, _) = sm90_pick_for_problem(types, majors, [1, 4096, 4096, 1], 132, None).unwrap();
    assert!(
        tf32.kernel_name().ends_with("_gemv"),
        "{}",
        tf32.kernel_name()
    );
}

#[test]
fn past_its_bounds_the_pick_is_another_kernel() {
    // 17 rows; more than 4096 x 4096 elements of B; K over 4 N and over
    // 4096 with 16 rows; tf32 past K = 4 N.
    assert_eq!(picks_gemv((BF16, BF16), KK, [17, 4096, 4096], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [1, 4096, 4104], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [1, 8192, 8192], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [1, 1024, 16400], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [16, 16, 4104], None), None);
    // The ring past K = 4096 beyond K = 4 N: not past K = 16384 or with
    // 16 rows; in 16-column blocks not past K = 8192 beyond 4 rows.
    assert_eq!(picks_gemv((BF16, BF16), KK, [1, 512, 16400], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [9, 512, 8192], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [5, 1024, 8200], None), None);
    assert_eq!(picks_gemv((BF16, BF16), KK, [8, 1024, 16384], None), None);
    assert_eq!(picks_gemv((TF32, F32), KK, [4, 64, 1024], None), None);
    // Swap-AB forced; an M-major A or an N-major B; 8-bit inputs.
    assert_eq!(
        picks_gemv((BF16, BF16), KK, [1, 4096, 4096], Some(true)),
        None
    );
    let mn_a = (OperandMajor::MN, OperandMajor::K);
    assert_eq!(picks_gemv((BF16, BF16), mn_a, [1, 4096, 4096], None), None);
    let mn_b = (OperandMajor::K, OperandMajor::MN);
    assert_eq!(picks_gemv((BF16, BF16), mn_b, [1, 4096, 4096], None), None);
    assert_eq!(picks_gemv((F8E4M3, BF16), KK, [1, 4096, 4096], None), None);
}
