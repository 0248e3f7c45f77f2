//! The linear programs of ORCA: the 2D program finds the velocity closest to the preferred one
//! inside the speed disk and every half-plane; when the half-planes leave no room, the 3D
//! program finds the velocity that penetrates the worst-violated relaxable half-plane least.
//!
//! Both follow van den Berg et al.'s incremental randomised-LP formulation as RVO2 implements
//! it (without the randomisation: constraints are taken in the order given, so the result is
//! a pure function of the inputs).

use glam::Vec2;

use super::OrcaLine;

/// Two line directions whose cross product is at most this count as parallel.
const PARALLEL_EPSILON: f32 = 1e-5;

/// The 2D cross product `a.x * b.y - a.y * b.x`.
#[inline]
pub(super) fn det(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b)
}

/// What the program optimises.
#[derive(Clone, Copy, Debug)]
pub(super) enum Objective {
    /// The velocity closest to this point.
    Closest(Vec2),
    /// The velocity furthest in this unit direction.
    Furthest(Vec2),
}

/// The result of [`program2`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Program2 {
    /// The optimum, or on failure the optimum of the lines before the failing one.
    pub velocity: Vec2,
    /// Index of the line the velocity was last moved onto, if any.
    pub bound: Option<usize>,
    /// Index of the first line that left no room, if any.
    pub failed_at: Option<usize>,
}

/// The optimum of `objective` on `line`, within the disk of `radius` and the half-planes of
/// `previous`; `None` when that part of the line is empty.
fn on_line(
    line: &OrcaLine,
    previous: &[OrcaLine],
    radius: f32,
    objective: Objective,
) -> Option<Vec2> {
    // The line meets the disk where |point + t * direction| = radius (direction is unit).
    let along = line.point.dot(line.direction);
    let discriminant = along * along + radius * radius - line.point.length_squared();
    if !(discriminant >= 0.0) {
        return None;
    }
    let half_chord = discriminant.sqrt();
    let mut t_left = -along - half_chord;
    let mut t_right = -along + half_chord;
    for other in previous {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        if denominator.abs() <= PARALLEL_EPSILON {
            // Parallel: the whole line is on one side of `other`.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return None;
        }
    }
    let t = match objective {
        Objective::Furthest(direction) => {
            if direction.dot(line.direction) > 0.0 {
                t_right
            } else {
                t_left
            }
        }
        Objective::Closest(target) => {
            let t = line.direction.dot(target - line.point);
            if t < t_left {
                t_left
            } else if t > t_right {
                t_right
            } else {
                t
            }
        }
    };
    Some(line.point + t * line.direction)
}

/// The optimum of `objective` within the disk of `radius` and every half-plane of `lines`
/// (each the left side of its directed line), adding the lines one at a time: when the
/// current optimum violates a line, the new optimum lies on that line.
pub(super) fn program2(lines: &[OrcaLine], radius: f32, objective: Objective) -> Program2 {
    let mut velocity = match objective {
        Objective::Furthest(direction) => direction * radius,
        Objective::Closest(target) => {
            let length_sq = target.length_squared();
            if length_sq > radius * radius {
                target * (radius / length_sq.sqrt())
            } else {
                target
            }
        }
    };
    let mut bound = None;
    for (index, line) in lines.iter().enumerate() {
        if det(line.direction, line.point - velocity) > 0.0 {
            let previous = lines.get(..index).unwrap_or(&[]);
            match on_line(line, previous, radius, objective) {
                Some(on) => {
                    velocity = on;
                    bound = Some(index);
                }
                None => {
                    return Program2 {
                        velocity,
                        bound,
                        failed_at: Some(index),
                    };
                }
            }
        }
    }
    Program2 {
        velocity,
        bound,
        failed_at: None,
    }
}

/// The velocity within the disk of `radius` that satisfies `lines[..fixed]` and minimises the
/// largest distance by which it violates any of `lines[fixed..]`, starting from `start`, the
/// 2D program's partial optimum, which satisfies `lines[..begin]`.
///
/// Each time a line is violated by more than the current worst, the program is solved again
/// in the space of that line: every earlier relaxable line becomes the half-plane where it is
/// violated no more than this one (the bisector of the two), and the optimum is the velocity
/// furthest into this line's side. `projected` is scratch space. Returns the velocity and the
/// index of the line whose violation was minimised last.
pub(super) fn program3(
    lines: &[OrcaLine],
    fixed: usize,
    begin: usize,
    radius: f32,
    start: Vec2,
    projected: &mut Vec<OrcaLine>,
) -> (Vec2, Option<usize>) {
    let mut velocity = start;
    let mut worst = 0.0;
    let mut bound = None;
    for (index, line) in lines.iter().enumerate().skip(begin) {
        if !(det(line.direction, line.point - velocity) > worst) {
            continue;
        }
        projected.clear();
        projected.extend_from_slice(lines.get(..fixed).unwrap_or(&[]));
        for previous in lines.get(fixed..index).unwrap_or(&[]) {
            if det(line.direction, previous.direction).abs() <= PARALLEL_EPSILON
                && line.direction.dot(previous.direction) > 0.0
            {
                // Parallel, same side: minimising this line's violation minimises that one's.
                continue;
            }
            // Where `previous` is violated exactly as much as `line`:
            // det(d_p, v - p_p) = det(d_l, v - p_l), i.e. det(d_p - d_l, v) = c. Anchored at
            // its point nearest the origin rather than where the two lines cross, which for
            // nearly parallel lines is far away and would cost the disk test its precision.
            let across = previous.direction - line.direction;
            let length = across.length();
            let direction = across / length;
            let c = det(previous.direction, previous.point) - det(line.direction, line.point);
            let projected_line = OrcaLine {
                point: direction.perp() * (c / length),
                direction,
            };
            if projected_line.point.is_finite() && projected_line.direction.is_finite() {
                projected.push(projected_line);
            }
        }
        let into = line.direction.perp();
        let solved = program2(projected, radius, Objective::Furthest(into));
        // The optimum is feasible by construction: a failure is rounding, and the current
        // velocity is kept.
        if solved.failed_at.is_none() {
            velocity = solved.velocity;
        }
        worst = det(line.direction, line.point - velocity);
        bound = Some(index);
    }
    (velocity, bound)
}
