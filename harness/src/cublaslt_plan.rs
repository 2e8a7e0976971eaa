//! One problem's cuBLASLt plan: the matmul descriptor, the three matrix
//! layouts and the algorithm `cublasLtMatmulAlgoGetHeuristic` ranks first,
//! made once per problem and kept by [`CublasLtGemm`](crate::CublasLtGemm).

use std::ffi::c_void;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublaslt::result::{self, CublasError};
use cudarc::cublaslt::sys::{
    self, cublasComputeType_t, cublasLtMatmulAlgo_t, cublasLtMatmulDescAttributes_t,
    cublasLtMatmulPreferenceAttributes_t, cublasLtMatrixLayoutAttribute_t, cudaDataType_t,
};

use crate::column_major::{ColumnMajorGemm, ColumnMajorOperand};
use crate::{Error, Result};
use cutlet::kernel::gemm::OutputMajor;
use cutlet::numeric::ElementType;

/// What a plan depends on: cuBLAS's view of the problem, D's type, leading
/// dimension and batch stride, the compute type and the alignment in bytes
/// of the A, B, C and D pointers (as PyTorch passes them to the heuristic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    /// The problem as cuBLAS computes it.
    pub view: ColumnMajorGemm,
    /// D's element type (C is D).
    pub d: ElementType,
    /// D's major (for error messages; the view already holds its effect).
    pub d_major: OutputMajor,
    /// D's leading dimension.
    pub ldd: usize,
    /// D's batch stride.
    pub batch_d: usize,
    /// The compute type.
    pub compute: cublasComputeType_t,
    /// Alignment in bytes (at most 256) of cuBLAS's A, B, C and D pointers.
    pub alignments: [u32; 4],
    /// FP8 inputs with fast accumulation (`CUBLASLT_MATMUL_DESC_FAST_ACCUM`),
    /// as cutlet's kernel accumulates: without it cuBLASLt promotes.
    pub fast_accum: bool,
}

/// The largest power of two up to 256 that divides `address` (PyTorch's
/// `_getAlignment`).
///
/// ```text
/// alignment(0x1000) == 256, alignment(0x1010) == 16, alignment(0x1002) == 2
/// ```
pub(crate) fn alignment(address: u64) -> u32 {
    1 << address.trailing_zeros().min(8)
}

/// The descriptors and algorithm of one problem, destroyed on drop.
pub(crate) struct Plan {
    pub desc: MatmulDesc,
    pub first: Layout,
    pub second: Layout,
    pub d: Layout,
    pub algo: cublasLtMatmulAlgo_t,
}

impl Plan {
    /// Makes the descriptors of `key` and asks the heuristic for its best
    /// algorithm within `workspace_bytes` of workspace.
    ///
    /// Errors: [`Error::CublasLt`] for a failed call,
    /// [`Error::CublasLtNoAlgorithm`] when the heuristic returns none.
    pub fn new(
        handle: sys::cublasLtHandle_t,
        key: &PlanKey,
        workspace_bytes: usize,
    ) -> Result<Self> {
        let view = &key.view;
        let desc = MatmulDesc::new(key.compute, view)?;
        if key.fast_accum {
            // FP8 as PyTorch's `_scaled_mm(use_fast_accum=True)` runs it:
            // no promotion of the tensor cores' partial sums.
            let fast: i8 = 1;
            let (value, size) = bytes_of(&fast);
            // SAFETY: FAST_ACCUM takes an int8; `value` points at one that
            // lives through the call; the descriptor is alive.
            unsafe {
                result::set_matmul_desc_attribute(
                    desc.0,
                    cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                    value,
                    size,
                )
            }
            .map_err(lt_error("setting fast accumulation"))?;
        }
        let first = Layout::new("cuBLAS's A", &view.first, view.l)?;
        let second = Layout::new("cuBLAS's B", &view.second, view.l)?;
        let d = Layout::with_extents(
            "D",
            lt_data_type(key.d)?,
            (view.rows, view.cols),
            key.ldd,
            key.batch_d,
            view.l,
        )?;
        let preference = Preference::new(workspace_bytes as u64, key.alignments)?;
        let mut best = std::mem::MaybeUninit::<sys::cublasLtMatmulHeuristicResult_t>::uninit();
        let mut returned = 0;
        // SAFETY: every descriptor is alive (owned above); `best` has room
        // for the one result requested, and `returned` says whether it was
        // written.
        unsafe {
            sys::cublasLtMatmulAlgoGetHeuristic(
                handle,
                desc.0,
                first.0,
                second.0,
                d.0,
                d.0,
                preference.0,
                1,
                best.as_mut_ptr(),
                &mut returned,
            )
        }
        .result()
        .map_err(lt_error(
            "asking cublasLtMatmulAlgoGetHeuristic for an algorithm",
        ))?;
        if returned == 0 {
            return Err(Error::CublasLtNoAlgorithm {
                problem: describe(key),
            });
        }
        // SAFETY: the heuristic wrote `returned` (1) results.
        let best = unsafe { best.assume_init() };
        best.state
            .result()
            .map_err(lt_error("reading the heuristic's algorithm"))?;
        Ok(Plan {
            desc,
            first,
            second,
            d,
            algo: best.algo,
        })
    }
}

/// The problem in words, for [`Error::CublasLtNoAlgorithm`].
fn describe(key: &PlanKey) -> String {
    let view = &key.view;
    let transpose = |operand: &ColumnMajorOperand| if operand.transpose { "T" } else { "N" };
    format!(
        "column-major {} x {} x K={} (L={}) from cuBLAS's A {} ({}, {:?}) and B {} ({}, {:?}), D {} {:?}-major, compute {:?}",
        view.rows,
        view.cols,
        view.k,
        view.l,
        view.first.element,
        transpose(&view.first),
        view.first.source,
        view.second.element,
        transpose(&view.second),
        view.second.source,
        key.d,
        key.d_major,
        key.compute
    )
}

/// A `map_err` that wraps cuBLASLt's status with `context`.
pub(crate) fn lt_error(context: &'static str) -> impl Fn(CublasError) -> Error {
    move |source| Error::CublasLt {
        context: context.into(),
        source,
    }
}

/// The cuBLASLt data type of an element (tf32 data is stored as f32).
fn lt_data_type(element: ElementType) -> Result<cudaDataType_t> {
    match element {
        ElementType::F16 => Ok(cudaDataType_t::CUDA_R_16F),
        ElementType::BF16 => Ok(cudaDataType_t::CUDA_R_16BF),
        ElementType::F32 | ElementType::TF32 => Ok(cudaDataType_t::CUDA_R_32F),
        ElementType::F8E4M3 => Ok(cudaDataType_t::CUDA_R_8F_E4M3),
        ElementType::F8E5M2 => Ok(cudaDataType_t::CUDA_R_8F_E5M2),
        ElementType::I8 => Ok(cudaDataType_t::CUDA_R_8I),
        ElementType::U8 => Ok(cudaDataType_t::CUDA_R_8U),
        ElementType::I32 => Ok(cudaDataType_t::CUDA_R_32I),
        other => Err(cutlet::Error::invalid_argument(
            "element type",
            other,
            "f16, bf16, f32, tf32, e4m3, e5m2, s8, u8 or i32 for the cuBLASLt reference",
        )
        .into()),
    }
}

/// The address and size of an attribute value, as cuBLASLt's setters take them.
fn bytes_of<T>(value: &T) -> (*const c_void, usize) {
    ((value as *const T).cast(), std::mem::size_of::<T>())
}

/// A matmul descriptor: compute type, scale type (f32, or i32 for integer
/// compute), the two transposes.
pub(crate) struct MatmulDesc(pub sys::cublasLtMatmulDesc_t);

impl MatmulDesc {
    fn new(compute: cublasComputeType_t, view: &ColumnMajorGemm) -> Result<Self> {
        // Integer compute scales by i32 alpha and beta.
        let scale = if compute == cublasComputeType_t::CUBLAS_COMPUTE_32I {
            cudaDataType_t::CUDA_R_32I
        } else {
            cudaDataType_t::CUDA_R_32F
        };
        let desc = MatmulDesc(
            result::create_matmul_desc(compute, scale)
                .map_err(lt_error("creating a matmul descriptor"))?,
        );
        let op = |transpose: bool| {
            if transpose {
                cublasOperation_t::CUBLAS_OP_T as i32
            } else {
                cublasOperation_t::CUBLAS_OP_N as i32
            }
        };
        for (attribute, transpose) in [
            (
                cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
                view.first.transpose,
            ),
            (
                cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
                view.second.transpose,
            ),
        ] {
            // Bound to a local: the pointer must stay valid through the call.
            let operation = op(transpose);
            let (value, size) = bytes_of(&operation);
            // SAFETY: TRANSA and TRANSB take a cublasOperation_t (int32),
            // `value` points at one that lives through the call; the
            // descriptor is alive.
            unsafe { result::set_matmul_desc_attribute(desc.0, attribute, value, size) }
                .map_err(lt_error("setting a transpose of the matmul descriptor"))?;
        }
        Ok(desc)
    }
}

impl Drop for MatmulDesc {
    fn drop(&mut self) {
        // SAFETY: made by `create_matmul_desc`, destroyed only here. A failed
        // destroy leaks the descriptor, which is all that can be done in drop.
        let _ = unsafe { result::destroy_matmul_desc(self.0) };
    }
}

/// A matrix layout: type, column-major extents, leading dimension, batches.
pub(crate) struct Layout(pub sys::cublasLtMatrixLayout_t);

impl Layout {
    fn new(what: &str, operand: &ColumnMajorOperand, batches: usize) -> Result<Self> {
        Self::with_extents(
            what,
            lt_data_type(operand.element)?,
            (operand.rows, operand.cols),
            operand.ld,
            operand.batch_stride,
            batches,
        )
    }

    fn with_extents(
        what: &str,
        element: cudaDataType_t,
        (rows, cols): (usize, usize),
        ld: usize,
        batch_stride: usize,
        batches: usize,
    ) -> Result<Self> {
        let int = |name: &str, value: usize| {
            i64::try_from(value).map_err(|_| {
                cutlet::Error::invalid_argument(
                    format!("{what} {name}"),
                    value,
                    "at most i64::MAX for cuBLASLt",
                )
            })
        };
        let count = i32::try_from(batches).map_err(|_| {
            cutlet::Error::invalid_argument("l", batches, "at most i32::MAX for cuBLASLt")
        })?;
        let layout = Layout(
            result::create_matrix_layout(element, rows as u64, cols as u64, int("ld", ld)?)
                .map_err(lt_error("creating a matrix layout"))?,
        );
        let stride = int("batch stride", batch_stride)?;
        use cublasLtMatrixLayoutAttribute_t as Attribute;
        for (attribute, (value, size), context) in [
            (
                Attribute::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                bytes_of(&count),
                "setting a layout's batch count",
            ),
            (
                Attribute::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                bytes_of(&stride),
                "setting a layout's batch stride",
            ),
        ] {
            // SAFETY: BATCH_COUNT takes an int32 (`count`),
            // STRIDED_BATCH_OFFSET an int64 (`stride`), both alive through
            // the call; the layout is alive.
            unsafe { result::set_matrix_layout_attribute(layout.0, attribute, value, size) }
                .map_err(lt_error(context))?;
        }
        Ok(layout)
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: made by `create_matrix_layout`, destroyed only here.
        let _ = unsafe { result::destroy_matrix_layout(self.0) };
    }
}

/// The heuristic's search preferences: the workspace limit and the
/// pointers' alignments.
struct Preference(sys::cublasLtMatmulPreference_t);

impl Preference {
    fn new(workspace_bytes: u64, alignments: [u32; 4]) -> Result<Self> {
        let preference =
            Preference(result::create_matmul_pref().map_err(lt_error("creating a preference"))?);
        use cublasLtMatmulPreferenceAttributes_t as Attribute;
        let set = |attribute, (value, size), context| {
            // SAFETY: the callers pass a uint64 for MAX_WORKSPACE_BYTES and
            // a uint32 for the MIN_ALIGNMENT_* attributes, alive through the
            // call; the preference is alive.
            unsafe { result::set_matmul_pref_attribute(preference.0, attribute, value, size) }
                .map_err(lt_error(context))
        };
        set(
            Attribute::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            bytes_of(&workspace_bytes),
            "setting the workspace limit",
        )?;
        for (attribute, bytes) in [
            Attribute::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
            Attribute::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
            Attribute::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
            Attribute::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
        ]
        .into_iter()
        .zip(alignments)
        {
            set(attribute, bytes_of(&bytes), "setting a pointer alignment")?;
        }
        Ok(preference)
    }
}

impl Drop for Preference {
    fn drop(&mut self) {
        // SAFETY: made by `create_matmul_pref`, destroyed only here.
        let _ = unsafe { result::destroy_matmul_pref(self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::alignment;

    #[test]
    fn alignment_is_the_largest_power_of_two_up_to_256() {
        assert_eq!(alignment(0x7f00_0000_1000), 256);
        assert_eq!(alignment(0x1010), 16);
        assert_eq!(alignment(0x1002), 2);
        assert_eq!(alignment(0), 256);
    }
}
