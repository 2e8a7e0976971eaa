//! The divisors and numerators the division tests of `divide.rs` and
//! `launch_divisor.rs` check their quotients at (tests only).

/// Every divisor up to 4096 and large ones around powers of two, primes
/// and the top of the range.
pub(crate) fn divisors() -> Vec<u32> {
    let mut divisors: Vec<u32> = (1..=4096).collect();
    divisors.extend([
        6_700_417,
        641,
        16_384,
        1 << 30,
        1 << 31,
        (1 << 31) - 1,
        (1 << 31) + 1,
        u32::MAX,
        u32::MAX - 1,
        3_000_000_019,
        123_456_789,
    ]);
    divisors
}

/// Divisors whose quotients are checked for every numerator up to 2^20.
pub(crate) const SMALL_DIVISORS: [u32; 20] = [
    1, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 25, 48, 64, 96, 100, 112, 132, 224,
];

/// Numerators up to `max` near every multiple of `d` that matters, the
/// ends of the range and a spread between them.
pub(crate) fn numerators(d: u32, max: u32) -> Vec<u32> {
    let mut ns = vec![0, 1, 2, max, max - 1, max / 2, max / 2 + 1];
    for k in [1u64, 2, 3, 1000, u64::from(max / d.max(1))] {
        let at = k * u64::from(d);
        for n in [at.saturating_sub(1), at, at + 1] {
            if let Ok(n) = u32::try_from(n) {
                ns.push(n);
            }
        }
    }
    let mut x = 0x9E37_79B9u32 ^ d;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // x scaled into 0..=max.
        ns.push(((u64::from(x) * (u64::from(max) + 1)) >> 32) as u32);
    }
    ns.retain(|&n| n <= max);
    ns
}
