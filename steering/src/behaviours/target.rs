//! Plain-data description of another moving thing (a pursued evader, a hunter, a leader), so
//! behaviours can be driven by data that is not a full [`Body`].

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::body::Body;

/// Where another agent is, how it moves and where it faces: everything pursuit, evade, hide,
/// offset pursuit and interpose need to know about it.
///
/// Build it from a [`Body`] (`MovingTarget::from(&body)`; every behaviour taking
/// `impl Into<MovingTarget>` also accepts `&Body` directly) or from plain data with
/// [`MovingTarget::new`] / [`MovingTarget::point`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MovingTarget {
    /// Position in world units.
    pub position: Vec2,
    /// Velocity in world units per second.
    pub velocity: Vec2,
    /// Unit facing direction (may be zero when unknown; see [`MovingTarget::facing`]).
    pub heading: Vec2,
}

impl Default for MovingTarget {
    /// A still point at the origin facing +x.
    fn default() -> Self {
        Self {
            position: Vec2::ZERO,
            velocity: Vec2::ZERO,
            heading: Vec2::X,
        }
    }
}

impl MovingTarget {
    /// A target at `position` moving with `velocity`, facing along the velocity (zero heading
    /// when the velocity is zero or not finite).
    pub fn new(position: Vec2, velocity: Vec2) -> Self {
        Self {
            position,
            velocity,
            heading: velocity.try_normalize().unwrap_or(Vec2::ZERO),
        }
    }

    /// A still target at `position` with no facing.
    pub fn point(position: Vec2) -> Self {
        Self::new(position, Vec2::ZERO)
    }

    /// Speed of the target (0 when the velocity is not finite).
    #[inline]
    pub fn speed(&self) -> f32 {
        let s = self.velocity.length();
        if s.is_finite() { s } else { 0.0 }
    }

    /// The unit facing direction: `heading` when it is a usable direction, else the
    /// direction of the velocity, else `None`.
    #[inline]
    pub fn facing(&self) -> Option<Vec2> {
        self.heading
            .try_normalize()
            .or_else(|| self.velocity.try_normalize())
    }

    /// Whether position and velocity are both finite (behaviours return zero otherwise).
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.velocity.is_finite()
    }

    /// Where the target will be after `t` seconds at its current velocity.
    #[inline]
    pub fn predict(&self, t: f32) -> Vec2 {
        self.position + self.velocity * t
    }

    /// Converts a point in the target's local frame (+x along its facing, +y to its left)
    /// into world space. A target without a facing uses +x.
    #[inline]
    pub fn to_world(&self, local: Vec2) -> Vec2 {
        let h = self.facing().unwrap_or(Vec2::X);
        self.position + h * local.x + h.perp() * local.y
    }
}

impl From<&Body> for MovingTarget {
    fn from(body: &Body) -> Self {
        Self {
            position: body.position,
            velocity: body.velocity,
            heading: body.heading,
        }
    }
}

impl From<Body> for MovingTarget {
    fn from(body: Body) -> Self {
        Self::from(&body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_body_and_plain_data() {
        let b = Body::default().facing(Vec2::Y).moving(Vec2::new(0.0, 2.0));
        let t = MovingTarget::from(&b);
        assert_eq!(t.heading, Vec2::Y);
        assert_eq!(t.speed(), 2.0);
        assert_eq!(t.predict(1.5), Vec2::new(0.0, 3.0));
        let p = MovingTarget::point(Vec2::ONE);
        assert_eq!(p.facing(), None);
        let m = MovingTarget::new(Vec2::ZERO, Vec2::new(0.0, -4.0));
        assert_eq!(m.facing(), Some(-Vec2::Y));
        // Local +x is the facing, +y its left.
        let w = m.to_world(Vec2::new(1.0, 2.0));
        assert!((w - Vec2::new(2.0, -1.0)).length() < 1e-6);
    }

    #[test]
    fn round_trips_through_ron() {
        let t = MovingTarget::new(Vec2::new(1.0, 2.0), Vec2::new(3.0, 0.0));
        let s = ron::to_string(&t).unwrap();
        let back: MovingTarget = ron::from_str(&s).unwrap();
        assert_eq!(back, t);
    }
}
