//! Formations moving alike: neighbouring top-level formations that walk the same way at the
//! same speed share one avoidance group (see `world/make_way.rs`, `World::open_lanes`).

use cohort_steering::Vec2;

use super::RootIndex;

/// Most difference (m/s) between two formations' anchor velocities for them to move alike.
pub(in crate::world::make_way) const ALIKE_SPEED: f32 = 0.4;

/// Most gap (metres) between two formations' bounding circles for them to count as
/// neighbours moving alike.
pub(in crate::world::make_way) const ALIKE_GAP: f32 = 2.0;

impl RootIndex {
    /// Fills `clusters` (by place among the roots, `roots` of them) with, for each root, the
    /// least place of the roots it is joined to: two roots both `eligible` (by place), both
    /// singles or both not, moving with anchor velocities within [`ALIKE_SPEED`] of each other
    /// and with bounding circles within [`ALIKE_GAP`], are joined, with the roots already joined
    /// to either, when every two roots of the joined group still move within [`ALIKE_SPEED`]
    /// of each other along each axis. Pairs are found in the index's order, so the groups
    /// depend on the roots alone.
    pub(in crate::world::make_way) fn cluster_alike(
        &mut self,
        roots: usize,
        eligible: &[bool],
        clusters: &mut Vec<u32>,
    ) {
        clusters.clear();
        clusters.extend(0..roots as u32);
        // Per group (at its first root's place): the least and greatest of its roots' anchor
        // velocities, component by component.
        let (mut lo, mut hi) = std::mem::take(&mut self.velocity_bounds);
        lo.clear();
        lo.resize(roots, Vec2::ZERO);
        hi.clear();
        hi.resize(roots, Vec2::ZERO);
        for e in &self.entries {
            if let (Some(l), Some(h)) = (lo.get_mut(e.root as usize), hi.get_mut(e.root as usize)) {
                (*l, *h) = (e.velocity, e.velocity);
            }
        }
        let is_eligible = |root: u32| eligible.get(root as usize).copied().unwrap_or(false);
        for a in &self.entries {
            if !is_eligible(a.root) {
                continue;
            }
            // Each pair is looked at from its larger root (ties: the lesser place), so the
            // search round a root reaches only as far as its own size allows.
            let ra = a.circle_radius;
            let r = 2.0 * ra + ALIKE_GAP;
            self.for_each_near(a.position, r, |b| {
                let rb = b.circle_radius;
                let from_a = rb < ra || (rb == ra && b.root > a.root);
                if !from_a || !is_eligible(b.root) || b.single != a.single {
                    return;
                }
                if (b.velocity - a.velocity).length_squared() > ALIKE_SPEED * ALIKE_SPEED {
                    return;
                }
                let reach = ra + b.circle_radius + ALIKE_GAP;
                if (b.position - a.position).length_squared() <= reach * reach {
                    // Joined only where all the roots of the two groups move alike: a chain of
                    // neighbours each a little off the last (a ring closing on its centre)
                    // would otherwise join units walking at each other.
                    let (ga, gb) = (find(clusters, a.root), find(clusters, b.root));
                    let (Some(&la), Some(&ha), Some(&lb), Some(&hb)) = (
                        lo.get(ga as usize),
                        hi.get(ga as usize),
                        lo.get(gb as usize),
                        hi.get(gb as usize),
                    ) else {
                        return;
                    };
                    let (l, h) = (la.min(lb), ha.max(hb));
                    let spread = h - l;
                    if ga != gb && spread.x <= ALIKE_SPEED && spread.y <= ALIKE_SPEED {
                        let keep = join(clusters, ga, gb);
                        if let (Some(lk), Some(hk)) =
                            (lo.get_mut(keep as usize), hi.get_mut(keep as usize))
                        {
                            (*lk, *hk) = (l, h);
                        }
                    }
                }
            });
        }
        for i in 0..clusters.len() {
            let root = find(clusters, i as u32);
            if let Some(c) = clusters.get_mut(i) {
                *c = root;
            }
        }
        self.velocity_bounds = (lo, hi);
    }
}

/// The least place of the roots `i` is joined to so far (halving the paths it walks).
fn find(parents: &mut [u32], mut i: u32) -> u32 {
    for _ in 0..parents.len() {
        let Some(&p) = parents.get(i as usize) else {
            return i;
        };
        if p == i {
            return i;
        }
        let grand = parents.get(p as usize).copied().unwrap_or(p);
        if let Some(slot) = parents.get_mut(i as usize) {
            *slot = grand;
        }
        i = grand;
    }
    i
}

/// Joins the roots `a` and `b`: the root of the two with the lesser place stands for both;
/// returns it.
fn join(parents: &mut [u32], a: u32, b: u32) -> u32 {
    let (ra, rb) = (find(parents, a), find(parents, b));
    let (keep, under) = if ra <= rb { (ra, rb) } else { (rb, ra) };
    if let Some(slot) = parents.get_mut(under as usize) {
        *slot = keep;
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_roots_share_their_least_place_whatever_the_order() {
        let mut p: Vec<u32> = (0..6).collect();
        join(&mut p, 4, 5);
        join(&mut p, 5, 2);
        join(&mut p, 0, 1);
        let roots: Vec<u32> = (0..6).map(|i| find(&mut p, i)).collect();
        assert_eq!(roots, vec![0, 0, 2, 3, 2, 2]);
        let mut q: Vec<u32> = (0..6).collect();
        join(&mut q, 2, 5);
        join(&mut q, 1, 0);
        join(&mut q, 5, 4);
        let again: Vec<u32> = (0..6).map(|i| find(&mut q, i)).collect();
        assert_eq!(roots, again);
    }
}
