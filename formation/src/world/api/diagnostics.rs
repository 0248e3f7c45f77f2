//! Inspecting one unit's reciprocal avoidance: which unit is watched and what its avoidance
//! did in the last tick (the record is kept by the avoidance stage, `world/avoidance.rs`).

use crate::ids::UnitId;
use crate::world::{AvoidanceReport, World};

impl World {
    /// Records the avoidance of unit `id` from the next tick on (`None` stops): what it
    /// preferred, what it chose and what bound the choice, read by
    /// [`World::avoidance_report`]. For inspecting one unit (the viewer's picked unit); the
    /// record is kept by the single-threaded stage.
    pub fn watch_unit(&mut self, id: Option<UnitId>) {
        self.scratch.watched = id.map(|id| (id, AvoidanceReport::default()));
    }

    /// The watched unit's avoidance in the last tick (see [`World::watch_unit`]).
    pub fn avoidance_report(&self) -> Option<(UnitId, AvoidanceReport)> {
        self.scratch.watched
    }
}
