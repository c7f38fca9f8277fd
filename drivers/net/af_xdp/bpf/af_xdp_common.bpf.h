/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_COMMON_BPF_H
#define AF_XDP_COMMON_BPF_H

/*
 * What every built-in program object has, by the same names, since the
 * driver prepares each the same way (af_xdp_builtin.c): the XSKMAP,
 * afxdp_direct's counters, the action value and the owner mark, set before
 * load, and the placeholder call of bpf_redirect_xsk().  Each object that
 * includes this has its own copies.
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../af_xdp_bpf_abi.h"

/* Sized at load to the interface's queue count. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* The direct programs' frames that did not go straight to a socket, by enum af_xdp_fallback. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AF_XDP_FALLBACK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} afxdp_fallbacks SEC(".maps");

/* The running kernel's XDP_REDIRECT_XSK, set before load. */
const volatile __u32 xdp_redirect_xsk_action = 0xffffffff;

/* Who loaded this copy, set before load; never read by the programs. */
const volatile struct af_xdp_owner bpf_metadata_afxdp_owner = { 0 };

/* Replaced before load by the running kernel's BPF_FUNC_redirect_xsk. */
static long (*bpf_redirect_xsk)(struct xdp_md *ctx, void *map, __u32 key, __u64 flags) =
	(void *)AF_XDP_REDIRECT_XSK_PLACEHOLDER;

static __always_inline int
afxdp_redirect_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

/* bpf_redirect_xsk(), counting the frames that did not go straight to a socket. */
static __always_inline int
afxdp_redirect_direct(struct xdp_md *ctx)
{
	long act = bpf_redirect_xsk(ctx, &xsks_map, ctx->rx_queue_index, XDP_PASS);

	if (act != xdp_redirect_xsk_action) {
		__u32 key = act == XDP_REDIRECT ? AF_XDP_FALLBACK_VIA_MAP : AF_XDP_FALLBACK_PASSED;
		__u64 *n = bpf_map_lookup_elem(&afxdp_fallbacks, &key);

		if (n != NULL)
			(*n)++;
	}
	return act;
}

char _license[] SEC("license") = "Dual BSD/GPL";

#endif /* AF_XDP_COMMON_BPF_H */
