//! The `Rows` kernel: lines stride over the grid's x, splits of a line are
//! the grid's y; one CTA reduces one (line, split) work item.

use super::emit::{
    butterfly, combine, identities, load_elements, map_element, size_shift, smem_slot,
    store_result, tree, Ctx,
};
use super::finish::{last_cta, Counter};
use super::{ReduceOp, ReduceSpec, BLOCK_THREADS, UNROLL};
use crate::ptx::{Kernel, Reg, RegClass, SharedVar, SpecialReg};
use crate::Result;

/// Warps per CTA.
const WARPS: u32 = BLOCK_THREADS / 32;

/// Generates the `Rows` kernel of `spec`: 16-byte loads along contiguous
/// lines when `vectorized`, scalar loads at `elem_stride` otherwise.
pub(super) fn kernel(spec: &ReduceSpec, vectorized: bool) -> Result<Kernel> {
    let (mut k, p, scalars) = spec.start_kernel()?;
    let cx = Ctx { spec, scalars };
    let (input, output, partials, counters) = (p[0], p[1], p[2], p[3]);
    let (lines, len, line_stride, elem_stride) = (p[4], p[5], p[6], p[7]);
    let (splits, chunk, out_stride, count) = (p[8], p[9], p[10], p[11]);
    let shift = size_shift(spec.input);
    let out_shift = size_shift(spec.written_type());
    let smem = k.shared_static("warp_partials", 16, WARPS * 4)?;
    let flag = k.shared_static("last_flag", 4, 4)?;

    // Thread coordinates: tid (u64), lane and warp (u32).
    let tid32 = k.special(SpecialReg::TidX);
    let tid = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {tid}, {tid32};"));
    let lane = k.reg(RegClass::B32);
    k.push(format!("and.b32 {lane}, {tid32}, 31;"));
    let warp = k.reg(RegClass::B32);
    k.push(format!("shr.u32 {warp}, {tid32}, 5;"));
    let line = k.reg(RegClass::B64);
    let grid = k.reg(RegClass::B64);
    let ctaid = k.special(SpecialReg::CtaidX);
    k.push(format!("cvt.u64.u32 {line}, {ctaid};"));
    let nctaid = k.special(SpecialReg::NctaidX);
    k.push(format!("cvt.u64.u32 {grid}, {nctaid};"));
    // split = %ctaid.y; lines are strided over %ctaid.x.
    let split = k.reg(RegClass::B64);
    let ctaid_y = k.special(SpecialReg::CtaidY);
    k.push(format!("cvt.u64.u32 {split}, {ctaid_y};"));

    let item_loop = k.new_label("item_loop")?;
    let done = k.new_label("done")?;
    let reduce = k.new_label("reduce")?;
    let next = k.new_label("next_item")?;
    let p = k.reg(RegClass::Pred);
    k.place_label(&item_loop);
    k.push(format!("setp.ge.u64 {p}, {line}, {lines};"));
    k.push(format!("@{p} bra {done};"));

    // The item's line and segment [start, end) of it.
    let [start, end, seg, base] = [0; 4].map(|_| k.reg(RegClass::B64));
    k.push(format!("mul.lo.u64 {start}, {split}, {chunk};"));
    k.push(format!("add.u64 {end}, {start}, {chunk};"));
    k.push(format!("min.u64 {end}, {end}, {len};"));
    k.push(format!("min.u64 {start}, {start}, {end};"));
    k.push(format!("sub.u64 {seg}, {end}, {start};"));
    // base = input + (line * line_stride + start * elem_stride) * size
    k.push(format!("mul.lo.u64 {base}, {start}, {elem_stride};"));
    k.push(format!("mad.lo.u64 {base}, {line}, {line_stride}, {base};"));
    k.push(format!("shl.b64 {base}, {base}, {shift};"));
    k.push(format!("add.u64 {base}, {base}, {input};"));

    let accs = if vectorized {
        vector_body(&mut k, &cx, base, seg, tid, &reduce)?
    } else {
        strided_body(&mut k, &cx, base, seg, tid, elem_stride, &reduce)?
    };

    // Accumulators -> thread -> warp (butterfly) -> CTA (shared memory).
    k.place_label(&reduce);
    let acc = tree(&mut k, spec.op, &accs)?;
    let total = block_total(&mut k, spec.op, acc, (lane, warp), &smem)?;
    let first = k.reg(RegClass::Pred);
    k.push(format!("setp.eq.u32 {first}, {tid32}, 0;"));
    let out = k.reg(RegClass::B64);
    // item = line * splits + split
    k.push(format!("mad.lo.u64 {out}, {line}, {splits}, {split};"));
    let fused = k.new_label("fused")?;
    if spec.finish {
        k.push(format!("setp.ne.u64 {p}, {splits}, 1;"));
        k.push(format!("@{p} bra {fused};"));
    }
    k.push(format!("mul.lo.u64 {out}, {out}, {out_stride};"));
    k.push(format!("shl.b64 {out}, {out}, {out_shift};"));
    k.push(format!("add.u64 {out}, {out}, {output};"));
    store_result(&mut k, spec, total, count, out, Some(first))?;
    if spec.finish {
        // Split: partials[item] = total; the line's last CTA combines
        // partials[line * splits ..][..splits], thread t reading t, t + 256, ...
        k.push(format!("bra {next};"));
        k.place_label(&fused);
        k.push(format!("shl.b64 {out}, {out}, 2;"));
        k.push(format!("add.u64 {out}, {out}, {partials};"));
        k.push(format!("@{first} st.global.f32 [{out}], {total};"));
        let counter = Counter {
            base: counters,
            index: line,
            arrivals: splits,
        };
        last_cta(&mut k, &flag, &counter, &next)?;
        let sum = identities(&mut k, spec.op, 1)[0];
        let [i, at] = [0; 2].map(|_| k.reg(RegClass::B64));
        let value = k.reg(RegClass::F32);
        let split_loop = k.new_label("split_loop")?;
        let splits_done = k.new_label("splits_done")?;
        k.mov(i, tid);
        k.place_label(&split_loop);
        k.push(format!("setp.ge.u64 {p}, {i}, {splits};"));
        k.push(format!("@{p} bra {splits_done};"));
        k.push(format!("mad.lo.u64 {at}, {line}, {splits}, {i};"));
        k.push(format!("shl.b64 {at}, {at}, 2;"));
        k.push(format!("add.u64 {at}, {at}, {partials};"));
        k.push(format!("ld.global.cg.f32 {value}, [{at}];"));
        combine(&mut k, spec.op, sum, sum, value)?;
        k.push(format!("add.u64 {i}, {i}, {};", BLOCK_THREADS));
        k.push(format!("bra {split_loop};"));
        k.place_label(&splits_done);
        let total = block_total(&mut k, spec.op, sum, (lane, warp), &smem)?;
        k.push(format!("mul.lo.u64 {out}, {line}, {out_stride};"));
        k.push(format!("shl.b64 {out}, {out}, {out_shift};"));
        k.push(format!("add.u64 {out}, {out}, {output};"));
        store_result(&mut k, spec, total, count, out, Some(first))?;
    }
    k.place_label(&next);
    k.push("bar.sync 0;");
    k.push(format!("add.u64 {line}, {line}, {grid};"));
    k.push(format!("bra {item_loop};"));
    k.place_label(&done);
    Ok(k)
}

/// The CTA-wide combination of every thread's `acc`: a warp butterfly,
/// the warps' results through shared memory, a butterfly over them. Every
/// thread gets the total; the CTA synchronizes twice (so `smem` is free
/// again afterwards).
fn block_total(
    k: &mut Kernel,
    op: ReduceOp,
    acc: Reg,
    (lane, warp): (Reg, Reg),
    smem: &SharedVar,
) -> Result<Reg> {
    butterfly(k, op, acc, 32)?;
    let p = k.reg(RegClass::Pred);
    let slot = smem_slot(k, smem, warp);
    k.push(format!("setp.eq.u32 {p}, {lane}, 0;"));
    k.push(format!("@{p} st.shared.f32 [{slot}], {acc};"));
    k.push("bar.sync 0;");
    let total = identities(k, op, 1)[0];
    k.push(format!("setp.lt.u32 {p}, {lane}, {WARPS};"));
    let lane_slot = smem_slot(k, smem, lane);
    k.push(format!("@{p} ld.shared.f32 {total}, [{lane_slot}];"));
    butterfly(k, op, total, WARPS)?;
    k.push("bar.sync 0;");
    Ok(total)
}

/// Loads one scalar at `base + index * size` and combines it into `acc`.
fn scalar_step(k: &mut Kernel, cx: &Ctx<'_>, base: Reg, index: Reg, acc: Reg) -> Result<()> {
    let spec = cx.spec;
    let addr = k.reg(RegClass::B64);
    k.push(format!(
        "shl.b64 {addr}, {index}, {};",
        size_shift(spec.input)
    ));
    k.push(format!("add.u64 {addr}, {addr}, {base};"));
    let x = load_elements(k, addr, spec.input.size_bytes(), spec.input, None, "")?[0];
    let value = map_element(k, cx, x)?;
    combine(k, spec.op, acc, acc, value)
}

/// A contiguous segment: scalar head up to 16-byte alignment, 16-byte
/// vectors (four in flight, then one at a time), scalar tail. Returns the
/// accumulators (one per element of a vector).
fn vector_body(
    k: &mut Kernel,
    cx: &Ctx<'_>,
    base: Reg,
    seg: Reg,
    tid: Reg,
    reduce: &crate::ptx::Label,
) -> Result<Vec<Reg>> {
    let spec = cx.spec;
    let shift = size_shift(spec.input);
    let per_vector = 16 / spec.input.size_bytes();
    let accs = identities(k, spec.op, per_vector as usize);
    let block = u64::from(BLOCK_THREADS);
    let p = k.reg(RegClass::Pred);

    // head = min(seg, elements before the first 16-byte boundary)
    let head = k.reg(RegClass::B64);
    k.push(format!("and.b64 {head}, {base}, 15;"));
    k.push(format!("sub.u64 {head}, 16, {head};"));
    k.push(format!("and.b64 {head}, {head}, 15;"));
    k.push(format!("shr.u64 {head}, {head}, {shift};"));
    k.push(format!("min.u64 {head}, {head}, {seg};"));
    let after_head = k.new_label("after_head")?;
    k.push(format!("setp.ge.u64 {p}, {tid}, {head};"));
    k.push(format!("@{p} bra {after_head};"));
    scalar_step(k, cx, base, tid, accs[0])?;
    k.place_label(&after_head);

    // vectors: nvec = (seg - head) / per_vector, starting at base + head * size
    let [vbase, nvec, i, addr] = [0; 4].map(|_| k.reg(RegClass::B64));
    k.push(format!("shl.b64 {vbase}, {head}, {shift};"));
    k.push(format!("add.u64 {vbase}, {vbase}, {base};"));
    k.push(format!("sub.u64 {nvec}, {seg}, {head};"));
    k.push(format!(
        "shr.u64 {nvec}, {nvec}, {};",
        per_vector.trailing_zeros()
    ));
    k.mov(i, tid);
    let main = k.new_label("vector_main")?;
    let rest = k.new_label("vector_rest")?;
    let tail = k.new_label("tail")?;
    let last = k.reg(RegClass::B64);
    k.place_label(&main);
    k.push(format!(
        "add.u64 {last}, {i}, {};",
        (UNROLL as u64 - 1) * block
    ));
    k.push(format!("setp.ge.u64 {p}, {last}, {nvec};"));
    k.push(format!("@{p} bra {rest};"));
    k.push(format!("shl.b64 {addr}, {i}, 4;"));
    k.push(format!("add.u64 {addr}, {addr}, {vbase};"));
    let mut batches = Vec::with_capacity(UNROLL);
    for u in 0..UNROLL {
        let at = k.reg(RegClass::B64);
        k.push(format!("add.u64 {at}, {addr}, {};", u as u64 * block * 16));
        batches.push(load_elements(k, at, 16, spec.input, None, "")?);
    }
    for batch in batches {
        for (x, &acc) in batch.into_iter().zip(&accs) {
            let value = map_element(k, cx, x)?;
            combine(k, spec.op, acc, acc, value)?;
        }
    }
    k.push(format!("add.u64 {i}, {i}, {};", UNROLL as u64 * block));
    k.push(format!("bra {main};"));
    k.place_label(&rest);
    k.push(format!("setp.ge.u64 {p}, {i}, {nvec};"));
    k.push(format!("@{p} bra {tail};"));
    k.push(format!("shl.b64 {addr}, {i}, 4;"));
    k.push(format!("add.u64 {addr}, {addr}, {vbase};"));
    for (x, &acc) in load_elements(k, addr, 16, spec.input, None, "")?
        .into_iter()
        .zip(&accs)
    {
        let value = map_element(k, cx, x)?;
        combine(k, spec.op, acc, acc, value)?;
    }
    k.push(format!("add.u64 {i}, {i}, {block};"));
    k.push(format!("bra {rest};"));

    // tail: element head + nvec * per_vector + tid, if below seg
    k.place_label(&tail);
    let j = k.reg(RegClass::B64);
    k.push(format!(
        "shl.b64 {j}, {nvec}, {};",
        per_vector.trailing_zeros()
    ));
    k.push(format!("add.u64 {j}, {j}, {head};"));
    k.push(format!("add.u64 {j}, {j}, {tid};"));
    k.push(format!("setp.ge.u64 {p}, {j}, {seg};"));
    k.push(format!("@{p} bra {reduce};"));
    scalar_step(k, cx, base, j, accs[0])?;
    Ok(accs)
}

/// A strided segment: scalar loads `elem_stride` elements apart, four in
/// flight. Returns the accumulators (one per load in flight).
fn strided_body(
    k: &mut Kernel,
    cx: &Ctx<'_>,
    base: Reg,
    seg: Reg,
    tid: Reg,
    elem_stride: Reg,
    reduce: &crate::ptx::Label,
) -> Result<Vec<Reg>> {
    let spec = cx.spec;
    let shift = size_shift(spec.input);
    let accs = identities(k, spec.op, UNROLL);
    let block = u64::from(BLOCK_THREADS);
    let p = k.reg(RegClass::Pred);
    let [step, block_step, i, addr, last] = [0; 5].map(|_| k.reg(RegClass::B64));
    k.push(format!("shl.b64 {step}, {elem_stride}, {shift};"));
    k.push(format!("mul.lo.u64 {block_step}, {step}, {block};"));
    k.mov(i, tid);
    let main = k.new_label("strided_main")?;
    let rest = k.new_label("strided_rest")?;
    k.place_label(&main);
    k.push(format!(
        "add.u64 {last}, {i}, {};",
        (UNROLL as u64 - 1) * block
    ));
    k.push(format!("setp.ge.u64 {p}, {last}, {seg};"));
    k.push(format!("@{p} bra {rest};"));
    k.push(format!("mad.lo.u64 {addr}, {i}, {step}, {base};"));
    let mut loaded = Vec::with_capacity(UNROLL);
    for _ in 0..UNROLL {
        loaded.push(load_elements(k, addr, spec.input.size_bytes(), spec.input, None, "")?[0]);
        k.push(format!("add.u64 {addr}, {addr}, {block_step};"));
    }
    for (x, &acc) in loaded.into_iter().zip(&accs) {
        let value = map_element(k, cx, x)?;
        combine(k, spec.op, acc, acc, value)?;
    }
    k.push(format!("add.u64 {i}, {i}, {};", UNROLL as u64 * block));
    k.push(format!("bra {main};"));
    k.place_label(&rest);
    k.push(format!("setp.ge.u64 {p}, {i}, {seg};"));
    k.push(format!("@{p} bra {reduce};"));
    k.push(format!("mad.lo.u64 {addr}, {i}, {step}, {base};"));
    let x = load_elements(k, addr, spec.input.size_bytes(), spec.input, None, "")?[0];
    let value = map_element(k, cx, x)?;
    combine(k, spec.op, accs[0], accs[0], value)?;
    k.push(format!("add.u64 {i}, {i}, {block};"));
    k.push(format!("bra {rest};"));
    Ok(accs)
}
