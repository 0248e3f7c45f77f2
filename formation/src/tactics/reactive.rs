//! Reactive slots: slot targets a controlling routine computes every tick instead of reading
//! them from a track (Millington: "the slot movement itself can be determined dynamically by a
//! controlling AI routine").
//!
//! A game implements [`SlotRoutine`] and drives a running play's reactive slots with
//! [`crate::World::drive_play_slots`] before a step. Plays authored in RON use the built-in
//! [`Reaction`]s (follow the ball, mark an opponent, interpose), which implement the same
//! routine.

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use super::track::SlotPose;
use crate::formation::Member;
use crate::ids::{FormationId, UnitId};
use crate::world::World;

/// Something a reactive slot watches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Focus {
    /// The play's ball (its track, in the play's frame).
    Ball,
    /// A fixed point in the play's frame (a goal mouth, a rally point).
    Point(Vec2),
    /// The anchor of the first formation (in key order) with this name.
    Formation(String),
    /// Unit `index` of the first formation with this name, counting its own units in
    /// creation order: an opponent to mark.
    Unit {
        /// The formation's name.
        formation: String,
        /// Which of its units.
        index: usize,
    },
}

/// A built-in reactive slot behaviour. Distances are world units; points in the play's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reaction {
    /// Keep `offset` from the ball, facing it; with a `leash` > 0, never farther than the leash
    /// from `home`.
    FollowBall {
        /// Offset from the ball, in the play's frame.
        offset: Vec2,
        /// Where the player belongs.
        #[serde(default)]
        home: Vec2,
        /// Largest distance from `home` (0: unleashed).
        #[serde(default)]
        leash: f32,
    },
    /// Goal-side marking: stand `distance` from `who` on the line toward `guard`, facing `who`.
    Mark {
        /// The player marked.
        who: Focus,
        /// What the marker protects (stands between it and `who`).
        guard: Focus,
        /// How close to mark.
        distance: f32,
    },
    /// Stand on the segment from `a` to `b`, at `fraction` of the way (0 at `a`), facing `a`.
    Interpose {
        /// One end (faced).
        a: Focus,
        /// The other end.
        b: Focus,
        /// Where on the segment, 0..=1.
        fraction: f32,
    },
}

/// What a [`SlotRoutine`] sees: the world, the play's frame and clock, and its ball.
#[derive(Clone, Copy, Debug)]
pub struct PlayView<'a> {
    /// The world (read only).
    pub world: &'a World,
    /// The formation running the play.
    pub formation: FormationId,
    /// Origin of the play's frame, world space.
    pub origin: Vec2,
    /// The play's `+x` axis, world space (unit).
    pub orientation: Vec2,
    /// Seconds since the current phase began.
    pub phase_time: f32,
    /// Index of the current phase.
    pub phase: usize,
    /// The ball, in the play's frame.
    pub ball: Vec2,
}

impl PlayView<'_> {
    /// A world point in the play's frame.
    pub fn to_local(&self, p: Vec2) -> Vec2 {
        let d = p - self.origin;
        let o = self.orientation;
        Vec2::new(d.dot(o), d.dot(o.perp()))
    }

    /// A play-frame point in the world.
    pub fn to_world(&self, p: Vec2) -> Vec2 {
        self.origin + self.orientation.rotate(p)
    }

    /// Where `focus` is, in the play's frame; `None` when it names nothing that exists.
    pub fn locate(&self, focus: &Focus) -> Option<Vec2> {
        match focus {
            Focus::Ball => Some(self.ball),
            Focus::Point(p) => Some(*p),
            Focus::Formation(name) => {
                let id = formation_named(self.world, name)?;
                Some(self.to_local(self.world.formation(id)?.anchor.position))
            }
            Focus::Unit { formation, index } => {
                let id = formation_named(self.world, formation)?;
                let u = nth_unit(self.world, id, *index)?;
                Some(self.to_local(self.world.unit(u)?.body.position))
            }
        }
    }
}

/// The first formation (in key order) called `name`.
pub fn formation_named(world: &World, name: &str) -> Option<FormationId> {
    world
        .formations()
        .find(|(_, f)| f.name == name)
        .map(|(id, _)| id)
}

/// Unit number `index` among formation `id`'s own units in key (creation) order, which does
/// not change when the formation reassigns its slots. Found without allocating (opponent
/// formations are small: quadratic in their size).
fn nth_unit(world: &World, id: FormationId, index: usize) -> Option<UnitId> {
    let members = &world.formation(id)?.members;
    let units = || {
        members.iter().filter_map(|m| match *m {
            Member::Unit(u) => Some(u),
            Member::Formation(_) => None,
        })
    };
    units().find(|&u| units().filter(|&v| v < u).count() == index)
}

/// A controlling routine for reactive slots, implemented by a game (or by the built-in
/// [`Reaction`]s). It is asked once per reactive slot per tick.
pub trait SlotRoutine {
    /// The target of reactive slot `slot` (its index among the play's slots), in the play's
    /// frame. The velocity may be left zero: the world derives it from the change since the
    /// last tick. `None` keeps the slot where it was.
    fn slot_target(&mut self, slot: usize, view: &PlayView<'_>) -> Option<SlotPose>;
}

impl Reaction {
    /// Checks the numbers (finite, distances not negative, fraction in `[0, 1]`).
    pub fn check(&self) -> Result<(), String> {
        let finite = |v: Vec2| v.is_finite();
        let focus_ok = |f: &Focus| match f {
            Focus::Point(p) => finite(*p),
            _ => true,
        };
        match self {
            Reaction::FollowBall {
                offset,
                home,
                leash,
            } => {
                if !(finite(*offset) && finite(*home) && leash.is_finite() && *leash >= 0.0) {
                    return Err("offset and home must be finite, leash finite and >= 0".into());
                }
            }
            Reaction::Mark {
                who,
                guard,
                distance,
            } => {
                if !(focus_ok(who) && focus_ok(guard) && distance.is_finite() && *distance >= 0.0) {
                    return Err("points must be finite, distance finite and >= 0".into());
                }
            }
            Reaction::Interpose { a, b, fraction } => {
                if !(focus_ok(a) && focus_ok(b) && (0.0..=1.0).contains(fraction)) {
                    return Err("points must be finite, fraction in [0, 1]".into());
                }
            }
        }
        Ok(())
    }

    /// The slot this reaction wants, in the play's frame.
    pub fn evaluate(&self, view: &PlayView<'_>) -> Option<SlotPose> {
        match self {
            Reaction::FollowBall {
                offset,
                home,
                leash,
            } => {
                let mut p = view.ball + *offset;
                if *leash > 0.0 {
                    p = *home + (p - *home).clamp_length_max(*leash);
                }
                Some(SlotPose::still(p, view.ball - p))
            }
            Reaction::Mark {
                who,
                guard,
                distance,
            } => {
                let w = view.locate(who)?;
                let g = view.locate(guard)?;
                let dir = (g - w).try_normalize().unwrap_or(Vec2::ZERO);
                let p = w + dir * *distance;
                Some(SlotPose::still(p, w - p))
            }
            Reaction::Interpose { a, b, fraction } => {
                let pa = view.locate(a)?;
                let pb = view.locate(b)?;
                let p = pa.lerp(pb, *fraction);
                Some(SlotPose::still(p, pa - p))
            }
        }
    }
}
