//! Separation of formation members, for all units in one sweep over neighbour pairs (the
//! steering stage of a tick, see `world/units.rs`).

use cohort_steering::Vec2;
use cohort_steering::behaviours::SeparationFalloff;
use cohort_steering::grid::NeighbourSearch;

/// Separation for formation members, for every unit at once: steering's separation behaviour
/// with the [`SeparationFalloff::Linear`] falloff (away from each neighbour closer than
/// `range × (r_i + r_j)`, 0 at that comfort distance, 1 when the centres meet), summed per
/// unit. One sweep over the neighbour pairs serves both units
/// of a pair, and collects the penetration solver's candidate pairs on the way. The sweep
/// reads radii and adds to sums in the search's order (cell order for the grid), so its
/// memory accesses follow the sweep rather than jump between unit indices.
pub(super) struct SeparationSweep<'a> {
    pub(super) radii: &'a [f32],
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
    sums: Vec<Vec2>,
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
        let order = search.order();
        let SweepBuffers {
            radii,
            sums: sorted_sums,
        } = buffers;
        radii.clear();
        radii.extend(
            order
                .iter()
                .map(|&i| self.radii.get(i as usize).copied().unwrap_or(0.0)),
        );
        sorted_sums.clear();
        sorted_sums.resize(order.len(), Vec2::ZERO);
        let falloff = SeparationFalloff::Linear { range: self.range };
        let margin = self.pair_margin;
        search.for_each_pair_within(self.reach, |pair| {
            let (ka, kb) = (pair.slot_a as usize, pair.slot_b as usize);
            let (Some(&ra), Some(&rb)) = (radii.get(ka), radii.get(kb)) else {
                return;
            };
            let away = pair.pa - pair.pb;
            let d_sq = away.length_squared();
            if let Some(pairs) = pairs.as_deref_mut() {
                let sum = ra + rb + margin;
                if d_sq < sum * sum {
                    pairs.push((pair.a.min(pair.b), pair.a.max(pair.b)));
                }
            }
            if !falloff.within(d_sq, ra + rb) {
                return;
            }
            let d = d_sq.sqrt();
            let dir = if d > 1e-6 {
                away / d
            } else {
                cohort_steering::penetration::split_direction(pair.a, pair.b)
            };
            let push = falloff.push(dir, d, ra + rb);
            if let Some(s) = sorted_sums.get_mut(ka) {
                *s += push;
            }
            if let Some(s) = sorted_sums.get_mut(kb) {
                *s -= push;
            }
        });
        sums.clear();
        sums.resize(self.radii.len(), Vec2::ZERO);
        for (&i, &sum) in order.iter().zip(sorted_sums.iter()) {
            if let Some(s) = sums.get_mut(i as usize) {
                *s = sum;
            }
        }
    }
}
