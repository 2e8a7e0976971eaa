//! The rustdoc's complete programs (the `no_run` examples in `src/`),
//! run on a GPU as a reader would run them: each `tests/rustdoc/*.rs` is
//! one example word for word, its hidden lines shown, but for `pub fn
//! main` (`tests/doc_programs.rs` checks that), and each test calls its
//! `main`, which checks what the example asserts. Each test skips with a
//! printed reason where no driver or no GPU it needs is found: compute
//! capability 8.0 for most, 8.9 for the FP8 quantize kernels, two GPUs
//! and NCCL for the tensor-parallel ranks.

// The copies keep the rustdoc's layout, so rustfmt leaves them alone.
#[rustfmt::skip]
#[path = "rustdoc/device_elementwise.rs"]
mod device_elementwise;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_adapter.rs"]
mod device_gemm_adapter;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_arguments_product.rs"]
mod device_gemm_arguments_product;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_builder.rs"]
mod device_gemm_builder;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_builder_spec_for.rs"]
mod device_gemm_builder_spec_for;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_front_doors.rs"]
mod device_gemm_front_doors;
#[rustfmt::skip]
#[path = "rustdoc/device_gemm_typed.rs"]
mod device_gemm_typed;
#[rustfmt::skip]
#[path = "rustdoc/device_mod.rs"]
mod device_mod;
#[rustfmt::skip]
#[path = "rustdoc/device_quantize_rows.rs"]
mod device_quantize_rows;
#[rustfmt::skip]
#[path = "rustdoc/device_quantize_with_scale.rs"]
mod device_quantize_with_scale;
#[rustfmt::skip]
#[path = "rustdoc/device_reduce.rs"]
mod device_reduce;
#[rustfmt::skip]
#[path = "rustdoc/device_vector_add.rs"]
mod device_vector_add;
#[rustfmt::skip]
#[path = "rustdoc/distributed_rank.rs"]
mod distributed_rank;
#[rustfmt::skip]
#[path = "rustdoc/tensor_mod.rs"]
mod tensor_mod;
#[rustfmt::skip]
#[path = "rustdoc/tensor_view.rs"]
mod tensor_view;

use cutlet_harness::{device_or_skip, devices_or_skip};

/// What an example needs to run.
enum Needs {
    /// A GPU of compute capability 8.0 or newer (the SM80 kernels).
    Sm80,
    /// Compute capability 8.9 or newer: FP8 conversions.
    Fp8,
    /// Two GPUs and NCCL.
    TwoGpus,
}

fn run(test: &str, needs: Needs, program: fn() -> cutlet::Result<()>) {
    let least = match needs {
        Needs::TwoGpus => {
            if devices_or_skip(test, 2).is_none() {
                return;
            }
            (8, 0)
        }
        Needs::Sm80 => (8, 0),
        Needs::Fp8 => (8, 9),
    };
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let cc = device.compute_capability();
    if cc < least {
        eprintln!("skipped {test}: it needs compute capability {least:?}, the device is {cc:?}");
        return;
    }
    drop(device);
    if let Err(e) = program() {
        panic!("{test}: the rustdoc's example failed: {e}");
    }
}

#[test]
fn rustdoc_device_elementwise_runs() {
    run(
        "rustdoc_device_elementwise_runs",
        Needs::Sm80,
        device_elementwise::main,
    );
}
#[test]
fn rustdoc_device_gemm_adapter_runs() {
    run(
        "rustdoc_device_gemm_adapter_runs",
        Needs::Sm80,
        device_gemm_adapter::main,
    );
}
#[test]
fn rustdoc_device_gemm_arguments_product_runs() {
    run(
        "rustdoc_device_gemm_arguments_product_runs",
        Needs::Sm80,
        device_gemm_arguments_product::main,
    );
}
#[test]
fn rustdoc_device_gemm_builder_runs() {
    run(
        "rustdoc_device_gemm_builder_runs",
        Needs::Sm80,
        device_gemm_builder::main,
    );
}
#[test]
fn rustdoc_device_gemm_builder_spec_for_runs() {
    run(
        "rustdoc_device_gemm_builder_spec_for_runs",
        Needs::Sm80,
        device_gemm_builder_spec_for::main,
    );
}
#[test]
fn rustdoc_device_gemm_front_doors_runs() {
    run(
        "rustdoc_device_gemm_front_doors_runs",
        Needs::Sm80,
        device_gemm_front_doors::main,
    );
}
#[test]
fn rustdoc_device_gemm_typed_runs() {
    run(
        "rustdoc_device_gemm_typed_runs",
        Needs::Sm80,
        device_gemm_typed::main,
    );
}
#[test]
fn rustdoc_device_mod_runs() {
    run("rustdoc_device_mod_runs", Needs::Sm80, device_mod::main);
}
#[test]
fn rustdoc_device_quantize_rows_runs() {
    run(
        "rustdoc_device_quantize_rows_runs",
        Needs::Fp8,
        device_quantize_rows::main,
    );
}
#[test]
fn rustdoc_device_quantize_with_scale_runs() {
    run(
        "rustdoc_device_quantize_with_scale_runs",
        Needs::Fp8,
        device_quantize_with_scale::main,
    );
}
#[test]
fn rustdoc_device_reduce_runs() {
    run(
        "rustdoc_device_reduce_runs",
        Needs::Sm80,
        device_reduce::main,
    );
}
#[test]
fn rustdoc_device_vector_add_runs() {
    run(
        "rustdoc_device_vector_add_runs",
        Needs::Sm80,
        device_vector_add::main,
    );
}
#[test]
fn rustdoc_distributed_rank_runs() {
    run(
        "rustdoc_distributed_rank_runs",
        Needs::TwoGpus,
        distributed_rank::main,
    );
}
#[test]
fn rustdoc_tensor_mod_runs() {
    run("rustdoc_tensor_mod_runs", Needs::Sm80, tensor_mod::main);
}
#[test]
fn rustdoc_tensor_view_runs() {
    run("rustdoc_tensor_view_runs", Needs::Sm80, tensor_view::main);
}
