//! [`TpRank`]: one GPU's place in a tensor-parallel group, over an NCCL
//! communicator with a stream of its own for the collectives, and
//! [`TpConfig`], how the group is made.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::comm::Communicator;
use super::nccl::{require_nccl, UniqueId};
use super::peers::{keep_freed_memory, PeerGroup};
use crate::device::Device;
use crate::{Error, Result};

/// One rank of a tensor-parallel group: its device and its NCCL
/// communicators, whose collectives run on a stream of their own so that
/// they overlap the GEMMs on the caller's stream, and, for the ranks of
/// one process, the peer path of the overlapped operations (see
/// [`TpConfig`]).
///
/// Making a rank sets its device's default memory pool to keep the memory
/// that frees return (the release threshold at its maximum), so that each
/// operation's buffers come from the pool, not from new mappings; and, for
/// a peer group, lets every GPU of the group read the others' pools.
///
/// ```no_run
/// use cutlet::device::Device;
/// use cutlet::distributed::TpRank;
/// # fn main() -> cutlet::Result<()> {
/// let devices = [Device::new(0)?, Device::new(1)?];
/// let ranks = TpRank::from_devices(&devices)?;
/// assert_eq!((ranks[1].rank(), ranks[1].world_size()), (1, 2));
/// // Drive each rank from a thread of its own (std::thread::scope).
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TpRank {
    device: Device,
    /// NCCL's defaults: the sequential forms and the plain collectives.
    comm: Communicator,
    /// The same ranks, each collective capped at `collective_sms` CTAs:
    /// the overlapped forms, whose GEMMs leave those SMs free.
    capped: Communicator,
    collective_sms: u32,
    /// Where the group's GPUs reach each other's memory (ranks of one
    /// process, `peer_copies` on): the overlapped forms move data with the
    /// copy engines.
    peers: Option<Arc<PeerGroup>>,
    /// One stream per other rank, for the peer copies.
    copy_streams: Vec<Arc<CudaStream>>,
}

/// How a group is made: how the overlapped operations move data.
///
/// A transfer and a GEMM overlap only where both have what they need.
/// cutlet's SM90 GEMMs keep one block on every SM for the whole GEMM (a
/// persistent grid), so an NCCL kernel queued beside one would wait for
/// it. Two ways around that:
///
/// - **Peer copies** (`peer_copies`, the default where it applies): for
///   the ranks of one process ([`TpRank::from_devices_with`]) whose GPUs
///   reach each other's memory, the overlapped operations move data with
///   the copy engines (`cuMemcpyPeerAsync`), which take no SM, and every
///   GEMM keeps the whole GPU.
/// - **NCCL with fewer SMs**: otherwise (ranks in separate processes, GPUs
///   without peer access, `peer_copies` off), each collective of an
///   overlapped operation runs on at most `collective_sms` SMs (NCCL's
///   `maxCTAs`, on a communicator of its own) and the GEMMs beside it on
///   the others ([`Gemm::run_with_sm_count`](crate::device::gemm::Gemm::run_with_sm_count)).
///
/// The sequential forms use NCCL's defaults and every SM.
///
/// ```
/// use cutlet::distributed::TpConfig;
///
/// let config = TpConfig::default();
/// assert!(config.peer_copies);
/// assert_eq!(config.collective_sms, 8);
/// let nccl_only = TpConfig { peer_copies: false, ..TpConfig::default() };
/// assert!(!nccl_only.peer_copies);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpConfig {
    /// Move the overlapped operations' data with peer copies where the
    /// ranks share a process and their GPUs reach each other's memory
    /// (GEMM + all-reduce reads the other ranks' partials in place).
    pub peer_copies: bool,
    /// SMs (NCCL CTAs) each collective of an overlapped operation takes
    /// where it runs over NCCL, 1 or more; the GEMMs beside them take the
    /// device's SMs less these.
    pub collective_sms: u32,
}

impl Default for TpConfig {
    /// Peer copies where they apply; else 8 SMs for the collectives.
    fn default() -> TpConfig {
        TpConfig {
            peer_copies: true,
            collective_sms: 8,
        }
    }
}

impl TpConfig {
    fn check(&self) -> Result<()> {
        if self.collective_sms == 0 {
            return Err(Error::invalid_argument(
                "collective_sms",
                0,
                "at least 1 SM for each collective",
            ));
        }
        Ok(())
    }
}

// SAFETY: an NCCL communicator may move between threads; it is used from
// one thread at a time, as `TpRank` is not `Sync` (its calls take `&self`
// on the one thread that holds it).
unsafe impl Send for TpRank {}

impl TpRank {
    /// One rank per device, all in this process (NCCL's
    /// `ncclCommInitAll`): rank `i` on `devices[i]`. Drive each from a
    /// thread of its own: an NCCL collective of one rank waits for the
    /// others' calls.
    ///
    /// Errors: [`Error::NoNccl`] without NCCL; [`Error::InvalidArgument`]
    /// for no device or a device named twice; [`Error::Nccl`] or
    /// [`Error::Driver`] where NCCL or the driver fails.
    pub fn from_devices(devices: &[Device]) -> Result<Vec<TpRank>> {
        TpRank::from_devices_with(devices, TpConfig::default())
    }

    /// [`from_devices`](Self::from_devices) with `config`.
    ///
    /// Errors: as [`from_devices`](Self::from_devices), and
    /// [`Error::InvalidArgument`] for `collective_sms` 0.
    pub fn from_devices_with(devices: &[Device], config: TpConfig) -> Result<Vec<TpRank>> {
        require_nccl()?;
        config.check()?;
        if devices.is_empty() {
            return Err(Error::invalid_argument(
                "devices",
                "none",
                "at least one device",
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for device in devices {
            if !seen.insert(device.ordinal()) {
                return Err(Error::invalid_argument(
                    "devices",
                    format!("device {} twice", device.ordinal()),
                    "each device once (one rank per GPU)",
                ));
            }
        }
        let streams = devices
            .iter()
            .map(|d| {
                d.context()
                    .new_stream()
                    .map_err(|e| Error::driver("creating a stream for the collectives", e))
            })
            .collect::<Result<Vec<_>>>()?;
        for device in devices {
            keep_freed_memory(device)?;
        }
        let comms = Communicator::all(&streams)?;
        let capped =
            Communicator::split_capped(&comms.iter().collect::<Vec<_>>(), config.collective_sms)?;
        let peers = if config.peer_copies && devices.len() > 1 {
            PeerGroup::new(devices)?
        } else {
            None
        };
        let mut ranks = Vec::with_capacity(devices.len());
        for (device, (comm, capped)) in devices.iter().zip(comms.into_iter().zip(capped)) {
            let copy_streams = if peers.is_some() {
                (1..devices.len())
                    .map(|_| {
                        device
                            .context()
                            .new_stream()
                            .map_err(|e| Error::driver("creating a stream for peer copies", e))
                    })
                    .collect::<Result<Vec<_>>>()?
            } else {
                Vec::new()
            };
            ranks.push(TpRank {
                device: device.clone(),
                comm,
                capped,
                collective_sms: config.collective_sms,
                peers: peers.clone(),
                copy_streams,
            });
        }
        Ok(ranks)
    }

    /// Rank `rank` of `world_size` on `device`, joining the group of `id`
    /// (NCCL's `ncclCommInitRank`): one call in each process, every one
    /// with the same id (made by [`UniqueId::new`] on one of them). Blocks
    /// until every rank has joined.
    ///
    /// Errors: [`Error::NoNccl`]; [`Error::InvalidArgument`] for a rank
    /// not below `world_size`; [`Error::Nccl`] or [`Error::Driver`].
    pub fn from_rank(
        device: &Device,
        rank: usize,
        world_size: usize,
        id: &UniqueId,
    ) -> Result<TpRank> {
        TpRank::from_rank_with(device, rank, world_size, id, TpConfig::default())
    }

    /// [`from_rank`](Self::from_rank) with `config` (the same on every
    /// rank).
    ///
    /// Errors: as [`from_rank`](Self::from_rank), and
    /// [`Error::InvalidArgument`] for `collective_sms` 0.
    pub fn from_rank_with(
        device: &Device,
        rank: usize,
        world_size: usize,
        id: &UniqueId,
        config: TpConfig,
    ) -> Result<TpRank> {
        require_nccl()?;
        config.check()?;
        if rank >= world_size || i32::try_from(world_size).is_err() {
            return Err(Error::invalid_argument(
                "rank",
                format!("{rank} of {world_size}"),
                "a rank below the world size (which fits an i32)",
            ));
        }
        let stream = device
            .context()
            .new_stream()
            .map_err(|e| Error::driver("creating a stream for the collectives", e))?;
        keep_freed_memory(device)?;
        let comm = Communicator::join(stream, rank, world_size, id.nccl())?;
        let capped = Communicator::split_capped(&[&comm], config.collective_sms)?
            .pop()
            .ok_or(Error::NoNccl)?;
        Ok(TpRank {
            device: device.clone(),
            comm,
            capped,
            collective_sms: config.collective_sms,
            peers: None,
            copy_streams: Vec::new(),
        })
    }

    /// This rank's index in the group.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// How many ranks the group has.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// The device this rank runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The NCCL communicator.
    /// The communicator of NCCL's defaults.
    pub(crate) fn comm(&self) -> &Communicator {
        &self.comm
    }

    /// The communicator of `overlapped` operations: capped at
    /// `collective_sms` CTAs where they overlap, else NCCL's defaults.
    pub(crate) fn comm_for(&self, overlapped: bool) -> &Communicator {
        if overlapped {
            &self.capped
        } else {
            &self.comm
        }
    }

    /// The SMs an overlapped operation's GEMMs run on: the device's less
    /// the collectives' (at least 1).
    pub(crate) fn gemm_sms(&self) -> u32 {
        self.device
            .limits()
            .sm_count
            .saturating_sub(self.collective_sms)
            .max(1)
    }

    /// The group's peer path, where its overlapped operations use one.
    pub(crate) fn peers(&self) -> Option<&PeerGroup> {
        self.peers.as_deref()
    }

    /// This rank's streams for peer copies, one per other rank.
    pub(crate) fn copy_streams(&self) -> &[Arc<CudaStream>] {
        &self.copy_streams
    }

    /// Whether the overlapped operations move data with peer copies (the
    /// copy engines) rather than NCCL.
    pub fn uses_peer_copies(&self) -> bool {
        self.peers.is_some()
    }

    /// The SMs each collective of an overlapped operation takes.
    pub fn collective_sms(&self) -> u32 {
        self.collective_sms
    }
}
