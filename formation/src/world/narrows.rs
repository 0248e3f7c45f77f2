//! Narrow passages: where the path is narrower than the pattern, the formation closes up into
//! ranks as wide as the passage allows (a column where only one fits), and returns to its
//! pattern after the passage.

use cohort_steering::Vec2;

use super::World;
use crate::formation::{Formation, Member, Motion};
use crate::ids::FormationId;

/// Fraction of its cruise speed below which a formation held back by another (queueing behind
/// it, or giving way) counts as waiting for its turn: it keeps its pattern.
const HELD_FRACTION: f32 = 0.5;

impl World {
    /// Closes a moving top-level formation up into ranks that fit
    /// ([`ValidPattern::narrowed_one_way`], or [`ValidPattern::narrowed`] passing an oncoming
    /// formation in a passage with no room beside its file, or closing on a goal in the
    /// narrows) ahead of a passage narrower than its pattern, and opens it back out once the
    /// passage is behind it.
    ///
    /// [`ValidPattern::narrowed`]: crate::ValidPattern::narrowed
    /// [`ValidPattern::narrowed_one_way`]: crate::ValidPattern::narrowed_one_way
    pub(super) fn switch_for_narrows(&mut self, id: FormationId) {
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        if !f.settings.column_in_narrows || f.parent.is_some() || f.path.len() < 2 {
            return;
        }
        let n = f.members.len().max(1);
        let depth = f.base_pattern.depth(n).max(f.pattern().depth(n));
        let ahead = 0.5 * depth + 6.0;
        let narrow = path_narrower_near(f, ahead, depth + 2.0);
        // Passing an oncoming formation where both do not fit side by side (see
        // `make_way.rs`): it closes up to its half of the passage.
        let passing = f
            .narrow_pass
            .map(|(_, w)| w)
            .filter(|&w| w < f.base_pattern.width(n) && f.motion == Motion::Moving);
        // Already closed up, but wider than the half it now has: closes up further.
        let too_wide = |f: &Formation, w: f32| f.narrowed.as_ref().is_some_and(|p| p.width(n) > w);
        let tighten = f.in_column && passing.is_some_and(|w| too_wide(f, w));
        // Waiting for its turn at the passage (`make_way/right_of_way.rs`), it closes up only once it
        // goes: a column is many ranks deeper than the pattern, and its front ranks' slots
        // would reach into the passage it waits for. One that closed up before it had to
        // wait opens out again where its pattern fits.
        let gives_way = f.give_way.is_some() && passing.is_none();
        // Nor while another formation holds it back to well below its cruise (queueing
        // behind it, or merging after it): closed up, its front would jump ahead by half the
        // column's extra depth, and the merge would turn round and stop the one going.
        let held = f
            .follow_speed
            .is_some_and(|v| v < HELD_FRACTION * f.slowest_speed * f.cruise_fraction());
        let waiting = (gives_way || held) && !f.in_column;
        if (narrow || passing.is_some())
            && (!f.in_column || tighten)
            && f.motion == Motion::Moving
            && !waiting
        {
            let mut width = passing.unwrap_or(f32::INFINITY);
            if narrow {
                width = width.min(self.passage_width_ahead(id, ahead, depth + 2.0));
            }
            let radius = self.largest_radius(id) + self.widest_child_half_width(id);
            let Some(f) = self.formations.get_mut(id) else {
                return;
            };
            // Walking through a passage, its ranks follow each other closely. Closing on a
            // goal in the narrows, passing an oncoming formation with no room to spare beside
            // its file (the two files brush past each other), or of members wider than
            // [`ONE_WAY_MAX_RADIUS`], its members keep room between them. (Chosen when it
            // closes up, or up further for a narrower half.)
            let cramped = passing.is_some_and(|w| w < 2.0 * radius + CRAMPED_SLACK);
            let closed = if cramped
                || radius > ONE_WAY_MAX_RADIUS
                || narrows_reach_goal(f, ahead, depth + 2.0)
            {
                f.base_pattern.narrowed(n, width, radius)
            } else {
                f.base_pattern.narrowed_one_way(n, width, radius)
            };
            if f.narrowed.as_ref() != Some(&closed) {
                f.narrowed = Some(closed);
                f.needs_assignment = true;
            }
            f.in_column = true;
        } else if f.in_column
            && ((!narrow && passing.is_none()) || f.motion != Motion::Moving || gives_way)
        {
            // At the goal the narrow stretch may still be just behind: stand in the pattern
            // that was ordered if it fits here (checked every half second while it does not).
            if (f.motion != Motion::Moving || gives_way)
                && !(self.tick % 15 == 0 && self.base_pattern_fits(id))
            {
                return;
            }
            let Some(f) = self.formations.get_mut(id) else {
                return;
            };
            f.narrowed = None;
            f.in_column = false;
            f.needs_assignment = true;
        }
    }

    /// Whether every slot of the formation's base pattern, laid out at its anchor, has room
    /// for the member that would stand there (a unit's radius, a sub-formation's half-width).
    fn base_pattern_fits(&mut self, id: FormationId) -> bool {
        let room = self.largest_radius(id) + self.widest_child_half_width(id);
        let small = self.settings.small_obstacle_radius;
        let Self {
            formations,
            formation_nav,
            terrain,
            scratch,
            ..
        } = self;
        let Some(f) = formations.get(id) else {
            return false;
        };
        let n = f.members.len();
        // No members, no slots: nothing to fit.
        if n == 0 {
            return true;
        }
        // The slot buffer is free between assignments (assign_slots lays out into it anew).
        let slots = &mut scratch.slots;
        f.base_pattern.layout(n, slots);
        // Small obstacles do not count: a member whose slot is on a tree stands beside it.
        let map = formation_nav
            .valid_map(terrain.map(), small)
            .unwrap_or(terrain.valid_map());
        slots.iter().all(|s| {
            let p = f.anchor.slot_position(s.offset);
            map.clearance_capped(p, room + 0.01) >= room
        })
    }

    /// Width of the narrowest passage the formation's path leads through: twice the least
    /// clearance along the narrow stretches that reach from `behind` behind its anchor to
    /// `ahead` in front, sampled every half unit to each stretch's end (at most
    /// [`MAX_WIDTH_SAMPLES`] samples in all). The anchor follows the path, so its clearance,
    /// not the width of the open ground beside it, is what the ranks must fit.
    fn passage_width_ahead(&mut self, id: FormationId, ahead: f32, behind: f32) -> f32 {
        let small = self.settings.small_obstacle_radius;
        let Self {
            formations,
            formation_nav,
            terrain,
            ..
        } = self;
        let Some(f) = formations.get(id) else {
            return 0.0;
        };
        let map = formation_nav
            .valid_map(terrain.map(), small)
            .unwrap_or(terrain.valid_map());
        let cap = 0.5 * f.base_pattern.width(f.members.len().max(1)) + 0.01;
        let s = arc_length_at_anchor(f);
        let mut least = cap;
        let mut samples = 0usize;
        for &(n0, n1) in &f.narrows {
            if n1 < s - behind || n0 > s + ahead {
                continue;
            }
            let (a, b) = (n0.max(s - behind), n1);
            let steps = (((b - a) / 0.5).ceil() as usize).clamp(1, MAX_WIDTH_SAMPLES);
            for k in 0..=steps {
                if samples >= MAX_WIDTH_SAMPLES {
                    break;
                }
                samples += 1;
                let at = a + (b - a) * (k as f32 / steps as f32);
                least = least.min(map.clearance_capped(point_at(&f.path, at), cap));
            }
        }
        2.0 * least
    }

    /// Half the width of the widest sub-formation member (0 for a formation of units).
    fn widest_child_half_width(&self, id: FormationId) -> f32 {
        let Some(f) = self.formations.get(id) else {
            return 0.0;
        };
        f.members
            .iter()
            .filter_map(|m| match *m {
                Member::Formation(c) => self.formations.get(c),
                Member::Unit(_) => None,
            })
            .map(|c| 0.5 * c.base_pattern.width(c.members.len().max(1)))
            .fold(0.0, f32::max)
    }
}

/// Arc-length stretches of `path` where the clearance is below `need`, sampled every half
/// unit (computed once per plan, so the per-tick check is a few comparisons).
pub(super) fn narrow_stretches(
    clearance: impl Fn(Vec2, f32) -> f32,
    path: &[Vec2],
    need: f32,
    out: &mut Vec<(f32, f32)>,
) {
    out.clear();
    let mut s0 = 0.0;
    let mut open: Option<f32> = None;
    for w in path.windows(2) {
        let len = (w[1] - w[0]).length();
        let steps = ((len / 0.5).ceil() as usize).clamp(1, 100_000);
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let s = s0 + len * t;
            let narrow = clearance(w[0].lerp(w[1], t), need + 0.01) < need;
            match (narrow, open) {
                (true, None) => open = Some(s),
                (false, Some(a)) => {
                    out.push((a, s));
                    open = None;
                }
                _ => {}
            }
        }
        s0 += len;
    }
    if let Some(a) = open {
        out.push((a, s0));
    }
}

/// The width (at most `cap`) of the passage `f`'s path leads through from its anchor to
/// `ahead` metres in front of it: the least, over points of the path every metre (at most
/// [`MAX_ROOM_SAMPLES`] of them), of the free room square across the path on its left plus
/// on its right. A path need not run down the middle of a passage: across it, not round it,
/// is what two formations side by side must fit.
pub(super) fn passage_room(
    f: &Formation,
    map: &cohort_pathing::ValidMap,
    ahead: f32,
    cap: f32,
) -> f32 {
    if f.path.len() < 2 || !(ahead >= 0.0) {
        return cap;
    }
    let s = arc_length_at_anchor(f);
    let steps = (ahead.ceil() as usize).clamp(1, MAX_ROOM_SAMPLES);
    let mut least = cap;
    for k in 0..=steps {
        let at = s + ahead * (k as f32 / steps as f32);
        let p = point_at(&f.path, at);
        let across = (point_at(&f.path, at + 0.5) - point_at(&f.path, at - 0.5))
            .normalize_or_zero()
            .perp();
        if across == Vec2::ZERO {
            continue;
        }
        // Both runs start from the clearance at `p` and go on only from there: each is at
        // least that long (when it steps at all), so a sample at least twice that wide is
        // no narrower than the narrowest so far, and its runs are not taken.
        let first = map.clearance_capped(p, cap);
        if first > FREE_RUN_LEAST_STEP && first + first >= least {
            continue;
        }
        let width =
            free_run_from(map, p, across, cap, first) + free_run_from(map, p, -across, cap, first);
        least = least.min(width);
    }
    least
}

/// [`free_run`] from `p` along the finite unit direction `dir`, given the clearance at `p`
/// (at most `cap`): the same steps, the first of them already measured.
fn free_run_from(map: &cohort_pathing::ValidMap, p: Vec2, dir: Vec2, cap: f32, first: f32) -> f32 {
    let mut t = 0.0f32;
    let mut c = first;
    for step in 0..FREE_RUN_STEPS {
        if step > 0 {
            c = map.clearance_capped(p + dir * t, cap - t);
        }
        if !(c > FREE_RUN_LEAST_STEP) {
            break;
        }
        t += c;
        if t >= cap {
            return cap;
        }
    }
    t.min(cap)
}

/// How far (at most `cap`) one can go from `p` along the unit direction `dir` before meeting
/// an obstacle, by steps as long as the clearance where each starts (which never step over
/// one), at most [`FREE_RUN_STEPS`] of them.
pub(crate) fn free_run(map: &cohort_pathing::ValidMap, p: Vec2, dir: Vec2, cap: f32) -> f32 {
    // The first step's clearance, measured where every later step's is (at `t` along `dir`).
    let t = 0.0f32;
    free_run_from(map, p, dir, cap, map.clearance_capped(p + dir * t, cap - t))
}

/// Most steps [`free_run`] takes.
const FREE_RUN_STEPS: usize = 12;

/// Clearance (metres) below which [`free_run`] stops: it has met an obstacle.
const FREE_RUN_LEAST_STEP: f32 = 0.05;

/// Most clearance samples [`passage_room`] takes.
const MAX_ROOM_SAMPLES: usize = 48;

/// Most clearance samples taken to measure a passage's width.
const MAX_WIDTH_SAMPLES: usize = 512;

/// The point at arc length `s` along `path` (its ends outside it).
pub(super) fn point_at(path: &[Vec2], s: f32) -> Vec2 {
    let mut left = s.max(0.0);
    for w in path.windows(2) {
        let len = (w[1] - w[0]).length();
        if left <= len && len > 0.0 {
            return w[0].lerp(w[1], left / len);
        }
        left -= len;
    }
    path.last().copied().unwrap_or_default()
}

/// Whether a narrow stretch of the path lies within `ahead` in front of the anchor or `behind`
/// behind it (arc length along the path).
fn path_narrower_near(f: &Formation, ahead: f32, behind: f32) -> bool {
    narrows_near(f, ahead, behind).next().is_some()
}

/// The narrow stretches `(start, end)` (arc length along the path) that reach within `ahead`
/// in front of the anchor or `behind` behind it.
fn narrows_near(f: &Formation, ahead: f32, behind: f32) -> impl Iterator<Item = (f32, f32)> {
    let s = if f.path.len() < 2 {
        f32::NAN
    } else {
        arc_length_at_anchor(f)
    };
    // A NaN `s` (no path) passes none.
    f.narrows
        .iter()
        .copied()
        .filter(move |&(n0, n1)| n1 >= s - behind && n0 <= s + ahead)
}

/// Metres beside a file of its widest member that a formation passing an oncoming one needs
/// in the width it narrows to (its half of the passage, less half of `PASS_MARGIN`) to close
/// up as for a passage walked one way: for units of radius 0.5, passages narrower than 3.5 m.
/// (Not half a metre: the half of a 4 m corridor is exactly that, and rounding chose.)
const CRAMPED_SLACK: f32 = 0.25;

/// Largest half-width (metres) of the widest member (a unit's radius, a sub-formation's
/// half-width) of a formation whose ranks close up to `ValidPattern::narrowed_one_way`:
/// formations of larger units (vehicles; RVO2's Blocks has units of radius 2) and of
/// sub-formations keep `ValidPattern::narrowed`. With closer ranks, the squads of units of
/// radius 2 in copies of blocks_squads moved a few centimetres west were pressed against the
/// blocks' faces longer: 262 to 340 s and 20 to 51 units counted stuck, against 241 to
/// 252 s and 8 to 28.
const ONE_WAY_MAX_RADIUS: f32 = 1.0;

/// Metres short of its path's end within which a narrow stretch counts as reaching its goal.
const AT_GOAL: f32 = 1.0;

/// Whether a narrow stretch of the path within `ahead` in front of the anchor or `behind`
/// behind it runs on to the path's end: the formation will close on its goal in it rather
/// than walk through it (however long the stretch: the spacing chosen when it closes up is
/// kept to the goal).
fn narrows_reach_goal(f: &Formation, ahead: f32, behind: f32) -> bool {
    let end: f32 = f.path.windows(2).map(|w| (w[1] - w[0]).length()).sum();
    narrows_near(f, ahead, behind).any(|(_, n1)| n1 >= end - AT_GOAL)
}

/// The middle of the first narrow stretch of the formation's path that is not behind its
/// anchor and begins within `ahead` metres of it (arc length along the path), if any: where
/// the passage it is bound for lies, the way the path runs there (a unit vector) and half the
/// stretch's length along the path.
pub(super) fn passage_ahead(f: &Formation, ahead: f32) -> Option<(Vec2, Vec2, f32)> {
    if f.narrows.is_empty() || f.path.len() < 2 {
        return None;
    }
    let s = arc_length_at_anchor(f);
    f.narrows
        .iter()
        .find(|&&(n0, n1)| n1 >= s && n0 <= s + ahead)
        .map(|&(n0, n1)| {
            let mid = 0.5 * (n0 + n1);
            let way = point_at(&f.path, mid + 0.5) - point_at(&f.path, mid - 0.5);
            (
                point_at(&f.path, mid),
                way.normalize_or_zero(),
                (0.5 * (n1 - n0)).max(0.0),
            )
        })
}

/// Metres of path from the anchor's place on it to the far end of the last narrow stretch
/// that begins within `depth` ahead of the anchor and ends no more than `depth` behind it
/// (the passage its slots stand in or come to), if any.
pub(super) fn narrows_end_ahead(f: &Formation, depth: f32) -> Option<f32> {
    if f.path.len() < 2 {
        return None;
    }
    let s = arc_length_at_anchor(f);
    narrows_near(f, depth, depth)
        .map(|(_, n1)| n1 - s)
        .fold(None, |most: Option<f32>, e| {
            Some(most.map_or(e, |m| m.max(e)))
        })
}

/// Arc length along the formation's path of its anchor's projection on the current leg.
fn arc_length_at_anchor(f: &Formation) -> f32 {
    if f.path.len() < 2 {
        return 0.0;
    }
    let idx = f.path_index.clamp(1, f.path.len() - 1);
    let mut s = 0.0;
    for w in f.path[..idx].windows(2) {
        s += (w[1] - w[0]).length();
    }
    let (a, b) = (f.path[idx - 1], f.path[idx]);
    let dir = (b - a).normalize_or_zero();
    s + (f.anchor.position - a)
        .dot(dir)
        .clamp(0.0, (b - a).length())
}
