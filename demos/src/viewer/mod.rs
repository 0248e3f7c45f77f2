//! `cohort view FILE`: a macroquad window on a running scenario, where patterns and
//! playbooks are authored and tuned by looking at them.
//!
//! The map, units with headings and trails, slots and the line from each unit to its slot,
//! anchors and their paths, the formation tree, and for a picked unit its forces, context maps
//! and behaviour; each layer toggles with a key (`H` lists them). The run advances only
//! through [`crate::runner::Runner::step`], the headless runner's own step, so the window shows
//! exactly what `cohort run` computes. With `--frames N --screenshot PNG` the viewer steps N
//! frames of one tick each, draws one more frame, saves it with macroquad's screen capture and
//! exits (for tests and the README picture).
//!
//! macroquad lives only here: it brings `glam` 0.27, and [`camera`] converts at the boundary.

pub mod camera;
mod capture;
pub mod colours;
mod draw_inspect;
mod draw_map;
mod draw_tactics;
mod draw_units;
mod hud;
mod input;
pub mod inspect;
pub mod layers;
pub mod session;
#[cfg(test)]
mod session_tests;
mod tactics;
pub mod watch;

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use macroquad::window::{Conf, clear_background, next_frame, screen_height, screen_width};
use thiserror::Error;

use crate::scenario::ScenarioError;
use camera::{Camera, WINDOW_HEIGHT, WINDOW_WIDTH};
use input::ViewState;
use layers::{Layer, Layers};
use session::Session;

/// Seconds between looks at the watched files' modification times.
const POLL_SECONDS: f64 = 0.5;

/// How to run the viewer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// The scenario file.
    pub file: PathBuf,
    /// Run this many frames (one tick each), draw one more and exit.
    pub frames: Option<u64>,
    /// Save the last frame here (with `frames`).
    pub screenshot: Option<PathBuf>,
    /// Inspect the unit with this spawn index from the start.
    pub pick: Option<usize>,
    /// Also read pattern and playbook files from this directory (`--assets DIR`).
    pub assets: Option<PathBuf>,
}

/// What can go wrong viewing.
#[derive(Debug, Error)]
pub enum ViewError {
    /// The scenario does not load.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A bad combination of options.
    #[error("{0}")]
    Options(String),
    /// There is no display to open a window on.
    #[error(
        "no display: DISPLAY and WAYLAND_DISPLAY are unset (run under a desktop, or headless \
         with xvfb-run -a -s \"-screen 0 1280x720x24\")"
    )]
    NoDisplay,
    /// No window could be opened.
    #[error("cannot open a window: {0}")]
    Window(String),
    /// The viewer stopped on an internal failure after drawing some frames.
    #[error("the viewer stopped after {0} frame(s): {1}")]
    Stopped(u64, String),
    /// The window closed before the requested frames were drawn.
    #[error("the window closed after {0} frame(s), before the screenshot")]
    Closed(u64),
    /// The screenshot could not be taken or written.
    #[error("screenshot {path}: {message}")]
    Screenshot {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

impl ViewError {
    /// Whether the error is the user's input (exit status 2) rather than a failure (1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, ViewError::Scenario(_) | ViewError::Options(_))
    }
}

/// Whether a window can be opened (an X11 or Wayland display is named in the environment).
pub fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

/// The window configuration: 1280 × 720, not resizable (so captures have a known size).
fn window_conf() -> Conf {
    Conf {
        window_title: String::from("cohort view"),
        window_width: WINDOW_WIDTH as i32,
        window_height: WINDOW_HEIGHT as i32,
        window_resizable: false,
        high_dpi: false,
        ..Default::default()
    }
}

/// Opens the window and runs until the user quits, or (with `frames`) until the screenshot is
/// saved. The scenario is loaded before any window opens, so bad input fails fast.
pub fn run(options: ViewOptions) -> Result<(), ViewError> {
    if options.screenshot.is_some() && options.frames.is_none() {
        return Err(ViewError::Options(String::from(
            "--screenshot needs --frames N",
        )));
    }
    let session = Session::open_with_assets(&options.file, options.assets.as_deref())?;
    if !has_display() {
        return Err(ViewError::NoDisplay);
    }
    let outcome: Rc<RefCell<Option<Result<(), ViewError>>>> = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    let automated = options.frames.is_some();
    let frames_seen = Rc::new(RefCell::new(0u64));
    let seen = Rc::clone(&frames_seen);
    // miniquad panics when it cannot open a window (no GL, a display that refuses): that
    // becomes an error here instead of an abort.
    // The message is reported as an error, so the default hook's report is held back.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        macroquad::Window::from_config(window_conf(), async move {
            let result = main_loop(session, options, seen).await;
            *out.borrow_mut() = Some(result);
        });
    }));
    std::panic::set_hook(hook);
    if let Err(panic) = opened {
        let why = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| String::from("unknown reason"));
        let frames = *frames_seen.borrow();
        return Err(if frames == 0 {
            ViewError::Window(why)
        } else {
            ViewError::Stopped(frames, why)
        });
    }
    let result = outcome.borrow_mut().take();
    match result {
        Some(r) => r,
        None if automated => Err(ViewError::Closed(*frames_seen.borrow())),
        None => Ok(()),
    }
}

async fn main_loop(
    mut session: Session,
    options: ViewOptions,
    frames_seen: Rc<RefCell<u64>>,
) -> Result<(), ViewError> {
    let mut view = ViewState {
        camera: fitted(&session),
        camera_moved: false,
        layers: Layers::default(),
        help: false,
    };
    if let Some(i) = options.pick {
        let at = session
            .runner
            .world()
            .units()
            .nth(i)
            .map(|(_, u)| u.body.position);
        if let Some(p) = at {
            session.pick_at(p, 0.0);
        }
    }
    let mut last_poll = macroquad::time::get_time();
    let mut frame = 0u64;
    loop {
        let (w, h) = (screen_width(), screen_height());
        match options.frames {
            Some(n) => {
                if frame < n {
                    session.step_once();
                }
            }
            None => {
                if !input::handle(&mut session, &mut view, w) {
                    return Ok(());
                }
                session.advance(macroquad::time::get_frame_time());
                let now = macroquad::time::get_time();
                if now - last_poll >= POLL_SECONDS {
                    last_poll = now;
                    session.poll_files();
                }
            }
        }
        if !view.camera_moved {
            view.camera = fitted(&session);
        }
        draw(&session, &view, w, h);
        frame += 1;
        *frames_seen.borrow_mut() = frame;
        if let Some(n) = options.frames {
            if frame > n {
                if let Some(path) = &options.screenshot {
                    capture::save_screen(path).map_err(|message| ViewError::Screenshot {
                        path: path.display().to_string(),
                        message,
                    })?;
                }
                return Ok(());
            }
        }
        next_frame().await;
    }
}

/// The camera that fits the map into the current window.
fn fitted(session: &Session) -> Camera {
    let map = session.runner.world().map();
    Camera::fit(map.min, map.max, screen_width(), screen_height())
}

/// Draws one frame: the layers that are on, bottom to top, then the panel and the help.
fn draw(session: &Session, view: &ViewState, w: f32, h: f32) {
    clear_background(colours::rgb(colours::BACKGROUND));
    let cam = &view.camera;
    let layers = &view.layers;
    let world = session.runner.world();
    let squads = &session.squads;
    if layers.shows(Layer::Map) {
        draw_map::draw_map(cam, &session.shapes);
    }
    if layers.shows(Layer::Trails) {
        draw_map::draw_trails(cam, &session.runner, squads);
    }
    if layers.shows(Layer::Tree) {
        draw_units::draw_tree(cam, world, squads, session.selected);
    }
    if layers.shows(Layer::Anchors) {
        draw_units::draw_anchors(cam, world, squads);
    }
    if layers.shows(Layer::Slots) {
        draw_units::draw_slots(cam, world, squads);
    }
    if layers.shows(Layer::Anchors) {
        draw_tactics::draw_tactics(cam, world, squads, session.threat);
    }
    draw_units::draw_units(cam, world, squads, layers, session.picked);
    if let Some(seen) = &session.inspection {
        draw_inspect::draw_inspection(cam, seen, layers);
    }
    hud::draw_panel(session, w, h);
    if view.help {
        hud::draw_help(layers, h);
    }
}
