//! Playbooks: named sets of plays, authored in RON (`playbooks/*.ron`).
//!
//! A play has players (its slots) and timed phases. In each phase every slot is either fixed
//! (an offset and facing), follows a keyframed [`SlotTrack`], or reacts to the situation (a
//! [`Reaction`]: follow the ball, mark an opponent...). A play may carry a ball track per
//! phase, and may name the play that follows it (chaining). Offsets are in the play's frame:
//! `+x` forward, `+y` left, origin where the play is run.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::error::TacticsError;
use super::reactive::Reaction;
use super::track::{SlotPose, SlotTrack};
use crate::pattern::Role;

/// Most plays in a playbook, phases in a play, and slots in a phase.
pub const MAX_PLAY_ITEMS: usize = 1024;
/// Longest phase, seconds.
pub const MAX_PHASE_SECONDS: f32 = 3600.0;

/// How one slot moves during one phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SlotMotion {
    /// A fixed place.
    Fixed {
        /// Offset in the play's frame.
        offset: Vec2,
        /// Facing in the play's frame (default forward).
        #[serde(default = "forward")]
        facing: Vec2,
    },
    /// Follows a keyframed track (times from the start of the phase).
    Track(SlotTrack),
    /// Computed each tick by a reaction (or by a game's [`super::SlotRoutine`]).
    React(Reaction),
}

fn forward() -> Vec2 {
    Vec2::X
}

impl Default for SlotMotion {
    fn default() -> Self {
        SlotMotion::Fixed {
            offset: Vec2::ZERO,
            facing: Vec2::X,
        }
    }
}

/// A timed part of a play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Phase {
    /// A name for people.
    pub name: String,
    /// Seconds the phase lasts (finite, > 0).
    pub duration: f32,
    /// The ball's track during the phase; `None` leaves the ball where the last phase left it.
    pub ball: Option<SlotTrack>,
    /// One motion per play slot, in slot order.
    pub slots: Vec<SlotMotion>,
}

impl Default for Phase {
    fn default() -> Self {
        Self {
            name: String::new(),
            duration: 1.0,
            ball: None,
            slots: Vec::new(),
        }
    }
}

/// A play: players with roles and the phases they run through.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Play {
    /// Name, unique in the playbook.
    pub name: String,
    /// What the play does.
    pub description: String,
    /// The role each slot asks for (assignment prefers members with that role); missing
    /// entries are [`Role::Any`].
    pub roles: Vec<Role>,
    /// Where the ball starts, in the play's frame.
    pub ball_start: Vec2,
    /// The phases, run in order.
    pub phases: Vec<Phase>,
    /// The play that starts when this one ends (chaining); `None` ends by holding the last
    /// phase's final arrangement.
    pub next: Option<String>,
}

/// A playbook as authored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Playbook {
    /// A name.
    pub name: String,
    /// What it holds.
    pub description: String,
    /// The plays.
    pub plays: Vec<Play>,
}

impl Playbook {
    /// Checks everything: at least one play, names non-empty and unique, `next` naming a play
    /// of the book; every play with at least one phase, all phases with the same (non-zero)
    /// number of slots as the first; durations finite in `(0, 3600]`; tracks and reactions
    /// valid. Errors name the field (`plays[1].phases[0].slots[2]`).
    pub fn validate(&self) -> Result<ValidPlaybook, TacticsError> {
        if self.plays.is_empty() {
            return Err(TacticsError::invalid("plays", "a playbook needs a play"));
        }
        if self.plays.len() > MAX_PLAY_ITEMS {
            return Err(TacticsError::invalid("plays", "too many plays"));
        }
        for (i, play) in self.plays.iter().enumerate() {
            let pf = format!("plays[{i}]");
            if play.name.is_empty() {
                return Err(TacticsError::invalid(format!("{pf}.name"), "empty name"));
            }
            if self.plays[..i].iter().any(|p| p.name == play.name) {
                return Err(TacticsError::invalid(
                    format!("{pf}.name"),
                    format!("{:?} is used twice", play.name),
                ));
            }
            if let Some(next) = &play.next
                && !self.plays.iter().any(|p| &p.name == next)
            {
                return Err(TacticsError::invalid(
                    format!("{pf}.next"),
                    format!("no play {next:?} in the playbook"),
                ));
            }
            if !play.ball_start.is_finite() {
                return Err(TacticsError::invalid(
                    format!("{pf}.ball_start"),
                    "not finite",
                ));
            }
            check_play(play, &pf)?;
        }
        Ok(ValidPlaybook(self.clone()))
    }
}

fn check_play(play: &Play, pf: &str) -> Result<(), TacticsError> {
    let Some(first) = play.phases.first() else {
        return Err(TacticsError::invalid(
            format!("{pf}.phases"),
            "a play needs a phase",
        ));
    };
    let n = first.slots.len();
    if n == 0 || n > MAX_PLAY_ITEMS || play.phases.len() > MAX_PLAY_ITEMS {
        return Err(TacticsError::invalid(
            format!("{pf}.phases[0].slots"),
            format!("a play has 1 to {MAX_PLAY_ITEMS} slots and phases"),
        ));
    }
    if play.roles.len() > n {
        return Err(TacticsError::invalid(
            format!("{pf}.roles"),
            format!("{} roles for {n} slots", play.roles.len()),
        ));
    }
    for (j, phase) in play.phases.iter().enumerate() {
        let ph = format!("{pf}.phases[{j}]");
        if !(phase.duration.is_finite()
            && phase.duration > 0.0
            && phase.duration <= MAX_PHASE_SECONDS)
        {
            return Err(TacticsError::invalid(
                format!("{ph}.duration"),
                format!(
                    "must be in (0, {MAX_PHASE_SECONDS}], got {}",
                    phase.duration
                ),
            ));
        }
        if phase.slots.len() != n {
            return Err(TacticsError::invalid(
                format!("{ph}.slots"),
                format!("{} slots; the play has {n}", phase.slots.len()),
            ));
        }
        if let Some(ball) = &phase.ball {
            ball.check(&format!("{ph}.ball"))?;
        }
        for (k, slot) in phase.slots.iter().enumerate() {
            let sf = format!("{ph}.slots[{k}]");
            match slot {
                SlotMotion::Fixed { offset, facing } => {
                    if !offset.is_finite() || !facing.is_finite() || facing.length_squared() == 0.0
                    {
                        return Err(TacticsError::invalid(
                            sf,
                            "offset must be finite, facing finite and non-zero",
                        ));
                    }
                }
                SlotMotion::Track(t) => t.check(&sf)?,
                SlotMotion::React(r) => r.check().map_err(|why| TacticsError::invalid(sf, why))?,
            }
        }
    }
    Ok(())
}

/// A checked [`Playbook`]. Serializes as the playbook and validates again when deserialized.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Playbook")]
pub struct ValidPlaybook(Playbook);

impl Serialize for ValidPlaybook {
    /// As the wrapped [`Playbook`], by reference (hashing a world's state must not clone it).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl TryFrom<Playbook> for ValidPlaybook {
    type Error = TacticsError;

    fn try_from(book: Playbook) -> Result<Self, Self::Error> {
        book.validate()
    }
}

impl From<ValidPlaybook> for Playbook {
    fn from(valid: ValidPlaybook) -> Self {
        valid.0
    }
}

impl ValidPlaybook {
    /// The playbook as authored.
    pub fn playbook(&self) -> &Playbook {
        &self.0
    }

    /// The book's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The play called `name`, with its index.
    pub fn play(&self, name: &str) -> Option<(usize, &Play)> {
        self.0
            .plays
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name)
    }

    /// Play number `index`.
    pub fn play_at(&self, index: usize) -> Option<&Play> {
        self.0.plays.get(index)
    }

    /// Checks that the book has a play called `name` and returns its index.
    pub fn index_of(&self, name: &str) -> Result<usize, TacticsError> {
        self.play(name)
            .map(|(i, _)| i)
            .ok_or_else(|| TacticsError::NoSuchPlay {
                playbook: self.0.name.clone(),
                play: name.to_owned(),
            })
    }
}

impl Play {
    /// Number of slots (players) of the play.
    pub fn slot_count(&self) -> usize {
        self.phases.first().map_or(0, |p| p.slots.len())
    }

    /// The role of slot `i`.
    pub fn role(&self, i: usize) -> Role {
        self.roles.get(i).copied().unwrap_or(Role::Any)
    }

    /// Total seconds of all phases.
    pub fn duration(&self) -> f32 {
        self.phases.iter().map(|p| p.duration).sum()
    }
}

impl Phase {
    /// The pose of non-reactive slot `i` at `time` into the phase (`None` for a reactive slot
    /// or a slot the phase does not have).
    pub fn scripted_pose(&self, i: usize, time: f32) -> Option<SlotPose> {
        match self.slots.get(i)? {
            SlotMotion::Fixed { offset, facing } => Some(SlotPose::still(*offset, *facing)),
            SlotMotion::Track(t) => Some(t.sample(time)),
            SlotMotion::React(_) => None,
        }
    }

    /// The reaction of slot `i`, if it is reactive.
    pub fn reaction(&self, i: usize) -> Option<&Reaction> {
        match self.slots.get(i)? {
            SlotMotion::React(r) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tactics::track::{Interpolation, Keyframe};

    fn fixed(x: f32, y: f32) -> SlotMotion {
        SlotMotion::Fixed {
            offset: Vec2::new(x, y),
            facing: Vec2::X,
        }
    }

    fn sample_book() -> Playbook {
        let run = SlotTrack {
            interpolation: Interpolation::Linear,
            keys: vec![
                Keyframe {
                    time: 0.0,
                    offset: Vec2::ZERO,
                    facing: None,
                },
                Keyframe {
                    time: 2.0,
                    offset: Vec2::new(4.0, 0.0),
                    facing: None,
                },
            ],
        };
        Playbook {
            name: "book".into(),
            description: String::new(),
            plays: vec![
                Play {
                    name: "a".into(),
                    phases: vec![Phase {
                        duration: 2.0,
                        slots: vec![fixed(0.0, 2.0), SlotMotion::Track(run)],
                        ..Phase::default()
                    }],
                    next: Some("b".into()),
                    ..Play::default()
                },
                Play {
                    name: "b".into(),
                    phases: vec![Phase {
                        duration: 1.0,
                        slots: vec![
                            fixed(0.0, 0.0),
                            SlotMotion::React(Reaction::FollowBall {
                                offset: Vec2::new(-1.0, 0.0),
                                home: Vec2::ZERO,
                                leash: 0.0,
                            }),
                        ],
                        ..Phase::default()
                    }],
                    ..Play::default()
                },
            ],
        }
    }

    #[test]
    fn a_good_book_validates_and_finds_plays() {
        let v = sample_book().validate().unwrap();
        assert_eq!(v.index_of("b").unwrap(), 1);
        assert!(matches!(
            v.index_of("zz"),
            Err(TacticsError::NoSuchPlay { .. })
        ));
        let (_, a) = v.play("a").unwrap();
        assert_eq!(a.slot_count(), 2);
        assert_eq!(a.duration(), 2.0);
        let pose = a.phases[0].scripted_pose(1, 1.0).unwrap();
        assert!((pose.offset - Vec2::new(2.0, 0.0)).length() < 1e-6);
        assert!((pose.velocity - Vec2::new(2.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn errors_name_the_field() {
        let mut b = sample_book();
        b.plays[0].next = Some("nope".into());
        let e = b.validate().unwrap_err().to_string();
        assert!(e.starts_with("plays[0].next"), "{e}");

        let mut b = sample_book();
        b.plays[0].phases.push(Phase {
            duration: 1.0,
            slots: vec![fixed(0.0, 0.0)],
            ..Phase::default()
        });
        let e = b.validate().unwrap_err().to_string();
        assert!(e.starts_with("plays[0].phases[1].slots"), "{e}");

        let mut b = sample_book();
        b.plays[0].phases[0].duration = f32::NAN;
        let e = b.validate().unwrap_err().to_string();
        assert!(e.starts_with("plays[0].phases[0].duration"), "{e}");

        let mut b = sample_book();
        b.plays[1].name = "a".into();
        assert!(b.validate().is_err());

        let mut b = sample_book();
        b.plays[1].phases[0].slots[1] = SlotMotion::React(Reaction::Interpose {
            a: crate::tactics::Focus::Ball,
            b: crate::tactics::Focus::Point(Vec2::ZERO),
            fraction: 2.0,
        });
        let e = b.validate().unwrap_err().to_string();
        assert!(e.starts_with("plays[1].phases[0].slots[1]"), "{e}");

        assert!(Playbook::default().validate().is_err());
    }

    #[test]
    fn valid_playbook_round_trips_through_ron() {
        let v = sample_book().validate().unwrap();
        let text = ron::to_string(&v).unwrap();
        let back: ValidPlaybook = ron::from_str(&text).unwrap();
        assert_eq!(back, v);
        // An invalid book does not deserialize as a ValidPlaybook.
        let mut bad = sample_book();
        bad.plays.clear();
        let text = ron::to_string(&bad).unwrap();
        assert!(ron::from_str::<ValidPlaybook>(&text).is_err());
    }
}
