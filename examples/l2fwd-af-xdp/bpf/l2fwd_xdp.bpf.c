/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * l2fwd-xdp's program: the kernel twin of l2fwd-af-xdp.  A frame received
 * on port i (an interface of conf.port[]) gets the MAC rewrite of its
 * output port (unless MAC updating is off) and is redirected through the
 * devmap to the paired interface, all in the receiving interface's NAPI
 * poll.  Counted per port, per CPU.  Built with the project (clang -target
 * bpf) and embedded in the loader; the loader sets conf before load.
 *
 * Two tracing programs count the forwarded frames the output interface
 * then refused, which the XDP program cannot see (bpf_redirect_map() has
 * returned by then): at the redirect (xdp:xdp_redirect_err; e.g. a veth
 * whose peer has neither GRO nor XDP on takes no redirected frames) and at
 * the devmap's flush (xdp:xdp_devmap_xmit; e.g. the veth peer's receive
 * ring was full).  The loader leaves them out where the kernel has no BTF,
 * or on request.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../l2fwd_xdp.h"

const volatile struct l2fwd_xdp_conf conf;

/* tx_port[i]: the ifindex frames received on port i go out of. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, L2FWD_XDP_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

/* tx_port's id, set by the loader after load: xdp:xdp_redirect_err names
 * the map, which (unlike an ifindex) is unique across namespaces. */
volatile __u32 tx_port_map_id;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, L2FWD_XDP_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct l2fwd_xdp_counts);
} port_counts SEC(".maps");

SEC("xdp.frags")
int l2fwd_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	const volatile struct l2fwd_xdp_port *port = NULL;
	struct l2fwd_xdp_counts *c;
	__u32 i;
	long act;

	/* A pointer, not the index, is kept for the rewrite: the verifier tracks
	 * its bounds through a spill to the stack, which the index loses. */
	for (i = 0; i < L2FWD_XDP_MAX_PORTS && i < conf.nb_ports; i++) {
		if (conf.port[i].ifindex == ctx->ingress_ifindex) {
			port = &conf.port[i];
			break;
		}
	}
	if (!port)
		return XDP_PASS;	/* not attached by the loader: leave it alone */
	c = bpf_map_lookup_elem(&port_counts, &i);
	if (!c)
		return XDP_ABORTED;
	c->rx++;

	/* A runt has no addresses to rewrite: it goes out as it came. */
	if (conf.mac_updating && data + sizeof(struct ethhdr) <= data_end)
		__builtin_memcpy(data, (const void *)port->eth_addrs, L2FWD_XDP_ADDRS_LEN);

	/* The flags argument is the action on a map miss. */
	act = bpf_redirect_map(&tx_port, i, XDP_DROP);
	if (act == XDP_REDIRECT)
		c->forwarded++;
	else
		c->dropped++;
	return (int)act;
}

/*
 * The kernel structures the tracepoint program reads, reduced to the fields
 * used; libbpf relocates the accesses against the running kernel's BTF
 * (CO-RE), so no kernel headers are needed at build time.
 */
struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net {
	struct ns_common ns;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} possible_net_t;

struct net_device {
	int ifindex;
	possible_net_t nd_net;
} __attribute__((preserve_access_index));

struct bpf_prog;

static __always_inline void
count_tx_failed(__u32 port, __u64 n)
{
	struct l2fwd_xdp_counts *c = bpf_map_lookup_elem(&port_counts, &port);

	if (c)
		c->tx_failed += n;
}

/* Refused at the redirect: the devmap entry index is the receiving port. */
SEC("tp_btf/xdp_redirect_err")
int BPF_PROG(l2fwd_redirect_err, const struct net_device *dev, const struct bpf_prog *xdp,
	     const void *tgt, int err, int map_type, __u32 map_id, __u32 index)
{
	if (map_id == tx_port_map_id && index < L2FWD_XDP_MAX_PORTS)
		count_tx_failed(index, 1);
	return 0;
}

/* Refused at the flush: found by the interfaces, in our namespace only
 * (ifindexes repeat between namespaces). */
SEC("tp_btf/xdp_devmap_xmit")
int BPF_PROG(l2fwd_devmap_xmit, const struct net_device *from_dev,
	     const struct net_device *to_dev, int sent, int drops, int err)
{
	__u32 i;

	if (drops <= 0 || from_dev->nd_net.net->ns.inum != conf.netns_ino)
		return 0;
	for (i = 0; i < L2FWD_XDP_MAX_PORTS && i < conf.nb_ports; i++)
		if (conf.port[i].ifindex == (__u32)from_dev->ifindex)
			break;
	if (i < L2FWD_XDP_MAX_PORTS && i < conf.nb_ports &&
	    conf.port[i ^ 1].ifindex == (__u32)to_dev->ifindex)
		count_tx_failed(i, (__u64)drops);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
