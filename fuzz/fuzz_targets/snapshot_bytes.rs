//! Fuzz target: `cohort_demos::fuzzing::snapshot_bytes` (a broken promise is a panic here).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = cohort_demos::fuzzing::snapshot_bytes(data) {
        panic!("{e}");
    }
});
