#!/usr/bin/env python3
"""Adds phase timers to a copy of the library's scan kernel (argv[1]: the copy's include folder).

Thread 0 of each block of scan_kernel stamps clock64() at seven points of its tile (the two-pass
tile: 4-byte scans from 4 MiB on), and adds the six differences, and a count, to
tilecraft::detail::phase_cycles at its end. Every edit must find its text: the script stops
otherwise, so a changed kernel cannot go unmeasured silently."""
import sys

path = sys.argv[1] + "/tilecraft/device/detail/scan_kernels.cuh"
s = open(path).read()


def edit(old, new):
    global s
    if s.count(old) != 1:
        sys.exit(f"instrument.py: {old[:60]!r} found {s.count(old)} times in {path}")
    s = s.replace(old, new)


edit("namespace tilecraft::detail {\n", """namespace tilecraft::detail {

#if defined(__CUDACC__)
// Experiment only (scan_phases): per-phase sums of thread 0's clock64() stamps over every tile.
__device__ unsigned long long phase_cycles[8];
TILECRAFT_DEVICE long long* phase_marks() {
  __shared__ long long marks[8];
  return marks;
}
TILECRAFT_DEVICE void phase_mark(int i) {
  if (threadIdx.x == 0) phase_marks()[i] = clock64();
}
#endif
""", )
# 0: the block starts; 1: its ticket is known (after the barrier).
edit("""  if (threadIdx.x == 0) ticket = by_block ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
""", """  phase_mark(0);
  if (threadIdx.x == 0) ticket = by_block ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
  phase_mark(1);
""")
# 2: the tile is in shared memory; 3: thread 0's run is folded; 4: its prefix is known (the block
# scan with the look-back); 5: pass 2 and the barrier after it; 6: the stores are issued.
edit("""  InStage::template stage_in<Policy::hint>(vector, in + base, valid, stage);

  // Pass 1""", """  InStage::template stage_in<Policy::hint>(vector, in + base, valid, stage);
  phase_mark(2);

  // Pass 1""")
edit("""  const Acc total = fold_tree<0, chunks>(part, op);
""", """  const Acc total = fold_tree<0, chunks>(part, op);
  phase_mark(3);
""")
edit("""    prefix = block_exclusive_scan(temp, total, op, look_back);
  }

  Acc run = prefix;""", """    prefix = block_exclusive_scan(temp, total, op, look_back);
  }
  phase_mark(4);

  Acc run = prefix;""")
edit("""    *p = v;
  }
  __syncthreads();
  OutStage::template stage_out<Policy::hint>(vector, out + base, valid, stage);
}""", """    *p = v;
  }
  __syncthreads();
  phase_mark(5);
  OutStage::template stage_out<Policy::hint>(vector, out + base, valid, stage);
  phase_mark(6);
  if (threadIdx.x == 0) {
    for (int i = 0; i < 6; ++i) atomicAdd(&phase_cycles[i], static_cast<unsigned long long>(phase_marks()[i + 1] - phase_marks()[i]));
    atomicAdd(&phase_cycles[7], 1ull);
  }
}""")
open(path, "w").write(s)
