//! Separation of formation members, for all units in one sweep over neighbour pairs (the
//! steering stage of a tick, see `world/units.rs`).

use cohort_steering::behaviours::SeparationFalloff;
use cohort_steering::capacity::ReserveTotal;
use cohort_steering::grid::{CellGrid, NearPair, NeighbourSearch};
use cohort_steering::{Body, Vec2};

/// Items per span of the grid sweep on several threads (spans end at the end of a row of
/// cells, so most hold a few more).
const SPAN_ITEMS: usize = 1024;

/// Candidate pairs per item a span's pair buffer makes room for (equal circles packed
/// hexagonally have three each; only a crowd pressed into overlap has more).
const PAIRS_PER_ITEM: usize = 4;

/// Distance (metres) from its moving slot beyond which a member counts as left behind
/// ([`Heading::Straggling`]).
pub(crate) const STRAGGLE_DISTANCE: f32 = 6.0;

/// Why a unit steers where it does, as far as [`round_blocker`] is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Heading {
    /// To a point of its detour round an obstacle (passed rather than stood on) to a slot
    /// that moves with its formation.
    Detour,
    /// Straight to a slot that moves with its formation.
    MovingSlot,
    /// To a slot that moves with its formation, straight or round an obstacle, from more than
    /// [`STRAGGLE_DISTANCE`] away: a member left behind while its formation walked on.
    /// Separation turns its pushes as on a detour; avoidance, once it also stands nearly
    /// still (held in another formation's crowd), lets it through standing formations like
    /// a stray (see `avoidance.rs`).
    Straggling,
    /// To a slot that stands still (straight or round an obstacle), or to where it stands.
    StillSlot,
}

/// A unit's separation push `push` with its part back from `goal` turned to the unit's
/// right, when the unit is on its way: to a point of its detour to a moving slot, or to a
/// moving slot that
/// lies beyond any squad-mate of its size that pushes it (farther than separation's comfort
/// distance `range` × two radii, plus a radius). A squad-mate between a unit and its slot so
/// makes the unit walk round it rather than hold it back: pressed straight back, the unit
/// stopped short of the squad-mate, crept on as the push eased, and was pressed back again,
/// shuffling on the spot while its formation marched on. Both of two units pressing into
/// each other turn right, so they pass. At most the push of one neighbour just touching
/// turns: beyond that, units pressed into overlap are pushed apart as before. Units of a
/// standing formation sort themselves out unturned (they are not falling behind, and slot
/// re-assignment swaps those in each other's way). Otherwise, `push` itself.
#[inline]
pub(super) fn round_blocker(
    push: Vec2,
    body: &Body,
    goal: Vec2,
    heading: Heading,
    range: f32,
) -> Vec2 {
    let range = range.max(1.0);
    let to_goal = goal - body.position;
    let on_way = (2.0 * range + 1.0) * body.radius;
    let turns = match heading {
        Heading::Detour | Heading::Straggling => true,
        Heading::MovingSlot => to_goal.length_squared() > on_way * on_way,
        Heading::StillSlot => false,
    };
    if !turns {
        return push;
    }
    let ahead = to_goal.normalize_or_zero();
    let most = 1.0 - 1.0 / range;
    let back = (-push.dot(ahead)).min(most);
    if !(back > 0.0) {
        return push;
    }
    let right = Vec2::new(ahead.y, -ahead.x);
    let turned = push + ahead * back + right * back;
    if turned.is_finite() { turned } else { push }
}

/// Comfort distance, as a multiple of the sum of radii, between two members of one formation
/// closed up into ranks two or more abreast for a passage walked one way
/// (`SeparationSweep::closed_up`). Closed up, members stand 2.1 radii apart
/// (`pattern::ONE_WAY_SPACING_RADII`), well within the world's comfort distance
/// (`WorldSettings::separation_range`, 1.4 by default): pushed apart by every neighbour, the
/// files pressed against the passage's walls and the ranks spread out along it, and members
/// coming to the passage beside their files were held at its corners (the chokepoint's 20
/// squads of 50 took 444.3 s through its 4 m gap; 385.4 s with this). At 1.1 the chokepoint
/// was faster still (380.2 s), but crowds pressed at gaps overlapped deeper (to 6.4 %).
const CLOSED_UP_RANGE: f32 = 1.15;

/// [`SweepBuffers`]'s mark of an item whose formation is not closed up.
const NOT_CLOSED_UP: u32 = u32::MAX;

/// Separation for formation members, for every unit at once: steering's separation behaviour
/// with the [`SeparationFalloff::Linear`] falloff (away from each neighbour closer than
/// `range × (r_i + r_j)`, 0 at that comfort distance, 1 when the centres meet), summed per
/// unit. One sweep over the neighbour pairs serves both units
/// of a pair, and collects the penetration solver's candidate pairs on the way. The sweep
/// reads radii and adds to sums in the search's order (cell order for the grid), so its
/// memory accesses follow the sweep rather than jump between unit indices.
pub(super) struct SeparationSweep<'a> {
    pub(super) radii: &'a [f32],
    /// Per unit: the place of its top-level formation.
    pub(super) groups: &'a [u32],
    /// Per top-level formation (by place): whether it is closed up into ranks two or more
    /// abreast for a passage walked one way, its members all units: two of its members keep
    /// [`CLOSED_UP_RANGE`] as their comfort distance.
    pub(super) closed_up: &'a [bool],
    /// Comfort distance as a multiple of the sum of radii (at least 1).
    pub(super) range: f32,
    /// Farthest two units interact: the largest comfort distance, or pair distance.
    pub(super) reach: f32,
    /// Margin of the penetration solver's candidate pairs.
    pub(super) pair_margin: f32,
}

/// Buffers of [`SeparationSweep::run`], in the search's order.
#[derive(Default)]
pub(crate) struct SweepBuffers {
    radii: Vec<f32>,
    /// Per item: the place of its top-level formation if that is closed up into ranks
    /// ([`SeparationSweep::closed_up`]), else [`NOT_CLOSED_UP`].
    closed: Vec<u32>,
    sums: Vec<Vec2>,
    /// The spans of the sweep on several threads ([`CellGrid::sweep_spans`]).
    bounds: Vec<u32>,
    /// Per item (in the search's order): what the pairs it shares with the span before its
    /// own add to its sum (0 in the first span).
    spills: Vec<Vec2>,
    /// Per span: the penetration solver's candidate pairs found from it.
    pairs: Vec<Vec<(u32, u32)>>,
    /// Items every span's pair buffer keeps room for the pairs of: a quarter more than the
    /// longest span so far, so the buffers grow only when the longest span outgrows it (the
    /// spans change length from tick to tick as units cross rows of cells).
    room: usize,
}

impl SeparationSweep<'_> {
    /// Fills `sums` (one per unit) and, when given, `pairs` with every pair `(i, j)`, `i < j`,
    /// closer than `r_i + r_j + pair_margin` (in the search's pair order).
    pub(super) fn run<S: NeighbourSearch>(
        &self,
        search: &S,
        buffers: &mut SweepBuffers,
        sums: &mut Vec<Vec2>,
        mut pairs: Option<&mut Vec<(u32, u32)>>,
    ) {
        self.start(search.order(), buffers);
        let SweepBuffers {
            radii,
            closed,
            sums: sorted_sums,
            ..
        } = buffers;
        let slots = (&radii[..], &closed[..]);
        search.for_each_pair_within(self.reach, |pair| {
            let (candidate, push) = self.pair(slots, &pair);
            if let (Some(pairs), Some(c)) = (pairs.as_deref_mut(), candidate) {
                pairs.push(c);
            }
            if let Some(push) = push {
                add(sorted_sums, pair.slot_a, push);
                add(sorted_sums, pair.slot_b, -push);
            }
        });
        self.finish(search.order(), sorted_sums, sums);
    }

    /// [`Self::run`] over the grid, on the pool's threads when there are several: the items
    /// are split into spans of whole rows of cells ([`CellGrid::sweep_spans`]). First each span
    /// sums what the pairs it shares with the next span add to the next span's items (from
    /// its last row alone); then each span starts its own sums from those and adds its own
    /// pairs, in the sweep's order. Every item's sum so adds the same terms in the same order
    /// as the single sweep, which is what one thread runs: the same bits on any number of
    /// threads. The candidate pairs are gathered per span and joined in span order.
    pub(super) fn run_grid(
        &self,
        grid: &CellGrid,
        buffers: &mut SweepBuffers,
        sums: &mut Vec<Vec2>,
        pairs: Option<&mut Vec<(u32, u32)>>,
    ) {
        grid.sweep_spans(self.reach, SPAN_ITEMS, &mut buffers.bounds);
        let spans = buffers.bounds.len().saturating_sub(1);
        if !super::par::split(spans, 2) {
            self.run(grid, buffers, sums, pairs);
            return;
        }
        self.start(grid.order(), buffers);
        let SweepBuffers {
            radii,
            closed,
            sums: sorted_sums,
            bounds,
            spills,
            pairs: span_pairs,
            room,
        } = buffers;
        // A quarter more than the longest span when it outgrows the room, so that the
        // longest span's usual ups and downs do not grow every buffer again.
        let longest = bounds
            .windows(2)
            .map(|w| w[1].saturating_sub(w[0]) as usize)
            .max()
            .unwrap_or(0);
        if longest > *room {
            *room = longest + longest / 4;
        }
        let room = *room;
        let (slots, bounds) = ((&radii[..], &closed[..]), &*bounds);
        let reach = self.reach;
        let range = |c: usize| match (bounds.get(c), bounds.get(c + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        // What each span adds to the next one's sums: span `c`'s task fills span `c + 1`'s
        // part of `spills`.
        spills.clear();
        spills.resize(sorted_sums.len(), Vec2::ZERO);
        if span_pairs.len() < spans {
            span_pairs.resize_with(spans, Vec::new);
        }
        let later = bounds.get(1..).unwrap_or(&[]);
        let first = later.first().map_or(0, |&b| b as usize);
        let spill_parts = spills.get_mut(first..).unwrap_or(&mut []);
        let spill = |c: usize, part: &mut [Vec2], _: &mut Vec<(u32, u32)>| {
            let next = range(c + 1);
            grid.sweep_span(reach, range(c), true, |pair| {
                if let (_, Some(push)) = self.pair(slots, &pair) {
                    let at = (pair.slot_b as usize).wrapping_sub(next.start);
                    if let Some(s) = part.get_mut(at) {
                        *s -= push;
                    }
                }
            });
        };
        super::par::for_each_span(later, spill_parts, span_pairs, &spill);
        // Each span's own sums, from what the span before added.
        let collect = pairs.is_some();
        let spills = &*spills;
        let own = |c: usize, part: &mut [Vec2], found: &mut Vec<(u32, u32)>| {
            let span = range(c);
            match spills.get(span.clone()) {
                Some(spill) if spill.len() == part.len() => part.copy_from_slice(spill),
                _ => part.fill(Vec2::ZERO),
            }
            found.clear();
            // Room for as many pairs per item of the room as the penetration solver keeps
            // per item.
            found.reserve_total(room * PAIRS_PER_ITEM);
            grid.sweep_span(reach, span.clone(), false, |pair| {
                let (candidate, push) = self.pair(slots, &pair);
                if let (true, Some(c)) = (collect, candidate) {
                    found.push(c);
                }
                if let Some(push) = push {
                    let (a, b) = (pair.slot_a as usize, pair.slot_b as usize);
                    if let Some(s) = part.get_mut(a.wrapping_sub(span.start)) {
                        *s += push;
                    }
                    if let Some(s) = part.get_mut(b.wrapping_sub(span.start)) {
                        *s -= push;
                    }
                }
            });
        };
        super::par::for_each_span(
            bounds,
            sorted_sums,
            span_pairs.get_mut(..spans).unwrap_or(&mut []),
            &own,
        );
        if let Some(pairs) = pairs {
            for found in span_pairs.iter().take(spans) {
                pairs.extend_from_slice(found);
            }
        }
        self.finish(grid.order(), sorted_sums, sums);
    }

    /// Copies the radii and the marks of closed-up formations into the search's `order` and
    /// zeroes the sums.
    fn start(&self, order: &[u32], buffers: &mut SweepBuffers) {
        let SweepBuffers {
            radii,
            closed,
            sums,
            ..
        } = buffers;
        radii.clear();
        radii.extend(
            order
                .iter()
                .map(|&i| self.radii.get(i as usize).copied().unwrap_or(0.0)),
        );
        closed.clear();
        closed.extend(order.iter().map(|&i| match self.groups.get(i as usize) {
            Some(&g) if self.closed_up.get(g as usize) == Some(&true) => g,
            _ => NOT_CLOSED_UP,
        }));
        sums.clear();
        sums.resize(order.len(), Vec2::ZERO);
    }

    /// What `pair` (slots into `radii`) gives: its candidate pair for the penetration solver
    /// (closer than the sum of radii plus the margin), and the push of separation on its first
    /// item (the second gets the opposite), if within the comfort distance.
    #[inline]
    fn pair(
        &self,
        (radii, closed): (&[f32], &[u32]),
        pair: &NearPair,
    ) -> (Option<(u32, u32)>, Option<Vec2>) {
        let (Some(&ra), Some(&rb)) = (
            radii.get(pair.slot_a as usize),
            radii.get(pair.slot_b as usize),
        ) else {
            return (None, None);
        };
        let away = pair.pa - pair.pb;
        let d_sq = away.length_squared();
        let sum = ra + rb + self.pair_margin;
        let candidate = (d_sq < sum * sum).then(|| (pair.a.min(pair.b), pair.a.max(pair.b)));
        // Two members of one formation closed up into ranks keep closer company.
        let range = match (
            closed.get(pair.slot_a as usize),
            closed.get(pair.slot_b as usize),
        ) {
            (Some(&ca), Some(&cb)) if ca == cb && ca != NOT_CLOSED_UP => {
                CLOSED_UP_RANGE.min(self.range)
            }
            _ => self.range,
        };
        let falloff = SeparationFalloff::Linear { range };
        if !falloff.within(d_sq, ra + rb) {
            return (candidate, None);
        }
        let d = d_sq.sqrt();
        let dir = if d > 1e-6 {
            away / d
        } else {
            cohort_steering::penetration::split_direction(pair.a, pair.b)
        };
        (candidate, Some(falloff.push(dir, d, ra + rb)))
    }

    /// Writes the sums, in the search's `order`, back by unit into `sums`.
    fn finish(&self, order: &[u32], sorted_sums: &[Vec2], sums: &mut Vec<Vec2>) {
        sums.clear();
        sums.resize(self.radii.len(), Vec2::ZERO);
        for (&i, &sum) in order.iter().zip(sorted_sums.iter()) {
            if let Some(s) = sums.get_mut(i as usize) {
                *s = sum;
            }
        }
    }
}

/// Adds `push` to the sum at `slot`.
#[inline]
fn add(sums: &mut [Vec2], slot: u32, push: Vec2) {
    if let Some(s) = sums.get_mut(slot as usize) {
        *s += push;
    }
}
