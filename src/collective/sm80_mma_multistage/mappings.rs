//! The thread mappings of [`Sm80MmaMultistage`], taken from [`crate::tiled`]:
//! which 16-byte chunk each thread copies global -> shared (a
//! [`TiledCopy`] of the `cp.async` atom over the CTA's threads) and which
//! shared row address each lane gives to `ldmatrix` (the [`TiledMma`]'s
//! `ldmatrix` partition of the swizzled stage). The generator emits each
//! partition's thread part once and uses its value parts as immediates.

use super::super::MmaKind;
use super::Sm80MmaMultistage;
use crate::atom::CopyAtom;
use crate::kernel::gemm::GemmSpec;
use crate::kernel::gemm::OperandMajor;
use crate::layout::{IntTuple, Layout};
use crate::numeric::ElementType;
use crate::tiled::{Operand, ThreadPartition, TiledCopy, TiledMma};
use crate::{Error, Result};

/// One operand's global-to-shared copy as the mainloop issues it.
///
/// Tile coordinates are (mn, k) of the operand's BM x BK (or BN x BK)
/// tile; a copy "row" is an mn row for K-major operands, a k row for
/// MN-major ones, and the "column" the contiguous coordinate.
#[derive(Clone, Debug)]
pub struct G2sMapping {
    /// The `cp.async` 16-byte atom over the block's threads.
    pub copy: TiledCopy,
    /// The copy row coordinate of each (thread, value).
    pub rows: ThreadPartition,
    /// The contiguous (column) coordinate of each (thread, value).
    pub cols: ThreadPartition,
    /// The element offset in the swizzled stage of each (thread, value).
    pub dst: ThreadPartition,
}

impl G2sMapping {
    /// Values one `cp.async` moves.
    pub fn per_instruction(&self) -> usize {
        self.copy.values_per_instruction() as usize
    }

    /// `cp.async` instructions per thread and stage.
    pub fn instructions(&self) -> usize {
        self.dst.values() as usize / self.per_instruction()
    }
}

/// The block's thread layout and each thread's value layout for the copy
/// of an `extent x bk` tile (mn, k) of `element`s: threads along the
/// contiguous mode first, 16 bytes each.
fn g2s_copy(
    major: OperandMajor,
    extent: i64,
    bk: i64,
    threads: i64,
    element: ElementType,
) -> Result<TiledCopy> {
    let atom = CopyAtom::Sm80CpAsyncCacheGlobalZfill;
    let per = atom.bits_per_thread() / i64::from(element.size_bits());
    let contiguous = match major {
        OperandMajor::K => bk,
        OperandMajor::MN => extent,
    } / per;
    if contiguous == 0 || threads % contiguous != 0 {
        return Err(Error::invalid_argument(
            "threads of the copy",
            threads,
            format!("a multiple of the {contiguous} chunks of 16 bytes along the contiguous mode"),
        ));
    }
    let across = threads / contiguous;
    let (thr, val) = match major {
        OperandMajor::K => ([across, contiguous], [1, per]),
        OperandMajor::MN => ([contiguous, across], [per, 1]),
    };
    let thr_stride = match major {
        OperandMajor::K => [contiguous, 1],
        OperandMajor::MN => [1, contiguous],
    };
    let thr = Layout::from_parts(IntTuple::ints(&thr), IntTuple::ints(&thr_stride));
    let val = Layout::from_parts(IntTuple::ints(&val), IntTuple::ints(&[1, 1]));
    TiledCopy::new(atom, element, &thr, &val)
}

/// [`Sm80MmaMultistage::tiled_mma`] of `spec` (the epilogue's too).
pub(crate) fn tiled_mma_of(spec: &GemmSpec, mma: MmaKind) -> Result<TiledMma> {
    let atom = mma.atom();
    let [am, an, _] = atom.shape_mnk();
    let [wm, wn, wk] = spec.warps.map(i64::from);
    let [bm, bn, _] = spec.tile.map(i64::from);
    let permutation = |a: i64, w: i64, extent: i64| {
        let r = extent / (a * w);
        Layout::from_parts(IntTuple::ints(&[a, w, r]), IntTuple::ints(&[1, a * r, a]))
    };
    TiledMma::new(atom, [wm, wn, wk])?.with_permutation([
        Some(permutation(am, wm, bm)),
        Some(permutation(an, wn, bn)),
        None,
    ])
}

impl Sm80MmaMultistage {
    /// The tiled MMA: the atom over the spec's warp layout, permuted so
    /// that each warp owns one contiguous warp tile (CuTe's
    /// `permutation_mnk` of `(atom, W, R):(1, atom * R, atom)` along M and
    /// N, `R` the atom tiles of a warp tile) instead of atoms interleaved
    /// across warps; register fragments run over a warp tile's atoms, M
    /// (or N) first, then k-steps.
    pub fn tiled_mma(&self) -> Result<TiledMma> {
        tiled_mma_of(&self.spec, self.mma)
    }

    /// The global-to-shared copy of operand A or B.
    pub fn g2s(&self, op: Operand) -> Result<G2sMapping> {
        let (smem, element) = self.operand(op)?;
        let (extent, bk) = (i64::from(smem.extent), i64::from(smem.bk));
        let copy = g2s_copy(smem.major, extent, bk, i64::from(smem.threads), element)?;
        let tile = [extent, bk];
        let coord =
            |stride: [i64; 2]| Layout::from_parts(IntTuple::ints(&tile), IntTuple::ints(&stride));
        let (row, col) = match smem.major {
            OperandMajor::K => (coord([1, 0]), coord([0, 1])),
            OperandMajor::MN => (coord([0, 1]), coord([1, 0])),
        };
        let mapping = G2sMapping {
            rows: copy.partition_s(tile, &row)?,
            cols: copy.partition_s(tile, &col)?,
            dst: copy.partition_d_swizzled(tile, &smem.layout())?,
            copy,
        };
        mapping.copy.check_vectorized(&mapping.dst)?;
        Ok(mapping)
    }

    /// The `ldmatrix` (`.trans` for MN-major) partition of operand A or B
    /// over one stage's swizzled tile: value `i` is the row address of
    /// instruction `i`, which fills fragment registers `4i..4i+3`; `i`
    /// runs over the warp tile's 16-wide MN blocks first, then k-steps.
    pub fn ldsm(&self, op: Operand) -> Result<ThreadPartition> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        self.tiled_mma()?.partition_ldsm_swizzled(
            op,
            tile,
            smem.major == OperandMajor::MN,
            &smem.layout(),
        )
    }

    /// Whether operand A or B reaches its fragments through `ldmatrix`:
    /// 16-bit operands always, 32-bit (tf32) ones when K-major (`ldmatrix`
    /// moves 16-bit halves, so `.trans` would split a 32-bit element).
    /// Otherwise each fragment register is one 32-bit `ld.shared`
    /// ([`fragment_loads`](Self::fragment_loads)).
    pub fn uses_ldmatrix(&self, op: Operand) -> Result<bool> {
        let (smem, _) = self.operand(op)?;
        Ok(smem.element_bytes == 2 || smem.major == OperandMajor::K)
    }

    /// The fragment partition of operand A or B over one stage's swizzled
    /// tile for 32-bit `ld.shared` loads (CuTe's `UniversalCopy<uint32_t>`
    /// S2R copy): the tiled MMA's A or B partition, value `v` the element
    /// of fragment register `v`, registers of a k-step contiguous (value
    /// `f + F * (block + blocks * kk)`, `F` values of one atom, `block` the
    /// atom along MN in the warp tile, `kk` the k-step).
    pub fn fragment_loads(&self, op: Operand) -> Result<ThreadPartition> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        self.tiled_mma()?
            .partition_swizzled(op, tile, &smem.layout())
    }

    fn operand(&self, op: Operand) -> Result<(super::OperandSmem, ElementType)> {
        match op {
            Operand::A => Ok((self.a, self.spec.a)),
            Operand::B => Ok((self.b, self.spec.b)),
            Operand::C => Err(Error::invalid_argument(
                "mainloop operand",
                "C",
                "A or B (C is the epilogue's)",
            )),
        }
    }
}
