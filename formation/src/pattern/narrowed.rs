//! Closing up for a narrow passage: the closest-packed block of ranks that fits its width.

use super::{
    CLOSED_GAP, CLOSED_MARGIN_RADII, CLOSED_SPACING_RADII, FIT_SLACK, ONE_WAY_GAP,
    ONE_WAY_SPACING_RADII, Pattern, PatternKind, ValidPattern,
};

impl ValidPattern {
    /// The closest-packed block of `count` members of radius `unit_radius` that fits a passage
    /// `width` wide: rows of as many abreast as fit ([`PatternKind::Ranks`]) at the smaller of
    /// this pattern's spacing and [`CLOSED_SPACING_RADII`] unit radii (a gap of at least
    /// [`CLOSED_GAP`]), leaving
    /// [`CLOSED_MARGIN_RADII`] radii of room, never wider than this pattern's own width, at
    /// least one abreast (a column) however narrow the passage.
    pub fn narrowed(&self, count: usize, width: f32, unit_radius: f32) -> ValidPattern {
        self.closed_up(
            count,
            width,
            unit_radius,
            (CLOSED_SPACING_RADII, CLOSED_GAP),
        )
    }

    /// [`Self::narrowed`] for a passage walked through with no one coming the other way: the
    /// ranks close up to [`ONE_WAY_SPACING_RADII`] (a gap of at least [`ONE_WAY_GAP`]), so
    /// more of them pass a point each second. The world keeps the wider spacing of
    /// [`Self::narrowed`] for a formation passing an oncoming one with no room beside its
    /// file, and for one closing on a goal in the narrows: the pushes of the other file, or
    /// of the walls round the goal, need the room.
    pub fn narrowed_one_way(&self, count: usize, width: f32, unit_radius: f32) -> ValidPattern {
        self.closed_up(
            count,
            width,
            unit_radius,
            (ONE_WAY_SPACING_RADII, ONE_WAY_GAP),
        )
    }

    /// [`Self::narrowed`] with the spacing `radii` unit radii and the least gap `gap`.
    fn closed_up(
        &self,
        count: usize,
        width: f32,
        unit_radius: f32,
        (radii, gap): (f32, f32),
    ) -> ValidPattern {
        let r = if unit_radius.is_finite() && unit_radius > 0.0 {
            unit_radius
        } else {
            self.0.unit_radius
        };
        let spacing = if r > 0.0 {
            self.0.spacing.min((radii * r).max(2.0 * r + gap))
        } else {
            self.0.spacing
        };
        let room = width - 2.0 * r - CLOSED_MARGIN_RADII * r;
        let fit = if room.is_finite() && room > 0.0 {
            // A few centimetres short still fits (a passage measured along a path a little
            // off its middle: the margin takes it).
            (room / spacing + FIT_SLACK) as usize + 1
        } else {
            1
        };
        let own = self.extent(count).y - 2.0 * self.0.unit_radius;
        let own = if own.is_finite() && own > 0.0 {
            (own / spacing) as usize + 1
        } else {
            1
        };
        let abreast = fit
            .min(own)
            .min(count.max(1))
            .clamp(1, usize::from(u16::MAX));
        ValidPattern(Pattern {
            kind: PatternKind::Ranks(abreast as u16),
            spacing,
            unit_radius: self.0.unit_radius,
        })
    }
}
