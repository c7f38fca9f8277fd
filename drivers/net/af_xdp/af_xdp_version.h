/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_VERSION_H
#define AF_XDP_VERSION_H

/*
 * Which DPDK the plugin may run in. It is built against DPDK's internal
 * driver API (struct rte_eth_dev, eth_dev_ops, the vdev bus), which carries
 * no ABI promise between releases, so the running DPDK must be the one it
 * was built for: the same LTS line (year and month). Within a line, point
 * releases keep what the plugin uses unchanged (README.md, "DPDK versions",
 * gives the evidence), so another point release loads it with a notice.
 */

#include <stddef.h>
#include <stdint.h>

enum af_xdp_dpdk_match {
	AF_XDP_DPDK_SAME,	/* the release it was built for */
	AF_XDP_DPDK_SAME_LINE,	/* another point release of that line */
	AF_XDP_DPDK_OTHER_LINE,	/* another line: refused */
};

/*
 * How DPDK @running (an RTE_VERSION_NUM) relates to @built; the release
 * field (a candidate's number) is not compared.
 */
enum af_xdp_dpdk_match af_xdp_dpdk_match(uint32_t built, uint32_t running);

/* @version (an RTE_VERSION_NUM) as DPDK prints it: "22.11.11", "23.07.0". */
const char *af_xdp_dpdk_version_str(uint32_t version, char *buf, size_t size);

/* "Major.minor.patch" of the DPDK built for: "22.11.11". */
const char *af_xdp_dpdk_built_for(void);

/*
 * At probe: whether the running DPDK may drive ports with this build; logs
 * a notice for another point release of the line, an error for another line.
 */
int af_xdp_dpdk_check_running(void);

#endif /* AF_XDP_VERSION_H */
