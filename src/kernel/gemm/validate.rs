//! [`GemmSpec::validate`]: what the SM80 kernel generator supports.

use super::spec::SMEM_ROW_BYTES;
use super::{GemmSpec, OperandMajor};
use crate::arch::ArchKind;
use crate::collective::{EpilogueSm80, MmaKind};
use crate::numeric::ElementType;

impl GemmSpec {
    /// Checks that the generator supports this spec; the message names the
    /// offending value and what is expected.
    ///
    /// Supported: arch `Sm80` (or `Sm90`, whose PTX target also runs
    /// `mma.sync`); A/B/acc of f16/f16/f32, bf16/bf16/f32, f16/f16/f16 or
    /// f32 (or tf32)/same/f32 (tf32 MMA); any operand majors; C = D of f16,
    /// bf16 or f32; BK filling one 128-byte row (64 for 16-bit, 32 for tf32);
    /// warps (WM, WN, 1) with warp tiles of multiples of 16; copies that
    /// tile over the block's threads; shared memory within the arch's opt-in
    /// limit.
    ///
    /// ```
    /// use cutlet::collective::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{F16, F32};
    ///
    /// let mut spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::MN, OutputMajor::N).unwrap();
    /// assert_eq!(spec.validate(), Ok(()));
    /// spec.stages = 9;
    /// assert!(spec.validate().unwrap_err().contains("shared memory"));
    /// ```
    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.arch, ArchKind::Sm80 | ArchKind::Sm90) {
            return Err(format!(
                "arch {:?} is not supported by the sm80 gemm: expected Sm80 or Sm90",
                self.arch
            ));
        }
        MmaKind::for_types(self.a, self.b, self.acc).ok_or_else(|| {
            format!(
                "element types a={}, b={}, acc={} are not supported: expected f16/f16/f32, bf16/bf16/f32, f16/f16/f16 or f32/f32/f32 (tf32)",
                self.a, self.b, self.acc
            )
        })?;
        if self.c != self.d {
            return Err(format!(
                "c type {} differs from d type {}: expected c and d of one type",
                self.c, self.d
            ));
        }
        if self.c_major != self.d_major {
            return Err(format!(
                "c_major {} differs from d_major {}: expected c and d of one major",
                self.c_major.name(),
                self.d_major.name()
            ));
        }
        if !matches!(
            self.d,
            ElementType::F16 | ElementType::BF16 | ElementType::F32
        ) {
            return Err(format!(
                "d type {} is not supported: expected f16, bf16 or f32",
                self.d
            ));
        }
        self.validate_tile()?;
        self.epilogue.check()?;
        if EpilogueSm80::new(self).vector_mapping().is_none() {
            return Err(format!(
                "the {}x{} output tile does not split into rows of 16-byte vectors over {} threads: expected threads a multiple of the vectors per row",
                self.tile[0],
                self.tile[1],
                self.block_threads()
            ));
        }
        let bytes = self.shared_mem_bytes();
        let limit = self.arch.max_dynamic_shared_bytes();
        if bytes > limit {
            return Err(format!(
                "shared memory of {bytes} bytes ({} stages of {} bytes, epilogue {} bytes) exceeds the {limit} bytes of {:?}: expected fewer stages or a smaller tile",
                self.stages,
                self.stage_bytes(),
                self.epilogue_bytes(),
                self.arch
            ));
        }
        Ok(())
    }

    fn validate_tile(&self) -> Result<(), String> {
        let [bm, bn, bk] = self.tile;
        let [wm, wn, wk] = self.warps;
        let esize = self.a.size_bytes();
        if bk * esize != SMEM_ROW_BYTES {
            return Err(format!(
                "tile k {bk} is not supported for {}: expected {} (one 128-byte row)",
                self.a,
                SMEM_ROW_BYTES / esize
            ));
        }
        if wk != 1 || wm == 0 || wn == 0 || wm * wn > 16 {
            return Err(format!(
                "warps {wm}x{wn}x{wk} are not supported: expected (wm, wn, 1) with 1 to 16 warps"
            ));
        }
        if bm == 0 || bn == 0 || bm % (wm * 16) != 0 || bn % (wn * 16) != 0 {
            return Err(format!(
                "tile {bm}x{bn} over warps {wm}x{wn}: expected warp tiles of multiples of 16 in m and n"
            ));
        }
        let (warp_m, warp_n) = (bm / wm, bn / wn);
        if warp_m * warp_n > 64 * 128 {
            return Err(format!(
                "warp tile {warp_m}x{warp_n} holds {} accumulators per thread: expected at most 256 (e.g. 64x128)",
                warp_m * warp_n / 32
            ));
        }
        if self.stages < 2 {
            return Err(format!("stages {}: expected at least 2", self.stages));
        }
        let threads = self.block_threads();
        for (name, major, extent) in [("a", self.a_major, bm), ("b", self.b_major, bn)] {
            let row_elems = SMEM_ROW_BYTES / esize;
            let (rows, chunks_per_row) = match major {
                OperandMajor::K => (extent, 8),
                OperandMajor::MN => {
                    if extent % row_elems != 0 {
                        return Err(format!(
                            "{name} is mn-major with tile extent {extent}: expected a multiple of {row_elems}"
                        ));
                    }
                    (bk, extent * esize / 16)
                }
            };
            let rows_per_pass = threads / chunks_per_row;
            if !threads.is_multiple_of(chunks_per_row)
                || !rows_per_pass.is_multiple_of(8)
                || rows % rows_per_pass != 0
            {
                return Err(format!(
                    "the {name} tile ({rows} rows of {chunks_per_row} 16-byte chunks) does not tile over {threads} threads: expected rows per pass (threads / chunks per row) a multiple of 8 dividing the rows"
                ));
            }
        }
        Ok(())
    }
}
