/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_KSTATS_H
#define AF_XDP_KSTATS_H

/*
 * The kernel's counters of one AF_XDP socket (XDP_STATISTICS), named once,
 * and the arithmetic that keeps them across sockets.
 *
 * Sockets live from port start to stop, and the kernel's counters with
 * them; so each queue keeps a base that absorbs a closing socket's final
 * counts (fold) and that a reset sets to minus the current ones.  The value
 * reported is base + current, in wrapping unsigned arithmetic.  Pure code:
 * no system call, unit-tested on plain structs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/if_xdp.h>

enum af_xdp_kstat {
	AF_XDP_KSTAT_RX_DROPPED,
	AF_XDP_KSTAT_RX_INVALID_DESCS,
	AF_XDP_KSTAT_RX_RING_FULL,
	AF_XDP_KSTAT_RX_FILL_RING_EMPTY_DESCS,
	AF_XDP_KSTAT_TX_INVALID_DESCS,
	AF_XDP_KSTAT_TX_RING_EMPTY_DESCS,
	AF_XDP_KSTAT_MAX,
};

struct af_xdp_kernel_stats {
	uint64_t v[AF_XDP_KSTAT_MAX];
};

struct af_xdp_kstat_def {
	const char *xstat;	/* the xstat name after rx_q<n>_ or tx_q<n>_ */
	bool rx;		/* an Rx counter (else Tx) */
	size_t offset;		/* in struct xdp_statistics */
};

/* Indexed by enum af_xdp_kstat. */
extern const struct af_xdp_kstat_def af_xdp_kstat_defs[AF_XDP_KSTAT_MAX];

/*
 * The counters from what getsockopt(XDP_STATISTICS) returned in len bytes:
 * kernels before 5.9 return only the first three fields, the rest reads 0.
 */
void af_xdp_kstats_from_kernel(const struct xdp_statistics *xs, size_t len,
			       struct af_xdp_kernel_stats *ks);

/* A socket is closing with counts cur: keep them in base. */
void af_xdp_kstats_fold(struct af_xdp_kernel_stats *base, const struct af_xdp_kernel_stats *cur);

/* Reset: base + cur reads 0 from now on. */
void af_xdp_kstats_reset(struct af_xdp_kernel_stats *base, const struct af_xdp_kernel_stats *cur);

/* What to report: base + cur. */
void af_xdp_kstats_total(const struct af_xdp_kernel_stats *base,
			 const struct af_xdp_kernel_stats *cur,
			 struct af_xdp_kernel_stats *out);

/*
 * Frames the kernel steered to the socket and could not deliver (ethdev
 * imissed), for a socket in zero-copy mode or not.
 */
uint64_t af_xdp_kstats_imissed(const struct af_xdp_kernel_stats *ks, bool zero_copy);

#endif /* AF_XDP_KSTATS_H */
