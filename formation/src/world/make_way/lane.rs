//! The lane a moving top-level formation opens through standing ones (see
//! `World::open_lanes`): the members of another formation whose slots lie in it step aside.

use cohort_steering::Vec2;

use super::root_index::RootEntry;

/// How far ahead of a mover's front (metres, plus one second of travel) the lane opens.
pub(super) const LANE_AHEAD: f32 = 3.0;
/// How far behind a mover's rear the lane stays open.
pub(super) const LANE_BEHIND: f32 = 1.0;
/// Gap left between a mover's side and a member standing aside.
pub(super) const LANE_MARGIN: f32 = 0.3;
/// Slowest anchor speed (m/s) at which a small group held back by its own members still opens
/// a lane through standing formations ([`Lane::creeping`]).
pub(super) const CREEP_SPEED: f32 = 0.05;
/// Least metres outside the circle round its pattern its farthest member must stand for a
/// small group on the move to open a lane back to it ([`Lane::back_to_members`]).
pub(super) const LAGGARD_LAG: f32 = 1.0;
/// Most metres a creeping group's lane reaches back for its lagging members.
pub(super) const MAX_CREEP_LAG: f32 = 8.0;
/// Slowest anchor speed at which a formation counts as moving through others.
pub(super) const MOVING_SPEED: f32 = 0.2;

/// The lane a moving top-level formation needs, in its heading's frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lane {
    pub(super) origin: Vec2,
    pub(super) forward: Vec2,
    pub(super) left: Vec2,
    pub(super) half_width: f32,
    pub(super) behind: f32,
    pub(super) ahead: f32,
    pub(super) speed: f32,
    /// Whether it opens through standing formations only ([`Lane::creeping`]).
    pub(super) creeping: bool,
}

impl Lane {
    /// The lane of a top-level formation whose anchor stands at `position` moving at
    /// `velocity`, with the pattern's `half_extent`; `None` unless it is `moving` faster
    /// than [`MOVING_SPEED`].
    pub(super) fn new(
        position: Vec2,
        velocity: Vec2,
        half_extent: Vec2,
        moving: bool,
    ) -> Option<Self> {
        if !moving {
            return None;
        }
        let speed = velocity.length();
        if !(speed > MOVING_SPEED) {
            return None;
        }
        Some(Self::heading(
            position,
            velocity,
            speed,
            half_extent,
            0.0,
            false,
        ))
    }

    /// The lane of a small group whose anchor creeps, held back by its own members' lag to
    /// between [`CREEP_SPEED`] and [`MOVING_SPEED`]: it moves aside the members of standing
    /// formations only. Members held at the edge of a standing formation's box, their slots
    /// beyond it, held their anchor there, so no lane opened and the group stood for good
    /// (one of two thousand random mixtures of singles, small groups and squads). Through
    /// moving formations it opens none, and its units avoid everyone as before: in a march of
    /// 10,000 units in groups of 4, lanes of groups creeping in a jam, through the groups
    /// round them, held everyone up. The lane reaches back by the members' mean `lag` (at most
    /// [`MAX_CREEP_LAG`]). `None` otherwise.
    pub(super) fn creeping(
        position: Vec2,
        velocity: Vec2,
        half_extent: Vec2,
        moving: bool,
        lag: f32,
    ) -> Option<Self> {
        let speed = velocity.length();
        if !(moving && speed > CREEP_SPEED && speed <= MOVING_SPEED) {
            return None;
        }
        // Back to where its members lag: the standing units between them and their slots
        // step aside.
        let back = if lag > 0.0 {
            lag.min(MAX_CREEP_LAG)
        } else {
            0.0
        };
        Some(Self::heading(
            position,
            velocity,
            speed,
            half_extent,
            back,
            true,
        ))
    }

    /// The lane back to its lagging members that a small group on the move opens through
    /// standing formations only, beside this, its own lane ([`Lane::new`]), while its
    /// farthest member stands `spread` from the anchor, at least [`LAGGARD_LAG`] outside the
    /// circle round its pattern (of radius `half_extent`'s length: a member on its slot
    /// stands inside it): this lane reaching back that much further (at most
    /// [`MAX_CREEP_LAG`]). A pair walking through a standing squad of 48 had one unit on its
    /// slot beyond the squad and the other 5.7 m behind, inside it, held by the standing units
    /// round it; the pair's anchor, leashed to the two, stood (its velocity still that of a
    /// mover), its lane reached no standing unit near the one behind, and the pair stood for
    /// good. `None` otherwise.
    pub(super) fn back_to_members(&self, half_extent: Vec2, spread: f32) -> Option<Self> {
        let back = spread - half_extent.length();
        (back >= LAGGARD_LAG).then(|| Self {
            behind: self.behind + back.min(MAX_CREEP_LAG),
            creeping: true,
            ..*self
        })
    }

    /// The lane of an anchor at `position` moving at `velocity` (of length `speed`, not 0)
    /// with the pattern's `half_extent`, reaching `back` metres further behind than
    /// [`LANE_BEHIND`]. The pattern's extents are in the anchor's frame; the heading may
    /// differ a little.
    fn heading(
        position: Vec2,
        velocity: Vec2,
        speed: f32,
        half_extent: Vec2,
        back: f32,
        creeping: bool,
    ) -> Self {
        let forward = velocity / speed;
        Self {
            origin: position,
            forward,
            left: forward.perp(),
            half_width: half_extent.y,
            behind: half_extent.x + LANE_BEHIND + back,
            ahead: half_extent.x + LANE_AHEAD + speed,
            speed,
            creeping,
        }
    }

    /// Whether formation `b` is in the lane's way: its bounding circle overlaps the lane,
    /// and it is not going the same way at a similar speed (following is not passing).
    pub(super) fn reaches(&self, b: &RootEntry) -> bool {
        // The cheapest test first: in a marching army most formations near a mover follow.
        // A single on the move walks its own path from where it stands: moving its target
        // aside would only hold it where it is, so avoidance alone takes it round the mover.
        if b.moving
            && (self.creeping || b.single || !(b.velocity.dot(self.forward) < 0.5 * self.speed))
        {
            return false;
        }
        let r = b.circle_radius + LANE_MARGIN;
        let rel = b.position - self.origin;
        let along = rel.dot(self.forward);
        if along < -self.behind - r || along > self.ahead + r {
            return false;
        }
        // (Written so that NaN passes, as every test above lets it.)
        !(rel.dot(self.left).abs() > self.half_width + r)
    }

    /// Whether no body whose position plus radius lies within `reach` of `centre` stands
    /// in the lane, so [`Self::aside`] leaves all of them where they are (with a centimetre
    /// to spare for rounding).
    pub(super) fn misses(&self, centre: Vec2, reach: f32) -> bool {
        let reach = reach + 0.01;
        let rel = centre - self.origin;
        let along = rel.dot(self.forward);
        along < -self.behind - reach
            || along > self.ahead + reach
            || rel.dot(self.left).abs() >= self.half_width + reach + LANE_MARGIN
    }

    /// `p` moved sideways to the nearer edge of the lane if a body of `radius` there would
    /// stand in it; `p` itself otherwise.
    pub(super) fn aside(&self, p: Vec2, radius: f32) -> Vec2 {
        let rel = p - self.origin;
        let along = rel.dot(self.forward);
        if along < -self.behind || along > self.ahead {
            return p;
        }
        let lat = rel.dot(self.left);
        let need = self.half_width + radius + LANE_MARGIN;
        if lat.abs() >= need {
            return p;
        }
        let side = if lat < 0.0 { -1.0 } else { 1.0 };
        p + self.left * (side * need - lat)
    }
}
