//! A formation laid out along a line the player draws.
//!
//! Members stand at equal arc-length spacing along the polyline, from its first point to its
//! last. The formation faces the drag direction turned a quarter left (`drag.perp()`), so the
//! line runs from the formation's left to its right, as when dragging a line in Total War;
//! each slot faces the perpendicular of the stretch it stands on (a curved line curves its
//! facings), unless a facing is given. When the line is too short for everyone at the pattern
//! spacing, further ranks form behind it (each a spacing further back, the last one centred);
//! a line shorter than one spacing (a click) becomes a block of `ceil(sqrt(n))` abreast centred
//! on it. Members are matched to the slots by [`crate::assignment`].

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::error::check_positive;
use super::{MAX_EXTENT, MAX_MEMBERS, PatternError, Role, Slot};

/// Most points a drawn polyline may have.
pub const MAX_POLYLINE_POINTS: usize = 4096;

/// The pose a polyline layout is relative to: the slots' offsets are in this frame (they are
/// centred, so `centre` is their world centre of mass).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolylineFrame {
    /// World centre of the slots (the anchor position).
    pub centre: Vec2,
    /// Unit world facing of the formation (the frame's `+x`).
    pub facing: Vec2,
}

impl PolylineFrame {
    /// World position of a slot offset.
    pub fn to_world(&self, offset: Vec2) -> Vec2 {
        self.centre + self.facing.rotate(offset)
    }

    /// Local offset of a world position.
    pub fn to_local(&self, world: Vec2) -> Vec2 {
        let d = world - self.centre;
        Vec2::new(d.dot(self.facing), d.dot(self.facing.perp()))
    }
}

/// Lays out `count` members (at most [`crate::pattern::MAX_MEMBERS`]) along `points` at least
/// `spacing` apart into `out` (replacing its contents), returning the frame the offsets are
/// relative to. `facing`, if given, overrides the facing of the formation and of every slot.
///
/// Errors: no points, more than [`MAX_POLYLINE_POINTS`], a non-finite point or one beyond
/// `cohort_steering::limits::MAX_COORD`, a line spanning more than half [`MAX_EXTENT`], a bad spacing, or a zero or non-finite `facing`.
pub fn polyline_layout(
    points: &[Vec2],
    count: usize,
    spacing: f32,
    facing: Option<Vec2>,
    out: &mut Vec<Slot>,
) -> Result<PolylineFrame, PatternError> {
    out.clear();
    check_positive("spacing", spacing)?;
    if points.len() > MAX_POLYLINE_POINTS {
        return Err(PatternError::TooMany {
            what: "polyline points",
            count: points.len(),
            max: MAX_POLYLINE_POINTS,
        });
    }
    let (Some(&first), Some(&last)) = (points.first(), points.last()) else {
        return Err(PatternError::BadPolyline("no points"));
    };
    if points
        .iter()
        .any(|p| !p.is_finite() || p.abs().max_element() > cohort_steering::limits::MAX_COORD)
    {
        return Err(PatternError::BadPolyline(
            "points must be finite and within 1e6",
        ));
    }
    let (lo, hi) = points
        .iter()
        .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    if (hi - lo).max_element() > MAX_EXTENT * 0.5 {
        return Err(PatternError::BadPolyline("the line spans more than 5e4"));
    }
    let given = match facing {
        Some(f) => Some(f.is_finite().then(|| f.try_normalize()).flatten().ok_or(
            PatternError::BadPolyline("facing must be finite and non-zero"),
        )?),
        None => None,
    };
    let count = count.min(MAX_MEMBERS);
    let drag = (last - first)
        .try_normalize()
        .or_else(|| {
            points
                .windows(2)
                .find_map(|w| (w[1] - w[0]).try_normalize())
        })
        .unwrap_or(-Vec2::Y);
    let frame_facing = given.unwrap_or(drag.perp());
    let length: f32 = points.windows(2).map(|w| (w[1] - w[0]).length()).sum();

    // A click (or a line shorter than one spacing): a virtual straight rank through its middle.
    let click: [Vec2; 2];
    let (line, length) = if length < spacing {
        let wide = ceil_sqrt(count).max(1);
        let half = (wide - 1) as f32 * spacing * 0.5;
        // Shifted forward by half the depth of the ranks so the block is centred on the click.
        let ranks = count.div_ceil(wide).max(1);
        let mid = (first + last) * 0.5 + frame_facing * ((ranks - 1) as f32 * spacing * 0.5);
        let right = -frame_facing.perp();
        click = [mid - right * half, mid + right * half];
        (&click[..], 2.0 * half)
    } else {
        (points, length)
    };

    let per_rank = ((length / spacing + 1e-4) as usize + 1).clamp(1, count.max(1));
    let first_rank = per_rank.min(count);
    let pitch = if first_rank > 1 {
        length / (first_rank - 1) as f32
    } else {
        0.0
    };
    let mut done = 0;
    let mut rank = 0;
    while done < count {
        let in_rank = per_rank.min(count - done);
        let start = if rank == 0 && in_rank > 1 {
            0.0
        } else {
            0.5 * length - 0.5 * (in_rank - 1) as f32 * pitch
        };
        let mut walker = Walker::new(line);
        for j in 0..in_rank {
            let (point, dir) = walker.at(start + j as f32 * pitch);
            let normal = given.unwrap_or_else(|| dir.unwrap_or(drag).perp());
            out.push(Slot {
                offset: point - normal * (rank as f32 * spacing),
                facing: normal,
                role: Role::Any,
            });
        }
        done += in_rank;
        rank += 1;
    }

    // World positions to the centred local frame.
    let centre = if out.is_empty() {
        (first + last) * 0.5
    } else {
        super::mean_offset(out)
    };
    let frame = PolylineFrame {
        centre,
        facing: frame_facing,
    };
    let side = frame_facing.perp();
    for slot in out.iter_mut() {
        slot.offset = frame.to_local(slot.offset);
        slot.facing = Vec2::new(slot.facing.dot(frame_facing), slot.facing.dot(side));
    }
    Ok(frame)
}

/// `ceil(sqrt(n))` for integers.
fn ceil_sqrt(n: usize) -> usize {
    let mut r = (n as f64).sqrt() as usize;
    while r * r < n {
        r += 1;
    }
    r
}

/// Walks a polyline by increasing arc length.
struct Walker<'a> {
    points: &'a [Vec2],
    segment: usize,
    walked: f32,
}

impl<'a> Walker<'a> {
    fn new(points: &'a [Vec2]) -> Self {
        Self {
            points,
            segment: 0,
            walked: 0.0,
        }
    }

    /// The point at arc length `t` (clamped to the line) and the direction of its segment
    /// (`None` when every segment is degenerate). `t` must not decrease between calls.
    fn at(&mut self, t: f32) -> (Vec2, Option<Vec2>) {
        let mut last_dir = None;
        while let (Some(&a), Some(&b)) = (
            self.points.get(self.segment),
            self.points.get(self.segment + 1),
        ) {
            let len = (b - a).length();
            let dir = (b - a).try_normalize();
            if dir.is_some() {
                last_dir = dir;
            }
            let is_last = self.segment + 2 >= self.points.len();
            if t <= self.walked + len || is_last {
                let along = (t - self.walked).clamp(0.0, len);
                let point = match dir {
                    Some(d) => a + d * along,
                    None => a,
                };
                return (point, last_dir.or(dir));
            }
            self.walked += len;
            self.segment += 1;
        }
        (self.points.first().copied().unwrap_or_default(), last_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(frame: &PolylineFrame, slots: &[Slot]) -> Vec<Vec2> {
        slots.iter().map(|s| frame.to_world(s.offset)).collect()
    }

    #[test]
    fn straight_line_equal_spacing_end_to_end() {
        let mut out = Vec::new();
        let points = [Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0)];
        let frame = polyline_layout(&points, 6, 1.0, None, &mut out).unwrap();
        // Dragged along +x: the formation faces +y.
        assert!((frame.facing - Vec2::Y).length() < 1e-6);
        assert!((frame.centre - Vec2::new(5.0, 0.0)).length() < 1e-5);
        let w = world(&frame, &out);
        for (i, p) in w.iter().enumerate() {
            assert!(
                (*p - Vec2::new(2.0 * i as f32, 0.0)).length() < 1e-4,
                "{i}: {p}"
            );
        }
        for s in &out {
            // Local facing +x = world +y.
            assert!((s.facing - Vec2::X).length() < 1e-5);
        }
    }

    #[test]
    fn bent_line_points_lie_on_it_at_equal_arc_spacing() {
        let mut out = Vec::new();
        let points = [Vec2::ZERO, Vec2::new(6.0, 0.0), Vec2::new(6.0, 6.0)];
        let frame = polyline_layout(&points, 7, 1.0, None, &mut out).unwrap();
        let w = world(&frame, &out);
        // Arc length 12 over 6 gaps: every 2 units; the 4th member sits on the corner.
        assert!((w[3] - Vec2::new(6.0, 0.0)).length() < 1e-4);
        assert!((w[5] - Vec2::new(6.0, 4.0)).length() < 1e-4);
        // Facings follow the stretch: first leg faces +y, second leg faces -x.
        let f0 = frame.facing.rotate(out[0].facing);
        let f6 = frame.facing.rotate(out[6].facing);
        assert!((f0 - Vec2::Y).length() < 1e-4, "{f0}");
        assert!((f6 + Vec2::X).length() < 1e-4, "{f6}");
    }

    #[test]
    fn too_many_members_form_ranks_behind() {
        let mut out = Vec::new();
        let points = [Vec2::ZERO, Vec2::new(5.0, 0.0)];
        let frame = polyline_layout(&points, 20, 1.0, None, &mut out).unwrap();
        assert_eq!(out.len(), 20);
        let w = world(&frame, &out);
        // 6 per rank, ranks at y = 0, -1, -2, -3 (behind = away from the facing +y).
        for (i, p) in w.iter().enumerate() {
            let rank = i / 6;
            assert!((p.y + rank as f32).abs() < 1e-4, "{i}: {p}");
        }
        // The last rank (2 members) is centred on the line's middle.
        assert!(((w[18].x + w[19].x) * 0.5 - 2.5).abs() < 1e-4);
        // No two closer than the spacing.
        for i in 0..w.len() {
            for j in i + 1..w.len() {
                assert!(w[i].distance(w[j]) > 0.999, "{i} {j}");
            }
        }
    }

    #[test]
    fn offsets_are_centred_and_facing_can_be_given() {
        let mut out = Vec::new();
        let points = [
            Vec2::new(3.0, 1.0),
            Vec2::new(7.0, 9.0),
            Vec2::new(-2.0, 4.0),
        ];
        for count in 1..40 {
            let frame =
                polyline_layout(&points, count, 1.3, Some(Vec2::new(0.0, -2.0)), &mut out).unwrap();
            assert_eq!(out.len(), count);
            let mean = out.iter().map(|s| s.offset).sum::<Vec2>() / count as f32;
            assert!(mean.length() < 1e-3, "{count}: {mean}");
            assert!((frame.facing + Vec2::Y).length() < 1e-6);
            assert!(out.iter().all(|s| (s.facing - Vec2::X).length() < 1e-5));
        }
    }

    #[test]
    fn click_gives_a_block() {
        let mut out = Vec::new();
        let frame = polyline_layout(&[Vec2::new(4.0, 4.0)], 9, 2.0, None, &mut out).unwrap();
        assert!((frame.centre - Vec2::new(4.0, 4.0)).length() < 1e-4);
        let w = world(&frame, &out);
        let min = w.iter().fold(Vec2::MAX, |a, b| a.min(*b));
        let max = w.iter().fold(Vec2::MIN, |a, b| a.max(*b));
        // 3 x 3 block at spacing 2.
        assert!(
            (max - min - Vec2::splat(4.0)).length() < 1e-4,
            "{min} {max}"
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut out = Vec::new();
        assert!(polyline_layout(&[], 3, 1.0, None, &mut out).is_err());
        assert!(polyline_layout(&[Vec2::NAN], 3, 1.0, None, &mut out).is_err());
        assert!(polyline_layout(&[Vec2::ZERO], 3, 0.0, None, &mut out).is_err());
        assert!(polyline_layout(&[Vec2::ZERO], 3, 1.0, Some(Vec2::ZERO), &mut out).is_err());
        let zero = polyline_layout(&[Vec2::ZERO, Vec2::X * 5.0], 0, 1.0, None, &mut out).unwrap();
        assert!(out.is_empty());
        assert!(zero.facing.is_finite());
    }
}
