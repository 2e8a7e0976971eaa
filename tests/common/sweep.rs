//! The GEMM configuration sweep: CTA tiles {32, 64, 128, 256} x {32, 64,
//! 128, 256}, every BK the element size allows (rows of 32, 64, 128 and 256
//! bytes: 16..128 for 16-bit inputs, 8..64 for tf32), warps {1, 2, 4, 8}
//! along M and along N, A and B K- or MN-major, D row- or column-major, and
//! the six type combinations of the SM80 kernel. Each combination either
//! builds or is refused by a rule that names a limit.

use cutlet::device::gemm::{Gemm, GemmBuilder};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32};

/// (A = B, D, accumulator) of the SM80 kernel (f32 inputs run as tf32).
pub const TYPES: [(ElementType, ElementType, ElementType); 6] = [
    (F16, F16, F32),
    (F16, F32, F32),
    (BF16, BF16, F32),
    (BF16, F32, F32),
    (F16, F16, F16),
    (F32, F32, F32),
];

/// One configuration of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combo {
    pub ab: ElementType,
    pub d: ElementType,
    pub acc: ElementType,
    pub a_major: OperandMajor,
    pub b_major: OperandMajor,
    pub d_major: OutputMajor,
    pub tile: [u32; 3],
    pub warps: [u32; 2],
}

impl Combo {
    /// The runtime builder of this configuration (stages chosen by it).
    pub fn builder(&self) -> GemmBuilder {
        Gemm::builder()
            .a(self.ab, self.a_major)
            .b(self.ab, self.b_major)
            .d(self.d, self.d_major)
            .accumulator(self.acc)
            .tile(self.tile)
            .warps(self.warps)
    }

    /// The index of the (types, majors) group: combinations of one group
    /// share a problem and its reference.
    pub fn group(&self) -> usize {
        let t = TYPES
            .iter()
            .position(|&(ab, d, acc)| (ab, d, acc) == (self.ab, self.d, self.acc))
            .expect("a sweep type");
        let m = |major: OperandMajor| usize::from(major == OperandMajor::MN);
        (t * 2 + m(self.a_major)) * 4
            + m(self.b_major) * 2
            + usize::from(self.d_major == OutputMajor::M)
    }
}

/// Every combination of the sweep, in a fixed order.
pub fn combos() -> Vec<Combo> {
    let extents = [32u32, 64, 128, 256];
    let warps = [1u32, 2, 4, 8];
    let mut all = Vec::new();
    for (ab, d, acc) in TYPES {
        let bks: &[u32] = if ab == F32 {
            &[8, 16, 32, 64]
        } else {
            &[16, 32, 64, 128]
        };
        for a_major in [OperandMajor::K, OperandMajor::MN] {
            for b_major in [OperandMajor::K, OperandMajor::MN] {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    for bm in extents {
                        for bn in extents {
                            for &bk in bks {
                                for wm in warps {
                                    for wn in warps {
                                        all.push(Combo {
                                            ab,
                                            d,
                                            acc,
                                            a_major,
                                            b_major,
                                            d_major,
                                            tile: [bm, bn, bk],
                                            warps: [wm, wn],
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    all
}

/// The limit a refusal names, from the rule's sentence; `None` for a
/// sentence that names none of the hardware's or the instruction's limits.
pub fn limit_of(reason: &str) -> Option<&'static str> {
    [
        (
            "threads: a block holds at most 1024",
            "threads per block (1024)",
        ),
        (
            "expected a multiple of the mma atom's 16 rows",
            "the mma atom's M (16)",
        ),
        (
            "expected a multiple of the mma atom's 8 columns",
            "the mma atom's N (8)",
        ),
        ("registers per thread", "registers per thread"),
        ("bytes a block of", "shared memory per block"),
        (
            "the row of a swizzle atom",
            "a swizzle atom's row (32, 64 or 128n bytes)",
        ),
    ]
    .into_iter()
    .find(|(needle, _)| reason.contains(needle))
    .map(|(_, limit)| limit)
}

/// Configurations off the powers of two that the rules accept as well:
/// tiles of 48..192 x 24..120 over 1 or 3 warps along M and 1, 3 or 5 along
/// N (96 to 480 threads), bf16 and tf32, every major. Their copy and store
/// mappings take the general paths (gcd tilings, several bases).
pub fn uneven_combos() -> Vec<Combo> {
    let mut all = Vec::new();
    for (ab, bk) in [(BF16, 64), (F32, 32)] {
        for a_major in [OperandMajor::K, OperandMajor::MN] {
            for b_major in [OperandMajor::K, OperandMajor::MN] {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    for bm in [48u32, 96, 144, 192] {
                        for bn in [24u32, 40, 48, 96, 120] {
                            for wm in [1u32, 3] {
                                for wn in [1u32, 3, 5] {
                                    all.push(Combo {
                                        ab,
                                        d: ab,
                                        acc: F32,
                                        a_major,
                                        b_major,
                                        d_major,
                                        tile: [bm, bn, bk],
                                        warps: [wm, wn],
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    all
}
