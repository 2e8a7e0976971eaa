//! [`FusionError`]: why an expression cannot be built or emitted.

use crate::numeric::ElementType;
use crate::ptx::PtxError;

/// Why an expression cannot be built, evaluated or emitted as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FusionError {
    /// The body reads an input the expression does not have.
    #[error(
        "expression reads input x{index} but has arity {arity}: expected inputs below {arity}"
    )]
    InputOutOfRange {
        /// The input read.
        index: usize,
        /// The arity given.
        arity: usize,
    },
    /// `emit` or `try_eval` got the wrong number of per-element inputs.
    #[error("expression `{expression}` takes {expected} input(s), got {got}")]
    InputCount {
        /// The expression's key.
        expression: String,
        /// Its arity.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// `emit` or `try_eval` got fewer scalars than the expression reads.
    #[error("expression `{expression}` reads {expected} scalar(s), got {got}")]
    ScalarCount {
        /// The expression's key.
        expression: String,
        /// Its scalar count.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// A scalar value not in the compute type.
    #[error("scalar s{index} has type {got}: expected the compute type {expected}")]
    ScalarType {
        /// The scalar's index.
        index: usize,
        /// Its type.
        got: ElementType,
        /// The compute type.
        expected: ElementType,
    },
    /// A value whose register is not the class its type lives in.
    #[error(
        "{what} is register {register} ({class}) with type {ty}: expected a {expected} register"
    )]
    RegisterClass {
        /// Which value, e.g. `input x1`.
        what: String,
        /// The register, e.g. `%r4`.
        register: String,
        /// Its class, e.g. `.b32`.
        class: &'static str,
        /// The value's type.
        ty: ElementType,
        /// The class the type lives in.
        expected: &'static str,
    },
    /// A compute type expressions cannot compute in.
    #[error("compute type {compute} is not supported: expected f32, f64 or f16")]
    UnsupportedCompute {
        /// The type asked for.
        compute: ElementType,
    },
    /// An operation PTX has no instruction for in the compute type.
    #[error("operation `{op}` is not available in {compute} compute: PTX has no {compute} {op}; compute in f32")]
    UnsupportedOp {
        /// The operation, e.g. `tanh`.
        op: &'static str,
        /// The compute type.
        compute: ElementType,
    },
    /// A conversion cutlet does not emit.
    #[error("conversion from {from} to {to} is not supported: expected f16, bf16, f32, f64 or i32 (inputs may also be i8, u8, tf32)")]
    UnsupportedConversion {
        /// The source type.
        from: ElementType,
        /// The target type.
        to: ElementType,
    },
    /// The PTX assembler refused something (a snippet's hole, say).
    #[error(transparent)]
    Ptx(#[from] PtxError),
}
