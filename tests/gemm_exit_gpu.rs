//! A process exits cleanly while a GEMM kernel compiles.
//!
//! A new GEMM configuration compiles in two tiers: the first run launches a
//! quick compile while the optimized one runs on a background thread for
//! about half a second. A process that exits in that time must exit with
//! its own status, not crash in the driver (`src/device/exit.rs`). Each
//! case starts this test binary again as a helper process, with the
//! driver's JIT cache off (`CUDA_CACHE_DISABLE=1`, so every compile is
//! real), and checks the helper's exit status.

mod common;

use std::process::Command;

use cudarc::driver::CudaSlice;
use cutlet::arch::ArchKind;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::{Device, JitTier};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use half::{bf16, f16};

use cutlet_harness::device_or_skip;

/// The environment variable that makes the helper test act, and how.
const HELPER_ENV: &str = "CUTLET_EXIT_HELPER";
/// The helper's name, for `--exact`.
const HELPER: &str = "helper_process_exits_while_compiling";

/// How the helper ends, each right after its first GEMM compile returned.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// Returns from the test (the harness returns from `main`).
    Return,
    /// Calls `std::process::exit(0)`.
    Exit,
    /// Runs the GEMM once, drops the GEMM, buffers and device, returns.
    DropAll,
    /// A second configuration compiles on a user thread while the test
    /// returns without joining it.
    ThreadCompiling,
    /// Waits for the optimized compile, then returns at once: the
    /// background compile's last steps meet the exit (a thread that ended
    /// then raced the driver's exit handlers: `src/device/jit_worker.rs`).
    AfterOptimized,
    /// Panics (the harness reports the failed test: exit status 101).
    Panic,
}

impl Ending {
    fn name(self) -> &'static str {
        match self {
            Ending::Return => "return",
            Ending::Exit => "exit",
            Ending::DropAll => "drop",
            Ending::ThreadCompiling => "thread",
            Ending::AfterOptimized => "after-optimized",
            Ending::Panic => "panic",
        }
    }

    fn parse(name: &str) -> Option<Ending> {
        [
            Ending::Return,
            Ending::Exit,
            Ending::DropAll,
            Ending::ThreadCompiling,
            Ending::AfterOptimized,
            Ending::Panic,
        ]
        .into_iter()
        .find(|e| e.name() == name)
    }

    /// The exit status the helper must end with.
    fn expected_status(self) -> i32 {
        match self {
            Ending::Panic => 101,
            _ => 0,
        }
    }
}

/// An element type the helper allocates.
trait Buffer:
    cutlet::numeric::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
}
impl Buffer for bf16 {}
impl Buffer for f16 {}

/// Compiles `gemm` (inputs of `I`, D of `D`) for a small problem and
/// returns which compile it uses once `initialize` returned.
fn compile<I: Buffer, D: Buffer>(device: &Device, gemm: &Gemm) -> JitTier {
    let stream = device.default_stream();
    let (m, n, k) = (256, 256, 128);
    let a: CudaSlice<I> = stream.alloc_zeros(m * k).unwrap();
    let b: CudaSlice<I> = stream.alloc_zeros(n * k).unwrap();
    let mut d: CudaSlice<D> = stream.alloc_zeros(m * n).unwrap();
    let (lda, ldb) = match (gemm.spec().majors.a, gemm.spec().majors.b) {
        (OperandMajor::K, OperandMajor::K) => (k, k),
        (OperandMajor::K, OperandMajor::MN) => (k, n),
        (OperandMajor::MN, OperandMajor::K) => (m, k),
        (OperandMajor::MN, OperandMajor::MN) => (m, n),
    };
    let ldd = if gemm.spec().majors.d == OutputMajor::N {
        n
    } else {
        m
    };
    let args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), lda, 0),
        Operand::new(b.as_view(), ldb, 0),
        OutputOperand::new(d.as_view_mut(), ldd, 0),
        1.0,
    );
    gemm.initialize(&args, None).unwrap().tier()
}

/// Not a test of its own: the helper process that [`exits_are_clean_while_the_optimized_compile_runs`]
/// starts. Without [`HELPER_ENV`] it does nothing.
#[test]
#[ignore = "a helper process of exits_are_clean_while_the_optimized_compile_runs"]
fn helper_process_exits_while_compiling() {
    let Some(ending) = std::env::var(HELPER_ENV)
        .ok()
        .as_deref()
        .and_then(Ending::parse)
    else {
        return;
    };
    let device = Device::new(0).expect("the parent test found a GPU");
    // The SM80 kernel, whose optimized compile runs in the background; the
    // second configuration below is the device's pick (SM90 on an H100: its
    // stand-in compiles on a user thread while the process exits, the
    // optimized kernel queued behind it).
    let gemm = Gemm::builder()
        .arch(ArchKind::Sm80)
        .build(&device)
        .expect("the default bf16 gemm");
    match ending {
        Ending::DropAll => {
            let stream = device.default_stream();
            let (m, n, k) = (256, 256, 128);
            let a: CudaSlice<bf16> = stream.alloc_zeros(m * k).unwrap();
            let b: CudaSlice<bf16> = stream.alloc_zeros(n * k).unwrap();
            let mut d: CudaSlice<bf16> = stream.alloc_zeros(m * n).unwrap();
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(a.as_view(), k, 0),
                Operand::new(b.as_view(), k, 0),
                OutputOperand::new(d.as_view_mut(), n, 0),
                1.0,
            );
            let tier = gemm.initialize(&args, None).unwrap().tier();
            gemm.run(&mut args, &stream).unwrap();
            stream.synchronize().unwrap();
            report(tier);
            drop(args);
            drop((a, b, d, stream, gemm, device));
        }
        Ending::ThreadCompiling => {
            let other = Gemm::builder()
                .a(ElementType::F16, OperandMajor::K)
                .b(ElementType::F16, OperandMajor::MN)
                .d(ElementType::F16, OutputMajor::M)
                .build(&device)
                .expect("an f16 gemm");
            let on_thread = device.clone();
            std::thread::spawn(move || compile::<f16, f16>(&on_thread, &other));
            report(compile::<bf16, bf16>(&device, &gemm));
        }
        Ending::AfterOptimized => {
            compile::<bf16, bf16>(&device, &gemm);
            gemm.wait_optimized().expect("the optimized compile");
            report(JitTier::Optimized);
        }
        Ending::Return | Ending::Exit | Ending::Panic => {
            report(compile::<bf16, bf16>(&device, &gemm));
            match ending {
                Ending::Exit => std::process::exit(0),
                Ending::Panic => panic!("a planned panic while the optimized compile runs"),
                _ => {}
            }
        }
    }
}

/// Prints which compile the GEMM used as the helper ends: `Quick` means the
/// optimized compile was still running.
fn report(tier: JitTier) {
    println!("exit-helper tier: {tier:?}");
}

#[test]
fn exits_are_clean_while_the_optimized_compile_runs() {
    let Some(device) = device_or_skip("exits_are_clean_while_the_optimized_compile_runs") else {
        return;
    };
    drop(device);
    let me = std::env::current_exe().expect("the test binary's path");
    let endings = [
        Ending::Return,
        Ending::Exit,
        Ending::DropAll,
        Ending::ThreadCompiling,
        Ending::AfterOptimized,
    ];
    let mut runs = Vec::new();
    // 25 helpers that must exit with status 0, and two that panic.
    for i in 0..25 {
        runs.push(endings[i % endings.len()]);
    }
    runs.extend([Ending::Panic, Ending::Panic]);
    let mut in_flight = 0;
    let mut failures = Vec::new();
    for (i, ending) in runs.iter().enumerate() {
        let output = Command::new(&me)
            .args([HELPER, "--exact", "--ignored", "--nocapture"])
            .env(HELPER_ENV, ending.name())
            .env("CUDA_CACHE_DISABLE", "1")
            .env_remove("CUTLET_JIT_TIERED")
            .env_remove("CUTLET_JIT_OPT_LEVEL")
            .output()
            .expect("the helper process starts");
        let stdout = String::from_utf8_lossy(&output.stdout);
        if stdout.contains(&format!("tier: {:?}", JitTier::Quick)) {
            in_flight += 1;
        }
        if output.status.code() != Some(ending.expected_status()) {
            failures.push(format!(
                "run {i} ({}): {} (expected exit status {}); its stderr ends: {}",
                ending.name(),
                output.status,
                ending.expected_status(),
                tail(&String::from_utf8_lossy(&output.stderr))
            ));
        }
    }
    println!(
        "{} helper processes, {in_flight} exited with the optimized compile in flight",
        runs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The case under test happened: at least one helper exited while its
    // optimized compile was running (it takes about half a second).
    assert!(
        in_flight > 0,
        "no helper exited with the optimized compile in flight, so the test proved nothing"
    );
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(6)..].join(" | ")
}
