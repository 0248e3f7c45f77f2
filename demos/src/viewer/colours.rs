//! Colours of the viewer: one per squad (a formation with units of its own), from the same
//! palette as `cohort render`, and the fixed colours of the map and the debug layers.

use std::collections::BTreeMap;

use cohort_formation::{FormationId, UnitId, World};
use macroquad::color::Color;

use crate::render::group_colour;

/// Window background.
pub const BACKGROUND: [u8; 3] = [22, 24, 29];
/// The ground inside the map's bounds.
pub const FLOOR: [u8; 3] = [31, 34, 41];
/// Obstacles.
pub const OBSTACLE: [u8; 3] = [92, 96, 104];
/// Walls.
pub const WALL: [u8; 3] = [170, 170, 178];
/// Cover points.
pub const COVER: [u8; 3] = [120, 200, 120];
/// Jump links.
pub const JUMP: [u8; 3] = [230, 200, 80];
/// Map bounds.
pub const BOUNDS: [u8; 3] = [60, 64, 72];
/// Text.
pub const TEXT: [u8; 3] = [225, 228, 235];
/// Warnings and file errors.
pub const ERROR: [u8; 3] = [255, 110, 100];
/// The picked unit's ring and the selected formation's outline.
pub const HIGHLIGHT: [u8; 3] = [255, 255, 255];
/// Interest rays.
pub const INTEREST: [u8; 3] = [90, 220, 120];
/// Danger rays.
pub const DANGER: [u8; 3] = [240, 80, 70];

/// A macroquad colour from RGB bytes and an alpha in `0..=1`.
pub fn rgba(rgb: [u8; 3], alpha: f32) -> Color {
    Color::new(
        f32::from(rgb[0]) / 255.0,
        f32::from(rgb[1]) / 255.0,
        f32::from(rgb[2]) / 255.0,
        alpha.clamp(0.0, 1.0),
    )
}

/// An opaque macroquad colour.
pub fn rgb(rgb: [u8; 3]) -> Color {
    rgba(rgb, 1.0)
}

/// Squad colour indices: every formation that has units as direct members gets the next
/// palette index, in the world's formation order (stable for a run); others have none.
#[derive(Clone, Debug, Default)]
pub struct SquadColours {
    index: BTreeMap<FormationId, usize>,
}

impl SquadColours {
    /// Numbers the squads of `world`.
    pub fn of(world: &World) -> Self {
        let mut index = BTreeMap::new();
        for (id, f) in world.formations() {
            let has_units = f
                .members
                .iter()
                .any(|m| matches!(m, cohort_formation::Member::Unit(_)));
            if has_units {
                let next = index.len();
                index.insert(id, next);
            }
        }
        Self { index }
    }

    /// The palette index of a squad, if it is one.
    pub fn index_of(&self, formation: FormationId) -> Option<usize> {
        self.index.get(&formation).copied()
    }

    /// The RGB colour of a unit: its squad's, or grey for a free unit.
    pub fn unit_rgb(&self, world: &World, unit: UnitId) -> [u8; 3] {
        world
            .unit(unit)
            .and_then(|u| u.formation)
            .map_or([200, 200, 200], |f| self.formation_rgb(world, f))
    }

    /// The RGB colour of a formation: its own squad colour, or that of its first squad below.
    pub fn formation_rgb(&self, world: &World, formation: FormationId) -> [u8; 3] {
        let mut cursor = Some(formation);
        for _ in 0..64 {
            let Some(id) = cursor else { break };
            if let Some(i) = self.index_of(id) {
                return group_colour(i);
            }
            cursor = world.formation(id).and_then(|f| {
                f.members.iter().find_map(|m| match m {
                    cohort_formation::Member::Formation(c) => Some(*c),
                    cohort_formation::Member::Unit(_) => None,
                })
            });
        }
        [200, 200, 200]
    }
}
