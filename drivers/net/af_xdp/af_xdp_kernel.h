/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_KERNEL_H
#define AF_XDP_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

struct btf;

/* What the running kernel offers for the direct-socket redirect. */
struct af_xdp_kernel {
	bool probed;
	bool has_direct;		/* bpf_redirect_xsk found, loads and falls back */
	bool batched_map;		/* XDP_REDIRECTs into an XSKMAP received in batches */
	int32_t redirect_xsk_helper;	/* BPF_FUNC_redirect_xsk, -1 if absent */
	int32_t redirect_xsk_action;	/* XDP_REDIRECT_XSK, -1 if absent */
	char why[320];			/* one sentence: what was found, or what is missing */
	char batch_why[256];		/* the same for the batched map path */
};

/* The value of enumerator value_name of enum enum_name in btf. */
int af_xdp_btf_enum_value(const struct btf *btf, const char *enum_name,
			  const char *value_name, int64_t *value);

/* Step 1 only, on any BTF: fills the numbers, or why they are missing. */
int af_xdp_kernel_from_btf(const struct btf *btf, struct af_xdp_kernel *k);

/* On any BTF: whether the kernel has the batched map path, and batch_why. */
bool af_xdp_kernel_batched_map_from_btf(const struct btf *btf, struct af_xdp_kernel *k);

/* Everything above on the running kernel, once per process. */
const struct af_xdp_kernel *af_xdp_kernel_probe(void);

/* How the answer on AF_XDP multi-buffer was found. */
enum af_xdp_kernel_mb_why {
	AF_XDP_KERNEL_MB_BIND_TOOK,		/* a bind with XDP_USE_SG succeeded */
	AF_XDP_KERNEL_MB_BIND_REFUSED,		/* the kernel refused the flag, not the bind */
	AF_XDP_KERNEL_MB_BTF_HAS,		/* no bind could say: struct xdp_sock.sg */
	AF_XDP_KERNEL_MB_BTF_LACKS,
};

/*
 * AF_XDP multi-buffer (XDP_USE_SG, Linux 6.6): frames of several
 * descriptors.  Asked by doing it: a socket on a UMEM of one page, bound
 * in copy mode with XDP_USE_SG to queue `queue` of interface `ifindex`,
 * then closed (copy mode's answer is the kernel's, whatever the
 * interface).  Where no bind can say (the queue taken by another socket,
 * no memory to lock), the kernel's BTF does (struct xdp_sock's sg).  The
 * first answer a bind gave holds for the process.  *why says how.
 */
bool af_xdp_kernel_multi_buffer(int ifindex, uint32_t queue, enum af_xdp_kernel_mb_why *why);

/* The state block's word for why. */
const char *af_xdp_kernel_mb_why_name(enum af_xdp_kernel_mb_why why);

/* On any BTF: whether struct xdp_sock has the member sg. */
bool af_xdp_kernel_multi_buffer_from_btf(const struct btf *btf);

/*
 * The most page fragments the kernel gives an skb (net.core.max_skb_frags,
 * MAX_SKB_FRAGS: 17 unless configured otherwise): a copy-mode AF_XDP frame
 * takes one descriptor more, at most.
 */
unsigned int af_xdp_kernel_max_skb_frags(void);

#endif /* AF_XDP_KERNEL_H */
