//! [`World::state_hash`]: the hash a lockstep game compares between peers every tick.
//!
//! What it covers is the state a snapshot carries ([`super::state`]): units, formations,
//! pending orders, tactics, random generator, tick, settings, and the terrain by its hash
//! (computed once when the terrain is built or loaded, [`World::terrain_hash`]). Everything
//! is written as the bits of its values into a [`WordHasher`] (`world/word_hash.rs`):
//!
//! - the units, array by array, each entry with its key: motion, heading smoothers and
//!   details, an absent option as zeros beside a flag saying so, then a unit's route (planned
//!   jump, flight, detour points) when it has one (`state_hash/units.rs`);
//! - every formation as a record of five blocks (its scalars, vectors, options, settings,
//!   patterns and the lengths of its lists; a sixth for one that remembers a move order), its
//!   members with their slots, then its other lists (`state_hash/formations.rs`);
//! - the versions of every slot of the unit and formation slot maps, free ones included
//!   (they decide the keys handed out next);
//! - the small rest (generator, settings, orders, tactics, free-slot orders) through the
//!   serializer walk (`world/walk.rs`), so a field added there is covered without being
//!   listed.
//!
//! The records are built from the values destructured whole, so a field added to a unit,
//! a body, a formation or their parts does not compile until it is hashed (or said not to
//! be, like the per-tick caches a snapshot does not carry either).
//!
//! The records are fed to the hasher's lanes a block at a time from short loops that keep
//! the lanes in registers, and they do not branch on the data where it varies from unit to
//! unit: a role, an optional slot target or membership become words through selects, not
//! jumps, so a mixed army costs what a uniform one does. The cost is the number of words
//! hashed (thirty-two a unit, some eighty a formation of ten) and the instructions that
//! gather them; `docs/performance.md` has the figures.

mod formations;
mod units;

use slotmap::Key;

use super::state::StateRef;
use super::walk::walk;
use super::word_hash::{WordHasher, pair};
use crate::pattern::Role;
use crate::world::World;

impl World {
    /// [`World::state_hash`]: the world's state fed to the word hasher, part by part.
    pub(in crate::world) fn hash_state(&self) -> u64 {
        let mut h = WordHasher::new();
        // Whole: a new part of the state must be hashed here too.
        let StateRef {
            units,
            formations,
            rng,
            tick,
            settings,
            pending,
            unit_free,
            formation_free,
            tactics,
        } = self.state();
        h.write_words([self.terrain.hash(), tick]);
        units::hash_units(units, &mut h);
        formations::hash_formations(formations, &mut h);
        // The hasher accepts every number; nothing here fails to serialize.
        let _ = walk(
            &(rng, settings, pending, unit_free, formation_free, tactics),
            &mut h,
        );
        h.finish()
    }
}

/// A key's slot index and version in one word.
#[inline(always)]
fn key_word<K: Key>(k: K) -> u64 {
    let ffi = k.data().as_ffi();
    pair(ffi as u32, (ffi >> 32) as u32)
}

/// A role as its variant's number (below eight) and its argument.
#[inline(always)]
fn role_words(role: Role) -> (u32, u32) {
    // Two matches rather than one: the first returns constants only, which the compiler turns
    // into arithmetic on the variant rather than a jump.
    let tag = match role {
        Role::Any => 0,
        Role::Leader => 1,
        Role::FireTeam => 2,
        Role::SquadLeader => 3,
        Role::PlatoonLeader => 4,
        Role::HeavyWeapons => 5,
        Role::Comms => 6,
        Role::Custom(_) => 7,
    };
    let arg = match role {
        Role::Custom(c) => u32::from(c),
        _ => 0,
    };
    (tag, arg)
}

/// A role in one word.
#[inline(always)]
fn role_word(role: Role) -> u64 {
    let (tag, arg) = role_words(role);
    pair(tag, arg)
}

#[cfg(test)]
mod tests;
