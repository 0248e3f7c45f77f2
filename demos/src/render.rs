//! A picture of a run, drawn without a window with tiny-skia and saved as PNG: the map (bounds,
//! obstacles, walls, cover points, jump links), unit trails, final positions coloured by
//! top-level formation, slot targets, and formation anchors with their paths.
//!
//! The view is fitted to the map's extent. [`save_png`] writes to a temporary file beside the
//! target and renames it, so an error never leaves a partial PNG.

use std::io::Write;
use std::path::Path;

use glam::Vec2;
use thiserror::Error;
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::shapes::MapShapes;

/// Largest image side in pixels.
pub const MAX_SIDE: u32 = 4096;

/// What can go wrong drawing or saving.
#[derive(Debug, Error)]
pub enum RenderError {
    /// The requested size is zero or above [`MAX_SIDE`].
    #[error("image size {0} × {1} is out of range 1..={MAX_SIDE}")]
    Size(u32, u32),
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Encode(String),
    /// Writing the file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// A unit at the end of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitMark {
    /// Position.
    pub position: Vec2,
    /// Unit heading.
    pub heading: Vec2,
    /// Radius.
    pub radius: f32,
    /// Colour group (its top-level formation's index).
    pub group: usize,
}

/// A formation's anchor and path at the end of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorMark {
    /// Anchor position.
    pub position: Vec2,
    /// Anchor orientation (unit).
    pub orientation: Vec2,
    /// Remaining path waypoints.
    pub path: Vec<Vec2>,
    /// Colour group.
    pub group: usize,
}

/// Everything a picture shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// The map.
    pub shapes: MapShapes,
    /// Unit trails (sampled positions) with their colour group.
    pub trails: Vec<(usize, Vec<Vec2>)>,
    /// Final unit positions.
    pub units: Vec<UnitMark>,
    /// Final slot targets.
    pub slots: Vec<Vec2>,
    /// Final formation anchors.
    pub anchors: Vec<AnchorMark>,
}

/// The colour of group `g`: a fixed palette, cycled.
pub fn group_colour(g: usize) -> [u8; 3] {
    const PALETTE: [[u8; 3]; 8] = [
        [31, 119, 180],
        [214, 39, 40],
        [44, 160, 44],
        [148, 103, 189],
        [255, 127, 14],
        [23, 190, 207],
        [227, 119, 194],
        [140, 86, 75],
    ];
    PALETTE[g % PALETTE.len()]
}

fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(rgb[0], rgb[1], rgb[2], alpha);
    p.anti_alias = true;
    p
}

/// World → pixel mapping: `y` up in the world, down in the image.
#[derive(Clone, Copy, Debug)]
struct View {
    lo: Vec2,
    hi: Vec2,
    scale: f32,
    margin: f32,
}

impl View {
    fn px(&self, p: Vec2) -> (f32, f32) {
        (
            self.margin + (p.x - self.lo.x) * self.scale,
            self.margin + (self.hi.y - p.y) * self.scale,
        )
    }
}

/// The image size for a scene of `width` pixels: the height follows the map's aspect ratio.
fn fit(shapes: &MapShapes, width: u32) -> (View, u32, u32) {
    let (lo, hi) = shapes.extent();
    let size = (hi - lo).max(Vec2::splat(1e-3));
    let margin = 10.0;
    let scale = (width as f32 - 2.0 * margin).max(1.0) / size.x;
    let height = ((size.y * scale + 2.0 * margin).ceil() as u32).clamp(16, MAX_SIDE);
    let scale = scale.min((height as f32 - 2.0 * margin).max(1.0) / size.y);
    (
        View {
            lo,
            hi,
            scale,
            margin,
        },
        width,
        height,
    )
}

struct Canvas {
    pixmap: Pixmap,
    view: View,
}

impl Canvas {
    fn polyline(&mut self, points: &[Vec2], closed: bool, rgb: [u8; 3], alpha: u8, width: f32) {
        let mut pb = PathBuilder::new();
        for (k, &p) in points.iter().filter(|p| p.is_finite()).enumerate() {
            let (x, y) = self.view.px(p);
            if k == 0 {
                pb.move_to(x, y);
            } else {
                pb.line_to(x, y);
            }
        }
        if closed {
            pb.close();
        }
        if let Some(path) = pb.finish() {
            let stroke = Stroke {
                width,
                ..Stroke::default()
            };
            self.pixmap.stroke_path(
                &path,
                &paint(rgb, alpha),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }

    fn fill_polygon(&mut self, points: &[Vec2], rgb: [u8; 3], alpha: u8) {
        let mut pb = PathBuilder::new();
        for (k, &p) in points.iter().filter(|p| p.is_finite()).enumerate() {
            let (x, y) = self.view.px(p);
            if k == 0 {
                pb.move_to(x, y);
            } else {
                pb.line_to(x, y);
            }
        }
        pb.close();
        if let Some(path) = pb.finish() {
            self.pixmap.fill_path(
                &path,
                &paint(rgb, alpha),
                FillRule::EvenOdd,
                Transform::identity(),
                None,
            );
        }
    }

    /// A disc of world radius `r`, at least `min_px` pixels across.
    fn disc(&mut self, c: Vec2, r: f32, min_px: f32, rgb: [u8; 3], alpha: u8) {
        if !c.is_finite() || !r.is_finite() {
            return;
        }
        let (x, y) = self.view.px(c);
        let pr = (r * self.view.scale).max(min_px * 0.5);
        if let Some(path) = PathBuilder::from_circle(x, y, pr) {
            self.pixmap.fill_path(
                &path,
                &paint(rgb, alpha),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
}

/// Draws a scene `width` pixels wide (height from the map's aspect ratio).
pub fn draw(scene: &Scene, width: u32) -> Result<Pixmap, RenderError> {
    if width == 0 || width > MAX_SIDE {
        return Err(RenderError::Size(width, width));
    }
    let (view, w, h) = fit(&scene.shapes, width);
    let mut pixmap = Pixmap::new(w, h).ok_or(RenderError::Size(w, h))?;
    pixmap.fill(Color::from_rgba8(250, 250, 245, 255));
    let mut c = Canvas { pixmap, view };
    let s = &scene.shapes;
    // Map.
    if let Some(rect) = {
        let (x0, y0) = c.view.px(Vec2::new(s.min.x, s.max.y));
        let (x1, y1) = c.view.px(Vec2::new(s.max.x, s.min.y));
        Rect::from_ltrb(x0, y0, x1, y1)
    } {
        c.pixmap.fill_rect(
            rect,
            &paint([255, 255, 255], 255),
            Transform::identity(),
            None,
        );
    }
    let corners = [
        s.min,
        Vec2::new(s.max.x, s.min.y),
        s.max,
        Vec2::new(s.min.x, s.max.y),
    ];
    c.polyline(&corners, true, [60, 60, 60], 255, 2.0);
    for &(centre, r) in &s.circles {
        c.disc(centre, r, 2.0, [120, 120, 120], 255);
    }
    for poly in &s.polygons {
        c.fill_polygon(&poly.points, [120, 120, 120], 255);
    }
    for &(a, b) in &s.walls {
        c.polyline(&[a, b], false, [30, 30, 30], 255, 3.0);
    }
    for &p in &s.cover {
        c.disc(p, 0.0, 7.0, [230, 180, 0], 255);
    }
    for &(a, b) in &s.jumps {
        c.polyline(&[a, b], false, [200, 0, 200], 200, 2.0);
        c.disc(b, 0.0, 6.0, [200, 0, 200], 255);
    }
    // Trails, faint, under everything else.
    for (g, trail) in &scene.trails {
        c.polyline(trail, false, group_colour(*g), 70, 1.0);
    }
    // Anchors' paths and anchors.
    for a in &scene.anchors {
        let mut path = Vec::with_capacity(a.path.len() + 1);
        path.push(a.position);
        path.extend(a.path.iter().copied());
        c.polyline(&path, false, [0, 0, 0], 160, 1.5);
        c.disc(a.position, 0.0, 8.0, [0, 0, 0], 255);
        let tip = a.position + a.orientation * (12.0 / c.view.scale);
        c.polyline(&[a.position, tip], false, [0, 0, 0], 255, 2.0);
    }
    // Slots (small dark dots), then units (discs with a heading tick).
    for &p in &scene.slots {
        c.disc(p, 0.0, 3.0, [40, 40, 40], 200);
    }
    for u in &scene.units {
        c.disc(u.position, u.radius, 3.0, group_colour(u.group), 230);
        let tip = u.position + u.heading * u.radius.max(1.5 / c.view.scale);
        c.polyline(&[u.position, tip], false, [0, 0, 0], 200, 1.0);
    }
    Ok(c.pixmap)
}

/// Encodes `pixmap` and writes it to `path` through a temporary file in the same directory,
/// renamed into place: on any error no file (partial or otherwise) is left at `path`.
pub fn save_png(pixmap: &Pixmap, path: &Path) -> Result<(), RenderError> {
    let bytes = pixmap
        .encode_png()
        .map_err(|e| RenderError::Encode(e.to_string()))?;
    let io = |source| RenderError::Io {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "render.png".to_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        // Best effort: the temporary may not exist.
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> Scene {
        Scene {
            shapes: MapShapes {
                circles: vec![(Vec2::new(50.0, 50.0), 10.0)],
                ..MapShapes::default()
            },
            units: vec![UnitMark {
                position: Vec2::new(20.0, 80.0),
                heading: Vec2::X,
                radius: 2.0,
                group: 1,
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn draws_obstacles_and_units_where_they_are() {
        let pm = draw(&scene(), 220).unwrap();
        assert_eq!((pm.width(), pm.height()), (220, 220));
        // The view maps 0..100 to 10..210: centre of the obstacle at pixel (110, 110).
        let grey = pm.pixel(110, 110).unwrap();
        assert_eq!((grey.red(), grey.green(), grey.blue()), (120, 120, 120));
        // The unit (group 1, red) at world (20, 80) → pixel (50, 50), 4 px radius; its heading
        // tick runs to the right of the centre.
        let u = pm.pixel(50, 53).unwrap();
        assert!(u.red() > 150 && u.green() < 100, "{u:?}");
        // Empty field is white.
        let w = pm.pixel(180, 40).unwrap();
        assert_eq!((w.red(), w.green(), w.blue()), (255, 255, 255));
    }

    #[test]
    fn failed_save_leaves_no_file() {
        let pm = draw(&scene(), 64).unwrap();
        let dir = std::env::temp_dir().join(format!("cohort-render-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok.png");
        save_png(&pm, &ok).unwrap();
        let bytes = std::fs::read(&ok).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let bad = dir.join("missing-dir").join("x.png");
        assert!(save_png(&pm, &bad).is_err());
        assert!(!bad.exists());
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rejects_absurd_sizes() {
        assert!(draw(&scene(), 0).is_err());
        assert!(draw(&scene(), MAX_SIDE + 1).is_err());
    }
}
