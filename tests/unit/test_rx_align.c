/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The receive burst's IPv4 header check on headers where frames have them:
 * 2 bytes past a multiple of 4 (the frame at a multiple of 4 in its chunk,
 * 14 bytes of Ethernet header before the IP header).  Built with UndefinedBehaviorSanitizer's
 * alignment check, which ends the run at a misaligned load
 * (tests/unit/meson.build): the check must read such headers as what they
 * are, not as 4-byte-aligned words.  Also the sums themselves: right and
 * broken headers, with and without options.
 */

#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "af_xdp_rx.h"
#include "unit_test.h"

/* A frame buffer aligned to 8: a frame at frame_buf + 4 has its IP header 2 past a multiple of 4. */
static uint8_t frame_buf[256] __rte_aligned(8);

/* An untagged IPv4 frame at frame_buf + 4 with ihl words of header; its start. */
static uint8_t *
ipv4_frame(unsigned int ihl, bool broken)
{
	uint8_t *p = frame_buf + 4;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint16_t sum;

	memset(frame_buf, 0, sizeof(frame_buf));
	p[12] = 0x08;		/* ethertype IPv4 */
	ip->version_ihl = (uint8_t)(0x40 | ihl);
	ip->total_length = rte_cpu_to_be_16(100);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120401);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120402);
	memset((uint8_t *)ip + sizeof(*ip), 1, (ihl - 5) * 4);	/* options: NOPs */
	sum = (uint16_t)~rte_raw_cksum(ip, ihl * 4);
	ip->hdr_checksum = broken ? (uint16_t)(sum ^ 0x0100) : sum;
	return p;
}

static void
test_sums_on_2_aligned_headers(void)
{
	uint8_t *p = ipv4_frame(5, false);

	CHECK(((uintptr_t)(p + RTE_ETHER_HDR_LEN) & 3) == 2, "header 2 past a multiple of 4");
	CHECK(af_xdp_rx_ipv4_sums_right(p + RTE_ETHER_HDR_LEN, 20), "right header sums right");
	CHECK_EQ(af_xdp_rx_ipv4_cksum_flag(p, 100), RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	p = ipv4_frame(5, true);
	CHECK(!af_xdp_rx_ipv4_sums_right(p + RTE_ETHER_HDR_LEN, 20), "broken header");
	CHECK_EQ(af_xdp_rx_ipv4_cksum_flag(p, 100), RTE_MBUF_F_RX_IP_CKSUM_BAD);
	p = ipv4_frame(7, false);
	CHECK(af_xdp_rx_ipv4_sums_right(p + RTE_ETHER_HDR_LEN, 28), "header with options");
	p = ipv4_frame(7, true);
	CHECK(!af_xdp_rx_ipv4_sums_right(p + RTE_ETHER_HDR_LEN, 28), "broken, with options");
}

int
main(void)
{
	RUN(test_sums_on_2_aligned_headers);
	return unit_summary();
}
