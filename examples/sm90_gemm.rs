//! A Hopper GEMM written as a typed configuration: every part of the SM90
//! kernel named, as CUTLASS's dispatch policies name them, then run on
//! random data and checked against the host.
//!
//! What it does: D = A · B + bias (a bias per column of D), bf16 in, f32
//! accumulation, bf16 out, on the SM90 warp-specialized kernel: the TMA +
//! wgmma mainloop with 5 stages, the ping-pong schedule (two consumer
//! warpgroups, each owning whole 128x128 tiles, one's epilogue running
//! while the other multiplies), the persistent tile scheduler, the
//! TMA-store epilogue with the bias fused, no cluster.
//!
//! How:
//! 1. `GemmConfig<...>` names the types, majors, tile, warps (one
//!    warpgroup's four: `Warps<U4, U1>`), mainloop, arch, schedule, tile
//!    scheduler, epilogue and cluster; a configuration that breaks an SM90
//!    rule does not compile.
//! 2. `GemmUniversalAdapter::<Hopper>::with_epilogue` adds the bias;
//!    `initialize` compiles the kernel (PTX for `sm_90a`, JIT-compiled by
//!    the driver) and `run` launches it on the stream.
//! 3. The result is checked against an f64 host reference.
//!
//! Run: `cargo run --release --example sm90_gemm` (needs an H100 or H200,
//! compute capability 9.0; elsewhere it prints why and exits with code 2).
//!
//! Constraints: the SM90 rules of `GemmBuilder::tile` (BK one 64- or
//! 128-byte row, BM 64 or 128 per consumer warpgroup, BN a multiple of 32
//! up to 256 with the TMA-store epilogue); A, B and the bias 16-byte
//! aligned. A D that TMA cannot write (here any N below 8) runs on the
//! register-store form of the same kernel by itself; D's leading dimension
//! is a multiple of 8 elements here (TMA's 16 bytes; the register-store
//! form needs 2).

use std::process::ExitCode;

use cutlet::arch::Sm90;
use cutlet::collective::{EpilogueTmaWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
use cutlet::device::gemm::{
    Arguments, Cluster, Config, GemmConfig, GemmShape, GemmUniversalAdapter, KMajor, Majors,
    Operand, OutputOperand, RowMajor, Tile, Types, Warps,
};
use cutlet::device::Device;
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::half::bf16;
use cutlet::kernel::gemm::{
    BiasAxis, Epilogue, KernelTmaWarpSpecializedPingpong, PersistentScheduler,
};
use cutlet::typenum::{U1, U128, U4, U5, U64};
use rand::{Rng, SeedableRng};

/// The configuration: every part of the kernel named.
type Hopper = GemmConfig<
    Types<bf16, bf16, bf16, bf16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U128, U64>,
    Warps<U4, U1>,
    MainloopSm90TmaGmmaWarpSpecialized<U5>,
    Sm90,
    KernelTmaWarpSpecializedPingpong,
    PersistentScheduler,
    EpilogueTmaWarpSpecialized,
    Cluster<U1, U1>,
>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sm90_gemm: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    if device.compute_capability() != (9, 0) {
        return Err(format!(
            "the SM90 kernel needs compute capability 9.0 (an H100 or H200); this GPU has {:?}",
            device.compute_capability()
        )
        .into());
    }
    let stream = device.default_stream();
    let mut rng = rand::rngs::StdRng::seed_from_u64(90);
    let (m, n, k) = (1000, 777, 512);
    let random = |len: usize, rng: &mut rand::rngs::StdRng| -> Vec<bf16> {
        (0..len)
            .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
            .collect()
    };
    let a_host = random(m * k, &mut rng); // row-major M x K (K-major A)
    let b_host = random(n * k, &mut rng); // column-major K x N (K-major B)
    let bias_host = random(n, &mut rng); // one per column of D
    let a = stream.clone_htod(&a_host)?;
    let b = stream.clone_htod(&b_host)?;
    let bias = stream.clone_htod(&bias_host)?;
    // D row-major with its rows padded to whole 16-byte chunks (784 of 777
    // columns), as TMA stores them; the padding is not written.
    let ldd = n.next_multiple_of(8);
    let mut d = stream.alloc_zeros::<bf16>(m * ldd)?;

    // D = alpha · acc + bias[column], in the kernel's epilogue (C unread).
    let expression = Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| acc * scalar(0) + bias);
    let epilogue = Epilogue::new(expression, &[BiasAxis::Column])?;
    let gemm = GemmUniversalAdapter::<Hopper>::with_epilogue(&device, epilogue)?;
    println!("kernel: {}", Hopper::spec().kernel_name());
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), ldd, 0),
        1.0,
    )
    .with_biases(vec![bias.as_view()]);
    gemm.can_implement(&args)?;
    gemm.initialize(&args, None)?;
    gemm.run(&mut args, &stream)?;
    drop(args);
    let d_host = stream.clone_dtoh(&d)?;

    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k)
                .map(|p| a_host[i * k + p].to_f64() * b_host[j * k + p].to_f64())
                .sum();
            let exact = dot + bias_host[j].to_f64();
            let got = d_host[i * ldd + j].to_f64();
            worst = worst.max((got - exact).abs() / (1.0 + exact.abs()));
        }
    }
    println!("sm90 ping-pong gemm {m}x{n}x{k} bf16 + column bias: max relative error {worst:.2e}");
    if worst >= 1e-2 {
        return Err(format!("result off by {worst:.2e} (expected below 1e-2)").into());
    }
    Ok(())
}
