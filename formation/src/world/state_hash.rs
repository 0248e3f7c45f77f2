//! [`World::state_hash`]: the hash a lockstep game compares between peers every tick.
//!
//! What it covers is the state a snapshot carries ([`super::state`]): units, formations,
//! pending orders, tactics, random generator, tick, settings, and the terrain by its hash
//! (computed once, [`World::terrain_hash`]). Everything is written as the bits of its values
//! into a [`WordHasher`]:
//!
//! - every unit as one fixed record of two blocks (its key, body, slot target, role, jump
//!   speed, heading smoother, membership, tag, detour length and tick, planned jump and
//!   flight; an absent option as zeros beside a flag saying so), fed to the hasher's lanes a
//!   block at a time in one tight loop, then the points of its detour when it has one;
//! - every formation as a fixed record of two blocks (its scalars, vectors, options,
//!   settings, patterns and the lengths of its lists), then its lists a few words per item
//!   (`state_hash/formations.rs`);
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
//! The hot paths do not branch on the data where it varies from unit to unit: a role, an
//! optional slot target or membership become words through selects, not jumps, so a mixed
//! army costs what a uniform one does.

mod formations;

use cohort_pathing::JumpSource;
use cohort_steering::locomotion::HeadingSmoother;
use cohort_steering::{Body, Vec2};
use slotmap::Key;

use super::jumps::{Flight, PlannedJump};
use super::slot_versions::hash_slot_versions;
use super::state::StateRef;
use super::unit_store::{UnitDetails, UnitMotion, UnitStore};
use super::walk::walk;
use super::word_hash::{BLOCK_WORDS, Block, Lanes, WordHasher, pair, vec_word};
use crate::formation::SlotTarget;
use crate::ids::UnitId;
use crate::pattern::Role;
use crate::world::World;

impl World {
    /// A 64-bit hash of everything that evolves (units, formations, pending orders, tactics,
    /// random generator, tick, settings) and of the terrain ([`World::terrain_hash`]): equal
    /// hashes mean identical states, bit for bit, on the same map. Computed over the bits of
    /// the values (see `world/state_hash.rs`), the same on every platform and in every run;
    /// allocates nothing, formats nothing, and costs about ten nanoseconds per unit, so a
    /// lockstep game can compare it every tick.
    pub fn state_hash(&self) -> u64 {
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
        hash_units(units, &mut h);
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

fn source_words(s: JumpSource) -> (u32, u64) {
    match s {
        JumpSource::Link(i) => (0, i as u64),
        JumpSource::Gap(i) => (1, i as u64),
    }
}

/// What an absent slot target is hashed as.
const NO_TARGET: SlotTarget = SlotTarget {
    position: Vec2::ZERO,
    velocity: Vec2::ZERO,
    facing: Vec2::ZERO,
};

/// What an absent heading smoother is hashed as.
static NO_SMOOTHER: HeadingSmoother = HeadingSmoother::new();

/// What absent details are hashed as.
static NO_DETAILS: UnitDetails = UnitDetails {
    formation: None,
    detour: Vec::new(),
    detour_tick: 0,
    next_jump: None,
    flight: None,
    tag: 0,
};

/// Units: their count, the slot versions, then one record per unit in key order (and the
/// points of its detour after it), fed to the lanes a block at a time.
fn hash_units(store: &UnitStore, h: &mut WordHasher) {
    let UnitStore {
        motion,
        details,
        smoothers,
    } = store;
    h.write_words([
        motion.len() as u64,
        details.len() as u64,
        smoothers.len() as u64,
    ]);
    hash_slot_versions(motion, h);
    h.with_lanes(|lanes| {
        for (id, m) in motion.iter() {
            let d = details.get(id);
            let routed = absorb_unit(id, m, d, smoothers.get(id), lanes);
            if routed && let Some(d) = d {
                // The record's flags say this block follows; the detour's length is in it.
                lanes.absorb_all(&route_record(d));
                lanes.absorb_vec2s(&d.detour);
            }
        }
    });
}

/// A unit's record: three blocks of words, most holding two 32-bit values, and whether its
/// route (planned jump, flight, detour points) follows. Everything but the route is at a
/// fixed place; an absent option is zeros, and a key is never zero (its version is odd).
#[inline(always)]
fn absorb_unit(
    id: UnitId,
    m: &UnitMotion,
    d: Option<&UnitDetails>,
    s: Option<&HeadingSmoother>,
    lanes: &mut Lanes,
) -> bool {
    let UnitMotion {
        body,
        slot_target,
        role,
        jump_speed,
        routed: _,
        airborne: _,
        group: _,
    } = m;
    let Body {
        position,
        velocity,
        heading,
        radius,
        mass,
        max_speed,
        max_force,
        max_turn_rate,
    } = body;
    let (role_tag, role_arg) = role_words(*role);
    // Absent parts read as empty ones (a select, not a branch); the flags tell them apart.
    let flags_present = u32::from(slot_target.is_some())
        | u32::from(s.is_some()) << 1
        | u32::from(d.is_some()) << 2;
    let target = slot_target.unwrap_or(NO_TARGET);
    let (samples, next, len) = s.unwrap_or(&NO_SMOOTHER).raw_parts();
    let UnitDetails {
        formation,
        detour,
        detour_tick,
        next_jump,
        flight,
        tag,
    } = d.unwrap_or(&NO_DETAILS);
    let routed = !detour.is_empty() || next_jump.is_some() || flight.is_some();
    let flags = flags_present | u32::from(routed) << 3 | role_tag << 8;
    let smoother_state = u32::from(next) | (u32::from(len) << 8);
    lanes.absorb(&[
        key_word(id),
        vec_word(*position),
        vec_word(*velocity),
        vec_word(*heading),
        pair(radius.to_bits(), mass.to_bits()),
        pair(max_speed.to_bits(), max_force.to_bits()),
        pair(max_turn_rate.to_bits(), jump_speed.to_bits()),
        pair(flags, role_arg | (smoother_state << 16)),
    ]);
    // Eight samples: five after the slot target, three in the last block.
    let [s0, s1, s2, s3, s4, s5, s6, s7] = samples.map(vec_word);
    lanes.absorb(&[
        vec_word(target.position),
        vec_word(target.velocity),
        vec_word(target.facing),
        s0,
        s1,
        s2,
        s3,
        s4,
    ]);
    lanes.absorb(&[
        s5,
        s6,
        s7,
        formation.map_or(0, key_word),
        *tag,
        detour.len() as u64,
        *detour_tick,
        0,
    ]);
    routed
}

/// The blocks of a unit with a route (a detour, a planned jump or a flight): the jump and
/// the flight, an absent one as zeros beside a flag saying so.
#[cold]
fn route_record(d: &UnitDetails) -> [Block; 2] {
    let mut b = [0u64; 2 * BLOCK_WORDS];
    let mut flags = 0;
    if let Some(PlannedJump {
        source,
        takeoff,
        landing,
    }) = d.next_jump
    {
        let (tag, arg) = source_words(source);
        flags |= 1 | tag << 1;
        b[1] = arg;
        b[2] = vec_word(takeoff);
        b[3] = vec_word(landing);
    }
    if let Some(Flight {
        source,
        from,
        velocity,
        vertical_speed,
        duration,
        elapsed,
        base_height,
    }) = d.flight
    {
        let (tag, arg) = source_words(source);
        flags |= 1 << 2 | tag << 3;
        b[4] = arg;
        b[5] = vec_word(from);
        b[6] = vec_word(velocity);
        b[7] = pair(vertical_speed.to_bits(), duration.to_bits());
        b[8] = pair(elapsed.to_bits(), base_height.to_bits());
    }
    b[0] = u64::from(flags);
    let (first, second) = b.split_at(BLOCK_WORDS);
    [first, second].map(|h| std::array::from_fn(|i| h[i]))
}

#[cfg(test)]
mod tests;
