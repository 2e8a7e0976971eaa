//! `cutlet profile`: cutlet's pick against cuBLASLt over a grid of shapes
//! (by default M in 1..8192 x N in {1024, 4096, 8192, 14336} x K in {1024,
//! 4096, 8192, 16384}, plus named LLM shapes), each as `cutlet gemm
//! --use_cold_l2` runs it: the builder's kernel for the problem and
//! cuBLASLt (heuristic's best algorithm, 32 MiB workspace) in the same
//! process, alternating run by run, a cold L2, the result checked. Writes
//! `profile.csv`, `profile.json` and `heatmap.svg` (the ratio over M x N,
//! one panel per K) and prints the geometric mean, the minimum and every
//! shape below 1.0: the tool that finds the next gap. The files are
//! rewritten after every shape, so a run cut short keeps what it measured.

mod heatmap;
mod shapes;
mod table;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cutlet::arch::ArchKind;
use cutlet::device::gemm::{GemmShape, RasterOrder};
use cutlet::device::Device;
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet::{Error, Result};
use cutlet_harness::{parse_dtype, run_dense_gemm, DenseGemmArgs, ScheduleArg};

use shapes::{Shape, DEFAULT_K, DEFAULT_M, DEFAULT_N};
use table::{Measured, Outcome, Row};

/// A comma-separated size list (`--m 1,16,4096`).
#[derive(Clone, Debug)]
pub struct Sizes(Vec<usize>);

fn parse_sizes(text: &str) -> Result<Sizes> {
    shapes::parse_sizes(text).map(Sizes)
}

/// The options of `cutlet profile`.
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// M values of the grid, comma-separated (default 1,2,4,...,8192).
    #[arg(long = "m", value_parser = parse_sizes)]
    m: Option<Sizes>,
    /// N values of the grid (default 1024,4096,8192,14336).
    #[arg(long = "n", value_parser = parse_sizes)]
    n: Option<Sizes>,
    /// K values of the grid (default 1024,4096,8192,16384).
    #[arg(long = "k", value_parser = parse_sizes)]
    k: Option<Sizes>,
    /// Element type of A, B and D (f32 accumulation): bf16, f16, tf32 (D
    /// f32), e4m3 or e5m2 (D bf16; promoting unless --fast_accum), s8 or u8
    /// (D i32, s32 accumulation).
    #[arg(long = "dtype", value_parser = parse_dtype, default_value = "bf16")]
    dtype: ElementType,
    /// e4m3/e5m2: fast accumulation, against cuBLASLt's FAST_ACCUM.
    #[arg(long = "fast_accum")]
    fast_accum: bool,
    /// A file of shapes to run instead of the grid and the named shapes:
    /// one `M,N,K` (or `name: M,N,K`) per line, `#` comments.
    #[arg(long = "shapes")]
    shapes: Option<PathBuf>,
    /// Leave out the named LLM shapes (run the grid alone).
    #[arg(long = "no-named")]
    no_named: bool,
    /// The folder the CSV, JSON and SVG are written to (created if need be).
    #[arg(long = "out", default_value = "profile")]
    out: PathBuf,
    /// Untimed runs of each before timing.
    #[arg(long = "warmup_iterations", default_value_t = 5)]
    warmup_iterations: usize,
    /// Timed runs of each, alternating (the median is reported).
    #[arg(long = "iterations", default_value_t = 20)]
    iterations: usize,
    /// Skip checking each result (against the host for small problems,
    /// cuBLASLt's for large ones).
    #[arg(long = "skip_ref_check")]
    skip_ref_check: bool,
    /// Print the shapes that would run and exit (no GPU needed).
    #[arg(long = "list")]
    list: bool,
}

/// Runs `cutlet profile`: exit 0 when every shape ran and passed its
/// check, 1 when one failed or could not run, 2 with one `error: ...` line
/// for bad options, no driver or no GPU.
pub fn run(args: &ProfileArgs) -> ExitCode {
    match profile(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// The shapes the options ask for.
fn shape_list(args: &ProfileArgs) -> Result<Vec<Shape>> {
    if let Some(path) = &args.shapes {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::invalid_argument("--shapes", path.display(), format!("a readable file ({e})"))
        })?;
        return shapes::parse_shapes_file(&text);
    }
    let pick = |given: &Option<Sizes>, default: &[usize]| {
        given
            .as_ref()
            .map_or_else(|| default.to_vec(), |s| s.0.clone())
    };
    let mut list = shapes::grid(
        &pick(&args.m, &DEFAULT_M),
        &pick(&args.n, &DEFAULT_N),
        &pick(&args.k, &DEFAULT_K),
    );
    if !args.no_named {
        list.extend(shapes::named_shapes());
    }
    Ok(list)
}

/// `dense_gemm.py`'s options for one shape: cutlet's pick (no arch, tile,
/// schedule or cluster pinned), `D = A · B` with K-major A and B and a
/// row-major D, a cold L2.
fn options(args: &ProfileArgs, shape: &Shape) -> DenseGemmArgs {
    let d = match args.dtype {
        ElementType::TF32 => ElementType::F32,
        ElementType::F8E4M3 | ElementType::F8E5M2 => ElementType::BF16,
        ElementType::I8 | ElementType::U8 => ElementType::I32,
        other => other,
    };
    DenseGemmArgs {
        mnkl: GemmShape::new(shape.m, shape.n, shape.k, 1),
        tile_shape_mnk: None,
        a_dtype: args.dtype,
        b_dtype: args.dtype,
        c_dtype: d,
        acc_dtype: None,
        a_major: OperandMajor::K,
        b_major: OperandMajor::K,
        c_major: OutputMajor::N,
        warmup_iterations: args.warmup_iterations,
        iterations: args.iterations.max(1),
        alpha: 1.0,
        beta: 0.0,
        skip_ref_check: args.skip_ref_check,
        use_cold_l2: true,
        arch: None::<ArchKind>,
        schedule: ScheduleArg::Auto,
        cluster_shape_mn: None,
        raster_order: RasterOrder::default(),
        swizzle_size: None,
        decomposition: cutlet_harness::DecompositionArg::Auto,
        splits: None,
        swap_ab: None,
        fast_accum: args.fast_accum,
        scale_mode: None,
        gemv: None,
        gemv_ring: false,
        stages: None,
        reduction: cutlet::kernel::gemm::Reduction::Deterministic,
    }
}

/// Runs every shape and writes the files; whether all ran and passed.
fn profile(args: &ProfileArgs) -> Result<bool> {
    let list = shape_list(args)?;
    if args.list {
        for shape in &list {
            crate::out::outln!("{},{},{},{}", shape.name, shape.m, shape.n, shape.k);
        }
        return Ok(true);
    }
    let device = Device::new(0)?;
    let info = device.info()?;
    let dram_gbps = info.dram_bandwidth_gbps();
    let size = |t: ElementType| f64::from(t.size_bytes());
    let dtype_name = args.dtype.name().to_string();
    let mut rows = Vec::with_capacity(list.len());
    for (i, shape) in list.iter().enumerate() {
        let options = options(args, shape);
        let (m, n, k) = (shape.m as f64, shape.n as f64, shape.k as f64);
        let bytes = (m * k + n * k) * size(options.a_dtype) + m * n * size(options.c_dtype);
        let row = match run_dense_gemm(&options, &device) {
            Ok(report) => Row {
                shape: shape.clone(),
                dtype: dtype_name.clone(),
                kernel: report.kernel.clone(),
                outcome: Outcome::Measured(Measured {
                    cutlet_us: report.cutlet_ms * 1e3,
                    cublas_us: report.cublas_ms.map(|ms| ms * 1e3),
                    bytes,
                    floor_us: bytes / (dram_gbps * 1e9) * 1e6,
                    check: report.check,
                }),
            },
            Err(e) => Row {
                shape: shape.clone(),
                dtype: dtype_name.clone(),
                kernel: String::new(),
                outcome: Outcome::Failed(e.to_string()),
            },
        };
        progress(i + 1, list.len(), &row);
        rows.push(row);
        // The files after every shape: a run cut short keeps what it measured.
        write_files(&args.out, &rows, &info.name, dram_gbps)?;
    }
    crate::out::outln!(
        "{} on {} (DRAM ceiling {:.0} GB/s), {} {}",
        "cutlet profile",
        info.name,
        dram_gbps,
        dtype_name,
        "D = A · B, A and B K-major, D row-major, cold L2"
    );
    crate::out::outln!("{}", table::summary(&rows));
    crate::out::outln!(
        "wrote {}, {} and {}",
        args.out.join("profile.csv").display(),
        args.out.join("profile.json").display(),
        args.out.join("heatmap.svg").display()
    );
    Ok(rows
        .iter()
        .all(|r| r.measured().is_some_and(Measured::passed)))
}

/// One line on standard error per shape as it finishes.
fn progress(done: usize, total: usize, row: &Row) {
    let what = match &row.outcome {
        Outcome::Measured(x) => match x.ratio() {
            Some(r) => format!("{r:.3}x cuBLASLt ({:.1} us)  {}", x.cutlet_us, row.kernel),
            None => format!("{:.1} us (no cuBLASLt)  {}", x.cutlet_us, row.kernel),
        },
        Outcome::Failed(why) => format!("error: {why}"),
    };
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "[{done}/{total}] {}  {what}", row.label());
}

/// Writes `profile.csv`, `profile.json` and `heatmap.svg` into `dir`.
fn write_files(dir: &Path, rows: &[Row], device: &str, dram_gbps: f64) -> Result<()> {
    let io = |what: &Path, e: std::io::Error| {
        Error::invalid_argument("--out", what.display(), format!("a writable path ({e})"))
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))
    };
    write("profile.csv", &table::csv(rows))?;
    write("profile.json", &table::json(rows, device, dram_gbps))?;
    let title = format!("cutlet / cuBLASLt on {device}");
    if let Some(svg) = heatmap::svg(rows, &title) {
        write("heatmap.svg", &svg)?;
    }
    Ok(())
}
