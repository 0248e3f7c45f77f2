//! The table `cohort bench` prints without `--json`.

use std::fmt;

use super::{BENCH_DT, BenchReport};

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        writeln!(
            f,
            "standard army{}{}{}: {} units in {} formations on a {} m map, {} ticks timed after \
             {} warm-up ticks (dt {BENCH_DT} s)",
            if self.open_field {
                " on an open field"
            } else {
                ""
            },
            match self.group_size {
                Some(n) => format!(" in groups of {n}"),
                None => String::new(),
            },
            if self.avoidance {
                ""
            } else {
                " without avoidance"
            },
            self.units,
            self.formations,
            self.map_size,
            self.ticks,
            self.warmup_ticks
        )?;
        writeln!(
            f,
            "  threads               {:>10}{}",
            self.threads,
            if cohort_formation::world::PARALLEL {
                ""
            } else {
                " (built without the parallel feature)"
            }
        )?;
        let cpu = |ms: Option<f64>| ms.map_or_else(String::new, |c| format!(", CPU {c:.1} ms"));
        writeln!(
            f,
            "  build                 {:>10.1} ms{} (the world from nothing)",
            self.build_ms,
            cpu(self.build_cpu_ms)
        )?;
        writeln!(
            f,
            "  terrain build         {:>10.1} ms{} ({} graph nodes, {} edges)",
            self.terrain_build_ms,
            cpu(self.terrain_build_cpu_ms),
            self.nav_nodes,
            self.nav_edges
        )?;
        writeln!(f, "  ns per unit-tick      {:>10.1}", self.ns_per_unit_tick)?;
        writeln!(f, "  ms per tick           {:>10.3}", self.ms_per_tick)?;
        if let Some(cpu) = self.cpu_ns_per_unit_tick {
            writeln!(f, "  CPU ns per unit-tick  {cpu:>10.1} (thread CPU time)")?;
        }
        writeln!(
            f,
            "  peak heap             {:>10.1} MiB ({} bytes)",
            mib(self.peak_bytes),
            self.peak_bytes
        )?;
        writeln!(
            f,
            "  terrain heap          {:>10.1} MiB (map, navgraph; not in the per-unit figure)",
            mib(self.terrain_bytes)
        )?;
        writeln!(
            f,
            "  heap per unit         {:>10.0} bytes",
            self.bytes_per_unit
        )?;
        if let Some(rss) = self.peak_rss_bytes {
            writeln!(f, "  peak RSS (VmHWM)      {:>10.1} MiB", mib(rss))?;
        }
        writeln!(
            f,
            "  allocations per tick  {:>10.2}",
            self.allocations_per_tick
        )?;
        match (self.brute_force_ns_per_unit_tick, self.grid_speedup) {
            (Some(b), Some(s)) => writeln!(
                f,
                "  brute force           {b:>10.1} ns per unit-tick over {} ticks: grid {s:.1}x faster",
                self.brute_force_ticks
            )?,
            _ => writeln!(f, "  brute force           skipped")?,
        }
        writeln!(
            f,
            "  state hash            {:>10.1} ns per unit ({} allocations), {:016x} at the end",
            self.state_hash_ns_per_unit, self.state_hash_allocations, self.state_hash
        )?;
        writeln!(
            f,
            "  binary snapshot       {:>10.1} MiB, {:.1} ms to write and load back{}",
            mib(self.snapshot_bytes),
            self.snapshot_round_trip_ms,
            if self.snapshot_round_trip_exact {
                " (exact)"
            } else {
                " (NOT EXACT)"
            }
        )?;
        writeln!(f, "  stage                 ms per tick   share")?;
        for st in &self.stages {
            writeln!(
                f,
                "    {:<18}  {:>11.3}   {:>4.1} %",
                st.stage,
                st.ms_per_tick,
                st.share * 100.0
            )?;
        }
        if !self.windows.is_empty() {
            writeln!(
                f,
                "  window (ticks)        ns per unit-tick   CPU ns per unit-tick"
            )?;
        }
        for w in &self.windows {
            let range = format!("{}..{}", w.from_tick, w.from_tick + w.ticks);
            let cpu = w
                .cpu_ns_per_unit_tick
                .map_or_else(|| "-".to_string(), |c| format!("{c:.1}"));
            writeln!(f, "  {range:<20}  {:>16.1}   {cpu:>20}", w.ns_per_unit_tick)?;
        }
        Ok(())
    }
}
