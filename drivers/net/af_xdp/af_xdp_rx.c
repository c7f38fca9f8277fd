/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Receive: 64-descriptor batches from the socket's Rx ring straight into the
 * mbufs that own the chunks (the mempool is the UMEM, so nothing is copied),
 * and fill-ring refill in batches of 64 with one bulk mempool get each.  A
 * queue on the driver's UMEM (a mempool that cannot be one) runs the same
 * under af_xdp_rx_burst_copy(), which copies each frame out.
 *
 * Everything here works on struct af_xdp_ring and the queue struct only: the
 * unit test and the microbenchmark drive it with rings in plain memory.  The
 * only system call is the wakeup, made when the kernel asks for it, and it
 * never blocks.
 *
 * The burst is built for DPDK's baseline CPU here and for x86-64-v3 in
 * af_xdp_rx_x86_64_v3.c; af_xdp_rx_burst_select() picks one when a port
 * starts.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_cpuflags.h>
#include <rte_memcpy.h>
#include <rte_vect.h>

#include "af_xdp_rx.h"
#include "af_xdp_socket.h"

#define BUILD_BASELINE "baseline"
#define BUILD_X86_64_V3 "x86-64-v3"

/* Serial numbers of the queues' bindings, for their offered marks. */
static uint32_t next_binding_serial;

/*
 * rearm_data of a fresh mbuf with data_off 0: the frame's offset in its
 * chunk, which the descriptor carries, is OR-ed in as data_off.
 */
static uint64_t
rearm_template(uint16_t port_id)
{
	struct rte_mbuf mb = { .data_off = 0, .nb_segs = 1, .port = port_id };

	rte_mbuf_refcnt_set(&mb, 1);
	return *(mbuf_u64_t *)MBUF_AT(&mb, rearm_data);
}

/*
 * rearm_data of an mbuf while it is offered to the kernel in a fill ring:
 * refcnt and nb_segs 0, which no mbuf in use or in a mempool ever has, and
 * in data_off and port a serial number unique to the queue's binding.  A
 * frame received overwrites it with the rearm template; whatever still
 * carries it when the socket is gone was offered and never came back.
 */
static uint64_t
offered_mark(uint32_t serial)
{
	struct rte_mbuf mb = {
		.data_off = (uint16_t)serial, .nb_segs = 0, .port = (uint16_t)(serial >> 16),
	};

	rte_mbuf_refcnt_set(&mb, 0);
	return *(mbuf_u64_t *)MBUF_AT(&mb, rearm_data);
}

void
af_xdp_rxq_bind(struct af_xdp_rx_queue *rxq, const struct af_xdp_ring *rx,
		const struct af_xdp_ring *fill, const struct af_xdp_umem_layout *layout,
		int fd)
{
	rxq->rx = *rx;
	rxq->fill = *fill;
	rxq->mbuf_base = layout->mbuf_base;
	/* The frame is at area + chunk + offset, its mbuf at mbuf_base + chunk. */
	rxq->meta_delta = layout->area - layout->mbuf_base - sizeof(struct af_xdp_rx_meta) +
			  offsetof(struct af_xdp_rx_meta, ol_flags);
	rxq->timestamp_offset = -1;
	rxq->rearm_template = rearm_template(rxq->port_id);
	rxq->offered_mark = offered_mark(
		__atomic_fetch_add(&next_binding_serial, 1, __ATOMIC_RELAXED));
	rxq->fd = fd;
	rxq->fill_shortfall = 0;
	rxq->taken = 0;
}

unsigned int
af_xdp_rxq_fill(struct af_xdp_rx_queue *rxq)
{
	unsigned int offered = af_xdp_fill(rxq);

	if (rxq->fill_shortfall != 0 && offered != 0)
		AF_XDP_LOG(WARNING,
			   "port %u Rx queue %u: mempool %s had %u mbufs for a fill ring of %u: %u slots stay empty (counted once in rx_nombuf), and frames that find the ring empty are dropped by the kernel (rx_q%u_dropped); give the mempool at least %u more mbufs (the ring's %u and what the application holds), or the queue fewer descriptors",
			   rxq->port_id, rxq->queue_id, rxq->mb_pool->name, offered, rxq->fill.size,
			   rxq->fill_shortfall, rxq->queue_id, rxq->fill_shortfall, rxq->fill.size);
	return offered;
}

struct reclaim {
	uint64_t mark;
	uint64_t fresh;		/* rearm_data of an mbuf in a mempool */
	unsigned int count;
};

static void
reclaim_if_offered(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx __rte_unused)
{
	struct reclaim *r = arg;
	mbuf_u64_t *rearm = MBUF_AT(obj, rearm_data);

	if (*rearm != r->mark)
		return;
	/* As rte_pktmbuf_init() left it: refcnt 1, one segment. */
	*rearm = r->fresh;
	rte_mempool_put(mp, obj);
	r->count++;
}

/*
 * The mark is only ever in the headers of mbufs the kernel had (the stores
 * of other lcores to mbufs in use never leave refcnt and nb_segs both 0), so
 * walking the whole mempool while other queues run is safe: it reads every
 * header once, a few milliseconds for a large pool, at stop only.
 */
static unsigned int
reclaim_marked(struct rte_mempool *mp, uint64_t mark)
{
	struct rte_mbuf fresh = { .data_off = RTE_PKTMBUF_HEADROOM, .nb_segs = 1,
				  .port = RTE_MBUF_PORT_INVALID };
	struct reclaim r = { .mark = mark };

	rte_mbuf_refcnt_set(&fresh, 1);
	r.fresh = *(mbuf_u64_t *)MBUF_AT(&fresh, rearm_data);
	rte_mempool_obj_iter(mp, reclaim_if_offered, &r);
	return r.count;
}

unsigned int
af_xdp_rxq_reclaim(struct af_xdp_rx_queue *rxq)
{
	return reclaim_marked(rxq->mb_pool, rxq->offered_mark);
}

void
af_xdp_rxq_hold(struct af_xdp_rx_queue *rxq)
{
	/* One held socket per queue: another still held keeps its mbufs. */
	if (rxq->held)
		AF_XDP_LOG(WARNING,
			   "port %u Rx queue %u: the socket closed before is still held too; its mbufs stay with it",
			   rxq->port_id, rxq->queue_id);
	rxq->held = true;
	rxq->held_mark = rxq->offered_mark;
}

unsigned int
af_xdp_rxq_reclaim_held(struct af_xdp_rx_queue *rxq)
{
	unsigned int n;

	if (!rxq->held)
		return 0;
	n = reclaim_marked(rxq->mb_pool, rxq->held_mark);
	AF_XDP_LOG(INFO, "port %u Rx queue %u: the socket held after its close is gone: %u mbufs back to %s",
		   rxq->port_id, rxq->queue_id, n, rxq->mb_pool->name);
	rxq->held = false;
	return n;
}

/*
 * The IPv4 header of a frame whose data starts at p (len bytes in its first
 * segment), behind its Ethernet header and at most two VLAN tags the frame
 * still carries; NULL when it has none or it is not all in the segment.
 * *hdr_len: its length (IHL), or 0 when the header is malformed (IHL below
 * 5 or a version other than 4 under the IPv4 ethertype).
 */
static const struct rte_ipv4_hdr *
ipv4_hdr(const uint8_t *p, uint32_t len, uint32_t *hdr_len)
{
	uint32_t off = RTE_ETHER_HDR_LEN, ihl;
	rte_be16_t type = ((const struct rte_ether_hdr *)p)->ether_type;
	const struct rte_ipv4_hdr *ip;
	int tags;

	for (tags = 0; tags < 2 && (type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
				    type == RTE_BE16(RTE_ETHER_TYPE_QINQ)); tags++) {
		if (len < off + sizeof(struct rte_vlan_hdr))
			return NULL;
		type = ((const struct rte_vlan_hdr *)(p + off))->eth_proto;
		off += sizeof(struct rte_vlan_hdr);
	}
	if (type != RTE_BE16(RTE_ETHER_TYPE_IPV4) || len < off + sizeof(*ip))
		return NULL;
	ip = (const struct rte_ipv4_hdr *)(p + off);
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	*hdr_len = (ip->version_ihl >> 4) == 4 && ihl >= sizeof(*ip) ? ihl : 0;
	return len >= off + *hdr_len ? ip : NULL;
}

uint64_t
af_xdp_rx_ipv4_cksum_flag_rest(const uint8_t *p, uint32_t len)
{
	uint32_t hdr_len = 0;
	const struct rte_ipv4_hdr *ip = ipv4_hdr(p, len, &hdr_len);

	if (ip == NULL)
		return 0;
	return hdr_len != 0 && af_xdp_rx_ipv4_sums_right(ip, hdr_len) ?
	       RTE_MBUF_F_RX_IP_CKSUM_GOOD : RTE_MBUF_F_RX_IP_CKSUM_BAD;
}

void __rte_cold
af_xdp_rx_drop_chain(struct af_xdp_rx_queue *rxq, struct rte_mbuf *head)
{
	rte_pktmbuf_free(head);
	rxq->stats.chains_dropped++;
}

void
af_xdp_rxq_unbind(struct af_xdp_rx_queue *rxq)
{
	if (rxq->chain.head != NULL)
		af_xdp_rx_drop_chain(rxq, rxq->chain.head);
	rxq->chain.head = NULL;
	rxq->chain.tail = NULL;
	rxq->fd = -1;
	rxq->busy_poll = false;
	rxq->busy_poll_check = false;
	rxq->busy_poll_asked = false;
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
 * A refill ran out of mbufs with slots of the fill ring still empty: the
 * whole batches of them are what the ring lacks now (the cached consumer
 * may be behind: look at the kernel's).  Counted once each: only as far as
 * this shortage has not counted them already.
 */
void __rte_cold
af_xdp_fill_fell_short(struct af_xdp_rx_queue *rxq)
{
	struct af_xdp_ring *fill = &rxq->fill;
	uint32_t empty;

	af_xdp_ring_prod_space(fill, fill->size);
	empty = RTE_ALIGN_FLOOR(fill->cached_cons - fill->cached_prod, (uint32_t)AF_XDP_RX_BATCH);

	if (empty > rxq->fill_shortfall) {
		rxq->stats.nombuf += empty - rxq->fill_shortfall;
		rxq->fill_shortfall = empty;
	}
}

/*
 * Busy polling only works where the kernel tied the socket to a NAPI
 * context, which it records with the first frame: look once, then.  Where
 * it did not, say so (a warning if busy_budget was asked for, else a note)
 * and stop the syscalls that would drive nothing.
 */
void __rte_cold
af_xdp_rx_check_busy_poll(struct af_xdp_rx_queue *rxq)
{
	unsigned int napi_id = 0;

	rxq->busy_poll_check = false;
	if (af_xdp_socket_napi_id(rxq->fd, &napi_id) != 0)
		return;
	if (napi_id != 0) {
		AF_XDP_LOG(INFO, "port %u Rx queue %u: busy polling NAPI id %u",
			   rxq->port_id, rxq->queue_id, napi_id);
		return;
	}
	rxq->busy_poll = false;
	AF_XDP_LOG_AT(rxq->busy_poll_asked ? RTE_LOG_WARNING : RTE_LOG_INFO,
		      "port %u Rx queue %u: busy polling has no effect, the socket has no NAPI id (the kernel driver gives it no NAPI context); turned off, use busy_budget=0 to silence this",
		      rxq->port_id, rxq->queue_id);
}

uint16_t
af_xdp_rx_burst_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, false, false);
}

uint16_t
af_xdp_rx_burst_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, true, false);
}

uint16_t
af_xdp_rx_burst_meta_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_meta(queue, bufs, nb_pkts, false);
}

uint16_t
af_xdp_rx_burst_meta_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_meta(queue, bufs, nb_pkts, true);
}

uint16_t
af_xdp_rx_burst_cksum_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, false, false);
}

uint16_t
af_xdp_rx_burst_cksum_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, true, false);
}

uint16_t
af_xdp_rx_burst_meta_cksum_baseline(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, false, true);
}

uint16_t
af_xdp_rx_burst_meta_cksum_multi_buffer_baseline(void *queue, struct rte_mbuf **bufs,
						 uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, true, true);
}

/*
 * A frame of the driver's UMEM (one mbuf, or a chain) into mbufs of the
 * application's mempool, each filled to its tailroom, with the fields the
 * receive set (offloads, the stamp): into head, a fresh mbuf of that
 * mempool, where the caller has one, and further ones taken here.  NULL
 * when that mempool is empty (head, if given, is freed).
 */
static struct rte_mbuf *
copy_frame(const struct af_xdp_rx_queue *rxq, const struct rte_mbuf *in, struct rte_mbuf *head)
{
	struct rte_mbuf *m;
	const struct rte_mbuf *seg = in;
	uint32_t seg_off = 0;

	if (head == NULL)
		head = rte_pktmbuf_alloc(rxq->app_pool);
	if (unlikely(head == NULL))
		return NULL;
	m = head;
	for (;;) {
		uint32_t room = rte_pktmbuf_tailroom(m);

		while (seg != NULL && room != 0) {
			uint32_t n = RTE_MIN(room, (uint32_t)seg->data_len - seg_off);

			rte_memcpy(rte_pktmbuf_mtod_offset(m, char *, m->data_len),
				   rte_pktmbuf_mtod_offset(seg, const char *, seg_off), n);
			m->data_len += n;
			room -= n;
			seg_off += n;
			if (seg_off == seg->data_len) {
				seg = seg->next;
				seg_off = 0;
			}
		}
		if (seg == NULL)
			break;
		m->next = rte_pktmbuf_alloc(rxq->app_pool);
		if (unlikely(m->next == NULL)) {
			head->pkt_len = in->pkt_len;
			rte_pktmbuf_free(head);
			return NULL;
		}
		m = m->next;
		head->nb_segs++;
	}
	head->pkt_len = in->pkt_len;
	head->port = rxq->port_id;
	/* OR-ed: an mbuf of pinned external buffers keeps RTE_MBUF_F_EXTERNAL. */
	head->ol_flags |= in->ol_flags;
	head->packet_type = in->packet_type;
	head->vlan_tci = in->vlan_tci;
	head->hash.rss = in->hash.rss;
	if (rxq->timestamp_offset >= 0)
		*(mbuf_u64_t *)RTE_PTR_ADD(head, rxq->timestamp_offset) =
			*(const mbuf_u64_t *)RTE_PTR_ADD(in, rxq->timestamp_offset);
	return head;
}

/*
 * The tailroom of a fresh mbuf of mp (rte_pktmbuf_reset(): data_off is the
 * headroom, or the whole buffer where it is shorter).
 */
static uint32_t
fresh_room(struct rte_mempool *mp)
{
	uint32_t room = rte_pktmbuf_data_room_size(mp);

	return room - RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
}

/*
 * The burst of a queue on the driver's UMEM: the burst of the port's kind
 * (copy_inner: multi-buffer, offloads, checksums as without) takes frames
 * into the UMEM's mbufs, each is copied into the application's mbufs, and
 * the UMEM's go back to their pool's cache at once, where the next refill
 * of the fill ring finds them.  A burst of its own, chosen at start: the
 * others do not pay for it.
 */
uint16_t
af_xdp_rx_burst_copy(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	struct af_xdp_rx_queue *rxq = queue;
	struct rte_mbuf *in[AF_XDP_RX_BATCH], *fresh[AF_XDP_RX_BATCH];
	const uint32_t room = fresh_room(rxq->app_pool);
	uint16_t nb_rx = 0;

	while (nb_rx < nb_pkts) {
		uint16_t want = (uint16_t)RTE_MIN(nb_pkts - nb_rx, AF_XDP_RX_BATCH);
		uint16_t n = rxq->copy_inner(rxq, in, want), i, one = 0, taken = 0;

		/*
		 * An mbuf for each frame that fits one, in one bulk get; the
		 * rest, and all of them where the mempool has not that many,
		 * one at a time (each frame that finds mbufs is delivered).
		 */
		for (i = 0; i < n; i++)
			one += in[i]->pkt_len <= room;
		if (one != 0 && rte_pktmbuf_alloc_bulk(rxq->app_pool, fresh, one) != 0)
			one = 0;
		for (i = 0; i < n; i++) {
			struct rte_mbuf *head = taken < one && in[i]->pkt_len <= room ?
						fresh[taken++] : NULL;
			struct rte_mbuf *m = copy_frame(rxq, in[i], head);

			if (unlikely(m == NULL)) {
				/* Received, not delivered: counted as a missing mbuf. */
				rxq->stats.copy_nombuf++;
				rxq->stats.packets--;
				rxq->stats.bytes -= in[i]->pkt_len;
				continue;
			}
			bufs[nb_rx++] = m;
			rxq->stats.copies++;
		}
		rte_pktmbuf_free_bulk(in, n);
		if (n < want)
			break;
	}
	return nb_rx;
}

/* Every burst: its build and its kind (multi_buffer, meta, cksum). */
static const struct {
	eth_rx_burst_t burst;
	const char *build;
	struct af_xdp_rx_burst_kind kind;
} bursts[] = {
	{ af_xdp_rx_burst_baseline, BUILD_BASELINE, { false, false, false } },
	{ af_xdp_rx_burst_multi_buffer_baseline, BUILD_BASELINE, { true, false, false } },
	{ af_xdp_rx_burst_meta_baseline, BUILD_BASELINE, { false, true, false } },
	{ af_xdp_rx_burst_meta_multi_buffer_baseline, BUILD_BASELINE, { true, true, false } },
	{ af_xdp_rx_burst_cksum_baseline, BUILD_BASELINE, { false, false, true } },
	{ af_xdp_rx_burst_cksum_multi_buffer_baseline, BUILD_BASELINE, { true, false, true } },
	{ af_xdp_rx_burst_meta_cksum_baseline, BUILD_BASELINE, { false, true, true } },
	{ af_xdp_rx_burst_meta_cksum_multi_buffer_baseline, BUILD_BASELINE, { true, true, true } },
#ifdef AF_XDP_HAVE_X86_64_V3
	{ af_xdp_rx_burst_x86_64_v3, BUILD_X86_64_V3, { false, false, false } },
	{ af_xdp_rx_burst_multi_buffer_x86_64_v3, BUILD_X86_64_V3, { true, false, false } },
	{ af_xdp_rx_burst_meta_x86_64_v3, BUILD_X86_64_V3, { false, true, false } },
	{ af_xdp_rx_burst_meta_multi_buffer_x86_64_v3, BUILD_X86_64_V3, { true, true, false } },
	{ af_xdp_rx_burst_cksum_x86_64_v3, BUILD_X86_64_V3, { false, false, true } },
	{ af_xdp_rx_burst_cksum_multi_buffer_x86_64_v3, BUILD_X86_64_V3, { true, false, true } },
	{ af_xdp_rx_burst_meta_cksum_x86_64_v3, BUILD_X86_64_V3, { false, true, true } },
	{ af_xdp_rx_burst_meta_cksum_multi_buffer_x86_64_v3, BUILD_X86_64_V3, { true, true, true } },
#endif
};

#ifdef AF_XDP_HAVE_X86_64_V3
static bool
cpu_is_x86_64_v3(void)
{
	return rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256 &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI1) &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_BMI2);
}
#endif

static bool
same_kind(const struct af_xdp_rx_burst_kind *a, const struct af_xdp_rx_burst_kind *b)
{
	return a->multi_buffer == b->multi_buffer && a->meta == b->meta && a->cksum == b->cksum;
}

/*
 * The build for this machine, chosen once when a port starts: x86-64-v3
 * where the CPU has everything the compiler was allowed to use (AVX2, BMI1,
 * BMI2); --force-max-simd-bitwidth below 256 keeps the baseline build.
 */
eth_rx_burst_t
af_xdp_rx_burst_select(const struct af_xdp_rx_burst_kind *kind, const char **name)
{
	const char *build = BUILD_BASELINE;
	unsigned int i;

#ifdef AF_XDP_HAVE_X86_64_V3
	if (cpu_is_x86_64_v3())
		build = BUILD_X86_64_V3;
#endif
	for (i = 0; i < RTE_DIM(bursts); i++)
		if (strcmp(bursts[i].build, build) == 0 && same_kind(&bursts[i].kind, kind))
			break;
	*name = build;
	return bursts[i].burst;
}

const char *
af_xdp_rx_burst_name(eth_rx_burst_t burst, struct af_xdp_rx_burst_kind *kind)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(bursts); i++)
		if (bursts[i].burst == burst) {
			*kind = bursts[i].kind;
			return bursts[i].build;
		}
	*kind = (struct af_xdp_rx_burst_kind){ false, false, false };
	return NULL;
}
