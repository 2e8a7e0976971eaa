//! [`Arguments`]: what a caller gives one GEMM launch (CUTLASS's
//! `GemmUniversal::Arguments`): the problem shape, the four operands as cudarc
//! device buffers with leading dimensions and batch strides, and the scalars.
//!
//! D = alpha · (A · B) + beta · C, for each batch `l < L`:
//! A is M × K, B is K × N (stored as CUTLASS 3.x views it, N × K), C and D are
//! M × N. Which dimension is contiguous comes from the kernel's
//! [`GemmSpec`](crate::kernel::gemm::GemmSpec) (`a_major`, `b_major`,
//! `c_major`, `d_major`); the leading dimension is the distance in elements
//! between consecutive rows (row-major) or columns (column-major).

use cudarc::driver::{CudaView, CudaViewMut};

/// The problem shape (M, N, K, L): D is M × N, the reduction runs over K, and
/// L independent batches are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmShape {
    /// Rows of A, C and D.
    pub m: usize,
    /// Columns of B, C and D.
    pub n: usize,
    /// Columns of A and rows of B (the reduction).
    pub k: usize,
    /// Batch count.
    pub l: usize,
}

impl GemmShape {
    /// The shape (M, N, K, L).
    pub fn new(m: usize, n: usize, k: usize, l: usize) -> GemmShape {
        GemmShape { m, n, k, l }
    }

    /// Whether D has no element (M, N or L is zero): running it does nothing.
    pub fn is_empty_output(&self) -> bool {
        self.m == 0 || self.n == 0 || self.l == 0
    }

    /// Floating-point operations of the whole problem, `2 · M · N · K · L`.
    ///
    /// ```
    /// # use cutlet::device::gemm::GemmShape;
    /// assert_eq!(GemmShape::new(4096, 4096, 4096, 1).flops(), 2.0 * 4096f64.powi(3));
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.l as f64
    }
}

/// An input operand: a device buffer, its leading dimension and its batch
/// stride, both in elements (batch `l` starts at element `l · batch_stride`).
#[derive(Debug)]
pub struct Operand<'a, T> {
    /// The elements (a whole `CudaSlice` through `as_view()`, or a sub-view
    /// through `slice(..)`).
    pub data: CudaView<'a, T>,
    /// Elements between consecutive rows (row-major) or columns (column-major).
    pub ld: usize,
    /// Elements between consecutive batches (0 broadcasts one matrix to every batch).
    pub batch_stride: usize,
}

impl<'a, T> Operand<'a, T> {
    /// The operand `data` with leading dimension `ld` and batch stride `batch_stride`.
    pub fn new(data: CudaView<'a, T>, ld: usize, batch_stride: usize) -> Self {
        Operand {
            data,
            ld,
            batch_stride,
        }
    }
}

/// The output D: a device buffer the kernel writes, its leading dimension and
/// batch stride in elements.
#[derive(Debug)]
pub struct OutputOperand<'a, T> {
    /// The elements written.
    pub data: CudaViewMut<'a, T>,
    /// Elements between consecutive rows (row-major) or columns (column-major).
    pub ld: usize,
    /// Elements between consecutive batches (must not let two batches overlap).
    pub batch_stride: usize,
}

impl<'a, T> OutputOperand<'a, T> {
    /// The output `data` with leading dimension `ld` and batch stride `batch_stride`.
    pub fn new(data: CudaViewMut<'a, T>, ld: usize, batch_stride: usize) -> Self {
        OutputOperand {
            data,
            ld,
            batch_stride,
        }
    }
}

/// Where the epilogue reads C from.
///
/// Rust's borrows forbid passing one buffer as both `&c` and `&mut d`, so an
/// in-place GEMM (D = alpha · A · B + beta · D) says [`Source::D`]: C is D's
/// own buffer, with D's leading dimension and batch stride. The kernel reads
/// each element of C before the same thread writes it.
#[derive(Debug)]
pub enum Source<'a, T> {
    /// C is a buffer of its own.
    Buffer(Operand<'a, T>),
    /// C is D itself (same buffer, same strides; C's element type must be D's).
    D,
}

/// Everything one GEMM launch reads: `D = alpha · A · B + beta · C` over
/// `shape`.
///
/// The element types `A`, `B`, `C`, `D` are the buffers' host types (`half::f16`,
/// `half::bf16`, `f32`; tf32 operands are stored as `f32`).
#[derive(Debug)]
pub struct Arguments<'a, A, B, C, D> {
    /// (M, N, K, L).
    pub shape: GemmShape,
    /// A (M × K per batch).
    pub a: Operand<'a, A>,
    /// B (K × N per batch, N × K in CUTLASS 3.x's view).
    pub b: Operand<'a, B>,
    /// C (M × N per batch), or D itself.
    pub c: Source<'a, C>,
    /// D (M × N per batch), written.
    pub d: OutputOperand<'a, D>,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
    /// Inputs of a fused epilogue (none for the default linear combination).
    pub epilogue: EpilogueArgs<'a, C>,
}

/// What a fused [`Epilogue`](crate::kernel::gemm::Epilogue) reads beyond
/// C, alpha and beta: one bias vector per [`Epilogue::biases`](crate::kernel::gemm::Epilogue::biases)
/// entry (C's element type; length at least M for a row bias, N for a column
/// bias; shared by every batch), and the extra scalars s2, s3, ...
#[derive(Debug)]
pub struct EpilogueArgs<'a, C> {
    /// The bias vectors, in the epilogue's order.
    pub biases: Vec<CudaView<'a, C>>,
    /// The extra scalars, s2 first.
    pub scalars: Vec<f32>,
}

impl<C> Default for EpilogueArgs<'_, C> {
    /// No bias, no extra scalar.
    fn default() -> Self {
        EpilogueArgs {
            biases: Vec::new(),
            scalars: Vec::new(),
        }
    }
}

impl<'a, A, B, C, D> Arguments<'a, A, B, C, D> {
    /// These arguments with bias vectors `biases` for a fused epilogue.
    pub fn with_biases(mut self, biases: Vec<CudaView<'a, C>>) -> Self {
        self.epilogue.biases = biases;
        self
    }

    /// These arguments with extra epilogue scalars (s2, s3, ...).
    pub fn with_scalars(mut self, scalars: Vec<f32>) -> Self {
        self.epilogue.scalars = scalars;
        self
    }
}

impl<'a, A, B, C, D> Arguments<'a, A, B, C, D> {
    /// `D = alpha · A · B + beta · C`.
    pub fn new(
        shape: GemmShape,
        a: Operand<'a, A>,
        b: Operand<'a, B>,
        c: Operand<'a, C>,
        d: OutputOperand<'a, D>,
        alpha: f32,
        beta: f32,
    ) -> Self {
        Self::with_source(shape, a, b, Source::Buffer(c), d, alpha, beta)
    }

    /// The arguments with C read from `c`, without epilogue inputs.
    fn with_source(
        shape: GemmShape,
        a: Operand<'a, A>,
        b: Operand<'a, B>,
        c: Source<'a, C>,
        d: OutputOperand<'a, D>,
        alpha: f32,
        beta: f32,
    ) -> Self {
        Arguments {
            shape,
            a,
            b,
            c,
            d,
            alpha,
            beta,
            epilogue: EpilogueArgs::default(),
        }
    }
}

impl<'a, A, B, D> Arguments<'a, A, B, D, D> {
    /// In place: `D = alpha · A · B + beta · D` (C is D's buffer). With
    /// `beta = 0` this is the plain product `D = alpha · A · B`.
    pub fn in_place(
        shape: GemmShape,
        a: Operand<'a, A>,
        b: Operand<'a, B>,
        d: OutputOperand<'a, D>,
        alpha: f32,
        beta: f32,
    ) -> Self {
        Self::with_source(shape, a, b, Source::D, d, alpha, beta)
    }
}
