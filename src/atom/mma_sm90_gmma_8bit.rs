//! The SM90 warpgroup MMA atoms of 8-bit inputs, `wgmma.mma_async`
//! `m64nNk32`: [`SM90_GMMA_F8`] (e4m3 and e5m2 in all four A/B pairs, with
//! f32 or f16 accumulators, N = 8..256 step 8) and [`SM90_GMMA_I8`] (s8 and
//! u8 in all four pairs with s32 accumulators, N = 8, 16, 24 and 32..256
//! step 16: ptxas 12.9 refuses `m64n40k32` and the other odd multiples of 8
//! for integer types), A from shared memory (`_SS`) or registers (`_RS`), B
//! from shared memory. Both operands are K-major in shared memory: the
//! instruction has no transpose for 8-bit types. Named as CuTe names them
//! (`SM90_64x128x32_F32E4M3E4M3_SS_TN`, `SM90_64x64x32_S32S8U8_RS_TN`).
//!
//! The accumulator is the 16-bit atoms' (`CLayout_64xN`). The `_RS` A
//! fragment is CuTe's `ALayout_64x32`, `((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))`:
//! byte `v0` of register `v1 + 2·v2` of thread `(t, g, w)` holds
//! `m = 16w + g + 8·v1`, `k = 4t + v0 + 16·v2`, the m16n8k32 8-bit A
//! fragment of each warp [PTX ISA 9.7.14.5.8 and 9.7.15.5.1.1].
//!
//! Operand syntax [PTX ISA 9.7.15.5.2, checked with ptxas 12.9]: the
//! floating-point forms take `d, a, b-desc, scale-d, imm-scale-a,
//! imm-scale-b` (no transposes); the integer forms `d, a, b-desc, scale-d`.
//! Mixed s8/u8 needs PTX ISA 8.4 (`Module::with_ptx_version(8, 4)`).
#![allow(non_upper_case_globals)]

use super::atom_layout::{AtomLayout, AtomMode};
use super::mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
use super::mma_sm90_gmma::{ab_whole, c_64xn, warpgroup_lanes, FAMILY, RS_A_REGS, WARPGROUP};
use crate::arch::ArchKind;
use crate::numeric::ElementType::{self, F16, F32, F8E4M3, F8E5M2, I32, I8, U8};
use crate::ptx::RegClass;

/// K of one 8-bit wgmma.
const K: i64 = 32;

/// CuTe's `ALayout_64x32`: the 8-bit A fragment of an `_RS` atom.
const A_RS_8BIT: AtomLayout =
    AtomLayout::tv(warpgroup_lanes(256), AtomMode::of([4, 2, 2], [64, 8, 1024]));

/// One 8-bit type family: the accumulator, A's and B's types.
#[derive(Clone, Copy)]
struct Family {
    acc: ElementType,
    a: ElementType,
    b: ElementType,
}

/// One row of a table: `family` at width `n`, A from `source`.
const fn gmma8(
    family: Family,
    n: i64,
    source: MmaSource,
    name: &'static str,
    opcode: &'static str,
) -> MmaAtom {
    let rs = matches!(source, MmaSource::RegisterShared);
    let integer = matches!(family.acc, I32);
    let f16_acc = matches!(family.acc, F16);
    MmaAtom {
        name,
        arch: ArchKind::Sm90,
        shape_mnk: [64, n, K],
        types: MmaTypes {
            d: family.acc,
            a: family.a,
            b: family.b,
            c: family.acc,
        },
        regs: MmaRegs {
            a: if rs { RS_A_REGS } else { 0 },
            b: 0,
            c: if f16_acc {
                n as usize / 4
            } else {
                n as usize / 2
            },
            ab_class: RegClass::B32,
            c_class: if matches!(family.acc, F32) {
                RegClass::F32
            } else {
                RegClass::B32
            },
        },
        source,
        opcode,
        snippet: SnippetRef {
            family: FAMILY,
            name: match (integer, rs) {
                (false, false) => "wgmma_ss_8bit_float",
                (false, true) => "wgmma_rs_8bit_float",
                (true, false) => "wgmma_ss_8bit_int",
                (true, true) => "wgmma_rs_8bit_int",
            },
        },
        thr_id: WARPGROUP,
        a: if rs { A_RS_8BIT } else { ab_whole(64, K) },
        b: ab_whole(n, K),
        c: c_64xn(n),
    }
}

/// One row: its CuTe name and opcode spelled from N and the types.
macro_rules! gmma8_row {
    ($n:literal, $acc:ident, $a:ident, $b:ident, $types:literal, $ptx:literal, SS) => {
        gmma8_row!(@ $n, $acc, $a, $b, $types, $ptx, "_SS_TN", MmaSource::SharedShared)
    };
    ($n:literal, $acc:ident, $a:ident, $b:ident, $types:literal, $ptx:literal, RS) => {
        gmma8_row!(@ $n, $acc, $a, $b, $types, $ptx, "_RS_TN", MmaSource::RegisterShared)
    };
    (@ $n:literal, $acc:ident, $a:ident, $b:ident, $types:literal, $ptx:literal, $suffix:literal, $source:expr) => {
        gmma8(
            Family { acc: $acc, a: $a, b: $b },
            $n,
            $source,
            concat!("SM90_64x", stringify!($n), "x32_", $types, $suffix),
            concat!("wgmma.mma_async.sync.aligned.m64n", stringify!($n), "k32.", $ptx),
        )
    };
}

/// The 16 FP8 rows of one N: for each accumulator (f32, then f16) the
/// pairs e4m3·e4m3, e4m3·e5m2, e5m2·e4m3, e5m2·e5m2, each `_SS` then `_RS`.
macro_rules! f8_rows_of {
    ($n:literal) => {
        [
            gmma8_row!($n, F32, F8E4M3, F8E4M3, "F32E4M3E4M3", "f32.e4m3.e4m3", SS),
            gmma8_row!($n, F32, F8E4M3, F8E4M3, "F32E4M3E4M3", "f32.e4m3.e4m3", RS),
            gmma8_row!($n, F32, F8E4M3, F8E5M2, "F32E4M3E5M2", "f32.e4m3.e5m2", SS),
            gmma8_row!($n, F32, F8E4M3, F8E5M2, "F32E4M3E5M2", "f32.e4m3.e5m2", RS),
            gmma8_row!($n, F32, F8E5M2, F8E4M3, "F32E5M2E4M3", "f32.e5m2.e4m3", SS),
            gmma8_row!($n, F32, F8E5M2, F8E4M3, "F32E5M2E4M3", "f32.e5m2.e4m3", RS),
            gmma8_row!($n, F32, F8E5M2, F8E5M2, "F32E5M2E5M2", "f32.e5m2.e5m2", SS),
            gmma8_row!($n, F32, F8E5M2, F8E5M2, "F32E5M2E5M2", "f32.e5m2.e5m2", RS),
            gmma8_row!($n, F16, F8E4M3, F8E4M3, "F16E4M3E4M3", "f16.e4m3.e4m3", SS),
            gmma8_row!($n, F16, F8E4M3, F8E4M3, "F16E4M3E4M3", "f16.e4m3.e4m3", RS),
            gmma8_row!($n, F16, F8E4M3, F8E5M2, "F16E4M3E5M2", "f16.e4m3.e5m2", SS),
            gmma8_row!($n, F16, F8E4M3, F8E5M2, "F16E4M3E5M2", "f16.e4m3.e5m2", RS),
            gmma8_row!($n, F16, F8E5M2, F8E4M3, "F16E5M2E4M3", "f16.e5m2.e4m3", SS),
            gmma8_row!($n, F16, F8E5M2, F8E4M3, "F16E5M2E4M3", "f16.e5m2.e4m3", RS),
            gmma8_row!($n, F16, F8E5M2, F8E5M2, "F16E5M2E5M2", "f16.e5m2.e5m2", SS),
            gmma8_row!($n, F16, F8E5M2, F8E5M2, "F16E5M2E5M2", "f16.e5m2.e5m2", RS),
        ]
    };
}

/// The 8 integer rows of one N: s8·s8, s8·u8, u8·s8, u8·u8, each `_SS`
/// then `_RS`.
macro_rules! i8_rows_of {
    ($n:literal) => {
        [
            gmma8_row!($n, I32, I8, I8, "S32S8S8", "s32.s8.s8", SS),
            gmma8_row!($n, I32, I8, I8, "S32S8S8", "s32.s8.s8", RS),
            gmma8_row!($n, I32, I8, U8, "S32S8U8", "s32.s8.u8", SS),
            gmma8_row!($n, I32, I8, U8, "S32S8U8", "s32.s8.u8", RS),
            gmma8_row!($n, I32, U8, I8, "S32U8S8", "s32.u8.s8", SS),
            gmma8_row!($n, I32, U8, I8, "S32U8S8", "s32.u8.s8", RS),
            gmma8_row!($n, I32, U8, U8, "S32U8U8", "s32.u8.u8", SS),
            gmma8_row!($n, I32, U8, U8, "S32U8U8", "s32.u8.u8", RS),
        ]
    };
}

/// A table from its list of N: the rows of each N in turn.
macro_rules! gmma8_table {
    ($(#[$doc:meta])* $name:ident, $rows:ident, $per_n:literal, $($n:literal)*) => {
        $(#[$doc])*
        pub const $name: [MmaAtom; $per_n * [$($n),*].len()] = {
            let rows = [$($rows!($n)),*];
            let mut all = [rows[0][0]; $per_n * [$($n),*].len()];
            let mut i = 0;
            while i < all.len() {
                all[i] = rows[i / $per_n][i % $per_n];
                i += 1;
            }
            all
        };
    };
}

gmma8_table!(
    /// Every SM90 FP8 wgmma atom: for each N = 8, 16, .., 256 in turn,
    /// `SM90_64xNx32_{F32,F16}{E4M3,E5M2}{E4M3,E5M2}_{SS,RS}_TN` (f32
    /// accumulators first, A's type then B's). Pick one with [`gmma_atom`](super::gmma_atom).
    ///
    /// ```
    /// use cutlet::atom::{MmaSource, SM90_GMMA_F8};
    /// use cutlet::numeric::ElementType::{F32, F8E4M3, F8E5M2};
    ///
    /// assert_eq!(SM90_GMMA_F8.len(), 32 * 16);
    /// let atom = SM90_GMMA_F8[16 * 15 + 2];
    /// assert_eq!(atom.name(), "SM90_64x128x32_F32E4M3E5M2_SS_TN");
    /// assert_eq!(atom.opcode(), "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2");
    /// assert_eq!((atom.types().a, atom.types().b, atom.types().d), (F8E4M3, F8E5M2, F32));
    /// assert_eq!(atom.shape_mnk(), [64, 128, 32]);
    /// assert_eq!(atom.regs().c, 64);
    /// assert_eq!(atom.a_layout().to_string(), "(128,(64,32)):(0,(1,64))");
    /// let rs = SM90_GMMA_F8[16 * 15 + 3];
    /// assert_eq!(rs.source(), MmaSource::RegisterShared);
    /// assert_eq!(rs.a_layout().to_string(), "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))");
    /// ```
    SM90_GMMA_F8, f8_rows_of, 16,
    8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128
    136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256
);

gmma8_table!(
    /// Every SM90 integer wgmma atom: for each N = 8, 16, 24, 32, 48, ..,
    /// 256 in turn, `SM90_64xNx32_S32{S8,U8}{S8,U8}_{SS,RS}_TN`. Pick one
    /// with [`gmma_atom`](super::gmma_atom).
    ///
    /// ```
    /// use cutlet::atom::SM90_GMMA_I8;
    ///
    /// assert_eq!(SM90_GMMA_I8.len(), 18 * 8);
    /// assert_eq!(SM90_GMMA_I8[8 * 3].name(), "SM90_64x32x32_S32S8S8_SS_TN");
    /// assert_eq!(SM90_GMMA_I8[8 * 4 + 2].name(), "SM90_64x48x32_S32S8U8_SS_TN");
    /// assert_eq!(SM90_GMMA_I8[8 * 4].regs().c, 24);
    /// ```
    SM90_GMMA_I8, i8_rows_of, 8,
    8 16 24 32 48 64 80 96 112 128 144 160 176 192 208 224 240 256
);

/// The index of an FP8 type in the table's pairs (e4m3 0, e5m2 1).
const fn fp8(t: ElementType) -> Option<usize> {
    match t {
        F8E4M3 => Some(0),
        F8E5M2 => Some(1),
        _ => None,
    }
}

/// The index of an 8-bit integer type in the table's pairs (s8 0, u8 1).
const fn int8(t: ElementType) -> Option<usize> {
    match t {
        I8 => Some(0),
        U8 => Some(1),
        _ => None,
    }
}

/// The 8-bit wgmma atom for A's, B's and the accumulator's types, width
/// `n` and A's source (`column` 0 for `_SS`, 1 for `_RS`), if one exists
/// (see [`gmma_atom`](super::gmma_atom)).
pub(super) const fn gmma8_atom(
    a: ElementType,
    b: ElementType,
    acc: ElementType,
    n: u32,
    column: usize,
) -> Option<MmaAtom> {
    if n < 8 || n > 256 || !n.is_multiple_of(8) {
        return None;
    }
    let row = n as usize / 8 - 1;
    match (fp8(a), fp8(b), int8(a), int8(b), acc) {
        (Some(ia), Some(ib), _, _, F32 | F16) => {
            let acc_index = if matches!(acc, F32) { 0 } else { 1 };
            Some(SM90_GMMA_F8[row * 16 + acc_index * 8 + (ia * 2 + ib) * 2 + column])
        }
        (_, _, Some(ia), Some(ib), I32) => {
            // N = 8, 16, 24, then every 16.
            let index = if n <= 32 {
                n as usize / 8 - 1
            } else if n.is_multiple_of(16) {
                n as usize / 16 + 1
            } else {
                return None;
            };
            Some(SM90_GMMA_I8[index * 8 + (ia * 2 + ib) * 2 + column])
        }
        _ => None,
    }
}
