//! cuBLAS as the reference GEMM (`cublasGemmStridedBatchedEx`), for any
//! majors through the transpose trick: cuBLAS is column-major, so a
//! row-major D is computed as Dᵀ = Bᵀ · Aᵀ.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::sys::{
    cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType_t,
};
use cudarc::cublas::{result, CudaBlas};
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};

use crate::column_major::{ColumnMajorGemm, ColumnMajorOperand, Source};
use crate::{Error, Result};
use cutlet::device::gemm::{self, Arguments};
use cutlet::kernel::gemm::GemmSpec;
use cutlet::numeric::ElementType;

/// A cuBLAS handle on one stream.
pub struct CublasGemm {
    blas: CudaBlas,
    stream: Arc<CudaStream>,
}

impl std::fmt::Debug for CublasGemm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CublasGemm")
    }
}

impl CublasGemm {
    /// Loads cuBLAS and creates a handle on `stream`.
    ///
    /// Errors: [`Error::CublasMissing`] when the library does not load
    /// (cudarc panics without it; that panic is caught here), and
    /// [`Error::Cublas`] when the handle cannot be made.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self> {
        let keep = stream.clone();
        let made = std::panic::catch_unwind(move || CudaBlas::new(stream));
        match made {
            Ok(Ok(blas)) => Ok(CublasGemm { blas, stream: keep }),
            Ok(Err(source)) => Err(Error::Cublas {
                context: "creating a cuBLAS handle".into(),
                source,
            }),
            Err(_) => Err(Error::CublasMissing),
        }
    }

    /// D = alpha · A · B + beta · D with cuBLAS, the types and majors of
    /// `spec` (C is taken to be D: copy C into D first for beta ≠ 0). The
    /// accumulator is `spec.types.acc` (tf32 inputs use `CUBLAS_COMPUTE_32F_FAST_TF32`).
    ///
    /// Errors: [`cutlet::Error::InvalidArgument`] for a separate C, element
    /// types cuBLAS is not asked for here, sizes beyond `i32` and buffers
    /// shorter than their shape and strides need;
    /// [`Error::Cublas`] when cuBLAS fails.
    pub fn run<A, B, C, D>(
        &self,
        spec: &GemmSpec,
        args: &mut Arguments<'_, A, B, C, D>,
    ) -> Result<()> {
        if args.shape.is_empty_output() {
            return Ok(());
        }
        if !matches!(args.c, gemm::Source::D) {
            return Err(cutlet::Error::invalid_argument(
                "c",
                "a separate buffer",
                "Source::D (the cuBLAS reference writes in place)",
            )
            .into());
        }
        let stream = self.stream.clone();
        let view = ColumnMajorGemm::new(spec, args);
        view.check_buffers(args)?;
        let (a, _a) = args.a.data.device_ptr(&stream);
        let (b, _b) = args.b.data.device_ptr(&stream);
        let (d, _d) = args.d.data.device_ptr_mut(&stream);
        let pointer = |operand: &ColumnMajorOperand| match operand.source {
            Source::A => a,
            Source::B => b,
        };
        let (first, second) = (view.first, view.second);
        let int = |name: &str, value: usize| {
            i32::try_from(value).map_err(|_| {
                cutlet::Error::invalid_argument(name, value, "at most i32::MAX for cuBLAS")
            })
        };
        let op = |transpose: bool| {
            if transpose {
                cublasOperation_t::CUBLAS_OP_T
            } else {
                cublasOperation_t::CUBLAS_OP_N
            }
        };
        let compute = match (spec.types.acc, spec.types.a) {
            (ElementType::F16, _) => cublasComputeType_t::CUBLAS_COMPUTE_16F,
            (_, ElementType::TF32) => cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
            _ => cublasComputeType_t::CUBLAS_COMPUTE_32F,
        };
        let (alpha32, beta32) = (args.alpha as f32, args.beta as f32);
        let (alpha16, beta16) = (half::f16::from_f32(alpha32), half::f16::from_f32(beta32));
        let (alpha, beta): (*const c_void, *const c_void) =
            if compute == cublasComputeType_t::CUBLAS_COMPUTE_16F {
                (
                    (&alpha16 as *const half::f16).cast(),
                    (&beta16 as *const half::f16).cast(),
                )
            } else {
                (
                    (&alpha32 as *const f32).cast(),
                    (&beta32 as *const f32).cast(),
                )
            };
        // SAFETY: the handle is bound to `stream`, on which every buffer's
        // address was taken; `check_buffers` has checked that each buffer
        // holds the matrices its leading dimension and batch stride
        // describe; the scalars live until the call returns, and
        // cuBLAS reads them before returning (host pointer mode).
        unsafe {
            result::gemm_strided_batched_ex(
                *self.blas.handle(),
                op(first.transpose),
                op(second.transpose),
                int("m", view.rows)?,
                int("n", view.cols)?,
                int("k", view.k)?,
                alpha,
                pointer(&first) as *const c_void,
                data_type(first.element)?,
                int("ld", first.ld)?,
                first.batch_stride as i64,
                pointer(&second) as *const c_void,
                data_type(second.element)?,
                int("ld", second.ld)?,
                second.batch_stride as i64,
                beta,
                d as *mut c_void,
                data_type(spec.types.d)?,
                int("ldd", args.d.ld)?,
                args.d.batch_stride as i64,
                int("l", view.l)?,
                compute,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|source| Error::Cublas {
            context: "running cublasGemmStridedBatchedEx".into(),
            source,
        })
    }
}

/// The cuBLAS data type of an element (tf32 data is stored as f32).
pub(crate) fn data_type(element: ElementType) -> Result<cudaDataType_t> {
    match element {
        ElementType::F16 => Ok(cudaDataType_t::CUDA_R_16F),
        ElementType::BF16 => Ok(cudaDataType_t::CUDA_R_16BF),
        ElementType::F32 | ElementType::TF32 => Ok(cudaDataType_t::CUDA_R_32F),
        other => Err(cutlet::Error::invalid_argument(
            "element type",
            other,
            "f16, bf16, f32 or tf32 for the cuBLAS reference",
        )
        .into()),
    }
}
