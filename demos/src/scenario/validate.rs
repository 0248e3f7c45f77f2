//! The semantic checks of a parsed scenario. Each error names the offending field by path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cohort_formation::MAX_PENETRATION_ITERATIONS;
use cohort_formation::formation::FormationSettings;
use cohort_formation::order::{Order, check_order};
use cohort_formation::pattern::Pattern;
use cohort_formation::pattern::{MAX_CUSTOM_SLOTS, MAX_EXTENT, MIN_SPACING, ValidPattern};
use cohort_formation::tactics::Playbook;
use cohort_formation::tactics::ValidPlaybook;
use cohort_formation::world::WorldSettings;
use cohort_steering::SteeringError;
use cohort_steering::limits::{MAX_SPEED, check_coord, check_direction};
use glam::Vec2;

use super::files::{AssetRoots, directory_of};
use super::format::{FormationNode, OrderSpec, PatternRef, Scenario};
use super::{
    MAX_DEPTH, MAX_DT, MAX_DURATION, MAX_EVENTS, MAX_MEMBERS, MAX_TOTAL_UNITS, ScenarioError,
};

/// The files a scenario names, loaded and validated: patterns by name, playbooks by the path
/// the scenario gives.
#[derive(Clone, Debug, Default)]
pub(super) struct Referenced {
    pub(super) patterns: BTreeMap<String, ValidPattern>,
    pub(super) playbooks: BTreeMap<String, ValidPlaybook>,
}

struct Checker<'a> {
    origin: &'a str,
    dirs: &'a [PathBuf],
    roots: &'a AssetRoots,
    loaded: Referenced,
    total_units: u64,
}

/// The name of the offending value of a steering error.
fn steering_field(e: &SteeringError) -> &'static str {
    match e {
        SteeringError::NonFinite { what, .. }
        | SteeringError::NotPositive { what, .. }
        | SteeringError::OutOfRange { what, .. } => what,
    }
}

impl Checker<'_> {
    fn err(&self, field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::invalid(self.origin, field, message)
    }

    /// A point: finite and within `cohort_steering::limits::MAX_COORD`.
    fn coord(&self, field: &str, v: Vec2) -> Result<(), ScenarioError> {
        check_coord("point", v)
            .map(|_| ())
            .map_err(|e| self.err(field, e.to_string()))
    }

    /// Every named number is finite and not negative (tuning values: NaN would spread to
    /// every unit of the world).
    fn tuning(&self, field: &str, values: &[(&str, f32)]) -> Result<(), ScenarioError> {
        for &(name, v) in values {
            if !(v.is_finite() && v >= 0.0) {
                return Err(self.err(
                    format!("{field}.{name}"),
                    format!("must be finite and >= 0, got {v}"),
                ));
            }
        }
        Ok(())
    }

    fn formation_settings(&self, field: &str, s: &FormationSettings) -> Result<(), ScenarioError> {
        self.tuning(field, &s.tuning())
    }

    fn world_settings(&self, s: &WorldSettings) -> Result<(), ScenarioError> {
        self.tuning("settings", &s.tuning())?;
        if s.penetration_iterations > MAX_PENETRATION_ITERATIONS {
            return Err(self.err(
                "settings.penetration_iterations",
                format!(
                    "{} iterations; at most {MAX_PENETRATION_ITERATIONS}",
                    s.penetration_iterations
                ),
            ));
        }
        Ok(())
    }

    fn direction(&self, field: &str, v: Vec2) -> Result<(), ScenarioError> {
        check_direction("direction", v)
            .map(|_| ())
            .map_err(|e| self.err(field, e.to_string()))
    }

    /// The order's own checks (the ones `World::order` makes), with the field path.
    fn order(&self, of: &str, order: &Order) -> Result<(), ScenarioError> {
        check_order(order).map_err(|r| {
            let field = match order {
                Order::Face(_) => of.to_owned(),
                _ => format!("{of}.{}", r.field),
            };
            self.err(field, r.why)
        })
    }

    /// Loads the playbook file `file` (relative to the scenario's directory) once.
    fn playbook(&mut self, field: &str, file: &str) -> Result<ValidPlaybook, ScenarioError> {
        if let Some(book) = self.loaded.playbooks.get(file) {
            return Ok(book.clone());
        }
        let book = load_scenario_playbook(self.origin, self.roots, file)
            .map_err(|e| self.err(field, e))?;
        self.loaded.playbooks.insert(file.to_owned(), book.clone());
        Ok(book)
    }

    fn pattern(&mut self, field: &str, p: &PatternRef) -> Result<(), ScenarioError> {
        match p {
            // The spacing comes from the formation (checked with it); what can be wrong here
            // is the kind alone (`Ranks(0)`, a bad `Custom` list), whatever the spacing.
            PatternRef::Kind(kind) => Pattern {
                kind: kind.clone(),
                ..Pattern::default()
            }
            .validate()
            .map(|_| ())
            .map_err(|e| self.err(field, e.to_string())),
            PatternRef::Inline(pattern) => pattern
                .validate()
                .map(|_| ())
                .map_err(|e| self.err(field, e.to_string())),
            PatternRef::File(name) => {
                if self.loaded.patterns.contains_key(name) {
                    return Ok(());
                }
                if name.is_empty() || name.contains("..") {
                    return Err(self.err(field, format!("bad pattern name {name:?}")));
                }
                let file = format!("{name}.ron");
                let found = self
                    .dirs
                    .iter()
                    .map(|d| d.join(&file))
                    .find(|p| p.is_file());
                let Some(path) = found else {
                    let looked: Vec<String> =
                        self.dirs.iter().map(|d| d.display().to_string()).collect();
                    return Err(self.err(
                        field,
                        format!(
                            "unknown pattern {name:?} (no {file} in {})",
                            looked.join(", ")
                        ),
                    ));
                };
                let origin = path.display().to_string();
                let text = self.roots.read(&path).map_err(|e| self.err(field, e))?;
                let valid = Pattern::from_ron_str(&text, &origin)
                    .map_err(|e| self.err(field, e.to_string()))?
                    .validate()
                    .map_err(|e| self.err(field, format!("{origin}: {e}")))?;
                self.loaded.patterns.insert(name.clone(), valid);
                Ok(())
            }
        }
    }

    fn node(
        &mut self,
        s: &Scenario,
        node: &FormationNode,
        field: &str,
        depth: usize,
        top_level: bool,
    ) -> Result<(), ScenarioError> {
        if depth > MAX_DEPTH {
            return Err(self.err(field, format!("formations nest deeper than {MAX_DEPTH}")));
        }
        if node.name.is_empty() || node.name.contains('/') {
            return Err(self.err(
                format!("{field}.name"),
                format!("{:?} must be non-empty and contain no '/'", node.name),
            ));
        }
        self.pattern(&format!("{field}.pattern"), &node.pattern)?;
        self.formation_settings(&format!("{field}.settings"), &node.settings)?;
        if let Some(sp) = node.spacing
            && !(sp.is_finite() && (MIN_SPACING..=MAX_EXTENT).contains(&sp))
        {
            return Err(self.err(
                format!("{field}.spacing"),
                format!("must be in [1e-6, 1e5], got {sp}"),
            ));
        }
        match node.position {
            Some(p) => self.coord(&format!("{field}.position"), p)?,
            None if top_level => {
                return Err(self.err(
                    format!("{field}.position"),
                    "a top-level formation needs a start position",
                ));
            }
            None => {}
        }
        if let Some(f) = node.facing {
            self.direction(&format!("{field}.facing"), f)?;
        }
        if node.template != "default" && !s.templates.contains_key(&node.template) {
            return Err(self.err(
                format!("{field}.template"),
                format!("unknown template {:?}", node.template),
            ));
        }
        let members = u64::from(node.units) + node.children.len() as u64;
        if members == 0 {
            return Err(self.err(
                format!("{field}.units"),
                "a formation needs at least one unit or sub-formation",
            ));
        }
        if members > MAX_MEMBERS {
            return Err(self.err(
                format!("{field}.units"),
                format!("{members} members; at most {MAX_MEMBERS} per formation"),
            ));
        }
        self.total_units += u64::from(node.units);
        if self.total_units > MAX_TOTAL_UNITS {
            return Err(self.err(
                format!("{field}.units"),
                format!(
                    "the scenario would have {} or more units; at most {MAX_TOTAL_UNITS}",
                    self.total_units
                ),
            ));
        }
        let mut names = BTreeSet::new();
        for (i, child) in node.children.iter().enumerate() {
            let cf = format!("{field}.children[{i}]");
            if !names.insert(child.name.as_str()) {
                return Err(self.err(
                    format!("{cf}.name"),
                    format!("{:?} is used twice among siblings", child.name),
                ));
            }
            self.node(s, child, &cf, depth + 1, false)?;
        }
        Ok(())
    }
}

/// Number of units in a node's subtree (saturating; called only after validation).
pub(super) fn subtree_units(node: &FormationNode) -> u64 {
    node.children.iter().fold(u64::from(node.units), |a, c| {
        a.saturating_add(subtree_units(c))
    })
}

/// Every formation path (`a/b/c`) with its node, depth first.
pub(super) fn paths(nodes: &[FormationNode]) -> Vec<(String, &FormationNode)> {
    fn walk<'a>(prefix: &str, n: &'a FormationNode, out: &mut Vec<(String, &'a FormationNode)>) {
        let path = if prefix.is_empty() {
            n.name.clone()
        } else {
            format!("{prefix}/{}", n.name)
        };
        for c in &n.children {
            walk(&path, c, out);
        }
        out.push((path, n));
    }
    let mut out = Vec::new();
    for n in nodes {
        walk("", n, &mut out);
    }
    out
}

/// Resolves a timeline's formation reference: an exact path, or a name unique in the tree.
pub(super) fn resolve<'a>(
    all: &'a [(String, &'a FormationNode)],
    reference: &str,
) -> Result<&'a (String, &'a FormationNode), String> {
    if let Some(hit) = all.iter().find(|(p, _)| p == reference) {
        return Ok(hit);
    }
    let mut by_name = all.iter().filter(|(_, n)| n.name == reference);
    match (by_name.next(), by_name.next()) {
        (Some(hit), None) => Ok(hit),
        (Some(_), Some(_)) => Err(format!(
            "{reference:?} names more than one formation; use its path (a/b/c)"
        )),
        _ => Err(format!("no formation {reference:?}")),
    }
}

/// Checks everything; returns the loaded pattern and playbook files.
pub(super) fn check(
    s: &Scenario,
    origin: &str,
    dirs: &[PathBuf],
    roots: &AssetRoots,
) -> Result<Referenced, ScenarioError> {
    let mut c = Checker {
        origin,
        dirs,
        roots,
        loaded: Referenced::default(),
        total_units: 0,
    };
    if !(s.dt.is_finite() && s.dt > 0.0 && s.dt <= MAX_DT) {
        return Err(c.err(
            "dt",
            format!("must be in (0, {MAX_DT}] seconds, got {}", s.dt),
        ));
    }
    if s.duration == 0 || s.duration > MAX_DURATION {
        return Err(c.err(
            "duration",
            format!("must be 1..={MAX_DURATION} ticks, got {}", s.duration),
        ));
    }
    s.map.check().map_err(|e| c.err("map", e.to_string()))?;
    c.world_settings(&s.settings)?;
    for (name, t) in &s.templates {
        t.body(Vec2::ZERO, Vec2::X).validate().map_err(|e| {
            c.err(
                format!("templates[{name:?}].{}", steering_field(&e)),
                e.to_string(),
            )
        })?;
        if !(t.jump_speed.is_finite() && (0.0..=MAX_SPEED).contains(&t.jump_speed)) {
            return Err(c.err(
                format!("templates[{name:?}].jump_speed"),
                format!("must be in [0, 1e4], got {}", t.jump_speed),
            ));
        }
    }
    if s.formations.is_empty() {
        return Err(c.err("formations", "the scenario has no formations"));
    }
    let mut names = BTreeSet::new();
    for (i, node) in s.formations.iter().enumerate() {
        let field = format!("formations[{i}]");
        if !names.insert(node.name.as_str()) {
            return Err(c.err(
                format!("{field}.name"),
                format!("{:?} is used twice among top-level formations", node.name),
            ));
        }
        c.node(s, node, &field, 0, true)?;
    }
    if s.timeline.len() > MAX_EVENTS {
        return Err(c.err(
            "timeline",
            format!("{} events; at most {MAX_EVENTS}", s.timeline.len()),
        ));
    }
    let all = paths(&s.formations);
    for (i, ev) in s.timeline.iter().enumerate() {
        let field = format!("timeline[{i}]");
        if ev.tick > MAX_DURATION {
            return Err(c.err(format!("{field}.tick"), "after the longest possible run"));
        }
        let (path, node) =
            resolve(&all, &ev.formation).map_err(|m| c.err(format!("{field}.formation"), m))?;
        let member_may_take = matches!(
            ev.order,
            None | Some(OrderSpec::ChangePattern(_) | OrderSpec::Cancel)
        );
        let top_level = s.formations.iter().any(|n| std::ptr::eq(n, *node));
        if !top_level && !member_may_take {
            return Err(c.err(
                format!("{field}.formation"),
                format!(
                    "{path:?} is a member of another formation and follows its slot: it takes \
                     only ChangePattern and Cancel; order the top-level formation"
                ),
            ));
        }
        match (&ev.order, ev.kill.is_empty()) {
            (Some(_), false) | (None, true) => {
                return Err(c.err(
                    field,
                    "an event has either an `order` or a non-empty `kill` list",
                ));
            }
            (None, false) => {
                let n = subtree_units(node);
                if let Some(&bad) = ev.kill.iter().find(|&&k| k as u64 >= n) {
                    return Err(c.err(
                        format!("{field}.kill"),
                        format!("unit index {bad}, but {:?} has {n} units", ev.formation),
                    ));
                }
            }
            (Some(order), true) => {
                let of = format!("{field}.order");
                match order {
                    OrderSpec::MoveTo {
                        goal,
                        facing,
                        pattern,
                        at_slowest,
                    } => {
                        c.order(
                            &of,
                            &Order::MoveTo {
                                goal: *goal,
                                facing: *facing,
                                pattern: None,
                                at_slowest: *at_slowest,
                            },
                        )?;
                        if let Some(p) = pattern {
                            c.pattern(&format!("{of}.pattern"), p)?;
                        }
                    }
                    OrderSpec::ChangePattern(p) => c.pattern(&format!("{of}.pattern"), p)?,
                    OrderSpec::Face(f) => c.order(&of, &Order::Face(*f))?,
                    OrderSpec::Halt | OrderSpec::Cancel => {}
                    OrderSpec::RunPlay {
                        playbook,
                        play,
                        origin,
                        facing,
                    } => {
                        let book = c.playbook(&format!("{of}.playbook"), playbook)?;
                        c.order(
                            &of,
                            &Order::RunPlay {
                                playbook: book,
                                play: play.clone(),
                                origin: *origin,
                                facing: *facing,
                            },
                        )?;
                    }
                    OrderSpec::BoundingOverwatch {
                        goal,
                        threat,
                        settings,
                    } => c.order(
                        &of,
                        &Order::BoundingOverwatch {
                            goal: *goal,
                            threat: *threat,
                            settings: *settings,
                        },
                    )?,
                    OrderSpec::FormAlong {
                        points,
                        facing,
                        at_slowest,
                    } => {
                        c.order(
                            &of,
                            &Order::FormAlong {
                                points: points.clone(),
                                facing: *facing,
                                at_slowest: *at_slowest,
                            },
                        )?;
                        // The layout becomes a custom pattern with one slot per direct member.
                        let members = u64::from(node.units) + node.children.len() as u64;
                        if members > MAX_CUSTOM_SLOTS as u64 {
                            return Err(c.err(
                                of,
                                format!(
                                    "{members} direct members; a drawn line holds at most \
                                     {MAX_CUSTOM_SLOTS}"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(c.loaded)
}

/// Loads the playbook file `file` of the scenario at `origin` (a path relative to the
/// scenario's directory, inside its asset `roots`), validated; the message names
/// `file:line:col` for syntax errors.
pub(super) fn load_scenario_playbook(
    origin: &str,
    roots: &AssetRoots,
    file: &str,
) -> Result<ValidPlaybook, String> {
    if file.is_empty() {
        return Err("the playbook file name is empty".into());
    }
    let path = directory_of(Path::new(origin)).join(file);
    let text = roots.read(&path)?;
    let shown = path.display().to_string();
    Playbook::from_ron_str(&text, &shown)
        .map_err(|e| e.to_string())?
        .validate()
        .map_err(|e| format!("{shown}: {e}"))
}
