#!/usr/bin/env bash
# One lease of a many-core machine (issue 17): how the array kernels and the DP-SGD PLD path
# scale from 1 to 16 threads. Prepared here, run there as one command with the extension built
# here carried along (python/pabi/_core.abi3.so), so that the lease is spent measuring:
#
#     bash benches/device_scaling.sh            # writes scaling1.json, scaling2.json to $OUT
#
# Two full passes of bench_scaling --large (single runs vary by about ±15 % on a shared VM), then
# the T = 1e6 DP-SGD bracket.
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=python
out=${OUT:-/tmp}
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(|L3' || true
python3 -c "import pabi, numpy; print('pabi', pabi.__version__, pabi.simd_level(), 'numpy', numpy.__version__)" || exit 1
for pass in 1 2; do
  python3 benches/bench_scaling.py --large --threads 1,2,4,8,16 --repeat 5 --json "$out/scaling$pass.json"
done
python3 benches/bench_scaling.py --threads 1,16 --steps 1e6 --only dpsgd_epsilon --repeat 3
