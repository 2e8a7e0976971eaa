//! Every atom's `emit` output assembles with ptxas for the targets that have
//! its instruction: sm_80 and sm_90a for all, sm_70 for the SIMT ones and
//! the SM70 `m8n8k4` MMAs (which also assemble for sm_80).

mod common;

use common::probe::{module_ptx, probe_kernel};
use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::atom::{
    CopyValue, MemorySpace, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N, SM80_16x8x16_F32BF16BF16F32_TN,
    SM90_U16x8_STSM_T, SM90_U32x4_STSM_N, UniversalCopy, UniversalFMA, SM70_MMA,
    SM80_CP_ASYNC_CACHEGLOBAL_ZFILL, SM80_MMA,
};
use cutlet::ptx::{Kernel, Reg, RegClass};

/// A kernel that loads operands from `src`, runs each available atom once
/// and stores what it produced to `dst`, so nothing is dead code.
fn atoms_kernel(arch: ArchKind) -> String {
    let (mut k, [src, dst, smem]) = probe_kernel("atoms", 32, 128, 32 * 16);

    let v = k.regs(RegClass::B32, 4);
    UniversalCopy::<128>::emit_load(&mut k, MemorySpace::Global, &v, &src).unwrap();
    UniversalCopy::<64>::emit_load(&mut k, MemorySpace::Global, &v[..2], &src).unwrap();
    UniversalCopy::<32>::emit_load(&mut k, MemorySpace::Global, &v[..1], &src).unwrap();
    UniversalCopy::<128>::emit_store(&mut k, MemorySpace::Shared, &smem, &v).unwrap();
    UniversalCopy::<64>::emit_store(&mut k, MemorySpace::Shared, &smem, &v[..2]).unwrap();
    UniversalCopy::<32>::emit_store(&mut k, MemorySpace::Shared, &smem, &v[..1]).unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    UniversalCopy::<128>::emit_load(&mut k, MemorySpace::Shared, &v, &smem).unwrap();

    let f = k.regs(RegClass::F32, 4);
    for (i, r) in f.iter().enumerate() {
        k.push(format!("mov.b32 {r}, {};", v[i]));
    }
    UniversalFMA
        .emit(&mut k, &f[..1], &f[1..2], &f[2..3], &f[3..4])
        .unwrap();

    if arch >= ArchKind::Sm80 {
        SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit(&mut k, &smem, src, &16).unwrap();
        SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_commit(&mut k).unwrap();
        SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_wait(&mut k, 0).unwrap();
        k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
        let a = k.regs(RegClass::B32, 4);
        let b = k.regs(RegClass::B32, 4);
        SM75_U32x4_LDSM_N::emit(&mut k, &a, &smem).unwrap();
        SM75_U16x8_LDSM_T::emit(&mut k, &b, &smem).unwrap();
        let half = k.regs(RegClass::B32, 2);
        for atom in SM80_MMA {
            let c: &[_] = if atom.regs().c_class == RegClass::B32 {
                &half
            } else {
                &f
            };
            atom.emit(&mut k, c, &a, &b[..2], c).unwrap();
        }
        for (i, r) in half.iter().enumerate() {
            k.push(format!("add.u32 {}, {}, {r};", v[i], v[i]));
        }
        if arch >= ArchKind::Sm90 {
            // The stores of the fragments back, read again below.
            SM90_U32x4_STSM_N::emit(&mut k, &a, &smem).unwrap();
            SM90_U16x8_STSM_T::emit(&mut k, &b, &smem).unwrap();
            k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
            UniversalCopy::<32>::emit_load(&mut k, MemorySpace::Shared, &half[..1], &smem).unwrap();
            k.push(format!("add.u32 {}, {}, {};", v[0], v[0], half[0]));
        }
    }
    for (i, r) in f.iter().enumerate() {
        k.push(format!("mov.b32 {}, {r};", v[i]));
    }
    let p = k.reg(RegClass::Pred);
    k.push(format!("setp.ne.u32 {p}, {}, 0;", v[0]));
    UniversalCopy::<128>::emit_load_predicated(&mut k, p, &v, &dst).unwrap();
    UniversalCopy::<32>::emit_store_predicated(&mut k, p, &dst, &v[..1]).unwrap();
    UniversalCopy::<128>::emit_store(&mut k, MemorySpace::Global, &dst, &v).unwrap();
    module_ptx(arch, k)
}

#[test]
fn atoms_assemble_for_every_arch_that_has_them() {
    for arch in ArchKind::ALL {
        let ptx = atoms_kernel(arch);
        if arch >= ArchKind::Sm80 {
            assert!(ptx.contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
            assert!(ptx.contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
        }
        if arch >= ArchKind::Sm90 {
            assert!(ptx.contains("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
        }
        let Some(report) = assemble(&ptx, arch.ptx_target()) else {
            return;
        };
        let f = report.function("atoms");
        assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{arch:?}: {f:?}");
    }
}

/// A kernel running every SM70 `m8n8k4` atom once through its own `emit`,
/// A and B from `src`, accumulating in place into f32 and f16x2 registers
/// that are then stored to `dst`, for a module targeting `arch`.
fn sm70_mma_kernel(arch: ArchKind) -> String {
    let (mut k, [src, dst, _]) = probe_kernel("sm70_mma", 32, 16, 16);
    let v = k.regs(RegClass::B32, 4);
    UniversalCopy::<128>::emit_load(&mut k, MemorySpace::Global, &v, &src).unwrap();
    let f32_acc = k.regs(RegClass::F32, 8);
    for (i, r) in f32_acc.iter().enumerate() {
        k.push(format!("mov.b32 {r}, {};", v[i % 4]));
    }
    let f16_acc = k.regs(RegClass::B32, 4);
    for (r, x) in f16_acc.iter().zip(&v) {
        k.push(format!("mov.b32 {r}, {x};"));
    }
    for atom in SM70_MMA {
        let regs = atom.regs();
        let acc: &[Reg] = if regs.c_class == RegClass::F32 {
            &f32_acc
        } else {
            &f16_acc
        };
        atom.emit(&mut k, acc, &v[..regs.a], &v[4 - regs.b..], acc)
            .unwrap();
    }
    let bits = k.reg(RegClass::B32);
    for (i, r) in f32_acc.iter().enumerate() {
        let sum = f16_acc[i % 4];
        k.push(format!("mov.b32 {bits}, {r};"));
        k.push(format!("add.u32 {sum}, {sum}, {bits};"));
    }
    UniversalCopy::<128>::emit_store(&mut k, MemorySpace::Global, &dst, &f16_acc).unwrap();
    module_ptx(arch, k)
}

#[test]
fn sm70_mma_atoms_assemble_for_sm70_and_sm80() {
    for module_arch in [ArchKind::Sm70, ArchKind::Sm80] {
        let ptx = sm70_mma_kernel(module_arch);
        for atom in SM70_MMA {
            assert!(ptx.contains(atom.opcode()), "{atom} missing");
        }
        for target in ["sm_70", "sm_80"] {
            if target == "sm_70" && module_arch == ArchKind::Sm80 {
                continue;
            }
            let Some(report) = assemble(&ptx, target) else {
                return;
            };
            let f = report.function("sm70_mma");
            assert_eq!(
                (f.spill_stores, f.spill_loads),
                (0, 0),
                "{module_arch:?} on {target}: {f:?}"
            );
        }
    }
}

#[test]
fn emit_rejects_wrong_registers_with_a_named_error() {
    let mut k = Kernel::new("bad").unwrap();
    let a = k.regs(RegClass::B32, 3);
    let f = k.regs(RegClass::F32, 4);
    let err = SM80_16x8x16_F32BF16BF16F32_TN
        .emit(&mut k, &f, &a, &a[..2], &f)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mma a") && err.contains("3 registers"),
        "{err}"
    );
    let wrong_class = k.regs(RegClass::F32, 4);
    let err = SM75_U32x4_LDSM_N::emit(&mut k, &wrong_class, &"tile")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ldmatrix dst") && err.contains(".f32"),
        "{err}"
    );
    let r = k.reg(RegClass::B32);
    let err = UniversalCopy::<32>::emit_load(&mut k, MemorySpace::Global, &[r], &r)
        .unwrap_err()
        .to_string();
    assert!(err.contains("global address"), "{err}");
    let (p, wide) = (k.reg(RegClass::Pred), k.reg(RegClass::B64));
    let halves = k.regs(RegClass::B16, 8);
    let err =
        UniversalCopy::<128>::emit_load_predicated_typed(&mut k, CopyValue::B16, p, &halves, &wide)
            .unwrap_err()
            .to_string();
    assert!(err.contains(".b16 in 128 bits"), "{err}");
    let words = k.regs(RegClass::B32, 2);
    let err = UniversalCopy::<64>::emit_store_typed(
        &mut k,
        MemorySpace::Shared,
        CopyValue::F32,
        &"tile",
        &words,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("universal copy registers") && err.contains(".f32"),
        "{err}"
    );
}

/// Every typed form of `UniversalCopy<BITS>` at `value`: global -> shared
/// -> global, then the predicated global load and store.
fn typed_round_trip<const BITS: u32>(
    k: &mut Kernel,
    value: CopyValue,
    [src, dst, smem]: [Reg; 3],
    p: Reg,
) {
    let count = UniversalCopy::<BITS>::values(value).unwrap();
    let v = k.regs(value.reg_class(), count);
    UniversalCopy::<BITS>::emit_load_typed(k, MemorySpace::Global, value, &v, &src).unwrap();
    UniversalCopy::<BITS>::emit_store_typed(k, MemorySpace::Shared, value, &smem, &v).unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    UniversalCopy::<BITS>::emit_load_typed(k, MemorySpace::Shared, value, &v, &smem).unwrap();
    UniversalCopy::<BITS>::emit_store_typed(k, MemorySpace::Global, value, &dst, &v).unwrap();
    UniversalCopy::<BITS>::emit_load_predicated_typed(k, value, p, &v, &src).unwrap();
    UniversalCopy::<BITS>::emit_store_predicated_typed(k, value, p, &dst, &v).unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
}

/// A kernel running every typed universal copy: each width at each value
/// type it holds 1, 2 or 4 of, in both state spaces, plain and predicated;
/// its PTX and the predicate's name.
fn typed_copies_kernel(arch: ArchKind) -> (String, String) {
    let (mut k, regs) = probe_kernel("typed_copies", 32, 16, 32 * 16);
    let p = k.reg(RegClass::Pred);
    k.push(format!("setp.ne.u64 {p}, {}, 0;", regs[0]));
    for value in CopyValue::ALL {
        // One, two and four values of each type.
        match value.bits() {
            8 => {
                typed_round_trip::<8>(&mut k, value, regs, p);
                typed_round_trip::<16>(&mut k, value, regs, p);
                typed_round_trip::<32>(&mut k, value, regs, p);
            }
            16 => {
                typed_round_trip::<16>(&mut k, value, regs, p);
                typed_round_trip::<32>(&mut k, value, regs, p);
                typed_round_trip::<64>(&mut k, value, regs, p);
            }
            _ => {
                typed_round_trip::<32>(&mut k, value, regs, p);
                typed_round_trip::<64>(&mut k, value, regs, p);
                typed_round_trip::<128>(&mut k, value, regs, p);
            }
        }
    }
    (module_ptx(arch, k), p.to_string())
}

#[test]
fn typed_universal_copies_assemble_for_every_arch() {
    for arch in ArchKind::ALL {
        let (ptx, p) = typed_copies_kernel(arch);
        for form in [
            String::from("ld.shared.v4.f32"),
            String::from("st.shared.v2.f32"),
            String::from("ld.shared.f32"),
            String::from("st.global.b16"),
            format!("@{p} ld.global.u16"),
            format!("@{p} st.global.v4.b16"),
            format!("@{p} ld.global.u8"),
            String::from("st.shared.v4.u8"),
        ] {
            assert!(ptx.contains(&form), "{form} missing");
        }
        let Some(report) = assemble(&ptx, arch.ptx_target()) else {
            return;
        };
        let f = report.function("typed_copies");
        assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{arch:?}: {f:?}");
    }
}
