//! The PTX golden: a hash of the text of every kernel the generator emits
//! for the default GEMM configurations (`sm80_default_specs()` and fused
//! epilogues on two of them; every SM90 default of `sm90_default_specs()`
//! in the form that tests beta and the forms for beta = 0 and beta not 0,
//! with the TMA-store and the register-store epilogue, and their
//! stand-ins; every SM70 default of `sm70_default_specs()`), the
//! elementwise kernels and the reduction kernels the GPU tests launch. A refactor of the generator must
//! leave every line of `tests/golden/ptx_hashes.txt` as it is.
//!
//! When a change of the emitted PTX is intended, regenerate the file with
//! `CUTLET_BLESS=1 cargo test --test ptx_golden_hash` and commit it on its
//! own, saying why the text changed.

mod elementwise_cases;
mod reduce;

use cutlet::arch::ArchKind;

use cutlet::collective::{EpiloguePolicy, SourceRead};
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::elementwise::{Access, BulkCopy, BulkStore, Schedule};
use cutlet::kernel::gemm::{sm70_default_specs, sm90_default_specs, GemmSpec};
use cutlet::kernel::gemm::{sm80_default_spec, sm80_default_specs};
use cutlet::kernel::gemm::{BiasAxis, Epilogue, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{BF16, F16, F32};
use elementwise_cases::spec;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/ptx_hashes.txt");

/// 64-bit FNV-1a of `text`.
fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// `(kernel name, PTX)` of every default GEMM and six fused epilogues.
fn gemm_kernels() -> Vec<(String, String)> {
    let mut specs = sm80_default_specs();
    assert_eq!(
        specs.len(),
        68,
        "sm80_default_specs() lists 68 configurations"
    );
    let relu_row = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).relu()
    });
    let gelu_col =
        Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| (acc * scalar(0) + bias).gelu());
    let both = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        let x = acc * scalar(0) + c * scalar(1) + row * col;
        x.gt(scalar(2)).select(x.clone() * scalar(3), x.sigmoid())
    });
    let fused = [
        Epilogue::new(relu_row, &[BiasAxis::Row]).unwrap(),
        Epilogue::new(gelu_col, &[BiasAxis::Column]).unwrap(),
        Epilogue::new(both, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
    ];
    for (ab, d, a_major, d_major) in [
        (BF16, BF16, OperandMajor::K, OutputMajor::N),
        (F16, F32, OperandMajor::MN, OutputMajor::M),
    ] {
        for epilogue in &fused {
            let mut spec =
                sm80_default_spec(ab, ab, d, F32, a_major, OperandMajor::K, d_major).unwrap();
            spec.epilogue.fusion = epilogue.clone();
            specs.push(spec);
        }
    }
    specs
        .iter()
        .map(|s| (s.kernel_name(), s.ptx().unwrap()))
        .collect()
}

/// `(kernel name, PTX)` of every SM90 default in its three forms (the
/// kernel that tests beta, and those for beta = 0 and beta not 0), with
/// the TMA-store epilogue and the register-store one, and of the stand-in
/// of each (the first runs' kernel, in the same forms).
fn sm90_kernels() -> Vec<(String, String)> {
    let defaults = sm90_default_specs();
    assert_eq!(
        defaults.len(),
        234,
        "sm90_default_specs() lists 234 configurations"
    );
    let mut specs: Vec<GemmSpec> = Vec::new();
    for spec in defaults {
        let direct = spec
            .clone()
            .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
            .unwrap();
        for s in [spec, direct] {
            if let Some(stand_in) = s.sm90_stand_in() {
                specs.push(stand_in);
            }
            specs.push(s);
        }
    }
    // A stand-in serves several kernels: hash each once.
    let mut seen = std::collections::HashSet::new();
    specs.retain(|s| seen.insert(s.clone()));
    let mut out = Vec::new();
    for s in &specs {
        out.push((s.kernel_name(), s.ptx().unwrap()));
        for (read, form) in [(SourceRead::Never, "beta0"), (SourceRead::Always, "beta1")] {
            out.push((
                format!("{}@{form}", s.kernel_name()),
                s.ptx_for(read).unwrap(),
            ));
        }
    }
    out
}

/// `(kernel name, PTX)` of every SM70 default.
fn sm70_kernels() -> Vec<(String, String)> {
    let specs = sm70_default_specs();
    assert!(!specs.is_empty());
    specs
        .iter()
        .map(|s| (s.kernel_name(), s.ptx().unwrap()))
        .collect()
}

/// Every op on every float type and arch, both views; the bulk-copy rings
/// on sm_90a.
fn elementwise_kernels() -> Vec<(String, String)> {
    let mut specs = Vec::new();
    for arch in ArchKind::ALL {
        for (_, expression, _) in elementwise_cases::ops() {
            for element in [F16, BF16, F32] {
                let width = 16 / element.size_bytes();
                for flat in [false, true] {
                    let mut s = spec(
                        arch,
                        expression.clone(),
                        element,
                        Access::Contiguous { width },
                    );
                    s.flat = flat;
                    specs.push(s);
                }
            }
        }
        let strided = spec(arch, elementwise_cases::add(), F32, Access::Strided);
        specs.push(strided);
    }
    for store in [BulkStore::Registers, BulkStore::Bulk] {
        for (persistent, stages, tiles_per_stage) in [(0, 1, 1), (1, 3, 2), (2, 4, 1)] {
            for (expression, element) in [
                (elementwise_cases::add(), F16),
                (elementwise_cases::gelu3(), BF16),
            ] {
                let width = 16 / element.size_bytes();
                let mut s = spec(
                    ArchKind::Sm90,
                    expression,
                    element,
                    Access::Contiguous { width },
                );
                s.schedule = Schedule {
                    persistent,
                    bulk: Some(BulkCopy {
                        stages,
                        tiles_per_stage,
                        store,
                    }),
                    ..Schedule::default()
                };
                s.flat = true;
                specs.push(s);
            }
        }
    }
    specs
        .iter()
        .map(|s| {
            let ptx = s.ptx().unwrap();
            (format!("{}@{}", s.kernel_name(), s.arch), ptx)
        })
        .collect()
}

fn reduction_kernels() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for arch in ArchKind::ALL {
        for spec in reduce::planned_specs(arch) {
            out.push((
                format!("{}@{arch}", spec.kernel_name()),
                spec.ptx().unwrap(),
            ));
        }
    }
    out
}

/// One line per kernel: `family name hash`, in a stable order.
fn lines() -> Vec<String> {
    let mut out = Vec::new();
    for (family, kernels) in [
        ("gemm", gemm_kernels()),
        ("gemm_sm90", sm90_kernels()),
        ("gemm_sm70", sm70_kernels()),
        ("elementwise", elementwise_kernels()),
        ("reduce", reduction_kernels()),
    ] {
        // Kernel names need not be unique (a reduction's map is named
        // `_map` whatever it computes; the module cache keys by spec): a
        // repeated name gets `#2`, `#3`, ... in the generator's order.
        let mut count = std::collections::BTreeMap::new();
        let mut family_lines = Vec::new();
        for (name, ptx) in kernels {
            let n = count.entry(name.clone()).or_insert(0u32);
            *n += 1;
            let name = if *n == 1 { name } else { format!("{name}#{n}") };
            family_lines.push(format!("{family} {name} {:016x}", fnv1a(&ptx)));
        }
        family_lines.sort();
        out.extend(family_lines);
    }
    out
}

#[test]
fn emitted_ptx_matches_the_golden_hashes() {
    let now = lines();
    if std::env::var_os("CUTLET_BLESS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, now.join("\n") + "\n").unwrap();
        println!("wrote {} hashes to {GOLDEN}", now.len());
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN).expect("tests/golden/ptx_hashes.txt exists");
    let golden: Vec<&str> = golden.lines().collect();
    let changed: Vec<String> = now
        .iter()
        .filter(|line| !golden.contains(&line.as_str()))
        .cloned()
        .collect();
    let gone: Vec<&str> = golden
        .iter()
        .filter(|line| !now.contains(&line.to_string()))
        .copied()
        .collect();
    assert!(
        changed.is_empty() && gone.is_empty(),
        "the emitted PTX changed: {} new or different lines, {} missing; first new: {:?}; first missing: {:?}",
        changed.len(),
        gone.len(),
        changed.first(),
        gone.first()
    );
    assert!(now.len() > 68 + 100, "only {} kernels hashed", now.len());
}
