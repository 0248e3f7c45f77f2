//! The half-planes of permitted velocities: one per neighbour (the ORCA half-plane, scaled by
//! the agent's share of the avoidance) and at most one per static segment.

use glam::Vec2;

use super::OrcaLine;
use super::program::det;

/// Squared segment lengths at most this count as a point.
const POINT_SEGMENT_SQ: f32 = 1e-12;

/// Slack of the test that an earlier segment half-plane already covers a segment.
const COVERED_EPSILON: f32 = 1e-5;

/// What every neighbour's half-plane of one solve shares.
#[derive(Clone, Copy, Debug)]
pub(super) struct NeighbourTuning {
    /// `1 / time_horizon`.
    pub inv_horizon: f32,
    /// `1 / dt`: overlapping pairs separate within `dt`.
    pub inv_dt: f32,
    /// Strength of the right-hand rule, at least 0.
    pub right_hand: f32,
}

/// The agent's side of a neighbour's ORCA half-plane, or `None` when there is none to build
/// (coincident centres with equal velocities, or non-finite arithmetic).
///
/// `relative_position` is the neighbour's centre minus the agent's, `relative_velocity` the
/// agent's velocity minus the neighbour's, `combined_radius` the sum of radii. The velocity
/// obstacle is the cone of relative velocities that bring the two within `combined_radius`
/// within the time horizon, truncated by the cut-off circle of centre
/// `relative_position * inv_horizon` and radius `combined_radius * inv_horizon`. `u` is the
/// change of relative velocity that reaches its boundary at the point nearest the relative
/// velocity (from inside or outside) or, under the right-hand rule, nearest the relative
/// velocity shifted by [`right_shift`]; the agent takes `share` of it: the half-plane is
/// tangent to the boundary there, moved to `velocity + share * u`. Already overlapping, the
/// cut-off circle is the one for a single step (`inv_dt`, no right-hand rule), so the pair
/// separates within one step.
pub(super) fn neighbour_line(
    velocity: Vec2,
    relative_position: Vec2,
    relative_velocity: Vec2,
    combined_radius: f32,
    share: f32,
    tuning: &NeighbourTuning,
) -> Option<OrcaLine> {
    let NeighbourTuning {
        inv_horizon,
        inv_dt,
        right_hand,
    } = *tuning;
    let dist_sq = relative_position.length_squared();
    let radius_sq = combined_radius * combined_radius;
    let (direction, u) = if dist_sq > radius_sq {
        // The boundary point is the one nearest `query`: the relative velocity, shifted to
        // the right by the right-hand rule; `u` still starts at the relative velocity.
        let shift = right_shift(
            relative_position,
            relative_velocity,
            dist_sq,
            combined_radius,
            inv_horizon,
            right_hand,
        );
        let query = relative_velocity + shift;
        // w: from the cut-off circle's centre to the query.
        let w = query - inv_horizon * relative_position;
        let w_len_sq = w.length_squared();
        let along = w.dot(relative_position);
        if along < 0.0 && along * along > radius_sq * w_len_sq {
            // Nearest boundary point on the cut-off circle.
            let w_len = w_len_sq.sqrt();
            let unit_w = w / w_len;
            (
                Vec2::new(unit_w.y, -unit_w.x),
                (combined_radius * inv_horizon - w_len) * unit_w + shift,
            )
        } else {
            // Nearest boundary point on a leg of the cone: the left one when w is
            // counter-clockwise of the relative position, else the right one.
            let leg = (dist_sq - radius_sq).sqrt();
            let p = relative_position;
            let direction = if det(p, w) > 0.0 {
                Vec2::new(
                    p.x * leg - p.y * combined_radius,
                    p.x * combined_radius + p.y * leg,
                ) / dist_sq
            } else {
                -Vec2::new(
                    p.x * leg + p.y * combined_radius,
                    -p.x * combined_radius + p.y * leg,
                ) / dist_sq
            };
            (
                direction,
                query.dot(direction) * direction - relative_velocity,
            )
        }
    } else {
        let w = relative_velocity - inv_dt * relative_position;
        let w_len = w.length();
        if !(w_len > 0.0) {
            return None;
        }
        let unit_w = w / w_len;
        (
            Vec2::new(unit_w.y, -unit_w.x),
            (combined_radius * inv_dt - w_len) * unit_w,
        )
    };
    usable(OrcaLine {
        point: velocity + share * u,
        direction,
    })
}

/// The right-hand rule's shift of the relative velocity before the nearest point of the
/// velocity obstacle's boundary is sought: towards the clockwise side of the line of centres
/// (so the agent passes with the neighbour on its left), `right_hand` × the relative speed ×
/// how head-on the approach is (the squared cosine between the relative velocity and the
/// line of centres) × how close contact is (1 at contact, 0 once the time to contact along
/// the line of centres reaches the horizon). Zero when not approaching.
///
/// Every factor is the same seen from either agent and the direction is reversed, so the
/// neighbour, running the same rule, picks the mirrored boundary point: the two half-planes
/// stay complementary and ORCA's guarantee holds.
#[inline]
fn right_shift(
    relative_position: Vec2,
    relative_velocity: Vec2,
    dist_sq: f32,
    combined_radius: f32,
    inv_horizon: f32,
    right_hand: f32,
) -> Vec2 {
    let closing_by_distance = relative_velocity.dot(relative_position);
    if !(right_hand > 0.0 && closing_by_distance > 0.0) {
        return Vec2::ZERO;
    }
    let speed_sq = relative_velocity.length_squared();
    let head_on = (closing_by_distance * closing_by_distance / (dist_sq * speed_sq)).min(1.0);
    let dist = dist_sq.sqrt();
    let closing = closing_by_distance / dist;
    let gap = dist - combined_radius;
    let near = (1.0 - gap * inv_horizon / closing).clamp(0.0, 1.0);
    let clockwise = Vec2::new(relative_position.y, -relative_position.x) / dist;
    let shift = clockwise * (right_hand * head_on * near * speed_sq.sqrt());
    if shift.is_finite() { shift } else { Vec2::ZERO }
}

/// The half-plane that keeps an agent of `radius` at the origin moving with `velocity` off
/// the segment `a`–`b` (relative to the agent) for `1 / inv_horizon` seconds, or `None` when
/// `existing` (earlier segment half-planes) already keeps it off, or the arithmetic is not
/// finite.
///
/// The velocity obstacle of the segment is the cone from the origin tangent to the capsule of
/// `radius` around it, truncated at the capsule scaled by `inv_horizon`: two legs (tangent to
/// the end circles) and the near side of the scaled capsule (its edge and end arcs). Seen end
/// on (the segment's line within `radius` of the agent), the nearer end circle hides the
/// other and both legs touch it. The half-plane is tangent to that boundary at its point
/// nearest `velocity`, with the agent taking all of the avoidance. A segment the agent
/// already overlaps gives the half-plane through the origin that forbids moving towards it.
///
/// This is RVO2's obstacle edge without the neighbouring-edge information of a polygon: each
/// segment stands alone, both ends treated as convex corners, seen from either side.
pub(super) fn segment_line(
    a: Vec2,
    b: Vec2,
    radius: f32,
    inv_horizon: f32,
    velocity: Vec2,
    existing: &[OrcaLine],
) -> Option<OrcaLine> {
    // Order the ends so that `b` is counter-clockwise of `a` seen from the agent: the
    // direction a -> b then has the agent on its left.
    let (a, b) = if det(a, b) < 0.0 { (b, a) } else { (a, b) };
    let rho = radius * inv_horizon;
    let cut_a = a * inv_horizon;
    let cut_b = b * inv_horizon;
    let covered = existing.iter().any(|line| {
        det(line.direction, cut_a - line.point) <= COVERED_EPSILON - rho
            && det(line.direction, cut_b - line.point) <= COVERED_EPSILON - rho
    });
    if covered {
        return None;
    }

    let radius_sq = radius * radius;
    let edge = b - a;
    let edge_len_sq = edge.length_squared();
    let point_like = !(edge_len_sq > POINT_SEGMENT_SQ);
    // s: where the agent projects onto the segment's line, 0 at `a`, 1 at `b`.
    let s = if point_like {
        0.0
    } else {
        -a.dot(edge) / edge_len_sq
    };
    let closest = a + s.clamp(0.0, 1.0) * edge;
    if closest.length_squared() <= radius_sq {
        // Overlapping: forbid any velocity towards the closest point.
        let away = (-closest).normalize_or(edge.perp().normalize_or(Vec2::X));
        return Some(OrcaLine {
            point: Vec2::ZERO,
            direction: Vec2::new(away.y, -away.x),
        });
    }
    let line_dist_sq = (a + s * edge).length_squared();
    let end_on = line_dist_sq <= radius_sq;
    // The end circles the legs touch: the right leg (clockwise side) one at `a`, the left
    // one at `b`; a single end when seen end on.
    let (right_end, left_end) = if point_like || (end_on && s < 0.0) {
        (a, a)
    } else if end_on && s > 1.0 {
        (b, b)
    } else {
        (a, b)
    };
    let single = point_like || end_on;
    let right_leg = {
        let d_sq = right_end.length_squared();
        let leg = (d_sq - radius_sq).sqrt();
        (right_end * leg - right_end.perp() * radius) / d_sq
    };
    let left_leg = {
        let d_sq = left_end.length_squared();
        let leg = (d_sq - radius_sq).sqrt();
        (left_end * leg + left_end.perp() * radius) / d_sq
    };
    let cut_right = right_end * inv_horizon;
    let cut_left = left_end * inv_horizon;
    let cut = cut_left - cut_right;

    // Which part of the boundary is nearest the velocity.
    let t = if single {
        0.5
    } else {
        (velocity - cut_right).dot(cut) / cut.length_squared()
    };
    let t_right = (velocity - cut_right).dot(right_leg);
    let t_left = (velocity - cut_left).dot(left_leg);
    let circle_line = |centre: Vec2| {
        let w = (velocity - centre).normalize_or((-centre).normalize_or(Vec2::X));
        OrcaLine {
            point: centre + rho * w,
            direction: Vec2::new(w.y, -w.x),
        }
    };
    let line = if (t < 0.0 && t_right < 0.0) || (single && t_left < 0.0 && t_right < 0.0) {
        circle_line(cut_right)
    } else if t > 1.0 && t_left < 0.0 {
        circle_line(cut_left)
    } else {
        let dist_cut = if single || !(0.0..=1.0).contains(&t) {
            f32::INFINITY
        } else {
            (velocity - (cut_right + t * cut)).length_squared()
        };
        let dist_left = if t_left < 0.0 {
            f32::INFINITY
        } else {
            (velocity - (cut_left + t_left * left_leg)).length_squared()
        };
        let dist_right = if t_right < 0.0 {
            f32::INFINITY
        } else {
            (velocity - (cut_right + t_right * right_leg)).length_squared()
        };
        if dist_cut <= dist_left.min(dist_right) {
            // The near edge of the scaled capsule; the agent is on its left.
            let direction = cut.normalize_or_zero();
            OrcaLine {
                point: cut_right + rho * direction.perp(),
                direction,
            }
        } else if dist_left <= dist_right {
            OrcaLine {
                point: cut_left + rho * left_leg.perp(),
                direction: left_leg,
            }
        } else {
            OrcaLine {
                point: cut_right - rho * right_leg.perp(),
                direction: -right_leg,
            }
        }
    };
    usable(line)
}

/// `line` when its numbers are finite and its direction is not zero.
#[inline]
fn usable(line: OrcaLine) -> Option<OrcaLine> {
    (line.point.is_finite() && line.direction.is_finite() && line.direction != Vec2::ZERO)
        .then_some(line)
}
