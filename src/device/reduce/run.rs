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
use crate::Result;

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
            input.buffer.push_input(args)
        });
        let out_buffer = &mut *output.buffer;
        match launch.target {
            Workspace::At(offset) => {
                args.scalar(ws_base + offset * 4);
            }
            _ => {
                out_buffer.push_output(&mut args);
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

/// Pushes a launch's source: the user's input (through `push_input`) or a
/// workspace offset.
fn push_buffer<'a>(
    args: &mut KernelArgs<'a>,
    source: Workspace,
    ws_base: u64,
    push_input: impl FnOnce(&mut KernelArgs<'a>) -> u64,
) {
    match source {
        Workspace::At(offset) => {
            args.scalar(ws_base + offset * 4);
        }
        _ => {
            push_input(args);
        }
    }
}
