//! Each MMA atom run once by one warp (one thread for UniversalFMA), with A,
//! B and C placed in registers by the atom's own layouts (through
//! `ThreadPartition` and `emit_layout_offset`), compared with a host GEMM;
//! and `ldmatrix` (N and T) compared with the copy atoms' destination layouts.
//! The SM70 `m8n8k4` atoms run in a warp of four quad pairs, each on its own
//! tile; their sm_70 PTX runs on later GPUs through the driver's JIT.
//!
//! Data are multiples of 1/4 in [-2, 2): every product and partial sum is
//! exact in f16, bf16, tf32 and f32, so results must match bit for bit.
//! Skips with a printed reason where no GPU is found.

mod common;

use common::gpu::{first_mismatch, seeded_rng};
use cutlet::arch::ArchKind;
use cutlet::atom::{
    CopyAtom, MemorySpace, MmaAtom, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N, UniversalCopy,
};
use cutlet::device::{Device, KernelArgs, LaunchConfig, Module as DeviceModule};
use cutlet::layout::{IntTuple, Layout};
use cutlet::numeric::ElementType;
use cutlet::ptx::{Kernel, Module, ParamType, Reg, RegClass, SpecialReg};
use cutlet::tiled::{emit_layout_offset, ThreadPartition};
use cutlet_harness::device_or_skip;
use half::{bf16, f16};
use rand::Rng;

/// Bits of `x` (a multiple of 1/4, exact in every type) stored as `ty`.
fn encode(x: f64, ty: ElementType) -> u32 {
    match ty {
        ElementType::F16 => u32::from(f16::from_f64(x).to_bits()),
        ElementType::BF16 => u32::from(bf16::from_f64(x).to_bits()),
        _ => (x as f32).to_bits(),
    }
}

fn bytes(ty: ElementType) -> i64 {
    i64::from(ty.size_bytes())
}

/// The global address of this thread's part of a row-major tile: `base +
/// (tile * tile_elements + thr(tid)) * element bytes`, in a fresh `.b64`
/// register.
fn thread_base(
    k: &mut Kernel,
    base: Reg,
    (p, tile_elements): (&ThreadPartition, i64),
    team: &Team,
    ty: ElementType,
) -> Reg {
    let offset = emit_layout_offset(k, p.thr(), team.thread).unwrap();
    k.push(format!(
        "mad.lo.s32 {offset}, {}, {tile_elements}, {offset};",
        team.tile
    ));
    let addr = k.reg(RegClass::B64);
    k.push(format!("mul.wide.s32 {addr}, {offset}, {};", bytes(ty)));
    k.push(format!("add.s64 {addr}, {addr}, {base};"));
    addr
}

/// A thread's place in the launch: its logical thread in the atom and the
/// tile it works on (registers).
struct Team {
    thread: Reg,
    tile: Reg,
}

/// Whether the atom's logical threads are not its lanes in order: the SM70
/// quad pair, `(4,2):(1,16)`.
fn is_quad_pair(atom: MmaAtom) -> bool {
    let thr_id = atom.thr_id();
    (0..thr_id.size()).any(|t| thr_id.at(t) != t)
}

/// Tiles one launch computes: 4 for a quad-pair atom (the PTX ISA: a warp
/// executing `mma.m8n8k4` computes 4 MMA operations), else 1.
fn tiles(atom: MmaAtom) -> usize {
    if is_quad_pair(atom) {
        4
    } else {
        1
    }
}

/// Lane `lane`'s (logical thread, quad pair), from the PTX ISA's table:
/// quad pair `q` is lanes `4q..4q+3` (low) and `4q+16..4q+19` (high).
fn quad_pair_of_lane(lane: i64) -> (i64, i64) {
    ((lane & 3) | ((lane >> 2) & 4), (lane >> 2) & 3)
}

/// Emits this thread's [`Team`]: `tid` and tile 0, or for a quad-pair atom
/// [`quad_pair_of_lane`] of `tid`.
fn emit_team(k: &mut Kernel, atom: MmaAtom, tid: Reg) -> Team {
    let (thread, tile) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    if is_quad_pair(atom) {
        let high = k.reg(RegClass::B32);
        k.push(format!("and.b32 {thread}, {tid}, 3;"));
        k.push(format!("shr.u32 {tile}, {tid}, 2;"));
        k.push(format!("and.b32 {high}, {tile}, 4;"));
        k.push(format!("or.b32 {thread}, {thread}, {high};"));
        k.push(format!("and.b32 {tile}, {tile}, 3;"));
    } else {
        k.push(format!("mov.u32 {thread}, {tid};"));
        k.push(format!("mov.u32 {tile}, 0;"));
    }
    Team { thread, tile }
}

/// Loads this thread's fragment into `class` registers, packing two 16-bit
/// values per `.b32` (lower value index in the low half).
fn load_fragment(
    k: &mut Kernel,
    addr: Reg,
    p: &ThreadPartition,
    ty: ElementType,
    class: RegClass,
) -> Vec<Reg> {
    let at = |v: usize| p.val()[v] * bytes(ty);
    if ty.size_bits() == 16 {
        let halves: Vec<Reg> = (0..p.values() as usize)
            .map(|v| {
                let h = k.reg(RegClass::B16);
                k.push(format!("ld.global.b16 {h}, [{addr}+{}];", at(v)));
                h
            })
            .collect();
        halves
            .chunks(2)
            .map(|pair| {
                let r = k.reg(RegClass::B32);
                k.push(format!("mov.b32 {r}, {{{}, {}}};", pair[0], pair[1]));
                r
            })
            .collect()
    } else {
        (0..p.values() as usize)
            .map(|v| {
                let r = k.reg(class);
                k.push(format!(
                    "ld.global{} {r}, [{addr}+{}];",
                    class.ptx_type(),
                    at(v)
                ));
                r
            })
            .collect()
    }
}

fn store_fragment(k: &mut Kernel, addr: Reg, p: &ThreadPartition, ty: ElementType, regs: &[Reg]) {
    let at = |v: usize| p.val()[v] * bytes(ty);
    if ty.size_bits() == 16 {
        for (i, r) in regs.iter().enumerate() {
            let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
            k.push(format!("mov.b32 {{{lo}, {hi}}}, {r};"));
            k.push(format!("st.global.b16 [{addr}+{}], {lo};", at(2 * i)));
            k.push(format!("st.global.b16 [{addr}+{}], {hi};", at(2 * i + 1)));
        }
    } else {
        for (v, r) in regs.iter().enumerate() {
            k.push(format!(
                "st.global{} [{addr}+{}], {r};",
                r.class().ptx_type(),
                at(v)
            ));
        }
    }
}

fn row_major(rows: i64, cols: i64) -> Layout {
    Layout::new(IntTuple::ints(&[rows, cols]), IntTuple::ints(&[cols, 1])).unwrap()
}

/// The partitions of A (M x K), B (N x K) and C/D (M x N), all row-major.
fn partitions(atom: MmaAtom) -> [ThreadPartition; 3] {
    let [m, n, kk] = atom.shape_mnk();
    [
        ThreadPartition::new(&atom.a_layout(), &row_major(m, kk)).unwrap(),
        ThreadPartition::new(&atom.b_layout(), &row_major(n, kk)).unwrap(),
        ThreadPartition::new(&atom.c_layout(), &row_major(m, n)).unwrap(),
    ]
}

fn mma_kernel(atom: MmaAtom) -> String {
    let types = atom.types();
    let regs = atom.regs();
    let [pa, pb, pc] = partitions(atom);
    let mut k = Kernel::new("atom_mma").unwrap();
    let names = ["a", "b", "c", "d"];
    let ptrs: Vec<Reg> = names
        .iter()
        .map(|n| {
            let p = k.param(n, ParamType::U64).unwrap();
            let r = k.load_param(&p).unwrap();
            k.cvta_to_global(r, r);
            r
        })
        .collect();
    let tid = k.special(SpecialReg::TidX);
    let team = emit_team(&mut k, atom, tid);
    let [m, n, kk] = atom.shape_mnk();
    let a_addr = thread_base(&mut k, ptrs[0], (&pa, m * kk), &team, types.a);
    let b_addr = thread_base(&mut k, ptrs[1], (&pb, n * kk), &team, types.b);
    let c_addr = thread_base(&mut k, ptrs[2], (&pc, m * n), &team, types.c);
    let d_addr = thread_base(&mut k, ptrs[3], (&pc, m * n), &team, types.d);
    let a = load_fragment(&mut k, a_addr, &pa, types.a, regs.ab_class);
    let b = load_fragment(&mut k, b_addr, &pb, types.b, regs.ab_class);
    let c = load_fragment(&mut k, c_addr, &pc, types.c, regs.c_class);
    let d = k.regs(regs.c_class, regs.c);
    atom.emit(&mut k, &d, &a, &b, &c).unwrap();
    store_fragment(&mut k, d_addr, &pc, types.d, &d);
    let mut module = Module::new(atom.min_arch());
    module.add_kernel(k).unwrap();
    module.emit().unwrap()
}

fn quarter_values(seed: u64, len: usize) -> Vec<f64> {
    let mut rng = seeded_rng(seed);
    (0..len)
        .map(|_| f64::from(rng.random_range(-8i32..8)) / 4.0)
        .collect()
}

fn run_mma(device: &Device, atom: MmaAtom, seed: u64) {
    let [m, n, kk] = atom.shape_mnk().map(|x| x as usize);
    let types = atom.types();
    let tiles = tiles(atom);
    let a = quarter_values(seed, tiles * m * kk);
    let b = quarter_values(seed + 1, tiles * n * kk);
    let c = quarter_values(seed + 2, tiles * m * n);
    let want: Vec<u32> = (0..tiles * m * n)
        .map(|i| {
            let (tile, row, col) = (i / (m * n), i % (m * n) / n, i % n);
            let (a, b) = (&a[tile * m * kk..], &b[tile * n * kk..]);
            let dot: f64 = (0..kk).map(|x| a[row * kk + x] * b[col * kk + x]).sum();
            encode(dot + c[i], types.d)
        })
        .collect();
    let stream = device.default_stream();
    let got: Vec<u32> = if types.a.size_bits() == 16 {
        let to16 = |v: &[f64], ty| {
            v.iter()
                .map(|&x| encode(x, ty) as u16)
                .collect::<Vec<u16>>()
        };
        let da = stream.clone_htod(&to16(&a, types.a)).unwrap();
        let db = stream.clone_htod(&to16(&b, types.b)).unwrap();
        if types.c.size_bits() == 16 {
            let dc = stream.clone_htod(&to16(&c, types.c)).unwrap();
            let mut dd = stream.clone_htod(&vec![0xFFFFu16; tiles * m * n]).unwrap();
            launch(device, atom, &stream, &da, &db, &dc, &mut dd);
            stream
                .clone_dtoh(&dd)
                .unwrap()
                .into_iter()
                .map(u32::from)
                .collect()
        } else {
            let dc = stream.clone_htod(&to32(&c)).unwrap();
            let mut dd = stream.clone_htod(&vec![u32::MAX; tiles * m * n]).unwrap();
            launch(device, atom, &stream, &da, &db, &dc, &mut dd);
            stream.clone_dtoh(&dd).unwrap()
        }
    } else {
        let da = stream.clone_htod(&to32(&a)).unwrap();
        let db = stream.clone_htod(&to32(&b)).unwrap();
        let dc = stream.clone_htod(&to32(&c)).unwrap();
        let mut dd = stream.clone_htod(&vec![u32::MAX; tiles * m * n]).unwrap();
        launch(device, atom, &stream, &da, &db, &dc, &mut dd);
        stream.clone_dtoh(&dd).unwrap()
    };
    assert_eq!(
        first_mismatch(&got, &want),
        None,
        "{atom}: (index, got, want)"
    );
    eprintln!("{atom}: {tiles} x {m}x{n}x{kk} matches the host bit for bit");
}

fn to32(v: &[f64]) -> Vec<u32> {
    v.iter().map(|&x| (x as f32).to_bits()).collect()
}

fn launch<A, B, C, D>(
    device: &Device,
    atom: MmaAtom,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    a: &cudarc::driver::CudaSlice<A>,
    b: &cudarc::driver::CudaSlice<B>,
    c: &cudarc::driver::CudaSlice<C>,
    d: &mut cudarc::driver::CudaSlice<D>,
) {
    let ptx = mma_kernel(atom);
    let module = DeviceModule::load(device, atom.name(), &ptx).unwrap();
    let function = module.function("atom_mma").unwrap();
    let mut args = KernelArgs::new(stream);
    args.input(a).input(b).input(c).output(d);
    let threads = if atom.thr_id().size() > 1 { 32 } else { 1 };
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: params are (a, b, c, d: u64) in that order; each buffer holds
    // `tiles(atom)` of the atom's whole M x K, N x K, M x N tiles of its
    // type, and each thread touches only offsets of its partitions inside
    // its own tile (`emit_team`), which lie inside those buffers.
    unsafe { function.launch(&config, args) }.unwrap();
    stream.synchronize().unwrap();
}

#[test]
fn the_lane_split_is_the_quad_pair_thread_ids() {
    for atom in MmaAtom::ALL.into_iter().filter(|&a| is_quad_pair(a)) {
        let thr_id = atom.thr_id();
        for lane in 0..32 {
            let (t, q) = quad_pair_of_lane(lane);
            assert_eq!(thr_id.at(t) + 4 * q, lane, "{atom}");
        }
    }
}

#[test]
fn every_mma_atom_matches_a_host_gemm() {
    let Some(device) = device_or_skip("every_mma_atom_matches_a_host_gemm") else {
        return;
    };
    for (i, atom) in MmaAtom::ALL.into_iter().enumerate() {
        run_mma(&device, atom, 10 * i as u64);
    }
}

fn ldsm_kernel(trans: bool) -> String {
    let mut k = Kernel::new("ldsm").unwrap();
    let src_p = k.param("src", ParamType::U64).unwrap();
    let out_p = k.param("out", ParamType::U64).unwrap();
    let tile = k.shared_static("tile", 128, 512).unwrap();
    let src = k.load_param(&src_p).unwrap();
    let out = k.load_param(&out_p).unwrap();
    k.cvta_to_global(src, src);
    k.cvta_to_global(out, out);
    let tid = k.special(SpecialReg::TidX);
    let row = k.reg(RegClass::B32);
    k.push(format!("shl.b32 {row}, {tid}, 4;"));
    let wide = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {wide}, {row};"));
    k.push(format!("add.s64 {src}, {src}, {wide};"));
    k.push(format!("add.s64 {out}, {out}, {wide};"));
    let smem = k.shared_address(&tile);
    k.push(format!("add.s32 {smem}, {smem}, {row};"));
    let v = k.regs(RegClass::B32, 4);
    UniversalCopy::<128>::emit_load(&mut k, MemorySpace::Global, &v, &src).unwrap();
    UniversalCopy::<128>::emit_store(&mut k, MemorySpace::Shared, &smem, &v).unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    let d = k.regs(RegClass::B32, 4);
    if trans {
        SM75_U16x8_LDSM_T::emit(&mut k, &d, &smem).unwrap();
    } else {
        SM75_U32x4_LDSM_N::emit(&mut k, &d, &smem).unwrap();
    }
    UniversalCopy::<128>::emit_store(&mut k, MemorySpace::Global, &out, &d).unwrap();
    let mut module = Module::new(ArchKind::Sm80);
    module.add_kernel(k).unwrap();
    module.emit().unwrap()
}

fn run_ldsm(device: &Device, atom: CopyAtom, trans: bool) {
    let stream = device.default_stream();
    let src: Vec<u16> = (0..256u16)
        .map(|i| i.wrapping_mul(0x9E37) ^ 0x5A5A)
        .collect();
    let dsrc = stream.clone_htod(&src).unwrap();
    let mut dout = stream.clone_htod(&vec![0xFFFF_FFFFu32; 128]).unwrap();
    let module = DeviceModule::load(device, atom.name(), &ldsm_kernel(trans)).unwrap();
    let function = module.function("ldsm").unwrap();
    let mut args = KernelArgs::new(&stream);
    args.input(&dsrc).output(&mut dout);
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: params are (src, out: u64); src holds 256 u16 (512 bytes) and
    // out 128 u32 (512 bytes): 32 threads each read and write 16 bytes at
    // 16 * tid.
    unsafe { function.launch(&config, args) }.unwrap();
    let got = stream.clone_dtoh(&dout).unwrap();
    let dst = atom.dst_layout();
    let want: Vec<u32> = (0..128)
        .map(|w| {
            let (lane, j) = (w / 4, w % 4);
            let half =
                |h: i64| u32::from(src[(dst.at(lane + 32 * (16 * h + 32 * j)) / 16) as usize]);
            half(0) | (half(1) << 16)
        })
        .collect();
    assert_eq!(
        first_mismatch(&got, &want),
        None,
        "{atom}: (word, got, want)"
    );
    eprintln!("{atom}: every lane's registers match the destination layout");
}

#[test]
fn ldmatrix_matches_the_copy_atom_layouts() {
    let Some(device) = device_or_skip("ldmatrix_matches_the_copy_atom_layouts") else {
        return;
    };
    run_ldsm(&device, CopyAtom::Sm75U32x4LdsmN, false);
    run_ldsm(&device, CopyAtom::Sm75U16x8LdsmT, true);
}

#[test]
fn generated_kernels_assemble() {
    for atom in MmaAtom::ALL {
        let ptx = mma_kernel(atom);
        for target in [atom.min_arch().ptx_target(), "sm_80"] {
            if let Some(report) = common::ptxas::assemble(&ptx, target) {
                let f = report.function("atom_mma");
                assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{atom} {target}");
            }
        }
    }
    for trans in [false, true] {
        common::ptxas::assemble(&ldsm_kernel(trans), "sm_80");
    }
}
