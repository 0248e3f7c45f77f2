//! The fuzz targets (`cohort_demos::fuzzing`, also run by `fuzz/`) over their seed corpora
//! (the bundled scenarios, patterns and playbooks, snapshots of two bundled scenarios, a few
//! API-call sequences) and deterministic mutations of them: byte flips, numbers replaced by
//! extreme values (3.4e38, -1e38, 1e-30, NaN, inf, 0, ...), truncations and repeats. No input
//! may panic, leave a non-finite number in a world or a report, or give an error naming no
//! field or position.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use cohort_demos::fuzzing;
use cohort_demos::runner::load_runner;

/// Values a number in the text is replaced with.
const EXTREMES: [&str; 16] = [
    "3.4e38",
    "-3.4e38",
    "-1e38",
    "1e38",
    "1e-30",
    "-1e-30",
    "NaN",
    "inf",
    "-inf",
    "0",
    "0.0",
    "-0.0",
    "1e6",
    "1e7",
    "4294967295",
    "-1",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Byte ranges of the numbers in `text`.
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts = text[i].is_ascii_digit()
            || (text[i] == b'-' && text.get(i + 1).is_some_and(u8::is_ascii_digit));
        let inside_word = i > 0 && (text[i - 1].is_ascii_alphanumeric() || text[i - 1] == b'_');
        if starts && !inside_word {
            let mut j = i + 1;
            while j < text.len()
                && (text[j].is_ascii_digit()
                    || matches!(text[j], b'.' | b'e' | b'E')
                    || (matches!(text[j], b'-' | b'+') && matches!(text[j - 1], b'e' | b'E')))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// One mutation of `seed`.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = seed.to_vec();
    match rng.below(6) {
        0 | 1 => {
            // Up to three numbers replaced by extreme values.
            let spans = numbers(seed);
            if spans.is_empty() {
                return out;
            }
            let mut picks: Vec<(usize, usize)> = (0..1 + rng.below(3))
                .map(|_| spans[rng.below(spans.len())])
                .collect();
            picks.sort_unstable();
            picks.dedup();
            for &(a, b) in picks.iter().rev() {
                let v = EXTREMES[rng.below(EXTREMES.len())];
                out.splice(a..b, v.bytes());
            }
        }
        2 => {
            // Byte flips.
            for _ in 0..1 + rng.below(4) {
                if !out.is_empty() {
                    let k = rng.below(out.len());
                    out[k] ^= 1 << rng.below(8);
                }
            }
        }
        3 => out.truncate(rng.below(seed.len() + 1)),
        4 => {
            // A slice repeated in place.
            let a = rng.below(seed.len());
            let b = (a + 1 + rng.below(64)).min(seed.len());
            let piece = seed[a..b].to_vec();
            out.splice(b..b, piece);
        }
        _ => {
            // Random bytes overwritten.
            for _ in 0..1 + rng.below(8) {
                if !out.is_empty() {
                    let k = rng.below(out.len());
                    out[k] = rng.next() as u8;
                }
            }
        }
    }
    out
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files(dir: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .expect("bundled directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("readable"))
        .collect()
}

/// Runs `target` on every seed and `per_seed` mutations of each; returns the input count.
fn run(
    name: &str,
    target: fn(&[u8]) -> Result<(), String>,
    seeds: &[Vec<u8>],
    per_seed: usize,
) -> usize {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
    let mut count = 0;
    for seed in seeds {
        for k in 0..=per_seed {
            let input = if k == 0 {
                seed.clone()
            } else {
                mutate(seed, &mut rng)
            };
            count += 1;
            let outcome = catch_unwind(AssertUnwindSafe(|| target(&input)));
            let shown = || {
                String::from_utf8_lossy(&input)
                    .chars()
                    .take(2000)
                    .collect::<String>()
            };
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(e)) => panic!("{name}: {e}\ninput:\n{}", shown()),
                Err(_) => panic!("{name}: panicked\ninput:\n{}", shown()),
            }
        }
    }
    count
}

#[test]
fn scenario_texts() {
    let n = run(
        "scenario_text",
        fuzzing::scenario_text,
        &files("scenarios"),
        120,
    );
    assert!(n > 1000, "{n}");
}

#[test]
fn pattern_texts() {
    let n = run(
        "pattern_text",
        fuzzing::pattern_text,
        &files("patterns"),
        90,
    );
    assert!(n > 1000, "{n}");
}

#[test]
fn playbook_texts() {
    let n = run(
        "playbook_text",
        fuzzing::playbook_text,
        &files("playbooks"),
        300,
    );
    assert!(n > 600, "{n}");
}

#[test]
fn snapshot_bytes() {
    let seeds: Vec<Vec<u8>> = ["open_field", "casualties"]
        .iter()
        .map(|s| {
            let mut r = load_runner(&repo().join(format!("scenarios/{s}.ron")), None, false)
                .expect("bundled scenario");
            r.run(5, |_| {}).expect("runs");
            r.world().to_snapshot().expect("snapshot").into_bytes()
        })
        .collect();
    // Restoring a snapshot rebuilds the world's caches: the slowest target per input.
    let n = run("snapshot_bytes", fuzzing::snapshot_bytes, &seeds, 40);
    assert!(n > 80, "{n}");
}

#[test]
fn world_call_sequences() {
    let mut rng = Rng(17);
    let seeds: Vec<Vec<u8>> = (0..40)
        .map(|_| (0..64 + rng.below(192)).map(|_| rng.next() as u8).collect())
        .collect();
    let n = run("world_calls", fuzzing::world_calls, &seeds, 12);
    assert!(n > 500, "{n}");
}
