//! The host time a cached [`Gemm::run`] adds beyond the launch itself.
//!
//! Both sides launch the same compiled function on the same tiny problem
//! (one 128 x 128 x 64 bf16 tile), back to back, in batches of `batch`
//! calls with an untimed synchronize between batches (so the launch queue
//! never fills and device time never enters the host figure):
//! - `run`: [`Gemm::run`] with its checks, cudarc's buffer ordering and the
//!   parameter packing;
//! - `launch`: [`Function::launch`](cutlet::device::Function::launch) of the
//!   same kernel with the parameters packed once, ahead of time, as a
//!   program that bypassed cutlet's host side would.
//!
//! The issue asks that `run` add under 10 µs.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use half::bf16;

use super::timing::median_ms;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand, ParamValues};
use cutlet::device::{Device, KernelArgs, LaunchConfig};
use cutlet::{Error, Result};

/// Host microseconds per call, median over batches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostOverhead {
    /// One cached `Gemm::run`.
    pub run_us: f64,
    /// One `Function::launch` of the same kernel with pre-packed parameters.
    pub launch_us: f64,
    /// Calls timed per side.
    pub calls: usize,
}

impl HostOverhead {
    /// What `run` adds beyond the launch: `run_us - launch_us`.
    pub fn added_us(&self) -> f64 {
        self.run_us - self.launch_us
    }
}

impl fmt::Display for HostOverhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cached run host time: {:.2} us per call, raw launch {:.2} us: run adds {:.2} us ({} calls each)",
            self.run_us,
            self.launch_us,
            self.added_us(),
            self.calls
        )
    }
}

/// The problem both sides launch, and the bench's cached-`run` figure too:
/// one 128 x 128 x 64 bf16 tile, `D = A · B` in place (K-major A and B,
/// row-major D, one batch), on zeroed buffers.
#[derive(Debug)]
pub struct OverheadProbe {
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    d: CudaSlice<bf16>,
}

impl OverheadProbe {
    /// (M, N, K).
    pub const MNK: (usize, usize, usize) = (128, 128, 64);

    /// The zeroed buffers, allocated on `stream`.
    ///
    /// Errors: [`Error::Driver`] when an allocation fails.
    pub fn new(stream: &Arc<CudaStream>) -> Result<OverheadProbe> {
        let (m, n, k) = Self::MNK;
        let alloc = |len: usize| {
            stream
                .alloc_zeros::<bf16>(len)
                .map_err(|e| Error::driver("allocating the overhead probe's buffers", e))
        };
        Ok(OverheadProbe {
            a: alloc(m * k)?,
            b: alloc(n * k)?,
            d: alloc(m * n)?,
        })
    }

    /// The launch's arguments: D = A · B (alpha 1, no C), packed leading dimensions.
    pub fn arguments(&mut self) -> Arguments<'_, bf16, bf16, bf16, bf16> {
        let (m, n, k) = Self::MNK;
        Arguments::product(
            GemmShape::new(m, n, k, 1),
            Operand::new(self.a.as_view(), k, 0),
            Operand::new(self.b.as_view(), k, 0),
            OutputOperand::new(self.d.as_view_mut(), n, 0),
            1.0,
        )
    }
}

/// Measures [`HostOverhead`] on `device` over `batches` batches of `batch`
/// calls per side (the sides alternate batch by batch).
///
/// Errors: driver errors, and the default bf16 configuration's errors.
pub fn measure_host_overhead(
    device: &Device,
    batches: usize,
    batch: usize,
) -> Result<HostOverhead> {
    let (batches, batch) = (batches.max(1), batch.max(1));
    let stream = device.default_stream();
    let (m, n, k) = OverheadProbe::MNK;
    let mut probe = OverheadProbe::new(&stream)?;
    let gemm = Gemm::builder().build(device)?;
    // Both sides launch the optimized kernel, not the quick first tier.
    let kernel = gemm.initialize(&probe.arguments(), None)?;
    kernel.wait_optimized()?;
    let spec = gemm.spec().clone();
    let (a_address, b_address, d_address) = {
        let (a_address, _a) = probe.a.device_ptr(&stream);
        let (b_address, _b) = probe.b.device_ptr(&stream);
        let (d_address, _d) = probe.d.device_ptr(&stream);
        (a_address, b_address, d_address)
    };
    let sync = || {
        stream
            .synchronize()
            .map_err(|e| Error::driver("synchronizing the overhead probe", e))
    };
    let composed = spec.kernel()?;
    let config = LaunchConfig {
        grid: composed.grid(m as u32, n as u32, 1),
        block: (composed.block_threads(), 1, 1),
        shared_mem_bytes: composed.shared_storage().bytes,
    };
    let values = ParamValues {
        addresses: [a_address, b_address, d_address, d_address],
        extents: [m as u32, n as u32, k as u32, 1],
        ld: [k as u64, k as u64, n as u64, n as u64],
        alpha: 1.0,
        beta: 0.0,
        ..ParamValues::default()
    };
    let mut args = probe.arguments();
    let (mut run_ms, mut launch_ms) = (Vec::new(), Vec::new());
    // One untimed batch of each first (driver and cache warm-up).
    for round in 0..=batches {
        sync()?;
        let start = Instant::now();
        for _ in 0..batch {
            gemm.run(&mut args, &stream)?;
        }
        let run_elapsed = start.elapsed();
        sync()?;
        let start = Instant::now();
        for _ in 0..batch {
            let mut params = KernelArgs::new(&stream);
            values.push(composed.as_ref(), &mut params)?;
            // SAFETY: the parameters are the kernel's own list walked by
            // `ParamValues::push`, for a 128 x 128 x 64 problem with one
            // batch, K-major A (ld 64) and B (ld 64), row-major D (ld 128),
            // C = D; the buffers `a`, `b` and `d` hold exactly those
            // elements and outlive the launches (the stream is synchronized
            // before they drop); grid, block and shared memory are the
            // composed kernel's.
            unsafe { kernel.function().launch(&config, params)? };
        }
        let launch_elapsed = start.elapsed();
        if round > 0 {
            run_ms.push(run_elapsed.as_secs_f64() * 1e3);
            launch_ms.push(launch_elapsed.as_secs_f64() * 1e3);
        }
    }
    sync()?;
    let per_call_us = |times: &[f64]| median_ms(times) * 1e3 / batch as f64;
    Ok(HostOverhead {
        run_us: per_call_us(&run_ms),
        launch_us: per_call_us(&launch_ms),
        calls: batches * batch,
    })
}
