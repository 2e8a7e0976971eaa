//! The SM80 collective's thread mappings are the tiled layer's partitions:
//! for every default configuration (every dtype combination x operand
//! majors x output major, the 256x128 variant), the global-to-shared copy,
//! the `ldmatrix` row addresses and the accumulators' staging offsets that
//! the mainloop and epilogue emit equal (1) the partitions of a `TiledCopy`
//! / `TiledMma` built here from the CuTe description, and (2) the ISA-level
//! formulas the collective used to hand-write (lane -> row of which 8x8
//! matrix, groupID / threadID_in_group), for every thread and value.

use cutlet::atom::CopyAtom;
use cutlet::collective::{EpilogueSm80, Sm80MmaMultistage};
use cutlet::kernel::gemm::sm80_default_specs;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::layout::{IntTuple, Layout};
use cutlet::numeric::ElementType::{self, F32};
use cutlet::tiled::{Operand, ThreadPartition, TiledCopy, TiledMma};

/// Every default spec and its 256x128 variant where the builder has one.
fn specs() -> Vec<GemmSpec> {
    let specs = sm80_default_specs();
    assert_eq!(specs.len(), 68);
    specs
}

fn ints(v: &[i64]) -> IntTuple {
    IntTuple::ints(v)
}

/// The swizzled element offset of (mn, k) in an operand's stage, from the
/// 128-byte-line description: K-major line mn, MN-major line
/// (mn / R) * BK + k; 16-byte chunk c of line l at chunk c ^ (l % 8).
fn stage_element(major: OperandMajor, extent: i64, bk: i64, esize: i64, mn: i64, k: i64) -> i64 {
    let (line_elems, chunk_elems) = (128 / esize, 16 / esize);
    let (line, within) = match major {
        OperandMajor::K => (mn, k),
        OperandMajor::MN => ((mn / line_elems) * bk + k, mn % line_elems),
    };
    assert!(line < extent * bk / line_elems);
    let chunk = (within / chunk_elems) ^ (line % 8);
    line * line_elems + chunk * chunk_elems + within % chunk_elems
}

/// What the generator emits for value `v` of thread `t`: the swizzled
/// thread base, XOR the value's low part, plus its high part (`split` is
/// `p.val_xor_add()`).
fn as_emitted(p: &ThreadPartition, split: &[(i64, i64)], t: i64, v: usize) -> i64 {
    let base = p.swizzle().apply(p.base_offset() + p.thr().at(t));
    (base ^ split[v].0) + split[v].1
}

fn operand(spec: &GemmSpec, op: Operand) -> (OperandMajor, i64, ElementType) {
    match op {
        Operand::A => (spec.majors.a, i64::from(spec.tile[0]), spec.types.a),
        _ => (spec.majors.b, i64::from(spec.tile[1]), spec.types.b),
    }
}

/// The copy as CuTe would write it: threads along the contiguous mode
/// first, 16 bytes (one cp.async) per thread and step.
fn expected_copy(spec: &GemmSpec, op: Operand) -> TiledCopy {
    let (major, extent, element) = operand(spec, op);
    let bk = i64::from(spec.tile[2]);
    let threads = i64::from(spec.block_threads());
    let per = 128 / i64::from(element.size_bits());
    let (thr, val) = match major {
        OperandMajor::K => {
            let across = bk / per;
            (
                Layout::from_parts(ints(&[threads / across, across]), ints(&[across, 1])),
                Layout::from_parts(ints(&[1, per]), ints(&[1, 1])),
            )
        }
        OperandMajor::MN => {
            let down = extent / per;
            (
                Layout::from_parts(ints(&[down, threads / down]), ints(&[1, down])),
                Layout::from_parts(ints(&[per, 1]), ints(&[1, 1])),
            )
        }
    };
    TiledCopy::new(CopyAtom::Sm80CpAsyncCacheGlobalZfill, element, &thr, &val).unwrap()
}

/// The atom over the warps, each warp owning a contiguous warp tile.
fn expected_mma(spec: &GemmSpec) -> TiledMma {
    let mainloop = Sm80MmaMultistage::new(&spec.context(), &spec.mainloop).unwrap();
    let atom = mainloop.tiled_mma().unwrap().atom();
    let [am, an, _] = atom.shape_mnk();
    let [wm, wn, _] = spec.mainloop.warps.map(i64::from);
    let [bm, bn, _] = spec.tile.map(i64::from);
    let perm = |a: i64, w: i64, e: i64| {
        let r = e / (a * w);
        Some(Layout::from_parts(ints(&[a, w, r]), ints(&[1, a * r, a])))
    };
    TiledMma::new(atom, [wm, wn, 1])
        .unwrap()
        .with_permutation([perm(am, wm, bm), perm(an, wn, bn), None])
        .unwrap()
}

#[test]
fn g2s_copies_are_the_tiled_copy_partitions() {
    for spec in specs() {
        let name = spec.kernel_name();
        let mainloop = Sm80MmaMultistage::new(&spec.context(), &spec.mainloop).unwrap();
        for op in [Operand::A, Operand::B] {
            let (major, extent, element) = operand(&spec, op);
            let bk = i64::from(spec.tile[2]);
            let esize = i64::from(element.size_bytes());
            let g = mainloop.g2s(op).unwrap();
            let copy = expected_copy(&spec, op);
            assert_eq!(g.copy, copy, "{name} {op:?}");
            let tv = copy.layout_tv_over([extent, bk]).unwrap();
            let threads = copy.threads();
            let mut seen = vec![0u32; (extent * bk) as usize];
            let split = g.dst.val_xor_add().expect("default configs split by XOR");
            for t in 0..threads {
                for v in 0..g.dst.values() as usize {
                    // The tile coordinate from the copy's TV layout.
                    let idx = tv.at(t + threads * v as i64);
                    let (mn, k) = (idx % extent, idx / extent);
                    let (row, col) = match major {
                        OperandMajor::K => (mn, k),
                        OperandMajor::MN => (k, mn),
                    };
                    assert_eq!(
                        (g.rows.offset(t, v), g.cols.offset(t, v)),
                        (row, col),
                        "{name} {op:?} t{t} v{v}"
                    );
                    let want = stage_element(major, extent, bk, esize, mn, k);
                    assert_eq!(g.dst.offset(t, v), want, "{name} {op:?} t{t} v{v}");
                    seen[want as usize] += 1;
                }
                // What the mainloop emits per cp.async: the thread base plus
                // the pass immediate (no XOR part), 16 contiguous bytes.
                let per = g.per_instruction();
                for p in 0..g.instructions() {
                    let v = p * per;
                    let (xor, add) = split[v];
                    assert_eq!(xor, 0, "{name} {op:?} pass {p}");
                    let base = g.dst.swizzle().apply(g.dst.thr().at(t));
                    assert_eq!(base + add, g.dst.offset(t, v), "{name} {op:?} t{t} p{p}");
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{name} {op:?}: coverage");
            copy.check_vectorized(&g.dst).unwrap();
            copy.check_vectorized(&g.cols).unwrap();
        }
    }
}

/// (mn, k) of the row that lane `l` of warp (wm, wn) gives to ldmatrix
/// instruction (block, k-step), from the ISA: lane l addresses row l % 8 of
/// matrix l / 8; matrices are (m 0-7, m 8-15) x (k 0-7, k 8-15) for A,
/// (k 0-7, k 8-15) x (n 0-7, n 8-15) for B (16-byte rows: 8 16-bit or 4
/// 32-bit elements), transposed for MN-major.
#[allow(clippy::too_many_arguments)]
fn ldsm_row(
    op: Operand,
    major: OperandMajor,
    chunk: i64,
    kstep: i64,
    warp_base: i64,
    lane: i64,
    block: i64,
    kk: i64,
) -> (i64, i64) {
    let (r, m) = (lane % 8, lane / 8);
    let mn0 = warp_base + 16 * block;
    match (op, major) {
        (Operand::A, OperandMajor::K) => (mn0 + r + 8 * (m % 2), kk * kstep + chunk * (m / 2)),
        (_, OperandMajor::K) => (mn0 + r + 8 * (m / 2), kk * kstep + chunk * (m % 2)),
        (Operand::A, OperandMajor::MN) => (mn0 + 8 * (m % 2), kk * kstep + r + 8 * (m / 2)),
        (_, OperandMajor::MN) => (mn0 + 8 * (m / 2), kk * kstep + r + 8 * (m % 2)),
    }
}

#[test]
fn ldmatrix_addresses_are_the_tiled_mma_partitions() {
    for spec in specs() {
        let name = spec.kernel_name();
        let mainloop = Sm80MmaMultistage::new(&spec.context(), &spec.mainloop).unwrap();
        let mma = expected_mma(&spec);
        assert_eq!(mainloop.tiled_mma().unwrap(), mma, "{name}");
        let [wm_count, _, _] = spec.mainloop.warps.map(i64::from);
        let kstep = mma.atom().shape_mnk()[2];
        for op in [Operand::A, Operand::B] {
            let (major, extent, element) = operand(&spec, op);
            let bk = i64::from(spec.tile[2]);
            let esize = i64::from(element.size_bytes());
            if !mainloop.uses_ldmatrix(op).unwrap() {
                assert!(mainloop.ldsm(op).is_err(), "{name} {op:?}");
                continue;
            }
            let p = mainloop.ldsm(op).unwrap();
            let smem = match op {
                Operand::A => mainloop.a_smem(),
                _ => mainloop.b_smem(),
            };
            let trans = major == OperandMajor::MN;
            let want = mma
                .partition_ldsm_swizzled(op, [extent, bk], trans, &smem.layout())
                .unwrap();
            assert_eq!(p, want, "{name} {op:?}");
            let warps = i64::from(spec.mainloop.warps[if op == Operand::A { 0 } else { 1 }]);
            let warp_extent = extent / warps;
            let blocks = warp_extent / 16;
            assert_eq!(p.values(), blocks * (bk / kstep), "{name} {op:?}");
            let split = p.val_xor_add().expect("default configs split by XOR");
            for t in 0..mma.threads() {
                let (warp, lane) = (t / 32, t % 32);
                let w = match op {
                    Operand::A => warp % wm_count,
                    _ => warp / wm_count,
                };
                for kk in 0..bk / kstep {
                    for block in 0..blocks {
                        let i = (block + blocks * kk) as usize;
                        let (mn, k) = ldsm_row(
                            op,
                            major,
                            16 / esize,
                            kstep,
                            w * warp_extent,
                            lane,
                            block,
                            kk,
                        );
                        let want = stage_element(major, extent, bk, esize, mn, k);
                        assert_eq!(p.offset(t, i), want, "{name} {op:?} t{t} i{i}");
                        assert_eq!(
                            as_emitted(&p, &split, t, i),
                            want,
                            "{name} {op:?} t{t} i{i}"
                        );
                    }
                }
            }
        }
    }
}

/// MN-major tf32 operands load each fragment register with one 32-bit
/// `ld.shared` (no `ldmatrix.trans` of 32-bit elements): the offsets are the
/// tiled MMA's A/B partition of the swizzled stage and the m16n8k8 tf32
/// fragment tables of the PTX ISA (A: a0 (g, t), a1 (g+8, t), a2 (g, t+4),
/// a3 (g+8, t+4); B: b0 (k t, n g), b1 (k t+4, n g); g = lane / 4, t =
/// lane % 4), register order (atom value, MN atom of the warp tile, k-step).
#[test]
fn tf32_mn_major_fragment_loads_are_the_tiled_mma_partitions() {
    let mut checked = 0;
    for spec in specs() {
        let name = spec.kernel_name();
        let mainloop = Sm80MmaMultistage::new(&spec.context(), &spec.mainloop).unwrap();
        let mma = expected_mma(&spec);
        for op in [Operand::A, Operand::B] {
            let (major, extent, element) = operand(&spec, op);
            let uses_ldsm = mainloop.uses_ldmatrix(op).unwrap();
            assert_eq!(
                uses_ldsm,
                element != F32 || major == OperandMajor::K,
                "{name} {op:?}"
            );
            if uses_ldsm {
                continue;
            }
            checked += 1;
            let bk = i64::from(spec.tile[2]);
            let smem = match op {
                Operand::A => mainloop.a_smem(),
                _ => mainloop.b_smem(),
            };
            let p = mainloop.fragment_loads(op).unwrap();
            let want = mma
                .partition_swizzled(op, [extent, bk], &smem.layout())
                .unwrap();
            assert_eq!(p, want, "{name} {op:?}");
            let [wm_count, _, _] = spec.mainloop.warps.map(i64::from);
            let warps = i64::from(spec.mainloop.warps[if op == Operand::A { 0 } else { 1 }]);
            let warp_extent = extent / warps;
            let (atom_mn, per_atom) = match op {
                Operand::A => (16, 4),
                _ => (8, 2),
            };
            let atoms = warp_extent / atom_mn;
            let ksteps = bk / 8;
            assert_eq!(p.values(), per_atom * atoms * ksteps, "{name} {op:?}");
            let split = p.val_xor_add().expect("default configs split by XOR");
            for t in 0..mma.threads() {
                let (warp, lane) = (t / 32, t % 32);
                let w = match op {
                    Operand::A => warp % wm_count,
                    _ => warp / wm_count,
                };
                let (g, tig) = (lane / 4, lane % 4);
                for kk in 0..ksteps {
                    for atom in 0..atoms {
                        for f in 0..per_atom {
                            let (mn_in, k_in) = match op {
                                Operand::A => (g + 8 * (f % 2), tig + 4 * (f / 2)),
                                _ => (g, tig + 4 * f),
                            };
                            let mn = w * warp_extent + atom * atom_mn + mn_in;
                            let k = kk * 8 + k_in;
                            let v = (f + per_atom * (atom + atoms * kk)) as usize;
                            let want = stage_element(major, extent, bk, 4, mn, k);
                            assert_eq!(p.offset(t, v), want, "{name} {op:?} t{t} v{v}");
                            assert_eq!(
                                as_emitted(&p, &split, t, v),
                                want,
                                "{name} {op:?} t{t} v{v}"
                            );
                        }
                    }
                }
            }
        }
    }
    // tf32 with A, B or both MN-major, D row- or column-major.
    assert_eq!(checked, 8);
}

#[test]
fn staged_accumulators_are_the_tiled_mma_c_partition() {
    for spec in specs() {
        let name = spec.kernel_name();
        let epilogue = EpilogueSm80::new(&spec.context(), &spec.epilogue);
        let p = epilogue.acc_partition().unwrap();
        let [bm, bn, _] = spec.tile.map(i64::from);
        let want = expected_mma(&spec)
            .partition(Operand::C, [bm, bn], &epilogue.staging_layout())
            .unwrap();
        assert_eq!(p, want, "{name}");
        // The staging tile: D's contiguous dimension innermost, rows padded
        // by 8 (N-major) or 4 (M-major) f32.
        let pitch = match spec.majors.d {
            OutputMajor::N => bn + 8,
            OutputMajor::M => bm + 4,
        };
        let [wm_count, wn_count, _] = spec.mainloop.warps.map(i64::from);
        let (wtm, wtn) = (bm / wm_count, bn / wn_count);
        let (m_tiles, n_tiles) = (wtm / 16, wtn / 8);
        assert_eq!(p.values(), 4 * m_tiles * n_tiles, "{name}");
        for t in 0..p.threads() {
            let (warp, lane) = (t / 32, t % 32);
            let (wm, wn) = (warp % wm_count, warp / wm_count);
            // The ISA's C fragment: c0, c1 at (groupID, 2 * tig + {0, 1}),
            // c2, c3 eight rows down.
            let (g, tig) = (lane / 4, lane % 4);
            for ni in 0..n_tiles {
                for mi in 0..m_tiles {
                    for c in 0..4 {
                        let m = wm * wtm + 16 * mi + g + 8 * (c / 2);
                        let n = wn * wtn + 8 * ni + 2 * tig + c % 2;
                        let want = match spec.majors.d {
                            OutputMajor::N => m * pitch + n,
                            OutputMajor::M => n * pitch + m,
                        };
                        let v = (c + 4 * (mi + m_tiles * ni)) as usize;
                        assert_eq!(p.offset(t, v), want, "{name} t{t} mi{mi} ni{ni} c{c}");
                        assert_eq!(p.thr().at(t) + p.val()[v], want, "{name} as emitted");
                    }
                }
            }
        }
    }
}

#[test]
fn accumulators_are_the_c_fragment_in_the_atoms_registers() {
    for spec in specs() {
        let name = spec.kernel_name();
        let mainloop = Sm80MmaMultistage::new(&spec.context(), &spec.mainloop).unwrap();
        let atom = expected_mma(&spec).atom();
        let layout = mainloop.accumulator_layout().unwrap();
        let [bm, bn, _] = spec.tile.map(i64::from);
        let fragment = expected_mma(&spec).fragment(Operand::C, [bm, bn]).unwrap();
        assert_eq!(layout.shape(), &fragment, "{name}");
        // Every value has its own slot, and an MMA tile's values fill the
        // atom's accumulator registers: tile (mi, ni) is registers
        // (mi * n_tiles + ni) * regs.c and on, as the MMAs take them.
        let [frg, _, n_tiles] = fragment.flatten()[..] else {
            panic!("{name}: fragment {fragment}");
        };
        let per_reg = frg / atom.regs().c as i64;
        let mut slots: Vec<i64> = (0..layout.size()).map(|i| layout.at(i)).collect();
        slots.sort_unstable();
        assert!(
            slots.iter().enumerate().all(|(i, &s)| s == i as i64),
            "{name}"
        );
        for i in 0..layout.size() {
            let (v, rest) = (i % frg, i / frg);
            let (mi, ni) = (
                rest % (layout.size() / frg / n_tiles),
                rest / (layout.size() / frg / n_tiles),
            );
            let reg = layout.at(i) / per_reg;
            let tile = mi * n_tiles + ni;
            assert_eq!(
                reg / atom.regs().c as i64,
                tile,
                "{name} value {v} of ({mi}, {ni})"
            );
        }
    }
}
