//! The arguments of CuTe DSL's `dense_gemm.py`, shared by
//! `examples/dense_gemm.rs`, `cutlet gemm` and the bench.

use cutlet::arch::ArchKind;
use cutlet::kernel::gemm::sm80_spec_for_problem;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet::{Error, Result};

use cutlet::device::gemm::{Gemm, GemmShape};

/// `dense_gemm.py`'s options, with its spellings (`--mnkl 4096,4096,4096,1`,
/// `--a_dtype BFloat16`, `--a_major k`, ...). Types take the DSL names
/// (Float16, BFloat16, Float32, TFloat32) or the short ones (f16, bf16, f32, tf32).
#[derive(Clone, Debug, clap::Args)]
pub struct DenseGemmArgs {
    /// Problem shape M,N,K,L.
    #[arg(long = "mnkl", value_parser = parse_mnkl, default_value = "4096,4096,4096,1")]
    pub mnkl: GemmShape,
    /// CTA tile BM,BN,BK (default: the collective builder's choice).
    #[arg(long = "tile_shape_mnk", value_parser = parse_tile)]
    pub tile_shape_mnk: Option<[u32; 3]>,
    /// Element type of A.
    #[arg(long = "a_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub a_dtype: ElementType,
    /// Element type of B.
    #[arg(long = "b_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub b_dtype: ElementType,
    /// Element type of C (and D).
    #[arg(long = "c_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub c_dtype: ElementType,
    /// Accumulator type.
    #[arg(long = "acc_dtype", value_parser = parse_dtype, default_value = "Float32")]
    pub acc_dtype: ElementType,
    /// Contiguous dimension of A: k or m.
    #[arg(long = "a_major", value_parser = parse_a_major, default_value = "k")]
    pub a_major: OperandMajor,
    /// Contiguous dimension of B: k or n.
    #[arg(long = "b_major", value_parser = parse_b_major, default_value = "k")]
    pub b_major: OperandMajor,
    /// Contiguous dimension of C: n or m.
    #[arg(long = "c_major", value_parser = parse_c_major, default_value = "n")]
    pub c_major: OutputMajor,
    /// Untimed runs before timing.
    #[arg(long = "warmup_iterations", default_value_t = 2)]
    pub warmup_iterations: usize,
    /// Timed runs (the median is reported).
    #[arg(long = "iterations", default_value_t = 10)]
    pub iterations: usize,
    /// Skip checking the result.
    #[arg(long = "skip_ref_check")]
    pub skip_ref_check: bool,
    /// The architecture to generate for: sm70 (the Volta kernel, f16
    /// inputs), sm80 or sm90; default: the builder's (sm80's kernel).
    #[arg(long = "arch", value_parser = parse_arch)]
    pub arch: Option<ArchKind>,
}

impl DenseGemmArgs {
    /// The kernel spec these options select (no GPU needed).
    ///
    /// Errors: [`Error::InvalidArgument`](cutlet::Error::InvalidArgument)
    /// naming what the kernel generator cannot build.
    pub fn spec(&self) -> Result<GemmSpec> {
        let mut builder = Gemm::builder()
            .a(self.a_dtype, self.a_major)
            .b(self.b_dtype, self.b_major)
            .d(self.c_dtype, self.c_major)
            .accumulator(self.acc_dtype);
        if let Some(tile) = self.tile_shape_mnk {
            builder = builder.tile(tile);
        }
        if let Some(arch) = self.arch {
            builder = builder.arch(arch);
        }
        builder.spec()
    }

    /// The kernel spec for a run on a GPU of `sm_count` SMs: [`spec`](Self::spec),
    /// except that without `--tile_shape_mnk` the tile is chosen for the
    /// problem ([`sm80_spec_for_problem`]: 256x128 where that takes fewer
    /// waves than 128x256, e.g. for 4095 x 4097).
    ///
    /// Errors: as [`spec`](Self::spec).
    pub fn spec_for_device(&self, sm_count: u32) -> Result<GemmSpec> {
        let spec = self.spec()?;
        if self.tile_shape_mnk.is_some() || spec.arch == ArchKind::Sm70 {
            return Ok(spec);
        }
        let extent = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
        let GemmShape { m, n, l, .. } = self.mnkl;
        sm80_spec_for_problem(
            spec.types.a,
            spec.types.b,
            spec.types.d,
            spec.types.acc,
            spec.majors.a,
            spec.majors.b,
            spec.majors.d,
            extent(m),
            extent(n),
            extent(l),
            sm_count,
        )
        .map(|chosen| GemmSpec {
            arch: spec.arch,
            ..chosen
        })
    }
}

/// `Float16`/`f16`, `BFloat16`/`bf16`, `Float32`/`f32`, `TFloat32`/`tf32`.
///
/// ```
/// use cutlet_harness::parse_dtype;
/// use cutlet::numeric::ElementType;
/// assert_eq!(parse_dtype("BFloat16").unwrap(), ElementType::BF16);
/// assert_eq!(parse_dtype("tf32").unwrap(), ElementType::TF32);
/// assert!(parse_dtype("Int8").unwrap_err().to_string().contains("Float16"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_dtype(text: &str) -> Result<ElementType> {
    match text {
        "Float16" | "f16" => Ok(ElementType::F16),
        "BFloat16" | "bf16" => Ok(ElementType::BF16),
        "Float32" | "f32" => Ok(ElementType::F32),
        "TFloat32" | "tf32" => Ok(ElementType::TF32),
        other => Err(Error::invalid_argument(
            "element type",
            format!("`{other}`"),
            "Float16, BFloat16, Float32, TFloat32 (or f16, bf16, f32, tf32)",
        )),
    }
}

/// `M,N,K,L`.
///
/// ```
/// use cutlet_harness::parse_mnkl;
/// assert_eq!(parse_mnkl("4095,4097,4093,1").unwrap().k, 4093);
/// assert!(parse_mnkl("1,2,3").unwrap_err().to_string().contains("M,N,K,L"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text when it is not four
/// non-negative integers separated by commas.
pub fn parse_mnkl(text: &str) -> Result<GemmShape> {
    let values = parse_list(text, 4, "M,N,K,L")?;
    Ok(GemmShape::new(values[0], values[1], values[2], values[3]))
}

fn parse_tile(text: &str) -> Result<[u32; 3]> {
    let values = parse_list(text, 3, "BM,BN,BK")?;
    let mut tile = [0u32; 3];
    for (slot, value) in tile.iter_mut().zip(values) {
        *slot = u32::try_from(value).map_err(|_| {
            Error::invalid_argument("tile extent", value, "a value that fits in 32 bits")
        })?;
    }
    Ok(tile)
}

fn parse_list(text: &str, count: usize, what: &str) -> Result<Vec<usize>> {
    let invalid = || {
        Error::invalid_argument(
            what,
            format!("`{text}`"),
            format!("{count} non-negative integers separated by commas"),
        )
    };
    let values: Vec<usize> = text
        .split(',')
        .map(|part| part.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| invalid())?;
    if values.len() != count {
        return Err(invalid());
    }
    Ok(values)
}

fn parse_a_major(text: &str) -> Result<OperandMajor> {
    match text {
        "k" => Ok(OperandMajor::K),
        "m" => Ok(OperandMajor::MN),
        other => Err(Error::invalid_argument(
            "a_major",
            format!("`{other}`"),
            "k or m",
        )),
    }
}

fn parse_b_major(text: &str) -> Result<OperandMajor> {
    match text {
        "k" => Ok(OperandMajor::K),
        "n" => Ok(OperandMajor::MN),
        other => Err(Error::invalid_argument(
            "b_major",
            format!("`{other}`"),
            "k or n",
        )),
    }
}

/// `--arch`: sm70, sm80 or sm90 (or sm_70, sm_80, sm_90).
fn parse_arch(text: &str) -> Result<ArchKind> {
    match text.replace('_', "").as_str() {
        "sm70" => Ok(ArchKind::Sm70),
        "sm80" => Ok(ArchKind::Sm80),
        "sm90" => Ok(ArchKind::Sm90),
        _ => Err(Error::invalid_argument(
            "arch",
            format!("`{text}`"),
            "sm70, sm80 or sm90",
        )),
    }
}

fn parse_c_major(text: &str) -> Result<OutputMajor> {
    match text {
        "n" => Ok(OutputMajor::N),
        "m" => Ok(OutputMajor::M),
        other => Err(Error::invalid_argument(
            "c_major",
            format!("`{other}`"),
            "n or m",
        )),
    }
}
