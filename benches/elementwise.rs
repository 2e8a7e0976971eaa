//! Elementwise kernels against the DRAM ceiling (criterion, `harness = false`).
//!
//! What: the cases on 16384 x 8192 tensors: fp16 `a + b`, bf16
//! `(a * b + c).gelu()`, and fp16 `a + b` on the ragged 16383 x 8191.
//! How: criterion times each with CUDA events (`iter_custom`), throughput in
//! bytes counted once per element read and written; after each case the
//! median of 30 event-timed runs is printed as GB/s and share of the ceiling
//! (2 x memory clock x bus width).
//! The quantize group: bf16 (and f32) 16384 x 8192 into e4m3 and s8 with
//! row, 1x128 and 128x128 block and tensor scales (bytes: the input once, the output once, the
//! scales).
//! Run: `cargo bench --bench elementwise` (needs an NVIDIA GPU; without one it
//! prints why and exits).

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use cudarc::driver::sys::CUevent_flags;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{driver_available, Device, Elementwise};
use cutlet::fusion::{Expr, Expression};
use cutlet::numeric::Element;
use cutlet::tensor::{TensorArg, TensorMut, TensorRef};
use half::{bf16, f16};

/// One benchmark case: tensors of `T`, an expression, a shape.
struct Case<T> {
    name: &'static str,
    inputs: Vec<CudaSlice<T>>,
    output: CudaSlice<T>,
    op: Elementwise,
    rows: usize,
    cols: usize,
}

impl<T: Element + DeviceRepr + ValidAsZeroBits> Case<T> {
    fn new(
        device: &Device,
        name: &'static str,
        expression: Expression,
        rows: usize,
        cols: usize,
    ) -> Case<T> {
        let stream = device.default_stream();
        let n = rows * cols;
        let inputs = (0..expression.arity())
            .map(|_| stream.alloc_zeros::<T>(n).expect("allocation"))
            .collect();
        let output = stream.alloc_zeros::<T>(n).expect("allocation");
        Case {
            name,
            inputs,
            output,
            op: Elementwise::new(device, expression),
            rows,
            cols,
        }
    }

    fn bytes(&self) -> u64 {
        ((self.inputs.len() + 1) * self.rows * self.cols) as u64 * u64::from(T::TYPE.size_bytes())
    }

    fn launch(&mut self, device: &Device) {
        let stream = device.default_stream();
        let views: Vec<TensorArg> = self
            .inputs
            .iter()
            .map(|b| {
                TensorRef::row_major(b, self.rows, self.cols)
                    .expect("view")
                    .into()
            })
            .collect();
        let out = TensorMut::row_major(&mut self.output, self.rows, self.cols).expect("view");
        self.op
            .run(&views, out.into(), &[], &stream)
            .expect("elementwise run");
    }

    /// Event-timed duration of `iters` back-to-back launches.
    fn timed(&mut self, device: &Device, iters: u64) -> Duration {
        let stream = device.default_stream();
        event_timed(&stream, iters, || self.launch(device))
    }

    fn run(mut self, c: &mut Criterion, device: &Device, ceiling: f64) {
        let (name, bytes) = (self.name, self.bytes());
        bench_bytes(c, "elementwise", name, bytes, ceiling, |iters| {
            self.timed(device, iters)
        });
    }
}

fn main() {
    if !driver_available() {
        println!("elementwise bench skipped: no CUDA driver found");
        return;
    }
    let device = Device::new(0).expect("device 0");
    let ceiling = device.info().expect("device info").dram_bandwidth_gbps();
    let mut c = Criterion::default().configure_from_args();
    let add = Expression::from_fn(|a: Expr, b: Expr| a + b);
    let gelu3 = Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu());
    Case::<f16>::new(&device, "f16 a+b 16384x8192", add.clone(), 16384, 8192)
        .run(&mut c, &device, ceiling);
    Case::<bf16>::new(
        &device,
        "bf16 (a*b+c).gelu() 16384x8192",
        gelu3,
        16384,
        8192,
    )
    .run(&mut c, &device, ceiling);
    Case::<f16>::new(&device, "f16 a+b 16383x8191 (ragged)", add, 16383, 8191)
        .run(&mut c, &device, ceiling);
    reductions(&mut c, &device, ceiling);
    quantizations(&mut c, &device, ceiling);
    c.final_summary();
}

/// The reduction group: f32 sums along dim -1, dim 0 and in full, on the
/// aligned 16384 x 8192 and the ragged 16383 x 8191 shapes (bytes: the input
/// once plus the output once), with the same median-of-30 line as above.
fn reductions(c: &mut Criterion, device: &Device, ceiling: f64) {
    use cutlet::device::{Reduce, ReduceDim, ReduceWorkspace};
    use cutlet::kernel::reduce::ReduceOp;
    let stream = device.default_stream();
    let mut workspace = ReduceWorkspace::new();
    for (rows, cols) in [(16384, 8192), (16383, 8191)] {
        let input = stream.alloc_zeros::<f32>(rows * cols).expect("input");
        for (dim, outputs, label) in [
            (ReduceDim::Last, rows, "-1"),
            (ReduceDim::First, cols, "0"),
            (ReduceDim::All, 1, "all"),
        ] {
            let mut output = stream.alloc_zeros::<f32>(outputs).expect("output");
            let reduce = Reduce::new(device, ReduceOp::Sum, dim);
            let bytes = ((rows * cols + outputs) * 4) as u64;
            let launch = |output: &mut CudaSlice<f32>, workspace: &mut ReduceWorkspace| {
                let view = TensorRef::row_major(&input, rows, cols).expect("view");
                reduce
                    .run(
                        view.into(),
                        TensorMut::vector(output).into(),
                        workspace,
                        &stream,
                    )
                    .expect("reduce run");
            };
            let timed =
                |iters: u64| event_timed(&stream, iters, || launch(&mut output, &mut workspace));
            let name = format!("f32 sum dim {label} {rows}x{cols}");
            bench_bytes(c, "reduce", &name, bytes, ceiling, timed);
        }
    }
}

/// The quantize group: 16384 x 8192 into 8-bit values with row, 1x128
/// block and tensor scales (bytes: the input and output once each, plus the scales), with
/// the same median-of-30 line as above.
fn quantizations(c: &mut Criterion, device: &Device, ceiling: f64) {
    use cutlet::device::quantize;
    use cutlet::float8::F8E4M3;
    use cutlet::kernel::quantize::QuantizeScale;
    let stream = device.default_stream();
    let (rows, cols) = (16384, 8192);
    let values: Vec<f32> = (0..rows * cols)
        .map(|i| ((i % 1999) as f32 - 999.0) * 0.01)
        .collect();
    let input_f32 = stream.clone_htod(&values).expect("input");
    let halves: Vec<bf16> = values.iter().map(|&v| bf16::from_f32(v)).collect();
    let input_bf16 = stream.clone_htod(&halves).expect("input");
    let mut fp8 = stream.alloc_zeros::<F8E4M3>(rows * cols).expect("output");
    let mut int8 = stream.alloc_zeros::<i8>(rows * cols).expect("output");
    let mut scales = stream
        .alloc_zeros::<f32>(rows * cols / 128)
        .expect("scales");
    for (name, granularity) in [
        ("bf16 -> e4m3 rows", QuantizeScale::Row),
        ("bf16 -> e4m3 1x128 blocks", QuantizeScale::Block1x128),
        ("bf16 -> e4m3 128x128 blocks", QuantizeScale::Block128x128),
        ("bf16 -> e4m3 tensor", QuantizeScale::Tensor),
        ("bf16 -> s8 rows", QuantizeScale::Row),
        ("f32 -> e4m3 rows", QuantizeScale::Row),
    ] {
        let f32_input = name.starts_with("f32");
        let int = name.contains("s8");
        let in_bytes = if f32_input { 4 } else { 2 };
        let scale_count = match granularity {
            QuantizeScale::Row => rows,
            QuantizeScale::Tensor => 1,
            QuantizeScale::Block1x128 => rows * cols / 128,
            QuantizeScale::Block128x128 => rows * cols / (128 * 128),
        };
        let bytes = (rows * cols * (in_bytes + 1) + 4 * scale_count) as u64;
        let mut launch = || {
            let shape = [rows, cols];
            match (f32_input, int) {
                (true, _) => quantize(
                    device,
                    &input_f32,
                    shape,
                    &mut fp8,
                    &mut scales,
                    granularity,
                    &stream,
                ),
                (false, true) => quantize(
                    device,
                    &input_bf16,
                    shape,
                    &mut int8,
                    &mut scales,
                    granularity,
                    &stream,
                ),
                (false, false) => quantize(
                    device,
                    &input_bf16,
                    shape,
                    &mut fp8,
                    &mut scales,
                    granularity,
                    &stream,
                ),
            }
            .expect("quantize")
        };
        let timed = |iters: u64| event_timed(&stream, iters, &mut launch);
        let name = format!("{name} {rows}x{cols}");
        bench_bytes(c, "quantize", &name, bytes, ceiling, timed);
    }
}

/// `iters` runs of `launch` on `stream` between two CUDA events: the time
/// between them.
fn event_timed(stream: &Arc<CudaStream>, iters: u64, mut launch: impl FnMut()) -> Duration {
    let start = stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    for _ in 0..iters {
        launch();
    }
    let end = stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .expect("event");
    end.synchronize().expect("sync");
    Duration::from_secs_f64(f64::from(start.elapsed_ms(&end).expect("elapsed")) * 1e-3)
}

/// Criterion's `group`/`name` over `bytes` a run with `timed` (the time of
/// `iters` runs), then the median of 30 single runs printed as GB/s and
/// its share of the `ceiling`.
fn bench_bytes(
    c: &mut Criterion,
    group: &str,
    name: &str,
    bytes: u64,
    ceiling: f64,
    mut timed: impl FnMut(u64) -> Duration,
) {
    let mut criterion_group = c.benchmark_group(group);
    criterion_group.throughput(Throughput::Bytes(bytes));
    criterion_group.sample_size(20);
    criterion_group.bench_function(name, |b| b.iter_custom(&mut timed));
    criterion_group.finish();
    let mut runs: Vec<f64> = (0..30).map(|_| timed(1).as_secs_f64()).collect();
    runs.sort_by(f64::total_cmp);
    let gbps = bytes as f64 / runs[15] / 1e9;
    println!(
        "{name}: {gbps:.0} GB/s, {:.1}% of the {ceiling:.0} GB/s ceiling",
        100.0 * gbps / ceiling
    );
}
