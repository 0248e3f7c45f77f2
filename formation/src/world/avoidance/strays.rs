//! Strays: units that walk straight to their slots through the units of standing formations,
//! which step aside (see [`AvoidanceInput::strays`]).

use super::{AvoidanceInput, Heading, NO_GROUP};

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
        let group = self.groups.get(i).copied().unwrap_or(NO_GROUP);
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
