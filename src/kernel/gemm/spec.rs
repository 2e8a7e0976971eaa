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
//! Epilogue inputs beyond C (bias vectors, ...) and further scalars are
//! appended after these, in the order the epilogue declares them.
//!
//! Grid: x = output tiles of one batch (`ceil(M/BM) * ceil(N/BN)`), y = L;
//! block: [`GemmSpec::block_threads`] threads in x; dynamic shared memory:
//! [`GemmSpec::shared_mem_bytes`].

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
}
