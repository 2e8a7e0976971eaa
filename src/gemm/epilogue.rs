//! [`Epilogue`]: the fused expression a GEMM applies to its accumulators
//! before the store, and the bias vectors it reads.
//!
//! The expression's per-element inputs are, in order: `acc` (the f32
//! accumulator, x0), `c` (C's element, x1, as f32), then one value per bias
//! vector (x2, x3, ...). Its scalars are `alpha` (s0), `beta` (s1), then the
//! extra scalars (s2, ...). Everything is computed in f32 and rounded once
//! to D's type. As CUTLASS's `is_source_needed`, C is read only when
//! `beta` is not 0; otherwise `c` is 0.

use std::fmt;

use crate::fusion::{input, Expr, Expression};
use crate::{Error, Result};

/// Most bias vectors one epilogue reads.
pub const MAX_BIASES: usize = 4;

/// Which output dimension a bias vector follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BiasAxis {
    /// One value per row of D: element `m` is added to row `m` (length M).
    Row,
    /// One value per column of D: element `n` is added to column `n` (length N).
    Column,
    /// One value for all of D (length 1, read from device memory: a
    /// per-tensor scale). The SM90 kernels only.
    Scalar,
}

/// The granularity of an 8-bit GEMM's scales
/// ([`Epilogue::with_scales`]): the product is `scale_a · scale_b · (A · B)`
/// before the epilogue expression, as `torch._scaled_mm` computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleGranularity {
    /// One f32 for A and one for B (length-1 device buffers).
    Tensor,
    /// One f32 per row of A (length M) and per column of B (length N).
    RowCol,
    /// DeepSeek-V3's block scales (cuBLASLt's `VEC128_32F` for A and
    /// `BLK128x128_32F` for B): one f32 per row of A and 128 of K, and one
    /// per 128x128 block of B (128 of N by 128 of K), so that
    /// `D[m][n] = Σ_kb scale_a[m][kb] · scale_b[n / 128][kb] · Σ_{k in kb} A[m][k] · B[k][n]`
    /// with `kb = k / 128`.
    ///
    /// Both are f32, row-major, with `kb` fastest: A's `[M][ceil(K/128)]`
    /// and B's `[ceil(N/128)][ceil(K/128)]`, batch after batch for a
    /// batched GEMM. These are the layouts
    /// [`device::quantize`](crate::device::quantize) writes with
    /// `QuantizeScale::Block1x128` for a K-major A (`[M][K]`) and
    /// `QuantizeScale::Block128x128` for a K-major B (`[N][K]`).
    ///
    /// The FP8 mainloop applies them where it promotes its partial sums,
    /// once per 128 of K (TileK 128, promotion interval 4, TileN 128 or a
    /// divisor of it), so block scales need e4m3/e5m2 inputs without fast
    /// accumulation. Swap-AB's kernel (a small M) reads A's scales along
    /// its N, one per column (TileM 64 or 128, TileN at most 64).
    Block,
}

impl ScaleGranularity {
    /// How many f32 vectors the scales add to the epilogue's inputs: two
    /// for [`Tensor`](Self::Tensor) and [`RowCol`](Self::RowCol), none for
    /// [`Block`](Self::Block), which the mainloop applies.
    pub const fn epilogue_vectors(self) -> usize {
        match self {
            ScaleGranularity::Tensor | ScaleGranularity::RowCol => 2,
            ScaleGranularity::Block => 0,
        }
    }
}

impl BiasAxis {
    /// The axis this one becomes in the transposed output D^T: a row bias
    /// of D is a column bias of D^T, and the other way round.
    pub const fn transposed(self) -> BiasAxis {
        match self {
            BiasAxis::Row => BiasAxis::Column,
            BiasAxis::Column => BiasAxis::Row,
            BiasAxis::Scalar => BiasAxis::Scalar,
        }
    }

    /// `row` or `col`, as kernel names and messages write it.
    pub const fn name(self) -> &'static str {
        match self {
            BiasAxis::Row => "row",
            BiasAxis::Column => "col",
            BiasAxis::Scalar => "scalar",
        }
    }
}

/// The epilogue of a GEMM: an [`Expression`] over `(acc, c, bias...)` with
/// scalars `(alpha, beta, extra...)`, and the axis of each bias vector.
/// Bias vectors have C's element type, are read element by element and are
/// shared by every batch.
///
/// ```
/// use cutlet::fusion::{scalar, Expr, Expression};
/// use cutlet::kernel::gemm::{BiasAxis, Epilogue};
///
/// // relu(alpha * acc + beta * c + bias[m])
/// let e = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
///     (acc * scalar(0) + c * scalar(1) + bias).relu()
/// });
/// let epilogue = Epilogue::new(e, &[BiasAxis::Row]).unwrap();
/// assert_eq!(epilogue.extra_scalars(), 0);
/// assert_eq!(epilogue.eval(2.0, 1.0, &[-10.0], 3.0, 0.5, &[]), 0.0);
/// assert!(Epilogue::default().is_linear_combination());
/// let wrong = Epilogue::new(Expression::from_fn(|a, b| a + b), &[BiasAxis::Row]).unwrap_err();
/// assert!(matches!(wrong, cutlet::Error::InvalidArgument { .. }));
/// assert!(wrong.to_string().contains("(acc, c, bias)"), "{wrong}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Epilogue {
    expression: Expression,
    biases: Vec<BiasAxis>,
    scales: Option<ScaleGranularity>,
    /// Block scales of swap-AB's kernel: A's 1x128 scales lie along the
    /// kernel's N (see [`Epilogue::block_scales_transposed`]).
    block_transposed: bool,
    output: OutputQuantization,
}

/// What an SM90 epilogue does with each result of its expression before
/// D's conversion, as cuBLASLt's `D_SCALE_POINTER` and `AMAX_D_POINTER`:
/// an FP8 D's scale and the amax the next layer's scale is computed from.
///
/// With both, element `d = convert(d_scale · r)` for the expression's
/// result `r`, and the amax is `max |r|` over every element of D (before
/// the scale, as cuBLASLt and Transformer Engine compute it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OutputQuantization {
    /// The result is multiplied by an f32 read from device memory
    /// (`Arguments::with_d_scale`) before D's conversion.
    pub d_scale: bool,
    /// `max |r|` over D is written to an f32 in device memory
    /// (`Arguments::with_d_amax`).
    pub d_amax: bool,
}

impl Default for Epilogue {
    /// [`Epilogue::linear_combination`].
    fn default() -> Epilogue {
        Epilogue::linear_combination()
    }
}

impl From<Expression> for Epilogue {
    /// The epilogue of `expression` with no bias vector (its arity must be
    /// at most 2; [`GemmSpec::validate`](crate::kernel::gemm::GemmSpec::validate) checks).
    fn from(expression: Expression) -> Epilogue {
        Epilogue {
            expression,
            biases: Vec::new(),
            scales: None,
            block_transposed: false,
            output: OutputQuantization::default(),
        }
    }
}

impl Epilogue {
    /// CUTLASS's default, `D = alpha * acc + beta * C`.
    pub fn linear_combination() -> Epilogue {
        Epilogue::from(Expression::linear_combination())
    }

    /// The epilogue of `expression` reading one bias vector per entry of
    /// `biases`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when there are more than [`MAX_BIASES`]
    /// bias vectors, or when the expression's arity is not 2 plus the bias
    /// count (at most 2 without biases), naming the expression and the
    /// inputs expected.
    pub fn new(expression: Expression, biases: &[BiasAxis]) -> Result<Epilogue> {
        let epilogue = Epilogue {
            expression,
            biases: biases.to_vec(),
            scales: None,
            block_transposed: false,
            output: OutputQuantization::default(),
        };
        match epilogue.unfit() {
            Some((name, value, expected)) => Err(Error::invalid_argument(name, value, expected)),
            None => Ok(epilogue),
        }
    }

    /// Why the expression's inputs do not fit (at most [`MAX_BIASES`]
    /// biases; arity at most 2 without biases, exactly `2 + biases` with
    /// them), as the sentence a configuration error carries
    /// ([`GemmSpec::validate`](crate::kernel::gemm::GemmSpec::validate)),
    /// or `None` when they fit.
    pub(crate) fn unfit_reason(&self) -> Option<String> {
        self.unfit()
            .map(|(name, value, expected)| format!("{name} {value}: expected {expected}"))
    }

    /// What does not fit, as (name, value, expected), or `None`.
    fn unfit(&self) -> Option<(&'static str, String, String)> {
        let arity = self.expression.arity();
        let nb = self.biases.len();
        if nb > MAX_BIASES {
            return Some((
                "epilogue bias vectors",
                nb.to_string(),
                format!("at most {MAX_BIASES}"),
            ));
        }
        let ok = if nb == 0 { arity <= 2 } else { arity == 2 + nb };
        (!ok).then(|| {
            (
                "epilogue expression",
                format!(
                    "`{}`, which takes {arity} inputs with {nb} bias vectors",
                    self.expression
                ),
                format!("inputs (acc, c{})", ", bias".repeat(nb)),
            )
        })
    }

    /// This epilogue on the scaled product: `scale_a · scale_b · acc` in
    /// place of `acc`, the scales two more f32 vectors after the biases
    /// (x2 + biases and the next; a [`Row`](BiasAxis::Row) and a
    /// [`Column`](BiasAxis::Column) vector for
    /// [`RowCol`](ScaleGranularity::RowCol), two
    /// [`Scalar`](BiasAxis::Scalar)s for [`Tensor`](ScaleGranularity::Tensor)).
    /// [`Block`](ScaleGranularity::Block) scales add no vector and leave
    /// the expression as it is: the mainloop applies them, so `acc` is the
    /// scaled sum already. Scales run on the SM90 kernels with 8-bit inputs.
    ///
    /// ```
    /// use cutlet::fusion::{Expr, Expression};
    /// use cutlet::kernel::gemm::{BiasAxis, Epilogue, ScaleGranularity};
    ///
    /// let relu = Epilogue::from(Expression::from_fn(|acc: Expr, _c: Expr| acc.relu()));
    /// let scaled = relu.with_scales(ScaleGranularity::RowCol).unwrap();
    /// assert_eq!(scaled.biases(), [BiasAxis::Row, BiasAxis::Column]);
    /// assert_eq!(scaled.scales(), Some(ScaleGranularity::RowCol));
    /// // relu(0.5 * 4 * acc), with acc = 3.
    /// assert_eq!(scaled.eval(3.0, 0.0, &[0.5, 4.0], 1.0, 0.0, &[]), 6.0);
    /// assert!(scaled.with_scales(ScaleGranularity::Tensor).is_err());
    /// // Block scales: the same expression and inputs, applied in the mainloop.
    /// let block = relu.with_scales(ScaleGranularity::Block).unwrap();
    /// assert_eq!((block.biases(), block.scales()), (&[][..], Some(ScaleGranularity::Block)));
    /// assert_eq!(block.eval(3.0, 0.0, &[], 1.0, 0.0, &[]), 3.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] where the epilogue already has scales,
    /// or where the vectors would be more than [`MAX_BIASES`].
    pub fn with_scales(&self, granularity: ScaleGranularity) -> Result<Epilogue> {
        if let Some(scales) = self.scales {
            return Err(Error::invalid_argument(
                "epilogue scales",
                format!("{granularity:?} on an epilogue scaled {scales:?}"),
                "one set of scales",
            ));
        }
        if granularity == ScaleGranularity::Block {
            // The mainloop applies block scales: `acc` arrives scaled.
            return Ok(Epilogue {
                scales: Some(granularity),
                block_transposed: false,
                ..self.clone()
            });
        }
        let nb = self.biases.len();
        if nb + 2 > MAX_BIASES {
            return Err(Error::invalid_argument(
                "epilogue bias vectors",
                format!("{nb} and two scales"),
                format!("at most {MAX_BIASES} vectors in all"),
            ));
        }
        let mut inputs: Vec<Expr> = (0..2 + nb).map(input).collect();
        let (scale_a, scale_b) = (input(2 + nb), input(3 + nb));
        inputs[0] = inputs[0].clone() * scale_a * scale_b;
        let body = self.expression.apply_to(&inputs);
        let mut biases = self.biases.clone();
        biases.extend(match granularity {
            ScaleGranularity::Tensor => [BiasAxis::Scalar, BiasAxis::Scalar],
            _ => [BiasAxis::Row, BiasAxis::Column],
        });
        Ok(Epilogue {
            expression: Expression::new(4 + nb, &body)?,
            biases,
            scales: Some(granularity),
            block_transposed: false,
            output: self.output,
        })
    }

    /// The scales' granularity, where [`with_scales`](Self::with_scales)
    /// set one.
    pub fn scales(&self) -> Option<ScaleGranularity> {
        self.scales
    }

    /// This epilogue with D's output scale and amax as `output` says
    /// ([`OutputQuantization`]): the SM90 kernels' register-store epilogue
    /// multiplies each result by the scale before D's conversion (an FP8
    /// D saturates to its largest finite value) and writes the amax of the
    /// results before the scale.
    ///
    /// ```
    /// use cutlet::kernel::gemm::{Epilogue, OutputQuantization};
    ///
    /// let fp8 = OutputQuantization { d_scale: true, d_amax: true };
    /// let epilogue = Epilogue::linear_combination().with_output(fp8);
    /// assert_eq!(epilogue.output(), fp8);
    /// assert!(!epilogue.is_linear_combination());
    /// assert!(epilogue.to_string().ends_with("* d_scale, amax"), "{epilogue}");
    /// ```
    pub fn with_output(&self, output: OutputQuantization) -> Epilogue {
        Epilogue {
            output,
            ..self.clone()
        }
    }

    /// D's output scale and amax ([`with_output`](Self::with_output)).
    pub fn output(&self) -> OutputQuantization {
        self.output
    }

    /// The element type of bias vector `i` in a GEMM whose C is `c`: f32
    /// for the scales (the last two where scales are set), else C's.
    pub fn bias_element(
        &self,
        i: usize,
        c: crate::numeric::ElementType,
    ) -> crate::numeric::ElementType {
        match self.scales {
            Some(scales) if i + scales.epilogue_vectors() >= self.biases.len() => {
                crate::numeric::ElementType::F32
            }
            _ => c,
        }
    }

    /// Whether only the SM90 epilogues read these inputs: scales, a
    /// [`BiasAxis::Scalar`] vector, or D's output scale or amax.
    pub(crate) fn needs_sm90(&self) -> bool {
        self.scales.is_some()
            || self.biases.contains(&BiasAxis::Scalar)
            || self.output != OutputQuantization::default()
    }

    /// The user's bias vectors: all of [`biases`](Self::biases) but the
    /// scales.
    pub fn user_biases(&self) -> usize {
        self.biases.len() - self.scales.map_or(0, ScaleGranularity::epilogue_vectors)
    }

    /// The expression.
    pub fn expression(&self) -> &Expression {
        &self.expression
    }

    /// The axis of each bias vector, in input order (x2, x3, ...).
    pub fn biases(&self) -> &[BiasAxis] {
        &self.biases
    }

    /// This epilogue on the transposed output D^T (swap-AB): the same
    /// expression, each bias on the other axis, so that element (n, m) of
    /// D^T gets what element (m, n) of D would.
    ///
    /// ```
    /// use cutlet::fusion::{Expr, Expression};
    /// use cutlet::kernel::gemm::{BiasAxis, Epilogue};
    ///
    /// let e = Expression::from_fn(|acc: Expr, _c: Expr, row: Expr, col: Expr| acc + row + col);
    /// let epilogue = Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap();
    /// assert_eq!(epilogue.transposed().biases(), [BiasAxis::Column, BiasAxis::Row]);
    /// assert_eq!(epilogue.transposed().transposed(), epilogue);
    /// ```
    pub fn transposed(&self) -> Epilogue {
        Epilogue {
            expression: self.expression.clone(),
            biases: self.biases.iter().map(|b| b.transposed()).collect(),
            scales: self.scales,
            block_transposed: self.scales == Some(ScaleGranularity::Block)
                && !self.block_transposed,
            output: self.output,
        }
    }

    /// Whether these are the block scales
    /// ([`ScaleGranularity::Block`]) of swap-AB's kernel, which computes
    /// `D^T = B^T · A^T`: A's per-row scales then lie along the kernel's
    /// N and B's 128x128 blocks along its M ([`transposed`](Self::transposed)
    /// sets it).
    ///
    /// ```
    /// use cutlet::kernel::gemm::{Epilogue, ScaleGranularity};
    ///
    /// let block = Epilogue::linear_combination().with_scales(ScaleGranularity::Block).unwrap();
    /// assert!(!block.block_scales_transposed());
    /// assert!(block.transposed().block_scales_transposed());
    /// assert_eq!(block.transposed().transposed(), block);
    /// ```
    pub fn block_scales_transposed(&self) -> bool {
        self.block_transposed
    }

    /// Scalars beyond alpha and beta the expression reads (s2, s3, ...).
    pub fn extra_scalars(&self) -> usize {
        self.expression.scalar_count().saturating_sub(2)
    }

    /// Whether this is exactly [`linear_combination`](Self::linear_combination).
    pub fn is_linear_combination(&self) -> bool {
        *self == Epilogue::linear_combination()
    }

    /// The granularity of the scales where this is the linear combination
    /// with per-tensor or row-wise scales and nothing more,
    /// `alpha · scale_a · scale_b · acc + beta · c` (the two scale vectors
    /// on either axis, as [`transposed`](Self::transposed) leaves them):
    /// the kernels fold alpha into a scale read once per tile.
    pub(crate) fn scaled_linear_combination(&self) -> Option<ScaleGranularity> {
        let g = self.scales?;
        if g == ScaleGranularity::Block || self.output != OutputQuantization::default() {
            return None;
        }
        let plain = Epilogue::linear_combination().with_scales(g).ok()?;
        let axes = |e: &Epilogue| {
            let mut axes = e.biases.clone();
            axes.sort();
            axes
        };
        (self.expression == plain.expression && axes(self) == axes(&plain)).then_some(g)
    }

    /// The host reference of one output element (f64, before D's rounding):
    /// `acc`, `c` (pass 0 when beta is 0), this element's bias values, and
    /// the scalars.
    pub fn eval(
        &self,
        acc: f64,
        c: f64,
        bias: &[f64],
        alpha: f64,
        beta: f64,
        extra: &[f64],
    ) -> f64 {
        let mut inputs = vec![acc, c];
        inputs.extend_from_slice(bias);
        inputs.truncate(self.expression.arity());
        let mut scalars = vec![alpha, beta];
        scalars.extend_from_slice(extra);
        self.expression.eval(&inputs, &scalars)
    }

    /// A short stable tag of the expression and biases for kernel names:
    /// 16 hex digits of the FNV-1a hash of [`Display`](fmt::Display)'s text.
    pub fn tag(&self) -> String {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in self.to_string().bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{hash:016x}")
    }
}

impl fmt::Display for Epilogue {
    /// The expression's key, then the bias axes: `|x0, x1| ... [row, col]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axes: Vec<&str> = self.biases.iter().map(|b| b.name()).collect();
        write!(f, "{} [{}]", self.expression, axes.join(", "))?;
        if let Some(scales) = self.scales {
            write!(f, " scaled {scales:?}")?;
            if self.block_transposed {
                write!(f, " transposed")?;
            }
        }
        match (self.output.d_scale, self.output.d_amax) {
            (true, true) => write!(f, " * d_scale, amax"),
            (true, false) => write!(f, " * d_scale"),
            (false, true) => write!(f, ", amax"),
            (false, false) => Ok(()),
        }
    }
}
