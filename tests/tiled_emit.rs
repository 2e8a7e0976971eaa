//! `emit_layout_offset` and the swizzle split of `ThreadPartition`.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::atom::CopyAtom;
use cutlet::layout::{ComposedLayout, IntTuple, Layout, Swizzle};
use cutlet::numeric::ElementType;
use cutlet::ptx::{Kernel, Module, ParamType, RegClass, SpecialReg};
use cutlet::tiled::{emit_layout_offset, TiledCopy};

#[test]
fn layout_offsets_use_shifts_for_powers_of_two_and_multiplications_otherwise() {
    let mut k = Kernel::new("offsets").unwrap();
    let out_param = k.param("out", ParamType::U64).unwrap();
    let out = k.load_param(&out_param).unwrap();
    k.cvta_to_global(out, out);
    let tid = k.special(SpecialReg::TidX);
    let layout: Layout = "((4,3),1,5):((1,100),7,-2)".parse().unwrap();
    let offset = emit_layout_offset(&mut k, &layout, tid).unwrap();
    k.push(format!("st.global.b32 [{out}], {offset};"));
    let text = k.clone().emit().unwrap();
    // Extents 4 (a mask and a shift), 3 and 5 (a multiply-high by a
    // reciprocal: the assembler would expand div.u32 into a run-time
    // division).
    assert!(
        text.contains("and.b32") && text.contains("mul.hi.u32"),
        "{text}"
    );
    assert!(
        !text.contains("div.u32") && !text.contains("rem.u32"),
        "{text}"
    );
    assert!(
        text.contains(", -2, "),
        "negative strides are immediates: {text}"
    );
    let mut module = Module::new(ArchKind::Sm80);
    module.add_kernel(k).unwrap();
    assemble(&module.emit().unwrap(), "sm_80");

    let mut k = Kernel::new("bad").unwrap();
    let wide = k.reg(RegClass::B64);
    let err = emit_layout_offset(&mut k, &layout, wide)
        .unwrap_err()
        .to_string();
    assert!(err.contains(".b32"), "{err}");
}

#[test]
fn swizzled_partitions_split_by_xor_when_bits_are_disjoint() {
    let thr: Layout = "(32,4):(4,1)".parse().unwrap();
    let val: Layout = "(1,8):(1,1)".parse().unwrap();
    let copy = TiledCopy::new(
        CopyAtom::Sm80CpAsyncCacheGlobalZfill,
        ElementType::BF16,
        &thr,
        &val,
    )
    .unwrap();
    let plain = Layout::new(IntTuple::ints(&[128, 32]), IntTuple::ints(&[32, 1])).unwrap();
    let smem = ComposedLayout::new(Swizzle::new(2, 3, 3).unwrap(), 0, plain);
    let p = copy.partition_d_swizzled([128, 32], &smem).unwrap();
    assert!(
        p.xor_split(),
        "thread bits {} and value bits overlap",
        p.thr()
    );
    let swizzled_values = p.val_swizzled();
    for t in 0..p.threads() {
        let base = p.swizzle().apply(p.thr().at(t));
        for (v, sv) in swizzled_values.iter().enumerate() {
            assert_eq!(base ^ sv, p.offset(t, v), "thread {t} value {v}");
        }
    }
    // Thread offsets {0, 3} and value offsets {0, 1} share bit 0: 3 + 1 is
    // not 3 ^ 1, so no XOR split.
    let tv: Layout = "(2,2):(3,1)".parse().unwrap();
    let memory: Layout = "6:1".parse().unwrap();
    let p = cutlet::tiled::ThreadPartition::new(&tv, &memory).unwrap();
    assert!(!p.xor_split());
}
