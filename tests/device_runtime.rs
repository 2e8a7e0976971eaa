//! The driver runtime on a GPU: JIT with logs, typed errors, the module
//! cache, launches with dynamic shared memory above 48 KiB, device info.
//!
//! Each GPU test skips with a printed reason where no driver or GPU is found
//! (and fails instead under `CUTLET_REQUIRE_GPU=1`).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use common::gpu::{first_mismatch, poisoned, random_vec, seeded_rng, POISON_U32};
use cudarc::driver::sys::CUtensorMap;
use cutlet::device::{
    device_count, driver_available, get_or_load, Device, KernelArgs, LaunchConfig, Module,
    TensorMapArg,
};
use cutlet::Error;
use cutlet_harness::device_or_skip;
use rand::Rng;

/// `out[i] = 3 * i` for `i < n`; one thread per element.
const TIMES_THREE_PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry times_three(
    .param .u64 out_ptr,
    .param .u32 n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<7>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [out_ptr];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    mul.lo.u32 %r6, %r5, 3;
    st.global.u32 [%rd3], %r6;
DONE:
    ret;
}
"#;

/// Elements per block of `reverse_through_shared`: 16384 u32 = 64 KiB of
/// dynamic shared memory, 16 per thread of a 1024-thread block.
const TILE: usize = 16 * 1024;

/// Each block copies its 16384-element tile of `in` into dynamic shared
/// memory, then writes it to `out` reversed within the tile, so a correct
/// output proves all 64 KiB went through shared memory.
const REVERSE_THROUGH_SHARED_PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 tile[];

.visible .entry reverse_through_shared(
    .param .u64 in_ptr,
    .param .u64 out_ptr
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;

    ld.param.u64 %rd1, [in_ptr];
    ld.param.u64 %rd2, [out_ptr];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, tile;
    mul.wide.u32 %rd3, %r2, 65536;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    mov.u32 %r11, 16383;
    mov.u32 %r4, 0;
LOAD:
    shl.b32 %r5, %r4, 10;
    add.u32 %r5, %r5, %r1;
    mul.wide.u32 %rd6, %r5, 4;
    add.u64 %rd7, %rd4, %rd6;
    ld.global.u32 %r6, [%rd7];
    shl.b32 %r7, %r5, 2;
    add.u32 %r7, %r3, %r7;
    st.shared.u32 [%r7], %r6;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, 16;
    @%p1 bra LOAD;
    bar.sync 0;
    mov.u32 %r4, 0;
STORE:
    shl.b32 %r5, %r4, 10;
    add.u32 %r5, %r5, %r1;
    sub.u32 %r8, %r11, %r5;
    shl.b32 %r9, %r8, 2;
    add.u32 %r9, %r3, %r9;
    ld.shared.u32 %r10, [%r9];
    mul.wide.u32 %rd8, %r5, 4;
    add.u64 %rd9, %rd5, %rd8;
    st.global.u32 [%rd9], %r10;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, 16;
    @%p1 bra STORE;
    ret;
}
"#;

const BROKEN_PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
.visible .entry broken()\n{\n    this is not ptx;\n    ret;\n}\n";

/// Launches `times_three` for `n` elements into a poisoned buffer and
/// returns what the device wrote.
fn run_times_three(device: &Device, module: &Module, n: usize) -> Vec<u32> {
    let function = module
        .function("times_three")
        .expect("times_three is in the module");
    let stream = device.default_stream();
    let mut out = stream.clone_htod(&poisoned(n, POISON_U32)).expect("upload");
    let n32 = u32::try_from(n).expect("test sizes fit in u32");
    let mut args = KernelArgs::new(&stream);
    args.output(&mut out).scalar(n32);
    // SAFETY: times_three(.u64 out, .u32 n) writes out[0..n), and `out` holds n u32.
    unsafe { function.launch(&LaunchConfig::for_elements(n32, 256), args) }.expect("launch");
    stream.clone_dtoh(&out).expect("download")
}

#[test]
fn without_a_driver_opening_a_device_is_a_typed_error() {
    if driver_available() {
        eprintln!(
            "skipped without_a_driver_opening_a_device_is_a_typed_error: a driver is present"
        );
        return;
    }
    assert!(matches!(Device::new(0), Err(Error::NoDriver)));
    assert!(matches!(Device::default_device(), Err(Error::NoDriver)));
    assert!(matches!(device_count(), Err(Error::NoDriver)));
}

#[test]
fn an_ordinal_past_the_device_count_is_named() {
    let Some(_device) = device_or_skip("an_ordinal_past_the_device_count_is_named") else {
        return;
    };
    let count = device_count().expect("device count");
    match Device::new(count) {
        Err(Error::NoDevice {
            ordinal,
            count: found,
        }) => {
            assert_eq!((ordinal, found), (count, count));
        }
        other => panic!("expected Error::NoDevice, got {other:?}"),
    }
}

#[test]
fn info_reports_sane_values() {
    let Some(device) = device_or_skip("info_reports_sane_values") else {
        return;
    };
    let info = device.info().expect("device info");
    eprintln!("{info:?}");
    assert_eq!(info.ordinal, 0);
    assert!(!info.name.trim().is_empty(), "empty device name");
    assert!(
        info.compute_capability >= (7, 0),
        "cc {:?}",
        info.compute_capability
    );
    assert_eq!(info.compute_capability, device.compute_capability());
    assert!(info.sm_count > 0);
    assert!(
        info.total_memory_bytes >= 1 << 30,
        "{} bytes",
        info.total_memory_bytes
    );
    assert!(info.max_shared_memory_per_block_optin >= 48 * 1024);
    assert!(info.l2_cache_bytes > 0);
    assert!(
        info.dram_bandwidth_gbps() > 100.0,
        "{} GB/s",
        info.dram_bandwidth_gbps()
    );
    assert!(device.arch().is_some());
    assert_eq!(device.limits().max_threads_per_block, 1024);
}

#[test]
fn jit_kernel_writes_every_element_for_random_sizes() {
    let Some(device) = device_or_skip("jit_kernel_writes_every_element_for_random_sizes") else {
        return;
    };
    let module = Module::load(&device, "times_three", TIMES_THREE_PTX).expect("JIT of times_three");
    let mut rng = seeded_rng(0x7173);
    let mut sizes = vec![1, 255, 256, 257, 65_537];
    sizes.extend((0..8).map(|_| rng.random_range(1..200_000)));
    for n in sizes {
        let got = run_times_three(&device, &module, n);
        let want: Vec<u32> = (0..n as u32).map(|i| i * 3).collect();
        assert_eq!(
            first_mismatch(&got, &want),
            None,
            "n = {n}: (index, got, want)"
        );
    }
}

#[test]
fn jit_reports_registers_and_no_spills() {
    let Some(device) = device_or_skip("jit_reports_registers_and_no_spills") else {
        return;
    };
    let module = Module::load(&device, "times_three", TIMES_THREE_PTX).expect("JIT of times_three");
    eprintln!(
        "JIT info log ({:?}):\n{}",
        module.compile_time(),
        module.info_log()
    );
    let function = module.function("times_three").expect("times_three");
    let registers = function.num_regs();
    assert!((1..=255).contains(&registers), "{registers} registers");
    assert_eq!(function.local_size_bytes().expect("local size"), 0);
    assert_eq!(function.static_shared_bytes(), 0);
}

#[test]
fn malformed_ptx_is_a_jit_error_with_the_jit_log() {
    let Some(device) = device_or_skip("malformed_ptx_is_a_jit_error_with_the_jit_log") else {
        return;
    };
    match Module::load(&device, "broken", BROKEN_PTX) {
        Err(err @ Error::Jit { .. }) => {
            let text = err.to_string();
            let lower = text.to_lowercase();
            assert!(text.contains("`broken`"), "{text}");
            assert!(
                lower.contains("syntax error") || lower.contains("ptxas"),
                "{text}"
            );
        }
        other => panic!("expected Error::Jit, got {other:?}"),
    }
}

#[test]
fn ptx_with_a_nul_byte_is_an_invalid_argument() {
    let Some(device) = device_or_skip("ptx_with_a_nul_byte_is_an_invalid_argument") else {
        return;
    };
    let ptx = format!("{TIMES_THREE_PTX}\0trailing");
    match Module::load(&device, "times_three", &ptx) {
        Err(err @ Error::InvalidArgument { .. }) => {
            assert!(err
                .to_string()
                .contains(&format!("offset {}", TIMES_THREE_PTX.len())));
        }
        other => panic!("expected Error::InvalidArgument, got {other:?}"),
    }
}

#[test]
fn a_missing_kernel_name_is_a_typed_error_naming_it() {
    let Some(device) = device_or_skip("a_missing_kernel_name_is_a_typed_error_naming_it") else {
        return;
    };
    let module = Module::load(&device, "times_three", TIMES_THREE_PTX).expect("JIT of times_three");
    match module.function("times_four") {
        Err(err @ Error::KernelNotFound { .. }) => {
            assert!(err.to_string().contains("`times_four`"), "{err}");
        }
        other => panic!("expected Error::KernelNotFound, got {other:?}"),
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct TestSpec {
    name: &'static str,
    variant: u32,
}

#[test]
fn the_cache_compiles_once_and_returns_the_same_kernel() {
    let Some(device) = device_or_skip("the_cache_compiles_once_and_returns_the_same_kernel") else {
        return;
    };
    let spec = TestSpec {
        name: "times_three",
        variant: 1,
    };
    let name = || "times_three".to_string();
    let generated = AtomicUsize::new(0);
    let generate = || {
        generated.fetch_add(1, Ordering::SeqCst);
        Ok(TIMES_THREE_PTX.to_string())
    };
    let first = get_or_load(&device, &spec, name, generate).expect("first load");
    let again = get_or_load(&device, &spec, name, generate).expect("cached load");
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(generated.load(Ordering::SeqCst), 1);
    eprintln!(
        "first call: generate {:?}, compile {:?}",
        first.generate_time(),
        first.compile_time()
    );
    let other = TestSpec { variant: 2, ..spec };
    let second = get_or_load(&device, &other, name, generate).expect("other spec");
    assert!(!Arc::ptr_eq(&first, &second));
    assert_eq!(generated.load(Ordering::SeqCst), 2);

    // Cached lookups neither generate nor compile again, and hand out the
    // same kernel (their host time is a benchmark figure, not a test).
    for _ in 0..100 {
        let cached = get_or_load(&device, &spec, name, generate).expect("cached load");
        assert!(Arc::ptr_eq(&first, &cached));
    }
    assert_eq!(generated.load(Ordering::SeqCst), 2);
}

#[test]
fn concurrent_first_calls_compile_once() {
    let Some(device) = device_or_skip("concurrent_first_calls_compile_once") else {
        return;
    };
    let spec = TestSpec {
        name: "times_three",
        variant: 3,
    };
    let generated = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (device, spec, generated, start) = (
                device.clone(),
                spec.clone(),
                generated.clone(),
                start.clone(),
            );
            std::thread::spawn(move || {
                start.wait();
                get_or_load(
                    &device,
                    &spec,
                    || spec.name.to_string(),
                    || {
                        generated.fetch_add(1, Ordering::SeqCst);
                        Ok(TIMES_THREE_PTX.to_string())
                    },
                )
                .expect("load")
            })
        })
        .collect();
    let kernels: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    assert_eq!(generated.load(Ordering::SeqCst), 1);
    assert!(kernels.iter().all(|k| Arc::ptr_eq(k, &kernels[0])));
}

#[test]
fn sixty_four_kib_of_dynamic_shared_memory_round_trips() {
    let Some(device) = device_or_skip("sixty_four_kib_of_dynamic_shared_memory_round_trips") else {
        return;
    };
    let module = Module::load(
        &device,
        "reverse_through_shared",
        REVERSE_THROUGH_SHARED_PTX,
    )
    .expect("JIT of reverse_through_shared");
    let function = module.function("reverse_through_shared").expect("kernel");
    let stream = device.default_stream();
    let blocks = 5;
    let input: Vec<u32> = random_vec(0x5AED, blocks * TILE, 0, u32::MAX);
    let d_in = stream.clone_htod(&input).expect("upload");
    let mut d_out = stream
        .clone_htod(&poisoned(blocks * TILE, POISON_U32))
        .expect("upload");
    let config = LaunchConfig {
        grid: (blocks as u32, 1, 1),
        block: (1024, 1, 1),
        shared_mem_bytes: (TILE * 4) as u32,
    };
    for _ in 0..2 {
        let mut args = KernelArgs::new(&stream);
        args.input(&d_in).output(&mut d_out);
        // SAFETY: reverse_through_shared(.u64 in, .u64 out) touches
        // [0, grid * 16384) of both; both hold blocks * 16384 u32.
        unsafe { function.launch(&config, args) }.expect("launch with 64 KiB");
    }
    let got = stream.clone_dtoh(&d_out).expect("download");
    let want: Vec<u32> = input
        .chunks(TILE)
        .flat_map(|tile| tile.iter().rev().copied())
        .collect();
    assert_eq!(first_mismatch(&got, &want), None, "(index, got, want)");
}

#[test]
fn shared_memory_over_the_opt_in_limit_is_a_typed_error() {
    let Some(device) = device_or_skip("shared_memory_over_the_opt_in_limit_is_a_typed_error")
    else {
        return;
    };
    let module = Module::load(
        &device,
        "reverse_through_shared",
        REVERSE_THROUGH_SHARED_PTX,
    )
    .expect("JIT of reverse_through_shared");
    let function = module.function("reverse_through_shared").expect("kernel");
    let limit = device.limits().max_shared_memory_per_block_optin;
    let stream = device.default_stream();
    let d_in = stream.alloc_zeros::<u32>(TILE).expect("alloc");
    let mut d_out = stream.alloc_zeros::<u32>(TILE).expect("alloc");
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (1024, 1, 1),
        shared_mem_bytes: limit + 16,
    };
    let mut args = KernelArgs::new(&stream);
    args.input(&d_in).output(&mut d_out);
    // SAFETY: rejected before the launch; were it launched, the buffers hold one tile each.
    match unsafe { function.launch(&config, args) } {
        Err(Error::SharedMemoryTooLarge {
            requested,
            limit: reported,
            ..
        }) => assert_eq!((requested, reported), (limit + 16, limit)),
        other => panic!("expected Error::SharedMemoryTooLarge, got {other:?}"),
    }
}

#[test]
fn a_block_over_1024_threads_is_a_typed_error() {
    let Some(device) = device_or_skip("a_block_over_1024_threads_is_a_typed_error") else {
        return;
    };
    let module = Module::load(&device, "times_three", TIMES_THREE_PTX).expect("JIT of times_three");
    let function = module.function("times_three").expect("kernel");
    let stream = device.default_stream();
    let mut out = stream.alloc_zeros::<u32>(2048).expect("alloc");
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (1025, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = KernelArgs::new(&stream);
    args.output(&mut out).scalar(2048u32);
    // SAFETY: rejected before the launch; were it launched, out holds 2048 u32.
    let err = unsafe { function.launch(&config, args) }.expect_err("1025 threads");
    assert!(matches!(err, Error::InvalidLaunchConfig { .. }), "{err:?}");
    assert!(err.to_string().contains("1025"), "{err}");
}

/// One thread copies the 128 bytes of a by-value `.param .align 64 .b8
/// tmap[128]` to `out`, the way a TMA kernel receives its tensor map.
fn copy_tensor_map_ptx() -> String {
    let mut ptx = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry copy_tensor_map(\n    .param .u64 out_ptr,\n\
         .param .align 64 .b8 tmap[128]\n)\n{\n    .reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [out_ptr];\n    cvta.to.global.u64 %rd1, %rd1;\n",
    );
    for word in 0..16 {
        let offset = 8 * word;
        ptx.push_str(&format!(
            "    ld.param.u64 %rd2, [tmap+{offset}];\n    st.global.u64 [%rd1+{offset}], %rd2;\n"
        ));
    }
    ptx.push_str("    ret;\n}\n");
    ptx
}

#[test]
fn a_tensor_map_argument_reaches_the_kernel_by_value() {
    let Some(device) = device_or_skip("a_tensor_map_argument_reaches_the_kernel_by_value") else {
        return;
    };
    let module = Module::load(&device, "copy_tensor_map", &copy_tensor_map_ptx())
        .expect("JIT of copy_tensor_map");
    let function = module.function("copy_tensor_map").expect("kernel");
    let words: Vec<u64> = random_vec(0x7A4A, 16, 0, u64::MAX);
    let map = TensorMapArg(CUtensorMap {
        opaque: words.clone().try_into().expect("16 words"),
    });
    let stream = device.default_stream();
    let mut out = stream
        .clone_htod(&poisoned(16, u64::from(POISON_U32)))
        .expect("upload");
    let mut args = KernelArgs::new(&stream);
    args.output(&mut out).tensor_map(map);
    // SAFETY: copy_tensor_map(.u64 out, .b8 tmap[128]) writes out[0..16); out holds 16 u64.
    unsafe { function.launch(&LaunchConfig::for_elements(1, 1), args) }.expect("launch");
    let got = stream.clone_dtoh(&out).expect("download");
    assert_eq!(first_mismatch(&got, &words), None, "(word, got, want)");
}
