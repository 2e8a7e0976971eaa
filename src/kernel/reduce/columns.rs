//! The `Columns` kernel: a CTA of 32 column strips by 8 row groups reduces
//! one tile of `32 * vector` columns over one split of the rows.

use super::emit::{
    combine, identities, load_elements, map_element, size_shift, smem_slot, store_result, tree, Ctx,
};
use super::{ReduceSpec, BLOCK_THREADS, UNROLL};

/// Bytes each thread keeps in flight in the main loop: 64 (four 16-byte
/// strips, or more rows of narrower strips, up to 16 rows).
const BYTES_IN_FLIGHT: u32 = 64;
use crate::ptx::{Kernel, RegClass, SpecialReg};
use crate::Result;

/// Column strips (threads along the columns) per CTA.
const STRIPS: u32 = 32;
/// Row groups (threads along the rows) per CTA.
const GROUPS: u32 = BLOCK_THREADS / STRIPS;

/// Generates the `Columns` kernel of `spec` with `vector` columns per thread.
pub(super) fn kernel(spec: &ReduceSpec, vector: u32) -> Result<Kernel> {
    let (mut k, p, scalars) = spec.start_kernel()?;
    let cx = Ctx { spec, scalars };
    let (input, output, cols, len, row_stride) = (p[0], p[1], p[2], p[3], p[4]);
    // p[5] is `splits`, which the launch passes as the grid's y extent.
    let (chunk, out_stride, out_split_stride, count) = (p[6], p[7], p[8], p[9]);
    let shift = size_shift(spec.input);
    let out_shift = size_shift(spec.written_type());
    let tile_cols = STRIPS * vector;
    let v = vector as usize;
    // (GROUPS, tile_cols) f32
    let smem = k.shared_static("group_partials", 16, GROUPS * tile_cols * 4)?;

    let tid32 = k.special(SpecialReg::TidX);
    let strip32 = k.reg(RegClass::B32);
    k.push(format!("and.b32 {strip32}, {tid32}, {};", STRIPS - 1));
    let group32 = k.reg(RegClass::B32);
    k.push(format!(
        "shr.u32 {group32}, {tid32}, {};",
        STRIPS.trailing_zeros()
    ));
    let [strip, group, tile, grid, tiles, split] = [0; 6].map(|_| k.reg(RegClass::B64));
    k.push(format!("cvt.u64.u32 {strip}, {strip32};"));
    k.push(format!("cvt.u64.u32 {group}, {group32};"));
    let ctaid = k.special(SpecialReg::CtaidX);
    k.push(format!("cvt.u64.u32 {tile}, {ctaid};"));
    let ctaid_y = k.special(SpecialReg::CtaidY);
    k.push(format!("cvt.u64.u32 {split}, {ctaid_y};"));
    let nctaid = k.special(SpecialReg::NctaidX);
    k.push(format!("cvt.u64.u32 {grid}, {nctaid};"));
    k.push(format!("add.u64 {tiles}, {cols}, {};", tile_cols - 1));
    k.push(format!(
        "shr.u64 {tiles}, {tiles}, {};",
        tile_cols.trailing_zeros()
    ));
    // step = 8 rows in bytes
    let [row_bytes, step] = [0; 2].map(|_| k.reg(RegClass::B64));
    k.push(format!("shl.b64 {row_bytes}, {row_stride}, {shift};"));
    k.push(format!(
        "shl.b64 {step}, {row_bytes}, {};",
        GROUPS.trailing_zeros()
    ));

    let item_loop = k.new_label("item_loop")?;
    let done = k.new_label("done")?;
    let partial = k.new_label("partial_strip")?;
    let reduce = k.new_label("reduce")?;
    let next = k.new_label("next_item")?;
    let p = k.reg(RegClass::Pred);
    k.place_label(&item_loop);
    k.push(format!("setp.ge.u64 {p}, {tile}, {tiles};"));
    k.push(format!("@{p} bra {done};"));

    // split = %ctaid.y, tiles strided over %ctaid.x; rows [start, end); first column col0.
    let [start, end, col0, row, addr, last] = [0; 6].map(|_| k.reg(RegClass::B64));
    k.push(format!(
        "shl.b64 {col0}, {tile}, {};",
        tile_cols.trailing_zeros()
    ));
    k.push(format!("mad.lo.u64 {col0}, {strip}, {vector}, {col0};"));
    k.push(format!("mul.lo.u64 {start}, {split}, {chunk};"));
    k.push(format!("add.u64 {end}, {start}, {chunk};"));
    k.push(format!("min.u64 {end}, {end}, {len};"));
    k.push(format!("add.u64 {row}, {start}, {group};"));
    // addr = input + (row * row_stride + col0) * size
    k.push(format!("mad.lo.u64 {addr}, {row}, {row_stride}, {col0};"));
    k.push(format!("shl.b64 {addr}, {addr}, {shift};"));
    k.push(format!("add.u64 {addr}, {addr}, {input};"));
    // accs[(u % sets) * v + j]: load slot u, column j; at most 8 accumulators
    // (more make ptxas spill on sm_70 for 8 columns of bf16).
    let unroll =
        (BYTES_IN_FLIGHT / (vector * spec.input.size_bytes())).clamp(UNROLL as u32, 16) as usize;
    let sets = unroll.min(8 / v).max(1);
    let accs = identities(&mut k, spec.op, sets * v);
    k.push(format!("add.u64 {last}, {col0}, {vector};"));
    k.push(format!("setp.gt.u64 {p}, {last}, {cols};"));
    k.push(format!("@{p} bra {partial};"));

    // Full strips: four rows in flight, then one at a time.
    let bytes = vector * spec.input.size_bytes();
    let main = k.new_label("rows_main")?;
    let rest = k.new_label("rows_rest")?;
    k.place_label(&main);
    k.push(format!(
        "add.u64 {last}, {row}, {};",
        (unroll as u32 - 1) * GROUPS
    ));
    k.push(format!("setp.ge.u64 {p}, {last}, {end};"));
    k.push(format!("@{p} bra {rest};"));
    let mut batches = Vec::with_capacity(unroll);
    for _ in 0..unroll {
        batches.push(load_elements(&mut k, addr, bytes, spec.input, None)?);
        k.push(format!("add.u64 {addr}, {addr}, {step};"));
    }
    for (u, batch) in batches.into_iter().enumerate() {
        for (j, x) in batch.into_iter().enumerate() {
            let value = map_element(&mut k, &cx, x)?;
            let acc = accs[(u % sets) * v + j];
            combine(&mut k, spec.op, acc, acc, value)?;
        }
    }
    k.push(format!("add.u64 {row}, {row}, {};", unroll as u32 * GROUPS));
    k.push(format!("bra {main};"));
    k.place_label(&rest);
    k.push(format!("setp.ge.u64 {p}, {row}, {end};"));
    k.push(format!("@{p} bra {reduce};"));
    for (j, x) in load_elements(&mut k, addr, bytes, spec.input, None)?
        .into_iter()
        .enumerate()
    {
        let value = map_element(&mut k, &cx, x)?;
        combine(&mut k, spec.op, accs[j], accs[j], value)?;
    }
    k.push(format!("add.u64 {row}, {row}, {GROUPS};"));
    k.push(format!("add.u64 {addr}, {addr}, {step};"));
    k.push(format!("bra {rest};"));

    // The last, partial strip: column j only where j < valid = cols - col0
    // (the predicate is set again per column: 8 live predicates would
    // exceed the hardware's 7 and spill).
    k.place_label(&partial);
    let valid = k.reg(RegClass::B64);
    k.push(format!("min.u64 {valid}, {col0}, {cols};"));
    k.push(format!("sub.u64 {valid}, {cols}, {valid};"));
    let partial_loop = k.new_label("partial_rows")?;
    k.place_label(&partial_loop);
    k.push(format!("setp.ge.u64 {p}, {row}, {end};"));
    k.push(format!("@{p} bra {reduce};"));
    let element = spec.input.size_bytes();
    let pj = k.reg(RegClass::Pred);
    for (j, &acc) in accs.iter().enumerate().take(v) {
        k.push(format!("setp.gt.u64 {pj}, {valid}, {j};"));
        let at = k.reg(RegClass::B64);
        k.push(format!("add.u64 {at}, {addr}, {};", j as u32 * element));
        let x = load_elements(&mut k, at, element, spec.input, Some(pj))?[0];
        let value = map_element(&mut k, &cx, x)?;
        let combined = k.reg(RegClass::F32);
        combine(&mut k, spec.op, combined, acc, value)?;
        k.push(format!("@{pj} mov.f32 {acc}, {combined};"));
    }
    k.push(format!("add.u64 {row}, {row}, {GROUPS};"));
    k.push(format!("add.u64 {addr}, {addr}, {step};"));
    k.push(format!("bra {partial_loop};"));

    // Load slots -> shared (GROUPS, tile_cols) -> group 0 combines the groups.
    k.place_label(&reduce);
    let column = k.reg(RegClass::B32);
    for j in 0..v {
        let slots: Vec<_> = (0..sets).map(|u| accs[u * v + j]).collect();
        let acc = tree(&mut k, spec.op, &slots)?;
        // index = group * tile_cols + strip * vector + j
        k.push(format!("mad.lo.u32 {column}, {strip32}, {vector}, {j};"));
        k.push(format!(
            "mad.lo.u32 {column}, {group32}, {tile_cols}, {column};"
        ));
        let slot = smem_slot(&mut k, &smem, column);
        k.push(format!("st.shared.f32 [{slot}], {acc};"));
    }
    k.push("bar.sync 0;");
    k.push(format!("setp.ne.u32 {p}, {group32}, 0;"));
    k.push(format!("@{p} bra {next};"));
    let [out, col] = [0; 2].map(|_| k.reg(RegClass::B64));
    let store = k.reg(RegClass::Pred);
    for j in 0..v {
        let parts = k.regs(RegClass::F32, GROUPS as usize);
        for (g, &part) in parts.iter().enumerate() {
            k.push(format!(
                "mad.lo.u32 {column}, {strip32}, {vector}, {};",
                g as u32 * tile_cols + j as u32
            ));
            let slot = smem_slot(&mut k, &smem, column);
            k.push(format!("ld.shared.f32 {part}, [{slot}];"));
        }
        let total = tree(&mut k, spec.op, &parts)?;
        // out = output + (split * out_split_stride + (col0 + j) * out_stride) * size
        k.push(format!("add.u64 {col}, {col0}, {j};"));
        k.push(format!("setp.lt.u64 {store}, {col}, {cols};"));
        k.push(format!("mul.lo.u64 {out}, {col}, {out_stride};"));
        k.push(format!(
            "mad.lo.u64 {out}, {split}, {out_split_stride}, {out};"
        ));
        k.push(format!("shl.b64 {out}, {out}, {out_shift};"));
        k.push(format!("add.u64 {out}, {out}, {output};"));
        store_result(&mut k, spec, total, count, out, Some(store))?;
    }
    k.place_label(&next);
    k.push("bar.sync 0;");
    k.push(format!("add.u64 {tile}, {tile}, {grid};"));
    k.push(format!("bra {item_loop};"));
    k.place_label(&done);
    Ok(k)
}
