/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 *
 * Which running DPDK releases the plugin accepts (af_xdp_version.c): the
 * release built for, another point release of its line, never another line;
 * versions printed as DPDK prints them.
 */

#include <string.h>

#include <ethdev_driver.h>
#include <rte_version.h>

#include "af_xdp_version.h"
#include "unit_test.h"

#define V(y, m, n) RTE_VERSION_NUM(y, m, n, AF_XDP_DPDK_RELEASE)
#define RC(y, m, n, r) RTE_VERSION_NUM(y, m, n, r)
#define CHECK_STR(a, b) do { \
	const char *_a = (a), *_b = (b); \
	CHECK(strcmp(_a, _b) == 0, "\"%s\", expected \"%s\"", _a, _b); \
} while (0)

#define CHECK_MATCH(built, running, expected) \
	CHECK(af_xdp_dpdk_match(built, running) == (expected), "got %d", \
	      (int)af_xdp_dpdk_match(built, running))

static void
test_match(void)
{
	CHECK_MATCH(V(22, 11, 11), V(22, 11, 11), AF_XDP_DPDK_SAME);
	CHECK_MATCH(RC(25, 11, 0, 1), RC(25, 11, 0, 1), AF_XDP_DPDK_SAME);
	/* a release candidate runs only in its very release, and only it */
	CHECK_MATCH(RC(25, 11, 0, 1), RC(25, 11, 0, 2), AF_XDP_DPDK_OTHER_CANDIDATE);
	CHECK_MATCH(RC(25, 11, 0, 4), V(25, 11, 0), AF_XDP_DPDK_OTHER_CANDIDATE);
	CHECK_MATCH(V(25, 11, 0), RC(25, 11, 1, 1), AF_XDP_DPDK_OTHER_CANDIDATE);
	CHECK_MATCH(RC(25, 11, 0, 1), V(24, 11, 0), AF_XDP_DPDK_OTHER_LINE);
	CHECK_MATCH(V(22, 11, 11), V(22, 11, 12), AF_XDP_DPDK_SAME_LINE);
	/* either way: the evidence covers older to newer and newer to older */
	CHECK_MATCH(V(24, 11, 6), V(24, 11, 1), AF_XDP_DPDK_SAME_LINE);
	CHECK_MATCH(V(22, 11, 11), V(23, 11, 0), AF_XDP_DPDK_OTHER_LINE);
	CHECK_MATCH(V(23, 11, 7), V(23, 7, 7), AF_XDP_DPDK_OTHER_LINE);
	CHECK_MATCH(V(25, 11, 2), V(24, 11, 2), AF_XDP_DPDK_OTHER_LINE);
}

static void
test_strings(void)
{
	char buf[16];

	CHECK_STR(af_xdp_dpdk_version_str(V(23, 7, 0), buf, sizeof(buf)), "23.07.0");
	CHECK_STR(af_xdp_dpdk_version_str(V(22, 11, 11), buf, sizeof(buf)), "22.11.11");
	CHECK_STR(af_xdp_dpdk_version_str(RC(25, 11, 0, 3), buf, sizeof(buf)), "25.11.0-rc3");
	/* built for the DPDK whose headers compiled this test */
	CHECK_STR(af_xdp_dpdk_built_for(), af_xdp_dpdk_version_str(RTE_VERSION, buf, sizeof(buf)));
}

/* The running librte_ethdev's rte_eth_devices is as large as this build
 * lays it out (the probe refuses to drive ports otherwise). */
static void
test_eth_devices(void)
{
	size_t running = af_xdp_dpdk_eth_devices_size();

	CHECK(running != 0, "dladdr1() found no size for rte_eth_devices");
	CHECK(running == AF_XDP_DPDK_ETH_DEVICES_SIZE, "running %zu bytes, built for %zu",
	      running, AF_XDP_DPDK_ETH_DEVICES_SIZE);
}

int
main(void)
{
	RUN(test_match);
	RUN(test_eth_devices);
	RUN(test_strings);
	return unit_summary();
}
