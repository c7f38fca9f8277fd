/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Transmit: descriptors written in bulk and published with one producer
 * update; the completion ring drained in batches with one bulk free; a
 * wakeup only when the kernel asks for one.
 *
 * An mbuf of the UMEM's own mempool is sent in place: its chunk address is
 * known from its pointer.  Anything else (another pool, an indirect or
 * external buffer, a chain) is copied into a fresh mbuf of the UMEM's pool,
 * and the original is freed at once.
 */

#include <errno.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp_tx.h"

/*
 * In copy mode the kernel transmits at most this many descriptors per
 * sendto() (MAX_PER_SOCKET_BUDGET in net/xdp/xsk.c); kicks beyond what the
 * ring holds would be wasted syscalls.
 */
#define AF_XDP_COPY_MODE_TX_BUDGET 32

/* At stop, how long completions of frames the kernel took may take to come. */
#define AF_XDP_TX_RELEASE_TRIES 100
#define AF_XDP_TX_RELEASE_WAIT_US 1000

void
af_xdp_txq_bind(struct af_xdp_tx_queue *txq, const struct xsk_ring *tx,
		const struct xsk_ring *comp, const struct af_xdp_umem_layout *layout,
		struct rte_mempool *umem_pool, int fd)
{
	txq->tx = *tx;
	txq->comp = *comp;
	txq->mbuf_base = layout->mbuf_base;
	txq->umem_pool = umem_pool;
	/*
	 * What the kernel takes from a chunk, and what a copy holds: a fresh
	 * mbuf from its headroom on (a frame in place is inside its own mbuf).
	 */
	txq->max_frame = RTE_MIN(layout->chunk_size,
				 (uint32_t)(rte_pktmbuf_data_room_size(umem_pool) - RTE_PKTMBUF_HEADROOM));
	txq->fd = fd;
	txq->outstanding = 0;
}

unsigned int
af_xdp_txq_drain(struct af_xdp_tx_queue *txq)
{
	struct xsk_ring *comp = &txq->comp;
	struct rte_mbuf *done[AF_XDP_TX_BATCH];
	unsigned int total = 0;
	uint32_t n, i;

	while ((n = xsk_ring_cons_peek(comp, AF_XDP_TX_BATCH)) != 0) {
		for (i = 0; i < n; i++) {
			uint64_t addr = *xsk_ring_addr(comp, comp->cached_cons + i);

			done[i] = (struct rte_mbuf *)
				(txq->mbuf_base + (addr & XSK_UNALIGNED_BUF_ADDR_MASK));
		}
		xsk_ring_cons_release(comp, n);
		rte_pktmbuf_free_bulk(done, n);
		total += n;
	}
	txq->outstanding -= total;
	return total;
}

static __rte_always_inline bool
sendable_in_place(const struct af_xdp_tx_queue *txq, const struct rte_mbuf *m)
{
	return m->pool == txq->umem_pool && RTE_MBUF_DIRECT(m) && m->nb_segs == 1;
}

static __rte_always_inline uint64_t
mbuf_desc_addr(const struct af_xdp_tx_queue *txq, const struct rte_mbuf *m)
{
	return ((uintptr_t)m - txq->mbuf_base) |
	       ((uint64_t)m->data_off << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
}

/*
 * Copy a frame the kernel cannot reach into an mbuf of the UMEM's pool.
 * Returns NULL when the pool is empty; the caller keeps the original.
 */
static struct rte_mbuf *
copy_into_umem(struct af_xdp_tx_queue *txq, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_alloc(txq->umem_pool);
	const void *data;

	if (unlikely(c == NULL))
		return NULL;
	data = rte_pktmbuf_read(m, 0, m->pkt_len, rte_pktmbuf_mtod(c, void *));
	if (data != rte_pktmbuf_mtod(c, void *))
		rte_memcpy(rte_pktmbuf_mtod(c, void *), data, m->pkt_len);
	c->data_len = (uint16_t)m->pkt_len;
	c->pkt_len = m->pkt_len;
	txq->stats.copies++;
	return c;
}

/* Ask the kernel to send what the ring holds; copy mode sends in the call. */
static void
tx_wakeup(struct af_xdp_tx_queue *txq)
{
	unsigned int kicks = 1 + txq->tx.size / AF_XDP_COPY_MODE_TX_BUDGET;

	do {
		txq->stats.wakeups++;
		if (sendto(txq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			/*
			 * EAGAIN/EBUSY: the completion ring is full or the
			 * device is busy; ENOBUFS/ENETDOWN: nothing to do now.
			 * Frames stay in the ring for the next burst.
			 */
			if (errno != EAGAIN && errno != EBUSY)
				break;
			if (af_xdp_txq_drain(txq) == 0)
				break;
		}
	} while (xsk_ring_needs_wakeup(&txq->tx) &&
		 xsk_ring_pending(&txq->tx) != 0 && --kicks != 0);
}

uint16_t
af_xdp_tx_burst(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	struct af_xdp_tx_queue *txq = queue;
	struct xsk_ring *tx = &txq->tx;
	uint32_t space, i, queued = 0;
	uint64_t bytes = 0;
	uint16_t consumed;

	af_xdp_txq_drain(txq);

	space = xsk_ring_prod_space(tx, nb_pkts);
	for (i = 0; i < space; i++) {
		struct rte_mbuf *m = bufs[i];
		struct xdp_desc *d;

		if (unlikely(m->pkt_len > txq->max_frame)) {
			/* The kernel would reject it: drop it, count it. */
			txq->stats.dropped++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(!sendable_in_place(txq, m))) {
			struct rte_mbuf *c = copy_into_umem(txq, m);

			if (c == NULL)
				break;	/* the caller keeps bufs[i] onwards */
			rte_pktmbuf_free(m);
			m = c;
		}
		d = xsk_ring_desc(tx, tx->cached_prod + queued);
		d->addr = mbuf_desc_addr(txq, m);
		d->len = m->pkt_len;
		d->options = 0;
		bytes += m->pkt_len;
		queued++;
	}
	consumed = (uint16_t)i;

	if (queued != 0) {
		xsk_ring_prod_submit(tx, queued);
		txq->outstanding += queued;
		txq->stats.packets += queued;
		txq->stats.bytes += bytes;
	}
	if (txq->outstanding != 0 && xsk_ring_needs_wakeup(tx))
		tx_wakeup(txq);
	return consumed;
}

/* Frames queued for transmission that the kernel never took. */
static unsigned int
free_untaken(struct af_xdp_tx_queue *txq)
{
	uint32_t i, end = txq->tx.cached_prod;
	unsigned int n = 0;

	for (i = __atomic_load_n(txq->tx.consumer, __ATOMIC_ACQUIRE); i != end; i++, n++)
		rte_pktmbuf_free((struct rte_mbuf *)(txq->mbuf_base +
			(xsk_ring_desc(&txq->tx, i)->addr & XSK_UNALIGNED_BUF_ADDR_MASK)));
	return n;
}

unsigned int
af_xdp_txq_release(struct af_xdp_tx_queue *txq, bool reclaim)
{
	unsigned int tries, n = 0;

	for (tries = 0; tries < AF_XDP_TX_RELEASE_TRIES; tries++) {
		n += af_xdp_txq_drain(txq);
		/* Whatever is outstanding now sits in the Tx ring, untaken. */
		if (txq->outstanding == 0 || xsk_ring_pending(&txq->tx) == txq->outstanding)
			break;
		usleep(AF_XDP_TX_RELEASE_WAIT_US);
	}
	if (reclaim)
		n += free_untaken(txq);
	txq->fd = -1;
	return n;
}
