//! The layout rule of each pattern kind: emits uncentred slots one by one (the caller centres
//! them), so extents can be measured without allocating.

use cohort_steering::ops;
use glam::Vec2;

use super::{PatternKind, Role, Slot};

/// Back and side components of one step along a wedge or echelon arm, in spacings
/// (a 3-4-5 triangle: consecutive members are exactly one spacing apart).
const ARM_BACK: f32 = 0.6;
const ARM_SIDE: f32 = 0.8;
/// Largest defensive circle laid out as a single ring.
const SINGLE_RING_MAX: usize = 16;
/// Radius of the innermost of several concentric rings, in spacings.
const INNER_RING_RADII: usize = 2;
/// Lateral and longitudinal distance between finger-four groups, in spacings.
const GROUP_PITCH_SIDE: f32 = 4.0;
const GROUP_PITCH_BACK: f32 = 2.5;
/// Distance between pairs of the two-abreast pattern, in spacings.
const PAIR_PITCH: f32 = 1.5;

/// Emits the `count` slots of `kind` at `spacing` to `f`, in slot order.
pub(super) fn emit(kind: &PatternKind, s: f32, count: usize, f: &mut impl FnMut(Slot)) {
    let lead = |i: usize| if i == 0 { Role::Leader } else { Role::Any };
    let forward = |i: usize, offset: Vec2| Slot {
        offset,
        facing: Vec2::X,
        role: lead(i),
    };
    match kind {
        PatternKind::Line => {
            // Slot 0 is the middle of the rank; the others fill the rank from the left.
            let half = (count as f32 - 1.0) * 0.5;
            let middle = count.saturating_sub(1) / 2;
            for i in 0..count {
                let rank = if i == 0 {
                    middle
                } else if i <= middle {
                    i - 1
                } else {
                    i
                };
                f(forward(i, Vec2::new(0.0, (half - rank as f32) * s)));
            }
        }
        PatternKind::Column => {
            for i in 0..count {
                f(forward(i, Vec2::new(-(i as f32) * s, 0.0)));
            }
        }
        PatternKind::Wedge => {
            for i in 0..count {
                let depth = i.div_ceil(2) as f32;
                let side = if i % 2 == 1 { 1.0 } else { -1.0 };
                let offset = Vec2::new(-ARM_BACK * depth * s, side * ARM_SIDE * depth * s);
                f(forward(i, offset));
            }
        }
        PatternKind::EchelonLeft | PatternKind::EchelonRight => {
            let side = if matches!(kind, PatternKind::EchelonLeft) {
                1.0
            } else {
                -1.0
            };
            for i in 0..count {
                let step = i as f32 * s;
                f(forward(
                    i,
                    Vec2::new(-ARM_BACK * step, side * ARM_SIDE * step),
                ));
            }
        }
        PatternKind::FingerFour => finger_four(s, count, f),
        PatternKind::Box | PatternKind::Ranks(_) => {
            let cols = match kind {
                PatternKind::Ranks(k) => usize::from(*k).max(1),
                _ => ceil_sqrt(count).max(1),
            };
            for i in 0..count {
                let (row, col) = (i / cols, i % cols);
                let in_row = cols.min(count - row * cols);
                let y = ((in_row as f32 - 1.0) * 0.5 - col as f32) * s;
                f(forward(i, Vec2::new(-(row as f32) * s, y)));
            }
        }
        PatternKind::DefensiveCircle => defensive_circle(s, count, f),
        PatternKind::TwoAbreast => {
            for i in 0..count {
                let row = (i / 2) as f32;
                let lone = i + 1 == count && i % 2 == 0;
                let (y, facing) = if lone {
                    (0.0, Vec2::X)
                } else if i % 2 == 0 {
                    (0.5 * s, Vec2::new(ARM_BACK, ARM_SIDE))
                } else {
                    (-0.5 * s, Vec2::new(ARM_BACK, -ARM_SIDE))
                };
                f(Slot {
                    offset: Vec2::new(-row * PAIR_PITCH * s, y),
                    facing,
                    role: lead(i),
                });
            }
        }
        PatternKind::Custom(slots) => custom(slots, s, count, f),
    }
}

/// `ceil(sqrt(n))` for integers.
fn ceil_sqrt(n: usize) -> usize {
    let mut r = (n as f64).sqrt() as usize;
    while r * r < n {
        r += 1;
    }
    while r > 0 && (r - 1) * (r - 1) >= n {
        r -= 1;
    }
    r
}

fn finger_four(s: f32, count: usize, f: &mut impl FnMut(Slot)) {
    // Leader, wingman back-left, element leader back-right, element wingman further right.
    const SHAPE: [Vec2; 4] = [
        Vec2::new(0.0, 0.0),
        Vec2::new(-0.5, 1.0),
        Vec2::new(-0.5, -1.0),
        Vec2::new(-1.0, -2.0),
    ];
    let groups = count.div_ceil(4);
    let per_row = ceil_sqrt(groups).max(1);
    for i in 0..count {
        let (group, member) = (i / 4, i % 4);
        let (row, col) = (group / per_row, group % per_row);
        let in_row = per_row.min(groups - row * per_row);
        let base = Vec2::new(
            -(row as f32) * GROUP_PITCH_BACK,
            ((in_row as f32 - 1.0) * 0.5 - col as f32) * GROUP_PITCH_SIDE,
        );
        let shape = SHAPE.get(member).copied().unwrap_or_default();
        f(Slot {
            offset: (base + shape) * s,
            facing: Vec2::X,
            role: if i == 0 { Role::Leader } else { Role::Any },
        });
    }
}

/// Circumference capacity of concentric ring `k` (radius `INNER_RING_RADII + k` spacings).
fn ring_capacity(k: usize) -> usize {
    (core::f64::consts::TAU * (INNER_RING_RADII + k) as f64) as usize
}

fn defensive_circle(s: f32, count: usize, f: &mut impl FnMut(Slot)) {
    let mut emit_ring = |radius: f32, n: usize, phase: f32, first: bool| {
        for j in 0..n {
            let angle = (j as f32 + phase) * core::f32::consts::TAU / n as f32;
            let out = ops::from_angle(angle);
            let (offset, facing) = if radius > 0.0 {
                (out * radius, out)
            } else {
                (Vec2::ZERO, Vec2::X)
            };
            let role = if first && j == 0 {
                Role::Leader
            } else {
                Role::Any
            };
            f(Slot {
                offset,
                facing,
                role,
            });
        }
    };
    if count == 0 {
        return;
    }
    if count <= SINGLE_RING_MAX {
        // Chord between neighbours = spacing: r = s / (2 sin(pi / n)); one member sits at the
        // centre, two stand back to back.
        let radius = if count == 1 {
            0.0
        } else {
            0.5 * s / ops::sin(core::f32::consts::PI / count as f32)
        };
        emit_ring(radius, count, 0.0, true);
        return;
    }
    // Fewest rings whose capacity holds everyone, then shares proportional to capacity
    // (floors, the remainder one each to the outermost rings with room).
    let mut rings = 0;
    let mut total = 0;
    while total < count {
        total += ring_capacity(rings);
        rings += 1;
    }
    let floor_share = |k: usize| count * ring_capacity(k) / total;
    let assigned: usize = (0..rings).map(floor_share).sum();
    let mut remainder = count - assigned;
    for k in (0..rings).rev() {
        let mut n = floor_share(k);
        if remainder > 0 && n < ring_capacity(k) {
            n += 1;
            remainder -= 1;
        }
        let radius = (INNER_RING_RADII + k) as f32 * s;
        let phase = if k % 2 == 1 { 0.5 } else { 0.0 };
        emit_ring(radius, n, phase, k + 1 == rings);
    }
}

fn custom(slots: &[Slot], s: f32, count: usize, f: &mut impl FnMut(Slot)) {
    if slots.is_empty() {
        return;
    }
    let (mut front, mut back) = (f32::NEG_INFINITY, f32::INFINITY);
    for slot in slots {
        front = front.max(slot.offset.x);
        back = back.min(slot.offset.x);
    }
    let block_depth = (front - back).max(0.0) + s;
    for i in 0..count {
        let (copy, index) = (i / slots.len(), i % slots.len());
        let Some(slot) = slots.get(index) else {
            return;
        };
        if copy == 0 {
            f(*slot);
        } else {
            f(Slot {
                offset: slot.offset - Vec2::new(copy as f32 * block_depth, 0.0),
                facing: slot.facing,
                role: Role::Any,
            });
        }
    }
}
