/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_DEVARGS_H
#define AF_XDP_DEVARGS_H

/*
 * Device arguments: parsed and validated into a plain struct, with no side
 * effect on the system, so that every rule can be unit-tested.  Checks that
 * need the running system (does the interface exist, how many channels has
 * it) are made at probe, in af_xdp_ethdev.c, with what af_xdp_iface.c reads.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <net/if.h>

#define AF_XDP_ARG_IFACE		"iface"
#define AF_XDP_ARG_START_QUEUE		"start_queue"
#define AF_XDP_ARG_QUEUE_COUNT		"queue_count"
#define AF_XDP_ARG_SHARED_UMEM		"shared_umem"
#define AF_XDP_ARG_XDP_PROG		"xdp_prog"
#define AF_XDP_ARG_BUSY_BUDGET		"busy_budget"
#define AF_XDP_ARG_FORCE_COPY		"force_copy"
#define AF_XDP_ARG_USE_CNI		"use_cni"
#define AF_XDP_ARG_USE_PINNED_MAP	"use_pinned_map"
#define AF_XDP_ARG_DP_PATH		"dp_path"
#define AF_XDP_ARG_MODE			"mode"
#define AF_XDP_ARG_REDIRECT		"redirect"
#define AF_XDP_ARG_TX_CSUM		"tx_csum"
#define AF_XDP_ARG_TX_BUDGET		"tx_budget"

/* The parameter string shown by dpdk-pmdinfo.py and in --help of apps. */
#define AF_XDP_PARAMS_STRING \
	AF_XDP_ARG_IFACE "=<string> " \
	AF_XDP_ARG_START_QUEUE "=<int> " \
	AF_XDP_ARG_QUEUE_COUNT "=<int> " \
	AF_XDP_ARG_SHARED_UMEM "=<0|1> " \
	AF_XDP_ARG_XDP_PROG "=<path> " \
	AF_XDP_ARG_BUSY_BUDGET "=<int> " \
	AF_XDP_ARG_FORCE_COPY "=<0|1> " \
	AF_XDP_ARG_USE_CNI "=<0|1> " \
	AF_XDP_ARG_USE_PINNED_MAP "=<0|1> " \
	AF_XDP_ARG_DP_PATH "=<path> " \
	AF_XDP_ARG_MODE "=<drv|skb|hw> " \
	AF_XDP_ARG_REDIRECT "=<auto|direct|map> " \
	AF_XDP_ARG_TX_CSUM "=<auto|sw> " \
	AF_XDP_ARG_TX_BUDGET "=<auto|kernel>"

/* Busy polling budget when busy_budget is not given (as the stock driver). */
#define AF_XDP_DEFAULT_BUSY_BUDGET 64
/* Where the AF_XDP device plugin for Kubernetes puts its socket and map. */
#define AF_XDP_DP_DIR			"/tmp/afxdp_dp"
#define AF_XDP_DP_SOCKET_NAME		"afxdp.sock"
#define AF_XDP_DP_MAP_NAME		"xsks_map"

/* How the XDP program is attached; mirrors libxdp's enum xdp_attach_mode. */
enum af_xdp_attach_mode {
	AF_XDP_ATTACH_AUTO,	/* let the kernel pick: native if the driver has it */
	AF_XDP_ATTACH_DRV,	/* native (driver) XDP */
	AF_XDP_ATTACH_SKB,	/* generic XDP, on the skb path */
	AF_XDP_ATTACH_HW,	/* offloaded to the NIC */
};

/* How the built-in program sends frames to the sockets. */
enum af_xdp_redirect {
	/*
	 * map where the kernel batches bpf_redirect_map() into an XSKMAP, else
	 * direct where the kernel has bpf_redirect_xsk, else map
	 */
	AF_XDP_REDIRECT_AUTO,
	AF_XDP_REDIRECT_DIRECT,	/* bpf_redirect_xsk: XDP_REDIRECT_XSK, our patched kernel */
	AF_XDP_REDIRECT_MAP,	/* bpf_redirect_map on the XSKMAP: every kernel */
};

/* Who completes the L4 checksums of the Tx checksum offloads (af_xdp_csum.h). */
enum af_xdp_tx_csum {
	AF_XDP_TX_CSUM_AUTO,	/* the kernel, through AF_XDP Tx metadata, where it can */
	AF_XDP_TX_CSUM_SW,	/* the driver, always: for tests and comparison */
};

/* The Tx descriptors one sendto() sends in copy mode (af_xdp_socket.c). */
enum af_xdp_tx_budget {
	AF_XDP_TX_BUDGET_AUTO,		/* the Tx ring's size where the kernel takes it (6.17+) */
	AF_XDP_TX_BUDGET_KERNEL,	/* the kernel's default, always: for comparison */
};

struct af_xdp_devargs {
	char iface[IFNAMSIZ];
	uint32_t start_queue;
	uint32_t queue_count;
	bool shared_umem;
	char xdp_prog[PATH_MAX];	/* empty: our own program */
	uint32_t busy_budget;		/* 0: busy polling off */
	bool busy_budget_given;		/* set explicitly: failures are errors */
	bool force_copy;
	bool use_cni;
	bool use_pinned_map;
	char dp_path[PATH_MAX];		/* resolved default when use_cni/use_pinned_map */
	enum af_xdp_attach_mode mode;
	enum af_xdp_redirect redirect;
	bool redirect_given;
	enum af_xdp_tx_csum tx_csum;
	enum af_xdp_tx_budget tx_budget;
};

/*
 * Parse and validate a devargs string (NULL or "" is accepted and fails on
 * the missing iface).  Returns 0, or -EINVAL with a message naming the bad
 * key or value and what to do instead in err.
 */
int af_xdp_devargs_parse(const char *args, struct af_xdp_devargs *da,
			 char *err, size_t err_len);

const char *af_xdp_attach_mode_name(enum af_xdp_attach_mode mode);

#endif /* AF_XDP_DEVARGS_H */
