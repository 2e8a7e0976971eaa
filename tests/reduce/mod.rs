//! The shared reduction test bed: host reference in f64, tolerances derived
//! from the kernels' summation order, and the cases both the GPU test and
//! the ptxas test use.
#![allow(dead_code)]

use cutlet::arch::ArchKind;
use cutlet::fusion::Expression;
use cutlet::kernel::reduce::{plan, ColumnTuning, Problem, ReduceDim, ReduceOp, ReduceSpec};
use cutlet::numeric::{Element, ElementType};

/// A host element type the tests upload and read back.
pub trait Host: Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Host for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Host for half::f16 {
    fn from_f64(x: f64) -> Self {
        half::f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
}

impl Host for half::bf16 {
    fn from_f64(x: f64) -> Self {
        half::bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
}

/// A 2-D view to test: shape, strides and the first element's offset in its buffer.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub name: &'static str,
    pub shape: [usize; 2],
    pub strides: [usize; 2],
    pub offset: usize,
}

impl View {
    /// The view `name` of `shape` with `strides`, starting at element `offset`.
    pub const fn new(
        name: &'static str,
        shape: [usize; 2],
        strides: [usize; 2],
        offset: usize,
    ) -> View {
        View {
            name,
            shape,
            strides,
            offset,
        }
    }

    /// Elements the buffer must hold.
    pub fn buffer_len(&self) -> usize {
        let [r, c] = self.shape;
        let [rs, cs] = self.strides;
        if r == 0 || c == 0 {
            return self.offset;
        }
        self.offset + (r - 1) * rs + (c - 1) * cs + 1
    }

    /// The element at (row, col) in a buffer.
    pub fn index(&self, row: usize, col: usize) -> usize {
        self.offset + row * self.strides[0] + col * self.strides[1]
    }
}

/// Small views covering every access path: aligned, ragged and unaligned,
/// column-major, padded rows (ld > cols), and no unit stride at all.
pub const VIEWS: [View; 6] = [
    View::new("aligned", [64, 256], [256, 1], 0),
    View::new("ragged", [37, 131], [131, 1], 1),
    View::new("col_major", [45, 77], [1, 45], 0),
    View::new("padded", [33, 100], [107, 1], 3),
    View::new("strided", [20, 30], [61, 2], 0),
    View::new("wide_ragged", [41, 1100], [1103, 1], 5),
];

/// Views large enough that the plan splits the reduced dimension over CTAs.
pub const SPLIT_VIEWS: [(View, ReduceDim); 5] = [
    (
        View::new("long_rows", [3, 200_000], [200_000, 1], 0),
        ReduceDim::Last,
    ),
    (
        View::new("tall", [20_000, 256], [256, 1], 0),
        ReduceDim::First,
    ),
    (
        View::new("tall_narrow", [70_000, 3], [3, 1], 0),
        ReduceDim::First,
    ),
    (
        View::new("dense", [2_000, 1_000], [1_000, 1], 0),
        ReduceDim::All,
    ),
    (
        View::new("padded_all", [700, 500], [512, 1], 5),
        ReduceDim::All,
    ),
];

/// The column-kernel tunings `examples/reduce_sweep.rs` measures (the
/// default first), with their names.
pub const TUNINGS: [(&str, ColumnTuning); 10] = [
    ("default", tuning(0, None, 0, None, false)),
    ("narrow", tuning(0, None, 0, Some(false), false)),
    ("wide", tuning(0, Some(true), 0, Some(false), false)),
    ("prefetch", tuning(0, None, 0, None, true)),
    ("2waves", tuning(0, None, 2, None, false)),
    ("2waves_prefetch", tuning(0, None, 2, None, true)),
    ("128B", tuning(128, None, 0, None, false)),
    ("128B_prefetch", tuning(128, None, 0, None, true)),
    ("32B", tuning(32, None, 0, None, false)),
    ("64B", tuning(64, None, 0, None, false)),
];

const fn tuning(
    bytes_in_flight: u32,
    wide: Option<bool>,
    waves: u32,
    shifted: Option<bool>,
    prefetch: bool,
) -> ColumnTuning {
    ColumnTuning {
        bytes_in_flight,
        wide,
        waves,
        shifted,
        prefetch,
    }
}

/// Every dimension.
pub const DIMS: [ReduceDim; 3] = [ReduceDim::Last, ReduceDim::First, ReduceDim::All];

/// (input, output) type pairs: the input's type or f32.
pub const TYPE_PAIRS: [(ElementType, ElementType); 5] = [
    (ElementType::F32, ElementType::F32),
    (ElementType::F16, ElementType::F16),
    (ElementType::F16, ElementType::F32),
    (ElementType::BF16, ElementType::BF16),
    (ElementType::BF16, ElementType::F32),
];

/// Maps the tests apply before reducing, with their scalars.
pub fn maps() -> Vec<(&'static str, Expression, Vec<f64>)> {
    vec![
        (
            "square",
            Expression::from_fn(|x: cutlet::fusion::Expr| &x * &x),
            vec![],
        ),
        (
            "scaled_exp",
            Expression::from_fn(|x: cutlet::fusion::Expr| (x * cutlet::fusion::scalar(0)).exp()),
            vec![0.5],
        ),
        (
            "abs",
            Expression::from_fn(|x: cutlet::fusion::Expr| x.abs()),
            vec![],
        ),
    ]
}

/// The reduced lines of `view` along `dim`: for each output, the buffer
/// indices it reduces.
pub fn lines(view: &View, dim: ReduceDim) -> Vec<Vec<usize>> {
    let [rows, cols] = view.shape;
    match dim {
        ReduceDim::Last => (0..rows)
            .map(|r| (0..cols).map(|c| view.index(r, c)).collect())
            .collect(),
        ReduceDim::First => (0..cols)
            .map(|c| (0..rows).map(|r| view.index(r, c)).collect())
            .collect(),
        ReduceDim::All => vec![(0..rows)
            .flat_map(|r| (0..cols).map(move |c| view.index(r, c)))
            .collect()],
    }
}

/// The exact reduction of `values` (f64), and the sum of their magnitudes.
pub fn reference(op: ReduceOp, values: &[f64]) -> (f64, f64) {
    let magnitude = values.iter().map(|v| v.abs()).sum();
    let value = match op {
        ReduceOp::Sum => values.iter().sum(),
        ReduceOp::Mean => values.iter().sum::<f64>() / values.len() as f64,
        ReduceOp::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ReduceOp::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
    };
    (value, magnitude)
}

/// Longest run of sequential f32 additions into one accumulator the plans
/// allow (a split's chunk over its threads and accumulators), plus the tree
/// depth: the factor of 2^-24 in the error bound of a sum.
pub const SEQUENTIAL_BOUND: f64 = 1024.0 + 64.0;

/// The largest error accepted for a result `want` (f64) written as `out`:
/// the f32 summation bound `SEQUENTIAL_BOUND * 2^-24 * sum|x|` (sum and
/// mean), the map's own f32 error (`2^-20` relative per element, for the
/// approximate `ex2`), one ulp of the output type, and a mean's division.
pub fn tolerance(
    op: ReduceOp,
    out: ElementType,
    want: f64,
    magnitude: f64,
    len: usize,
    mapped: bool,
) -> f64 {
    let map_error = if mapped { 2f64.powi(-20) } else { 0.0 };
    // One ulp of the output type at x, subnormals included (their spacing
    // is the smallest subnormal: 2^-24 for f16, 2^-133 bf16, 2^-149 f32).
    let ulp = |x: f64| {
        let (bits, smallest) = match out {
            ElementType::F16 => (10, -24),
            ElementType::BF16 => (7, -133),
            _ => (23, -149),
        };
        (x.abs() * 2f64.powi(-bits)).max(2f64.powi(smallest))
    };
    let summed = match op {
        ReduceOp::Sum => (SEQUENTIAL_BOUND * 2f64.powi(-24) + map_error) * magnitude,
        ReduceOp::Mean => {
            (SEQUENTIAL_BOUND * 2f64.powi(-24) + map_error) * magnitude / len.max(1) as f64
                + want.abs() * 2f64.powi(-23)
        }
        ReduceOp::Max | ReduceOp::Min => map_error * want.abs(),
    };
    summed + ulp(want) + ulp(summed) + f64::MIN_POSITIVE
}

/// One GPU test case: view, dimension, operator, (input, output) types and
/// the index of its map in `maps()` (`usize::MAX`: none).
type Case = (View, ReduceDim, ReduceOp, (ElementType, ElementType), usize);

/// The specs of every launch of every GPU test case on `arch` (132 SMs, as
/// an H100/H200; the SM count only changes split counts, not kernels).
pub fn planned_specs(arch: ArchKind) -> Vec<ReduceSpec> {
    let mut cases: Vec<Case> = Vec::new();
    for op in ReduceOp::ALL {
        for dim in DIMS {
            for pair in TYPE_PAIRS {
                for view in VIEWS {
                    cases.push((view, dim, op, pair, usize::MAX));
                }
                for (m, _) in maps().iter().enumerate() {
                    for view in [VIEWS[1], VIEWS[2], VIEWS[4], VIEWS[5]] {
                        cases.push((view, dim, op, pair, m));
                    }
                }
            }
        }
        for (view, dim) in SPLIT_VIEWS {
            for pair in [TYPE_PAIRS[0], TYPE_PAIRS[4]] {
                cases.push((view, dim, op, pair, usize::MAX));
            }
        }
    }
    let maps = maps();
    let mut specs: Vec<ReduceSpec> = Vec::new();
    for (view, dim, op, (input, output), map) in cases {
        let problem = Problem {
            op,
            input,
            output,
            shape: view.shape.map(|x| x as u64),
            strides: view.strides.map(|x| x as u64),
            address: 256 + (view.offset as u64) * u64::from(input.size_bytes()),
            out_stride: 1,
            dim,
            map: maps.get(map).map(|(_, e, _)| e.clone()),
            arch,
            sm_count: 132,
            ctas_per_sm: 8,
            tuning: ColumnTuning::default(),
        };
        for launch in plan(&problem).launches {
            if !specs.contains(&launch.spec) {
                specs.push(launch.spec);
            }
        }
    }
    // The column tunings `examples/reduce_sweep.rs` measures, on aligned
    // and ragged f32 rows.
    for (_, tuning) in TUNINGS {
        for (rows, cols) in [(16384u64, 8192u64), (16383, 8191)] {
            let problem = Problem {
                op: ReduceOp::Sum,
                input: ElementType::F32,
                output: ElementType::F32,
                shape: [rows, cols],
                strides: [cols, 1],
                address: 256,
                out_stride: 1,
                dim: ReduceDim::First,
                map: None,
                arch,
                sm_count: 132,
                ctas_per_sm: 8,
                tuning,
            };
            for launch in plan(&problem).launches {
                if !specs.contains(&launch.spec) {
                    specs.push(launch.spec);
                }
            }
        }
    }
    specs
}
