/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Statistics: the driver's own per-queue counters (summed per burst in the
 * datapath) and the kernel's per-socket counters (XDP_STATISTICS).
 *
 * Sockets live from start to stop, and the kernel's counters with them; so
 * each queue keeps a base that absorbs a closing socket's final counts and
 * that a reset sets to minus the current ones.  Reported value: base +
 * current, in wrapping unsigned arithmetic.
 *
 * A secondary process (dpdk-proc-info) has no sockets of its own: it asks
 * the primary for their descriptors on each read (af_xdp_mp.c).
 */

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_string_fns.h>

#include "af_xdp_stats.h"

struct xstat_def {
	const char *name;
	size_t offset;
};

#define RX_STAT(f) { #f, offsetof(struct af_xdp_rx_stats, f) }
#define TX_STAT(f) { #f, offsetof(struct af_xdp_tx_stats, f) }
#define KERNEL_STAT(name, f) { name, offsetof(struct af_xdp_kernel_stats, f) }

/* Named rx_q<n>_<name> and tx_q<n>_<name>, after DPDK's xstats scheme. */
static const struct xstat_def rx_driver_xstats[] = {
	RX_STAT(full_batches),
	RX_STAT(partial_batches),
	RX_STAT(wakeups),
	RX_STAT(nombuf),
};

/* The kernel's XDP_STATISTICS names, with the direction moved first. */
static const struct xstat_def rx_kernel_xstats[] = {
	KERNEL_STAT("dropped", rx_dropped),
	KERNEL_STAT("invalid_descs", rx_invalid_descs),
	KERNEL_STAT("ring_full", rx_ring_full),
	KERNEL_STAT("fill_ring_empty_descs", rx_fill_ring_empty_descs),
};

static const struct xstat_def tx_driver_xstats[] = {
	{ "dropped", offsetof(struct af_xdp_tx_stats, errors) },
	TX_STAT(copies),
	TX_STAT(wakeups),
};

static const struct xstat_def tx_kernel_xstats[] = {
	KERNEL_STAT("invalid_descs", tx_invalid_descs),
	KERNEL_STAT("ring_empty_descs", tx_ring_empty_descs),
};

/*
 * Port-wide: whether the built-in program redirects with bpf_redirect_xsk,
 * and what it counted of the frames that did not go straight to a socket
 * (all queues of the interface, as the program is shared), in the order of
 * enum af_xdp_fallback.
 */
static const char * const redirect_xstats[] = {
	"rx_xdp_redirect_direct",
	"rx_xdp_direct_fallback_via_map",
	"rx_xdp_direct_fallback_passed",
};

#define NB_RX_XSTATS (RTE_DIM(rx_driver_xstats) + RTE_DIM(rx_kernel_xstats))
#define NB_TX_XSTATS (RTE_DIM(tx_driver_xstats) + RTE_DIM(tx_kernel_xstats))

static uint64_t
field(const void *base, size_t offset)
{
	return *(const uint64_t *)((const char *)base + offset);
}

/* The socket descriptors of this process's view of the port: -1 where none. */
struct socket_fds {
	int fd[RTE_MAX_QUEUES_PER_PORT];
	uint16_t n;
	int fallbacks;		/* afxdp_direct's counters */
	bool owned;		/* received from the primary: close them after use */
};

static void
get_socket_fds(struct rte_eth_dev *dev, struct socket_fds *fds)
{
	struct af_xdp_port *port = dev->data->dev_private;
	uint16_t i;

	fds->n = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	for (i = 0; i < fds->n; i++)
		fds->fd[i] = -1;
	fds->owned = rte_eal_process_type() != RTE_PROC_PRIMARY;
	if (fds->owned) {
		af_xdp_mp_get_fds(port, fds->fd, fds->n);
		fds->fallbacks = af_xdp_mp_get_fallbacks_fd(port);
		return;
	}
	fds->fallbacks = af_xdp_prog_fallbacks_fd(port);
	for (i = 0; i < port->nb_socks && i < fds->n; i++)
		if (port->socks[i] != NULL)
			fds->fd[i] = port->socks[i]->fd;
}

static void
put_socket_fds(struct socket_fds *fds)
{
	uint16_t i;

	if (!fds->owned)
		return;
	for (i = 0; i < fds->n; i++)
		if (fds->fd[i] >= 0)
			close(fds->fd[i]);
	if (fds->fallbacks >= 0)
		close(fds->fallbacks);
}

static void
kernel_stats(const struct af_xdp_port *port, const struct socket_fds *fds, uint16_t i,
	     struct af_xdp_kernel_stats *ks)
{
	const uint64_t *base = (const uint64_t *)&port->kstats_base[i];
	uint64_t *out = (uint64_t *)ks;
	unsigned int k;

	af_xdp_socket_kernel_stats(i < fds->n ? fds->fd[i] : -1, ks);
	for (k = 0; k < sizeof(*ks) / sizeof(uint64_t); k++)
		out[k] += base[k];
}

void
af_xdp_stats_fold_socket(struct af_xdp_port *port, uint16_t idx, int fd)
{
	uint64_t *base = (uint64_t *)&port->kstats_base[idx];
	struct af_xdp_kernel_stats ks;
	const uint64_t *cur = (const uint64_t *)&ks;
	unsigned int k;

	if (af_xdp_socket_kernel_stats(fd, &ks) != 0)
		return;
	for (k = 0; k < sizeof(ks) / sizeof(uint64_t); k++)
		base[k] += cur[k];
}

int
af_xdp_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats)
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
		stats->rx_nombuf += rxq->stats.nombuf;
		/* Frames the kernel steered to us and could not deliver. */
		stats->imissed += ks.rx_dropped + ks.rx_ring_full;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			stats->q_ipackets[i] = rxq->stats.packets;
			stats->q_ibytes[i] = rxq->stats.bytes;
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
		stats->oerrors += txq->stats.errors + ks.tx_invalid_descs;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			stats->q_opackets[i] = txq->stats.packets;
			stats->q_obytes[i] = txq->stats.bytes;
			stats->q_errors[i] = txq->stats.errors;
		}
	}
	put_socket_fds(&fds);
	return 0;
}

int
af_xdp_stats_reset(struct rte_eth_dev *dev)
{
	struct af_xdp_port *port = dev->data->dev_private;
	struct socket_fds fds;
	uint16_t i, n;

	get_socket_fds(dev, &fds);
	n = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	for (i = 0; i < n; i++) {
		struct af_xdp_kernel_stats ks;
		uint64_t *base = (uint64_t *)&port->kstats_base[i];
		const uint64_t *cur = (const uint64_t *)&ks;
		unsigned int k;

		af_xdp_socket_kernel_stats(i < fds.n ? fds.fd[i] : -1, &ks);
		for (k = 0; k < sizeof(ks) / sizeof(uint64_t); k++)
			base[k] = 0 - cur[k];
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
	return dev->data->nb_rx_queues * NB_RX_XSTATS + dev->data->nb_tx_queues * NB_TX_XSTATS +
	       RTE_DIM(redirect_xstats);
}

/* Names of one queue's entries of defs: <dir>_q<queue>_<name>. */
static unsigned int
name_queue_xstats(struct rte_eth_xstat_name *names, const char *dir, uint16_t q,
		  const struct xstat_def *defs, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		snprintf(names[j].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%u_%s", dir, q,
			 defs[j].name);
	return n;
}

/* Values of defs read from base (0 without one), numbered from id on. */
static unsigned int
fill_xstats(struct rte_eth_xstat *xstats, unsigned int id, const void *base,
	    const struct xstat_def *defs, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		xstats[j] = (struct rte_eth_xstat) { id + j,
			base == NULL ? 0 : field(base, defs[j].offset) };
	return n;
}

int
af_xdp_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			unsigned int size)
{
	unsigned int n = nb_xstats(dev), k = 0, j;
	uint16_t q;

	if (names == NULL || size < n)
		return (int)n;
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		k += name_queue_xstats(names + k, "rx", q, rx_driver_xstats,
				       RTE_DIM(rx_driver_xstats));
		k += name_queue_xstats(names + k, "rx", q, rx_kernel_xstats,
				       RTE_DIM(rx_kernel_xstats));
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		k += name_queue_xstats(names + k, "tx", q, tx_driver_xstats,
				       RTE_DIM(tx_driver_xstats));
		k += name_queue_xstats(names + k, "tx", q, tx_kernel_xstats,
				       RTE_DIM(tx_kernel_xstats));
	}
	for (j = 0; j < RTE_DIM(redirect_xstats); j++)
		strlcpy(names[k++].name, redirect_xstats[j], RTE_ETH_XSTATS_NAME_SIZE);
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
		k += fill_xstats(xstats + k, k, rxq != NULL ? &rxq->stats : NULL,
				 rx_driver_xstats, RTE_DIM(rx_driver_xstats));
		k += fill_xstats(xstats + k, k, &ks, rx_kernel_xstats, RTE_DIM(rx_kernel_xstats));
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct af_xdp_tx_queue *txq = dev->data->tx_queues[q];
		struct af_xdp_kernel_stats ks;

		kernel_stats(port, &fds, q, &ks);
		k += fill_xstats(xstats + k, k, txq != NULL ? &txq->stats : NULL,
				 tx_driver_xstats, RTE_DIM(tx_driver_xstats));
		k += fill_xstats(xstats + k, k, &ks, tx_kernel_xstats, RTE_DIM(tx_kernel_xstats));
	}
	af_xdp_prog_read_fallbacks(fds.fallbacks, fallbacks);
	put_socket_fds(&fds);
	/* In redirect_xstats' order: the mode, then the fallbacks by key. */
	xstats[k] = (struct rte_eth_xstat) { k, port->redirect == AF_XDP_REDIRECT_DIRECT };
	k++;
	for (j = 0; j < AF_XDP_FALLBACK_MAX; j++, k++)
		xstats[k] = (struct rte_eth_xstat) { k, fallbacks[j] };
	return (int)n;
}
