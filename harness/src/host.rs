//! The host reference: D = alpha · A · B + beta · C with f64 accumulation.

use half::{bf16, f16};

use cutlet::device::gemm::GemmShape;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};

/// A host element the reference reads and writes.
pub trait HostValue: Copy + Send + Sync + 'static {
    /// The value as f64 (exact for f16, bf16, f32).
    fn to_f64(self) -> f64;
    /// `value` rounded to this type (to nearest).
    fn from_f64(value: f64) -> Self;
    /// A random value of this type from `unit`, uniform in [-1, 1): the
    /// value itself rounded for float types; integer types spread it over
    /// their range (i8 -128..=127, u8 0..=255, i32 -1000..=1000), so that
    /// integer GEMMs multiply more than -1, 0 and 1.
    fn random_from_unit(unit: f64) -> Self {
        Self::from_f64(unit)
    }
}

impl HostValue for i8 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value.round() as i8
    }
    fn random_from_unit(unit: f64) -> Self {
        (unit * 128.0).floor() as i8
    }
}

impl HostValue for u8 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value.round() as u8
    }
    fn random_from_unit(unit: f64) -> Self {
        ((unit + 1.0) * 128.0).floor() as u8
    }
}

impl HostValue for i32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value.round() as i32
    }
    fn random_from_unit(unit: f64) -> Self {
        (unit * 1000.0).round() as i32
    }
}

impl HostValue for cutlet::float8::F8E4M3 {
    fn to_f64(self) -> f64 {
        cutlet::float8::F8E4M3::to_f64(&self)
    }
    fn from_f64(value: f64) -> Self {
        cutlet::float8::F8E4M3::from_f64(value)
    }
}

impl HostValue for cutlet::float8::F8E5M2 {
    fn to_f64(self) -> f64 {
        cutlet::float8::F8E5M2::to_f64(&self)
    }
    fn from_f64(value: f64) -> Self {
        cutlet::float8::F8E5M2::from_f64(value)
    }
}

impl HostValue for f16 {
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn from_f64(value: f64) -> Self {
        f16::from_f64(value)
    }
}

impl HostValue for bf16 {
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn from_f64(value: f64) -> Self {
        bf16::from_f64(value)
    }
}

impl HostValue for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

/// A matrix in host memory: its elements, leading dimension and batch stride.
#[derive(Clone, Copy, Debug)]
pub struct HostMatrix<'a, T> {
    /// The elements.
    pub data: &'a [T],
    /// Leading dimension in elements.
    pub ld: usize,
    /// Batch stride in elements.
    pub batch_stride: usize,
}

/// Where element (`row`, `col`) of an M × N output of major `major` lives.
///
/// ```
/// use cutlet_harness::output_index;
/// use cutlet::kernel::gemm::OutputMajor;
/// assert_eq!(output_index(OutputMajor::N, 2, 3, 10), 23);
/// assert_eq!(output_index(OutputMajor::M, 2, 3, 10), 32);
/// ```
pub fn output_index(major: OutputMajor, row: usize, col: usize, ld: usize) -> usize {
    match major {
        OutputMajor::N => row * ld + col,
        OutputMajor::M => col * ld + row,
    }
}

/// Where element (`mn`, `k`) of an M × K (or N × K) operand of major `major` lives.
fn operand_index(major: OperandMajor, mn: usize, k: usize, ld: usize) -> usize {
    match major {
        OperandMajor::K => mn * ld + k,
        OperandMajor::MN => k * ld + mn,
    }
}

/// D = alpha · A · B + beta · C in f64, with the majors of `spec`; returns D
/// densely, batch after batch, each row-major M × N (index
/// `l · M · N + row · N + col`). `c` is read with `spec.majors.c`.
/// Panics if a slice is shorter than the shape needs (a bug in the caller).
pub fn host_gemm<A: HostValue, B: HostValue, C: HostValue>(
    spec: &GemmSpec,
    shape: GemmShape,
    a: HostMatrix<'_, A>,
    b: HostMatrix<'_, B>,
    c: HostMatrix<'_, C>,
    alpha: f64,
    beta: f64,
) -> Vec<f64> {
    let GemmShape { m, n, k, l } = shape;
    let mut d = vec![0.0; m * n * l];
    let mut a_row = vec![0.0; k];
    for batch in 0..l {
        let (a_base, b_base, c_base) = (
            batch * a.batch_stride,
            batch * b.batch_stride,
            batch * c.batch_stride,
        );
        for row in 0..m {
            for (kk, value) in a_row.iter_mut().enumerate() {
                *value = a.data[a_base + operand_index(spec.majors.a, row, kk, a.ld)].to_f64();
            }
            for col in 0..n {
                let dot: f64 = a_row
                    .iter()
                    .enumerate()
                    .map(|(kk, &x)| {
                        x * b.data[b_base + operand_index(spec.majors.b, col, kk, b.ld)].to_f64()
                    })
                    .sum();
                let source = c.data[c_base + output_index(spec.majors.c, row, col, c.ld)].to_f64();
                d[batch * m * n + row * n + col] = alpha * dot + beta * source;
            }
        }
    }
    d
}

/// `len` small integers in -4..=4 from `seed` (a simple LCG: the values
/// matter, not their quality). FP8 and the 8-bit integers hold them
/// exactly, and f32 and s32 sums of up to 2^20 of their products are
/// exact, so a GPU result can be checked bit for bit.
///
/// ```
/// use cutlet_harness::small_ints;
///
/// let values = small_ints(1000, 1);
/// assert!(values.iter().all(|&v| v.fract() == 0.0 && (-4.0..=4.0).contains(&v)));
/// assert_eq!(values, small_ints(1000, 1));
/// assert_ne!(values, small_ints(1000, 2));
/// ```
pub fn small_ints(len: usize, seed: u64) -> Vec<f64> {
    lcg(seed)
        .take(len)
        .map(|x| ((x >> 33) % 9) as f64 - 4.0)
        .collect()
}

/// The states of a 64-bit linear congruential generator (Knuth's MMIX
/// constants) started from `seed`: reproducible test data without a
/// random crate; take the high bits, the low ones cycle quickly.
///
/// ```
/// use cutlet_harness::lcg;
///
/// let first: Vec<u64> = lcg(7).take(3).collect();
/// assert_eq!(first, lcg(7).take(3).collect::<Vec<_>>());
/// assert_ne!(first[0], lcg(8).next().unwrap());
/// ```
pub fn lcg(seed: u64) -> impl Iterator<Item = u64> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    std::iter::repeat_with(move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x
    })
}
