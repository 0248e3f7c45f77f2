//! The tactics orders the viewer gives: a play from a playbook (`Order::RunPlay`) and bounding
//! overwatch to a point (`Order::BoundingOverwatch`), the playbook library they draw on, and
//! a line about what a formation's tactic is doing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cohort_formation::tactics::{OverwatchSettings, Tactic, ValidPlaybook, load_playbook};
use cohort_formation::{FormationId, Order, World};
use glam::Vec2;

use super::watch::{playbook_dirs, ron_files};

/// Distance from the goal to the threat assumed when none was placed (along the advance).
pub const DEFAULT_THREAT_DISTANCE: f32 = 30.0;

/// The playbooks beside the scenario (`playbooks/`, `../playbooks/`; a name nearer the
/// scenario hides the same name further out) and the files that did not load.
#[derive(Clone, Debug, Default)]
pub struct PlaybookLibrary {
    /// Valid playbooks, by file name order.
    pub books: Vec<ValidPlaybook>,
    /// Files that did not load, with their error.
    pub errors: BTreeMap<PathBuf, String>,
}

impl PlaybookLibrary {
    /// Loads the library of the scenario at `scenario` (and of `assets`, `--assets DIR`).
    pub fn load(scenario: &Path, assets: Option<&Path>) -> Self {
        let mut by_name: BTreeMap<String, ValidPlaybook> = BTreeMap::new();
        let mut errors = BTreeMap::new();
        for dir in playbook_dirs(scenario, assets) {
            for file in ron_files(&dir) {
                let stem = file
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                if by_name.contains_key(&stem) {
                    continue;
                }
                match load_playbook(&file) {
                    Ok(book) => {
                        by_name.insert(stem, book);
                    }
                    Err(e) => {
                        errors.insert(file, e.to_string());
                    }
                }
            }
        }
        Self {
            books: by_name.into_values().collect(),
            errors,
        }
    }

    /// Every (book, play) pair, those whose slot count equals `members` first.
    pub fn plays_for(&self, members: usize) -> Vec<(usize, String)> {
        let mut fits = Vec::new();
        let mut rest = Vec::new();
        for (b, book) in self.books.iter().enumerate() {
            for play in &book.playbook().plays {
                let slots = play.phases.first().map_or(0, |p| p.slots.len());
                let entry = (b, play.name.clone());
                if slots == members {
                    fits.push(entry);
                } else {
                    rest.push(entry);
                }
            }
        }
        fits.extend(rest);
        fits
    }

    /// Order number `cursor` (cycling) of the plays for a formation of `members`, with a
    /// description; or why there is none.
    pub fn play_order(&self, members: usize, cursor: usize) -> Result<(Order, String), String> {
        let plays = self.plays_for(members);
        if plays.is_empty() {
            return Err(String::from("no playbooks found (playbooks/*.ron)"));
        }
        let (b, play) = plays[cursor % plays.len()].clone();
        let book = self.books[b].clone();
        let what = format!("play {}/{play}", book.name());
        Ok((
            Order::RunPlay {
                playbook: book,
                play,
                origin: None,
                facing: None,
            },
            what,
        ))
    }
}

/// The bounding-overwatch order of `formation` to `goal` away from `threat` (or, without one,
/// a threat [`DEFAULT_THREAT_DISTANCE`] beyond the goal along the advance).
pub fn overwatch_order(
    world: &World,
    formation: FormationId,
    goal: Vec2,
    threat: Option<Vec2>,
) -> (Order, String) {
    let threat = threat.unwrap_or_else(|| {
        let from = world
            .formation(formation)
            .map_or(goal, |f| f.anchor.position);
        let dir = (goal - from).normalize_or(Vec2::X);
        goal + dir * DEFAULT_THREAT_DISTANCE
    });
    let what = format!(
        "bounding overwatch to ({:.1}, {:.1}), threat at ({:.1}, {:.1})",
        goal.x, goal.y, threat.x, threat.y
    );
    (
        Order::BoundingOverwatch {
            goal,
            threat,
            settings: OverwatchSettings::default(),
        },
        what,
    )
}

/// What a formation's tactic is doing, in a line (`None` without one).
pub fn describe(world: &World, formation: FormationId) -> Option<String> {
    match world.tactic(formation)? {
        Tactic::Play(p) => Some(format!(
            "play {}: phase {} at {:.1} s",
            p.play_name(),
            p.phase() + 1,
            p.phase_time()
        )),
        Tactic::Overwatch(o) => Some(match (o.is_finished(), o.bounding()) {
            (true, _) => format!("overwatch: arrived after {} bounds", o.bounds().len()),
            (false, Some(s)) => format!(
                "overwatch: squad {} bounding, {} bounds",
                s + 1,
                o.bounds().len()
            ),
            (false, None) => format!("overwatch: {} bounds", o.bounds().len()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_playbooks_load_and_plays_that_fit_come_first() {
        let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/playbook.ron");
        let lib = PlaybookLibrary::load(&scenario, None);
        assert!(lib.errors.is_empty(), "{:?}", lib.errors);
        assert!(lib.books.len() >= 2, "{} books", lib.books.len());
        let plays = lib.plays_for(4);
        assert!(!plays.is_empty());
        let (b, name) = &plays[0];
        let (_, play) = lib.books[*b].play(name).expect("the play exists");
        assert_eq!(play.phases[0].slots.len(), 4);
        let (order, what) = lib.play_order(4, plays.len()).expect("a play");
        assert!(matches!(order, Order::RunPlay { .. }));
        assert!(what.ends_with(name.as_str()), "{what}");
    }
}
