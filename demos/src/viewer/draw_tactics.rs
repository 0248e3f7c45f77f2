//! Drawing the tactics: each running play's ball, each overwatch advance's route and threat,
//! and the threat the user placed for the next advance.

use cohort_formation::World;
use cohort_formation::tactics::Tactic;
use glam::Vec2;
use macroquad::shapes::{draw_circle, draw_circle_lines};

use super::camera::Camera;
use super::colours::{self, SquadColours, rgb, rgba};
use super::draw_map::{polyline, segment};

/// A red cross of `size` pixels at world point `p`.
fn cross(cam: &Camera, p: Vec2, size: f32) {
    let d = size / cam.scale.max(1e-3);
    let c = rgb(colours::DANGER);
    segment(cam, p + Vec2::new(-d, -d), p + Vec2::new(d, d), 2.5, c);
    segment(cam, p + Vec2::new(-d, d), p + Vec2::new(d, -d), 2.5, c);
}

/// Draws the running tactics and the placed threat.
pub fn draw_tactics(cam: &Camera, world: &World, squads: &SquadColours, threat: Option<Vec2>) {
    for (id, _) in world.formations() {
        let Some(tactic) = world.tactic(id) else {
            continue;
        };
        let c = squads.formation_rgb(world, id);
        match tactic {
            Tactic::Play(p) => {
                let b = cam.to_screen(p.ball());
                draw_circle(b.x, b.y, 4.0, rgb(colours::HIGHLIGHT));
                draw_circle_lines(b.x, b.y, 7.0, 1.5, rgb(c));
            }
            Tactic::Overwatch(o) => {
                polyline(cam, o.route(), false, 2.0, rgba(c, 0.6));
                let g = cam.to_screen(o.goal());
                draw_circle_lines(g.x, g.y, 8.0, 2.0, rgb(c));
                cross(cam, o.threat(), 7.0);
            }
        }
    }
    if let Some(t) = threat {
        cross(cam, t, 9.0);
    }
}
