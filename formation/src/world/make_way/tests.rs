//! Make way's skipping of formations whose slot targets lie clear of a lane.

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
