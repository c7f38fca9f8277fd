/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The receive burst built for x86-64-v3 CPUs (-mavx2 -mbmi -mbmi2; the rest
 * of the driver is built for DPDK's baseline), chosen at start on CPUs that
 * have it.  The source is af_xdp_rx.h's: with BMI the per-frame address and
 * data_off arithmetic needs no register copies, and the refill converts four
 * mbuf pointers per AVX2 operation.
 */

#include "af_xdp_rx.h"

uint16_t
af_xdp_rx_burst_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, false, false);
}

uint16_t
af_xdp_rx_burst_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_common(queue, bufs, nb_pkts, true, false);
}

uint16_t
af_xdp_rx_burst_meta_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_meta(queue, bufs, nb_pkts, false);
}

uint16_t
af_xdp_rx_burst_meta_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
					    uint16_t nb_pkts)
{
	return af_xdp_rx_burst_meta(queue, bufs, nb_pkts, true);
}

uint16_t
af_xdp_rx_burst_cksum_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, false, false);
}

uint16_t
af_xdp_rx_burst_cksum_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
					     uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, true, false);
}

uint16_t
af_xdp_rx_burst_meta_cksum_x86_64_v3(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, false, true);
}

uint16_t
af_xdp_rx_burst_meta_cksum_multi_buffer_x86_64_v3(void *queue, struct rte_mbuf **bufs,
						  uint16_t nb_pkts)
{
	return af_xdp_rx_burst_offloads(queue, bufs, nb_pkts, true, true);
}
