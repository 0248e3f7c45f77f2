//! The debug layers the viewer draws, each toggled by a key, and the key list the help
//! overlay shows.

use macroquad::input::KeyCode;

/// A layer of the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Obstacles, walls, cover points, jump links.
    Map,
    /// Unit trails.
    Trails,
    /// Unit heading ticks.
    Headings,
    /// Slot targets and the line from each unit to its slot.
    Slots,
    /// Formation anchors and their remaining paths.
    Anchors,
    /// Formation tree outlines (squads and the formations above them).
    Tree,
    /// The picked unit's steering forces.
    Forces,
    /// The picked unit's context maps (interest and danger rays).
    Context,
}

/// Every layer, with its key and name, in key order.
pub const LAYERS: [(Layer, KeyCode, &str, &str); 8] = [
    (Layer::Map, KeyCode::Key1, "1", "map"),
    (Layer::Trails, KeyCode::Key2, "2", "trails"),
    (Layer::Headings, KeyCode::Key3, "3", "headings"),
    (
        Layer::Slots,
        KeyCode::Key4,
        "4",
        "slots and unit-slot lines",
    ),
    (Layer::Anchors, KeyCode::Key5, "5", "anchors and paths"),
    (Layer::Tree, KeyCode::Key6, "6", "formation tree outlines"),
    (Layer::Forces, KeyCode::Key7, "7", "picked unit: forces"),
    (
        Layer::Context,
        KeyCode::Key8,
        "8",
        "picked unit: context maps",
    ),
];

/// The action keys, as the help overlay lists them.
pub const ACTION_KEYS: [(&str, &str); 17] = [
    ("Space", "pause / resume"),
    ("N", "step one tick (pauses)"),
    ("+ / -", "faster / slower"),
    ("Left click", "pick a unit (inspect; selects its squad)"),
    ("Tab / U", "select next formation / its parent"),
    ("Right click", "order the selected formation to move there"),
    ("P", "cycle the selected formation's pattern"),
    ("Y", "start a play from its playbook"),
    ("O", "bounding overwatch to the mouse point"),
    ("T", "place the threat overwatch covers against"),
    ("K", "kill the picked unit (or one of the selection)"),
    ("R", "reload files now (they reload on change too)"),
    ("Wheel", "zoom at the mouse"),
    ("Arrows", "pan"),
    ("F", "fit the map"),
    ("H", "this help"),
    ("Esc / Q", "quit"),
];

/// Which layers are on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    on: [bool; LAYERS.len()],
}

impl Default for Layers {
    /// Everything on.
    fn default() -> Self {
        Self {
            on: [true; LAYERS.len()],
        }
    }
}

impl Layers {
    fn index(layer: Layer) -> usize {
        LAYERS.iter().position(|(l, ..)| *l == layer).unwrap_or(0)
    }

    /// Whether `layer` is drawn.
    pub fn shows(&self, layer: Layer) -> bool {
        self.on[Self::index(layer)]
    }

    /// Switches `layer` on or off.
    pub fn toggle(&mut self, layer: Layer) {
        let i = Self::index(layer);
        self.on[i] = !self.on[i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_has_its_own_key_and_toggles() {
        let mut layers = Layers::default();
        for (i, (layer, key, ..)) in LAYERS.iter().enumerate() {
            assert!(LAYERS[..i].iter().all(|(l, k, ..)| l != layer && k != key));
            assert!(layers.shows(*layer));
            layers.toggle(*layer);
            assert!(!layers.shows(*layer));
        }
    }
}
