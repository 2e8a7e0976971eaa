//! The host side of the byte [`transpose`](crate::kernel::transpose):
//! the copy of an MN-major 8-bit GEMM operand into a K-major one.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, DeviceRepr};

use super::cache::get_or_load;
use super::device::Device;
use super::launch::{KernelArgs, LaunchConfig};
use crate::arch::ArchKind;
use crate::kernel::transpose::{TransposeSpec, BLOCK_THREADS, TILE};
use crate::{Error, Result};

/// Most blocks along a grid's y dimension (the kernel walks the rest).
const MAX_GRID_Y: usize = 65_535;

/// The transpose of `batches` batches of the `rows x cols` row-major
/// matrix of 1-byte elements in `input` (rows `ld` elements apart, batches
/// `batch_stride` apart) into a new buffer allocated on `stream`: batch
/// `b` is `cols x rows` at `b · cols · out_ld`, rows `out_ld` apart (the
/// bytes past `rows` in each are not written).
///
/// The caller has checked that `input` holds every element read.
///
/// Errors: [`Error::InvalidArgument`] for an element of more than one
/// byte or a dimension beyond 32 bits; driver and JIT errors.
pub(crate) fn transpose_bytes<T: DeviceRepr>(
    device: &Device,
    input: &CudaView<'_, T>,
    [rows, cols]: [usize; 2],
    [ld, batch_stride]: [usize; 2],
    batches: usize,
    out_ld: usize,
    stream: &Arc<CudaStream>,
) -> Result<CudaSlice<T>> {
    if std::mem::size_of::<T>() != 1 {
        return Err(Error::invalid_argument(
            "transpose element size",
            std::mem::size_of::<T>(),
            "1 byte (an 8-bit GEMM operand)",
        ));
    }
    let dims = |name: &str, value: usize| {
        u32::try_from(value)
            .map_err(|_| Error::invalid_argument(name.to_string(), value, "at most 2^32 - 1"))
    };
    let (rows_u32, cols_u32) = (dims("transpose rows", rows)?, dims("transpose cols", cols)?);
    let len = batches * cols * out_ld;
    // SAFETY: `len` elements of a plain byte type; the kernel writes every
    // element the GEMM reads (each row's first `rows`), and the padding
    // past them is never read.
    let mut output = unsafe { stream.alloc::<T>(len.max(1)) }
        .map_err(|e| Error::driver("allocating the K-major copy of an 8-bit operand", e))?;
    if rows == 0 || cols == 0 || batches == 0 {
        return Ok(output);
    }
    let spec = TransposeSpec {
        arch: device_arch(device),
    };
    let kernel = get_or_load(device, &spec, || spec.kernel_name(), || Ok(spec.ptx()?))?;
    let tile = TILE as usize;
    let config = LaunchConfig {
        grid: (
            dims("transpose column blocks", cols.div_ceil(tile))?,
            rows.div_ceil(tile).min(MAX_GRID_Y) as u32,
            dims("transpose batches", batches)?,
        ),
        block: (BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = KernelArgs::new(stream);
    args.input(input)
        .output(&mut output)
        .scalar(rows_u32)
        .scalar(cols_u32)
        .scalar(ld as u64)
        .scalar(batch_stride as u64)
        .scalar(out_ld as u64)
        .scalar((cols * out_ld) as u64);
    // SAFETY: the params are (input, output: u64, rows, cols: u32, ld,
    // in_batch, out_ld, out_batch: u64) in that order; the caller checked
    // that `input` holds `batches` batches of `rows` rows of `cols` bytes
    // at `ld` and `batch_stride`; `output` holds `batches · cols · out_ld`
    // bytes with `out_ld >= rows`; the block is the kernel's BLOCK_THREADS.
    unsafe { kernel.function().launch(&config, args) }?;
    Ok(output)
}

/// The architecture the transpose is generated for: the device's best.
fn device_arch(device: &Device) -> ArchKind {
    match device.compute_capability() {
        (major, _) if major >= 9 => ArchKind::Sm90,
        (8, _) => ArchKind::Sm80,
        _ => ArchKind::Sm70,
    }
}
