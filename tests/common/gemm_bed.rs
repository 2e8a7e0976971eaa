//! The GEMM sweep's test bed (`tests/gemm_gpu.rs` for the SM80 kernels,
//! `tests/gemm_sm70_gpu.rs` for the SM70 ones): ragged shapes with L in
//! {1, 3}, alpha and beta not 0 or 1, C aliasing D on every other shape,
//! the output poisoned first, against the host f64 reference (and cuBLAS
//! for the large shapes); the tolerances are `tests/gemm_gpu.rs`'s.

use cudarc::driver::{CudaStream, DeviceRepr};
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::{
    dense_output, host_gemm, packed, random_values, CublasGemm, HostMatrix, HostValue,
};

use cutlet_harness::device_or_skip;

/// The sparse cross of the sizes, with L alternating 1 and 3.
const SHAPES: [(usize, usize, usize, usize); 14] = [
    (1, 1, 1, 1),
    (2, 7, 8, 3),
    (8, 13, 2, 1),
    (13, 64, 127, 3),
    (64, 8, 13, 1),
    (127, 128, 129, 3),
    (128, 128, 128, 1),
    (129, 255, 64, 3),
    (255, 129, 1000, 1),
    (1000, 2, 255, 3),
    (7, 1000, 128, 1),
    (1000, 127, 7, 1),
    (129, 1, 1000, 3),
    (256, 512, 64, 1),
];

/// Large shapes, checked against cuBLAS.
const LARGE_SHAPES: [(usize, usize, usize, usize); 3] = [
    (2048, 2048, 2048, 1),
    (1537, 2500, 1000, 2),
    (4096, 1024, 4093, 1),
];

const ALPHA: f64 = 1.25;
const BETA: f64 = -0.75;

fn unit_roundoff(element: ElementType) -> f64 {
    match element {
        ElementType::F16 => 2f64.powi(-11),
        ElementType::BF16 => 2f64.powi(-8),
        _ => 2f64.powi(-24),
    }
}

/// The bound of the module doc for one element.
fn tolerance(spec: &GemmSpec, k: usize, want: f64) -> f64 {
    let eps_out = unit_roundoff(spec.types.d);
    let eps_in = if matches!(spec.types.a, ElementType::F32 | ElementType::TF32) {
        2f64.powi(-11)
    } else {
        0.0
    };
    let eps_acc = if spec.types.acc == ElementType::F16 {
        2f64.powi(-11)
    } else {
        2f64.powi(-24)
    } * ((k + 1) as f64).sqrt();
    let eps = eps_out.max(eps_in).max(eps_acc);
    2.0 * eps_out * want.abs() + 4.0 * eps * ((k + 1) as f64).sqrt() * (ALPHA.abs() + BETA.abs())
}

pub fn spec_of(
    arch: Option<cutlet::arch::ArchKind>,
    a: ElementType,
    d: ElementType,
    acc: ElementType,
    majors: (OperandMajor, OperandMajor, OutputMajor),
) -> GemmSpec {
    let mut builder = Gemm::builder();
    if let Some(arch) = arch {
        builder = builder.arch(arch);
    }
    builder
        .a(a, majors.0)
        .b(a, majors.1)
        .d(d, majors.2)
        .accumulator(acc)
        .spec()
        .expect("a supported configuration")
}

/// Runs one shape through cutlet (and cuBLAS for `large`) and compares.
fn check_shape<T, D>(
    device: &Device,
    stream: &std::sync::Arc<CudaStream>,
    spec: &GemmSpec,
    shape: GemmShape,
    seed: u64,
    c_is_d: bool,
    large: bool,
) where
    T: Element + DeviceRepr + HostValue,
    D: Element + DeviceRepr + HostValue,
{
    let GemmShape { m, n, k, l } = shape;
    let [align_a, align_b, _, align_d] = spec.alignment();
    let (a_extent, b_extent, d_extent) = (
        if spec.majors.a == OperandMajor::K {
            (m, k)
        } else {
            (k, m)
        },
        if spec.majors.b == OperandMajor::K {
            (n, k)
        } else {
            (k, n)
        },
        if spec.majors.d == OutputMajor::N {
            (m, n)
        } else {
            (n, m)
        },
    );
    let (lda, batch_a) = packed(a_extent.0, a_extent.1, align_a);
    let (ldb, batch_b) = packed(b_extent.0, b_extent.1, align_b);
    let (ldd, batch_d) = packed(d_extent.0, d_extent.1, align_d);
    let host_a: Vec<T> = random_values(batch_a * l, seed);
    let host_b: Vec<T> = random_values(batch_b * l, seed + 1);
    let host_c: Vec<D> = random_values(batch_d * l, seed + 2);
    let a = stream.clone_htod(&host_a).unwrap();
    let b = stream.clone_htod(&host_b).unwrap();
    let poison = vec![D::from_f64(f64::NAN); batch_d * l];
    let c = stream.clone_htod(&host_c).unwrap();
    let mut d = stream
        .clone_htod(if c_is_d { &host_c } else { &poison })
        .unwrap();
    let gemm = Gemm::from_spec(device, spec.clone());
    let a_op = Operand::new(a.as_view(), lda, batch_a);
    let b_op = Operand::new(b.as_view(), ldb, batch_b);
    let d_op = OutputOperand::new(d.as_view_mut(), ldd, batch_d);
    let mut args = if c_is_d {
        Arguments::in_place(shape, a_op, b_op, d_op, ALPHA, BETA)
    } else {
        Arguments::new(
            shape,
            a_op,
            b_op,
            Operand::new(c.as_view(), ldd, batch_d),
            d_op,
            ALPHA,
            BETA,
        )
    };
    gemm.can_implement(&args)
        .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    gemm.run(&mut args, stream)
        .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    let got = dense_output(spec, shape, &stream.clone_dtoh(&d).unwrap(), ldd, batch_d);
    let want = if large {
        let blas = CublasGemm::new(stream.clone()).expect("cuBLAS for the large shapes");
        let mut reference = stream.clone_htod(&host_c).unwrap();
        let mut ref_args = Arguments::in_place(
            shape,
            Operand::new(a.as_view(), lda, batch_a),
            Operand::new(b.as_view(), ldb, batch_b),
            OutputOperand::new(reference.as_view_mut(), ldd, batch_d),
            ALPHA,
            BETA,
        );
        blas.run(spec, &mut ref_args).unwrap();
        dense_output(
            spec,
            shape,
            &stream.clone_dtoh(&reference).unwrap(),
            ldd,
            batch_d,
        )
    } else {
        host_gemm(
            spec,
            shape,
            HostMatrix {
                data: &host_a,
                ld: lda,
                batch_stride: batch_a,
            },
            HostMatrix {
                data: &host_b,
                ld: ldb,
                batch_stride: batch_b,
            },
            HostMatrix {
                data: &host_c,
                ld: ldd,
                batch_stride: batch_d,
            },
            ALPHA,
            BETA,
        )
    };
    let factor = if large { 2.0 } else { 1.0 };
    for (index, (g, w)) in got.iter().zip(&want).enumerate() {
        let bound = factor * tolerance(spec, k, *w);
        assert!(
            (g - w).abs() <= bound,
            "{} {shape:?} c_is_d={c_is_d}: element {index} (batch {}, row {}, col {}) is {g}, expected {w} within {bound:e}",
            spec.kernel_name(),
            index / (m * n),
            index % (m * n) / n,
            index % n
        );
    }
}

pub fn sweep<T, D>(test: &str, spec: GemmSpec, large: bool)
where
    T: Element + DeviceRepr + HostValue,
    D: Element + DeviceRepr + HostValue,
{
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let stream = device.default_stream();
    let shapes: &[_] = if large { &LARGE_SHAPES } else { &SHAPES };
    for (index, &(m, n, k, l)) in shapes.iter().enumerate() {
        check_shape::<T, D>(
            &device,
            &stream,
            &spec,
            GemmShape::new(m, n, k, l),
            100 + 7 * index as u64,
            index % 2 == 1,
            large,
        );
    }
}
