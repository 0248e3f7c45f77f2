//! Hide: put an obstacle between the body and a hunter.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::behaviours::pursuit::evade;
use crate::behaviours::seek::{ArriveParams, arrive};
use crate::behaviours::target::MovingTarget;
use crate::body::Body;
use crate::geometry::CircleObstacle;

/// Tuning of [`hide`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HideParams {
    /// How far beyond an obstacle's edge the hiding spot is.
    pub distance_from_boundary: f32,
    /// How to arrive at the hiding spot.
    pub arrive: ArriveParams,
    /// Panic distance of the evade used when there is nowhere to hide (`f32::INFINITY`:
    /// always evade).
    pub evade_panic_distance: f32,
}

impl Default for HideParams {
    /// One unit beyond the edge, fast arrival, evade within 20 units.
    fn default() -> Self {
        Self {
            distance_from_boundary: 1.0,
            arrive: ArriveParams::with(crate::behaviours::seek::Deceleration::Fast),
            evade_panic_distance: 20.0,
        }
    }
}

/// The spot behind `obstacle` as seen from `hunter`: the obstacle's centre plus the unit
/// direction from the hunter to the centre times `obstacle.radius + distance_from_boundary`.
/// `None` when the hunter is at the centre or the input is not finite.
pub fn hiding_spot(
    obstacle: &CircleObstacle,
    hunter: Vec2,
    distance_from_boundary: f32,
) -> Option<Vec2> {
    let dir = (obstacle.center - hunter).try_normalize()?;
    let spot = obstacle.center + dir * (obstacle.radius + distance_from_boundary.max(0.0));
    spot.is_finite().then_some(spot)
}

/// The hiding spot nearest to `body` over all obstacles, if any (ties go to the earlier
/// obstacle).
pub fn best_hiding_spot(
    body: &Body,
    hunter: Vec2,
    obstacles: &[CircleObstacle],
    distance_from_boundary: f32,
) -> Option<Vec2> {
    obstacles
        .iter()
        .filter_map(|ob| hiding_spot(ob, hunter, distance_from_boundary))
        .fold(None, |best: Option<(f32, Vec2)>, spot| {
            let d = spot.distance_squared(body.position);
            match best {
                Some((bd, _)) if bd <= d => best,
                _ => Some((d, spot)),
            }
        })
        .map(|(_, spot)| spot)
}

/// Hides from `hunter`: arrives at the nearest [`hiding_spot`]; with no usable obstacle,
/// evades the hunter instead (within `params.evade_panic_distance`).
///
/// Zero when the hunter is not finite.
pub fn hide(
    body: &Body,
    hunter: impl Into<MovingTarget>,
    obstacles: &[CircleObstacle],
    params: &HideParams,
) -> Vec2 {
    let hunter = hunter.into();
    if !hunter.is_finite() {
        return Vec2::ZERO;
    }
    match best_hiding_spot(
        body,
        hunter.position,
        obstacles,
        params.distance_from_boundary,
    ) {
        Some(spot) => arrive(body, spot, &params.arrive),
        None => evade(body, hunter, params.evade_panic_distance),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};
    use crate::geometry::segment_hits_circle;

    fn circle(x: f32, y: f32, r: f32) -> CircleObstacle {
        CircleObstacle::new(Vec2::new(x, y), r).unwrap()
    }

    #[test]
    fn spot_is_behind_obstacle_from_hunter() {
        let ob = circle(5.0, 0.0, 2.0);
        let spot = hiding_spot(&ob, Vec2::ZERO, 1.0).unwrap();
        assert!((spot - Vec2::new(8.0, 0.0)).length() < 1e-6);
        assert_eq!(hiding_spot(&ob, Vec2::new(5.0, 0.0), 1.0), None);
    }

    #[test]
    fn picks_nearest_spot_and_arrives_there() {
        let hunter = Vec2::ZERO;
        let obs = [circle(5.0, 0.0, 1.0), circle(0.0, -5.0, 1.0)];
        // Body near the second obstacle's spot (0, -7).
        let b = body_at(Vec2::new(1.0, -9.0));
        let spot = best_hiding_spot(&b, hunter, &obs, 1.0).unwrap();
        assert!((spot - Vec2::new(0.0, -7.0)).length() < 1e-5);
        let p = HideParams::default();
        assert_eq!(
            hide(&b, MovingTarget::point(hunter), &obs, &p),
            arrive(&b, spot, &p.arrive)
        );
    }

    #[test]
    fn ends_hidden_behind_obstacle() {
        let hunter = Vec2::new(-6.0, 1.0);
        let obs = [circle(0.0, 0.0, 1.5)];
        let mut b = body_at(Vec2::new(-2.0, 6.0));
        for _ in 0..(15.0 / DT) as usize {
            let f = hide(
                &b,
                MovingTarget::point(hunter),
                &obs,
                &HideParams::default(),
            );
            step(&mut b, f, DT);
        }
        assert!(segment_hits_circle(
            hunter,
            b.position,
            obs[0].center,
            obs[0].radius
        ));
        assert!(b.speed() < 0.05);
    }

    #[test]
    fn evades_when_nowhere_to_hide() {
        let b = body_at(Vec2::ZERO);
        let hunter = MovingTarget::new(Vec2::new(3.0, 0.0), Vec2::new(-1.0, 0.0));
        let p = HideParams::default();
        let f = hide(&b, hunter, &[], &p);
        assert_eq!(f, evade(&b, hunter, p.evade_panic_distance));
        assert!(f.x < 0.0);
        assert_eq!(
            hide(&b, MovingTarget::point(Vec2::NAN), &[], &p),
            Vec2::ZERO
        );
    }
}
