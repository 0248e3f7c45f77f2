#!/bin/sh
# Copies the bundled files into the fuzz corpora (run from the repository root).
set -e
mkdir -p fuzz/corpus/scenario_text fuzz/corpus/pattern_text fuzz/corpus/playbook_text \
    fuzz/corpus/snapshot_bytes fuzz/corpus/world_calls
cp scenarios/*.ron fuzz/corpus/scenario_text/
cp patterns/*.ron fuzz/corpus/pattern_text/
cp playbooks/*.ron fuzz/corpus/playbook_text/
# Snapshots of the bundled scenarios after a few ticks.
for s in open_field casualties; do
    cargo run --release -q -p cohort-demos -- run "scenarios/$s.ron" --ticks 5 \
        --snapshot-out "fuzz/corpus/snapshot_bytes/$s.snap" > /dev/null
done
# A few API-call sequences.
printf '\000\002\000\000\200\102\000\000\110\102\001\010\000\010' > fuzz/corpus/world_calls/move
printf '\000\000\000\000\240\101\000\000\240\101\000\000\000\077' > fuzz/corpus/world_calls/add
