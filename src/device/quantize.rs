//! The host side of the [`quantize`](crate::kernel::quantize) kernels:
//! checked, cached, launched.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::cache::get_or_load;
use super::device::Device;
use super::launch::{KernelArgs, LaunchConfig};
use crate::kernel::quantize::{QuantizeScale, QuantizeSpec, QuantizeStage};
use crate::numeric::Element;
use crate::{Error, Result};

/// Quantizes the packed row-major `rows x cols` matrix `input` (bf16, f16
/// or f32) into `output` (`float8::F8E4M3`, `float8::F8E5M2` or `i8`, the
/// same shape) with scales computed from the data, on `stream`, a stream
/// of `device`: per row (`scales[r]` for row `r`), per tensor
/// (`scales[0]`), per 1x128 block (`scales[r * cols / 128 + g]` for the
/// values `128 g .. 128 g + 127` of row `r`) or per 128x128 tile
/// (`scales[(r / 128) * cols / 128 + c / 128]` for element (r, c); the last
/// row of tiles may be short; cols a multiple of 128 for either block),
/// `scale = amax / max` (max 448 for e4m3, 57344 for e5m2,
/// 127 for i8; 1 where the amax is 0) and `output = round(input * (max /
/// amax))` to nearest even, saturating. The scales are what the FP8 GEMM's
/// [`scales`](crate::device::gemm::GemmBuilder::scales) take: per-row
/// scales of A (M x K) and of K-major B (N x K) are its
/// [`RowCol`](crate::kernel::gemm::ScaleGranularity::RowCol) scales.
/// 1x128 and 128x128 block scales are DeepSeek-V3's for activations and
/// weights: of A (M x K) and of K-major B (N x K) they are the GEMM's
/// [`Block`](crate::kernel::gemm::ScaleGranularity::Block) scales.
///
/// Per row the data is read from DRAM once (each row's second read comes
/// from L2), per block once; per tensor twice (the amax, then the conversion), with a word
/// of scratch allocated on `stream` for the amax ([`quantize_with_scale`]
/// takes a given tensor scale and reads once). A NaN in a row or tensor
/// makes its scale NaN; an infinity makes it infinite. An empty matrix
/// writes nothing.
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::{quantize, Device};
/// use cutlet::float8::F8E4M3;
/// use cutlet::kernel::quantize::QuantizeScale;
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (rows, cols) = (4, 32);
/// let x: Vec<half::bf16> = (0..rows * cols).map(|i| half::bf16::from_f32(i as f32 - 60.0)).collect();
/// let x = stream.clone_htod(&x).unwrap();
/// let mut q = stream.alloc_zeros::<F8E4M3>(rows * cols).unwrap();
/// let mut scales = stream.alloc_zeros::<f32>(rows).unwrap();
/// quantize(&device, &x, [rows, cols], &mut q, &mut scales, QuantizeScale::Row, &stream)?;
/// // Row 0 holds -60..=-29: its amax 60 maps to 448.
/// assert_eq!(stream.clone_dtoh(&scales).unwrap()[0], 60.0 / 448.0);
/// # Ok(())
/// # }
/// ```
///
/// Errors: [`Error::InvalidArgument`] naming the value for an input or
/// output type outside those above, `cols` not a multiple of 16, a buffer
/// shorter than the matrix (or than its scales, [`QuantizeScale::scale_count`]) or not
/// aligned (16 bytes for `input`, 8 for a 16-bit input's output, 4 for an
/// f32 input's, 4 for `scales`), a stream of another device, an FP8 output
/// on a GPU other than SM90; [`Error::UnsupportedArch`] below compute
/// capability 7.0; driver and JIT errors with the kernel's name. Nothing is
/// written when a check fails.
pub fn quantize<I, O>(
    device: &Device,
    input: &CudaSlice<I>,
    [rows, cols]: [usize; 2],
    output: &mut CudaSlice<O>,
    scales: &mut CudaSlice<f32>,
    granularity: QuantizeScale,
    stream: &Arc<CudaStream>,
) -> Result<()>
where
    I: Element + DeviceRepr,
    O: Element + DeviceRepr,
{
    let Checked {
        spec,
        elements,
        vectors,
        per_vector,
    } = check::<I, O>(
        device,
        stream,
        [input.len(), output.len()],
        [rows, cols],
        ("scales.len()", scales.len()),
        granularity,
    )?;
    let scale_count = granularity.scale_count([rows, cols]);
    let row_vectors = (cols / per_vector) as u32;
    let out_align = per_vector as u64;
    if elements == 0 {
        // The checks below take the buffers' addresses; nothing to write.
        buffer_args(stream, input, output, scales, out_align)?;
        return Ok(());
    }
    // One block a row (or tile, or step of the vector walk), so that blocks
    // retire and start all through the launch and no block walks a long
    // share alone at the end: measured on an H200 (BENCHMARKS.md, issue 29)
    // against a grid-stride walk of 8 blocks an SM, bf16 rows 79% -> 87% of
    // the DRAM ceiling. The kernels still loop over any grid.
    let max_grid = i32::MAX as usize;
    let block = (QuantizeSpec::BLOCK_THREADS, 1, 1);
    let vector_grid = vector_grid(vectors);
    let load = |stage: QuantizeStage| {
        get_or_load(
            device,
            &(spec, stage),
            || spec.kernel_name(stage),
            || Ok(spec.ptx(stage)?),
        )
    };
    match granularity {
        QuantizeScale::Row => {
            let kernel = load(QuantizeStage::Rows)?;
            let mut args = buffer_args(stream, input, output, scales, out_align)?;
            args.scalar(rows as u32).scalar(row_vectors);
            let grid = (rows.min(max_grid) as u32, 1, 1);
            let config = LaunchConfig {
                grid,
                block,
                shared_mem_bytes: 0,
            };
            // SAFETY: the params are (input, output, scales: u64, rows,
            // vectors: u32) in that order; input and output hold rows x
            // cols elements (checked above) at the alignments checked
            // above, scales holds `rows` f32; rows x cols fits u32 vectors;
            // the block is the spec's BLOCK_THREADS, whose shared slots the
            // kernel declares; output and scales are exclusive borrows.
            unsafe { kernel.function().launch(&config, args) }
        }
        QuantizeScale::Block1x128 => {
            let kernel = load(QuantizeStage::Groups)?;
            let mut args = buffer_args(stream, input, output, scales, out_align)?;
            args.scalar(vectors);
            let config = LaunchConfig {
                grid: vector_grid,
                block,
                shared_mem_bytes: 0,
            };
            // SAFETY: the params are (input, output, scales: u64, vectors:
            // u32); input and output hold `vectors` vectors of the spec's
            // types at the alignments checked above, scales holds one f32
            // per 128 values (cols a multiple of 128, checked above); the
            // block is the spec's BLOCK_THREADS, a multiple of the warp.
            unsafe { kernel.function().launch(&config, args) }
        }
        QuantizeScale::Block128x128 => {
            let kernel = load(QuantizeStage::Tiles)?;
            // One block per tile: a scale each.
            let tiles = scale_count;
            let mut args = buffer_args(stream, input, output, scales, out_align)?;
            args.scalar(rows as u32).scalar(row_vectors);
            let config = LaunchConfig {
                grid: (tiles.min(max_grid) as u32, 1, 1),
                block,
                shared_mem_bytes: 0,
            };
            // SAFETY: the params are (input, output, scales: u64, rows,
            // row_vectors: u32); input and output hold rows x cols elements
            // at the alignments checked above (cols a multiple of 128),
            // scales one f32 per 128 x 128 tile; the block is the spec's
            // BLOCK_THREADS, whose shared slots the kernel declares.
            unsafe { kernel.function().launch(&config, args) }
        }
        QuantizeScale::Tensor => {
            let amax_kernel = load(QuantizeStage::Amax)?;
            let tensor_kernel = load(QuantizeStage::Tensor)?;
            buffer_args(stream, input, output, scales, out_align)?;
            let mut amax = stream
                .alloc_zeros::<u32>(1)
                .map_err(|e| Error::driver("allocating the quantize amax word", e))?;
            let config = LaunchConfig {
                grid: vector_grid,
                block,
                shared_mem_bytes: 0,
            };
            let mut args = KernelArgs::new(stream);
            args.aligned_input("input", input, 16)?
                .output(&mut amax)
                .scalar(vectors);
            // SAFETY: the params are (input, amax: u64, vectors: u32);
            // input holds `vectors` 16-byte vectors (checked above) and is
            // 16-byte aligned; amax is one zeroed u32 this call owns.
            unsafe { amax_kernel.function().launch(&config, args) }?;
            let mut args = buffer_args(stream, input, output, scales, out_align)?;
            args.input(&amax).scalar(vectors);
            // SAFETY: the params are (input, output, scale, amax: u64,
            // vectors: u32); input and output hold `vectors` vectors of the
            // spec's types at the alignments checked above; scales holds at
            // least one f32; amax was written by the launch before, on the
            // same stream.
            unsafe { tensor_kernel.function().launch(&config, args) }
        }
    }
}

/// Quantizes the packed row-major `rows x cols` matrix `input` (bf16, f16
/// or f32) into `output` (`float8::F8E4M3`, `float8::F8E5M2` or `i8`, the
/// same shape) by a tensor scale the caller gives, in one pass over the
/// data, on `stream`: `output = round(input * (1 / scale[0]))` to nearest
/// even, saturating (the reciprocal rounded to nearest), and where `amax`
/// is given, `amax[0]` is overwritten with the input's largest magnitude
/// (NaN where the input holds one). `scale[0]` is the dequantization
/// scale the FP8 GEMM's per-tensor
/// [`scales`](crate::device::gemm::GemmBuilder::scales) take; it should
/// be positive and finite (0 saturates every nonzero value).
///
/// This is delayed scaling, as Transformer Engine's FP8 recipe runs it:
/// the scale comes from the amaxes of earlier steps (for example
/// `amax / 448` of the last one, for e4m3), and this call records the
/// amax the next step's scale needs. [`quantize`] with
/// [`QuantizeScale::Tensor`] computes the scale from this tensor's own
/// amax instead, which takes two passes over the data; this takes one.
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::{quantize_with_scale, Device};
/// use cutlet::float8::F8E4M3;
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (rows, cols) = (4, 32);
/// let x: Vec<half::bf16> = (0..rows * cols).map(|i| half::bf16::from_f32(i as f32 - 60.0)).collect();
/// let x = stream.clone_htod(&x).unwrap();
/// let mut q = stream.alloc_zeros::<F8E4M3>(rows * cols).unwrap();
/// // The scale of an earlier step, whose amax was 56: 56 / 448.
/// let scale = stream.clone_htod(&[56.0f32 / 448.0]).unwrap();
/// let mut amax = stream.alloc_zeros::<f32>(1).unwrap();
/// quantize_with_scale(&device, &x, [rows, cols], &mut q, &scale, Some(&mut amax), &stream)?;
/// // -60 times 448 / 56 saturates to -448; the amax for the next step is 67.
/// assert_eq!(stream.clone_dtoh(&q).unwrap()[0].to_f32(), -448.0);
/// assert_eq!(stream.clone_dtoh(&amax).unwrap()[0], 67.0);
/// # Ok(())
/// # }
/// ```
///
/// Errors: as [`quantize`]'s (types, `cols` a multiple of 16, buffer
/// lengths and alignments: `scale` at least one f32, `amax` at least one,
/// each 4-byte aligned; the stream's device; the architecture). Nothing
/// is written when a check fails.
pub fn quantize_with_scale<I, O>(
    device: &Device,
    input: &CudaSlice<I>,
    [rows, cols]: [usize; 2],
    output: &mut CudaSlice<O>,
    scale: &CudaSlice<f32>,
    amax: Option<&mut CudaSlice<f32>>,
    stream: &Arc<CudaStream>,
) -> Result<()>
where
    I: Element + DeviceRepr,
    O: Element + DeviceRepr,
{
    let Checked {
        spec,
        elements,
        vectors,
        per_vector,
    } = check::<I, O>(
        device,
        stream,
        [input.len(), output.len()],
        [rows, cols],
        ("scale.len()", scale.len()),
        QuantizeScale::Tensor,
    )?;
    if amax.as_ref().is_some_and(|amax| amax.is_empty()) {
        return Err(Error::invalid_argument(
            "amax.len()",
            0,
            "at least 1 (the input's amax is written to amax[0])",
        ));
    }
    let mut amax = amax;
    // The alignment checks, before anything is written.
    scaled_args(
        stream,
        input,
        output,
        scale,
        amax.as_deref_mut(),
        vectors,
        per_vector,
    )?;
    if let Some(amax) = amax.as_deref_mut() {
        // The kernel's blocks take their max with this word.
        stream
            .memset_zeros(&mut amax.slice_mut(0..1))
            .map_err(|e| Error::driver("zeroing the quantize amax", e))?;
    }
    if elements == 0 {
        return Ok(());
    }
    let kernel = get_or_load(
        device,
        &(spec, QuantizeStage::Scaled),
        || spec.kernel_name(QuantizeStage::Scaled),
        || Ok(spec.ptx(QuantizeStage::Scaled)?),
    )?;
    let config = LaunchConfig {
        grid: vector_grid(vectors),
        block: (QuantizeSpec::BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let args = scaled_args(stream, input, output, scale, amax, vectors, per_vector)?;
    // SAFETY: the params are (input, output, scale, amax: u64, vectors:
    // u32); input and output hold `vectors` vectors of the spec's types at
    // the alignments checked above, scale holds at least one f32, amax is
    // 0 or holds at least one f32 (zeroed above, on the same stream); the
    // block is the spec's BLOCK_THREADS, whose shared slots the kernel
    // declares; output and amax are exclusive borrows.
    unsafe { kernel.function().launch(&config, args) }
}

/// The scaled kernel's arguments, each buffer checked at its alignment;
/// an absent `amax` is a null pointer. Dropped unlaunched, they are the
/// checks alone.
fn scaled_args<'a, I, O>(
    stream: &'a Arc<CudaStream>,
    input: &'a CudaSlice<I>,
    output: &'a mut CudaSlice<O>,
    scale: &'a CudaSlice<f32>,
    amax: Option<&'a mut CudaSlice<f32>>,
    vectors: u32,
    per_vector: usize,
) -> Result<KernelArgs<'a>> {
    let mut args = KernelArgs::new(stream);
    args.aligned_input("input", input, 16)?
        .aligned_output("output", output, per_vector as u64)?
        .aligned_input("scale", scale, 4)?;
    match amax {
        Some(amax) => args.aligned_output("amax", amax, 4)?,
        None => args.scalar(0u64),
    };
    args.scalar(vectors);
    Ok(args)
}

/// The grid of the kernels that walk the tensor's vectors: one step of
/// the walk.
fn vector_grid(vectors: u32) -> (u32, u32, u32) {
    let per_block = QuantizeSpec::BLOCK_THREADS * QuantizeSpec::VECTORS_PER_THREAD;
    (vectors.div_ceil(per_block).max(1), 1, 1)
}

/// What [`check`] found: the spec, the matrix's elements, its 16-byte input
/// vectors and the elements in each.
struct Checked {
    spec: QuantizeSpec,
    elements: usize,
    vectors: u32,
    per_vector: usize,
}

/// The checks every quantization makes before it launches: the stream's
/// device, the architecture and types, `cols`, the lengths of input and
/// output (`lens`) and of the scales (named), the size in vectors.
fn check<I: Element, O: Element>(
    device: &Device,
    stream: &Arc<CudaStream>,
    lens: [usize; 2],
    [rows, cols]: [usize; 2],
    (scales_name, scales_len): (&str, usize),
    granularity: QuantizeScale,
) -> Result<Checked> {
    device.check_stream(stream)?;
    let Some(arch) = device.arch() else {
        let (major, minor) = device.compute_capability();
        return Err(Error::UnsupportedArch {
            kernel: "quantize".into(),
            required: "compute capability 7.0 or newer".into(),
            ordinal: device.ordinal(),
            major,
            minor,
        });
    };
    let spec = QuantizeSpec::new(I::TYPE, O::TYPE, granularity, arch)?;
    if cols % 16 != 0 {
        return Err(Error::invalid_argument(
            "cols",
            cols,
            "a multiple of 16 (16-byte rows of 8-bit output, as the GEMM's TMA reads them)",
        ));
    }
    let elements = rows.checked_mul(cols).ok_or_else(|| {
        Error::invalid_argument(
            "rows x cols",
            format!("{rows} x {cols}"),
            "a size that fits usize",
        )
    })?;
    let group = QuantizeSpec::GROUP as usize;
    let blocks = matches!(
        granularity,
        QuantizeScale::Block1x128 | QuantizeScale::Block128x128
    );
    if blocks && cols % group != 0 {
        return Err(Error::invalid_argument(
            "cols",
            cols,
            format!("a multiple of {group} for {granularity:?} scales (whole blocks of {group} values along a row)"),
        ));
    }
    let scale_count = granularity.scale_count([rows, cols]);
    for (name, len, wanted) in [
        ("input.len()", lens[0], elements),
        ("output.len()", lens[1], elements),
        (scales_name, scales_len, scale_count),
    ] {
        if len < wanted {
            return Err(Error::invalid_argument(
                name,
                len,
                format!(
                    "at least {wanted} for a {rows} x {cols} matrix with {granularity:?} scales"
                ),
            ));
        }
    }
    let per_vector = spec.elements_per_vector() as usize;
    let vectors = u32::try_from(elements / per_vector).map_err(|_| {
        Error::invalid_argument(
            "rows x cols",
            elements,
            format!(
                "at most {} elements",
                u64::from(u32::MAX) * per_vector as u64
            ),
        )
    })?;
    Ok(Checked {
        spec,
        elements,
        vectors,
        per_vector,
    })
}

/// The arguments every kernel but the tensor's amax starts with: `input`,
/// `output` and `scales`, each checked at its alignment (16 bytes,
/// `out_align`, 4). Dropped unlaunched, they are the alignment checks alone.
fn buffer_args<'a, I, O>(
    stream: &'a Arc<CudaStream>,
    input: &'a CudaSlice<I>,
    output: &'a mut CudaSlice<O>,
    scales: &'a mut CudaSlice<f32>,
    out_align: u64,
) -> Result<KernelArgs<'a>> {
    let mut args = KernelArgs::new(stream);
    args.aligned_input("input", input, 16)?
        .aligned_output("output", output, out_align)?
        .aligned_output("scales", scales, 4)?;
    Ok(args)
}
