//! The tactical layer: dynamic slot patterns, playbooks and bounding overwatch.
//!
//! It sits above the formation layer: each tick, before formations move their anchors, the
//! world's tactics stage advances the running plays and overwatch advances, and after the
//! formation stage it hands the members of those formations their moving slot targets (with
//! the slots' velocities, so members keep pace). Formations never call into it.
//!
//! - [`track`]: keyframed slot tracks (step, linear, Catmull-Rom) with exact derivatives;
//! - [`reactive`]: slots a routine computes each tick — the [`SlotRoutine`] trait a game
//!   implements, and the built-in [`Reaction`]s (follow the ball, mark, interpose);
//! - [`playbook`]: plays of timed phases mixing fixed, tracked and reactive slots, authored in
//!   RON ([`mod@file`]) and validated into a [`ValidPlaybook`];
//! - [`play`]: a play being run (clock, chaining, slot poses);
//! - [`overwatch`]: bounding overwatch over cover points.
//!
//! Orders start them ([`crate::Order::RunPlay`], [`crate::Order::BoundingOverwatch`]); any
//! other order to the formation (move, halt, cancel, ...) interrupts them and the formation
//! goes on from where its members are.

pub mod error;
pub mod file;
pub mod overwatch;
pub mod play;
pub mod playbook;
pub mod reactive;
pub mod track;

use serde::{Deserialize, Serialize};

pub use error::TacticsError;
pub use file::load_playbook;
pub use overwatch::{OverwatchRun, OverwatchSettings, SquadRole};
pub use play::PlayRun;
pub use playbook::{Phase, Play, Playbook, SlotMotion, ValidPlaybook};
pub use reactive::{Focus, PlayView, Reaction, SlotRoutine};
pub use track::{Interpolation, Keyframe, SlotPose, SlotTrack};

/// What a formation's tactics are doing (one per formation at most).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Tactic {
    /// Running a play.
    Play(PlayRun),
    /// Advancing by bounding overwatch.
    Overwatch(OverwatchRun),
}

impl Tactic {
    /// The play, if this is one.
    pub fn as_play(&self) -> Option<&PlayRun> {
        match self {
            Tactic::Play(p) => Some(p),
            Tactic::Overwatch(_) => None,
        }
    }

    /// The overwatch advance, if this is one.
    pub fn as_overwatch(&self) -> Option<&OverwatchRun> {
        match self {
            Tactic::Overwatch(o) => Some(o),
            Tactic::Play(_) => None,
        }
    }
}
