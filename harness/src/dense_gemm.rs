//! One `dense_gemm.py`-style run: random operands, cutlet's kernel timed
//! against cuBLAS in the same process, and the result checked (against the
//! host f64 reference for small problems, cuBLAS for large ones).
//!
//! The reference is cuBLASLt with its heuristic's best algorithm and a
//! 32 MiB workspace, as PyTorch calls it ([`GemmReference`]; cublasGemmEx
//! where cuBLASLt does not load or has no algorithm). cutlet and the
//! reference are timed alternately, run by run, after warming both up, each
//! going first in every other round ([`time_alternating_ms`]; the time is
//! [`AlternatingRuns::median_ms`](super::timing::AlternatingRuns::median_ms));
//! with `--use_cold_l2` each timed run uses
//! another set of A, B and D buffers ([`cold_l2_buffer_sets`]).

use cutlet::kernel::gemm::ScaleGranularity;
use std::cell::RefCell;
use std::fmt;
use std::mem::size_of;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};
use half::{bf16, f16};

use super::args::DenseGemmArgs;
use super::cold_l2::{cold_l2_buffer_sets, Rotation};
use super::host::{host_gemm, output_index, HostMatrix, HostValue};
use super::reference::{GemmReference, ReferenceKind};
use super::timing::{time_alternating_ms, Workload};
use crate::Result;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand, SchedulerArgs};
use cutlet::device::{Device, JitTier};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::{Element, ElementType};
use cutlet::Error;

/// Problems of at most this many multiply-adds are checked against the host
/// reference; larger ones against cuBLAS.
pub const HOST_CHECK_MACS: f64 = (1u64 << 27) as f64;

/// What one run measured.
#[derive(Clone, Debug)]
pub struct DenseGemmReport {
    /// The kernel's name.
    pub kernel: String,
    /// The problem.
    pub shape: GemmShape,
    /// alpha of `D = alpha · A · B + beta · C`.
    pub alpha: f64,
    /// beta of `D = alpha · A · B + beta · C` (C in place in D where not 0).
    pub beta: f64,
    /// `initialize`'s wall time in milliseconds: PTX generation plus JIT on
    /// the first call of this configuration in the process, a cache lookup after.
    pub first_call_ms: f64,
    /// The first run's wall time in milliseconds: `initialize`, one `run`
    /// and the stream's synchronization (the result is on the device).
    pub first_run_ms: f64,
    /// Of the first call: PTX generation, in milliseconds.
    pub generate_ms: f64,
    /// Of the first call: the driver's JIT compile and module load before
    /// the first launch (the quick tier of a tiered compile), in milliseconds.
    pub jit_ms: f64,
    /// Which compile the first run launched.
    pub first_tier: JitTier,
    /// When the optimized kernel was ready, in milliseconds from the start
    /// of the first compile (`None`: compiled in one tier, or a cache hit).
    pub optimized_ms: Option<f64>,
    /// Whether the first run's output (quick tier) and the timed runs'
    /// (optimized) are bit for bit the same; `None` when the first run
    /// already used the optimized kernel.
    pub tiers_agree: Option<bool>,
    /// cutlet's median time in milliseconds.
    pub cutlet_ms: f64,
    /// The reference's median time in milliseconds (`None` if neither
    /// cuBLASLt nor cuBLAS is usable).
    pub cublas_ms: Option<f64>,
    /// Which reference ran (`None`: none was usable).
    pub reference: Option<ReferenceKind>,
    /// Why cuBLASLt is not the reference (`None` when it is).
    pub reference_fallback: Option<String>,
    /// Untimed runs of each before timing.
    pub warmup_iterations: usize,
    /// Timed runs of each (the median is reported).
    pub iterations: usize,
    /// With `--use_cold_l2`: how many operand sets the timed runs rotated through.
    pub cold_l2_sets: Option<usize>,
    /// The check: `(reference name, normalized max error, tolerance)`; `None` when skipped.
    pub check: Option<(&'static str, f64, f64)>,
}

impl DenseGemmReport {
    /// TFLOP/s of a time in milliseconds for this problem.
    pub fn tflops(&self, ms: f64) -> f64 {
        self.shape.flops() / (ms * 1e-3) / 1e12
    }

    /// Whether the check ran and passed (or was skipped), and the quick and
    /// optimized kernels, where both ran, wrote the same bits.
    pub fn passed(&self) -> bool {
        self.tiers_agree != Some(false)
            && self
                .check
                .is_none_or(|(_, error, tolerance)| error <= tolerance)
    }
}

impl fmt::Display for DenseGemmReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let GemmShape { m, n, k, l } = self.shape;
        writeln!(f, "kernel:   {}", self.kernel)?;
        write!(f, "problem:  M={m} N={n} K={k} L={l}")?;
        if self.beta != 0.0 {
            writeln!(
                f,
                "; D = {} · A · B + {} · C, C in place in D",
                self.alpha, self.beta
            )?;
        } else if self.alpha != 1.0 {
            writeln!(f, "; D = {} · A · B", self.alpha)?;
        } else {
            writeln!(f)?;
        }
        writeln!(
            f,
            "first run (initialize + run + sync): {:.2} ms; initialize (generate + jit, or a cache hit) {:.2} ms (when first loaded: generate {:.1} ms, jit {:.1} ms); first run used the {} kernel",
            self.first_run_ms,
            self.first_call_ms,
            self.generate_ms,
            self.jit_ms,
            match self.first_tier {
                JitTier::Quick => "quick (first-tier)",
                JitTier::Optimized => "optimized",
            }
        )?;
        if let Some(ms) = self.optimized_ms {
            let agree = match self.tiers_agree {
                Some(true) => "quick and optimized outputs identical",
                Some(false) => "quick and optimized outputs DIFFER",
                None => "only the optimized kernel ran",
            };
            writeln!(f, "optimized kernel (background jit): ready {ms:.1} ms after the first compile began; {agree}")?;
        }
        writeln!(
            f,
            "cutlet:   {:.4} ms  {:.1} TFLOP/s",
            self.cutlet_ms,
            self.tflops(self.cutlet_ms)
        )?;
        match (self.cublas_ms, self.reference) {
            (Some(ms), Some(reference)) => {
                write!(
                    f,
                    "cublas:   {ms:.4} ms  {:.1} TFLOP/s  (cutlet / cublas = {:.3})  reference: {reference}",
                    self.tflops(ms),
                    ms / self.cutlet_ms
                )?;
                match &self.reference_fallback {
                    Some(why) => writeln!(f, " (cuBLASLt not used: {why})")?,
                    None => writeln!(f)?,
                }
            }
            _ => writeln!(
                f,
                "cublas:   not available ({})",
                self.reference_fallback
                    .as_deref()
                    .unwrap_or("libcublasLt and libcublas not found")
            )?,
        }
        let versus = match self.reference {
            Some(_) => ", cutlet and cublas alternating run by run, taking turns to go first",
            None => "",
        };
        let l2 = match self.cold_l2_sets {
            Some(sets) => format!("cold L2 ({sets} operand sets rotated)"),
            None => "warm L2".to_string(),
        };
        writeln!(
            f,
            "timing:   median of {} runs (per place in the round, averaged) after {} warm-up{versus}; {l2}",
            self.iterations, self.warmup_iterations
        )?;
        match self.check {
            Some((reference, error, tolerance)) => {
                let verdict = if error <= tolerance { "PASS" } else { "FAIL" };
                write!(f, "check vs {reference}: max error {error:.3e} (of the largest |value|), tolerance {tolerance:.1e}: {verdict}")
            }
            None => write!(f, "check: skipped"),
        }
    }
}

/// The tolerance on `max |got - want| / max |want|` for an output type and
/// accumulator: a few units in the last place of the output, more for f16
/// accumulation (its K-long sums round at every step).
pub fn check_tolerance(spec: &GemmSpec) -> f64 {
    let output: f64 = match spec.types.d {
        ElementType::F16 => 2e-3,
        ElementType::BF16 => 1.6e-2,
        // s8/u8 inputs into i32: exact.
        ElementType::I32 => 0.0,
        _ => 1e-4,
    };
    // tf32 inputs, and FP8 (whose fast accumulation keeps about 22 bits:
    // two kernels' orders of the same sums differ there).
    let inputs: f64 = if matches!(
        spec.types.a,
        ElementType::TF32 | ElementType::F32 | ElementType::F8E4M3 | ElementType::F8E5M2
    ) {
        2e-3
    } else {
        0.0
    };
    let accumulator: f64 = if spec.types.acc == ElementType::F16 {
        1e-2
    } else {
        0.0
    };
    output.max(inputs).max(accumulator)
}

/// Runs the options on `device`: generates (or fetches) the kernel, times it
/// and cuBLAS, and checks the result unless `--skip_ref_check`.
///
/// Errors: an invalid configuration or problem, driver and JIT errors, and
/// [`Error::Cublas`](crate::Error::Cublas) when the cuBLAS reference fails (a
/// missing cuBLAS only leaves the comparison out).
pub fn run_dense_gemm(options: &DenseGemmArgs, device: &Device) -> Result<DenseGemmReport> {
    let (spec, swap) =
        options.spec_for_device(device.limits().sm_count, device.compute_capability())?;
    let kernel = Kernel { spec, swap };
    use cutlet::float8::{F8E4M3, F8E5M2};
    match (storage(kernel.spec.types.a), storage(kernel.spec.types.d)) {
        (ElementType::I8, ElementType::I32) => run_typed::<i8, i32>(options, kernel, device),
        (ElementType::I8, ElementType::BF16) => run_typed::<i8, bf16>(options, kernel, device),
        (ElementType::I8, ElementType::F16) => run_typed::<i8, f16>(options, kernel, device),
        (ElementType::I8, _) => run_typed::<i8, f32>(options, kernel, device),
        (ElementType::U8, ElementType::I32) => run_typed::<u8, i32>(options, kernel, device),
        (ElementType::U8, ElementType::BF16) => run_typed::<u8, bf16>(options, kernel, device),
        (ElementType::U8, ElementType::F16) => run_typed::<u8, f16>(options, kernel, device),
        (ElementType::U8, _) => run_typed::<u8, f32>(options, kernel, device),
        (ElementType::F8E4M3, ElementType::BF16) => {
            run_typed::<F8E4M3, bf16>(options, kernel, device)
        }
        (ElementType::F8E4M3, _) => run_typed::<F8E4M3, f32>(options, kernel, device),
        (ElementType::F8E5M2, ElementType::BF16) => {
            run_typed::<F8E5M2, bf16>(options, kernel, device)
        }
        (ElementType::F8E5M2, _) => run_typed::<F8E5M2, f32>(options, kernel, device),
        (ElementType::F16, ElementType::F16) => run_typed::<f16, f16>(options, kernel, device),
        (ElementType::F16, ElementType::BF16) => run_typed::<f16, bf16>(options, kernel, device),
        (ElementType::F16, _) => run_typed::<f16, f32>(options, kernel, device),
        (ElementType::BF16, ElementType::F16) => run_typed::<bf16, f16>(options, kernel, device),
        (ElementType::BF16, ElementType::BF16) => run_typed::<bf16, bf16>(options, kernel, device),
        (ElementType::BF16, _) => run_typed::<bf16, f32>(options, kernel, device),
        (_, ElementType::F16) => run_typed::<f32, f16>(options, kernel, device),
        (_, ElementType::BF16) => run_typed::<f32, bf16>(options, kernel, device),
        _ => run_typed::<f32, f32>(options, kernel, device),
    }
}

/// The kernel a run launches: its spec, and whether that is the kernel of
/// the transposed problem (swap-AB).
struct Kernel {
    spec: GemmSpec,
    swap: bool,
}

/// The host type of a buffer of `element` (tf32 is stored as f32).
fn storage(element: ElementType) -> ElementType {
    if element == ElementType::TF32 {
        ElementType::F32
    } else {
        element
    }
}

/// Leading dimension and batch stride of a packed operand, the leading
/// dimension rounded up to `align` elements (so that ragged sizes keep the
/// kernel's 16-byte vectors).
pub fn packed(strided: usize, contiguous: usize, align: u32) -> (usize, usize) {
    let ld = contiguous
        .next_multiple_of(align.max(1) as usize)
        .max(align.max(1) as usize);
    (ld, ld * strided)
}

fn run_typed<T, D>(
    options: &DenseGemmArgs,
    chosen: Kernel,
    device: &Device,
) -> Result<DenseGemmReport>
where
    T: Element + DeviceRepr + HostValue,
    D: Element + DeviceRepr + HostValue,
{
    let shape = options.mnkl;
    let GemmShape { m, n, k, l } = shape;
    // The problem's view of the kernel (a swap-AB kernel's transpose): the
    // buffers, the reference and the check follow it.
    let (spec, [align_a, align_b, _, align_d]) = if chosen.swap {
        let [a, b, c, d] = chosen.spec.alignment();
        (chosen.spec.transposed(), [b, a, c, d])
    } else {
        (chosen.spec.clone(), chosen.spec.alignment())
    };
    let (a_strided, a_contiguous) = if spec.majors.a == OperandMajor::K {
        (m, k)
    } else {
        (k, m)
    };
    let (b_strided, b_contiguous) = if spec.majors.b == OperandMajor::K {
        (n, k)
    } else {
        (k, n)
    };
    let (d_strided, d_contiguous) = if spec.majors.d == OutputMajor::N {
        (m, n)
    } else {
        (n, m)
    };
    let (lda, batch_a) = packed(a_strided, a_contiguous, align_a);
    let (ldb, batch_b) = packed(b_strided, b_contiguous, align_b);
    let (ldd, batch_d) = packed(d_strided, d_contiguous, align_d);
    let stream = device.default_stream();
    let host_a = random_values::<T>(batch_a * l, 1);
    let host_b = random_values::<T>(batch_b * l, 2);
    let upload = |what: &str, values: &[T]| copy_to_device(&stream, what, values);
    let a = upload("a", &host_a)?;
    let b = upload("b", &host_b)?;
    let poison = vec![D::from_f64(f64::NAN); batch_d * l];
    // With beta: C is D, random at the start and again before the check.
    let host_c = (options.beta != 0.0).then(|| random_values::<D>(batch_d * l, 3));
    let d_start = host_c.as_deref().unwrap_or(&poison);
    let mut d = copy_to_device(&stream, "d", d_start)?;
    let gemm = if chosen.swap {
        Gemm::from_transposed_spec(device, chosen.spec.clone())
    } else {
        Gemm::from_spec(device, chosen.spec.clone())
    };
    let packing = Packing {
        shape,
        lda,
        batch_a,
        ldb,
        batch_b,
        ldd,
        batch_d,
        scheduler: options.scheduler(),
        alpha: options.alpha,
        beta: options.beta,
        scales: match spec.epilogue.fusion.scales() {
            Some(granularity) => {
                let k_blocks = shape.k.div_ceil(128);
                let [len_a, len_b] = match granularity {
                    ScaleGranularity::Tensor => [1, 1],
                    ScaleGranularity::RowCol => [m, n],
                    ScaleGranularity::Block => [l * m * k_blocks, l * n.div_ceil(128) * k_blocks],
                };
                Some([
                    copy_to_device(&stream, "scale_a", &vec![1.0f32; len_a])?,
                    copy_to_device(&stream, "scale_b", &vec![1.0f32; len_b])?,
                ])
            }
            None => None,
        },
    };
    let start = Instant::now();
    let kernel = gemm.initialize(&packing.product(&a, &b, &mut d), None)?;
    let first_call_ms = start.elapsed().as_secs_f64() * 1e3;
    gemm.run(&mut packing.product(&a, &b, &mut d), &stream)?;
    stream
        .synchronize()
        .map_err(|e| Error::driver("synchronizing after the first run", e))?;
    let first_run_ms = start.elapsed().as_secs_f64() * 1e3;
    // The tier only moves from quick to optimized: quick after the run means
    // the run launched the quick kernel.
    let first_tier = kernel.tier();
    let first_output: Option<Vec<D>> = match first_tier {
        JitTier::Quick => Some(
            stream
                .clone_dtoh(&d)
                .map_err(|e| Error::driver("copying the first run's d to the host", e))?,
        ),
        JitTier::Optimized => None,
    };
    kernel.wait_optimized()?;
    let optimized_ms = kernel
        .optimized_after()
        .map(|after| after.as_secs_f64() * 1e3);
    let generate_ms = kernel.generate_time().as_secs_f64() * 1e3;
    let jit_ms = kernel.compile_time().as_secs_f64() * 1e3;
    let mut reference_d = copy_to_device(&stream, "reference d", d_start)?;
    let choice = GemmReference::for_problem(
        &stream,
        &spec,
        &mut packing.product(&a, &b, &mut reference_d),
    );
    let reference = choice.reference;
    let reference_fallback = choice.lt_unavailable.map(|why| why.to_string());
    let rotation = if options.use_cold_l2 {
        let l2_bytes = u64::from(device.info()?.l2_cache_bytes);
        let set_bytes = ((batch_a + batch_b) * size_of::<T>() + batch_d * size_of::<D>()) * l;
        let count = cold_l2_buffer_sets(l2_bytes, set_bytes as u64);
        Some(RefCell::new(Rotation::new(&stream, (&a, &b, &d), count)?))
    } else {
        None
    };
    let times = {
        let mut cutlet_run = || match &rotation {
            Some(rotation) => {
                let mut rotation = rotation.borrow_mut();
                let set = rotation.next_set();
                Ok(gemm.run(&mut packing.product(&set.a, &set.b, &mut set.d), &stream)?)
            }
            None => Ok(gemm.run(&mut packing.product(&a, &b, &mut d), &stream)?),
        };
        let mut reference_run = |reference: &GemmReference| match &rotation {
            Some(rotation) => {
                let mut rotation = rotation.borrow_mut();
                let set = rotation.next_set();
                reference.run(&spec, &mut packing.product(&set.a, &set.b, &mut set.d))
            }
            None => reference.run(&spec, &mut packing.product(&a, &b, &mut reference_d)),
        };
        let mut workloads: Vec<Workload<'_, crate::Error>> = vec![&mut cutlet_run];
        let mut reference_workload;
        if let Some(reference) = &reference {
            reference_workload = || reference_run(reference);
            workloads.push(&mut reference_workload);
        }
        time_alternating_ms(
            device,
            &stream,
            options.warmup_iterations,
            options.iterations.max(1),
            &mut workloads,
        )?
    };
    if let Some(c) = &host_c {
        // The timed runs accumulated into D: C again in both.
        stream
            .memcpy_htod(c, &mut d)
            .map_err(|e| Error::driver("copying c to d", e))?;
        stream
            .memcpy_htod(c, &mut reference_d)
            .map_err(|e| Error::driver("copying c to the reference d", e))?;
    }
    if rotation.is_some() || host_c.is_some() {
        // The timed runs wrote the rotation's buffers, or accumulated into
        // D: one run of each on the originals for the check.
        gemm.run(&mut packing.product(&a, &b, &mut d), &stream)?;
        if let Some(reference) = &reference {
            reference.run(&spec, &mut packing.product(&a, &b, &mut reference_d))?;
        }
    }
    let got: Vec<D> = stream
        .clone_dtoh(&d)
        .map_err(|e| Error::driver("copying d to the host", e))?;
    let tiers_agree = first_output.map(|first| {
        first.len() == got.len()
            && first
                .iter()
                .zip(&got)
                .all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits())
    });
    let cublas_ms = times.get(1).map(|runs| runs.median_ms());
    let check = if options.skip_ref_check {
        None
    } else {
        let host_check = (m * n) as f64 * k as f64 * l as f64 <= HOST_CHECK_MACS;
        let want: Vec<f64> = match (&reference, host_check) {
            (Some(_), false) => {
                let values: Vec<D> = stream
                    .clone_dtoh(&reference_d)
                    .map_err(|e| Error::driver("copying the cuBLAS result", e))?;
                dense_output(&spec, shape, &values, ldd, batch_d)
            }
            _ => {
                let host_d = host_c
                    .clone()
                    .unwrap_or_else(|| vec![D::from_f64(0.0); batch_d * l]);
                host_gemm(
                    &spec,
                    shape,
                    HostMatrix {
                        data: &host_a,
                        ld: lda,
                        batch_stride: batch_a,
                    },
                    HostMatrix {
                        data: &host_b,
                        ld: ldb,
                        batch_stride: batch_b,
                    },
                    HostMatrix {
                        data: &host_d,
                        ld: ldd,
                        batch_stride: batch_d,
                    },
                    options.alpha,
                    options.beta,
                )
            }
        };
        let reference_name = match (&reference, host_check) {
            (Some(reference), false) => reference.kind().short_name(),
            _ => "host f64",
        };
        let got = dense_output(&spec, shape, &got, ldd, batch_d);
        Some((
            reference_name,
            normalized_error(&got, &want),
            check_tolerance(&spec),
        ))
    };
    Ok(DenseGemmReport {
        kernel: if chosen.swap {
            format!("{} (swap-AB)", chosen.spec.kernel_name())
        } else {
            chosen.spec.kernel_name()
        },
        shape,
        first_call_ms,
        first_run_ms,
        generate_ms,
        jit_ms,
        first_tier,
        optimized_ms,
        tiers_agree,
        cutlet_ms: times[0].median_ms(),
        alpha: options.alpha,
        beta: options.beta,
        cublas_ms,
        reference: reference.as_ref().map(GemmReference::kind),
        reference_fallback,
        warmup_iterations: options.warmup_iterations,
        iterations: options.iterations.max(1),
        cold_l2_sets: rotation.as_ref().map(|rotation| rotation.borrow().len()),
        check,
    })
}

/// The problem and the packed operands' leading dimensions and batch strides.
struct Packing {
    shape: GemmShape,
    lda: usize,
    batch_a: usize,
    ldb: usize,
    batch_b: usize,
    ldd: usize,
    batch_d: usize,
    scheduler: SchedulerArgs,
    alpha: f64,
    beta: f64,
    /// Unit scales of A and B where the kernel reads scales.
    scales: Option<[CudaSlice<f32>; 2]>,
}

impl Packing {
    /// `d = alpha · a · b + beta · d` over these buffers (the plain product
    /// where beta is 0), with the unit scales where there are any.
    fn product<'x, T, D>(
        &'x self,
        a: &'x CudaSlice<T>,
        b: &'x CudaSlice<T>,
        d: &'x mut CudaSlice<D>,
    ) -> Arguments<'x, T, T, D, D> {
        let (a, b, d) = (
            Operand::new(a.as_view(), self.lda, self.batch_a),
            Operand::new(b.as_view(), self.ldb, self.batch_b),
            OutputOperand::new(d.as_view_mut(), self.ldd, self.batch_d),
        );
        let args = if self.beta == 0.0 {
            Arguments::product(self.shape, a, b, d, self.alpha)
        } else {
            Arguments::in_place(self.shape, a, b, d, self.alpha, self.beta)
        }
        .with_scheduler(self.scheduler);
        match &self.scales {
            Some([sa, sb]) => args.with_scales(sa.as_view(), sb.as_view()),
            None => args,
        }
    }
}

/// D's values as f64, densely, batch after batch, each row-major M × N.
pub fn dense_output<D: HostValue>(
    spec: &GemmSpec,
    shape: GemmShape,
    d: &[D],
    ld: usize,
    batch: usize,
) -> Vec<f64> {
    let GemmShape { m, n, l, .. } = shape;
    let mut out = Vec::with_capacity(m * n * l);
    for batch_index in 0..l {
        for row in 0..m {
            for col in 0..n {
                out.push(
                    d[batch_index * batch + output_index(spec.majors.d, row, col, ld)].to_f64(),
                );
            }
        }
    }
    out
}

/// `max |got - want| / max |want|` (at least 1 in the denominator); infinite
/// where `got` holds a NaN (an element left poisoned).
pub fn normalized_error(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(1.0f64, |acc, w| acc.max(w.abs()));
    got.iter()
        .zip(want)
        .map(|(g, w)| {
            if g.is_nan() {
                f64::INFINITY
            } else {
                (g - w).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

/// `len` values uniform in [-1, 1), rounded to `T`, from a xorshift generator seeded by `seed`.
pub fn random_values<T: HostValue>(len: usize, seed: u64) -> Vec<T> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            T::random_from_unit((state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}

fn copy_to_device<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    what: &str,
    values: &[T],
) -> cutlet::Result<CudaSlice<T>> {
    stream
        .clone_htod(values)
        .map_err(|e| Error::driver(format!("copying {what} to the device"), e))
}
