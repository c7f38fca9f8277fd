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
 * The burst exists per instruction set: scalar and SSE here, AVX2 in
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
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, af_xdp_descs_to_mbufs_scalar);
}

#ifdef RTE_ARCH_X86
/*
 * Two descriptors per step.  A descriptor is 16 bytes: addr, len, options.
 * Both addresses go through the mask, base add, shift and OR together; each
 * mbuf then gets two 16-byte stores, rearm_data + ol_flags (ol_flags 0) and
 * packet_type .. hash.rss shuffled straight out of the descriptor.
 */
static __rte_always_inline uint64_t
descs_to_mbufs_sse(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
		   struct rte_mbuf **bufs, uint32_t n)
{
	const __m128i addr_mask = _mm_set1_epi64x((long long)XSK_UNALIGNED_BUF_ADDR_MASK);
	const __m128i base = _mm_set1_epi64x((long long)rxq->mbuf_base);
	const __m128i rearm = _mm_set1_epi64x((long long)rxq->rearm_template);
	const __m128i zero = _mm_setzero_si128();
	/* Descriptor bytes 8..11 (len) to pkt_len and data_len; zeros elsewhere. */
	const __m128i fields = _mm_set_epi8(-1, -1, -1, -1,	/* hash.rss */
					    -1, -1,		/* vlan_tci */
					    9, 8,		/* data_len */
					    11, 10, 9, 8,	/* pkt_len */
					    -1, -1, -1, -1);	/* packet_type */
	__m128i lens = zero;	/* 32-bit lane 2 sums the lengths */
	uint64_t bytes;
	uint32_t i;

	for (i = 0; i + 2 <= n; i += 2) {
		const __m128i d0 = _mm_loadu_si128((const __m128i *)&d[i]);
		const __m128i d1 = _mm_loadu_si128((const __m128i *)&d[i + 1]);
		const __m128i addrs = _mm_unpacklo_epi64(d0, d1);
		const __m128i mbufs = _mm_add_epi64(_mm_and_si128(addrs, addr_mask), base);
		const __m128i rearms = _mm_or_si128(_mm_srli_epi64(addrs,
						    XSK_UNALIGNED_BUF_OFFSET_SHIFT), rearm);
		struct rte_mbuf *m0 = (struct rte_mbuf *)_mm_cvtsi128_si64(mbufs);
		struct rte_mbuf *m1 = (struct rte_mbuf *)_mm_extract_epi64(mbufs, 1);

		_mm_storeu_si128(MBUF_AT(m0, rearm_data), _mm_move_epi64(rearms));
		_mm_storeu_si128(MBUF_AT(m1, rearm_data), _mm_unpackhi_epi64(rearms, zero));
		_mm_storeu_si128(MBUF_AT(m0, rx_descriptor_fields1), _mm_shuffle_epi8(d0, fields));
		_mm_storeu_si128(MBUF_AT(m1, rx_descriptor_fields1), _mm_shuffle_epi8(d1, fields));
		_mm_storeu_si128((__m128i *)&bufs[i], mbufs);
		lens = _mm_add_epi32(lens, _mm_add_epi32(d0, d1));
	}
	bytes = (uint32_t)_mm_extract_epi32(lens, 2);
	if (i < n)
		bytes += af_xdp_descs_to_mbufs_scalar(rxq, &d[i], &bufs[i], n - i);
	return bytes;
}

uint16_t
af_xdp_rx_burst_sse(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, descs_to_mbufs_sse);
}
#endif

/*
 * The burst function for this machine, chosen once when a port starts;
 * --force-max-simd-bitwidth lowers the choice (64: scalar).
 */
eth_rx_burst_t
af_xdp_rx_burst_select(const char **name)
{
#ifdef RTE_ARCH_X86
	uint16_t simd = rte_vect_get_max_simd_bitwidth();

#ifdef AF_XDP_HAVE_AVX2
	if (simd >= RTE_VECT_SIMD_256 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2)) {
		*name = "AVX2";
		return af_xdp_rx_burst_avx2;
	}
#endif
	if (simd >= RTE_VECT_SIMD_128 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSSE3)) {
		*name = "SSE";
		return af_xdp_rx_burst_sse;
	}
#endif
	*name = "scalar";
	return af_xdp_rx_burst_scalar;
}
