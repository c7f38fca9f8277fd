/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The frame policy (af_xdp_frame.c): which MTUs a port takes, and when its
 * sockets are bound for AF_XDP multi-buffer (XDP_USE_SG): only where the
 * Rx scatter offload is asked and the longest frame does not fit one chunk
 * (Open vSwitch's MTU 2500 with scatter fits its 3200-byte mbufs: no
 * multi-buffer, so zero-copy stays).  And the ops' side on a port made in
 * memory: the start's decision from real mempools, and an MTU change on a
 * started port that crosses the line (refused upward, taken downward).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp.h"
#include "af_xdp_frame.h"
#include "ring_sim.h"
#include "unit_test.h"

/* 4 KiB pages, MAX_SKB_FRAGS 17, no interface limit, the kernel with multi-buffer. */
static const struct af_xdp_frame_sys SYS = {
	.page_frame = 4096 - AF_XDP_PACKET_HEADROOM,
	.max_segs = 18,
	.iface_max_frame = UINT32_MAX,
	.multi_buffer = true,
};

/* Chunks less the XDP headroom: testpmd's 2176-byte mbufs, OVS's at MTU 2500, a page. */
#define TESTPMD_CHUNK	(2176 - AF_XDP_PACKET_HEADROOM)
#define OVS_CHUNK	(3200 - AF_XDP_PACKET_HEADROOM)
#define PAGE_CHUNK	(4096 - AF_XDP_PACKET_HEADROOM)

static void
test_mtu_limits(void)
{
	struct af_xdp_frame_sys sys = SYS;
	struct af_xdp_frame f;
	char err[512];

	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 1500, false, false, err, sizeof(err)), 0);
	CHECK_EQ(f.rx_segs, 1);
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 3826, false, false, err, sizeof(err)), 0);
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 3827, false, false, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "enable the Rx scatter offload") != NULL, "%s", err);
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 9000, true, false, err, sizeof(err)), 0);
	CHECK_EQ(f.rx_segs, 18);
	CHECK_EQ(af_xdp_frame_port_max(&sys, true), 18 * SYS.page_frame);
	CHECK_EQ(af_xdp_frame_port_max(&sys, false), SYS.page_frame);
	sys.iface_max_frame = 5014;
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 9000, true, false, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "at most 5000") != NULL, "%s", err);
	sys = SYS;
	sys.multi_buffer = false;
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 9000, true, false, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "XDP_USE_SG") != NULL, "%s", err);
	/* Scatter asked of a kernel without multi-buffer: frames of one descriptor. */
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 1500, true, false, err, sizeof(err)), 0);
	CHECK_EQ(f.rx_segs, 1);
}

/* Multi-buffer only where the longest frame does not fit one chunk. */
static void
test_decide(void)
{
	static const struct {
		uint32_t mtu;
		bool scatter, multi_seg;
		uint32_t chunk;
		enum af_xdp_frame_mb want;
	} cases[] = {
		{ 1500, false, false, TESTPMD_CHUNK, AF_XDP_FRAME_MB_NOT_ASKED },
		{ 1500, true, false, TESTPMD_CHUNK, AF_XDP_FRAME_MB_FITS },
		{ 1500, false, true, TESTPMD_CHUNK, AF_XDP_FRAME_MB_FITS },
		/* Open vSwitch: scatter and multi-segment Tx from MTU 2500, mbufs sized for it. */
		{ 2500, true, true, OVS_CHUNK, AF_XDP_FRAME_MB_FITS },
		{ 3000, true, true, OVS_CHUNK, AF_XDP_FRAME_MB_NEEDED },
		{ 2500, true, false, PAGE_CHUNK, AF_XDP_FRAME_MB_FITS },
		{ 2500, true, false, TESTPMD_CHUNK, AF_XDP_FRAME_MB_NEEDED },
		{ 9000, true, true, TESTPMD_CHUNK, AF_XDP_FRAME_MB_NEEDED },
		/* The line itself: a frame of exactly a chunk fits. */
		{ PAGE_CHUNK - 14, true, false, PAGE_CHUNK, AF_XDP_FRAME_MB_FITS },
		{ PAGE_CHUNK - 13, true, false, PAGE_CHUNK, AF_XDP_FRAME_MB_NEEDED },
	};
	struct af_xdp_frame_sys nomb = SYS;
	struct af_xdp_frame f;
	char err[512];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		enum af_xdp_frame_mb got;

		CHECK_EQ(af_xdp_frame_compute(&f, &SYS, cases[i].mtu, cases[i].scatter,
					      cases[i].multi_seg, err, sizeof(err)), 0);
		got = af_xdp_frame_decide(&f, af_xdp_frame_of_mtu(cases[i].mtu), cases[i].chunk);
		CHECK(got == cases[i].want, "MTU %u, scatter %d, chunk %u: %s, expected %s",
		      cases[i].mtu, cases[i].scatter, cases[i].chunk, af_xdp_frame_mb_name(got),
		      af_xdp_frame_mb_name(cases[i].want));
	}
	nomb.multi_buffer = false;
	CHECK_EQ(af_xdp_frame_compute(&f, &nomb, 1500, true, false, err, sizeof(err)), 0);
	CHECK_EQ(af_xdp_frame_decide(&f, 1514, TESTPMD_CHUNK), AF_XDP_FRAME_MB_NO_KERNEL);
}

static void
test_limits(void)
{
	struct af_xdp_frame_sys sys = SYS;
	struct af_xdp_frame f;
	uint32_t max_pkt_len;
	uint16_t max_segs;
	char err[512];

	sys.iface_max_frame = 9014;
	CHECK_EQ(af_xdp_frame_compute(&f, &sys, 9000, true, false, err, sizeof(err)), 0);
	CHECK_EQ(af_xdp_frame_rx_limit(&f, TESTPMD_CHUNK, false), TESTPMD_CHUNK);
	CHECK_EQ(af_xdp_frame_rx_limit(&f, TESTPMD_CHUNK, true), 9014);
	CHECK_EQ(af_xdp_frame_rx_limit(&f, 100, true), 1800);
	/* A single-buffer socket sends one descriptor a frame: chains are copied. */
	af_xdp_frame_tx_limits(&f, 1500, false, &max_pkt_len, &max_segs);
	CHECK_EQ(max_pkt_len, 1518);
	CHECK_EQ(max_segs, 1);
	af_xdp_frame_tx_limits(&f, 9000, true, &max_pkt_len, &max_segs);
	CHECK_EQ(max_pkt_len, 9018);
	CHECK_EQ(max_segs, 18);
}

/* A port in memory, on an interface that does not exist (no limit read), one Rx queue. */
struct fake_port {
	struct rte_eth_dev dev;
	struct rte_eth_dev_data data;
	struct af_xdp_rx_queue rxq;
	void *rx_queues[1];
	struct af_xdp_port *port;
};

static void
fake_port_init(struct fake_port *fp, struct rte_mempool *mp, uint16_t mtu, bool scatter)
{
	memset(fp, 0, sizeof(*fp));
	fp->port = calloc(1, sizeof(*fp->port) + sizeof(struct af_xdp_port_queue));
	CHECK(fp->port != NULL, "port");
	snprintf(fp->port->name, sizeof(fp->port->name), "test_frame");
	snprintf(fp->port->args.iface, sizeof(fp->port->args.iface), "afxdpnone0");
	fp->port->args.queue_count = 1;
	fp->rxq.mb_pool = mp;
	fp->rx_queues[0] = &fp->rxq;
	fp->data.dev_private = fp->port;
	fp->data.rx_queues = fp->rx_queues;
	fp->data.nb_rx_queues = 1;
	fp->data.mtu = mtu;
	fp->data.dev_conf.rxmode.offloads = scatter ? RTE_ETH_RX_OFFLOAD_SCATTER : 0;
	fp->dev.data = &fp->data;
	CHECK_EQ(af_xdp_frame_configure(&fp->dev), 0);
}

/*
 * Start, then MTU changes on the started port: within the sockets' binding
 * taken; across it upward (frames of several chunks on sockets bound for
 * one) refused, the port's policy unchanged; downward taken, the sockets
 * multi-buffer until the next start.
 */
static void
test_started_port(void)
{
	struct rte_mempool *page = rte_pktmbuf_pool_create("frame_page", 512, 0, 0, 4096,
							    SOCKET_ID_ANY);
	struct fake_port fp;
	struct af_xdp_frame next;
	bool mb;

	CHECK(page != NULL, "mempool");
	if (page == NULL)
		return;
	fake_port_init(&fp, page, 2500, true);
	if (!fp.port->frame.sys.multi_buffer) {
		printf("(this kernel has no AF_XDP multi-buffer: the started-port checks need it)\n");
		goto out;
	}
	/* Scatter at MTU 2500 with page-sized chunks: bound for frames of one. */
	CHECK_EQ(af_xdp_frame_start(&fp.dev, &mb), 0);
	CHECK_EQ(mb, false);
	CHECK_EQ(fp.port->frame.mb, AF_XDP_FRAME_MB_FITS);
	CHECK_EQ(fp.port->frame.largest, 2514);
	CHECK_EQ(fp.port->frame.chunk_frame, PAGE_CHUNK);
	fp.port->started = true;
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, PAGE_CHUNK - 14, &next), 0);
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, PAGE_CHUNK - 13, &next), -EINVAL);
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, 9000, &next), -EINVAL);
	CHECK_EQ(fp.port->frame.mtu, 2500);
	/* Stopped, the MTU is taken; the next start binds for multi-buffer. */
	fp.port->started = false;
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, 9000, &next), 0);
	af_xdp_frame_mtu_commit(&fp.dev, &next);
	fp.data.mtu = 9000;
	CHECK_EQ(af_xdp_frame_start(&fp.dev, &mb), 0);
	CHECK_EQ(mb, true);
	CHECK_EQ(fp.port->frame.mb, AF_XDP_FRAME_MB_NEEDED);
	fp.port->started = true;
	/* Down across the line on the started port: taken, still multi-buffer. */
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, 1500, &next), 0);
	af_xdp_frame_mtu_commit(&fp.dev, &next);
	CHECK_EQ(fp.port->frame.multi_buffer, true);
	CHECK_EQ(fp.port->frame.mtu, 1500);
	CHECK_EQ(af_xdp_frame_mtu_check(&fp.dev, 9000, &next), 0);
	/* Neither scatter nor multi-segment Tx: never multi-buffer. */
	free(fp.port);
	fake_port_init(&fp, page, 1500, false);
	CHECK_EQ(af_xdp_frame_start(&fp.dev, &mb), 0);
	CHECK_EQ(mb, false);
	CHECK_EQ(fp.port->frame.mb, AF_XDP_FRAME_MB_NOT_ASKED);
out:
	free(fp.port);
	rte_mempool_free(page);
}

int
main(int argc __rte_unused, char **argv)
{
	RUN(test_mtu_limits);
	RUN(test_decide);
	RUN(test_limits);
	if (sim_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	RUN(test_started_port);
	rte_eal_cleanup();
	return unit_summary();
}
