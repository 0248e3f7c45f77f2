//! The status panel right of the map (run, selection, picked unit, last message, file errors)
//! and the help overlay listing every key.

use cohort_formation::Motion;
use macroquad::shapes::draw_rectangle;
use macroquad::text::draw_text;

use super::camera::PANEL_WIDTH;
use super::colours::{self, rgb, rgba};
use super::draw_inspect::FORCE_COLOURS;
use super::layers::{ACTION_KEYS, LAYERS, Layers};
use super::session::Session;

const FONT: f32 = 17.0;
const LINE: f32 = 18.0;
/// Characters per panel line before wrapping.
const WRAP: usize = 36;

/// Splits `text` into lines of at most `width` characters, at spaces where possible.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.lines() {
        let mut line = String::new();
        for word in para.split(' ') {
            let mut word = word.to_owned();
            while word.chars().count() > width {
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                let head: String = word.chars().take(width).collect();
                word = word.chars().skip(width).collect();
                lines.push(head);
            }
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        lines.push(line);
    }
    lines
}

/// The last step's time, stage by stage, in milliseconds ([`cohort_formation::World::timings`]).
fn stage_times(world: &cohort_formation::World) -> String {
    let t = world.timings();
    let mut text = format!("last step {:.2} ms:", t.total().as_secs_f64() * 1e3);
    for (stage, time) in t.stages() {
        text.push_str(&format!(
            " {} {:.2}",
            stage.name(),
            time.as_secs_f64() * 1e3
        ));
    }
    text
}

struct Panel {
    x: f32,
    y: f32,
}

impl Panel {
    fn line(&mut self, text: &str, colour: [u8; 3]) {
        for l in wrap(text, WRAP) {
            draw_text(&l, self.x, self.y, FONT, rgb(colour));
            self.y += LINE;
        }
    }

    fn gap(&mut self) {
        self.y += LINE * 0.5;
    }
}

/// Draws the status panel at the right edge of a window `width × height`.
pub fn draw_panel(session: &Session, width: f32, height: f32) {
    let x0 = width - PANEL_WIDTH;
    draw_rectangle(x0, 0.0, PANEL_WIDTH, height, rgb([32, 35, 42]));
    let mut p = Panel {
        x: x0 + 10.0,
        y: 22.0,
    };
    let runner = &session.runner;
    let name = session
        .path()
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    p.line(&format!("cohort view: {name}"), colours::TEXT);
    let secs = runner.tick() as f32 * runner.dt();
    let state = if session.paused { "PAUSED" } else { "running" };
    p.line(
        &format!(
            "tick {} ({secs:.1} s)  {state}  x{}",
            runner.tick(),
            session.speed()
        ),
        colours::TEXT,
    );
    p.line(
        &format!(
            "{} units, {} formations",
            runner.world().unit_count(),
            runner.world().formations().count()
        ),
        colours::TEXT,
    );
    p.line(&stage_times(runner.world()), colours::TEXT);
    p.gap();
    let world = runner.world();
    match session
        .selected
        .and_then(|f| Some((f, world.formation(f)?)))
    {
        Some((id, f)) => {
            let motion = match f.motion {
                Motion::Holding => "holding",
                Motion::Moving => "moving",
                Motion::Turning => "turning",
                Motion::Loose => "loose",
            };
            p.line(
                &format!("selected: {}", f.name),
                session.squads.formation_rgb(world, id),
            );
            p.line(
                &format!(
                    "{motion}, {} members, pattern {:?}",
                    f.members.len(),
                    f.pattern().kind()
                ),
                colours::TEXT,
            );
            if let Some((ordered, placed)) = f.placed_away() {
                let away = (placed - ordered).length();
                p.line(
                    &format!("goal {away:.1} m from the spot ordered"),
                    colours::TEXT,
                );
            }
            if let Some(t) = super::tactics::describe(world, id) {
                p.line(&t, colours::TEXT);
            }
        }
        None => p.line("selected: none (Tab)", colours::TEXT),
    }
    p.gap();
    if let Some(seen) = &session.inspection {
        let b = &seen.body;
        p.line(
            &format!(
                "picked ({:.1}, {:.1}), speed {:.2}",
                b.position.x,
                b.position.y,
                b.velocity.length()
            ),
            colours::HIGHLIGHT,
        );
        p.line(&seen.behaviour, colours::TEXT);
        let f = &seen.forces;
        let names = ["wall", "obstacle", "separation", "arrive", "total"];
        for ((n, v), c) in names
            .iter()
            .zip([f.wall, f.obstacle, f.separation, f.arrive, f.total])
            .zip(FORCE_COLOURS)
        {
            p.line(&format!("  {n:<10} {:6.2}", v.length()), c);
        }
        p.line("context: interest green, danger red", colours::TEXT);
    } else {
        p.line("left-click a unit to inspect it", colours::TEXT);
    }
    p.gap();
    if let Some(n) = &session.notice {
        p.line(
            &n.text,
            if n.error {
                colours::ERROR
            } else {
                colours::TEXT
            },
        );
        p.gap();
    }
    for e in session.file_errors() {
        p.line(&e, colours::ERROR);
    }
    draw_text(
        "H: keys and layers",
        x0 + 10.0,
        height - 12.0,
        FONT,
        rgb(colours::TEXT),
    );
}

/// Draws the help overlay over the map: layers with their state, then the action keys.
pub fn draw_help(layers: &Layers, height: f32) {
    let rows = LAYERS.len() + ACTION_KEYS.len() + 3;
    let h = (rows as f32 * LINE + 20.0).min(height - 20.0);
    draw_rectangle(20.0, 20.0, 520.0, h, rgba([10, 11, 14], 0.88));
    let mut y = 42.0;
    let mut row = |key: &str, what: &str, colour: [u8; 3]| {
        draw_text(key, 34.0, y, FONT, rgb(colour));
        draw_text(what, 160.0, y, FONT, rgb(colour));
        y += LINE;
    };
    row("layers", "(key toggles)", colours::HIGHLIGHT);
    for (layer, _, key, name) in LAYERS {
        let on = if layers.shows(layer) { "on " } else { "off" };
        row(key, &format!("{on}  {name}"), colours::TEXT);
    }
    row("", "", colours::TEXT);
    row("actions", "", colours::HIGHLIGHT);
    for (key, what) in ACTION_KEYS {
        row(key, what, colours::TEXT);
    }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_keeps_lines_short_and_loses_no_words() {
        let text = "scenarios/overwatch.ron:12:5: expected a comma, found averyveryverylongtokenthatcannotfit";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        let joined: String = lines.concat().split_whitespace().collect();
        let original: String = text.split_whitespace().collect();
        assert_eq!(joined, original);
        assert_eq!(wrap("a\nb", 10), ["a", "b"]);
    }
}
