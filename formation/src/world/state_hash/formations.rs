//! The formations' part of the state hash: their count, the versions of their slots, then
//! each formation in key order as a record of five blocks (key, flags, scalars, vectors,
//! options as zeros beside a flag, settings, patterns, the lengths of its lists; a sixth for
//! one that remembers a move order, which a flag says), its members with their slots (a
//! member and its slot in four words, two to a block), then its other lists (path,
//! clearances, narrows, the slots of custom patterns, name), written a few words per item
//! into the block being filled.

use slotmap::{Key, SlotMap};

use super::{key_word, role_word};
use crate::anchor::{AnchorMode, AnchorPoint};
use crate::formation::{Formation, FormationSettings, Member, Motion};
use crate::ids::FormationId;
use crate::pattern::{Pattern, PatternKind, Slot};
use crate::world::slot_versions::hash_slot_versions;
use crate::world::word_hash::{Lanes, WordHasher, pair, vec_word};

/// How many formations ahead [`hash_formations`] reads the first line of each list.
const READ_AHEAD: usize = 4;

/// Formations: their count, the slot versions, then each formation in key order.
///
/// A formation's lists (members, slots, path, name) are each an allocation of their own, and
/// with a thousand formations most are cache misses: the first line of every list of the
/// formation [`READ_AHEAD`] places further on is read before each formation is hashed, so
/// those misses are waited for together rather than one after another.
pub(super) fn hash_formations(map: &SlotMap<FormationId, Formation>, h: &mut WordHasher) {
    h.write_len(map.len());
    hash_slot_versions(map, h);
    let mut ahead = map.values().skip(READ_AHEAD);
    let mut touched = 0u64;
    for (id, f) in map.iter() {
        if let Some(next) = ahead.next() {
            touched = touched.wrapping_add(first_lines(next));
        }
        hash_formation(id, f, h);
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

/// A formation: its record, its members with their slots, then its other lists.
fn hash_formation(id: FormationId, f: &Formation, h: &mut WordHasher) {
    let Formation {
        members,
        slots,
        path,
        path_clearance,
        narrows,
        name,
        pattern,
        base_pattern,
        narrowed,
        ..
    } = f;
    // The lists' lengths are in the record. Members and their slots (`members[i]` holds
    // `slots[i]`) go together, two of each to a block.
    let n = members.len().min(slots.len());
    let (paired_members, more_members) = members.split_at(n);
    let (paired_slots, more_slots) = slots.split_at(n);
    let mut custom = false;
    h.with_lanes(|lanes| {
        custom = absorb_record(id, f, lanes);
        let mut ms = paired_members.chunks_exact(2);
        let mut ss = paired_slots.chunks_exact(2);
        for (m, s) in (&mut ms).zip(&mut ss) {
            if let ([m0, m1], [s0, s1]) = (m, s) {
                let [o0, f0, r0] = slot_words(s0);
                let [o1, f1, r1] = slot_words(s1);
                lanes.absorb(&[member_word(*m0), o0, f0, r0, member_word(*m1), o1, f1, r1]);
            }
        }
        if let ([m], [s]) = (ms.remainder(), ss.remainder()) {
            let [o, f, r] = slot_words(s);
            lanes.absorb(&[member_word(*m), o, f, r, 0, 0, 0, 0]);
        }
    });
    h.write_each(more_members, |m| [member_word(*m)]);
    h.write_each(more_slots, slot_words);
    h.write_each(path, |p| [vec_word(*p)]);
    h.write_f32_pairs(path_clearance);
    h.write_each(narrows, |&(a, b)| [pair(a.to_bits(), b.to_bits())]);
    // The record says which patterns are custom.
    if custom {
        for p in [Some(pattern), Some(base_pattern), narrowed.as_ref()]
            .into_iter()
            .flatten()
        {
            if let PatternKind::Custom(slots) = &p.pattern().kind {
                h.write_len(slots.len());
                h.write_each(slots, slot_words);
            }
        }
    }
    h.write_bytes(name.as_bytes());
}

/// A member in one word: its key, the lowest bit of the version cleared for a formation (a
/// key's version is always odd, so the word still tells the key and the kind apart).
#[inline(always)]
fn member_word(m: Member) -> u64 {
    match m {
        Member::Unit(u) => key_word(u),
        Member::Formation(c) => key_word(c) ^ (1 << 32),
    }
}

/// A slot in three words.
#[inline(always)]
fn slot_words(s: &Slot) -> [u64; 3] {
    let Slot {
        offset,
        facing,
        role,
    } = *s;
    [vec_word(offset), vec_word(facing), role_word(role)]
}

/// A formation's record, fed to `lanes`: five blocks of words (six for one that remembers a
/// move order), most holding two 32-bit values. Returns whether one of its patterns is
/// custom (their slots are written after). The words that take a branch to make (the
/// patterns' kinds) come first, so that the rest is a straight run of loads into the lanes.
#[inline(always)]
fn absorb_record(id: FormationId, f: &Formation, lanes: &mut Lanes) -> bool {
    let Formation {
        // Written after the record (their lengths are in it).
        name: _,
        members,
        path,
        path_clearance,
        narrows,
        slots,
        parent,
        role,
        settings,
        anchor,
        motion,
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
        wait_watch,
        waits_at_passage,
        spread,
        replan_after,
        ordered_move,
    } = f;
    let narrowed = narrowed.as_ref().map(|p| p.pattern());
    let (pattern, base) = (pattern.pattern(), base_pattern.pattern());
    let [(kp, ap, sp), (kb, ab, sb)] = [pattern, base].map(pattern_words);
    let (kn, an, sn) = narrowed.map_or((0, 0, 0), pattern_words);
    let kinds = u64::from(kp | kb << 4 | kn << 8) | ap << 16 | ab << 32 | an << 48;
    let motion = match motion {
        Motion::Holding => 0,
        Motion::Moving => 1,
        Motion::Turning => 2,
        Motion::Loose => 3,
    };
    let flags = motion
        | u32::from(*in_column) << 2
        | u32::from(*needs_assignment) << 3
        | u32::from(parent.is_some()) << 4
        | u32::from(goal.is_some()) << 5
        | u32::from(goal_facing.is_some()) << 6
        | u32::from(target.is_some()) << 7
        | u32::from(follow_speed.is_some()) << 8
        | u32::from(give_way.is_some()) << 9
        | u32::from(narrowed.is_some()) << 10
        | u32::from(*hurried) << 11
        | u32::from(narrow_pass.is_some()) << 12
        | u32::from(*waits_at_passage) << 13
        | u32::from(wait_watch.is_some()) << 14
        | u32::from(ordered_move.is_some()) << 15
        | u32::from(ordered_move.is_some_and(|m| m.facing.is_some())) << 16
        | u32::from(ordered_move.is_some_and(|m| m.placed_facing.is_some())) << 17;
    let AnchorPoint {
        position,
        velocity,
        orientation,
    } = anchor;
    lanes.absorb(&[
        key_word(id),
        pair(flags, speed_factor.to_bits()),
        pair(mean_lag.to_bits(), slowest_speed.to_bits()),
        pair(
            weakest_accel.to_bits(),
            follow_speed.map_or(0, f32::to_bits),
        ),
        vec_word(*position),
        vec_word(*velocity),
        vec_word(*orientation),
        vec_word(*half_extent),
    ]);
    let [tp, tv, tf] = target.as_ref().map_or([0; 3], |t| {
        [
            vec_word(t.position),
            vec_word(t.velocity),
            vec_word(t.facing),
        ]
    });
    lanes.absorb(&[
        vec_word(*pass_velocity),
        *path_index as u64,
        role_word(*role),
        parent.map_or(0, key_word),
        give_way.map_or(0, key_word),
        goal.map_or(0, vec_word),
        goal_facing.map_or(0, vec_word),
        tp,
    ]);
    let [s0, s1, s2, s3, s4] = settings_record(settings);
    lanes.absorb(&[tv, tf, s0, s1, s2, s3, s4, sp]);
    lanes.absorb(&[
        sb,
        sn,
        kinds,
        members.len() as u64,
        slots.len() as u64,
        path.len() as u64,
        path_clearance.len() as u64,
        narrows.len() as u64,
    ]);
    let (passing, pass_width) = narrow_pass.map_or((0, 0), |(b, w)| (key_word(b), w.to_bits()));
    lanes.absorb(&[
        passing,
        pair(pass_width, delay.to_bits()),
        pair(held_away.to_bits(), spread.to_bits()),
        wait_watch.map_or(0, |w| key_word(w.to)),
        wait_watch.map_or(0, |w| vec_word(w.at)),
        u64::from(wait_watch.map_or(0, |w| w.seconds.to_bits())),
        *replan_after,
        0,
    ]);
    // Only a formation that remembers a move order has this block (its flag says so).
    if let Some(m) = ordered_move {
        lanes.absorb(&[
            vec_word(m.goal),
            m.facing.map_or(0, vec_word),
            vec_word(m.placed),
            m.placed_facing.map_or(0, vec_word),
            0,
            0,
            0,
            0,
        ]);
    }
    [kp, kb, kn].contains(&CUSTOM)
}

/// The kind number of a custom pattern.
const CUSTOM: u32 = 9;

/// A pattern's kind (below 16), the argument of its kind, and its spacing and unit radius
/// in one word (the slots of a custom pattern are written after the record).
#[inline(always)]
fn pattern_words(p: &Pattern) -> (u32, u64, u64) {
    let Pattern {
        kind,
        spacing,
        unit_radius,
    } = p;
    let (kind, arg) = match kind {
        PatternKind::Line => (0, 0),
        PatternKind::Column => (1, 0),
        PatternKind::Wedge => (2, 0),
        PatternKind::FingerFour => (3, 0),
        PatternKind::EchelonLeft => (4, 0),
        PatternKind::EchelonRight => (5, 0),
        PatternKind::Box => (6, 0),
        PatternKind::DefensiveCircle => (7, 0),
        PatternKind::TwoAbreast => (8, 0),
        PatternKind::Custom(_) => (CUSTOM, 0),
        PatternKind::Ranks(k) => (10, u64::from(*k)),
    };
    (kind, arg, pair(spacing.to_bits(), unit_radius.to_bits()))
}

/// A formation's settings in five words.
#[inline(always)]
fn settings_record(s: &FormationSettings) -> [u64; 5] {
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
    [
        pair(flags, k_offset.to_bits()),
        pair(speed_fraction.to_bits(), lag_tolerance.to_bits()),
        pair(lag_range.to_bits(), min_speed_factor.to_bits()),
        pair(leash.to_bits(), turn_rate.to_bits()),
        pair(arrival_radius.to_bits(), follow_gap.to_bits()),
    ]
}
