//! The snippet store: every family file under `ptx/`, embedded at build time.
//!
//! A family is one instruction family for one architecture; its path is the
//! file's path under `ptx/` without `.ptx`. Add a file here when you add it
//! there.

/// Family path -> file text.
pub(crate) const FAMILIES: &[(&str, &str)] = &[
    (
        "common/convert",
        include_str!("../../ptx/common/convert.ptx"),
    ),
    (
        "common/elementwise_add",
        include_str!("../../ptx/common/elementwise_add.ptx"),
    ),
    ("common/fma", include_str!("../../ptx/common/fma.ptx")),
    (
        "common/global_memory",
        include_str!("../../ptx/common/global_memory.ptx"),
    ),
    ("common/reduce", include_str!("../../ptx/common/reduce.ptx")),
    (
        "common/quantize",
        include_str!("../../ptx/common/quantize.ptx"),
    ),
    (
        "common/math_f32",
        include_str!("../../ptx/common/math_f32.ptx"),
    ),
    (
        "common/thread_index",
        include_str!("../../ptx/common/thread_index.ptx"),
    ),
    (
        "sm70/shared_memory",
        include_str!("../../ptx/sm70/shared_memory.ptx"),
    ),
    (
        "sm70/mma_m8n8k4",
        include_str!("../../ptx/sm70/mma_m8n8k4.ptx"),
    ),
    ("sm75/ldmatrix", include_str!("../../ptx/sm75/ldmatrix.ptx")),
    ("sm80/cp_async", include_str!("../../ptx/sm80/cp_async.ptx")),
    ("sm90/cvt_fp8", include_str!("../../ptx/sm90/cvt_fp8.ptx")),
    (
        "sm80/mma_m16n8k16",
        include_str!("../../ptx/sm80/mma_m16n8k16.ptx"),
    ),
    (
        "sm80/mma_m16n8k8",
        include_str!("../../ptx/sm80/mma_m16n8k8.ptx"),
    ),
    ("sm90/cluster", include_str!("../../ptx/sm90/cluster.ptx")),
    ("sm90/mbarrier", include_str!("../../ptx/sm90/mbarrier.ptx")),
    (
        "sm90/bulk_copy",
        include_str!("../../ptx/sm90/bulk_copy.ptx"),
    ),
    ("sm90/tma", include_str!("../../ptx/sm90/tma.ptx")),
    ("sm90/stmatrix", include_str!("../../ptx/sm90/stmatrix.ptx")),
    ("sm90/wgmma", include_str!("../../ptx/sm90/wgmma.ptx")),
];
