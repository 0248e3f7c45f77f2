//! The tick, stage by stage: [`World::step`] (the world moves its units) and [`World::plan`]
//! (the game moves them). `docs/architecture.md` ("The tick") describes the same stages.
//!
//! The formation stages (orders, tactics, formations, tactical slots) work on the formation
//! tree and the units' slot targets. The unit stages pass a [`UnitFrame`] along: the gather
//! returns it (the units on the ground, densely, in key order), steering moves its bodies,
//! the constraints correct them and write them back to the units, and the flight stage reads
//! its count of units in the air. The world keeps the frame between ticks so that its
//! buffers are reused.

use super::constraints::resolve_constraints;
use super::gather::UnitFrame;
use super::jumps::fly_units;
use super::timings::{Stage, StageClock, StepTimings};
use super::units::{Traffic, steer_units};
use super::{MAX_STEP, MAX_SUBSTEPS, World};

/// Who moves the units at the end of a tick.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mover {
    /// The world: steering's moves are constrained and written back ([`World::step`]).
    World,
    /// The game: steering's velocities are only recorded ([`World::plan`]).
    Game,
}

impl World {
    /// Advances the world by `dt` seconds. A `dt` of 0, negative or not finite does nothing
    /// (the tick counter does not move); a `dt` above [`MAX_STEP`] is split into equal
    /// sub-steps (at most [`MAX_SUBSTEPS`]).
    ///
    /// With the `parallel` feature the stages run on rayon's current pool. A call from a
    /// thread outside the pool enters it once (rayon's global job queue then allocates a block
    /// of job slots once in 63 calls); a warm step called inside the pool
    /// (`ThreadPool::install` around the game loop) allocates nothing on any thread.
    pub fn step(&mut self, dt: f32) {
        if dt.is_nan() || dt <= 0.0 || !dt.is_finite() {
            return;
        }
        let limit = MAX_STEP * MAX_SUBSTEPS as f32;
        let dt = dt.min(limit);
        let n = (dt / MAX_STEP).ceil().clamp(1.0, MAX_SUBSTEPS as f32) as u32;
        let h = dt / n as f32;
        self.jump_events.clear();
        self.timings = StepTimings::default();
        super::par::on_pool(|| {
            for _ in 0..n {
                self.tick_once(h, Mover::World);
            }
        });
    }

    /// One tick for a game that moves the units itself (under its own physics): orders,
    /// tactics, formations, detours and steering with avoidance run as in [`World::step`],
    /// but the units stay where they are. Each unit's chosen velocity is then read with
    /// [`World::desired_velocity`] (or all of them with [`World::desired_velocities`]); the
    /// game moves its bodies and writes the results back with
    /// [`World::set_unit_motion`] before the next `plan`. Non-penetration and the headings
    /// are the game's; units in the air still fly their arcs (the world moves them; their
    /// desired velocity is `None`). `dt` is the time until the next `plan`, at most
    /// [`MAX_STEP`] (longer is cut to it); 0, negative or not finite does nothing.
    pub fn plan(&mut self, dt: f32) {
        if dt.is_nan() || dt <= 0.0 || !dt.is_finite() {
            return;
        }
        self.jump_events.clear();
        self.timings = StepTimings::default();
        super::par::on_pool(|| self.tick_once(dt.min(MAX_STEP), Mover::Game));
    }

    /// One tick: every stage in order, each timed into [`World::timings`].
    fn tick_once(&mut self, dt: f32, mover: Mover) {
        debug_assert!(
            self.units.flags_agree(),
            "a unit's flags disagree with its details"
        );
        let mut clock = StageClock::start();
        // 1. Orders queued since the last tick take effect.
        self.apply_orders();
        clock.lap(&mut self.timings, Stage::Orders);
        // 2. Plays and overwatch advances move on.
        self.run_tactics(dt);
        clock.lap(&mut self.timings, Stage::Tactics);
        // 3. Anchors move; slot targets top-down through the formation tree; make way.
        self.update_formations(dt);
        clock.lap(&mut self.timings, Stage::Formations);
        // 4. Plays and overwatch advances place their members' slot targets.
        self.drive_tactical_slots();
        clock.lap(&mut self.timings, Stage::TacticalSlots);
        // 5. The units on the ground into the frame; detours; take-offs.
        let last: UnitFrame = std::mem::take(&mut self.frame);
        let mut frame = self.gather_units(last);
        clock.lap(&mut self.timings, Stage::Gather);
        // 6. Separation, behaviours, avoidance, locomotion: the frame's bodies move.
        let traffic = Traffic::take(&mut self.scratch);
        steer_units(
            &self.terrain,
            &self.settings,
            &traffic,
            &mut self.scratch,
            &mut frame,
            dt,
        );
        traffic.put_back(&mut self.scratch);
        clock.lap(&mut self.timings, Stage::Steering);
        // 7. Non-penetration and the map's geometry; headings; the bodies written back.
        if mover == Mover::World {
            resolve_constraints(
                &mut self.units,
                &self.terrain,
                &self.settings,
                &mut self.scratch,
                &mut frame,
                dt,
            );
        }
        clock.lap(&mut self.timings, Stage::Constraints);
        // 8. Units in the air fly and land.
        fly_units(&mut self.units, &self.terrain, frame.airborne, dt);
        clock.lap(&mut self.timings, Stage::Flight);
        let t = &mut self.timings;
        t.ticks += 1;
        (t.steered, t.airborne) = (frame.ids.len(), frame.airborne);
        t.formations = self.formations.len();
        self.frame = frame;
        self.tick += 1;
    }
}
