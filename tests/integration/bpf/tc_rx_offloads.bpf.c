/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * tc egress programs for test_rx_offloads, on the sending peer of the
 * driver's veth: the kernel's own view of each UDP flow.
 *
 * tc/hash       records the skb's hash, by UDP source port, as the kernel
 *               computes it (bpf_get_hash_recalc() stores it in the skb,
 *               which veth keeps across to its peer, whose XDP metadata
 *               function bpf_xdp_metadata_rx_hash() returns it).
 * tc/hash_vlan  the same, and the frame leaves with VLAN tag TEST_TCI
 *               carried out of band (bpf_skb_vlan_push(), as a VLAN
 *               device with tx-vlan-offload does): veth hands it to XDP
 *               as metadata, never in the frame's bytes.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TEST_TCI 0x6064		/* priority 3, VLAN 100 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);	/* UDP source port */
	__type(value, __u32);	/* the skb's hash */
} flow_hashes SEC(".maps");

/* The UDP source port of an IPv4 frame without options, or 0. */
static __always_inline __u32
udp_source(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return 0;
	return bpf_ntohs(udp->source);
}

static __always_inline void
record_hash(struct __sk_buff *skb)
{
	__u32 port = udp_source(skb), hash;

	if (port == 0)
		return;
	hash = bpf_get_hash_recalc(skb);
	bpf_map_update_elem(&flow_hashes, &port, &hash, BPF_ANY);
}

SEC("tc/hash")
int tc_hash(struct __sk_buff *skb)
{
	record_hash(skb);
	return 0;	/* TC_ACT_OK */
}

SEC("tc/hash_vlan")
int tc_hash_vlan(struct __sk_buff *skb)
{
	record_hash(skb);
	if (udp_source(skb) != 0)
		bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), TEST_TCI);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
