//! The process's allocator: mimalloc, asked for plain blocks wherever a
//! plain block is aligned enough.
//!
//! The `mimalloc` crate's `GlobalAlloc` sends every request through
//! `mi_malloc_aligned`, whatever its alignment. In mimalloc 3 that call
//! has a fast path only while the size's page has a free block at hand;
//! when it has none, a size whose block is not a power of two (24, 48, 80
//! bytes...) falls to an over-allocating path (a bigger block, from another
//! page) instead of refilling its own page, so from then on each such
//! request takes the slow path. Loading a small file made a quarter of its
//! allocations that way (basic_cube.papa: 11 of 57; docs/performance.md).
//!
//! A plain `mi_malloc` block is aligned to 16 bytes (`MI_MAX_ALIGN_SIZE`,
//! mimalloc's `types.h`) once it is at least that big, as C's `malloc`
//! must be: its bins round sizes up to 16-byte steps past 8 bytes
//! (`page-queue.c`, `MI_ALIGN2W`), and a page's first block is 16-aligned.
//! So a request whose alignment is at most 16 and at most its size is
//! served plain, the rule Rust's own `System` allocator applies to
//! `malloc`; any other goes through the aligned calls as before.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every plain mimalloc block of at least this size has.
const PLAIN_ALIGN: usize = 16;

/// Whether a plain block of `size` bytes is aligned for `align`.
#[inline(always)]
fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// mimalloc as the global allocator (`#[global_allocator]` in the binary,
/// the benches and the profiling examples).
pub struct Mimalloc;

// SAFETY: each method returns what mimalloc returns for a request of the
// layout's size, with an alignment at least the layout's (the aligned
// calls by contract; the plain ones by the rule above), and frees only
// what these calls allocated.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: plain FFI calls; mimalloc takes any size and a power-of-two alignment.
        unsafe {
            if plain(align, size) {
                mi::mi_malloc(size) as *mut u8
            } else {
                mi::mi_malloc_aligned(size, align) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: as `alloc`.
        unsafe {
            if plain(align, size) {
                mi::mi_zalloc(size) as *mut u8
            } else {
                mi::mi_zalloc_aligned(size, align) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's contract);
        // mimalloc frees plain and aligned blocks alike.
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        // SAFETY: `ptr` came from this allocator with `layout` (the
        // caller's contract). A plain realloc keeps the block where it
        // fits (aligned for `align` when it was made) or moves it to a
        // plain block of `new_size`, aligned by the rule above.
        unsafe {
            if plain(align, new_size) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, align) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size up to 4 KiB and past it, at every alignment from 1 to
    /// 4096: each block is aligned as asked, holds what was written to it
    /// (zeroed where asked) and keeps it through a realloc that grows or
    /// shrinks it, plain and aligned requests mixed in one heap.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        let a = Mimalloc;
        let mut sizes: Vec<usize> = (1..=300).collect();
        sizes.extend([384, 500, 1000, 1024, 4095, 4096, 70_000, 1 << 20]);
        let mut live = Vec::new();
        for align in (0..=12).map(|k| 1usize << k) {
            for &size in &sizes {
                let layout = Layout::from_size_align(size, align).unwrap();
                for zeroed in [false, true] {
                    // SAFETY: a non-zero size; the block is freed below with its layout.
                    let p = unsafe {
                        if zeroed {
                            a.alloc_zeroed(layout)
                        } else {
                            a.alloc(layout)
                        }
                    };
                    assert!(!p.is_null(), "size {size} align {align}");
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    // SAFETY: `p` holds `size` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts_mut(p, size) };
                    if zeroed {
                        assert!(bytes.iter().all(|&b| b == 0), "size {size} align {align}");
                    }
                    bytes.fill((size % 251) as u8);
                    live.push((p, layout));
                }
            }
            // Reallocate half of them, growing and shrinking.
            for (i, (p, layout)) in live.iter_mut().enumerate() {
                if i % 2 == 0 {
                    continue;
                }
                let new_size = if i % 4 == 1 {
                    layout.size() * 3 + 7
                } else {
                    layout.size().div_ceil(3)
                };
                // SAFETY: `p` was allocated with `layout`; `new_size` > 0.
                let q = unsafe { a.realloc(*p, *layout, new_size) };
                assert!(!q.is_null());
                assert_eq!(q as usize % layout.align(), 0, "realloc to {new_size}");
                let kept = layout.size().min(new_size);
                // SAFETY: `q` holds `new_size` >= `kept` bytes.
                let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                let want = (layout.size() % 251) as u8;
                assert!(bytes.iter().all(|&b| b == want), "realloc to {new_size}");
                *p = q;
                *layout = Layout::from_size_align(new_size, layout.align()).unwrap();
            }
            for (p, layout) in live.drain(..) {
                // SAFETY: allocated (or reallocated) above with `layout`.
                unsafe { a.dealloc(p, layout) };
            }
        }
    }
}
