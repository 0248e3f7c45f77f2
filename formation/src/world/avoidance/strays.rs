//! Strays: units that walk straight to their slots through the units of standing formations,
//! which step aside (see [`AvoidanceInput::strays`]); and two strays of different formations
//! meeting head-on where only one fits, of which one backs out (see
//! [`AvoidanceInput::first_in_one_file`]).

use super::search::{NearKey, insert_nearest};
use super::{AvoidanceInput, Heading};
use cohort_steering::Vec2;

/// Distance (metres) from its standing slot beyond which a unit walking to it counts as
/// straying (see [`AvoidanceInput::strays`]).
const STRAY_DISTANCE: f32 = 2.0;

/// Radii (at least [`SINGLE_STRAY_MIN`] metres) from its slot beyond which a single unit held
/// where it stands counts as straying (see [`AvoidanceInput::strays`]).
const SINGLE_STRAY_RADII: f32 = 2.0;

/// Least distance (metres) from its slot at which a held single unit strays.
const SINGLE_STRAY_MIN: f32 = 0.1;

/// Fraction of its top speed a stray walks at (slow enough for the standing units it passes
/// to step aside in time).
pub(super) const STRAY_SPEED: f32 = 0.5;

/// Fraction of its top speed a member left behind by its formation walks out of the crowd
/// holding it at (the crowd's units, waiting their own turn, have little room to step aside).
pub(super) const STRAGGLER_SPEED: f32 = 0.35;

/// Speed (m/s) below which a member left behind by its formation counts as held where it is
/// (see [`AvoidanceInput::strays`]); one walking faster after its formation is left to its
/// steering.
const HELD_SPEED: f32 = 0.3;

impl AvoidanceInput<'_> {
    /// Whether unit `i` strays: it walks to a slot that stands still, more than
    /// [`STRAY_DISTANCE`] away (a member that ended beyond another formation's standing box,
    /// or was pushed far off its place), or it was left behind by its marching formation
    /// ([`Heading::Straggling`]) and stands held (slower than [`HELD_SPEED`]: in another
    /// formation's crowd; it walks at [`STRAGGLER_SPEED`]). Like a single opening a lane, it
    /// walks through the units of standing formations, which take all of the avoidance
    /// between them and step aside: standing formations close around it otherwise, and it
    /// stays outside its own for good (a member left behind, until its formation arrives).
    /// A single unit strays too when it stands held (slower than [`HELD_SPEED`]) more than
    /// [`SINGLE_STRAY_RADII`] radii from its slot: a single's slot leads it on its way by
    /// its anchor's lead (1.15 m for a unit of radius 0.5 at 1.3 m/s), so that is any single
    /// held on its way, and one pushed off the spot it stands on. In a crowd of arrived
    /// units its neighbours' pushes balanced its pull to its goal and left it standing short
    /// of it (two such singles, each in the other's way, stood for good). Walking as a stray,
    /// it is no longer held, and strays again in the next tick it is held: a single pressing
    /// through a crowd does so in steps of a tick or two.
    pub(super) fn strays(&self, i: usize) -> bool {
        let (Some(&(goal, _)), Some(&heading), Some(&at)) = (
            self.goals.get(i),
            self.headings.get(i),
            self.positions.get(i),
        ) else {
            return false;
        };
        let group = self.groups.of(i);
        let held = || {
            self.velocities
                .get(i)
                .is_some_and(|v| v.length_squared() < HELD_SPEED * HELD_SPEED)
        };
        let size = self.runs.map_or(0, |r| r.size_of(group));
        match heading {
            Heading::StillSlot | Heading::MovingSlot if size == 1 => {
                let radius = self.radii.get(i).copied().unwrap_or(0.0);
                let far = (SINGLE_STRAY_RADII * radius).max(SINGLE_STRAY_MIN);
                (goal - at).length_squared() > far * far && held()
            }
            Heading::StillSlot => {
                size > 1 && (goal - at).length_squared() > STRAY_DISTANCE * STRAY_DISTANCE
            }
            Heading::Straggling => size > 1 && held(),
            Heading::Detour | Heading::MovingSlot => false,
        }
    }
}

/// Metres of gap between two strays within which they meet (see
/// [`AvoidanceInput::first_in_one_file`]).
const MEET_GAP: f32 = 1.0;

/// Files of the wider of two strays that a passage must hold side by side for them to pass
/// each other in it.
const PASSING_FILES: f32 = 2.0;

/// Most strays one stray records that it backs out for at once (more cannot stand within a
/// metre of it in a passage one file wide).
const MOST_YIELDED_TO: usize = 8;

/// The strays a stray backs out for this tick ([`AvoidanceInput::one_file_meetings`]), kept
/// so that each pair's test is made once, not once per use of the neighbour.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct YieldsTo {
    indices: [u32; MOST_YIELDED_TO],
    count: usize,
}

impl YieldsTo {
    /// Whether it backs out for unit `j`.
    pub(super) fn contains(&self, j: usize) -> bool {
        self.indices
            .get(..self.count)
            .is_some_and(|found| found.iter().any(|&k| k as usize == j))
    }

    fn push(&mut self, j: usize) {
        if let Some(slot) = self.indices.get_mut(self.count) {
            *slot = j as u32;
            self.count += 1;
        }
    }
}

impl AvoidanceInput<'_> {
    /// Whether strays `first` and `second` (by index, `first < second`) of different
    /// formations meet head-on where only one file of them fits: each walks towards the
    /// other (its goal lies beyond where it stands, the other's way), they stand within
    /// [`MEET_GAP`] of touching, and the passage's narrowest cross-section through the
    /// middle of the two (of four directions 45 degrees apart) is narrower than two of the
    /// wider one side by side. Then `first` walks on
    /// and `second` takes all of the avoidance between them and backs out of its way.
    /// Neither can step aside in such a passage, and two strays walk through each other's
    /// standing formations without avoiding each other: two vehicles left behind by their
    /// formations, each on its way back to its slot, met nose to nose in a gap one vehicle
    /// wide, and neither moved again. The test reads both units alike, so the two agree.
    pub(super) fn first_in_one_file(&self, first: usize, second: usize) -> bool {
        let (Some(&p), Some(&q), Some(&rp), Some(&rq)) = (
            self.positions.get(first),
            self.positions.get(second),
            self.radii.get(first),
            self.radii.get(second),
        ) else {
            return false;
        };
        let (Some(&(gp, _)), Some(&(gq, _))) = (self.goals.get(first), self.goals.get(second))
        else {
            return false;
        };
        let way = q - p;
        let d = way.length();
        if !(first < second && d <= rp + rq + MEET_GAP && d > 1e-6) {
            return false;
        }
        let group = |k: usize| self.groups.of(k);
        if group(first) == group(second) || !(way.dot(gp - p) > 0.0 && way.dot(gq - q) < 0.0) {
            return false;
        }
        // The passage's narrowest cross-section through the middle of the two, of four
        // directions 45 degrees apart (the line between two units squeezing past each other
        // in a gap may cross it at a slant).
        let middle = p + way * 0.5;
        let need = PASSING_FILES * 2.0 * rp.max(rq);
        let run = |dir: Vec2| crate::world::narrows::free_run(self.map, middle, dir, need);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        [Vec2::X, Vec2::new(h, h), Vec2::Y, Vec2::new(-h, h)]
            .into_iter()
            .any(|dir| run(dir) + run(-dir) < need)
    }

    /// For stray `i`: puts every stray of another formation it meets in one file and comes
    /// second to ([`Self::first_in_one_file`]) among its `nearest` (at most `cap`), and
    /// drops those it comes first to. Returns those it comes second to.
    pub(super) fn one_file_meetings(
        &self,
        i: usize,
        search: &crate::world::units::Search<'_>,
        cap: usize,
        nearest: &mut Vec<NearKey>,
    ) -> YieldsTo {
        let mut second = YieldsTo::default();
        let (Some(&at), Some(&radius)) = (self.positions.get(i), self.radii.get(i)) else {
            return second;
        };
        let reach = radius + self.limits.0 + MEET_GAP;
        let group = |k: usize| self.groups.of(k);
        let own = group(i);
        // Squad-mates (most of the units near) are rejected first, by their group alone.
        let other_stray = |j: usize| group(j) != own && self.strays(j);
        search.for_each_in_radius(at, reach, |j, p| {
            let j = j as usize;
            if j < i && other_stray(j) && self.first_in_one_file(j, i) {
                second.push(j);
                if !nearest.iter().any(|k| k.index() as usize == j) {
                    insert_nearest(
                        nearest,
                        cap,
                        NearKey::new((p - at).length_squared(), j as u32),
                    );
                }
            }
        });
        nearest.retain(|k| {
            let j = k.index() as usize;
            !(j > i && other_stray(j) && self.first_in_one_file(i, j))
        });
        second
    }
}
