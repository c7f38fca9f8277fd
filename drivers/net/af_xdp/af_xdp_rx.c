/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Receive: 64-descriptor batches from the socket's Rx ring straight into the
 * mbufs that own the chunks (the mempool is the UMEM, so nothing is copied),
 * and fill-ring refill in batches of 64 with one bulk mempool get each.
 *
 * Everything here works on struct xsk_ring and the queue struct only: the
 * unit test and the microbenchmark drive it with rings in plain memory.  The
 * only system call is the wakeup, made when the kernel asks for it, and it
 * never blocks.
 *
 * The burst is built for DPDK's baseline CPU here and for x86-64-v3 in
 * af_xdp_rx_avx2.c; af_xdp_rx_burst_select() picks one when a port starts.
 */

#include <errno.h>
#include <sys/socket.h>

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "af_xdp_rx.h"

/*
 * rearm_data of a fresh mbuf with data_off 0: the frame's offset in its
 * chunk, which the descriptor carries, is OR-ed in as data_off.
 */
uint64_t
af_xdp_rearm_template(uint16_t port_id)
{
	struct rte_mbuf mb = { .data_off = 0, .nb_segs = 1, .port = port_id };

	rte_mbuf_refcnt_set(&mb, 1);
	return *(mbuf_u64_t *)MBUF_AT(&mb, rearm_data);
}

void
af_xdp_rxq_bind(struct af_xdp_rx_queue *rxq, const struct xsk_ring *rx,
		const struct xsk_ring *fill, const struct af_xdp_umem_layout *layout,
		int fd)
{
	rxq->rx = *rx;
	rxq->fill = *fill;
	rxq->mbuf_base = layout->mbuf_base;
	rxq->rearm_template = af_xdp_rearm_template(rxq->port_id);
	rxq->fd = fd;
	rxq->fill_starved = false;
}

unsigned int
af_xdp_rxq_fill(struct af_xdp_rx_queue *rxq)
{
	return af_xdp_fill(rxq);
}

/*
 * Ask the kernel to make progress without waiting: MSG_DONTWAIT makes the
 * recvfrom return at once whatever happens (the stock driver may sit in
 * poll() for a second here).  Errors such as EAGAIN or ENETDOWN only mean
 * there is nothing to do now.
 */
void
af_xdp_rx_wakeup(struct af_xdp_rx_queue *rxq)
{
	(void)recvfrom(rxq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	rxq->stats.wakeups++;
}

/*
 * Busy polling only works where the kernel tied the socket to a NAPI
 * context, which it records with the first frame: look once, then.
 */
void __rte_cold
af_xdp_rx_check_busy_poll(struct af_xdp_rx_queue *rxq)
{
	unsigned int napi_id = 0;

	rxq->busy_poll_check = false;
	if (af_xdp_iface_napi_id(rxq->fd, &napi_id) != 0 || napi_id != 0)
		return;
	rxq->busy_poll = false;
	AF_XDP_LOG(WARNING,
		   "port %u Rx queue %u: busy polling has no effect, the socket has no NAPI id (the kernel driver gives it no NAPI context); turned off, use busy_budget=0 to silence this",
		   rxq->port_id, rxq->queue_id);
}

uint16_t
af_xdp_rx_burst_scalar(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts);
}

/*
 * The burst function for this machine, chosen once when a port starts;
 * --force-max-simd-bitwidth below 256 keeps the baseline build.
 */
eth_rx_burst_t
af_xdp_rx_burst_select(const char **name)
{
#ifdef AF_XDP_HAVE_AVX2
	if (rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI1) &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI2)) {
		*name = "x86-64-v3 (AVX2, BMI2)";
		return af_xdp_rx_burst_avx2;
	}
#endif
	*name = "baseline";
	return af_xdp_rx_burst_scalar;
}
