//! The PTX of the quantize kernels: the rows kernel, the tensor's amax
//! kernel and its conversion kernel (see the module's docs for what each
//! does), from the `common/quantize`, `common/reduce`, `sm90/cvt_fp8`
//! snippets.

use super::{QuantizeSpec, QuantizeStage};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, ParamType, PtxError, Reg, RegClass, SpecialReg};

/// Warps in a block of [`QuantizeSpec::BLOCK_THREADS`] threads.
const WARPS: u32 = QuantizeSpec::BLOCK_THREADS / 32;
/// Vectors a thread loads before it uses the first: 4 of 16 bytes, 64
/// bytes in flight a thread (one at a time ran the rows kernel at 73% of
/// an H200's DRAM bandwidth).
const UNROLL: u32 = QuantizeSpec::VECTORS_PER_THREAD;

/// The rows kernel: per row, the amax, the scale and the conversion.
pub(super) fn rows_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Rows))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, output, scales] = global_params(&mut k, ["input", "output", "scales"])?;
    let rows = k.param_value("rows", ParamType::U32)?;
    let vectors = k.param_value("vectors", ParamType::U32)?;
    let slots = k.shared_static("amax_slots", 16, 4 * WARPS)?;
    let slots = k.shared_address(&slots);
    let tid = k.special(SpecialReg::TidX);
    let row = k.special(SpecialReg::CtaidX);
    let blocks = k.special(SpecialReg::NctaidX);
    let (next_row, done) = (k.new_label("row")?, k.new_label("done")?);
    let p = k.reg(RegClass::Pred);
    k.place_label(&next_row);
    k.push(format!("setp.ge.u32 {p}, {row}, {rows};"));
    k.push(format!("@{p} bra {done};"));
    // The row's first vector and its bases in the input and the output.
    let first = k.reg(RegClass::B64);
    k.push(format!("mul.wide.u32 {first}, {row}, {vectors};"));
    let (in_row, out_row) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
    k.push(format!("mad.lo.u64 {in_row}, {first}, 16, {input};"));
    k.push(format!(
        "mad.lo.u64 {out_row}, {first}, {}, {output};",
        spec.elements_per_vector()
    ));
    let amax = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {amax}, 0;"));
    // The row's amax over the block, its scale written by thread 0, and
    // the inverse the conversion multiplies by.
    let row_scale = |k: &mut Kernel| -> Result<Reg, PtxError> {
        block_amax(k, amax, slots, tid)?;
        let (scale, inv) = scale_of(k, spec, amax);
        let (first_thread, at) = (k.reg(RegClass::Pred), k.reg(RegClass::B64));
        k.push(format!("setp.eq.u32 {first_thread}, {tid}, 0;"));
        k.push(format!("mad.wide.u32 {at}, {row}, 4, {scales};"));
        k.push(format!("@{first_thread} st.global.f32 [{at}], {scale};"));
        Ok(inv)
    };
    // A row of at most UNROLL vectors a thread stays in registers between
    // its amax and its conversion: one read. A longer one is read again
    // (from L2, where the first read left it).
    let (long, row_end) = (k.new_label("long_row")?, k.new_label("row_end")?);
    let is_long = k.reg(RegClass::Pred);
    k.push(format!(
        "setp.gt.u32 {is_long}, {vectors}, {};",
        UNROLL * QuantizeSpec::BLOCK_THREADS
    ));
    k.push(format!("@{is_long} bra {long};"));
    let lanes = lanes_from(&mut k, tid, vectors, QuantizeSpec::BLOCK_THREADS);
    let loaded: Vec<[Reg; 4]> = lanes
        .iter()
        .map(|&lane| load_vector(&mut k, in_row, lane))
        .collect();
    for words in &loaded {
        magnitudes(&mut k, spec, words, amax)?;
    }
    let inv = row_scale(&mut k)?;
    for (words, &lane) in loaded.iter().zip(&lanes) {
        convert_and_store(&mut k, spec, words, inv, out_row, lane)?;
    }
    k.push(format!("bra {row_end};"));
    k.place_label(&long);
    strided_loop(
        &mut k,
        "amax",
        tid,
        vectors,
        QuantizeSpec::BLOCK_THREADS,
        |k, lanes| {
            load_all(k, in_row, lanes, |k, words, _| {
                magnitudes(k, spec, words, amax)
            })
        },
    )?;
    let inv = row_scale(&mut k)?;
    strided_loop(
        &mut k,
        "convert",
        tid,
        vectors,
        QuantizeSpec::BLOCK_THREADS,
        |k, lanes| {
            load_all(k, in_row, lanes, |k, words, lane| {
                convert_and_store(k, spec, words, inv, out_row, lane)
            })
        },
    )?;
    k.place_label(&row_end);
    // The slots are written again for the next row.
    k.push("bar.sync 0;");
    k.push(format!("add.u32 {row}, {row}, {blocks};"));
    k.push(format!("bra {next_row};"));
    k.place_label(&done);
    k.push("ret;");
    Ok(k)
}

/// The tensor's amax kernel: a grid-stride amax of every vector, each
/// block's result added with `red.global.max.u32` into the word `amax`.
pub(super) fn amax_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Amax))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, amax_ptr] = global_params(&mut k, ["input", "amax"])?;
    let vectors = k.param_value("vectors", ParamType::U32)?;
    let slots = k.shared_static("amax_slots", 16, 4 * WARPS)?;
    let slots = k.shared_address(&slots);
    let tid = k.special(SpecialReg::TidX);
    let (start, stride) = grid_stride(&mut k, tid);
    let amax = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {amax}, 0;"));
    strided_loop_from(&mut k, "amax", start, vectors, stride, |k, lanes| {
        load_all(k, input, lanes, |k, words, _| {
            magnitudes(k, spec, words, amax)
        })
    })?;
    block_amax(&mut k, amax, slots, tid)?;
    let p = k.reg(RegClass::Pred);
    k.push(format!("setp.eq.u32 {p}, {tid}, 0;"));
    k.push(format!("@{p} red.global.max.u32 [{amax_ptr}], {amax};"));
    k.push("ret;");
    Ok(k)
}

/// The tensor's conversion kernel: the scale from the word `amax` (written
/// to `scale` by thread 0 of block 0), then a grid-stride conversion.
pub(super) fn tensor_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Tensor))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, output, scale_ptr, amax_ptr] =
        global_params(&mut k, ["input", "output", "scale", "amax"])?;
    let vectors = k.param_value("vectors", ParamType::U32)?;
    let tid = k.special(SpecialReg::TidX);
    let (start, stride) = grid_stride_from_the_end(&mut k, tid);
    let amax = k.reg(RegClass::B32);
    k.push(format!("ld.global.u32 {amax}, [{amax_ptr}];"));
    let (scale, inv) = scale_of(&mut k, spec, amax);
    let p = k.reg(RegClass::Pred);
    k.push(format!("setp.eq.u32 {p}, {start}, 0;"));
    k.push(format!("@{p} st.global.f32 [{scale_ptr}], {scale};"));
    strided_loop_from(&mut k, "convert", start, vectors, stride, |k, lanes| {
        load_all(k, input, lanes, |k, words, lane| {
            convert_and_store(k, spec, words, inv, output, lane)
        })
    })?;
    k.push("ret;");
    Ok(k)
}

/// The conversion by a given scale (delayed scaling): `inv = 1 / scale[0]`,
/// then a grid-stride walk that converts every vector times `inv` and
/// keeps the largest magnitude it read; each block adds its amax into the
/// word `amax` with `red.global.max.u32`, unless `amax` is 0. One pass.
pub(super) fn scaled_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Scaled))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, output, scale_ptr] = global_params(&mut k, ["input", "output", "scale"])?;
    // The amax pointer is tested for 0 before its conversion.
    let amax_ptr = k.param_value("amax", ParamType::U64)?;
    let vectors = k.param_value("vectors", ParamType::U32)?;
    let slots = k.shared_static("amax_slots", 16, 4 * WARPS)?;
    let slots = k.shared_address(&slots);
    let tid = k.special(SpecialReg::TidX);
    let (start, stride) = grid_stride(&mut k, tid);
    let (scale, inv) = (k.reg(RegClass::F32), k.reg(RegClass::F32));
    k.push(format!("ld.global.nc.f32 {scale}, [{scale_ptr}];"));
    k.push(format!("div.rn.f32 {inv}, 0f3F800000, {scale};"));
    let amax = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {amax}, 0;"));
    strided_loop_from(&mut k, "convert", start, vectors, stride, |k, lanes| {
        load_all(k, input, lanes, |k, words, lane| {
            magnitudes(k, spec, words, amax)?;
            convert_and_store(k, spec, words, inv, output, lane)
        })
    })?;
    // The same branch for every thread of the grid: a parameter.
    let (skip, p) = (k.new_label("no_amax")?, k.reg(RegClass::Pred));
    k.push(format!("setp.eq.u64 {p}, {amax_ptr}, 0;"));
    k.push(format!("@{p} bra {skip};"));
    k.cvta_to_global(amax_ptr, amax_ptr);
    block_amax(&mut k, amax, slots, tid)?;
    k.push(format!("setp.eq.u32 {p}, {tid}, 0;"));
    k.push(format!("@{p} red.global.max.u32 [{amax_ptr}], {amax};"));
    k.place_label(&skip);
    k.push("ret;");
    Ok(k)
}

/// The 1x128 kernel: a grid-stride walk over every vector of the tensor,
/// each group of 128 consecutive values of a row (16 vectors of 16-bit
/// values, 32 of f32, in consecutive lanes of one warp) taking its amax by
/// a butterfly over the group's lanes, its scale written by the group's
/// first lane to `scales[v / group]` (row-major, `cols / 128` a row), and
/// its values converted. The walk steps warp by warp (its test reads the
/// warp's first vector), so that every lane of a warp takes part in each
/// butterfly; a lane past the end holds zeros and stores nothing.
pub(super) fn groups_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Groups))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, output, scales] = global_params(&mut k, ["input", "output", "scales"])?;
    let vectors = k.param_value("vectors", ParamType::U32)?;
    let tid = k.special(SpecialReg::TidX);
    let (start, stride) = grid_stride(&mut k, tid);
    let group = spec.group_vectors();
    let (lane, first_of_group) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
    k.push(format!("and.b32 {lane}, {tid}, 31;"));
    let in_group = k.reg(RegClass::B32);
    k.push(format!("and.b32 {in_group}, {tid}, {};", group - 1));
    k.push(format!("setp.eq.u32 {first_of_group}, {in_group}, 0;"));
    let (top, out) = (k.new_label("groups")?, k.new_label("groups_end")?);
    let (v, warp_first, p) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::Pred),
    );
    k.push(format!("mov.u32 {v}, {start};"));
    k.place_label(&top);
    k.push(format!("sub.u32 {warp_first}, {v}, {lane};"));
    k.push(format!("setp.ge.u32 {p}, {warp_first}, {vectors};"));
    k.push(format!("@{p} bra {out};"));
    let lanes = lanes_from(&mut k, v, vectors, stride);
    load_all(&mut k, input, &lanes, |k, words, (vj, pj)| {
        let amax = k.reg(RegClass::B32);
        k.push(format!("mov.b32 {amax}, 0;"));
        magnitudes(k, spec, words, amax)?;
        k.butterfly(amax, group, |k, other| {
            k.push(format!("max.u32 {amax}, {amax}, {other};"));
            Ok::<(), PtxError>(())
        })?;
        let (scale, inv) = scale_of(k, spec, amax);
        let (writes, index, at) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::B32),
            k.reg(RegClass::B64),
        );
        k.push(format!("and.pred {writes}, {pj}, {first_of_group};"));
        k.push(format!(
            "shr.u32 {index}, {vj}, {};",
            group.trailing_zeros()
        ));
        k.push(format!("mad.wide.u32 {at}, {index}, 4, {scales};"));
        k.push(format!("@{writes} st.global.f32 [{at}], {scale};"));
        convert_and_store(k, spec, words, inv, output, (vj, pj))
    })?;
    k.push(format!("mad.lo.u32 {v}, {stride}, {UNROLL}, {v};"));
    k.push(format!("bra {top};"));
    k.place_label(&out);
    k.push("ret;");
    Ok(k)
}

/// The 128x128 kernel: a grid-stride walk over the matrix's 128 x 128
/// tiles (the last row of tiles may be short), a block a tile: each thread
/// loads its vectors of the tile (8 of 16-bit values, 16 of f32) and keeps
/// them in registers, the block reduces their amax ([`block_amax`]), thread
/// 0 writes the scale to `scales[tile]` (row-major, `cols / 128` a row of
/// tiles), and every thread converts its vectors.
pub(super) fn tiles_kernel(spec: &QuantizeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name(QuantizeStage::Tiles))?;
    k.max_threads(QuantizeSpec::BLOCK_THREADS, 1, 1);
    let [input, output, scales] = global_params(&mut k, ["input", "output", "scales"])?;
    let rows = k.param_value("rows", ParamType::U32)?;
    let row_vectors = k.param_value("row_vectors", ParamType::U32)?;
    let slots = k.shared_static("amax_slots", 16, 4 * WARPS)?;
    let slots = k.shared_address(&slots);
    let tid = k.special(SpecialReg::TidX);
    let tile = k.special(SpecialReg::CtaidX);
    let blocks = k.special(SpecialReg::NctaidX);
    // A tile row's vectors, and the tiles: along a row, and in all.
    let group = spec.group_vectors();
    let (tiles_c, tiles_r, tiles) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    k.push(format!(
        "shr.u32 {tiles_c}, {row_vectors}, {};",
        group.trailing_zeros()
    ));
    k.push(format!(
        "add.u32 {tiles_r}, {rows}, {};",
        QuantizeSpec::GROUP - 1
    ));
    k.push(format!(
        "shr.u32 {tiles_r}, {tiles_r}, {};",
        QuantizeSpec::GROUP.trailing_zeros()
    ));
    k.push(format!("mul.lo.u32 {tiles}, {tiles_r}, {tiles_c};"));
    let (next, done) = (k.new_label("tile")?, k.new_label("done")?);
    let p = k.reg(RegClass::Pred);
    k.place_label(&next);
    k.push(format!("setp.ge.u32 {p}, {tile}, {tiles};"));
    k.push(format!("@{p} bra {done};"));
    // The tile's first row and first vector along its rows.
    let (tr, tc, r0, c0) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    k.push(format!("div.u32 {tr}, {tile}, {tiles_c};"));
    k.push(format!("rem.u32 {tc}, {tile}, {tiles_c};"));
    k.push(format!("mul.lo.u32 {r0}, {tr}, {};", QuantizeSpec::GROUP));
    k.push(format!("mul.lo.u32 {c0}, {tc}, {group};"));
    // Thread t's vectors: t + 256 j of the tile's 128 x `group`.
    let per_thread = QuantizeSpec::GROUP * group / QuantizeSpec::BLOCK_THREADS;
    let mut lanes = Vec::new();
    for j in 0..per_thread {
        let (i, r, v, pj) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::Pred),
        );
        k.push(format!(
            "add.u32 {i}, {tid}, {};",
            j * QuantizeSpec::BLOCK_THREADS
        ));
        k.push(format!("shr.u32 {r}, {i}, {};", group.trailing_zeros()));
        k.push(format!("add.u32 {r}, {r}, {r0};"));
        k.push(format!("setp.lt.u32 {pj}, {r}, {rows};"));
        k.push(format!("and.b32 {i}, {i}, {};", group - 1));
        k.push(format!("add.u32 {i}, {i}, {c0};"));
        k.push(format!("mad.lo.u32 {v}, {r}, {row_vectors}, {i};"));
        lanes.push((v, pj));
    }
    let loaded: Vec<[Reg; 4]> = lanes
        .iter()
        .map(|&lane| load_vector(&mut k, input, lane))
        .collect();
    let amax = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {amax}, 0;"));
    for words in &loaded {
        magnitudes(&mut k, spec, words, amax)?;
    }
    block_amax(&mut k, amax, slots, tid)?;
    let (scale, inv) = scale_of(&mut k, spec, amax);
    let (first, at) = (k.reg(RegClass::Pred), k.reg(RegClass::B64));
    k.push(format!("setp.eq.u32 {first}, {tid}, 0;"));
    k.push(format!("mad.wide.u32 {at}, {tile}, 4, {scales};"));
    k.push(format!("@{first} st.global.f32 [{at}], {scale};"));
    for (words, &lane) in loaded.iter().zip(&lanes) {
        convert_and_store(&mut k, spec, words, inv, output, lane)?;
    }
    // The slots are written again for the next tile.
    k.push("bar.sync 0;");
    k.push(format!("add.u32 {tile}, {tile}, {blocks};"));
    k.push(format!("bra {next};"));
    k.place_label(&done);
    k.push("ret;");
    Ok(k)
}

/// Declares `.u64` params named `names` and returns them as global
/// addresses.
fn global_params<const N: usize>(k: &mut Kernel, names: [&str; N]) -> Result<[Reg; N], PtxError> {
    let params = names
        .iter()
        .map(|name| k.param(name, ParamType::U64))
        .collect::<Result<Vec<_>, _>>()?;
    let mut regs = Vec::with_capacity(N);
    for param in &params {
        let reg = k.load_param(param)?;
        k.cvta_to_global(reg, reg);
        regs.push(reg);
    }
    regs.try_into().map_err(|_| PtxError::UnsupportedSpec {
        kernel: "quantize",
        name: names.join(", "),
        reason: String::from("one register per parameter"),
    })
}

/// The grid-stride loop's first vector (the thread's global index) and
/// stride (the grid's threads), `.b32`.
fn grid_stride(k: &mut Kernel, tid: Reg) -> (Reg, Reg) {
    let block = k.special(SpecialReg::CtaidX);
    let blocks = k.special(SpecialReg::NctaidX);
    let (start, stride) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    let threads = QuantizeSpec::BLOCK_THREADS;
    k.push(format!("mad.lo.u32 {start}, {block}, {threads}, {tid};"));
    k.push(format!("mul.lo.u32 {stride}, {blocks}, {threads};"));
    (start, stride)
}

/// [`grid_stride`] with the blocks taken in the reverse order: the last
/// block launched first walks block 0's vectors. Blocks start about in the
/// order of their index, so the tensor kernel starts where the amax kernel
/// ended (with the same grid), on vectors still in L2.
fn grid_stride_from_the_end(k: &mut Kernel, tid: Reg) -> (Reg, Reg) {
    let block = k.special(SpecialReg::CtaidX);
    let blocks = k.special(SpecialReg::NctaidX);
    let (start, stride, mirrored) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    let threads = QuantizeSpec::BLOCK_THREADS;
    k.push(format!("sub.u32 {mirrored}, {blocks}, {block};"));
    k.push(format!("sub.u32 {mirrored}, {mirrored}, 1;"));
    k.push(format!("mad.lo.u32 {start}, {mirrored}, {threads}, {tid};"));
    k.push(format!("mul.lo.u32 {stride}, {blocks}, {threads};"));
    (start, stride)
}

/// `for v = first; v < end; v += step` with an immediate step, unrolled
/// [`UNROLL`] times (see [`strided_loop_from`]).
fn strided_loop(
    k: &mut Kernel,
    name: &str,
    first: Reg,
    end: Reg,
    step: u32,
    body: impl FnOnce(&mut Kernel, &[(Reg, Reg)]) -> Result<(), PtxError>,
) -> Result<(), PtxError> {
    let stride = k.reg(RegClass::B32);
    k.push(format!("mov.u32 {stride}, {step};"));
    strided_loop_from(k, name, first, end, stride, body)
}

/// `for v = first; v < end; v += stride` (`.b32` registers), [`UNROLL`]
/// values of `v` an iteration: `body` gets each with the predicate that it
/// is below `end` (the first always is), so that it issues every load
/// before it uses one (the loads in flight that reach DRAM's bandwidth).
fn strided_loop_from(
    k: &mut Kernel,
    name: &str,
    first: Reg,
    end: Reg,
    stride: Reg,
    body: impl FnOnce(&mut Kernel, &[(Reg, Reg)]) -> Result<(), PtxError>,
) -> Result<(), PtxError> {
    let (top, out) = (k.new_label(name)?, k.new_label(&format!("{name}_end"))?);
    let (v, p) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
    k.push(format!("mov.u32 {v}, {first};"));
    k.place_label(&top);
    k.push(format!("setp.ge.u32 {p}, {v}, {end};"));
    k.push(format!("@{p} bra {out};"));
    let lanes = lanes_from(k, v, end, stride);
    body(k, &lanes)?;
    k.push(format!("mad.lo.u32 {v}, {stride}, {UNROLL}, {v};"));
    k.push(format!("bra {top};"));
    k.place_label(&out);
    Ok(())
}

/// [`UNROLL`] vectors `v + j * stride` (`stride` a register or an
/// immediate), each with the predicate that it is below `end`.
fn lanes_from(k: &mut Kernel, v: Reg, end: Reg, stride: impl std::fmt::Display) -> Vec<(Reg, Reg)> {
    let mut lanes = Vec::new();
    for j in 0..UNROLL {
        let (vj, pj) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
        if j == 0 {
            k.push(format!("mov.u32 {vj}, {v};"));
        } else {
            k.push(format!("mad.lo.u32 {vj}, {stride}, {j}, {v};"));
        }
        k.push(format!("setp.lt.u32 {pj}, {vj}, {end};"));
        lanes.push((vj, pj));
    }
    lanes
}

/// The four words of 16-byte vector `v` from `base` where `p` holds,
/// zeros elsewhere (`ld.global.nc`: the input is read-only while the
/// kernel runs).
fn load_vector(k: &mut Kernel, base: Reg, (v, p): (Reg, Reg)) -> [Reg; 4] {
    let addr = k.reg(RegClass::B64);
    k.push(format!("mad.wide.u32 {addr}, {v}, 16, {base};"));
    let words = [
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    ];
    for word in words {
        k.push(format!("mov.b32 {word}, 0;"));
    }
    k.push(format!(
        "@{p} ld.global.nc.v4.b32 {{{}, {}, {}, {}}}, [{addr}];",
        words[0], words[1], words[2], words[3]
    ));
    words
}

/// Every lane's vector loaded first, then `each` applied to each.
fn load_all(
    k: &mut Kernel,
    base: Reg,
    lanes: &[(Reg, Reg)],
    mut each: impl FnMut(&mut Kernel, &[Reg; 4], (Reg, Reg)) -> Result<(), PtxError>,
) -> Result<(), PtxError> {
    let loaded: Vec<[Reg; 4]> = lanes
        .iter()
        .map(|&lane| load_vector(k, base, lane))
        .collect();
    for (words, &lane) in loaded.iter().zip(lanes) {
        each(k, words, lane)?;
    }
    Ok(())
}

/// The f32 values of a vector's words (two per word of 16-bit values).
fn values(k: &mut Kernel, spec: &QuantizeSpec, words: &[Reg; 4]) -> Result<Vec<Reg>, PtxError> {
    let mut out = Vec::new();
    for &word in words {
        match spec.input {
            ElementType::F32 => {
                let value = k.reg(RegClass::F32);
                k.push(format!("mov.b32 {value}, {word};"));
                out.push(value);
            }
            input => {
                let (lo, hi) = (k.reg(RegClass::F32), k.reg(RegClass::F32));
                let name = if input == ElementType::BF16 {
                    "bf16x2_to_f32"
                } else {
                    "f16x2_to_f32"
                };
                k.snippet(
                    "common/quantize",
                    name,
                    &[("lo", &lo), ("hi", &hi), ("src", &word)],
                )?;
                out.extend([lo, hi]);
            }
        }
    }
    Ok(out)
}

/// `amax = max(amax, the magnitude bits of every value of the vector)`.
fn magnitudes(
    k: &mut Kernel,
    spec: &QuantizeSpec,
    words: &[Reg; 4],
    amax: Reg,
) -> Result<(), PtxError> {
    let mut bits = Vec::new();
    if spec.input == ElementType::BF16 {
        for &word in words {
            let (lo, hi) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
            k.snippet(
                "common/quantize",
                "magnitude_bf16x2",
                &[("lo", &lo), ("hi", &hi), ("src", &word)],
            )?;
            bits.extend([lo, hi]);
        }
    } else {
        for value in values(k, spec, words)? {
            let b = k.reg(RegClass::B32);
            k.snippet(
                "common/quantize",
                "magnitude_f32",
                &[("dst", &b), ("src", &value)],
            )?;
            bits.push(b);
        }
    }
    for b in bits {
        k.push(format!("max.u32 {amax}, {amax}, {b};"));
    }
    Ok(())
}

/// The block's amax into `amax` on every thread: a warp butterfly, each
/// warp's result in its shared slot, then every thread's max of the slots.
fn block_amax(k: &mut Kernel, amax: Reg, slots: Reg, tid: Reg) -> Result<(), PtxError> {
    k.butterfly(amax, 32, |k, other| {
        k.push(format!("max.u32 {amax}, {amax}, {other};"));
        Ok::<(), PtxError>(())
    })?;
    let (lane, slot, p) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::Pred),
    );
    k.push(format!("and.b32 {lane}, {tid}, 31;"));
    k.push(format!("shr.u32 {slot}, {tid}, 5;"));
    k.push(format!("mad.lo.u32 {slot}, {slot}, 4, {slots};"));
    k.push(format!("setp.eq.u32 {p}, {lane}, 0;"));
    k.push(format!("@{p} st.shared.u32 [{slot}], {amax};"));
    k.push("bar.sync 0;");
    for group in 0..WARPS / 4 {
        let w: Vec<Reg> = (0..4).map(|_| k.reg(RegClass::B32)).collect();
        k.push(format!(
            "ld.shared.v4.u32 {{{}, {}, {}, {}}}, [{slots}+{}];",
            w[0],
            w[1],
            w[2],
            w[3],
            16 * group
        ));
        for value in w {
            k.push(format!("max.u32 {amax}, {amax}, {value};"));
        }
    }
    Ok(())
}

/// The scale (`amax / max`) and its inverse (`max / amax`) of the amax bits
/// `amax`, both 1 where the amax is 0 (`.f32`).
fn scale_of(k: &mut Kernel, spec: &QuantizeSpec, amax: Reg) -> (Reg, Reg) {
    let bound = format!("0f{:08X}", spec.max_value().to_bits());
    let (value, scale, inv) = (
        k.reg(RegClass::F32),
        k.reg(RegClass::F32),
        k.reg(RegClass::F32),
    );
    let zero = k.reg(RegClass::Pred);
    k.push(format!("mov.b32 {value}, {amax};"));
    k.push(format!("setp.eq.f32 {zero}, {value}, 0f00000000;"));
    k.push(format!("div.rn.f32 {scale}, {value}, {bound};"));
    k.push(format!("div.rn.f32 {inv}, {bound}, {value};"));
    k.push(format!("selp.f32 {scale}, 0f3F800000, {scale}, {zero};"));
    k.push(format!("selp.f32 {inv}, 0f3F800000, {inv}, {zero};"));
    (scale, inv)
}

/// Converts a vector's values times `inv` into the output type and stores
/// them at vector `v` of `base` (8 bytes for 16-bit input, 4 for f32)
/// where `p` holds, as streaming stores (`st.global.cs`: nothing reads
/// them again in this kernel).
fn convert_and_store(
    k: &mut Kernel,
    spec: &QuantizeSpec,
    words: &[Reg; 4],
    inv: Reg,
    base: Reg,
    (v, p): (Reg, Reg),
) -> Result<(), PtxError> {
    let values = values(k, spec, words)?;
    for &value in &values {
        k.push(format!("mul.rn.f32 {value}, {value}, {inv};"));
    }
    let (family, name) = match spec.output {
        ElementType::F8E4M3 => ("sm90/cvt_fp8", "f32x4_to_e4m3x4"),
        ElementType::F8E5M2 => ("sm90/cvt_fp8", "f32x4_to_e5m2x4"),
        _ => ("common/quantize", "f32x4_to_s8x4"),
    };
    let mut out = Vec::new();
    for four in values.chunks(4) {
        let word = k.reg(RegClass::B32);
        k.snippet(
            family,
            name,
            &[
                ("dst", &word),
                ("a", &four[0]),
                ("b", &four[1]),
                ("c", &four[2]),
                ("d", &four[3]),
            ],
        )?;
        out.push(word);
    }
    let addr = k.reg(RegClass::B64);
    let bytes = spec.elements_per_vector();
    k.push(format!("mad.wide.u32 {addr}, {v}, {bytes}, {base};"));
    // A 16-byte vector holds 4 values (one word out) or 8 (two).
    let words: Vec<String> = out.iter().map(Reg::to_string).collect();
    match words.len() {
        1 => k.push(format!("@{p} st.global.cs.b32 [{addr}], {};", words[0])),
        _ => k.push(format!(
            "@{p} st.global.cs.v2.b32 [{addr}], {{{}}};",
            words.join(", ")
        )),
    }
    Ok(())
}
