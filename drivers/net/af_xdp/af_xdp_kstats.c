/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#include <string.h>

#include "af_xdp_kstats.h"

#define KSTAT(field, name, is_rx) \
	{ .xstat = name, .rx = is_rx, .offset = offsetof(struct xdp_statistics, field) }

/* The kernel's names, with the direction moved first (rx_q0_dropped). */
const struct af_xdp_kstat_def af_xdp_kstat_defs[AF_XDP_KSTAT_MAX] = {
	[AF_XDP_KSTAT_RX_DROPPED] = KSTAT(rx_dropped, "dropped", true),
	[AF_XDP_KSTAT_RX_INVALID_DESCS] = KSTAT(rx_invalid_descs, "invalid_descs", true),
	[AF_XDP_KSTAT_RX_RING_FULL] = KSTAT(rx_ring_full, "ring_full", true),
	[AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS] =
		KSTAT(rx_fill_ring_empty_descs, "fill_ring_empty_descs", true),
	[AF_XDP_KSTAT_TX_INVALID_DESCS] = KSTAT(tx_invalid_descs, "invalid_descs", false),
	[AF_XDP_KSTAT_TX_RING_EMPTY_DESCS] = KSTAT(tx_ring_empty_descs, "ring_empty_descs", false),
};

void
af_xdp_kstats_from_kernel(const struct xdp_statistics *xs, size_t len,
			  struct af_xdp_kernel_stats *ks)
{
	unsigned int k;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++) {
		size_t off = af_xdp_kstat_defs[k].offset;

		ks->v[k] = 0;
		if (off + sizeof(uint64_t) <= len)
			memcpy(&ks->v[k], (const char *)xs + off, sizeof(uint64_t));
	}
}

void
af_xdp_kstats_fold(struct af_xdp_kernel_stats *base, const struct af_xdp_kernel_stats *cur)
{
	unsigned int k;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		base->v[k] += cur->v[k];
}

void
af_xdp_kstats_reset(struct af_xdp_kernel_stats *base, const struct af_xdp_kernel_stats *cur)
{
	unsigned int k;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		base->v[k] = 0 - cur->v[k];
}

void
af_xdp_kstats_total(const struct af_xdp_kernel_stats *base, const struct af_xdp_kernel_stats *cur,
		    struct af_xdp_kernel_stats *out)
{
	unsigned int k;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		out->v[k] = base->v[k] + cur->v[k];
}

uint64_t
af_xdp_kstats_imissed(const struct af_xdp_kernel_stats *ks, bool zero_copy)
{
	uint64_t missed = ks->v[AF_XDP_KSTAT_RX_DROPPED] + ks->v[AF_XDP_KSTAT_RX_RING_FULL];

	/*
	 * In copy mode an empty fill ring is counted in rx_dropped too (and
	 * also in rx_fill_ring_empty_descs): not added twice.  In zero-copy
	 * mode the kernel driver drops the frame without rx_dropped: only
	 * rx_fill_ring_empty_descs counts it (once per failed allocation,
	 * which is about once a frame).
	 */
	if (zero_copy)
		missed += ks->v[AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS];
	return missed;
}
