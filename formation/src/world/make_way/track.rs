//! A formation's track for right of way (`make_way/right_of_way.rs`): a stretch of its path
//! as a polyline, and where along it the formation first meets another's.

use cohort_steering::Vec2;

use crate::formation::Formation;

/// Cosine of the widest angle between two tracks at their meeting that counts as going the
/// same way (queueing's business).
pub(super) const SAME_WAY_COS: f32 = 0.95;
/// Cosine of the widest angle between two tracks at their meeting that counts as merging
/// rather than crossing (see `right_of_way.rs`).
pub(super) const MERGE_COS: f32 = 0.7;
/// Cosine below which two tracks meet head-on (passing's business).
const HEAD_ON_COS: f32 = -0.7;
/// Most points in a track.
const TRACK_POINTS: usize = 12;

/// Where along a track it first meets another's (see [`Track::first_meeting`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Meeting {
    /// Arc length of the meeting along the track.
    pub(super) arc: f32,
    /// How close the other's track comes there that counts as meeting it.
    pub(super) reach: f32,
    /// Cosine of the angle between the two legs that meet.
    pub(super) cos: f32,
}

/// A stretch of a formation's path as a polyline, with each point's arc length from the
/// anchor (negative behind it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Track {
    points: [Vec2; TRACK_POINTS],
    arc: [f32; TRACK_POINTS],
    /// `dirs[i]`: the unit direction of the leg from point `i - 1` to point `i` (zero for a
    /// leg of no length, and at 0).
    dirs: [Vec2; TRACK_POINTS],
    len: usize,
    /// The corners of the box round the points.
    lo: Vec2,
    hi: Vec2,
    /// The cone round every leg's direction, if it is narrower than a right angle.
    cone: Option<Cone>,
}

impl Track {
    /// From `behind` metres behind the anchor (along the path already walked) to `ahead`
    /// metres in front of it (along the path still to walk), through the anchor itself.
    pub(super) fn of(f: &Formation, behind: f32, ahead: f32) -> Option<Self> {
        if f.path.len() < 2 || !f.anchor.position.is_finite() {
            return None;
        }
        let idx = f.path_index.clamp(1, f.path.len() - 1);
        let at = f.anchor.position;
        // Behind: back through the points already passed, nearest first.
        let mut back = [Vec2::ZERO; TRACK_POINTS];
        let mut back_arc = [0.0f32; TRACK_POINTS];
        let mut nb = 0;
        let (mut prev, mut s) = (at, 0.0f32);
        for &p in f.path[..idx].iter().rev() {
            if nb + 2 >= TRACK_POINTS / 2 || s >= behind {
                break;
            }
            let step = (p - prev).length();
            let (p, step) = if s + step > behind && step > 0.0 {
                (prev.lerp(p, (behind - s) / step), behind - s)
            } else {
                (p, step)
            };
            s += step;
            back[nb] = p;
            back_arc[nb] = -s;
            nb += 1;
            prev = p;
        }
        let mut t = Track {
            points: [Vec2::ZERO; TRACK_POINTS],
            arc: [0.0; TRACK_POINTS],
            dirs: [Vec2::ZERO; TRACK_POINTS],
            len: 0,
            lo: Vec2::splat(f32::INFINITY),
            hi: Vec2::splat(f32::NEG_INFINITY),
            cone: None,
        };
        for k in (0..nb).rev() {
            t.push(back[k], back_arc[k]);
        }
        t.push(at, 0.0);
        let (mut prev, mut s) = (at, 0.0f32);
        for &p in &f.path[idx..] {
            if t.len >= TRACK_POINTS || s >= ahead {
                break;
            }
            let step = (p - prev).length();
            let (p, step) = if s + step > ahead && step > 0.0 {
                (prev.lerp(p, (ahead - s) / step), ahead - s)
            } else {
                (p, step)
            };
            s += step;
            t.push(p, s);
            prev = p;
        }
        t.cone = Cone::of(t.dirs.get(1..t.len).unwrap_or(&[]));
        (t.len >= 2).then_some(t)
    }

    fn push(&mut self, p: Vec2, s: f32) {
        if self.len < TRACK_POINTS {
            if self.len > 0 {
                self.dirs[self.len] = (p - self.points[self.len - 1]).normalize_or_zero();
            }
            self.points[self.len] = p;
            self.arc[self.len] = s;
            self.lo = self.lo.min(p);
            self.hi = self.hi.max(p);
            self.len += 1;
        }
    }

    /// Whether the track in front of the anchor comes closer than `d` to `p`.
    pub(super) fn ahead_passes(&self, p: Vec2, d: f32) -> bool {
        (1..self.len)
            .filter(|&i| self.arc[i] > 0.0)
            .any(|i| to_segment(p, self.points[i - 1], self.points[i]) < d)
    }

    /// The corners of the box round the track's points.
    pub(super) fn bounds(&self) -> (Vec2, Vec2) {
        (self.lo, self.hi)
    }

    /// Where along this track a formation `own` wide (half-width) first comes within `margin`
    /// of one `theirs` wide walking `other`, where the two run at an angle (neither the same
    /// way nor head-on): the arc length of the first point closer than
    /// `d = theirs + margin + own |cos|` to `other`, `cos` being that of the angle between
    /// the two legs (a front edge crossing the other's track square on reaches it with its
    /// centre; at a slant, its leading corner first), that `d` and that `cos`. Pairs of legs
    /// that run the same way or head-on, or whose boxes lie further than
    /// `own + theirs + margin` apart, are passed over at the cost of a comparison.
    pub(super) fn first_meeting(
        &self,
        other: &Track,
        own: f32,
        theirs: f32,
        margin: f32,
    ) -> Option<Meeting> {
        let most = own + theirs + margin;
        let (lo, hi) = self.bounds();
        let (olo, ohi) = other.bounds();
        if (lo - Vec2::splat(most)).cmpgt(ohi).any() || (olo - Vec2::splat(most)).cmpgt(hi).any() {
            return None;
        }
        // Every pair of legs running the same way, or every pair head-on: no meeting.
        if let (Some(a), Some(b)) = (self.cone, other.cone) {
            if a.never_across(&b) {
                return None;
            }
        }
        for i in 1..self.len {
            let (a0, a1) = (self.points[i - 1], self.points[i]);
            let dir_a = self.dirs[i];
            let (alo, ahi) = (
                a0.min(a1) - Vec2::splat(most),
                a0.max(a1) + Vec2::splat(most),
            );
            // A leg whose box misses the other's whole box misses each of its legs' boxes.
            if alo.cmpgt(ohi).any() || olo.cmpgt(ahi).any() {
                continue;
            }
            let mut best: Option<(f32, f32, f32)> = None;
            for j in 1..other.len {
                let (b0, b1) = (other.points[j - 1], other.points[j]);
                if alo.cmpgt(b0.max(b1)).any() || b0.min(b1).cmpgt(ahi).any() {
                    continue;
                }
                let dir_b = other.dirs[j];
                let cos = dir_a.dot(dir_b);
                if !(HEAD_ON_COS..=SAME_WAY_COS).contains(&cos) {
                    continue;
                }
                let d = theirs + margin + own * cos.abs();
                if let Some(t) = first_within(a0, a1, b0, b1, d) {
                    if best.is_none_or(|(bt, _, _)| t < bt) {
                        best = Some((t, d, cos));
                        // Nothing comes before the leg's start.
                        if t == 0.0 {
                            break;
                        }
                    }
                }
            }
            if let Some((t, reach, cos)) = best {
                return Some(Meeting {
                    arc: self.arc[i - 1] + t * (self.arc[i] - self.arc[i - 1]),
                    reach,
                    cos,
                });
            }
        }
        None
    }
}

/// Room for rounding (in cosines) when telling from two [`Cone`]s that no two legs meet at
/// an angle: far more than the rounding of the legs' own cosines.
const CONE_SLACK: f32 = 1e-3;

/// The directions of a track's legs as a cone round an axis: every leg's direction is at
/// most the half-angle (cosine `cos`, sine `sin`, under a right angle) from `axis`.
#[derive(Clone, Copy, Debug)]
struct Cone {
    axis: Vec2,
    cos: f32,
    sin: f32,
}

impl Cone {
    /// The cone round the legs' unit directions `dirs` (their mean direction the axis);
    /// `None` if a leg has no length or the cone is not narrower than a right angle.
    fn of(dirs: &[Vec2]) -> Option<Self> {
        let axis = dirs.iter().copied().sum::<Vec2>().try_normalize()?;
        let mut cos: f32 = 1.0;
        for d in dirs {
            if *d == Vec2::ZERO {
                return None;
            }
            cos = cos.min(d.dot(axis));
        }
        if !(cos > 0.0) {
            return None;
        }
        Some(Self {
            axis,
            cos,
            sin: (1.0 - cos * cos).max(0.0).sqrt(),
        })
    }

    /// Whether every leg of this cone's track and every leg of `other`'s run the same way
    /// (their directions' cosine above [`SAME_WAY_COS`]), or every pair head-on (below
    /// [`HEAD_ON_COS`]), with [`CONE_SLACK`] to spare. The angle between two legs is at most
    /// the angle between the axes plus both half-angles, and at least the angle between the
    /// axes less both.
    fn never_across(&self, other: &Cone) -> bool {
        let g = self.axis.dot(other.axis).clamp(-1.0, 1.0);
        let sg = (1.0 - g * g).max(0.0).sqrt();
        // Both half-angles together (under two right angles).
        let c = self.cos * other.cos - self.sin * other.sin;
        let s = self.sin * other.cos + self.cos * other.sin;
        // The widest angle between two legs, when it is under two right angles (the axes
        // and the half-angles together under one each way).
        if g > 0.0 && c > 0.0 && g * c - sg * s > SAME_WAY_COS + CONE_SLACK {
            return true;
        }
        // The narrowest, when the axes are further apart than both half-angles together.
        g < c - CONE_SLACK && g * c + sg * s < HEAD_ON_COS - CONE_SLACK
    }
}

/// Distance from `p` to the segment `b0 b1`.
fn to_segment(p: Vec2, b0: Vec2, b1: Vec2) -> f32 {
    let e = b1 - b0;
    let len2 = e.length_squared();
    let t = if len2 > 0.0 {
        ((p - b0).dot(e) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (b0 + e * t)).length()
}

/// The smallest `t` in `[0, 1]` at which `a0 + t (a1 - a0)` is closer than `d` to the
/// segment `b0 b1`, if any. The points closer than `d` to the segment form a capsule: the
/// discs of radius `d` round its ends and the rectangle between them. The capsule is convex,
/// so the line enters it where it first enters one of the three, each found in closed form.
fn first_within(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2, d: f32) -> Option<f32> {
    if !(d > 0.0) {
        return None;
    }
    let u = a1 - a0;
    let uu = u.length_squared();
    if !(uu > 0.0) {
        // A leg of no length (or not finite): its one point.
        return (to_segment(a0, b0, b1) < d).then_some(0.0);
    }
    let entry = disc_entry(a0, u, uu, b0, d)
        .into_iter()
        .chain(disc_entry(a0, u, uu, b1, d))
        .chain(band_entry(a0, u, b0, b1, d))
        .fold(f32::INFINITY, f32::min);
    (entry <= 1.0).then(|| entry.max(0.0))
}

/// Where the line `a0 + t u` (`uu` = |u|², above 0) first comes closer than `d` to `c`, for
/// `t` up to 1 (at most 0 when it starts closer); `None` if it does not before `t = 1`.
fn disc_entry(a0: Vec2, u: Vec2, uu: f32, c: Vec2, d: f32) -> Option<f32> {
    let w = a0 - c;
    let b = w.dot(u);
    let k = w.length_squared() - d * d;
    if k < 0.0 {
        return Some(0.0);
    }
    let disc = b * b - uu * k;
    if !(disc > 0.0) || b >= 0.0 {
        // Never closer than `d`, or moving away from `c` from outside the disc.
        return None;
    }
    // The nearer root of uu t² + 2 b t + k, in the form that does not cancel (b < 0).
    let t = k / (-b + disc.sqrt());
    (t <= 1.0).then_some(t)
}

/// Where the line `a0 + t u` first enters the rectangle of the points within `d` of the line
/// through `b0 b1` whose projection falls between them, for `t` up to 1 (at most 0 when it
/// starts inside); `None` if it does not before `t = 1`, or the segment has no length.
fn band_entry(a0: Vec2, u: Vec2, b0: Vec2, b1: Vec2, d: f32) -> Option<f32> {
    let e = b1 - b0;
    let len = e.length();
    if !(len > 0.0) {
        return None;
    }
    let along = e / len;
    let across = along.perp();
    let w = a0 - b0;
    // Along the segment: 0 to len; across: -d to d (open).
    let (s0, s1) = (w.dot(along), u.dot(along));
    let (h0, h1) = (w.dot(across), u.dot(across));
    let (lo_s, hi_s) = span(s0, s1, 0.0, len)?;
    let (lo_h, hi_h) = span(h0, h1, -d, d)?;
    let (lo, hi) = (lo_s.max(lo_h), hi_s.min(hi_h));
    (lo < hi && lo <= 1.0 && hi > 0.0).then_some(lo)
}

/// The `t` for which `v0 + t v1` lies between `lo` and `hi`: an interval (possibly
/// unbounded), `None` when empty.
fn span(v0: f32, v1: f32, lo: f32, hi: f32) -> Option<(f32, f32)> {
    if v1 == 0.0 {
        return (v0 >= lo && v0 <= hi).then_some((f32::NEG_INFINITY, f32::INFINITY));
    }
    let (t0, t1) = ((lo - v0) / v1, (hi - v0) / v1);
    let range = (t0.min(t1), t0.max(t1));
    (range.0 <= range.1).then_some(range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn first_within_finds_the_entry_into_the_band() {
        // Along x from -10 to 10, a vertical segment at x = 0: within 2 from x = -2.
        let t = first_within(
            Vec2::new(-10.0, 0.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(0.0, -5.0),
            Vec2::new(0.0, 5.0),
            2.0,
        )
        .unwrap();
        assert!((t - 0.4).abs() < 1e-4, "{t}");
        // Parallel and 3 apart: never within 2.
        assert!(
            first_within(
                Vec2::new(-10.0, 0.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(-10.0, 3.0),
                Vec2::new(10.0, 3.0),
                2.0,
            )
            .is_none()
        );
        // Already within at the start.
        assert_eq!(
            first_within(
                Vec2::ZERO,
                Vec2::X,
                Vec2::new(0.0, 1.0),
                Vec2::new(1.0, 1.0),
                2.0
            ),
            Some(0.0)
        );
    }

    /// The first `t` found by searching: the least distance by a ternary search, then the
    /// first crossing of `d` before it by bisection (slow, but plainly right for a distance
    /// convex in `t`).
    fn searched(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2, d: f32) -> (Option<f32>, f32) {
        let at = |t: f32| to_segment(a0.lerp(a1, t), b0, b1);
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        for _ in 0..60 {
            let m1 = lo + (hi - lo) / 3.0;
            let m2 = hi - (hi - lo) / 3.0;
            if at(m1) <= at(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        let least = 0.5 * (lo + hi);
        if at(0.0) < d {
            return (Some(0.0), at(least));
        }
        if !(at(least) < d) {
            return (None, at(least));
        }
        let (mut out, mut inside) = (0.0f32, least);
        for _ in 0..60 {
            let m = 0.5 * (out + inside);
            if at(m) < d {
                inside = m;
            } else {
                out = m;
            }
        }
        (Some(inside), at(least))
    }

    fn point() -> impl Strategy<Value = Vec2> {
        (-20.0f32..20.0, -20.0f32..20.0).prop_map(|(x, y)| Vec2::new(x, y))
    }

    proptest! {
        /// The closed form finds what a search finds, wherever the least distance is not
        /// within rounding of `d` (where either may see a touch the other does not).
        #[test]
        fn first_within_matches_a_search(
            a0 in point(), a1 in point(), b0 in point(), b1 in point(), d in 0.1f32..6.0,
            degenerate in 0u8..6,
        ) {
            // Some legs of no length.
            let a1 = if degenerate == 0 { a0 } else { a1 };
            let b1 = if degenerate == 1 { b0 } else { b1 };
            let (want, least) = searched(a0, a1, b0, b1, d);
            prop_assume!((least - d).abs() > 1e-3);
            let got = first_within(a0, a1, b0, b1, d);
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    // Within a millimetre along the leg.
                    let tol = 1e-3 / (a1 - a0).length().max(1e-3);
                    prop_assert!((g - w).abs() <= tol.max(1e-5), "{g} {w}");
                }
                _ => prop_assert!(false, "{got:?} {want:?}"),
            }
        }
    }
}
