/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_STATS_H
#define AF_XDP_STATS_H

#include <ethdev_driver.h>

#include "af_xdp.h"
#include "af_xdp_compat.h"

#if AF_XDP_STATS_GET_HAS_QSTATS
int af_xdp_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		     struct eth_queue_stats *qstats);
#else
int af_xdp_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats);
#endif
int af_xdp_stats_reset(struct rte_eth_dev *dev);
int af_xdp_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n);
int af_xdp_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			    unsigned int size);
/* Keep the kernel counters of a socket about to be closed. */
void af_xdp_stats_fold_socket(struct af_xdp_port *port, uint16_t idx, int fd);

#endif /* AF_XDP_STATS_H */
