//! Cache prefetch hints: start loading the line at an address that the simulation will read
//! soon (a packet a slot ahead, the wheel's next entries, the egress port a frame will take),
//! so that the load overlaps other work. A hint only: it never faults, whatever the address,
//! changes no state the program reads, and compiles to nothing off x86-64.

/// Start loading the cache line holding `p` into the first-level cache.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults and reads nothing into the program.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
