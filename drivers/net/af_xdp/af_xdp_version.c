/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#define _GNU_SOURCE		/* dladdr1() */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>

#include <ethdev_driver.h>
#include <rte_version.h>

#include "af_xdp.h"
#include "af_xdp_version.h"

/* Year and month: one LTS line. */
#define VERSION_LINE(v)		((v) >> 16)
#define VERSION_RELEASE(v)	((v) & 0xffu)

static const uint32_t built_for = RTE_VERSION;

enum af_xdp_dpdk_match
af_xdp_dpdk_match(uint32_t built, uint32_t running)
{
	if (built == running)
		return AF_XDP_DPDK_SAME;
	if (VERSION_LINE(built) != VERSION_LINE(running))
		return AF_XDP_DPDK_OTHER_LINE;
	if (VERSION_RELEASE(built) != AF_XDP_DPDK_RELEASE ||
	    VERSION_RELEASE(running) != AF_XDP_DPDK_RELEASE)
		return AF_XDP_DPDK_OTHER_CANDIDATE;
	return AF_XDP_DPDK_SAME_LINE;
}

const char *
af_xdp_dpdk_version_str(uint32_t version, char *buf, size_t size)
{
	unsigned int release = VERSION_RELEASE(version);

	if (release == AF_XDP_DPDK_RELEASE)
		snprintf(buf, size, "%u.%02u.%u", version >> 24, (version >> 16) & 0xff,
			 (version >> 8) & 0xff);
	else
		snprintf(buf, size, "%u.%02u.%u-rc%u", version >> 24, (version >> 16) & 0xff,
			 (version >> 8) & 0xff, release);
	return buf;
}

const char *
af_xdp_dpdk_built_for(void)
{
	static char str[24];

	return af_xdp_dpdk_version_str(built_for, str, sizeof(str));
}

static int
check_version(uint32_t running)
{
	char run[24];

	af_xdp_dpdk_version_str(running, run, sizeof(run));
	switch (af_xdp_dpdk_match(built_for, running)) {
	case AF_XDP_DPDK_SAME:
		return 0;
	case AF_XDP_DPDK_SAME_LINE:
		AF_XDP_LOG(NOTICE, "%s was built for DPDK %s and runs in DPDK %s: the same LTS line, whose point releases have kept the driver interfaces it uses; rebuild it against %s to pick up fixes in DPDK's inline functions",
			   AF_XDP_PROJECT, af_xdp_dpdk_built_for(), run, run);
		return 0;
	case AF_XDP_DPDK_OTHER_CANDIDATE:
		AF_XDP_LOG(ERR, "%s was built for DPDK %s but this is DPDK %s: a release candidate's driver interfaces may still change; build it against DPDK %s (scripts/dpdk-build.sh --source)",
			   AF_XDP_PROJECT, af_xdp_dpdk_built_for(), run, run);
		return -ENOTSUP;
	case AF_XDP_DPDK_OTHER_LINE:
		break;
	}
	AF_XDP_LOG(ERR, "%s was built for DPDK %s but this is DPDK %s: driver interfaces are internal and change between DPDK lines; build it against DPDK %u.%02u (scripts/dpdk-build.sh)",
		   AF_XDP_PROJECT, af_xdp_dpdk_built_for(), run, running >> 24,
		   (running >> 16) & 0xff);
	return -ENOTSUP;
}

size_t
af_xdp_dpdk_eth_devices_size(void)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (dladdr1(rte_eth_devices, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL)
		return 0;
	return sym->st_size;
}

int
af_xdp_dpdk_check_running(void)
{
	size_t running = af_xdp_dpdk_eth_devices_size();
	int ret;

	ret = check_version(RTE_VERSION_NUM(rte_version_year(), rte_version_month(),
					    rte_version_minor(), rte_version_release()));
	if (ret != 0)
		return ret;
	if (running != 0 && running != AF_XDP_DPDK_ETH_DEVICES_SIZE) {
		AF_XDP_LOG(ERR, "%s was built with struct rte_eth_dev of %zu bytes for %d ports (DPDK %s's driver-SDK headers), but this DPDK's rte_eth_devices has %zu bytes: a DPDK built with other options (RTE_MAX_ETHPORTS), or a driver interface those headers do not describe; build %s against the running DPDK",
			   AF_XDP_PROJECT, sizeof(struct rte_eth_dev), RTE_MAX_ETHPORTS,
			   AF_XDP_DPDK_SDK_VERSION, running, AF_XDP_PROJECT);
		return -ENOTSUP;
	}
	return 0;
}

/*
 * Loaded into a process of another DPDK line, the plugin brings its own
 * line's libraries along (other SONAMEs) and registers its driver with their
 * vdev bus, which nobody probes: its probe never runs, and this is the only
 * place to say why (the process's EAL may then fail on the other libraries'
 * trace points, or go on without our driver). The process's own DPDK is the
 * first rte_version() in the global scope.
 */
RTE_INIT(af_xdp_check_loading_process)
{
	const char *(*process_version)(void);
	unsigned int year, month, minor, release = AF_XDP_DPDK_RELEASE;

	process_version = (const char *(*)(void))dlsym(RTLD_DEFAULT, "rte_version");
	if (process_version == NULL || process_version == rte_version)
		return;
	/* "DPDK 24.11.6", or "DPDK 25.11.0-rc1" */
	if (sscanf(process_version(), "%*s %u.%u.%u-rc%u", &year, &month, &minor, &release) < 3)
		return;
	if (check_version(RTE_VERSION_NUM(year, month, minor, release)) != 0)
		AF_XDP_LOG(ERR, "%s drives no port in this process: its driver is registered with the libraries of DPDK %s, not this process's",
			   AF_XDP_PROJECT, af_xdp_dpdk_built_for());
}
