//! The GEMM device layer: CUTLASS's `GemmUniversalAdapter` host contract
//! over the SM80 `GemmUniversal` kernel, with two front doors onto one path.
//!
//! | item | file | what it is |
//! |---|---|---|
//! | [`Config`], [`GemmConfig`], [`Types`], [`Majors`], [`Tile`], [`Warps`] | `config.rs` | a configuration as a type: typenum tile, warps, stages; checked at compile time |
//! | [`GemmElement`], [`KMajor`], [`MnMajor`], [`RowMajor`], [`ColumnMajor`] | `tags.rs` | element and major tags |
//! | [`DefaultBf16Sm80`], ... | `defaults.rs` | the default configurations, named |
//! | [`GemmUniversalAdapter`] | `adapter.rs` | the typed front door: `can_implement`, `workspace_size`, `initialize`, `run` |
//! | [`Gemm`], [`GemmBuilder`] | `builder.rs` | the runtime front door: the same specs from runtime values |
//! | [`Arguments`], [`EpilogueArgs`], [`GemmShape`], [`Operand`], [`OutputOperand`], [`Source`] | `arguments.rs` | what a caller gives one launch |
//! | [`check_problem`], [`check_arch`], [`ProblemFacts`], [`OperandFacts`] | `can_implement.rs` | the checks, on plain values |
//! | [`check_epilogue`] | `epilogue_check.rs` | a fused epilogue's bias lengths and scalar count |
//! | [`reference`](mod@reference) | `reference/` | host f64 reference and cuBLAS, for tests, benches, the example and the CLI |
//!
//! Both front doors lower to a [`GemmSpec`](crate::kernel::gemm::GemmSpec);
//! the kernel is generated from the spec, JIT-compiled once per (spec,
//! device) through [`get_or_load`](crate::device::get_or_load), and launched
//! with the parameters of the ABI table in [`crate::kernel::gemm`].
//!
//! # Semantics
//!
//! D = alpha · A · B + beta · C per batch, as CUTLASS. M, N or L zero is a
//! no-op. K zero writes D = beta · C. C may be D itself ([`Source::D`]).

mod adapter;
mod arguments;
mod builder;
mod can_implement;
mod config;
mod defaults;
mod epilogue_check;
mod launcher;
pub mod reference;
mod tags;

pub use adapter::{ArgumentsOf, GemmUniversalAdapter};
pub use arguments::{Arguments, EpilogueArgs, GemmShape, Operand, OutputOperand, Source};
pub use builder::{Gemm, GemmBuilder};
pub use can_implement::{
    check_arch, check_problem, OperandFacts, ProblemFacts, MAX_BATCH, MAX_EXTENT,
};
pub use config::{Config, GemmConfig, Majors, Tile, Types, Warps};
pub use defaults::{DefaultBf16Sm80, DefaultF16AccF16Sm80, DefaultF16Sm80, DefaultTf32Sm80};
pub use epilogue_check::check_epilogue;
pub use launcher::DEFAULT_RASTER_LOG;
pub use tags::{
    ColumnMajor, GemmElement, KMajor, MnMajor, OperandMajorTag, OutputMajorTag, RowMajor,
};
