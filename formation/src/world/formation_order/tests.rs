//! The kept formation order: a reorder of sub-formations walks only their subtree again; a
//! unit joining or leaving keeps the order, a formation joining renews it.

use cohort_pathing::Map;
use cohort_steering::{Body, Vec2};

use super::walk_formation_tree;
use crate::formation::{FormationSpec, Member};
use crate::ids::FormationId;
use crate::pattern::{Pattern, PatternKind};
use crate::world::{World, WorldSettings};

fn line() -> FormationSpec {
    FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Line, 0.5),
        ..FormationSpec::default()
    }
}

/// A lone formation (a root ahead of the platoon in key order), then a platoon (a line
/// facing +x) of two squads of two units, squad `a` standing at `a_at` and `b` at `b_at`:
/// `(world, platoon, a, b)`; the platoon's members are `[a, b]`.
fn platoon(a_at: Vec2, b_at: Vec2) -> (World, FormationId, FormationId, FormationId) {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(100.0));
    let mut w = World::new(map, WorldSettings::default(), 7).unwrap();
    let centre = Vec2::splat(50.0);
    w.add_formation(line(), None, Vec2::splat(20.0), Vec2::X)
        .unwrap();
    let p = w.add_formation(line(), None, centre, Vec2::X).unwrap();
    let mut squad = |at: Vec2| {
        let s = w.add_formation(line(), Some(p), at, Vec2::X).unwrap();
        for dy in [-0.6, 0.6] {
            let body = Body::new(at + Vec2::new(0.0, dy), 0.5, 3.0, 8.0).unwrap();
            let u = w.add_unit(body).unwrap();
            w.add_member(s, Member::Unit(u)).unwrap();
        }
        s
    };
    let (a, b) = (squad(a_at), squad(b_at));
    (w, p, a, b)
}

/// The order a fresh walk of the tree gives.
fn fresh_order(w: &World) -> Vec<FormationId> {
    let mut order = Vec::new();
    walk_formation_tree(&w.formations, &mut Vec::new(), |id, _| order.push(id));
    order
}

#[test]
fn reordered_squads_are_walked_again_in_their_subtree_only() {
    let mut reorders = 0;
    // Squad `a` north of `b`, then south: one of the two puts the squads in the other
    // order when the platoon's slots are first assigned.
    for (a_y, b_y) in [(56.0, 44.0), (44.0, 56.0)] {
        let (mut w, p, a, b) = platoon(Vec2::new(50.0, a_y), Vec2::new(50.0, b_y));
        w.step(0.05);
        let members = w.formation(p).unwrap().members.clone();
        let reordered = members == [Member::Formation(b), Member::Formation(a)];
        if reordered {
            // The platoon is the second root: only its run is stale.
            assert_eq!(w.scratch.stale_subtrees, [1]);
        } else {
            assert_eq!(members, [Member::Formation(a), Member::Formation(b)]);
            assert!(w.scratch.stale_subtrees.is_empty());
        }
        let (before, walks) = (w.scratch.order.clone(), w.scratch.full_walks);
        w.step(0.05);
        assert!(w.scratch.order_valid);
        assert_eq!(
            w.scratch.full_walks, walks,
            "walked again in place, not from scratch"
        );
        assert!(w.scratch.stale_subtrees.is_empty());
        assert_eq!(w.scratch.order, fresh_order(&w));
        let (ka, kb) = (
            w.scratch.order.iter().position(|&f| f == a).unwrap(),
            w.scratch.order.iter().position(|&f| f == b).unwrap(),
        );
        assert_eq!(ka < kb, members.first() == Some(&Member::Formation(a)));
        if reordered {
            // The kept order changed with the members.
            assert_ne!(before, w.scratch.order);
            reorders += 1;
        }
    }
    // Exactly one placement reordered.
    assert_eq!(reorders, 1);
}

#[test]
fn units_joining_and_leaving_keep_the_order_and_formations_renew_it() {
    let (mut w, p, a, _) = platoon(Vec2::new(50.0, 56.0), Vec2::new(50.0, 44.0));
    w.step(0.05);
    assert!(w.scratch.order_valid);
    let u = w
        .add_unit(Body::new(Vec2::new(45.0, 50.0), 0.5, 3.0, 8.0).unwrap())
        .unwrap();
    w.add_member(a, Member::Unit(u)).unwrap();
    assert!(w.scratch.order_valid, "a unit joining keeps the order");
    assert_eq!(w.remove_member(Member::Unit(u)), Some(a));
    assert!(w.scratch.order_valid, "a unit leaving keeps the order");
    let walks = w.scratch.full_walks;
    let c = w
        .add_formation(line(), None, Vec2::splat(70.0), Vec2::X)
        .unwrap();
    assert!(!w.scratch.order_valid, "a new formation renews it");
    w.step(0.05);
    w.add_member(p, Member::Formation(c)).unwrap();
    assert!(!w.scratch.order_valid, "a formation joining renews it");
    // The platoon's slots are assigned again on this tick, which may reorder its squads
    // (walked again at the start of the next).
    w.step(0.05);
    w.step(0.05);
    assert!(w.scratch.stale_subtrees.is_empty());
    assert_eq!(w.scratch.order, fresh_order(&w));
    assert!(w.scratch.order.contains(&c));
    // One walk of the whole tree after the creation, one after the joining.
    assert_eq!(w.scratch.full_walks, walks + 2);
}
