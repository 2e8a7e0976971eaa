//! ptxas test helper: assembles PTX for a target with NVIDIA's `ptxas` and
//! reads its per-function resource report.
//!
//! `ptxas` is found, in order, at `$CUTLET_PTXAS`, at
//! `$CARGO_MANIFEST_DIR/target/tools/nvcc/nvidia/cuda_nvcc/bin/ptxas`, where
//! the project's test script installs the PyPI wheel
//! (`python3 -m pip install -q --target target/tools/nvcc nvidia-cuda-nvcc-cu12==12.9.86`),
//! or on `PATH`. Without it, or where the one found does not know the
//! target (CUDA 13's ptxas dropped sm_70), [`assemble`] prints a skip line
//! and returns `None`, unless `CUTLET_REQUIRE_PTXAS=1`, which turns either
//! into a failure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The resources ptxas reports for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionReport {
    /// The function's name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of register spill stores.
    pub spill_stores: u32,
    /// Bytes of register spill loads.
    pub spill_loads: u32,
    /// Bytes of stack frame.
    pub stack_frame: u32,
    /// Bytes of static shared memory.
    pub shared_bytes: u32,
}

/// ptxas's report on one module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxasReport {
    /// One entry per function, in report order.
    pub functions: Vec<FunctionReport>,
    /// ptxas's warnings, one line each, and its "Potential Performance
    /// Loss" notes (a serialized wgmma: "(C7514) Potential Performance
    /// Loss: wgmma.mma_async instructions are serialized ...", which it
    /// prints as an info line).
    pub warnings: Vec<String>,
}

impl PtxasReport {
    /// The report of function `name`; panics (failing the test) if absent.
    pub fn function(&self, name: &str) -> &FunctionReport {
        self.functions
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("ptxas reported no function `{name}`: {self:?}"))
    }

    /// Parses `ptxas -v` output: "Compiling entry function 'f'" starts a
    /// function, "Function properties for f" is followed by the stack and
    /// spill line, and "Used N registers, ..., M bytes smem" closes it.
    pub fn parse(text: &str) -> PtxasReport {
        let mut functions: Vec<FunctionReport> = Vec::new();
        let mut warnings = Vec::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            // ptxas 12.9 reports a serialized wgmma as an info line:
            // "ptxas info : (C7514) Potential Performance Loss: ...".
            if line.starts_with("ptxas")
                && (line.contains("warning") || line.contains("Potential Performance Loss"))
            {
                warnings.push(line.to_string());
                continue;
            }
            let info = line
                .trim_start_matches("ptxas info")
                .trim_start()
                .trim_start_matches(':');
            let info = info.trim();
            if let Some(rest) = info.strip_prefix("Compiling entry function '") {
                let name = rest.split('\'').next().unwrap_or_default();
                functions.push(FunctionReport {
                    name: name.to_string(),
                    ..FunctionReport::default()
                });
            } else if let Some(name) = info.strip_prefix("Function properties for ") {
                let Some(current) = entry(&mut functions, name.trim()) else {
                    continue;
                };
                if let Some(next) = lines.next_if(|l| l.contains("stack frame")) {
                    for part in next.split(',') {
                        let value = leading_number(part);
                        if part.contains("stack frame") {
                            current.stack_frame = value;
                        } else if part.contains("spill stores") {
                            current.spill_stores = value;
                        } else if part.contains("spill loads") {
                            current.spill_loads = value;
                        }
                    }
                }
            } else if let Some(rest) = info.strip_prefix("Used ") {
                let Some(current) = functions.last_mut() else {
                    continue;
                };
                current.registers = leading_number(rest);
                for part in rest.split(',') {
                    if part.trim_end().ends_with("bytes smem") {
                        current.shared_bytes = leading_number(part);
                    }
                }
            }
        }
        PtxasReport {
            functions,
            warnings,
        }
    }
}

fn entry<'a>(functions: &'a mut [FunctionReport], name: &str) -> Option<&'a mut FunctionReport> {
    functions.iter_mut().rev().find(|f| f.name == name)
}

fn leading_number(text: &str) -> u32 {
    text.trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// Where ptxas is, if anywhere; panics if `CUTLET_PTXAS` names no file.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CUTLET_PTXAS") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "CUTLET_PTXAS={} is not a file",
            path.display()
        );
        return Some(path);
    }
    // The pinned wheel before PATH: a newer ptxas there may not know sm_70.
    let wheel =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/nvcc/nvidia/cuda_nvcc/bin/ptxas");
    if wheel.is_file() {
        return Some(wheel);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join("ptxas"))
        .find(|candidate| candidate.is_file())
}

/// Whether `CUTLET_REQUIRE_PTXAS=1`: a ptxas that is missing or cannot
/// assemble the target fails the test instead of skipping it.
fn required() -> bool {
    std::env::var("CUTLET_REQUIRE_PTXAS").as_deref() == Ok("1")
}

/// Assembles `ptx` for `target` (e.g. `sm_90a`) and returns ptxas's report,
/// or `None` (after printing why) when no ptxas is installed. Panics with
/// ptxas's message when assembly fails.
pub fn assemble(ptx: &str, target: &str) -> Option<PtxasReport> {
    try_assemble(ptx, target).map(|result| result.unwrap_or_else(|message| panic!("{message}")))
}

/// Assembles `spec`'s kernel for `target`: `Some(Some(report))` where it
/// spills registers, `Some(None)` where it does not, `None` (after printing
/// why) where no ptxas is installed. Prints the kernel's resources.
pub fn spills_of(spec: &cutlet::kernel::gemm::GemmSpec, target: &str) -> Option<Option<String>> {
    let report = assemble(&spec.ptx().unwrap(), target)?;
    let f = report.function(&spec.kernel_name());
    eprintln!("{}: {f:?}", spec.kernel_name());
    Some(((f.spill_stores, f.spill_loads) != (0, 0)).then(|| format!("{f:?}")))
}

/// Assembles every spec of `specs` for `target` and asserts that none
/// spills, naming every one that does; returns at the first spec without
/// ptxas (after [`assemble`] printed why).
pub fn assert_none_spills(
    specs: impl IntoIterator<Item = cutlet::kernel::gemm::GemmSpec>,
    target: &str,
) {
    let mut spilled = Vec::new();
    for spec in specs {
        let Some(spill) = spills_of(&spec, target) else {
            return;
        };
        spilled.extend(spill);
    }
    assert!(
        spilled.is_empty(),
        "kernels that spill:\n{}",
        spilled.join("\n")
    );
}

/// As [`assemble`], but a failed assembly is `Some(Err(message))`, the
/// message holding ptxas's own words.
pub fn try_assemble(ptx: &str, target: &str) -> Option<Result<PtxasReport, String>> {
    let Some(ptxas) = find_ptxas() else {
        let how = "set CUTLET_PTXAS, put ptxas on PATH, or run `python3 -m pip install -q \
                   --target target/tools/nvcc nvidia-cuda-nvcc-cu12==12.9.86` in the repository";
        if required() {
            panic!("ptxas not found and CUTLET_REQUIRE_PTXAS=1: {how}");
        }
        eprintln!("skipped: ptxas not found ({how})");
        return None;
    };
    eprintln!("using ptxas at {}", ptxas.display());
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let stem = std::env::temp_dir().join(format!(
        "cutlet-ptxas-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let (ptx_path, cubin_path) = (stem.with_extension("ptx"), stem.with_extension("cubin"));
    std::fs::write(&ptx_path, ptx)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", ptx_path.display()));
    let output = Command::new(&ptxas)
        .arg("-v")
        .arg("--gpu-name")
        .arg(target)
        .arg("-o")
        .arg(&cubin_path)
        .arg(&ptx_path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", ptxas.display()));
    let _ = std::fs::remove_file(&ptx_path);
    let _ = std::fs::remove_file(&cubin_path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // ptxas's words for a target it does not know (CUDA 13 and sm_70).
        if stderr.contains("is not defined for option 'gpu-name'") && !required() {
            eprintln!(
                "skipped: {} cannot assemble {target} ({}); set CUTLET_PTXAS to ptxas 12.9 \
                 (scripts/test installs it)",
                ptxas.display(),
                stderr.trim()
            );
            return None;
        }
        return Some(Err(format!(
            "ptxas failed for {target} ({}):\n{stderr}{stdout}",
            output.status
        )));
    }
    Some(Ok(PtxasReport::parse(&format!("{stdout}{stderr}"))))
}
