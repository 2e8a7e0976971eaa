//! Assembling a [`ReduceSpec`]'s module: its PTX text, the `.version` it
//! needs, and the kernel's params as every reduction kernel starts.

use super::{columns, rows, ReduceLayout, ReduceSpec, BLOCK_THREADS};
use crate::arch::ArchKind;
use crate::fusion::{Expression, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Module, ParamType, Reg};
use crate::Result;

impl ReduceSpec {
    /// The module's PTX text: one kernel named [`kernel_name`](Self::kernel_name).
    pub fn ptx(&self) -> Result<String> {
        self.check()?;
        let kernel = match self.layout {
            ReduceLayout::Rows { vectorized } => rows::kernel(self, vectorized)?,
            ReduceLayout::Columns { .. } => columns::kernel(self)?,
        };
        let mut module = Module::new(self.arch);
        if let Some((major, minor)) = self.ptx_version() {
            module = module.with_ptx_version(major, minor)?;
        }
        module.add_kernel(kernel)?;
        Ok(module.emit()?)
    }

    /// The `.version` this kernel needs above its arch's own, if any: 7.4
    /// for `.L2::256B` prefetch hints (sm_80 and newer).
    pub fn ptx_version(&self) -> Option<(u32, u32)> {
        let hinted = !self.load_hint().is_empty();
        (hinted && self.arch.ptx_version() < (7, 4)).then_some((7, 4))
    }

    /// The qualifiers the kernel's input loads carry after `ld.global.nc`.
    pub(crate) fn load_hint(&self) -> &'static str {
        match self.layout {
            ReduceLayout::Columns { prefetch: true, .. } if self.arch != ArchKind::Sm70 => {
                ".L2::256B"
            }
            _ => "",
        }
    }

    /// A kernel with the spec's name, block size and params declared; the
    /// params' registers in declaration order (pointers converted to global)
    /// and the map's scalars.
    pub(super) fn start_kernel(&self) -> Result<(Kernel, Vec<Reg>, Vec<Value>)> {
        let mut k = Kernel::new(&self.kernel_name())?;
        k.max_threads(BLOCK_THREADS, 1, 1);
        let names = self.param_names();
        let mut regs = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let ty = if i + 1 == names.len() {
                ParamType::F32
            } else {
                ParamType::U64
            };
            let reg = k.param_value(name, ty)?;
            if i < 4 {
                k.cvta_to_global(reg, reg);
            }
            regs.push(reg);
        }
        let scalar_count = self.map.as_ref().map_or(0, Expression::scalar_count);
        let mut scalars = Vec::with_capacity(scalar_count);
        for i in 0..scalar_count {
            let reg = k.param_value(&format!("scalar{i}"), ParamType::F32)?;
            scalars.push(Value {
                reg,
                ty: ElementType::F32,
            });
        }
        Ok((k, regs, scalars))
    }
}
