#!/usr/bin/env python3
"""The sweeps' shapes: the MxNxK given, then COUNT distinct ones drawn with SEED from sides of
1024 to 4100 that are whole tiles, odd, or one short of a tile, sorted.
Usage: shapes.py SEED COUNT [MxNxK ...]"""
import random
import sys

SIDES = [1024, 1025, 1031, 1100, 1152, 1200, 1280, 1333, 1400, 1500, 1536, 1600, 1750, 1800,
         1999, 2000, 2047, 2048, 2300, 2500, 2560, 3000, 3001, 3333, 4095, 4096, 4100]

seed, count, named = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
r = random.Random(seed)
rows = set()
while len(rows) < count:
    rows.add(tuple(r.choice(SIDES) for _ in range(3)))
print(" ".join(named + ["x".join(map(str, s)) for s in sorted(rows)]))
