//! GEMM + all-reduce over peer copies (see [`peer_ops`](super::peer_ops)).

use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};

use super::ops::{alloc, shape_record, Op, TpElement, TpOptions};
use super::peer_ops::{at, sum_into, Prepared, RECORD};
use super::peers::{post_event, wait_for, PeerGroup, RawEvent};
use super::rank::TpRank;
use super::trace::Timeline;
use crate::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use crate::{Error, Result};

impl TpRank {
    /// [`gemm_all_reduce`](TpRank::gemm_all_reduce) over peer copies: one
    /// GEMM of all M rows (at decode sizes the weights' traffic dominates:
    /// one pass over them), the other ranks' partials pulled as soon as
    /// each is computed, and one sum of the W partials in rank order (f32,
    /// rounded once) into `d`. `local` is the outcome of this rank's own
    /// argument checks.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gemm_all_reduce_peers<T: TpElement>(
        &self,
        peers: &PeerGroup,
        local: Result<()>,
        gemm: &Gemm,
        shape: GemmShape,
        a: &Operand<'_, T>,
        b: &Operand<'_, T>,
        out: &mut CudaViewMut<'_, T>,
        alpha: f64,
        options: &TpOptions,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let (w, r) = (self.world_size(), self.rank());
        let GemmShape { m, n, .. } = shape;
        // The GEMMs need nothing from the other ranks and write only this
        // rank's own buffers: they start before the exchange. A failure
        // here is posted as this rank's, so that no rank waits for it.
        let prepared = local.and_then(|()| {
            let mut trace = Timeline::start(stream)?;
            let mut partials = alloc::<T>(stream, m * n)?;
            // The buffer the other ranks' partials arrive in exists before
            // the GEMMs start, so that the copies run beside them.
            let mut incoming = alloc::<T>(stream, w * m.max(1) * n)?;
            let incoming_address = {
                let (address, _write) = incoming.device_ptr_mut(stream);
                address
            };
            let allocated = post_event(stream)?;
            let mut args = Arguments::product(
                shape,
                Operand::new(a.data.slice(..), a.ld, 0),
                Operand::new(b.data.slice(..), b.ld, 0),
                OutputOperand::new(partials.slice_mut(..), n, 0),
                alpha,
            );
            Timeline::span(
                &mut trace,
                stream,
                || format!("GEMM of {m} rows"),
                || gemm.run(&mut args, stream),
            )?;
            drop(args);
            let (event, raw) = post_event(stream)?;
            let computed = vec![Some(raw)];
            let alive = vec![event];
            let partials_address = {
                let (address, _read) = partials.device_ptr(stream);
                address
            };
            Ok(Prepared {
                trace,
                partials,
                partials_address,
                incoming,
                incoming_address,
                allocated,
                computed,
                alive,
            })
        });
        let (
            all,
            Prepared {
                mut trace,
                partials,
                incoming,
                incoming_address,
                allocated,
                alive,
                ..
            },
        ) = self.exchange_prepared(
            peers,
            shape_record(Op::GemmAllReduce, shape, options),
            prepared,
            |p| (vec![p.partials_address], p.computed.clone()),
        )?;
        Self::or_abandon(peers, r, || {
            let mut got: Vec<Option<(CudaEvent, RawEvent)>> = (0..w).map(|_| None).collect();
            for j in 1..w {
                // Rank r - 1 computed this rank's rows first.
                let p = (r + w - j) % w;
                let copies = &self.copy_streams()[j - 1];
                wait_for(copies, Some(allocated.1))?;
                if m > 0 {
                    wait_for(copies, all[p].events[0])?;
                    let rows = m;
                    Timeline::span(
                        &mut trace,
                        copies,
                        || format!("copy of rank {p}'s partials of {rows} rows"),
                        || {
                            // SAFETY: rank p's partials stay live until its
                            // stream passes this rank's `got[p]` (`release`);
                            // `incoming` is freed on `stream` after the sum
                            // that waits for the copy.
                            unsafe {
                                peers.copy(
                                    (r, at::<T>(incoming_address, p * m * n)),
                                    (p, all[p].addresses[RECORD]),
                                    rows * n * std::mem::size_of::<T>(),
                                    copies,
                                )
                            }
                        },
                    )?;
                }
                got[p] = Some(post_event(copies)?);
            }
            for (event, _) in got.iter().flatten() {
                stream
                    .wait(event)
                    .map_err(|e| Error::driver("waiting for a partial's copy", e))?;
            }
            if m > 0 {
                let len = m * n;
                let views: Vec<CudaView<'_, T>> = (0..w)
                    .map(|p| {
                        if p == r {
                            partials.slice(0..len)
                        } else {
                            incoming.slice(p * len..(p + 1) * len)
                        }
                    })
                    .collect();
                let mut target = out.slice_mut(0..len);
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("sum of {w} partials of {m} rows"),
                    || sum_into(self.device(), &views, &mut target, stream),
                )?;
            }
            self.release(peers, &got, stream)?;
            drop((partials, incoming, allocated, alive));
            Timeline::print(trace, "GEMM + all-reduce over peer copies", r)
        })
    }
}
