//! Fusion: one expression language for elementwise kernels and GEMM
//! epilogues.
//!
//! A Rust closure over symbolic per-element values traces, once, into an
//! [`Expression`]; the expression emits PTX for any element type into any
//! kernel, and evaluates on the host as the tests' reference.
//!
//! ```
//! use cutlet::fusion::{scalar, Expr, Expression};
//!
//! let e = Expression::from_fn(|x: Expr, y: Expr, z: Expr| x * scalar(0) + y.max(z));
//! assert_eq!(e.key(), "|x0, x1, x2| add(mul(x0, s0), max(x1, x2))");
//! assert_eq!(e.eval(&[1.0, 2.0, 3.0], &[10.0]), 13.0);
//! ```
//!
//! # Concept
//!
//! | concept | what it is |
//! |---|---|
//! | [`Expr`] | a symbolic per-element value a closure computes with: `+ - * /` (an `Expr`, `&Expr`, `f64` or `f32` on the right; an `Expr`, `&Expr` or `f64` on the left; unsuffixed literals infer), `-x`, [`min`](Expr::min), [`max`](Expr::max), [`abs`](Expr::abs), [`fma`](Expr::fma), [`exp`](Expr::exp), [`log`](Expr::log), [`sqrt`](Expr::sqrt), [`rsqrt`](Expr::rsqrt), [`tanh`](Expr::tanh), [`sigmoid`](Expr::sigmoid), [`relu`](Expr::relu), [`gelu`](Expr::gelu), [`gelu_erf`](Expr::gelu_erf), [`silu`](Expr::silu), comparisons ([`lt`](Expr::lt) ...) and [`select`](Expr::select), [`cast`](Expr::cast); `Rc` inside, so cheap to clone |
//! | [`scalar`], [`Expr::constant`], [`input`] | leaves: runtime scalar `s{i}`, an exact constant, per-element input `x{i}` |
//! | tracing | [`Expression::from_fn`] runs a closure of 1 to 8 `Expr` arguments once on inputs `x0..`; the graph is flattened and hash-consed, so equal subexpressions are one node |
//! | [`Expression`] | the traced, immutable, `Send + Sync` result: [`arity`](Expression::arity), [`scalar_count`](Expression::scalar_count), canonical [`key`](Expression::key) (its `Display`; part of kernel cache keys) |
//! | [`Expression::eval`] | the host reference in f64 (comparisons 1.0/0.0, casts round with [`host::round_to`]) |
//! | [`Expression::emit`] | lowering into a [`Kernel`](crate::ptx::Kernel): inputs ([`Value`]s in storage types) converted to [`EmitOptions::compute`] once, each node emitted once, result in the compute type |
//! | [`emit_convert`] | a [`Value`] to another element type (`cvt` with the right rounding), e.g. the result to the output type |
//! | [`FusionError`] | wrong counts or types, ops PTX lacks in a compute type (f64 transcendentals), unsupported conversions |
//!
//! # Lowering
//!
//! Arithmetic is f32 by default, also for f16/bf16 inputs. Each op lowers as
//! the table says (f32 constants are exact hex immediates, `0fXXXXXXXX`):
//!
//! | op | f32 | f64 | f16 |
//! |---|---|---|---|
//! | `+ - * /` | `add/sub/mul/div.rn.f32` | `.rn.f64` | `add/sub/mul.rn.f16`; `/` via f32 |
//! | `neg abs` | `neg/abs.f32` | `.f64` | `neg/abs.f16` |
//! | `min max` | `min/max.f32` (a NaN operand gives the other) | `.f64` | via f32 |
//! | `fma` | `fma.rn.f32` | `fma.rn.f64` | `fma.rn.f16` |
//! | `relu` | `max.f32 x, 0` (NaN gives 0) | `max.f64` | via f32 |
//! | `sqrt` | `sqrt.rn.f32` | `sqrt.rn.f64` | via f32 |
//! | `rsqrt` | `rsqrt.approx.f32` | `sqrt.rn.f64` then `rcp.rn.f64` | via f32 |
//! | `exp` | `ex2.approx.ftz.f32` of `x·log2 e` | error | via f32 |
//! | `log` | `lg2.approx.f32` times `ln 2` | error | via f32 |
//! | `tanh` | `tanh.approx.f32` (sm_75+); sm_70: series below 0.125, `1 - 2/(e^2x + 1)` above | error | via f32 |
//! | `sigmoid` | `rcp.approx.ftz(1 + e^-x)` | error | via f32 |
//! | `silu` | `x · sigmoid(x)` | error | via f32 |
//! | `gelu` | `0.5x(1 + tanh(0.7978845608(x + 0.044715x³)))` | error | via f32 |
//! | `gelu_erf` | `0.5x(1 + erf(x/√2))`, erf by Abramowitz & Stegun 7.1.26 | error | via f32 |
//! | `lt le gt ge eq ne` | `setp.lt/le/gt/ge/eq.f32` (false with NaN), `setp.neu` (true with NaN) | `.f64` | `.f16` |
//! | `select` | `selp.f32` on the comparison's predicate (any other condition: `!= 0`) | `selp.f64` | `selp.b16` |
//! | `cast` | `cvt` to the type (rn for floats, rzi for i32) and back; no-op to a wider type | same | same |
//!
//! "via f32": widened exactly, computed as in the f32 column, rounded back
//! to f16 (`cvt.rn.f16.f32`). The formulas live in `ptx/common/math_f32.ptx`
//! and the bf16 conversions sm_70 lacks in `ptx/common/convert.ptx`.

mod convert;
mod emit;
mod error;
mod eval;
mod expr;
mod expression;
pub mod host;
mod lower;
mod node;
mod operators;
mod trace;

pub use convert::{emit_convert, emit_convert_for};
pub use emit::{EmitOptions, Value};
pub use error::FusionError;
pub use expr::{input, scalar, Expr};
pub use expression::Expression;
pub use node::{BinaryOp, CompareOp, UnaryOp};
pub use trace::IntoExpression;
