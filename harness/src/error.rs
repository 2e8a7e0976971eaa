//! The harness's errors: cutlet's, cuBLAS's and cuBLASLt's.

use cudarc::cublas::result::CublasError;
use cudarc::cublaslt::result::CublasError as CublasLtError;
use cutlet::ErrorKind;

/// The result type of the harness's fallible functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong in a harness call: a cutlet call, or cuBLAS.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A cutlet call failed.
    #[error(transparent)]
    Cutlet(#[from] cutlet::Error),
    /// libcublas could not be loaded (cudarc panics without it; the panic
    /// is caught).
    #[error("no cuBLAS found: libcublas could not be loaded; the cuBLAS reference needs it on the library path")]
    CublasMissing,
    /// A cuBLAS call failed; `context` says which.
    #[error("cuBLAS error while {context}: {code:?}", code = .source.0)]
    Cublas {
        /// The step that failed, e.g. "creating a cuBLAS handle".
        context: String,
        /// cuBLAS's status.
        #[source]
        source: CublasError,
    },
    /// libcublasLt could not be loaded, or lacks a function cudarc binds
    /// (cudarc panics then; the panic is caught).
    #[error("no cuBLASLt found: libcublasLt could not be loaded (or lacks a function); the cuBLASLt reference needs it on the library path")]
    CublasLtMissing,
    /// A cuBLASLt call failed; `context` says which.
    #[error("cuBLASLt error while {context}: {code:?}", code = .source.0)]
    CublasLt {
        /// The step that failed, e.g. "creating a cuBLASLt handle".
        context: String,
        /// cuBLASLt's status.
        #[source]
        source: CublasLtError,
    },
    /// `cublasLtMatmulAlgoGetHeuristic` returned no algorithm for a problem.
    #[error("cuBLASLt has no algorithm for {problem}")]
    CublasLtNoAlgorithm {
        /// The problem, e.g. "M=300 N=200 K=100 L=2, bf16 x bf16 -> f32, majors k, k, n".
        problem: String,
    },
}

impl Error {
    /// Which kind of failure this is, as [`cutlet::Error::kind`] sorts
    /// them: a missing cuBLAS or cuBLASLt, or no cuBLASLt algorithm for the
    /// problem, is [`ErrorKind::Unavailable`]; a failed call [`ErrorKind::Runtime`].
    ///
    /// ```
    /// use cutlet::ErrorKind;
    /// use cutlet_harness::Error;
    ///
    /// assert_eq!(Error::CublasMissing.kind(), ErrorKind::Unavailable);
    /// assert_eq!(Error::CublasLtMissing.kind(), ErrorKind::Unavailable);
    /// assert_eq!(Error::from(cutlet::Error::NoDriver).kind(), ErrorKind::Unavailable);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Cutlet(error) => error.kind(),
            Error::CublasMissing | Error::CublasLtMissing | Error::CublasLtNoAlgorithm { .. } => {
                ErrorKind::Unavailable
            }
            Error::Cublas { .. } | Error::CublasLt { .. } => ErrorKind::Runtime,
        }
    }
}
