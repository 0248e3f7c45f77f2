//! Drawing units (squad colour, heading), slot targets with the line from each unit to its
//! slot, formation anchors with their paths, and the formation tree as nested outlines.

use cohort_formation::{FormationId, Member, World};
use glam::Vec2;
use macroquad::shapes::{draw_circle, draw_circle_lines, draw_line};

use super::camera::Camera;
use super::colours::{self, SquadColours, rgb, rgba};
use super::draw_map::{polyline, segment};
use super::layers::{Layer, Layers};

/// Smallest drawn unit radius in pixels (so units stay visible on a large map).
pub const MIN_UNIT_PX: f32 = 4.0;

/// The radius in pixels a unit of `radius` is drawn with.
pub fn unit_px(cam: &Camera, radius: f32) -> f32 {
    cam.px(radius).max(MIN_UNIT_PX)
}

/// Draws slot targets and unit→slot lines.
pub fn draw_slots(cam: &Camera, world: &World, squads: &SquadColours) {
    for (id, u) in world.units() {
        let Some(t) = u.slot_target else { continue };
        let c = squads.unit_rgb(world, id);
        segment(cam, u.body.position, t.position, 1.0, rgba(c, 0.45));
        let p = cam.to_screen(t.position);
        draw_circle_lines(
            p.x,
            p.y,
            unit_px(cam, u.body.radius) * 0.6,
            1.0,
            rgba(c, 0.8),
        );
    }
}

/// Draws the units, and their headings when that layer is on; rings the picked one.
pub fn draw_units(
    cam: &Camera,
    world: &World,
    squads: &SquadColours,
    layers: &Layers,
    picked: Option<cohort_formation::UnitId>,
) {
    for (id, u) in world.units() {
        let p = cam.to_screen(u.body.position);
        let r = unit_px(cam, u.body.radius);
        draw_circle(p.x, p.y, r, rgb(squads.unit_rgb(world, id)));
        if layers.shows(Layer::Headings) {
            let h = u.body.heading;
            let h = Vec2::new(h.x, -h.y);
            let (a, b) = (p + h * (r * 0.5), p + h * (r * 1.8));
            draw_line(a.x, a.y, b.x, b.y, 1.5, rgba(colours::HIGHLIGHT, 0.9));
        }
        if picked == Some(id) {
            draw_circle_lines(p.x, p.y, r + 4.0, 2.0, rgb(colours::HIGHLIGHT));
        }
    }
}

/// Draws every formation's anchor (a chevron along its orientation) and remaining path; for a
/// formation sent to a goal away from the spot it was ordered to, a faint line from its
/// goal to that spot, crossed there.
pub fn draw_anchors(cam: &Camera, world: &World, squads: &SquadColours) {
    for (id, f) in world.formations() {
        let c = squads.formation_rgb(world, id);
        if let Some((ordered, placed)) = f.placed_away() {
            segment(cam, placed, ordered, 1.0, rgba(c, 0.35));
            let s = 3.0 / cam.scale.max(1e-3);
            let (a, b) = (Vec2::new(s, s), Vec2::new(s, -s));
            segment(cam, ordered - a, ordered + a, 1.0, rgba(c, 0.6));
            segment(cam, ordered - b, ordered + b, 1.0, rgba(c, 0.6));
        }
        let rest = f.path.get(f.path_index..).unwrap_or(&[]);
        if !rest.is_empty() {
            segment(cam, f.anchor.position, rest[0], 1.0, rgba(c, 0.7));
            polyline(cam, rest, false, 1.0, rgba(c, 0.7));
            for &w in rest {
                let p = cam.to_screen(w);
                draw_circle(p.x, p.y, 2.0, rgba(c, 0.8));
            }
        }
        let o = f.anchor.orientation;
        let o = if o.length_squared() > 0.0 {
            o.normalize()
        } else {
            Vec2::X
        };
        let side = o.perp();
        let s = 6.0 / cam.scale.max(1e-3);
        let tip = f.anchor.position + o * s;
        let l = f.anchor.position - o * s * 0.6 + side * s * 0.7;
        let r = f.anchor.position - o * s * 0.6 - side * s * 0.7;
        polyline(cam, &[l, tip, r], false, 2.0, rgb(c));
    }
}

/// Draws each formation as an outline around its units, aligned with its anchor; formations
/// higher in the tree get a wider, thicker outline; the selected one is white.
pub fn draw_tree(
    cam: &Camera,
    world: &World,
    squads: &SquadColours,
    selected: Option<FormationId>,
) {
    let mut units = Vec::new();
    for (id, f) in world.formations() {
        units.clear();
        world.units_in(id, &mut units);
        if units.is_empty() {
            continue;
        }
        let o = f.anchor.orientation;
        let ax = if o.length_squared() > 0.0 {
            o.normalize()
        } else {
            Vec2::X
        };
        let ay = ax.perp();
        let origin = f.anchor.position;
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        let mut radius = 0.0f32;
        for u in units.iter().filter_map(|&u| world.unit(u)) {
            let d = u.body.position - origin;
            let local = Vec2::new(d.dot(ax), d.dot(ay));
            lo = lo.min(local);
            hi = hi.max(local);
            radius = radius.max(u.body.radius);
        }
        let level = height(world, id);
        let pad = radius + 0.4 + 0.6 * level as f32;
        let (lo, hi) = (lo - Vec2::splat(pad), hi + Vec2::splat(pad));
        let corner = |x: f32, y: f32| origin + ax * x + ay * y;
        let rect = [
            corner(lo.x, lo.y),
            corner(hi.x, lo.y),
            corner(hi.x, hi.y),
            corner(lo.x, hi.y),
        ];
        let (colour, thickness) = if selected == Some(id) {
            (rgb(colours::HIGHLIGHT), 2.5)
        } else {
            (
                rgba(squads.formation_rgb(world, id), 0.55),
                1.0 + level as f32,
            )
        };
        polyline(cam, &rect, true, thickness, colour);
    }
}

/// Levels of formations below `id` (0 for a squad of units only).
fn height(world: &World, id: FormationId) -> usize {
    fn go(world: &World, id: FormationId, depth: usize) -> usize {
        if depth > 32 {
            return 0;
        }
        world.formation(id).map_or(0, |f| {
            f.members
                .iter()
                .filter_map(|m| match m {
                    Member::Formation(c) => Some(1 + go(world, *c, depth + 1)),
                    Member::Unit(_) => None,
                })
                .max()
                .unwrap_or(0)
        })
    }
    go(world, id, 0)
}
