/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_RX_H
#define AF_XDP_RX_H

/*
 * The receive path: its entry points (af_xdp_rx.c), and the burst itself as
 * inline functions, built twice: af_xdp_rx.c for DPDK's baseline CPU and
 * af_xdp_rx_x86_64_v3.c for x86-64-v3 (AVX2, BMI1/2), where the compiler has
 * three-operand bit operations for the per-frame arithmetic and wider
 * vectors for the refill.  The build is chosen at start; bench/micro/
 * measures both.
 *
 * Hand-written SSE and AVX2 versions of the per-frame step, storing each
 * mbuf's fields as two 16-byte vectors, ran in fewer instructions (12 per
 * frame) but more cycles (33-36 against 19-20) on the AMD EPYC this was
 * measured on: plain stores per mbuf win.
 */

#include <stddef.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_vect.h>

#include "af_xdp.h"
#include "af_xdp_bpf_abi.h"

/*
 * An mbuf's fields are set in two steps.  When it is offered to the kernel
 * in the fill ring, one 32-byte store sets rearm_data to the queue's
 * offered mark (offered_mark() in af_xdp_rx.c) and zeroes everything after it up
 * to the hash: ol_flags, packet_type, pkt_len, data_len, vlan_tci.  When a
 * frame comes back in it, three stores set rearm_data (data_off, refcnt,
 * nb_segs, port), pkt_len and data_len.  The kernel writes only the chunk, never the header, in
 * between.  Paid for this way, the mark costs the receive path no
 * instruction: the two stores the offer adds are the two the frame no
 * longer needs.  Stores go through may_alias types.
 */
typedef uint64_t __attribute__((__may_alias__)) mbuf_u64_t;
typedef uint32_t __attribute__((__may_alias__)) mbuf_u32_t;
typedef uint64_t __attribute__((__vector_size__(16), __may_alias__)) mbuf_u64x2_t;
#ifdef __AVX2__
typedef uint64_t __attribute__((__vector_size__(32), __may_alias__, __aligned__(16)))
	mbuf_u64x4_t;
#endif

#define MBUF_AT(m, field) RTE_PTR_ADD(m, offsetof(struct rte_mbuf, field))

static_assert(offsetof(struct rte_mbuf, ol_flags) == offsetof(struct rte_mbuf, rearm_data) + 8 &&
	      offsetof(struct rte_mbuf, packet_type) == offsetof(struct rte_mbuf, rearm_data) + 16 &&
	      offsetof(struct rte_mbuf, pkt_len) == offsetof(struct rte_mbuf, rearm_data) + 20 &&
	      offsetof(struct rte_mbuf, data_len) == offsetof(struct rte_mbuf, rearm_data) + 24 &&
	      offsetof(struct rte_mbuf, hash) == offsetof(struct rte_mbuf, rearm_data) + 28,
	      "the offer's 32-byte store covers rearm_data to the first word of hash");

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
 * the frame starts from buf_addr, that is data_off.  next was left NULL by
 * the mbuf's previous free; the offer zeroed the rest.
 */
static __rte_always_inline struct rte_mbuf *
af_xdp_desc_to_mbuf(uintptr_t mbuf_base, uint64_t rearm, uint64_t addr, uint32_t len)
{
	struct rte_mbuf *m = (struct rte_mbuf *)(mbuf_base + af_xdp_chunk(addr));

	*(mbuf_u64_t *)MBUF_AT(m, rearm_data) = rearm | (addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
	*(mbuf_u32_t *)MBUF_AT(m, pkt_len) = len;
	/*
	 * Two bytes, not four with vlan_tci: the compiler would merge the two
	 * stores into one it needs three more instructions to build.
	 */
	m->data_len = (uint16_t)len;
	return m;
}

/*
 * The same for a port with Rx offloads: the struct af_xdp_rx_meta in front
 * of the frame gives the mbuf's Rx flags (masked with those the offloads
 * may set: the word comes from the UMEM) and, in one 8-byte move, data_len
 * (ORed into its zero), vlan_tci and hash.rss.  The address of the metadata
 * comes from the descriptor as the mbuf's does, with no load from the mbuf.
 * With TIMESTAMP, the stamp in front of those goes to the dynamic field.
 */
static __rte_always_inline struct rte_mbuf *
af_xdp_desc_to_mbuf_meta(uintptr_t mbuf_base, uintptr_t meta_delta, uint64_t ol_mask,
			 int32_t ts_off, uint64_t rearm, uint64_t addr, uint32_t len)
{
	const uint64_t chunk = af_xdp_chunk(addr), off = addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT;
	struct rte_mbuf *m = (struct rte_mbuf *)(mbuf_base + chunk);
	/* The mbuf plus the offset, then the queue's distance as an index. */
	const char *at = (const char *)m + off;
	const uint64_t ol = *(const mbuf_u64_t *)(at + meta_delta);
	const uint64_t fields = *(const mbuf_u64_t *)(at + meta_delta + 8);

	*(mbuf_u64_t *)MBUF_AT(m, rearm_data) = rearm | off;
	*(mbuf_u64_t *)MBUF_AT(m, ol_flags) = ol & ol_mask;
	*(mbuf_u32_t *)MBUF_AT(m, pkt_len) = len;
	*(mbuf_u64_t *)MBUF_AT(m, data_len) = fields | len;	/* len < 64 KiB: a chunk */
	/* The same test every frame: the compiler takes it out of the loop. */
	if (ts_off >= 0)
		*(mbuf_u64_t *)RTE_PTR_ADD(m, ts_off) = *(const mbuf_u64_t *)(at + meta_delta - 8);
	return m;
}

/*
 * n contiguous descriptors into their mbufs; returns the bytes they carry.
 * Built once per instruction set (af_xdp_rx.c, af_xdp_rx_x86_64_v3.c): the code
 * is the same, the compiler's choice of instructions differs.
 */
static __rte_always_inline uint64_t
af_xdp_descs_to_mbufs(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
		      struct rte_mbuf **bufs, uint32_t n, const bool meta)
{
	const uintptr_t mbuf_base = rxq->mbuf_base;
	const uint64_t rearm = rxq->rearm_template;
	const uintptr_t meta_delta = rxq->meta_delta;
	const uint64_t ol_mask = rxq->rx_meta_ol;
	const int32_t ts_off = rxq->timestamp_offset;
	uint64_t bytes = 0;
	uint32_t i;

#pragma GCC unroll 4
	for (i = 0; i < n; i++) {
		/* Both words read before the stores, which may alias them. */
		const uint64_t addr = d[i].addr;
		const uint32_t len = d[i].len;

		bufs[i] = meta ? af_xdp_desc_to_mbuf_meta(mbuf_base, meta_delta, ol_mask, ts_off,
							  rearm, addr, len) :
			  af_xdp_desc_to_mbuf(mbuf_base, rearm, addr, len);
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
		uint64_t *bytes, const bool meta)
{
	struct af_xdp_ring *rx = &rxq->rx;
	uint32_t ready, start, first;

	ready = af_xdp_ring_cons_peek(rx, n);
	if (ready == 0)
		return 0;

	start = rx->cached_cons & rx->mask;
	first = RTE_MIN(ready, rx->size - start);
	*bytes += af_xdp_descs_to_mbufs(rxq, af_xdp_ring_desc(rx, start), bufs, first, meta);
	if (unlikely(first < ready))
		*bytes += af_xdp_descs_to_mbufs(rxq, af_xdp_ring_desc(rx, 0), bufs + first,
						ready - first, meta);
	af_xdp_ring_cons_release(rx, ready);
	return ready;
}

/* The offer's store: one 32-byte vector with AVX2, two of 16 bytes otherwise. */
static __rte_always_inline void
af_xdp_mark_offered(void *m, uint64_t mark)
{
#ifdef __AVX2__
	*(mbuf_u64x4_t *)MBUF_AT(m, rearm_data) = (mbuf_u64x4_t){ mark, 0, 0, 0 };
#else
	*(mbuf_u64x2_t *)MBUF_AT(m, rearm_data) = (mbuf_u64x2_t){ mark, 0 };
	*(mbuf_u64x2_t *)MBUF_AT(m, packet_type) = (mbuf_u64x2_t){ 0, 0 };
#endif
}

/* Cold: a frame of several descriptors is dropped (counted), in af_xdp_rx.c. */
void af_xdp_rx_drop_chain(struct af_xdp_rx_queue *rxq, struct rte_mbuf *head);

/*
 * n contiguous descriptors into their mbufs, as af_xdp_descs_to_mbufs(),
 * also OR-ing their options together: a batch of single-descriptor frames
 * costs the multi-buffer burst two instructions a frame more.
 */
static __rte_always_inline uint64_t
af_xdp_descs_to_mbufs_options(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
			      struct rte_mbuf **bufs, uint32_t n, uint32_t *options)
{
	const uintptr_t mbuf_base = rxq->mbuf_base;
	const uint64_t rearm = rxq->rearm_template;
	uint64_t bytes = 0;
	uint32_t i, opts = 0;

#pragma GCC unroll 4
	for (i = 0; i < n; i++) {
		const uint64_t addr = d[i].addr;
		const uint32_t len = d[i].len;

		opts |= d[i].options;
		bufs[i] = af_xdp_desc_to_mbuf(mbuf_base, rearm, addr, len);
		bytes += len;
	}
	*options |= opts;
	return bytes;
}

/*
 * The descriptors from the ring's next on, up to ready, where frames may
 * span several (XDP_PKT_CONTD on all but the last): a segment is linked to
 * the frame being assembled, which is delivered with its last one; the frame
 * may have begun in an earlier batch and may end in a later one.  At most
 * max_frames frames.  Returns the descriptors taken.
 */
static __rte_always_inline uint32_t
af_xdp_rx_chains(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint32_t ready,
		 uint32_t max_frames, uint64_t *bytes, uint32_t *frames)
{
	const uintptr_t mbuf_base = rxq->mbuf_base;
	const uint64_t rearm = rxq->rearm_template;
	struct rte_mbuf *head = rxq->chain.head, *tail = rxq->chain.tail;
	struct af_xdp_ring *rx = &rxq->rx;
	uint32_t i, k = 0;

	for (i = 0; i < ready && k < max_frames; i++) {
		const struct xdp_desc *d = af_xdp_ring_desc(rx, rx->cached_cons + i);
		const uint64_t addr = d->addr;
		const uint32_t len = d->len;
		const uint32_t options = d->options;
		struct rte_mbuf *m = af_xdp_desc_to_mbuf(mbuf_base, rearm, addr, len);

		if (head == NULL) {
			if (!(options & XDP_PKT_CONTD)) {
				bufs[k++] = m;
				*bytes += len;
			} else {
				head = m;
				tail = m;
			}
			continue;
		}
		/* head's nb_segs and pkt_len kept true: the chain can be freed as is. */
		tail->next = m;
		tail = m;
		head->nb_segs++;
		head->pkt_len += len;
		if (options & XDP_PKT_CONTD) {
			if (unlikely(head->nb_segs == UINT16_MAX)) {
				/* Not a frame the kernel would build: the ring is corrupt. */
				af_xdp_rx_drop_chain(rxq, head);
				head = NULL;
			}
			continue;
		}
		if (likely(rxq->scatter)) {
			bufs[k++] = head;
			*bytes += head->pkt_len;
			rxq->stats.multi_buffer++;
		} else {
			/* Frames of one mbuf only, as a NIC without scatter. */
			af_xdp_rx_drop_chain(rxq, head);
		}
		head = NULL;
	}
	rxq->chain.head = head;
	rxq->chain.tail = tail;
	*frames = k;
	return i;
}

/*
 * One batch of up to AF_XDP_RX_BATCH descriptors where a frame may span
 * several, delivering at most max_frames frames.  A batch of
 * single-descriptor frames, with no frame being assembled, goes as in
 * af_xdp_rx_batch(); a batch with a segment in it is taken again by
 * af_xdp_rx_chains() (the mbufs it wrote are written again).  Returns the
 * descriptors taken; *frames, the frames delivered.
 */
static __rte_always_inline uint32_t
af_xdp_rx_batch_multi_buffer(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs,
			     uint32_t max_frames, uint64_t *bytes, uint32_t *frames)
{
	struct af_xdp_ring *rx = &rxq->rx;
	uint32_t ready, start, first, options = 0;
	uint64_t run;

	ready = af_xdp_ring_cons_peek(rx, AF_XDP_RX_BATCH);
	if (ready == 0) {
		*frames = 0;
		return 0;
	}
	if (likely(rxq->chain.head == NULL)) {
		/* As many as may all be frames of their own. */
		uint32_t n = RTE_MIN(ready, max_frames);

		start = rx->cached_cons & rx->mask;
		first = RTE_MIN(n, rx->size - start);
		run = af_xdp_descs_to_mbufs_options(rxq, af_xdp_ring_desc(rx, start), bufs, first,
						    &options);
		if (unlikely(first < n))
			run += af_xdp_descs_to_mbufs_options(rxq, af_xdp_ring_desc(rx, 0),
							     bufs + first, n - first, &options);
		if (likely(!(options & XDP_PKT_CONTD))) {
			af_xdp_ring_cons_release(rx, n);
			*bytes += run;
			*frames = n;
			return n;
		}
	}
	ready = af_xdp_rx_chains(rxq, bufs, ready, max_frames, bytes, frames);
	af_xdp_ring_cons_release(rx, ready);
	return ready;
}

static __rte_always_inline void
af_xdp_mbufs_to_chunks(uint64_t *addrs, void * const *objs, uintptr_t mbuf_base, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		addrs[i] = (uintptr_t)objs[i] - mbuf_base;
}

/* A batch of mbufs marked as offered: a loop of constant length, unrolled whole. */
static __rte_always_inline void
af_xdp_mark_batch_offered(void * const *objs, uint64_t mark)
{
	uint32_t i;

#pragma GCC unroll 64
	for (i = 0; i < AF_XDP_RX_BATCH; i++)
		af_xdp_mark_offered(objs[i], mark);
}

/*
 * Taking mbufs in place from the mempool cache is what rte_mempool_get_bulk()
 * does on a cache hit, less its copy, only in a DPDK built without mempool
 * debugging (cookies checked on every get) and statistics: with either, the
 * driver takes them through rte_mempool_get_bulk() alone.
 */
#if defined(RTE_LIBRTE_MEMPOOL_DEBUG) || defined(RTE_LIBRTE_MEMPOOL_STATS)
#define AF_XDP_RX_CACHE_IN_PLACE 0
#else
#define AF_XDP_RX_CACHE_IN_PLACE 1
#endif

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

	if (AF_XDP_RX_CACHE_IN_PLACE && likely(cache != NULL && cache->len >= AF_XDP_RX_BATCH)) {
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
	struct af_xdp_ring *fill = &rxq->fill;
	void *spare[AF_XDP_RX_BATCH];
	void * const *objs;
	uint32_t start, first;

	objs = af_xdp_get_batch(rxq->mb_pool, spare);
	if (unlikely(objs == NULL))
		return -ENOMEM;
	af_xdp_mark_batch_offered(objs, rxq->offered_mark);
	start = fill->cached_prod & fill->mask;
	first = RTE_MIN((uint32_t)AF_XDP_RX_BATCH, fill->size - start);
	af_xdp_mbufs_to_chunks(af_xdp_ring_addr(fill, start), objs, rxq->mbuf_base, first);
	if (unlikely(first < AF_XDP_RX_BATCH))
		af_xdp_mbufs_to_chunks(af_xdp_ring_addr(fill, 0), objs + first, rxq->mbuf_base,
				       AF_XDP_RX_BATCH - first);
	af_xdp_ring_prod_submit(fill, AF_XDP_RX_BATCH);
	return 0;
}

/* Cold paths of the burst, in af_xdp_rx.c. */
void af_xdp_rx_wakeup(struct af_xdp_rx_queue *rxq);
void af_xdp_rx_check_busy_poll(struct af_xdp_rx_queue *rxq);
void af_xdp_fill_fell_short(struct af_xdp_rx_queue *rxq);

/*
 * Top the fill ring up, whole batches at a time.  Returns chunks offered.
 * A refill that tops it up ends a shortage; one that runs out of mbufs
 * counts it (af_xdp_fill_fell_short()).
 */
static __rte_always_inline unsigned int
af_xdp_fill(struct af_xdp_rx_queue *rxq)
{
	unsigned int offered = 0;

	while (af_xdp_ring_prod_space(&rxq->fill, AF_XDP_RX_BATCH) == AF_XDP_RX_BATCH) {
		if (unlikely(af_xdp_fill_one_batch(rxq) != 0)) {
			af_xdp_fill_fell_short(rxq);
			goto out;
		}
		offered += AF_XDP_RX_BATCH;
	}
	rxq->fill_shortfall = 0;
out:
	rxq->taken = offered >= rxq->taken ? 0 : rxq->taken - offered;
	return offered;
}

/*
 * The burst, for single-descriptor frames only or (multi_buffer, a constant
 * at each call, so each is its own code) for frames of several descriptors
 * too.  nb_pkts bounds the frames delivered: a single-buffer batch asks for
 * no more descriptors than frames are still wanted, a multi-buffer one
 * stops taking descriptors when it has delivered as many.
 */
static __rte_always_inline uint16_t
af_xdp_rx_burst_common(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint16_t nb_pkts,
		       const bool multi_buffer, const bool meta)
{
	uint32_t nb_rx = 0, descs = 0, full = 0, got = 0;
	uint64_t bytes = 0;

	while (nb_rx < nb_pkts) {
		uint32_t n = RTE_MIN((uint32_t)(nb_pkts - nb_rx), (uint32_t)AF_XDP_RX_BATCH);
		uint32_t frames;

		if (multi_buffer) {
			/* Whole batches: a frame may take several descriptors. */
			n = AF_XDP_RX_BATCH;
			got = af_xdp_rx_batch_multi_buffer(rxq, bufs + nb_rx, nb_pkts - nb_rx,
							   &bytes, &frames);
		} else {
			got = af_xdp_rx_batch(rxq, bufs + nb_rx, n, &bytes, meta);
			frames = got;
		}
		nb_rx += frames;
		descs += got;
		full += got == AF_XDP_RX_BATCH;
		if (got < n)
			break;
	}

	if (descs == 0) {
		/*
		 * Frames the kernel dropped took fill entries too, without
		 * showing here: look at the fill ring now and then when idle,
		 * and at every poll after a failed refill (with an empty fill
		 * ring no frame can come to trigger one).
		 */
		if (unlikely(rxq->fill_shortfall != 0) ||
		    unlikely(++rxq->idle_polls % AF_XDP_IDLE_FILL_CHECK == 0))
			af_xdp_fill(rxq);
		/*
		 * Nothing came: a zero-copy driver may be waiting for a kick
		 * to use the fill ring, and busy polling needs a syscall to
		 * run the NAPI loop in our context.
		 */
		if (rxq->busy_poll || af_xdp_ring_needs_wakeup(&rxq->fill))
			af_xdp_rx_wakeup(rxq);
		return 0;
	}

	/*
	 * Each descriptor taken took a fill entry.  Reading how many the
	 * kernel took means reading the fill ring's consumer, a line the
	 * kernel's CPU writes: do it once a batch of slots must be free, not
	 * every burst.
	 */
	rxq->taken += descs;
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

/*
 * The metadata of frames of several descriptors, which is in front of the
 * first only: into the mbufs at the head of each frame, after the burst
 * (the per-descriptor step cannot tell a frame's first descriptor).
 */
static __rte_always_inline void
af_xdp_rx_meta_to_heads(uint64_t ol_mask, int32_t ts_off, struct rte_mbuf **bufs, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];
		const struct af_xdp_rx_meta *meta =
			rte_pktmbuf_mtod_offset(m, const struct af_xdp_rx_meta *,
						-(int)sizeof(struct af_xdp_rx_meta));

		m->ol_flags = meta->ol_flags & ol_mask;
		m->vlan_tci = meta->vlan_tci;
		m->hash.rss = meta->hash;
		if (ts_off >= 0)
			*(mbuf_u64_t *)RTE_PTR_ADD(m, ts_off) = meta->timestamp;
	}
}

/*
 * The burst of a port with Rx offloads: each frame's metadata into its mbuf
 * (af_xdp_desc_to_mbuf_meta()), a burst of its own so that the burst
 * without them stays as it was.  Frames of several descriptors are taken
 * as without, their metadata moved after.
 */
static __rte_always_inline uint16_t
af_xdp_rx_burst_meta(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint16_t nb_pkts,
		     const bool multi_buffer)
{
	uint16_t n;

	if (!multi_buffer)
		return af_xdp_rx_burst_common(rxq, bufs, nb_pkts, false, true);
	n = af_xdp_rx_burst_common(rxq, bufs, nb_pkts, true, false);
	af_xdp_rx_meta_to_heads(rxq->rx_meta_ol, rxq->timestamp_offset, bufs, n);
	return n;
}

/*
 * A 32-bit word of a frame's bytes at an address that is a multiple of 2
 * only: an IPv4 header behind a 14-byte Ethernet header, the frame at an
 * even offset of its chunk (the kernel's headroom, the Rx metadata and VLAN
 * tags are all even).  DPDK's unaligned_uint32_t is a plain uint32_t where
 * the architecture is not strict about alignment (x86), and a load through
 * it is undefined there too (UBSan: "load of misaligned address"); this
 * type says the alignment there is, and aliases the frame's bytes.  The
 * same one load on x86.
 */
typedef uint32_t __attribute__((__aligned__(2), __may_alias__)) af_xdp_u32_a2_t;

/*
 * Whether an IPv4 header of hdr_len bytes (a multiple of 4, at least 20)
 * sums right, its checksum field included: the one's complement sum of its
 * 16-bit words is all ones.  Summed as 32-bit words into 64 bits and folded,
 * which gives the same 16-bit sum (in either byte order, and all ones is
 * the same in both): five loads and adds for a header without options,
 * where rte_raw_cksum()'s general loop takes some 60 instructions.
 */
static __rte_always_inline bool
af_xdp_rx_ipv4_sums_right(const void *hdr, uint32_t hdr_len)
{
	const af_xdp_u32_a2_t *w = hdr;
	uint64_t sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	uint32_t i;

	for (i = 5; i < hdr_len / 4; i++)
		sum += w[i];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The rest of af_xdp_rx_ipv4_cksum_flag(): tags, options, short or malformed headers. */
uint64_t af_xdp_rx_ipv4_cksum_flag_rest(const uint8_t *p, uint32_t len);

/*
 * RTE_MBUF_F_RX_IP_CKSUM_GOOD or _BAD for a frame whose data starts at p
 * (len bytes in its first segment) if it is IPv4 (behind at most two VLAN
 * tags it still carries), else 0 (UNKNOWN).  The common frame, untagged
 * IPv4 without options, is checked here; the others out of line.
 */
static __rte_always_inline uint64_t
af_xdp_rx_ipv4_cksum_flag(const uint8_t *p, uint32_t len)
{
	const rte_be16_t type = ((const struct rte_ether_hdr *)p)->ether_type;
	const uint32_t plain = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr);

	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= plain &&
		   p[RTE_ETHER_HDR_LEN] == RTE_IPV4_VHL_DEF))
		return af_xdp_rx_ipv4_sums_right(p + RTE_ETHER_HDR_LEN,
						 sizeof(struct rte_ipv4_hdr)) ?
		       RTE_MBUF_F_RX_IP_CKSUM_GOOD : RTE_MBUF_F_RX_IP_CKSUM_BAD;
	if (type != RTE_BE16(RTE_ETHER_TYPE_IPV4) && type != RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
	    type != RTE_BE16(RTE_ETHER_TYPE_QINQ))
		return 0;
	return af_xdp_rx_ipv4_cksum_flag_rest(p, len);
}

/*
 * RTE_ETH_RX_OFFLOAD_IPV4_CKSUM: the IPv4 header checksum of each frame
 * checked here (no kernel tells it: the XDP metadata has no checksum
 * status), RTE_MBUF_F_RX_IP_CKSUM_GOOD or _BAD ORed into the flags; frames
 * that are not IPv4 stay UNKNOWN, and so do the L4 checksums of all
 * (RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN is 0): the kernel does not say whether it
 * verified them, and frames a local sender handed to veth carry a partial
 * sum only.  The header is in the first segment: a chunk is far longer.
 */
static __rte_always_inline void
af_xdp_rx_ipv4_cksum(struct rte_mbuf **bufs, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];

		m->ol_flags |= af_xdp_rx_ipv4_cksum_flag(rte_pktmbuf_mtod(m, const uint8_t *),
							 m->data_len);
	}
}

/*
 * The burst of a port with Rx offloads the driver completes itself after
 * the burst (cksum: af_xdp_rx_ipv4_cksum()), with or without those from
 * the XDP metadata (meta).
 */
static __rte_always_inline uint16_t
af_xdp_rx_burst_offloads(struct af_xdp_rx_queue *rxq, struct rte_mbuf **bufs, uint16_t nb_pkts,
			 const bool multi_buffer, const bool meta)
{
	uint16_t n = meta ? af_xdp_rx_burst_meta(rxq, bufs, nb_pkts, multi_buffer) :
			    af_xdp_rx_burst_common(rxq, bufs, nb_pkts, multi_buffer, false);

	af_xdp_rx_ipv4_cksum(bufs, n);
	return n;
}

/* The two builds of the burst, each for single- and for multi-buffer frames. */
uint16_t af_xdp_rx_burst_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs,
					       uint16_t nb_pkts);
/*
 * GCC's straight-line vectoriser would merge the stores of rearm_data and
 * ol_flags into one 16-byte store that takes three instructions to build:
 * plain stores are fewer.  On every single-buffer burst that moves the
 * metadata (af_xdp_desc_to_mbuf_meta()): 1.8 to 1.9 instructions a packet
 * fewer with the IPv4 check too (bench-rx's "both" row).  GCC documents
 * the optimize attribute as meant for debugging; the alternative, the
 * option on the whole file, would reach the bursts it does not help.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define AF_XDP_RX_SCALAR_STORES __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define AF_XDP_RX_SCALAR_STORES
#endif

/* The same with the Rx offloads' metadata (af_xdp_rx_burst_meta()). */
AF_XDP_RX_SCALAR_STORES
uint16_t af_xdp_rx_burst_meta_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_meta_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs,
						    uint16_t nb_pkts);
/* The same, the IPv4 header checksum checked (af_xdp_rx_burst_offloads()). */
uint16_t af_xdp_rx_burst_cksum_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_cksum_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs,
						     uint16_t nb_pkts);
AF_XDP_RX_SCALAR_STORES
uint16_t af_xdp_rx_burst_meta_cksum_baseline(void *queue, struct rte_mbuf **bufs,
					     uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_meta_cksum_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs,
							  uint16_t nb_pkts);
#ifdef AF_XDP_HAVE_X86_64_V3
uint16_t af_xdp_rx_burst_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
						uint16_t nb_pkts);
AF_XDP_RX_SCALAR_STORES
uint16_t af_xdp_rx_burst_meta_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_meta_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
						     uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_cksum_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_cksum_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
						      uint16_t nb_pkts);
AF_XDP_RX_SCALAR_STORES
uint16_t af_xdp_rx_burst_meta_cksum_x86_64_v3(void *queue, struct rte_mbuf **bufs,
					      uint16_t nb_pkts);
uint16_t af_xdp_rx_burst_meta_cksum_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
							   uint16_t nb_pkts);
#endif

/* What a receive burst does besides taking frames: one build of each kind. */
struct af_xdp_rx_burst_kind {
	bool multi_buffer;	/* frames of several descriptors (socket bound with XDP_USE_SG) */
	bool meta;		/* the Rx offloads' XDP metadata into the mbufs */
	bool cksum;		/* IPv4 header checksums checked (af_xdp_rx_ipv4_cksum()) */
};

/*
 * The burst of that kind for this machine, and the name of its build as the
 * logs and rx_burst_mode_get() give it.
 */
eth_rx_burst_t af_xdp_rx_burst_select(const struct af_xdp_rx_burst_kind *kind, const char **name);

/*
 * The burst of queues on the driver's UMEM (one copy per frame into the
 * application's mbufs), over rxq->copy_inner, the burst of the port's kind.
 */
uint16_t af_xdp_rx_burst_copy(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);

/*
 * The name of the build behind burst, and *kind its kind; NULL (and a
 * zeroed kind) when it is not one of ours.
 */
const char *af_xdp_rx_burst_name(eth_rx_burst_t burst, struct af_xdp_rx_burst_kind *kind);

/*
 * Serve the queue from a socket's Rx and fill rings (fd: for wakeups, -1
 * for rings in plain memory).  The queue's offered mbufs get a mark of
 * their own (offered_mark() in af_xdp_rx.c).
 */
void af_xdp_rxq_bind(struct af_xdp_rx_queue *rxq, const struct af_xdp_ring *rx,
		     const struct af_xdp_ring *fill, const struct af_xdp_umem_layout *layout,
		     int fd);

/*
 * Top the fill ring up, at start; returns the chunks offered.  Warns when
 * the mempool had some mbufs, but not enough.
 */
unsigned int af_xdp_rxq_fill(struct af_xdp_rx_queue *rxq);

/*
 * The socket is closed and the kernel holds none of the queue's chunks any
 * more: give back to the mempool every mbuf still marked as offered (in
 * the fill ring, in the Rx ring, or kept by the kernel).  Returns how many.
 */
unsigned int af_xdp_rxq_reclaim(struct af_xdp_rx_queue *rxq);

/*
 * The socket closed but the kernel still has it (another process holds a
 * copy of its descriptor), so it may still receive into the offered mbufs:
 * they keep their mark, for af_xdp_rxq_reclaim_held() once it is gone.
 */
void af_xdp_rxq_hold(struct af_xdp_rx_queue *rxq);

/* The held socket is gone: its mbufs back to the mempool; how many. */
unsigned int af_xdp_rxq_reclaim_held(struct af_xdp_rx_queue *rxq);

/* The queue no longer has a socket: a frame half assembled is freed. */
void af_xdp_rxq_unbind(struct af_xdp_rx_queue *rxq);

#endif /* AF_XDP_RX_H */
