//! Keyboard and mouse: every key of the help overlay, mapped to a session action, a layer
//! toggle or a camera move.

use macroquad::input::{
    KeyCode, MouseButton, is_key_down, is_key_pressed, is_mouse_button_pressed, mouse_position,
    mouse_wheel,
};

use super::camera::{Camera, PANEL_WIDTH};
use super::layers::{LAYERS, Layers};
use super::session::Session;

/// What the viewer shows besides the session: camera, layers, help.
#[derive(Clone, Copy, Debug)]
pub struct ViewState {
    /// The camera.
    pub camera: Camera,
    /// Whether the user moved the camera (otherwise it keeps fitting the map).
    pub camera_moved: bool,
    /// Layers on and off.
    pub layers: Layers,
    /// Whether the help overlay is up.
    pub help: bool,
}

/// Pixels an arrow key pans per frame.
const PAN_STEP: f32 = 8.0;

/// Applies this frame's input; `false` when the user asked to quit.
pub fn handle(session: &mut Session, view: &mut ViewState, window_width: f32) -> bool {
    if is_key_pressed(KeyCode::Escape) || is_key_pressed(KeyCode::Q) {
        return false;
    }
    for (layer, key, ..) in LAYERS {
        if is_key_pressed(key) {
            view.layers.toggle(layer);
        }
    }
    if is_key_pressed(KeyCode::H) || is_key_pressed(KeyCode::F1) {
        view.help = !view.help;
    }
    if is_key_pressed(KeyCode::Space) {
        session.toggle_pause();
    }
    if is_key_pressed(KeyCode::N) || is_key_pressed(KeyCode::Period) {
        session.single_step();
    }
    if is_key_pressed(KeyCode::Equal) || is_key_pressed(KeyCode::KpAdd) {
        session.change_speed(true);
    }
    if is_key_pressed(KeyCode::Minus) || is_key_pressed(KeyCode::KpSubtract) {
        session.change_speed(false);
    }
    if is_key_pressed(KeyCode::Tab) {
        session.select_next();
    }
    if is_key_pressed(KeyCode::U) {
        session.select_parent();
    }
    if is_key_pressed(KeyCode::P) {
        session.cycle_pattern();
    }
    if is_key_pressed(KeyCode::Y) {
        session.run_play();
    }
    if is_key_pressed(KeyCode::K) || is_key_pressed(KeyCode::Delete) {
        session.kill();
    }
    if is_key_pressed(KeyCode::R) {
        session.reload_all();
    }
    if is_key_pressed(KeyCode::F) {
        view.camera_moved = false;
    }
    let mouse = glam::Vec2::from(mouse_position());
    let on_map = mouse.x < window_width - PANEL_WIDTH;
    let at = view.camera.to_world(mouse);
    if is_key_pressed(KeyCode::O) && on_map {
        session.overwatch(at);
    }
    if is_key_pressed(KeyCode::T) && on_map {
        session.place_threat(at);
    }
    if on_map && is_mouse_button_pressed(MouseButton::Left) {
        session.pick_at(at, 6.0 / view.camera.scale.max(1e-3));
    }
    if on_map && is_mouse_button_pressed(MouseButton::Right) {
        session.order_move(at);
    }
    let (_, wheel) = mouse_wheel();
    if on_map && wheel != 0.0 {
        view.camera
            .zoom_at(mouse, if wheel > 0.0 { 1.15 } else { 1.0 / 1.15 });
        view.camera_moved = true;
    }
    let pan = [
        (KeyCode::Left, glam::Vec2::new(PAN_STEP, 0.0)),
        (KeyCode::Right, glam::Vec2::new(-PAN_STEP, 0.0)),
        (KeyCode::Up, glam::Vec2::new(0.0, PAN_STEP)),
        (KeyCode::Down, glam::Vec2::new(0.0, -PAN_STEP)),
    ];
    for (key, by) in pan {
        if is_key_down(key) {
            view.camera.pan(by);
            view.camera_moved = true;
        }
    }
    true
}
