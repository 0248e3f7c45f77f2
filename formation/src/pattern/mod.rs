//! Formation patterns: authored as plain data (RON files in `patterns/`), validated once, laid
//! out for any member count.
//!
//! A pattern lays out slots in its *local frame*: `+x` is the formation's facing (forward), `+y`
//! is its left. The laid-out offsets are always **centred**: their mean is `(0, 0)`, so the
//! anchor of a formation is the centre of mass of its slots (the formation layer relies on this
//! for drift correction).
//!
//! Every fixed kind scales to any member count (see [`PatternKind`] for each rule); a
//! [`PatternKind::Custom`] list of authored slots is extended behind by repeating the authored
//! block when there are more members than slots.

pub mod error;
pub mod file;
mod narrowed;
pub mod polyline;
mod shapes;

use glam::Vec2;
use serde::{Deserialize, Serialize};

pub use error::PatternError;
pub use file::load_pattern;
pub use polyline::{PolylineFrame, polyline_layout};

use error::{check_non_negative, check_positive};

/// Most slots a [`PatternKind::Custom`] pattern may author.
pub const MAX_CUSTOM_SLOTS: usize = 1024;
/// Most members one layout places; [`ValidPattern::layout`] lays out at most this many slots.
pub const MAX_MEMBERS: usize = 65_536;
/// Largest spacing and largest authored offset component accepted, in world units.
pub const MAX_EXTENT: f32 = 1.0e5;
/// Smallest spacing accepted, in world units (slots closer than this are one point to `f32`
/// arithmetic anywhere but near the origin).
pub const MIN_SPACING: f32 = 1.0e-6;
/// Spacing between neighbouring slot centres used by [`Pattern::for_radius`], in unit radii
/// (3 radii: a gap of one radius between neighbours).
pub const DEFAULT_SPACING_RADII: f32 = 3.0;
/// Spacing, in unit radii, a formation closes up to when it narrows for a passage
/// ([`ValidPattern::narrowed`]): half a radius between neighbours, but at least
/// [`CLOSED_GAP`].
pub const CLOSED_SPACING_RADII: f32 = 2.5;
/// Least gap (world units) between closed-up neighbours: small units need room to walk
/// whatever their size. A quarter metre lets three units of radius 0.5 walk abreast through
/// a 4 m gap.
pub const CLOSED_GAP: f32 = 0.25;
/// Spacing, in unit radii, a formation closes up to when it narrows for a passage it walks
/// through with no one coming the other way ([`ValidPattern::narrowed_one_way`]): a tenth
/// of a radius between neighbours, but at least [`ONE_WAY_GAP`]. How fast a
/// formation files through a gap is how closely its ranks follow each other: three files of
/// units of radius 0.5 at 1.3 m/s carry 3.1 units a second through a 4 m gap 2.5 radii
/// apart, 3.7 at 2.1.
pub const ONE_WAY_SPACING_RADII: f32 = 2.1;
/// Least gap (world units) between neighbours closed up for a passage walked one way.
pub const ONE_WAY_GAP: f32 = 0.05;
/// Fraction of the spacing by which the room across a passage may fall short of one more
/// file and still take it ([`ValidPattern::narrowed`]).
pub const FIT_SLACK: f32 = 0.05;
/// Room, in unit radii, a narrowed formation leaves between its outer files and the walls.
pub const CLOSED_MARGIN_RADII: f32 = 1.0;

/// What a slot is for; assignment prefers members whose role matches (see
/// [`Role::accepts`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Role {
    /// Anyone may take the slot.
    #[default]
    Any,
    /// The leader of a small group (the conventional lead position of a fixed pattern).
    Leader,
    /// A fire team (a sub-formation of a squad).
    FireTeam,
    /// A squad leader.
    SquadLeader,
    /// A platoon leader.
    PlatoonLeader,
    /// A heavy weapons team.
    HeavyWeapons,
    /// Communications (radio operator).
    Comms,
    /// A game-defined role.
    Custom(u16),
}

impl Role {
    /// Whether a member with role `member` fits a slot with this role without penalty: an
    /// [`Role::Any`] slot takes anyone, any other slot only its own role.
    #[inline]
    pub fn accepts(self, member: Role) -> bool {
        self == Role::Any || self == member
    }
}

/// One place in a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Slot {
    /// Position in the pattern's local frame (`+x` forward, `+y` left).
    pub offset: Vec2,
    /// Facing in the local frame (a unit vector; `+x` faces the way the formation faces).
    pub facing: Vec2,
    /// What the slot is for.
    pub role: Role,
}

impl Default for Slot {
    /// A slot at the origin facing forward, for anyone.
    fn default() -> Self {
        Self {
            offset: Vec2::ZERO,
            facing: Vec2::X,
            role: Role::Any,
        }
    }
}

impl Slot {
    /// A slot at `offset` facing forward for `role`.
    pub fn new(offset: Vec2, role: Role) -> Self {
        Self {
            offset,
            facing: Vec2::X,
            role,
        }
    }
}

/// The shape of a pattern. Fixed kinds are laid out at `spacing` between neighbours for any
/// member count `n`; slot 0 of a fixed kind is given [`Role::Leader`] (the conventional lead
/// position), every other slot [`Role::Any`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum PatternKind {
    /// One rank abreast, grows sideways; the leader is in the middle.
    #[default]
    Line,
    /// One file, grows backwards; the leader is in front.
    Column,
    /// A V: the leader at the point, members alternately added to the left and right arms
    /// (each arm goes back 0.6 and out 0.8 spacings per member).
    Wedge,
    /// Groups of four in the finger-four shape (leader, wingman back-left, element leader
    /// back-right, element wingman further back-right); more groups are set out in rows of
    /// groups, about as many rows as groups per row.
    FingerFour,
    /// A diagonal going back to the left, grows along the diagonal.
    EchelonLeft,
    /// A diagonal going back to the right, grows along the diagonal.
    EchelonRight,
    /// A filled block: rows of `ceil(sqrt(n))` abreast from the front, the last row centred.
    Box,
    /// A filled block of a fixed width: rows of this many abreast (at least 1) from the front,
    /// the last row centred. `Ranks(1)` is a column; formations close up into ranks to pass
    /// a passage narrower than their pattern.
    Ranks(u16),
    /// Members facing outward on a ring whose radius keeps the spacing (up to 16 members);
    /// larger counts become concentric rings one spacing apart (innermost radius two
    /// spacings), each holding a share proportional to its circumference: 100 members make 5
    /// rings.
    DefensiveCircle,
    /// Pairs abreast, one spacing apart, one and a half spacings between pairs; the left file
    /// faces forward-left and the right file forward-right to cover the flanks (a lone last
    /// member is centred and faces forward).
    TwoAbreast,
    /// Authored slots, laid out in order: `n` members take the first `n` slots. With more
    /// members than slots the authored block is repeated behind itself (one block depth plus
    /// one spacing further back each time) with [`Role::Any`] and the authored facings.
    Custom(Vec<Slot>),
}

/// A formation pattern as authored: plain data, loaded from RON, checked by
/// [`Pattern::validate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Pattern {
    /// The shape.
    pub kind: PatternKind,
    /// Distance between neighbouring slot centres, world units (finite, > 0).
    pub spacing: f32,
    /// Radius of the units the pattern is laid out for (finite, >= 0); used for
    /// [`ValidPattern::width`] and [`ValidPattern::depth`].
    pub unit_radius: f32,
}

impl Default for Pattern {
    /// A line for man-sized units (radius 0.5, spacing 1.5).
    fn default() -> Self {
        Self::for_radius(PatternKind::Line, 0.5)
    }
}

impl Pattern {
    /// A pattern of `kind` for units of `unit_radius`, spaced [`DEFAULT_SPACING_RADII`] radii
    /// apart. Plain data: [`Pattern::validate`] checks it.
    pub fn for_radius(kind: PatternKind, unit_radius: f32) -> Self {
        Self {
            kind,
            spacing: unit_radius * DEFAULT_SPACING_RADII,
            unit_radius,
        }
    }

    /// A pattern of `kind` for a formation whose members include sub-formations: `children`
    /// lists each sub-formation's pattern with its number of members, `unit_radius` is the
    /// largest unit radius in the subtree (0 or less: 0.5). Without children it is
    /// [`Pattern::for_radius`]; with them, slots are at least the largest child's extent
    /// (its depth or width, laid out for its members, whichever is larger) plus one unit
    /// diameter apart, so neighbouring sub-formations do not overlap, and the pattern's unit
    /// radius is at least half that extent (a sub-formation takes as much room as a unit of
    /// that radius would).
    ///
    /// ```
    /// use cohort_formation::{Pattern, PatternKind};
    ///
    /// let squad = Pattern::for_radius(PatternKind::Wedge, 0.5).validate().unwrap();
    /// let platoon = Pattern::for_children(PatternKind::Line, 0.5, [(&squad, 5), (&squad, 6)]);
    /// assert!(platoon.spacing >= squad.extent(6).max_element() + 1.0);
    /// ```
    pub fn for_children<'a>(
        kind: PatternKind,
        unit_radius: f32,
        children: impl IntoIterator<Item = (&'a ValidPattern, usize)>,
    ) -> Self {
        let r = if unit_radius > 0.0 { unit_radius } else { 0.5 };
        let mut p = Self::for_radius(kind, r);
        let mut child_extent = 0.0f32;
        for (c, n) in children {
            child_extent = child_extent.max(c.extent(n).max_element());
        }
        if child_extent > 0.0 {
            p.spacing = p.spacing.max(child_extent + 2.0 * r);
            p.unit_radius = p.unit_radius.max(0.5 * child_extent);
        }
        p
    }

    /// Checks the pattern: spacing finite and within [[`MIN_SPACING`], [`MAX_EXTENT`]]; unit
    /// radius finite, not negative and at most 1e4; custom slots non-empty, at most [`MAX_CUSTOM_SLOTS`], finite
    /// offsets within [`MAX_EXTENT`] and finite, non-zero facings (normalized in the result,
    /// unless already unit length to within rounding: validating a valid pattern again gives
    /// it back bit for bit).
    pub fn validate(&self) -> Result<ValidPattern, PatternError> {
        check_positive("spacing", self.spacing)?;
        if !(MIN_SPACING..=MAX_EXTENT).contains(&self.spacing) {
            return Err(PatternError::BadValue {
                what: "spacing",
                expected: "in [1e-6, 1e5]",
                value: self.spacing,
            });
        }
        check_non_negative("unit_radius", self.unit_radius)?;
        if self.unit_radius > cohort_steering::limits::MAX_RADIUS {
            return Err(PatternError::BadValue {
                what: "unit_radius",
                expected: "at most 1e4",
                value: self.unit_radius,
            });
        }
        if self.kind == PatternKind::Ranks(0) {
            return Err(PatternError::BadValue {
                what: "kind",
                expected: "Ranks of at least 1 abreast",
                value: 0.0,
            });
        }
        let mut valid = self.clone();
        if let PatternKind::Custom(slots) = &mut valid.kind {
            if slots.is_empty() {
                return Err(PatternError::EmptyCustom);
            }
            if slots.len() > MAX_CUSTOM_SLOTS {
                return Err(PatternError::TooMany {
                    what: "custom slots",
                    count: slots.len(),
                    max: MAX_CUSTOM_SLOTS,
                });
            }
            for (index, slot) in slots.iter_mut().enumerate() {
                if !slot.offset.is_finite() || slot.offset.abs().max_element() > MAX_EXTENT {
                    return Err(PatternError::NonFiniteSlot {
                        index,
                        what: "offset",
                    });
                }
                if !slot.facing.is_finite() {
                    return Err(PatternError::NonFiniteSlot {
                        index,
                        what: "facing",
                    });
                }
                slot.facing = unit_facing(slot.facing).ok_or(PatternError::ZeroFacing { index })?;
            }
        }
        Ok(ValidPattern(valid))
    }
}

/// A checked [`Pattern`], ready to lay out. Serializes as the pattern it wraps and validates
/// again when deserialized (`TryFrom<Pattern>`), with the [`PatternError`] as the message: a
/// pattern read back from its own text is the same, bit for bit.
///
/// ```
/// use cohort_formation::{Pattern, PatternKind, ValidPattern};
///
/// let wedge = ValidPattern::try_from(Pattern::for_radius(PatternKind::Wedge, 0.5)).unwrap();
/// let text = ron::to_string(&wedge).unwrap();
/// assert_eq!(text, ron::to_string(wedge.pattern()).unwrap());
/// assert_eq!(ron::from_str::<ValidPattern>(&text).unwrap(), wedge);
/// let bad = ron::from_str::<ValidPattern>("(kind: Wedge, spacing: -1.0)").unwrap_err();
/// assert!(bad.to_string().contains("spacing must be finite and > 0"));
/// ```
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Pattern")]
pub struct ValidPattern(Pattern);

impl Serialize for ValidPattern {
    /// As the wrapped [`Pattern`], by reference (hashing a world's state must not clone it).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl TryFrom<Pattern> for ValidPattern {
    type Error = PatternError;

    fn try_from(pattern: Pattern) -> Result<Self, Self::Error> {
        pattern.validate()
    }
}

impl From<ValidPattern> for Pattern {
    fn from(valid: ValidPattern) -> Self {
        valid.0
    }
}

impl Default for ValidPattern {
    /// The default [`Pattern`] (a line), which is valid.
    fn default() -> Self {
        Self(Pattern::default())
    }
}

impl ValidPattern {
    /// The pattern as authored (custom facings normalized).
    pub fn pattern(&self) -> &Pattern {
        &self.0
    }

    /// The shape.
    pub fn kind(&self) -> &PatternKind {
        &self.0.kind
    }

    /// Distance between neighbouring slot centres.
    pub fn spacing(&self) -> f32 {
        self.0.spacing
    }

    /// Radius of the units the pattern is laid out for.
    pub fn unit_radius(&self) -> f32 {
        self.0.unit_radius
    }

    /// The same spacing and unit radius as a [`PatternKind::Column`] (the narrowest pattern,
    /// for narrow passages).
    pub fn as_column(&self) -> ValidPattern {
        ValidPattern(Pattern {
            kind: PatternKind::Column,
            spacing: self.0.spacing,
            unit_radius: self.0.unit_radius,
        })
    }

    /// Lays out `count` slots (at most [`MAX_MEMBERS`]) into `out`, replacing its contents and
    /// reusing its capacity. The offsets are centred: their mean is `(0, 0)`.
    pub fn layout(&self, count: usize, out: &mut Vec<Slot>) {
        out.clear();
        let count = count.min(MAX_MEMBERS);
        out.reserve(count);
        shapes::emit(&self.0.kind, self.0.spacing, count, &mut |slot| {
            out.push(slot)
        });
        let mean = mean_offset(out);
        for slot in out.iter_mut() {
            slot.offset -= mean;
        }
    }

    /// Lateral extent (along local `y`) of the layout of `count` members, including the unit
    /// radius on both sides; 0 for no members. Does not allocate.
    pub fn width(&self, count: usize) -> f32 {
        self.extent(count).y
    }

    /// Longitudinal extent (along local `x`) of the layout of `count` members, including the
    /// unit radius front and back; 0 for no members. Does not allocate.
    pub fn depth(&self, count: usize) -> f32 {
        self.extent(count).x
    }

    /// `(depth, width)` of the layout of `count` members (see [`ValidPattern::width`]).
    pub fn extent(&self, count: usize) -> Vec2 {
        let count = count.min(MAX_MEMBERS);
        if count == 0 {
            return Vec2::ZERO;
        }
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        shapes::emit(&self.0.kind, self.0.spacing, count, &mut |slot| {
            lo = lo.min(slot.offset);
            hi = hi.max(slot.offset);
        });
        (hi - lo).max(Vec2::ZERO) + Vec2::splat(2.0 * self.0.unit_radius)
    }
}

/// How far from 1 the squared length of a facing may be for it to count as a unit vector
/// already: normalizing leaves it within 3 `EPSILON` of 1.
const UNIT_TOLERANCE: f32 = 8.0 * f32::EPSILON;

/// `facing` (finite) as a unit vector: as it is when it is one to within rounding, normalized
/// otherwise, so that validating a valid pattern again (as a snapshot or an order read back
/// does) changes no bit; `None` for a zero (or too short) vector.
fn unit_facing(facing: Vec2) -> Option<Vec2> {
    if (facing.length_squared() - 1.0).abs() <= UNIT_TOLERANCE {
        Some(facing)
    } else {
        facing.try_normalize()
    }
}

/// Mean offset of `slots` (summed in `f64`); zero for none.
pub(crate) fn mean_offset(slots: &[Slot]) -> Vec2 {
    if slots.is_empty() {
        return Vec2::ZERO;
    }
    let (mut x, mut y) = (0.0f64, 0.0f64);
    for slot in slots {
        x += f64::from(slot.offset.x);
        y += f64::from(slot.offset.y);
    }
    let n = slots.len() as f64;
    Vec2::new((x / n) as f32, (y / n) as f32)
}

#[cfg(test)]
mod tests;
