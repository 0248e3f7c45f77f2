//! Each to its own half: the units of a formation passing an oncoming one in a passage too
//! narrow for both keep to their side of the line between the two.
//!
//! Passing in a narrow passage (`make_way.rs`), both formations close up to their half of
//! it and step right, so their slots lie on either side of the passage. Their units do not
//! always: a member lagging many metres behind its slot (the ranks grew twice as deep when
//! they closed up) is held by the squad-mates ahead of it, and separation spreads such a
//! crowd across the whole passage. Two crowds spread so, walking into each other from both
//! ends of a passage one file wide for each, fill it and hold each other for good: nobody
//! can step aside, every unit is pressed by its own squad-mates from behind.
//!
//! So the units of a formation that narrows to pass keep to the right of its *lane edge*: the
//! line along its heading halfway between its anchor and the oncoming formation's. The edge
//! holds once the two have stepped aside far enough for that line to clear the formation's
//! own slots; before, it would squeeze ranks not yet closed up against their own
//! squad-mates (in 4 m corridors, where three units walk abreast until they close up, that
//! made the squads slower). A unit's velocity may take it towards the edge only as far as it
//! has room, closing the room over [`EDGE_TIME`]; one already over the edge walks back at the
//! speed that puts it back in that time (at most its top speed). The oncoming formation's
//! units keep to the other side of the line halfway between the two (along its own heading,
//! the same line when the two head exactly opposite ways), so the two files walk past each
//! other.
//! The steering stage applies it after avoidance (`world/units.rs`).

use cohort_steering::Vec2;

use crate::formation::{Formation, Motion};

/// Seconds over which a unit closes its room to the edge, or walks back over it.
const EDGE_TIME: f32 = 0.5;

/// A line the units of one formation keep to the right of (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneEdge {
    /// A point of the line.
    point: Vec2,
    /// The unit normal pointing over the line (to the formation's left).
    left: Vec2,
    /// How far along the formation's heading from [`Self::point`] the line holds: to the
    /// far end of the passage the two pass in (of the oncoming formation, when its path
    /// shows none). A unit beyond it is out of the passage, and the path beyond may turn
    /// across the line: a column one vehicle wide passing a squad waiting beyond the far
    /// mouth held its front units on the straight line while their slots lay round the turn
    /// beyond it, and nobody moved again.
    until: f32,
}

impl LaneEdge {
    /// The edge of formation `a`, moving and narrowing to pass `b` coming the other way;
    /// `None` when `a` is not moving, when the halfway line does not yet clear `a`'s own
    /// half-width (or `b` stands on `a`'s right), or when a value is not finite.
    pub(crate) fn between(a: &Formation, b: &Formation) -> Option<Self> {
        if a.motion != Motion::Moving {
            return None;
        }
        let left = a.anchor.orientation.perp();
        // Halfway to the oncoming anchor across `a`'s heading, once that is clear of `a`'s
        // own slots: while the two still step aside, an edge would squeeze ranks not yet
        // closed up against their own squad-mates.
        let across = (b.anchor.position - a.anchor.position).dot(left);
        let half_way = 0.5 * across;
        if !(half_way >= a.half_extent.y.abs()) {
            return None;
        }
        let forward = -left.perp();
        let until = crate::world::narrows::narrows_end_ahead(a, a.half_extent.x.abs())
            .unwrap_or_else(|| {
                (b.anchor.position - a.anchor.position).dot(forward) + b.half_extent.length()
            });
        let edge = Self {
            point: a.anchor.position + left * half_way,
            left,
            until,
        };
        (edge.point.is_finite()
            && edge.left.is_finite()
            && edge.left != Vec2::ZERO
            && edge.until.is_finite())
        .then_some(edge)
    }

    /// The velocity a unit of `radius` and top speed `max_speed` standing at `at` takes
    /// instead of `velocity`: its motion over the edge cut to the room it has (or turned
    /// back over it), the rest kept.
    pub(crate) fn keep(&self, at: Vec2, radius: f32, velocity: Vec2, max_speed: f32) -> Vec2 {
        // Beyond the far end of the passage (see `until`) the line no longer holds.
        let rel = at - self.point;
        if rel.dot(-self.left.perp()) > self.until {
            return velocity;
        }
        // How far the unit's left side is over the line (negative: its room).
        let over = rel.dot(self.left) + radius;
        let most = -over / EDGE_TIME;
        let towards = velocity.dot(self.left);
        if !(towards > most) {
            return velocity;
        }
        let kept = velocity - self.left * (towards - most);
        let kept = kept.clamp_length_max(max_speed.max(0.0));
        if kept.is_finite() { kept } else { velocity }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge() -> LaneEdge {
        // Heading +x, the edge along y = 1, the formation keeps below it.
        LaneEdge {
            point: Vec2::new(0.0, 1.0),
            left: Vec2::Y,
            until: 50.0,
        }
    }

    /// A moving formation of one file (half-width 0.5 m) at `at`, heading `facing`.
    fn file(at: Vec2, facing: Vec2) -> Formation {
        let mut f = Formation::new(
            String::new(),
            crate::Pattern::default().validate().expect("pattern"),
            crate::pattern::Role::Any,
            crate::formation::FormationSettings::default(),
            crate::anchor::AnchorPoint::at(at, facing),
        );
        f.motion = Motion::Moving;
        f.half_extent = Vec2::new(30.0, 0.5);
        f
    }

    #[test]
    fn the_edge_lies_halfway_once_the_two_have_stepped_clear_of_each_other() {
        // East along y = 29, the oncoming one along y = 31: the line y = 30.
        let (a, b) = (
            file(Vec2::new(0.0, 29.0), Vec2::X),
            file(Vec2::new(40.0, 31.0), -Vec2::X),
        );
        let edge = LaneEdge::between(&a, &b).expect("edge");
        assert_eq!(edge.left, Vec2::Y);
        assert!((edge.point.y - 30.0).abs() < 1e-6, "{edge:?}");
        let back = LaneEdge::between(&b, &a).expect("edge");
        assert!((back.point.y - 30.0).abs() < 1e-6, "{back:?}");
        assert!(back.left.y < -0.99, "{back:?}");
        // Not yet clear of each other (halfway lies within a's own file): no edge.
        let b = file(Vec2::new(40.0, 29.8), -Vec2::X);
        assert_eq!(LaneEdge::between(&a, &b), None);
        // Standing: no edge.
        let mut a = a;
        a.motion = Motion::Holding;
        assert_eq!(
            LaneEdge::between(&a, &file(Vec2::new(40.0, 31.0), -Vec2::X)),
            None
        );
    }

    #[test]
    fn the_edge_ends_at_the_passages_far_end() {
        // East along y = 29 on a path whose stretch from 10 to 50 m is narrow, the anchor at
        // its start: the line holds to 50 m ahead.
        let mut a = file(Vec2::new(0.0, 29.0), Vec2::X);
        a.path = vec![Vec2::new(0.0, 29.0), Vec2::new(100.0, 29.0)];
        a.path_index = 1;
        a.narrows = vec![(10.0, 50.0)];
        let b = file(Vec2::new(40.0, 31.0), -Vec2::X);
        let edge = LaneEdge::between(&a, &b).expect("edge");
        assert!((edge.until - 50.0).abs() < 1e-4, "{edge:?}");
        holds_to(&edge, 50.0);
    }

    /// Asserts that `edge` (of a formation heading +x, the line along y = 30) walks a unit
    /// over the line back 1 m short of `until` metres ahead, and leaves one 1 m beyond it
    /// alone.
    fn holds_to(edge: &LaneEdge, until: f32) {
        let v = Vec2::new(1.0, 0.5);
        assert!(edge.keep(Vec2::new(until - 1.0, 30.5), 0.5, v, 1.3).y < 0.0);
        assert_eq!(edge.keep(Vec2::new(until + 1.0, 30.5), 0.5, v, 1.3), v);
    }

    #[test]
    fn without_a_passage_on_its_path_the_edge_ends_at_the_oncoming_formations_far_end() {
        // East along y = 29, the oncoming one along y = 31 with its anchor 40 m ahead and a
        // half-extent of 30.0 m by 0.5 m (30.004 m long): the line holds to 70.004 m ahead.
        let (a, b) = (
            file(Vec2::new(0.0, 29.0), Vec2::X),
            file(Vec2::new(40.0, 31.0), -Vec2::X),
        );
        let edge = LaneEdge::between(&a, &b).expect("edge");
        assert!((edge.until - 70.004).abs() < 1e-3, "{edge:?}");
        holds_to(&edge, 70.0);
    }

    #[test]
    fn a_unit_with_room_keeps_its_velocity() {
        let v = Vec2::new(1.0, 0.2);
        assert_eq!(edge().keep(Vec2::new(0.0, -1.0), 0.5, v, 1.3), v);
        // Walking away from the edge is never cut.
        let v = Vec2::new(-0.3, -1.0);
        assert_eq!(edge().keep(Vec2::new(0.0, 0.9), 0.5, v, 1.3), v);
    }

    #[test]
    fn a_unit_near_the_edge_closes_its_room_over_the_edge_time() {
        // Its left side 0.25 m from the line: at most 0.5 m/s towards it.
        let kept = edge().keep(Vec2::new(0.0, 0.25), 0.5, Vec2::new(1.0, 1.0), 1.3);
        assert!((kept.y - 0.5).abs() < 1e-6, "{kept:?}");
        assert_eq!(kept.x, 1.0);
    }

    #[test]
    fn a_unit_over_the_edge_walks_back_within_its_top_speed() {
        // 0.2 m over: back at 0.4 m/s.
        let kept = edge().keep(Vec2::new(0.0, 0.7), 0.5, Vec2::new(1.0, 0.0), 1.3);
        assert!((kept.y + 0.4).abs() < 1e-6, "{kept:?}");
        // 2 m over: back at its top speed, whatever it wanted.
        let kept = edge().keep(Vec2::new(0.0, 2.5), 0.5, Vec2::new(1.0, 0.0), 1.3);
        assert!((kept.length() - 1.3).abs() < 1e-5, "{kept:?}");
        assert!(kept.y < -1.0, "{kept:?}");
    }
}
