//! Tiled copies the SM80 collective uses: cp.async 16-byte global-to-shared
//! copies of bf16 tiles (K-major and MN-major, 128 and 256 threads) and the
//! ldmatrix shared-to-register copies of the tiled MMAs' A and B fragments.

use std::collections::{HashMap, HashSet};

use cutlet::atom::{
    CopyAtom, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN,
    SM80_16x8x8_F32TF32TF32F32_TN,
};
use cutlet::layout::{ComposedLayout, IntTuple, Layout, Swizzle};
use cutlet::numeric::ElementType;
use cutlet::tiled::{Operand, ThreadPartition, TiledCopy, TiledMma};

fn layout(text: &str) -> Layout {
    text.parse().unwrap()
}

fn compact(rows: i64, cols: i64, k_major: bool) -> Layout {
    let stride = if k_major { [cols, 1] } else { [1, rows] };
    Layout::new(IntTuple::ints(&[rows, cols]), IntTuple::ints(&stride)).unwrap()
}

/// Every offset of `0..size` is reached by exactly one (thread, value).
fn assert_owned_once(what: &str, p: &ThreadPartition, size: i64) {
    let mut seen = HashSet::new();
    for t in 0..p.threads() {
        for v in 0..p.values() as usize {
            let o = p.offset(t, v);
            assert!(
                (0..size).contains(&o),
                "{what}: thread {t} value {v} at {o}"
            );
            assert!(seen.insert(o), "{what}: offset {o} owned twice");
        }
    }
    assert_eq!(seen.len() as i64, size, "{what}: coverage");
}

/// (rows = MN, cols = K, threads, K-major?) -> the copy the collective builds:
/// 8 bf16 (16 bytes) per thread along the contiguous mode.
fn g2s_copy(rows: i64, cols: i64, threads: i64, k_major: bool) -> TiledCopy {
    let (thr, val) = if k_major {
        let across = cols / 8;
        (
            Layout::new(
                IntTuple::ints(&[threads / across, across]),
                IntTuple::ints(&[across, 1]),
            )
            .unwrap(),
            layout("(1,8):(1,1)"),
        )
    } else {
        let down = rows / 8;
        (
            Layout::new(
                IntTuple::ints(&[down, threads / down]),
                IntTuple::ints(&[1, down]),
            )
            .unwrap(),
            layout("(8,1):(1,1)"),
        )
    };
    TiledCopy::new(
        CopyAtom::Sm80CpAsyncCacheGlobalZfill,
        ElementType::BF16,
        &thr,
        &val,
    )
    .unwrap()
}

#[test]
fn cp_async_g2s_copies_cover_their_tiles_with_16_byte_vectors() {
    for (rows, cols) in [(128, 32), (256, 64)] {
        for threads in [128, 256] {
            for k_major in [true, false] {
                let what = format!("{rows}x{cols} k_major={k_major} threads={threads}");
                let copy = g2s_copy(rows, cols, threads, k_major);
                assert_eq!(copy.threads(), threads);
                let memory = compact(rows, cols, k_major);
                let src = copy.partition_s([rows, cols], &memory).unwrap();
                assert_owned_once(&what, &src, rows * cols);
                copy.check_vectorized(&src).unwrap();
                // Global rows with a leading dimension: still vectorized.
                let ld = if k_major { [1000, 1] } else { [1, 1000] };
                let global =
                    Layout::new(IntTuple::ints(&[rows, cols]), IntTuple::ints(&ld)).unwrap();
                copy.check_vectorized(&copy.partition_s([rows, cols], &global).unwrap())
                    .unwrap();
                // A swizzled shared destination (Swizzle<3,3,3> over 8-element
                // chunks): still a bijection, each 16-byte chunk kept whole.
                let swizzled = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), 0, memory);
                let dst = copy.partition_d_swizzled([rows, cols], &swizzled).unwrap();
                assert_owned_once(&what, &dst, rows * cols);
                copy.check_vectorized(&dst).unwrap();
            }
        }
    }
}

#[test]
fn copy_tile_and_errors() {
    let copy = g2s_copy(128, 32, 128, true);
    assert_eq!(copy.tile().to_string(), "(32,32)");
    let err = copy
        .partition_s([100, 32], &compact(100, 32, true))
        .unwrap_err();
    assert!(err.to_string().contains("[100, 32]"), "{err}");
    let err = TiledCopy::new(
        CopyAtom::Sm80CpAsyncCacheGlobalZfill,
        ElementType::BF16,
        &layout("32:1"),
        &layout("4:1"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("multiple of 8 values"), "{err}");
    // Misaligned vectors are caught: a leading dimension of 1001 elements.
    let odd = Layout::new(IntTuple::ints(&[128, 32]), IntTuple::ints(&[1001, 1])).unwrap();
    let p = copy.partition_s([128, 32], &odd).unwrap();
    assert!(copy.check_vectorized(&p).is_err());
}

/// Simulates `ldmatrix` from the ISA's words: lane `l` gives the row address
/// for row `l % 8` of matrix `l / 8`; without `.trans`, lane `l` gets row
/// `l / 4`, elements `2(l%4)`, `+1` of matrix `j` in register `j`; with
/// `.trans`, rows `2(l%4)`, `+1`, element `l / 4`. `memory_to_tile` maps a
/// memory offset back to the tile index stored there.
fn check_ldsm(
    mma: &TiledMma,
    op: Operand,
    tile: [i64; 2],
    trans: bool,
    p: &ThreadPartition,
    memory_to_tile: &HashMap<i64, i64>,
) {
    let tv = mma.layout_tv(op, tile).unwrap();
    let threads = mma.threads();
    for t in 0..threads {
        let (lane, warp) = (t % 32, t - t % 32);
        for i in 0..p.values() as usize {
            for j in 0..4 {
                for h in 0..2 {
                    let (row, element) = if trans {
                        (2 * (lane % 4) + h, lane / 4)
                    } else {
                        (lane / 4, 2 * (lane % 4) + h)
                    };
                    let address = p.offset(warp + 8 * j + row, i) + element;
                    let got = memory_to_tile[&address];
                    let want = tv.at(t + threads * (8 * i as i64 + 2 * j + h));
                    assert_eq!(
                        got, want,
                        "{op:?} trans={trans} thread {t} ldsm {i} reg {j}.{h}"
                    );
                }
            }
        }
    }
}

#[test]
fn ldmatrix_partitions_fill_the_tiled_mma_fragments() {
    let tiles = [
        [128, 128, 32],
        [128, 256, 32],
        [256, 128, 32],
        [128, 128, 64],
    ];
    for warps in [[2, 2, 1], [2, 4, 1], [4, 2, 1]] {
        let mma = TiledMma::new(SM80_16x8x16_F32BF16BF16F32_TN, warps).unwrap();
        for [m, n, k] in tiles {
            for (op, tile) in [(Operand::A, [m, k]), (Operand::B, [n, k])] {
                for trans in [false, true] {
                    // K-major for ldmatrix, MN-major for ldmatrix.trans,
                    // swizzled 8-element chunks as in shared memory.
                    let plain = compact(tile[0], tile[1], !trans);
                    let swizzle =
                        Swizzle::new(if tile[1] == 32 && !trans { 2 } else { 3 }, 3, 3).unwrap();
                    let smem = ComposedLayout::new(swizzle, 0, plain.clone());
                    let memory_to_tile: HashMap<i64, i64> =
                        (0..smem.size()).map(|i| (smem.at(i), i)).collect();
                    let p = mma.partition_ldsm_swizzled(op, tile, trans, &smem).unwrap();
                    check_ldsm(&mma, op, tile, trans, &p, &memory_to_tile);
                    let plain_map: HashMap<i64, i64> =
                        (0..plain.size()).map(|i| (plain.at(i), i)).collect();
                    let p = mma.partition_ldsm(op, tile, trans, &plain).unwrap();
                    check_ldsm(&mma, op, tile, trans, &p, &plain_map);
                }
            }
        }
    }
}

#[test]
fn ldmatrix_rejects_what_it_cannot_load() {
    // tf32 loads as pairs of 16-bit halves: whole elements without .trans
    // (lane l gets element l % 4 of row l / 4), split ones with it.
    let mma = TiledMma::new(SM80_16x8x8_F32TF32TF32F32_TN, [2, 2, 1]).unwrap();
    assert!(mma.ldsm_tv(Operand::A, [64, 16], true).is_err());
    for (op, tile) in [(Operand::A, [64, 16]), (Operand::B, [32, 16])] {
        let plain = compact(tile[0], tile[1], true);
        let p = mma.partition_ldsm(op, tile, false, &plain).unwrap();
        let tv = mma.layout_tv(op, tile).unwrap();
        let threads = mma.threads();
        for t in 0..threads {
            let (lane, warp) = (t % 32, t - t % 32);
            for i in 0..p.values() as usize {
                for j in 0..4 {
                    // Row lane / 4 of matrix j, element lane % 4 of it.
                    let address = p.offset(warp + 8 * j + lane / 4, i) + lane % 4;
                    let idx = tv.at(t + threads * (4 * i as i64 + j));
                    let want = (idx % tile[0]) * tile[1] + idx / tile[0];
                    assert_eq!(address, want, "tf32 {op:?} thread {t} ldsm {i} reg {j}");
                }
            }
        }
    }
    let mma = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [2, 2, 1]).unwrap();
    assert!(mma.ldsm_tv(Operand::C, [64, 32], false).is_err());
    // K-major rows read with .trans are not 8 contiguous elements.
    let err = mma
        .partition_ldsm(Operand::A, [64, 32], true, &compact(64, 32, true))
        .unwrap_err();
    assert!(err.to_string().contains("16-byte rows"), "{err}");
}
