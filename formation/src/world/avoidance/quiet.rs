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
//! The test. For a neighbour at offset `o` (distance `d`), combined radius `R`, time horizon
//! `τ`, relative velocity `v_rel` (the unit's less the neighbour's), let `ρ = (d - R) / τ`
//! and `w = v_rel - o / τ` (from the centre of the cut-off circle to `v_rel`). When
//!
//! 0. the pair is apart (`ρ > 0`: the solver's case for overlapping pairs is another);
//! 1. the pair closes along the line of centres more slowly than `ρ` (`v_rel·o / d < ρ`), the
//!    right-hand rule does not shift the relative velocity (its factor for how close contact
//!    is, `1 - ρ / closing`, is not positive);
//! 2. `-w·o > R |w|`, the solver's boundary point is on the cut-off circle (its first case)
//!    and its half-plane is `{v : (v - v_A - s (R / τ - |w|) ŵ)·ŵ >= 0}` (`v_A` the unit's
//!    velocity, `s` its share, `ŵ = w / |w|`);
//! 3. that half-plane holds the program's start `v_A + Δ`: `Δ·ŵ >= s (R / τ - |w|)`.
//!
//! Each holds here with a margin (`SLACK` of the sizes involved) far beyond the rounding of
//! the solver's arithmetic, which computes the same quantities in the same way.

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
    /// `|velocity| + |start|`, for the margin.
    size: f32,
    /// `1 / time_horizon`, as the solver takes it.
    inv_horizon: f32,
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
            size: velocity.length() + start.length(),
            inv_horizon,
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
        let relative = self.velocity - neighbour_velocity;
        let rho = (distance - combined_radius) * self.inv_horizon;
        let w = relative - offset * self.inv_horizon;
        let w_length = w.length();
        let slack = SLACK
            * (1.0
                + self.size
                + relative.length()
                + (distance + combined_radius) * self.inv_horizon);
        // 0. Apart (the solver's case for overlapping pairs is another).
        let apart = rho >= slack;
        // 1. No right-hand shift: closing slower than the gap over the horizon (times `d`).
        let unshifted = relative.dot(offset) + slack * distance <= rho * distance;
        // 2. The cut-off circle's case: `-w·o - R |w| >= slack d`.
        let on_cut_off = -w.dot(offset) - combined_radius * w_length >= slack * distance;
        // 3. The half-plane holds the start: `Δ·w - s (R / τ - |w|) |w| >= slack |w|`.
        let cut_off = combined_radius * self.inv_horizon - w_length;
        let clear = self.change.dot(w) - share.min(1.0) * cut_off * w_length >= slack * w_length;
        // Not finite anywhere: a comparison is false.
        apart && unshifted && on_cut_off && clear
    }
}

#[cfg(test)]
mod tests;
