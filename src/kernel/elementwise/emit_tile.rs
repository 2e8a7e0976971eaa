//! One tile's compute and stores: the expression at each element, the
//! unpredicated vector path of a full tile and the predicated scalar path
//! of an edge tile.

use super::access::{class_type, storage_class, Loaded};
use super::emit_ctx::{Ctx, TileSet};
use super::spec::ElementwiseSpec;
use crate::fusion::{emit_convert_for, EmitOptions, Value};
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

impl ElementwiseSpec {
    /// Applies the expression to one element's inputs; returns the output in storage form.
    pub(super) fn apply(&self, k: &mut Kernel, inputs: &[Value], scalars: &[Value]) -> Result<Reg> {
        let options = EmitOptions::new(self.compute, self.arch);
        let result = self.expression.emit(k, inputs, scalars, &options)?;
        Ok(emit_convert_for(k, result, self.output.element, self.arch)?.reg)
    }

    /// A full tile's second half: the expression on every loaded group, then
    /// the stores.
    pub(super) fn compute_store(&self, k: &mut Kernel, ctx: &Ctx<'_>, set: &TileSet) -> Result<()> {
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
