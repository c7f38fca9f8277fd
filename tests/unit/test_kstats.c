/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The kernel's per-socket counters kept across sockets (af_xdp_kstats.h):
 * the table that names them, reading XDP_STATISTICS of new and old kernels,
 * fold at close, reset, the totals reported and imissed.  Plain structs.
 */

#include <string.h>

#include "af_xdp_kstats.h"
#include "unit_test.h"

/* Counters with distinct values, so that any swapped or skipped one shows. */
static struct af_xdp_kernel_stats
counts(uint64_t first)
{
	struct af_xdp_kernel_stats ks;
	unsigned int k;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		ks.v[k] = first + 10 * k;
	return ks;
}

static void
test_table(void)
{
	unsigned int k, rx = 0;

	for (k = 0; k < AF_XDP_KSTAT_MAX; k++) {
		CHECK(af_xdp_kstat_defs[k].xstat != NULL, "counter %u has no name", k);
		CHECK(af_xdp_kstat_defs[k].offset + sizeof(uint64_t) <= sizeof(struct xdp_statistics),
		      "counter %u outside struct xdp_statistics", k);
		rx += af_xdp_kstat_defs[k].rx;
	}
	CHECK_EQ(rx, 4);
	CHECK_EQ(af_xdp_kstat_defs[AF_XDP_KSTAT_RX_DROPPED].offset,
		 offsetof(struct xdp_statistics, rx_dropped));
	CHECK_EQ(af_xdp_kstat_defs[AF_XDP_KSTAT_TX_RING_EMPTY_DESCS].offset,
		 offsetof(struct xdp_statistics, tx_ring_empty_descs));
	CHECK(strcmp(af_xdp_kstat_defs[AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS].xstat,
		     "fill_ring_empty_descs") == 0, "fill ring name");
}

static void
test_from_kernel(void)
{
	struct xdp_statistics xs = {
		.rx_dropped = 1, .rx_invalid_descs = 2, .tx_invalid_descs = 3,
		.rx_ring_full = 4, .rx_fill_ring_empty_descs = 5, .tx_ring_empty_descs = 6,
	};
	struct af_xdp_kernel_stats ks;

	af_xdp_kstats_from_kernel(&xs, sizeof(xs), &ks);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_DROPPED], 1);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_INVALID_DESCS], 2);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_TX_INVALID_DESCS], 3);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_RING_FULL], 4);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS], 5);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_TX_RING_EMPTY_DESCS], 6);
	/* Before 5.9 the kernel returns the first three fields only. */
	ks = counts(100);
	af_xdp_kstats_from_kernel(&xs, 3 * sizeof(uint64_t), &ks);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_DROPPED], 1);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_TX_INVALID_DESCS], 3);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_RX_RING_FULL], 0);
	CHECK_EQ(ks.v[AF_XDP_KSTAT_TX_RING_EMPTY_DESCS], 0);
}

/* A queue's life: a socket, a reset, a socket closed, a new socket. */
static void
test_fold_and_reset(void)
{
	struct af_xdp_kernel_stats base, cur, total;
	unsigned int k;

	memset(&base, 0, sizeof(base));
	cur = counts(7);
	af_xdp_kstats_total(&base, &cur, &total);
	CHECK(memcmp(&total, &cur, sizeof(cur)) == 0, "a first socket reports its own counts");

	/* Reset with the socket open: 0 now, then only what came after. */
	af_xdp_kstats_reset(&base, &cur);
	af_xdp_kstats_total(&base, &cur, &total);
	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		CHECK_EQ(total.v[k], 0);
	cur.v[AF_XDP_KSTAT_RX_DROPPED] += 3;
	af_xdp_kstats_total(&base, &cur, &total);
	CHECK_EQ(total.v[AF_XDP_KSTAT_RX_DROPPED], 3);

	/* The socket closes: its counts stay; a new socket starts from 0. */
	af_xdp_kstats_fold(&base, &cur);
	memset(&cur, 0, sizeof(cur));
	af_xdp_kstats_total(&base, &cur, &total);
	CHECK_EQ(total.v[AF_XDP_KSTAT_RX_DROPPED], 3);
	CHECK_EQ(total.v[AF_XDP_KSTAT_TX_RING_EMPTY_DESCS], 0);
	cur = counts(1);
	af_xdp_kstats_total(&base, &cur, &total);
	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		CHECK_EQ(total.v[k], cur.v[k] + (k == AF_XDP_KSTAT_RX_DROPPED ? 3 : 0));

	/* Two sockets closed in turn add up. */
	af_xdp_kstats_fold(&base, &cur);
	af_xdp_kstats_fold(&base, &cur);
	memset(&cur, 0, sizeof(cur));
	af_xdp_kstats_total(&base, &cur, &total);
	CHECK_EQ(total.v[AF_XDP_KSTAT_RX_RING_FULL], 2 * counts(1).v[AF_XDP_KSTAT_RX_RING_FULL]);

	/* Reset while stopped (no socket): 0. */
	af_xdp_kstats_reset(&base, &cur);
	af_xdp_kstats_total(&base, &cur, &total);
	for (k = 0; k < AF_XDP_KSTAT_MAX; k++)
		CHECK_EQ(total.v[k], 0);
}

static void
test_imissed(void)
{
	struct af_xdp_kernel_stats ks;

	memset(&ks, 0, sizeof(ks));
	ks.v[AF_XDP_KSTAT_RX_DROPPED] = 5;
	ks.v[AF_XDP_KSTAT_RX_RING_FULL] = 7;
	/* Copy mode: counted in rx_dropped already, or not frames at all. */
	ks.v[AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS] = 100;
	ks.v[AF_XDP_KSTAT_RX_INVALID_DESCS] = 1000;
	ks.v[AF_XDP_KSTAT_TX_INVALID_DESCS] = 10000;
	CHECK_EQ(af_xdp_kstats_imissed(&ks, false), 12);
	/* Zero-copy mode: an empty fill ring is counted there only. */
	CHECK_EQ(af_xdp_kstats_imissed(&ks, true), 112);
}

int
main(void)
{
	RUN(test_table);
	RUN(test_from_kernel);
	RUN(test_fold_and_reset);
	RUN(test_imissed);
	return unit_summary();
}
