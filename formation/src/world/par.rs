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

/// Runs `f` (a whole tick) on a thread of rayon's current pool. A caller outside the pool (a
/// game's main thread stepping on rayon's global pool) enters it here once, with one job in
/// rayon's global queue: the tick's stages then split their work from one of the pool's
/// threads, whose splits go on that thread's own queue, instead of each stage's first split
/// entering the pool through the global queue. That queue allocates a block of 63 job slots
/// every 63 jobs, so a tick entered once allocates once in 63 ticks, where one entry per
/// stage allocated about once in 9. A caller already on one of the pool's threads (inside
/// `ThreadPool::install`), a one-thread pool and a build without the feature run `f` where
/// they are, and a warm tick then allocates nothing.
#[inline]
pub(super) fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    if rayon::current_thread_index().is_none() && threads() > 1 {
        return rayon::join(f, || ()).0;
    }
    f()
}

/// Whether a stage splits its `items` across threads: the pool has more than one thread and
/// there are at least `min` items.
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

/// Fills `out` with `f(k)` for every `k` in `0..n`, in order: on the pool's threads when `n`
/// is at least `min` and there is more than one thread, else in a plain loop ([`map_into`]
/// over indices).
pub(super) fn map_indexed_into<U, F>(n: usize, out: &mut Vec<U>, min: usize, f: F)
where
    U: Send,
    F: Fn(usize) -> U + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if split(n, min) {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .with_min_len(min.max(1))
            .map(f)
            .collect_into_vec(out);
        return;
    }
    let _ = min;
    out.clear();
    out.extend((0..n).map(f));
}

/// Calls `f(span, part, scratch)` for every span `c` of `data` given by `bounds` (span `c` is
/// `bounds[c]..bounds[c + 1]`, offsets from `bounds[0]`, which is where `data` starts), with
/// `part` that span of `data` and `scratch[c]` its own scratch: the spans split in halves on
/// the pool's threads when there are several and more than one thread, else in order. Spans
/// beyond `scratch` or `data` are not visited.
pub(super) fn for_each_span<T, S, F>(bounds: &[u32], data: &mut [T], scratch: &mut [S], f: &F)
where
    T: Send,
    S: Send,
    F: Fn(usize, &mut [T], &mut S) + Sync,
{
    spans_from(0, bounds, data, scratch, f);
}

/// [`for_each_span`] for the spans numbered from `first`.
fn spans_from<T, S, F>(first: usize, bounds: &[u32], data: &mut [T], scratch: &mut [S], f: &F)
where
    T: Send,
    S: Send,
    F: Fn(usize, &mut [T], &mut S) + Sync,
{
    let spans = bounds.len().saturating_sub(1).min(scratch.len());
    let origin = bounds.first().copied().unwrap_or(0);
    match (spans, scratch.first_mut()) {
        (0, _) | (_, None) => {}
        (1, Some(s)) => {
            let end = bounds
                .get(1)
                .map_or(0, |&b| b.saturating_sub(origin) as usize);
            let end = end.min(data.len());
            if let Some(part) = data.get_mut(..end) {
                f(first, part, s);
            }
        }
        _ => {
            let mid = spans / 2;
            let at = bounds
                .get(mid)
                .map_or(0, |&b| b.saturating_sub(origin) as usize);
            let (dl, dr) = data.split_at_mut(at.min(data.len()));
            let (sl, sr) = scratch.split_at_mut(mid);
            let (bl, br) = (
                bounds.get(..=mid).unwrap_or(&[]),
                bounds.get(mid..).unwrap_or(&[]),
            );
            #[cfg(feature = "parallel")]
            if split(spans, 2) {
                rayon::join(
                    || spans_from(first, bl, dl, sl, f),
                    || spans_from(first + mid, br, dr, sr, f),
                );
                return;
            }
            spans_from(first, bl, dl, sl, f);
            spans_from(first + mid, br, dr, sr, f);
        }
    }
}

/// Units per chunk of the per-unit passes ([`for_each_unit_chunk`]).
pub(super) const UNIT_CHUNK: usize = 256;

/// Calls `f(first, a, b, scratch)` for every chunk of [`UNIT_CHUNK`] units of the per-unit
/// arrays `a` and `b` (`first` is the chunk's first unit): on the pool's threads, each chunk
/// with its own `scratch` entry (grown to the chunk count with `S::default()`, never shrunk),
/// when there are several chunks and threads; else in order, all with the first entry. `f`
/// must give each unit's result from that unit alone (scratch holds buffers, not results).
pub(super) fn for_each_unit_chunk<A, B, S, F>(a: &mut [A], b: &mut [B], scratch: &mut Vec<S>, f: F)
where
    A: Send,
    B: Send,
    S: Send + Default,
    F: Fn(usize, &mut [A], &mut [B], &mut S) + Sync + Send,
{
    let n = a.len().min(b.len());
    let (a, b) = (
        a.get_mut(..n).unwrap_or(&mut []),
        b.get_mut(..n).unwrap_or(&mut []),
    );
    #[cfg(feature = "parallel")]
    if split(n.div_ceil(UNIT_CHUNK), 2) {
        let chunks = n.div_ceil(UNIT_CHUNK);
        use rayon::prelude::*;
        if scratch.len() < chunks {
            scratch.resize_with(chunks, S::default);
        }
        a.par_chunks_mut(UNIT_CHUNK)
            .zip(b.par_chunks_mut(UNIT_CHUNK))
            .zip(scratch.par_iter_mut())
            .enumerate()
            .for_each(|(c, ((a, b), s))| f(c * UNIT_CHUNK, a, b, s));
        return;
    }
    if scratch.is_empty() {
        scratch.push(S::default());
    }
    let Some(s) = scratch.first_mut() else {
        return;
    };
    for (c, (a, b)) in a
        .chunks_mut(UNIT_CHUNK)
        .zip(b.chunks_mut(UNIT_CHUNK))
        .enumerate()
    {
        f(c * UNIT_CHUNK, a, b, s);
    }
}
