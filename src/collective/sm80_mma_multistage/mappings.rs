//! The thread mappings of [`Sm80MmaMultistage`], taken from [`crate::tiled`]:
//! which 16-byte chunk each thread copies global -> shared (a
//! [`TiledCopy`] of the `cp.async` atom over the CTA's threads) and which
//! shared row address each lane gives to `ldmatrix` (the [`TiledMma`]'s
//! `ldmatrix` partition of the swizzled stage). The generator emits each
//! partition's thread part once and uses its value parts as immediates.

use super::Sm80MmaMultistage;
use crate::atom::{CopyAtom, MmaAtom};
use crate::collective::TileContext;
use crate::gemm::OperandMajor;
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

/// The tiled copy of an `extent x bk` tile (mn, k) of `element`s over at
/// most `threads` threads with the 16-byte copy `atom` (CuTe's
/// `make_tiled_copy` from a thread count and a tile): one 16-byte chunk per
/// thread and step, threads along the
/// contiguous mode first (`gcd(threads, chunks per row)` of them), then
/// along the other (`gcd` of the threads left and the rows). With fewer
/// threads than that, each thread copies several chunks of a row; with more
/// threads than chunks, the threads past the copy's own stay idle.
fn g2s_copy(
    atom: CopyAtom,
    major: OperandMajor,
    extent: i64,
    bk: i64,
    threads: i64,
    element: ElementType,
) -> Result<TiledCopy> {
    let per = atom.bits_per_thread() / i64::from(element.size_bits());
    let (contiguous, rows) = match major {
        OperandMajor::K => (bk, extent),
        OperandMajor::MN => (extent, bk),
    };
    let chunks = contiguous / per;
    if chunks == 0 || contiguous % per != 0 || threads < 1 {
        return Err(Error::invalid_argument(
            "copy tile",
            format!("{extent}x{bk} of {element}"),
            format!("a contiguous extent of whole 16-byte chunks ({per} elements)"),
        ));
    }
    let along = gcd(threads, chunks);
    let across = gcd(threads / along, rows);
    let (thr, val) = match major {
        OperandMajor::K => ([across, along], [1, per]),
        OperandMajor::MN => ([along, across], [per, 1]),
    };
    let thr_stride = match major {
        OperandMajor::K => [along, 1],
        OperandMajor::MN => [1, along],
    };
    let thr = Layout::from_parts(IntTuple::ints(&thr), IntTuple::ints(&thr_stride));
    let val = Layout::from_parts(IntTuple::ints(&val), IntTuple::ints(&[1, 1]));
    TiledCopy::new(atom, element, &thr, &val)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The copy of one operand's tile `smem` of `element`s into its swizzled
/// stage with the 16-byte copy `atom` (`cp.async` for SM80, a 128-bit
/// register load and store for SM70), each thread's chunks as rows,
/// columns and destination offsets.
pub(crate) fn g2s_mapping(
    atom: CopyAtom,
    smem: &super::OperandSmem,
    element: ElementType,
) -> Result<G2sMapping> {
    let (extent, bk) = (i64::from(smem.extent), i64::from(smem.bk));
    let copy = g2s_copy(
        atom,
        smem.major,
        extent,
        bk,
        i64::from(smem.threads),
        element,
    )?;
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

/// [`Sm80MmaMultistage::tiled_mma`] of `spec`.
pub(crate) fn tiled_mma_of(spec: &TileContext, atom: MmaAtom) -> Result<TiledMma> {
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
        g2s_mapping(CopyAtom::Sm80CpAsyncCacheGlobalZfill, &smem, element)
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

    /// Registers of operand A's or B's fragment of one k-step of the warp
    /// tile (the tiled MMA's fragment: values of an atom times the atoms
    /// along M or N, over the values a register holds).
    pub fn fragment_registers(&self, op: Operand) -> Result<u32> {
        let (smem, element) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        let fragment = self.tiled_mma()?.fragment(op, tile)?.flatten();
        let per_reg = i64::from(32 / element.size_bits());
        Ok(u32::try_from(fragment[0] * fragment[1] / per_reg).unwrap_or(0))
    }

    /// One k-step's fragment of operand A or B: the tiled MMA's fragment
    /// `(FrgV, RestMN)` of the warp tile at one k-step, values in order
    /// (an atom's values, then the atoms along MN), as the `ldmatrix` and
    /// `ld.shared` partitions fill the registers.
    pub fn fragment_layout(&self, op: Operand) -> Result<Layout> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        let fragment = self.tiled_mma()?.fragment(op, tile)?.flatten();
        Ok(Layout::from_parts(
            IntTuple::ints(&fragment[..2]),
            IntTuple::ints(&[1, fragment[0]]),
        ))
    }

    /// The element type the atom takes for operand A or B (tf32 for f32
    /// data).
    pub(super) fn operand_atom_type(&self, op: Operand) -> ElementType {
        let types = self.mma.types();
        match op {
            Operand::B => types.b,
            _ => types.a,
        }
    }

    /// How many 8x8 matrices each `ldmatrix` of operand A or B loads (see
    /// [`TiledMma::ldsm_matrices`]).
    pub fn ldsm_matrices(&self, op: Operand) -> Result<u32> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        Ok(self.tiled_mma()?.ldsm_matrices(op, tile)? as u32)
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
            Operand::A => Ok((self.a, self.spec.types.a)),
            Operand::B => Ok((self.b, self.spec.types.b)),
            Operand::C => Err(Error::invalid_argument(
                "mainloop operand",
                "C",
                "A or B (C is the epilogue's)",
            )),
        }
    }
}
