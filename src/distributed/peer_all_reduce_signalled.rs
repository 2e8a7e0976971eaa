//! GEMM + all-reduce over peer memory with the ranks meeting on the GPUs
//! (`TpOptions::check_shapes` off): a one-shot all-reduce, as vLLM's and
//! TensorRT-LLM's custom all-reduce without multicast, whose ranks signal
//! and wait for each other inside the sum kernel
//! ([`ReduceSlots`](super::reduce_slots::ReduceSlots)), so that a call is
//! two launches and no host exchange once the ranks' buffers are known.

use cudarc::driver::CudaViewMut;

use super::ops::{shape_record, Op, PeerCall, TpElement};
use super::peer_ops::{gemm_partials, RECORD};
use super::rank::TpRank;
use super::reduce_slots::{abort, Halves, Sum};
use super::trace::Timeline;
use crate::device::gemm::{GemmShape, Operand};
use crate::Result;

impl TpRank {
    /// [`gemm_all_reduce`](TpRank::gemm_all_reduce) over peer memory
    /// without the host's checks: one GEMM of all M rows into this rank's
    /// slot, then one kernel that tells the other ranks its partials are
    /// complete, waits on the GPU until theirs are, reads the W partials in
    /// place (the other ranks' over the GPUs' link) and sums them in rank
    /// order (f32, rounded once) into `d`. The host exchanges with the
    /// other ranks (comparing their calls as well) only on the first call
    /// and where a rank's buffer is too small; otherwise a call is two
    /// launches.
    ///
    /// The waits run on the GPUs and hold SMs, so the calls must be queued
    /// in the same order on every rank, and two groups that share a GPU
    /// must not queue their calls in different orders (as with NCCL).
    pub(super) fn gemm_all_reduce_signalled<T: TpElement>(
        &self,
        call: PeerCall<'_>,
        a: &Operand<'_, T>,
        b: &Operand<'_, T>,
        out: &mut CudaViewMut<'_, T>,
    ) -> Result<()> {
        let PeerCall {
            peers,
            local,
            gemm,
            shape,
            alpha,
            options,
            stream,
        } = call;
        let (w, r) = (self.world_size(), self.rank());
        let GemmShape { m, n, .. } = shape;
        let len = m * n;
        peers.check_open()?;
        let signals = peers.signals(r);
        let mut slots = peers.slots(r);
        let epoch = slots.next_epoch();
        // Without an exchange, every rank's half must already hold this
        // call's partials (a call whose shape differs between ranks then
        // reads no further than their buffers, though it sums garbage).
        let exchange = !slots.holds(len * std::mem::size_of::<T>());
        // The GEMM needs nothing from the other ranks: it is queued before
        // any exchange.
        let prepared = local.and_then(|()| {
            let mut trace = Timeline::start(stream)?;
            let mut half = slots.half::<T>(epoch, len, stream)?;
            if len > 0 {
                gemm_partials(
                    gemm,
                    shape,
                    a,
                    b,
                    half.slice_mut(..),
                    alpha,
                    &mut trace,
                    stream,
                )?;
            }
            Ok((trace, slots.own()))
        });
        let mut trace = if exchange {
            // A failure before here is posted as this rank's, so that no
            // rank waits for it; every rank counts the call either way.
            let exchanged = self.exchange_prepared(
                peers,
                shape_record(Op::GemmAllReduce, shape, options),
                prepared,
                |(_, own)| (own.posting().to_vec(), Vec::new()),
            );
            slots.advance(epoch);
            let (all, (trace, _)) = exchanged?;
            let group = all
                .iter()
                .map(|p| Halves::from_posting(&p.addresses[RECORD..]))
                .collect();
            slots.remember(group);
            trace
        } else {
            slots.advance(epoch);
            match prepared {
                Ok((trace, _)) => trace,
                Err(e) => {
                    // The other ranks' sums are queued and will wait for
                    // this rank's signal: release them, and fail their next
                    // operation.
                    abort(self.device(), &signals);
                    peers.abandon(r);
                    return Err(e);
                }
            }
        };
        let summed = (|| {
            if len > 0 {
                let parts: Vec<u64> = slots
                    .group()
                    .expect("exchanged before the sum")
                    .iter()
                    .map(|h| h.half(epoch))
                    .collect();
                let sum = Sum {
                    parts: &parts,
                    signals: &signals,
                    flags: slots.flags(),
                    epoch,
                    rank: r,
                };
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("sum of {w} partials of {m} rows, signalled on the GPUs"),
                    || sum.launch(self.device(), &mut out.slice_mut(0..len), stream),
                )?;
                slots.free_retired(stream)?;
            }
            Timeline::print(trace, "GEMM + all-reduce over peer memory", r)
        })();
        if summed.is_err() {
            abort(self.device(), &signals);
            peers.abandon(r);
        }
        summed
    }
}
