//! The GEMM vocabulary every layer shares: which dimension of an operand is
//! contiguous ([`OperandMajor`], [`OutputMajor`]), the problem shape
//! ([`GemmShape`]), the element types ([`GemmTypes`]) and the fused
//! epilogue expression a GEMM applies before its store ([`Epilogue`],
//! [`BiasAxis`]), and the kernel parameters as a list of roles that every
//! part declares and the launcher walks ([`KernelParams`]).
//!
//! This module is a leaf: it imports nothing from the collective, kernel or
//! device layers, so each of them can name these types without importing
//! another layer sideways or upward.
//!
//! | item | file |
//! |---|---|
//! | [`OperandMajor`], [`OutputMajor`], [`GemmMajors`] | `major.rs` |
//! | [`GemmShape`] | `shape.rs` |
//! | [`GemmOperand`] | `operand.rs` |
//! | [`ParamRole`], [`KernelParams`], [`DeclaredParams`], [`ProblemDim`]: kernel parameters as a list | `params.rs` |
//! | [`GemmTypes`], [`default_tile_k`] | `types.rs` |
//! | [`Epilogue`], [`BiasAxis`], [`MAX_BIASES`] | `epilogue.rs` |

mod cluster;
mod epilogue;
mod major;
mod operand;
mod params;
mod rule_message;
mod shape;
mod tensor_map;
mod types;

pub use cluster::ClusterShape;
pub use epilogue::{BiasAxis, Epilogue, OutputQuantization, ScaleGranularity, MAX_BIASES};
pub use major::{GemmMajors, OperandMajor, OutputMajor};
pub use operand::GemmOperand;
pub use params::{DeclaredParams, KernelParams, ParamRole, ProblemDim, WalkDivisor};
pub use rule_message::RuleMessage;
pub use shape::GemmShape;
pub use tensor_map::{
    stores_whole_chunks, tma_store_rows_exact, tma_store_takes, TensorMapRequest,
};
pub use types::{default_tile_k, GemmTypes};
