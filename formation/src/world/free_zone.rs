//! Free zones: a ball round where a unit once stood known to hold no static geometry, so the
//! steering stage skips the geometry queries that would find nothing there.

use cohort_steering::Vec2;

/// Slack (world units) against rounding when a free zone spares a geometry query.
pub(super) const ZONE_SLACK: f32 = 1e-3;

/// Extra radius of the wider geometry query that opens a [`FreeZone`].
pub(super) const FREE_ZONE_EXTRA: f32 = 4.0;

/// A ball around where a unit once stood known to hold no static geometry (the map's
/// obstacles and walls never change). Kept between ticks in the scratch arrays, at the same
/// index as its unit's key in the gather's `ids` (which the gather overwrites in place, so it
/// knows whose zone an entry was); it only ever skips queries that would have found nothing,
/// so results do not depend on it (a world restored from a snapshot starts without zones and
/// steps identically).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeZone {
    centre: Vec2,
    /// Negative: no zone.
    radius: f32,
}

impl FreeZone {
    pub(super) fn open(&mut self, centre: Vec2, radius: f32) {
        self.centre = centre;
        self.radius = radius;
    }

    pub(super) fn close(&mut self) {
        self.radius = -1.0;
    }

    /// No zone (yet).
    pub(super) fn closed() -> Self {
        Self {
            centre: Vec2::ZERO,
            radius: -1.0,
        }
    }

    /// How far around `p` the zone is known empty (negative: not at all), less a slack
    /// against rounding.
    #[inline]
    pub(super) fn free_around(&self, p: Vec2) -> f32 {
        if self.radius < 0.0 {
            return -1.0;
        }
        self.radius - (p - self.centre).length() - ZONE_SLACK
    }
}
