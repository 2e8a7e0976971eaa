// The whole program; examples/quickstart.rs runs it on random data and checks the results.
use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
use cutlet::device::{Device, Elementwise, Reduce, ReduceWorkspace};
use cutlet::fusion::{Expr, Expression};
use cutlet::half::bf16;
use cutlet::kernel::reduce::ReduceOp;
use cutlet::tensor::{TensorMut, TensorRef};

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let stream = device.default_stream();

    // D = A * B, bf16 in, f32 accumulate, bf16 out; A row-major M x K, B column-major K x N.
    let (m, n, k) = (256, 384, 128);
    let a = stream.clone_htod(&vec![bf16::from_f32(0.5); m * k])?;
    let b = stream.clone_htod(&vec![bf16::from_f32(0.25); k * n])?;
    let mut d = stream.alloc_zeros::<bf16>(m * n)?;
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),           // A: ld = K
        Operand::new(b.as_view(), k, 0),           // B: ld = K
        OutputOperand::new(d.as_view_mut(), n, 0), // D: ld = N
        1.0,                                       // alpha
    );
    gemm.run(&mut args, &stream)?;

    // y = gelu(x * w + bias), bias broadcast along the rows: one kernel,
    // generated and JIT-compiled on first use.
    let (rows, cols) = (1000, 1027);
    let x = stream.clone_htod(&vec![0.5f32; rows * cols])?;
    let w = stream.clone_htod(&vec![2.0f32; rows * cols])?;
    let bias = stream.clone_htod(&vec![0.1f32; cols])?;
    let mut y = stream.alloc_zeros::<f32>(rows * cols)?;
    let op = Elementwise::new(&device, Expression::from_fn(|x: Expr, w: Expr, b: Expr| (x * w + b).gelu()));
    op.run(
        &[
            TensorRef::row_major(&x, rows, cols)?.into(),
            TensorRef::row_major(&w, rows, cols)?.into(),
            TensorRef::broadcast_row(&bias, rows, cols)?.into(),
        ],
        TensorMut::row_major(&mut y, rows, cols)?.into(),
        &[], // scalars
        &stream,
    )?;

    // Sum of squares of each row, f32 accumulation.
    let mut row_sums = stream.alloc_zeros::<f32>(rows)?;
    let mut workspace = ReduceWorkspace::new();
    let sum_of_squares = Reduce::along(&device, ReduceOp::Sum, -1)?
        .map(Expression::from_fn(|x: Expr| &x * &x), &[]);
    sum_of_squares.run(
        TensorRef::row_major(&x, rows, cols)?.into(),
        TensorMut::vector(&mut row_sums).into(),
        &mut workspace,
        &stream,
    )?;

    println!("d[0] = {}", stream.clone_dtoh(&d)?[0]); // 128 * 0.5 * 0.25 = 16
    println!("y[0] = {}", stream.clone_dtoh(&y)?[0]); // gelu(1.1), about 0.95
    println!("row_sums[0] = {}", stream.clone_dtoh(&row_sums)?[0]); // 1027 * 0.25 = 256.75
    Ok(())
}
