//! The rules several architectures' kernels share, written once: each
//! arch's rule file calls them.

use super::facts::ConfigFacts;
use crate::gemm::RuleMessage;
use crate::numeric::ElementType;

/// Cluster 1x1, for a schedule that runs without thread-block clusters
/// (the multistage kernels, sliced-K); `why` ends the message, in
/// brackets.
#[allow(clippy::result_large_err)]
pub(super) const fn check_no_cluster(
    f: &ConfigFacts,
    why: &'static str,
) -> Result<(), RuleMessage> {
    if !f.cluster.is_one() {
        return Err(RuleMessage::new()
            .s("cluster ")
            .n(f.cluster.m)
            .s("x")
            .n(f.cluster.n)
            .s(" with the ")
            .s(f.schedule.name())
            .s(" kernel schedule: expected 1x1 (")
            .s(why)
            .s(")"));
    }
    Ok(())
}

/// Why the multistage kernels take no cluster, for [`check_no_cluster`].
pub(super) const MULTISTAGE_NO_CLUSTER: &str =
    "the multistage kernel runs without thread-block clusters";

/// C and D of one element type and one major: the epilogue reads C where
/// it writes D.
#[allow(clippy::result_large_err)]
pub(super) const fn check_c_and_d(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if f.types.c as u32 != f.types.d as u32 {
        return Err(RuleMessage::new()
            .s("C is ")
            .s(f.types.c.name())
            .s(" but D is ")
            .s(f.types.d.name())
            .s(": expected C and D of one element type"));
    }
    if f.majors.c as u32 != f.majors.d as u32 {
        return Err(RuleMessage::new()
            .s("C is ")
            .s(f.majors.c.name())
            .s("-major but D is ")
            .s(f.majors.d.name())
            .s("-major: expected C and D of one major"));
    }
    Ok(())
}

/// At least one warp along M and N, exactly one along K, at most 32 in
/// all (a block's 1024 threads).
#[allow(clippy::result_large_err)]
pub(super) const fn check_warp_count(f: &ConfigFacts) -> Result<(), RuleMessage> {
    let [wm, wn, wk] = f.mainloop.warps;
    if wm == 0 || wn == 0 || wk != 1 {
        return Err(RuleMessage::new()
            .warps([wm, wn, wk])
            .s(": expected at least one warp along M and N and exactly one along K"));
    }
    if wm * wn > 32 {
        return Err(RuleMessage::new()
            .s("warps ")
            .n(wm)
            .s("x")
            .n(wn)
            .s(" make ")
            .n(wm * wn * 32)
            .s(" threads: a block holds at most 1024 (32 warps)"));
    }
    Ok(())
}

/// At least 2 stages: the pipeline fills one stage while another is read.
#[allow(clippy::result_large_err)]
pub(super) const fn check_stages(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if f.mainloop.stages() < 2 {
        return Err(RuleMessage::new()
            .s("Stages ")
            .n(f.mainloop.stages())
            .s(": expected at least 2 (the pipeline fills one stage while another is read)"));
    }
    Ok(())
}

/// The stages, the epilogue's region and the barriers within the shared
/// memory a block of the architecture may use.
#[allow(clippy::result_large_err)]
pub(super) const fn check_shared_memory(f: &ConfigFacts) -> Result<(), RuleMessage> {
    let bytes = f.shared_mem_bytes();
    let limit = f.arch.max_dynamic_shared_bytes();
    if bytes > limit {
        return Err(RuleMessage::new()
            .s("shared memory of ")
            .n(bytes)
            .s(" bytes (")
            .n(f.mainloop.stages())
            .s(" stages of ")
            .n(f.stage_bytes())
            .s(" bytes; the epilogue's ")
            .n(f.epilogue_bytes())
            .s(") exceeds the ")
            .n(limit)
            .s(" bytes a block of ")
            .s(f.arch.ptx_target())
            .s(" may use: expected fewer stages or a smaller tile"));
    }
    Ok(())
}

/// D of a type the SM80 epilogue stores: f16, bf16 or f32.
#[allow(clippy::result_large_err)]
pub(super) const fn check_d_stored(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if !matches!(
        f.types.d,
        ElementType::F16 | ElementType::BF16 | ElementType::F32
    ) {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(f.types.d.name())
            .s(" is not supported: expected f16, bf16 or f32"));
    }
    Ok(())
}
