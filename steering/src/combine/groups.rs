//! Priority groups (Millington's priority-based blending) with optional variable priorities.
//!
//! Behaviours are arranged in groups; inside a group they are blended by weighted truncated
//! sum. Groups are tried in priority order and the first whose blended force is longer than a
//! threshold steers the body; a group in equilibrium (near-zero result) falls through to the
//! next, which is how priority groups escape the equilibria plain blending gets stuck in.

use glam::Vec2;

use super::weighted_truncated_sum;
use crate::body::Body;
/// A threshold usable in arithmetic: negative, NaN and infinite become 0.
use crate::ops::positive_or_zero as sanitize_threshold;

/// Priority groups, lazily: `groups` in priority order, each an iterator of
/// `(weight, behaviour)` pairs blended by weighted truncated sum (truncated to `max_force`).
/// Returns the first group result longer than `threshold`; groups after it are not evaluated.
/// When none is, returns the last group's (small) result, as Millington does; zero when there
/// are no groups.
pub fn priority_groups<G, B, F>(groups: G, threshold: f32, max_force: f32) -> Vec2
where
    G: IntoIterator<Item = B>,
    B: IntoIterator<Item = (f32, F)>,
    F: FnOnce() -> Vec2,
{
    let threshold_sq = sanitize_threshold(threshold).powi(2);
    let mut last = Vec2::ZERO;
    for group in groups {
        last = weighted_truncated_sum(group.into_iter().map(|(w, b)| (w, b())), max_force);
        if last.length_squared() > threshold_sq {
            return last;
        }
    }
    last
}

/// Fills `order` with the indices of `priorities` sorted by descending priority; equal
/// priorities keep index order and NaN counts as the lowest priority. `order` is cleared first
/// and reused, so once it has the capacity no allocation happens.
pub fn order_by_priority(priorities: &[f32], order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..priorities.len());
    let key = |i: usize| match priorities.get(i) {
        Some(p) if !p.is_nan() => *p,
        _ => f32::NEG_INFINITY,
    };
    // Keys are unique (index tie-break), so the unstable sort is deterministic and does not
    // allocate.
    order.sort_unstable_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
}

/// A behaviour as a group stores it: a function of the body and a caller context `C` (the
/// world state the behaviour reads: targets, threats, obstacles).
pub type GroupBehaviour<C> = Box<dyn Fn(&Body, &C) -> Vec2>;

/// A group's priority this tick, from the body and the context (e.g. from health or threat).
pub type GroupPriority<C> = Box<dyn Fn(&Body, &C) -> f32>;

/// One group of weighted behaviours, blended by weighted truncated sum.
pub struct SteeringGroup<C: ?Sized = ()> {
    /// `(weight, behaviour)` pairs.
    pub behaviours: Vec<(f32, GroupBehaviour<C>)>,
    /// The group's priority each tick; `None` is a fixed priority of 0.
    pub priority: Option<GroupPriority<C>>,
}

impl<C: ?Sized> Default for SteeringGroup<C> {
    fn default() -> Self {
        Self {
            behaviours: Vec::new(),
            priority: None,
        }
    }
}

impl<C: ?Sized> SteeringGroup<C> {
    /// An empty group with fixed priority.
    pub fn new() -> Self {
        Self::default()
    }

    /// The group with one more weighted behaviour.
    pub fn with(mut self, weight: f32, behaviour: impl Fn(&Body, &C) -> Vec2 + 'static) -> Self {
        self.behaviours.push((weight, Box::new(behaviour)));
        self
    }

    /// The group with a variable priority.
    pub fn with_priority(mut self, priority: impl Fn(&Body, &C) -> f32 + 'static) -> Self {
        self.priority = Some(Box::new(priority));
        self
    }

    /// The blended force, truncated to `body.max_force`.
    pub fn force(&self, body: &Body, ctx: &C) -> Vec2 {
        weighted_truncated_sum(
            self.behaviours.iter().map(|(w, b)| (*w, b(body, ctx))),
            body.max_force,
        )
    }

    /// The priority this tick (0 when fixed).
    pub fn priority(&self, body: &Body, ctx: &C) -> f32 {
        self.priority.as_ref().map_or(0.0, |p| p(body, ctx))
    }
}

/// Priority groups built once and run every tick, with variable priorities: each tick every
/// group reports its priority, groups are sorted by it (descending, ties by index) into a reused
/// buffer, and the first whose result exceeds `threshold` steers.
pub struct PriorityGroups<C: ?Sized = ()> {
    /// The groups, in their default (tie-break) order.
    pub groups: Vec<SteeringGroup<C>>,
    /// A group result at most this long counts as "nothing to do" (equilibrium).
    pub threshold: f32,
    priorities: Vec<f32>,
    order: Vec<usize>,
}

impl<C: ?Sized> PriorityGroups<C> {
    /// No groups yet, with the given threshold (non-finite or negative counts as 0).
    pub fn new(threshold: f32) -> Self {
        Self {
            groups: Vec::new(),
            threshold: sanitize_threshold(threshold),
            priorities: Vec::new(),
            order: Vec::new(),
        }
    }

    /// Adds a group after the existing ones.
    pub fn with_group(mut self, group: SteeringGroup<C>) -> Self {
        self.groups.push(group);
        self
    }

    /// The steering force this tick (at most `body.max_force`). Falls back to the last group
    /// tried when none exceeds the threshold; zero with no groups.
    pub fn steer(&mut self, body: &Body, ctx: &C) -> Vec2 {
        self.priorities.clear();
        self.priorities
            .extend(self.groups.iter().map(|g| g.priority(body, ctx)));
        order_by_priority(&self.priorities, &mut self.order);
        let threshold_sq = sanitize_threshold(self.threshold).powi(2);
        let mut last = Vec2::ZERO;
        for group in self.order.iter().filter_map(|&i| self.groups.get(i)) {
            last = group.force(body, ctx);
            if last.length_squared() > threshold_sq {
                return last;
            }
        }
        last
    }

    /// Group indices in the order the last [`PriorityGroups::steer`] tried them.
    pub fn last_order(&self) -> &[usize] {
        &self.order
    }
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
