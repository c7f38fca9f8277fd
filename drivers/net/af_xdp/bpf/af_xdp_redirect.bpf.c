/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The XDP program the PMD attaches when the user gives none: every frame of
 * a queue that has one of our sockets goes to it, any other frame goes on
 * to the kernel stack.  The flags argument of bpf_redirect_map() is the
 * action on a map miss, so no separate lookup is needed.
 *
 * Built with the project (clang -target bpf) and embedded in the plugin:
 * nothing is compiled at run time.  The XSKMAP is sized at load to the
 * interface's queue count.
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

SEC("xdp")
int afxdp_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
