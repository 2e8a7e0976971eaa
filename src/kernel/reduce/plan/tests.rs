use super::super::ReduceOp;
use super::*;
use crate::arch::ArchKind;

fn problem(shape: [u64; 2], strides: [u64; 2], dim: ReduceDim) -> Problem {
    Problem {
        op: ReduceOp::Sum,
        input: ElementType::F32,
        output: ElementType::F32,
        shape,
        strides,
        address: 0,
        out_stride: 1,
        dim,
        map: None,
        arch: ArchKind::Sm90,
        sm_count: 132,
        ctas_per_sm: 8,
        tuning: ColumnTuning::default(),
    }
}

/// Every launch's grid y is its splits param, and reads/writes stay in
/// the workspace it declares.
fn consistent(plan: &Plan) {
    for launch in &plan.launches {
        let splits = match launch.spec.layout {
            ReduceLayout::Rows { .. } => launch.shape.params[4],
            ReduceLayout::Columns { .. } => launch.shape.params[3],
        };
        assert_eq!(u64::from(launch.shape.grid.1), splits, "{launch:?}");
        if let Workspace::At(offset) = launch.target {
            assert!(offset < plan.workspace.max(1), "{launch:?}");
        }
    }
}

#[test]
fn split_column_reductions_finish_in_one_launch() {
    let mut aligned = problem([16384, 8192], [8192, 1], ReduceDim::First);
    aligned.ctas_per_sm = 4;
    let plan = plan(&aligned);
    assert_eq!(plan.launches.len(), 1);
    assert_eq!(plan.launches[0].shape.grid, (64, 8));
    assert_eq!((plan.workspace, plan.counters), (8 * 8192, 64));
    aligned.tuning.waves = 2;
    aligned.tuning.bytes_in_flight = 128;
    let two = super::plan(&aligned);
    assert_eq!(two.launches[0].shape.grid, (64, 16));
    assert!(matches!(
        two.launches[0].spec.layout,
        ReduceLayout::Columns { rows: 8, .. }
    ));
    let short = super::plan(&problem([40, 8192], [8192, 1], ReduceDim::First));
    assert_eq!(short.launches[0].shape.grid.1, 1);
    assert_eq!((short.workspace, short.counters), (0, 0));
    consistent(&plan);
}

#[test]
fn many_rows_need_one_pass() {
    let plan = plan(&problem([16384, 8192], [8192, 1], ReduceDim::Last));
    assert_eq!(plan.launches.len(), 1);
    assert_eq!(plan.workspace, 0);
    let launch = &plan.launches[0];
    assert_eq!(launch.spec.layout, ReduceLayout::Rows { vectorized: true });
    assert_eq!(launch.shape.grid, (16384, 1));
    consistent(&plan);
}

#[test]
fn few_long_rows_split_and_finish_in_one_launch() {
    let plan = plan(&problem([3, 200_000], [200_000, 1], ReduceDim::Last));
    assert_eq!(plan.launches.len(), 1);
    let launch = &plan.launches[0];
    assert!(launch.spec.finish);
    assert!(launch.shape.grid.1 > 1, "split: {launch:?}");
    assert_eq!(launch.target, Workspace::Output);
    assert_eq!(plan.workspace, 3 * u64::from(launch.shape.grid.1));
    assert_eq!(plan.counters, 3);
    consistent(&plan);
}

fn columns(vector: u32, reps: u32, rows: u32, shifted: bool) -> ReduceLayout {
    ReduceLayout::Columns {
        vector,
        reps,
        rows,
        shifted,
        prefetch: false,
    }
}

#[test]
fn column_reduction_vector_width_follows_alignment() {
    let aligned = plan(&problem([1000, 1000], [1000, 1], ReduceDim::First));
    assert_eq!(aligned.launches[0].spec.layout, columns(4, 1, 4, false));
    // Unaligned rows: shifted 16-byte vectors by default.
    let ragged = plan(&problem([1000, 999], [999, 1], ReduceDim::First));
    assert_eq!(ragged.launches[0].spec.layout, columns(4, 1, 2, true));
    let mut narrow = problem([1000, 999], [999, 1], ReduceDim::First);
    narrow.tuning.shifted = Some(false);
    assert_eq!(
        plan(&narrow).launches[0].spec.layout,
        columns(1, 1, 16, false)
    );
    narrow.tuning.wide = Some(true);
    assert_eq!(
        plan(&narrow).launches[0].spec.layout,
        columns(1, 4, 4, false)
    );
    let mut offset = problem([1000, 1000], [1000, 1], ReduceDim::First);
    offset.address = 8;
    assert_eq!(
        plan(&offset).launches[0].spec.layout,
        columns(4, 1, 2, true)
    );
    offset.tuning.shifted = Some(false);
    assert_eq!(
        plan(&offset).launches[0].spec.layout,
        columns(2, 1, 8, false)
    );
    consistent(&aligned);
}

#[test]
fn column_major_rows_reduce_down_columns() {
    let plan = plan(&problem([500, 300], [1, 500], ReduceDim::Last));
    assert!(matches!(
        plan.launches[0].spec.layout,
        ReduceLayout::Columns { .. }
    ));
    consistent(&plan);
}

#[test]
fn full_reductions_flatten_dense_tensors() {
    let dense = plan(&problem([16384, 8192], [8192, 1], ReduceDim::All));
    assert_eq!(dense.launches.len(), 1, "one launch, finished in-kernel");
    assert_eq!(dense.counters, 1);
    assert_eq!(dense.launches[0].shape.params[0], 1, "one line");
    let padded = plan(&problem([700, 500], [512, 1], ReduceDim::All));
    assert_eq!(padded.launches[0].shape.params[0], 700, "one line per row");
    assert_eq!(padded.launches.last().unwrap().target, Workspace::Output);
    consistent(&dense);
    consistent(&padded);
}

#[test]
fn very_many_partials_add_a_pass_and_ping_pong() {
    let plan = plan(&problem([1 << 20, 3], [4, 1], ReduceDim::All));
    assert_eq!(plan.launches.len(), 3);
    assert_eq!(plan.launches[1].source, Workspace::At(0));
    assert_eq!(plan.launches[2].source, plan.launches[1].target);
    consistent(&plan);
}

#[test]
fn empty_outputs_plan_nothing_and_empty_lines_one_launch() {
    assert!(plan(&problem([0, 5], [5, 1], ReduceDim::Last))
        .launches
        .is_empty());
    let empty_lines = plan(&problem([4, 0], [0, 1], ReduceDim::Last));
    assert_eq!(empty_lines.launches.len(), 1);
    assert_eq!(empty_lines.launches[0].shape.grid, (4, 1));
}
