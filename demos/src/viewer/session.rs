//! The state of a viewing session and every user action on it, free of any window code so it
//! can be tested: the run (advanced only through [`Runner::step`], the headless runner's own
//! frame step), the selection, the picked unit, pause and speed, the pattern library and the
//! reloading of files that changed on disk (keeping the last good state when one is broken).

use std::path::{Path, PathBuf};

use cohort_formation::pattern::{Pattern, PatternKind};
use cohort_formation::{FormationId, Order, UnitId};
use glam::Vec2;

use super::colours::SquadColours;
use super::inspect::{Inspection, Inspector};
use super::tactics::{self, PlaybookLibrary};
use super::watch::{Changes, PatternLibrary, Watcher};
use crate::runner::{Runner, load_runner_with_assets, shapes_of};
use crate::scenario::ScenarioError;
use crate::shapes::MapShapes;
use cohort_formation::World;

/// Most ticks run in one frame; a slower machine drops the rest rather than falling behind.
pub const MAX_TICKS_PER_FRAME: u32 = 32;
/// Speed factors `+` and `-` step through.
pub const SPEEDS: [f32; 9] = [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

/// The kinds `P` cycles through when there are no pattern files.
const BUILT_IN_KINDS: [PatternKind; 9] = [
    PatternKind::Line,
    PatternKind::Column,
    PatternKind::Wedge,
    PatternKind::FingerFour,
    PatternKind::EchelonLeft,
    PatternKind::EchelonRight,
    PatternKind::Box,
    PatternKind::DefensiveCircle,
    PatternKind::TwoAbreast,
];

/// A message on screen about the last action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
}

/// A viewing session.
#[derive(Debug)]
pub struct Session {
    path: PathBuf,
    /// The command line's `--assets DIR`: pattern and playbook files may also come from there.
    assets: Option<PathBuf>,
    /// The run being watched.
    pub runner: Runner,
    /// Squad colours of the current world.
    pub squads: SquadColours,
    /// The map's shapes, for drawing.
    pub shapes: MapShapes,
    /// The formation orders go to.
    pub selected: Option<FormationId>,
    /// The unit being inspected.
    pub picked: Option<UnitId>,
    /// What the inspector saw at the last tick.
    pub inspection: Option<Inspection>,
    inspector: Inspector,
    /// Whether time stands still.
    pub paused: bool,
    speed_index: usize,
    backlog: f32,
    /// Patterns `P` cycles through.
    pub patterns: PatternLibrary,
    pattern_cursor: usize,
    /// Playbooks `Y` starts plays from.
    pub playbooks: PlaybookLibrary,
    play_cursor: usize,
    /// Where bounding overwatch assumes the enemy is (`T` places it).
    pub threat: Option<Vec2>,
    /// The scenario file's error while it is broken (the last good run goes on).
    pub load_error: Option<String>,
    /// The last action's message.
    pub notice: Option<Notice>,
    watcher: Watcher,
}

impl Session {
    /// Opens the scenario at `path` (which must load) with its pattern library.
    pub fn open(path: &Path) -> Result<Self, ScenarioError> {
        Self::open_with_assets(path, None)
    }

    /// [`Session::open`] also allowing pattern and playbook files under `assets` (the command
    /// line's `--assets DIR`, as for `cohort run`), and offering those in the libraries.
    pub fn open_with_assets(path: &Path, assets: Option<&Path>) -> Result<Self, ScenarioError> {
        let runner = load_runner_with_assets(path, None, true, assets)?;
        let mut s = Self {
            path: path.to_path_buf(),
            assets: assets.map(Path::to_path_buf),
            squads: SquadColours::of(runner.world()),
            shapes: view_shapes(runner.world()),
            runner,
            selected: None,
            picked: None,
            inspection: None,
            inspector: Inspector::new(),
            paused: false,
            speed_index: 3,
            backlog: 0.0,
            patterns: PatternLibrary::load(path, assets),
            pattern_cursor: 0,
            playbooks: PlaybookLibrary::load(path, assets),
            play_cursor: 0,
            threat: None,
            load_error: None,
            notice: None,
            watcher: Watcher::new(path, assets),
        };
        s.selected = s.runner.world().formations().map(|(id, _)| id).next();
        Ok(s)
    }

    /// The scenario file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The speed factor (simulated seconds per real second).
    pub fn speed(&self) -> f32 {
        SPEEDS.get(self.speed_index).copied().unwrap_or(1.0)
    }

    fn say(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some(Notice {
            text: text.into(),
            error,
        });
    }

    /// Runs one tick through the runner's step and refreshes the inspection.
    pub fn step_once(&mut self) {
        if let Err(e) = self.runner.step() {
            self.paused = true;
            self.say(format!("run stopped: {e}"), true);
        }
        self.refresh_inspection();
    }

    fn refresh_inspection(&mut self) {
        let dt = self.runner.dt();
        self.inspection = self
            .picked
            .and_then(|u| self.inspector.inspect(self.runner.world(), u, dt));
        if self.inspection.is_none() {
            self.picked = None;
        }
    }

    /// Advances by `seconds` of real time at the current speed (nothing while paused);
    /// returns the ticks run.
    pub fn advance(&mut self, seconds: f32) -> u32 {
        if self.paused || !(seconds > 0.0) || !seconds.is_finite() {
            return 0;
        }
        let dt = self.runner.dt();
        self.backlog += seconds * self.speed();
        let mut n = 0;
        while self.backlog >= dt && n < MAX_TICKS_PER_FRAME {
            self.step_once();
            self.backlog -= dt;
            n += 1;
        }
        if n == MAX_TICKS_PER_FRAME {
            self.backlog = 0.0;
        }
        n
    }

    /// Pauses or resumes.
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.backlog = 0.0;
    }

    /// Pauses and runs exactly one tick.
    pub fn single_step(&mut self) {
        self.paused = true;
        self.step_once();
    }

    /// Doubles (`faster`) or halves the speed, within [`SPEEDS`].
    pub fn change_speed(&mut self, faster: bool) {
        self.speed_index = if faster {
            (self.speed_index + 1).min(SPEEDS.len() - 1)
        } else {
            self.speed_index.saturating_sub(1)
        };
    }

    /// Selects the next formation in the world's order.
    pub fn select_next(&mut self) {
        let ids: Vec<FormationId> = self.runner.world().formations().map(|(id, _)| id).collect();
        let at = self
            .selected
            .and_then(|s| ids.iter().position(|&i| i == s))
            .map_or(0, |i| i + 1);
        self.selected = ids.get(at % ids.len().max(1)).copied();
    }

    /// Selects the parent of the selected formation (if it has one).
    pub fn select_parent(&mut self) {
        let world = self.runner.world();
        if let Some(p) = self.selected.and_then(|s| world.formation(s)?.parent) {
            self.selected = Some(p);
        }
    }

    /// The unit whose body is under world point `at` (within `slack` world units), nearest first.
    pub fn unit_at(&self, at: Vec2, slack: f32) -> Option<UnitId> {
        self.runner
            .world()
            .units()
            .map(|(id, u)| (id, (u.body.position - at).length() - u.body.radius))
            .filter(|&(_, d)| d <= slack)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id)
    }

    /// Picks the unit under `at` for inspection and selects its formation; clears the pick if
    /// there is none.
    pub fn pick_at(&mut self, at: Vec2, slack: f32) {
        self.picked = self.unit_at(at, slack);
        self.runner.watch_unit(self.picked);
        if let Some(f) = self
            .picked
            .and_then(|u| self.runner.world().unit(u)?.formation)
        {
            self.selected = Some(f);
        }
        self.inspector = Inspector::new();
        self.refresh_inspection();
    }

    fn selected_name(&self) -> String {
        self.selected
            .and_then(|f| self.runner.world().formation(f))
            .map_or_else(|| String::from("?"), |f| f.name.clone())
    }

    fn give(&mut self, order: Order, what: &str) {
        let Some(f) = self.selected else {
            self.say("no formation selected (Tab selects one)", true);
            return;
        };
        let name = self.selected_name();
        // A member formation follows its parent's slot; to obey an order of its own it is
        // taken out of its parent first, and the notice says so.
        let mut detached = String::new();
        if !matches!(order, Order::ChangePattern(_) | Order::Cancel) {
            match self.runner.detach_formation(f) {
                Ok(Some(parent)) => {
                    let parent = self
                        .runner
                        .world()
                        .formation(parent)
                        .map_or_else(|| String::from("?"), |p| p.name.clone());
                    detached = format!(" (detached from {parent})");
                }
                Ok(None) => {}
                Err(e) => {
                    self.say(format!("{name}: {e}"), true);
                    return;
                }
            }
        }
        match self.runner.order(f, order) {
            Ok(()) => self.say(format!("{name}: {what}{detached}"), false),
            Err(e) => self.say(format!("{name}: {e}"), true),
        }
    }

    /// Orders the selected formation to move to `goal`.
    pub fn order_move(&mut self, goal: Vec2) {
        self.give(
            Order::move_to(goal),
            &format!("move to ({:.1}, {:.1})", goal.x, goal.y),
        );
    }

    /// Lays the selected formation out in the next pattern of the library (without pattern
    /// files: the next built-in kind at the formation's current spacing).
    pub fn cycle_pattern(&mut self) {
        let (name, pattern) = if self.patterns.patterns.is_empty() {
            let spacing = self
                .selected
                .and_then(|f| self.runner.world().formation(f))
                .map_or(1.5, |f| f.pattern().spacing());
            let kind = BUILT_IN_KINDS[self.pattern_cursor % BUILT_IN_KINDS.len()].clone();
            let name = format!("{kind:?}");
            let pattern = Pattern {
                kind,
                spacing,
                ..Pattern::default()
            };
            match pattern.validate() {
                Ok(valid) => (name, valid),
                Err(e) => {
                    self.pattern_cursor += 1;
                    self.say(format!("pattern {name}: {e}"), true);
                    return;
                }
            }
        } else {
            self.patterns.patterns[self.pattern_cursor % self.patterns.patterns.len()].clone()
        };
        self.pattern_cursor += 1;
        self.give(Order::ChangePattern(pattern), &format!("pattern {name}"));
    }

    /// Starts the next play (from the playbooks beside the scenario; plays with as many slots
    /// as the selected formation has members come first).
    pub fn run_play(&mut self) {
        let members = self
            .selected
            .and_then(|f| self.runner.world().formation(f))
            .map_or(0, |f| f.members.len());
        match self.playbooks.play_order(members, self.play_cursor) {
            Ok((order, what)) => {
                self.play_cursor += 1;
                self.give(order, &what);
            }
            Err(why) => self.say(why, true),
        }
    }

    /// Places the threat bounding overwatch covers against.
    pub fn place_threat(&mut self, at: Vec2) {
        self.threat = Some(at);
        self.say(format!("threat at ({:.1}, {:.1})", at.x, at.y), false);
    }

    /// Starts bounding overwatch of the selected formation to `goal`.
    pub fn overwatch(&mut self, goal: Vec2) {
        let Some(f) = self.selected else {
            self.say("no formation selected (Tab selects one)", true);
            return;
        };
        let (order, what) = tactics::overwatch_order(self.runner.world(), f, goal, self.threat);
        self.give(order, &what);
    }

    /// Kills the picked unit, or else the last unit of the selected formation.
    pub fn kill(&mut self) {
        let victim = self.picked.or_else(|| {
            let f = self.selected?;
            let mut units = Vec::new();
            self.runner.world().units_in(f, &mut units);
            units.last().copied()
        });
        let Some(id) = victim else {
            self.say("nothing to kill: pick a unit or select a formation", true);
            return;
        };
        let formation = self.runner.world().unit(id).and_then(|u| u.formation);
        if self.runner.remove_unit(id) {
            let left = formation
                .and_then(|f| self.runner.world().formation(f))
                .map_or(0, |f| f.members.len());
            self.say(
                format!("unit killed; its formation reassigns {left} member(s)"),
                false,
            );
        }
        self.picked = None;
        self.inspection = None;
    }

    /// Polls the watched files and reloads what changed.
    pub fn poll_files(&mut self) -> Changes {
        let changes = self.watcher.poll();
        if changes.any() {
            self.reload(&changes);
        }
        changes
    }

    /// Reloads: the pattern library and playbooks always, the run when the scenario or a
    /// pattern changed. A broken scenario keeps the last good run and shows its error.
    pub fn reload(&mut self, changes: &Changes) {
        if changes.patterns {
            self.patterns = PatternLibrary::load(&self.path, self.assets.as_deref());
        }
        if changes.playbooks {
            self.playbooks = PlaybookLibrary::load(&self.path, self.assets.as_deref());
        }
        if !(changes.scenario || changes.patterns) {
            return;
        }
        match load_runner_with_assets(&self.path, None, true, self.assets.as_deref()) {
            Ok(runner) => {
                let order: Vec<FormationId> =
                    self.runner.world().formations().map(|(id, _)| id).collect();
                let at = self
                    .selected
                    .and_then(|s| order.iter().position(|&i| i == s));
                self.runner = runner;
                self.squads = SquadColours::of(self.runner.world());
                self.shapes = view_shapes(self.runner.world());
                self.selected = self
                    .runner
                    .world()
                    .formations()
                    .map(|(id, _)| id)
                    .nth(at.unwrap_or(0));
                self.picked = None;
                self.inspection = None;
                self.load_error = None;
                self.say(format!("reloaded {}", self.path.display()), false);
            }
            Err(e) => self.load_error = Some(e.to_string()),
        }
    }

    /// Forces a reload of everything.
    pub fn reload_all(&mut self) {
        self.reload(&Changes {
            scenario: true,
            patterns: true,
            playbooks: true,
        });
    }

    /// Every file error to show: the scenario's, the pattern files' and the playbooks'.
    pub fn file_errors(&self) -> Vec<String> {
        self.load_error
            .iter()
            .cloned()
            .chain(self.patterns.errors.values().cloned())
            .chain(self.playbooks.errors.values().cloned())
            .collect()
    }
}

/// The map's shapes as drawn: those of `cohort render`, with every cover point the world knows
/// (the authored ones and those generated along obstacles).
pub fn view_shapes(world: &World) -> MapShapes {
    let mut shapes = shapes_of(world.map());
    shapes.cover = world
        .valid_map()
        .cover_points()
        .iter()
        .map(|c| c.position)
        .collect();
    shapes
}
