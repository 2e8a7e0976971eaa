//! cuBLAS's view of a cutlet GEMM, shared by both cuBLAS references.
//!
//! cuBLAS is column-major. A column-major D (`OutputMajor::M`) is computed
//! as D = op(A) · op(B); a row-major D (`OutputMajor::N`) is a column-major
//! Dᵀ, computed as Dᵀ = op(B) · op(A) with the operands swapped. Each
//! operand is passed as it is stored (column-major, `ld` apart) and
//! transposed or not by its major.

use cutlet::device::gemm::{Arguments, GemmShape};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;

/// Which of cutlet's operands a cuBLAS operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    /// cutlet's A (M × K).
    A,
    /// cutlet's B (N × K in CUTLASS 3.x's view).
    B,
}

/// One cuBLAS input operand: which cutlet operand it is, whether cuBLAS
/// transposes it, and the column-major matrix it is stored as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ColumnMajorOperand {
    /// The cutlet operand.
    pub source: Source,
    /// Whether cuBLAS reads it transposed (`CUBLAS_OP_T`).
    pub transpose: bool,
    /// Rows of the stored column-major matrix (before the transpose).
    pub rows: usize,
    /// Columns of the stored column-major matrix.
    pub cols: usize,
    /// Leading dimension in elements.
    pub ld: usize,
    /// Batch stride in elements.
    pub batch_stride: usize,
    /// Element type (tf32 is stored as f32).
    pub element: ElementType,
}

/// A cutlet GEMM as cuBLAS computes it: `out (rows × cols) = op(first) · op(second)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ColumnMajorGemm {
    /// Rows of the column-major output (M, or N for a row-major D).
    pub rows: usize,
    /// Columns of the column-major output.
    pub cols: usize,
    /// The reduction extent K.
    pub k: usize,
    /// Batches.
    pub l: usize,
    /// cuBLAS's A.
    pub first: ColumnMajorOperand,
    /// cuBLAS's B.
    pub second: ColumnMajorOperand,
}

impl ColumnMajorGemm {
    /// cuBLAS's view of `args` with the types and majors of `spec`.
    pub fn new<A, B, C, D>(spec: &GemmSpec, args: &Arguments<'_, A, B, C, D>) -> Self {
        Self::from_strides(
            spec,
            args.shape,
            (args.a.ld, args.a.batch_stride),
            (args.b.ld, args.b.batch_stride),
        )
    }

    /// cuBLAS's view of a `shape` problem with the types and majors of
    /// `spec`, A's and B's `(ld, batch stride)` as given.
    pub fn from_strides(
        spec: &GemmSpec,
        shape: GemmShape,
        a_strides: (usize, usize),
        b_strides: (usize, usize),
    ) -> Self {
        let GemmShape { m, n, k, l } = shape;
        let a = |transpose: bool| ColumnMajorOperand {
            source: Source::A,
            transpose,
            rows: 0,
            cols: 0,
            ld: a_strides.0,
            batch_stride: a_strides.1,
            element: spec.types.a,
        };
        let b = |transpose: bool| ColumnMajorOperand {
            source: Source::B,
            transpose,
            rows: 0,
            cols: 0,
            ld: b_strides.0,
            batch_stride: b_strides.1,
            element: spec.types.b,
        };
        let (rows, cols, first, second) = match spec.majors.d {
            // D = op(A) · op(B): A K-major is a column-major K × M, so transposed;
            // B MN-major is a column-major N × K, so transposed.
            OutputMajor::M => (
                m,
                n,
                a(spec.majors.a == OperandMajor::K),
                b(spec.majors.b == OperandMajor::MN),
            ),
            // Dᵀ = op(B) · op(A): B K-major is a column-major K × N, so
            // transposed; A MN-major is a column-major M × K, so transposed.
            OutputMajor::N => (
                n,
                m,
                b(spec.majors.b == OperandMajor::K),
                a(spec.majors.a == OperandMajor::MN),
            ),
        };
        // op(first) is rows × K, op(second) is K × cols.
        let first = stored(first, rows, k);
        let second = stored(second, k, cols);
        ColumnMajorGemm {
            rows,
            cols,
            k,
            l,
            first,
            second,
        }
    }
}

impl ColumnMajorGemm {
    /// Checks that A, B and D of `args` (this view's arguments) hold the
    /// matrices their leading dimensions and batch strides describe.
    ///
    /// Errors: as [`check_extent`].
    pub fn check_buffers<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
    ) -> cutlet::Result<()> {
        for operand in [&self.first, &self.second] {
            let (name, len) = match operand.source {
                Source::A => ("a", args.a.data.len()),
                Source::B => ("b", args.b.data.len()),
            };
            check_extent(
                name,
                len,
                (operand.rows, operand.cols, self.l),
                operand.ld,
                operand.batch_stride,
            )?;
        }
        check_extent(
            "d",
            args.d.data.len(),
            (self.rows, self.cols, self.l),
            args.d.ld,
            args.d.batch_stride,
        )
    }
}

/// `operand` with the stored extents of an `op_rows × op_cols` op(operand).
fn stored(operand: ColumnMajorOperand, op_rows: usize, op_cols: usize) -> ColumnMajorOperand {
    let (rows, cols) = if operand.transpose {
        (op_cols, op_rows)
    } else {
        (op_rows, op_cols)
    };
    ColumnMajorOperand {
        rows,
        cols,
        ..operand
    }
}

/// Checks that a buffer of `len` elements holds `batches` column-major
/// `rows × cols` matrices `ld` apart by column and `batch_stride` by batch,
/// so that cuBLAS reads and writes nothing outside it.
///
/// Errors: [`cutlet::Error::InvalidArgument`] naming `name` for `ld < rows`
/// or a buffer too short.
pub(crate) fn check_extent(
    name: &str,
    len: usize,
    shape: (usize, usize, usize),
    ld: usize,
    batch_stride: usize,
) -> cutlet::Result<()> {
    let (rows, cols, batches) = shape;
    if ld < rows.max(1) {
        return Err(cutlet::Error::invalid_argument(
            format!("{name} leading dimension"),
            ld,
            format!(
                "at least {} (the rows of its column-major view)",
                rows.max(1)
            ),
        ));
    }
    if rows == 0 || cols == 0 || batches == 0 {
        return Ok(());
    }
    let needed = (batches - 1)
        .checked_mul(batch_stride)
        .and_then(|x| x.checked_add((cols - 1).checked_mul(ld)?))
        .and_then(|x| x.checked_add(rows));
    match needed {
        Some(needed) if needed <= len => Ok(()),
        _ => Err(cutlet::Error::invalid_argument(
            format!("{name} buffer length"),
            len,
            format!(
                "at least {} elements for {batches} batch(es) of {rows} x {cols} (ld {ld}, batch stride {batch_stride})",
                needed.map_or_else(|| "more than usize::MAX".to_string(), |n| n.to_string())
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutlet::device::gemm::Gemm;

    fn view(a: OperandMajor, b: OperandMajor, d: OutputMajor) -> ColumnMajorGemm {
        let spec = Gemm::builder()
            .a(ElementType::BF16, a)
            .b(ElementType::BF16, b)
            .d(ElementType::F32, d)
            .accumulator(ElementType::F32)
            .spec()
            .unwrap();
        // M = 3, N = 5, K = 7, L = 2; A's ld 11, B's ld 13.
        ColumnMajorGemm::from_strides(&spec, GemmShape::new(3, 5, 7, 2), (11, 100), (13, 200))
    }

    #[test]
    fn a_row_major_d_is_computed_transposed_with_the_operands_swapped() {
        // A, B K-major, D row-major: Dᵀ (5 × 3) = Bᵀ · Aᵀ, B stored as a
        // column-major K × N read transposed, A as a column-major K × M read as is.
        let tn = view(OperandMajor::K, OperandMajor::K, OutputMajor::N);
        assert_eq!((tn.rows, tn.cols, tn.k, tn.l), (5, 3, 7, 2));
        assert_eq!(
            (
                tn.first.source,
                tn.first.transpose,
                tn.first.rows,
                tn.first.cols
            ),
            (Source::B, true, 7, 5)
        );
        assert_eq!((tn.first.ld, tn.first.batch_stride), (13, 200));
        assert_eq!(
            (
                tn.second.source,
                tn.second.transpose,
                tn.second.rows,
                tn.second.cols
            ),
            (Source::A, false, 7, 3)
        );
        // MN-major operands flip both transposes.
        let nt = view(OperandMajor::MN, OperandMajor::MN, OutputMajor::N);
        assert_eq!(
            (nt.first.transpose, nt.first.rows, nt.first.cols),
            (false, 5, 7)
        );
        assert_eq!(
            (nt.second.transpose, nt.second.rows, nt.second.cols),
            (true, 3, 7)
        );
    }

    #[test]
    fn a_column_major_d_is_computed_as_is() {
        // A K-major is a column-major K × M (transposed); B K-major a column-major K × N (as is).
        let view = view(OperandMajor::K, OperandMajor::K, OutputMajor::M);
        assert_eq!((view.rows, view.cols), (3, 5));
        assert_eq!(
            (
                view.first.source,
                view.first.transpose,
                view.first.rows,
                view.first.cols
            ),
            (Source::A, true, 7, 3)
        );
        assert_eq!(
            (
                view.second.source,
                view.second.transpose,
                view.second.rows,
                view.second.cols
            ),
            (Source::B, false, 7, 5)
        );
    }

    #[test]
    fn extents_reject_short_buffers_and_small_ld() {
        // 3 batches of 4 x 4, ld 4, 10 apart: the last element is 2·10 + 3·4 + 3.
        assert!(check_extent("a", 36, (4, 4, 3), 4, 10).is_ok());
        assert!(check_extent("a", 35, (4, 4, 3), 4, 10)
            .unwrap_err()
            .to_string()
            .contains("at least 36"));
        assert!(check_extent("d", 100, (5, 2, 1), 4, 10)
            .unwrap_err()
            .to_string()
            .contains("at least 5"));
        assert!(check_extent("d", 0, (0, 2, 1), 1, 0).is_ok());
    }
}
