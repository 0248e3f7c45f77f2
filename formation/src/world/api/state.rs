//! State snapshots: a world's evolving state without its terrain, binary or RON, restored
//! onto a world built on the same map (the formats and their checks are in `world/state.rs`).

use crate::error::WorldError;
use crate::world::{SnapshotFormat, World, WorldSettings};

impl World {
    /// A 64-bit hash of everything that evolves (units, formations, pending orders, tactics,
    /// random generator, tick, settings) and of the terrain ([`World::terrain_hash`]): equal
    /// hashes mean identical states, bit for bit, on the same map. Computed over the bits of
    /// the values (see `world/state_hash.rs`), the same on every platform and in every run;
    /// allocates nothing, formats nothing, and costs about ten nanoseconds per unit (see
    /// `docs/performance.md`), so a lockstep game can compare it every tick.
    pub fn state_hash(&self) -> u64 {
        self.hash_state()
    }

    /// A 64-bit hash of the terrain (map and navigation graph), computed when the world is
    /// built or loaded and when its navigation graph is replaced.
    pub fn terrain_hash(&self) -> u64 {
        self.terrain.hash()
    }

    /// The world's state without its terrain, in `format`, with the terrain's hash (see
    /// [`World::load_state`]).
    pub fn save_state(&self, format: SnapshotFormat) -> Result<Vec<u8>, WorldError> {
        self.write_state(format)
    }

    /// The world's state as a compact binary snapshot: [`World::save_state`] in
    /// [`SnapshotFormat::Binary`].
    pub fn to_binary_snapshot(&self) -> Result<Vec<u8>, WorldError> {
        self.save_state(SnapshotFormat::Binary)
    }

    /// A world on `map` (its navigation graph built as [`World::new`] builds it) in the state
    /// of a binary snapshot taken on the same map.
    pub fn from_binary_snapshot(
        bytes: &[u8],
        map: cohort_pathing::Map,
    ) -> Result<Self, WorldError> {
        let mut world = World::new(map, WorldSettings::default(), 0)?;
        world.load_state(bytes)?;
        Ok(world)
    }

    /// Replaces this world's state with a state snapshot's (binary when it starts with
    /// [`BINARY_MAGIC`](crate::world::BINARY_MAGIC), else RON text), keeping the terrain.
    /// Refused, leaving the world as it was, when the snapshot was taken on another terrain,
    /// cannot be read, or holds anything the world's API would refuse (see
    /// [`World::from_snapshot`] and `docs/robustness.md`).
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), WorldError> {
        self.read_state(bytes)
    }
}
