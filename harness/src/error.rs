//! The harness's errors: cutlet's, and cuBLAS's.

use cudarc::cublas::result::CublasError;
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
}

impl Error {
    /// Which kind of failure this is, as [`cutlet::Error::kind`] sorts
    /// them: a missing cuBLAS is [`ErrorKind::Unavailable`], a failed cuBLAS
    /// call [`ErrorKind::Runtime`].
    ///
    /// ```
    /// use cutlet::ErrorKind;
    /// use cutlet_harness::Error;
    ///
    /// assert_eq!(Error::CublasMissing.kind(), ErrorKind::Unavailable);
    /// assert_eq!(Error::from(cutlet::Error::NoDriver).kind(), ErrorKind::Unavailable);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Cutlet(error) => error.kind(),
            Error::CublasMissing => ErrorKind::Unavailable,
            Error::Cublas { .. } => ErrorKind::Runtime,
        }
    }
}
