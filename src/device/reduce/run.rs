//! Launching a plan's kernels in order on the caller's stream, with the
//! workspace bound.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtrMut};

use super::ReduceWorkspace;
use crate::device::cache::get_or_load;
use crate::device::device::Device;
use crate::device::launch::{KernelArgs, LaunchConfig};
use crate::kernel::reduce::{Plan, Workspace, BLOCK_THREADS};
use crate::tensor::{TensorArg, TensorArgMut};
use crate::{Error, Result};

/// Launches every kernel of `plan` in order.
pub(super) fn run_plan(
    device: &Device,
    stream: &Arc<CudaStream>,
    plan: &Plan,
    scalars: &[f64],
    input: TensorArg<'_>,
    output: TensorArgMut<'_>,
    workspace: &mut ReduceWorkspace,
) -> Result<()> {
    let (ws, counters) =
        workspace.ensure(stream, plan.workspace as usize, plan.counters as usize)?;
    for launch in &plan.launches {
        let spec = &launch.spec;
        let kernel = get_or_load(device, spec, || spec.kernel_name(), || spec.ptx())?;
        let (ws_base, ws_guard) = ws.device_ptr_mut(stream);
        let (counters_base, counters_guard) = counters.device_ptr_mut(stream);
        let mut args = KernelArgs::new(stream);
        push_buffer(&mut args, launch.source, ws_base, |args| {
            args.read_buffer(input.buffer)
        });
        let out_buffer = &mut *output.buffer;
        match launch.target {
            Workspace::At(offset) => {
                args.scalar(ws_base + offset * 4);
            }
            _ => {
                args.write_buffer(out_buffer);
            }
        }
        args.scalar(ws_base);
        args.scalar(counters_base);
        for value in launch.shape.params {
            args.scalar(value);
        }
        args.scalar(launch.shape.count);
        if spec.map.is_some() {
            for &value in scalars {
                args.scalar(value as f32);
            }
        }
        let config = LaunchConfig {
            grid: (launch.shape.grid.0, launch.shape.grid.1, 1),
            block: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the params are the spec's (`ReduceSpec::param_names`: four
        // pointers, seven u64, one f32; then the map's scalars rounded to
        // f32, whose count `check_map` checked), pushed in that order; the plan's
        // extents and strides come from the checked input view (every element
        // it addresses lies in its buffer) and the checked output vector; the
        // workspace holds `plan.workspace` f32s and `plan.counters` zeroed
        // u32s, which bound every offset and counter the plan uses; the
        // grid's y extent is the `splits` param; the block is the kernel's
        // 256 threads.
        unsafe { kernel.function().launch(&config, args)? };
        drop(counters_guard);
        drop(ws_guard);
    }
    Ok(())
}

/// Pushes a launch's source: the user's input (through `read_input`) or a
/// workspace offset.
fn push_buffer<'a>(
    args: &mut KernelArgs<'a>,
    source: Workspace,
    ws_base: u64,
    read_input: impl FnOnce(&mut KernelArgs<'a>) -> u64,
) {
    match source {
        Workspace::At(offset) => {
            args.scalar(ws_base + offset * 4);
        }
        _ => {
            read_input(args);
        }
    }
}

/// Checks that `output` shares no byte with `input`: the kernels read the
/// input while they write the output (and a split reduction reads it again
/// after a first kernel), so an output inside the input would change what
/// is reduced.
///
/// Errors: [`Error::InvalidArgument`] naming both address ranges.
pub(super) fn check_disjoint(
    stream: &Arc<CudaStream>,
    input: &TensorArg<'_>,
    output: &mut TensorArgMut<'_>,
) -> Result<()> {
    let bytes = |len: Result<usize>, size: u32| -> u64 {
        len.map_or(u64::MAX, |len| len as u64 * u64::from(size))
    };
    let in_bytes = bytes(input.layout.required_len(), input.element().size_bytes());
    let out_bytes = bytes(output.layout.required_len(), output.element().size_bytes());
    // The addresses, read as a launch reads them (the probe's stream
    // ordering is recorded when it drops, before any launch).
    let (in_addr, out_addr) = {
        let mut probe = KernelArgs::new(stream);
        let in_addr = probe.read_buffer(input.buffer);
        let out_addr = probe.write_buffer(output.buffer);
        (in_addr, out_addr)
    };
    let in_end = in_addr.saturating_add(in_bytes);
    let out_end = out_addr.saturating_add(out_bytes);
    if in_bytes == 0 || out_bytes == 0 || in_end <= out_addr || out_end <= in_addr {
        return Ok(());
    }
    Err(Error::invalid_argument(
        "output",
        format!(
            "{out_bytes} bytes at {out_addr:#x}, overlapping the input's {in_bytes} bytes at {in_addr:#x}"
        ),
        "an output that shares no memory with the input (a reduction reads its input while it writes the output)",
    ))
}
