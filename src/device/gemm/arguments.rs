//! [`Arguments`]: what a caller gives one GEMM launch (CUTLASS's
//! `GemmUniversal::Arguments`): the problem shape, the four operands as cudarc
//! device buffers with leading dimensions and batch strides, and the scalars.
//!
//! D = alpha · (A · B) + beta · C, for each batch `l < L`: A is M × K, B is
//! K × N (stored as CUTLASS 3.x views it, N × K), C and D are M × N. Which
//! dimension is contiguous comes from the kernel's
//! [`GemmSpec`](crate::kernel::gemm::GemmSpec) (`a_major`, `b_major`,
//! `c_major`, `d_major`); [`Operand`] and [`OutputOperand`] say where each
//! element lives for each major.

use cudarc::driver::{CudaView, CudaViewMut};

pub use crate::gemm::GemmShape;
pub use crate::kernel::gemm::RasterOrder;

/// An input operand, A or B (or C): a device buffer, its leading dimension
/// `ld` and its batch stride, both in elements.
///
/// C, when it has a buffer of its own ([`Arguments::new`]), is an `Operand`
/// too: M × N with D's major, laid out as the table on [`OutputOperand`] says.
///
/// CUTLASS 3.x names a layout by its contiguous mode: A is M × K and B is
/// N × K (B's K × N transposed), each **K-major** (K contiguous) or
/// **MN-major** (M for A, N for B contiguous). `ld` is the distance between
/// consecutive elements of the other, strided mode; batch `l` starts at
/// element `l · batch_stride` (0 gives every batch the same matrix).
///
/// | operand, major | as BLAS says it | element at | `ld` at least |
/// |---|---|---|---|
/// | A, [`OperandMajor::K`](crate::kernel::gemm::OperandMajor::K) | A row-major M × K | `(m, k)`: `l·batch_stride + m·ld + k` | K |
/// | A, [`OperandMajor::MN`](crate::kernel::gemm::OperandMajor::MN) | A column-major M × K | `(m, k)`: `l·batch_stride + k·ld + m` | M |
/// | B, [`OperandMajor::K`](crate::kernel::gemm::OperandMajor::K) | B column-major K × N | `(k, n)`: `l·batch_stride + n·ld + k` | K |
/// | B, [`OperandMajor::MN`](crate::kernel::gemm::OperandMajor::MN) | B row-major K × N | `(k, n)`: `l·batch_stride + k·ld + n` | N |
///
/// On the GPU, `ld` (for more than one row or column) and `batch_stride`
/// (for L > 1) are also multiples of 16 bytes (8 f16/bf16 elements, 4 f32),
/// and the buffer holds every element the shape, `ld` and the batches reach
/// (`can_implement` names what fails).
///
/// Worked example, with the table's indexing written out: A = [[1, 2, 3],
/// [4, 5, 6]] (M = 2, K = 3) and B = [[1, 0], [0, 1], [1, 1]] (K = 3, N = 2)
/// in every pair of majors, one with a padded `ld`, give the same
/// D = A · B = [[4, 5], [10, 11]]:
///
/// ```
/// use cutlet::kernel::gemm::OperandMajor;
///
/// // Element (row, col) of a matrix stored row-major or column-major, as the table says.
/// let at = |data: &[f32], ld: usize, row_major: bool, row: usize, col: usize| {
///     if row_major { data[row * ld + col] } else { data[col * ld + row] }
/// };
/// // A K-major: row-major 2 x 3, ld >= K = 3; here ld = 4 (one padding element a row).
/// let a_k: (&[f32], usize) = (&[1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0], 4);
/// // A MN-major: column-major 2 x 3, ld >= M = 2.
/// let a_m: (&[f32], usize) = (&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], 2);
/// // B K-major: column-major 3 x 2 (each column of B is contiguous), ld >= K = 3.
/// let b_k: (&[f32], usize) = (&[1.0, 0.0, 1.0, 0.0, 1.0, 1.0], 3);
/// // B MN-major: row-major 3 x 2 (each row of B is contiguous), ld >= N = 2.
/// let b_n: (&[f32], usize) = (&[1.0, 0.0, 0.0, 1.0, 1.0, 1.0], 2);
/// for (a_major, (a, lda)) in [(OperandMajor::K, a_k), (OperandMajor::MN, a_m)] {
///     for (b_major, (b, ldb)) in [(OperandMajor::K, b_k), (OperandMajor::MN, b_n)] {
///         let mut d = [0.0f32; 4]; // D row by row
///         for (m, n) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
///             d[m * 2 + n] = (0..3)
///                 .map(|k| {
///                     at(a, lda, a_major == OperandMajor::K, m, k)
///                         * at(b, ldb, b_major == OperandMajor::MN, k, n)
///                 })
///                 .sum();
///         }
///         assert_eq!(d, [4.0, 5.0, 10.0, 11.0]);
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Operand<'a, T> {
    /// The elements (a whole `CudaSlice` through `as_view()`, or a sub-view
    /// through `slice(..)`).
    pub data: CudaView<'a, T>,
    /// Elements between consecutive rows (row-major) or columns
    /// (column-major): see the table on [`Operand`].
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

/// The output D (and the layout of a C buffer, which has D's major): a
/// device buffer, its leading dimension `ld` and its batch stride, in
/// elements.
///
/// C and D are M × N, **N-major** (row-major,
/// [`OutputMajor::N`](crate::kernel::gemm::OutputMajor::N), the
/// [`RowMajor`](super::RowMajor) tag) or **M-major** (column-major,
/// [`OutputMajor::M`](crate::kernel::gemm::OutputMajor::M),
/// [`ColumnMajor`](super::ColumnMajor)). Batch `l` starts at element
/// `l · batch_stride`; D's batches must not overlap.
///
/// | major | element `(m, n)` at | `ld` at least |
/// |---|---|---|
/// | N (row-major) | `l·batch_stride + m·ld + n` | N |
/// | M (column-major) | `l·batch_stride + n·ld + m` | M |
///
/// For D = [[4, 5], [10, 11]] (M = N = 2): row-major with `ld` 2 holds
/// `[4, 5, 10, 11]`; column-major with `ld` 2 holds `[4, 10, 5, 11]`; row-major
/// with `ld` 8 (16-byte rows of bf16) holds 4 and 5 at 0 and 1, 10 and 11 at
/// 8 and 9:
///
/// ```
/// use cutlet::kernel::gemm::OutputMajor;
///
/// let index = |major, m: usize, n: usize, ld: usize| match major {
///     OutputMajor::N => m * ld + n,
///     OutputMajor::M => n * ld + m,
/// };
/// assert_eq!(index(OutputMajor::N, 1, 0, 2), 2); // (m = 1, n = 0) = 10
/// assert_eq!(index(OutputMajor::M, 1, 0, 2), 1);
/// assert_eq!(index(OutputMajor::N, 1, 1, 8), 9); // (m = 1, n = 1) = 11
/// ```
#[derive(Debug)]
pub struct OutputOperand<'a, T> {
    /// The elements written.
    pub data: CudaViewMut<'a, T>,
    /// Elements between consecutive rows (row-major) or columns
    /// (column-major): see the table on [`OutputOperand`].
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
/// Three constructors, by what C is:
///
/// | constructor | computes | C |
/// |---|---|---|
/// | [`Arguments::product`] | `D = alpha · A · B` | none (D's old contents are never read) |
/// | [`Arguments::new`] | `D = alpha · A · B + beta · C` | a buffer of its own |
/// | [`Arguments::in_place`] | `D = alpha · A · B + beta · D` | D itself |
///
/// The element types `A`, `B`, `C`, `D` are the buffers' host types
/// (`half::f16`, `half::bf16`, `f32`; tf32 operands are stored as `f32`).
/// Where each element lives, for each major: [`Operand`] (A and B) and
/// [`OutputOperand`] (C and D).
///
/// Scalars are `f64`, as every cutlet kernel family takes them; the kernel
/// reads alpha, beta and the epilogue scalars as f32 (rounded to nearest).
/// A scalar that is not finite in f32 (NaN, infinity, or beyond f32's
/// range) is an [`Error::InvalidArgument`](crate::Error::InvalidArgument)
/// unless the GEMM's `check_scalars(false)` lets it through.
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
    /// Scale of the product (rounded to f32 for the kernel).
    pub alpha: f64,
    /// Scale of C (rounded to f32 for the kernel; 0 reads no C).
    pub beta: f64,
    /// Inputs of a fused epilogue (none for the default linear combination).
    pub epilogue: EpilogueArgs<'a, C>,
    /// The order in which the kernel walks the output tiles.
    pub scheduler: SchedulerArgs,
}

/// How the tile scheduler walks the output tiles (CUTLASS's
/// `TileSchedulerArguments`): the raster order and the swizzle size, the
/// number of tiles a group spans across the walk. Neither changes the
/// result; they change which tiles run at one time, so which parts of A and
/// B share L2.
///
/// ```
/// use cutlet::device::gemm::{RasterOrder, SchedulerArgs};
///
/// let walk = SchedulerArgs { raster_order: RasterOrder::AlongM, swizzle_size: Some(4) };
/// assert_eq!(walk.raster_log().unwrap(), Some(2));
/// // The default: the kernel's own order (along M in a 1x2 cluster, else
/// // along N) and its own swizzle (8 tiles).
/// assert_eq!(SchedulerArgs::default().raster_log().unwrap(), None);
/// // A swizzle size that is not a power of two is an error that names it.
/// let bad = SchedulerArgs { swizzle_size: Some(3), ..SchedulerArgs::default() };
/// assert!(bad.raster_log().unwrap_err().to_string().contains("swizzle_size"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedulerArgs {
    /// The kernel's own order (the default: along M in a 1x2 cluster, else
    /// along N), along N, along M, or by CUTLASS's heuristic (along M where
    /// the problem has more N tiles than M tiles; see [`RasterOrder`] for
    /// the measurements behind the default).
    pub raster_order: RasterOrder,
    /// Tiles per swizzle group, a power of two (CUTLASS's
    /// `max_swizzle_size`; capped at the problem's tiles); `None` takes the
    /// kernel's own ([`DEFAULT_RASTER_LOG`](super::DEFAULT_RASTER_LOG)).
    pub swizzle_size: Option<u32>,
}

impl SchedulerArgs {
    /// The kernel's `raster_log` for [`swizzle_size`](Self::swizzle_size):
    /// its base-2 logarithm, `None` for the kernel's own.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a size
    /// that is not a power of two.
    pub fn raster_log(&self) -> crate::Result<Option<u32>> {
        match self.swizzle_size {
            None => Ok(None),
            Some(size) if size.is_power_of_two() => Ok(Some(size.trailing_zeros())),
            Some(size) => Err(crate::Error::invalid_argument(
                "swizzle_size",
                size,
                "a power of two (1, 2, 4, 8, ...)",
            )),
        }
    }
}

/// What a fused [`Epilogue`](crate::kernel::gemm::Epilogue) reads beyond
/// C, alpha and beta: one bias vector per [`Epilogue::biases`](crate::kernel::gemm::Epilogue::biases)
/// entry (C's element type; length at least M for a row bias, N for a column
/// bias; shared by every batch), and the extra scalars s2, s3, ...
#[derive(Debug)]
pub struct EpilogueArgs<'a, C> {
    /// The bias vectors, in the epilogue's order.
    pub biases: Vec<CudaView<'a, C>>,
    /// The extra scalars, s2 first (rounded to f32 for the kernel).
    pub scalars: Vec<f64>,
    /// The scales of A and B of a GEMM whose epilogue is scaled
    /// ([`GemmBuilder::scales`](super::GemmBuilder::scales)), f32 in device
    /// memory: one value each for [`ScaleGranularity::Tensor`](crate::kernel::gemm::ScaleGranularity::Tensor),
    /// M and N values for [`RowCol`](crate::kernel::gemm::ScaleGranularity::RowCol),
    /// `L · M · ceil(K/128)` and `L · ceil(N/128) · ceil(K/128)` for
    /// [`Block`](crate::kernel::gemm::ScaleGranularity::Block).
    pub scales: Option<[CudaView<'a, f32>; 2]>,
    /// D's output scale of a GEMM built with
    /// [`GemmBuilder::d_scale`](super::GemmBuilder::d_scale): one f32 in
    /// device memory, by which each result is multiplied before D's
    /// conversion.
    pub d_scale: Option<CudaView<'a, f32>>,
    /// Where a GEMM built with
    /// [`GemmBuilder::d_amax`](super::GemmBuilder::d_amax) writes the amax
    /// of D (one f32 in device memory): the largest `|r|` over the results
    /// before the output scale, 0 for an empty D, NaN where a result is NaN.
    pub d_amax: Option<CudaViewMut<'a, f32>>,
}

impl<C> Default for EpilogueArgs<'_, C> {
    /// No bias, no extra scalar.
    fn default() -> Self {
        EpilogueArgs {
            biases: Vec::new(),
            scalars: Vec::new(),
            scales: None,
            d_scale: None,
            d_amax: None,
        }
    }
}

impl<'a, A, B, C, D> Arguments<'a, A, B, C, D> {
    /// These arguments with bias vectors `biases` for a fused epilogue.
    pub fn with_biases(mut self, biases: Vec<CudaView<'a, C>>) -> Self {
        self.epilogue.biases = biases;
        self
    }

    /// These arguments with the scales of A and B (f32 in device memory)
    /// of an 8-bit GEMM built with
    /// [`GemmBuilder::scales`](super::GemmBuilder::scales): the kernel
    /// computes `scale_a · scale_b · (A · B)` in place of `A · B`, then the
    /// epilogue (`alpha ·` that `+ beta · C` by default), as
    /// `torch._scaled_mm` does. One value each for per-tensor scales; for
    /// row-wise ones `scale_a[m]` per row of A (M values) and `scale_b[n]`
    /// per column of B (N values); for block scales `scale_a[m][k / 128]`
    /// and `scale_b[n / 128][k / 128]`, row-major, batch after batch
    /// (`L · M · ceil(K/128)` and `L · ceil(N/128) · ceil(K/128)` values;
    /// [`ScaleGranularity::Block`](crate::kernel::gemm::ScaleGranularity::Block)).
    pub fn with_scales(mut self, scale_a: CudaView<'a, f32>, scale_b: CudaView<'a, f32>) -> Self {
        self.epilogue.scales = Some([scale_a, scale_b]);
        self
    }

    /// These arguments with D's output scale (one f32 in device memory) of
    /// a GEMM built with [`GemmBuilder::d_scale`](super::GemmBuilder::d_scale):
    /// D holds `convert(d_scale · r)` for each result `r` of the epilogue,
    /// as cuBLASLt's `CUBLASLT_MATMUL_DESC_D_SCALE_POINTER`.
    pub fn with_d_scale(mut self, d_scale: CudaView<'a, f32>) -> Self {
        self.epilogue.d_scale = Some(d_scale);
        self
    }

    /// These arguments with the f32 in device memory where a GEMM built
    /// with [`GemmBuilder::d_amax`](super::GemmBuilder::d_amax) writes
    /// `max |r|` over D's results before the output scale (cuBLASLt's
    /// `CUBLASLT_MATMUL_DESC_AMAX_D_POINTER`). `run` overwrites it: it
    /// sets it to 0 on the stream, then the kernel raises it.
    pub fn with_d_amax(mut self, d_amax: CudaViewMut<'a, f32>) -> Self {
        self.epilogue.d_amax = Some(d_amax);
        self
    }

    /// These arguments with extra epilogue scalars (s2, s3, ...).
    pub fn with_scalars(mut self, scalars: Vec<f64>) -> Self {
        self.epilogue.scalars = scalars;
        self
    }

    /// These arguments with the tile walk `scheduler` (raster order and
    /// swizzle size).
    pub fn with_scheduler(mut self, scheduler: SchedulerArgs) -> Self {
        self.scheduler = scheduler;
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
        alpha: f64,
        beta: f64,
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
        alpha: f64,
        beta: f64,
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
            scheduler: SchedulerArgs::default(),
        }
    }
}

impl<'a, A, B, D> Arguments<'a, A, B, D, D> {
    /// `D = alpha · A · B`, with no C: beta is 0, so the kernel reads only
    /// A and B, and D may hold anything before (uninitialized memory, NaN).
    ///
    /// ```no_run
    /// use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
    /// use cutlet::device::Device;
    /// use cutlet::half::bf16;
    /// # fn main() -> cutlet::Result<()> {
    /// let device = Device::new(0)?;
    /// let stream = device.default_stream();
    /// let (m, n, k) = (256, 512, 128);
    /// let a = stream.alloc_zeros::<bf16>(m * k).unwrap(); // row-major M x K (K-major)
    /// let b = stream.alloc_zeros::<bf16>(n * k).unwrap(); // column-major K x N (K-major)
    /// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap(); // row-major M x N
    /// let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    /// let mut args = Arguments::product(
    ///     GemmShape::new(m, n, k, 1),
    ///     Operand::new(a.as_view(), k, 0),
    ///     Operand::new(b.as_view(), k, 0),
    ///     OutputOperand::new(d.as_view_mut(), n, 0),
    ///     1.0, // alpha
    /// );
    /// gemm.run(&mut args, &stream)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn product(
        shape: GemmShape,
        a: Operand<'a, A>,
        b: Operand<'a, B>,
        d: OutputOperand<'a, D>,
        alpha: f64,
    ) -> Self {
        Self::with_source(shape, a, b, Source::D, d, alpha, 0.0)
    }

    /// In place: `D = alpha · A · B + beta · D` (C is D's buffer, with D's
    /// leading dimension and batch stride). For the plain product use
    /// [`product`](Self::product).
    pub fn in_place(
        shape: GemmShape,
        a: Operand<'a, A>,
        b: Operand<'a, B>,
        d: OutputOperand<'a, D>,
        alpha: f64,
        beta: f64,
    ) -> Self {
        Self::with_source(shape, a, b, Source::D, d, alpha, beta)
    }
}
