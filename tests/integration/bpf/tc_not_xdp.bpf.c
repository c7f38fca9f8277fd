/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * A BPF object for the integration tests that is not an XDP one: a tc
 * classifier (it even has an XSKMAP named xsks_map).  Given as xdp_prog=,
 * the driver must refuse it with libbpf's or the kernel's words for why,
 * not a bare error number.
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

SEC("tc")
int tc_not_xdp(struct __sk_buff *skb)
{
	/* A field XDP's context lacks: the program cannot pass for an XDP one. */
	return skb->mark == 1 ? 2 : 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
