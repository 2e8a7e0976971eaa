//! The SM90 wgmma emitters assemble with ptxas for sm_90a: every type
//! family at N = 8, 64, 128, 256, `_SS` and `_RS`, transposed and not
//! (16-bit), descriptors built by `GmmaDescriptor::emit`, between fence,
//! commit and wait; and every 8-bit type pair and accumulator at four
//! widths (an odd multiple of 8 for FP8, the integers' 24 and 48).

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::atom::{
    emit_wgmma_commit, emit_wgmma_fence, emit_wgmma_wait, gmma_smem_layout, GmmaA, GmmaDescriptor,
    GmmaSwizzle, MmaAtom, MmaSource, ScaleD, SM90_GMMA, SM90_GMMA_F8, SM90_GMMA_I8,
};
use cutlet::gemm::OperandMajor;
use cutlet::numeric::ElementType::BF16;
use cutlet::ptx::{Kernel, Module, ParamType, Reg, RegClass, SpecialReg};

/// What every test kernel starts with: a warpgroup kernel `name` with a
/// `dst` pointer, A's and B's descriptors (of one bf16 stage: their bits
/// do not matter to ptxas), four A registers and a predicate.
struct Operands {
    k: Kernel,
    dst: Reg,
    desc_a: Reg,
    desc_b: Reg,
    a: Vec<Reg>,
    p: Reg,
}

fn operands(name: &str) -> Operands {
    let mut k = Kernel::new(name).unwrap();
    k.max_threads(128, 1, 1);
    let dst_param = k.param("dst", ParamType::U64).unwrap();
    let tile = k.shared_static("tile", 1024, 32 * 1024).unwrap();
    let dst = k.load_param(&dst_param).unwrap();
    k.cvta_to_global(dst, dst);
    let base = k.shared_address(&tile);

    let stage = gmma_smem_layout(OperandMajor::K, BF16, GmmaSwizzle::B128, 256, 64).unwrap();
    let slice = GmmaDescriptor::slice(&stage, [64, 16], [0, 0]).unwrap();
    let desc = GmmaDescriptor::from_layout(OperandMajor::K, BF16, &slice).unwrap();
    let desc_a = desc.emit(&mut k, base).unwrap();
    let desc_b = desc.emit(&mut k, base).unwrap();

    let tid = k.special(SpecialReg::TidX);
    let a = k.regs(RegClass::B32, 4);
    for r in &a {
        k.push(format!("mov.b32 {r}, {tid};"));
    }
    let p = k.reg(RegClass::Pred);
    k.push(format!("setp.ne.u32 {p}, {tid}, 0;"));
    Operands {
        k,
        dst,
        desc_a,
        desc_b,
        a,
        p,
    }
}

fn wgmma_kernel() -> String {
    let Operands {
        mut k,
        dst,
        desc_a,
        desc_b,
        a,
        p,
    } = operands("wgmma_forms");
    let sum = k.reg(RegClass::F32);
    k.push(format!("mov.f32 {sum}, 0f00000000;"));
    let mut count = 0;
    for atom in SM90_GMMA {
        let n = atom.shape_mnk()[1];
        if ![8, 64, 128, 256].contains(&n) {
            continue;
        }
        let sixteen_bit = atom.types().a.size_bits() == 16;
        let transposes: &[(bool, bool)] = match (sixteen_bit, atom.source()) {
            (false, _) => &[(false, false)],
            (true, MmaSource::SharedShared) => &[(false, false), (true, true), (true, false)],
            (true, _) => &[(false, false), (false, true)],
        };
        for &(ta, tb) in transposes {
            let acc = k.regs(atom.regs().c_class, atom.regs().c);
            for r in &acc {
                k.push(format!("mov.b32 {r}, 0;"));
            }
            emit_wgmma_fence(&mut k).unwrap();
            let operand = match atom.source() {
                MmaSource::SharedShared => GmmaA::Desc(desc_a),
                _ => GmmaA::Regs(&a),
            };
            atom.emit_wgmma(&mut k, &acc, operand, desc_b, ScaleD::Zero, ta, tb)
                .unwrap();
            atom.emit_wgmma(&mut k, &acc, operand, desc_b, ScaleD::Pred(p), ta, tb)
                .unwrap();
            atom.emit_wgmma(&mut k, &acc, operand, desc_b, ScaleD::One, ta, tb)
                .unwrap();
            emit_wgmma_commit(&mut k).unwrap();
            emit_wgmma_wait(&mut k, 0).unwrap();
            let last = acc[acc.len() - 1];
            let value = k.reg(RegClass::F32);
            k.push(format!("mov.b32 {value}, {last};"));
            k.push(format!("add.f32 {sum}, {sum}, {value};"));
            count += 1;
        }
    }
    assert_eq!(count, 4 * (3 + 2 + 3 + 2 + 3 + 2 + 1 + 1));
    k.push(format!("st.global.f32 [{dst}], {sum};"));
    let mut module = Module::new(ArchKind::Sm90);
    module.add_kernel(k).unwrap();
    module.emit().unwrap()
}

#[test]
fn wgmma_forms_assemble_for_sm90a() {
    let ptx = wgmma_kernel();
    assert!(ptx.contains(".target sm_90a"), "{}", &ptx[..200]);
    for opcode in [
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16",
        "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
        "wgmma.fence.sync.aligned;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 0;",
    ] {
        assert!(ptx.contains(opcode), "{opcode}");
    }
    let Some(report) = assemble(&ptx, ArchKind::Sm90.ptx_target()) else {
        return;
    };
    let f = report.function("wgmma_forms");
    assert_eq!(f.spill_stores, 0, "{f:?}");
}

/// One kernel issuing every atom of `atoms` whose N is in `widths`, `_SS`
/// and `_RS`, with each `scale-d` form, in a PTX ISA 8.4 module (mixed
/// s8/u8 needs it).
fn wgmma_8bit_kernel(atoms: &[MmaAtom], widths: &[i64]) -> (String, usize) {
    let Operands {
        mut k,
        dst,
        desc_a,
        desc_b,
        a,
        p,
    } = operands("wgmma_8bit_forms");
    let sum = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {sum}, 0;"));
    let mut count = 0;
    for atom in atoms {
        if !widths.contains(&atom.shape_mnk()[1]) {
            continue;
        }
        let acc = k.regs(atom.regs().c_class, atom.regs().c);
        for r in &acc {
            k.push(format!("mov.b32 {r}, 0;"));
        }
        emit_wgmma_fence(&mut k).unwrap();
        let operand = match atom.source() {
            MmaSource::SharedShared => GmmaA::Desc(desc_a),
            _ => GmmaA::Regs(&a),
        };
        for scale in [ScaleD::Zero, ScaleD::Pred(p), ScaleD::One] {
            atom.emit_wgmma(&mut k, &acc, operand, desc_b, scale, false, false)
                .unwrap();
        }
        emit_wgmma_commit(&mut k).unwrap();
        emit_wgmma_wait(&mut k, 0).unwrap();
        let value = k.reg(RegClass::B32);
        k.push(format!("mov.b32 {value}, {};", acc[acc.len() - 1]));
        k.push(format!("xor.b32 {sum}, {sum}, {value};"));
        count += 1;
    }
    k.push(format!("st.global.b32 [{dst}], {sum};"));
    let mut module = Module::new(ArchKind::Sm90).with_ptx_version(8, 4).unwrap();
    module.add_kernel(k).unwrap();
    (module.emit().unwrap(), count)
}

#[test]
fn eight_bit_wgmma_forms_assemble_for_sm90a() {
    for (atoms, widths, expected, opcodes) in [
        (
            &SM90_GMMA_F8[..],
            &[8, 40, 128, 256][..],
            4 * 16,
            &[
                "wgmma.mma_async.sync.aligned.m64n40k32.f32.e4m3.e5m2",
                "wgmma.mma_async.sync.aligned.m64n256k32.f16.e5m2.e5m2",
            ][..],
        ),
        (
            &SM90_GMMA_I8[..],
            &[8, 24, 48, 256][..],
            4 * 8,
            &[
                "wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.u8",
                "wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.u8",
            ][..],
        ),
    ] {
        let (ptx, count) = wgmma_8bit_kernel(atoms, widths);
        assert_eq!(count, expected);
        assert!(ptx.contains(".version 8.4"), "{}", &ptx[..200]);
        for opcode in opcodes {
            assert!(ptx.contains(opcode), "{opcode}");
        }
        let Some(report) = assemble(&ptx, ArchKind::Sm90.ptx_target()) else {
            return;
        };
        let f = report.function("wgmma_8bit_forms");
        assert_eq!(f.spill_stores, 0, "{f:?}");
    }
}
