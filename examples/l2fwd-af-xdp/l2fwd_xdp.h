/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Shared by the kernel twin's XDP program (bpf/l2fwd_xdp.bpf.c) and its
 * loader (l2fwd_xdp.c): the configuration the loader writes into the
 * program's read-only data before load, and the per-CPU counters.
 */

#ifndef L2FWD_XDP_H
#define L2FWD_XDP_H

#include <linux/types.h>

/* Ports per program: the program finds a frame's port by a linear search
 * of its ingress interface, which stays short at this size. */
#define L2FWD_XDP_MAX_PORTS	16

/* Destination, then source MAC: what MAC updating writes in a frame. */
#define L2FWD_XDP_ADDRS_LEN	12

struct l2fwd_xdp_port {
	__u32 ifindex;
	/* Written in frames received on this port, which go out of its pair:
	 * the pair's peer MAC, then the pair's own MAC. */
	__u8 eth_addrs[L2FWD_XDP_ADDRS_LEN];
};

/* The program's .rodata: set by the loader, constant once loaded (the
 * verifier then prunes what mac_updating turns off). */
struct l2fwd_xdp_conf {
	__u32 nb_ports;
	__u32 mac_updating;
	__u32 netns_ino;	/* the loader's network namespace (its inode number) */
	struct l2fwd_xdp_port port[L2FWD_XDP_MAX_PORTS];
};

/* Per port (index in conf.port[]) and per CPU: frames received on the
 * port, and what became of them. */
struct l2fwd_xdp_counts {
	__u64 rx;
	__u64 forwarded;	/* bpf_redirect_map() took them for the pair */
	__u64 dropped;		/* the pair had no devmap entry */
	/* Of the forwarded, those the pair then refused, at the redirect or
	 * at the devmap's flush (counted by the tracing programs). */
	__u64 tx_failed;
};

#endif /* L2FWD_XDP_H */
