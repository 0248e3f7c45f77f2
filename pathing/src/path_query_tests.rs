//! Tests of [`super::find_path`].

use super::*;
use crate::gap::JumpableGap;
use crate::grid_build::GridSpec;
use crate::jump::{JumpLink, LandingPad, TakeOff};
use crate::map::Map;
use crate::polygon::PolygonObstacle;
use cohort_steering::{CircleObstacle, Wall};

fn build(m: Map) -> (ValidMap, NavGraph) {
    let map = m.validate().unwrap();
    let nav = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
    (map, nav)
}

fn assert_clear(map: &ValidMap, path: &Path, radius: f32) {
    for w in path.waypoints.windows(2) {
        if w[0].leg == Leg::Walk {
            assert!(
                map.line_of_sight(w[0].position, w[1].position, radius),
                "{:?} -> {:?}",
                w[0].position,
                w[1].position
            );
        }
    }
}

#[test]
fn routes_around_a_wall() {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 20.0));
    m.walls
        .push(Wall::new(Vec2::new(15.0, 0.0), Vec2::new(15.0, 15.0)).unwrap());
    let (map, nav) = build(m);
    let q = PathQuery::new(Vec2::new(5.0, 5.0), Vec2::new(25.0, 5.0), 0.5);
    assert!(!map.line_of_sight(q.start, q.goal, 0.5));
    let path = find_path(&map, &nav, &q, &mut SearchScratch::new()).unwrap();
    assert!(path.reached_goal && path.clearance_met);
    assert_eq!(path.waypoints.first().unwrap().position, q.start);
    assert_eq!(path.waypoints.last().unwrap().position, q.goal);
    assert_clear(&map, &path, 0.5);
    // Over the wall's end at (15, 15): at least the two straight legs to it.
    let shortest = 2.0 * Vec2::new(10.0, 10.5).length();
    assert!(
        path.length >= shortest - 1e-3 && path.length < shortest * 1.1,
        "{}",
        path.length
    );
    assert!(path.positions().any(|p| p.y > 15.0));
    // Smoothing: a handful of waypoints, not a cell-by-cell staircase.
    assert!(path.waypoints.len() <= 5, "{}", path.waypoints.len());
    let raw = find_path(&map, &nav, &q.unsmoothed(), &mut SearchScratch::new()).unwrap();
    assert!(
        raw.waypoints.len() > path.waypoints.len() + 3,
        "{}",
        raw.waypoints.len()
    );
    assert!(raw.length >= path.length);
}

#[test]
fn straight_line_when_clear() {
    let (map, nav) = build(Map::with_bounds(Vec2::ZERO, Vec2::splat(20.0)));
    let q = PathQuery::new(Vec2::new(2.0, 3.0), Vec2::new(17.0, 15.0), 0.5);
    let path = find_path(&map, &nav, &q, &mut SearchScratch::new()).unwrap();
    assert_eq!(path.waypoints.len(), 2);
    assert!((path.length - (q.goal - q.start).length()).abs() < 1e-4);
}

/// A wall across the map at x = 20 with a 2-wide door at y in 9..11 and a 10-wide opening at
/// the top (y in 30..40).
fn two_doors() -> Map {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 40.0));
    m.polygons
        .push(PolygonObstacle::rectangle(Vec2::new(19.0, 0.0), Vec2::new(21.0, 9.0)).unwrap());
    m.polygons
        .push(PolygonObstacle::rectangle(Vec2::new(19.0, 11.0), Vec2::new(21.0, 30.0)).unwrap());
    m
}

#[test]
fn wide_formations_take_the_wide_way() {
    let (map, nav) = build(two_doors());
    let mut scratch = SearchScratch::new();
    let (a, b) = (Vec2::new(10.0, 10.0), Vec2::new(30.0, 10.0));
    let narrow = find_path(&map, &nav, &PathQuery::new(a, b, 0.5), &mut scratch).unwrap();
    assert!(
        narrow.positions().all(|p| p.y < 20.0),
        "a single unit takes the door"
    );
    assert!(narrow.narrowest.clearance < 1.01);
    let wide = PathQuery::new(a, b, 0.5).with_clearance(3.0);
    let path = find_path(&map, &nav, &wide, &mut scratch).unwrap();
    assert!(path.clearance_met && path.reached_goal);
    assert!(
        path.positions().any(|p| p.y > 30.0),
        "a 6-wide formation goes round the top"
    );
    assert!(
        path.narrowest.clearance >= 3.0 - 1e-3,
        "{:?}",
        path.narrowest
    );
    assert_clear(&map, &path, 3.0);
    for w in &path.waypoints[..path.waypoints.len() - 1] {
        assert!(w.leg_clearance >= 3.0 - 1e-3);
    }
}

#[test]
fn too_wide_everywhere_reports_the_narrowest_point() {
    let mut m = two_doors();
    // Close the top opening.
    m.polygons
        .push(PolygonObstacle::rectangle(Vec2::new(19.0, 30.0), Vec2::new(21.0, 40.0)).unwrap());
    let (map, nav) = build(m);
    let q = PathQuery::new(Vec2::new(10.0, 10.0), Vec2::new(30.0, 10.0), 0.5).with_clearance(3.0);
    let path = find_path(&map, &nav, &q, &mut SearchScratch::new()).unwrap();
    assert!(!path.clearance_met && path.reached_goal);
    // The door: 2 wide, so clearance 1 at its middle (x 19..21, y = 10).
    assert!(
        (path.narrowest.clearance - 1.0).abs() < 0.05,
        "{:?}",
        path.narrowest
    );
    assert!((19.0..=21.0).contains(&path.narrowest.position.x));
    assert!((path.narrowest.position.y - 10.0).abs() < 0.5);
    assert_clear(&map, &path, 0.5);
}

/// A goal boxed in by four walls.
fn boxed_goal() -> Map {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 30.0));
    let c = [
        Vec2::new(20.0, 20.0),
        Vec2::new(26.0, 20.0),
        Vec2::new(26.0, 26.0),
        Vec2::new(20.0, 26.0),
    ];
    for i in 0..4 {
        m.walls.push(Wall::new(c[i], c[(i + 1) % 4]).unwrap());
    }
    m.circles
        .push(CircleObstacle::new(Vec2::new(5.0, 5.0), 2.0).unwrap());
    m
}

#[test]
fn failures_are_typed_errors_or_closest_points() {
    let (map, nav) = build(boxed_goal());
    let mut scratch = SearchScratch::new();
    let inside_box = Vec2::new(23.0, 23.0);
    let q = PathQuery::new(Vec2::new(2.0, 20.0), inside_box, 0.5);
    assert!(matches!(
        find_path(&map, &nav, &q, &mut scratch),
        Err(PathingError::Unreachable { .. })
    ));
    let closest = find_path(&map, &nav, &q.or_closest(), &mut scratch).unwrap();
    assert!(!closest.reached_goal);
    let end = closest.waypoints.last().unwrap().position;
    // It ends just outside the box, near the goal.
    assert!((end - inside_box).length() < 5.0, "{end}");
    assert!(!map.is_blocked(end, 0.5));
    assert_clear(&map, &closest, 0.5);

    let in_rock = Vec2::new(5.0, 5.5);
    let q = PathQuery::new(in_rock, Vec2::new(15.0, 5.0), 0.5);
    assert!(matches!(
        find_path(&map, &nav, &q, &mut scratch),
        Err(PathingError::StartBlocked { .. })
    ));
    let out = find_path(&map, &nav, &q.or_closest(), &mut scratch).unwrap();
    let first = out.waypoints[0].position;
    assert!(!map.is_blocked(first, 0.5) && (first - in_rock).length() < 2.1);
    assert!(out.reached_goal);

    let q = PathQuery::new(Vec2::new(15.0, 5.0), in_rock, 0.5);
    assert!(matches!(
        find_path(&map, &nav, &q, &mut scratch),
        Err(PathingError::GoalBlocked { .. })
    ));
    let to_rock = find_path(&map, &nav, &q.or_closest(), &mut scratch).unwrap();
    assert!((to_rock.waypoints.last().unwrap().position - in_rock).length() < 2.1);
    assert!(!to_rock.reached_goal, "the goal itself is in the rock");

    let bad = PathQuery::new(Vec2::new(f32::NAN, 1.0), Vec2::ONE, 0.5);
    assert!(find_path(&map, &nav, &bad, &mut scratch).is_err());
    let outside = PathQuery::new(Vec2::new(-50.0, 1.0), Vec2::ONE, 0.5);
    assert!(find_path(&map, &nav, &outside, &mut scratch).is_err());
}

/// Two plateaus separated by an 8-wide chasm (a gap too wide to leap), with a jump link from
/// a ledge down onto a pad on the other side.
fn chasm(takeoff_height: f32) -> Map {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 20.0));
    m.gaps.push(JumpableGap {
        points: vec![
            Vec2::new(16.0, 0.0),
            Vec2::new(24.0, 0.0),
            Vec2::new(24.0, 20.0),
            Vec2::new(16.0, 20.0),
        ],
    });
    m.jump_links.push(JumpLink {
        takeoff: Vec2::new(15.0, 10.0),
        takeoff_height,
        pad: LandingPad {
            center: Vec2::new(25.5, 10.0),
            radius: 1.0,
            height: 0.0,
        },
        velocity: TakeOff::Predicted,
    });
    m
}

#[test]
fn routes_through_jump_links_only_for_able_units() {
    let (map, nav) = build(chasm(3.0));
    let mut scratch = SearchScratch::new();
    let q = PathQuery::new(Vec2::new(5.0, 4.0), Vec2::new(35.0, 4.0), 0.5);
    assert!(matches!(
        find_path(&map, &nav, &q, &mut scratch),
        Err(PathingError::Unreachable { .. })
    ));
    // Down 3 at 4 up: 1.29 s in the air, 10.5 away: 8.1 m/s.
    let athlete = JumpAbility::new(9.0, 4.0, 9.81).unwrap();
    let path = find_path(&map, &nav, &q.with_jumps(athlete), &mut scratch).unwrap();
    assert!(path.reached_goal);
    let i = path
        .waypoints
        .iter()
        .position(|w| w.leg == Leg::Jump(0))
        .expect("a jump leg");
    assert_eq!(path.waypoints[i].position, Vec2::new(15.0, 10.0));
    assert_eq!(path.waypoints[i + 1].position, Vec2::new(25.5, 10.0));
    assert_clear(&map, &path, 0.5);
    let plans = path.jump_plans(&map, &athlete);
    assert_eq!(plans.len(), 1);
    let plan = plans[0].1.unwrap();
    assert_eq!(plan.steering_target().position, Vec2::new(15.0, 10.0));
    assert!((plan.landing - Vec2::new(25.5, 10.0)).length() < 1e-3);
    // A weak jumper cannot make it: refused, so no route.
    let weak = JumpAbility::new(3.0, 2.0, 9.81).unwrap();
    assert!(find_path(&map, &nav, &q.with_jumps(weak), &mut scratch).is_err());
    // Jumping up 3 is beyond the athlete's 0.8 rise.
    let (map_up, nav_up) = build(chasm(-3.0));
    assert!(find_path(&map_up, &nav_up, &q.with_jumps(athlete), &mut scratch).is_err());
}

#[test]
fn leaps_narrow_gaps() {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 10.0));
    m.gaps.push(JumpableGap {
        points: vec![
            Vec2::new(14.0, 0.0),
            Vec2::new(16.0, 0.0),
            Vec2::new(16.0, 10.0),
            Vec2::new(14.0, 10.0),
        ],
    });
    let (map, nav) = build(m);
    let mut scratch = SearchScratch::new();
    let q = PathQuery::new(Vec2::new(5.0, 5.0), Vec2::new(25.0, 5.0), 0.4);
    assert!(find_path(&map, &nav, &q, &mut scratch).is_err());
    let path = find_path(
        &map,
        &nav,
        &q.with_jumps(JumpAbility::default()),
        &mut scratch,
    )
    .unwrap();
    let i = path
        .waypoints
        .iter()
        .position(|w| w.leg == Leg::Gap(0))
        .expect("a gap leg");
    assert!(path.waypoints[i].position.x < 14.0 && path.waypoints[i + 1].position.x > 16.0);
    assert_clear(&map, &path, 0.4);
}

#[test]
fn deterministic_and_reports_waypoint_clearance() {
    let (map, nav) = build(two_doors());
    let q = PathQuery::new(Vec2::new(10.0, 10.0), Vec2::new(30.0, 10.0), 0.5);
    let a = find_path(&map, &nav, &q, &mut SearchScratch::new()).unwrap();
    let mut scratch = SearchScratch::new();
    for _ in 0..3 {
        assert_eq!(find_path(&map, &nav, &q, &mut scratch).unwrap(), a);
    }
    for w in &a.waypoints {
        let c = map.clearance_at(w.position).min(4.0);
        assert!((w.clearance - c).abs() < 1e-4);
        assert!(w.leg_clearance <= w.clearance + 1e-6);
    }
}

/// Queries over several maps: detours round walls, wide and narrow clearances, a goal boxed
/// in (unreachable: an error, or the closest point), starts and goals inside rocks, jump links
/// (able, weak and unable units), leaps over a gap, and invalid numbers.
fn query_suite() -> Vec<(ValidMap, NavGraph, Vec<PathQuery>)> {
    let athlete = JumpAbility::new(9.0, 4.0, 9.81).unwrap();
    let weak = JumpAbility::new(3.0, 2.0, 9.81).unwrap();
    let mut walled = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 20.0));
    walled
        .walls
        .push(Wall::new(Vec2::new(15.0, 0.0), Vec2::new(15.0, 15.0)).unwrap());
    let mut gap = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 10.0));
    gap.gaps.push(JumpableGap {
        points: vec![
            Vec2::new(14.0, 0.0),
            Vec2::new(16.0, 0.0),
            Vec2::new(16.0, 10.0),
            Vec2::new(14.0, 10.0),
        ],
    });
    let around = PathQuery::new(Vec2::new(5.0, 5.0), Vec2::new(25.0, 5.0), 0.5);
    let doors = PathQuery::new(Vec2::new(10.0, 10.0), Vec2::new(30.0, 10.0), 0.5);
    let boxed = PathQuery::new(Vec2::new(2.0, 20.0), Vec2::new(23.0, 23.0), 0.5);
    let in_rock = Vec2::new(5.0, 5.5);
    let across = PathQuery::new(Vec2::new(5.0, 4.0), Vec2::new(35.0, 4.0), 0.5);
    let leap = PathQuery::new(Vec2::new(5.0, 5.0), Vec2::new(25.0, 5.0), 0.4);
    let suite = [
        (
            walled,
            vec![around, around.unsmoothed(), around.or_closest()],
        ),
        (
            two_doors(),
            vec![
                doors,
                doors.with_clearance(3.0),
                doors.with_clearance(30.0),
                doors.with_clearance(30.0).or_closest(),
                doors.with_clearance(3.0).unsmoothed(),
            ],
        ),
        (
            boxed_goal(),
            vec![
                boxed,
                boxed.or_closest(),
                boxed.with_clearance(2.0).or_closest(),
                PathQuery::new(in_rock, Vec2::new(15.0, 5.0), 0.5),
                PathQuery::new(in_rock, Vec2::new(15.0, 5.0), 0.5).or_closest(),
                PathQuery::new(Vec2::new(15.0, 5.0), in_rock, 0.5).or_closest(),
                PathQuery::new(Vec2::new(f32::NAN, 1.0), Vec2::ONE, 0.5),
                PathQuery::new(Vec2::new(-50.0, 1.0), Vec2::ONE, 0.5).or_closest(),
            ],
        ),
        (
            chasm(3.0),
            vec![
                across,
                across.or_closest(),
                across.with_jumps(athlete),
                across.with_jumps(athlete).unsmoothed(),
                across.with_jumps(weak).or_closest(),
            ],
        ),
        (
            gap,
            vec![
                leap,
                leap.with_jumps(JumpAbility::default()),
                leap.or_closest(),
            ],
        ),
    ];
    suite
        .into_iter()
        .map(|(m, qs)| {
            let (map, nav) = build(m);
            (map, nav, qs)
        })
        .collect()
}

#[test]
fn find_path_into_reused_buffers_gives_the_owned_paths() {
    let suite = query_suite();
    let (mut scratch, mut out) = (SearchScratch::new(), Path::default());
    let (mut errors, mut jumps, mut closest) = (0, 0, 0);
    // Forward then backward: each query runs on buffers a different (longer or shorter) path
    // left behind.
    let all: Vec<_> = suite
        .iter()
        .flat_map(|(map, nav, queries)| queries.iter().map(move |q| (map, nav, q)))
        .collect();
    for (map, nav, q) in all.iter().chain(all.iter().rev()) {
        let owned = find_path(map, nav, q, &mut SearchScratch::new());
        let into = find_path_into(map, nav, q, &mut scratch, &mut out);
        match owned {
            Ok(path) => {
                assert_eq!(into, Ok(()), "{q:?}");
                assert_eq!(out, path, "{q:?}");
                jumps += usize::from(path.waypoints.iter().any(|w| w.leg != Leg::Walk));
                closest += usize::from(!path.reached_goal);
            }
            Err(e) => {
                // Compared as text: an error may carry a NaN.
                assert_eq!(format!("{into:?}"), format!("{:?}", Err::<(), _>(e)));
                assert_eq!(out, Path::default(), "an error leaves the path empty");
                errors += 1;
            }
        }
    }
    // The suite covers what it says.
    assert!(
        errors >= 8 && jumps >= 6 && closest >= 6,
        "{errors} {jumps} {closest}"
    );
}
