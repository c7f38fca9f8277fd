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
 */

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "af_xdp.h"

/* The 8 bytes at rearm_data, written in one store whatever the field types. */
typedef uint64_t __attribute__((__may_alias__)) rearm_word_t;

static __rte_always_inline rearm_word_t *
rearm_word(struct rte_mbuf *m)
{
	return RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data));
}

/*
 * The first 8 bytes of a fresh mbuf's rearm_data (data_off, refcnt, nb_segs,
 * port) with data_off 0: one store per mbuf rearms it, and the frame's offset
 * in its chunk, which the descriptor carries, is OR-ed in as data_off.
 */
uint64_t
af_xdp_rearm_template(uint16_t port_id)
{
	struct rte_mbuf mb = { .data_off = 0, .nb_segs = 1, .port = port_id };

	rte_mbuf_refcnt_set(&mb, 1);
	return *rearm_word(&mb);
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
}

/*
 * Turn n contiguous descriptors into mbufs.  The chunk address (low 48 bits,
 * unaligned-chunk mode) locates the mbuf; the offset (high 16 bits) is where
 * the frame starts from buf_addr, which is data_off.  Only the fields a
 * driver must set are written: the rest were left valid by the mbuf's
 * previous free (next = NULL, nb_segs = 1, refcnt = 1).
 */
static __rte_always_inline uint64_t
descs_to_mbufs(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
	       struct rte_mbuf **bufs, uint32_t n)
{
	const uintptr_t mbuf_base = rxq->mbuf_base;
	const uint64_t rearm = rxq->rearm_template;
	uint64_t bytes = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const uint64_t addr = d[i].addr;
		const uint32_t len = d[i].len;
		struct rte_mbuf *m = (struct rte_mbuf *)
			(mbuf_base + (addr & XSK_UNALIGNED_BUF_ADDR_MASK));

		*rearm_word(m) = rearm | (addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
		m->ol_flags = 0;
		m->packet_type = 0;
		m->pkt_len = len;
		m->data_len = (uint16_t)len;
		m->vlan_tci = 0;
		bufs[i] = m;
		bytes += len;
	}
	return bytes;
}

/*
 * One batch: up to n (<= AF_XDP_RX_BATCH) descriptors, released with one
 * consumer update.  The ring may wrap inside the batch: then it is two runs.
 */
static __rte_always_inline uint32_t
rx_batch(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint32_t n,
	 uint64_t *bytes)
{
	struct xsk_ring *rx = &rxq->rx;
	uint32_t ready, start, first;

	ready = xsk_ring_cons_peek(rx, n);
	if (ready == 0)
		return 0;

	start = rx->cached_cons & rx->mask;
	first = RTE_MIN(ready, rx->size - start);
	*bytes += descs_to_mbufs(rxq, xsk_ring_desc(rx, start), bufs, first);
	if (unlikely(first < ready))
		*bytes += descs_to_mbufs(rxq, xsk_ring_desc(rx, 0), bufs + first,
					 ready - first);
	xsk_ring_cons_release(rx, ready);
	return ready;
}

static __rte_always_inline void
mbufs_to_chunks(uint64_t *addrs, void * const *objs, uintptr_t mbuf_base, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		addrs[i] = (uintptr_t)objs[i] - mbuf_base;
}

/*
 * Offer one batch of fresh mbufs to the kernel: one bulk get from the
 * mempool (raw: the fields are set when the frame comes back), their chunk
 * addresses written, one producer update.  The caller checked the space.
 */
static __rte_always_inline int
fill_one_batch(struct af_xdp_rx_queue *rxq)
{
	struct xsk_ring *fill = &rxq->fill;
	void *objs[AF_XDP_RX_BATCH];
	uint32_t start, first;

	if (unlikely(rte_mempool_get_bulk(rxq->mb_pool, objs, AF_XDP_RX_BATCH) != 0)) {
		rxq->stats.nombuf += AF_XDP_RX_BATCH;
		rxq->fill_starved = true;
		return -ENOMEM;
	}
	start = fill->cached_prod & fill->mask;
	first = RTE_MIN((uint32_t)AF_XDP_RX_BATCH, fill->size - start);
	mbufs_to_chunks(xsk_ring_addr(fill, start), objs, rxq->mbuf_base, first);
	if (unlikely(first < AF_XDP_RX_BATCH))
		mbufs_to_chunks(xsk_ring_addr(fill, 0), objs + first, rxq->mbuf_base,
				AF_XDP_RX_BATCH - first);
	xsk_ring_prod_submit(fill, AF_XDP_RX_BATCH);
	return 0;
}

/* Top the fill ring up, whole batches at a time.  Returns chunks offered. */
unsigned int
af_xdp_rxq_fill(struct af_xdp_rx_queue *rxq)
{
	unsigned int offered = 0;

	rxq->fill_starved = false;
	while (xsk_ring_prod_space(&rxq->fill, AF_XDP_RX_BATCH) == AF_XDP_RX_BATCH) {
		if (fill_one_batch(rxq) != 0)
			break;
		offered += AF_XDP_RX_BATCH;
	}
	return offered;
}

/*
 * Ask the kernel to make progress without waiting: MSG_DONTWAIT makes the
 * recvfrom return at once whatever happens (the stock driver may sit in
 * poll() for a second here).  Errors such as EAGAIN or ENETDOWN only mean
 * there is nothing to do now.
 */
static void
rx_wakeup(struct af_xdp_rx_queue *rxq)
{
	(void)recvfrom(rxq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	rxq->stats.wakeups++;
}

/*
 * Busy polling only works where the kernel tied the socket to a NAPI
 * context, which it records with the first frame: look once, then.
 */
static void __rte_cold __rte_noinline
check_busy_poll(struct af_xdp_rx_queue *rxq)
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
af_xdp_rx_burst(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	struct af_xdp_rx_queue *rxq = queue;
	uint32_t nb_rx = 0, full = 0, got = 0;
	uint64_t bytes = 0;

	while (nb_rx < nb_pkts) {
		uint32_t n = RTE_MIN((uint32_t)(nb_pkts - nb_rx), (uint32_t)AF_XDP_RX_BATCH);

		got = rx_batch(rxq, bufs + nb_rx, n, &bytes);
		nb_rx += got;
		full += got == AF_XDP_RX_BATCH;
		if (got < n)
			break;
	}

	/*
	 * Frames taken from the Rx ring left their fill-ring slots free.  After
	 * a failed refill, retry on every poll: with an empty fill ring no
	 * frame can arrive to trigger it.
	 */
	if (nb_rx != 0 || unlikely(rxq->fill_starved))
		af_xdp_rxq_fill(rxq);

	if (nb_rx == 0) {
		/*
		 * Nothing came: a zero-copy driver may be waiting for a kick
		 * to use the fill ring, and busy polling needs a syscall to
		 * run the NAPI loop in our context.
		 */
		if (rxq->busy_poll || xsk_ring_needs_wakeup(&rxq->fill))
			rx_wakeup(rxq);
		return 0;
	}

	if (unlikely(rxq->busy_poll_check))
		check_busy_poll(rxq);
	rxq->stats.packets += nb_rx;
	rxq->stats.bytes += bytes;
	rxq->stats.full_batches += full;
	rxq->stats.partial_batches += got != 0 && got != AF_XDP_RX_BATCH;
	return (uint16_t)nb_rx;
}
