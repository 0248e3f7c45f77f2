//! Paths of waypoints and following them.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::behaviours::seek::{ArriveParams, arrive, seek};
use crate::body::Body;
use crate::error::{SteeringError, check_finite_vec};

/// A series of waypoints, open (ends at the last) or looped (the last leads back to the
/// first).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Path {
    /// The points to visit, in order.
    pub waypoints: Vec<Vec2>,
    /// Whether the path returns from the last waypoint to the first.
    pub looped: bool,
}

impl Path {
    /// A validated path: at least one waypoint, all finite.
    pub fn new(waypoints: Vec<Vec2>, looped: bool) -> Result<Self, SteeringError> {
        let path = Self { waypoints, looped };
        path.validate()?;
        Ok(path)
    }

    /// Checks that the path has at least one waypoint and all of them are finite.
    pub fn validate(&self) -> Result<(), SteeringError> {
        if self.waypoints.is_empty() {
            return Err(SteeringError::NotPositive {
                what: "waypoint count",
                value: 0.0,
            });
        }
        for &p in &self.waypoints {
            check_finite_vec("waypoint", p)?;
        }
        Ok(())
    }

    /// Index of the waypoint after `index`: wraps to 0 on a looped path; `None` at the end of
    /// an open path (or past the end).
    #[inline]
    pub fn next_index(&self, index: usize) -> Option<usize> {
        let n = self.waypoints.len();
        if index + 1 < n {
            Some(index + 1)
        } else if self.looped && n > 0 {
            Some(0)
        } else {
            None
        }
    }

    /// Whether `index` is the last waypoint of an open path.
    #[inline]
    pub fn is_last(&self, index: usize) -> bool {
        !self.looped && index + 1 >= self.waypoints.len()
    }
}

/// Progress of a body along a [`Path`], carried from tick to tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PathFollower {
    /// Index of the waypoint currently steered to.
    pub current: usize,
    /// Distance within which the current waypoint counts as reached and the next is taken.
    pub seek_distance: f32,
}

impl Default for PathFollower {
    /// At the first waypoint, seek distance 0.5.
    fn default() -> Self {
        Self {
            current: 0,
            seek_distance: 0.5,
        }
    }
}

impl PathFollower {
    /// A follower starting at the first waypoint with the given seek distance.
    pub fn new(seek_distance: f32) -> Self {
        Self {
            current: 0,
            seek_distance,
        }
    }

    /// Whether the follower is on the last waypoint of an open path (it then arrives there).
    pub fn on_last(&self, path: &Path) -> bool {
        path.is_last(self.current)
    }
}

/// Follows `path`: while the current waypoint is within `follower.seek_distance`, moves on to
/// the next (wrapping on a looped path, at most once round per call); then seeks the current
/// waypoint, or arrives at it when it is the last of an open path.
///
/// An out-of-range `follower.current` is clamped to the last waypoint. Zero for an empty path
/// or a non-finite waypoint.
pub fn follow_path(
    body: &Body,
    path: &Path,
    follower: &mut PathFollower,
    arrive_params: &ArriveParams,
) -> Vec2 {
    let n = path.waypoints.len();
    if n == 0 {
        return Vec2::ZERO;
    }
    follower.current = follower.current.min(n - 1);
    let reach = if follower.seek_distance.is_finite() {
        follower.seek_distance.max(0.0)
    } else {
        0.0
    };
    for _ in 0..n {
        let Some(&point) = path.waypoints.get(follower.current) else {
            break;
        };
        if point.distance_squared(body.position) > reach * reach {
            break;
        }
        match path.next_index(follower.current) {
            Some(next) => follower.current = next,
            None => break,
        }
    }
    let Some(&point) = path.waypoints.get(follower.current) else {
        return Vec2::ZERO;
    };
    if follower.on_last(path) {
        arrive(body, point, arrive_params)
    } else {
        seek(body, point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    fn square(looped: bool) -> Path {
        Path::new(
            vec![
                Vec2::new(5.0, 0.0),
                Vec2::new(5.0, 5.0),
                Vec2::new(0.0, 5.0),
                Vec2::new(0.0, 0.0),
            ],
            looped,
        )
        .unwrap()
    }

    #[test]
    fn validates_and_indexes() {
        assert!(Path::new(vec![], false).is_err());
        assert!(Path::new(vec![Vec2::new(f32::NAN, 0.0)], true).is_err());
        let open = square(false);
        assert_eq!(open.next_index(2), Some(3));
        assert_eq!(open.next_index(3), None);
        assert!(open.is_last(3));
        let looped = square(true);
        assert_eq!(looped.next_index(3), Some(0));
        assert!(!looped.is_last(3));
        let back: Path = ron::from_str(&ron::to_string(&looped).unwrap()).unwrap();
        assert_eq!(back, looped);
    }

    #[test]
    fn seeks_current_and_advances_within_seek_distance() {
        let path = square(false);
        let mut f = PathFollower::new(0.5);
        let b = body_at(Vec2::ZERO);
        assert_eq!(
            follow_path(&b, &path, &mut f, &ArriveParams::default()),
            seek(&b, Vec2::new(5.0, 0.0))
        );
        assert_eq!(f.current, 0);
        let near = body_at(Vec2::new(4.7, 0.1));
        let force = follow_path(&near, &path, &mut f, &ArriveParams::default());
        assert_eq!(f.current, 1);
        assert_eq!(force, seek(&near, Vec2::new(5.0, 5.0)));
    }

    #[test]
    fn open_path_ends_stopped_at_last_point() {
        let path = square(false);
        let mut f = PathFollower::new(0.5);
        let mut b = body_at(Vec2::new(-1.0, -1.0));
        let mut visited = [false; 4];
        for _ in 0..(30.0 / DT) as usize {
            let force = follow_path(&b, &path, &mut f, &ArriveParams::default());
            visited[f.current] = true;
            step(&mut b, force, DT);
        }
        assert_eq!(visited, [true; 4]);
        assert_eq!(f.current, 3);
        assert!(b.position.distance(Vec2::ZERO) < 0.05, "{}", b.position);
        assert!(b.speed() < 0.05);
    }

    #[test]
    fn looped_path_comes_back_to_first_waypoint() {
        let path = square(true);
        let mut f = PathFollower::new(0.5);
        let mut b = body_at(Vec2::new(-1.0, -1.0));
        let mut wrapped = false;
        let mut reached_first_again = false;
        let mut prev = f.current;
        for _ in 0..(30.0 / DT) as usize {
            let force = follow_path(&b, &path, &mut f, &ArriveParams::default());
            if prev == 3 && f.current == 0 {
                wrapped = true;
            }
            prev = f.current;
            if wrapped && b.position.distance(path.waypoints[0]) < 0.5 {
                reached_first_again = true;
            }
            step(&mut b, force, DT);
        }
        assert!(wrapped && reached_first_again);
        // Still moving: a loop never ends.
        assert!(b.speed() > 1.0);
    }

    #[test]
    fn degenerate_inputs() {
        let b = body_at(Vec2::ZERO);
        let mut f = PathFollower {
            current: 99,
            seek_distance: f32::NAN,
        };
        assert_eq!(
            follow_path(&b, &Path::default(), &mut f, &ArriveParams::default()),
            Vec2::ZERO
        );
        let path = square(false);
        let force = follow_path(&b, &path, &mut f, &ArriveParams::default());
        assert_eq!(f.current, 3);
        assert!(force.is_finite());
        // All waypoints within reach on a loop: goes round at most once, no hang.
        let tiny = Path::new(vec![Vec2::ZERO, Vec2::new(0.1, 0.0)], true).unwrap();
        let mut g = PathFollower::new(1.0);
        assert!(follow_path(&b, &tiny, &mut g, &ArriveParams::default()).is_finite());
    }
}
