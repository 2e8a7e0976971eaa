//! The register-to-shared copies of a subtile and the shared addresses
//! they use: `stmatrix` of the packed 16-bit values where D's type allows
//! (the [`MatrixCopy`] of the tiled MMA's fragment), else one value or pair
//! at a time (f32); C read back the same way (`ldmatrix`, plain loads).
//!
//! A place in a warpgroup's subtile buffer is (row of the band, column of
//! the subtile). Its byte offset is split in two: a run-time part, the
//! swizzled address of the thread's own place plus a *key* (the part of
//! the place that reaches the swizzled bits), emitted once per tile for
//! each key; and an immediate (whole 8-row groups of a row-major buffer,
//! whole boxes and 8-column groups of a column-major one), a multiple of
//! the swizzle's period, so that it adds after the swizzle.

use super::matrix_copy::{MatrixCopy, MatrixInstruction};
use super::{atom_error, EpilogueSm90TmaStore, SUBTILE_N};
use crate::atom::{
    CopyAtom, GmmaSwizzle, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N, SM90_U16x8_STSM_T,
    SM90_U32x4_STSM_N,
};
use crate::collective::epilogue_fusion::emit_pack_pair;
use crate::collective::Sm90TiledMma;
use crate::gemm::OutputMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// The run-time addresses of one tile's staged places: per key (see the
/// module's docs), the swizzled shared address of the thread's place plus
/// that key.
pub(super) struct Staging {
    bases: Vec<([u32; 2], Reg)>,
}

impl Staging {
    /// The address operand of `place` in the buffer at byte `buffer`.
    fn at(
        &self,
        epi: &EpilogueSm90TmaStore,
        place: [u32; 2],
        buffer: u32,
    ) -> Result<String, PtxError> {
        let (key, imm) = epi.split_place(place);
        let base = self
            .bases
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| *r)
            .ok_or_else(|| {
                atom_error(crate::Error::invalid_argument(
                    "staged place",
                    format!("{place:?} (key {key:?})"),
                    "a place whose key the tile's staging emitted",
                ))
            })?;
        Ok(format!("{base}+{}", buffer + imm))
    }
}

impl EpilogueSm90TmaStore {
    /// Whether D's elements are 16-bit, so that the fragments are staged
    /// with `stmatrix` (`.trans` for a column-major D); a 32-bit D (f32 or
    /// i32) is staged with plain stores.
    pub(super) fn stores_matrices(&self) -> bool {
        self.spec.types.d.size_bytes() == 2
    }

    /// Converts one thread's column pair to one word of two 16-bit
    /// elements, the first in the low half: one `cvt.rn.{f16x2,bf16x2}.f32`.
    pub(super) fn pack(&self, k: &mut Kernel, values: &[Reg]) -> Reg {
        let word = k.reg(RegClass::B32);
        emit_pack_pair(k, self.spec.types.d, word, values[0], values[1]);
        word
    }

    /// The copy atom that stages D's matrices (`store`) or reads C's back:
    /// `stmatrix`/`ldmatrix`, transposed for a column-major D.
    fn matrix_atom(&self, store: bool) -> CopyAtom {
        match (self.spec.majors.d, store) {
            (OutputMajor::N, true) => CopyAtom::Sm90U32x4StsmN,
            (OutputMajor::M, true) => CopyAtom::Sm90U16x8StsmT,
            (OutputMajor::N, false) => CopyAtom::Sm75U32x4LdsmN,
            (OutputMajor::M, false) => CopyAtom::Sm75U16x8LdsmT,
        }
    }

    /// The tiled MMA's matrix copies with the store (or load) atom.
    pub(super) fn matrix_copy(
        &self,
        mma: &Sm90TiledMma,
        store: bool,
    ) -> Result<MatrixCopy, PtxError> {
        MatrixCopy::new(
            mma,
            self.matrix_atom(store),
            self.spec.majors.d == OutputMajor::M,
        )
        .map_err(atom_error)
    }

    /// The buffers' swizzle: `Swizzle<2,4,3>` on the bytes of 64-byte rows,
    /// `Swizzle<3,4,3>` on 128-byte ones.
    pub(super) fn swizzle(&self) -> GmmaSwizzle {
        let (_, span) = self.box_dims();
        if span == 64 {
            GmmaSwizzle::B64
        } else {
            GmmaSwizzle::B128
        }
    }

    /// Byte offset of a place (row of the band, column of the subtile) in
    /// a subtile buffer, before the swizzle: row-major, rows of `span`
    /// bytes; column-major, boxes of `box_rows` rows, each column of a box
    /// 128 bytes.
    fn linear(&self, [row, col]: [u32; 2]) -> u32 {
        let size = self.spec.types.d.size_bytes();
        let (_, span) = self.box_dims();
        match self.spec.majors.d {
            OutputMajor::N => row * span + col * size,
            OutputMajor::M => {
                let rows = self.box_rows();
                (row / rows) * SUBTILE_N * 128 + col * 128 + (row % rows) * size
            }
        }
    }

    /// `place` (its column taken within the subtile) as its key and the
    /// immediate that completes it (see the module's docs).
    fn split_place(&self, [row, col]: [u32; 2]) -> ([u32; 2], u32) {
        let col = col % SUBTILE_N;
        let key = match self.spec.majors.d {
            OutputMajor::N => [row % 8, col],
            OutputMajor::M => [row % self.box_rows(), col % 8],
        };
        (key, self.linear([row, col]) - self.linear(key))
    }

    /// Emits the addresses of the keys of `places` (in order of first
    /// appearance): `buffers + swizzle(linear(thread place + key))`, the
    /// thread's place `(row, col)` (`.b32`). Errors where an immediate
    /// would reach the swizzled bits.
    pub(super) fn emit_staging(
        &self,
        k: &mut Kernel,
        buffers: Reg,
        (row, col): (Reg, Reg),
        places: &[[u32; 2]],
    ) -> Result<Staging, PtxError> {
        let period = self.swizzle().swizzle().period() as u32;
        let mut bases: Vec<([u32; 2], Reg)> = Vec::new();
        for &place in places {
            let (key, imm) = self.split_place(place);
            if imm % period != 0 {
                return Err(atom_error(crate::Error::invalid_argument(
                    "staged place",
                    format!("{place:?}"),
                    format!("an immediate that is a multiple of the swizzle period {period}"),
                )));
            }
            if bases.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let linear = self.emit_linear(k, row, col, key);
            bases.push((key, self.buffer_address(k, buffers, linear)));
        }
        Ok(Staging { bases })
    }

    /// Emits [`linear`](Self::linear) of `(row + key[0], col + key[1])`.
    fn emit_linear(&self, k: &mut Kernel, row: Reg, col: Reg, key: [u32; 2]) -> Reg {
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let size = self.spec.types.d.size_bytes();
        let (_, span) = self.box_dims();
        let plus = |k: &mut Kernel, x: Reg, add: u32| {
            if add == 0 {
                return x;
            }
            let y = r32(k);
            k.push(format!("add.u32 {y}, {x}, {add};"));
            y
        };
        let (r, c) = (plus(k, row, key[0]), plus(k, col, key[1]));
        let lin = r32(k);
        match self.spec.majors.d {
            OutputMajor::N => {
                k.push(format!("mul.lo.u32 {lin}, {r}, {span};"));
                k.push(format!("mad.lo.u32 {lin}, {c}, {size}, {lin};"));
            }
            OutputMajor::M => {
                let rows = self.box_rows();
                let (b, rr) = (r32(k), r32(k));
                k.push(format!("shr.u32 {b}, {r}, {};", rows.trailing_zeros()));
                k.push(format!("and.b32 {rr}, {r}, {};", rows - 1));
                k.push(format!("mul.lo.u32 {lin}, {b}, {};", SUBTILE_N * 128));
                k.push(format!("mad.lo.u32 {lin}, {c}, 128, {lin};"));
                k.push(format!("mad.lo.u32 {lin}, {rr}, {size}, {lin};"));
            }
        }
        lin
    }

    /// Emits the place each lane addresses in the instructions of `copy`
    /// (from their origins): the warp's first element (the tiled MMA's
    /// thread layouts at the warp's first thread) plus the copy's lane
    /// layouts; `t` is the thread's index in its warpgroup.
    pub(super) fn emit_lane_place(
        &self,
        k: &mut Kernel,
        mma: &Sm90TiledMma,
        copy: &MatrixCopy,
        t: Reg,
    ) -> Result<(Reg, Reg), PtxError> {
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (warp, lane) = (r32(k), r32(k));
        k.push(format!("and.b32 {warp}, {t}, -32;"));
        k.push(format!("and.b32 {lane}, {t}, 31;"));
        let (row, col) = mma.emit_origin(k, warp).map_err(atom_error)?;
        let emit = |k: &mut Kernel, layout| {
            crate::tiled::emit_layout_offset(k, layout, lane).map_err(atom_error)
        };
        let (lr, lc) = (emit(k, copy.lane_rows())?, emit(k, copy.lane_cols())?);
        k.push(format!("add.u32 {row}, {row}, {lr};"));
        k.push(format!("add.u32 {col}, {col}, {lc};"));
        Ok((row, col))
    }

    /// Stages instruction `i`'s four matrices of D (the words of its
    /// registers' value pairs) into the buffer at byte `buffer`.
    pub(super) fn emit_matrices(
        &self,
        k: &mut Kernel,
        staging: &Staging,
        i: &MatrixInstruction,
        buffer: u32,
        words: &[Reg; 4],
    ) -> Result<(), PtxError> {
        let at = staging.at(self, i.origin, buffer)?;
        match self.spec.majors.d {
            OutputMajor::N => SM90_U32x4_STSM_N::emit(k, words, &at),
            OutputMajor::M => SM90_U16x8_STSM_T::emit(k, words, &at),
        }
        .map_err(atom_error)
    }

    /// Reads instruction `i`'s four matrices of C from C's buffer at byte
    /// `buffer` (of the C buffers): the words of its registers.
    pub(super) fn emit_c_matrices(
        &self,
        k: &mut Kernel,
        staging: &Staging,
        i: &MatrixInstruction,
        buffer: u32,
    ) -> Result<[Reg; 4], PtxError> {
        let words = [(); 4].map(|_| k.reg(RegClass::B32));
        let at = staging.at(self, i.origin, self.c_offset() + buffer)?;
        match self.spec.majors.d {
            OutputMajor::N => SM75_U32x4_LDSM_N::emit(k, &words, &at),
            OutputMajor::M => SM75_U16x8_LDSM_T::emit(k, &words, &at),
        }
        .map_err(atom_error)?;
        Ok(words)
    }

    /// The address operands of one thread's f32 pair at `place` (its first
    /// element; the second is the next column) in the buffer at byte
    /// `buffer`: one for both (row-major, a `.v2` access) or one per
    /// element (column-major).
    pub(super) fn f32_places(
        &self,
        staging: &Staging,
        place: [u32; 2],
        buffer: u32,
    ) -> Result<Vec<String>, PtxError> {
        match self.spec.majors.d {
            OutputMajor::N => Ok(vec![staging.at(self, place, buffer)?]),
            OutputMajor::M => (0..2)
                .map(|e| staging.at(self, [place[0], place[1] + e], buffer))
                .collect(),
        }
    }

    /// Writes one thread's f32 pair at `place` into the buffer at byte
    /// `buffer`.
    pub(super) fn stage(
        &self,
        k: &mut Kernel,
        staging: &Staging,
        place: [u32; 2],
        buffer: u32,
        values: &[Reg],
    ) -> Result<(), PtxError> {
        let places = self.f32_places(staging, place, buffer)?;
        match self.spec.majors.d {
            OutputMajor::N => k.push(format!(
                "st.shared.v2.f32 [{}], {{{}, {}}};",
                places[0], values[0], values[1]
            )),
            OutputMajor::M => {
                for (at, value) in places.iter().zip(values) {
                    k.push(format!("st.shared.f32 [{at}], {value};"));
                }
            }
        }
        Ok(())
    }
}
