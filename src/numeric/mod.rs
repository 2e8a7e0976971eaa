//! Element types: the numbers a kernel reads, computes in and writes.
//!
//! Two views of the same set, as in CUTLASS's `cutlass/numeric_types.h`:
//!
//! | item | what it is |
//! |---|---|
//! | [`ElementType`] | a runtime value (part of every kernel spec): sizes, PTX type names, register class and packing |
//! | [`Element`] | a trait on the Rust type that holds one element in host memory, with `const TYPE: ElementType` |
//! | [`Tf32`] | the host type of a TF32 element: an `f32` whose low 13 mantissa bits the tensor cores ignore |

mod element;
mod element_type;

pub use element::{Element, Tf32};
pub use element_type::{ElementType, ParseElementTypeError};
