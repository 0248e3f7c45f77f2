//! A world's state apart from its terrain: what [`World::state_hash`] covers (see
//! `world/state_hash.rs`) and what state snapshots ([`World::save_state`], binary or RON)
//! carry.
//!
//! The terrain (map and navigation graph) does not change as the world steps, and on a large
//! map it is most of a world's bytes (a 10 km map's navigation graph is over 100 MB of RON),
//! so it is hashed once ([`World::terrain_hash`]) and a state snapshot carries that hash in
//! its place: it is restored onto a world built on the same map, and refused on another.
//!
//! [`World::state`] lists the world's fields by destructuring it whole, so a field added to
//! [`World`] does not compile until it is either put in the state or said not to be.
//!
//! The public methods that write and read state snapshots are in `world/api/state.rs`.

use cohort_steering::SimRng;
use serde::{Deserialize, Serialize};
use slotmap::SlotMap;

use super::free_order::FreeOrder;
use super::unit_store::UnitStore;
use super::{World, WorldSettings};
use crate::error::WorldError;
use crate::formation::Formation;
use crate::ids::FormationId;
use crate::order::Order;
use crate::tactics::Tactic;

/// First bytes of a binary state snapshot.
pub const BINARY_MAGIC: &[u8; 8] = b"COHORTws";

/// Version of the binary and RON state snapshot layouts (after the magic, little-endian).
pub const STATE_FORMAT_VERSION: u32 = 5;

/// How a state snapshot is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotFormat {
    /// RON text, for people (floats in shortest round-trip form, restored bit for bit).
    Ron,
    /// Compact binary (postcard): [`BINARY_MAGIC`], the version as a little-endian `u32`, then
    /// the state.
    Binary,
}

/// Everything of a world that evolves, borrowed.
#[derive(Serialize)]
pub(super) struct StateRef<'a> {
    pub(super) units: &'a UnitStore,
    pub(super) formations: &'a SlotMap<FormationId, Formation>,
    pub(super) rng: &'a SimRng,
    pub(super) tick: u64,
    pub(super) settings: &'a WorldSettings,
    pub(super) pending: &'a [(FormationId, Order)],
    pub(super) unit_free: &'a FreeOrder,
    pub(super) formation_free: &'a FreeOrder,
    pub(super) tactics: &'a [(FormationId, Tactic)],
}

/// Everything of a world that evolves, owned (as loaded).
#[derive(Deserialize)]
struct StateOwned {
    units: UnitStore,
    formations: SlotMap<FormationId, Formation>,
    rng: SimRng,
    tick: u64,
    settings: WorldSettings,
    pending: Vec<(FormationId, Order)>,
    unit_free: FreeOrder,
    formation_free: FreeOrder,
    tactics: Vec<(FormationId, Tactic)>,
}

/// A state snapshot: the terrain it was taken on, by hash, and the state.
#[derive(Serialize, Deserialize)]
struct Saved<S> {
    terrain_hash: u64,
    state: S,
}

fn invalid(why: String) -> WorldError {
    WorldError::Invalid {
        what: "snapshot",
        why,
    }
}

impl World {
    /// The world's evolving state, borrowed.
    pub(super) fn state(&self) -> StateRef<'_> {
        // Whole: a new field must be placed on one side or the other.
        let World {
            units,
            formations,
            terrain: _,
            rng,
            tick,
            settings,
            pending,
            unit_free,
            formation_free,
            tactics,
            jump_events: _,
            formation_nav: _,
            scratch: _,
            frame: _,
            timings: _,
        } = self;
        StateRef {
            units,
            formations,
            rng,
            tick: *tick,
            settings,
            pending,
            unit_free,
            formation_free,
            tactics,
        }
    }

    /// The world's state without its terrain, with the terrain's hash, in `format` (what
    /// [`World::save_state`] returns).
    pub(super) fn write_state(&self, format: SnapshotFormat) -> Result<Vec<u8>, WorldError> {
        let saved = Saved {
            terrain_hash: self.terrain_hash(),
            state: self.state(),
        };
        match format {
            SnapshotFormat::Ron => ron::to_string(&saved)
                .map(String::into_bytes)
                .map_err(|e| invalid(e.to_string())),
            SnapshotFormat::Binary => {
                let mut out = Vec::with_capacity(64 + 160 * self.units.len());
                out.extend_from_slice(BINARY_MAGIC);
                out.extend_from_slice(&STATE_FORMAT_VERSION.to_le_bytes());
                postcard::to_extend(&saved, out).map_err(|e| invalid(e.to_string()))
            }
        }
    }

    /// Reads a state snapshot, checks it whole and only then puts it in place of this world's
    /// state, keeping the terrain (what [`World::load_state`] does).
    pub(super) fn read_state(&mut self, bytes: &[u8]) -> Result<(), WorldError> {
        let saved: Saved<StateOwned> = if let Some(rest) = bytes.strip_prefix(BINARY_MAGIC) {
            let (version, body) = rest
                .split_first_chunk::<4>()
                .ok_or_else(|| invalid("the binary snapshot ends in its header".into()))?;
            let version = u32::from_le_bytes(*version);
            if version != STATE_FORMAT_VERSION {
                return Err(invalid(format!(
                    "binary snapshot version {version}; this build reads version \
                     {STATE_FORMAT_VERSION}"
                )));
            }
            let (saved, left) =
                postcard::take_from_bytes(body).map_err(|e| invalid(e.to_string()))?;
            if !left.is_empty() {
                return Err(invalid(format!(
                    "{} bytes after the end of the binary snapshot",
                    left.len()
                )));
            }
            saved
        } else {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| invalid("neither a binary snapshot nor RON text".into()))?;
            ron::from_str(text).map_err(|e| invalid(e.to_string()))?
        };
        if saved.terrain_hash != self.terrain_hash() {
            return Err(invalid(format!(
                "it was made on another map (its terrain hash is {:016x}, this world's is \
                 {:016x})",
                saved.terrain_hash,
                self.terrain_hash()
            )));
        }
        let StateOwned {
            units,
            formations,
            rng,
            tick,
            settings,
            pending,
            unit_free,
            formation_free,
            tactics,
        } = saved.state;
        // Assembled on a stand-in terrain and checked whole before anything of `self` changes.
        let mut loaded = World {
            units,
            formations,
            terrain: super::Terrain::stand_in()?,
            rng,
            tick,
            settings,
            pending,
            unit_free,
            formation_free,
            tactics,
            jump_events: Vec::new(),
            formation_nav: Default::default(),
            scratch: Default::default(),
            frame: Default::default(),
            timings: Default::default(),
        };
        loaded.settle_load()?;
        std::mem::swap(&mut loaded.terrain, &mut self.terrain);
        // The map formations plan on comes from the terrain (and is rebuilt if the loaded
        // settings strip other obstacles).
        std::mem::swap(&mut loaded.formation_nav, &mut self.formation_nav);
        *self = loaded;
        Ok(())
    }
}
