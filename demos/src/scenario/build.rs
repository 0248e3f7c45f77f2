//! From a validated scenario to a [`World`] with its formations and units in place, and the
//! [`Timeline`] of orders and kills resolved to ids.
//!
//! Units start in their slots: each formation's pattern is laid out around its start anchor,
//! sub-formations take the first slots (their anchors start there) and the formation's own
//! units the rest.

use cohort_formation::pattern::{Pattern, Slot, ValidPattern};
use cohort_formation::{
    AnchorPoint, FormationId, FormationSpec, Member, Order, UnitId, UnitOptions, World,
};
use glam::Vec2;

use super::format::{FormationNode, OrderSpec, PatternRef, Scenario, UnitTemplate};
use super::validate::{paths, resolve};
use super::{LoadedScenario, ScenarioError};

/// What a timeline event does.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineAction {
    /// Give the formation an order.
    Order(Order),
    /// Kill these units (those already dead are skipped).
    Kill(Vec<UnitId>),
}

/// A timeline event resolved against a built world.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEvent {
    /// The tick before whose step the event happens.
    pub tick: u64,
    /// The formation it concerns.
    pub formation: FormationId,
    /// What happens.
    pub action: TimelineAction,
    /// Where it was written: `file: timeline[i]`, for messages.
    pub source: String,
}

/// The scenario's events in tick order (events of one tick in file order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// The events, sorted by tick.
    pub events: Vec<TimelineEvent>,
}

impl Timeline {
    /// The events of `tick`.
    pub fn at(&self, tick: u64) -> impl Iterator<Item = &TimelineEvent> {
        let start = self.events.partition_point(|e| e.tick < tick);
        self.events
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(move |e| e.tick == tick)
    }
}

/// A unit as the scenario spawned it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SpawnedUnit {
    /// Its key in the world.
    pub id: UnitId,
    /// Index of its top-level formation in the scenario (its colour group).
    pub group: usize,
}

/// A built scenario: the world at tick 0, its timeline, and the units in spawn order.
#[derive(Clone, Debug)]
pub struct Built {
    /// The world.
    pub world: World,
    /// Orders and kills by tick.
    pub timeline: Timeline,
    /// Every unit in spawn order (the metrics' stable indices).
    pub units: Vec<SpawnedUnit>,
    /// Top-level formations in scenario order.
    pub roots: Vec<FormationId>,
    /// Seconds per tick.
    pub dt: f32,
    /// Ticks to run.
    pub duration: u64,
}

struct Builder<'a> {
    loaded: &'a LoadedScenario,
    world: World,
    units: Vec<SpawnedUnit>,
    /// Formation path → (id, units of the subtree in spawn order).
    formations: Vec<(String, FormationId, Vec<UnitId>)>,
    slots: Vec<Slot>,
}

impl Builder<'_> {
    fn err(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Build {
            origin: self.loaded.origin.clone(),
            message: message.into(),
        }
    }

    fn template(&self, name: &str) -> UnitTemplate {
        self.loaded
            .scenario
            .templates
            .get(name)
            .copied()
            .unwrap_or_default()
    }

    /// The node's pattern, and the largest unit radius in its subtree.
    fn pattern(&self, node: &FormationNode) -> Result<(ValidPattern, f32), ScenarioError> {
        let radius = self.template(&node.template).radius;
        let mut max_radius = if node.units > 0 { radius } else { 0.0 };
        let mut children = Vec::with_capacity(node.children.len());
        for c in &node.children {
            let (p, r) = self.pattern(c)?;
            max_radius = max_radius.max(r);
            children.push((p, c.children.len() + c.units as usize));
        }
        let pattern = match &node.pattern {
            PatternRef::Inline(p) => p.clone(),
            PatternRef::File(name) => self
                .loaded
                .patterns
                .get(name)
                .map(|p| p.pattern().clone())
                .ok_or_else(|| self.err(format!("pattern {name:?} was not loaded")))?,
            PatternRef::Kind(kind) => {
                let children = children.iter().map(|(p, n)| (p, *n));
                let mut p = Pattern::for_children(kind.clone(), max_radius, children);
                if let Some(s) = node.spacing {
                    p.spacing = s;
                }
                p
            }
        };
        let valid = pattern
            .validate()
            .map_err(|e| self.err(format!("formation {:?}: {e}", node.name)))?;
        Ok((valid, max_radius))
    }

    /// The pattern an order to `for_node` names, validated.
    fn pattern_ref(
        &self,
        p: &PatternRef,
        for_node: &FormationNode,
    ) -> Result<ValidPattern, ScenarioError> {
        match p {
            PatternRef::Kind(kind) => {
                // Same spacing as the node's own pattern, new shape.
                let (own, _) = self.pattern(for_node)?;
                Pattern {
                    kind: kind.clone(),
                    ..own.pattern().clone()
                }
                .validate()
                .map_err(|e| self.err(format!("formation {:?}: {e}", for_node.name)))
            }
            _ => {
                let mut n = for_node.clone();
                n.pattern = p.clone();
                Ok(self.pattern(&n)?.0)
            }
        }
    }

    /// Creates `node` and its subtree with the anchor at `position`, facing `facing`.
    fn node(
        &mut self,
        node: &FormationNode,
        path: String,
        parent: Option<FormationId>,
        position: Vec2,
        facing: Vec2,
        group: usize,
    ) -> Result<(FormationId, Vec<UnitId>), ScenarioError> {
        let (pattern, _) = self.pattern(node)?;
        let spec = FormationSpec {
            name: node.name.clone(),
            pattern: pattern.pattern().clone(),
            role: node.role,
            settings: node.settings.clone(),
        };
        let id = self
            .world
            .add_formation(spec, parent, position, facing)
            .map_err(|e| self.err(format!("formation {path:?}: {e}")))?;
        let anchor = AnchorPoint::at(position, facing);
        let count = node.children.len() + node.units as usize;
        let mut slots = std::mem::take(&mut self.slots);
        pattern.layout(count, &mut slots);
        let offsets: Vec<Slot> = slots.clone();
        self.slots = slots;
        let mut subtree = Vec::new();
        for (i, child) in node.children.iter().enumerate() {
            let slot = offsets.get(i).copied().unwrap_or_default();
            let at = child.position.unwrap_or(anchor.slot_position(slot.offset));
            let face = child.facing.unwrap_or(anchor.orientation);
            let (_, units) = self.node(
                child,
                format!("{path}/{}", child.name),
                Some(id),
                at,
                face,
                group,
            )?;
            subtree.extend(units);
        }
        let template = self.template(&node.template);
        for k in 0..node.units as usize {
            let slot = offsets
                .get(node.children.len() + k)
                .copied()
                .unwrap_or_default();
            let body = template.body(
                anchor.slot_position(slot.offset),
                anchor.slot_facing(slot.facing),
            );
            let options = UnitOptions {
                jump_speed: template.jump_speed,
                ..UnitOptions::default()
            };
            let uid = self
                .world
                .add_unit_with(body, options)
                .map_err(|e| self.err(format!("unit {k} of {path:?}: {e}")))?;
            self.world
                .add_member(id, Member::Unit(uid))
                .map_err(|e| self.err(format!("unit {k} of {path:?}: {e}")))?;
            self.units.push(SpawnedUnit { id: uid, group });
            subtree.push(uid);
        }
        self.formations.push((path, id, subtree.clone()));
        Ok((id, subtree))
    }

    fn order(&self, spec: &OrderSpec, node: &FormationNode) -> Result<Order, ScenarioError> {
        Ok(match spec {
            OrderSpec::MoveTo {
                goal,
                facing,
                pattern,
                at_slowest,
            } => Order::MoveTo {
                goal: *goal,
                facing: *facing,
                pattern: pattern
                    .as_ref()
                    .map(|p| self.pattern_ref(p, node))
                    .transpose()?,
                at_slowest: *at_slowest,
            },
            OrderSpec::ChangePattern(p) => Order::ChangePattern(self.pattern_ref(p, node)?),
            OrderSpec::Face(f) => Order::Face(*f),
            OrderSpec::Halt => Order::Halt,
            OrderSpec::Cancel => Order::Cancel,
            OrderSpec::RunPlay {
                playbook,
                play,
                origin,
                facing,
            } => Order::RunPlay {
                playbook: self
                    .loaded
                    .playbooks
                    .get(playbook)
                    .cloned()
                    .ok_or_else(|| self.err(format!("playbook {playbook:?} was not loaded")))?,
                play: play.clone(),
                origin: *origin,
                facing: *facing,
            },
            OrderSpec::BoundingOverwatch {
                goal,
                threat,
                settings,
            } => Order::BoundingOverwatch {
                goal: *goal,
                threat: *threat,
                settings: *settings,
            },
            OrderSpec::FormAlong {
                points,
                facing,
                at_slowest,
            } => Order::FormAlong {
                points: points.clone(),
                facing: *facing,
                at_slowest: *at_slowest,
            },
        })
    }
}

impl LoadedScenario {
    /// Builds the world at tick 0 and resolves the timeline. Deterministic: the same scenario
    /// always gives the same world (same keys, same state hash).
    pub fn build(&self) -> Result<Built, ScenarioError> {
        let s: &Scenario = &self.scenario;
        let world = World::new(s.map.clone(), s.settings.clone(), s.seed).map_err(|e| {
            ScenarioError::Build {
                origin: self.origin.clone(),
                message: e.to_string(),
            }
        })?;
        let mut b = Builder {
            loaded: self,
            world,
            units: Vec::new(),
            formations: Vec::new(),
            slots: Vec::new(),
        };
        let mut roots = Vec::new();
        for (group, node) in s.formations.iter().enumerate() {
            let position = node.position.unwrap_or_default();
            let facing = node.facing.unwrap_or(Vec2::X);
            let (id, _) = b.node(node, node.name.clone(), None, position, facing, group)?;
            roots.push(id);
        }
        let all = paths(&s.formations);
        let mut events = Vec::with_capacity(s.timeline.len());
        for (i, ev) in s.timeline.iter().enumerate() {
            let (path, node) = resolve(&all, &ev.formation).map_err(|m| b.err(m))?;
            let Some((_, fid, units)) = b.formations.iter().find(|(p, _, _)| p == path) else {
                return Err(b.err(format!("formation {path:?} was not built")));
            };
            let action = match &ev.order {
                Some(o) => TimelineAction::Order(b.order(o, node)?),
                None => TimelineAction::Kill(
                    ev.kill
                        .iter()
                        .filter_map(|&k| units.get(k).copied())
                        .collect(),
                ),
            };
            events.push(TimelineEvent {
                tick: ev.tick,
                formation: *fid,
                action,
                source: format!("{}: timeline[{i}]", self.origin),
            });
        }
        events.sort_by_key(|e| e.tick);
        Ok(Built {
            world: b.world,
            timeline: Timeline { events },
            units: b.units,
            roots,
            dt: s.dt,
            duration: s.duration,
        })
    }
}
