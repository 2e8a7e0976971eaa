//! The SM90 warpgroup MMA table, [`SM90_GMMA`]: `wgmma.mma_async` `m64nNk16`
//! (bf16, f16 with f32 or f16 accumulators) and `m64nNk8` (tf32) for
//! N = 8..256 step 8, A from shared memory (`_SS`) or registers (`_RS`), B
//! always from shared memory; with the thread/value layouts of CuTe's
//! `mma_traits_sm90_gmma.hpp`, and the emitters of the instruction and its
//! ordering (`wgmma.fence`, `commit_group`, `wait_group`).
//!
//! Thread `T` of the warpgroup is `(t, g, w) = (T % 4, (T / 4) % 8, T / 32)`;
//! the accumulator (`CLayout_64xN`) is the m16n8 C fragment of warp `w`
//! (rows `16w..16w+15`) repeated every 8 columns: value `i` of thread `T`
//! is at row `16w + g + 8((i >> 1) & 1)`, column `8(i >> 2) + 2t + (i & 1)`.
//! An `_SS` operand is not split among threads: every thread's layout is the
//! whole tile (CuTe's `ABLayout`, thread stride 0), since the instruction
//! reads it through a descriptor ([`GmmaDescriptor`](super::GmmaDescriptor)).
#![allow(non_upper_case_globals)]

use super::atom_layout::{AtomLayout, AtomMode};
use super::emit::check_regs;
use super::mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
use super::mma_sm90_gmma_8bit::gmma8_atom;
use crate::arch::ArchKind;
use crate::numeric::ElementType::{self, BF16, F16, F32, TF32};
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// The snippet family of every wgmma atom and of the ordering instructions.
pub(super) const FAMILY: &str = "sm90/wgmma";
/// Threads of a warpgroup.
pub(super) const WARPGROUP: AtomLayout = AtomLayout::single(AtomMode::int(128, 1));
/// A registers per thread of an `_RS` atom (16-bit, tf32 and 8-bit alike).
pub(super) const RS_A_REGS: usize = 4;
/// The warpgroup's threads as `(t, g, w)` over a 64-row tile whose K (or N)
/// stride is `stride`: `(4,8,4):(stride,1,16)`.
pub(super) const fn warpgroup_lanes(stride: i64) -> AtomMode {
    AtomMode::of([4, 8, 4], [stride, 1, 16])
}

/// CuTe's `ALayout_64x16`: the 16-bit A fragment of an `_RS` atom. Value
/// `(v0,v1,v2)` of thread `(t,g,w)` is at `m = 16w + g + 8*v1`,
/// `k = 2t + v0 + 8*v2` (the m16n8k16 A fragment per warp).
const A_RS_16BIT: AtomLayout =
    AtomLayout::tv(warpgroup_lanes(128), AtomMode::of([2, 2, 2], [64, 8, 512]));
/// CuTe's `ALayout_64x8`: the tf32 A fragment of an `_RS` atom. Value
/// `(v0,v1)` of thread `(t,g,w)` is at `m = 16w + g + 8*v0`, `k = t + 4*v1`.
const A_RS_TF32: AtomLayout = AtomLayout::tv(warpgroup_lanes(64), AtomMode::of([2, 2], [8, 256]));

/// CuTe's `ABLayout<rows, k>`: the whole `rows x k` tile for every thread,
/// `(128,(rows,k)):(0,(1,rows))`.
pub(super) const fn ab_whole(rows: i64, k: i64) -> AtomLayout {
    AtomLayout::tv(AtomMode::int(128, 0), AtomMode::of([rows, k], [1, rows]))
}

/// CuTe's `CLayout_64xN`: `((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`.
pub(super) const fn c_64xn(n: i64) -> AtomLayout {
    AtomLayout::tv(
        warpgroup_lanes(128),
        AtomMode::of([2, 2, n / 8], [64, 8, 512]),
    )
}

/// One type family of wgmma: the types, K and the two snippets.
#[derive(Clone, Copy)]
struct Family {
    acc: ElementType,
    ab: ElementType,
    k: i64,
    ss: &'static str,
    rs: &'static str,
    a_rs: AtomLayout,
}

const F32BF16: Family = Family {
    acc: F32,
    ab: BF16,
    k: 16,
    ss: "wgmma_ss_f32_bf16_bf16",
    rs: "wgmma_rs_f32_bf16_bf16",
    a_rs: A_RS_16BIT,
};
const F32F16: Family = Family {
    acc: F32,
    ab: F16,
    k: 16,
    ss: "wgmma_ss_f32_f16_f16",
    rs: "wgmma_rs_f32_f16_f16",
    a_rs: A_RS_16BIT,
};
const F16F16: Family = Family {
    acc: F16,
    ab: F16,
    k: 16,
    ss: "wgmma_ss_f16_f16_f16",
    rs: "wgmma_rs_f16_f16_f16",
    a_rs: A_RS_16BIT,
};
const F32TF32: Family = Family {
    acc: F32,
    ab: TF32,
    k: 8,
    ss: "wgmma_ss_f32_tf32_tf32",
    rs: "wgmma_rs_f32_tf32_tf32",
    a_rs: A_RS_TF32,
};

/// The families in table order (within one N).
const FAMILIES: [Family; 4] = [F32BF16, F32F16, F16F16, F32TF32];

/// One row of the table: `family` at width `n`, A from `source`.
const fn gmma(
    family: Family,
    n: i64,
    source: MmaSource,
    name: &'static str,
    opcode: &'static str,
) -> MmaAtom {
    let rs = matches!(source, MmaSource::RegisterShared);
    let f32_acc = matches!(family.acc, F32);
    MmaAtom {
        name,
        arch: ArchKind::Sm90,
        shape_mnk: [64, n, family.k],
        types: MmaTypes {
            d: family.acc,
            a: family.ab,
            b: family.ab,
            c: family.acc,
        },
        regs: MmaRegs {
            a: if rs { RS_A_REGS } else { 0 },
            b: 0,
            c: if f32_acc {
                n as usize / 2
            } else {
                n as usize / 4
            },
            ab_class: RegClass::B32,
            c_class: if f32_acc {
                RegClass::F32
            } else {
                RegClass::B32
            },
        },
        source,
        opcode,
        snippet: SnippetRef {
            family: FAMILY,
            name: if rs { family.rs } else { family.ss },
        },
        thr_id: WARPGROUP,
        a: if rs {
            family.a_rs
        } else {
            ab_whole(64, family.k)
        },
        b: ab_whole(n, family.k),
        c: c_64xn(n),
    }
}

/// The eight rows of one N: each family `_SS` then `_RS`, in [`FAMILIES`] order.
macro_rules! gmma_rows_of {
    ($n:literal) => {
        [
            gmma_row!($n, F32BF16, "16", "F32BF16BF16", "f32.bf16.bf16", SS),
            gmma_row!($n, F32BF16, "16", "F32BF16BF16", "f32.bf16.bf16", RS),
            gmma_row!($n, F32F16, "16", "F32F16F16", "f32.f16.f16", SS),
            gmma_row!($n, F32F16, "16", "F32F16F16", "f32.f16.f16", RS),
            gmma_row!($n, F16F16, "16", "F16F16F16", "f16.f16.f16", SS),
            gmma_row!($n, F16F16, "16", "F16F16F16", "f16.f16.f16", RS),
            gmma_row!($n, F32TF32, "8", "F32TF32TF32", "f32.tf32.tf32", SS),
            gmma_row!($n, F32TF32, "8", "F32TF32TF32", "f32.tf32.tf32", RS),
        ]
    };
}

/// One row: its CuTe name and opcode spelled from N, K and the types.
macro_rules! gmma_row {
    ($n:literal, $family:ident, $k:literal, $types:literal, $ptx:literal, SS) => {
        gmma_row!(@ $n, $family, $k, $types, $ptx, "_SS", MmaSource::SharedShared)
    };
    ($n:literal, $family:ident, $k:literal, $types:literal, $ptx:literal, RS) => {
        gmma_row!(@ $n, $family, $k, $types, $ptx, "_RS", MmaSource::RegisterShared)
    };
    (@ $n:literal, $family:ident, $k:literal, $types:literal, $ptx:literal, $suffix:literal, $source:expr) => {
        gmma(
            $family,
            $n,
            $source,
            concat!("SM90_64x", stringify!($n), "x", $k, "_", $types, $suffix),
            concat!(
                "wgmma.mma_async.sync.aligned.m64n",
                stringify!($n),
                "k",
                $k,
                ".",
                $ptx
            ),
        )
    };
}

/// The whole table from its list of N: the rows of each N in turn.
macro_rules! gmma_table {
    ($($n:literal)*) => {
        /// Every SM90 wgmma atom: for each N = 8, 16, .., 256 in turn, the
        /// eight atoms `SM90_64xNx16_F32BF16BF16_SS`, `.._RS`,
        /// `SM90_64xNx16_F32F16F16_SS`, `.._RS`, `SM90_64xNx16_F16F16F16_SS`,
        /// `.._RS`, `SM90_64xNx8_F32TF32TF32_SS`, `.._RS`. Pick one with
        /// [`gmma_atom`] or [`MmaAtom::named`].
        ///
        /// ```
        /// use cutlet::atom::{MmaSource, SM90_GMMA};
        ///
        /// assert_eq!(SM90_GMMA.len(), 32 * 8);
        /// let atom = SM90_GMMA[8 * 15];
        /// assert_eq!(atom.name(), "SM90_64x128x16_F32BF16BF16_SS");
        /// assert_eq!(atom.opcode(), "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16");
        /// assert_eq!(atom.source(), MmaSource::SharedShared);
        /// assert_eq!(atom.regs().c, 64);
        /// assert_eq!(atom.c_layout().to_string(), "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))");
        /// assert_eq!(atom.a_layout().to_string(), "(128,(64,16)):(0,(1,64))");
        /// ```
        pub const SM90_GMMA: [MmaAtom; 8 * [$($n),*].len()] = {
            let rows = [$(gmma_rows_of!($n)),*];
            let mut all = [rows[0][0]; 8 * [$($n),*].len()];
            let mut i = 0;
            while i < all.len() {
                all[i] = rows[i / 8][i % 8];
                i += 1;
            }
            all
        };
    };
}

gmma_table!(
    8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128
    136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256
);

/// The wgmma atom for A, B and accumulator types, width `n` and A's
/// `source` ([`MmaSource::SharedShared`] or [`MmaSource::RegisterShared`]),
/// if a table has one: bf16 x bf16 + f32, f16 x f16 + f32 or f16, and
/// tf32 x tf32 + f32 (f32 A and B run as tf32) from [`SM90_GMMA`]; any pair
/// of e4m3 and e5m2 + f32 or f16 from [`SM90_GMMA_F8`](super::SM90_GMMA_F8);
/// any pair of i8 and u8 + i32 from [`SM90_GMMA_I8`](super::SM90_GMMA_I8);
/// `n` a multiple of 8 from 8 to 256 (for the integers 8, 16, 24 or a
/// multiple of 16).
///
/// ```
/// use cutlet::atom::{gmma_atom, MmaSource};
/// use cutlet::numeric::ElementType::{BF16, F16, F32};
///
/// let atom = gmma_atom(F16, F16, F16, 64, MmaSource::RegisterShared).unwrap();
/// assert_eq!(atom.name(), "SM90_64x64x16_F16F16F16_RS");
/// assert_eq!(atom.regs().c, 16); // 32 f16 values, two per .b32
/// assert_eq!(gmma_atom(F32, F32, F32, 8, MmaSource::SharedShared).unwrap().shape_mnk(), [64, 8, 8]);
/// assert_eq!(gmma_atom(BF16, BF16, F32, 12, MmaSource::SharedShared), None);
/// assert_eq!(gmma_atom(BF16, BF16, F32, 64, MmaSource::Registers), None);
///
/// use cutlet::numeric::ElementType::{F8E4M3, F8E5M2, I32, I8, U8};
/// let fp8 = gmma_atom(F8E5M2, F8E4M3, F32, 256, MmaSource::SharedShared).unwrap();
/// assert_eq!(fp8.name(), "SM90_64x256x32_F32E5M2E4M3_SS_TN");
/// let int8 = gmma_atom(U8, I8, I32, 48, MmaSource::RegisterShared).unwrap();
/// assert_eq!(int8.name(), "SM90_64x48x32_S32U8S8_RS_TN");
/// assert_eq!(gmma_atom(I8, I8, I32, 40, MmaSource::SharedShared), None); // not an integer N
/// assert_eq!(gmma_atom(F8E4M3, I8, F32, 64, MmaSource::SharedShared), None);
/// ```
pub const fn gmma_atom(
    a: ElementType,
    b: ElementType,
    acc: ElementType,
    n: u32,
    source: MmaSource,
) -> Option<MmaAtom> {
    let (a, b) = match (a, b) {
        (F32, F32) => (TF32, TF32),
        other => other,
    };
    let column = match source {
        MmaSource::SharedShared => 0,
        MmaSource::RegisterShared => 1,
        MmaSource::Registers => return None,
    };
    if a.size_bits() == 8 {
        return gmma8_atom(a, b, acc, n, column);
    }
    if n < 8 || n > 256 || !n.is_multiple_of(8) || a as u32 != b as u32 {
        return None;
    }
    let mut f = 0;
    while f < FAMILIES.len() {
        let family = FAMILIES[f];
        if family.ab as u32 == a as u32 && family.acc as u32 == acc as u32 {
            return Some(SM90_GMMA[(n as usize / 8 - 1) * 8 + 2 * f + column]);
        }
        f += 1;
    }
    None
}

/// The `scale-d` operand of a wgmma: `D = A*B` (0), `D = A*B + D` (1), or a
/// `.pred` register that chooses at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleD {
    /// The immediate 0: the accumulators' old values are ignored.
    Zero,
    /// The immediate 1: the product is added to the accumulators.
    One,
    /// A `.pred` register: added where it is true.
    Pred(Reg),
}

/// The A operand of a wgmma: a shared-memory descriptor (a `.b64`
/// register, `_SS` atoms) or the A fragment registers (four `.b32` per
/// thread, `_RS` atoms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmmaA<'a> {
    /// A's descriptor, for `_SS` atoms.
    Desc(Reg),
    /// A's fragment registers, for `_RS` atoms.
    Regs(&'a [Reg]),
}

impl MmaAtom {
    /// Whether the atom is an SM90 wgmma (A or B read through descriptors).
    pub const fn is_wgmma(self) -> bool {
        !matches!(self.source, MmaSource::Registers)
    }

    /// Emits one `wgmma.mma_async.sync.aligned.m64nNkK...` of this atom.
    /// `acc` are the accumulator registers (N/2 `.f32` for f32
    /// accumulators, N/4 `.b32` holding f16x2 for f16), read and written;
    /// `a` A's descriptor (`_SS`) or fragment (`_RS`); `desc_b` B's
    /// descriptor (`.b64`); `trans_a` / `trans_b` ask for an M-major A or an
    /// N-major B (f16 and bf16 only; `_RS` has no `trans_a`).
    ///
    /// ```
    /// use cutlet::atom::{gmma_atom, GmmaA, MmaSource, ScaleD};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let atom = gmma_atom(BF16, BF16, F32, 16, MmaSource::SharedShared).unwrap();
    /// let mut k = Kernel::new("demo").unwrap();
    /// let acc = k.regs(RegClass::F32, 8);
    /// let (da, db) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
    /// atom.emit_wgmma(&mut k, &acc, GmmaA::Desc(da), db, ScaleD::Zero, false, true).unwrap();
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, %rd0, %rd1, 0, 1, 1, 0, 1;"));
    /// // Five accumulators for a 64x16 f32 tile is an error naming the count.
    /// let e = atom.emit_wgmma(&mut k, &acc[..5], GmmaA::Desc(da), db, ScaleD::One, false, false);
    /// assert!(e.unwrap_err().to_string().contains("5 registers"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the atom is not a wgmma, when a
    /// register count or class is wrong, when `a` does not match the atom's
    /// source, or when a transpose is asked of tf32 (or of an `_RS` A).
    #[allow(clippy::too_many_arguments)]
    pub fn emit_wgmma(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        a: GmmaA<'_>,
        desc_b: Reg,
        scale_d: ScaleD,
        trans_a: bool,
        trans_b: bool,
    ) -> Result<()> {
        if !self.is_wgmma() {
            return Err(Error::invalid_argument(
                "wgmma atom",
                self.name,
                "an SM90 wgmma atom (SM90_64xNxK_..._SS or _RS)",
            ));
        }
        check_regs("wgmma acc", acc, self.regs.c, self.regs.c_class)?;
        check_regs("wgmma desc_b", &[desc_b], 1, RegClass::B64)?;
        let sixteen_bit = self.types.a.size_bits() == 16;
        if !sixteen_bit && (trans_a || trans_b) {
            return Err(Error::invalid_argument(
                "wgmma transpose",
                format!("trans_a {trans_a}, trans_b {trans_b} for {}", self.name),
                "no transpose: tf32 and 8-bit operands must be K-major",
            ));
        }
        let a_text = match (self.source, a) {
            (MmaSource::SharedShared, GmmaA::Desc(desc)) => {
                check_regs("wgmma desc_a", &[desc], 1, RegClass::B64)?;
                desc.to_string()
            }
            (MmaSource::RegisterShared, GmmaA::Regs(regs)) => {
                check_regs("wgmma a", regs, self.regs.a, self.regs.ab_class)?;
                if trans_a {
                    return Err(Error::invalid_argument(
                        "wgmma trans_a",
                        format!("true for {}", self.name),
                        "false: an A read from registers is K-major",
                    ));
                }
                list(regs)
            }
            (source, a) => {
                return Err(Error::invalid_argument(
                    "wgmma a",
                    format!("{a:?} for {} ({source:?})", self.name),
                    match source {
                        MmaSource::SharedShared => "GmmaA::Desc for an _SS atom",
                        _ => "GmmaA::Regs for an _RS atom",
                    },
                ))
            }
        };
        let scale = match scale_d {
            ScaleD::Zero => "0".to_string(),
            ScaleD::One => "1".to_string(),
            ScaleD::Pred(p) => {
                check_regs("wgmma scale_d", &[p], 1, RegClass::Pred)?;
                p.to_string()
            }
        };
        let n = self.shape_mnk[1];
        let acc_text = list(acc);
        let (ta, tb) = (u32::from(trans_a), u32::from(trans_b));
        let mut holes: Vec<(&str, &dyn std::fmt::Display)> = vec![
            ("n", &n),
            ("acc", &acc_text),
            ("a", &a_text),
            ("b", &desc_b),
            ("scale_d", &scale),
        ];
        if sixteen_bit {
            if self.source == MmaSource::SharedShared {
                holes.push(("trans_a", &ta));
            }
            holes.push(("trans_b", &tb));
        }
        // The 8-bit snippets take the types from the opcode: `f32.e4m3.e5m2`.
        let types = self.opcode.split_once("k32.").map_or("", |(_, t)| t);
        if self.types.a.size_bits() == 8 {
            holes.push(("types", &types));
        }
        k.snippet(self.snippet.family, self.snippet.name, &holes)?;
        Ok(())
    }
}

/// `%r1, %r2, ...`: a register list for a `{...}` vector operand.
fn list(regs: &[Reg]) -> String {
    regs.iter()
        .map(Reg::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Emits `wgmma.fence.sync.aligned;`: before the first wgmma, and after any
/// other instruction wrote the accumulator or A registers.
///
/// # Errors
/// Only if the snippet store lacks the snippet (a build defect).
pub fn emit_wgmma_fence(k: &mut Kernel) -> Result<()> {
    k.snippet(FAMILY, "wgmma_fence", &[])?;
    Ok(())
}

/// Emits `wgmma.commit_group.sync.aligned;`: the wgmmas issued since the
/// last commit become one group.
///
/// # Errors
/// Only if the snippet store lacks the snippet (a build defect).
pub fn emit_wgmma_commit(k: &mut Kernel) -> Result<()> {
    k.snippet(FAMILY, "wgmma_commit", &[])?;
    Ok(())
}

/// Emits `wgmma.wait_group.sync.aligned pending;`: waits until at most
/// `pending` groups are in flight (0: all done, accumulators readable).
///
/// ```
/// use cutlet::atom::emit_wgmma_wait;
/// use cutlet::ptx::Kernel;
///
/// let mut k = Kernel::new("demo").unwrap();
/// emit_wgmma_wait(&mut k, 1).unwrap();
/// assert!(k.emit().unwrap().contains("wgmma.wait_group.sync.aligned 1;"));
/// assert!(emit_wgmma_wait(&mut k, 8).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `pending` is above 7 (CUTLASS's
/// `warpgroup_wait<N>` range).
pub fn emit_wgmma_wait(k: &mut Kernel, pending: u32) -> Result<()> {
    if pending > MAX_PENDING {
        return Err(Error::invalid_argument(
            "wgmma wait_group pending",
            pending,
            format!("0 to {MAX_PENDING}"),
        ));
    }
    k.snippet(FAMILY, "wgmma_wait", &[("pending", &pending)])?;
    Ok(())
}

/// The largest `N` of `wgmma.wait_group N`.
const MAX_PENDING: u32 = 7;
