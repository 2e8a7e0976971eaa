//! Launches in thread-block clusters (`Function::launch_cluster`): each
//! block sees its rank in its cluster and its cluster's index as the
//! cluster shape says, and a cluster that does not fit the grid, or a GPU
//! without clusters, is a typed error before anything runs.
//!
//! Each GPU test skips with a printed reason where no driver or GPU is found
//! (and fails instead under `CUTLET_REQUIRE_GPU=1`).

use cutlet::device::{check_cluster, KernelArgs, LaunchConfig, Module};
use cutlet::Error;
use cutlet_harness::device_or_skip;

/// Thread 0 of each block writes `%cluster_ctarank`, `%clusterid.x` and
/// `%cluster_nctarank` at `out[3 * ctaid.x ..]`.
const CLUSTER_IDS_PTX: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry cluster_ids(
    .param .u64 out_ptr
)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    mov.u32 %r0, %tid.x;
    setp.ne.u32 %p, %r0, 0;
    @%p bra done;
    ld.param.u64 %rd0, [out_ptr];
    cvta.to.global.u64 %rd0, %rd0;
    mov.u32 %r1, %ctaid.x;
    mul.lo.u32 %r1, %r1, 3;
    mul.wide.u32 %rd1, %r1, 4;
    add.u64 %rd2, %rd0, %rd1;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %clusterid.x;
    mov.u32 %r4, %cluster_nctarank;
    st.global.u32 [%rd2], %r2;
    st.global.u32 [%rd2+4], %r3;
    st.global.u32 [%rd2+8], %r4;
done:
    ret;
}
"#;

/// Does nothing (sm_70, so that every GPU loads it).
const NOOP_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry noop()
{
    ret;
}
"#;

#[test]
fn blocks_see_their_cluster_rank_and_index() {
    let Some(device) = device_or_skip("blocks_see_their_cluster_rank_and_index") else {
        return;
    };
    let blocks = 8u32;
    let config = LaunchConfig {
        grid: (blocks, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    if device.compute_capability().0 < 9 {
        // Clusters need 9.0: below it the launch is refused by name.
        let module = Module::load(&device, "noop", NOOP_PTX).expect("JIT of noop");
        let function = module.function("noop").expect("kernel");
        let stream = device.default_stream();
        let args = KernelArgs::new(&stream);
        // SAFETY: noop takes no parameters and touches no memory.
        let err = unsafe { function.launch_cluster(&config, (2, 1, 1), args) }.unwrap_err();
        assert!(matches!(err, Error::UnsupportedArch { .. }), "{err}");
        return;
    }
    let module = Module::load(&device, "cluster_ids", CLUSTER_IDS_PTX).expect("JIT of cluster_ids");
    let function = module.function("cluster_ids").expect("kernel");
    let stream = device.default_stream();
    for cluster in [2u32, 4] {
        let mut out = stream
            .clone_htod(&vec![u32::MAX; 3 * blocks as usize])
            .expect("upload");
        let mut args = KernelArgs::new(&stream);
        args.output(&mut out);
        // SAFETY: cluster_ids(.u64 out) writes out[3 * ctaid.x + 0..3] for
        // ctaid.x < 8; `out` holds 24 u32.
        unsafe { function.launch_cluster(&config, (cluster, 1, 1), args) }
            .expect("launch in clusters");
        let got = stream.clone_dtoh(&out).expect("download");
        for block in 0..blocks {
            let at = 3 * block as usize;
            assert_eq!(
                &got[at..at + 3],
                &[block % cluster, block / cluster, cluster],
                "block {block}, cluster {cluster}: (rank, cluster id, cluster size)"
            );
        }
    }
    // A cluster that does not divide the grid is refused before the launch.
    let mut out = stream
        .alloc_zeros::<u32>(3 * blocks as usize)
        .expect("alloc");
    let mut args = KernelArgs::new(&stream);
    args.output(&mut out);
    // SAFETY: as above; the launch is refused before it runs.
    let err = unsafe { function.launch_cluster(&config, (3, 1, 1), args) }.unwrap_err();
    assert!(matches!(err, Error::InvalidLaunchConfig { .. }), "{err}");
    assert!(
        err.to_string().contains("cluster 3x1x1 for grid 8x1x1"),
        "{err}"
    );
}

#[test]
fn cluster_shapes_are_checked_against_the_grid() {
    let config = LaunchConfig {
        grid: (12, 4, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    assert!(check_cluster("k", &config, (2, 2, 1)).is_ok());
    assert!(check_cluster("k", &config, (4, 2, 1)).is_ok());
    for (bad, expected) in [
        ((0, 1, 1), "at least 1"),
        ((5, 1, 1), "divide the grid"),
        ((1, 3, 1), "divide the grid"),
        ((4, 4, 1), "at most 8 blocks"),
    ] {
        let err = check_cluster("k", &config, bad).unwrap_err();
        assert!(matches!(err, Error::InvalidLaunchConfig { .. }), "{err}");
        assert!(err.to_string().contains(expected), "{bad:?}: {err}");
    }
}
