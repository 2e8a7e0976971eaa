//! Assembles the SM90 TMA instructions with ptxas for sm_90a: a kernel that
//! takes a by-value tensor map's address, prefetches it, issues 2-D and 3-D
//! loads, a multicast load and a store with its fence, commit and wait; and
//! the three kernels the GPU test (`tma_gpu.rs`) launches.

mod common;
mod tma_kernels;

use common::probe::module_ptx;
use common::ptxas::{assemble, PtxasReport};
use cutlet::arch::ArchKind;
use cutlet::atom::{
    emit_prefetch_tensor_map, emit_tensor_map_address, emit_tma_load, emit_tma_load_multicast,
    emit_tma_store, emit_tma_store_arrive, emit_tma_store_fence, emit_tma_store_wait, Coord,
};
use cutlet::ptx::{Kernel, ParamType, RegClass, SpecialReg};

fn assert_assembles_without_spills(report: &PtxasReport, name: &str) {
    let f = report.function(name);
    eprintln!("{name}: {f:?}");
    assert_eq!(
        (f.spill_stores, f.spill_loads),
        (0, 0),
        "{name} spills: {f:?}"
    );
}

#[test]
fn every_tma_instruction_assembles_for_sm90a() {
    let mut k = Kernel::new("tma_every_instruction").unwrap();
    k.max_threads(128, 1, 1);
    let tmap = k.param("tmap", ParamType::TENSOR_MAP).unwrap();
    let tile = k.shared_static("tile", 1024, 16384).unwrap();
    let bar = k.shared_static("bar", 8, 8).unwrap();
    let map = emit_tensor_map_address(&mut k, &tmap).unwrap();
    emit_prefetch_tensor_map(&mut k, map).unwrap();
    let dst = k.shared_address(&tile);
    let mbar = k.shared_address(&bar);
    let x = k.special(SpecialReg::CtaidX);
    let y = k.special(SpecialReg::CtaidY);
    let mask = k.reg(RegClass::B16);
    k.push(format!("mov.b16 {mask}, 3;"));
    emit_tma_load(&mut k, dst, map, &[Coord::Imm(0), x.into()], mbar).unwrap();
    emit_tma_load(
        &mut k,
        dst,
        map,
        &[x.into(), y.into(), Coord::Imm(-4)],
        mbar,
    )
    .unwrap();
    emit_tma_load_multicast(&mut k, dst, map, &[x.into(), Coord::Imm(64)], mbar, mask).unwrap();
    emit_tma_load(
        &mut k,
        dst,
        map,
        &[x.into(), y.into(), 1.into(), 2.into(), 3.into()],
        mbar,
    )
    .unwrap();
    emit_tma_store_fence(&mut k).unwrap();
    emit_tma_store(&mut k, map, &[y.into(), x.into()], dst).unwrap();
    emit_tma_store(&mut k, map, &[Coord::Imm(7)], dst).unwrap();
    emit_tma_store_arrive(&mut k).unwrap();
    emit_tma_store_wait(&mut k, 0).unwrap();
    let ptx = module_ptx(ArchKind::Sm90, k);
    for line in [
        "cvta.param.u64",
        "prefetch.tensormap",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.3d.shared::cluster",
        "cp.async.bulk.tensor.5d.shared::cluster",
        ".multicast::cluster",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group",
        "fence.proxy.async.shared::cta;",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group.read 0;",
    ] {
        assert!(ptx.contains(line), "`{line}` missing from\n{ptx}");
    }
    if let Some(report) = assemble(&ptx, "sm_90a") {
        assert_assembles_without_spills(&report, "tma_every_instruction");
    }
}

#[test]
fn the_gpu_tests_tma_kernels_assemble_for_sm90a() {
    for (name, ptx) in [
        (tma_kernels::LOAD, tma_kernels::load_ptx()),
        (tma_kernels::STORE, tma_kernels::store_ptx()),
        (tma_kernels::MULTICAST, tma_kernels::multicast_ptx()),
    ] {
        let Some(report) = assemble(&ptx, "sm_90a") else {
            return;
        };
        assert_assembles_without_spills(&report, name);
        assert!(
            report.function(name).shared_bytes >= tma_kernels::BOX_BYTES,
            "{name}: {:?}",
            report.function(name)
        );
    }
}
