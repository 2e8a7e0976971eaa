//! [`GemmSpec`]: the plain, hashable value every GEMM configuration lowers to,
//! and the kernel's parameter ABI.
//!
//! Both front doors (the typed `Config` of `GemmUniversalAdapter` and the
//! runtime `Gemm::builder()`) produce a `GemmSpec`; the kernel layer turns it
//! into PTX and the device layer caches the compiled module by spec and device.
//!
//! # Kernel parameter ABI (in this order)
//!
//! | # | name | PTX type | meaning |
//! |---|---|---|---|
//! | 0 | `a` | `.u64` | A's global address (element (0,0) of batch 0) |
//! | 1 | `b` | `.u64` | B's global address |
//! | 2 | `c` | `.u64` | C's global address (may equal `d`) |
//! | 3 | `d` | `.u64` | D's global address |
//! | 4..=7 | `m`, `n`, `k`, `l` | `.u32` | problem shape (M, N, K, batch count L) |
//! | 8..=11 | `lda`, `ldb`, `ldc`, `ldd` | `.u64` | leading dimensions, in elements |
//! | 12..=15 | `batch_a`, `batch_b`, `batch_c`, `batch_d` | `.u64` | batch strides, in elements |
//! | 16, 17 | `alpha`, `beta` | `.f32` | epilogue scalars |
//! | 18 | `raster_log` | `.u32` | rasterization swizzle: tiles are walked in groups of `2^raster_log` along the swizzled dimension |
//!
//! Then, for a fused [`Epilogue`] (none for the default linear combination):
//!
//! | # | name | PTX type | meaning |
//! |---|---|---|---|
//! | 19 + i | `bias{i}` | `.u64` | bias vector `i`'s global address (element 0; C's element type; length M for a row bias, N for a column bias; shared by every batch), one per [`Epilogue::biases`] |
//! | after the biases | `s{j}` | `.f32` | extra scalar `j` (j = 2, 3, ...), one per [`Epilogue::extra_scalars`] |
//!
//! Grid: x = output tiles of one batch (`ceil(M/BM) * ceil(N/BN)`), y = L;
//! block: [`GemmSpec::block_threads`] threads in x; dynamic shared memory:
//! [`GemmSpec::shared_mem_bytes`].

use super::Epilogue;
use crate::arch::ArchKind;
use crate::numeric::ElementType;

/// Which dimension of an operand is contiguous in memory.
///
/// For A (M x K) and B (N x K, as CUTLASS 3.x views B): `K` means K is the
/// contiguous dimension (A row-major, B column-major: the "TN" GEMM);
/// `MN` means M (for A) or N (for B) is contiguous.
/// For C and D see [`OutputMajor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OperandMajor {
    /// K is contiguous (`--a_major k`, `--b_major k` in CuTe DSL's `dense_gemm.py`).
    K,
    /// M (for A) or N (for B) is contiguous (`--a_major m`, `--b_major n`).
    MN,
}

/// Which dimension of C or D (M x N) is contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutputMajor {
    /// N is contiguous: row-major (`--c_major n`).
    N,
    /// M is contiguous: column-major (`--c_major m`).
    M,
}

/// Every static fact of one GEMM kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GemmSpec {
    /// The architecture the PTX targets.
    pub arch: ArchKind,
    /// Element type of A.
    pub a: ElementType,
    /// Element type of B.
    pub b: ElementType,
    /// Element type of C (the epilogue source).
    pub c: ElementType,
    /// Element type of D (the output).
    pub d: ElementType,
    /// Accumulator type (f32, or f16 for f16 accumulation).
    pub acc: ElementType,
    /// Contiguous dimension of A.
    pub a_major: OperandMajor,
    /// Contiguous dimension of B.
    pub b_major: OperandMajor,
    /// Contiguous dimension of C.
    pub c_major: OutputMajor,
    /// Contiguous dimension of D.
    pub d_major: OutputMajor,
    /// CTA tile (BM, BN, BK).
    pub tile: [u32; 3],
    /// Warps of the CTA along (M, N, K); K is 1 for the SM80 mainloop.
    pub warps: [u32; 3],
    /// Shared-memory pipeline stages of the mainloop.
    pub stages: u32,
    /// The expression applied to the accumulators before the store
    /// (default: D = alpha * acc + beta * C).
    pub epilogue: Epilogue,
}

/// Bytes of one `cp.async` copy and one epilogue vector.
pub(crate) const VECTOR_BYTES: u32 = 16;

/// Alignment in bytes of the kernel's dynamic shared memory (a multiple of
/// the swizzle period the mainloop's `ldmatrix` XOR immediates rely on).
pub(crate) const SMEM_ALIGN: u32 = 1024;

/// f32 elements of padding per row of the epilogue's staging tile (N-major
/// staging: rows of BN, M-major staging: rows of BM), so that the
/// accumulator fragments store without bank conflicts.
pub(crate) const fn epilogue_pad(major: OutputMajor) -> u32 {
    match major {
        OutputMajor::N => 8,
        OutputMajor::M => 4,
    }
}

impl OperandMajor {
    /// The short name used in kernel names: `k` or `mn`.
    pub const fn name(self) -> &'static str {
        match self {
            OperandMajor::K => "k",
            OperandMajor::MN => "mn",
        }
    }
}

impl OutputMajor {
    /// The short name used in kernel names: `n` (row-major) or `m`.
    pub const fn name(self) -> &'static str {
        match self {
            OutputMajor::N => "n",
            OutputMajor::M => "m",
        }
    }
}

impl GemmSpec {
    /// The kernel's `.entry` name; it encodes every field, so two specs share
    /// a name only if they are equal.
    ///
    /// ```
    /// use cutlet::collective::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// assert_eq!(spec.kernel_name(), "gemm_sm80_bf16_bf16_bf16_bf16_f32_k_k_n_n_128x256x64_w2x4x1_s3");
    /// ```
    ///
    /// A fused epilogue adds `_e` and its [`tag`](Epilogue::tag).
    pub fn kernel_name(&self) -> String {
        let [bm, bn, bk] = self.tile;
        let [wm, wn, wk] = self.warps;
        let (cc_major, cc_minor) = self.arch.compute_capability();
        let fused = if self.epilogue.is_linear_combination() {
            String::new()
        } else {
            format!("_e{}", self.epilogue.tag())
        };
        format!(
            "gemm_sm{cc_major}{cc_minor}_{}_{}_{}_{}_{}_{}_{}_{}_{}_{bm}x{bn}x{bk}_w{wm}x{wn}x{wk}_s{}{fused}",
            self.a,
            self.b,
            self.c,
            self.d,
            self.acc,
            self.a_major.name(),
            self.b_major.name(),
            self.c_major.name(),
            self.d_major.name(),
            self.stages
        )
    }

    /// Threads per block the launch must use: 32 per warp of
    /// [`warps`](Self::warps).
    pub fn block_threads(&self) -> u32 {
        self.warps.iter().product::<u32>() * 32
    }

    /// Bytes of one mainloop stage: the A tile and the B tile.
    pub fn stage_bytes(&self) -> u32 {
        self.facts().stage_bytes()
    }

    /// Bytes of the epilogue's staging tile (f32 accumulators of the whole
    /// CTA tile, rows padded against bank conflicts); it reuses the
    /// mainloop's shared memory.
    pub fn epilogue_bytes(&self) -> u32 {
        self.facts().epilogue_bytes()
    }

    /// Dynamic shared memory the launch must give: the larger of the
    /// mainloop's `stages` stages and the epilogue's staging tile.
    pub fn shared_mem_bytes(&self) -> u32 {
        self.facts().shared_mem_bytes()
    }

    /// Output tiles of one batch for an `m x n` output: `(tiles_m, tiles_n)`.
    pub fn tiles(&self, m: u32, n: u32) -> (u32, u32) {
        (m.div_ceil(self.tile[0]), n.div_ceil(self.tile[1]))
    }

    /// The launch grid for problem `m x n` with `l` batches:
    /// `(tiles_m * tiles_n, l, 1)`. The product of tiles saturates at
    /// `u32::MAX`; the host checks it against the driver's grid limit.
    pub fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32) {
        let (tm, tn) = self.tiles(m, n);
        (tm.saturating_mul(tn), l, 1)
    }

    /// Elements a pointer and a leading dimension of A, B, C and D must be a
    /// multiple of: one 16-byte vector each (the kernel copies A and B with
    /// 16-byte `cp.async` and reads C / writes D in 16-byte vectors of D's
    /// element type).
    pub fn alignment(&self) -> [u32; 4] {
        let vec = |t: ElementType| VECTOR_BYTES / t.size_bytes();
        let out = vec(self.d);
        [vec(self.a), vec(self.b), out, out]
    }

    /// Batch-stride alignment equals [`alignment`](Self::alignment): each
    /// batch's base address must keep 16-byte alignment.
    pub fn batch_stride_alignment(&self) -> [u32; 4] {
        self.alignment()
    }
}
