/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Transmit: descriptors written in bulk and published with one producer
 * update; the completion ring drained in batches with one bulk free; a
 * wakeup only when the kernel asks for one.
 *
 * An mbuf of the UMEM's own mempool is sent in place: its chunk address is
 * known from its pointer.  On a socket bound for multi-buffer frames, a
 * chain of such mbufs is sent in place too, a descriptor per segment
 * (XDP_PKT_CONTD on all but the last), its segments unlinked so that each
 * is freed when its own descriptor completes.  Anything else (another pool,
 * an indirect or external buffer, a shared chain, a frame longer than a
 * chunk) is copied into fresh mbufs of the UMEM's pool, as many as it takes,
 * and the original is freed at once.  A frame is queued whole or not at
 * all.  On the driver's UMEM (af_xdp_umem.c: a mempool that cannot be one)
 * no application mbuf is the UMEM's: every frame takes that copy.
 *
 * The checksum build of the burst (af_xdp_tx_burst_csum, chosen at start
 * when a Tx checksum offload is configured) first honours each frame's
 * checksum request (af_xdp_csum.c); one the kernel completes carries
 * struct af_xdp_tx_meta in the headroom of its first descriptor's mbuf.
 *
 * In zero-copy mode, Linux 6.8 to 7.2 read the Tx metadata in front of
 * every descriptor of a UMEM registered with it, XDP_TX_METADATA set in its
 * options or not: the drivers that honour requests (mlx5, stmmac, igc)
 * took xsk_buff_get_metadata(pool, addr), which looked only at the pool's
 * tx_metadata_len, until "xsk: honor XDP_TX_METADATA in zero-copy path"
 * (7.3-rc1, a6e4b9a6deb9; in 6.12 from 6.12.114, CVE-2026-90086, and in
 * other stable lines since).  Copy mode has always looked at the option
 * (xsk_build_skb()).  Whatever an mbuf's headroom held there (an earlier
 * request, the Rx metadata's flags of a frame forwarded in place: its
 * RSS-hash flag reads as XDP_TXMD_FLAGS_CHECKSUM) would be taken for a
 * request.  So on a zero-copy socket with Tx metadata (txq->meta_clear)
 * every descriptor without a request gets its flags zeroed, one 8-byte
 * store (af_xdp_tx_burst_meta_clear, or the checksum build), and a frame
 * whose headroom has no room for them is copied.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp_csum.h"
#include "af_xdp_tx.h"

/* At stop, how long completions of frames the kernel took may take to come. */
#define AF_XDP_TX_RELEASE_TRIES 100
#define AF_XDP_TX_RELEASE_WAIT_US 1000

void
af_xdp_txq_bind(struct af_xdp_tx_queue *txq, const struct af_xdp_ring *tx,
		const struct af_xdp_ring *comp, const struct af_xdp_umem_layout *layout,
		uint32_t tx_meta_len, bool zero_copy, struct rte_mempool *umem_pool, int fd)
{
	txq->tx = *tx;
	txq->comp = *comp;
	txq->mbuf_base = layout->mbuf_base;
	txq->umem_pool = umem_pool;
	/* The kernel counts the metadata in front of a frame in the descriptor's length. */
	txq->chunk_size = layout->chunk_size - tx_meta_len;
	txq->csum_by_kernel = false;
	txq->meta_clear = tx_meta_len != 0 && zero_copy;
	txq->fd = fd;
	txq->outstanding = 0;
	txq->kick_refused = false;
	af_xdp_txq_set_frame_limits(txq, UINT32_MAX, 1);
}

void
af_xdp_txq_set_frame_limits(struct af_xdp_tx_queue *txq, uint32_t max_pkt_len, uint16_t max_segs)
{
	txq->max_pkt_len = max_pkt_len;
	txq->max_segs = RTE_MIN(RTE_MAX(max_segs, (uint16_t)1), (uint16_t)AF_XDP_TX_MAX_SEGS);
	txq->max_frame = RTE_MIN(txq->chunk_size, max_pkt_len);
}

unsigned int
af_xdp_txq_drain(struct af_xdp_tx_queue *txq)
{
	struct af_xdp_ring *comp = &txq->comp;
	struct rte_mbuf *done[AF_XDP_TX_BATCH];
	unsigned int total = 0;
	uint32_t n, i;

	while ((n = af_xdp_ring_cons_peek(comp, AF_XDP_TX_BATCH)) != 0) {
		for (i = 0; i < n; i++) {
			uint64_t addr = *af_xdp_ring_addr(comp, comp->cached_cons + i);

			done[i] = (struct rte_mbuf *)
				(txq->mbuf_base + (addr & XSK_UNALIGNED_BUF_ADDR_MASK));
		}
		af_xdp_ring_cons_release(comp, n);
		rte_pktmbuf_free_bulk(done, n);
		total += n;
	}
	txq->outstanding -= total;
	if (total != 0)
		txq->kick_refused = false;
	return total;
}

/*
 * Room in the Tx ring for at most n descriptors from this burst's first
 * on, no more than keeps every descriptor not yet completed within one
 * ring's worth of slots: the kernel's completions come in the order it took
 * the descriptors, so at close those still outstanding are the ring's last
 * ones, each still in its slot (af_xdp_txq_release() reads them there).
 */
static __rte_always_inline uint32_t
tx_space(struct af_xdp_tx_queue *txq, uint32_t n)
{
	return RTE_MIN(af_xdp_ring_prod_space(&txq->tx, n), txq->tx.size - txq->outstanding);
}

static __rte_always_inline bool
sendable_in_place(const struct af_xdp_tx_queue *txq, const struct rte_mbuf *m)
{
	return m->pool == txq->umem_pool && RTE_MBUF_DIRECT(m) && m->nb_segs == 1;
}

/* With meta_clear, the metadata's place in front of m's data is m's headroom. */
static __rte_always_inline bool
meta_room(const struct rte_mbuf *m, const bool clear)
{
	return !clear || m->data_off >= AF_XDP_TX_META_LEN;
}

static __rte_always_inline uint64_t
mbuf_desc_addr(const struct af_xdp_tx_queue *txq, const struct rte_mbuf *m)
{
	return ((uintptr_t)m - txq->mbuf_base) |
	       ((uint64_t)m->data_off << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
}

/* clear: the metadata's flags zeroed where the descriptor makes no request. */
static __rte_always_inline void
put_desc(struct af_xdp_tx_queue *txq, uint32_t at, struct rte_mbuf *seg, uint32_t options,
	 const bool clear)
{
	struct xdp_desc *d = af_xdp_ring_desc(&txq->tx, txq->tx.cached_prod + at);

	if (clear && !(options & XDP_TX_METADATA))
		memset(rte_pktmbuf_mtod_offset(seg, uint8_t *, -(int)AF_XDP_TX_META_LEN), 0,
		       sizeof(uint64_t));
	d->addr = mbuf_desc_addr(txq, seg);
	d->len = seg->data_len;
	d->options = options;
}

/*
 * The options of a frame's first descriptor, which points at mbuf first:
 * with meta, XDP_TX_METADATA, and the metadata written just before first's
 * data (af_xdp_tx_csum_apply() saw to the headroom; a copy's has
 * RTE_PKTMBUF_HEADROOM).
 */
static __rte_always_inline uint32_t
first_options(struct rte_mbuf *first, const struct af_xdp_tx_meta *meta)
{
	if (meta == NULL)
		return 0;
	memcpy(rte_pktmbuf_mtod_offset(first, uint8_t *, -(int)AF_XDP_TX_META_LEN), meta,
	       sizeof(*meta));
	return XDP_TX_METADATA;
}

/*
 * A frame whose segments (one or more) are all the UMEM's, ours alone, and
 * each no longer than a chunk, the most a descriptor takes: sent in place.
 */
static bool
chain_sendable_in_place(const struct af_xdp_tx_queue *txq, const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (m->pool != txq->umem_pool || !RTE_MBUF_DIRECT(m) ||
		    rte_mbuf_refcnt_read(m) != 1 || m->data_len > txq->chunk_size ||
		    !meta_room(m, txq->meta_clear))
			return false;
	return true;
}

/*
 * Queue the chain m from descriptor at on, one descriptor per segment,
 * unlinking the segments: each is freed when its descriptor completes.
 */
static void
put_chain(struct af_xdp_tx_queue *txq, uint32_t at, struct rte_mbuf *m,
	  const struct af_xdp_tx_meta *meta)
{
	uint32_t options = first_options(m, meta);

	while (m != NULL) {
		struct rte_mbuf *next = m->next;

		put_desc(txq, at++, m, options | (next != NULL ? XDP_PKT_CONTD : 0), txq->meta_clear);
		options = 0;
		m->next = NULL;
		m->nb_segs = 1;
		m = next;
	}
}

/*
 * Copy the frame m into n fresh mbufs of the UMEM's pool, each filled to its
 * tailroom, and queue them from descriptor at on.  Returns -ENOBUFS when the
 * pool has not n mbufs: the caller keeps m.
 */
static int
put_copy(struct af_xdp_tx_queue *txq, uint32_t at, const struct rte_mbuf *m, uint32_t n,
	 uint32_t room, const struct af_xdp_tx_meta *meta)
{
	struct rte_mbuf *c[AF_XDP_TX_MAX_SEGS];
	uint32_t off = 0, i;

	if (unlikely(rte_pktmbuf_alloc_bulk(txq->umem_pool, c, n) != 0))
		return -ENOBUFS;
	for (i = 0; i < n; i++) {
		uint32_t len = RTE_MIN(room, m->pkt_len - off);
		void *dst = rte_pktmbuf_mtod(c[i], void *);
		const void *data = rte_pktmbuf_read(m, off, len, dst);

		if (data != dst)
			rte_memcpy(dst, data, len);
		c[i]->data_len = (uint16_t)len;
		c[i]->pkt_len = len;
		off += len;
		put_desc(txq, at + i, c[i], (i == 0 ? first_options(c[0], meta) : 0) |
			 (i + 1 < n ? XDP_PKT_CONTD : 0), txq->meta_clear);
	}
	txq->stats.copies++;
	return 0;
}

/*
 * The slow path of one frame: a chain, an mbuf the kernel cannot reach, a
 * frame over a chunk or over the limits.  Returns the descriptors it took
 * from *space (0: dropped, counted, and freed), or -ENOBUFS when the ring
 * or the UMEM's pool cannot take it now: the caller keeps it.  When the
 * ring's space must be read again, it is read for want descriptors, the
 * frames left in the burst, or this frame's if more.
 */
static int
put_frame_slow(struct af_xdp_tx_queue *txq, struct rte_mbuf *m, uint32_t queued,
	       uint32_t *space, uint32_t want, const struct af_xdp_tx_meta *meta)
{
	/* What a fresh mbuf of the UMEM holds: a chunk after the mbuf headroom. */
	const uint32_t room = txq->chunk_size - RTE_PKTMBUF_HEADROOM;
	bool in_place = chain_sendable_in_place(txq, m);
	uint32_t n = in_place ? m->nb_segs : UINT32_MAX;

	if (unlikely(m->pkt_len > txq->max_pkt_len)) {
		/* The interface would drop it: drop it, count it. */
		txq->stats.dropped++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (n > txq->max_segs) {
		/* Copied, the segments may be fewer. */
		in_place = false;
		n = (m->pkt_len + room - 1) / room;
	}
	if (unlikely(n > txq->max_segs)) {
		/* Without multi-buffer, longer than a chunk; with it, too many segments. */
		if (txq->max_segs == 1)
			txq->stats.dropped++;
		else
			txq->stats.too_many_segs++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (queued + n > *space) {
		*space = tx_space(txq, queued + RTE_MAX(n, want));
		if (queued + n > *space)
			return -ENOBUFS;
	}
	if (in_place) {
		put_chain(txq, queued, m, meta);
	} else {
		if (put_copy(txq, queued, m, n, room, meta) != 0)
			return -ENOBUFS;
		rte_pktmbuf_free(m);
	}
	txq->stats.multi_buffer += n > 1;
	return (int)n;
}

/* Descriptors the kernel has taken from the Tx ring and not completed (or not drained) yet. */
static __rte_always_inline uint32_t
tx_in_flight(const struct af_xdp_tx_queue *txq)
{
	return txq->outstanding - af_xdp_ring_pending(&txq->tx);
}

/*
 * Ask the kernel to send what the ring holds; copy mode sends in the call,
 * at most its Tx budget of descriptors per call: AF_XDP_KERNEL_TX_BUDGET,
 * or the ring's size where the socket raised it (af_xdp_socket.c), and
 * then one call drains the ring.  Kick until the ring is empty, at most as
 * often as the kernel's least budget takes for a full ring: kicks beyond
 * what the ring holds would be wasted syscalls.  A kick given up on a
 * failure leaves its frames for the next burst's kick, however late that
 * comes: counted (kick_busy, kick_errors, kick_stalls), so that a frame
 * seen late or lost says whether it waited here.
 *
 * EAGAIN (the send buffer or the completion ring is full, the device asked
 * for a retry, or the kernel's budget per call ran out) is worth another
 * kick once completions are drained.  EBUSY is not: in copy mode it says
 * the device dropped the frame it was given (its queue full,
 * NET_XMIT_DROP) and completed it; the next kick would only drop the next
 * frame.  The frames stay in the ring for the next burst, which is the
 * application's backpressure (a full Tx ring), as on a NIC.
 *
 * An EAGAIN that took no descriptor while frames the kernel took are still
 * in flight marks the queue refused (kick_refused): the send buffer is
 * full of those frames, and only their completion frees it.  The bursts
 * after it do not kick (kick_waits) until af_xdp_txq_drain() finds a
 * completion: a polling application would otherwise make a refused
 * syscall per burst for as long as a slow peer keeps its queue full.
 * Without frames in flight a completion may never come, so such an EAGAIN
 * is retried at the next burst as before.
 */
static void
tx_wakeup(struct af_xdp_tx_queue *txq)
{
	unsigned int kicks = 1 + txq->tx.size / AF_XDP_KERNEL_TX_BUDGET;

	do {
		uint32_t waiting = af_xdp_ring_pending(&txq->tx);

		txq->stats.wakeups++;
		if (sendto(txq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			/*
			 * ENOBUFS/ENETDOWN and the like: nothing to do now.
			 * Frames stay in the ring for the next burst.
			 */
			int busy = errno;

			if (busy != EAGAIN && busy != EBUSY) {
				txq->stats.kick_errors++;
				break;
			}
			txq->stats.kick_busy++;
			/* Before the drain: a completion found there clears it. */
			if (busy == EAGAIN && af_xdp_ring_pending(&txq->tx) == waiting &&
			    tx_in_flight(txq) != 0)
				txq->kick_refused = true;
			if (af_xdp_txq_drain(txq) == 0 || busy == EBUSY)
				break;
		}
	} while (af_xdp_ring_needs_wakeup(&txq->tx) &&
		 af_xdp_ring_pending(&txq->tx) != 0 && --kicks != 0);
	if (kicks != 0 && af_xdp_ring_pending(&txq->tx) != 0 && af_xdp_ring_needs_wakeup(&txq->tx))
		txq->stats.kick_stalls++;
}

/*
 * Honour m's checksum request: *done says whether the driver computed all
 * it asks for or left the L4 checksum to the kernel (meta filled); it is
 * counted once the frame is queued.  Returns false when the request cannot
 * be honoured: m is then freed and counted as dropped.
 */
static __rte_always_inline bool
tx_csum(struct af_xdp_tx_queue *txq, struct rte_mbuf *m, struct af_xdp_tx_meta *meta,
	enum af_xdp_csum_done *done)
{
	*done = af_xdp_tx_csum_apply(m, txq->csum_by_kernel, meta);
	if (likely(*done != AF_XDP_CSUM_INVALID))
		return true;
	txq->stats.dropped++;
	rte_pktmbuf_free(m);
	return false;
}

/*
 * The burst, built three times: without checksum offloads (csum false, the
 * compiler drops every trace of them), the same zeroing the metadata's
 * flags (clear: txq->meta_clear), and with them (clear as the queue says).
 */
static __rte_always_inline uint16_t
tx_burst(struct af_xdp_tx_queue *txq, struct rte_mbuf **bufs, uint16_t nb_pkts, const bool csum,
	 const bool clear)
{
	struct af_xdp_ring *tx = &txq->tx;
	uint32_t space, i, queued = 0, frames = 0;
	uint64_t bytes = 0;

	af_xdp_txq_drain(txq);

	space = tx_space(txq, nb_pkts);
	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = bufs[i];
		uint32_t len = m->pkt_len;
		enum af_xdp_csum_done done = AF_XDP_CSUM_BY_DRIVER;
		struct af_xdp_tx_meta meta_buf, *meta = NULL;
		bool asked = csum && (m->ol_flags & AF_XDP_TX_CSUM_FLAGS) != 0;
		int n;

		if (asked) {
			if (!tx_csum(txq, m, &meta_buf, &done))
				continue;
			if (done == AF_XDP_CSUM_BY_KERNEL)
				meta = &meta_buf;
		}
		if (likely(sendable_in_place(txq, m) && len <= txq->max_frame &&
			   meta_room(m, clear))) {
			/* After a chain, space may have been read for that chain only. */
			if (unlikely(queued == space)) {
				space = tx_space(txq, queued + nb_pkts - i);
				if (queued == space)
					break;	/* the caller keeps bufs[i] onwards */
			}
			put_desc(txq, queued++, m, csum ? first_options(m, meta) : 0, clear);
		} else {
			n = put_frame_slow(txq, m, queued, &space, nb_pkts - i, meta);
			if (n < 0)
				break;
			if (n == 0)
				continue;
			queued += n;
		}
		if (asked) {
			if (done == AF_XDP_CSUM_BY_KERNEL)
				txq->stats.csum_kernel++;
			else
				txq->stats.csum_sw++;
		}
		bytes += len;
		frames++;
	}

	if (queued != 0) {
		af_xdp_ring_prod_submit(tx, queued);
		txq->outstanding += queued;
		txq->stats.packets += frames;
		txq->stats.bytes += bytes;
	}
	if (txq->outstanding != 0 && af_xdp_ring_needs_wakeup(tx)) {
		if (unlikely(txq->kick_refused))
			txq->stats.kick_waits++;
		else
			tx_wakeup(txq);
	}
	return (uint16_t)i;
}

uint16_t
af_xdp_tx_burst(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return tx_burst(queue, bufs, nb_pkts, false, false);
}

uint16_t
af_xdp_tx_burst_meta_clear(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return tx_burst(queue, bufs, nb_pkts, false, true);
}

uint16_t
af_xdp_tx_burst_csum(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	struct af_xdp_tx_queue *txq = queue;

	return tx_burst(txq, bufs, nb_pkts, true, txq->meta_clear);
}

void
af_xdp_txq_set_csum(struct af_xdp_tx_queue *txq, bool by_kernel)
{
	txq->csum_by_kernel = by_kernel;
}

/*
 * Keep the mbufs of the descriptors still outstanding (queued, and not
 * completed: taken by the kernel or not) on the queue's held list: they
 * are the ring's last txq->outstanding (tx_space()).
 */
static void
hold_outstanding(struct af_xdp_tx_queue *txq)
{
	uint32_t n = txq->outstanding, i, end = txq->tx.cached_prod;
	struct rte_mbuf **held;

	if (n == 0)
		return;
	held = rte_realloc(txq->held, (txq->nb_held + n) * sizeof(*held), 0);
	if (held == NULL) {
		AF_XDP_LOG(ERR, "port %u Tx queue %u: no memory to keep the %u frames the kernel still has: they stay out of their mempool",
			   txq->port_id, txq->queue_id, n);
		return;
	}
	txq->held = held;
	for (i = end - n; i != end; i++)
		held[txq->nb_held++] = (struct rte_mbuf *)(txq->mbuf_base +
			(af_xdp_ring_desc(&txq->tx, i)->addr & XSK_UNALIGNED_BUF_ADDR_MASK));
}

unsigned int
af_xdp_txq_release(struct af_xdp_tx_queue *txq)
{
	unsigned int tries, n = 0;

	for (tries = 0; tries < AF_XDP_TX_RELEASE_TRIES; tries++) {
		n += af_xdp_txq_drain(txq);
		/* Whatever is outstanding now sits in the Tx ring, untaken. */
		if (txq->outstanding == 0 || af_xdp_ring_pending(&txq->tx) == txq->outstanding)
			break;
		usleep(AF_XDP_TX_RELEASE_WAIT_US);
	}
	hold_outstanding(txq);
	txq->outstanding = 0;
	txq->fd = -1;
	return n;
}

unsigned int
af_xdp_txq_free_held(struct af_xdp_tx_queue *txq)
{
	unsigned int n = txq->nb_held;

	/* Segments of a chain each had a descriptor of their own (put_chain()). */
	if (n != 0)
		rte_pktmbuf_free_bulk(txq->held, n);
	af_xdp_txq_drop_held(txq);
	return n;
}

unsigned int
af_xdp_txq_drop_held(struct af_xdp_tx_queue *txq)
{
	unsigned int n = txq->nb_held;

	rte_free(txq->held);
	txq->held = NULL;
	txq->nb_held = 0;
	return n;
}
