//! Closed-up ranks that follow their path: where a formation has closed up into ranks for a
//! passage (`narrows.rs`), each rank stands on the path as far ahead of (or behind) the
//! anchor as its place in the pattern says, square to the path there, instead of on one
//! straight line through the anchor.
//!
//! A column 20 m deep is a rigid bar when laid out round its anchor. Coming to a gap in a
//! wall at an angle, it turns through the gap's mouth at the rate its length allows (its
//! slots must not outrun its members), so its rear ranks sweep across the wall's face beside
//! the gap and its members there press into the wall while its front files through. Laid
//! along the path, the ranks behind the anchor stand where the anchor walked, as a column of
//! march does, and file through the mouth one after another.
//!
//! A rank faces along the chord of the path from its width behind its place to its width
//! ahead, so at a corner of the path the ranks turn one after another instead of each
//! swinging round at the corner's point.
//!
//! The anchor's offset from its path (the sidestep of a formation passing an oncoming one,
//! or the anchor's drift) is kept by every rank, square to the path where the rank stands.

use cohort_steering::Vec2;

use crate::anchor::AnchorPoint;
use crate::formation::{Formation, Motion};

/// Metres along the path over which a slot's velocity is measured.
const VELOCITY_STEP: f32 = 0.25;

/// Least half-chord (metres) a rank faces along (see [`RanksAlong::half_chord`]).
const MIN_HALF_CHORD: f32 = 2.0;

/// Where along its path the anchor of a formation in closed-up ranks stands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RanksAlong<'a> {
    path: &'a [Vec2],
    /// The leg the anchor is on: from `path[leg - 1]` to `path[leg]`.
    leg: usize,
    /// The anchor's distance along that leg from its start (may be a little out of it).
    along: f32,
    /// The anchor's offset to the left of the path.
    shift: f32,
    /// The anchor's speed along its path (every rank moves along the path at it).
    speed: f32,
    /// Half the chord a rank faces along: the path from this far behind its place to this far
    /// ahead (the ranks' width, at least [`MIN_HALF_CHORD`]), so it turns through a corner of
    /// the path instead of swinging round at the corner's point.
    half_chord: f32,
}

impl<'a> RanksAlong<'a> {
    /// The frame of formation `f` when its ranks follow its path: moving, closed up into
    /// ranks for a passage, top-level, with a path of at least one leg; `None` otherwise (its
    /// slots then stand round its anchor).
    fn of(f: &'a Formation) -> Option<Self> {
        if !(f.in_column && f.narrowed.is_some() && f.motion == Motion::Moving)
            || f.parent.is_some()
            || f.path.len() < 2
        {
            return None;
        }
        let leg = f.path_index.clamp(1, f.path.len() - 1);
        let (a, b) = (*f.path.get(leg - 1)?, *f.path.get(leg)?);
        let dir = (b - a).try_normalize()?;
        let from_start = f.anchor.position - a;
        let n = f.members.len().max(1);
        let width = f.narrowed.as_ref().map_or(0.0, |p| p.width(n));
        let frame = Self {
            path: &f.path,
            leg,
            along: from_start.dot(dir),
            shift: from_start.dot(dir.perp()),
            speed: f.anchor.velocity.dot(dir),
            half_chord: width.max(MIN_HALF_CHORD),
        };
        (frame.along.is_finite() && frame.shift.is_finite() && frame.speed.is_finite())
            .then_some(frame)
    }

    /// The frame a slot `ahead` metres ahead of the anchor (behind for negative) stands in:
    /// its point on the path, shifted as the anchor is, facing along the path there. Its
    /// slot's lateral offset and facing are laid out in it as round an anchor.
    fn frame_at(&self, ahead: f32) -> AnchorPoint {
        let (point, leg_dir) = self.point_at(ahead);
        let h = self.half_chord;
        let chord = self.point_at(ahead + h).0 - self.point_at(ahead - h).0;
        let dir = chord.try_normalize().unwrap_or(leg_dir);
        AnchorPoint {
            position: point + dir.perp() * self.shift,
            velocity: dir * self.speed,
            orientation: dir,
        }
    }

    /// The slot's world position, velocity and facing for a slot of pattern offset `offset`
    /// and facing `facing` (as [`AnchorPoint::slot_position`] and
    /// [`AnchorPoint::slot_facing`]; it moves along the path where it stands).
    fn place(&self, offset: Vec2, facing: Vec2) -> (Vec2, Vec2, Vec2) {
        let frame = self.frame_at(offset.x);
        let across = Vec2::new(0.0, offset.y);
        let position = frame.slot_position(across);
        // Where the slot stands a little further on, as the anchor walks: through a turn a
        // slot on its inside moves slower than the anchor, one on its outside faster.
        let on = self
            .frame_at(offset.x + VELOCITY_STEP)
            .slot_position(across);
        let velocity = (on - position) * (self.speed / VELOCITY_STEP);
        let velocity = if velocity.is_finite() {
            velocity
        } else {
            frame.velocity
        };
        (position, velocity, frame.slot_facing(facing))
    }

    /// The point of the path `ahead` metres from the anchor's foot along it, and the path's
    /// direction there; beyond either end, the end leg's line continued.
    fn point_at(&self, ahead: f32) -> (Vec2, Vec2) {
        let path = self.path;
        let mut leg = self.leg;
        let mut u = self.along + ahead;
        // The last direction seen, for legs of no length.
        let mut dir = Vec2::X;
        // The walk moves one way only, a leg at a time: it ends within the path's legs.
        for _ in 0..=path.len() {
            let (Some(&a), Some(&b)) = (path.get(leg.wrapping_sub(1)), path.get(leg)) else {
                break;
            };
            let len = (b - a).length();
            dir = (b - a).try_normalize().unwrap_or(dir);
            if u < 0.0 && leg > 1 {
                leg -= 1;
                let prev = path
                    .get(leg - 1)
                    .zip(path.get(leg))
                    .map_or(0.0, |(&p, &q)| (q - p).length());
                u += prev;
                continue;
            }
            if u > len && leg + 1 < path.len() {
                u -= len;
                leg += 1;
                continue;
            }
            return (a + dir * u, dir);
        }
        // Not reached (see above); the anchor's leg's end, should it be.
        let at = path.get(self.leg).copied().unwrap_or(Vec2::ZERO);
        (at, dir)
    }
}

/// Where a formation's slots stand this tick: along its path for closed-up ranks on the
/// move ([`RanksAlong`]), round its anchor otherwise. What the slot targets, the slot
/// assignment and [`Formation::slot_world_position`] all place slots by.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SlotFrame<'a> {
    /// Ranks along the path.
    Along(RanksAlong<'a>),
    /// Round the anchor.
    Anchor(AnchorPoint),
}

impl<'a> SlotFrame<'a> {
    /// The frame of formation `f`'s slots this tick.
    pub(crate) fn of(f: &'a Formation) -> Self {
        RanksAlong::of(f).map_or(Self::Anchor(f.anchor), Self::Along)
    }

    /// A slot's world position, velocity and facing for its pattern offset and facing.
    pub(crate) fn place(&self, offset: Vec2, facing: Vec2) -> (Vec2, Vec2, Vec2) {
        match self {
            Self::Along(ranks) => ranks.place(offset, facing),
            Self::Anchor(anchor) => (
                anchor.slot_position(offset),
                anchor.velocity,
                anchor.slot_facing(facing),
            ),
        }
    }

    /// A slot's world position for its pattern offset.
    pub(crate) fn position(&self, offset: Vec2) -> Vec2 {
        match self {
            Self::Along(ranks) => ranks
                .frame_at(offset.x)
                .slot_position(Vec2::new(0.0, offset.y)),
            Self::Anchor(anchor) => anchor.slot_position(offset),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(path: &[Vec2], leg: usize, along: f32, shift: f32) -> RanksAlong<'_> {
        RanksAlong {
            path,
            leg,
            along,
            shift,
            speed: 0.0,
            half_chord: 2.0,
        }
    }

    #[test]
    fn ranks_stand_on_the_path_round_its_corner() {
        // East 10 m, then north 10 m; the anchor 2 m up the second leg.
        let path = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)];
        let f = frame(&path, 2, 2.0, 0.0);
        let close = |a: Vec2, b: Vec2| (a - b).length() < 1e-5;
        let (p, d) = f.point_at(0.0);
        assert!(
            close(p, Vec2::new(10.0, 2.0)) && close(d, Vec2::Y),
            "{p:?} {d:?}"
        );
        // 5 m behind: 3 m back along the first leg.
        let (p, d) = f.point_at(-5.0);
        assert!(
            close(p, Vec2::new(7.0, 0.0)) && close(d, Vec2::X),
            "{p:?} {d:?}"
        );
        // Beyond the path's start and end: its end legs continued.
        let (p, _) = f.point_at(-14.0);
        assert!(close(p, Vec2::new(-2.0, 0.0)), "{p:?}");
        let (p, _) = f.point_at(10.0);
        assert!(close(p, Vec2::new(10.0, 12.0)), "{p:?}");
    }

    #[test]
    fn a_rank_keeps_the_anchors_sidestep_and_its_own_place_across() {
        let path = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)];
        // The anchor 1 m right of the second leg (at x = 11).
        let f = frame(&path, 2, 2.0, -1.0);
        // A slot 5 m behind and 0.5 m left: on the first leg, 1 m right of it, then 0.5 m
        // left of that (north is left of east).
        let (p, _, facing) = f.place(Vec2::new(-5.0, 0.5), Vec2::X);
        assert!((p - Vec2::new(7.0, -0.5)).length() < 1e-5, "{p:?}");
        assert!((facing - Vec2::X).length() < 1e-5, "{facing:?}");
    }
}
