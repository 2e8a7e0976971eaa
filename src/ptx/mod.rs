//! The PTX assembler: builds one `.ptx` text from params, registers, shared
//! memory, labels and instantiated snippets.
//!
//! # Concept
//! A [`Module`] holds the header (`.version`, `.target` from an
//! [`ArchKind`](crate::arch::ArchKind), `.address_size 64`) and its
//! [`Kernel`]s. A kernel declares typed [`Param`]s, static and dynamic
//! [`SharedVar`]s, allocates virtual [`Reg`]s per [`RegClass`] and collects body
//! lines: instructions written with `format!` (every handle's `Display` is its
//! PTX name), a few typed helpers ([`Kernel::ld_param`], [`Kernel::special`],
//! ...) and [`Snippet`]s, the templates under `ptx/` that carry the real
//! instructions. The assembler emits straightforward PTX; the driver's
//! optimizing assembler allocates and schedules.
//!
//! | item | what it is |
//! |---|---|
//! | [`Module`] | header + kernels; `emit() -> Result<String>` |
//! | [`Kernel`] | one `.visible .entry`: params, shared memory, directives, registers, labels, body |
//! | [`Reg`], [`RegClass`] | typed virtual registers: `%p`, `%rs`, `%r`, `%rd`, `%f`, `%fd` |
//! | [`Param`], [`ParamType`] | typed params, incl. [`ParamType::TENSOR_MAP`] (`.align 64 .b8 [128]`) |
//! | [`SharedVar`] | `.shared` arrays and the `.extern .shared` dynamic array |
//! | [`Label`] | a unique branch target |
//! | [`Kernel::div_u32_by`], [`Kernel::rem_u32_by`] | unsigned division by a divisor known at generation, without `div.u32`'s run-time sequence (`divide.rs`) |
//! | [`LaunchDivisor`], [`Kernel::div_u32_by_param`] | unsigned division by a divisor known at launch: a multiplier and shift the host passes (`launch_divisor.rs`) |
//! | [`snippet`](fn@snippet), [`Snippet`] | the snippet store and hole filling |
//! | [`PtxError`] | everything that can go wrong, naming the values |

mod divide;
#[cfg(test)]
mod division_cases;
mod error;
mod instructions;
mod kernel;
mod launch_divisor;
mod module;
mod param;
mod reg;
mod shared;
mod snippet;
mod snippets;

pub use error::PtxError;
pub use instructions::SpecialReg;
pub use kernel::{Kernel, Label};
pub use launch_divisor::LaunchDivisor;
pub use module::Module;
pub use param::{Param, ParamType};
pub use reg::{Reg, RegClass};
pub use shared::SharedVar;
pub use snippet::{families, snippet, snippets, Snippet};

#[cfg(test)]
mod tests;
