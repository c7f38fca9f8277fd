/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_INTR_H
#define AF_XDP_INTR_H

/*
 * Sleeping when idle: Rx interrupts (an event fd per Rx queue for
 * rte_eth_dev_rx_intr_ctl_q() and rte_epoll_wait()) and the power
 * library's monitor mode (get_monitor_addr).  Primary process only.
 */

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_power_intrinsics.h>

/*
 * With intr_conf.rxq: check the configuration and give the port its
 * interrupt handle (kept as it is when the number of Rx queues did not
 * change, so that the application's registrations stand); without, take
 * it away.  Returns 0, or a negative errno after saying why.
 */
int af_xdp_intr_configure(struct rte_eth_dev *dev);

/* The port was configured with Rx interrupts. */
bool af_xdp_intr_rxq(const struct rte_eth_dev *dev);

/* Before the sockets close (stop): no queue stays armed. */
void af_xdp_intr_disarm_all(struct rte_eth_dev *dev);

/* Close: the handle and its event fds, out of the application's epoll sets. */
void af_xdp_intr_release(struct rte_eth_dev *dev);

/* The ethdev ops. */
int af_xdp_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid);
int af_xdp_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid);
int af_xdp_get_monitor_addr(void *rx_queue, struct rte_power_monitor_cond *pmc);

#endif /* AF_XDP_INTR_H */
