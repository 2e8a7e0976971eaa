//! Tensor parallelism with one process per GPU, as a multi-node job runs
//! it: this program starts itself once per rank (the rank, the world size
//! and NCCL's unique id passed in the environment, as a launcher such as
//! `torchrun` or `srun` would), and each process joins the group with
//! `TpRank::from_rank` and runs an all-gather + GEMM on its GPU, checked
//! against the host.
//!
//! `cargo run --release --example tp_processes -- 2` (the number of GPUs,
//! default 2). Without that many GPUs, or without NCCL, it says so and
//! exits 0.

use std::process::{Command, ExitCode};

use cutlet::device::gemm::{Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::{device_count, Device};
use cutlet::distributed::{nccl_available, RowSplit, TpOptions, TpRank, UniqueId};
use cutlet::half::bf16;

const RANK: &str = "CUTLET_TP_RANK";
const WORLD: &str = "CUTLET_TP_WORLD";
const ID: &str = "CUTLET_TP_ID";

/// The problem: M tokens over the ranks, each rank N columns, K.
const M: usize = 1000;
const N: usize = 256;
const K: usize = 512;

fn main() -> ExitCode {
    match std::env::var(RANK) {
        Ok(rank) => match rank_main(&rank) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rank {rank}: error: {e}");
                ExitCode::from(1)
            }
        },
        Err(_) => launcher(),
    }
}

/// Starts one process per rank and waits for them.
fn launcher() -> ExitCode {
    let world: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let gpus = device_count().unwrap_or(0);
    if gpus < world || !nccl_available() {
        println!(
            "tp_processes: needs {world} GPUs and NCCL ({gpus} GPUs, NCCL {}): not run",
            if nccl_available() {
                "found"
            } else {
                "not found"
            }
        );
        return ExitCode::SUCCESS;
    }
    let id = match UniqueId::new() {
        Ok(id) => id,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let exe = std::env::current_exe().expect("the running program's path");
    let children: Vec<_> = (0..world)
        .map(|rank| {
            Command::new(&exe)
                .env(RANK, rank.to_string())
                .env(WORLD, world.to_string())
                .env(ID, id.to_hex())
                .spawn()
        })
        .collect();
    let mut ok = true;
    for (rank, child) in children.into_iter().enumerate() {
        match child.and_then(|mut c| c.wait()) {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!("rank {rank} exited with {status}");
                ok = false;
            }
            Err(e) => {
                eprintln!("rank {rank} could not run: {e}");
                ok = false;
            }
        }
    }
    if ok {
        println!("tp_processes: {world} processes, every rank's D exact");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Small integers, the same on every process for the same seed.
fn integers(seed: u64, len: usize) -> Vec<f64> {
    let mut state = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 5) as f64 - 2.0
        })
        .collect()
}

/// One rank: join the group, all-gather + GEMM, check against the host.
fn rank_main(rank: &str) -> cutlet::Result<()> {
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let rank: usize = rank.parse().unwrap_or(0);
    let world: usize = env(WORLD).parse().unwrap_or(1);
    let id = UniqueId::from_hex(&env(ID))?;
    let device = Device::new(rank)?;
    let tp = TpRank::from_rank(&device, rank, world, &id)?;
    let stream = device.default_stream();
    let gemm = Gemm::builder().build(&device)?;
    let split = RowSplit::new(M, world, 4);
    let a_all = integers(1, M * K);
    let (first, rows) = (split.first_row(rank), split.rows_of(rank));
    let encode = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
    let mut shard_host = encode(&a_all[first * K..(first + rows) * K]);
    shard_host.push(bf16::ZERO);
    let shard = stream.clone_htod(&shard_host).expect("upload");
    let b_host = integers(10 + rank as u64, N * K);
    let b = stream.clone_htod(&encode(&b_host)).expect("upload");
    let mut d = stream.alloc_zeros::<bf16>(M * N).expect("alloc");
    tp.all_gather_gemm(
        &gemm,
        GemmShape::new(M, N, K, 1),
        &shard.slice(0..rows * K),
        &Operand::new(b.as_view(), K, 0),
        &mut OutputOperand::new(d.as_view_mut(), N, 0),
        1.0,
        &TpOptions::default(),
        &stream,
    )?;
    let got = stream.clone_dtoh(&d).expect("download");
    for i in 0..M {
        for j in 0..N {
            let want: f64 = (0..K).map(|k| a_all[i * K + k] * b_host[j * K + k]).sum();
            let got = got[i * N + j].to_f64();
            if got != bf16::from_f64(want).to_f64() {
                return Err(cutlet::Error::invalid_argument(
                    format!("D[{i}][{j}] on rank {rank}"),
                    got,
                    format!("{want}, the host's"),
                ));
            }
        }
    }
    println!("rank {rank} of {world} on GPU {rank}: D ({M} x {N}) exact");
    Ok(())
}
