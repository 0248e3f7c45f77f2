//! Drawing the map (bounds, obstacles, walls, cover points, jump links) and the unit trails.

use macroquad::shapes::{draw_circle, draw_circle_lines, draw_line, draw_rectangle, draw_triangle};

use super::camera::{Camera, to_mq};
use super::colours::{self, SquadColours, rgb, rgba};
use crate::runner::Runner;
use crate::shapes::MapShapes;

/// Draws the map's shapes.
pub fn draw_map(cam: &Camera, shapes: &MapShapes) {
    let corners = [
        glam::Vec2::new(shapes.min.x, shapes.min.y),
        glam::Vec2::new(shapes.max.x, shapes.min.y),
        glam::Vec2::new(shapes.max.x, shapes.max.y),
        glam::Vec2::new(shapes.min.x, shapes.max.y),
    ];
    let (lo, hi) = (cam.to_screen(corners[3]), cam.to_screen(corners[1]));
    draw_rectangle(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y, rgb(colours::FLOOR));
    polyline(cam, &corners, true, 2.0, rgb(colours::BOUNDS));
    for &(c, r) in &shapes.circles {
        let p = cam.to_screen(c);
        draw_circle(p.x, p.y, cam.px(r), rgb(colours::OBSTACLE));
    }
    for poly in &shapes.polygons {
        fill_polygon(cam, &poly.points);
        polyline(cam, &poly.points, true, 1.5, rgb(colours::WALL));
    }
    for &(a, b) in &shapes.walls {
        segment(cam, a, b, 3.0, rgb(colours::WALL));
    }
    for &c in &shapes.cover {
        let p = cam.to_screen(c);
        draw_circle_lines(p.x, p.y, 2.5, 1.0, rgba(colours::COVER, 0.8));
    }
    for &(from, to) in &shapes.jumps {
        segment(cam, from, to, 2.0, rgba(colours::JUMP, 0.8));
        let p = cam.to_screen(to);
        draw_circle_lines(p.x, p.y, 5.0, 2.0, rgb(colours::JUMP));
    }
}

/// Most trail segments drawn per frame; longer trails are drawn through every k-th point.
pub const MAX_TRAIL_SEGMENTS: usize = 20_000;

/// Draws every live unit's trail in its squad colour (thinned to [`MAX_TRAIL_SEGMENTS`]).
pub fn draw_trails(cam: &Camera, runner: &Runner, squads: &SquadColours) {
    let world = runner.world();
    let total: usize = world.units().map(|(id, _)| runner.trail(id).len()).sum();
    let stride = total.div_ceil(MAX_TRAIL_SEGMENTS).max(1);
    for (id, _) in world.units() {
        let colour = rgba(squads.unit_rgb(world, id), 0.35);
        let trail = runner.trail(id);
        let mut last: Option<glam::Vec2> = None;
        for (i, &p) in trail.iter().enumerate() {
            if i % stride != 0 && i + 1 != trail.len() {
                continue;
            }
            if let Some(a) = last {
                segment(cam, a, p, 1.0, colour);
            }
            last = Some(p);
        }
    }
}

/// A world segment.
pub fn segment(
    cam: &Camera,
    a: glam::Vec2,
    b: glam::Vec2,
    thickness: f32,
    colour: macroquad::color::Color,
) {
    let (a, b) = (cam.to_screen(a), cam.to_screen(b));
    draw_line(a.x, a.y, b.x, b.y, thickness, colour);
}

/// A world polyline, closed or open.
pub fn polyline(
    cam: &Camera,
    points: &[glam::Vec2],
    closed: bool,
    thickness: f32,
    colour: macroquad::color::Color,
) {
    for w in points.windows(2) {
        segment(cam, w[0], w[1], thickness, colour);
    }
    if closed && points.len() > 2 {
        if let (Some(&a), Some(&b)) = (points.last(), points.first()) {
            segment(cam, a, b, thickness, colour);
        }
    }
}

/// Fills a simple polygon by ear clipping (concave outlines too; a degenerate one is skipped).
fn fill_polygon(cam: &Camera, points: &[glam::Vec2]) {
    if points.len() < 3 {
        return;
    }
    let colour = rgb(colours::OBSTACLE);
    let mut idx: Vec<usize> = (0..points.len()).collect();
    let area: f32 = (0..points.len())
        .map(|i| points[i].perp_dot(points[(i + 1) % points.len()]))
        .sum();
    if area < 0.0 {
        idx.reverse();
    }
    let mut guard = 0;
    while idx.len() > 3 && guard < 4 * points.len() {
        guard += 1;
        let n = idx.len();
        let ear = (0..n).find(|&i| {
            let (a, b, c) = (
                points[idx[(i + n - 1) % n]],
                points[idx[i]],
                points[idx[(i + 1) % n]],
            );
            (b - a).perp_dot(c - b) > 0.0
                && idx.iter().all(|&j| {
                    let p = points[j];
                    p == a || p == b || p == c || !inside(p, a, b, c)
                })
        });
        let Some(i) = ear else { break };
        let n = idx.len();
        triangle(
            cam,
            points[idx[(i + n - 1) % n]],
            points[idx[i]],
            points[idx[(i + 1) % n]],
            colour,
        );
        idx.remove(i);
    }
    if idx.len() == 3 {
        triangle(cam, points[idx[0]], points[idx[1]], points[idx[2]], colour);
    }
}

fn inside(p: glam::Vec2, a: glam::Vec2, b: glam::Vec2, c: glam::Vec2) -> bool {
    (b - a).perp_dot(p - a) >= 0.0
        && (c - b).perp_dot(p - b) >= 0.0
        && (a - c).perp_dot(p - c) >= 0.0
}

fn triangle(
    cam: &Camera,
    a: glam::Vec2,
    b: glam::Vec2,
    c: glam::Vec2,
    colour: macroquad::color::Color,
) {
    draw_triangle(
        to_mq(cam.to_screen(a)),
        to_mq(cam.to_screen(b)),
        to_mq(cam.to_screen(c)),
        colour,
    );
}
