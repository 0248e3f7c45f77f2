//! A play being run by a formation: its clock, phase, ball, which member holds which slot, and
//! where every slot is this tick (in the play's frame, with velocity).

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use super::playbook::{Play, ValidPlaybook};
use super::reactive::{PlayView, SlotRoutine};
use super::track::SlotPose;
use crate::formation::{Member, SlotTarget};
use crate::ids::FormationId;
use crate::world::World;

/// Largest slot speed derived from a reactive slot's movement between ticks (a reaction that
/// jumps, e.g. to a newly marked player, gives a jump, not a huge feed-forward velocity).
pub const MAX_REACTIVE_SPEED: f32 = 12.0;

/// What happened to a play's clock in one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayClock {
    /// Still in a phase of the same play (possibly a new phase).
    Running,
    /// The play ended and its `next` play started (members are assigned afresh).
    Chained,
    /// The play ended with no next play.
    Finished,
}

/// The running state of a play (serialized with the world).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayRun {
    pub(crate) book: ValidPlaybook,
    pub(crate) play: usize,
    pub(crate) phase: usize,
    pub(crate) phase_time: f32,
    pub(crate) origin: Vec2,
    pub(crate) orientation: Vec2,
    pub(crate) ball: Vec2,
    /// `holders[i]` holds slot `i`.
    pub(crate) holders: Vec<Option<Member>>,
    /// Members without a slot (more members than the play has players) hold where they were.
    pub(crate) extras: Vec<(Member, Vec2)>,
    /// Pose of every slot this tick, play frame.
    pub(crate) poses: Vec<SlotPose>,
    /// Whether `poses[i]` is valid as the previous pose of a reactive slot.
    pub(crate) posed: Vec<bool>,
    /// Targets a game's routine gave for the reactive slots, for the step starting at tick
    /// `external_tick` (all its sub-steps).
    pub(crate) external: Vec<Option<SlotPose>>,
    pub(crate) external_tick: u64,
    /// Plays started by this run (1 + the number of chainings).
    pub(crate) plays_started: u32,
    pub(crate) needs_assignment: bool,
}

impl PlayRun {
    /// A run of play `play` of `book`, with its frame at `origin` facing `orientation`.
    pub(crate) fn new(book: ValidPlaybook, play: usize, origin: Vec2, orientation: Vec2) -> Self {
        let mut run = Self {
            book,
            play,
            phase: 0,
            phase_time: 0.0,
            origin,
            orientation: orientation.try_normalize().unwrap_or(Vec2::X),
            ball: Vec2::ZERO,
            holders: Vec::new(),
            extras: Vec::new(),
            poses: Vec::new(),
            posed: Vec::new(),
            external: Vec::new(),
            external_tick: u64::MAX,
            plays_started: 0,
            needs_assignment: true,
        };
        run.begin_play(play);
        run
    }

    fn begin_play(&mut self, play: usize) {
        self.play = play;
        self.phase = 0;
        self.phase_time = 0.0;
        self.plays_started = self.plays_started.saturating_add(1);
        let n = self.current_play().map_or(0, Play::slot_count);
        if let Some(p) = self.current_play() {
            self.ball = p.ball_start;
        }
        self.poses.clear();
        self.poses.resize(n, SlotPose::still(Vec2::ZERO, Vec2::X));
        self.posed.clear();
        self.posed.resize(n, false);
        self.external.clear();
        self.external.resize(n, None);
        self.needs_assignment = true;
    }

    /// The playbook.
    pub fn playbook(&self) -> &ValidPlaybook {
        &self.book
    }

    /// The play being run.
    pub fn current_play(&self) -> Option<&Play> {
        self.book.play_at(self.play)
    }

    /// Name of the play being run.
    pub fn play_name(&self) -> &str {
        self.current_play().map_or("", |p| p.name.as_str())
    }

    /// Index of the current phase.
    pub fn phase(&self) -> usize {
        self.phase
    }

    /// Seconds since the current phase began.
    pub fn phase_time(&self) -> f32 {
        self.phase_time
    }

    /// Plays started by this run: 1, plus one per chaining.
    pub fn plays_started(&self) -> u32 {
        self.plays_started
    }

    /// The ball, world space.
    pub fn ball(&self) -> Vec2 {
        self.to_world(self.ball)
    }

    /// The play's frame: origin and unit `+x` axis, world space.
    pub fn frame(&self) -> (Vec2, Vec2) {
        (self.origin, self.orientation)
    }

    /// The member holding slot `i`.
    pub fn holder(&self, i: usize) -> Option<Member> {
        self.holders.get(i).copied().flatten()
    }

    /// Number of slots of the current play.
    pub fn slot_count(&self) -> usize {
        self.poses.len()
    }

    /// Where slot `i` is this tick, world space, with its velocity and facing.
    pub fn slot_target(&self, i: usize) -> Option<SlotTarget> {
        let p = self.poses.get(i)?;
        Some(SlotTarget {
            position: self.to_world(p.offset),
            velocity: self.orientation.rotate(p.velocity),
            facing: self
                .orientation
                .rotate(p.facing)
                .try_normalize()
                .unwrap_or(self.orientation),
        })
    }

    fn to_world(&self, p: Vec2) -> Vec2 {
        self.origin + self.orientation.rotate(p)
    }

    /// Advances the clock by `dt`, through phase ends and play chaining.
    pub(crate) fn advance(&mut self, dt: f32) -> PlayClock {
        self.phase_time += dt.max(0.0);
        let mut outcome = PlayClock::Running;
        // Bounded: a play has at most MAX_PLAY_ITEMS phases, each at least 1e-38 s long; a
        // step crosses few of them, but never loop forever on a degenerate book.
        for _ in 0..4096 {
            let Some(play) = self.current_play() else {
                return PlayClock::Finished;
            };
            let Some(duration) = play.phases.get(self.phase).map(|p| p.duration) else {
                return PlayClock::Finished;
            };
            let phases = play.phases.len();
            let next = play
                .next
                .as_deref()
                .and_then(|n| self.book.play(n))
                .map(|(i, _)| i);
            if self.phase_time < duration {
                return outcome;
            }
            self.phase_time -= duration;
            self.phase += 1;
            self.posed.iter_mut().for_each(|p| *p = false);
            // A game's targets were for the phase that ended.
            self.external_tick = u64::MAX;
            if self.phase >= phases {
                match next {
                    Some(i) => {
                        let carry = self.phase_time;
                        self.begin_play(i);
                        self.phase_time = carry;
                        outcome = PlayClock::Chained;
                    }
                    None => {
                        self.phase = phases.saturating_sub(1);
                        self.phase_time = duration;
                        return PlayClock::Finished;
                    }
                }
            }
        }
        outcome
    }

    /// Computes every slot's pose for this tick: scripted slots from their phase (tracks give
    /// their exact derivative as velocity), reactive slots from the game's routine (when it
    /// drove them for `tick`) or their built-in reaction, with velocity from the change since
    /// the last tick.
    pub(crate) fn update_poses(&mut self, world: &World, id: FormationId, tick: u64, dt: f32) {
        let (book, poses, posed) = (&self.book, &mut self.poses, &mut self.posed);
        let Some(phase) = book
            .play_at(self.play)
            .and_then(|p| p.phases.get(self.phase))
        else {
            return;
        };
        if let Some(ball) = &phase.ball {
            self.ball = ball.sample(self.phase_time).offset;
        }
        let view = PlayView {
            world,
            formation: id,
            origin: self.origin,
            orientation: self.orientation,
            phase_time: self.phase_time,
            phase: self.phase,
            ball: self.ball,
        };
        // A game's targets hold for the sub-steps of the step they were given before.
        let fresh = tick >= self.external_tick
            && tick - self.external_tick < u64::from(crate::world::MAX_SUBSTEPS);
        let external = fresh.then_some(&self.external);
        for (i, (pose, was_posed)) in poses.iter_mut().zip(posed.iter_mut()).enumerate() {
            if let Some(p) = phase.scripted_pose(i, self.phase_time) {
                *pose = p;
                *was_posed = true;
                continue;
            }
            let wanted = external
                .and_then(|e| e.get(i).copied().flatten())
                .or_else(|| phase.reaction(i).and_then(|r| r.evaluate(&view)));
            let Some(mut next) = wanted.filter(|p| p.offset.is_finite() && p.facing.is_finite())
            else {
                pose.velocity = Vec2::ZERO;
                continue;
            };
            next.facing = next.facing.try_normalize().unwrap_or(pose.facing);
            next.velocity = if *was_posed && dt > 0.0 {
                ((next.offset - pose.offset) / dt).clamp_length_max(MAX_REACTIVE_SPEED)
            } else {
                Vec2::ZERO
            };
            *pose = next;
            *was_posed = true;
        }
    }

    /// Stores the game routine's targets for the reactive slots of the current phase, to be
    /// used at `tick`.
    pub(crate) fn drive(
        &mut self,
        world: &World,
        id: FormationId,
        tick: u64,
        routine: &mut dyn SlotRoutine,
    ) {
        let Some(phase) = self
            .book
            .play_at(self.play)
            .and_then(|p| p.phases.get(self.phase))
        else {
            return;
        };
        let view = PlayView {
            world,
            formation: id,
            origin: self.origin,
            orientation: self.orientation,
            phase_time: self.phase_time,
            phase: self.phase,
            ball: self.ball,
        };
        self.external.resize(self.poses.len(), None);
        for (i, slot) in self.external.iter_mut().enumerate() {
            *slot = if phase.reaction(i).is_some() {
                routine.slot_target(i, &view)
            } else {
                None
            };
        }
        self.external_tick = tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tactics::playbook::{Phase, Playbook, SlotMotion};

    fn book() -> ValidPlaybook {
        let fixed = |x: f32| SlotMotion::Fixed {
            offset: Vec2::new(x, 0.0),
            facing: Vec2::X,
        };
        let play = |name: &str, durations: &[f32], next: Option<&str>| Play {
            name: name.into(),
            phases: durations
                .iter()
                .map(|&d| Phase {
                    duration: d,
                    slots: vec![fixed(d)],
                    ..Phase::default()
                })
                .collect(),
            next: next.map(Into::into),
            ..Play::default()
        };
        Playbook {
            name: "b".into(),
            description: String::new(),
            plays: vec![play("a", &[1.0, 2.0], Some("b")), play("b", &[0.5], None)],
        }
        .validate()
        .unwrap()
    }

    #[test]
    fn clock_walks_phases_then_chains_then_finishes() {
        let mut run = PlayRun::new(book(), 0, Vec2::ZERO, Vec2::X);
        assert_eq!(run.plays_started(), 1);
        assert_eq!(run.advance(0.75), PlayClock::Running);
        assert_eq!((run.phase(), run.play_name()), (0, "a"));
        assert_eq!(run.advance(0.5), PlayClock::Running);
        assert_eq!(run.phase(), 1);
        assert!((run.phase_time() - 0.25).abs() < 1e-6);
        assert_eq!(run.advance(1.8), PlayClock::Chained);
        assert_eq!((run.phase(), run.play_name()), (0, "b"));
        assert_eq!(run.plays_started(), 2);
        assert!((run.phase_time() - 0.05).abs() < 1e-5);
        assert_eq!(run.advance(0.5), PlayClock::Finished);
        // A finished run stays on its last phase's end.
        assert_eq!(run.phase(), 0);
        assert_eq!(run.phase_time(), 0.5);
    }

    #[test]
    fn slot_targets_are_in_the_play_frame() {
        let mut run = PlayRun::new(book(), 0, Vec2::new(10.0, 5.0), Vec2::Y);
        run.poses[0] = SlotPose {
            offset: Vec2::new(2.0, 1.0),
            velocity: Vec2::new(1.0, 0.0),
            facing: Vec2::X,
        };
        let t = run.slot_target(0).unwrap();
        // +x of the play is world +y; +y (left) is world -x.
        assert!((t.position - Vec2::new(9.0, 7.0)).length() < 1e-6);
        assert!((t.velocity - Vec2::new(0.0, 1.0)).length() < 1e-6);
        assert!((t.facing - Vec2::Y).length() < 1e-6);
        assert!(run.slot_target(5).is_none());
    }
}
