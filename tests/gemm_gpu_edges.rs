//! The GEMM device layer's edge cases on a real GPU: a misaligned view, zero
//! sizes (nothing written), K = 0 (D = beta · C), the typed adapter.

mod common;

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{
    Arguments, DefaultBf16Sm80, Gemm, GemmShape, GemmUniversalAdapter, Operand, OutputOperand,
};
use cutlet::Error;
use half::bf16;

use common::gpu::device_or_skip;

fn values(len: usize, start: f32) -> Vec<bf16> {
    (0..len)
        .map(|i| bf16::from_f32(start + (i % 17) as f32 * 0.25))
        .collect()
}

#[test]
fn a_view_at_offset_one_is_a_misaligned_pointer() {
    let Some(device) = device_or_skip("a_view_at_offset_one_is_a_misaligned_pointer") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (64, 64, 64);
    let a = stream.clone_htod(&values(m * k + 1, 0.0)).unwrap();
    let b = stream.clone_htod(&values(n * k, 0.0)).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let mut args = Arguments::in_place(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.slice(1..), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
        0.0,
    );
    let err = gemm.run(&mut args, &stream).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("a (device address)") && text.contains("16-byte aligned"),
        "{text}"
    );
    assert_eq!(gemm.can_implement(&args).unwrap_err().to_string(), text);
}

#[test]
fn zero_sizes_write_nothing_and_k_zero_writes_beta_c() {
    let Some(device) = device_or_skip("zero_sizes_write_nothing_and_k_zero_writes_beta_c") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (40, 24, 16);
    let a = stream.clone_htod(&values(m * k, 0.5)).unwrap();
    let b = stream.clone_htod(&values(n * k, -0.5)).unwrap();
    let host_c = values(m * n, 1.0);
    let c = stream.clone_htod(&host_c).unwrap();
    let poison = vec![bf16::from_f32(f32::NAN); m * n];
    let mut d = stream.clone_htod(&poison).unwrap();
    let gemm = Gemm::builder().build(&device).unwrap();
    let run = |shape: GemmShape, d: &mut CudaSlice<bf16>| {
        let mut args = Arguments::new(
            shape,
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            Operand::new(c.as_view(), n, 0),
            OutputOperand::new(d.as_view_mut(), n, 0),
            1.5,
            -2.0,
        );
        gemm.run(&mut args, &stream).unwrap();
    };
    for shape in [
        GemmShape::new(0, n, k, 1),
        GemmShape::new(m, 0, k, 1),
        GemmShape::new(m, n, k, 0),
    ] {
        run(shape, &mut d);
    }
    let untouched = stream.clone_dtoh(&d).unwrap();
    assert!(
        untouched.iter().all(|v| v.is_nan()),
        "a zero-size problem wrote D"
    );
    run(GemmShape::new(m, n, 0, 1), &mut d);
    let got = stream.clone_dtoh(&d).unwrap();
    for (index, (g, c)) in got.iter().zip(&host_c).enumerate() {
        let want = bf16::from_f32(-2.0 * c.to_f32());
        assert_eq!(*g, want, "element {index}: K = 0 gives D = beta * C");
    }
}
