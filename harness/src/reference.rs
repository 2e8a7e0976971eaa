//! Which cuBLAS a run is measured against: cuBLASLt with its heuristic's
//! algorithm (as PyTorch calls it) where it loads and has an algorithm for
//! the problem, else `cublasGemmStridedBatchedEx` (not for 8-bit inputs,
//! which it does not take: those have no reference then).

use std::fmt;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::{CublasGemm, CublasLtGemm, Error, Result};
use cutlet::device::gemm::Arguments;
use cutlet::kernel::gemm::GemmSpec;

/// Which cuBLAS call a reference makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceKind {
    /// `cublasLtMatmul` with `cublasLtMatmulAlgoGetHeuristic`'s best
    /// algorithm and a 32 MiB workspace ([`CublasLtGemm`]).
    CublasLt,
    /// `cublasGemmStridedBatchedEx` with `CUBLAS_GEMM_DEFAULT` ([`CublasGemm`]).
    CublasGemmEx,
}

impl ReferenceKind {
    /// A short name: `cublasLt` or `cublasGemmEx`.
    ///
    /// ```
    /// use cutlet_harness::ReferenceKind;
    /// assert_eq!(ReferenceKind::CublasLt.short_name(), "cublasLt");
    /// assert_eq!(ReferenceKind::CublasLt.to_string(), "cublasLt heuristic algo");
    /// assert_eq!(ReferenceKind::CublasGemmEx.to_string(), "cublasGemmEx");
    /// ```
    pub fn short_name(self) -> &'static str {
        match self {
            ReferenceKind::CublasLt => "cublasLt",
            ReferenceKind::CublasGemmEx => "cublasGemmEx",
        }
    }
}

impl fmt::Display for ReferenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReferenceKind::CublasLt => "cublasLt heuristic algo",
            ReferenceKind::CublasGemmEx => "cublasGemmEx",
        })
    }
}

/// The cuBLAS reference of a run.
#[derive(Debug)]
pub enum GemmReference {
    /// cuBLASLt, with the problem's plan made.
    CublasLt(CublasLtGemm),
    /// cuBLAS's `cublasGemmStridedBatchedEx`.
    CublasGemmEx(CublasGemm),
}

/// What [`GemmReference::for_problem`] found.
#[derive(Debug)]
pub struct ReferenceChoice {
    /// The reference, or `None` when neither cuBLASLt nor cuBLAS is usable.
    pub reference: Option<GemmReference>,
    /// Why cuBLASLt is not the reference (`None` when it is).
    pub lt_unavailable: Option<Error>,
    /// Why cuBLAS is not either (`None` unless `reference` is `None`).
    pub cublas_unavailable: Option<Error>,
}

impl GemmReference {
    /// cuBLASLt on `stream` if it loads and its heuristic has an algorithm
    /// for this problem (the plan is made and kept), else cuBLAS's
    /// `cublasGemmStridedBatchedEx`, else none; with the reasons.
    pub fn for_problem<A, B, C, D>(
        stream: &Arc<CudaStream>,
        spec: &GemmSpec,
        args: &mut Arguments<'_, A, B, C, D>,
    ) -> ReferenceChoice {
        let lt = CublasLtGemm::new(stream.clone()).and_then(|lt| {
            lt.plan(spec, args)?;
            Ok(lt)
        });
        let lt_unavailable = match lt {
            Ok(lt) => {
                return ReferenceChoice {
                    reference: Some(GemmReference::CublasLt(lt)),
                    lt_unavailable: None,
                    cublas_unavailable: None,
                }
            }
            Err(error) => error,
        };
        // cublasGemmEx takes neither FP8 nor the 8-bit GEMMs cuBLASLt
        // refused (s8/u8 inputs with a float D): the host checks those.
        if spec.types.a.size_bytes() == 1 {
            let why = cutlet::Error::invalid_argument(
                "reference",
                format!("{} x {} -> {}", spec.types.a, spec.types.b, spec.types.d),
                "types cublasGemmEx takes (8-bit inputs have only cuBLASLt's reference)",
            );
            return ReferenceChoice {
                reference: None,
                lt_unavailable: Some(lt_unavailable),
                cublas_unavailable: Some(why.into()),
            };
        }
        let (reference, cublas_unavailable) = match CublasGemm::new(stream.clone()) {
            Ok(blas) => (Some(GemmReference::CublasGemmEx(blas)), None),
            Err(error) => (None, Some(error)),
        };
        ReferenceChoice {
            reference,
            lt_unavailable: Some(lt_unavailable),
            cublas_unavailable,
        }
    }

    /// Which call this reference makes.
    pub fn kind(&self) -> ReferenceKind {
        match self {
            GemmReference::CublasLt(_) => ReferenceKind::CublasLt,
            GemmReference::CublasGemmEx(_) => ReferenceKind::CublasGemmEx,
        }
    }

    /// D = alpha · A · B + beta · D (C is D), as [`CublasLtGemm::run`] or
    /// [`CublasGemm::run`].
    ///
    /// Errors: those of the call made.
    pub fn run<A, B, C, D>(
        &self,
        spec: &GemmSpec,
        args: &mut Arguments<'_, A, B, C, D>,
    ) -> Result<()> {
        match self {
            GemmReference::CublasLt(lt) => lt.run(spec, args),
            GemmReference::CublasGemmEx(blas) => blas.run(spec, args),
        }
    }
}
