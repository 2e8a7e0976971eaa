//! PTX generation for [`ElementwiseSpec`]: the tile walk (one tile per
//! block, or a persistent grid-stride loop with two register sets), the
//! unpredicated vector path for full tiles and the predicated scalar path
//! for edge tiles.

use super::access::TensorRegs;
use super::emit_ctx::{Ctx, TileSet};
use super::spec::ElementwiseSpec;
use crate::fusion::Value;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Label, Module, ParamType, Reg, RegClass, SpecialReg};
use crate::Result;

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
}
