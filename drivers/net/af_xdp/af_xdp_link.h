/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_LINK_H
#define AF_XDP_LINK_H

#include <ethdev_driver.h>

/*
 * The link of a port is its interface's: up while the port runs and the
 * interface is up and running, at the speed the interface reports.
 */

/* ethdev's link_update: 0 when the link status changed, -1 otherwise. */
int af_xdp_link_update(struct rte_eth_dev *dev, int wait_to_complete);
int af_xdp_link_set_up(struct rte_eth_dev *dev);
int af_xdp_link_set_down(struct rte_eth_dev *dev);

/*
 * Link change events, while the port runs with intr_conf.lsc: the
 * application's RTE_ETH_EVENT_INTR_LSC callbacks run when the kernel
 * announces a change of the interface that moves the link status.  Without
 * them the link is still read on demand.
 */
int af_xdp_link_events_start(struct rte_eth_dev *dev);
void af_xdp_link_events_stop(struct rte_eth_dev *dev);

#endif /* AF_XDP_LINK_H */
