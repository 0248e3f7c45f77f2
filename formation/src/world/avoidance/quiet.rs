//! When a unit's avoidance can leave out the solver: every neighbour's half-plane provably
//! permits the velocity the unit prefers.
//!
//! Avoidance keeps the velocity steering gave a unit unless the solver's linear program
//! moved the preferred velocity (some neighbour's half-plane left it out) or the right-hand
//! rule tilted it. The program starts from the preferred velocity (clamped to the speed
//! limit) and moves it only onto a half-plane that excludes it, so when every half-plane
//! permits it, the solve is thrown away. In a marching army that is most units most of the
//! time: the units of neighbouring formations keep their distance and move alike. This
//! module tells, from a few products per neighbour, that a neighbour's half-plane permits
//! the preferred velocity, with a margin far beyond the rounding of the solver's own
//! arithmetic, so leaving the solve out gives bit for bit what solving would.
//!
//! The bound. Let `ρ = (d - R) / τ` for a neighbour at offset `o` (distance `d`), combined
//! radius `R`, time horizon `τ`: no velocity of the velocity obstacle is shorter than `ρ`.
//! While the relative velocity `v_rel` is shorter than `ρ d / (d + R)` (less than `ρ`):
//! the pair closes more slowly than its gap over the horizon, so the right-hand rule does not
//! shift it; the boundary point `p` the solver seeks lies on the cut-off circle (its first
//! case), centred on `c = o / τ`, and with `n` the outward normal there (the direction from
//! `c` to `v_rel`), `(p - v_rel)·n <= -ρ + |v_rel|`, and `n` is within `2 |v_rel| / |c|` of
//! `-o / d`. The half-plane is `{v : (v - v_A - s (p - v_rel))·n >= 0}` (`v_A` the unit's
//! velocity, `s` its share), so it holds the program's start `v_A + Δ` whenever
//! `-Δ·o / d - |Δ| 2 |v_rel| / |c| >= -s (ρ - |v_rel|)`: a unit may speed up or turn away
//! from a neighbour freely, and towards it by less than its share of the room.

use cohort_steering::Vec2;

/// Margin of the bound, relative to the size of the velocities and distances involved
/// (over a thousand times the rounding error of the solver's `f32` arithmetic).
const SLACK: f32 = 1e-3;

/// What every neighbour's test of one unit shares.
#[derive(Clone, Copy, Debug)]
pub(super) struct QuietTest {
    /// The unit's velocity at the start of the tick (the solver builds around it).
    velocity: Vec2,
    /// The velocity the program starts from less `velocity`.
    change: Vec2,
    /// The length of `change`.
    change_length: f32,
    /// `|velocity| + |start|`, for the margin.
    size: f32,
    /// `1 / time_horizon`, as the solver takes it.
    inv_horizon: f32,
    /// The time horizon, seconds.
    horizon: f32,
}

impl QuietTest {
    /// The test for a unit whose velocity is `velocity`, preferring `preferred` (after the
    /// right-hand rule's tilt) with top speed `max_speed`, under a time horizon of
    /// `time_horizon` seconds. `None` when a value is not one the bound covers (then the
    /// solver runs).
    pub(super) fn new(
        velocity: Vec2,
        preferred: Vec2,
        max_speed: f32,
        time_horizon: f32,
    ) -> Option<Self> {
        let inv_horizon = 1.0 / time_horizon;
        if !(velocity.is_finite()
            && preferred.is_finite()
            && max_speed.is_finite()
            && max_speed > 0.0
            && time_horizon.is_finite()
            && time_horizon > 0.0
            && inv_horizon.is_finite())
        {
            return None;
        }
        // Where the solver's program starts: the preferred velocity within the speed limit.
        let length_sq = preferred.length_squared();
        let start = if length_sq > max_speed * max_speed {
            preferred * (max_speed / length_sq.sqrt())
        } else {
            preferred
        };
        Some(Self {
            velocity,
            change: start - velocity,
            change_length: (start - velocity).length(),
            size: velocity.length() + start.length(),
            inv_horizon,
            horizon: time_horizon,
        })
    }

    /// Whether the half-plane of a neighbour at `offset` from the unit, `distance` away (the
    /// offset's length), moving at `neighbour_velocity`, with `combined_radius` (the sum of
    /// the radii as the solver takes them) and `share` of the avoidance, provably permits the
    /// velocity the program starts from.
    #[inline]
    pub(super) fn permits(
        &self,
        offset: Vec2,
        distance: f32,
        neighbour_velocity: Vec2,
        combined_radius: f32,
        share: f32,
    ) -> bool {
        if !(distance > 0.0 && combined_radius >= 0.0 && share > 0.0) {
            return false;
        }
        let relative = (self.velocity - neighbour_velocity).length();
        let rho = (distance - combined_radius) * self.inv_horizon;
        let slack =
            SLACK * (1.0 + self.size + relative + (distance + combined_radius) * self.inv_horizon);
        // The relative velocity stays well inside the circle of the cut-off case
        // (`relative + slack <= ρ d / (d + R)`, times `d + R`)...
        let on_cut_off = (relative + slack) * (distance + combined_radius) <= rho * distance;
        // ...and the half-plane clears the program's start by the slack: how far the start
        // moves away from the neighbour, less what the normal's tilt can take off it, plus
        // the unit's share of the room (`-Δ·o / d - 2 |Δ| |v_rel| τ / d + s (ρ - |v_rel|)
        // >= slack`, times `d`).
        let room = share.min(1.0) * (rho - relative);
        let clear = -self.change.dot(offset) - 2.0 * self.change_length * relative * self.horizon
            + (room - slack) * distance
            >= 0.0;
        // Not finite anywhere: a comparison is false.
        on_cut_off && clear
    }
}

#[cfg(test)]
mod tests;
