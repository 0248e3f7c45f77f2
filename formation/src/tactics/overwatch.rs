//! Bounding overwatch over cover points (Millington's squad-based movement as a dynamic
//! formation pattern).
//!
//! Two or more squads (child formations of the ordered formation) advance along a route to a
//! goal. One squad *bounds*: its anchor moves slowly along the route, and its slots are the
//! cover points nearest that anchor that are covered from the threat; the others *overwatch*
//! from the cover they hold, facing the threat. When every member of the bounding squad has
//! settled in its cover, the next squad bounds past the lead, until all squads are at the goal.
//!
//! As the bounding anchor moves, the set of nearest covered points changes: a point that leaves
//! the set gives its slot to a point that arrives, and the member holding that slot is
//! reassigned to the new point ([`update_cover_slots`]).

use cohort_pathing::{CoverHit, ValidMap};
use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use crate::formation::Member;
use crate::ids::FormationId;

/// Tuning of a bounding-overwatch advance (plain data, defaults that work for man-sized
/// units).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OverwatchSettings {
    /// How far past the lead squad (along the route) each bound goes.
    pub bound_length: f32,
    /// Cover points farther than this from a squad's anchor are not in its set.
    pub cover_radius: f32,
    /// Speed of a bounding squad's anchor as a fraction of its slowest member's top speed (the
    /// anchor moves slowly compared to the members).
    pub anchor_speed_fraction: f32,
    /// A member is in its cover within this distance of the point.
    pub in_cover_distance: f32,
    /// ...and moving slower than this.
    pub settle_speed: f32,
    /// A bound that has not settled after this many seconds ends anyway (recorded as timed
    /// out).
    pub bound_timeout: f32,
    /// Spacing of the line members without a cover point stand in, behind their anchor.
    pub fallback_spacing: f32,
}

impl Default for OverwatchSettings {
    fn default() -> Self {
        Self {
            bound_length: 16.0,
            cover_radius: 9.0,
            anchor_speed_fraction: 0.4,
            in_cover_distance: 0.35,
            settle_speed: 0.25,
            bound_timeout: 60.0,
            fallback_spacing: 1.5,
        }
    }
}

impl OverwatchSettings {
    /// Checks the numbers: all finite and positive, the speed fraction at most 1.
    pub fn check(&self) -> Result<(), String> {
        let positive = [
            ("bound_length", self.bound_length),
            ("cover_radius", self.cover_radius),
            ("anchor_speed_fraction", self.anchor_speed_fraction),
            ("in_cover_distance", self.in_cover_distance),
            ("settle_speed", self.settle_speed),
            ("bound_timeout", self.bound_timeout),
            ("fallback_spacing", self.fallback_spacing),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0 && v <= 1.0e5) {
                return Err(format!("{name} must be in (0, 1e5], got {v}"));
            }
        }
        if self.anchor_speed_fraction > 1.0 {
            return Err("anchor_speed_fraction must be at most 1".into());
        }
        Ok(())
    }
}

/// One slot of a squad: the cover point it stands on (or none), the member holding it, and its
/// world position.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoverSlot {
    /// Index into the map's cover points; `None` for a fallback place in the open.
    pub cover: Option<usize>,
    /// The member holding the slot.
    pub member: Option<Member>,
    /// Where the slot is.
    pub position: Vec2,
}

/// What a squad is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SquadRole {
    /// Moving into the first cover before the advance starts.
    #[default]
    TakingCover,
    /// Holding cover, facing the threat.
    Overwatching,
    /// Moving to the next set of cover points.
    Bounding,
}

/// A squad of a bounding-overwatch advance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SquadRun {
    /// The squad formation.
    pub formation: FormationId,
    /// What it is doing.
    pub role: SquadRole,
    /// Distance of its anchor along the route.
    pub progress: f32,
    /// Where its current bound ends (arc length).
    pub target: f32,
    /// Sideways offset of its anchor from the route (left positive).
    pub lateral: f32,
    /// Its anchor (moves slowly along the route while bounding).
    pub anchor: Vec2,
    /// Velocity of the anchor.
    pub velocity: Vec2,
    /// Its slots.
    pub slots: Vec<CoverSlot>,
}

/// A finished bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundRecord {
    /// Index of the squad in [`OverwatchRun::squads`].
    pub squad: usize,
    /// World tick at which it ended.
    pub tick: u64,
    /// Route distance of the bound's end.
    pub to: f32,
    /// Whether it ended by timeout rather than with everyone settled in cover.
    pub timed_out: bool,
}

/// The running state of a bounding-overwatch advance (serialized with the world).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverwatchRun {
    pub(crate) goal: Vec2,
    pub(crate) threat: Vec2,
    pub(crate) settings: OverwatchSettings,
    pub(crate) route: Vec<Vec2>,
    pub(crate) route_length: f32,
    pub(crate) squads: Vec<SquadRun>,
    pub(crate) next_squad: usize,
    pub(crate) bounds: Vec<BoundRecord>,
    pub(crate) bound_time: f32,
    pub(crate) finished: bool,
}

impl OverwatchRun {
    /// The goal.
    pub fn goal(&self) -> Vec2 {
        self.goal
    }

    /// The threat the squads take cover from and face.
    pub fn threat(&self) -> Vec2 {
        self.threat
    }

    /// The route the squads advance along (start to goal).
    pub fn route(&self) -> &[Vec2] {
        &self.route
    }

    /// Length of the route.
    pub fn route_length(&self) -> f32 {
        self.route_length
    }

    /// The squads.
    pub fn squads(&self) -> &[SquadRun] {
        &self.squads
    }

    /// The squad bounding now, if any.
    pub fn bounding(&self) -> Option<usize> {
        self.squads
            .iter()
            .position(|s| s.role == SquadRole::Bounding)
    }

    /// The bounds finished so far, in order.
    pub fn bounds(&self) -> &[BoundRecord] {
        &self.bounds
    }

    /// Whether every squad has reached the goal and settled.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

/// The point at arc length `s` of `route` and the unit direction of its leg there.
pub fn route_point(route: &[Vec2], s: f32) -> (Vec2, Vec2) {
    let Some(&first) = route.first() else {
        return (Vec2::ZERO, Vec2::X);
    };
    let mut left = s.max(0.0);
    let mut dir = Vec2::X;
    for w in route.windows(2) {
        let leg = w[1] - w[0];
        let len = leg.length();
        if let Some(d) = leg.try_normalize() {
            dir = d;
        }
        if left <= len {
            return (w[0] + dir * left, dir);
        }
        left -= len;
    }
    (*route.last().unwrap_or(&first), dir)
}

/// Length of a polyline.
pub fn route_length(route: &[Vec2]) -> f32 {
    route.windows(2).map(|w| (w[1] - w[0]).length()).sum()
}

/// Arc length of the point of `route` closest to `p`.
pub fn project_on_route(route: &[Vec2], p: Vec2) -> f32 {
    let mut best = (f32::INFINITY, 0.0);
    let mut walked = 0.0;
    for w in route.windows(2) {
        let leg = w[1] - w[0];
        let len2 = leg.length_squared();
        let t = if len2 > 0.0 {
            ((p - w[0]).dot(leg) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = w[0] + leg * t;
        let d = (p - q).length_squared();
        if d < best.0 {
            best = (d, walked + len2.sqrt() * t);
        }
        walked += len2.sqrt();
    }
    best.1
}

/// Where a squad looks for cover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoverQuery {
    /// The squad's anchor.
    pub center: Vec2,
    /// The threat the points must be covered from.
    pub threat: Vec2,
    /// Largest distance of a point from the anchor.
    pub radius: f32,
    /// Spacing of the fallback line for slots without a point.
    pub spacing: f32,
}

/// Updates a squad's slots to the cover points nearest `center` that are covered from
/// `threat` by their own obstacle (it lies toward the threat), within `radius`, not in `claimed` (points other squads hold). Slots whose point is
/// still in the set keep it; a point that left the set gives its slot to an arriving point —
/// the one nearest the member holding that slot — and slots left without a point stand in a
/// line behind `center`, away from the threat (see [`CoverQuery`]). `positions[i]` is where the holder of slot `i`
/// is. Returns the number of slots whose point changed.
pub fn update_cover_slots(
    map: &ValidMap,
    query: &CoverQuery,
    claimed: &[usize],
    positions: &[Vec2],
    slots: &mut [CoverSlot],
) -> usize {
    let mut buffers = CoverBuffers::default();
    update_cover_slots_in(map, query, claimed, positions, slots, &mut buffers)
}

/// Buffers of [`update_cover_slots_in`], reused across updates (they keep their capacity).
#[derive(Clone, Debug, Default)]
pub struct CoverBuffers {
    set: Vec<CoverHit>,
    vacated: Vec<usize>,
    held: Vec<usize>,
}

/// [`update_cover_slots`] with its working sets in `buffers`: once they have grown, an update
/// makes no allocation. Same result.
pub fn update_cover_slots_in(
    map: &ValidMap,
    query: &CoverQuery,
    claimed: &[usize],
    positions: &[Vec2],
    slots: &mut [CoverSlot],
    buffers: &mut CoverBuffers,
) -> usize {
    let CoverQuery {
        center,
        threat,
        radius,
        spacing,
    } = *query;
    let k = slots.len();
    let CoverBuffers { set, vacated, held } = buffers;
    map.cover_near_into(center, radius, threat, set);
    // Only points whose own obstacle is between them and the threat: a point on the far side
    // of a wall is not cover just because something else, farther off, blocks the view.
    set.retain(|h| {
        let to_threat = (threat - h.point.position).normalize_or_zero();
        !claimed.contains(&h.index) && h.point.protects_from.dot(to_threat) > 0.0
    });
    set.truncate(k);
    let in_set = |c: usize| set.iter().any(|h| h.index == c);
    vacated.clear();
    for (i, slot) in slots.iter_mut().enumerate() {
        match slot.cover {
            Some(c) if in_set(c) => {}
            _ => vacated.push(i),
        }
    }
    held.clear();
    held.extend(slots.iter().filter_map(|s| s.cover));
    let mut changed = 0;
    for hit in set.iter().filter(|h| !held.contains(&h.index)) {
        // The vacated slot whose holder is nearest the arriving point takes it.
        let best = vacated
            .iter()
            .enumerate()
            .map(|(j, &i)| {
                let from = positions.get(i).copied().unwrap_or(slots[i].position);
                (j, (from - hit.point.position).length_squared())
            })
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let Some((j, _)) = best else {
            break;
        };
        let i = vacated.remove(j);
        if slots[i].cover != Some(hit.index) {
            changed += 1;
        }
        slots[i].cover = Some(hit.index);
        slots[i].position = hit.point.position;
    }
    // No cover left for these: a line behind the anchor, across the threat direction.
    let back = (center - threat).try_normalize().unwrap_or(-Vec2::X);
    let across = back.perp();
    let n = vacated.len();
    for (j, &i) in vacated.iter().enumerate() {
        let side = j as f32 - 0.5 * (n as f32 - 1.0);
        let p = center + back * spacing + across * (side * spacing);
        if slots[i].cover.is_some() || slots[i].position != p {
            changed += 1;
        }
        slots[i].cover = None;
        slots[i].position = p;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_pathing::{CoverPoint, Map};

    fn map() -> ValidMap {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 40.0));
        // A wall of cover points every 2 units along y = 10, x = 10..40, protected from +y.
        for k in 0..16 {
            m.cover_points.push(CoverPoint {
                position: Vec2::new(10.0 + 2.0 * k as f32, 10.0),
                protects_from: Vec2::Y,
            });
        }
        m.walls
            .push(cohort_steering::Wall::new(Vec2::new(5.0, 11.0), Vec2::new(50.0, 11.0)).unwrap());
        m.validate().unwrap()
    }

    fn q(center: Vec2, threat: Vec2, radius: f32) -> CoverQuery {
        CoverQuery {
            center,
            threat,
            radius,
            spacing: 1.5,
        }
    }

    fn slots(n: usize) -> Vec<CoverSlot> {
        vec![
            CoverSlot {
                cover: None,
                member: None,
                position: Vec2::ZERO,
            };
            n
        ]
    }

    #[test]
    fn route_helpers() {
        let r = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)];
        assert_eq!(route_length(&r), 20.0);
        let (p, d) = route_point(&r, 15.0);
        assert!((p - Vec2::new(10.0, 5.0)).length() < 1e-6 && d == Vec2::Y);
        assert_eq!(route_point(&r, 99.0).0, Vec2::new(10.0, 10.0));
        assert!((project_on_route(&r, Vec2::new(12.0, 4.0)) - 14.0).abs() < 1e-5);
        assert_eq!(route_point(&[], 1.0).0, Vec2::ZERO);
    }

    #[test]
    fn nearest_covered_points_become_the_slots() {
        let m = map();
        let threat = Vec2::new(25.0, 35.0);
        let mut s = slots(3);
        let pos = [Vec2::new(14.0, 5.0); 3];
        let changed =
            update_cover_slots(&m, &q(Vec2::new(14.0, 8.0), threat, 6.0), &[], &pos, &mut s);
        assert_eq!(changed, 3);
        let mut xs: Vec<f32> = s.iter().map(|c| c.position.x).collect();
        xs.sort_by(f32::total_cmp);
        assert_eq!(xs, vec![12.0, 14.0, 16.0]);
        for c in &s {
            assert!(m.is_covered(&m.cover_points()[c.cover.unwrap()], threat));
        }
    }

    #[test]
    fn a_leaving_point_hands_its_slot_to_the_arriving_one() {
        let m = map();
        let threat = Vec2::new(25.0, 35.0);
        let mut s = slots(3);
        let pos0 = [Vec2::new(14.0, 8.0); 3];
        update_cover_slots(
            &m,
            &q(Vec2::new(14.0, 8.0), threat, 6.0),
            &[],
            &pos0,
            &mut s,
        );
        let before = s.clone();
        // The anchor moves 2 to the right: the point at x = 12 leaves, x = 18 arrives.
        let pos: Vec<Vec2> = s.iter().map(|c| c.position).collect();
        let changed =
            update_cover_slots(&m, &q(Vec2::new(16.0, 8.0), threat, 6.0), &[], &pos, &mut s);
        assert_eq!(changed, 1);
        for (b, a) in before.iter().zip(&s) {
            if b.position.x == 12.0 {
                assert_eq!(a.position.x, 18.0, "the slot of the leaving point moved");
            } else {
                assert_eq!(a, b, "the other slots kept their points");
            }
        }
    }

    #[test]
    fn claimed_points_are_skipped_and_missing_cover_falls_back_behind() {
        let m = map();
        let threat = Vec2::new(25.0, 35.0);
        let mut s = slots(4);
        let pos = [Vec2::new(12.0, 8.0); 4];
        // Points 0 and 1 (x = 10, 12) are held by another squad; the radius holds only 3 more.
        let changed = update_cover_slots(
            &m,
            &q(Vec2::new(12.0, 8.0), threat, 4.5),
            &[0, 1],
            &pos,
            &mut s,
        );
        assert_eq!(changed, 4);
        let covered: Vec<_> = s.iter().filter_map(|c| c.cover).collect();
        assert!(covered.iter().all(|&c| c >= 2), "{covered:?}");
        assert_eq!(covered.len(), 2);
        let open: Vec<_> = s.iter().filter(|c| c.cover.is_none()).collect();
        assert_eq!(open.len(), 2);
        for c in open {
            // Behind the anchor, away from the threat (threat is +y, so below y = 8).
            assert!(c.position.y < 8.0, "{c:?}");
        }
    }

    #[test]
    fn settings_check() {
        assert!(OverwatchSettings::default().check().is_ok());
        let bad = OverwatchSettings {
            bound_length: f32::NAN,
            ..OverwatchSettings::default()
        };
        assert!(bad.check().is_err());
        let bad = OverwatchSettings {
            anchor_speed_fraction: 2.0,
            ..OverwatchSettings::default()
        };
        assert!(bad.check().is_err());
    }
}
