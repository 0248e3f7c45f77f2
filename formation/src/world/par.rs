//! The tick's parallel stages on rayon (the `parallel` feature), and the same work on one
//! thread without it.
//!
//! Every parallel stage splits its work into items (units, formations) or fixed chunks of them
//! whose boundaries depend on the input alone, never on the number of threads; each chunk
//! writes only its own outputs and its own scratch, and anything combined across chunks is
//! combined in chunk order. So a tick gives the same bits on any number of threads, and the
//! single-thread run (a one-thread pool, or a build without the feature) runs the very same
//! algorithm. `docs/performance.md` ("Parallel stages") lists the stages.

/// Threads of the pool the tick runs in: rayon's current pool with the `parallel` feature
/// (the global pool outside any), else 1.
#[inline]
pub(super) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Whether the stages should split their work across threads: more than one thread in the
/// pool and at least `items` worth splitting (`min` items).
#[inline]
pub(super) fn split(items: usize, min: usize) -> bool {
    items >= min && threads() > 1
}

/// Fills `out` with `f(item)` for every item of `items`, in order: on the pool's threads when
/// there are at least `min` items and more than one thread, else in a plain loop. `out`
/// keeps its buffer, so a warm call allocates nothing. Since `f` sees one item alone, the
/// result does not depend on the threads.
pub(super) fn map_into<T, U, F>(items: &[T], out: &mut Vec<U>, min: usize, f: F)
where
    T: Sync,
    U: Send,
    F: Fn(&T) -> U + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if split(items.len(), min) {
        use rayon::prelude::*;
        items
            .par_iter()
            .with_min_len(min.max(1))
            .map(f)
            .collect_into_vec(out);
        return;
    }
    let _ = min;
    out.clear();
    out.extend(items.iter().map(f));
}
