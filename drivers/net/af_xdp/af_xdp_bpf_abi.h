/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_BPF_ABI_H
#define AF_XDP_BPF_ABI_H

/*
 * What the built-in XDP programs (bpf/af_xdp_redirect.bpf.c) and the driver
 * (af_xdp_prog.c) agree on.  Included by both, so it uses nothing but the C
 * language: no DPDK, no libbpf.
 */

/*
 * The helper number compiled into afxdp_direct's call of bpf_redirect_xsk();
 * the driver replaces it by the running kernel's BPF_FUNC_redirect_xsk
 * before load.  Far above any real helper number, so that it cannot be one.
 */
#define AF_XDP_REDIRECT_XSK_PLACEHOLDER 0x7fffa5a5

/* Keys of afxdp_direct's counters of the frames that did not go straight to a socket. */
enum af_xdp_fallback {
	AF_XDP_FALLBACK_VIA_MAP,	/* through the XSKMAP: not one socket on the queue */
	AF_XDP_FALLBACK_PASSED,		/* to the kernel stack: no socket on the queue */
	AF_XDP_FALLBACK_MAX,
};

#endif /* AF_XDP_BPF_ABI_H */
