//! Filling the exact solver's cost matrix: [`AssignmentConfig::cost`] of every pair, row by
//! row in a loop the compiler vectorises (the columns' positions gathered into plain arrays,
//! the metric and role checks hoisted out of the inner loop). The float operations are the
//! ones of [`AssignmentConfig::cost`] in the same order, so every entry has the same bits
//! (checked by a test).

use super::{AssignmentConfig, CostMetric, Located, UNREACHABLE_COST};

/// Reusable column data of the cost matrix.
#[derive(Clone, Debug, Default)]
pub(super) struct CostMatrix {
    xs: Vec<f32>,
    ys: Vec<f32>,
    roles: Vec<crate::pattern::Role>,
    /// Role penalty of each column for the current row.
    penalty: Vec<f64>,
}

impl CostMatrix {
    /// Writes the cost of `rows[r]` against `cols[c]` to `out[r * stride + c]`; with
    /// `members_are_rows` the rows are members and the columns slots, otherwise the reverse.
    /// Rows or columns beyond `out` are skipped.
    pub fn fill<'a>(
        &mut self,
        config: &AssignmentConfig,
        rows: impl Iterator<Item = &'a Located>,
        cols: impl Iterator<Item = &'a Located> + Clone,
        members_are_rows: bool,
        out: &mut [f64],
        stride: usize,
    ) {
        self.xs.clear();
        self.xs.extend(cols.clone().map(|l| l.position.x));
        self.ys.clear();
        self.ys.extend(cols.clone().map(|l| l.position.y));
        self.roles.clear();
        self.roles.extend(cols.map(|l| l.role));
        let n = self.xs.len().min(stride);
        self.penalty.clear();
        self.penalty.resize(n, 0.0);
        let role_penalty = f64::from(config.role_penalty);
        // The penalties depend on the row only through its role: recomputed when it changes.
        let mut penalty_role = None;
        for (row, line) in rows.zip(out.chunks_exact_mut(stride.max(1))) {
            if penalty_role != Some(row.role) {
                penalty_role = Some(row.role);
                self.fill_penalties(row.role, members_are_rows, role_penalty);
            }
            let line = &mut line[..n];
            let (xs, ys, pen) = (&self.xs[..n], &self.ys[..n], &self.penalty[..n]);
            let (px, py) = (row.position.x, row.position.y);
            // `cost` takes `member - slot`; `a - b` is exactly `-(b - a)` in IEEE floats, so
            // the squares match whichever side the members are on.
            match config.metric {
                CostMetric::SquaredDistance => {
                    for (((e, &x), &y), &p) in line.iter_mut().zip(xs).zip(ys).zip(pen) {
                        let dx = f64::from(px - x);
                        let dy = f64::from(py - y);
                        *e = finish(dx * dx + dy * dy, p);
                    }
                }
                CostMetric::Distance => {
                    for (((e, &x), &y), &p) in line.iter_mut().zip(xs).zip(ys).zip(pen) {
                        let dx = f64::from(px - x);
                        let dy = f64::from(py - y);
                        *e = finish((dx * dx + dy * dy).sqrt(), p);
                    }
                }
            }
        }
    }
}

impl CostMatrix {
    /// The role penalty of every column for a row of role `role`.
    fn fill_penalties(&mut self, role: crate::pattern::Role, members_are_rows: bool, penalty: f64) {
        for (p, &col_role) in self.penalty.iter_mut().zip(&self.roles) {
            let (slot, member) = if members_are_rows {
                (col_role, role)
            } else {
                (role, col_role)
            };
            *p = if slot.accepts(member) { 0.0 } else { penalty };
        }
    }
}

/// The tail of [`AssignmentConfig::cost`]: non-finite costs are unreachable, otherwise the
/// penalty is added and the result capped. Branch-free: `c` is a square root or a sum of
/// squares, so `>= 0`, `+inf` or NaN, and an infinite or NaN `c` fails the comparison and
/// gives the cap, as does a finite sum above it.
#[inline]
pub(super) fn finish(c: f64, penalty: f64) -> f64 {
    let c = c + penalty;
    if c < UNREACHABLE_COST {
        c
    } else {
        UNREACHABLE_COST
    }
}
