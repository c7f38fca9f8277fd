/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_COMPAT_H
#define AF_XDP_COMPAT_H

/*
 * Where the internal API of the DPDK releases the driver builds against
 * (22.11, 23.11, 24.11 and 25.11 LTS) differs, by release number. Everything
 * else the driver uses is the same in all four; what DPDK's own headers size
 * (RTE_MP_MAX_FD_NUM: 8, then 253 from 24.11) is used as they define it.
 */

#include <rte_version.h>

/*
 * 25.11 moved the per-queue counters of the stats_get op out of struct
 * rte_eth_stats into struct eth_queue_stats, the op's third argument (NULL
 * when the caller wants none); the field names stayed.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
#define AF_XDP_STATS_GET_HAS_QSTATS 1
typedef struct eth_queue_stats af_xdp_queue_stats;
#else
#define AF_XDP_STATS_GET_HAS_QSTATS 0
typedef struct rte_eth_stats af_xdp_queue_stats;
#endif

#endif /* AF_XDP_COMPAT_H */
