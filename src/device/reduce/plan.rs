//! Planning one call on the reduction's device: the [`Problem`] the
//! call describes, and the column kernels' residency, which sizes their
//! splits to one wave.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::Reduce;
use crate::device::cache::get_or_load;
use crate::device::launch::KernelArgs;
use crate::kernel::reduce::{plan, Plan, Problem, ReduceLayout, BLOCK_THREADS};
use crate::numeric::ElementType;
use crate::tensor::TensorArg;
use crate::{Error, Result};

impl Reduce {
    pub(super) fn plan(
        &self,
        stream: &Arc<CudaStream>,
        input: &TensorArg<'_>,
        output: ElementType,
        out_stride: usize,
    ) -> Result<Plan> {
        let device = &self.device;
        let Some(arch) = device.arch() else {
            let (major, minor) = device.compute_capability();
            return Err(Error::UnsupportedArch {
                kernel: "reduce".into(),
                required: "compute capability 7.0 or newer".into(),
                ordinal: device.ordinal(),
                major,
                minor,
            });
        };
        let mut probe = KernelArgs::new(stream);
        let address = probe.read_buffer(input.buffer);
        drop(probe);
        let layout = input.layout();
        let [rows, cols] = layout.shape();
        let [row_stride, col_stride] = layout.strides();
        let mut problem = Problem {
            op: self.op,
            input: input.element(),
            output,
            shape: [rows as u64, cols as u64],
            strides: [row_stride as u64, col_stride as u64],
            address,
            out_stride: out_stride as u64,
            dim: self.dim,
            map: self.map.clone(),
            arch,
            sm_count: device.limits().sm_count,
            ctas_per_sm: 8,
            tuning: self.tuning,
        };
        let first = plan(&problem);
        // A column reduction sizes its splits to one wave: ask the compiled
        // first kernel how many of its CTAs fit an SM, and plan again.
        let Some(launch) = first.launches.first() else {
            return Ok(first);
        };
        if !matches!(launch.spec.layout, ReduceLayout::Columns { .. }) {
            return Ok(first);
        }
        let spec = &launch.spec;
        let kernel = get_or_load(device, spec, || spec.kernel_name(), || spec.ptx())?;
        problem.ctas_per_sm = resident_ctas(kernel.function().num_regs());
        if problem.ctas_per_sm == 8 {
            return Ok(first);
        }
        Ok(plan(&problem))
    }
}

/// CTAs of [`BLOCK_THREADS`] threads using `regs` registers each that fit
/// one SM's 64 Ki registers (allocated in units of 8 per thread), at most
/// 8 (2048 threads).
fn resident_ctas(regs: u32) -> u32 {
    let per_cta = regs.max(1).next_multiple_of(8) * BLOCK_THREADS;
    (65536 / per_cta).clamp(1, 8)
}
