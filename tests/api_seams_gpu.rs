//! Behaviour a program written from the README and the rustdoc relies on,
//! on a GPU (issue 26): the documented error kinds, refusals of what the
//! kernels cannot do, and f32 GEMM inputs multiplying as tf32. Each test
//! skips with a printed reason where no driver or GPU is found.

mod common;

use common::gpu::random_vec;
use cudarc::driver::DevicePtr;
use cutlet::arch::ArchKind;
use cutlet::device::gemm::{
    Arguments, DefaultBf16Sm80, Gemm, GemmShape, GemmUniversalAdapter, Operand, OutputOperand,
};
use cutlet::device::{Elementwise, Reduce, ReduceWorkspace};
use cutlet::fusion::{Expr, Expression};
use cutlet::kernel::gemm::{Epilogue, OperandMajor, OutputMajor};
use cutlet::kernel::reduce::ReduceOp;
use cutlet::numeric::ElementType;
use cutlet::tensor::{TensorMut, TensorRef};
use cutlet::ErrorKind;
use cutlet_harness::device_or_skip;

/// `with_epilogue` with an expression of the wrong arity is an
/// `Error::Config` (InvalidConfiguration), as its rustdoc says.
#[test]
fn with_epilogue_of_the_wrong_arity_is_an_invalid_configuration() {
    let Some(device) =
        device_or_skip("with_epilogue_of_the_wrong_arity_is_an_invalid_configuration")
    else {
        return;
    };
    let three = Expression::from_fn(|acc: Expr, c: Expr, x: Expr| acc + c + x);
    let err =
        GemmUniversalAdapter::<DefaultBf16Sm80>::with_epilogue(&device, Epilogue::from(three))
            .unwrap_err();
    assert!(matches!(err, cutlet::Error::Config { .. }), "{err:?}");
    assert_eq!(err.kind(), ErrorKind::InvalidConfiguration, "{err}");
}

/// `Elementwise::compute` takes f32 or f64; f16 is refused at `run` with an
/// `InvalidArgument` naming it.
#[test]
fn elementwise_compute_in_f16_is_refused() {
    let Some(device) = device_or_skip("elementwise_compute_in_f16_is_refused") else {
        return;
    };
    let stream = device.default_stream();
    let x = stream.clone_htod(&[1.0f32; 64]).unwrap();
    let mut y = stream.alloc_zeros::<f32>(64).unwrap();
    let op =
        Elementwise::new(&device, Expression::from_fn(|x: Expr| &x + &x)).compute(ElementType::F16);
    let err = op
        .run(
            &[TensorRef::vector(&x).into()],
            TensorMut::vector(&mut y).into(),
            &[],
            &stream,
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(
        err.to_string().contains("compute type") && err.to_string().contains("f16"),
        "{err}"
    );
    // f64 runs.
    let op =
        Elementwise::new(&device, Expression::from_fn(|x: Expr| &x + &x)).compute(ElementType::F64);
    op.run(
        &[TensorRef::vector(&x).into()],
        TensorMut::vector(&mut y).into(),
        &[],
        &stream,
    )
    .unwrap();
    assert_eq!(stream.clone_dtoh(&y).unwrap(), vec![2.0f32; 64]);
}

/// A reduction whose output lies inside its input is refused (the kernels
/// read the input while they write the output), as `Elementwise` refuses
/// an overlapping output; the input is left as it was.
#[test]
fn reduce_output_overlapping_its_input_is_refused() {
    let Some(device) = device_or_skip("reduce_output_overlapping_its_input_is_refused") else {
        return;
    };
    let stream = device.default_stream();
    let (rows, cols) = (64, 256);
    let host: Vec<f32> = random_vec(3, rows * cols, -4, 5)
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let x = stream.clone_htod(&host).unwrap();
    let (address, guard) = x.device_ptr(&stream);
    drop(guard);
    // SAFETY: the alias covers the first `rows` elements of `x`, which
    // outlives it; it is leaked below, so its memory is freed once, by `x`.
    let mut alias = unsafe { stream.upgrade_device_ptr::<f32>(address + 4 * 100, rows) };
    let mut workspace = ReduceWorkspace::new();
    let sum = Reduce::along(&device, ReduceOp::Sum, -1).unwrap();
    let err = sum
        .run(
            TensorRef::row_major(&x, rows, cols).unwrap().into(),
            TensorMut::vector(&mut alias).into(),
            &mut workspace,
            &stream,
        )
        .unwrap_err();
    alias.leak();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(err.to_string().contains("overlapping the input"), "{err}");
    assert_eq!(stream.clone_dtoh(&x).unwrap(), host);
}

/// f32 GEMM inputs (`ElementType::F32`) multiply as tf32, as the README
/// says: the same bits as a tf32 GEMM on the same data, on the kernel the
/// builder picks for the GPU and on the SM80 kernel.
#[test]
fn f32_inputs_multiply_as_tf32() {
    let Some(device) = device_or_skip("f32_inputs_multiply_as_tf32") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (200, 136, 96);
    // Values with low mantissa bits set, which tf32 drops.
    let values = |seed, len| -> Vec<f32> {
        random_vec(seed, len, -1000, 1001)
            .into_iter()
            .map(|x| x as f32 / 7.0)
            .collect()
    };
    let a = stream.clone_htod(&values(1, m * k)).unwrap();
    let b = stream.clone_htod(&values(2, n * k)).unwrap();
    let arches: &[Option<ArchKind>] = &[None, Some(ArchKind::Sm80)];
    for &arch in arches {
        let mut results = Vec::new();
        for input in [ElementType::F32, ElementType::TF32] {
            let mut builder = Gemm::builder()
                .a(input, OperandMajor::K)
                .b(input, OperandMajor::K)
                .d(ElementType::F32, OutputMajor::N);
            if let Some(arch) = arch {
                builder = builder.arch(arch);
            }
            let gemm = builder.build(&device).unwrap();
            let mut d = stream.alloc_zeros::<f32>(m * n).unwrap();
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(a.as_view(), k, 0),
                Operand::new(b.as_view(), k, 0),
                OutputOperand::new(d.as_view_mut(), n, 0),
                1.0,
            );
            gemm.run(&mut args, &stream)
                .unwrap_or_else(|e| panic!("{arch:?} {input}: {e}"));
            drop(args);
            results.push(stream.clone_dtoh(&d).unwrap());
        }
        let first = results[0]
            .iter()
            .zip(&results[1])
            .position(|(f, t)| f.to_bits() != t.to_bits());
        if let Some(i) = first {
            panic!(
                "{arch:?}: f32 and tf32 inputs differ first at D[{i}]: {} against {}",
                results[0][i], results[1][i]
            );
        }
    }
}
