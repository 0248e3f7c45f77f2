//! What each stage of the last [`World::step`] or [`World::plan`] call cost, and how much it
//! had to do: [`World::timings`]. Observation only: the clock is read between stages and
//! nothing the simulation computes depends on it, so timing does not change results, and it
//! allocates nothing. Without the `timings` feature (on by default) no clock is read and the
//! times are zero (the counters are kept); turn it off on targets without a clock
//! (`std::time::Instant` panics on `wasm32-unknown-unknown`).

use std::time::Duration;

#[cfg(feature = "timings")]
use std::time::Instant;

/// The stages of a tick, in the order they run (see `docs/architecture.md`, "The tick").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Orders queued since the last tick take effect (paths planned, tactics started).
    Orders,
    /// Running plays and overwatch advances move on (clocks, cover, anchors).
    Tactics,
    /// Anchors move on their paths; slot targets are computed down the formation tree; make
    /// way and passing between formations.
    Formations,
    /// Plays and overwatch advances write their members' slot targets.
    TacticalSlots,
    /// Units are gathered into the tick's frame; blocked ones plan detours; units at a
    /// take-off point launch.
    Gather,
    /// Separation, steering behaviours, reciprocal avoidance and locomotion.
    Steering,
    /// Non-penetration between units and against the map; headings; write-back. Not run by
    /// [`World::plan`](super::World::plan).
    Constraints,
    /// Units in the air move along their arcs and land.
    Flight,
}

/// Number of [`Stage`]s.
pub const STAGE_COUNT: usize = 8;

impl Stage {
    /// Every stage, in the order a tick runs them.
    pub const ALL: [Stage; STAGE_COUNT] = [
        Stage::Orders,
        Stage::Tactics,
        Stage::Formations,
        Stage::TacticalSlots,
        Stage::Gather,
        Stage::Steering,
        Stage::Constraints,
        Stage::Flight,
    ];

    /// The stage's name in reports (`cohort bench`, the viewer's HUD).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Orders => "orders",
            Stage::Tactics => "tactics",
            Stage::Formations => "formations",
            Stage::TacticalSlots => "tactical_slots",
            Stage::Gather => "gather",
            Stage::Steering => "steering",
            Stage::Constraints => "constraints",
            Stage::Flight => "flight",
        }
    }
}

/// The last `step` (or `plan`) call, stage by stage: wall-clock time summed over its
/// sub-steps, and counters of the work done (of its last sub-step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepTimings {
    times: [Duration; STAGE_COUNT],
    /// Ticks (sub-steps) the call took.
    pub ticks: u32,
    /// Units on the ground, gathered and steered.
    pub steered: usize,
    /// Units in the air when the gather looked.
    pub airborne: usize,
    /// Formations, top-level and nested.
    pub formations: usize,
}

impl StepTimings {
    /// Time spent in `stage` (zero without the `timings` feature).
    pub fn stage(&self, stage: Stage) -> Duration {
        self.times[stage as usize]
    }

    /// Every stage with its time, in tick order.
    pub fn stages(&self) -> impl Iterator<Item = (Stage, Duration)> + '_ {
        Stage::ALL.into_iter().zip(self.times)
    }

    /// Time spent in all stages.
    pub fn total(&self) -> Duration {
        self.times.iter().sum()
    }
}

/// Times stages one after another: each [`StageClock::lap`] charges the time since the last
/// one to a stage.
pub(super) struct StageClock {
    #[cfg(feature = "timings")]
    last: Instant,
}

impl StageClock {
    /// Starts the clock.
    #[inline]
    pub(super) fn start() -> Self {
        Self {
            #[cfg(feature = "timings")]
            last: Instant::now(),
        }
    }

    /// Charges the time since the last lap (or the start) to `stage`.
    #[inline]
    pub(super) fn lap(&mut self, timings: &mut StepTimings, stage: Stage) {
        #[cfg(feature = "timings")]
        {
            let now = Instant::now();
            timings.times[stage as usize] += now - self.last;
            self.last = now;
        }
        #[cfg(not(feature = "timings"))]
        let _ = (timings, stage);
    }
}
