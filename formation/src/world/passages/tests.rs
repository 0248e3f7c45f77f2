use super::*;
use cohort_pathing::{Map, PolygonObstacle};

/// A 100 × 60 map with a wall 2 m thick across x = 50 and one gap `gap` wide centred on
/// y = 30.
fn walled(gap: f32) -> ValidMap {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 60.0));
    for (y0, y1) in [(0.0, 30.0 - 0.5 * gap), (30.0 + 0.5 * gap, 60.0)] {
        map.polygons.push(
            PolygonObstacle::new(vec![
                Vec2::new(49.0, y0),
                Vec2::new(51.0, y0),
                Vec2::new(51.0, y1),
                Vec2::new(49.0, y1),
            ])
            .expect("block"),
        );
    }
    map.validate().expect("map")
}

/// A walking plan through `points`, with the clearance `map` gives each leg's end.
fn plan(map: &ValidMap, points: &[Vec2]) -> PathPlan {
    PathPlan {
        points: points.to_vec(),
        clearance: points
            .iter()
            .map(|&p| map.clearance_capped(p, 6.0))
            .collect(),
        legs: vec![Leg::Walk; points.len()],
    }
}

/// A path from the south-west through the 4 m gap of [`walled`] and on to the south-east,
/// round the gap's south corner at a unit's clearance.
fn round_the_corner(map: &ValidMap) -> PathPlan {
    plan(
        map,
        &[
            Vec2::new(35.0, 10.0),
            Vec2::new(48.6, 28.5),
            Vec2::new(51.4, 28.5),
            Vec2::new(70.0, 15.0),
        ],
    )
}

/// A path that comes at a 4 m gap diagonally and turns round its corner at a unit's
/// clearance is replaced, through the gap, by two waypoints on the gap's middle line: the
/// least clearance along the legs through the gap is then the gap's half-width, not the
/// corner's.
#[test]
fn a_path_round_a_gaps_corner_goes_straight_down_its_middle() {
    let map = walled(4.0);
    let mut p = round_the_corner(&map);
    let mut narrows = Vec::new();
    centre_in_passages(&map, &mut p, 5.75, 0.5, &mut narrows);
    assert_eq!(p.points.len(), 4, "{:?}", p.points);
    assert_eq!(p.points.len(), p.clearance.len());
    assert_eq!(p.points.len(), p.legs.len());
    let (lead_in, lead_out) = (p.points[1], p.points[2]);
    assert!((lead_in.y - 30.0).abs() < 0.05, "{lead_in}");
    assert!((lead_out.y - 30.0).abs() < 0.05, "{lead_out}");
    // Straight in from before the wall and out beyond it.
    assert!(
        lead_in.x < 49.0 - LEAD + 0.6 && lead_in.x > 40.0,
        "{lead_in}"
    );
    assert!(
        lead_out.x > 51.0 && lead_out.x < 51.0 + LEAD_OUT + 0.6,
        "{lead_out}"
    );
    // The leg through the gap keeps 2 m (its half-width) within a sample's rounding.
    assert!(p.clearance[2] > 1.95, "{:?}", p.clearance);
    for w in p.points.windows(2) {
        assert!(map.line_of_sight(w[0], w[1], 0.5), "{w:?}");
    }
}

/// A path along one wall, with open ground on its other side, is no passage: it is left as
/// it is.
#[test]
fn a_path_along_one_wall_is_left_alone() {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 60.0));
    map.polygons.push(
        PolygonObstacle::new(vec![
            Vec2::new(20.0, 28.0),
            Vec2::new(80.0, 28.0),
            Vec2::new(80.0, 30.0),
            Vec2::new(20.0, 30.0),
        ])
        .expect("wall"),
    );
    let map = map.validate().expect("map");
    let points = [Vec2::new(10.0, 31.5), Vec2::new(90.0, 31.5)];
    let mut p = plan(&map, &points);
    let before = p.clone();
    centre_in_passages(&map, &mut p, 5.75, 0.5, &mut Vec::new());
    assert_eq!(p, before);
}

/// Coming at the gap from beside it (along the wall's far side, round its end), whatever
/// the path becomes, every leg of it keeps a unit clear of the geometry.
#[test]
fn every_leg_of_a_centred_path_keeps_a_unit_clear() {
    let map = walled(4.0);
    let points = [
        Vec2::new(52.5, 45.0),
        Vec2::new(51.6, 31.4),
        Vec2::new(48.4, 31.4),
        Vec2::new(30.0, 40.0),
    ];
    let mut p = plan(&map, &points);
    let before = p.clone();
    centre_in_passages(&map, &mut p, 5.75, 0.5, &mut Vec::new());
    for w in p.points.windows(2) {
        assert!(
            map.line_of_sight(w[0], w[1], 0.5),
            "{:?} from {:?}",
            p.points,
            before.points
        );
    }
}

/// A plan with a jump in it is left as it is (its legs are not all walked).
#[test]
fn a_plan_with_a_jump_is_left_alone() {
    let map = walled(4.0);
    let mut p = round_the_corner(&map);
    p.legs[0] = Leg::Jump(0);
    let before = p.clone();
    centre_in_passages(&map, &mut p, 5.75, 0.5, &mut Vec::new());
    assert_eq!(p, before);
}
