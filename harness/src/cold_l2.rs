//! Cold-L2 timing, CuTe DSL `dense_gemm.py`'s `--use_cold_l2`: each timed
//! run reads and writes a different set of A, B and D buffers, rotating
//! through enough copies that, between two uses of one set, at least the
//! L2's size of other data has passed through the cache.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use cutlet::Error;

/// How many operand sets of `set_bytes` each (A, B and D of one run) to
/// rotate through on a GPU with `l2_bytes` of L2 so that a run finds none
/// of its operands in L2: enough that their total is at least twice the L2,
/// and at least one.
///
/// Where there are two sets or more, consecutive runs never share a set,
/// and between two uses of a set the others move at least the L2's size
/// (`2 · L2 − set_bytes` or more when a set is smaller than the L2, a whole
/// set when it is larger); a single set is twice the L2 or more, and its
/// own traffic evicts it.
///
/// ```
/// use cutlet_harness::cold_l2_buffer_sets;
/// const MIB: u64 = 1 << 20;
/// let h100_l2 = 50 * MIB;
/// // 4096 x 4096 bf16: A, B and D of 32 MiB each; two sets make 192 MiB.
/// assert_eq!(cold_l2_buffer_sets(h100_l2, 96 * MIB), 2);
/// // 512 x 512 bf16: 1.5 MiB a set; 67 sets make 100.5 MiB.
/// assert_eq!(cold_l2_buffer_sets(h100_l2, 3 * MIB / 2), 67);
/// // 8192 x 8192 bf16: one set of 384 MiB is 7.7 L2s already.
/// assert_eq!(cold_l2_buffer_sets(h100_l2, 384 * MIB), 1);
/// ```
pub fn cold_l2_buffer_sets(l2_bytes: u64, set_bytes: u64) -> usize {
    if set_bytes == 0 {
        return 1;
    }
    let sets = (2 * l2_bytes).div_ceil(set_bytes).max(1);
    usize::try_from(sets).unwrap_or(usize::MAX)
}

/// The operand sets that cold-L2 timed runs rotate through: copies of A
/// and B, and a D each (cutlet's and the reference's runs share them: the
/// timing reads no result).
pub(crate) struct Rotation<T, D> {
    sets: Vec<OperandSet<T, D>>,
    next: usize,
}

/// One run's A, B and D.
pub(crate) struct OperandSet<T, D> {
    pub a: CudaSlice<T>,
    pub b: CudaSlice<T>,
    pub d: CudaSlice<D>,
}

impl<T: DeviceRepr, D: DeviceRepr> Rotation<T, D> {
    /// `count` (at least one) copies of `a`, `b` and `d` on `stream`.
    ///
    /// Errors: [`Error::Driver`] when a copy cannot be allocated or made.
    pub fn new(
        stream: &Arc<CudaStream>,
        (a, b, d): (&CudaSlice<T>, &CudaSlice<T>, &CudaSlice<D>),
        count: usize,
    ) -> cutlet::Result<Self> {
        let copy_failed = |e| Error::driver("copying an operand set for --use_cold_l2", e);
        let sets = (0..count.max(1))
            .map(|_| {
                Ok(OperandSet {
                    a: stream.clone_dtod(a).map_err(copy_failed)?,
                    b: stream.clone_dtod(b).map_err(copy_failed)?,
                    d: stream.clone_dtod(d).map_err(copy_failed)?,
                })
            })
            .collect::<cutlet::Result<_>>()?;
        Ok(Rotation { sets, next: 0 })
    }

    /// How many sets there are.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// The set of the next run: each call the next one, round and round.
    pub fn next_set(&mut self) -> &mut OperandSet<T, D> {
        let index = self.next % self.sets.len();
        self.next = self.next.wrapping_add(1);
        &mut self.sets[index]
    }
}

#[cfg(test)]
mod tests {
    use super::cold_l2_buffer_sets;

    #[test]
    fn the_sets_total_at_least_twice_the_l2() {
        let l2 = 50u64 << 20;
        for set in [
            1u64,
            1000,
            3 << 19,
            10 << 20,
            49 << 20,
            50 << 20,
            51 << 20,
            99 << 20,
        ] {
            let sets = cold_l2_buffer_sets(l2, set) as u64;
            assert!(sets * set >= 2 * l2, "{sets} sets of {set} bytes");
            // One fewer would not do.
            assert!((sets - 1) * set < 2 * l2, "{sets} sets of {set} bytes");
            // Between two uses of one set, the others move at least the L2.
            assert!(
                sets == 1 || (sets - 1) * set >= l2,
                "{sets} sets of {set} bytes"
            );
        }
    }

    #[test]
    fn a_set_of_twice_the_l2_or_more_is_used_alone() {
        let l2 = 40u64 << 20;
        assert_eq!(cold_l2_buffer_sets(l2, 80 << 20), 1);
        assert_eq!(cold_l2_buffer_sets(l2, 1 << 30), 1);
        assert_eq!(cold_l2_buffer_sets(l2, 0), 1);
        assert_eq!(cold_l2_buffer_sets(0, 1 << 20), 1);
    }
}
