//! GEMM + all-reduce over peer memory (see [`peer_ops`](super::peer_ops)):
//! a one-shot all-reduce, as vLLM's and TensorRT-LLM's custom all-reduce
//! without multicast.

use cudarc::driver::{CudaEvent, CudaSlice, CudaViewMut, DevicePtr};

use super::ops::{alloc, shape_record, Op, PeerCall, TpElement};
use super::peer_ops::{gemm_partials, sum_refs_into, RECORD};
use super::peers::{post_event, wait_for, RawEvent};
use super::rank::TpRank;
use super::trace::Timeline;
use crate::device::gemm::{GemmShape, Operand};
use crate::tensor::{PeerBuffer, TensorRef};
use crate::Result;

/// A rank's part before the exchange: its partial products and the event
/// of their GEMM.
struct Partials<T: TpElement> {
    trace: Option<Timeline>,
    partials: CudaSlice<T>,
    address: u64,
    computed: (CudaEvent, RawEvent),
}

impl TpRank {
    /// [`gemm_all_reduce`](TpRank::gemm_all_reduce) over peer memory: one
    /// GEMM of all M rows (at decode sizes the weights' traffic dominates:
    /// one pass over them), then, once every rank's GEMM is done, one
    /// kernel that reads the W partials in place (the other ranks' over
    /// the GPUs' link) and sums them in rank order (f32, rounded once)
    /// into `d`.
    pub(super) fn gemm_all_reduce_peers<T: TpElement>(
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
        // The GEMM needs nothing from the other ranks and writes only this
        // rank's own buffer: it starts before the exchange. A failure
        // here is posted as this rank's, so that no rank waits for it.
        let prepared = local.and_then(|()| {
            let mut trace = Timeline::start(stream)?;
            let mut partials = alloc::<T>(stream, m * n)?;
            gemm_partials(
                gemm,
                shape,
                a,
                b,
                partials.slice_mut(..),
                alpha,
                &mut trace,
                stream,
            )?;
            let computed = post_event(stream)?;
            let address = {
                let (address, _read) = partials.device_ptr(stream);
                address
            };
            Ok(Partials {
                trace,
                partials,
                address,
                computed,
            })
        });
        let (
            all,
            Partials {
                mut trace,
                partials,
                computed,
                ..
            },
        ) = self.exchange_prepared(
            peers,
            shape_record(Op::GemmAllReduce, shape, options),
            prepared,
            |p| (vec![p.address], vec![Some(p.computed.1)]),
        )?;
        Self::or_abandon(peers, r, || {
            let len = m * n;
            for (p, posting) in all.iter().enumerate() {
                if p != r {
                    wait_for(stream, posting.events[0])?;
                }
            }
            if len > 0 {
                // SAFETY: rank p posted its partials (len elements of T,
                // in its device's pool, which every rank's device may
                // read: `TpRank` opens the pools to each other); `stream`
                // waits above for the event of their GEMM, and rank p
                // frees them only after its stream passes this rank's
                // `read` event (`release`), recorded after the sum.
                let remote: Vec<PeerBuffer<T>> = all
                    .iter()
                    .map(|posting| unsafe { PeerBuffer::new(posting.addresses[RECORD], len) })
                    .collect();
                let own = partials.slice(0..len);
                let parts: Vec<TensorRef<'_, T>> = (0..w)
                    .map(|p| {
                        if p == r {
                            TensorRef::vector(&own)
                        } else {
                            TensorRef::peer_vector(&remote[p])
                        }
                    })
                    .collect();
                let mut target = out.slice_mut(0..len);
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("sum of {w} partials of {m} rows, read in place"),
                    || sum_refs_into(self.device(), &parts, &mut target, stream),
                )?;
            }
            // One event for every peer: after it this rank reads no
            // rank's partials.
            let (read, raw) = post_event(stream)?;
            let released: Vec<Option<RawEvent>> = (0..w).map(|p| (p != r).then_some(raw)).collect();
            self.release(peers, &released, stream)?;
            drop((read, partials, computed));
            Timeline::print(trace, "GEMM + all-reduce over peer memory", r)
        })
    }
}
