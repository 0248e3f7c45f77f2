//! World → screen mapping of the viewer, and the one place where the core's `glam` 0.34
//! vectors become macroquad's (`glam` 0.27) and back: the two are never unified.

use glam::Vec2;
use macroquad::math::Vec2 as MqVec2;

/// Window width in pixels (also the capture's width).
pub const WINDOW_WIDTH: f32 = 1280.0;
/// Window height in pixels.
pub const WINDOW_HEIGHT: f32 = 720.0;
/// Width of the status panel on the right; the map is drawn left of it.
pub const PANEL_WIDTH: f32 = 300.0;
/// Pixels kept free around the fitted map.
pub const MARGIN: f32 = 12.0;

/// A core vector as a macroquad vector.
pub fn to_mq(v: Vec2) -> MqVec2 {
    MqVec2::new(v.x, v.y)
}

/// A macroquad vector as a core vector.
pub fn from_mq(v: MqVec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// Maps world coordinates (`y` up) to screen pixels (`y` down): a scale and an offset, with
/// zoom and pan on top of the fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Pixels per world unit.
    pub scale: f32,
    /// World point drawn at `origin_px`.
    pub world_origin: Vec2,
    /// Screen point (pixels) where `world_origin` is drawn.
    pub origin_px: Vec2,
}

impl Camera {
    /// The camera that fits the rectangle `min..max` into the map viewport of a window of
    /// `width × height` pixels (left of the panel), centred, with [`MARGIN`] around it.
    /// A degenerate rectangle gets a scale of 1.
    pub fn fit(min: Vec2, max: Vec2, width: f32, height: f32) -> Self {
        let view_w = (width - PANEL_WIDTH - 2.0 * MARGIN).max(1.0);
        let view_h = (height - 2.0 * MARGIN).max(1.0);
        let size = max - min;
        let scale = if size.x > 0.0 && size.y > 0.0 && size.is_finite() {
            (view_w / size.x).min(view_h / size.y)
        } else {
            1.0
        };
        let centre = (min + max) * 0.5;
        let centre = if centre.is_finite() {
            centre
        } else {
            Vec2::ZERO
        };
        Self {
            scale,
            world_origin: centre,
            origin_px: Vec2::new(MARGIN + view_w * 0.5, MARGIN + view_h * 0.5),
        }
    }

    /// The screen position of world point `p`.
    pub fn to_screen(&self, p: Vec2) -> Vec2 {
        let d = (p - self.world_origin) * self.scale;
        Vec2::new(self.origin_px.x + d.x, self.origin_px.y - d.y)
    }

    /// The world position under screen point `s`.
    pub fn to_world(&self, s: Vec2) -> Vec2 {
        let d = s - self.origin_px;
        self.world_origin + Vec2::new(d.x, -d.y) / self.scale
    }

    /// A world length in pixels.
    pub fn px(&self, length: f32) -> f32 {
        length * self.scale
    }

    /// Zooms by `factor` keeping the world point under screen point `at` fixed.
    pub fn zoom_at(&mut self, at: Vec2, factor: f32) {
        if !(factor > 0.0) || !factor.is_finite() {
            return;
        }
        let scale = (self.scale * factor).clamp(0.05, 500.0);
        let fixed = self.to_world(at);
        self.scale = scale;
        self.world_origin = fixed;
        self.origin_px = at;
    }

    /// Pans by a screen offset in pixels.
    pub fn pan(&mut self, by_px: Vec2) {
        if by_px.is_finite() {
            self.origin_px += by_px;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_maps_corners_inside_the_viewport_and_back() {
        let cam = Camera::fit(Vec2::ZERO, Vec2::new(140.0, 60.0), 1280.0, 720.0);
        let lo = cam.to_screen(Vec2::new(0.0, 60.0));
        let hi = cam.to_screen(Vec2::new(140.0, 0.0));
        assert!((lo.x - MARGIN).abs() < 1e-3, "{lo}");
        assert!(
            (hi.x - (1280.0 - PANEL_WIDTH - MARGIN)).abs() < 1e-3,
            "{hi}"
        );
        assert!(lo.y >= MARGIN && hi.y <= 720.0 - MARGIN);
        let p = Vec2::new(33.0, 17.5);
        assert!((cam.to_world(cam.to_screen(p)) - p).length() < 1e-4);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut cam = Camera::fit(Vec2::ZERO, Vec2::new(100.0, 100.0), 1280.0, 720.0);
        let at = Vec2::new(300.0, 200.0);
        let before = cam.to_world(at);
        cam.zoom_at(at, 2.0);
        assert!((cam.to_world(at) - before).length() < 1e-4);
        assert!((cam.px(1.0) - 2.0 * 6.96).abs() < 0.1);
        cam.zoom_at(at, f32::NAN);
        assert!(cam.scale.is_finite());
    }

    #[test]
    fn degenerate_map_gets_unit_scale() {
        let cam = Camera::fit(Vec2::ONE, Vec2::ONE, 1280.0, 720.0);
        assert_eq!(cam.scale, 1.0);
    }
}
