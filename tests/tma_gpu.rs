//! The SM90 TMA copies on the GPU, with tensor maps from
//! `TmaTiled::encode`: a load writes the box's bytes where the swizzle puts
//! them and zeros outside the tensor; a store writes the box and nothing
//! outside the tensor; a multicast load fills both CTAs of a cluster.
//!
//! The tensor is a random row-major M x K bf16 matrix (as raw `u16` bits,
//! compared bit for bit), M = 200 and K = 96, so boxes of 64 x 128 at
//! `{64, 128}` reach past both edges. The kernels are `tests/tma_kernels/`,
//! also assembled by `tma_ptxas.rs`. Each test skips with a printed reason
//! where no driver or GPU is found (and fails instead under
//! `CUTLET_REQUIRE_GPU=1`), and where the GPU is not compute capability 9.0.

mod common;
mod tma_kernels;

use std::sync::Arc;

use common::gpu::{first_mismatch, random_vec};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use cutlet::device::{Device, Function, KernelArgs, LaunchConfig, Module, TmaSwizzle, TmaTiled};
use cutlet::layout::Layout;
use cutlet::numeric::ElementType;
use cutlet_harness::sm90_or_skip;
use tma_kernels::{shared_offset, BOX_BYTES, BOX_COLS, BOX_ROWS, CLUSTER, THREADS};

/// Rows of the global matrix.
const M: usize = 200;
/// Columns of the global matrix (the contiguous dimension).
const K: usize = 96;
/// What global memory holds where no kernel wrote.
const POISON: u16 = 0xDEAD;
/// Elements of one box.
const BOX_ELEMENTS: usize = (BOX_BYTES / 2) as usize;

/// The kernel `name` of `ptx`, compiled for `device`.
fn function(device: &Device, name: &str, ptx: &str) -> Function {
    let module = Module::load(device, name, ptx).unwrap_or_else(|e| panic!("JIT of {name}: {e}"));
    module.function(name).expect("kernel in its module")
}

fn device_address(stream: &Arc<CudaStream>, buffer: &CudaSlice<u16>) -> u64 {
    let (address, _sync) = buffer.device_ptr(stream);
    address
}

/// The map of the M x K matrix at `address`, boxes of `BOX_COLS` x `rows`.
fn matrix_map(address: u64, rows: u32, swizzle: TmaSwizzle) -> TmaTiled {
    let layout: Layout = format!("({K},{M}):(1,{K})").parse().unwrap();
    TmaTiled::from_layout(
        ElementType::BF16,
        address,
        &layout,
        &[BOX_COLS, rows],
        swizzle,
    )
    .expect("a valid map")
}

/// The global element (`m`, `k`) if it lies in the matrix.
fn index(m: i64, k: i64) -> Option<usize> {
    let inside = (0..M as i64).contains(&m) && (0..K as i64).contains(&k);
    inside.then(|| m as usize * K + k as usize)
}

/// What shared memory holds after loading the box at `{c0, c1}` of `a`:
/// each element at its swizzled offset, zeros outside the matrix.
fn loaded_box(a: &[u16], (c0, c1): (i32, i32), swizzle: TmaSwizzle) -> Vec<u16> {
    let mut image = vec![POISON; BOX_ELEMENTS];
    for row in 0..BOX_ROWS as usize {
        for col in 0..BOX_COLS as usize {
            let at = index(i64::from(c1) + row as i64, i64::from(c0) + col as i64);
            image[shared_offset(row, col, swizzle) / 2] = at.map_or(0, |i| a[i]);
        }
    }
    image
}

fn one_block() -> LaunchConfig {
    LaunchConfig {
        grid: (1, 1, 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

#[test]
fn tma_load_places_the_box_by_its_swizzle_with_zeros_outside_the_matrix() {
    let Some(device) = sm90_or_skip("tma_load_places_the_box_by_its_swizzle", "the TMA kernels")
    else {
        return;
    };
    let stream = device.default_stream();
    let load = function(&device, tma_kernels::LOAD, &tma_kernels::load_ptx());
    let a: Vec<u16> = random_vec(11, M * K, 0, u16::MAX);
    let a_dev = stream.clone_htod(&a).expect("upload");
    let address = device_address(&stream, &a_dev);
    for swizzle in [TmaSwizzle::None, TmaSwizzle::B128] {
        let map = matrix_map(address, BOX_ROWS, swizzle)
            .encode()
            .expect("encode");
        for coords in [(0, 0), (64, 128), (-16, -8)] {
            let mut out = stream
                .clone_htod(&vec![POISON; BOX_ELEMENTS])
                .expect("upload");
            let mut args = KernelArgs::new(&stream);
            args.tensor_map(map)
                .output(&mut out)
                .scalar(coords.0 as u32)
                .scalar(coords.1 as u32);
            // SAFETY: tma_load_box(tmap, out, c0, c1) reads the matrix the
            // map describes (`a_dev`, alive) and writes BOX_BYTES bytes to
            // `out`, which holds them.
            unsafe { load.launch(&one_block(), args) }.expect("launch");
            let got = stream.clone_dtoh(&out).expect("download");
            let want = loaded_box(&a, coords, swizzle);
            assert_eq!(
                first_mismatch(&got, &want),
                None,
                "swizzle {swizzle}, box at {coords:?}: (shared element, got, want)"
            );
        }
    }
}

#[test]
fn tma_store_writes_the_box_and_nothing_outside_the_matrix() {
    let Some(device) = sm90_or_skip("tma_store_writes_the_box", "the TMA kernels") else {
        return;
    };
    let stream = device.default_stream();
    let store = function(&device, tma_kernels::STORE, &tma_kernels::store_ptx());
    for (seed, swizzle) in [(21, TmaSwizzle::None), (22, TmaSwizzle::B128)] {
        let tile: Vec<u16> = random_vec(seed, BOX_ELEMENTS, 0, u16::MAX);
        let tile_dev = stream.clone_htod(&tile).expect("upload");
        let c_dev = stream.clone_htod(&vec![POISON; M * K]).expect("upload");
        let map = matrix_map(device_address(&stream, &c_dev), BOX_ROWS, swizzle)
            .encode()
            .expect("encode");
        let mut want = vec![POISON; M * K];
        // An inner box, then one clipped by both edges.
        for (c0, c1) in [(0i32, 0i32), (64, 128)] {
            let mut args = KernelArgs::new(&stream);
            args.tensor_map(map)
                .input(&tile_dev)
                .scalar(c0 as u32)
                .scalar(c1 as u32);
            // SAFETY: tma_store_box(tmap, src, c0, c1) reads BOX_BYTES bytes
            // of `tile_dev` and writes the box's in-bounds part of the
            // matrix the map describes (`c_dev`, alive).
            unsafe { store.launch(&one_block(), args) }.expect("launch");
            for row in 0..BOX_ROWS as usize {
                for col in 0..BOX_COLS as usize {
                    let at = index(i64::from(c1) + row as i64, i64::from(c0) + col as i64);
                    if let Some(i) = at {
                        want[i] = tile[shared_offset(row, col, swizzle) / 2];
                    }
                }
            }
        }
        let got = stream.clone_dtoh(&c_dev).expect("download");
        assert_eq!(
            first_mismatch(&got, &want),
            None,
            "swizzle {swizzle}: (element m * {K} + k, got, want)"
        );
    }
}

#[test]
fn tma_multicast_load_fills_every_cta_of_the_cluster() {
    let Some(device) = sm90_or_skip("tma_multicast_load_fills_every_cta", "the TMA kernels") else {
        return;
    };
    let stream = device.default_stream();
    let multicast = function(
        &device,
        tma_kernels::MULTICAST,
        &tma_kernels::multicast_ptx(),
    );
    let a: Vec<u16> = random_vec(31, M * K, 0, u16::MAX);
    let a_dev = stream.clone_htod(&a).expect("upload");
    let swizzle = TmaSwizzle::B128;
    // Each CTA loads half the rows of the box and multicasts them to both.
    let map = matrix_map(device_address(&stream, &a_dev), BOX_ROWS / CLUSTER, swizzle)
        .encode()
        .expect("encode");
    let coords = (32, 100);
    let mut out = stream
        .clone_htod(&vec![POISON; CLUSTER as usize * BOX_ELEMENTS])
        .expect("upload");
    let mut args = KernelArgs::new(&stream);
    args.tensor_map(map)
        .output(&mut out)
        .scalar(coords.0 as u32)
        .scalar(coords.1 as u32);
    let config = LaunchConfig {
        grid: (CLUSTER, 1, 1),
        ..one_block()
    };
    // SAFETY: tma_multicast_box(tmap, out, c0, c1) reads the matrix the map
    // describes (`a_dev`, alive) and writes BOX_BYTES bytes per block to
    // `out`, which holds CLUSTER boxes.
    unsafe { multicast.launch_cluster(&config, (CLUSTER, 1, 1), args) }.expect("launch");
    let got = stream.clone_dtoh(&out).expect("download");
    let want = loaded_box(&a, coords, swizzle);
    for (cta, got) in got.chunks(BOX_ELEMENTS).enumerate() {
        assert_eq!(
            first_mismatch(got, &want),
            None,
            "CTA {cta} of the cluster: (shared element, got, want)"
        );
    }
}
