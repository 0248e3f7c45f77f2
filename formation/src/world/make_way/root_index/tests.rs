//! The pruned queries of the root index against the tests they prune for, pair by pair.

use cohort_steering::Vec2;
use proptest::prelude::*;
use slotmap::SlotMap;

use super::super::following::{Frame, follow_cap};
use super::super::zipper::{MergeOrder, merge_order};
use super::super::{Lane, pass_shift};
use super::headings::WEDGES;
use super::{RootEntry, RootIndex, heading_class, may_oppose, sort_by_x};
use crate::army::{ArmySpec, build_army};
use crate::ids::FormationId;
use crate::world::{MAX_STEP, WorldSettings};

/// A root as the strategies draw it: position, velocity, half-extent, moving.
type Drawn = (Vec2, Vec2, Vec2, bool);

/// Roots crowded in a 120 m square: half of them marching east at about the same speed
/// (followers), the others in any direction (oncoming ones among them), some standing.
fn roots_strategy() -> impl Strategy<Value = Vec<Drawn>> {
    let root = (
        (0.0f32..120.0, 0.0f32..120.0),
        (-3.0f32..3.0, -3.0f32..3.0),
        any::<bool>(),
        (0.0f32..12.0, 0.0f32..12.0),
        0u8..4,
    )
        .prop_map(|((x, y), (vx, vy), east, (hx, hy), m)| {
            let v = if east {
                Vec2::new(1.2 + 0.1 * vx, 0.05 * vy)
            } else {
                Vec2::new(vx, vy)
            };
            (Vec2::new(x, y), v, Vec2::new(hx, hy), m != 0)
        });
    prop::collection::vec(root, 1..48)
}

/// An index of `roots` (each its own subtree of the order), sorted, with every part built.
fn index_of(roots: &[Drawn]) -> RootIndex {
    let mut keys = SlotMap::<FormationId, ()>::with_key();
    let mut index = RootIndex::default();
    for (k, &(position, velocity, half_extent, moving)) in roots.iter().enumerate() {
        index.entries.push(RootEntry {
            id: keys.insert(()),
            span: (k as u32, k as u32 + 1),
            position,
            velocity,
            half_extent,
            circle_radius: half_extent.length(),
            spread: half_extent.length(),
            moving,
            // Every fifth a single (none among the first four: the hand-made scenes below).
            single: k % 5 == 4,
            small_group: k % 5 == 4,
            lane: Lane::new(position, velocity, half_extent, moving),
            creep: None,
            follow_gap: 2.0,
            facing: velocity.try_normalize().unwrap_or(Vec2::X),
            top_speed: 3.0,
            queued: k % 3 == 0,
            passage: None,
            passage_way: Vec2::ZERO,
            passage_half_length: 0.0,
            root: k as u32,
            heading: super::NO_HEADING,
        });
    }
    index.sorted();
    index.index_headings();
    index.index_all();
    index
}

/// A stream of two formations marching east one behind the other, and a third joining
/// their lane at an angle from the north: the joiner's front is nearer the point where its
/// heading meets the stream's than the second one's, so the second one waits for the joiner
/// (slowed, not stopped: the joiner's rear will be a metre ahead of its front), and the
/// joiner waits for the first one only, not for the second one, though that one lies ahead
/// in its lane.
#[test]
fn a_joiner_goes_between_two_of_a_stream() {
    let half = Vec2::splat(3.0);
    let east = Vec2::new(1.5, 0.0);
    let index = index_of(&[
        (Vec2::new(20.0, 0.0), east, half, true),
        (Vec2::new(6.0, 0.0), east, half, true),
        (Vec2::new(14.0, 5.0), Vec2::new(1.5, -0.6), half, true),
    ]);
    let find = |x: f32| {
        index
            .entries
            .iter()
            .find(|e| e.position.x == x)
            .expect("root")
    };
    let (first, second, joiner) = (find(20.0), find(6.0), find(14.0));
    let frame = |e: &RootEntry| Frame::of(e).expect("frame");
    let waits = |a: &RootEntry, b: &RootEntry| follow_cap(a, &frame(a), b);
    let second_waits = waits(second, joiner).expect("the second one waits for the joiner");
    assert!(second_waits > 0.5 && second_waits < 1.5, "{second_waits}");
    assert!(waits(joiner, second).is_none());
    assert!(waits(joiner, first).is_some());
    assert!(waits(first, joiner).is_none());
}

/// Of two formations bound for one passage, one whose box has walked into the side of the
/// other's, that other's anchor ahead of its own, presses no further in: it keeps to that
/// one's speed along its heading (none, waiting its turn). Not bound for one passage (a
/// marching neighbour overlapping it as much on the other side, or the waiting one bound
/// elsewhere), side by side in parallel lanes, they are left alone; nor is the one ahead
/// held by the one behind, nor one whose box is clear of the other's side.
#[test]
fn a_formation_bound_for_a_passage_does_not_press_into_the_side_of_another() {
    let half = Vec2::splat(5.0);
    let east = Vec2::new(1.2, 0.0);
    let gap = Vec2::new(40.0, 0.0);
    let mut index = index_of(&[
        (Vec2::new(6.0, 8.0), Vec2::ZERO, half, true),
        (Vec2::new(0.0, 0.0), east, half, true),
        (Vec2::new(6.0, -8.0), east, half, true),
        (Vec2::new(6.0, 11.0), Vec2::ZERO, half, true),
    ]);
    for e in &mut index.entries {
        e.passage = Some(gap + Vec2::new(0.0, 0.1 * e.position.y));
    }
    let find = |index: &RootIndex, y: f32| {
        *index
            .entries
            .iter()
            .find(|e| e.position.y == y)
            .expect("root")
    };
    let (waiting, mover, clear) = (find(&index, 8.0), find(&index, 0.0), find(&index, 11.0));
    let mut neighbour = find(&index, -8.0);
    neighbour.passage = None;
    assert!(waiting.queued && clear.queued);
    let frame = |e: &RootEntry| Frame::of(e).expect("frame");
    let cap = |a: &RootEntry, b: &RootEntry| follow_cap(a, &frame(a), b);
    assert_eq!(cap(&mover, &waiting), Some(0.0));
    assert_eq!(cap(&mover, &neighbour), None);
    assert_eq!(cap(&waiting, &mover), None);
    assert_eq!(cap(&mover, &clear), None);
    let mut elsewhere = waiting;
    elsewhere.passage = Some(gap + Vec2::new(0.0, 30.0));
    assert_eq!(cap(&mover, &elsewhere), None);
}

/// Unit vectors of headings spread round the circle (and on the wedges' edges).
fn unit_strategy() -> impl Strategy<Value = Vec2> {
    (-1.0f32..1.0, -1.0f32..1.0, 0u8..6).prop_map(|(x, y, edge)| {
        // Some exactly on an axis or a diagonal, where the wedges meet.
        let v = match edge {
            0 => Vec2::new(x, x),
            1 => Vec2::new(x, -x),
            2 => Vec2::new(x, 0.0),
            3 => Vec2::new(0.0, y),
            _ => Vec2::new(x, y),
        };
        v.try_normalize().unwrap_or(Vec2::X)
    })
}

proptest! {
    #[test]
    fn headings_that_can_be_passed_are_in_wedges_that_may_oppose(
        a in unit_strategy(),
        b in unit_strategy(),
    ) {
        let (ca, cb) = (heading_class(a), heading_class(b));
        prop_assert!(ca < WEDGES && cb < WEDGES);
        if a.dot(b) <= -0.5 {
            prop_assert!(may_oppose(ca, cb), "{a} in {ca}, {b} in {cb}");
        }
        // The pruning is symmetric, and never skips a pair that is merely not parallel.
        prop_assert_eq!(may_oppose(ca, cb), may_oppose(cb, ca));
        if !may_oppose(ca, cb) {
            prop_assert!(a.dot(b) > -1e-6);
        }
    }

    #[test]
    fn pruned_passing_equals_the_test_of_every_pair(roots in roots_strategy()) {
        let index = index_of(&roots);
        for a in &index.entries {
            let Some(lane) = a.lane else {
                continue;
            };
            let mut shift: f32 = 0.0;
            for b in &index.entries {
                if let Some(s) = pass_shift(a, &lane, b) {
                    shift = shift.max(s);
                }
            }
            let every_pair = super::super::passing_velocity(&lane, shift);
            let (pruned, _) = index.passing_velocity(a, &lane);
            prop_assert_eq!(pruned.to_array().map(f32::to_bits), every_pair.to_array().map(f32::to_bits));
        }
    }

    /// The queueing cap from the pruned query equals the least cap below the top speed of
    /// every other root (a cap at or above it holds nothing back; beyond the query's squares
    /// every cap is), and roots that do not queue (singles, small groups) neither queue nor
    /// are queued behind.
    #[test]
    fn pruned_following_equals_the_test_of_every_pair(roots in roots_strategy()) {
        let index = index_of(&roots);
        for a in &index.entries {
            let top = a.top_speed_or_zero();
            let every_pair = Frame::of(a).filter(|_| a.moving).and_then(|frame| {
                index
                    .entries
                    .iter()
                    .filter_map(|b| follow_cap(a, &frame, b).filter(|&v| v < top))
                    .reduce(f32::min)
            });
            let pruned = index.following_speed(a);
            prop_assert_eq!(pruned.map(f32::to_bits), every_pair.map(f32::to_bits));
            if a.small_group {
                prop_assert_eq!(pruned, None);
            }
        }
    }

    /// Of two formations whose headings converge near at hand, exactly one waits for the
    /// other, whichever of the two asks; and of any two, never both wait for each other by
    /// the merge.
    #[test]
    fn of_two_merging_roots_exactly_one_waits(roots in roots_strategy()) {
        let index = index_of(&roots);
        for a in &index.entries {
            for b in &index.entries {
                let (Some(fa), Some(fb)) = (Frame::of(a), Frame::of(b)) else {
                    continue;
                };
                if a.id == b.id {
                    continue;
                }
                let (ab, ba) = (merge_order(a, &fa, b, &fb), merge_order(b, &fb, a, &fa));
                prop_assert_eq!(ab.is_some(), ba.is_some());
                if let (Some(ab), Some(ba)) = (ab, ba) {
                    let waits = |o: MergeOrder| matches!(o, MergeOrder::Waits(_));
                    prop_assert!(waits(ab) != waits(ba), "{:?} {:?}", ab, ba);
                    prop_assert!(
                        follow_cap(a, &fa, b).is_none() || follow_cap(b, &fb, a).is_none()
                    );
                }
            }
        }
    }

    #[test]
    fn lane_query_visits_exactly_the_reached_roots(roots in roots_strategy()) {
        let index = index_of(&roots);
        for a in &index.entries {
            let Some(lane) = a.lane else {
                continue;
            };
            let mut visited = Vec::new();
            index.for_each_in_way(a, &lane, |b| visited.push(b.id));
            visited.sort();
            // Every root the lane reaches, wherever it lies (the x-window make way searched
            // before missed roots in the corners of diagonal lanes).
            let mut reached: Vec<FormationId> = index
                .entries
                .iter()
                .filter(|b| b.id != a.id && lane.reaches(b))
                .map(|b| b.id)
                .collect();
            reached.sort();
            prop_assert_eq!(visited, reached);
        }
    }

    #[test]
    fn sorting_by_x_matches_a_full_sort(
        roots in roots_strategy(),
        nudges in prop::collection::vec(-3.0f32..3.0, 48),
    ) {
        let mut index = index_of(&roots);
        // Almost sorted (as from one tick to the next), and in no order at all.
        for (e, d) in index.entries.iter_mut().zip(&nudges) {
            e.position.x += d;
        }
        let mut full = index.entries.clone();
        full.sort_unstable_by(|a, b| a.position.x.total_cmp(&b.position.x).then(a.id.cmp(&b.id)));
        let ids = |v: &[RootEntry]| v.iter().map(|e| e.id).collect::<Vec<_>>();
        sort_by_x(&mut index.entries);
        prop_assert_eq!(ids(&index.entries), ids(&full));
        index.entries.reverse();
        sort_by_x(&mut index.entries);
        prop_assert_eq!(ids(&index.entries), ids(&full));
    }
}

#[test]
fn marching_army_puts_no_mover_in_an_opposing_wedge() {
    let roots: Vec<Drawn> = (0..40)
        .map(|i| {
            let at = Vec2::new((i % 8) as f32 * 15.0, (i / 8) as f32 * 15.0);
            let v = Vec2::new(1.4, 0.02 * (i % 5) as f32 - 0.04);
            (at, v, Vec2::new(6.0, 8.0), true)
        })
        .collect();
    let index = index_of(&roots);
    let classes: Vec<u8> = index.entries.iter().map(|e| e.heading).collect();
    assert!(
        classes.iter().all(|&c| c == 0 || c == WEDGES - 1),
        "{classes:?}"
    );
    // Wedges 2 to 6 (all a mover heading east looks at) are empty, and nobody passes.
    for h in 2..=6 {
        assert!(index.headings[h].cells.is_empty(), "wedge {h}");
    }
    for a in &index.entries {
        let lane = a.lane.expect("every root marches");
        assert_eq!(index.passing_velocity(a, &lane).0, Vec2::ZERO);
    }
}

#[test]
fn refreshed_index_equals_a_rebuilt_one() {
    let spec = ArmySpec {
        units: 800,
        ..ArmySpec::default()
    };
    let mut world = build_army(&spec, WorldSettings::default())
        .expect("army builds")
        .world;
    for _ in 0..30 {
        world.step(MAX_STEP);
    }
    let key = |e: &RootEntry| {
        (
            e.id,
            e.span,
            e.position.to_array().map(f32::to_bits),
            e.velocity.to_array().map(f32::to_bits),
            e.half_extent.to_array().map(f32::to_bits),
            e.moving,
        )
    };
    let keys = |index: &RootIndex| index.entries.iter().map(key).collect::<Vec<_>>();
    let roots = world.scratch.roots.clone();
    assert!(roots.len() > 10, "{} platoons", roots.len());
    let mut rebuilt = RootIndex::default();
    rebuilt.update(&roots, &world.formations);
    assert!(rebuilt.complete);
    // The world's index was last read at the end of the tick, before the anchors moved.
    let refreshed = &mut world.scratch.roots_index;
    assert!(refreshed.refresh(&roots, &world.formations));
    refreshed.update(&roots, &world.formations);
    assert_eq!(keys(refreshed), keys(&rebuilt));
    assert_eq!(refreshed.max_reach.to_bits(), rebuilt.max_reach.to_bits());
    assert_eq!(refreshed.max_speed.to_bits(), rebuilt.max_speed.to_bits());

    // One root fewer: read again from scratch.
    let fewer = &roots[1..];
    refreshed.update(fewer, &world.formations);
    rebuilt.update(fewer, &world.formations);
    let mut fresh = RootIndex::default();
    fresh.update(fewer, &world.formations);
    assert_eq!(keys(refreshed), keys(&fresh));
    assert_eq!(keys(&rebuilt), keys(&fresh));
    assert_eq!(refreshed.entries.len(), fewer.len());
    // A root that is no formation: the index holds the others and never refreshes in place.
    let mut refreshed = std::mem::take(&mut world.scratch.roots_index);
    world.remove_formation(roots[0].0).expect("a platoon");
    refreshed.update(&roots, &world.formations);
    assert!(!refreshed.complete);
    assert_eq!(refreshed.entries.len(), roots.len() - 1);
    assert!(!refreshed.refresh(&roots, &world.formations));
}

#[test]
fn a_root_in_the_corner_of_a_diagonal_lane_is_visited() {
    // A small mover heading north-east and a big standing root at the lane's far right
    // corner: 17.7 m east of the mover, beyond the x-window make way once searched (17.2 m).
    let f = Vec2::new(1.0, 1.0).normalize();
    let l = f.perp();
    let corner = f * 15.0 - l * 10.0;
    let roots = [
        (Vec2::ZERO, f * 1.4, Vec2::splat(2.0), true),
        (corner, Vec2::ZERO, Vec2::splat(6.0), false),
    ];
    let index = index_of(&roots);
    let mover = index
        .entries
        .iter()
        .find(|e| e.moving)
        .copied()
        .expect("the mover is indexed");
    let lane = mover.lane.expect("the mover has a lane");
    let other = index.entries.iter().find(|e| !e.moving).expect("indexed");
    assert!(lane.reaches(other));
    assert!(corner.x > 17.5);
    let mut visited = Vec::new();
    index.for_each_in_way(&mover, &lane, |b| visited.push(b.id));
    assert_eq!(visited, vec![other.id]);
}

proptest! {
    /// The roots marked near another are those of every pair whose bounding circles come
    /// within the margin, judged from the pair's first root in x order (as the sweep does).
    #[test]
    fn near_roots_are_those_of_near_pairs(
        roots in roots_strategy(),
        margin in 0.0f32..14.0,
        scale in prop::sample::select(vec![0.05f32, 0.2, 1.0]),
    ) {
        // Shrunk extents: small roots among large ones, as in flat groups.
        let roots: Vec<Drawn> = roots
            .iter()
            .enumerate()
            .map(|(k, &(p, v, h, m))| (p, v, if k % 3 == 0 { h } else { h * scale }, m))
            .collect();
        let index = index_of(&roots);
        let mut near = vec![false; roots.len()];
        index.mark_near_pairs(margin, &mut near);
        let mut wanted = vec![false; roots.len()];
        let entries = &index.entries;
        for (k, a) in entries.iter().enumerate() {
            for b in entries.get(k + 1..).unwrap_or(&[]) {
                let ra = a.half_extent.length();
                let reach = ra + b.half_extent.length() + margin;
                let window = ra + index.max_reach + margin;
                if b.position.x - a.position.x <= window
                    && (b.position - a.position).length_squared() <= reach * reach
                {
                    wanted[a.root as usize] = true;
                    wanted[b.root as usize] = true;
                }
            }
        }
        prop_assert_eq!(near, wanted);
    }
}

/// Two formations bound for one passage go through it alike when their paths run through it
/// the same way (converging on a gap from either side of its mouth), not when they run
/// through it opposite ways (meeting in a corridor), nor when their passages are apart.
#[test]
fn formations_go_through_one_passage_alike_only_the_same_way() {
    let roots = [
        (
            Vec2::new(0.0, -10.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(2.0, 3.0),
            true,
        ),
        (
            Vec2::new(0.0, 10.0),
            Vec2::new(0.0, -1.0),
            Vec2::new(2.0, 3.0),
            true,
        ),
    ];
    let mut index = index_of(&roots);
    let gap = Vec2::new(5.0, 0.0);
    let set = |e: &mut RootEntry, at: Vec2, way: Vec2| {
        e.passage = Some(at);
        e.passage_way = way;
    };
    let (a, b) = index.entries.split_at_mut(1);
    let (a, b) = (&mut a[0], &mut b[0]);
    // Heading towards each other (north and south), both through the gap eastwards.
    set(a, gap, Vec2::X);
    set(
        b,
        gap + Vec2::new(0.0, 0.5),
        Vec2::new(0.9, 0.1).normalize(),
    );
    assert!(a.through_one_passage_alike(b) && b.through_one_passage_alike(a));
    // Through it opposite ways: a corridor's two ends.
    set(b, gap, -Vec2::X);
    assert!(!a.through_one_passage_alike(b) && !b.through_one_passage_alike(a));
    // The same way, but through passages far apart.
    set(b, gap + Vec2::new(0.0, 30.0), Vec2::X);
    assert!(!a.through_one_passage_alike(b));
    // Without a passage.
    b.passage = None;
    b.passage_way = Vec2::ZERO;
    assert!(!a.through_one_passage_alike(b));
}

/// A member standing far outside its formation's circle marks its own root and every root
/// whose circle comes within the margin of it, and nothing else.
#[test]
fn a_member_far_from_its_formation_marks_the_roots_round_it() {
    let roots = [
        (Vec2::new(10.0, 10.0), Vec2::ZERO, Vec2::splat(2.0), false),
        (
            Vec2::new(60.0, 10.0),
            Vec2::ZERO,
            Vec2::new(1.0, 20.0),
            false,
        ),
        (Vec2::new(10.0, 90.0), Vec2::ZERO, Vec2::splat(2.0), false),
    ];
    let index = index_of(&roots);
    let margin = 5.0;
    let mut near = vec![false; 3];
    index.mark_near_pairs(margin, &mut near);
    assert_eq!(near, vec![false; 3]);
    // Each root's place among the roots is its place in `roots`.
    let owner = |k: usize| k as u32;
    // 26 m from its own root, 4.4 m from the edge of root 1's circle (20 m round it): within
    // the margin and its radius.
    let at = Vec2::new(60.0 - 24.4, 10.0);
    index.mark_near_member(owner(0), at, 0.5, margin, &mut near);
    let mut want = vec![false; 3];
    want[owner(0) as usize] = true;
    want[owner(1) as usize] = true;
    assert_eq!(near, want);
    // Beyond every other circle's margin: nothing more.
    let mut near = vec![false; 3];
    index.mark_near_member(owner(0), Vec2::new(35.0, 60.0), 0.5, margin, &mut near);
    assert_eq!(near, vec![false; 3]);
    // A moving root is left to the member's separation.
    let mut moving = roots;
    moving[1].1 = Vec2::new(1.0, 0.0);
    moving[1].3 = true;
    let index = index_of(&moving);
    let mut near = vec![false; 3];
    index.mark_near_member(owner(0), at, 0.5, margin, &mut near);
    assert_eq!(near, vec![false; 3]);
}

proptest! {
    /// Roots moving alike: a group's roots all move within `ALIKE_SPEED` of each other along
    /// each axis, are all eligible (or the root is alone), are all singles or none, and stand
    /// for themselves by their least place; and two eligible neighbours moving alike are
    /// never both left alone.
    #[test]
    fn roots_moving_alike_share_a_group_only_within_its_speed_spread(
        roots in roots_strategy(),
        skip in 0usize..5,
    ) {
        use super::alike::{ALIKE_GAP, ALIKE_SPEED};
        let mut index = index_of(&roots);
        let n = roots.len();
        let eligible: Vec<bool> = (0..n).map(|k| roots[k].3 && k % 5 != skip).collect();
        let mut clusters = Vec::new();
        index.cluster_alike(n, &eligible, &mut clusters);
        prop_assert_eq!(clusters.len(), n);
        let single = |k: usize| k % 5 == 4;
        for i in 0..n {
            let c = clusters[i] as usize;
            prop_assert!(c <= i);
            prop_assert_eq!(clusters[c] as usize, c);
            if c != i {
                prop_assert!(eligible[i] && eligible[c]);
                prop_assert_eq!(single(i), single(c));
            }
            for j in 0..n {
                if clusters[j] as usize == c {
                    let d = roots[i].1 - roots[j].1;
                    prop_assert!(d.x.abs() <= ALIKE_SPEED + 1e-6 && d.y.abs() <= ALIKE_SPEED + 1e-6);
                }
            }
        }
        // Two eligible neighbours moving alike are not both left alone.
        for i in 0..n {
            for j in i + 1..n {
                let alone = |k: usize| (0..n).all(|m| m == k || clusters[m] != clusters[k]);
                let (a, b) = (&roots[i], &roots[j]);
                let gap = (b.0 - a.0).length() - a.2.length() - b.2.length();
                let d = b.1 - a.1;
                let alike = d.length() <= ALIKE_SPEED && d.x.abs() <= ALIKE_SPEED && d.y.abs() <= ALIKE_SPEED;
                if eligible[i] && eligible[j] && single(i) == single(j) && alike && gap < ALIKE_GAP - 1e-3 {
                    prop_assert!(clusters[i] == clusters[j] || !(alone(i) && alone(j)),
                        "{} and {} moving alike {} m apart not joined", i, j, gap);
                }
            }
        }
    }
}
