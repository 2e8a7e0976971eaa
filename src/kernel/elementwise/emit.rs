//! PTX generation for [`ElementwiseSpec`]: the tile walk, the unpredicated
//! vector path for full tiles and the predicated scalar path for edge tiles.

use super::spec::{Access, ElementwiseSpec, Operand};
use super::tiling::TvPlan;
use crate::fusion::{emit_convert_for, EmitOptions, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Module, ParamType, RegClass, SpecialReg};
use crate::Result;

/// One tensor's registers: its global base address and its two strides.
struct TensorRegs {
    ptr: crate::ptx::Reg,
    row_stride: crate::ptx::Reg,
    col_stride: crate::ptx::Reg,
    op: Operand,
}

/// The register class an element is held in before and after the expression.
fn storage_class(element: ElementType) -> RegClass {
    match element {
        ElementType::F16 | ElementType::BF16 => RegClass::B16,
        ElementType::F32 => RegClass::F32,
        ElementType::F64 => RegClass::F64,
        _ => RegClass::B32,
    }
}

/// The `{a, b, ...}` or `a` operand list of a vector or scalar access.
fn reg_list(regs: &[crate::ptx::Reg]) -> (String, String) {
    let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
    match regs.len() {
        1 => (String::new(), names[0].clone()),
        n => (format!(".v{n}"), format!("{{{}}}", names.join(", "))),
    }
}

impl ElementwiseSpec {
    /// The module's PTX text: one kernel named [`kernel_name`](Self::kernel_name).
    ///
    /// Errors: the tiling's errors (see [`Tiling::plan`](super::Tiling::plan)),
    /// an element type outside [`SUPPORTED_ELEMENTS`](super::SUPPORTED_ELEMENTS),
    /// and the expression's emission errors (e.g. a transcendental in f64).
    pub fn ptx(&self) -> Result<String> {
        let mut module = Module::new(self.arch);
        module.add_kernel(self.kernel()?)?;
        Ok(module.emit()?)
    }

    fn kernel(&self) -> Result<Kernel> {
        for op in std::iter::once(&self.output).chain(&self.inputs) {
            if !super::SUPPORTED_ELEMENTS.contains(&op.element) {
                return Err(crate::Error::invalid_argument(
                    "element type",
                    op.element,
                    "f16, bf16, f32, f64 or i32 (the elementwise kernel's types)",
                ));
            }
        }
        let plan = self.tiling.plan()?;
        let group = plan.vector_group(i64::from(self.vector_elements()));
        let mut k = Kernel::new(&self.kernel_name())?;
        k.max_threads(u32::try_from(plan.threads).unwrap_or(1024), 1, 1);

        let mut tensors = Vec::with_capacity(1 + self.inputs.len());
        let mut declared = Vec::new();
        for (i, op) in std::iter::once(&self.output)
            .chain(&self.inputs)
            .enumerate()
        {
            let name = if i == 0 {
                "out".to_string()
            } else {
                format!("in{}", i - 1)
            };
            declared.push((
                k.param(&format!("{name}_ptr"), ParamType::U64)?,
                k.param(&format!("{name}_row_stride"), ParamType::U64)?,
                k.param(&format!("{name}_col_stride"), ParamType::U64)?,
                *op,
            ));
        }
        let n_param = k.param("n", ParamType::U64)?;
        let len_param = k.param("len", ParamType::U64)?;
        let tiles_n_param = k.param("tiles_n", ParamType::U32)?;
        let scalar_type = if self.compute == ElementType::F64 {
            ParamType::F64
        } else {
            ParamType::F32
        };
        let scalar_params = (0..self.expression.scalar_count())
            .map(|j| k.param(&format!("scalar{j}"), scalar_type))
            .collect::<std::result::Result<Vec<_>, _>>()?;

        for (ptr, row, col, op) in &declared {
            let ptr = k.load_param(ptr)?;
            k.cvta_to_global(ptr, ptr);
            let row_stride = k.load_param(row)?;
            let col_stride = k.load_param(col)?;
            tensors.push(TensorRegs {
                ptr,
                row_stride,
                col_stride,
                op: *op,
            });
        }
        let n = k.load_param(&n_param)?;
        let len = k.load_param(&len_param)?;
        let tiles_n = k.load_param(&tiles_n_param)?;
        let mut scalars = Vec::with_capacity(scalar_params.len());
        for p in &scalar_params {
            scalars.push(Value {
                reg: k.load_param(p)?,
                ty: self.compute,
            });
        }

        // Block remap: block b owns tile (b / tiles_n, b % tiles_n) of the
        // zipped_divide rest mode; (row0, col0) is its first element.
        let bid = k.special(SpecialReg::CtaidX);
        let tid = k.special(SpecialReg::TidX);
        let (bm, bn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("div.u32 {bm}, {bid}, {tiles_n};"));
        k.push(format!("mul.lo.u32 {bn}, {bm}, {tiles_n};"));
        k.push(format!("sub.u32 {bn}, {bid}, {bn};"));
        let (row0, col0) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("mul.wide.u32 {row0}, {bm}, {};", plan.tile_m));
        k.push(format!("mul.wide.u32 {col0}, {bn}, {};", plan.tile_n));

        // The thread mode of the TV layout on %tid.x: tile index of value 0.
        let thread_index = k.reg(RegClass::B32);
        k.push(format!("mov.u32 {thread_index}, 0;"));
        let rest = k.reg(RegClass::B32);
        k.push(format!("mov.u32 {rest}, {tid};"));
        let digit = k.reg(RegClass::B32);
        for (extent, stride) in &plan.thread_modes {
            if *extent == 1 {
                continue;
            }
            k.push(format!("rem.u32 {digit}, {rest}, {extent};"));
            k.push(format!("div.u32 {rest}, {rest}, {extent};"));
            k.push(format!(
                "mad.lo.s32 {thread_index}, {digit}, {stride}, {thread_index};"
            ));
        }

        // Full tile: its last element (row0 + TM - 1, col0 + TN - 1) exists.
        let full = k.reg(RegClass::Pred);
        let last = k.reg(RegClass::B64);
        let end_col = k.reg(RegClass::B64);
        k.push(format!("add.u64 {end_col}, {col0}, {};", plan.tile_n));
        k.push(format!("add.u64 {last}, {row0}, {};", plan.tile_m - 1));
        k.push(format!("mad.lo.u64 {last}, {last}, {n}, {end_col};"));
        k.push(format!("setp.le.u64 {full}, {end_col}, {n};"));
        k.push(format!("setp.le.and.u64 {full}, {last}, {len}, {full};"));
        let edge = k.new_label("edge_tile")?;
        let exit = k.new_label("exit")?;
        k.push(format!("@!{full} bra {};", edge.name()));

        let ctx = Ctx {
            plan: &plan,
            tensors: &tensors,
            scalars: &scalars,
            thread_index,
            row0,
            col0,
        };
        self.full_tile(&mut k, &ctx, group)?;
        k.push(format!("bra.uni {};", exit.name()));
        k.place_label(&edge);
        self.edge_tile(&mut k, &ctx, n, len)?;
        k.place_label(&exit);
        k.push("ret;");
        Ok(k)
    }

    /// Applies the expression to one element's inputs; returns the output in storage form.
    fn apply(
        &self,
        k: &mut Kernel,
        inputs: &[Value],
        scalars: &[Value],
    ) -> Result<crate::ptx::Reg> {
        let options = EmitOptions::new(self.compute, self.arch);
        let result = self.expression.emit(k, inputs, scalars, &options)?;
        Ok(emit_convert_for(k, result, self.output.element, self.arch)?.reg)
    }

    /// Full tiles: every access unpredicated; all loads of all value groups
    /// are issued before the first use.
    fn full_tile(&self, k: &mut Kernel, ctx: &Ctx<'_>, group: i64) -> Result<()> {
        let groups = ctx.plan.values / group;
        let mut loaded: Vec<Vec<Vec<crate::ptx::Reg>>> = Vec::new(); // (group, input, element)
        let mut out_addrs = Vec::new();
        for g in 0..groups {
            let (row, col) = ctx.coordinates(k, g * group);
            let mut per_input = Vec::new();
            for (i, t) in ctx.tensors.iter().enumerate() {
                let addr = t.address(k, row, col);
                if i == 0 {
                    out_addrs.push(addr);
                    continue;
                }
                per_input.push(t.load_group(k, addr, col, group)?);
            }
            loaded.push(per_input);
        }
        for (g, per_input) in loaded.iter().enumerate() {
            let mut results = Vec::new();
            for j in 0..usize::try_from(group).unwrap_or(1) {
                let inputs: Vec<Value> = per_input
                    .iter()
                    .zip(&self.inputs)
                    .map(|(regs, op)| Value {
                        reg: regs[j],
                        ty: op.element,
                    })
                    .collect();
                results.push(self.apply(k, &inputs, ctx.scalars)?);
            }
            ctx.tensors[0].store_group(k, out_addrs[g], &results)?;
        }
        Ok(())
    }

    /// Edge tiles: one element at a time, each access predicated on the
    /// identity tensor's coordinate: `col < n && row * n + col < len`.
    fn edge_tile(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        n: crate::ptx::Reg,
        len: crate::ptx::Reg,
    ) -> Result<()> {
        let pred = k.reg(RegClass::Pred);
        let linear = k.reg(RegClass::B64);
        for v in 0..ctx.plan.values {
            let (row, col) = ctx.coordinates(k, v);
            k.push(format!("setp.lt.u64 {pred}, {col}, {n};"));
            k.push(format!("mad.lo.u64 {linear}, {row}, {n}, {col};"));
            k.push(format!("setp.lt.and.u64 {pred}, {linear}, {len}, {pred};"));
            let mut inputs = Vec::new();
            let mut out_addr = None;
            for (i, t) in ctx.tensors.iter().enumerate() {
                let addr = t.general_address(k, row, col);
                if i == 0 {
                    out_addr = Some(addr);
                    continue;
                }
                let reg = k.reg(storage_class(t.op.element));
                let ty = class_type(reg.class());
                k.push(format!("@{pred} ld.global{ty} {reg}, [{addr}];"));
                inputs.push(Value {
                    reg,
                    ty: t.op.element,
                });
            }
            let result = self.apply(k, &inputs, ctx.scalars)?;
            if let Some(addr) = out_addr {
                let ty = class_type(result.class());
                k.push(format!("@{pred} st.global.cs{ty} [{addr}], {result};"));
            }
        }
        Ok(())
    }
}

/// The PTX type suffix that moves a register of `class`.
fn class_type(class: RegClass) -> &'static str {
    match class {
        RegClass::B16 => ".b16",
        RegClass::F32 => ".f32",
        RegClass::F64 => ".f64",
        RegClass::B64 => ".b64",
        _ => ".b32",
    }
}

/// What the two tile paths share.
struct Ctx<'a> {
    plan: &'a TvPlan,
    tensors: &'a [TensorRegs],
    scalars: &'a [Value],
    thread_index: crate::ptx::Reg,
    row0: crate::ptx::Reg,
    col0: crate::ptx::Reg,
}

impl Ctx<'_> {
    /// `(row, col)` (u64) of value `v` of this thread: the TV layout's tile
    /// index split column-major into `(m, n)`, plus the tile's origin.
    fn coordinates(&self, k: &mut Kernel, v: i64) -> (crate::ptx::Reg, crate::ptx::Reg) {
        let offset = self.plan.value_offsets[usize::try_from(v).unwrap_or(0)];
        let idx = k.reg(RegClass::B32);
        let (m, nn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("add.s32 {idx}, {}, {offset};", self.thread_index));
        k.push(format!("rem.u32 {m}, {idx}, {};", self.plan.tile_m));
        k.push(format!("div.u32 {nn}, {idx}, {};", self.plan.tile_m));
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {m};"));
        k.push(format!("add.u64 {row}, {row}, {};", self.row0));
        k.push(format!("cvt.u64.u32 {col}, {nn};"));
        k.push(format!("add.u64 {col}, {col}, {};", self.col0));
        (row, col)
    }
}

impl TensorRegs {
    fn size(&self) -> u32 {
        self.op.element.size_bytes()
    }

    /// Address of `(row, col)` with the column stride the access fixes
    /// (1 contiguous, 0 broadcast) as an immediate.
    fn address(
        &self,
        k: &mut Kernel,
        row: crate::ptx::Reg,
        col: crate::ptx::Reg,
    ) -> crate::ptx::Reg {
        match self.op.access {
            Access::Strided => self.general_address(k, row, col),
            Access::Contiguous { .. } => {
                let addr = k.reg(RegClass::B64);
                k.push(format!(
                    "mad.lo.u64 {addr}, {row}, {}, {col};",
                    self.row_stride
                ));
                k.push(format!(
                    "mad.lo.u64 {addr}, {addr}, {}, {};",
                    self.size(),
                    self.ptr
                ));
                addr
            }
            Access::Broadcast => {
                let addr = k.reg(RegClass::B64);
                k.push(format!("mul.lo.u64 {addr}, {row}, {};", self.row_stride));
                k.push(format!(
                    "mad.lo.u64 {addr}, {addr}, {}, {};",
                    self.size(),
                    self.ptr
                ));
                addr
            }
        }
    }

    /// Address of `(row, col)` with both strides from params.
    fn general_address(
        &self,
        k: &mut Kernel,
        row: crate::ptx::Reg,
        col: crate::ptx::Reg,
    ) -> crate::ptx::Reg {
        let addr = k.reg(RegClass::B64);
        k.push(format!("mul.lo.u64 {addr}, {col}, {};", self.col_stride));
        k.push(format!(
            "mad.lo.u64 {addr}, {row}, {}, {addr};",
            self.row_stride
        ));
        k.push(format!(
            "mad.lo.u64 {addr}, {addr}, {}, {};",
            self.size(),
            self.ptr
        ));
        addr
    }

    /// Loads `group` consecutive elements starting at `addr` (column `col`);
    /// returns one storage register per element.
    fn load_group(
        &self,
        k: &mut Kernel,
        addr: crate::ptx::Reg,
        col: crate::ptx::Reg,
        group: i64,
    ) -> Result<Vec<crate::ptx::Reg>> {
        let cache = if self.op.read_only { ".nc" } else { "" };
        let count = u32::try_from(group).unwrap_or(1);
        match self.op.access {
            Access::Broadcast => {
                let reg = k.reg(storage_class(self.op.element));
                k.push(format!(
                    "ld.global{cache}{} {reg}, [{addr}];",
                    class_type(reg.class())
                ));
                Ok(vec![reg; count as usize])
            }
            Access::Strided => {
                let mut regs = Vec::new();
                let step = k.reg(RegClass::B64);
                k.push(format!(
                    "mul.lo.u64 {step}, {}, {};",
                    self.col_stride,
                    self.size()
                ));
                let a = k.reg(RegClass::B64);
                k.push(format!("mov.b64 {a}, {addr};"));
                for j in 0..count {
                    if j > 0 {
                        k.push(format!("add.u64 {a}, {a}, {step};"));
                    }
                    let reg = k.reg(storage_class(self.op.element));
                    k.push(format!(
                        "ld.global{cache}{} {reg}, [{a}];",
                        class_type(reg.class())
                    ));
                    regs.push(reg);
                }
                let _ = col;
                Ok(regs)
            }
            Access::Contiguous { width } => {
                let width = width.min(count).max(1);
                let mut regs = Vec::new();
                for chunk in 0..count / width {
                    let offset = chunk * width * self.size();
                    regs.extend(self.load_chunk(k, cache, addr, offset, width));
                }
                Ok(regs)
            }
        }
    }

    /// `count` consecutive elements at `[addr + offset]` in one access.
    fn load_chunk(
        &self,
        k: &mut Kernel,
        cache: &str,
        addr: crate::ptx::Reg,
        offset: u32,
        count: u32,
    ) -> Vec<crate::ptx::Reg> {
        let element = self.op.element;
        let bytes = count * element.size_bytes();
        if count == 1 {
            let reg = k.reg(storage_class(element));
            k.push(format!(
                "ld.global{cache}{} {reg}, [{addr}+{offset}];",
                class_type(reg.class())
            ));
            return vec![reg];
        }
        let (word_class, word_bytes) = if element.size_bytes() == 8 {
            (RegClass::B64, 8)
        } else {
            (RegClass::B32, 4)
        };
        let words = k.regs(word_class, (bytes / word_bytes) as usize);
        let (vec, list) = reg_list(&words);
        k.push(format!(
            "ld.global{cache}{vec}{} {list}, [{addr}+{offset}];",
            class_type(word_class)
        ));
        let mut regs = Vec::new();
        for w in words {
            match element.size_bytes() {
                2 => {
                    let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
                    k.push(format!("mov.b32 {{{lo}, {hi}}}, {w};"));
                    regs.extend([lo, hi]);
                }
                _ if storage_class(element) == word_class => regs.push(w),
                size => {
                    let reg = k.reg(storage_class(element));
                    k.push(format!("mov.b{} {reg}, {w};", size * 8));
                    regs.push(reg);
                }
            }
        }
        regs
    }

    /// Stores one group's results (storage registers, consecutive columns).
    fn store_group(
        &self,
        k: &mut Kernel,
        addr: crate::ptx::Reg,
        results: &[crate::ptx::Reg],
    ) -> Result<()> {
        let count = u32::try_from(results.len()).unwrap_or(1);
        match self.op.access {
            Access::Contiguous { width } if width.min(count) > 1 => {
                let width = width.min(count);
                for (chunk, values) in results.chunks(width as usize).enumerate() {
                    let offset = chunk as u32 * width * self.size();
                    self.store_chunk(k, addr, offset, values);
                }
            }
            Access::Contiguous { .. } => {
                for (j, r) in results.iter().enumerate() {
                    let offset = j as u32 * self.size();
                    k.push(format!(
                        "st.global.cs{} [{addr}+{offset}], {r};",
                        class_type(r.class())
                    ));
                }
            }
            Access::Strided | Access::Broadcast => {
                let step = k.reg(RegClass::B64);
                k.push(format!(
                    "mul.lo.u64 {step}, {}, {};",
                    self.col_stride,
                    self.size()
                ));
                let a = k.reg(RegClass::B64);
                k.push(format!("mov.b64 {a}, {addr};"));
                for (j, r) in results.iter().enumerate() {
                    if j > 0 {
                        k.push(format!("add.u64 {a}, {a}, {step};"));
                    }
                    k.push(format!("st.global.cs{} [{a}], {r};", class_type(r.class())));
                }
            }
        }
        Ok(())
    }

    /// Packs consecutive results into words and stores them in one access.
    fn store_chunk(
        &self,
        k: &mut Kernel,
        addr: crate::ptx::Reg,
        offset: u32,
        values: &[crate::ptx::Reg],
    ) {
        let element = self.op.element;
        let (word_class, per_word) = match element.size_bytes() {
            2 => (RegClass::B32, 2),
            8 => (RegClass::B64, 1),
            _ => (RegClass::B32, 1),
        };
        let mut words = Vec::new();
        for pack in values.chunks(per_word) {
            if per_word == 2 {
                let w = k.reg(RegClass::B32);
                k.push(format!("mov.b32 {w}, {{{}, {}}};", pack[0], pack[1]));
                words.push(w);
            } else if pack[0].class() == word_class {
                words.push(pack[0]);
            } else {
                let w = k.reg(word_class);
                k.push(format!(
                    "mov.b{} {w}, {};",
                    element.size_bytes() * 8,
                    pack[0]
                ));
                words.push(w);
            }
        }
        let (vec, list) = reg_list(&words);
        k.push(format!(
            "st.global.cs{vec}{} [{addr}+{offset}], {list};",
            class_type(word_class)
        ));
    }
}
