//! The register-to-shared copies of a subtile: `stmatrix` of the packed
//! 16-bit values where D's type allows, else one value at a time (f32),
//! and their addresses in the swizzled buffers.

use super::{atom_error, EpilogueSm90TmaStore, SUBTILE_N};
use crate::atom::{SM90_U16x8_STSM_T, SM90_U32x4_STSM_N};
use crate::collective::epilogue_fusion::emit_pack_pair;
use crate::gemm::OutputMajor;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm90TmaStore {
    /// Whether D's elements are 16-bit, so that the fragments are staged
    /// with `stmatrix` (`.trans` for a column-major D); f32 D is staged with
    /// plain stores.
    pub(super) fn stores_matrices(&self) -> bool {
        self.spec.types.d != ElementType::F32
    }

    /// Converts one thread's column pair (row g, columns 2q and 2q + 1 of
    /// an 8-column group) to one word of two 16-bit elements, the first in
    /// the low half: one `cvt.rn.{f16x2,bf16x2}.f32`.
    pub(super) fn pack(&self, k: &mut Kernel, values: &[Reg]) -> Reg {
        let word = k.reg(RegClass::B32);
        emit_pack_pair(k, self.spec.types.d, word, values[0], values[1]);
        word
    }

    /// The `stmatrix` row addresses of this lane, for a 64-row block at
    /// offset 0 of buffer 0: lane `l` gives row `l % 8` of matrix `l / 8`,
    /// matrix `i` being the 8x8 block of half `i % 2` (rows 8h..8h+7 of the
    /// warp's 16) and 8-column group `a + i / 2` of the store for groups
    /// `a` and `a + 1`. Row-major D: one address per `a` in {0, 2} (the
    /// swizzle moves 16-byte chunks within a row, so the two differ in
    /// swizzled bits); column-major D (transposed store: lane `l` gives
    /// column `l % 8` of its matrix, 8 rows of 16 bits): one address, group
    /// 2 lying 16 columns (2048 bytes) further, past the swizzled bits.
    pub(super) fn emit_matrix_bases(
        &self,
        k: &mut Kernel,
        t: Reg,
        w: Reg,
        buffers: Reg,
    ) -> Vec<Reg> {
        let (_, span) = self.box_dims();
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (r, half, group, rows) = (r32(k), r32(k), r32(k), r32(k));
        k.push(format!("and.b32 {r}, {t}, 7;"));
        k.push(format!("bfe.u32 {half}, {t}, 3, 1;"));
        k.push(format!("bfe.u32 {group}, {t}, 4, 1;"));
        // The matrix's first row in the warpgroup's 64-row block: 16w + 8h.
        k.push(format!("mad.lo.u32 {rows}, {w}, 16, 0;"));
        k.push(format!("mad.lo.u32 {rows}, {half}, 8, {rows};"));
        match self.spec.majors.d {
            OutputMajor::N => [0u32, 2]
                .into_iter()
                .map(|a| {
                    let (row, lin) = (r32(k), r32(k));
                    k.push(format!("add.u32 {row}, {rows}, {r};"));
                    k.push(format!("mul.lo.u32 {lin}, {row}, {span};"));
                    k.push(format!("mad.lo.u32 {lin}, {group}, 16, {lin};"));
                    k.push(format!("add.u32 {lin}, {lin}, {};", 16 * a));
                    self.buffer_address(k, buffers, lin)
                })
                .collect(),
            OutputMajor::M => {
                let (c, lin) = (r32(k), r32(k));
                k.push(format!("mad.lo.u32 {c}, {group}, 8, {r};"));
                k.push(format!("mul.lo.u32 {lin}, {c}, 128;"));
                let size = self.spec.types.d.size_bytes();
                k.push(format!("mad.lo.u32 {lin}, {rows}, {size}, {lin};"));
                vec![self.buffer_address(k, buffers, lin)]
            }
        }
    }

    /// Stages one 64-row block `mb` of a subtile (the thread's words
    /// `[h][jl]`) into the buffer at byte `buffer` with two `stmatrix.x4`:
    /// 8-column groups 0-1, then 2-3, each as matrices (h 0, group a),
    /// (h 1, a), (h 0, a + 1), (h 1, a + 1).
    pub(super) fn emit_matrices(
        &self,
        k: &mut Kernel,
        bases: &[Reg],
        mb: u32,
        buffer: u32,
        words: &[[Option<Reg>; (SUBTILE_N / 8) as usize]; 2],
    ) -> Result<(), PtxError> {
        let word = |h: usize, jl: usize| {
            words[h][jl].ok_or_else(|| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("sm90 tma epilogue"),
                reason: format!("no word for half {h}, group {jl} of a 64-row block"),
            })
        };
        for a in [0usize, 2] {
            let src = [word(0, a)?, word(1, a)?, word(0, a + 1)?, word(1, a + 1)?];
            let at = self.matrix_address(bases, mb, buffer, a);
            match self.spec.majors.d {
                OutputMajor::N => SM90_U32x4_STSM_N::emit(k, &src, &at),
                OutputMajor::M => SM90_U16x8_STSM_T::emit(k, &src, &at),
            }
            .map_err(atom_error)?;
        }
        Ok(())
    }

    /// The address operand of the `stmatrix` (or `ldmatrix`) of 64-row
    /// block `mb`, 8-column groups `a` and `a + 1`, in the buffer at byte
    /// `buffer` (see [`emit_matrix_bases`](Self::emit_matrix_bases)).
    pub(super) fn matrix_address(&self, bases: &[Reg], mb: u32, buffer: u32, a: usize) -> String {
        match self.spec.majors.d {
            OutputMajor::N => {
                let (_, span) = self.box_dims();
                format!("{}+{}", bases[a / 2], buffer + mb * 64 * span)
            }
            OutputMajor::M => {
                // Box mb (64 rows of a 16-bit type), group a's columns.
                let offset = buffer + mb * SUBTILE_N * 128 + 8 * a as u32 * 128;
                format!("{}+{offset}", bases[0])
            }
        }
    }

    /// Writes one thread's f32 values of 8-column group `jl` of a subtile
    /// (at 64-row block `mb`, half `h`) into the buffer at byte `buffer`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stage(
        &self,
        k: &mut Kernel,
        major: OutputMajor,
        bases: &[Reg],
        (mb, h, jl): (u32, u32, u32),
        buffer: u32,
        row_off: u32,
        values: &[Reg],
    ) -> Result<(), PtxError> {
        let places = self.f32_places(major, bases, (mb, h, jl), buffer, row_off);
        match major {
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

    /// The address operands of one thread's f32 pair of 8-column group
    /// `jl` of a subtile (at 64-row block `mb`, half `h`, row offset
    /// `row_off`) in the buffer at byte `buffer`: one for both (row-major,
    /// a `.v2` access) or one per element (column-major).
    pub(super) fn f32_places(
        &self,
        major: OutputMajor,
        bases: &[Reg],
        (mb, h, jl): (u32, u32, u32),
        buffer: u32,
        row_off: u32,
    ) -> Vec<String> {
        let (_, span) = self.box_dims();
        match major {
            OutputMajor::N => {
                vec![format!(
                    "{}+{}",
                    bases[jl as usize],
                    buffer + row_off * span
                )]
            }
            OutputMajor::M => {
                let box_bytes = SUBTILE_N * 128;
                let blocks_per_mb = 64 / self.box_rows();
                (0..2u32)
                    .map(|e| {
                        let base = bases[(2 * h + e) as usize];
                        format!(
                            "{base}+{}",
                            buffer + mb * blocks_per_mb * box_bytes + 8 * jl * 128
                        )
                    })
                    .collect()
            }
        }
    }
}
