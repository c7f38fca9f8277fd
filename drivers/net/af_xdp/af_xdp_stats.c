/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Statistics: the driver's own per-queue counters (summed per burst in the
 * datapath) and the kernel's per-socket counters (XDP_STATISTICS), kept
 * across sockets as af_xdp_kstats.h describes.
 *
 * A secondary process (dpdk-proc-info) has no sockets of its own: it asks
 * the primary for their descriptors on each read or reset (af_xdp_mp.c),
 * and a reset there sets the same shared counters and bases as the
 * primary's.  A reset is not synchronised with the datapath, in either
 * process: a burst counted at the same moment may write back a counter's
 * value from before the reset (reset while the port is idle).
 */

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_string_fns.h>

#include "af_xdp_lend.h"
#include "af_xdp_mp.h"
#include "af_xdp_prog.h"
#include "af_xdp_socket.h"
#include "af_xdp_stats.h"

/* The driver's counters, named rx_q<n>_<name> and tx_q<n>_<name> after DPDK's scheme. */
struct xstat_def {
	const char *name;
	size_t offset;
};

#define RX_STAT(f) { #f, offsetof(struct af_xdp_rx_stats, f) }
#define TX_STAT(f) { #f, offsetof(struct af_xdp_tx_stats, f) }

static const struct xstat_def rx_driver_xstats[] = {
	RX_STAT(full_batches),
	RX_STAT(partial_batches),
	RX_STAT(wakeups),
	RX_STAT(nombuf),
	RX_STAT(multi_buffer),
	RX_STAT(chains_dropped),
	RX_STAT(copies),	/* frames copied from the driver's UMEM */
	RX_STAT(copy_nombuf),	/* and dropped: no mbuf to copy them into */
};

static const struct xstat_def tx_driver_xstats[] = {
	TX_STAT(dropped),
	TX_STAT(too_many_segs),
	TX_STAT(copies),
	TX_STAT(multi_buffer),
	TX_STAT(wakeups),
	TX_STAT(csum_kernel),	/* L4 checksums left to the kernel (AF_XDP Tx metadata) */
	TX_STAT(csum_sw),	/* checksums the driver computed */
	TX_STAT(kick_busy),	/* sendto() said EAGAIN or EBUSY */
	TX_STAT(kick_errors),	/* sendto() failed otherwise */
	TX_STAT(kick_stalls),	/* kicks given up with frames left in the Tx ring */
	TX_STAT(kick_waits),	/* bursts that did not kick: refused, nothing completed since */
};

/*
 * Port-wide: what the built-in direct program counted of the frames that
 * did not go straight to a socket (all queues of the interface, as the
 * program is shared), in the order of enum af_xdp_fallback.  xstats are
 * counters only, all cleared by a reset: which redirect the program uses,
 * and what the kernel offers, are the port's state (af_xdp_state.c).
 */
static const char * const fallback_xstats[] = {
	"rx_xdp_direct_fallback_via_map",
	"rx_xdp_direct_fallback_passed",
};

static unsigned int
nb_kernel_xstats(bool rx)
{
	unsigned int k, n = 0;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		n += af_xdp_kstat_defs[k].rx == rx;
	return n;
}

/*
 * Copies of the port's socket descriptors, -1 where none: from the primary
 * in a secondary; in the primary, from what the started port lends
 * (af_xdp_lend.h), since these ops may run in another thread than the one
 * stopping the port (telemetry's), which frees the sockets.  A stopped port
 * has none: its kernel counters were folded into the bases at the stop.
 */
struct socket_fds {
	int fd[RTE_MAX_QUEUES_PER_PORT];
	uint16_t n;
	int fallbacks;		/* afxdp_direct's counters */
};

static void
get_socket_fds(struct rte_eth_dev *dev, struct socket_fds *fds)
{
	struct af_xdp_port *port = dev->data->dev_private;
	uint16_t i;

	fds->n = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	for (i = 0; i < fds->n; i++)
		fds->fd[i] = -1;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		af_xdp_mp_get_fds(port, fds->fd, fds->n);
		fds->fallbacks = af_xdp_mp_get_fallbacks_fd(port);
		return;
	}
	af_xdp_lend_fds(port->name, 0, fds->n, fds->fd);
	af_xdp_lend_fallbacks_fd(port->name, &fds->fallbacks);
}

static void
put_socket_fds(struct socket_fds *fds)
{
	uint16_t i;

	for (i = 0; i < fds->n; i++)
		if (fds->fd[i] >= 0)
			close(fds->fd[i]);
	if (fds->fallbacks >= 0)
		close(fds->fallbacks);
}

/* Queue index i's kernel counters as reported: its base plus its socket's. */
static void
kernel_stats(const struct af_xdp_port *port, const struct socket_fds *fds, uint16_t i,
	     struct af_xdp_kernel_stats *ks)
{
	struct af_xdp_kernel_stats cur;

	af_xdp_socket_kernel_stats(i < fds->n ? fds->fd[i] : -1, &cur);
	af_xdp_kstats_total(&port->queues[i].kstats_base, &cur, ks);
}

void
af_xdp_stats_fold_socket(struct af_xdp_port *port, uint16_t idx, int fd)
{
	struct af_xdp_kernel_stats cur;

	if (af_xdp_socket_kernel_stats(fd, &cur) == 0)
		af_xdp_kstats_fold(&port->queues[idx].kstats_base, &cur);
}

/* The port's counters into stats, and the queues' into qstats unless NULL. */
static int
stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats, af_xdp_queue_stats *qstats)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct socket_fds fds;
	uint16_t i;

	get_socket_fds(dev, &fds);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[i];
		struct af_xdp_kernel_stats ks;

		if (rxq == NULL)
			continue;
		kernel_stats(port, &fds, i, &ks);
		stats->ipackets += rxq->stats.packets;
		stats->ibytes += rxq->stats.bytes;
		stats->rx_nombuf += rxq->stats.nombuf + rxq->stats.copy_nombuf;
		stats->imissed += af_xdp_kstats_imissed(&ks, rxq->zero_copy);
		if (qstats != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			qstats->q_ipackets[i] = rxq->stats.packets;
			qstats->q_ibytes[i] = rxq->stats.bytes;
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		const struct af_xdp_tx_queue *txq = dev->data->tx_queues[i];
		struct af_xdp_kernel_stats ks;

		if (txq == NULL)
			continue;
		kernel_stats(port, &fds, i, &ks);
		stats->opackets += txq->stats.packets;
		stats->obytes += txq->stats.bytes;
		stats->oerrors += txq->stats.dropped + ks.v[AF_XDP_KSTAT_TX_INVALID_DESCS];
		if (qstats != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			qstats->q_opackets[i] = txq->stats.packets;
			qstats->q_obytes[i] = txq->stats.bytes;
			qstats->q_errors[i] = txq->stats.dropped;
		}
	}
	put_socket_fds(&fds);
	return 0;
}

#if AF_XDP_STATS_GET_HAS_QSTATS
int
af_xdp_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		 struct eth_queue_stats *qstats)
{
	return stats_get(dev, stats, qstats);
}
#else
int
af_xdp_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats)
{
	return stats_get(dev, stats, stats);
}
#endif

int
af_xdp_stats_reset(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct socket_fds fds;
	uint16_t i, n;

	get_socket_fds(dev, &fds);
	n = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	for (i = 0; i < n; i++) {
		struct af_xdp_kernel_stats cur;

		af_xdp_socket_kernel_stats(i < fds.n ? fds.fd[i] : -1, &cur);
		af_xdp_kstats_reset(&port->queues[i].kstats_base, &cur);
	}
	af_xdp_prog_reset_fallbacks(fds.fallbacks);
	put_socket_fds(&fds);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct af_xdp_rx_queue *rxq = dev->data->rx_queues[i];

		if (rxq != NULL)
			memset(&rxq->stats, 0, sizeof(rxq->stats));
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct af_xdp_tx_queue *txq = dev->data->tx_queues[i];

		if (txq != NULL)
			memset(&txq->stats, 0, sizeof(txq->stats));
	}
	return 0;
}

static unsigned int
nb_xstats(const struct rte_eth_dev *dev)
{
	return dev->data->nb_rx_queues * (RTE_DIM(rx_driver_xstats) + nb_kernel_xstats(true)) +
	       dev->data->nb_tx_queues * (RTE_DIM(tx_driver_xstats) + nb_kernel_xstats(false)) +
	       RTE_DIM(fallback_xstats);
}

/* Names of one queue's entries: <dir>_q<queue>_<name>, the driver's then the kernel's. */
static unsigned int
name_queue_xstats(struct rte_eth_xstat_name *names, bool rx, uint16_t q,
		  const struct xstat_def *defs, unsigned int n)
{
	const char *dir = rx ? "rx" : "tx";
	unsigned int j, k = 0;

	for (j = 0; j < n; j++)
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%u_%s", dir, q,
			 defs[j].name);
	for (j = 0; j < AF_XDP_KSTAT_MAX; j++)
		if (af_xdp_kstat_defs[j].rx == rx)
			snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%u_%s", dir, q,
				 af_xdp_kstat_defs[j].xstat);
	return k;
}

/* Values of one queue's entries, in name_queue_xstats()'s order, numbered from id on. */
static unsigned int
fill_queue_xstats(struct rte_eth_xstat *xstats, unsigned int id, bool rx, const void *driver,
		  const struct xstat_def *defs, unsigned int n,
		  const struct af_xdp_kernel_stats *ks)
{
	unsigned int j, k = 0;

	for (j = 0; j < n; j++, k++)
		xstats[k] = (struct rte_eth_xstat) { id + k, driver == NULL ? 0 :
			*(const uint64_t *)((const char *)driver + defs[j].offset) };
	for (j = 0; j < AF_XDP_KSTAT_MAX; j++)
		if (af_xdp_kstat_defs[j].rx == rx) {
			xstats[k] = (struct rte_eth_xstat) { id + k, ks->v[j] };
			k++;
		}
	return k;
}

int
af_xdp_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			unsigned int size)
{
	unsigned int n = nb_xstats(dev), k = 0, j;
	uint16_t q;

	if (names == NULL || size < n)
		return (int)n;
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		k += name_queue_xstats(names + k, true, q, rx_driver_xstats,
				       RTE_DIM(rx_driver_xstats));
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		k += name_queue_xstats(names + k, false, q, tx_driver_xstats,
				       RTE_DIM(tx_driver_xstats));
	for (j = 0; j < RTE_DIM(fallback_xstats); j++)
		strlcpy(names[k++].name, fallback_xstats[j], RTE_ETH_XSTATS_NAME_SIZE);
	return (int)n;
}

int
af_xdp_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int size)
{
	struct af_xdp_port *port = dev->data->dev_private;
	unsigned int n = nb_xstats(dev), k = 0, j;
	uint64_t fallbacks[AF_XDP_FALLBACK_MAX];
	struct socket_fds fds;
	uint16_t q;

	if (xstats == NULL || size < n)
		return (int)n;
	get_socket_fds(dev, &fds);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct af_xdp_rx_queue *rxq = dev->data->rx_queues[q];
		struct af_xdp_kernel_stats ks;

		kernel_stats(port, &fds, q, &ks);
		k += fill_queue_xstats(xstats + k, k, true, rxq != NULL ? &rxq->stats : NULL,
				       rx_driver_xstats, RTE_DIM(rx_driver_xstats), &ks);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct af_xdp_tx_queue *txq = dev->data->tx_queues[q];
		struct af_xdp_kernel_stats ks;

		kernel_stats(port, &fds, q, &ks);
		k += fill_queue_xstats(xstats + k, k, false, txq != NULL ? &txq->stats : NULL,
				       tx_driver_xstats, RTE_DIM(tx_driver_xstats), &ks);
	}
	af_xdp_prog_read_fallbacks(fds.fallbacks, fallbacks);
	put_socket_fds(&fds);
	/* In fallback_xstats' order: the fallbacks by key. */
	for (j = 0; j < AF_XDP_FALLBACK_MAX; j++, k++)
		xstats[k] = (struct rte_eth_xstat) { k, fallbacks[j] };
	return (int)n;
}
