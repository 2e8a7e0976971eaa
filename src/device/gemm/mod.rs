//! The GEMM device layer: CUTLASS's `GemmUniversalAdapter` host contract
//! over the SM80 `GemmUniversal` kernel, with two front doors onto one path.
//!
//! | item | file | what it is |
//! |---|---|---|
//! | [`Config`], [`GemmConfig`], [`Types`], [`Majors`], [`Tile`], [`Warps`] | `config.rs` | a configuration as a type: typenum tile, warps, stages; checked at compile time |
//! | [`GemmElement`], [`KMajor`], [`MnMajor`], [`RowMajor`], [`ColumnMajor`] | `tags.rs` | element and major tags |
//! | [`DefaultBf16Sm80`], [`DefaultBf16Sm90`], ... | `defaults.rs` | the default configurations, named |
//! | [`GemmUniversalAdapter`] | `adapter.rs` | the typed front door: `can_implement`, `workspace_size`, `initialize`, `run`, `wait_optimized` |
//! | [`Gemm`], [`GemmBuilder`] | `builder.rs` | the runtime front door: the same specs from runtime values, element types checked at run time |
//! | [`TypedGemm`], [`TypedArguments`] | `typed.rs` | the runtime front door with compile-time element types (`GemmBuilder::build_typed`) |
//! | [`Arguments`], [`EpilogueArgs`], [`GemmShape`], [`Operand`], [`OutputOperand`], [`Source`] | `arguments.rs` | what a caller gives one launch |
//! | [`check_problem`], [`check_arch`], [`ProblemFacts`], [`OperandFacts`] | `can_implement.rs` | the checks, on plain values |
//! | [`check_epilogue`], [`check_scalars`], [`check_block_scales`] | `epilogue_check.rs` | a fused epilogue's bias lengths and scalar count; alpha, beta and the scalars finite in f32; block scales' lengths |
//! | [`WORKSPACE_ALIGNMENT`] | `workspace.rs` | the workspace a GEMM's split-K and stream-K kernels share: its own, or the caller's from `initialize` |
//!
//! Both front doors lower to a [`GemmSpec`](crate::kernel::gemm::GemmSpec);
//! the kernel is generated from the spec, JIT-compiled once per (spec,
//! device) through [`get_or_load`](crate::device::get_or_load), and launched
//! with the parameters of the ABI table in [`crate::kernel::gemm`].
//!
//! # Three front doors, one contract
//!
//! | front door | configuration | element types checked |
//! |---|---|---|
//! | [`GemmUniversalAdapter::<C>`](GemmUniversalAdapter) | a type ([`Config`], e.g. [`DefaultBf16Sm80`]) | at compile time |
//! | [`Gemm::builder()...build_typed::<A, B, D>(&device)`](GemmBuilder::build_typed) → [`TypedGemm`] | runtime values (tile, majors, epilogue) | at compile time |
//! | [`Gemm::builder()...build(&device)`](GemmBuilder::build) → [`Gemm`] | runtime values | at run time (for types known only then) |
//!
//! Each offers CUTLASS's calls with the same signatures: `can_implement(&args)`,
//! `workspace_size(&args)`, `initialize(&args, workspace)` (returns the
//! compiled [`LoadedKernel`](crate::device::LoadedKernel)), `run(&mut args,
//! &stream)`, and `wait_optimized()`. Before timing, wait for the optimized
//! compile: `gemm.initialize(&args, None)?.wait_optimized()?`, or
//! `gemm.wait_optimized()?`.
//!
//! ```no_run
//! use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, Gemm, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
//! use cutlet::device::Device;
//! use cutlet::half::bf16;
//! # fn main() -> cutlet::Result<()> {
//! let device = Device::new(0)?;
//! let stream = device.default_stream();
//! let (m, n, k) = (512, 512, 256);
//! let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
//! let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
//! let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
//! let mut args = Arguments::product(
//!     GemmShape::new(m, n, k, 1),
//!     Operand::new(a.as_view(), k, 0),
//!     Operand::new(b.as_view(), k, 0),
//!     OutputOperand::new(d.as_view_mut(), n, 0),
//!     1.0,
//! );
//! let adapter = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
//! let typed = Gemm::builder().build_typed::<bf16, bf16, bf16>(&device)?;
//! let runtime = Gemm::builder().build(&device)?;
//! adapter.can_implement(&args)?;
//! assert_eq!(typed.workspace_size(&args), 0);
//! runtime.initialize(&args, None)?.wait_optimized()?;
//! typed.wait_optimized()?;
//! adapter.run(&mut args, &stream)?;
//! typed.run(&mut args, &stream)?;
//! runtime.run(&mut args, &stream)?;
//! # Ok(())
//! # }
//! ```
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
mod copies;
mod defaults;
mod epilogue_check;
mod launcher;
mod param_values;
mod picks;
mod tags;
mod typed;
mod workspace;

pub use crate::kernel::gemm::{Decomposition, Reduction};
pub use adapter::{ArgumentsOf, GemmUniversalAdapter};
pub use arguments::{
    Arguments, EpilogueArgs, GemmShape, Operand, OutputOperand, RasterOrder, SchedulerArgs, Source,
};
pub use builder::{Gemm, GemmBuilder};
pub use can_implement::{
    check_arch, check_problem, OperandFacts, ProblemFacts, MAX_BATCH, MAX_EXTENT, MAX_WALK_UNITS,
};
pub use config::{Cluster, Config, GemmConfig, Majors, Tile, Types, Warps};
pub use defaults::{
    DefaultBf16Sm80, DefaultBf16Sm90, DefaultF16AccF16Sm80, DefaultF16Sm80, DefaultF16Sm90,
    DefaultTf32Sm80,
};
pub use epilogue_check::{check_block_scales, check_epilogue, check_scalars};
pub use launcher::DEFAULT_RASTER_LOG;
pub use param_values::ParamValues;
pub use tags::{
    ColumnMajor, GemmElement, KMajor, MnMajor, OperandMajorTag, OutputMajorTag, RowMajor,
};
pub use typed::{TypedArguments, TypedGemm};
pub use workspace::WORKSPACE_ALIGNMENT;
