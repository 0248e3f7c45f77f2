//! The metrics of one run, as JSON (`cohort run --json`) or a table.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The figures of one run; the field names are the JSON keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Ticks simulated.
    pub ticks: u64,
    /// Units alive at the end.
    pub units: u64,
    /// Mean distance from unit to slot target over the last second, world units.
    pub mean_slot_error: f64,
    /// Largest distance from unit to slot target over the last second, world units.
    pub max_slot_error: f64,
    /// Tick-pair events where two units were closer than 95 % of their radii sum.
    pub overlaps: u64,
    /// Worst `(r1 + r2 - d) / (r1 + r2)` seen.
    pub max_overlap_depth: f64,
    /// Tick-unit events inside an obstacle, out of bounds or through a wall.
    pub penetrations: u64,
    /// Units within their radius of their final slot, their formation at its goal, at the end.
    pub arrived: u64,
    /// Seconds until every unit had arrived (and stayed so to the end), or `null`.
    pub time_to_arrive: Option<f64>,
    /// Units that stood within their radius of one spot for 5 s while ordered to move and away
    /// from where they are bound (a member from its slot, a single from its goal).
    pub stuck: u64,
    /// Mean distance travelled over straight-line distance (`null` if nothing moved).
    pub path_ratio: Option<f64>,
    /// Worst heading change, radians per second.
    pub max_turn_rate: f64,
    /// NaN or infinite values seen.
    pub non_finite: u64,
    /// Hash of the final world state, 16 hex digits.
    pub state_hash: String,
    /// The state hash every N ticks (`cohort run --hash-every N`; empty without it).
    pub hashes: Vec<TickHash>,
}

/// The world's state hash after a tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickHash {
    /// Ticks run when it was taken.
    pub tick: u64,
    /// [`cohort_formation::World::state_hash`], 16 hex digits.
    pub hash: String,
}

impl TickHash {
    /// The hash `hash` taken after tick `tick`.
    pub fn new(tick: u64, hash: u64) -> Self {
        Self {
            tick,
            hash: format!("{hash:016x}"),
        }
    }
}

impl Report {
    /// One JSON object on one line.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

fn opt(v: Option<f64>, unit: &str) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}{unit}"))
}

impl fmt::Display for Report {
    /// A two-column table, one metric per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: [(&str, String); 14] = [
            ("ticks", self.ticks.to_string()),
            ("units", self.units.to_string()),
            ("mean_slot_error", format!("{:.3}", self.mean_slot_error)),
            ("max_slot_error", format!("{:.3}", self.max_slot_error)),
            ("overlaps", self.overlaps.to_string()),
            (
                "max_overlap_depth",
                format!("{:.3}", self.max_overlap_depth),
            ),
            ("penetrations", self.penetrations.to_string()),
            ("arrived", format!("{} / {}", self.arrived, self.units)),
            ("time_to_arrive", opt(self.time_to_arrive, " s")),
            ("stuck", self.stuck.to_string()),
            ("path_ratio", opt(self.path_ratio, "")),
            ("max_turn_rate", format!("{:.3} rad/s", self.max_turn_rate)),
            ("non_finite", self.non_finite.to_string()),
            ("state_hash", self.state_hash.clone()),
        ];
        for (name, value) in rows {
            writeln!(f, "{name:<18} {value}")?;
        }
        for h in &self.hashes {
            writeln!(f, "{:<18} {}", format!("hash at {}", h.tick), h.hash)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_exactly_the_issue_keys() {
        let r = Report {
            ticks: 10,
            units: 2,
            mean_slot_error: 0.25,
            max_slot_error: 0.5,
            overlaps: 0,
            max_overlap_depth: 0.0,
            penetrations: 0,
            arrived: 2,
            time_to_arrive: None,
            stuck: 0,
            path_ratio: Some(1.5),
            max_turn_rate: 1.0,
            non_finite: 0,
            state_hash: format!("{:016x}", 0xabcu64),
            hashes: vec![TickHash::new(5, 0xdef)],
        };
        let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        let mut expected = vec![
            "ticks",
            "units",
            "mean_slot_error",
            "max_slot_error",
            "overlaps",
            "max_overlap_depth",
            "penetrations",
            "arrived",
            "time_to_arrive",
            "stuck",
            "path_ratio",
            "max_turn_rate",
            "non_finite",
            "state_hash",
            "hashes",
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert!(v["time_to_arrive"].is_null());
        assert_eq!(v["state_hash"], "0000000000000abc");
        assert_eq!(v["hashes"][0]["tick"], 5);
        assert_eq!(v["hashes"][0]["hash"], "0000000000000def");
        assert!(r.to_string().contains("hash at 5"));
        assert!(r.to_string().contains("arrived            2 / 2"));
    }
}
