//! The order in which the formation stage visits formations: parents before children, each
//! top-level formation's subtree a run of it. Kept between ticks; a change of the tree walks
//! it again, a reorder of sub-formations only the subtree concerned.

use slotmap::SlotMap;

use super::World;
use super::scratch::Scratch;
use super::tally::MemberTally;
use crate::formation::{Formation, Member};
use crate::ids::FormationId;

impl World {
    /// Formations in top-down order (roots in key order, then each subtree depth first); the
    /// roots alone, in key order, in `scratch.roots`, each with the run of the order its
    /// subtree fills. Kept from the last tick while the tree has not changed (see
    /// `Scratch::order_valid`); a subtree whose sub-formations were reordered is walked again
    /// in its own run, so a re-assignment costs the size of its subtree, not of the army
    /// (debug builds check the kept order against a fresh walk).
    pub(super) fn collect_formation_order(&mut self) {
        let Scratch {
            order,
            stack,
            roots,
            tallies,
            order_valid,
            stale_subtrees,
            #[cfg(test)]
            full_walks,
            ..
        } = &mut self.scratch;
        if *order_valid {
            for &r in stale_subtrees.iter() {
                let Some(&(root, start, end)) = roots.get(r as usize) else {
                    *order_valid = false;
                    break;
                };
                let Some(run) = order.get_mut(start as usize..end as usize) else {
                    *order_valid = false;
                    break;
                };
                // A reorder keeps the subtree's formations, so they fill the same run.
                let mut k = 0usize;
                walk_subtree(&self.formations, stack, root, |id| {
                    if let Some(cell) = run.get_mut(k) {
                        *cell = id;
                    }
                    k += 1;
                });
                if k != run.len() {
                    *order_valid = false;
                    break;
                }
            }
        }
        stale_subtrees.clear();
        if !*order_valid {
            #[cfg(test)]
            {
                *full_walks += 1;
            }
            order.clear();
            roots.clear();
            walk_formation_tree(&self.formations, stack, |id, is_root| {
                let k = order.len() as u32;
                if is_root {
                    if let Some(last) = roots.last_mut() {
                        last.2 = k;
                    }
                    roots.push((id, k, k));
                }
                order.push(id);
            });
            if let Some(last) = roots.last_mut() {
                last.2 = order.len() as u32;
            }
            // Room for every root to be marked in one tick (all platoons re-optimize on the
            // same tick), so marking never allocates once warm.
            stale_subtrees.reserve(roots.len());
            *order_valid = true;
        } else if cfg!(debug_assertions) {
            let (mut k, mut r, mut same) = (0usize, 0usize, true);
            walk_formation_tree(&self.formations, stack, |id, is_root| {
                if is_root {
                    same &= roots
                        .get(r)
                        .is_some_and(|&(root, start, _)| root == id && start as usize == k);
                    same &= r == 0 || roots.get(r - 1).is_some_and(|p| p.2 as usize == k);
                    r += 1;
                }
                same &= order.get(k) == Some(&id);
                k += 1;
            });
            same &= k == order.len() && r == roots.len();
            same &= roots.last().is_none_or(|l| l.2 as usize == k);
            debug_assert!(same, "the kept formation order is stale");
        }
        tallies.clear();
        tallies.resize(order.len(), MemberTally::default());
    }
}

/// Walks the formation tree top-down: `visit(id, is_root)` for every formation, the roots
/// in key order, each followed by its subtree depth first in member order. `stack` is
/// scratch (given room for every formation, so it does not grow once warm).
fn walk_formation_tree(
    formations: &SlotMap<FormationId, Formation>,
    stack: &mut Vec<FormationId>,
    mut visit: impl FnMut(FormationId, bool),
) {
    for (root, f) in formations.iter() {
        if f.parent.is_none() {
            walk_subtree(formations, stack, root, |id| visit(id, id == root));
        }
    }
}

/// Walks the subtree of `root` top-down, depth first in member order: `visit(id)` for
/// `root` and every formation below it. `stack` as in [`walk_formation_tree`].
fn walk_subtree(
    formations: &SlotMap<FormationId, Formation>,
    stack: &mut Vec<FormationId>,
    root: FormationId,
    mut visit: impl FnMut(FormationId),
) {
    stack.clear();
    stack.reserve(formations.len());
    stack.push(root);
    while let Some(top) = stack.pop() {
        visit(top);
        if let Some(tf) = formations.get(top) {
            for m in tf.members.iter().rev() {
                if let Member::Formation(c) = *m {
                    stack.push(c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
