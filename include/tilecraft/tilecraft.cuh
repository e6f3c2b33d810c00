//! \file tilecraft.cuh
//! Umbrella header: everything tilecraft offers.
#pragma once

#include "config.cuh"
#include "util/concepts.cuh"
#include "util/error.cuh"
#include "util/functional.cuh"
#include "util/math.cuh"
#include "util/thread.cuh"
#include "memory/bank_model.cuh"
#include "memory/carve.cuh"
#include "memory/layout.cuh"
#include "memory/shared_tile.cuh"
#include "memory/tile_copy.cuh"
#include "warp/shuffle.cuh"
#include "warp/warp_reduce.cuh"
#include "block/block_reduce.cuh"
#include "device/reduce.cuh"
#include "device/transpose.cuh"
