//! Formation paths through passages: down the middle, and straight in and out.
//!
//! A formation's path is planned with the clearance its pattern needs, or less where no path
//! keeps that (see `World::plan_move`); a path with less clearance hugs the corners of the
//! passages it goes through. A formation closes up into ranks as wide as twice the path's
//! clearance there (see `narrows.rs`), so a path that turns round a gap's corner leaves room
//! for a single file where the gap holds two or three abreast; and a column that turns into
//! the gap at its mouth cuts the corner with its inner file.
//!
//! [`centre_in_passages`] finds, for each stretch of the path narrower than the pattern, the
//! passage's narrowest cross-section: near the stretch's tightest point, the free room on
//! both sides of sections square to the path and turned up to 60 degrees each way (a path may
//! cross a passage at a slant), then turned finer about the narrowest one's middle. The
//! passage's middle line goes through the middles of two sections parallel to that one a
//! metre apart (between parallel walls the middles of parallel chords lie on it, whatever
//! their slant). It then finds how far along the line the passage stays narrow, and replaces
//! the waypoints of the stretch by two on the line, [`LEAD`] metres before the passage and
//! [`LEAD_OUT`] after it, when the new legs keep a unit's clearance. The formation then walks
//! straight down the middle of the passage, and its ranks are as wide as the passage allows.
//! (A path planned again through a gap met at a slant, `slanted_gaps.rs`, asks only the leg
//! down the middle line to keep it: the caller plans the legs into and out of the passage
//! again where they do not.)

use cohort_pathing::{Leg, ValidMap};
use cohort_steering::Vec2;

use super::narrows::point_at;
use super::terrain::PathPlan;

/// Metres of straight path before a passage, on its middle line.
pub(super) const LEAD: f32 = 4.0;

/// Metres of straight path after a passage, on its middle line.
pub(super) const LEAD_OUT: f32 = 1.0;

/// Step (metres) of the samples along a stretch and along a passage.
const STEP: f32 = 0.5;

/// Most samples taken along one narrow stretch, and along a passage each way.
const MAX_SAMPLES: usize = 128;

/// Narrowest cross-section (metres) taken for one: narrower, the point is in the geometry.
const MIN_WIDTH: f32 = 0.1;

/// Most passages one path is centred through.
const MAX_PASSAGES: usize = 8;

/// A passage's cross-section at a point of the path: where its middle is, the path's
/// direction there, and the passage's width.
#[derive(Clone, Copy, Debug)]
struct Section {
    middle: Vec2,
    along: Vec2,
    width: f32,
}

/// How precisely a section's width is measured: [`COARSE`] to find the narrowest section,
/// [`FINE`] to turn it square to the passage.
#[derive(Clone, Copy, Debug)]
struct Precision {
    /// How near the geometry a run stops (metres).
    near: f32,
    /// Most steps of a run.
    steps: usize,
}

/// Within 5 cm, in at most 12 steps.
const COARSE: Precision = Precision {
    near: 0.05,
    steps: 12,
};

/// Within a millimetre, in at most 64 steps: precise enough that the widths of sections
/// turned a tenth of a degree apart tell which is narrower.
const FINE: Precision = Precision {
    near: 1e-3,
    steps: 64,
};

/// The cross-section of the passage at `p`, square across `along` (free room up to `cap` on
/// each side).
fn section(
    map: &ValidMap,
    p: Vec2,
    along: Vec2,
    cap: f32,
    precision: Precision,
) -> Option<Section> {
    let across = along.perp();
    if across == Vec2::ZERO {
        return None;
    }
    let left = run_to_geometry(map, p, across, cap, precision);
    let right = run_to_geometry(map, p, -across, cap, precision);
    // A point in (or on) the geometry has no cross-section.
    if left + right < MIN_WIDTH {
        return None;
    }
    Some(Section {
        middle: p + across * (0.5 * (left - right)),
        along,
        width: left + right,
    })
}

/// How far (at most `cap`) one can go from `p` along the unit direction `dir` before meeting
/// the geometry: steps as long as the clearance where each starts (which never step over
/// it), to within `precision` of it.
fn run_to_geometry(map: &ValidMap, p: Vec2, dir: Vec2, cap: f32, precision: Precision) -> f32 {
    let mut t = 0.0f32;
    for _ in 0..precision.steps {
        let c = map.clearance_capped(p + dir * t, cap - t);
        if !(c > precision.near) {
            break;
        }
        t += c;
        if t >= cap {
            return cap;
        }
    }
    t.min(cap)
}

/// Centres the walking path of `plan` through every passage narrower than `2 × half_width`
/// (the pattern's width), keeping `radius` (a unit's) clear of the geometry (see the
/// module's documentation). `narrows` receives the path's narrow stretches (arc lengths
/// where the clearance is below `half_width`, see [`super::narrows::narrow_stretches`]).
/// Returns whether they still describe the path (it was looked at and kept as it was); when
/// not, the caller finds them again.
pub(super) fn centre_in_passages(
    map: &ValidMap,
    plan: &mut PathPlan,
    half_width: f32,
    radius: f32,
    narrows: &mut Vec<(f32, f32)>,
) -> bool {
    centre_in_passages_with(map, plan, (half_width, radius), narrows, Ends::Straight)
}

/// Whether the legs into and out of a passage, from the waypoint before its stretch to the
/// lead-in and from the lead-out to the waypoint after it, must keep the unit clear as they
/// are ([`Ends::Straight`]), or are planned again afterwards where they do not
/// ([`Ends::PlannedAgain`], see `slanted_gaps.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ends {
    /// Taken only if straight.
    Straight,
    /// Planned again by the caller where they do not keep the unit clear.
    PlannedAgain,
}

/// [`centre_in_passages`], with the legs into and out of each passage held to `ends`.
pub(super) fn centre_in_passages_with(
    map: &ValidMap,
    plan: &mut PathPlan,
    (half_width, radius): (f32, f32),
    narrows: &mut Vec<(f32, f32)>,
    ends: Ends,
) -> bool {
    if plan.points.len() < 2
        || plan.legs.iter().any(|l| *l != Leg::Walk)
        || !(half_width.is_finite() && half_width > 0.0 && radius.is_finite() && radius >= 0.0)
    {
        return false;
    }
    super::narrows::narrow_stretches(
        |p, cap| map.clearance_capped(p, cap),
        &plan.points,
        half_width,
        narrows,
    );
    // From the last stretch back, so the waypoints of earlier ones keep their places. The free
    // room is measured up to the pattern's width on each side: a path along one wall, with
    // that much room on its other side, is not in a passage.
    let cap = 2.0 * half_width;
    let mut unchanged = true;
    for &(s0, s1) in narrows.iter().rev().take(MAX_PASSAGES) {
        let Some(narrowest) = narrowest_section(map, &plan.points, (s0, s1), cap) else {
            continue;
        };
        // One-sided (a path along a wall, open on its other side): nothing to centre in.
        if narrowest.width >= 2.0 * half_width {
            continue;
        }
        let reach_in = passage_extent(map, narrowest, -1.0, 2.0 * half_width, cap);
        let reach_out = passage_extent(map, narrowest, 1.0, 2.0 * half_width, cap);
        let lead_in = narrowest.middle - narrowest.along * (reach_in + LEAD);
        let lead_out = narrowest.middle + narrowest.along * (reach_out + LEAD_OUT);
        unchanged &= !replace_stretch(
            map,
            plan,
            (s0, s1),
            (lead_in, lead_out),
            (radius, cap),
            ends,
        );
    }
    unchanged
}

/// The narrowest cross-section of the passage along the stretch `s0..s1` of `path`: at each
/// sample of the stretch, square to the path and turned up to 60 degrees each way (a path may
/// cross a passage at a slant; the passage's axis is square to its narrowest cross-section),
/// then refined by finer turns about the narrowest one's middle.
fn narrowest_section(
    map: &ValidMap,
    path: &[Vec2],
    (s0, s1): (f32, f32),
    cap: f32,
) -> Option<Section> {
    let steps = (((s1 - s0) / STEP).ceil() as usize).clamp(1, MAX_SAMPLES);
    let mut best: Option<Section> = None;
    let keep = |here: Option<Section>, best: &mut Option<Section>| {
        if let Some(h) = here {
            if best.is_none_or(|b| h.width < b.width - 1e-4) {
                *best = Some(h);
            }
        }
    };
    // The stretch's tightest point (least clearance): the passage's narrowest section lies
    // within [`NEAR_TIGHTEST`] of it along the path (a path crossing a thin wall at a slant
    // is tightest at the gap's corner, a metre or two before the gap's middle).
    let at = |k: usize| s0 + (s1 - s0) * (k as f32 / steps as f32);
    let mut tightest = (f32::INFINITY, s0);
    for k in 0..=steps {
        let c = map.clearance_capped(point_at(path, at(k)), cap);
        if c < tightest.0 {
            tightest = (c, at(k));
        }
    }
    for k in 0..=steps {
        let s = at(k);
        if (s - tightest.1).abs() > NEAR_TIGHTEST {
            continue;
        }
        let p = point_at(path, s);
        let along = (point_at(path, s + STEP) - point_at(path, s - STEP)).normalize_or_zero();
        keep(section(map, p, along, cap, COARSE), &mut best);
        for turn in 1..=COARSE_TURNS {
            for sign in [1.0, -1.0] {
                let along = turned(along, sign * COARSE_STEP * turn as f32);
                keep(section(map, p, along, cap, COARSE), &mut best);
            }
        }
    }
    // Finer turns about the middle found, each half the last, measured finely (the section
    // found first measured again so, to compare like with like).
    let b = best?;
    best = section(map, b.middle, b.along, cap, FINE);
    let mut step = 0.5 * COARSE_STEP;
    for _ in 0..FINE_PASSES {
        let b = best?;
        for sign in [1.0, -1.0] {
            keep(
                section(map, b.middle, turned(b.along, sign * step), cap, FINE),
                &mut best,
            );
        }
        step *= 0.5;
    }
    // The middle line from two parallel sections half a metre apart: between parallel walls
    // the middles of parallel chords lie on it, whatever their slant (the slant itself changes
    // a width by less than its measure tells near square). Both where the passage is: about
    // the narrowest one's middle, or behind or ahead of it.
    let b = best?;
    let parallel = |s: &Section| (s.width - b.width).abs() <= AXIS_SLACK * b.width;
    for (from, to) in [
        (-AXIS_BASE, AXIS_BASE),
        (-2.0 * AXIS_BASE, 0.0),
        (0.0, 2.0 * AXIS_BASE),
    ] {
        let (Some(behind), Some(ahead)) = (
            section(map, b.middle + b.along * from, b.along, cap, FINE),
            section(map, b.middle + b.along * to, b.along, cap, FINE),
        ) else {
            continue;
        };
        if !(parallel(&behind) && parallel(&ahead)) {
            continue;
        }
        if let Some(axis) = (ahead.middle - behind.middle).try_normalize() {
            if axis.dot(b.along) > 0.0 {
                return section(map, 0.5 * (behind.middle + ahead.middle), axis, cap, FINE)
                    .or(best);
            }
        }
    }
    best
}

/// How far along the path (metres) from a narrow stretch's tightest point its narrowest
/// section is looked for.
const NEAR_TIGHTEST: f32 = 3.0;

/// Half the distance (metres) between the two sections that give a passage's middle line.
const AXIS_BASE: f32 = 0.5;

/// Most a section either side may differ in width from the narrowest, as a fraction of it,
/// for the two to be taken as chords between the same parallel walls.
const AXIS_SLACK: f32 = 0.02;

/// `v` turned by `angle` radians (counter-clockwise).
fn turned(v: Vec2, angle: f32) -> Vec2 {
    let (sin, cos) = cohort_steering::ops::sin_cos(angle);
    Vec2::new(cos, sin).rotate(v)
}

/// Turns each way from the path's direction at each sample (up to 60 degrees), and their
/// step (radians).
const COARSE_TURNS: usize = 4;
const COARSE_STEP: f32 = core::f32::consts::FRAC_PI_3 / COARSE_TURNS as f32;

/// Passes of finer turns about the narrowest section found, each turning half as far as the
/// last (from half a coarse step: the last turns by about a tenth of a degree).
const FINE_PASSES: usize = 8;

/// How far from the middle of `narrowest`, forwards (`sign` 1) or backwards (-1) along the
/// passage, its cross-section stays narrower than `wide`.
fn passage_extent(map: &ValidMap, narrowest: Section, sign: f32, wide: f32, cap: f32) -> f32 {
    let mut t = 0.0;
    for _ in 0..MAX_SAMPLES {
        let p = narrowest.middle + narrowest.along * (sign * (t + STEP));
        match section(map, p, narrowest.along, cap, COARSE) {
            Some(s) if s.width < wide => t += STEP,
            _ => break,
        }
    }
    t
}

/// Replaces the waypoints of `plan` within the stretch `s0..s1` (arc lengths) by `lead_in`
/// and `lead_out`, when the legs from the waypoint before the stretch to `lead_in`, on to
/// `lead_out` and on to the waypoint after it go forwards and keep `radius` clear. With
/// [`Ends::PlannedAgain`] only the leg down the middle line must keep it clear, and from the
/// path's start the first leg may step back to `lead_in` (see the body). Returns whether it
/// did.
fn replace_stretch(
    map: &ValidMap,
    plan: &mut PathPlan,
    (s0, s1): (f32, f32),
    (lead_in, lead_out): (Vec2, Vec2),
    (radius, cap): (f32, f32),
    ends: Ends,
) -> bool {
    let points = &plan.points;
    // Arc length at each waypoint: the last before the stretch and the first after it.
    let mut s = 0.0;
    let mut before = 0;
    let mut after = points.len() - 1;
    for (k, w) in points.windows(2).enumerate() {
        if s < s0 {
            before = k;
        }
        s += (w[1] - w[0]).length();
        if s > s1 {
            after = k + 1;
            break;
        }
    }
    let (Some(&from), Some(&to)) = (points.get(before), points.get(after)) else {
        return false;
    };
    let along = (lead_out - lead_in).normalize_or_zero();
    // A path whose legs into and out of the passage are planned again afterwards may, from
    // its start (where the body stands), step back to the lead-in while it stands short of
    // the passage's mouth: a unit beside a gap (a member's detour to its slot beyond it)
    // first steps out onto the middle line.
    let planned_again = ends == Ends::PlannedAgain;
    let ahead = |p: Vec2| (p - from).dot(along) > 0.0;
    let step_back = planned_again && before == 0 && ahead(lead_in + along * LEAD);
    let forwards = (ahead(lead_in) || step_back) && (to - lead_out).dot(along) > 0.0;
    if after <= before
        || !forwards
        || (!planned_again && !map.line_of_sight(from, lead_in, radius))
        || !map.line_of_sight(lead_in, lead_out, radius)
        || (!planned_again && !map.line_of_sight(lead_out, to, radius))
    {
        return false;
    }
    let leg_clearance = |a: Vec2, b: Vec2| {
        let steps = (((b - a).length() / STEP).ceil() as usize).clamp(1, MAX_SAMPLES);
        (0..=steps)
            .map(|k| map.clearance_capped(a.lerp(b, k as f32 / steps as f32), cap))
            .fold(cap, f32::min)
    };
    let clearances = [
        leg_clearance(from, lead_in),
        leg_clearance(lead_in, lead_out),
        leg_clearance(lead_out, to),
    ];
    plan.points.splice(before + 1..after, [lead_in, lead_out]);
    plan.legs.splice(before + 1..after, [Leg::Walk, Leg::Walk]);
    // The clearance of the leg ending at each waypoint.
    if plan.clearance.len() == plan.points.len() + after - before - 1 - 2 {
        plan.clearance.splice(before + 1..=after, clearances);
    }
    true
}

#[cfg(test)]
mod tests;
