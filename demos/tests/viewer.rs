//! The viewer in a real window: the built `cohort` binary runs under `xvfb-run` (a virtual X
//! display with Mesa's software GL), steps a bundled scenario, saves the screen with
//! macroquad's capture and exits; the PNG is checked against the headless run of the same
//! ticks through the `Runner` API. macroquad allows one window per process, so every check
//! starts its own child process.
//!
//! Without `xvfb-run` the window tests print why and pass as skipped, unless `COHORT_CI=1`,
//! where they fail instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cohort_demos::render::group_colour;
use cohort_demos::runner::load_runner;
use cohort_demos::viewer::camera::{Camera, PANEL_WIDTH, WINDOW_HEIGHT, WINDOW_WIDTH};
use cohort_demos::viewer::colours::{BACKGROUND, FLOOR, INTEREST, OBSTACLE, SquadColours};
use tiny_skia::Pixmap;

/// Largest difference per channel for a pixel to count as a colour.
const TOLERANCE: i32 = 24;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

fn scenario(name: &str) -> PathBuf {
    repo().join("scenarios").join(name)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Whether window tests can run here; otherwise says why and skips, or fails under CI.
fn display_available() -> bool {
    let missing: Vec<&str> = ["xvfb-run", "xauth"]
        .into_iter()
        .filter(|p| !on_path(p))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!(
        "{} not found: install with `apt-get install -y --no-install-recommends xvfb xauth`",
        missing.join(" and ")
    );
    if std::env::var("COHORT_CI").is_ok_and(|v| v == "1") {
        panic!("COHORT_CI=1 and the viewer test cannot run: {why}");
    }
    // Straight to stderr, past the test harness's capture, so the skip is seen.
    let _ = writeln!(std::io::stderr(), "skipping the viewer window test: {why}");
    false
}

fn temp_png(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cohort-viewer-{name}-{}.png", std::process::id()))
}

/// Runs `cohort view` under xvfb-run with `args` and returns its output.
fn view_under_xvfb(args: &[&str]) -> Output {
    Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_cohort"))
        .arg("view")
        .args(args)
        .output()
        .expect("xvfb-run starts")
}

/// One window at a time: parallel `xvfb-run -a` calls can race for the same display number.
static WINDOW: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Steps `file` for `frames` frames in the window and loads the screenshot.
fn screenshot(file: &Path, frames: u64, extra: &[&str], name: &str) -> Pixmap {
    let png = temp_png(name);
    let _ = std::fs::remove_file(&png);
    let frames = frames.to_string();
    let mut args = vec![
        file.to_str().expect("utf-8 path"),
        "--frames",
        &frames,
        "--screenshot",
        png.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    let out = {
        let _one = WINDOW
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        view_under_xvfb(&args)
    };
    assert!(
        out.status.success(),
        "cohort view failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let pixmap = Pixmap::load_png(&png).expect("the screenshot is a PNG");
    let _ = std::fs::remove_file(&png);
    pixmap
}

fn rgb_at(p: &Pixmap, x: i32, y: i32) -> Option<[u8; 3]> {
    if x < 0 || y < 0 {
        return None;
    }
    let c = p.pixel(x as u32, y as u32)?;
    Some([c.red(), c.green(), c.blue()])
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter()
        .zip(b)
        .all(|(&x, y)| (i32::from(x) - i32::from(y)).abs() <= TOLERANCE)
}

/// Whether any pixel within `r` pixels of (`x`, `y`) has colour `want`.
fn colour_near(p: &Pixmap, x: f32, y: f32, r: i32, want: [u8; 3]) -> bool {
    let (cx, cy) = (x.round() as i32, y.round() as i32);
    (-r..=r).any(|dy| (-r..=r).any(|dx| rgb_at(p, cx + dx, cy + dy).is_some_and(|c| near(c, want))))
}

/// Units found in their squad colour (or, with `wrong`, in the next squad's colour: a control)
/// at their headless positions after `frames` ticks shifted by `offset` pixels, and the units.
fn squad_colour_hits(
    p: &Pixmap,
    file: &Path,
    frames: u64,
    offset: (f32, f32),
    wrong: bool,
) -> (usize, usize) {
    let mut runner = load_runner(file, None, false).expect("scenario loads");
    runner.run(frames, |_| {}).expect("headless run");
    let world = runner.world();
    let map = world.map();
    let cam = Camera::fit(map.min, map.max, WINDOW_WIDTH, WINDOW_HEIGHT);
    let squads = SquadColours::of(world);
    let mut hits = 0;
    let mut total = 0;
    for (id, u) in world.units() {
        let s = cam.to_screen(u.body.position);
        total += 1;
        let want = if wrong {
            let squad = u
                .formation
                .and_then(|f| squads.index_of(f))
                .expect("a squad");
            group_colour(squad + 1)
        } else {
            squads.unit_rgb(world, id)
        };
        if colour_near(p, s.x + offset.0, s.y + offset.1, 1, want) {
            hits += 1;
        }
    }
    (hits, total)
}

#[test]
fn screenshot_is_not_blank_and_shows_the_map() {
    if !display_available() {
        return;
    }
    let file = scenario("overwatch.ron");
    let p = screenshot(&file, 30, &[], "blank");
    assert_eq!((p.width(), p.height()), (1280, 720));
    let runner = load_runner(&file, None, false).expect("scenario loads");
    let map = runner.world().map();
    let cam = Camera::fit(map.min, map.max, WINDOW_WIDTH, WINDOW_HEIGHT);
    // The ground fills the map's rectangle, the background is around it.
    let (lo, hi) = (
        cam.to_screen(glam::Vec2::new(map.min.x, map.max.y)),
        cam.to_screen(glam::Vec2::new(map.max.x, map.min.y)),
    );
    let mut floor = 0usize;
    let mut inside = 0usize;
    let mut colours = std::collections::BTreeSet::new();
    for y in lo.y as i32 + 3..hi.y as i32 - 3 {
        for x in lo.x as i32 + 3..hi.x as i32 - 3 {
            let c = rgb_at(&p, x, y).expect("inside the picture");
            inside += 1;
            floor += usize::from(near(c, FLOOR));
            colours.insert(c);
        }
    }
    let share = floor as f64 / inside as f64;
    eprintln!(
        "ground share {share:.4}, {} colours on the map, {} obstacles checked",
        colours.len(),
        map.circles.len()
    );
    assert!(share > 0.8 && share < 0.995, "ground share {share}");
    assert!(
        colours.len() >= 8,
        "only {} colours on the map",
        colours.len()
    );
    assert!(colour_near(&p, lo.x - 6.0, lo.y - 6.0, 2, BACKGROUND));
    // Every obstacle is drawn where the map has it.
    assert!(!map.circles.is_empty());
    for c in &map.circles {
        let s = cam.to_screen(c.center);
        assert!(
            colour_near(&p, s.x, s.y, 1, OBSTACLE),
            "obstacle at {}",
            c.center
        );
    }
    // The panel has text on it.
    let map_w = (WINDOW_WIDTH - PANEL_WIDTH) as u32;
    let text = (0..200u32)
        .flat_map(|y| (map_w + 10..1270).map(move |x| (x, y)))
        .filter(|&(x, y)| rgb_at(&p, x as i32, y as i32).is_some_and(|c| c[0] > 180 && c[1] > 180))
        .count();
    assert!(
        text > 200,
        "{text} bright pixels in the panel's first lines"
    );
}

#[test]
fn units_are_drawn_in_squad_colours_where_the_headless_run_puts_them() {
    if !display_available() {
        return;
    }
    // Eight squads of four, each its own colour, marching from the first tick.
    let file = scenario("platoon.ron");
    let frames = 300;
    let p = screenshot(&file, frames, &[], "units");
    let (hits, total) = squad_colour_hits(&p, &file, frames, (0.0, 0.0), false);
    assert!(total >= 16, "{total} units");
    let mut runner = load_runner(&file, None, false).expect("scenario loads");
    runner.run(frames, |_| {}).expect("headless run");
    let world = runner.world();
    let squads = SquadColours::of(world);
    let distinct: std::collections::BTreeSet<[u8; 3]> = world
        .units()
        .map(|(id, _)| squads.unit_rgb(world, id))
        .collect();
    assert!(distinct.len() >= 4, "squad colours {distinct:?}");
    assert!(
        hits * 10 >= total * 9,
        "{hits}/{total} units in their squad colour"
    );
    // Controls: 40 px off (beside the formation) the colours are not there, and the next
    // squad's colour is not where each unit is.
    let (off, _) = squad_colour_hits(&p, &file, frames, (0.0, 40.0), false);
    assert!(off * 10 <= total, "{off}/{total} shifted samples matched");
    let (wrong, _) = squad_colour_hits(&p, &file, frames, (0.0, 0.0), true);
    assert!(
        wrong * 10 <= total,
        "{wrong}/{total} units matched another squad's colour"
    );
    // And at the start positions the units have moved on.
    let (stale, _) = squad_colour_hits(&p, &file, 0, (0.0, 0.0), false);
    assert!(
        stale * 2 <= total,
        "{stale}/{total} matched at the start positions"
    );
    eprintln!(
        "units in their squad colour: {hits}/{total}; 40 px off: {off}/{total}; next squad's \
         colour: {wrong}/{total}; \
         at the start positions: {stale}/{total}"
    );
}

#[test]
fn picked_unit_shows_its_context_rays() {
    if !display_available() {
        return;
    }
    let file = scenario("platoon.ron");
    let frames = 120;
    let p = screenshot(&file, frames, &["--pick", "0"], "pick");
    let mut runner = load_runner(&file, None, false).expect("scenario loads");
    runner.run(frames, |_| {}).expect("headless run");
    let world = runner.world();
    let map = world.map();
    let cam = Camera::fit(map.min, map.max, WINDOW_WIDTH, WINDOW_HEIGHT);
    let (_, unit) = world.units().next().expect("a unit");
    let s = cam.to_screen(unit.body.position);
    let green = (-60..=60)
        .flat_map(|dy| (-60..=60).map(move |dx| (dx, dy)))
        .filter(|&(dx, dy)| {
            rgb_at(&p, s.x as i32 + dx, s.y as i32 + dy).is_some_and(|c| near(c, INTEREST))
        })
        .count();
    eprintln!("interest-ray pixels around the picked unit: {green}");
    assert!(
        green > 30,
        "{green} interest-ray pixels around the picked unit"
    );
    // The panel says what the unit does.
    let bright = (230..330u32)
        .flat_map(|y| ((WINDOW_WIDTH - PANEL_WIDTH) as u32 + 10..1270).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            rgb_at(&p, x as i32, y as i32).is_some_and(|c| c.iter().all(|&v| v > 180))
        })
        .count();
    assert!(
        bright > 100,
        "{bright} text pixels where the picked unit is described"
    );
}

#[test]
fn bad_input_fails_before_any_window_opens() {
    let cohort = env!("CARGO_BIN_EXE_cohort");
    let out = Command::new(cohort)
        .args(["view", "no/such/scenario.ron"])
        .output()
        .expect("cohort starts");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/scenario.ron"));
    let file = scenario("open_field.ron");
    let out = Command::new(cohort)
        .arg("view")
        .arg(&file)
        .args(["--screenshot", "x.png"])
        .output()
        .expect("cohort starts");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--frames"));
    let out = Command::new(cohort)
        .arg("view")
        .arg(&file)
        .args(["--frames", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("cohort starts");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no display"));
    // A display that does not answer: a clear error, not a crash.
    let out = Command::new(cohort)
        .arg("view")
        .arg(&file)
        .args(["--frames", "1"])
        .env("DISPLAY", ":987")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("cohort starts");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open a window"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
