//! The units' part of the state hash. A unit is kept in three arrays indexed alike
//! (`world/unit_store.rs`), and each is hashed in its own pass, in key order, every entry
//! with its key: no entry of one array is looked up from another, and each pass is a short
//! loop whose lanes stay in registers.
//!
//! - motion: twelve words a unit (key, body, jump speed, role, slot target; an absent target
//!   as zeros beside a flag saying so), two units to three blocks;
//! - heading smoothers: twelve words a unit (key, ring position, the eight samples), two
//!   units to three blocks;
//! - details: one block a unit (key, membership, tag, detour length and tick, which of a
//!   planned jump and a flight there are), then, for a unit with a route, two blocks of the
//!   jump and the flight and the points of its detour.

use cohort_pathing::JumpSource;
use cohort_steering::locomotion::HeadingSmoother;
use cohort_steering::{Body, Vec2};

use super::{key_word, role_words};
use crate::formation::SlotTarget;
use crate::ids::UnitId;
use crate::world::jumps::{Flight, PlannedJump};
use crate::world::slot_versions::hash_slot_versions;
use crate::world::unit_store::{UnitDetails, UnitMotion, UnitStore};
use crate::world::word_hash::{BLOCK_WORDS, Block, Lanes, WordHasher, pair, vec_word};

/// Half a block of words.
const HALF_WORDS: usize = BLOCK_WORDS / 2;

/// A unit's motion, or its heading smoother: a block and a half of words.
type Record = [u64; 3 * HALF_WORDS];

/// Units: the sizes of the three arrays, the versions of the motion array's slots, then the
/// three passes.
pub(super) fn hash_units(store: &UnitStore, h: &mut WordHasher) {
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
        absorb_pairs(motion.iter().map(|(id, m)| motion_record(id, m)), lanes);
        absorb_pairs(
            smoothers.iter().map(|(id, s)| smoother_record(id, s)),
            lanes,
        );
        for (id, d) in details.iter() {
            absorb_details(id, d, lanes);
        }
    });
}

/// Feeds records of a block and a half, two to three blocks (the last one alone, padded
/// with zeros).
#[inline(always)]
fn absorb_pairs(records: impl Iterator<Item = Record>, lanes: &mut Lanes) {
    let mut records = records;
    while let Some(a) = records.next() {
        let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] = a;
        lanes.absorb(&[a0, a1, a2, a3, a4, a5, a6, a7]);
        match records.next() {
            Some([b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11]) => {
                lanes.absorb(&[a8, a9, a10, a11, b0, b1, b2, b3]);
                lanes.absorb(&[b4, b5, b6, b7, b8, b9, b10, b11]);
            }
            None => lanes.absorb(&[a8, a9, a10, a11, 0, 0, 0, 0]),
        }
    }
}

/// What an absent slot target is hashed as (beside a flag saying it is absent).
const NO_TARGET: SlotTarget = SlotTarget {
    position: Vec2::ZERO,
    velocity: Vec2::ZERO,
    facing: Vec2::ZERO,
};

/// A unit's motion in twelve words. The caches a snapshot does not carry either (the route
/// and flight flags, mirrored from the details, and the avoidance group) are left out.
#[inline(always)]
fn motion_record(id: UnitId, m: &UnitMotion) -> Record {
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
    // An absent target reads as zeros (a select, not a branch); the flag tells them apart.
    let flags = u32::from(slot_target.is_some()) | role_tag << 8;
    let target = slot_target.unwrap_or(NO_TARGET);
    [
        key_word(id),
        vec_word(*position),
        vec_word(*velocity),
        vec_word(*heading),
        pair(radius.to_bits(), mass.to_bits()),
        pair(max_speed.to_bits(), max_force.to_bits()),
        pair(max_turn_rate.to_bits(), jump_speed.to_bits()),
        pair(flags, role_arg),
        vec_word(target.position),
        vec_word(target.velocity),
        vec_word(target.facing),
        0,
    ]
}

/// A unit's heading smoother in twelve words: key, ring position, the eight samples (every
/// slot of the ring, recorded or not).
#[inline(always)]
fn smoother_record(id: UnitId, s: &HeadingSmoother) -> Record {
    let (samples, next, len) = s.raw_parts();
    let [s0, s1, s2, s3, s4, s5, s6, s7] = samples.map(vec_word);
    [
        key_word(id),
        pair(u32::from(next), u32::from(len)),
        s0,
        s1,
        s2,
        s3,
        s4,
        s5,
        s6,
        s7,
        0,
        0,
    ]
}

/// A unit's details: one block, then the blocks of its route when it has one.
#[inline(always)]
fn absorb_details(id: UnitId, d: &UnitDetails, lanes: &mut Lanes) {
    let UnitDetails {
        formation,
        detour,
        detour_tick,
        next_jump,
        flight,
        tag,
    } = d;
    // An absent membership is zero: a key never is (its version is odd).
    let flags = u32::from(next_jump.is_some()) | u32::from(flight.is_some()) << 1;
    lanes.absorb(&[
        key_word(id),
        formation.map_or(0, key_word),
        *tag,
        detour.len() as u64,
        *detour_tick,
        u64::from(flags),
        0,
        0,
    ]);
    if flags != 0 || !detour.is_empty() {
        // The flags and the detour's length say these follow.
        lanes.absorb_all(&route_record(d));
        lanes.absorb_vec2s(detour);
    }
}

/// A jump source's kind (0 a link, 1 a gap) and index.
fn source_words(s: JumpSource) -> (u32, u64) {
    match s {
        JumpSource::Link(i) => (0, i as u64),
        JumpSource::Gap(i) => (1, i as u64),
    }
}

/// The blocks of a unit with a route (a detour, a planned jump or a flight): the jump and
/// the flight, an absent one as zeros.
#[cold]
fn route_record(d: &UnitDetails) -> [Block; 2] {
    let mut a = [0u64; BLOCK_WORDS];
    let mut b = [0u64; BLOCK_WORDS];
    let mut tags = 0;
    if let Some(PlannedJump {
        source,
        takeoff,
        landing,
    }) = d.next_jump
    {
        let (tag, arg) = source_words(source);
        tags |= tag;
        a[1] = arg;
        a[2] = vec_word(takeoff);
        a[3] = vec_word(landing);
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
        tags |= tag << 1;
        a[4] = arg;
        a[5] = vec_word(from);
        a[6] = vec_word(velocity);
        a[7] = pair(vertical_speed.to_bits(), duration.to_bits());
        b[0] = pair(elapsed.to_bits(), base_height.to_bits());
    }
    a[0] = u64::from(tags);
    [a, b]
}
