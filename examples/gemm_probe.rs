//! Speed probe of the SM80 GEMM kernel against cuBLAS in the same process.
//!
//! What: for bf16 and f16 inputs (f32 accumulation, output of the input
//! type, A and B K-major, D row-major) and each shape, the median time of
//! 20 runs after 5 warm-up runs (CUDA events) of cutlet's default SM80
//! kernel and of cuBLAS (`cublasGemmEx`), the TFLOP/s of each and their
//! ratio. It also prints the kernel's registers and local memory, as the
//! driver's JIT reports them.
//!
//! Run: `cargo run --release --example gemm_probe -- [RASTER_LOG] [MxNxK ...]`
//! (`-- ptx` prints the default bf16 kernel's PTX instead)
//! (default raster 2 and the shapes: 4096^3, 8192^3,
//! 4096x14336x4096, 8192x8192x1024, 4095x4097x4093).
//!
//! Constraints: needs a GPU and libcublas; the data is random in [-1, 1).

use cudarc::cublas::{sys::cublasOperation_t, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{sys::CUevent_flags, CudaSlice, CudaStream, DevicePtr, ValidAsZeroBits};

use cutlet::device::gemm::ParamValues;
use cutlet::device::{get_or_load, Device, KernelArgs, LaunchConfig};
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{sm80_default_spec, sm80_spec_for_problem};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::{Element, ElementType};
use half::{bf16, f16};

const WARMUP: usize = 5;
const ITERS: usize = 20;

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

fn time(stream: &CudaStream, mut f: impl FnMut()) -> f32 {
    for _ in 0..WARMUP {
        f();
    }
    let mut times = Vec::new();
    for _ in 0..ITERS {
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        f();
        let end = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        end.synchronize().unwrap();
        times.push(start.elapsed_ms(&end).unwrap());
    }
    median(times)
}

fn random<T: Copy>(len: usize, seed: u64, conv: impl Fn(f32) -> T) -> Vec<T> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            conv(((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        })
        .collect()
}

struct Shape {
    m: usize,
    n: usize,
    k: usize,
}

fn probe<T>(
    device: &Device,
    stream: &std::sync::Arc<CudaStream>,
    blas: &CudaBlas,
    shape: &Shape,
    raster: u32,
    conv: impl Fn(f32) -> T,
) where
    T: Element + Copy + ValidAsZeroBits + cudarc::driver::DeviceRepr + Unpin,
    CudaBlas: Gemm<T>,
{
    let ty = T::TYPE;
    let (m, n, k) = (shape.m, shape.n, shape.k);
    let sms = device.limits().sm_count;
    let spec: GemmSpec = sm80_spec_for_problem(
        GemmTypes::new(ty, ty, ty, ty, ElementType::F32),
        GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
        m as u32,
        n as u32,
        1,
        sms,
    )
    .unwrap();
    let align = spec.alignment()[0] as usize;
    let (lda, ldb, ldd) = (
        k.div_ceil(align) * align,
        k.div_ceil(align) * align,
        n.div_ceil(align) * align,
    );
    let a: CudaSlice<T> = stream.clone_htod(&random(m * lda, 1, &conv)).unwrap();
    let b: CudaSlice<T> = stream.clone_htod(&random(n * ldb, 2, &conv)).unwrap();
    let d: CudaSlice<T> = stream.alloc_zeros(m * ldd).unwrap();
    let mut d_ref: CudaSlice<T> = stream.alloc_zeros(m * ldd).unwrap();
    let composed = spec.kernel().unwrap();
    let kernel = get_or_load(
        device,
        &spec,
        || composed.name().to_string(),
        || Ok(composed.ptx()?),
    )
    .unwrap();
    let f = kernel.function();
    let config = LaunchConfig {
        grid: composed.grid(m as u32, n as u32, 1),
        block: (composed.block_threads(), 1, 1),
        shared_mem_bytes: composed.shared_storage().bytes,
    };
    let d_ptr = {
        let (p, _sync) = d.device_ptr(stream);
        p
    };
    let (a_ptr, b_ptr) = (a.device_ptr(stream).0, b.device_ptr(stream).0);
    let values = ParamValues {
        addresses: [a_ptr, b_ptr, d_ptr, d_ptr],
        extents: [m as u32, n as u32, k as u32, 1],
        ld: [lda, ldb, ldd, ldd].map(|x| x as u64),
        alpha: 1.0,
        beta: 0.0,
        raster_log: Some(raster),
        ..ParamValues::default()
    };
    let mut run_cutlet = || {
        let mut args = KernelArgs::new(stream);
        values.push(composed.as_ref(), &mut args).unwrap();
        // SAFETY: the kernel's own parameter list, walked by
        // `ParamValues::push`; a, b, d hold m x lda, n x ldb, m x ldd
        // elements, leading dims multiples of the kernel's alignment; C is
        // D with beta 0; grid, block and shared memory are the kernel's.
        unsafe { f.launch(&config, args) }.unwrap();
    };
    let ms = time(stream, &mut run_cutlet);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_T,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: m as i32,
        k: k as i32,
        alpha: conv(1.0),
        lda: ldb as i32,
        ldb: lda as i32,
        beta: conv(0.0),
        ldc: ldd as i32,
    };
    // SAFETY: column-major D^T (n x m, ld ldd) = B (k x n, ld ldb)^T * A^T
    // (k x m, ld lda): the buffers hold those extents.
    let ms_ref = time(stream, || {
        unsafe { blas.gemm(cfg, &b, &a, &mut d_ref) }.unwrap()
    });
    // Agreement with cuBLAS on a sample of elements.
    let got = stream.clone_dtoh(&d).unwrap();
    let want = stream.clone_dtoh(&d_ref).unwrap();
    let (mut err, mut norm) = (0.0f64, 0.0f64);
    for row in (0..m).step_by(97) {
        for col in 0..n {
            let (g, w) = (
                to_f64(&got[row * ldd + col]),
                to_f64(&want[row * ldd + col]),
            );
            err += (g - w) * (g - w);
            norm += w * w;
        }
    }
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let (tf, tf_ref) = (flops / (ms as f64 * 1e9), flops / (ms_ref as f64 * 1e9));
    println!(
        "{ty:>4} {m:>5}x{n:>5}x{k:>5} tile {:?} raster {raster}: cutlet {ms:8.3} ms {tf:7.1} TFLOP/s | cublas {ms_ref:8.3} ms {tf_ref:7.1} TFLOP/s | ratio {:.3} | rel err vs cublas {:.1e} | regs {} local {} B",
        spec.tile,
        tf / tf_ref,
        (err / norm.max(1e-30)).sqrt(),
        f.num_regs(),
        f.local_size_bytes().unwrap_or(0),
    );
}

fn to_f64<T: Element + Copy>(v: &T) -> f64 {
    let bits: &[u8] = bytemuck::bytes_of(v);
    match T::TYPE {
        ElementType::BF16 => bf16::from_le_bytes([bits[0], bits[1]]).to_f64(),
        _ => f16::from_le_bytes([bits[0], bits[1]]).to_f64(),
    }
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("ptx") {
        // The default bf16 TN kernel's PTX, for ptxas / cuobjdump.
        let spec = sm80_default_spec(
            ElementType::BF16,
            ElementType::BF16,
            ElementType::BF16,
            ElementType::F32,
            OperandMajor::K,
            OperandMajor::K,
            OutputMajor::N,
        )
        .unwrap();
        print!("{}", spec.ptx().unwrap());
        return;
    }
    let raster: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
    let mut shapes: Vec<Shape> = args
        .filter_map(|s| {
            let v: Vec<usize> = s.split('x').filter_map(|x| x.parse().ok()).collect();
            (v.len() == 3).then(|| Shape {
                m: v[0],
                n: v[1],
                k: v[2],
            })
        })
        .collect();
    if shapes.is_empty() {
        for (m, n, k) in [
            (4096, 4096, 4096),
            (8192, 8192, 8192),
            (4096, 14336, 4096),
            (8192, 8192, 1024),
            (4095, 4097, 4093),
        ] {
            shapes.push(Shape { m, n, k });
        }
    }
    if !cutlet::device::driver_available() {
        eprintln!("gemm_probe needs a GPU: no CUDA driver found");
        std::process::exit(2);
    }
    let device = Device::new(0).unwrap();
    let stream = device.default_stream();
    let blas = CudaBlas::new(stream.clone()).unwrap();
    println!(
        "device: {}",
        device.info().map(|i| format!("{i:?}")).unwrap_or_default()
    );
    for shape in &shapes {
        probe(&device, &stream, &blas, shape, raster, bf16::from_f32);
        probe(&device, &stream, &blas, shape, raster, f16::from_f32);
    }
}
