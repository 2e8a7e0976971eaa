//! Tensor-parallel GEMMs across GPUs over NCCL: all-gather + GEMM, GEMM +
//! reduce-scatter and GEMM + all-reduce, each in a sequential form (the
//! collective, then the GEMM, or the other way round) and an overlapped
//! one that splits the rows into chunks, so that the GEMM of a chunk
//! already on this GPU runs while the next chunk moves.
//!
//! NCCL is loaded at run time, as the CUDA driver is: without
//! `libnccl.so.2` the constructors return [`Error::NoNccl`](crate::Error::NoNccl)
//! (of kind `Unavailable`) and nothing else in cutlet changes. A group is
//! built from devices in one process ([`TpRank::from_devices`]: drive each
//! rank from a thread of its own, as NCCL requires of one thread per
//! rank without group calls) or from a rank and a [`UniqueId`] shared
//! between processes ([`TpRank::from_rank`]).
//!
//! | item | file |
//! |---|---|
//! | [`nccl_available`], [`UniqueId`] | `nccl.rs` |
//! | [`TpRank`], [`TpConfig`] | `rank.rs` |
//! | the NCCL communicators (NCCL's defaults, and capped at `TpConfig::collective_sms` CTAs) | `comm.rs` |
//! | [`RowSplit`]: shards and chunks of M | `rows.rs` |
//! | the `CUTLET_TP_TRACE=1` timeline of each operation's GEMMs and collectives | `trace.rs` |
//! | [`TpOptions`], the three operations | `ops.rs` |
//! | the overlapped forms over peer copies: the ranks' board and barrier, all-gather + GEMM, GEMM + reduce-scatter | `peers.rs`, `peer_ops.rs`, `peer_reduce_scatter.rs` |
//! | GEMM + all-reduce over peer memory, its ranks meeting on the host / on the GPUs (`check_shapes` off), and the flags and buffers of the latter | `peer_all_reduce.rs`, `peer_all_reduce_signalled.rs`, `reduce_slots.rs` |
//!
//! Sharding (each rank `r` of `W`, M split into shards of `ceil(M / W)`
//! rows, the last one shorter where M is ragged):
//!
//! | operation | A on rank r | B on rank r | D on rank r |
//! |---|---|---|---|
//! | [`all_gather_gemm`](TpRank::all_gather_gemm) | rows of shard r, all of K | its N_r columns' weights (N_r x K) | all M rows, its N_r columns |
//! | [`gemm_reduce_scatter`](TpRank::gemm_reduce_scatter) | all M rows, its K_r slice of K | N x K_r | rows of shard r, all N columns (the sum over ranks) |
//! | [`gemm_all_reduce`](TpRank::gemm_all_reduce) | all M rows, its K_r slice | N x K_r | all of D (the sum over ranks) |

mod comm;
mod nccl;
mod ops;
mod peer_all_reduce;
mod peer_all_reduce_signalled;
mod peer_ops;
mod peer_reduce_scatter;
mod peers;
mod rank;
mod reduce_slots;
mod rows;
mod trace;

pub use nccl::{nccl_available, UniqueId};
pub use ops::{TpElement, TpOptions};
pub use rank::{TpConfig, TpRank};
pub use rows::RowSplit;
