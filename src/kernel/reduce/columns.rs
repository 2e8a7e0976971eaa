//! The `Columns` kernel: a CTA of 32 column strips by 8 row groups reduces
//! one tile of `32 * vector * reps` columns over one split of the rows; when
//! the rows are split, the last CTA of a tile to finish combines the splits
//! (see [`super::finish`]).
//!
//! Shifted (unaligned rows read as aligned 16-byte vectors): a tile is 31
//! strips of `vector` columns. Thread (strip `s`, group `g`) has first
//! column `col0 = tile + s * vector` and walks rows `g, g + 8, ...` of its
//! split. The address of `col0` is `m` elements past a 16-byte boundary,
//! the same `m` for every lane and for every row the thread visits (8 rows
//! are `8 * row_stride * size` bytes apart, a multiple of 16). It loads
//! the aligned vector at `addr - m`, so element `j` is column
//! `col0 - m + j`: the 32 lanes' vectors cover the columns
//! `[tile - m, tile + 32 * vector - m)`, which hold the tile's
//! `31 * vector`. The sums go to shared memory `m` slots to the left of
//! their columns, which puts every column of the tile in place exactly once
//! per group; the slots outside the tile are ignored, and lane 31 (whose
//! columns are the next tile's) writes no result. Lane 31's vector is also
//! the next tile's lane 0 vector: 16 bytes per row read twice. A tile unless
//! all 32 lanes' first columns are in the tensor takes the scalar path, so
//! every vector holds at least one element of the tensor (16-byte granules,
//! never past its allocation).

use super::emit::{combine, identities, load_elements, map_element, size_shift, tree, Ctx};
use super::finish::{last_cta, Counter};
use super::tile::{column_offset, store_total, Tile, GROUPS};
use super::{ReduceLayout, ReduceSpec};
use crate::ptx::{Kernel, RegClass, SpecialReg};
use crate::Result;

/// Column strips (threads along the columns) per CTA.
const STRIPS: u32 = 32;
/// CTAs per SM the register allocation must allow.
const MIN_CTAS_PER_SM: u32 = 3;
/// Most accumulators per thread (more make ptxas spill on sm_70 for 8
/// columns of bf16).
const MAX_ACCUMULATORS: usize = 8;

/// Generates the `Columns` kernel of `spec`: each thread loads `reps`
/// strips of `vector` adjacent columns (the strips `32 * vector` columns
/// apart, so every warp-wide load is contiguous) from `rows` rows in flight
/// (shifted: from the aligned vectors, see the module doc).
pub(super) fn kernel(spec: &ReduceSpec) -> Result<Kernel> {
    let (vector, reps, rows, shifted) = match spec.layout {
        ReduceLayout::Columns {
            vector,
            reps,
            rows,
            shifted,
            ..
        } => (vector, reps, rows, shifted),
        ReduceLayout::Rows { .. } => (1, 1, 1, false),
    };
    let hint = spec.load_hint();
    let (mut k, p, scalars) = spec.start_kernel()?;
    // Registers for 3 CTAs per SM (at most 80) for up to 4 columns per
    // thread: left to itself, ptxas 12.9 sometimes settles on 48 for these
    // kernels and spills (with 8 columns, the bound itself makes it spill).
    // Shifted 8-column kernels: ptxas 12.9 also settles on 40 to 48 for
    // some (mean, or with a map) and spills, and spills at a bound of 64
    // (4 CTAs per SM): bound them at 2 CTAs per SM (they take about 80).
    if vector * reps <= 4 {
        k.min_blocks_per_sm(MIN_CTAS_PER_SM);
    } else if shifted {
        k.min_blocks_per_sm(2);
    }
    let cx = Ctx { spec, scalars };
    let (input, output, partials, counters) = (p[0], p[1], p[2], p[3]);
    let (cols, len, row_stride, splits) = (p[4], p[5], p[6], p[7]);
    let (chunk, out_stride, out_split_stride, count) = (p[8], p[9], p[10], p[11]);
    let shift = size_shift(spec.input);
    let strip_cols = STRIPS * vector;
    // Shifted: lane 31's columns belong to the next tile (its vector holds
    // the last up to `vector - 1` columns of this one).
    let tile_cols = if shifted {
        (STRIPS - 1) * vector
    } else {
        strip_cols * reps
    };
    let (v, r) = (vector as usize, reps as usize);
    let width = v * r;
    let element = spec.input.size_bytes();
    let tid32 = k.special(SpecialReg::TidX);
    let strip32 = k.reg(RegClass::B32);
    k.push(format!("and.b32 {strip32}, {tid32}, {};", STRIPS - 1));
    let group32 = k.reg(RegClass::B32);
    k.push(format!(
        "shr.u32 {group32}, {tid32}, {};",
        STRIPS.trailing_zeros()
    ));
    let layout = Tile {
        strip32,
        group32,
        vector,
        strip_cols,
        width,
        pad: if shifted { vector } else { 0 },
    };
    // (GROUPS, pad + tile_cols + pad) f32
    let smem = k.shared_static("group_partials", 16, layout.bytes())?;
    let flag = k.shared_static("last_flag", 4, 4)?;
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
    k.push(format!("div.u64 {tiles}, {tiles}, {tile_cols};"));
    // `foreign`: the thread's columns are another tile's (shifted lane 31).
    let foreign = k.reg(RegClass::Pred);
    let lane_limit = if shifted { STRIPS - 1 } else { STRIPS };
    k.push(format!("setp.ge.u32 {foreign}, {strip32}, {lane_limit};"));
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
    k.push(format!("mul.lo.u64 {col0}, {tile}, {tile_cols};"));
    k.push(format!("mad.lo.u64 {col0}, {strip}, {vector}, {col0};"));
    k.push(format!("mul.lo.u64 {start}, {split}, {chunk};"));
    k.push(format!("add.u64 {end}, {start}, {chunk};"));
    k.push(format!("min.u64 {end}, {end}, {len};"));
    k.push(format!("add.u64 {row}, {start}, {group};"));
    // addr = input + (row * row_stride + col0) * size
    k.push(format!("mad.lo.u64 {addr}, {row}, {row_stride}, {col0};"));
    k.push(format!("shl.b64 {addr}, {addr}, {shift};"));
    k.push(format!("add.u64 {addr}, {addr}, {input};"));
    // accs[(u % sets) * width + m * v + j]: row slot u, strip m, column j.
    let unroll = rows.max(1) as usize;
    let sets = unroll.min(MAX_ACCUMULATORS / width).max(1);
    let accs = identities(&mut k, spec.op, sets * width);
    // Shifted: `moved` is the shift m (0 on the scalar path).
    let moved = k.reg(RegClass::B32);
    k.push(format!("mov.u32 {moved}, 0;"));
    if shifted {
        // The whole tile takes one path: the scalar one unless all 32
        // lanes' first columns are in the tensor.
        k.push(format!("mul.lo.u64 {last}, {tile}, {tile_cols};"));
        k.push(format!("add.u64 {last}, {last}, {strip_cols};"));
    } else {
        // The thread's last column is col0 + (reps - 1) * strip_cols + vector - 1.
        k.push(format!(
            "add.u64 {last}, {col0}, {};",
            (reps - 1) * strip_cols + vector
        ));
    }
    k.push(format!("setp.gt.u64 {p}, {last}, {cols};"));
    k.push(format!("@{p} bra {partial};"));
    if shifted {
        let mis = k.reg(RegClass::B64);
        k.push(format!("and.b64 {mis}, {addr}, 15;"));
        k.push(format!("sub.u64 {addr}, {addr}, {mis};"));
        k.push(format!("cvt.u32.u64 {moved}, {mis};"));
        k.push(format!("shr.u32 {moved}, {moved}, {shift};"));
    }

    // Full strips: `unroll` rows in flight, then one at a time.
    let bytes = vector * element;
    let main = k.new_label("rows_main")?;
    let rest = k.new_label("rows_rest")?;
    let at = k.reg(RegClass::B64);
    k.place_label(&main);
    k.push(format!(
        "add.u64 {last}, {row}, {};",
        (unroll as u32 - 1) * GROUPS
    ));
    k.push(format!("setp.ge.u64 {p}, {last}, {end};"));
    k.push(format!("@{p} bra {rest};"));
    let mut batches = Vec::with_capacity(unroll * r);
    for _ in 0..unroll {
        for m in 0..reps {
            let from = if m == 0 {
                addr
            } else {
                k.push(format!(
                    "add.u64 {at}, {addr}, {};",
                    m * strip_cols * element
                ));
                at
            };
            batches.push(load_elements(&mut k, from, bytes, spec.input, None, hint)?);
        }
        k.push(format!("add.u64 {addr}, {addr}, {step};"));
    }
    for (b, batch) in batches.into_iter().enumerate() {
        let (u, m) = (b / r, b % r);
        for (j, x) in batch.into_iter().enumerate() {
            let value = map_element(&mut k, &cx, x)?;
            let acc = accs[(u % sets) * width + m * v + j];
            combine(&mut k, spec.op, acc, acc, value)?;
        }
    }

    k.push(format!("add.u64 {row}, {row}, {};", unroll as u32 * GROUPS));
    k.push(format!("bra {main};"));
    k.place_label(&rest);
    k.push(format!("setp.ge.u64 {p}, {row}, {end};"));
    k.push(format!("@{p} bra {reduce};"));
    for m in 0..reps {
        k.push(format!(
            "add.u64 {at}, {addr}, {};",
            m * strip_cols * element
        ));
        for (j, x) in load_elements(&mut k, at, bytes, spec.input, None, hint)?
            .into_iter()
            .enumerate()
        {
            let value = map_element(&mut k, &cx, x)?;
            let acc = accs[m as usize * v + j];
            combine(&mut k, spec.op, acc, acc, value)?;
        }
    }

    k.push(format!("add.u64 {row}, {row}, {GROUPS};"));
    k.push(format!("add.u64 {addr}, {addr}, {step};"));
    k.push(format!("bra {rest};"));

    // The last, partial tile: column (m, j) only where its offset from col0
    // is below valid = cols - col0 (the predicate is set again per column:
    // 8 live predicates would exceed the hardware's 7 and spill).
    k.place_label(&partial);
    let valid = k.reg(RegClass::B64);
    k.push(format!("min.u64 {valid}, {col0}, {cols};"));
    k.push(format!("sub.u64 {valid}, {cols}, {valid};"));
    let partial_loop = k.new_label("partial_rows")?;
    k.place_label(&partial_loop);
    k.push(format!("setp.ge.u64 {p}, {row}, {end};"));
    k.push(format!("@{p} bra {reduce};"));
    let pj = k.reg(RegClass::Pred);
    for (c, &acc) in accs.iter().enumerate().take(width) {
        let offset = column_offset(c, v, strip_cols);
        k.push(format!("setp.gt.u64 {pj}, {valid}, {offset};"));
        k.push(format!("add.u64 {at}, {addr}, {};", offset * element));
        let x = load_elements(&mut k, at, element, spec.input, Some(pj), hint)?[0];
        let value = map_element(&mut k, &cx, x)?;
        let combined = k.reg(RegClass::F32);
        combine(&mut k, spec.op, combined, acc, value)?;
        k.push(format!("@{pj} mov.f32 {acc}, {combined};"));
    }
    k.push(format!("add.u64 {row}, {row}, {GROUPS};"));
    k.push(format!("add.u64 {addr}, {addr}, {step};"));
    k.push(format!("bra {partial_loop};"));

    // Row slots -> shared (GROUPS, tile_cols) -> group 0 combines the groups.
    k.place_label(&reduce);
    let slots: Vec<_> = (0..width)
        .map(|c| {
            let set: Vec<_> = (0..sets).map(|u| accs[u * width + c]).collect();
            tree(&mut k, spec.op, &set)
        })
        .collect::<Result<_>>()?;
    layout.store_all(&mut k, &smem, &slots, shifted.then_some(moved));
    let finish = k.new_label("finish")?;
    k.push(format!("setp.eq.u64 {p}, {splits}, 1;"));
    k.push(format!("@{p} bra {finish};"));

    // Split: group 0 writes partials[split * split_stride + col] (f32; the
    // stride covers whole tiles, so columns past `cols` land in padding), and
    // the tile's last CTA combines the splits' partials, group g reading
    // splits g, g + 8, ... in order, the groups then combined as a tree.
    let written = k.new_label("written")?;
    let out = k.reg(RegClass::B64);
    k.push(format!("setp.ne.or.u32 {p}, {group32}, 0, {foreign};"));
    k.push(format!("@{p} bra {written};"));
    k.push(format!(
        "mad.lo.u64 {out}, {split}, {out_split_stride}, {col0};"
    ));
    k.push(format!("shl.b64 {out}, {out}, 2;"));
    k.push(format!("add.u64 {out}, {out}, {partials};"));
    for c in 0..width {
        let total = layout.combine_groups(&mut k, spec.op, &smem, c)?;
        let offset = column_offset(c, v, strip_cols) * 4;
        k.push(format!("st.global.f32 [{out}+{offset}], {total};"));
    }
    k.place_label(&written);
    let counter = Counter {
        base: counters,
        index: tile,
        arrivals: splits,
    };
    last_cta(&mut k, &flag, &counter, &next)?;
    let sums = identities(&mut k, spec.op, width);
    let s = k.reg(RegClass::B64);
    let value = k.reg(RegClass::F32);
    let split_loop = k.new_label("split_loop")?;
    let splits_done = k.new_label("splits_done")?;
    k.mov(s, group);
    // at = partials + (s * split_stride + col0) * 4; column c at + offset(c) * 4
    // (`split_stride` covers whole tiles: no column needs a predicate).
    let [at, jump] = [0; 2].map(|_| k.reg(RegClass::B64));
    k.push(format!("mad.lo.u64 {at}, {s}, {out_split_stride}, {col0};"));
    k.push(format!("shl.b64 {at}, {at}, 2;"));
    k.push(format!("add.u64 {at}, {at}, {partials};"));
    k.push(format!(
        "shl.b64 {jump}, {out_split_stride}, {};",
        2 + GROUPS.trailing_zeros()
    ));
    k.place_label(&split_loop);
    k.push(format!("setp.ge.or.u64 {p}, {s}, {splits}, {foreign};"));
    k.push(format!("@{p} bra {splits_done};"));
    for (c, &sum) in sums.iter().enumerate() {
        let offset = column_offset(c, v, strip_cols) * 4;
        k.push(format!("ld.global.cg.f32 {value}, [{at}+{offset}];"));
        combine(&mut k, spec.op, sum, sum, value)?;
    }
    k.push(format!("add.u64 {at}, {at}, {jump};"));
    k.push(format!("add.u64 {s}, {s}, {GROUPS};"));
    k.push(format!("bra {split_loop};"));
    k.place_label(&splits_done);
    layout.store_all(&mut k, &smem, &sums, None);

    // Group 0 combines the groups' values in shared memory and stores the
    // results.
    k.place_label(&finish);
    k.push(format!("setp.ne.or.u32 {p}, {group32}, 0, {foreign};"));
    k.push(format!("@{p} bra {next};"));
    for c in 0..width {
        let total = layout.combine_groups(&mut k, spec.op, &smem, c)?;
        store_total(
            &mut k,
            spec,
            &layout,
            c,
            total,
            [col0, cols, out_stride, output, count],
        )?;
    }

    k.place_label(&next);
    k.push("bar.sync 0;");
    k.push(format!("add.u64 {tile}, {tile}, {grid};"));
    k.push(format!("bra {item_loop};"));
    k.place_label(&done);
    Ok(k)
}
