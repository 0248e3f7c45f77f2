//! The world side of bounding overwatch: starting an advance, moving the bounding squad's
//! anchor and its cover slots each tick, deciding when a bound has ended, and handing members
//! their cover points. The pure parts (cover sets, routes) are in
//! [`crate::tactics::overwatch`].

use cohort_pathing::{PathQuery, find_path};
use cohort_steering::Vec2;

use super::{World, member_position};
use crate::formation::{Member, Motion, SlotTarget};
use crate::ids::FormationId;
use crate::order::Order;
use crate::tactics::Tactic;
use crate::tactics::overwatch::{
    BoundRecord, CoverBuffers, CoverQuery, CoverSlot, OverwatchRun, OverwatchSettings, SquadRole,
    SquadRun, project_on_route, route_length, route_point, update_cover_slots_in,
};

/// Ticks between cover-set updates of a bounding squad whose anchor is still moving.
const COVER_UPDATE_TICKS: u64 = 4;
/// A squad is at the goal within this route distance of its end.
const AT_GOAL: f32 = 1e-3;

/// Buffers of the cover updates, kept in the world's scratch so that a warm advance steps
/// without allocating.
#[derive(Clone, Debug, Default)]
pub(crate) struct OverwatchScratch {
    /// Cover points held by the squads other than the one updated.
    claimed: Vec<usize>,
    /// Where the holder of each of the updated squad's slots is.
    positions: Vec<Vec2>,
    /// The cover update's working sets.
    cover: CoverBuffers,
}

impl World {
    /// Starts a bounding-overwatch advance of formation `id` (consuming the order), or hands
    /// back a plain move when the formation has no sub-formations to act as squads.
    pub(crate) fn start_overwatch(
        &mut self,
        id: FormationId,
        goal: Vec2,
        threat: Vec2,
        settings: OverwatchSettings,
    ) -> Option<Order> {
        let f = self.formations.get(id)?;
        let squads: Vec<FormationId> = f
            .members
            .iter()
            .filter_map(|m| match *m {
                Member::Formation(c) => Some(c),
                Member::Unit(_) => None,
            })
            .collect();
        if squads.is_empty()
            || settings.check().is_err()
            || !goal.is_finite()
            || !threat.is_finite()
        {
            return Some(Order::move_to(goal));
        }
        let from = f.anchor.position;
        // The route is for the squads' anchors (points): pathing's A* at a unit's clearance,
        // ending at the reachable point nearest the goal.
        let query = PathQuery::new(from, goal, 0.5).or_closest();
        let mut route: Vec<Vec2> = find_path(
            self.terrain.valid_map(),
            self.terrain.navgraph(),
            &query,
            &mut self.scratch.path,
        )
        .map(|p| p.waypoints.iter().map(|w| w.position).collect())
        .unwrap_or_default();
        if route.len() < 2 {
            route = vec![from, goal];
        }
        let length = route_length(&route);
        // Room for every bound record: each bound takes the lead at most `bound_length`
        // further, and each squad then closes up to the goal (more only grows the vector).
        // (Capped before the cast: a tiny bound length or a huge route must not overflow.)
        let bounds = ((length / settings.bound_length).ceil().min(4096.0) as usize)
            .saturating_add(1 + squads.len())
            .min(4096);
        let mut run = OverwatchRun {
            goal,
            threat,
            settings,
            route,
            route_length: length,
            squads: Vec::with_capacity(squads.len()),
            next_squad: 0,
            bounds: Vec::with_capacity(bounds),
            bound_time: 0.0,
            finished: false,
        };
        for c in squads {
            let anchor = self.formations.get(c).map_or(from, |c| c.anchor.position);
            let progress = project_on_route(&run.route, anchor);
            let (p, dir) = route_point(&run.route, progress);
            run.squads.push(SquadRun {
                formation: c,
                role: SquadRole::TakingCover,
                progress,
                target: progress,
                lateral: (anchor - p).dot(dir.perp()),
                anchor,
                velocity: Vec2::ZERO,
                slots: Vec::new(),
            });
        }
        for i in 0..run.squads.len() {
            self.rebuild_squad_slots(&mut run, i);
        }
        self.tactics.push((id, Tactic::Overwatch(run)));
        None
    }

    /// Fresh slots for squad `i`: one per member, on the cover nearest its anchor (the squad's
    /// slot vector refilled in place, the cover search in the world's overwatch buffers).
    fn rebuild_squad_slots(&mut self, run: &mut OverwatchRun, i: usize) {
        let Some(squad) = run.squads.get_mut(i) else {
            return;
        };
        let Some(f) = self.formations.get(squad.formation) else {
            return;
        };
        let anchor = squad.anchor;
        squad.slots.clear();
        squad.slots.extend(f.members.iter().map(|&m| CoverSlot {
            cover: None,
            member: Some(m),
            position: member_position(&self.units, &self.formations, m).map_or(anchor, |p| p.0),
        }));
        let mut buffers = std::mem::take(&mut self.scratch.overwatch);
        self.update_squad_cover(run, i, &mut buffers);
        self.scratch.overwatch = buffers;
    }

    /// Re-chooses squad `i`'s cover set around its anchor (points other squads hold are
    /// excluded), working in `buffers`.
    fn update_squad_cover(&self, run: &mut OverwatchRun, i: usize, buffers: &mut OverwatchScratch) {
        let OverwatchScratch {
            claimed,
            positions,
            cover,
        } = buffers;
        claimed.clear();
        claimed.extend(
            run.squads
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, s)| s.slots.iter().filter_map(|c| c.cover)),
        );
        let (threat, settings) = (run.threat, run.settings);
        let Some(squad) = run.squads.get_mut(i) else {
            return;
        };
        positions.clear();
        positions.extend(squad.slots.iter().map(|c| {
            c.member
                .and_then(|m| member_position(&self.units, &self.formations, m))
                .map_or(c.position, |p| p.0)
        }));
        let query = CoverQuery {
            center: squad.anchor,
            threat,
            radius: settings.cover_radius,
            spacing: settings.fallback_spacing,
        };
        update_cover_slots_in(
            self.terrain.valid_map(),
            &query,
            claimed,
            positions,
            &mut squad.slots,
            cover,
        );
    }

    /// Whether every member of squad `i` stands within the in-cover distance of its slot and
    /// has (nearly) stopped.
    fn squad_settled(&self, run: &OverwatchRun, i: usize) -> bool {
        let Some(squad) = run.squads.get(i) else {
            return true;
        };
        squad.slots.iter().all(|c| {
            let Some(m) = c.member else {
                return true;
            };
            member_position(&self.units, &self.formations, m).is_none_or(|(p, v)| {
                (p - c.position).length() <= run.settings.in_cover_distance
                    && v.length() <= run.settings.settle_speed
            })
        })
    }

    /// Slowest top speed among squad `i`'s units (at least 0.1).
    fn squad_speed(&self, squad: &SquadRun) -> f32 {
        let mut speed = f32::INFINITY;
        for c in &squad.slots {
            if let Some(Member::Unit(u)) = c.member
                && let Some(u) = self.units.get(u)
            {
                speed = speed.min(u.body.max_speed);
            }
        }
        let from_formation = self
            .formations
            .get(squad.formation)
            .map_or(0.0, |f| f.slowest_speed);
        if speed.is_finite() {
            speed.max(0.1)
        } else {
            from_formation.max(0.1)
        }
    }

    /// One tick of an advance: squads that left are dropped, squads whose members changed get
    /// fresh slots, the bounding anchor moves and its cover set follows it; a settled bound
    /// hands over to the next squad.
    pub(crate) fn advance_overwatch(&mut self, id: FormationId, run: &mut OverwatchRun, dt: f32) {
        run.squads.retain(|s| {
            self.formations
                .get(s.formation)
                .is_some_and(|f| f.parent == Some(id))
        });
        for i in 0..run.squads.len() {
            let squad = &run.squads[i];
            let intact = self.formations.get(squad.formation).is_some_and(|f| {
                f.members.len() == squad.slots.len()
                    && squad.slots.iter().all(|c| {
                        c.member
                            .is_some_and(|m| self.is_member_of(squad.formation, m))
                    })
            });
            if !intact {
                self.rebuild_squad_slots(run, i);
            }
        }
        if run.squads.is_empty() || run.finished {
            return;
        }
        run.bound_time += dt.max(0.0);
        if run.squads.iter().any(|s| s.role == SquadRole::TakingCover) {
            let all = (0..run.squads.len()).all(|i| self.squad_settled(run, i));
            if all || run.bound_time > run.settings.bound_timeout {
                for s in &mut run.squads {
                    s.role = SquadRole::Overwatching;
                }
                self.start_next_bound(run);
            }
            return;
        }
        let Some(b) = run.bounding() else {
            self.start_next_bound(run);
            return;
        };
        let speed = run.settings.anchor_speed_fraction * self.squad_speed(&run.squads[b]);
        let squad = &mut run.squads[b];
        let before = squad.progress;
        squad.progress = (squad.progress + speed * dt.max(0.0)).min(squad.target);
        let (p, dir) = route_point(&run.route, squad.progress);
        let anchor = p + dir.perp() * squad.lateral;
        squad.velocity = if dt > 0.0 {
            (anchor - squad.anchor) / dt
        } else {
            Vec2::ZERO
        };
        squad.anchor = anchor;
        let reached = squad.progress >= squad.target;
        let just_reached = reached && before < squad.target;
        if just_reached || (!reached && self.tick % COVER_UPDATE_TICKS == 0) {
            let mut buffers = std::mem::take(&mut self.scratch.overwatch);
            self.update_squad_cover(run, b, &mut buffers);
            self.scratch.overwatch = buffers;
        }
        if !reached {
            return;
        }
        let settled = self.squad_settled(run, b);
        let timed_out = run.bound_time > run.settings.bound_timeout;
        if settled || timed_out {
            let squad = &mut run.squads[b];
            squad.role = SquadRole::Overwatching;
            squad.velocity = Vec2::ZERO;
            run.bounds.push(BoundRecord {
                squad: b,
                tick: self.tick,
                to: squad.target,
                timed_out: timed_out && !settled,
            });
            self.start_next_bound(run);
        }
    }

    /// The next squad (round robin, skipping those at the goal) bounds past the lead, at most
    /// to the goal; when every squad is at the goal the advance is finished.
    fn start_next_bound(&self, run: &mut OverwatchRun) {
        let k = run.squads.len();
        let end = run.route_length;
        let Some(i) = (0..k)
            .map(|j| (run.next_squad + j) % k)
            .find(|&i| run.squads[i].progress < end - AT_GOAL)
        else {
            run.finished = true;
            return;
        };
        let lead = run.squads.iter().map(|s| s.progress).fold(0.0, f32::max);
        let squad = &mut run.squads[i];
        squad.role = SquadRole::Bounding;
        squad.target = (lead + run.settings.bound_length).min(end);
        run.bound_time = 0.0;
        run.next_squad = (i + 1) % k;
    }

    /// Members get their cover points facing the threat; squad anchors are the tactic's;
    /// the ordered formation's anchor is the squads' mean.
    pub(crate) fn write_overwatch_targets(&mut self, id: FormationId, run: &OverwatchRun) {
        let mut centre = Vec2::ZERO;
        let mut velocity = Vec2::ZERO;
        let n = run.squads.len().max(1) as f32;
        for squad in &run.squads {
            for c in &squad.slots {
                let Some(m) = c.member else {
                    continue;
                };
                let facing = (run.threat - c.position).try_normalize().unwrap_or(Vec2::X);
                let target = SlotTarget {
                    position: c.position,
                    velocity: Vec2::ZERO,
                    facing,
                };
                self.set_member_target(m, target);
            }
            let facing = (run.threat - squad.anchor)
                .try_normalize()
                .unwrap_or(Vec2::X);
            if let Some(f) = self.formations.get_mut(squad.formation) {
                f.anchor.position = squad.anchor;
                f.anchor.velocity = squad.velocity;
                f.anchor.orientation = facing;
                f.target = Some(SlotTarget {
                    position: squad.anchor,
                    velocity: squad.velocity,
                    facing,
                });
                f.motion = if squad.role == SquadRole::Overwatching {
                    Motion::Holding
                } else {
                    Motion::Moving
                };
            }
            centre += squad.anchor / n;
            velocity += squad.velocity / n;
        }
        if let Some(f) = self.formations.get_mut(id) {
            if !run.squads.is_empty() {
                f.anchor.position = centre;
                f.anchor.velocity = velocity;
            }
            if let Some(dir) = (run.goal - centre).try_normalize() {
                f.anchor.orientation = dir;
            }
            f.motion = if run.finished {
                Motion::Holding
            } else {
                Motion::Loose
            };
        }
    }
}
