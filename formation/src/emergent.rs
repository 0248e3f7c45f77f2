//! Emergent formations: no fixed layout; every member picks its target from the others.
//!
//! The rule (Millington's emergent formation, made into a V): the member furthest ahead along
//! the group's direction of travel is the leader. It offers two follower positions, behind-left
//! and behind-right. Taking the others from front to back, each member takes the free follower
//! position at the end of the shorter arm, or the nearer of the two when the arms are equal;
//! whoever takes a left position then offers one further behind-left, whoever takes a right
//! position one further behind-right. The group therefore grows two arms from the leader, a V
//! whose arms differ by at most one member (without the balance rule a V degenerates into an
//! echelon, a stable but one-armed arrangement), and since every target hangs off a member's *current* position, the
//! members avoid obstacles individually and the shape re-forms around them.
//!
//! The group direction is given by the caller (the order's direction of travel), not read from
//! the members' headings, so the targets do not spin with individual turns.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::pattern::PatternError;
use crate::pattern::error::check_positive;

/// Shape of the emergent V (plain data; checked by [`EmergentConfig::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EmergentConfig {
    /// Distance a follower stands behind the member it follows (finite, > 0).
    pub behind: f32,
    /// Distance a follower stands to the side of the member it follows (finite, > 0).
    pub side: f32,
}

impl Default for EmergentConfig {
    /// Followers 0.9 back and 1.2 aside: 1.5 from the member they follow (three radii of a
    /// man-sized unit).
    fn default() -> Self {
        Self {
            behind: 0.9,
            side: 1.2,
        }
    }
}

impl EmergentConfig {
    /// Checks that both distances are finite and positive.
    pub fn validate(&self) -> Result<Self, PatternError> {
        check_positive("behind", self.behind)?;
        check_positive("side", self.side)?;
        Ok(*self)
    }
}

/// The target of one member.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmergentTarget {
    /// Where the member should go (the leader's is its own position).
    pub position: Vec2,
    /// The member it follows; `None` for the leader.
    pub follows: Option<usize>,
    /// Which arm it is on: `-1` right, `0` the leader, `1` left.
    pub arm: i8,
}

/// Reusable buffers of [`emergent_targets`].
#[derive(Clone, Debug, Default)]
pub struct EmergentScratch {
    order: Vec<usize>,
}

/// Computes the target of every member from their `positions` for a group travelling along
/// `forward` (normalized; a zero or non-finite direction means `+x`), writing `out` (one per
/// member, replacing its contents). Deterministic: ties are broken by member index. Members
/// with non-finite positions are left out of the V: their target is their own position.
pub fn emergent_targets(
    positions: &[Vec2],
    forward: Vec2,
    config: &EmergentConfig,
    scratch: &mut EmergentScratch,
    out: &mut Vec<EmergentTarget>,
) {
    let forward = if forward.is_finite() {
        forward.try_normalize().unwrap_or(Vec2::X)
    } else {
        Vec2::X
    };
    let left = forward.perp();
    out.clear();
    out.extend(positions.iter().map(|&p| EmergentTarget {
        position: if p.is_finite() { p } else { Vec2::ZERO },
        follows: None,
        arm: 0,
    }));
    let order = &mut scratch.order;
    order.clear();
    order.extend((0..positions.len()).filter(|&i| positions[i].is_finite()));
    // Front to back; equal projections by index.
    order.sort_unstable_by(|&a, &b| {
        let (pa, pb) = (positions[a].dot(forward), positions[b].dot(forward));
        pb.total_cmp(&pa).then(a.cmp(&b))
    });
    let Some(&leader) = order.first() else {
        return;
    };
    let back = -forward * config.behind;
    // The free follower position at the end of each arm, (member it follows, side), and how
    // many members each arm has.
    let mut ends = [(leader, 1i8), (leader, -1i8)];
    let mut lengths = [0usize; 2];
    for &member in order.iter().skip(1) {
        let here = positions[member];
        let slot_of =
            |(of, arm): (usize, i8)| positions[of] + back + left * (config.side * f32::from(arm));
        // The shorter arm if they differ, else the nearer end (ties to the left).
        let which = if lengths[0] != lengths[1] {
            usize::from(lengths[1] < lengths[0])
        } else {
            let d_left = here.distance_squared(slot_of(ends[0]));
            let d_right = here.distance_squared(slot_of(ends[1]));
            usize::from(d_right < d_left)
        };
        let end = ends[which];
        out[member] = EmergentTarget {
            position: slot_of(end),
            follows: Some(end.0),
            arm: end.1,
        };
        ends[which] = (member, end.1);
        lengths[which] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_steering::{SimRng, truncate};

    #[test]
    fn three_members_make_a_v() {
        let positions = [
            Vec2::new(0.0, 0.0),
            Vec2::new(-3.0, 2.0),
            Vec2::new(-3.0, -2.0),
        ];
        let mut out = Vec::new();
        let config = EmergentConfig::default();
        emergent_targets(
            &positions,
            Vec2::X,
            &config,
            &mut EmergentScratch::default(),
            &mut out,
        );
        assert_eq!(out[0].follows, None);
        assert_eq!(out[0].position, positions[0]);
        assert_eq!((out[1].follows, out[1].arm), (Some(0), 1));
        assert_eq!((out[2].follows, out[2].arm), (Some(0), -1));
        assert!((out[1].position - Vec2::new(-0.9, 1.2)).length() < 1e-6);
        assert!((out[2].position - Vec2::new(-0.9, -1.2)).length() < 1e-6);
    }

    #[test]
    fn degenerate_input_is_handled() {
        let mut out = Vec::new();
        let mut scratch = EmergentScratch::default();
        let config = EmergentConfig::default();
        emergent_targets(&[], Vec2::X, &config, &mut scratch, &mut out);
        assert!(out.is_empty());
        let positions = [Vec2::NAN, Vec2::ZERO, Vec2::new(-1.0, 0.0)];
        emergent_targets(&positions, Vec2::NAN, &config, &mut scratch, &mut out);
        assert_eq!(out[0].follows, None);
        assert_eq!(out[1].follows, None);
        assert_eq!(out[2].follows, Some(1));
        assert!(out.iter().all(|t| t.position.is_finite()));
        assert!(
            EmergentConfig {
                behind: 0.0,
                side: 1.0
            }
            .validate()
            .is_err()
        );
    }

    /// A minimal arrive: desired velocity toward the target, slowing inside `slow`, as a
    /// force truncated to `max_force`; Euler integration with the speed truncated.
    fn arrive_step(pos: &mut Vec2, vel: &mut Vec2, target: Vec2, dt: f32) {
        const MAX_SPEED: f32 = 3.0;
        const MAX_FORCE: f32 = 6.0;
        const SLOW: f32 = 2.0;
        let to = target - *pos;
        let dist = to.length();
        let desired = if dist > 1e-6 {
            to / dist * MAX_SPEED * (dist / SLOW).min(1.0)
        } else {
            Vec2::ZERO
        };
        let force = truncate(desired - *vel, MAX_FORCE);
        *vel = truncate(*vel + force * dt, MAX_SPEED);
        *pos += *vel * dt;
    }

    #[test]
    fn members_from_random_starts_settle_into_a_connected_v() {
        const RADIUS: f32 = 0.5;
        const N: usize = 9;
        const DT: f32 = 1.0 / 60.0;
        let config = EmergentConfig::default();
        for seed in 0..8 {
            let mut rng = SimRng::seed_from(seed);
            let mut pos: Vec<Vec2> = (0..N)
                .map(|_| Vec2::new(rng.range(-10.0, 10.0), rng.range(-10.0, 10.0)))
                .collect();
            let mut vel = [Vec2::ZERO; N];
            let mut scratch = EmergentScratch::default();
            let mut targets = Vec::new();
            let steps = 60 * 40;
            let window = 120;
            for step in 0..steps {
                emergent_targets(&pos, Vec2::X, &config, &mut scratch, &mut targets);
                for i in 0..N {
                    arrive_step(&mut pos[i], &mut vel[i], targets[i].position, DT);
                }
                if step >= steps - window {
                    for i in 0..N {
                        let off = pos[i].distance(targets[i].position);
                        assert!(off < 0.1, "seed {seed} step {step}: member {i} {off} off");
                        for j in i + 1..N {
                            let d = pos[i].distance(pos[j]);
                            assert!(d >= 2.0 * RADIUS, "seed {seed}: {i} and {j} at {d}");
                        }
                    }
                }
            }
            // Connected: following the chain from anyone reaches the leader; the V has both
            // arms and every follower is behind the leader on its arm's side.
            let leader = targets.iter().position(|t| t.follows.is_none()).unwrap();
            assert_eq!(targets.iter().filter(|t| t.follows.is_none()).count(), 1);
            for i in 0..N {
                let (mut at, mut hops) = (i, 0);
                while let Some(next) = targets[at].follows {
                    at = next;
                    hops += 1;
                    assert!(hops <= N, "cycle");
                }
                assert_eq!(at, leader);
                if i != leader {
                    let rel = pos[i] - pos[leader];
                    assert!(rel.x < -0.5, "seed {seed}: {i} not behind");
                    assert!(
                        rel.y * f32::from(targets[i].arm) > 0.5,
                        "seed {seed}: {i} side"
                    );
                }
            }
            // Balanced arms: 4 and 4 behind the leader.
            let lefts = targets.iter().filter(|t| t.arm == 1).count();
            let rights = targets.iter().filter(|t| t.arm == -1).count();
            assert_eq!((lefts, rights), (4, 4), "seed {seed}");
        }
    }
}
