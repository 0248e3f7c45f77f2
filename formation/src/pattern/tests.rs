use glam::Vec2;

use super::*;

fn fixed_kinds() -> Vec<PatternKind> {
    vec![
        PatternKind::Line,
        PatternKind::Column,
        PatternKind::Wedge,
        PatternKind::FingerFour,
        PatternKind::EchelonLeft,
        PatternKind::EchelonRight,
        PatternKind::Box,
        PatternKind::DefensiveCircle,
        PatternKind::TwoAbreast,
    ]
}

fn all_kinds() -> Vec<PatternKind> {
    let mut kinds = fixed_kinds();
    kinds.push(PatternKind::Custom(vec![
        Slot::new(Vec2::new(2.0, 0.0), Role::Leader),
        Slot::new(Vec2::new(0.0, 1.5), Role::Comms),
        Slot::new(Vec2::new(0.0, -1.5), Role::HeavyWeapons),
    ]));
    kinds
}

fn valid(kind: PatternKind) -> ValidPattern {
    Pattern::for_radius(kind, 0.5).validate().unwrap()
}

fn bounds(slots: &[Slot]) -> (Vec2, Vec2) {
    let lo = slots.iter().fold(Vec2::MAX, |a, s| a.min(s.offset));
    let hi = slots.iter().fold(Vec2::MIN, |a, s| a.max(s.offset));
    (lo, hi)
}

#[test]
fn every_kind_is_centred_for_1_to_100() {
    let mut slots = Vec::new();
    for kind in all_kinds() {
        let p = valid(kind.clone());
        for n in 1..=100 {
            p.layout(n, &mut slots);
            assert_eq!(slots.len(), n, "{kind:?}");
            let mean = slots.iter().map(|s| s.offset).sum::<Vec2>() / n as f32;
            assert!(mean.length() < 1e-4, "{kind:?} n={n}: mean {mean}");
            for s in &slots {
                assert!(s.offset.is_finite(), "{kind:?} n={n}");
                assert!((s.facing.length() - 1.0).abs() < 1e-5, "{kind:?} n={n}");
            }
        }
    }
}

/// No members: every kind lays out no slots (without a guard, `count - 1` in the line would
/// overflow and panic in a debug build) and measures 0 by 0, and a stale buffer is cleared.
#[test]
fn every_kind_lays_out_zero_members_as_no_slots() {
    for kind in all_kinds() {
        let p = valid(kind.clone());
        let mut slots = vec![Slot::new(Vec2::ONE, Role::Any)];
        p.layout(0, &mut slots);
        assert!(slots.is_empty(), "{kind:?}: {slots:?}");
        assert_eq!(p.width(0), 0.0, "{kind:?}");
        assert_eq!(p.depth(0), 0.0, "{kind:?}");
    }
}

#[test]
fn fixed_kinds_keep_the_spacing_for_1_to_100() {
    let mut slots = Vec::new();
    for kind in fixed_kinds() {
        let p = valid(kind.clone());
        let s = p.spacing();
        for n in 2..=100 {
            p.layout(n, &mut slots);
            let mut min = f32::INFINITY;
            for i in 0..n {
                for j in i + 1..n {
                    min = min.min(slots[i].offset.distance(slots[j].offset));
                }
            }
            assert!(min >= 0.98 * s, "{kind:?} n={n}: closest pair {min} < {s}");
        }
    }
}

#[test]
fn slot_zero_is_the_leader_of_fixed_kinds() {
    let mut slots = Vec::new();
    for kind in fixed_kinds() {
        valid(kind.clone()).layout(9, &mut slots);
        assert_eq!(slots[0].role, Role::Leader, "{kind:?}");
        assert!(slots[1..].iter().all(|s| s.role == Role::Any), "{kind:?}");
    }
}

#[test]
fn line_and_column_grow_with_extents() {
    let line = valid(PatternKind::Line);
    let column = valid(PatternKind::Column);
    // Spacing 1.5, radius 0.5.
    assert!((line.width(10) - (9.0 * 1.5 + 1.0)).abs() < 1e-4);
    assert!((line.depth(10) - 1.0).abs() < 1e-6);
    assert!((column.depth(10) - (9.0 * 1.5 + 1.0)).abs() < 1e-4);
    assert!((column.width(10) - 1.0).abs() < 1e-6);
    assert_eq!(line.width(0), 0.0);
    let mut slots = Vec::new();
    column.layout(4, &mut slots);
    // The leader is in front: largest x.
    assert!(slots[1..].iter().all(|s| s.offset.x < slots[0].offset.x));
}

#[test]
fn extents_match_the_layout_bounds() {
    let mut slots = Vec::new();
    for kind in all_kinds() {
        let p = valid(kind.clone());
        for n in [1, 2, 5, 17, 64] {
            p.layout(n, &mut slots);
            let (lo, hi) = bounds(&slots);
            let d = p.unit_radius() * 2.0;
            assert!(
                (p.width(n) - (hi.y - lo.y + d)).abs() < 1e-3,
                "{kind:?} {n}"
            );
            assert!(
                (p.depth(n) - (hi.x - lo.x + d)).abs() < 1e-3,
                "{kind:?} {n}"
            );
        }
    }
    // A column is the narrowest: narrower than every other fixed kind from 3 members on.
    let column = valid(PatternKind::Column).width(12);
    for kind in fixed_kinds().into_iter().skip(2) {
        assert!(valid(kind.clone()).width(12) > column, "{kind:?}");
    }
}

#[test]
fn wedge_adds_to_both_arms() {
    let mut slots = Vec::new();
    valid(PatternKind::Wedge).layout(7, &mut slots);
    let apex = slots[0].offset;
    let left = slots.iter().filter(|s| s.offset.y > apex.y + 0.1).count();
    let right = slots.iter().filter(|s| s.offset.y < apex.y - 0.1).count();
    assert_eq!((left, right), (3, 3));
    // Every arm member is behind the apex, the deepest 3 steps of 0.6 spacings back.
    assert!(slots[1..].iter().all(|s| s.offset.x < apex.x));
    let (lo, _) = bounds(&slots);
    assert!((apex.x - lo.x - 3.0 * 0.6 * 1.5).abs() < 1e-4);
}

#[test]
fn echelons_go_back_to_their_side() {
    let mut slots = Vec::new();
    valid(PatternKind::EchelonRight).layout(5, &mut slots);
    for w in slots.windows(2) {
        let step = w[1].offset - w[0].offset;
        assert!((step - Vec2::new(-0.9, -1.2)).length() < 1e-4, "{step}");
    }
    valid(PatternKind::EchelonLeft).layout(5, &mut slots);
    assert!(slots[4].offset.y > slots[0].offset.y);
}

#[test]
fn defensive_circle_grows_then_becomes_rings() {
    let mut slots = Vec::new();
    let p = valid(PatternKind::DefensiveCircle);
    let s = p.spacing();
    p.layout(8, &mut slots);
    let r0 = slots[0].offset.length();
    for slot in &slots {
        assert!((slot.offset.length() - r0).abs() < 1e-4);
        // Facing outward.
        assert!(slot.facing.dot(slot.offset.normalize()) > 0.9999);
    }
    // Neighbours exactly one spacing apart on a single ring.
    assert!((slots[0].offset.distance(slots[1].offset) - s).abs() < 1e-4);
    p.layout(12, &mut slots);
    let r12 = slots[0].offset.length();
    assert!(r12 > r0 * 1.4, "radius grows: {r0} -> {r12}");
    // 100 members: rings 2, 3, 4, 5 and 6 spacings out.
    p.layout(100, &mut slots);
    let mut radii: Vec<i32> = slots
        .iter()
        .map(|s| (s.offset.length() / p.spacing()).round() as i32)
        .collect();
    radii.sort();
    radii.dedup();
    assert_eq!(radii, vec![2, 3, 4, 5, 6]);
    // Each ring evenly filled: the ring at 2 spacings holds fewer than the ring at 6.
    let on = |r: f32| {
        slots
            .iter()
            .filter(|x| (x.offset.length() - r * s).abs() < 0.01)
            .count()
    };
    assert!(on(2.0) >= 6 && on(2.0) < on(6.0), "{} {}", on(2.0), on(6.0));
    assert_eq!((2..=6).map(|r| on(r as f32)).sum::<usize>(), 100);
}

#[test]
fn box_fills_rows_and_finger_four_groups() {
    let mut slots = Vec::new();
    let b = valid(PatternKind::Box);
    b.layout(10, &mut slots);
    // 4 abreast: rows of 4, 4, 2.
    assert!((b.width(10) - (3.0 * 1.5 + 1.0)).abs() < 1e-4);
    assert!((b.depth(10) - (2.0 * 1.5 + 1.0)).abs() < 1e-4);
    let f = valid(PatternKind::FingerFour);
    f.layout(4, &mut slots);
    // Leader in front, element wingman last and furthest right.
    assert!(slots[1..].iter().all(|s| s.offset.x < slots[0].offset.x));
    assert!(slots[..3].iter().all(|s| s.offset.y > slots[3].offset.y));
    assert!((f.width(4) - (3.0 * 1.5 + 1.0)).abs() < 1e-4);
    // 16 members: a 2 x 2 arrangement of groups.
    assert!((f.width(16) - ((4.0 + 3.0) * 1.5 + 1.0)).abs() < 1e-4);
}

#[test]
fn two_abreast_pairs_face_their_flanks() {
    let mut slots = Vec::new();
    valid(PatternKind::TwoAbreast).layout(5, &mut slots);
    assert!(slots[0].facing.y > 0.5 && slots[0].offset.y > slots[1].offset.y);
    assert!(slots[1].facing.y < -0.5);
    assert!((slots[2].offset.x - slots[0].offset.x + 2.25).abs() < 1e-4);
    assert_eq!(slots[4].facing, Vec2::X);
}

#[test]
fn custom_extends_behind_by_repeating_the_block() {
    let kind = PatternKind::Custom(vec![
        Slot::new(Vec2::new(1.0, 0.0), Role::Leader),
        Slot::new(Vec2::new(0.0, 2.0), Role::Comms),
    ]);
    let p = valid(kind);
    let mut slots = Vec::new();
    p.layout(2, &mut slots);
    assert!((slots[1].offset - slots[0].offset - Vec2::new(-1.0, 2.0)).length() < 1e-5);
    p.layout(5, &mut slots);
    // Block depth 1 + spacing 1.5 = 2.5 further back per copy, roles Any.
    assert!((slots[2].offset - slots[0].offset - Vec2::new(-2.5, 0.0)).length() < 1e-5);
    assert!((slots[4].offset - slots[0].offset - Vec2::new(-5.0, 0.0)).length() < 1e-5);
    assert_eq!(slots[1].role, Role::Comms);
    assert_eq!(slots[3].role, Role::Any);
    // Fewer members than slots: the first ones.
    p.layout(1, &mut slots);
    assert_eq!(slots[0].role, Role::Leader);
    assert_eq!(slots[0].offset, Vec2::ZERO);
}

#[test]
fn validate_rejects_bad_values() {
    let base = Pattern::default();
    for spacing in [0.0, -1.0, f32::NAN, f32::INFINITY, 1.0e9] {
        let p = Pattern {
            spacing,
            ..base.clone()
        };
        assert!(matches!(
            p.validate(),
            Err(PatternError::BadValue {
                what: "spacing",
                ..
            })
        ));
    }
    let p = Pattern {
        unit_radius: -0.1,
        ..base.clone()
    };
    assert!(p.validate().is_err());
    let custom = |slots| Pattern {
        kind: PatternKind::Custom(slots),
        ..base.clone()
    };
    assert_eq!(custom(vec![]).validate(), Err(PatternError::EmptyCustom));
    let nan = Slot::new(Vec2::new(f32::NAN, 0.0), Role::Any);
    assert!(matches!(
        custom(vec![Slot::default(), nan]).validate(),
        Err(PatternError::NonFiniteSlot {
            index: 1,
            what: "offset"
        })
    ));
    let zero = Slot {
        facing: Vec2::ZERO,
        ..Slot::default()
    };
    assert_eq!(
        custom(vec![zero]).validate(),
        Err(PatternError::ZeroFacing { index: 0 })
    );
    let many = vec![Slot::default(); MAX_CUSTOM_SLOTS + 1];
    assert!(matches!(
        custom(many).validate(),
        Err(PatternError::TooMany { .. })
    ));
    // Facings are normalized.
    let long = Slot {
        facing: Vec2::new(0.0, 3.0),
        ..Slot::default()
    };
    let v = custom(vec![long]).validate().unwrap();
    let PatternKind::Custom(slots) = v.kind() else {
        panic!()
    };
    assert_eq!(slots[0].facing, Vec2::Y);
}

#[test]
fn valid_pattern_deserializes_only_when_valid() {
    let v: ValidPattern = ron::from_str("(kind: Wedge, spacing: 2.0, unit_radius: 0.5)").unwrap();
    assert_eq!(v.kind(), &PatternKind::Wedge);
    assert!(ron::from_str::<ValidPattern>("(kind: Wedge, spacing: -2.0)").is_err());
    let text = ron::to_string(&v).unwrap();
    assert_eq!(ron::from_str::<ValidPattern>(&text).unwrap(), v);
}

#[test]
fn valid_pattern_serializes_as_the_plain_pattern_and_says_what_is_wrong() {
    let p = Pattern::for_radius(PatternKind::Ranks(3), 0.5);
    let v = p.validate().unwrap();
    assert_eq!(ron::to_string(&v).unwrap(), ron::to_string(&p).unwrap());
    assert_eq!(ValidPattern::try_from(p.clone()), Ok(v.clone()));
    assert_eq!(Pattern::from(v), p);
    let e = ron::from_str::<ValidPattern>("(kind: Ranks(0))").unwrap_err();
    assert!(e.to_string().contains("Ranks of at least 1 abreast"), "{e}");
    let e = ron::from_str::<ValidPattern>("(kind: Custom([(facing: (0.0, 0.0))]))").unwrap_err();
    assert!(
        e.to_string()
            .contains("slot 0: facing must not be the zero vector"),
        "{e}"
    );
}

/// A snapshot (or an order) reads a pattern back through validation: a valid pattern must
/// come back bit for bit, normalized facings included.
#[test]
fn validating_a_valid_pattern_changes_nothing() {
    let slots: Vec<Slot> = (0..MAX_CUSTOM_SLOTS)
        .map(|i| {
            let facing = Vec2::new(
                (i * 37 % 101) as f32 - 50.0 + 0.25,
                (i * 53 % 97) as f32 * 0.37 - 17.0,
            );
            Slot {
                facing: facing * (1.0 + (i % 13) as f32 * 0.731),
                ..Slot::default()
            }
        })
        .collect();
    let once = Pattern {
        kind: PatternKind::Custom(slots),
        ..Pattern::default()
    }
    .validate()
    .unwrap();
    let twice = once.pattern().validate().unwrap();
    let (PatternKind::Custom(a), PatternKind::Custom(b)) = (once.kind(), twice.kind()) else {
        panic!()
    };
    for (x, y) in a.iter().zip(b) {
        assert_eq!(
            x.facing.to_array().map(f32::to_bits),
            y.facing.to_array().map(f32::to_bits),
            "{:?}",
            x.facing
        );
    }
}

#[test]
fn layout_reuses_the_buffer_and_caps_the_count() {
    let p = valid(PatternKind::Box);
    let mut slots = Vec::with_capacity(64);
    let ptr = slots.as_ptr();
    p.layout(64, &mut slots);
    p.layout(10, &mut slots);
    assert_eq!(slots.len(), 10);
    assert_eq!(slots.as_ptr(), ptr);
    assert_eq!(p.as_column().kind(), &PatternKind::Column);
    assert_eq!(p.as_column().spacing(), p.spacing());
    let huge = valid(PatternKind::Column);
    assert!((huge.depth(usize::MAX) - ((MAX_MEMBERS - 1) as f32 * 1.5 + 1.0)).abs() < 1.0);
}

/// Closed up for a 4 m gap, a box of 50 walkers (radius 0.5) stands in three files: 1.25 m
/// apart for a passage walked both ways, 1.05 m for one walked one way (5 cm between units);
/// a 5 m gap takes a fourth file only at the closer spacing.
#[test]
fn narrowed_one_way_closes_up_tighter_in_as_many_files() {
    let boxed = valid(PatternKind::Box);
    let both = boxed.narrowed(50, 4.0, 0.5);
    let one = boxed.narrowed_one_way(50, 4.0, 0.5);
    assert_eq!(both.pattern().kind, PatternKind::Ranks(3));
    assert_eq!(one.pattern().kind, PatternKind::Ranks(3));
    assert!((both.spacing() - 1.25).abs() < 1e-6, "{}", both.spacing());
    assert!((one.spacing() - 1.05).abs() < 1e-6, "{}", one.spacing());
    assert!(one.depth(50) < both.depth(50));
    assert_eq!(
        boxed.narrowed(50, 5.0, 0.5).pattern().kind,
        PatternKind::Ranks(3)
    );
    assert_eq!(
        boxed.narrowed_one_way(50, 5.0, 0.5).pattern().kind,
        PatternKind::Ranks(4)
    );
}
