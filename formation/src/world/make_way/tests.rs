//! Make way's skipping of formations whose slot targets lie clear of a lane, and which formations
//! keep close company in their ranks (`closed_up_one_way`).

use cohort_steering::Vec2;
use proptest::prelude::*;

use super::Lane;

/// A lane at `origin` heading `angle` (as a unit vector drawn from two numbers).
fn lane_strategy() -> impl Strategy<Value = Lane> {
    (
        (-20.0f32..20.0, -20.0f32..20.0),
        (-1.0f32..1.0, -1.0f32..1.0),
        (0.0f32..10.0, 0.0f32..8.0, 0.5f32..3.0),
    )
        .prop_map(|((x, y), (fx, fy), (half_width, half_length, speed))| {
            let forward = Vec2::new(fx, fy).try_normalize().unwrap_or(Vec2::X);
            Lane {
                origin: Vec2::new(x, y),
                forward,
                left: forward.perp(),
                half_width,
                behind: half_length + super::lane::LANE_BEHIND,
                ahead: half_length + super::lane::LANE_AHEAD + speed,
                speed,
                creeping: false,
            }
        })
}

proptest! {
    /// Targets a first lane moved aside lie within their circle grown as `open_lanes` grows
    /// it (the largest move plus a slack for rounding; the first assertion checks that
    /// slack covers the rounding of the moves): a second lane that misses the grown circle
    /// would have moved none of them.
    #[test]
    fn a_lane_missing_the_grown_circle_moves_no_target(
        first in lane_strategy(),
        second in lane_strategy(),
        offsets in prop::collection::vec((-6.0f32..6.0, -6.0f32..6.0, 0.3f32..0.8), 1..16),
    ) {
        let centre = Vec2::new(2.0, -1.0);
        let targets: Vec<(Vec2, f32)> = offsets
            .iter()
            .map(|&(x, y, r)| (centre + Vec2::new(x, y), r))
            .collect();
        let reach = targets
            .iter()
            .map(|&(p, r)| (p - centre).length() + r)
            .fold(0.0f32, f32::max);
        let mut most: f32 = 0.0;
        let moved: Vec<(Vec2, f32)> = targets
            .iter()
            .map(|&(p, r)| {
                let q = first.aside(p, r);
                most = most.max((q - p).length());
                (q, r)
            })
            .collect();
        let grown = reach + if most > 0.0 { super::growth(most) } else { 0.0 };
        for &(q, r) in &moved {
            prop_assert!((q - centre).length() + r <= grown + 1e-4);
        }
        if second.misses(centre, grown) {
            for &(q, r) in &moved {
                prop_assert_eq!(second.aside(q, r), q);
            }
        }
    }
}

/// Which formations keep close company (`closed_up_one_way`): closed up one way two or more
/// abreast, for the largest unit's radius; not passing an oncoming formation, not a single
/// file, not the wider spacing, not before closing up.
#[test]
fn close_company_is_kept_only_in_ranks_closed_up_one_way_two_or_more_abreast() {
    use crate::formation::{FormationSpec, Member};
    use crate::pattern::{Pattern, PatternKind};
    use crate::world::{World, WorldSettings};
    use cohort_pathing::Map;
    use cohort_steering::Body;

    // A Box of 12 walkers (radius 0.5) whose pattern is made for units of `pattern_radius`.
    let squad = |pattern_radius: f32| {
        let map = Map {
            max: Vec2::splat(60.0),
            ..Map::default()
        };
        let mut world = World::new(map, WorldSettings::default(), 1).expect("world");
        let spec = FormationSpec {
            pattern: Pattern::for_radius(PatternKind::Box, pattern_radius),
            ..FormationSpec::default()
        };
        let f = world
            .add_formation(spec, None, Vec2::splat(30.0), Vec2::X)
            .expect("formation");
        for k in 0..12 {
            let at = Vec2::new(20.0 + (k % 4) as f32 * 1.6, 25.0 + (k / 4) as f32 * 1.6);
            let u = world
                .add_unit(Body::new(at, 0.5, 1.3, 3.0).expect("body"))
                .expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
        }
        (world, f)
    };
    let (mut world, id) = squad(0.5);
    let close = |world: &World| {
        let f = world.formations.get(id).expect("squad");
        super::closed_up_one_way(f, || world.largest_radius(id))
    };
    assert!(!close(&world), "not closed up");
    let set = |world: &mut World, narrowed: fn(&crate::pattern::ValidPattern) -> _| {
        let f = world.formations.get_mut(id).expect("squad");
        f.narrowed = Some(narrowed(&f.base_pattern));
        f.in_column = true;
    };
    // Three abreast through 4 m, one way.
    set(&mut world, |p| p.narrowed_one_way(12, 4.0, 0.5));
    assert!(close(&world), "closed up one way three abreast");
    // Passing an oncoming formation.
    if let Some(f) = world.formations.get_mut(id) {
        f.narrow_pass = Some((id, 3.0));
    }
    assert!(!close(&world), "passing an oncoming formation");
    if let Some(f) = world.formations.get_mut(id) {
        f.narrow_pass = None;
    }
    // One file.
    set(&mut world, |p| p.narrowed_one_way(12, 1.5, 0.5));
    assert!(!close(&world), "a single file");
    // The wider spacing (closing on a goal in the narrows, or cramped).
    set(&mut world, |p| p.narrowed(12, 4.0, 0.5));
    assert!(!close(&world), "the wider spacing");
    // A pattern made for larger units than the walkers, closed up for the walkers with the
    // wider spacing: judged by the walkers' radius, not the pattern's.
    let (mut world, id2) = squad(0.8);
    if let Some(f) = world.formations.get_mut(id2) {
        f.narrowed = Some(f.base_pattern.narrowed(12, 4.0, 0.5));
        f.in_column = true;
    }
    let f = world.formations.get(id2).expect("squad");
    assert!(
        !super::closed_up_one_way(f, || world.largest_radius(id2)),
        "wider spacing, larger pattern"
    );
}
