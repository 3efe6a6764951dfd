#!/bin/bash
# usage: bench/perf-profile.sh NAME [bench flags, e.g. --scenario rooms]
# Profiles the Tandem server (LevelDB) with native frames during a scenario's traffic window:
# perf cpu-clock samples with call graphs, JIT names from --perf-basic-prof, attached after the
# first progress line for 6 s. Writes /tmp/tandem-prof/NAME.{log,data,dso.txt,top.txt}.
set -u
out=$1; shift
dir=/tmp/tandem-prof; mkdir -p $dir
cd "$(dirname "$0")/.."
root=$(pwd)
rm -f $dir/$out.log $dir/$out.data
npm run bench -- --peers tandem --server-node-args=--perf-basic-prof --out $dir/$out "$@" > $dir/$out.log 2>&1 &
bpid=$!; sleep 2
for i in $(seq 1 400); do grep -Eq '/tandem: [0-9]+ s' $dir/$out.log && break; sleep 0.25; done
pid=$(pgrep -f "$root/bench/.build/dist/tandem.mjs" | head -1)
perf record -e cpu-clock -F 999 -g -p "$pid" -o $dir/$out.data -- sleep 6 > /dev/null 2>&1
wait $bpid
perf report -i $dir/$out.data --no-children --sort dso --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12 > $dir/$out.dso.txt
perf report -i $dir/$out.data --no-children --sort symbol --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/  */ /g' | cut -c1-140 | head -40 > $dir/$out.top.txt
cat $dir/$out.dso.txt $dir/$out.top.txt
