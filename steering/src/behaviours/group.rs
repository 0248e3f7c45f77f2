//! Group behaviours over a neighbourhood: separation, alignment, cohesion and flocking.
//!
//! Neighbours are passed by the caller (typically gathered from a spatial grid) as any
//! iterator of `&Body`. The caller should pass neighbours *excluding* the body itself; as a
//! safety net, a neighbour that is the very same object as `body` (same address,
//! [`core::ptr::eq`]) is skipped, so passing the whole slice the body lives in also works. A
//! *copy* of the body, or another body at exactly the same position, is a real neighbour: it
//! is in the neighbourhood (distance 0 needs no field-of-view test) and separation pushes away
//! from it deterministically (see [`separation`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::behaviours::seek::seek;
use crate::behaviours::wander::{WanderParams, WanderState, wander};
use crate::body::Body;
use crate::ops;
use crate::random::SimRng;

/// Distances below this count as this much in [`separation`] (caps the `1/distance` push).
pub const MIN_SEPARATION_DISTANCE: f32 = 0.01;

/// How a neighbour's push in [`separation_with`] fades with distance: one separation
/// behaviour, two falloffs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum SeparationFalloff {
    /// `1 / distance` (distances below [`MIN_SEPARATION_DISTANCE`] count as that) from every
    /// neighbour of the [`Neighbourhood`]: the classic boids push ([`separation`]).
    InverseDistance,
    /// 1 when the centres meet, falling linearly to 0 at the comfort distance
    /// `range × (r_body + r_neighbour)`; nothing beyond it. The formation world's separation
    /// (`range` is its `separation_range`): bodies keep a gap in proportion to their sizes and
    /// the push never exceeds 1 (times the caller's weight).
    Linear {
        /// Comfort distance as a multiple of the sum of both radii.
        range: f32,
    },
}

impl SeparationFalloff {
    /// Whether two bodies whose radii sum to `radii` and whose centres are `d_sq` apart
    /// (squared) push each other: always for [`Self::InverseDistance`] (the neighbourhood
    /// decides), within the comfort distance for [`Self::Linear`].
    #[inline]
    pub fn within(&self, d_sq: f32, radii: f32) -> bool {
        match *self {
            Self::InverseDistance => true,
            Self::Linear { range } => {
                let comfort = radii * range;
                d_sq < comfort * comfort
            }
        }
    }

    /// The push along the unit vector `dir` (from the neighbour to the body) at distance `d`
    /// between bodies whose radii sum to `radii`; callers test [`Self::within`] first.
    #[inline]
    pub fn push(&self, dir: Vec2, d: f32, radii: f32) -> Vec2 {
        match *self {
            Self::InverseDistance => dir / d.max(MIN_SEPARATION_DISTANCE),
            Self::Linear { range } => {
                let comfort = radii * range;
                dir * ((comfort - d) / comfort)
            }
        }
    }
}

/// Which other bodies a body reacts to: those within `radius` and, optionally, inside a
/// field of view around its heading.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Neighbourhood {
    /// Largest centre-to-centre distance of a neighbour (inclusive).
    pub radius: f32,
    /// Half-angle of the field of view in radians around the heading (`None` or a value of
    /// π or more: all around). A body behind its viewer is not seen.
    pub fov: Option<f32>,
}

impl Default for Neighbourhood {
    /// Radius 5, all around.
    fn default() -> Self {
        Self {
            radius: 5.0,
            fov: None,
        }
    }
}

/// A [`Neighbourhood`] with its cosine computed once.
#[derive(Clone, Copy, Debug)]
struct View {
    radius_sq: f32,
    min_cos: Option<f32>,
}

impl View {
    fn new(hood: &Neighbourhood) -> Option<Self> {
        if hood.radius.is_nan() || hood.radius < 0.0 {
            return None;
        }
        let min_cos = match hood.fov {
            Some(half) if half.is_nan() || half < 0.0 => return None,
            Some(half) if half < core::f32::consts::PI => Some(ops::cos(half)),
            _ => None,
        };
        Some(Self {
            radius_sq: hood.radius * hood.radius,
            min_cos,
        })
    }

    fn sees(&self, body: &Body, other: Vec2) -> bool {
        let d = other - body.position;
        let dist_sq = d.length_squared();
        if dist_sq.is_nan() || dist_sq > self.radius_sq {
            return false;
        }
        match (self.min_cos, d.try_normalize()) {
            (Some(min_cos), Some(dir)) => dir.dot(body.heading) >= min_cos,
            _ => true,
        }
    }
}

impl Neighbourhood {
    /// Whether a body at `other` is a neighbour of `body`: within `radius` (inclusive) and, with
    /// a field of view, at most `fov` radians off the heading. A point at `body`'s own position
    /// is contained (it has no direction to test). A NaN or negative radius or field of view
    /// contains nothing.
    pub fn contains(&self, body: &Body, other: Vec2) -> bool {
        View::new(self).is_some_and(|v| v.sees(body, other))
    }
}

/// What one pass over the neighbours adds up.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    push: Vec2,
    heading: Vec2,
    headings: u32,
    position: Vec2,
    count: u32,
}

fn sum_neighbours<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    hood: &Neighbourhood,
    falloff: SeparationFalloff,
) -> Sums {
    let mut sums = Sums::default();
    let Some(view) = View::new(hood) else {
        return sums;
    };
    for n in neighbours {
        if core::ptr::eq(n, body) || !n.position.is_finite() || !view.sees(body, n.position) {
            continue;
        }
        sums.count += 1;
        sums.position += n.position;
        if n.heading.is_finite() {
            sums.heading += n.heading;
            sums.headings += 1;
        }
        let away = body.position - n.position;
        let radii = body.radius + n.radius;
        if !falloff.within(away.length_squared(), radii) {
            continue;
        }
        let dist = away.length();
        let dir = away.try_normalize().or_else(|| {
            (body.velocity - n.velocity)
                .try_normalize()
                .or_else(|| (-body.heading).try_normalize())
        });
        if let Some(dir) = dir {
            sums.push += falloff.push(dir, dist, radii);
        }
    }
    sums
}

fn separation_of(sums: &Sums) -> Vec2 {
    if sums.push.is_finite() {
        sums.push
    } else {
        Vec2::ZERO
    }
}

fn alignment_of(body: &Body, sums: &Sums) -> Vec2 {
    if sums.headings == 0 {
        return Vec2::ZERO;
    }
    let f = sums.heading / sums.headings as f32 - body.heading;
    if f.is_finite() { f } else { Vec2::ZERO }
}

fn cohesion_of(body: &Body, sums: &Sums) -> Vec2 {
    if sums.count == 0 {
        return Vec2::ZERO;
    }
    seek(body, sums.position / sums.count as f32)
}

/// Pushes away from every neighbour with a force along the direction from it to the body,
/// of magnitude `1 / distance` (distances below [`MIN_SEPARATION_DISTANCE`] count as that).
///
/// A neighbour at exactly the body's position pushes along the relative velocity
/// (`body.velocity - neighbour.velocity`) or, when that is zero too, backwards along the
/// body's heading: deterministic, never NaN, and two such bodies with different velocities or
/// headings move apart. Zero with no neighbours.
pub fn separation<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    hood: &Neighbourhood,
) -> Vec2 {
    separation_with(body, neighbours, hood, SeparationFalloff::InverseDistance)
}

/// Separation with a chosen [`SeparationFalloff`]: the sum over the neighbours (those of
/// `hood` that `falloff` reaches) of [`SeparationFalloff::push`] away from each. A neighbour
/// at the body's position pushes as in [`separation`]. The formation world sums the same
/// pushes with [`SeparationFalloff::Linear`] over neighbour pairs from its grid, one pass
/// serving both units of a pair.
pub fn separation_with<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    hood: &Neighbourhood,
    falloff: SeparationFalloff,
) -> Vec2 {
    separation_of(&sum_neighbours(body, neighbours, hood, falloff))
}

/// Turns towards the neighbours' mean heading: average neighbour heading minus own heading.
/// Zero with no neighbours.
pub fn alignment<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    hood: &Neighbourhood,
) -> Vec2 {
    alignment_of(
        body,
        &sum_neighbours(body, neighbours, hood, SeparationFalloff::InverseDistance),
    )
}

/// Seeks the neighbours' centre of mass (mean position). Zero with no neighbours or when the
/// body already is at the centre.
pub fn cohesion<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    hood: &Neighbourhood,
) -> Vec2 {
    cohesion_of(
        body,
        &sum_neighbours(body, neighbours, hood, SeparationFalloff::InverseDistance),
    )
}

/// Weights of the four behaviours [`flocking`] sums.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlockingWeights {
    /// Weight of [`separation`].
    pub separation: f32,
    /// Weight of [`alignment`].
    pub alignment: f32,
    /// Weight of [`cohesion`].
    pub cohesion: f32,
    /// Weight of [`wander`], which keeps isolated agents moving.
    pub wander: f32,
}

impl Default for FlockingWeights {
    /// Separation 2, alignment 1, cohesion 0.5, wander 0.3.
    fn default() -> Self {
        Self {
            separation: 2.0,
            alignment: 1.0,
            cohesion: 0.5,
            wander: 0.3,
        }
    }
}

/// Everything [`flocking`] is tuned by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlockingParams {
    /// Who counts as a neighbour.
    pub neighbourhood: Neighbourhood,
    /// How much each behaviour counts.
    pub weights: FlockingWeights,
    /// The wander circle.
    pub wander: WanderParams,
}

/// Flocks: the weighted sum of [`separation`], [`alignment`], [`cohesion`] (one pass over the
/// neighbours) and [`wander`] (which always draws its two random numbers, whatever its
/// weight, so the random stream does not depend on the weights). Not truncated.
pub fn flocking<'a>(
    body: &Body,
    neighbours: impl IntoIterator<Item = &'a Body>,
    params: &FlockingParams,
    wander_state: &mut WanderState,
    rng: &mut SimRng,
    dt: f32,
) -> Vec2 {
    let sums = sum_neighbours(
        body,
        neighbours,
        &params.neighbourhood,
        SeparationFalloff::InverseDistance,
    );
    let w = &params.weights;
    let roam = wander(body, wander_state, &params.wander, rng, dt);
    let force = separation_of(&sums) * w.separation
        + alignment_of(body, &sums) * w.alignment
        + cohesion_of(body, &sums) * w.cohesion
        + roam * w.wander;
    if force.is_finite() { force } else { Vec2::ZERO }
}

#[cfg(test)]
#[path = "group_tests.rs"]
mod tests;
