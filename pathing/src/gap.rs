//! Hole fillers: jumpable gaps, and the jump detector that replaces obstacle avoidance in front
//! of one (run at it at full speed, leap just before the edge, from any point along it).

use cohort_steering::Body;
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{PathingError, positive};
use crate::jump::{JumpAbility, JumpEvent, JumpRefusal, JumpSource};
use crate::polygon::PolygonObstacle;
use crate::valid_map::ValidMap;

/// An invisible "jumpable gap" region filling a hole (a chasm, a trench): units cannot walk on
/// it but may leap across it from any point of its edge.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JumpableGap {
    /// The region's outline, convex or simple.
    pub points: Vec<Vec2>,
}

impl JumpableGap {
    /// The outline as a polygon.
    pub fn polygon(&self) -> PolygonObstacle {
        PolygonObstacle {
            points: self.points.clone(),
        }
    }
}

/// Settings of the jump detector.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpDetector {
    /// How far ahead (along the velocity) gaps are looked for, in world units.
    pub look_ahead: f32,
    /// The unit leaps when the edge is this close (its front, not its centre).
    pub leap_distance: f32,
    /// Extra distance the leap must clear beyond the far edge.
    pub landing_margin: f32,
}

impl Default for JumpDetector {
    /// Looks 8 ahead, leaps 0.3 before the edge, lands 0.5 beyond the far edge.
    fn default() -> Self {
        Self {
            look_ahead: 8.0,
            leap_distance: 0.3,
            landing_margin: 0.5,
        }
    }
}

impl JumpDetector {
    /// Checks every value: finite and positive.
    pub fn check(&self) -> Result<(), PathingError> {
        positive("look ahead", self.look_ahead)?;
        positive("leap distance", self.leap_distance)?;
        positive("landing margin", self.landing_margin)?;
        Ok(())
    }
}

/// What the jump detector tells a unit about the gap ahead.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum GapResponse {
    /// No gap ahead: steer as usual.
    Clear,
    /// A jumpable gap ahead: run straight at it at full speed.
    RunUp {
        /// Which gap.
        gap: usize,
        /// Where the unit's path meets the near edge.
        edge: Vec2,
        /// Distance from the unit's front to the edge.
        distance: f32,
        /// The velocity to steer to (full speed, straight on).
        desired_velocity: Vec2,
    },
    /// Leap now; the world emits this event as the unit leaves the ground.
    Leap(JumpEvent),
    /// The gap ahead cannot be jumped (too wide for this unit, or it is too slow to make it
    /// with the run-up left): avoid it like an obstacle.
    Avoid {
        /// Which gap.
        gap: usize,
        /// Where the unit's path meets the near edge.
        edge: Vec2,
        /// Why the unit does not jump.
        reason: JumpRefusal,
    },
}

/// The jump detector: looks along the body's velocity (its heading when standing) for the first
/// jumpable gap within `look_ahead`. A gap the unit can clear at full speed (its width along the
/// direction of travel plus the landing margin within the flat jump range) gives a run-up at full
/// speed, then a leap once the edge is within `leap_distance` of the unit's front, provided the
/// unit already runs fast enough; otherwise the gap is to be avoided.
pub fn detect_gap(
    map: &ValidMap,
    body: &Body,
    ability: &JumpAbility,
    detector: &JumpDetector,
) -> GapResponse {
    let dir = body
        .velocity
        .try_normalize()
        .or_else(|| body.heading.try_normalize());
    let Some(dir) = dir else {
        return GapResponse::Clear;
    };
    if !body.position.is_finite() || detector.check().is_err() {
        return GapResponse::Clear;
    }
    let Some((gap, enter, exit)) = first_gap(map, body.position, dir, detector.look_ahead) else {
        return GapResponse::Clear;
    };
    let edge = body.position + dir * enter;
    let distance = (enter - body.radius).max(0.0);
    let Some(flight) = ability.flight_time(0.0) else {
        return GapResponse::Avoid {
            gap,
            edge,
            reason: JumpRefusal::InvalidAbility,
        };
    };
    // From a take-off at the edge to touching down past the far edge plus the margin.
    let span = (exit - enter) + detector.landing_margin + distance.min(detector.leap_distance);
    let required_speed = span / flight;
    if required_speed > ability.max_run_speed {
        return GapResponse::Avoid {
            gap,
            edge,
            reason: JumpRefusal::TooFar {
                required_speed,
                max_speed: ability.max_run_speed,
            },
        };
    }
    let speed_along = body.velocity.dot(dir);
    if distance <= detector.leap_distance {
        if speed_along < required_speed {
            return GapResponse::Avoid {
                gap,
                edge,
                reason: JumpRefusal::TooFar {
                    required_speed,
                    max_speed: speed_along.max(0.0),
                },
            };
        }
        let velocity = dir * speed_along;
        return GapResponse::Leap(JumpEvent {
            source: JumpSource::Gap(gap),
            position: body.position,
            velocity,
            vertical_speed: ability.jump_speed,
            flight_time: flight,
            landing: body.position + velocity * flight,
        });
    }
    GapResponse::RunUp {
        gap,
        edge,
        distance,
        desired_velocity: dir * ability.max_run_speed,
    }
}

/// The first gap the ray from `origin` along unit `dir` enters within `reach`: its index, and
/// the distances where the ray enters and leaves it (the lowest index among gaps entered at the
/// same distance). Only gaps the broad phase lists near the first `reach` of the ray are
/// looked at, and their outlines through their edge index.
fn first_gap(map: &ValidMap, origin: Vec2, dir: Vec2, reach: f32) -> Option<(usize, f32, f32)> {
    let mut best: Option<(usize, f32, f32)> = None;
    let mut ts = Vec::new();
    map.gaps_near_segment(origin, origin + dir * reach, |i| {
        if best.is_some_and(|b| b.0 == i) {
            // Listed in another cell as well: already measured.
            return false;
        }
        let (lo, hi) = map.gap_bounds(i);
        // Cast far enough to find the far edge of any gap entered within reach.
        let far = reach + (hi - lo).length();
        let end = origin + dir * far;
        if end.min(origin).cmple(hi).all() && end.max(origin).cmpge(lo).all() {
            map.gap_crossings(i, origin, end, &mut ts);
            let inside = map.gap_contains(i, origin);
            let (enter, exit) = if inside {
                (0.0, ts.first().map(|c| c.0))
            } else {
                (
                    ts.first().map_or(f32::INFINITY, |c| c.0),
                    ts.get(1).map(|c| c.0),
                )
            };
            let (enter, exit) = (enter * far, exit.map_or(far, |t| t * far));
            if enter <= reach && best.is_none_or(|b| enter < b.1 || (enter == b.1 && i < b.0)) {
                best = Some((i, enter, exit));
            }
        }
        false
    });
    best
}

#[cfg(test)]
mod index_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Map;

    /// A 3-wide trench across the map at x in 10..13.
    fn trench(width: f32) -> ValidMap {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 20.0));
        m.gaps.push(JumpableGap {
            points: vec![
                Vec2::new(10.0, 0.0),
                Vec2::new(10.0 + width, 0.0),
                Vec2::new(10.0 + width, 20.0),
                Vec2::new(10.0, 20.0),
            ],
        });
        m.validate().unwrap()
    }

    fn runner(x: f32, y: f32, vx: f32, vy: f32) -> Body {
        Body::new(Vec2::new(x, y), 0.5, 6.0, 10.0)
            .unwrap()
            .moving(Vec2::new(vx, vy))
    }

    #[test]
    fn runs_up_then_leaps_from_any_point_of_the_edge() {
        let map = trench(3.0);
        let ability = JumpAbility::new(6.0, 5.0, 10.0).unwrap();
        let det = JumpDetector::default();
        match detect_gap(&map, &runner(5.0, 4.0, 2.0, 0.0), &ability, &det) {
            GapResponse::RunUp {
                gap,
                edge,
                distance,
                desired_velocity,
            } => {
                assert_eq!(gap, 0);
                assert!((edge - Vec2::new(10.0, 4.0)).length() < 1e-4);
                assert!((distance - 4.5).abs() < 1e-4);
                assert!((desired_velocity - Vec2::new(6.0, 0.0)).length() < 1e-5);
            }
            other => panic!("{other:?}"),
        }
        // At the edge (front 0.2 away), at full speed, at two different places along it.
        for y in [2.0, 17.0] {
            match detect_gap(&map, &runner(9.3, y, 6.0, 0.0), &ability, &det) {
                GapResponse::Leap(ev) => {
                    assert_eq!(ev.source, JumpSource::Gap(0));
                    assert!((ev.position - Vec2::new(9.3, y)).length() < 1e-6);
                    // 1 s at 6 m/s: lands at x = 15.3, past the far edge at 13.
                    assert!(ev.landing.x > 13.0 + det.landing_margin);
                }
                other => panic!("{other:?}"),
            }
        }
        // Too slow at the edge: avoid rather than fall in.
        assert!(matches!(
            detect_gap(&map, &runner(9.3, 2.0, 1.0, 0.0), &ability, &det),
            GapResponse::Avoid { .. }
        ));
        // Moving away or parallel: nothing.
        assert_eq!(
            detect_gap(&map, &runner(5.0, 4.0, -2.0, 0.0), &ability, &det),
            GapResponse::Clear
        );
        assert_eq!(
            detect_gap(&map, &runner(5.0, 4.0, 0.0, 2.0), &ability, &det),
            GapResponse::Clear
        );
    }

    #[test]
    fn too_wide_gaps_are_avoided() {
        let map = trench(7.0);
        let ability = JumpAbility::new(6.0, 5.0, 10.0).unwrap();
        match detect_gap(
            &map,
            &runner(5.0, 4.0, 2.0, 0.0),
            &ability,
            &JumpDetector::default(),
        ) {
            GapResponse::Avoid {
                reason: JumpRefusal::TooFar { .. },
                gap: 0,
                ..
            } => {}
            other => panic!("{other:?}"),
        }
    }
}
