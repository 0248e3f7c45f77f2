//! The public methods of [`World`]: building and changing a world here, then by concept in
//! the submodules (queries, checked setters, membership with detach and attach, formation
//! status, text snapshots of the whole world, state snapshots without the terrain and the
//! state hash, the avoidance record of one watched unit). The machinery behind them (the tick's stages, the
//! snapshot formats, the checks of a loaded world) is private, in the other modules of
//! `world/`.
//!
//! Elsewhere only: [`World::step`] and [`World::plan`], with the tick they run
//! (`world/step.rs`, which lists its stages).

mod diagnostics;
pub(in crate::world) mod membership;
mod queries;
mod setters;
mod snapshot;
mod state;
mod status;

pub use setters::UnitOptions;

use cohort_pathing::{Map, NavGraph};
use cohort_steering::{Body, SimRng, Vec2, locomotion::HeadingSmoother};
use slotmap::SlotMap;

use crate::anchor::AnchorPoint;
use crate::error::WorldError;
use crate::formation::{Formation, FormationSettings, FormationSpec, Member, Motion};
use crate::ids::{FormationId, UnitId};
use crate::order::Order;
use crate::pattern::Role;
use crate::tactics::{SlotRoutine, Tactic};
use crate::world::{MAX_UNITS, Scratch, Terrain, Unit, World, WorldSettings};

impl World {
    /// A world on `map`, with a navigation graph built from it, seeded with `seed`.
    pub fn new(map: Map, settings: WorldSettings, seed: u64) -> Result<Self, WorldError> {
        check_world_settings(&settings)?;
        let terrain = Terrain::new(map)?;
        let mut world = Self {
            units: Default::default(),
            formations: SlotMap::with_key(),
            terrain,
            rng: SimRng::seed_from(seed),
            tick: 0,
            settings,
            pending: Vec::new(),
            unit_free: Default::default(),
            formation_free: Default::default(),
            tactics: Vec::new(),
            jump_events: Vec::new(),
            formation_nav: Default::default(),
            scratch: Scratch::default(),
            frame: Default::default(),
            timings: Default::default(),
        };
        world.prepare_formation_nav();
        Ok(world)
    }

    /// Makes room for `units` more units and `formations` more formations, so that adding
    /// them grows no storage. Optional: a world grows as units and formations are added, but
    /// by doubling its arrays, which can leave up to half of their room unused; a game that
    /// knows the size of its army reserves it first and holds no more than it needs.
    pub fn reserve(&mut self, units: usize, formations: usize) {
        let units = units.min(MAX_UNITS.saturating_sub(self.units.motion.len()));
        self.units.reserve(units);
        self.formations.reserve(formations.min(MAX_UNITS));
    }

    /// Replaces the navigation graph (for example after the map changed). Moving formations
    /// re-plan their paths from where they are.
    pub fn set_navgraph(&mut self, graph: NavGraph) {
        self.terrain.set_navgraph(graph);
        let moving: Vec<(FormationId, Vec2)> = self
            .formations
            .iter()
            .filter(|(_, f)| f.motion == Motion::Moving && f.parent.is_none())
            .filter_map(|(id, f)| f.goal.map(|g| (id, g)))
            .collect();
        for (id, goal) in moving {
            self.plan_move(id, goal);
        }
    }

    /// Adds a free unit (validated body). Its position is pushed out of any obstacle it was
    /// placed inside.
    pub fn add_unit(&mut self, body: Body) -> Result<UnitId, WorldError> {
        self.add_unit_with_role(body, Role::Any)
    }

    /// Adds a free unit that asks for `role` in the formation it joins.
    pub fn add_unit_with_role(&mut self, body: Body, role: Role) -> Result<UnitId, WorldError> {
        let options = crate::world::UnitOptions {
            role,
            ..Default::default()
        };
        self.add_unit_with(body, options)
    }

    /// Adds a free unit (validated body) with a role, a jump speed and a tag of the user's
    /// (see [`crate::world::UnitOptions`]). Its position is pushed out of any obstacle it was placed
    /// inside.
    pub fn add_unit_with(
        &mut self,
        mut body: Body,
        options: crate::world::UnitOptions,
    ) -> Result<UnitId, WorldError> {
        body.validate()?;
        setters::check_jump_speed(options.jump_speed)?;
        if self.units.len() >= MAX_UNITS {
            return Err(WorldError::TooManyUnits { limit: MAX_UNITS });
        }
        body.position = self.terrain.push_out(body.position, body.radius);
        let unit = Unit {
            smoother: HeadingSmoother::new(),
            body,
            formation: None,
            role: options.role,
            slot_target: None,
            detour: Vec::new(),
            detour_tick: 0,
            jump_speed: options.jump_speed,
            next_jump: None,
            flight: None,
            tag: options.tag,
        };
        let id = self.units.insert(unit);
        self.unit_free.inserted(id);
        Ok(id)
    }

    /// Removes a unit (a casualty, or a unit the game takes away) and hands its whole record
    /// back. Its formation lays out its pattern for the members left and reassigns them;
    /// nobody else is lost. `None` if there was no such unit.
    pub fn remove_unit(&mut self, id: UnitId) -> Option<Unit> {
        let unit = self.units.remove(id)?;
        self.unit_free.freed(id);
        if let Some(f) = unit.formation.and_then(|f| self.formations.get_mut(f)) {
            f.members.retain(|m| *m != Member::Unit(id));
            f.needs_assignment = true;
        }
        Some(unit)
    }

    /// Creates a formation from `spec`, as a child of `parent` (occupying one of its slots) or
    /// as a top-level formation. The anchor starts at `position` facing `facing`.
    pub fn add_formation(
        &mut self,
        spec: FormationSpec,
        parent: Option<FormationId>,
        position: Vec2,
        facing: Vec2,
    ) -> Result<FormationId, WorldError> {
        check_formation_settings(&spec.settings)?;
        let pattern = spec.pattern.validate().map_err(|e| WorldError::Invalid {
            what: "pattern",
            why: e.to_string(),
        })?;
        cohort_steering::limits::check_coord("position", position).map_err(|e| {
            WorldError::Invalid {
                what: "formation position",
                why: e.to_string(),
            }
        })?;
        cohort_steering::limits::check_direction("facing", facing).map_err(|e| {
            WorldError::Invalid {
                what: "formation facing",
                why: e.to_string(),
            }
        })?;
        if let Some(p) = parent {
            if !self.formations.contains_key(p) {
                return Err(WorldError::NoSuchFormation(p));
            }
        }
        let anchor = AnchorPoint::at(position, facing);
        let id = self.formations.insert(Formation::new(
            spec.name,
            pattern,
            spec.role,
            spec.settings,
            anchor,
        ));
        self.formation_free.inserted(id);
        self.scratch.order_valid = false;
        if let Some(p) = parent {
            self.add_member(p, Member::Formation(id))?;
        }
        Ok(id)
    }

    /// Makes `member` a member of `formation` (moving it out of the formation it was in).
    pub fn add_member(&mut self, formation: FormationId, member: Member) -> Result<(), WorldError> {
        if !self.formations.contains_key(formation) {
            return Err(WorldError::NoSuchFormation(formation));
        }
        match member {
            Member::Unit(u) => {
                let unit = self
                    .units
                    .details
                    .get_mut(u)
                    .ok_or(WorldError::NoSuchUnit(u))?;
                let old = unit.formation.replace(formation);
                if let Some(old) = old.and_then(|o| self.formations.get_mut(o)) {
                    old.members.retain(|m| *m != member);
                    old.needs_assignment = true;
                }
            }
            Member::Formation(child) => {
                if !self.formations.contains_key(child) {
                    return Err(WorldError::NoSuchFormation(child));
                }
                // Refuse cycles: the new parent may not be the child or inside its subtree.
                let mut cursor = Some(formation);
                while let Some(c) = cursor {
                    if c == child {
                        return Err(WorldError::Cycle(child));
                    }
                    cursor = self.formations.get(c).and_then(|f| f.parent);
                }
                let old = self.formations.get(child).and_then(|f| f.parent);
                if let Some(old) = old.and_then(|o| self.formations.get_mut(o)) {
                    old.members.retain(|m| *m != member);
                    old.needs_assignment = true;
                }
                if let Some(c) = self.formations.get_mut(child) {
                    c.parent = Some(formation);
                    // A member's moves are its parent's: it remembers none of its own.
                    c.ordered_move = None;
                }
            }
        }
        if let Some(f) = self.formations.get_mut(formation) {
            // A unit is listed only by the formation it names (checked of loaded worlds too),
            // and was just taken out of that one: it cannot be listed here, and the search
            // (linear in the members) would make filling a formation of n units quadratic.
            if matches!(member, Member::Unit(_)) || !f.members.contains(&member) {
                f.members.push(member);
            }
            f.needs_assignment = true;
        }
        // The order lists formations only: a unit joining leaves it as it is.
        if matches!(member, Member::Formation(_)) {
            self.scratch.order_valid = false;
        }
        Ok(())
    }

    /// Removes `member` from its formation; the unit (or sub-formation) becomes free and
    /// keeps existing. Returns the formation it left.
    pub fn remove_member(&mut self, member: Member) -> Option<FormationId> {
        let from = match member {
            Member::Unit(u) => self.units.details.get_mut(u)?.formation.take()?,
            Member::Formation(f) => self.formations.get_mut(f)?.parent.take()?,
        };
        if let Some(f) = self.formations.get_mut(from) {
            f.members.retain(|m| *m != member);
            f.needs_assignment = true;
        }
        if matches!(member, Member::Formation(_)) {
            self.scratch.order_valid = false;
        }
        if let Member::Unit(u) = member {
            if let Some(unit) = self.units.get_mut(u) {
                unit.slot_target = None;
                unit.group = crate::world::avoidance::NO_GROUP;
            }
        }
        if let Member::Formation(f) = member {
            if let Some(f) = self.formations.get_mut(f) {
                f.target = None;
            }
        }
        Some(from)
    }

    /// Removes a formation. Its members (units and sub-formations) move up into its parent if
    /// it has one, or become free; nobody is dropped. Returns the removed formation.
    pub fn remove_formation(&mut self, id: FormationId) -> Option<Formation> {
        let parent = self.formations.get(id)?.parent;
        if parent.is_some() {
            self.remove_member(Member::Formation(id));
        }
        let members = self.formations.get(id)?.members.clone();
        for m in members {
            match (parent, m) {
                (Some(p), m) => {
                    let _ = self.add_member(p, m);
                }
                (None, m) => {
                    self.remove_member(m);
                }
            }
        }
        let removed = self.formations.remove(id);
        if removed.is_some() {
            self.formation_free.freed(id);
        }
        self.scratch.order_valid = false;
        removed
    }

    /// Queues `order` for `formation`; it takes effect at the start of the next tick.
    ///
    /// [`Order::Cancel`] is not queued: it withdraws the orders queued for `formation` at once.
    ///
    /// A formation that is a member of another (a squad in a platoon) takes only
    /// [`Order::ChangePattern`] (carried out in its slot) and [`Order::Cancel`]; any other
    /// order to it is refused
    /// with [`WorldError::AttachedMember`] and nothing changes. Order its parent instead, or
    /// take it out first with [`World::detach_formation`].
    pub fn order(&mut self, formation: FormationId, order: Order) -> Result<(), WorldError> {
        self.check_order(formation, &order)?;
        if order == Order::Cancel {
            self.pending.retain(|(f, _)| *f != formation);
            return Ok(());
        }
        self.pending.push((formation, order));
        Ok(())
    }

    /// What [`World::order`] checks: the formation exists and the order's values are valid
    /// (also checked of the pending orders of a loaded snapshot).
    pub(super) fn check_order(
        &self,
        formation: FormationId,
        order: &Order,
    ) -> Result<(), WorldError> {
        if !self.formations.contains_key(formation) {
            return Err(WorldError::NoSuchFormation(formation));
        }
        self.check_member_order(formation, order)?;
        crate::order::check_order(order).map_err(|r| WorldError::Invalid {
            what: "order",
            why: r.to_string(),
        })?;
        self.check_tactical_order(order)?;
        if let Order::FormAlong {
            points,
            facing,
            at_slowest,
        } = order
        {
            self.form_along_move(formation, points, *facing, *at_slowest)?;
        }
        Ok(())
    }

    /// Lets a game's routine compute the targets of the reactive slots of formation `id`'s
    /// running play for the next step (call it before every [`World::step`]; the targets hold
    /// for that step's sub-steps and until the phase ends; slots the routine leaves `None`,
    /// and every slot in steps it is not called for, use their built-in reaction).
    pub fn drive_play_slots(
        &mut self,
        id: FormationId,
        routine: &mut dyn SlotRoutine,
    ) -> Result<(), WorldError> {
        let tick = self.tick;
        let mut tactics = std::mem::take(&mut self.tactics);
        let found = match tactics.iter_mut().find(|(f, _)| *f == id) {
            Some((_, Tactic::Play(run))) => {
                run.drive(self, id, tick, routine);
                Ok(())
            }
            _ => Err(WorldError::Invalid {
                what: "drive_play_slots",
                why: format!("formation {id:?} is not running a play"),
            }),
        };
        self.tactics = tactics;
        found
    }

    /// A formation by key.
    pub fn formation(&self, id: FormationId) -> Option<&Formation> {
        self.formations.get(id)
    }

    /// All formations, in a stable order.
    pub fn formations(&self) -> impl Iterator<Item = (FormationId, &Formation)> {
        self.formations.iter()
    }

    /// Number of units.
    pub fn unit_count(&self) -> usize {
        self.units.len()
    }

    /// The top-level formation of the tree `id` belongs to.
    pub fn root_of(&self, mut id: FormationId) -> FormationId {
        while let Some(p) = self.formations.get(id).and_then(|f| f.parent) {
            id = p;
        }
        id
    }

    /// Every unit in `id`'s subtree, depth first in slot order.
    pub fn units_in(&self, id: FormationId, out: &mut Vec<UnitId>) {
        if let Some(f) = self.formations.get(id) {
            for m in &f.members {
                match *m {
                    Member::Unit(u) => out.push(u),
                    Member::Formation(c) => self.units_in(c, out),
                }
            }
        }
    }
}

/// Most non-penetration iterations per tick a world accepts.
pub const MAX_PENETRATION_ITERATIONS: u32 = 64;

fn invalid(what: &'static str, why: String) -> WorldError {
    WorldError::Invalid { what, why }
}

/// Every number of the world's tuning is finite and not negative, and the iteration count is
/// bounded (NaN tuning would spread NaN to every unit; a huge count would hang a tick).
pub(in crate::world) fn check_world_settings(s: &WorldSettings) -> Result<(), WorldError> {
    let values = s.tuning();
    for (name, v) in values {
        if !(v.is_finite() && v >= 0.0) {
            return Err(invalid(
                "world settings",
                format!("{name} must be finite and >= 0, got {v}"),
            ));
        }
    }
    if s.penetration_iterations > MAX_PENETRATION_ITERATIONS {
        return Err(invalid(
            "world settings",
            format!(
                "penetration_iterations is {}; at most {MAX_PENETRATION_ITERATIONS}",
                s.penetration_iterations
            ),
        ));
    }
    Ok(())
}

/// Every number of a formation's tuning is finite and not negative.
pub(in crate::world) fn check_formation_settings(s: &FormationSettings) -> Result<(), WorldError> {
    let values = s.tuning();
    for (name, v) in values {
        if !(v.is_finite() && v >= 0.0) {
            return Err(invalid(
                "formation settings",
                format!("{name} must be finite and >= 0, got {v}"),
            ));
        }
    }
    Ok(())
}
