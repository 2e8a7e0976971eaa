//! GEMM + reduce-scatter over peer copies (see [`peer_ops`](super::peer_ops)).
//!
//! Each rank computes the partial products of the other ranks' shards
//! first (rank r + 1's first), each shard in two pieces of rows (one where
//! `TpOptions::chunks` is 1), each piece announced by an event, and the
//! other ranks pull each piece of their own shard as soon as it is
//! computed. A rank's own shard comes
//! last, in the same pieces, and each piece's GEMM adds the pulled
//! partials of those rows in its epilogue as C (beta = 1): with two ranks
//! the one partial, with more their sum (one elementwise kernel of W - 1
//! inputs, f32, rounded once). No pass over D follows the last GEMM.
//!
//! The result: `alpha · A_r · B_r + C` in f32, rounded once to the element
//! type, where each other rank's partial was rounded to the element type
//! (and, for W > 2, their sum once more).

use cudarc::driver::{CudaEvent, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};

use super::ops::{alloc, shape_record, Op, PeerCall, TpElement};
use super::peer_ops::{at, raw_events, sum_into, Prepared, RECORD};
use super::peers::{post_event, wait_for, RawEvent};
use super::rank::TpRank;
use super::rows::RowSplit;
use super::trace::Timeline;
use crate::device::gemm::{Arguments, GemmShape, Operand, OutputOperand};
use crate::{Error, Result};

impl TpRank {
    /// [`gemm_reduce_scatter`](TpRank::gemm_reduce_scatter) over peer
    /// copies.
    pub(super) fn gemm_reduce_scatter_peers<T: TpElement>(
        &self,
        call: PeerCall<'_>,
        a: &Operand<'_, T>,
        b: &Operand<'_, T>,
        d_shard: &mut CudaViewMut<'_, T>,
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
        let GemmShape { m, n, k, .. } = shape;
        // At most two pieces per shard: enough that the first piece of a
        // rank's partials arrives before the GEMM that adds it starts, and
        // larger pieces run the GEMM faster.
        let split = RowSplit::new(m, w, options.chunks.min(2));
        let (rows_max, mine) = (split.shard_rows(), split.rows_of(r));
        let chunks = split.chunks();
        let size = std::mem::size_of::<T>();
        // The GEMMs of the other ranks' shards need nothing from them and
        // write only this rank's buffers: they start before the exchange.
        // A failure here is posted as this rank's, so no rank waits for it.
        let prepared = local.and_then(|()| {
            let mut trace = Timeline::start(stream)?;
            let mut partials = alloc::<T>(stream, w * rows_max * n)?;
            let mut incoming = alloc::<T>(stream, w * mine.max(1) * n)?;
            let incoming_address = {
                let (address, _write) = incoming.device_ptr_mut(stream);
                address
            };
            let allocated = post_event(stream)?;
            let mut computed = vec![None; w * chunks.len()];
            let mut alive = Vec::new();
            for j in 1..w {
                let s = (r + j) % w;
                for (c, &chunk) in chunks.iter().enumerate() {
                    let valid = split.valid_rows(s, chunk);
                    if valid == 0 {
                        continue;
                    }
                    let first = split.first_row(s) + chunk.0;
                    let mut args = Arguments::product(
                        GemmShape::new(valid, n, k, 1),
                        Operand::new(a.data.slice(first * a.ld..), a.ld, 0),
                        Operand::new(b.data.slice(..), b.ld, 0),
                        OutputOperand::new(
                            partials.slice_mut((s * rows_max + chunk.0) * n..),
                            n,
                            0,
                        ),
                        alpha,
                    );
                    Timeline::span(
                        &mut trace,
                        stream,
                        || format!("GEMM of rank {s}'s rows {}..+{valid}", chunk.0),
                        || gemm.run(&mut args, stream),
                    )?;
                    drop(args);
                    let (event, raw) = post_event(stream)?;
                    computed[s * chunks.len() + c] = Some(raw);
                    alive.push(event);
                }
            }
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
            shape_record(Op::GemmReduceScatter, shape, options),
            prepared,
            |p| (vec![p.partials_address], p.computed.clone()),
        )?;
        Self::or_abandon(peers, r, || {
            // Pull each piece of this rank's shard from each other rank as
            // it is computed; rank r - 1 computed it first.
            let mut arrived: Vec<Vec<Option<CudaEvent>>> = (0..w)
                .map(|_| (0..chunks.len()).map(|_| None).collect())
                .collect();
            let mut got: Vec<Option<(CudaEvent, RawEvent)>> = (0..w).map(|_| None).collect();
            for j in 1..w {
                let p = (r + w - j) % w;
                let copies = &self.copy_streams()[j - 1];
                wait_for(copies, Some(allocated.1))?;
                for (c, &chunk) in chunks.iter().enumerate() {
                    let valid = split.valid_rows(r, chunk);
                    if valid == 0 {
                        continue;
                    }
                    wait_for(copies, all[p].events[r * chunks.len() + c])?;
                    Timeline::span(
                        &mut trace,
                        copies,
                        || format!("copy of rank {p}'s partials of rows {}..+{valid}", chunk.0),
                        || {
                            // SAFETY: rank p's partials stay live until its
                            // stream passes this rank's `got[p]` (`release`);
                            // `incoming` is freed on `stream` after the GEMMs
                            // that wait for the copy.
                            unsafe {
                                peers.copy(
                                    (r, at::<T>(incoming_address, (p * mine + chunk.0) * n)),
                                    (
                                        p,
                                        at::<T>(
                                            all[p].addresses[RECORD],
                                            (r * rows_max + chunk.0) * n,
                                        ),
                                    ),
                                    valid * n * size,
                                    copies,
                                )
                            }
                        },
                    )?;
                    arrived[p][c] = Some(post_event(copies)?.0);
                }
                got[p] = Some(post_event(copies)?);
            }
            // This rank's own shard, piece by piece, with the pulled
            // partials as C.
            let mut presum = if w > 2 {
                Some(alloc::<T>(stream, mine.max(1) * n)?)
            } else {
                None
            };
            let peers_of = |c: usize| (0..w).filter(move |&p| p != r).map(move |p| (p, c));
            for (c, &chunk) in chunks.iter().enumerate() {
                let valid = split.valid_rows(r, chunk);
                if valid == 0 {
                    continue;
                }
                for (p, c) in peers_of(c) {
                    if let Some(event) = &arrived[p][c] {
                        stream
                            .wait(event)
                            .map_err(|e| Error::driver("waiting for a partial's copy", e))?;
                    }
                }
                let rows_of = |p: usize| {
                    let start = (p * mine + chunk.0) * n;
                    incoming.slice(start..start + valid * n)
                };
                let first = chunk.0 * n;
                let c_view: CudaView<'_, T> = match presum.as_mut() {
                    None => rows_of((r + 1) % w),
                    Some(presum) => {
                        let views: Vec<CudaView<'_, T>> =
                            peers_of(c).map(|(p, _)| rows_of(p)).collect();
                        let mut target = presum.slice_mut(first..first + valid * n);
                        Timeline::span(
                            &mut trace,
                            stream,
                            || format!("sum of {} partials of rows {}..+{valid}", w - 1, chunk.0),
                            || sum_into(self.device(), &views, &mut target, stream),
                        )?;
                        presum.slice(first..first + valid * n)
                    }
                };
                let a_first = (split.first_row(r) + chunk.0) * a.ld;
                let mut args = Arguments::new(
                    GemmShape::new(valid, n, k, 1),
                    Operand::new(a.data.slice(a_first..), a.ld, 0),
                    Operand::new(b.data.slice(..), b.ld, 0),
                    Operand::new(c_view, n, 0),
                    OutputOperand::new(d_shard.slice_mut(first..), n, 0),
                    alpha,
                    1.0,
                );
                Timeline::span(
                    &mut trace,
                    stream,
                    || {
                        format!(
                            "GEMM of the own rows {}..+{valid} + the others' partials",
                            chunk.0
                        )
                    },
                    || gemm.run(&mut args, stream),
                )?;
            }
            self.release(peers, &raw_events(&got), stream)?;
            drop((partials, incoming, presum, allocated, alive, arrived));
            Timeline::print(trace, "GEMM + reduce-scatter over peer copies", r)
        })
    }
}
