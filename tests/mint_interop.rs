//! The `mint` feature: `cohort::Vec2` converts to and from `mint::Vector2<f32>` and
//! `mint::Point2<f32>` with `.into()`, so a game on any glam version (built with glam's own
//! `mint` feature), or on another math crate that speaks mint, hands positions to the world
//! and reads them back without writing `x` and `y` out. Run with
//! `cargo test -p cohort --features mint --test mint_interop`.
#![cfg(feature = "mint")]

use cohort::mint;
use cohort::prelude::*;

#[test]
fn positions_go_in_and_come_out_through_mint() {
    // What a game's own vector type turns into with `.into()` (its glam's `mint` feature).
    let from_game = mint::Vector2 {
        x: 12.5f32,
        y: -3.25,
    };
    let at: Vec2 = from_game.into();
    assert_eq!(at, Vec2::new(12.5, -3.25));
    let map = Map::with_bounds(Vec2::splat(-50.0), Vec2::splat(50.0));
    let mut world = World::new(map, WorldSettings::default(), 3).expect("world");
    let unit = world
        .add_unit(Body::new(from_game.into(), 0.5, 3.0, 8.0).expect("body"))
        .expect("unit");
    let goal = mint::Point2 { x: 20.0f32, y: 4.0 };
    world
        .set_unit_position(unit, goal.into())
        .expect("a finite position");
    let back: mint::Vector2<f32> = world.unit(unit).expect("unit").body.position.into();
    assert_eq!((back.x, back.y), (20.0, 4.0));
}
