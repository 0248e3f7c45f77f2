//! Which top-level formations are near another (their units look for units to avoid).

use cohort_steering::Vec2;

use super::{RootEntry, RootIndex};

impl RootIndex {
    /// Sets `near[root]` for every root whose bounding circle comes within `margin` of another
    /// root's (a sweep along the entries' x order: near-linear in the roots).
    pub(in crate::world::make_way) fn mark_near_pairs(&self, margin: f32, near: &mut [bool]) {
        let entries = &self.entries;
        // Whether `b`, after `a` in the x order, is near it (and not past the sweep's window).
        let near_pair = |a: &RootEntry, ra: f32, b: &RootEntry| {
            if b.position.x - a.position.x > ra + self.max_reach + margin {
                return false;
            }
            let reach = ra + b.circle_radius + margin;
            (b.position - a.position).length_squared() <= reach * reach
        };
        let mut mark = |a: &RootEntry, b: &RootEntry| {
            for r in [a.root, b.root] {
                if let Some(n) = near.get_mut(r as usize) {
                    *n = true;
                }
            }
        };
        if self.classes.usable() {
            // Each root not yet marked looks for one near root, in either direction, each
            // class with a window as wide as its reach (padded for rounding); a pair is
            // judged from its first root in x order, as the sweep below judges it.
            for (k, a) in entries.iter().enumerate() {
                if near.get(a.root as usize).copied().unwrap_or(true) {
                    continue;
                }
                let ra = a.circle_radius;
                let mut other = None;
                self.classes.any_class(|strips, reach| {
                    let w = ra + reach + margin;
                    let w = w + 1e-4 * (w + a.position.abs().element_sum()) + 1e-3;
                    let (x, y) = (a.position.x, a.position.y);
                    strips.any_indexed_in(entries, (x - w, x + w), (y - w, y + w), |i, b| {
                        let i = i as usize;
                        let is_near = match i.cmp(&k) {
                            core::cmp::Ordering::Greater => near_pair(a, ra, b),
                            core::cmp::Ordering::Less => near_pair(b, b.circle_radius, a),
                            core::cmp::Ordering::Equal => false,
                        };
                        if is_near {
                            other = Some(b.root);
                        }
                        is_near
                    })
                });
                if let Some(b) = other {
                    for r in [a.root, b] {
                        if let Some(n) = near.get_mut(r as usize) {
                            *n = true;
                        }
                    }
                }
            }
            return;
        }
        for (k, a) in entries.iter().enumerate() {
            let ra = a.circle_radius;
            let window = ra + self.max_reach + margin;
            for b in entries.get(k + 1..).unwrap_or(&[]) {
                if b.position.x - a.position.x > window {
                    break;
                }
                if near_pair(a, ra, b) {
                    mark(a, b);
                }
            }
        }
    }

    /// Sets `near[owner]` and `near[root]` of every other root standing (not moving) whose
    /// bounding circle comes within `margin` of a unit of radius `radius` at `at`, a member of
    /// root `owner` standing outside that one's bounding circle (grown by the slack the
    /// margin allows): [`Self::mark_near_pairs`] judges formations by their circles, which
    /// hold their slots, not a member left far from its slot. A standing formation's units
    /// step aside for such a member (a stray) only if they look for it. Moving formations
    /// are left out: their units and the member, avoiding each other, held it in the middle
    /// of a marching box, where, pushing by separation alone, it walks out of it.
    pub(in crate::world::make_way) fn mark_near_member(
        &self,
        owner: u32,
        at: Vec2,
        radius: f32,
        margin: f32,
        near: &mut [bool],
    ) {
        let mut any = false;
        self.for_each_near(at, radius + margin + self.max_reach, |b| {
            if b.root == owner || b.moving {
                return;
            }
            let reach = b.circle_radius + radius + margin;
            if (b.position - at).length_squared() <= reach * reach {
                if let Some(n) = near.get_mut(b.root as usize) {
                    *n = true;
                }
                any = true;
            }
        });
        if let (true, Some(n)) = (any, near.get_mut(owner as usize)) {
            *n = true;
        }
    }
}
