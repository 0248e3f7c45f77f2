//! Jumps: a unit whose detour to its slot goes through a jump link or over a gap takes off at
//! the take-off point, flies a ballistic arc (out of steering and collisions while in the air)
//! and lands on the far side, where it carries on to its slot.
//!
//! The formation's anchor plans through jumps only when every unit under it can make them (a
//! pseudo-character has no body; its members do the jumping). In a tick (see `world/step.rs`),
//! detours are planned and units at a take-off point launch in the gather stage, grounded
//! units steer, integrate and resolve, then the flight stage ([`fly_units`]) moves the units
//! in the air.

use cohort_pathing::{JumpAbility, JumpEvent, JumpSource, Leg, plan_jump};
use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use super::terrain::Terrain;
use super::unit_store::UnitStore;
use super::{Unit, World};
use crate::ids::UnitId;

/// Default downward acceleration of jumps, m/s².
pub const DEFAULT_GRAVITY: f32 = 9.81;

/// A jump or leap on a unit's detour, taken when the unit reaches the take-off point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedJump {
    /// What is jumped: a jump link or a gap of the map.
    pub source: JumpSource,
    /// Where the unit takes off.
    pub takeoff: Vec2,
    /// Where the path comes down.
    pub landing: Vec2,
}

/// A unit in the air.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flight {
    /// What is being jumped.
    pub source: JumpSource,
    /// Where the unit left the ground.
    pub from: Vec2,
    /// Horizontal velocity through the flight.
    pub velocity: Vec2,
    /// Vertical speed at take-off.
    pub vertical_speed: f32,
    /// Time in the air.
    pub duration: f32,
    /// Time flown so far.
    pub elapsed: f32,
    /// Ground height at take-off.
    pub base_height: f32,
}

impl Flight {
    /// Height above the take-off ground, under `gravity`.
    pub fn height(&self, gravity: f32) -> f32 {
        let t = self.elapsed.clamp(0.0, self.duration);
        self.base_height + self.vertical_speed * t - 0.5 * gravity * t * t
    }

    /// Where the unit comes down.
    pub fn landing(&self) -> Vec2 {
        self.from + self.velocity * self.duration
    }
}

impl Unit {
    /// The unit's jumping ability under `gravity`, `None` when it cannot jump.
    pub fn jump_ability(&self, gravity: f32) -> Option<JumpAbility> {
        JumpAbility::new(self.body.max_speed, self.jump_speed, gravity).ok()
    }

    /// Whether the unit is in the air.
    pub fn is_airborne(&self) -> bool {
        self.flight.is_some()
    }
}

/// Landing spots on a pad, best first: the centre, then six points halfway out, then six at
/// the rim (turned by half a step).
fn landing_spots(center: Vec2, radius: f32) -> [Vec2; 13] {
    let mut out = [center; 13];
    let step = core::f32::consts::TAU / 6.0;
    for k in 0..6 {
        let a = step * k as f32;
        let b = a + 0.5 * step;
        out[1 + k] = center + cohort_steering::ops::from_angle(a) * (0.5 * radius);
        out[7 + k] = center + cohort_steering::ops::from_angle(b) * radius;
    }
    out
}

/// The first jump or leap of a planned path, as a [`PlannedJump`].
pub(crate) fn first_jump(points: &[Vec2], legs: &[Leg]) -> Option<PlannedJump> {
    legs.iter().enumerate().find_map(|(i, leg)| {
        let source = match *leg {
            Leg::Walk => return None,
            Leg::Jump(l) => JumpSource::Link(l),
            Leg::Gap(g) => JumpSource::Gap(g),
        };
        Some(PlannedJump {
            source,
            takeoff: *points.get(i)?,
            landing: *points.get(i + 1)?,
        })
    })
}

impl World {
    /// Whether a unit of `radius` (other than `me`) can come down at `landing` now: no unit
    /// on the ground stands there and no unit in the air will land there.
    fn landing_clear(&self, me: UnitId, landing: Vec2, radius: f32) -> bool {
        let units = &self.units;
        units.motion.iter().all(|(id, u)| {
            let flight = u.details_in(id, &units.details).and_then(|d| d.flight);
            let at = flight.map_or(u.body.position, |f| f.landing());
            id == me || (at - landing).length() >= (radius + u.body.radius) * 1.05
        })
    }

    /// Starts the flight of a unit at its take-off point: the jump link's plan (trajectory
    /// prediction or the designer's velocity) to a free spot of its landing pad, or a leap to
    /// the far side of a gap. The unit waits while every spot it can reach is occupied; a unit
    /// that cannot make the jump at all drops it and re-plans its detour.
    pub(crate) fn launch(&mut self, id: UnitId) {
        let Some(unit) = self.units.get(id) else {
            return;
        };
        let Some(jump) = self.units.details.get(id).and_then(|d| d.next_jump) else {
            return;
        };
        let (from, radius) = (unit.body.position, unit.body.radius);
        let Some(ability) = unit.jump_ability(self.settings.gravity) else {
            self.drop_jump(id);
            return;
        };
        let mut reachable = false;
        let mut chosen = None;
        match jump.source {
            JumpSource::Link(i) => {
                let Some(link) = self.terrain.map().jump_links.get(i).copied() else {
                    self.drop_jump(id);
                    return;
                };
                // Take off from where the unit stands; the pad's centre first, else another
                // free spot on it, so one unit standing on the pad does not hold up the queue.
                for spot in landing_spots(link.pad.center, link.pad.radius) {
                    let mut aimed = link;
                    aimed.takeoff = from;
                    aimed.pad.center = spot;
                    let Ok(plan) = plan_jump(&aimed, &ability) else {
                        continue;
                    };
                    if self.terrain.valid_map().is_blocked(spot, radius) {
                        continue;
                    }
                    reachable = true;
                    if self.landing_clear(id, spot, radius) {
                        chosen = Some(Flight {
                            source: jump.source,
                            from,
                            velocity: plan.velocity,
                            vertical_speed: plan.vertical_speed,
                            duration: plan.flight_time,
                            elapsed: 0.0,
                            base_height: link.takeoff_height,
                        });
                        break;
                    }
                }
            }
            JumpSource::Gap(_) => {
                if let Some(t) = ability.flight_time(0.0) {
                    let v = (jump.landing - from) / t;
                    if v.length() <= ability.max_run_speed * 1.05 {
                        reachable = true;
                        if self.landing_clear(id, jump.landing, radius) {
                            chosen = Some(Flight {
                                source: jump.source,
                                from,
                                velocity: v,
                                vertical_speed: ability.jump_speed,
                                duration: t,
                                elapsed: 0.0,
                                base_height: 0.0,
                            });
                        }
                    }
                }
            }
        }
        if !reachable {
            self.drop_jump(id);
            return;
        }
        let units = &mut self.units;
        let (Some(flight), Some(unit), Some(d)) =
            (chosen, units.motion.get_mut(id), units.details.get_mut(id))
        else {
            return; // Wait for the landing to clear.
        };
        d.drop_route();
        d.flight = Some(flight);
        unit.body.velocity = flight.velocity;
        unit.sync(d);
        self.jump_events.push((
            id,
            JumpEvent {
                source: jump.source,
                position: from,
                velocity: flight.velocity,
                vertical_speed: flight.vertical_speed,
                flight_time: flight.duration,
                landing: flight.landing(),
            },
        ));
    }

    /// Forgets a jump the unit cannot make; its detour is planned again.
    fn drop_jump(&mut self, id: UnitId) {
        let units = &mut self.units;
        if let (Some(u), Some(d)) = (units.motion.get_mut(id), units.details.get_mut(id)) {
            d.drop_route();
            u.sync(d);
        }
    }
}

/// Flight stage: moves units in the air along their arcs; a unit whose flight is over lands
/// (pushed to the nearest free point if the landing is blocked) and re-plans its way to the
/// slot. `airborne` is the gather's count of the units in the air (at 0 there is nothing to
/// do).
pub(super) fn fly_units(units: &mut UnitStore, terrain: &Terrain, airborne: usize, dt: f32) {
    if airborne == 0 {
        return;
    }
    for (id, unit) in units.motion.iter_mut() {
        if !unit.airborne {
            continue;
        }
        let Some(d) = units.details.get_mut(id) else {
            continue;
        };
        let Some(flight) = d.flight.as_mut() else {
            continue;
        };
        flight.elapsed += dt;
        let t = flight.elapsed.min(flight.duration);
        unit.body.position = flight.from + flight.velocity * t;
        if let Some(dir) = flight.velocity.try_normalize() {
            let turn = unit.body.max_turn_rate * dt;
            unit.body.heading =
                cohort_steering::locomotion::turn_towards(unit.body.heading, dir, turn);
        }
        if flight.elapsed >= flight.duration {
            let landed = terrain.push_out(flight.landing(), unit.body.radius);
            unit.body.position = landed;
            d.flight = None;
            d.detour.clear();
            unit.sync(d);
            terrain.keep_in_bounds(&mut unit.body);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_jump_finds_the_take_off_leg() {
        let pts = [
            Vec2::ZERO,
            Vec2::X,
            Vec2::new(4.0, 0.0),
            Vec2::new(6.0, 0.0),
        ];
        let legs = [Leg::Walk, Leg::Jump(2), Leg::Walk, Leg::Walk];
        let j = first_jump(&pts, &legs).unwrap();
        assert_eq!(j.source, JumpSource::Link(2));
        assert_eq!(j.takeoff, Vec2::X);
        assert_eq!(j.landing, Vec2::new(4.0, 0.0));
        assert!(first_jump(&pts, &[Leg::Walk; 4]).is_none());
    }

    #[test]
    fn flight_height_is_a_parabola_that_lands() {
        let f = Flight {
            source: JumpSource::Gap(0),
            from: Vec2::ZERO,
            velocity: Vec2::new(3.0, 0.0),
            vertical_speed: 5.0,
            duration: 2.0 * 5.0 / DEFAULT_GRAVITY,
            elapsed: 5.0 / DEFAULT_GRAVITY,
            base_height: 0.0,
        };
        let apex = 25.0 / (2.0 * DEFAULT_GRAVITY);
        assert!((f.height(DEFAULT_GRAVITY) - apex).abs() < 1e-4);
        let landed = Flight {
            elapsed: f.duration,
            ..f
        };
        assert!(landed.height(DEFAULT_GRAVITY).abs() < 1e-4);
        assert!((f.landing().x - 3.0 * f.duration).abs() < 1e-5);
    }
}
