//! The rules of the SM90 TMA + wgmma mainloop, as `const fn`s: the one
//! place they are written. The kernel layer's rule set
//! (`kernel::gemm::check_config`, for both front doors) and this
//! mainloop's [`Mainloop::can_implement`](crate::collective::Mainloop::can_implement)
//! both call [`check_sm90_mainloop`].
//!
//! | rule | why |
//! |---|---|
//! | types bf16/bf16/f32, f16/f16/f32, f16/f16/f16, tf32/tf32/f32 (f32 inputs as tf32), e4m3/e5m2 A and B with f32, s8/u8 A and B with s32; a tf32 B and 8-bit A and B K-major | wgmma's types (it transposes only 16-bit operands; an M-major tf32 A passes through registers) |
//! | TileK x element = 64 or 128 bytes | a K-major operand's row is one 64- or 128-byte swizzle row, which TMA and wgmma share |
//! | TileN a multiple of 8 up to 256 (of 128 bytes for an N-major B); with s8/u8 inputs 8, 16, 24 or a multiple of 16 | wgmma's N (the integer wgmma has fewer widths); a swizzle row of N |
//! | TileM 64 or 128 rows per consumer warpgroup | wgmma's M is 64 |
//! | at most [`MAX_ACCUMULATOR_REGISTERS`] accumulator registers a consumer thread | what the 232 registers a consumer holds keep without spills |
//! | cluster 1 or 2 along M and N; each CTA's share of a multicast tile whole boxes | TMA multicast |
//! | with promotion (the FP8 mainloop): e4m3/e5m2 A and B, f32 accumulators, an interval of whole k-tiles, two accumulator sets in [`MAX_ACCUMULATOR_REGISTERS`] | the partial sums are added between k-tiles into a second set of registers |
//! | with block scales: promotion, TileK 128, interval 4, TileN a divisor of 128 (swap-AB's kernel: TileM a divisor of 128, TileN at most 64) | each promotion applies one block of K's scales, one block of B's per tile, a scale of A per row (per column when swapped) |

use crate::gemm::{ClusterShape, GemmMajors, GemmTypes, OperandMajor, RuleMessage};
use crate::numeric::ElementType;

/// The most accumulator registers a consumer thread may hold. ptxas 12.9
/// for sm_90a, with the 232 registers `setmaxnreg` gives a consumer: every
/// default kernel (at most 160) assembles without spills, while 192 (a
/// cooperative 256x192 tile with a bf16 D or an MN-major A and B, a
/// ping-pong 128x192 tile with an f32 D) spills 8 bytes and reloads 24.
pub const MAX_ACCUMULATOR_REGISTERS: u32 = 160;

/// The FP8 mainloop's promotion rules
/// ([`MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8`](crate::collective::MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8)):
/// e4m3/e5m2 A and B with f32 accumulators; an interval that is a positive
/// multiple of a k-tile's wgmma k-steps (TileK / 32), since the partial
/// sums are promoted between k-tiles; and room for two sets of
/// accumulators (at most [`MAX_ACCUMULATOR_REGISTERS`] together).
#[allow(clippy::result_large_err)]
pub(crate) const fn check_sm90_promotion(
    types: GemmTypes,
    tile: [u32; 3],
    consumers: u32,
    interval: u32,
) -> Result<(), RuleMessage> {
    let t = types;
    let fp8 = matches!(
        (t.a, t.b, t.acc),
        (
            ElementType::F8E4M3 | ElementType::F8E5M2,
            ElementType::F8E4M3 | ElementType::F8E5M2,
            ElementType::F32
        )
    );
    if !fp8 {
        return Err(RuleMessage::new()
            .s("the FP8 mainloop with promotion takes e4m3/e5m2 A and B with f32 accumulators, not a=")
            .s(t.a.name())
            .s(", b=")
            .s(t.b.name())
            .s(", acc=")
            .s(t.acc.name())
            .s(" (expected MainloopSm90TmaGmmaWarpSpecialized for other types)"));
    }
    let [bm, bn, bk] = tile;
    let steps = bk / 32;
    if interval == 0 || steps == 0 || !interval.is_multiple_of(steps) {
        return Err(RuleMessage::new()
            .s("promotion interval ")
            .n(interval)
            .s(" with TileK ")
            .n(bk)
            .s(": expected a positive multiple of ")
            .n(steps)
            .s(" (the wgmma k-steps of 32 in one k-tile)"));
    }
    let wg_rows = match bm.checked_div(consumers) {
        Some(rows) => rows,
        None => bm,
    };
    let both = 2 * (wg_rows / 64) * bn / 2;
    if both > MAX_ACCUMULATOR_REGISTERS {
        return Err(RuleMessage::new()
            .s("a ")
            .n(wg_rows)
            .s("x")
            .n(bn)
            .s(" warpgroup tile with promotion needs ")
            .n(both)
            .s(" accumulator registers per thread (two sets): expected at most 160 (TileN 128 with the cooperative schedule, or fast accumulation)"));
    }
    Ok(())
}

/// Columns a swap-AB kernel's tile may have with block scales: each is a
/// row of A with its own scale, which a consumer thread loads per k-tile
/// beside two accumulator sets (TileN 64: 16 scales a thread).
pub const MAX_TRANSPOSED_BLOCK_SCALE_TILE_N: u32 = 64;

/// The rules of block scales
/// ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block)) on
/// the FP8 mainloop with promotion `interval` (`None`: fast accumulation,
/// no promotion): one promotion per 128 of K (TileK 128, interval 4), so
/// that each promotion covers one block of scales; TileN dividing 128, so
/// that a tile's columns share one block of B's scales; in swap-AB's
/// kernel (`transposed`) TileM dividing 128 instead (B's blocks lie along
/// its M) and TileN at most [`MAX_TRANSPOSED_BLOCK_SCALE_TILE_N`] (a scale
/// per column).
#[allow(clippy::result_large_err)]
pub(crate) const fn check_sm90_block_scales(
    interval: Option<u32>,
    tile: [u32; 3],
    transposed: bool,
) -> Result<(), RuleMessage> {
    let [bm, bn, bk] = tile;
    let interval = match interval {
        Some(interval) => interval,
        None => {
            return Err(RuleMessage::new().s(
                "block scales without promotion: expected the FP8 mainloop that promotes its partial sums (fast_accumulation(false), MainloopSm90TmaGmmaWarpSpecializedFp8), which applies the scales at each promotion",
            ))
        }
    };
    if bk != 128 || interval != 4 {
        return Err(RuleMessage::new()
            .s("block scales with TileK ")
            .n(bk)
            .s(" and promotion interval ")
            .n(interval)
            .s(": expected TileK 128 and interval 4 (one promotion per 128-deep block of K)"));
    }
    if transposed {
        if bm == 0 || !128u32.is_multiple_of(bm) || bn > MAX_TRANSPOSED_BLOCK_SCALE_TILE_N {
            return Err(RuleMessage::new()
                .s("swap-AB block scales with a ")
                .n(bm)
                .s("x")
                .n(bn)
                .s(" tile: expected TileM a divisor of 128 (its rows share one block of B's scales) and TileN at most 64 (a scale of A per column)"));
        }
    } else if bn == 0 || !128u32.is_multiple_of(bn) {
        return Err(RuleMessage::new().s("block scales with TileN ").n(bn).s(
            ": expected a divisor of 128 (a tile's columns share one 128-wide block of B's scales)",
        ));
    }
    Ok(())
}

/// The SM90 mainloop's rules for `types`, `majors`, `tile` (BM, BN, BK)
/// and `cluster` with `consumers` consumer warpgroups (2
/// cooperative, 1 ping-pong).
#[allow(clippy::result_large_err)]
pub(crate) const fn check_sm90_mainloop(
    types: GemmTypes,
    majors: GemmMajors,
    tile: [u32; 3],
    cluster: ClusterShape,
    consumers: u32,
) -> Result<(), RuleMessage> {
    let t = types;
    let typed = matches!(
        (t.a, t.b, t.acc),
        (ElementType::BF16, ElementType::BF16, ElementType::F32)
            | (ElementType::F16, ElementType::F16, ElementType::F32)
            | (ElementType::F16, ElementType::F16, ElementType::F16)
            | (ElementType::TF32, ElementType::TF32, ElementType::F32)
            | (ElementType::F32, ElementType::F32, ElementType::F32)
            | (
                ElementType::F8E4M3 | ElementType::F8E5M2,
                ElementType::F8E4M3 | ElementType::F8E5M2,
                ElementType::F32
            )
            | (
                ElementType::I8 | ElementType::U8,
                ElementType::I8 | ElementType::U8,
                ElementType::I32
            )
    );
    if !typed {
        return Err(RuleMessage::new()
            .s("element types a=")
            .s(t.a.name())
            .s(", b=")
            .s(t.b.name())
            .s(", acc=")
            .s(t.acc.name())
            .s(" have no SM90 mainloop: expected bf16/bf16/f32, f16/f16/f32, f16/f16/f16, tf32/tf32/f32, e4m3/e5m2 A and B with f32, or s8/u8 A and B with s32 (f32 inputs multiply as tf32)"));
    }
    if (t.a.size_bytes() == 1 || t.b.size_bytes() == 1)
        && !(matches!(majors.a, OperandMajor::K) && matches!(majors.b, OperandMajor::K))
    {
        return Err(RuleMessage::new()
            .s("8-bit A and B must be K-major on SM90: wgmma transposes only 16-bit operands (Gemm::builder() takes an MN-major 8-bit operand and copies it K-major before the kernel)"));
    }
    if t.a.size_bytes() == 4 && !matches!(majors.b, OperandMajor::K) {
        return Err(RuleMessage::new().s(
            "tf32 B must be K-major on SM90: wgmma transposes only 16-bit operands (an M-major tf32 A passes through registers, B cannot)",
        ));
    }
    let [bm, bn, bk] = tile;
    let size = t.a.size_bytes();
    if bk * size != 128 && bk * size != 64 {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" of ")
            .s(t.a.name())
            .s(" makes ")
            .n(bk * size)
            .s("-byte rows: expected TileK ")
            .n(64 / size)
            .s(" or ")
            .n(128 / size)
            .s(" (one 64- or 128-byte swizzle row)"));
    }
    let n_step = if matches!(majors.b, OperandMajor::MN) {
        128 / size
    } else {
        8
    };
    if bn == 0 || bn > 256 || bn % n_step != 0 {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(": expected a multiple of ")
            .n(n_step)
            .s(" from ")
            .n(n_step)
            .s(" to 256 (wgmma's N)"));
    }
    if matches!(t.acc, ElementType::I32) && bn > 24 && !bn.is_multiple_of(16) {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(" with s8/u8 inputs: expected 8, 16, 24 or a multiple of 16 up to 256 (the integer wgmma's N)"));
    }
    let schedule = if consumers == 2 {
        "cooperative"
    } else {
        "pingpong"
    };
    let wg_rows = bm / consumers;
    if bm % consumers != 0 || !(wg_rows == 64 || wg_rows == 128) {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(bm)
            .s(" with the ")
            .s(schedule)
            .s(" schedule: expected ")
            .n(64 * consumers)
            .s(" or ")
            .n(128 * consumers)
            .s(" (64 or 128 rows per consumer warpgroup)"));
    }
    let acc_values = wg_rows / 64 * bn / 2;
    let acc_regs = if matches!(t.acc, ElementType::F16) {
        acc_values / 2
    } else {
        acc_values
    };
    if acc_regs > MAX_ACCUMULATOR_REGISTERS {
        return Err(RuleMessage::new()
            .s("a ")
            .n(wg_rows)
            .s("x")
            .n(bn)
            .s(" warpgroup tile needs ")
            .n(acc_regs)
            .s(" accumulator registers per thread: expected at most 160 (a smaller TileN, or the cooperative schedule)"));
    }
    let ClusterShape { m: cm, n: cn } = cluster;
    if !(cm == 1 || cm == 2) || !(cn == 1 || cn == 2) {
        return Err(RuleMessage::new()
            .s("cluster ")
            .n(cm)
            .s("x")
            .n(cn)
            .s(": expected 1 or 2 CTAs along M and along N"));
    }
    // A is shared by the cn CTAs of a cluster row, B by the cm of a column.
    let a_splits = match majors.a {
        OperandMajor::K => bm % (8 * cn) == 0,
        OperandMajor::MN => (bm / (128 / size)).is_multiple_of(cn),
    };
    let b_splits = match majors.b {
        OperandMajor::K => bn % (8 * cm) == 0,
        OperandMajor::MN => (bn / (128 / size)).is_multiple_of(cm),
    };
    if !a_splits || !b_splits {
        return Err(RuleMessage::new()
            .s("tile ")
            .n(bm)
            .s("x")
            .n(bn)
            .s(" cannot be split among the CTAs of cluster ")
            .n(cm)
            .s("x")
            .n(cn)
            .s(" that share its A and B tiles: expected each CTA's share of A (split along the cluster's N) and of B (split along its M) a whole number of 8-row boxes for a K-major operand or 128-byte boxes for an MN-major one (64 16-bit or 32 tf32 elements)"));
    }
    Ok(())
}
