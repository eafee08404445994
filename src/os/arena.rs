//! The allocator of `hookrules run`: a bump arena that never frees.
//!
//! `run` is one short process per event. Reading the event's rules from the
//! compiled set makes a few thousand small allocations (strings of pattern
//! lists, condition trees); with glibc's malloc and free they cost about a third
//! of the instructions of a harmless `PreToolUse Bash` (callgrind, see
//! `/work/notes/perf.md`). Here a small allocation is an atomic add into one
//! reserved region, and freeing it is nothing: the process ends soon after.
//!
//! Bounded: only allocations up to [`SMALL`] bytes come from the arena, and only
//! [`SIZE`] bytes of it (address space reserved with `MAP_NORESERVE`; memory is
//! used only as it is touched). Larger allocations, and everything once the arena
//! is used up, go to the system allocator, as does everything before
//! [`start`] (every other command never calls it). Memory from the arena is
//! fresh from `mmap`, so it is already zero.
//!
//! Its pages fault in one by one as they are first touched (~35 for a Stop, ~75
//! for a harmless Bash). Mapping the first 320 KiB at once
//! (`MADV_POPULATE_WRITE`) saved those faults but zeroed pages a small event
//! never uses: no faster for Bash, about 0.1 ms slower for Stop (`perf stat -r
//! 300`, release build, 2026-11-24), so it is not done.
//!
//! Two more duties, for every command (arena started or not):
//!
//! - **Accounting per thread** ([`thread_usage`]): the bytes this thread holds
//!   (allocated and not freed; arena blocks count until the process ends, as
//!   their memory does) and the bytes it has allocated in all. The shell
//!   analysis measures its own cost with it (`shell::budget`), so a command
//!   built to blow up (a variable doubled forty times) is stopped by what it
//!   really costs, whatever code path the cost comes from. Per thread, so tests
//!   running side by side do not charge each other.
//! - **No abort on a failed allocation** while an answer is pending: under an
//!   address-space limit (`ulimit -v`, `RLIMIT_AS`) the system allocator can
//!   return nothing, and Rust then aborts the process with no answer, after which
//!   the client runs the tool. Instead the watchdog's fallback answer (the
//!   policies' failure mode for the event) is printed and the process ends
//!   ([`super::deadline::out_of_memory`]). Outside `hookrules run` (no answer
//!   pending) the failure is returned as usual.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The arena's size (reserved address space).
pub const SIZE: usize = 16 << 20;
/// The largest allocation taken from the arena.
pub const SMALL: usize = 64 << 10;

/// Next free address; 0 until [`start`].
static NEXT: AtomicUsize = AtomicUsize::new(0);
/// The arena's first address and the one past its end; 0 until [`start`].
static BASE: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Bytes this thread holds (see [`thread_usage`]).
    static HELD: Cell<usize> = const { Cell::new(0) };
    /// Bytes this thread has allocated since it started.
    static SPENT: Cell<usize> = const { Cell::new(0) };
}

/// What the calling thread has allocated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes it holds now: allocated and not freed (freeing memory another
    /// thread allocated does not count against it). Arena blocks are never
    /// freed, so they count until the process ends.
    pub held: usize,
    /// Bytes it has allocated in all (growing a block counts the growth).
    pub spent: usize,
}

/// What the calling thread has allocated so far.
#[must_use]
pub fn thread_usage() -> Usage {
    Usage {
        held: HELD.try_with(Cell::get).unwrap_or(0),
        spent: SPENT.try_with(Cell::get).unwrap_or(0),
    }
}

/// Count `n` bytes allocated by this thread. Thread-locals with a constant
/// initialiser and no destructor never allocate, so this is safe inside the
/// allocator.
fn charge(n: usize) {
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(n)));
    let _ = SPENT.try_with(|s| s.set(s.get().wrapping_add(n)));
}

/// Count `n` bytes freed by this thread.
fn credit(n: usize) {
    let _ = HELD.try_with(|h| h.set(h.get().saturating_sub(n)));
}

/// The system's block, or, when it has none left while an answer is pending,
/// the fallback answer and the end of the process.
fn from_system(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        super::deadline::out_of_memory(size);
    } else {
        charge(size);
    }
    p
}

/// The global allocator: the arena once started, else (and for large
/// allocations) the system's.
pub struct Arena;

#[global_allocator]
static GLOBAL: Arena = Arena;

/// Take small allocations from the arena from now on (`hookrules run` only).
/// Does nothing if the region cannot be reserved, or if already started.
pub fn start() {
    if BASE.load(Relaxed) != 0 {
        return;
    }
    // SAFETY: an anonymous private mapping, no file, no fixed address.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p.is_null() {
        return;
    }
    let base = p as usize;
    END.store(base + SIZE, Relaxed);
    NEXT.store(base, Relaxed);
    BASE.store(base, Relaxed);
}

fn in_arena(p: *mut u8) -> bool {
    let p = p as usize;
    p >= BASE.load(Relaxed) && p < END.load(Relaxed)
}

/// A block of the arena, or None (not started, too large, used up).
fn bump(layout: Layout) -> Option<*mut u8> {
    if layout.size() > SMALL {
        return None;
    }
    let end = END.load(Relaxed);
    let mut cur = NEXT.load(Relaxed);
    loop {
        if cur == 0 {
            return None;
        }
        let start = cur.checked_add(layout.align() - 1)? & !(layout.align() - 1);
        let next = start.checked_add(layout.size().max(1))?;
        if next > end {
            return None;
        }
        match NEXT.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
            Ok(_) => return Some(start as *mut u8),
            Err(now) => cur = now,
        }
    }
}

// SAFETY: blocks from the arena are disjoint (each address range is handed out
// once, by an atomic compare-and-swap), aligned as asked, within the mapping, and
// never returned to the system allocator; everything else is the system's.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            Some(p) => {
                charge(layout.size());
                p
            }
            None => from_system(unsafe { System.alloc(layout) }, layout.size()),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            // Never handed out before: still zero from mmap.
            Some(p) => {
                charge(layout.size());
                p
            }
            None => from_system(unsafe { System.alloc_zeroed(layout) }, layout.size()),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !in_arena(ptr) {
            credit(layout.size());
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !in_arena(ptr) {
            let q = unsafe { System.realloc(ptr, layout, new_size) };
            if q.is_null() {
                // The old block is still there, and still held.
                super::deadline::out_of_memory(new_size);
            } else {
                credit(layout.size());
                charge(new_size);
            }
            return q;
        }
        if new_size <= layout.size() {
            // Shrinking: keep the block (the bytes past its new end are not
            // handed out again, so fresh blocks stay zero).
            return ptr;
        }
        // The newest block grows where it is (a Vec pushed to, a String built
        // up): no copy, and no abandoned block touching more fresh pages.
        let (old_end, new_end) = (ptr as usize + layout.size(), ptr as usize + new_size);
        if new_size <= SMALL
            && new_end <= END.load(Relaxed)
            && NEXT
                .compare_exchange(old_end, new_end, Relaxed, Relaxed)
                .is_ok()
        {
            charge(new_size - layout.size());
            return ptr;
        }
        // SAFETY: the caller guarantees new_size, rounded up to align, fits isize.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let q = unsafe { self.alloc(new) };
        if !q.is_null() {
            // SAFETY: both blocks are valid for the smaller size and disjoint.
            unsafe { std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size)) };
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_disjoint_and_zeroed() {
        start();
        let mut seen: Vec<(usize, usize)> = vec![];
        for (size, align) in [
            (1, 1),
            (3, 8),
            (24, 8),
            (100, 64),
            (7, 4096),
            (0, 16),
            (SMALL, 8),
        ] {
            let l = Layout::from_size_align(size, align).unwrap();
            let p = unsafe { GLOBAL.alloc_zeroed(l) };
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0);
            assert!((0..size).all(|i| unsafe { *p.add(i) } == 0));
            seen.push((p as usize, p as usize + size));
        }
        seen.sort();
        assert!(seen.windows(2).all(|w| w[0].1 <= w[1].0), "{seen:?}");
        // Large blocks come from the system; growing an arena block keeps its bytes.
        let big = Layout::from_size_align(SMALL + 1, 8).unwrap();
        let p = unsafe { GLOBAL.alloc(big) };
        assert!(!in_arena(p));
        unsafe { GLOBAL.dealloc(p, big) };
        let v: Vec<u32> = (0..100_000).collect();
        assert_eq!(v.iter().map(|&x| u64::from(x)).sum::<u64>(), 4_999_950_000);
        // Growing keeps the bytes (in place when the block is the newest, which
        // other test threads allocating at once make unpredictable here);
        // shrinking keeps the block, and what is handed out after it is zero.
        let l = Layout::from_size_align(16, 8).unwrap();
        let p = unsafe { GLOBAL.alloc(l) };
        unsafe { std::ptr::write_bytes(p, 0xAB, 16) };
        let q = unsafe { GLOBAL.realloc(p, l, 4096) };
        assert!((0..16).all(|i| unsafe { *q.add(i) } == 0xAB));
        unsafe { std::ptr::write_bytes(q, 0xCD, 4096) };
        let r = unsafe { GLOBAL.realloc(q, Layout::from_size_align(4096, 8).unwrap(), 8) };
        assert_eq!(r, q, "shrinking keeps the block");
        let z = unsafe { GLOBAL.alloc_zeroed(Layout::from_size_align(4096, 8).unwrap()) };
        assert!((0..4096).all(|i| unsafe { *z.add(i) } == 0));
        // A block that is not the newest moves, keeping its bytes.
        let a = unsafe { GLOBAL.alloc(l) };
        unsafe { std::ptr::write_bytes(a, 0x11, 16) };
        let _b = unsafe { GLOBAL.alloc(l) };
        let a2 = unsafe { GLOBAL.realloc(a, l, 64) };
        assert!((0..16).all(|i| unsafe { *a2.add(i) } == 0x11));
    }
}
