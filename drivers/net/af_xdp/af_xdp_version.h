/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_VERSION_H
#define AF_XDP_VERSION_H

/*
 * Which DPDK the plugin may run in. It is built against DPDK's internal
 * driver API (struct rte_eth_dev, eth_dev_ops, the vdev bus), which carries
 * no ABI promise, and whose layouts differ between LTS lines: the running
 * DPDK must be of the line (year and month) it was built for. Within a line,
 * every point release so far kept what the plugin compiles in unchanged
 * (README.md, "DPDK versions", gives the evidence), so another point
 * release loads it with a notice; a release candidate, whose interfaces may
 * still change, only the very release it was built for.
 */

#include <stddef.h>
#include <stdint.h>

enum af_xdp_dpdk_match {
	AF_XDP_DPDK_SAME,	/* the release it was built for */
	AF_XDP_DPDK_SAME_LINE,	/* another point release of that line */
	AF_XDP_DPDK_OTHER_LINE,	/* another line: refused */
	AF_XDP_DPDK_OTHER_CANDIDATE, /* either is a release candidate, not the same: refused */
};

/* RTE_VER_RELEASE of a release; a candidate's is its number (-rc1: 1). */
#define AF_XDP_DPDK_RELEASE 99

/* How DPDK @running relates to @built (both RTE_VERSION_NUMs). */
enum af_xdp_dpdk_match af_xdp_dpdk_match(uint32_t built, uint32_t running);

/* @version (an RTE_VERSION_NUM) as DPDK prints it: "22.11.11", "23.07.0-rc1". */
const char *af_xdp_dpdk_version_str(uint32_t version, char *buf, size_t size);

/* "Major.minor.patch" of the DPDK built for: "22.11.11". */
const char *af_xdp_dpdk_built_for(void);

/*
 * The bytes of the running librte_ethdev's rte_eth_devices (its ELF symbol's
 * size, dladdr1()), or 0 where that cannot be told.
 */
size_t af_xdp_dpdk_eth_devices_size(void);

/* What this build lays rte_eth_devices out as: struct rte_eth_dev, by the
 * driver-SDK headers it was compiled with, times RTE_MAX_ETHPORTS. */
#define AF_XDP_DPDK_ETH_DEVICES_SIZE (sizeof(struct rte_eth_dev) * RTE_MAX_ETHPORTS)

/*
 * At probe: whether the running DPDK may drive ports with this build; logs
 * a notice for another point release of the line, an error for another line,
 * or for a running rte_eth_devices not of the size this build lays out (a
 * DPDK built with other options, or SDK headers of another release that do
 * not describe it: meson.build checks the same at build time).
 */
int af_xdp_dpdk_check_running(void);

#endif /* AF_XDP_VERSION_H */
