/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The receive burst for AVX2, built with -mavx2 (the rest of the driver is
 * built for DPDK's baseline) and chosen at start on CPUs that have it.
 *
 * Four descriptors per step: two 32-byte loads hold descriptors [0,1] and
 * [2,3].  AVX2 works per 128-bit lane, so the address vector comes out as
 * [0,2 | 1,3]; the mbuf pointers are put back in order for bufs[], and each
 * lane's halves are stored to their own mbufs.
 */

#include <rte_vect.h>

#include "af_xdp_rx.h"

static __rte_always_inline uint64_t
descs_to_mbufs_avx2(const struct af_xdp_rx_queue *rxq, const struct xdp_desc *d,
		    struct rte_mbuf **bufs, uint32_t n)
{
	const __m256i addr_mask = _mm256_set1_epi64x((long long)XSK_UNALIGNED_BUF_ADDR_MASK);
	const __m256i base = _mm256_set1_epi64x((long long)rxq->mbuf_base);
	const __m256i rearm = _mm256_set1_epi64x((long long)rxq->rearm_template);
	const __m256i zero = _mm256_setzero_si256();
	/* Per lane: descriptor bytes 8..11 (len) to pkt_len and data_len. */
	const __m256i fields = _mm256_set_epi8(-1, -1, -1, -1, -1, -1, 9, 8,
					       11, 10, 9, 8, -1, -1, -1, -1,
					       -1, -1, -1, -1, -1, -1, 9, 8,
					       11, 10, 9, 8, -1, -1, -1, -1);
	__m256i lens = zero;	/* 32-bit elements 2 and 6 sum the lengths */
	uint64_t bytes;
	uint32_t i;

#pragma GCC unroll 2
	for (i = 0; i + 4 <= n; i += 4) {
		const __m256i d01 = _mm256_loadu_si256((const __m256i *)&d[i]);
		const __m256i d23 = _mm256_loadu_si256((const __m256i *)&d[i + 2]);
		/* [addr0, addr2 | addr1, addr3] */
		const __m256i addrs = _mm256_unpacklo_epi64(d01, d23);
		const __m256i mbufs = _mm256_add_epi64(_mm256_and_si256(addrs, addr_mask), base);
		const __m256i rearms = _mm256_or_si256(_mm256_srli_epi64(addrs,
						       XSK_UNALIGNED_BUF_OFFSET_SHIFT), rearm);
		/* [rearm0, 0 | rearm1, 0] and [rearm2, 0 | rearm3, 0] */
		const __m256i r01 = _mm256_unpacklo_epi64(rearms, zero);
		const __m256i r23 = _mm256_unpackhi_epi64(rearms, zero);
		const __m256i f01 = _mm256_shuffle_epi8(d01, fields);
		const __m256i f23 = _mm256_shuffle_epi8(d23, fields);
		const __m128i mbufs02 = _mm256_castsi256_si128(mbufs);
		const __m128i mbufs13 = _mm256_extracti128_si256(mbufs, 1);
		struct rte_mbuf *m0 = (struct rte_mbuf *)_mm_cvtsi128_si64(mbufs02);
		struct rte_mbuf *m2 = (struct rte_mbuf *)_mm_extract_epi64(mbufs02, 1);
		struct rte_mbuf *m1 = (struct rte_mbuf *)_mm_cvtsi128_si64(mbufs13);
		struct rte_mbuf *m3 = (struct rte_mbuf *)_mm_extract_epi64(mbufs13, 1);

		_mm_storeu_si128(MBUF_AT(m0, rearm_data), _mm256_castsi256_si128(r01));
		_mm_storeu_si128(MBUF_AT(m1, rearm_data), _mm256_extracti128_si256(r01, 1));
		_mm_storeu_si128(MBUF_AT(m2, rearm_data), _mm256_castsi256_si128(r23));
		_mm_storeu_si128(MBUF_AT(m3, rearm_data), _mm256_extracti128_si256(r23, 1));
		_mm_storeu_si128(MBUF_AT(m0, rx_descriptor_fields1), _mm256_castsi256_si128(f01));
		_mm_storeu_si128(MBUF_AT(m1, rx_descriptor_fields1), _mm256_extracti128_si256(f01, 1));
		_mm_storeu_si128(MBUF_AT(m2, rx_descriptor_fields1), _mm256_castsi256_si128(f23));
		_mm_storeu_si128(MBUF_AT(m3, rx_descriptor_fields1), _mm256_extracti128_si256(f23, 1));
		_mm256_storeu_si256((__m256i *)&bufs[i], _mm256_permute4x64_epi64(mbufs, 0xd8));
		lens = _mm256_add_epi32(lens, _mm256_add_epi32(d01, d23));
	}
	bytes = (uint32_t)_mm256_extract_epi32(lens, 2) + (uint32_t)_mm256_extract_epi32(lens, 6);
	if (i < n)
		bytes += af_xdp_descs_to_mbufs_scalar(rxq, &d[i], &bufs[i], n - i);
	return bytes;
}

uint16_t
af_xdp_rx_burst_avx2(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, descs_to_mbufs_avx2);
}
