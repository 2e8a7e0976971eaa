//! [`GemmOperand`]: the four tensors of a GEMM, A, B, C and D.

/// One of the four tensors of `D = alpha * A B + beta * C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GemmOperand {
    /// A, M x K.
    A,
    /// B, N x K (as CUTLASS 3.x views it).
    B,
    /// C, the epilogue's source, M x N.
    C,
    /// D, the output, M x N.
    D,
}

impl GemmOperand {
    /// A, B, C, D in order.
    pub const ALL: [GemmOperand; 4] = [
        GemmOperand::A,
        GemmOperand::B,
        GemmOperand::C,
        GemmOperand::D,
    ];

    /// `a`, `b`, `c` or `d`, as parameter names write it.
    pub const fn name(self) -> &'static str {
        match self {
            GemmOperand::A => "a",
            GemmOperand::B => "b",
            GemmOperand::C => "c",
            GemmOperand::D => "d",
        }
    }
}
