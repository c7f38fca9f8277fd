/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_RX_H
#define AF_XDP_RX_H

/*
 * The receive path as inline functions, built twice: af_xdp_rx.c for DPDK's
 * baseline CPU and af_xdp_rx_avx2.c for x86-64-v3 (AVX2, BMI1/2), where the
 * compiler has three-operand bit operations for the per-frame arithmetic
 * and wider vectors for the refill.  The burst is chosen at start.
 *
 * Hand-written SSE and AVX2 versions of the per-frame step, storing each
 * mbuf's fields as two 16-byte vectors, ran in fewer instructions (12 per
 * frame) but more cycles (33-36 against 19-20) on the AMD EPYC this was
 * measured on: five plain stores per mbuf win.  bench/micro/ measures both.
 */

#include <stddef.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_vect.h>

#include "af_xdp.h"

/*
 * The mbuf words written per frame: rearm_data (data_off, refcnt, nb_segs,
 * port) and ol_flags in one 8-byte store each, packet_type and pkt_len in
 * one 4-byte store each, data_len + vlan_tci in one 4-byte store (hence the
 * layout check), through may_alias types.
 */
typedef uint64_t __attribute__((__may_alias__)) mbuf_u64_t;
typedef uint32_t __attribute__((__may_alias__)) mbuf_u32_t;

#define MBUF_AT(m, field) RTE_PTR_ADD(m, offsetof(struct rte_mbuf, field))

static_assert(offsetof(struct rte_mbuf, vlan_tci) == offsetof(struct rte_mbuf, data_len) + 2,
	      "vlan_tci must follow data_len");

/* A chunk's address within the UMEM: the low 48 bits of a descriptor's. */
static __rte_always_inline uint64_t
af_xdp_chunk(uint64_t addr)
{
#ifdef __BMI2__
	return _bzhi_u64(addr, XSK_UNALIGNED_BUF_OFFSET_SHIFT);	/* no register copy */
#else
	return addr & XSK_UNALIGNED_BUF_ADDR_MASK;
#endif
}

/*
 * One descriptor into its mbuf.  The chunk address (low 48 bits,
 * unaligned-chunk mode) locates the mbuf; the offset (high 16 bits) is where
 * the frame starts from buf_addr, that is data_off.  Only the fields a driver
 * must set are written, in five stores: next, nb_segs and refcnt were left
 * valid by the mbuf's previous free.
 */
static __rte_always_inline struct rte_mbuf *
af_xdp_desc_to_mbuf(uintptr_t mbuf_base, uint64_t rearm, uint64_t addr, uint32_t len)
{
	struct rte_mbuf *m = (struct rte_mbuf *)(mbuf_base + af_xdp_chunk(addr));

	*(mbuf_u64_t *)MBUF_AT(m, rearm_data) = rearm | (addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
	*(mbuf_u64_t *)MBUF_AT(m, ol_flags) = 0;
	*(mbuf_u32_t *)MBUF_AT(m, packet_type) = 0;
	*(mbuf_u32_t *)MBUF_AT(m, pkt_len) = len;
	*(mbuf_u32_t *)MBUF_AT(m, data_len) = len;	/* and vlan_tci 0: len < 64 KiB */
	return m;
}

/*
 * n contiguous descriptors into their mbufs; returns the bytes they carry.
 * Built once per instruction set (af_xdp_rx.c, af_xdp_rx_avx2.c): the code
 * is the same, the compiler's choice of instructions differs.
 */
static __rte_always_inline uint64_t
af_xdp_descs_to_mbufs(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
		      struct rte_mbuf **bufs, uint32_t n)
{
	const uintptr_t mbuf_base = rxq->mbuf_base;
	const uint64_t rearm = rxq->rearm_template;
	uint64_t bytes = 0;
	uint32_t i;

#pragma GCC unroll 4
	for (i = 0; i < n; i++) {
		/* Both words read before the stores, which may alias them. */
		const uint64_t addr = d[i].addr;
		const uint32_t len = d[i].len;

		bufs[i] = af_xdp_desc_to_mbuf(mbuf_base, rearm, addr, len);
		bytes += len;
	}
	return bytes;
}

/*
 * One batch: up to n (<= AF_XDP_RX_BATCH) descriptors, released with one
 * consumer update.  The ring may wrap inside the batch: then it is two runs.
 */
static __rte_always_inline uint32_t
af_xdp_rx_batch(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint32_t n,
		uint64_t *bytes)
{
	struct xsk_ring *rx = &rxq->rx;
	uint32_t ready, start, first;

	ready = xsk_ring_cons_peek(rx, n);
	if (ready == 0)
		return 0;

	start = rx->cached_cons & rx->mask;
	first = RTE_MIN(ready, rx->size - start);
	*bytes += af_xdp_descs_to_mbufs(rxq, xsk_ring_desc(rx, start), bufs, first);
	if (unlikely(first < ready))
		*bytes += af_xdp_descs_to_mbufs(rxq, xsk_ring_desc(rx, 0), bufs + first,
						ready - first);
	xsk_ring_cons_release(rx, ready);
	return ready;
}

static __rte_always_inline void
af_xdp_mbufs_to_chunks(uint64_t *addrs, void * const *objs, uintptr_t mbuf_base, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		addrs[i] = (uintptr_t)objs[i] - mbuf_base;
}

/*
 * A batch of free mbufs, taken in place from this lcore's mempool cache
 * when it holds enough (the chunk addresses are then computed straight from
 * the cache, with no intermediate copy), else through rte_mempool_get_bulk,
 * which also refills the cache.  The mbufs are raw: their fields are set
 * when a frame comes back in them.
 */
static __rte_always_inline void * const *
af_xdp_get_batch(struct rte_mempool *mp, void **spare)
{
	struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, rte_lcore_id());

	if (likely(cache != NULL && cache->len >= AF_XDP_RX_BATCH)) {
		cache->len -= AF_XDP_RX_BATCH;
		return &cache->objs[cache->len];
	}
	if (rte_mempool_get_bulk(mp, spare, AF_XDP_RX_BATCH) != 0)
		return NULL;
	return spare;
}

/* Offer one batch of fresh mbufs to the kernel, with one producer update. */
static __rte_always_inline int
af_xdp_fill_one_batch(struct af_xdp_rx_queue *rxq)
{
	struct xsk_ring *fill = &rxq->fill;
	void *spare[AF_XDP_RX_BATCH];
	void * const *objs;
	uint32_t start, first;

	objs = af_xdp_get_batch(rxq->mb_pool, spare);
	if (unlikely(objs == NULL)) {
		rxq->stats.nombuf += AF_XDP_RX_BATCH;
		rxq->fill_starved = true;
		return -ENOMEM;
	}
	start = fill->cached_prod & fill->mask;
	first = RTE_MIN((uint32_t)AF_XDP_RX_BATCH, fill->size - start);
	af_xdp_mbufs_to_chunks(xsk_ring_addr(fill, start), objs, rxq->mbuf_base, first);
	if (unlikely(first < AF_XDP_RX_BATCH))
		af_xdp_mbufs_to_chunks(xsk_ring_addr(fill, 0), objs + first, rxq->mbuf_base,
				       AF_XDP_RX_BATCH - first);
	xsk_ring_prod_submit(fill, AF_XDP_RX_BATCH);
	return 0;
}

/* Top the fill ring up, whole batches at a time.  Returns chunks offered. */
static __rte_always_inline unsigned int
af_xdp_fill(struct af_xdp_rx_queue *rxq)
{
	unsigned int offered = 0;

	rxq->fill_starved = false;
	while (xsk_ring_prod_space(&rxq->fill, AF_XDP_RX_BATCH) == AF_XDP_RX_BATCH) {
		if (af_xdp_fill_one_batch(rxq) != 0)
			break;
		offered += AF_XDP_RX_BATCH;
	}
	rxq->taken = offered >= rxq->taken ? 0 : rxq->taken - offered;
	return offered;
}

/* Cold paths, in af_xdp_rx.c. */
void af_xdp_rx_wakeup(struct af_xdp_rx_queue *rxq);
void af_xdp_rx_check_busy_poll(struct af_xdp_rx_queue *rxq);

static __rte_always_inline uint16_t
af_xdp_rx_burst_common(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	uint32_t nb_rx = 0, full = 0, got = 0;
	uint64_t bytes = 0;

	while (nb_rx < nb_pkts) {
		uint32_t n = RTE_MIN((uint32_t)(nb_pkts - nb_rx), (uint32_t)AF_XDP_RX_BATCH);

		got = af_xdp_rx_batch(rxq, bufs + nb_rx, n, &bytes);
		nb_rx += got;
		full += got == AF_XDP_RX_BATCH;
		if (got < n)
			break;
	}

	if (nb_rx == 0) {
		/*
		 * Frames the kernel dropped took fill entries too, without
		 * showing here: look at the fill ring now and then when idle,
		 * and at every poll after a failed refill (with an empty fill
		 * ring no frame can come to trigger one).
		 */
		if (unlikely(rxq->fill_starved) ||
		    unlikely(++rxq->idle_polls % AF_XDP_IDLE_FILL_CHECK == 0))
			af_xdp_fill(rxq);
		/*
		 * Nothing came: a zero-copy driver may be waiting for a kick
		 * to use the fill ring, and busy polling needs a syscall to
		 * run the NAPI loop in our context.
		 */
		if (rxq->busy_poll || xsk_ring_needs_wakeup(&rxq->fill))
			af_xdp_rx_wakeup(rxq);
		return 0;
	}

	/*
	 * Each frame delivered took a fill entry.  Reading how many the kernel
	 * took means reading the fill ring's consumer, a line the kernel's CPU
	 * writes: do it once a batch of slots must be free, not every burst.
	 */
	rxq->taken += nb_rx;
	if (rxq->taken >= AF_XDP_RX_BATCH)
		af_xdp_fill(rxq);

	if (unlikely(rxq->busy_poll_check))
		af_xdp_rx_check_busy_poll(rxq);
	rxq->stats.packets += nb_rx;
	rxq->stats.bytes += bytes;
	rxq->stats.full_batches += full;
	rxq->stats.partial_batches += got != 0 && got != AF_XDP_RX_BATCH;
	return (uint16_t)nb_rx;
}

#endif /* AF_XDP_RX_H */
