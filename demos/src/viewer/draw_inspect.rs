//! Drawing what the inspector sees of the picked unit: its steering forces as arrows, its
//! context maps as rays (interest outward in green, danger in red) with the decision, its
//! target and detour.

use glam::Vec2;
use macroquad::color::Color;
use macroquad::shapes::{draw_circle, draw_line};

use super::camera::Camera;
use super::colours::{self, rgb, rgba};
use super::draw_map::polyline;
use super::inspect::Inspection;
use super::layers::{Layer, Layers};

/// Length in pixels of a force equal to the unit's `max_force`.
pub const FORCE_PX: f32 = 48.0;
/// Length in pixels of a context ray of value 1.
pub const RAY_PX: f32 = 56.0;

/// Colours of the force arrows: wall, obstacle, separation, arrive, total.
pub const FORCE_COLOURS: [[u8; 3]; 5] = [
    [200, 200, 210],
    [255, 150, 40],
    [60, 210, 230],
    [120, 230, 100],
    [255, 230, 60],
];

fn arrow(from: Vec2, vector_px: Vec2, thickness: f32, colour: Color) {
    if !(vector_px.length() > 0.5) {
        return;
    }
    let to = from + vector_px;
    draw_line(from.x, from.y, to.x, to.y, thickness, colour);
    let back = -vector_px.normalize() * 6.0;
    for side in [
        back.rotate(Vec2::new(0.87, 0.5)),
        back.rotate(Vec2::new(0.87, -0.5)),
    ] {
        draw_line(to.x, to.y, to.x + side.x, to.y + side.y, thickness, colour);
    }
}

/// Screen direction of a world vector (y flipped).
fn screen(v: Vec2) -> Vec2 {
    Vec2::new(v.x, -v.y)
}

/// Draws the picked unit's debug layers that are on.
pub fn draw_inspection(cam: &Camera, seen: &Inspection, layers: &Layers) {
    let p = cam.to_screen(seen.body.position);
    if layers.shows(Layer::Context) {
        let step = seen.interest.len().max(1) as f32;
        let nudge = std::f32::consts::PI / step * 0.25;
        let (s, c) = cohort_steering::ops::sin_cos(nudge);
        for ray in &seen.interest {
            let d = screen(ray.direction).rotate(Vec2::new(c, -s));
            let to = p + d * (ray.value * RAY_PX);
            draw_line(p.x, p.y, to.x, to.y, 2.0, rgba(colours::INTEREST, 0.85));
        }
        for ray in &seen.danger {
            let d = screen(ray.direction).rotate(Vec2::new(c, s));
            let to = p + d * (ray.value * RAY_PX);
            draw_line(p.x, p.y, to.x, to.y, 2.0, rgba(colours::DANGER, 0.85));
        }
        if let Some(d) = seen.decision {
            arrow(
                p,
                screen(d) * RAY_PX * 1.15,
                2.0,
                Color::new(0.9, 0.3, 0.9, 1.0),
            );
        }
    }
    if layers.shows(Layer::Forces) {
        let scale = FORCE_PX / seen.body.max_force.max(1e-3);
        let f = &seen.forces;
        for (v, c) in [f.wall, f.obstacle, f.separation, f.arrive]
            .into_iter()
            .zip(FORCE_COLOURS)
        {
            arrow(p, screen(v) * scale, 1.5, rgb(c));
        }
        arrow(p, screen(f.total) * scale, 3.0, rgb(FORCE_COLOURS[4]));
        let t = cam.to_screen(seen.target);
        draw_circle(t.x, t.y, 3.0, rgb(colours::HIGHLIGHT));
        if !seen.detour.is_empty() {
            let mut pts = vec![seen.body.position];
            pts.extend_from_slice(&seen.detour);
            polyline(cam, &pts, false, 1.5, rgba(colours::HIGHLIGHT, 0.7));
        }
    }
}
