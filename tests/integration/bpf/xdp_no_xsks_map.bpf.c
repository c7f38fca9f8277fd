/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * An XDP program for the integration tests whose XSKMAP is NOT named
 * xsks_map: the driver must refuse it for xdp_prog= and say which map name
 * it needs.  Attached on its own (ip link ... xdp obj), it is also the
 * "foreign" program that is in the driver's way.
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} other_sockets SEC(".maps");

SEC("xdp")
int no_xsks_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&other_sockets, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
