//! The thread mappings of [`Sm70MmaPipelined`], taken from [`crate::tiled`]:
//! the quad-pair tiled MMA and its permutation, each thread's 16-byte
//! chunks of the global -> register -> shared copy (a [`TiledCopy`](crate::tiled::TiledCopy) of a
//! 128-bit atom over the block), and each fragment load's shared-memory
//! offsets (the tiled MMA's A and B partitions of the swizzled stage). The
//! bank-conflict model the shared layouts are checked against lives here
//! too ([`SharedAccess`]).

use super::Sm70MmaPipelined;
use crate::atom::{CopyAtom, MmaAtom, SM70_MMA};
use crate::collective::sm80_mma_multistage::g2s_mapping;
use crate::collective::{G2sMapping, OperandSmem, TileContext};
use crate::gemm::OperandMajor;
use crate::layout::{IntTuple, Layout};
use crate::numeric::ElementType;
use crate::tiled::{Operand, ThreadPartition, TiledMma};
use crate::{Error, Result};

/// The SM70 atom of `ctx`: f16 inputs, f32 or f16 accumulators, in the
/// operand majors of `ctx` (A K-major is CuTe's `T`, B K-major its `N`).
pub(crate) fn sm70_atom(ctx: &TileContext) -> Option<MmaAtom> {
    let types = ctx.types;
    if types.a != ElementType::F16 || types.b != ElementType::F16 {
        return None;
    }
    let a = match ctx.majors.a {
        OperandMajor::K => 'T',
        OperandMajor::MN => 'N',
    };
    let b = match ctx.majors.b {
        OperandMajor::K => 'N',
        OperandMajor::MN => 'T',
    };
    SM70_MMA
        .into_iter()
        .find(|atom| atom.types().c == types.acc && atom.name().ends_with(&format!("_{a}{b}")))
}

/// The permutation of one mode (M or N) of extent `extent` over `q` quad
/// pairs (even) with `r = extent / (8q)` atoms each (even): logical
/// `t + 8 (qp + q i)` (atom row `t = (t01, t2)`, quad pair `qp = (q0, qh)`,
/// atom `i = (i0, ih)`) goes to physical bits `t01 -> 0..2`, `q0 -> 2`,
/// `t2 -> 3`, `i0 -> 4`, then `qh`, then `ih`:
/// `((4,2),(2,q/2),(2,r/2)):((1,8),(4,32),(16,16q))`. So the two quad pairs
/// of a warp's quarter (lanes 0-7 hold pairs 0 and 1) read 8 distinct rows
/// modulo 8 of a K-major tile, and 4-row groups of distinct halves of a
/// 16-byte chunk of an MN-major one.
fn permutation(extent: i64, q: i64) -> Layout {
    let r = extent / (8 * q);
    Layout::from_parts(
        IntTuple::tuple([
            IntTuple::ints(&[4, 2]),
            IntTuple::ints(&[2, q / 2]),
            IntTuple::ints(&[2, r / 2]),
        ]),
        IntTuple::tuple([
            IntTuple::ints(&[1, 8]),
            IntTuple::ints(&[4, 32]),
            IntTuple::ints(&[16, 16 * q]),
        ]),
    )
}

/// The tiled MMA of an SM70 kernel with context `ctx`: its atom over
/// `[2 WM, 2 WN, 1]` quad pairs (each warp 4 of them), permuted along M
/// and N as [`permutation`] says.
pub(crate) fn tiled_mma_of(ctx: &TileContext) -> Result<TiledMma> {
    let atom = sm70_atom(ctx).ok_or_else(|| {
        Error::invalid_argument(
            "element types",
            format!("{}/{}/{} on sm_70", ctx.types.a, ctx.types.b, ctx.types.acc),
            "f16 inputs with f32 or f16 accumulators",
        )
    })?;
    let [wm, wn, wk] = ctx.warps.map(i64::from);
    let [bm, bn, _] = ctx.tile.map(i64::from);
    let (qm, qn) = (2 * wm, 2 * wn);
    for (extent, q, mode) in [(bm, qm, "M"), (bn, qn, "N")] {
        if extent % (16 * q) != 0 {
            return Err(Error::invalid_argument(
                format!("tile extent along {mode}"),
                extent,
                format!(
                    "a multiple of {} (two 8-row atoms per quad pair, {q} quad pairs)",
                    16 * q
                ),
            ));
        }
    }
    TiledMma::new(atom, [qm, qn, wk])?.with_permutation([
        Some(permutation(bm, qm)),
        Some(permutation(bn, qn)),
        None,
    ])
}

/// One warp-wide shared-memory access: each lane's byte offset in the
/// stage (`None` for a lane that does not take part) and the bytes each
/// moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedAccess {
    /// Byte offset of each of the 32 lanes' access.
    pub lanes: Vec<Option<u32>>,
    /// Bytes each lane moves: 4, 8 or 16.
    pub bytes: u32,
}

impl SharedAccess {
    /// The wavefronts beyond the first that bank conflicts add, in the
    /// model CUTLASS's shared layouts are designed for: a warp's request
    /// of `bytes` per lane is served 128 bytes at a time, lanes in groups
    /// of `128 / bytes` (a quarter warp for 16 bytes, a half for 8); within
    /// a group, distinct 4-byte words in one of the 32 banks serialize,
    /// equal words broadcast. 0 means conflict-free.
    ///
    /// ```
    /// use cutlet::collective::SharedAccess;
    ///
    /// // 8 lanes reading 16 bytes each at consecutive chunks: one wavefront.
    /// let row = SharedAccess { lanes: (0..32).map(|l| Some(16 * (l % 8))).collect(), bytes: 16 };
    /// assert_eq!(row.conflicts(), 0);
    /// // Lanes 0-7 reading chunk 0 of 8 rows 128 bytes apart: 8-way.
    /// let column = SharedAccess { lanes: (0..32).map(|l| Some(128 * (l % 8))).collect(), bytes: 16 };
    /// assert_eq!(column.conflicts(), 4 * 7);
    /// ```
    pub fn conflicts(&self) -> u32 {
        let group = (128 / self.bytes.max(4)) as usize;
        let mut extra = 0;
        for lanes in self.lanes.chunks(group) {
            let mut words: Vec<Vec<u32>> = vec![Vec::new(); 32];
            for &at in lanes.iter().flatten() {
                for word in 0..self.bytes / 4 {
                    let w = at / 4 + word;
                    let bank = &mut words[(w % 32) as usize];
                    if !bank.contains(&w) {
                        bank.push(w);
                    }
                }
            }
            let ways = words.iter().map(Vec::len).max().unwrap_or(0).max(1);
            extra += ways as u32 - 1;
        }
        extra
    }
}

impl Sm70MmaPipelined {
    /// The tiled MMA: the SM70 atom over `[2 WM, 2 WN, 1]` quad pairs,
    /// each warp 4 of them (CuTe's `make_tiled_mma(SM70_8x8x4_...,
    /// Layout<Shape<QM,QN,_1>>, permutation_mnk)`), M and N permuted so
    /// that the fragment loads of every operand major are free of bank
    /// conflicts.
    pub fn tiled_mma(&self) -> Result<TiledMma> {
        tiled_mma_of(&self.spec)
    }

    /// The global -> register -> shared copy of operand A or B: 16-byte
    /// chunks, threads along the contiguous dimension first (the same
    /// mapping the SM80 `cp.async` copies use, with a 128-bit atom).
    pub fn g2s(&self, op: Operand) -> Result<G2sMapping> {
        let (smem, element) = self.operand(op)?;
        g2s_mapping(CopyAtom::Universal128, &smem, element)
    }

    /// The tiled MMA's partition of operand A or B over one stage's
    /// swizzled tile: value `f + 4 (mn + RestMN k)` is value `f` of atom
    /// `mn` along M (or N) at k-step `k`.
    pub fn fragment_partition(&self, op: Operand) -> Result<ThreadPartition> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        self.tiled_mma()?
            .partition_swizzled(op, tile, &smem.layout())
    }

    /// Atoms along M (or N) of one quad pair: `RestMN` of the fragment.
    pub(super) fn atoms_along(&self, op: Operand) -> Result<i64> {
        let (smem, _) = self.operand(op)?;
        let tile = [i64::from(smem.extent), i64::from(smem.bk)];
        Ok(self.tiled_mma()?.fragment(op, tile)?.flatten()[1])
    }

    /// The fragment loads of operand A or B for k-group `g` (two k-steps):
    /// for each, the first value of the partition it fills and how many
    /// values. K-major: one 16-byte load per atom along M (or N), both
    /// k-steps' values (the atom's row holds 4 contiguous k a k-step);
    /// MN-major: one 8-byte load per atom and k-step (4 contiguous M or N).
    pub(super) fn fragment_loads(&self, op: Operand, g: i64) -> Result<Vec<Vec<usize>>> {
        let (smem, _) = self.operand(op)?;
        let along = self.atoms_along(op)?;
        let value = |mn: i64, kk: i64, f: i64| (f + 4 * (mn + along * kk)) as usize;
        let mut loads = Vec::new();
        for mn in 0..along {
            match smem.major {
                OperandMajor::K => {
                    loads.push((0..8).map(|i| value(mn, 2 * g + i / 4, i % 4)).collect())
                }
                OperandMajor::MN => {
                    for kk in 0..2 {
                        loads.push((0..4).map(|f| value(mn, 2 * g + kk, f)).collect());
                    }
                }
            }
        }
        Ok(loads)
    }

    /// Every warp-wide shared-memory access of one stage of operand A or
    /// B: the register -> shared 16-byte stores of the copy, then the
    /// fragment loads of every k-group, by the threads of warp `warp`.
    /// The tests hold each to [`SharedAccess::conflicts`]` == 0`.
    pub fn shared_accesses(&self, op: Operand, warp: i64) -> Result<Vec<SharedAccess>> {
        let (smem, _) = self.operand(op)?;
        let esize = i64::from(smem.element_bytes);
        let lanes = |f: &dyn Fn(i64) -> Option<i64>| -> Vec<Option<u32>> {
            (0..32)
                .map(|l| f(32 * warp + l).map(|o| (o * esize) as u32))
                .collect()
        };
        let mut out = Vec::new();
        let g = self.g2s(op)?;
        let copiers = g.copy.threads();
        for i in 0..g.instructions() {
            let v = i * g.per_instruction();
            out.push(SharedAccess {
                lanes: lanes(&|t| (t < copiers).then(|| g.dst.offset(t, v))),
                bytes: 16,
            });
        }
        let p = self.fragment_partition(op)?;
        for kg in 0..self.k_groups() as i64 {
            for load in self.fragment_loads(op, kg)? {
                out.push(SharedAccess {
                    lanes: lanes(&|t| Some(p.offset(t, load[0]))),
                    bytes: load.len() as u32 * 2,
                });
            }
        }
        Ok(out)
    }

    pub(super) fn operand(&self, op: Operand) -> Result<(OperandSmem, ElementType)> {
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
