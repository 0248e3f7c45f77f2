//! How well the units moved: an accumulator fed one [`UnitSample`] slice per tick, producing a
//! [`Report`] with the keys `cohort run` prints.
//!
//! Every measure is defined in `docs/scenario-format.md` ("What `cohort run` measures"); in
//! short:
//!
//! - slot error: distance from a unit to its slot target, mean and max over the last second;
//! - overlaps: tick-pair events where two units are closer than 95 % of their radii sum, found
//!   with a `cohort_steering::grid::CellGrid` (never all pairs);
//! - penetrations: tick-unit events where a body is more than 10 % of its radius inside an
//!   obstacle, its centre is out of bounds, or its centre crossed a wall since the last tick;
//! - stuck: units that, while their formation was ordered to move and they were away from where
//!   they are bound (a member from its slot; a single, a formation of one, until its move is
//!   done), stayed within one radius of the same spot for 5 s.

pub(crate) mod pairs;
mod report;

pub use report::{Report, TickHash};

use cohort_steering::ops;
use glam::Vec2;

use crate::shapes::MapShapes;

/// Fraction of the radii sum below which two units overlap.
pub const OVERLAP_FRACTION: f32 = 0.95;
/// Fraction of its radius a body may sink into an obstacle before it counts as penetrating.
pub const PENETRATION_TOLERANCE: f32 = 0.1;
/// Seconds without progress, while ordered to move, after which a unit is stuck.
pub const STUCK_SECONDS: f32 = 5.0;
/// Seconds of history the slot error is taken over.
pub const SLOT_ERROR_WINDOW: f32 = 1.0;

/// One unit's state at the end of a tick, as the metrics see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitSample {
    /// A stable, dense index for this unit (its spawn order); never reused after a kill.
    pub index: usize,
    /// Position.
    pub position: Vec2,
    /// Velocity.
    pub velocity: Vec2,
    /// Unit heading.
    pub heading: Vec2,
    /// Radius.
    pub radius: f32,
    /// Where its formation wants it now, if it has a slot.
    pub slot_target: Option<Vec2>,
    /// Whether its formation has an unfinished move order.
    pub ordered_to_move: bool,
    /// Whether its formation has reached the goal of its last move (or never had one).
    pub formation_at_goal: bool,
    /// Whether it is a single: a unit moved on its own (a formation of one), whose slot leads
    /// it along its path instead of standing where its formation wants it.
    pub single: bool,
    /// Whether the unit is in the air (jumping): it flies over obstacles and other units, so
    /// it counts for neither penetrations nor overlaps.
    pub airborne: bool,
}

/// Per-unit history.
#[derive(Clone, Copy, Debug)]
struct Track {
    start: Vec2,
    last: Vec2,
    last_heading: Vec2,
    travelled: f32,
    /// Where the unit was when it last made progress, and when (seconds).
    progress_at: Vec2,
    progress_time: f32,
    stuck: bool,
    /// The longest it has stood so (seconds).
    longest_stand: f32,
    /// Whether the unit was in the air at the last observation (its landing step is not a
    /// wall crossing).
    was_airborne: bool,
}

/// Slot-error sums of one tick.
#[derive(Clone, Copy, Debug, Default)]
struct SlotErrorTick {
    sum: f64,
    count: u64,
    max: f32,
}

/// The accumulator: call [`Metrics::observe`] once per tick, then [`Metrics::report`].
#[derive(Debug)]
pub struct Metrics {
    shapes: MapShapes,
    dt: f32,
    ticks: u64,
    tracks: Vec<Option<Track>>,
    window: Vec<SlotErrorTick>,
    window_next: usize,
    pairs: pairs::PairCounter,
    overlaps: u64,
    max_overlap_depth: f32,
    penetrations: u64,
    max_turn_rate: f32,
    non_finite: u64,
    all_arrived_since: Option<u64>,
    last_units: usize,
    last_arrived: usize,
}

impl Metrics {
    /// A fresh accumulator for a map and a time step (seconds per tick, positive).
    pub fn new(shapes: MapShapes, dt: f32) -> Self {
        let dt = if dt.is_finite() && dt > 0.0 {
            dt
        } else {
            1.0 / 60.0
        };
        let window_len = ((SLOT_ERROR_WINDOW / dt).round() as usize).clamp(1, 100_000);
        let pairs = pairs::PairCounter::new(shapes.min, shapes.max);
        Self {
            shapes,
            dt,
            ticks: 0,
            tracks: Vec::new(),
            window: vec![SlotErrorTick::default(); window_len],
            window_next: 0,
            pairs,
            overlaps: 0,
            max_overlap_depth: 0.0,
            penetrations: 0,
            max_turn_rate: 0.0,
            non_finite: 0,
            all_arrived_since: None,
            last_units: 0,
            last_arrived: 0,
        }
    }

    /// The map the accumulator measures against.
    pub fn shapes(&self) -> &MapShapes {
        &self.shapes
    }

    /// Ticks observed so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Records the initial positions (tick 0, before any step) so travelled distance and path
    /// ratio start from there. Optional: without it, the first observed tick is the start.
    pub fn start(&mut self, units: &[UnitSample]) {
        for u in units {
            self.track_mut(u);
        }
    }

    /// Feeds the state at the end of one tick.
    pub fn observe(&mut self, units: &[UnitSample]) {
        self.ticks += 1;
        let now = self.ticks as f32 * self.dt;
        let mut slot = SlotErrorTick::default();
        let mut arrived = 0usize;
        for u in units {
            self.non_finite += count_non_finite(u);
            if !u.position.is_finite() {
                continue;
            }
            let shapes_penetrated = !u.airborne
                && self
                    .shapes
                    .penetrates(u.position, u.radius, PENETRATION_TOLERANCE * u.radius);
            let dt = self.dt;
            let track = self.track_mut(u);
            let step = u.position - track.last;
            let crossed = step != Vec2::ZERO && track.last.is_finite();
            let from = track.last;
            let flew = u.airborne || track.was_airborne;
            track.was_airborne = u.airborne;
            track.travelled += step.length();
            track.last = u.position;
            // Turn rate.
            let turn = if u.heading.is_finite() && track.last_heading.is_finite() {
                ops::angle_between(track.last_heading, u.heading).abs() / dt
            } else {
                0.0
            };
            track.last_heading = u.heading;
            // Stuck.
            let slot_error = cohort_formation::status::slot_error(u.position, u.slot_target);
            // Away from where it is bound: a member from its slot; a single until its move is
            // done (its slot leads it by half a metre plus half a second of cruise, no more than
            // the radius of a large unit: judged by its slot, such singles were never counted).
            let away = if u.single {
                !u.formation_at_goal
            } else {
                slot_error.is_none_or(|e| e > u.radius)
            };
            if !(u.ordered_to_move && away) || (u.position - track.progress_at).length() > u.radius
            {
                track.progress_at = u.position;
                track.progress_time = now;
            } else {
                let stood = now - track.progress_time;
                track.longest_stand = track.longest_stand.max(stood);
                if stood >= STUCK_SECONDS {
                    track.stuck = true;
                }
            }
            let crossed = crossed && !flew && self.shapes.crosses_wall(from, u.position);
            if shapes_penetrated || crossed {
                self.penetrations += 1;
            }
            if turn.is_finite() {
                self.max_turn_rate = self.max_turn_rate.max(turn);
            }
            if let Some(e) = slot_error {
                slot.sum += f64::from(e);
                slot.count += 1;
                slot.max = slot.max.max(e);
                if cohort_formation::status::has_arrived(u.formation_at_goal, e, u.radius) {
                    arrived += 1;
                }
            }
        }
        if let Some(w) = self.window.get_mut(self.window_next) {
            *w = slot;
        }
        self.window_next = (self.window_next + 1) % self.window.len().max(1);
        let found = self.pairs.count(units, OVERLAP_FRACTION);
        self.overlaps += found.overlaps;
        self.max_overlap_depth = self.max_overlap_depth.max(found.max_depth);
        self.last_units = units.len();
        self.last_arrived = arrived;
        if !units.is_empty() && arrived == units.len() {
            self.all_arrived_since.get_or_insert(self.ticks);
        } else {
            self.all_arrived_since = None;
        }
    }

    /// The longest any unit has stood so far (seconds) within its radius of one spot, ordered
    /// to move and away from where it is bound: what [`Report::stuck`] counts once it reaches
    /// [`STUCK_SECONDS`]. A unit waiting its turn in traffic stands a while; one locked in a
    /// knot stands for good.
    pub fn longest_stand(&self) -> f32 {
        self.tracks
            .iter()
            .flatten()
            .map(|t| t.longest_stand)
            .fold(0.0, f32::max)
    }

    /// The report so far; `state_hash` is the world's final state hash.
    pub fn report(&self, state_hash: u64) -> Report {
        let (mut sum, mut count, mut max) = (0.0f64, 0u64, 0.0f32);
        for w in &self.window {
            sum += w.sum;
            count += w.count;
            max = max.max(w.max);
        }
        let (mut ratio_sum, mut ratio_n) = (0.0f64, 0u64);
        let mut stuck = 0u64;
        for t in self.tracks.iter().flatten() {
            let straight = (t.last - t.start).length();
            if straight > 1e-3 && t.travelled.is_finite() {
                ratio_sum += f64::from(t.travelled / straight);
                ratio_n += 1;
            }
            stuck += u64::from(t.stuck);
        }
        Report {
            ticks: self.ticks,
            units: self.last_units as u64,
            mean_slot_error: if count > 0 { sum / count as f64 } else { 0.0 },
            max_slot_error: f64::from(max),
            overlaps: self.overlaps,
            max_overlap_depth: f64::from(self.max_overlap_depth),
            penetrations: self.penetrations,
            arrived: self.last_arrived as u64,
            time_to_arrive: self
                .all_arrived_since
                .map(|t| t as f64 * f64::from(self.dt)),
            stuck,
            path_ratio: (ratio_n > 0).then(|| ratio_sum / ratio_n as f64),
            max_turn_rate: f64::from(self.max_turn_rate),
            non_finite: self.non_finite,
            state_hash: format!("{state_hash:016x}"),
            hashes: Vec::new(),
        }
    }

    fn track_mut(&mut self, u: &UnitSample) -> &mut Track {
        if self.tracks.len() <= u.index {
            self.tracks.resize(u.index + 1, None);
        }
        let slot = &mut self.tracks[u.index];
        slot.get_or_insert(Track {
            start: u.position,
            last: u.position,
            last_heading: u.heading,
            travelled: 0.0,
            progress_at: u.position,
            progress_time: 0.0,
            stuck: false,
            longest_stand: 0.0,
            was_airborne: false,
        })
    }
}

/// Number of non-finite numbers among a sample's values.
fn count_non_finite(u: &UnitSample) -> u64 {
    let slot = u.slot_target.unwrap_or(Vec2::ZERO);
    [
        u.position.x,
        u.position.y,
        u.velocity.x,
        u.velocity.y,
        u.heading.x,
        u.heading.y,
        u.radius,
        slot.x,
        slot.y,
    ]
    .iter()
    .filter(|v| !v.is_finite())
    .count() as u64
}

#[cfg(test)]
mod tests;
