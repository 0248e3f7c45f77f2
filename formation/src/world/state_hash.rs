//! [`World::state_hash`]: the hash a lockstep game compares between peers every tick.
//!
//! What it covers is the state a snapshot carries ([`super::state`]): units, formations,
//! pending orders, tactics, random generator, tick, settings, and the terrain by its hash
//! (computed once, [`World::terrain_hash`]). Everything is written as the bits of its values
//! into a [`WordHasher`]:
//!
//! - every unit as one fixed record of two blocks (its key, body, slot target, role, jump
//!   speed, heading smoother, membership, detour length and tick, planned jump and flight;
//!   an absent option as zeros beside a flag saying so), written a block at a time, then
//!   the points of its detour when it has one;
//! - every formation field by field, its lists (members, path, slots) as runs of words;
//! - the versions of every slot of the unit and formation slot maps, free ones included
//!   (they decide the keys handed out next);
//! - the small rest (generator, settings, orders, tactics, free-slot orders) through the
//!   serializer walk (`world/walk.rs`), so a field added there is covered without being
//!   listed.
//!
//! The records are built from the values destructured whole, so a field added to a unit,
//! a body, a formation or their parts does not compile until it is hashed (or said not to
//! be, like the per-tick caches a snapshot does not carry either).

use cohort_pathing::JumpSource;
use cohort_steering::Body;
use cohort_steering::locomotion::HeadingSmoother;
use slotmap::{Key, SlotMap};

use super::jumps::{Flight, PlannedJump};
use super::slot_versions::hash_slot_versions;
use super::state::StateRef;
use super::unit_store::{UnitDetails, UnitMotion, UnitStore};
use super::walk::walk;
use super::word_hash::{BLOCK_WORDS, Block, WordHasher, pair, vec_word};
use crate::anchor::{AnchorMode, AnchorPoint};
use crate::formation::{Formation, FormationSettings, Member, Motion, SlotTarget};
use crate::ids::{FormationId, UnitId};
use crate::pattern::{Pattern, PatternKind, Role, Slot};
use crate::world::World;

impl World {
    /// A 64-bit hash of everything that evolves (units, formations, pending orders, tactics,
    /// random generator, tick, settings) and of the terrain ([`World::terrain_hash`]): equal
    /// hashes mean identical states, bit for bit, on the same map. Computed over the bits of
    /// the values (see `world/state_hash.rs`), the same on every platform; allocates nothing,
    /// formats nothing, and costs a few nanoseconds per unit, so a lockstep game can compare
    /// it every tick.
    pub fn state_hash(&self) -> u64 {
        let mut h = WordHasher::new();
        h.write_u64(self.terrain.hash());
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
        h.write_u64(tick);
        hash_units(units, &mut h);
        hash_formations(formations, &mut h);
        // The hasher accepts every number; nothing here fails to serialize.
        let _ = walk(
            &(rng, settings, pending, unit_free, formation_free, tactics),
            &mut h,
        );
        h.finish()
    }
}

fn key_words<K: Key>(k: K) -> (u32, u32) {
    let ffi = k.data().as_ffi();
    (ffi as u32, (ffi >> 32) as u32)
}

fn role_words(role: Role) -> (u32, u32) {
    match role {
        Role::Any => (0, 0),
        Role::Leader => (1, 0),
        Role::FireTeam => (2, 0),
        Role::SquadLeader => (3, 0),
        Role::PlatoonLeader => (4, 0),
        Role::HeavyWeapons => (5, 0),
        Role::Comms => (6, 0),
        Role::Custom(c) => (7, u32::from(c)),
    }
}

fn source_words(s: JumpSource) -> (u32, u64) {
    match s {
        JumpSource::Link(i) => (0, i as u64),
        JumpSource::Gap(i) => (1, i as u64),
    }
}

/// Units: their count, the slot versions, then one record per unit in key order.
fn hash_units(store: &UnitStore, h: &mut WordHasher) {
    let UnitStore {
        motion,
        details,
        smoothers,
    } = store;
    h.write_len(motion.len());
    h.write_len(details.len());
    h.write_len(smoothers.len());
    hash_slot_versions(motion, h);
    for (id, m) in motion.iter() {
        let d = details.get(id);
        h.write_blocks(&unit_record(id, m, d, smoothers.get(id)));
        if let Some(d) = d
            && !d.detour.is_empty()
        {
            // Its length is in the record.
            for &p in &d.detour {
                h.write_u64(vec_word(p));
            }
        }
    }
}

/// A unit's record: two blocks of words, most holding two 32-bit values.
#[inline(always)]
fn unit_record(
    id: UnitId,
    m: &UnitMotion,
    d: Option<&UnitDetails>,
    s: Option<&HeadingSmoother>,
) -> [Block; 2] {
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
    let (idx, version) = key_words(id);
    let (role_tag, role_arg) = role_words(*role);
    let mut flags = role_tag << 8;
    let mut a = [0u64; BLOCK_WORDS];
    let mut b = [0u64; BLOCK_WORDS];
    a[0] = pair(idx, version);
    a[2] = vec_word(*position);
    a[3] = vec_word(*velocity);
    a[4] = vec_word(*heading);
    a[5] = pair(radius.to_bits(), mass.to_bits());
    a[6] = pair(max_speed.to_bits(), max_force.to_bits());
    a[7] = pair(max_turn_rate.to_bits(), jump_speed.to_bits());
    if let Some(SlotTarget {
        position,
        velocity,
        facing,
    }) = slot_target
    {
        flags |= 1;
        a[8] = vec_word(*position);
        a[9] = vec_word(*velocity);
        a[10] = vec_word(*facing);
    }
    let mut smoother_state = 0;
    if let Some(s) = s {
        flags |= 1 << 1;
        let (samples, next, len) = s.raw_parts();
        // Eight samples: five in the first block, three in the second.
        let (first, second) = samples.split_at(5);
        for (w, p) in a[11..].iter_mut().zip(first) {
            *w = vec_word(*p);
        }
        for (w, p) in b.iter_mut().zip(second) {
            *w = vec_word(*p);
        }
        smoother_state = u32::from(next) | (u32::from(len) << 8);
    }
    if let Some(d) = d {
        flags |= 1 << 2;
        let UnitDetails {
            formation,
            detour,
            detour_tick,
            next_jump,
            flight,
            tag,
        } = d;
        b[14] = *tag;
        if let Some(f) = formation {
            flags |= 1 << 3;
            let (idx, version) = key_words(*f);
            b[3] = pair(idx, version);
        }
        b[4] = detour.len() as u64;
        b[5] = *detour_tick;
        if let Some(PlannedJump {
            source,
            takeoff,
            landing,
        }) = next_jump
        {
            flags |= 1 << 4;
            let (tag, arg) = source_words(*source);
            flags |= tag << 6;
            b[6] = arg;
            b[7] = vec_word(*takeoff);
            b[8] = vec_word(*landing);
        }
        if let Some(Flight {
            source,
            from,
            velocity,
            vertical_speed,
            duration,
            elapsed,
            base_height,
        }) = flight
        {
            flags |= 1 << 5;
            let (tag, arg) = source_words(*source);
            flags |= tag << 7;
            b[9] = arg;
            b[10] = vec_word(*from);
            b[11] = vec_word(*velocity);
            b[12] = pair(vertical_speed.to_bits(), duration.to_bits());
            b[13] = pair(elapsed.to_bits(), base_height.to_bits());
        }
    }
    a[1] = pair(flags, role_arg | (smoother_state << 16));
    [a, b]
}

/// How many formations ahead [`hash_formations`] reads the first line of each list.
const READ_AHEAD: usize = 4;

/// Formations: their count, the slot versions, then each formation in key order.
///
/// A formation's lists (members, slots, path, name) are each an allocation of their own, and
/// with a thousand formations most are cache misses: the first line of every list of the
/// formation [`READ_AHEAD`] places further on is read before each formation is hashed, so
/// those misses are waited for together rather than one after another.
fn hash_formations(map: &SlotMap<FormationId, Formation>, h: &mut WordHasher) {
    h.write_len(map.len());
    hash_slot_versions(map, h);
    let mut ahead = map.values().skip(READ_AHEAD);
    let mut touched = 0u64;
    for (id, f) in map.iter() {
        if let Some(next) = ahead.next() {
            touched = touched.wrapping_add(first_lines(next));
        }
        let (idx, version) = key_words(id);
        h.write_u64(pair(idx, version));
        hash_formation(f, h);
    }
    std::hint::black_box(touched);
}

/// The first value of each of a formation's lists, summed (to bring them into the cache).
#[inline(always)]
fn first_lines(f: &Formation) -> u64 {
    let member = f.members.first().map_or(0, |m| match *m {
        Member::Unit(u) => u.data().as_ffi(),
        Member::Formation(c) => c.data().as_ffi(),
    });
    let slot = f.slots.first().map_or(0, |s| vec_word(s.offset));
    let path = f.path.first().map_or(0, |p| vec_word(*p));
    let clearance = f
        .path_clearance
        .first()
        .map_or(0, |c| u64::from(c.to_bits()));
    let name = f.name.as_bytes().first().map_or(0, |&b| u64::from(b));
    member ^ slot ^ path ^ clearance ^ name
}

fn write_option_key(k: Option<FormationId>, h: &mut WordHasher) {
    match k {
        Some(k) => {
            let (idx, version) = key_words(k);
            h.write_u32(1);
            h.write_u64(pair(idx, version));
        }
        None => h.write_u32(0),
    }
}

fn write_option_vec(v: Option<cohort_steering::Vec2>, h: &mut WordHasher) {
    match v {
        Some(v) => {
            h.write_u32(1);
            h.write_u64(vec_word(v));
        }
        None => h.write_u32(0),
    }
}

fn write_role(role: Role, h: &mut WordHasher) {
    let (tag, arg) = role_words(role);
    h.write_u64(pair(tag, arg));
}

fn write_slots(slots: &[Slot], h: &mut WordHasher) {
    h.write_len(slots.len());
    for &Slot {
        offset,
        facing,
        role,
    } in slots
    {
        h.write_u64(vec_word(offset));
        h.write_u64(vec_word(facing));
        write_role(role, h);
    }
}

fn write_pattern(p: &Pattern, h: &mut WordHasher) {
    let Pattern {
        kind,
        spacing,
        unit_radius,
    } = p;
    h.write_u64(pair(spacing.to_bits(), unit_radius.to_bits()));
    let tag = match kind {
        PatternKind::Line => 0,
        PatternKind::Column => 1,
        PatternKind::Wedge => 2,
        PatternKind::FingerFour => 3,
        PatternKind::EchelonLeft => 4,
        PatternKind::EchelonRight => 5,
        PatternKind::Box => 6,
        PatternKind::DefensiveCircle => 7,
        PatternKind::TwoAbreast => 8,
        PatternKind::Ranks(k) => {
            h.write_u32(10);
            h.write_u32(u32::from(*k));
            return;
        }
        PatternKind::Custom(slots) => {
            h.write_u32(9);
            write_slots(slots, h);
            return;
        }
    };
    h.write_u32(tag);
}

fn write_settings(s: &FormationSettings, h: &mut WordHasher) {
    let FormationSettings {
        anchor_mode,
        k_offset,
        speed_fraction,
        fixed_half_speed,
        lag_tolerance,
        lag_range,
        min_speed_factor,
        leash,
        turn_rate,
        arrival_radius,
        column_in_narrows,
        follow_gap,
    } = s;
    let mode = match anchor_mode {
        AnchorMode::PseudoCharacter => 0,
        AnchorMode::CentreOfMass => 1,
        AnchorMode::Leader => 2,
    };
    let flags = mode | u32::from(*fixed_half_speed) << 8 | u32::from(*column_in_narrows) << 9;
    h.write_u64(pair(flags, k_offset.to_bits()));
    h.write_u64(pair(speed_fraction.to_bits(), lag_tolerance.to_bits()));
    h.write_u64(pair(lag_range.to_bits(), min_speed_factor.to_bits()));
    h.write_u64(pair(leash.to_bits(), turn_rate.to_bits()));
    h.write_u64(pair(arrival_radius.to_bits(), follow_gap.to_bits()));
}

fn hash_formation(f: &Formation, h: &mut WordHasher) {
    let Formation {
        name,
        parent,
        members,
        role,
        settings,
        anchor,
        motion,
        path,
        path_clearance,
        narrows,
        path_index,
        goal,
        goal_facing,
        target,
        speed_factor,
        mean_lag,
        in_column,
        slowest_speed,
        weakest_accel,
        pattern,
        base_pattern,
        slots,
        needs_assignment,
        half_extent,
        pass_velocity,
        follow_speed,
        give_way,
        narrowed,
        narrow_pass,
        hurried,
        delay,
        held_away,
    } = f;
    let AnchorPoint {
        position,
        velocity,
        orientation,
    } = anchor;
    let motion = match motion {
        Motion::Holding => 0,
        Motion::Moving => 1,
        Motion::Turning => 2,
        Motion::Loose => 3,
    };
    let flags = motion
        | u32::from(*in_column) << 8
        | u32::from(*needs_assignment) << 9
        | u32::from(*hurried) << 10;
    h.write_u64(pair(flags, speed_factor.to_bits()));
    h.write_u64(pair(mean_lag.to_bits(), slowest_speed.to_bits()));
    h.write_u64(pair(weakest_accel.to_bits(), delay.to_bits()));
    h.write_u64(pair(held_away.to_bits(), 0));
    h.write_u64(vec_word(*position));
    h.write_u64(vec_word(*velocity));
    h.write_u64(vec_word(*orientation));
    h.write_u64(vec_word(*half_extent));
    h.write_u64(vec_word(*pass_velocity));
    h.write_u64(*path_index as u64);
    write_role(*role, h);
    write_option_key(*parent, h);
    write_option_vec(*goal, h);
    write_option_vec(*goal_facing, h);
    match target {
        Some(SlotTarget {
            position,
            velocity,
            facing,
        }) => {
            h.write_u32(1);
            h.write_u64(vec_word(*position));
            h.write_u64(vec_word(*velocity));
            h.write_u64(vec_word(*facing));
        }
        None => h.write_u32(0),
    }
    match follow_speed {
        Some(s) => h.write_u64(pair(1, s.to_bits())),
        None => h.write_u32(0),
    }
    write_option_key(*give_way, h);
    match narrow_pass {
        Some((b, w)) => {
            h.write_u64(pair(1, w.to_bits()));
            write_option_key(Some(*b), h);
        }
        None => h.write_u32(0),
    }
    write_settings(settings, h);
    write_pattern(pattern.pattern(), h);
    write_pattern(base_pattern.pattern(), h);
    match narrowed {
        Some(p) => {
            h.write_u32(1);
            write_pattern(p.pattern(), h);
        }
        None => h.write_u32(0),
    }
    h.write_len(members.len());
    for m in members {
        let (tag, (idx, version)) = match *m {
            Member::Unit(u) => (0, key_words(u)),
            Member::Formation(c) => (1, key_words(c)),
        };
        h.write_u32(tag);
        h.write_u64(pair(idx, version));
    }
    write_slots(slots, h);
    h.write_vec2s(path);
    h.write_f32s(path_clearance);
    h.write_len(narrows.len());
    for &(a, b) in narrows {
        h.write_u64(pair(a.to_bits(), b.to_bits()));
    }
    h.write_bytes(name.as_bytes());
}

#[cfg(test)]
mod tests;
