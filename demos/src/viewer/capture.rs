//! Saving the window as a PNG: the pixels come from macroquad's own screen capture
//! (`get_screen_data`), are turned top-down and opaque, and are written with the same atomic
//! PNG writer as `cohort render` (macroquad's `Image::export_png` panics on a write error).

use std::path::Path;

use macroquad::texture::get_screen_data;
use tiny_skia::{IntSize, Pixmap};

/// Captures what has been drawn this frame and writes it to `path`; returns the size.
pub fn save_screen(path: &Path) -> Result<(u32, u32), String> {
    let image = get_screen_data();
    let (w, h) = (u32::from(image.width), u32::from(image.height));
    let row = w as usize * 4;
    if image.bytes.len() != row * h as usize {
        return Err(format!(
            "screen capture has {} bytes for {w} × {h} pixels",
            image.bytes.len()
        ));
    }
    let mut bytes = Vec::with_capacity(image.bytes.len());
    for line in image.bytes.chunks_exact(row.max(1)).rev() {
        bytes.extend_from_slice(line);
    }
    for px in bytes.chunks_exact_mut(4) {
        px[3] = 255;
    }
    let size = IntSize::from_wh(w, h).ok_or_else(|| format!("empty screen capture {w} × {h}"))?;
    let pixmap = Pixmap::from_vec(bytes, size).ok_or("screen capture does not fit a pixmap")?;
    crate::render::save_png(&pixmap, path).map_err(|e| e.to_string())?;
    Ok((w, h))
}
