#!/usr/bin/env bash
# One lease of a many-core machine (issue 17): how the array kernels and the DP-SGD PLD path
# scale from 1 to 16 threads, and the machine's own all-core ceiling. Prepared here, run there as
# one command with the extension built here carried along, so that the lease is spent measuring.
# The extension must not name libpython (maturin's builds do not; a plain cargo build does):
#
#     cargo build --profile fastrel -p pabi-py && cp target/fastrel/lib_core.so python/pabi/_core.abi3.so
#     patchelf --remove-needed "$(readelf -d python/pabi/_core.abi3.so | grep -o 'libpython[^]]*')" python/pabi/_core.abi3.so
#     (there)  bash benches/device_scaling.sh [scaling|ceiling|all]     # tables to stdout, JSON to $OUT
#
# scaling: two full passes of bench_scaling --large (single runs vary by about ±15 % on a shared
# VM), then the T = 1e6 DP-SGD bracket at 1-16 threads. ceiling: bench_ceiling with 16 processes
# (what perfectly parallel code could reach there) and the T = 1e6 bracket.
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=python
out=${OUT:-/tmp}
part=${1:-all}
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(|L3|MHz' || true
python3 -c "import pabi, numpy; print('pabi', pabi.__version__, pabi.simd_level(), 'numpy', numpy.__version__)" || exit 1
if [ "$part" = scaling ] || [ "$part" = all ]; then
  for pass in 1 2; do
    python3 benches/bench_scaling.py --large --threads 1,2,4,8,16 --repeat 5 --json "$out/scaling$pass.json"
  done
fi
if [ "$part" = ceiling ] || [ "$part" = all ]; then
  python3 benches/bench_ceiling.py --procs 16 --repeat 5
fi
python3 benches/bench_scaling.py --threads 1,2,4,8,16 --steps 1e6 --only dpsgd_epsilon,dpsgd_epsilon_cold --repeat 3
