//! [`OperandMajor`] and [`OutputMajor`]: which dimension of a GEMM operand
//! is contiguous in memory.

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

    /// The major of the transposed output: a row-major M x N matrix is
    /// its N x M transpose stored column-major (the same bytes).
    pub const fn transposed(self) -> OutputMajor {
        match self {
            OutputMajor::N => OutputMajor::M,
            OutputMajor::M => OutputMajor::N,
        }
    }
}

/// The majors of a GEMM's four operands.
///
/// ```
/// use cutlet::gemm::{GemmMajors, OperandMajor, OutputMajor};
///
/// let tn = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
/// assert_eq!(tn.d, OutputMajor::N);
/// assert_eq!(tn.to_string(), "k_k_n_n");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmMajors {
    /// Contiguous dimension of A.
    pub a: OperandMajor,
    /// Contiguous dimension of B.
    pub b: OperandMajor,
    /// Contiguous dimension of C.
    pub c: OutputMajor,
    /// Contiguous dimension of D.
    pub d: OutputMajor,
}

impl GemmMajors {
    /// The majors of the transposed product D^T = B^T A^T over the same
    /// buffers (swap-AB): A's and B's exchanged (B's N becomes the new
    /// A's M, so each keeps its major), C's and D's transposed.
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, OperandMajor, OutputMajor};
    ///
    /// let nt = GemmMajors::new(OperandMajor::K, OperandMajor::MN, OutputMajor::N);
    /// assert_eq!(nt.transposed(), GemmMajors::new(OperandMajor::MN, OperandMajor::K, OutputMajor::M));
    /// ```
    pub const fn transposed(self) -> GemmMajors {
        GemmMajors {
            a: self.b,
            b: self.a,
            c: self.c.transposed(),
            d: self.d.transposed(),
        }
    }

    /// A's and B's majors, and C's, which D shares.
    pub const fn new(a: OperandMajor, b: OperandMajor, c: OutputMajor) -> GemmMajors {
        GemmMajors { a, b, c, d: c }
    }
}

impl std::fmt::Display for GemmMajors {
    /// `a_b_c_d` short names, as kernel names write them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}_{}_{}_{}",
            self.a.name(),
            self.b.name(),
            self.c.name(),
            self.d.name()
        )
    }
}
