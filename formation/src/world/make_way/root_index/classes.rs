//! The roots by reach class, for the queries whose windows grow with the reach of the roots
//! they look for (see `root_index.rs`).
//!
//! A window wide enough for the largest formation is far too wide for the rest: where most
//! roots are small and a few are large (flat groups cut from an army's ranks, some of them
//! spanning two platoons), one large root would make every query look at most of the
//! others. Each class holds the roots whose reach (half-extent length) is at most a power
//! of two, and each is bucketed on its own, so a query looks at each class with a window
//! sized by that class's largest reach.

use super::RootEntry;
use super::strips::Strips;

/// Reach classes: at most 1 m, 2 m, ..., 64 m, and the rest.
pub(super) const CLASSES: usize = 8;

/// The roots bucketed by reach class.
#[derive(Clone, Debug, Default)]
pub(super) struct ReachClasses {
    /// Each class's roots.
    strips: [Strips; CLASSES],
    /// Each class's largest reach (0 when empty).
    reach: [f32; CLASSES],
    /// The roots' indices into the entries, grouped by class (each class by x).
    members: Vec<u32>,
    /// Whether every anchor and every reach is finite (the classes are built only then).
    usable: bool,
}

impl ReachClasses {
    /// Rebuilds the classes from the `entries` (sorted by x) that `keep` keeps. Allocates
    /// nothing once warm (every class has room for every entry).
    pub(super) fn build(&mut self, entries: &[RootEntry], keep: impl Fn(&RootEntry) -> bool) {
        self.usable = entries
            .iter()
            .all(|e| e.position.is_finite() && e.circle_radius.is_finite());
        let mut counts = [0u32; CLASSES + 1];
        self.reach = [0.0; CLASSES];
        if self.usable {
            for e in entries.iter().filter(|e| keep(e)) {
                let r = e.circle_radius;
                let k = class_of(r);
                counts[k + 1] += 1;
                self.reach[k] = self.reach[k].max(r);
            }
        }
        for k in 0..CLASSES {
            counts[k + 1] += counts[k];
        }
        // Counting sort by class, stable, so each class stays sorted by x.
        self.members.clear();
        self.members.reserve(entries.len());
        self.members.resize(counts[CLASSES] as usize, 0);
        let mut cursor = counts;
        if self.usable {
            for (i, e) in entries.iter().enumerate().filter(|(_, e)| keep(e)) {
                let c = &mut cursor[class_of(e.circle_radius)];
                if let Some(slot) = self.members.get_mut(*c as usize) {
                    *slot = i as u32;
                }
                *c += 1;
            }
        }
        for (k, strips) in self.strips.iter_mut().enumerate() {
            let class = self
                .members
                .get(counts[k] as usize..counts[k + 1] as usize)
                .unwrap_or(&[]);
            // Room for every root in every class (as the heading classes have): roots change
            // class as they close up into ranks and open out again, so a class may take many
            // more of them in a tick than it ever held, and a warm tick allocates nothing.
            strips.build(entries, class.iter().copied(), entries.len());
        }
    }

    /// Whether the classes hold every root (every anchor and reach is finite).
    pub(super) fn usable(&self) -> bool {
        self.usable
    }

    /// Whether `found` holds for some class's roots and largest reach, asked class by class
    /// (those with roots) until it does.
    pub(super) fn any_class(&self, mut found: impl FnMut(&Strips, f32) -> bool) -> bool {
        self.strips
            .iter()
            .zip(&self.reach)
            .any(|(strips, &reach)| !strips.is_empty() && found(strips, reach))
    }

    /// Calls `visit` with each class's roots and its largest reach (classes without roots
    /// are passed over).
    pub(super) fn for_each_class(&self, mut visit: impl FnMut(&Strips, f32)) {
        for (strips, &reach) in self.strips.iter().zip(&self.reach) {
            if !strips.is_empty() {
                visit(strips, reach);
            }
        }
    }
}

/// The class of reach `r` (finite, at least 0): the first whose bound (1 m, doubling) it is
/// at most, the last beyond 64 m.
fn class_of(r: f32) -> usize {
    let mut bound = 1.0f32;
    let mut k = 0;
    while k + 1 < CLASSES && r > bound {
        bound *= 2.0;
        k += 1;
    }
    k
}
