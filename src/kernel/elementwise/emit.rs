//! PTX generation for [`ElementwiseSpec`]: the tile walk (one tile per
//! block, or a persistent grid-stride loop with two register sets), the
//! unpredicated vector path for full tiles and the predicated scalar path
//! for edge tiles.

use super::access::{class_type, storage_class, Loaded, TensorRegs};
use super::spec::ElementwiseSpec;
use super::tiling::TvPlan;
use crate::fusion::{emit_convert_for, EmitOptions, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Label, Module, ParamType, Reg, RegClass, SpecialReg};
use crate::Result;

/// What every part of the kernel shares.
pub(super) struct Ctx<'a> {
    pub(super) plan: &'a TvPlan,
    pub(super) tensors: &'a [TensorRegs],
    pub(super) scalars: &'a [Value],
    pub(super) thread_index: Reg,
    /// Values per vector group.
    pub(super) group: i64,
    /// `n`, `len`, `tiles_n` and `tiles` (the tile count).
    pub(super) n: Reg,
    pub(super) len: Reg,
    pub(super) tiles_n: Reg,
    pub(super) tiles: Reg,
    pub(super) load_hints: String,
    pub(super) store_hints: &'static str,
    /// Per value, `(dm, dn)` from value 0 when the same for every thread
    /// (then each tensor's group addresses are one base plus offsets).
    pub(super) deltas: Option<Vec<(i64, i64)>>,
    /// This thread's value 0 in the tile, `(m, n)` (u32).
    pub(super) thread_m0: Reg,
    pub(super) thread_n0: Reg,
    /// `Some(tile_n)` when the spec is flat.
    pub(super) flat: Option<i64>,
}

/// One tile's registers: its origin, whether it is full, and the inputs'
/// loaded groups (`(group, input)`).
pub(super) struct TileSet {
    pub(super) row0: Reg,
    pub(super) col0: Reg,
    pub(super) full: Reg,
    pub(super) loaded: Vec<Vec<Loaded>>,
    /// Per tensor (output first), the address of this thread's value 0
    /// (with [`Ctx::deltas`] only).
    pub(super) bases: Vec<Reg>,
}

impl ElementwiseSpec {
    /// The module's PTX text: one kernel named [`kernel_name`](Self::kernel_name).
    ///
    /// Errors: the tiling's errors (see [`Tiling::plan`](super::Tiling::plan)),
    /// an element type outside [`SUPPORTED_ELEMENTS`](super::SUPPORTED_ELEMENTS),
    /// and the expression's emission errors (e.g. a transcendental in f64).
    pub fn ptx(&self) -> Result<String> {
        let mut module = Module::new(self.arch);
        if let Some((major, minor)) = self.schedule.ptx_version(self.arch) {
            module = module.with_ptx_version(major, minor)?;
        }
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
        if self.schedule.min_blocks_per_sm > 0 {
            k.min_blocks_per_sm(self.schedule.min_blocks_per_sm);
        }

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
        let tiles_param = k.param("tiles", ParamType::U32)?;
        let scalar_type = if self.compute == ElementType::F64 {
            ParamType::F64
        } else {
            ParamType::F32
        };
        let scalar_params = (0..self.expression.scalar_count())
            .map(|j| k.param(&format!("scalar{j}"), scalar_type))
            .collect::<std::result::Result<Vec<_>, _>>()?;

        let mut tensors = Vec::with_capacity(declared.len());
        for (ptr, row, col, op) in &declared {
            let ptr = k.load_param(ptr)?;
            k.cvta_to_global(ptr, ptr);
            let row_stride = k.load_param(row)?;
            let col_stride = k.load_param(col)?;
            let (row_bytes, col_bytes) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
            let size = op.element.size_bytes();
            k.push(format!("mul.lo.u64 {row_bytes}, {row_stride}, {size};"));
            k.push(format!("mul.lo.u64 {col_bytes}, {col_stride}, {size};"));
            tensors.push(TensorRegs {
                ptr,
                row_stride,
                col_stride,
                row_bytes,
                col_bytes,
                op: *op,
            });
        }
        let n = k.load_param(&n_param)?;
        let len = k.load_param(&len_param)?;
        let tiles_n = k.load_param(&tiles_n_param)?;
        let tiles = k.load_param(&tiles_param)?;
        let mut scalars = Vec::with_capacity(scalar_params.len());
        for p in &scalar_params {
            scalars.push(Value {
                reg: k.load_param(p)?,
                ty: self.compute,
            });
        }

        // The thread mode of the TV layout on %tid.x: tile index of value 0.
        let tid = k.special(SpecialReg::TidX);
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

        let (thread_m0, thread_n0) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!(
            "add.s32 {thread_n0}, {thread_index}, {};",
            plan.value_offsets[0]
        ));
        k.push(format!(
            "rem.u32 {thread_m0}, {thread_n0}, {};",
            plan.tile_m
        ));
        k.push(format!(
            "div.u32 {thread_n0}, {thread_n0}, {};",
            plan.tile_m
        ));
        let ctx = Ctx {
            deltas: plan.deltas.clone(),
            thread_m0,
            thread_n0,
            flat: self.flat.then_some(plan.tile_n),
            plan: &plan,
            tensors: &tensors,
            scalars: &scalars,
            thread_index,
            group,
            n,
            len,
            tiles_n,
            tiles,
            load_hints: self.schedule.load_qualifiers(self.arch),
            store_hints: self.schedule.store_qualifiers(),
        };
        let tile = k.special(SpecialReg::CtaidX);
        let edge = k.new_label("edge_tile")?;
        let exit = k.new_label("exit")?;
        let a = ctx.tile_set(&mut k);
        if self.schedule.bulk.is_some() {
            self.bulk_walk(&mut k, &ctx, &a, &exit)?;
        } else if self.schedule.persistent == 0 {
            ctx.origin(&mut k, tile, &a, false);
            k.push(format!("@!{} bra {};", a.full, edge.name()));
            ctx.load(&mut k, &a);
            self.compute_store(&mut k, &ctx, &a)?;
            k.push(format!("bra.uni {};", exit.name()));
            k.place_label(&edge);
            self.edge_tile(&mut k, &ctx, &a)?;
        } else {
            self.persistent_walk(&mut k, &ctx, tile, a, (&edge, &exit))?;
        }
        k.place_label(&exit);
        k.push("ret;");
        Ok(k)
    }

    /// The persistent walk: block `b` takes tiles `b, b + G, b + 2G, ...`
    /// (`G` blocks). Full tiles alternate between two register sets so the
    /// next tile's loads are issued before the current tile's stores; a
    /// tile that is not full (or past the end) goes back to the top, which
    /// exits past the end or runs the edge path.
    fn persistent_walk(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        tile: Reg,
        a: TileSet,
        (edge, exit): (&Label, &Label),
    ) -> Result<()> {
        let stride = k.special(SpecialReg::NctaidX);
        let b = ctx.tile_set(k);
        let (top, pipe) = (k.new_label("next_tile")?, k.new_label("pipeline")?);
        let (skip_a, skip_b) = (k.new_label("skip_a")?, k.new_label("skip_b")?);
        let past = k.reg(RegClass::Pred);
        let next = k.reg(RegClass::B32);
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {past}, {tile}, {};", ctx.tiles));
        k.push(format!("@{past} bra {};", exit.name()));
        ctx.origin(k, tile, &a, false);
        k.push(format!("@!{} bra {};", a.full, edge.name()));
        ctx.load(k, &a);
        k.place_label(&pipe);
        for (cur, nxt, skip) in [(&a, &b, &skip_b), (&b, &a, &skip_a)] {
            k.push(format!("add.u32 {next}, {tile}, {stride};"));
            ctx.origin(k, next, nxt, true);
            k.push(format!("@!{} bra {};", nxt.full, skip.name()));
            ctx.load(k, nxt);
            k.place_label(skip);
            self.compute_store(k, ctx, cur)?;
            k.push(format!("mov.u32 {tile}, {next};"));
            if std::ptr::eq(cur, &a) {
                k.push(format!("@!{} bra {};", nxt.full, top.name()));
            } else {
                k.push(format!("@{} bra {};", nxt.full, pipe.name()));
                k.push(format!("bra.uni {};", top.name()));
            }
        }
        k.place_label(edge);
        self.edge_tile(k, ctx, &a)?;
        k.push(format!("add.u32 {tile}, {tile}, {stride};"));
        k.push(format!("bra.uni {};", top.name()));
        Ok(())
    }

    /// Applies the expression to one element's inputs; returns the output in storage form.
    fn apply(&self, k: &mut Kernel, inputs: &[Value], scalars: &[Value]) -> Result<Reg> {
        let options = EmitOptions::new(self.compute, self.arch);
        let result = self.expression.emit(k, inputs, scalars, &options)?;
        Ok(emit_convert_for(k, result, self.output.element, self.arch)?.reg)
    }

    /// A full tile's second half: the expression on every loaded group, then
    /// the stores.
    fn compute_store(&self, k: &mut Kernel, ctx: &Ctx<'_>, set: &TileSet) -> Result<()> {
        for (g, per_input) in set.loaded.iter().enumerate() {
            let results = self.compute_group(k, ctx, per_input)?;
            let addr = ctx.group_address(k, set, 0, g);
            ctx.tensors[0].store_group(k, addr, &results, ctx.store_hints);
        }
        Ok(())
    }

    /// The expression on one loaded group (`per_input[i]`: input `i`'s
    /// registers); returns the group's outputs in storage registers.
    pub(super) fn compute_group(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        per_input: &[Loaded],
    ) -> Result<Vec<Reg>> {
        let elements: Vec<Vec<Reg>> = per_input
            .iter()
            .zip(&ctx.tensors[1..])
            .map(|(l, t)| t.unpack(k, l))
            .collect();
        let mut results = Vec::new();
        for j in 0..usize::try_from(ctx.group).unwrap_or(1) {
            let inputs: Vec<Value> = elements
                .iter()
                .zip(&self.inputs)
                .map(|(regs, op)| Value {
                    reg: regs[j],
                    ty: op.element,
                })
                .collect();
            results.push(self.apply(k, &inputs, ctx.scalars)?);
        }
        Ok(results)
    }

    /// Edge tiles: a loop over the thread's values, one element at a time
    /// (the value mode evaluated on the counter), each access predicated on
    /// the identity tensor's coordinate: `col < n && row * n + col < len`.
    pub(super) fn edge_tile(&self, k: &mut Kernel, ctx: &Ctx<'_>, set: &TileSet) -> Result<()> {
        let (n, len, plan) = (ctx.n, ctx.len, ctx.plan);
        let pred = k.reg(RegClass::Pred);
        let linear = k.reg(RegClass::B64);
        let (v, rest, digit, idx) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let top = k.new_label("edge_value")?;
        k.push(format!("mov.u32 {v}, 0;"));
        k.place_label(&top);
        k.push(format!("mov.u32 {rest}, {v};"));
        k.push(format!("mov.u32 {idx}, {};", ctx.thread_index));
        for (extent, stride) in &plan.value_modes {
            if *extent == 1 {
                continue;
            }
            k.push(format!("rem.u32 {digit}, {rest}, {extent};"));
            k.push(format!("div.u32 {rest}, {rest}, {extent};"));
            k.push(format!("mad.lo.s32 {idx}, {digit}, {stride}, {idx};"));
        }
        let (m, nn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("rem.u32 {m}, {idx}, {};", plan.tile_m));
        k.push(format!("div.u32 {nn}, {idx}, {};", plan.tile_m));
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {m};"));
        k.push(format!("add.u64 {row}, {row}, {};", set.row0));
        k.push(format!("cvt.u64.u32 {col}, {nn};"));
        k.push(format!("add.u64 {col}, {col}, {};", set.col0));
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
            let hints = ctx.store_hints;
            k.push(format!("@{pred} st.global{hints}{ty} [{addr}], {result};"));
        }
        k.push(format!("add.u32 {v}, {v}, 1;"));
        k.push(format!("setp.lt.u32 {pred}, {v}, {};", plan.values));
        k.push(format!("@{pred} bra {};", top.name()));
        Ok(())
    }
}

impl Ctx<'_> {
    /// Fresh registers for one tile.
    pub(super) fn tile_set(&self, k: &mut Kernel) -> TileSet {
        let groups = self.plan.values / self.group;
        let count = u32::try_from(self.group).unwrap_or(1);
        let loaded = (0..groups)
            .map(|_| {
                self.tensors[1..]
                    .iter()
                    .map(|t| t.alloc_group(k, count))
                    .collect()
            })
            .collect();
        let bases = match self.deltas {
            Some(_) => k.regs(RegClass::B64, self.tensors.len()),
            None => Vec::new(),
        };
        TileSet {
            row0: k.reg(RegClass::B64),
            col0: k.reg(RegClass::B64),
            full: k.reg(RegClass::Pred),
            loaded,
            bases,
        }
    }

    /// Block remap of tile `tile` (the zipped_divide rest mode): its origin
    /// `(tile / tiles_n * TM, tile % tiles_n * TN)` and whether its last
    /// element `(row0 + TM - 1, col0 + TN - 1)` exists (and, when
    /// `check_range`, whether `tile < tiles`).
    pub(super) fn origin(&self, k: &mut Kernel, tile: Reg, set: &TileSet, check_range: bool) {
        let (tm, tn) = (self.plan.tile_m, self.plan.tile_n);
        let (bm, bn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("div.u32 {bm}, {tile}, {};", self.tiles_n));
        k.push(format!("mul.lo.u32 {bn}, {bm}, {};", self.tiles_n));
        k.push(format!("sub.u32 {bn}, {tile}, {bn};"));
        k.push(format!("mul.wide.u32 {}, {bm}, {tm};", set.row0));
        k.push(format!("mul.wide.u32 {}, {bn}, {tn};", set.col0));
        let (last, end_col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        let full = set.full;
        k.push(format!("add.u64 {end_col}, {}, {tn};", set.col0));
        k.push(format!("add.u64 {last}, {}, {};", set.row0, tm - 1));
        k.push(format!("mad.lo.u64 {last}, {last}, {}, {end_col};", self.n));
        k.push(format!("setp.le.u64 {full}, {end_col}, {};", self.n));
        k.push(format!(
            "setp.le.and.u64 {full}, {last}, {}, {full};",
            self.len
        ));
        if check_range {
            k.push(format!(
                "setp.lt.and.u32 {full}, {tile}, {}, {full};",
                self.tiles
            ));
        }
        if set.bases.is_empty() {
            return;
        }
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {};", self.thread_m0));
        k.push(format!("add.u64 {row}, {row}, {};", set.row0));
        k.push(format!("cvt.u64.u32 {col}, {};", self.thread_n0));
        k.push(format!("add.u64 {col}, {col}, {};", set.col0));
        for (t, base) in self.tensors.iter().zip(&set.bases) {
            let addr = t.address(k, row, col);
            k.push(format!("mov.b64 {base}, {addr};"));
        }
    }

    /// Address (register and immediate) of group `g` of tensor `t` in `set`'s tile.
    fn group_address(&self, k: &mut Kernel, set: &TileSet, t: usize, g: usize) -> (Reg, i64) {
        let v = g as i64 * self.group;
        let tensor = &self.tensors[t];
        match &self.deltas {
            Some(deltas) => tensor.offset_address(k, set.bases[t], deltas[v as usize], self.flat),
            None => {
                let (row, col) = self.coordinates(k, set, v);
                (tensor.address(k, row, col), 0)
            }
        }
    }

    /// A full tile's first half: every input's groups loaded, unpredicated.
    fn load(&self, k: &mut Kernel, set: &TileSet) {
        for (g, per_input) in set.loaded.iter().enumerate() {
            for (i, dst) in per_input.iter().enumerate() {
                let addr = self.group_address(k, set, i + 1, g);
                self.tensors[i + 1].load_group(k, addr, dst, &self.load_hints);
            }
        }
    }

    /// `(row, col)` (u64) of value `v` of this thread in `set`'s tile: the
    /// TV layout's tile index split column-major into `(m, n)`, plus the
    /// tile's origin.
    fn coordinates(&self, k: &mut Kernel, set: &TileSet, v: i64) -> (Reg, Reg) {
        let offset = self.plan.value_offsets[usize::try_from(v).unwrap_or(0)];
        let idx = k.reg(RegClass::B32);
        let (m, nn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("add.s32 {idx}, {}, {offset};", self.thread_index));
        k.push(format!("rem.u32 {m}, {idx}, {};", self.plan.tile_m));
        k.push(format!("div.u32 {nn}, {idx}, {};", self.plan.tile_m));
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {m};"));
        k.push(format!("add.u64 {row}, {row}, {};", set.row0));
        k.push(format!("cvt.u64.u32 {col}, {nn};"));
        k.push(format!("add.u64 {col}, {col}, {};", set.col0));
        (row, col)
    }
}
