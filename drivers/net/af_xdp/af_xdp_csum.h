/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_CSUM_H
#define AF_XDP_CSUM_H

/*
 * Tx checksum offloads.  The L4 (TCP, UDP) checksum of a frame is left to
 * the kernel through AF_XDP Tx metadata where it can take it: a struct in
 * the headroom just before the frame, named by the descriptor's
 * XDP_TX_METADATA option, which copy mode turns into a CHECKSUM_PARTIAL skb
 * (Linux 6.8; the UMEM must be registered with tx_metadata_len, and from
 * 6.11 with XDP_UMEM_TX_METADATA_LEN too).  The kernel then sums from
 * csum_start to the end of the frame over what the field holds, the
 * pseudo-header's sum, which is DPDK's own convention: rte_eth_tx_prepare()
 * seeds it.  Everything else is computed by the driver: the IPv4 header
 * checksum (the kernel has one checksum per frame, not two), and the L4
 * checksum wherever the kernel cannot take it (no Tx metadata, zero-copy on
 * a device whose transmit does not take it, no room for the metadata, a
 * frame that does not end with its L4 segment).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "af_xdp_devargs.h"
#include "af_xdp_uapi.h"

/* The Tx offloads the driver honours whatever the kernel. */
#define AF_XDP_TX_CSUM_OFFLOADS \
	(RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | \
	 RTE_ETH_TX_OFFLOAD_UDP_CKSUM)

/* The mbuf flags that ask the driver for work. */
#define AF_XDP_TX_CSUM_FLAGS	(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)


/* struct xsk_tx_metadata as 6.8 to 6.14 have it (6.15 adds launch_time: 24 bytes). */
struct af_xdp_tx_meta {
	uint64_t flags;			/* XDP_TXMD_FLAGS_* */
	union {
		struct {
			uint16_t csum_start;	/* from the frame's first byte */
			uint16_t csum_offset;	/* of the field, from csum_start */
		} request;
		struct {
			uint64_t tx_timestamp;
		} completion;
	};
};

/* The tx_metadata_len the UMEM is registered with: a multiple of 8, at least 16. */
#define AF_XDP_TX_META_LEN	((uint32_t)sizeof(struct af_xdp_tx_meta))

/*
 * Whether the interface's zero-copy transmit honours Tx metadata checksum
 * requests.  Copy mode always does (xsk_build_skb()); in zero-copy mode the
 * device's driver reads the metadata, and the kernel says which drivers
 * take a checksum request: the tx-checksum flag of the netdev netlink
 * family's xsk-features (Linux 6.8+).  A driver without it (veth before the
 * project's patched kernel honoured it) sends the frame with the
 * pseudo-header's sum alone.
 */
enum af_xdp_zc_tx_csum {
	AF_XDP_ZC_TX_CSUM_UNKNOWN,	/* the kernel does not say (no xsk-features) */
	AF_XDP_ZC_TX_CSUM_NO,		/* xsk-features without tx-checksum */
	AF_XDP_ZC_TX_CSUM_YES,		/* tx-checksum */
};

/*
 * The above from the netlink answer: known (the kernel reported
 * xsk-features) and the features, NETDEV_GENL_XSK_FLAGS_*.
 */
enum af_xdp_zc_tx_csum af_xdp_zc_tx_csum(bool known, uint64_t xsk_features);

/*
 * Whether a Tx queue leaves L4 checksums to the kernel: asked (tx_csum not
 * sw), the UMEM registered with Tx metadata (tx_meta_len), and a copy-mode
 * socket, or a zero-copy one on an interface whose zero-copy transmit takes
 * checksum requests (zc: otherwise the peer would get the pseudo-header's
 * sum).  When not, *why says why, for the log.
 */
bool af_xdp_tx_csum_by_kernel(enum af_xdp_tx_csum asked, uint32_t tx_meta_len, bool zero_copy,
			      enum af_xdp_zc_tx_csum zc, const char **why);

/*
 * Check the checksum request of m (ol_flags, l2_len, l3_len) against its
 * first segment: 0 when the driver can honour it; -ENOTSUP for offloads the
 * port does not offer (SCTP, TSO, tunnels, VLAN insertion) and for an L4
 * checksum behind IPv6 extension headers (the pseudo-header would need a
 * routing header's final address); -EINVAL when the
 * flags contradict each other or the headers they name are not all in the
 * first segment, or the IP header's lengths do not fit the frame.
 */
int af_xdp_tx_csum_check(const struct rte_mbuf *m);

/*
 * What rte_eth_tx_prepare() does for the port: check each frame, seed the
 * L4 checksum field with the pseudo-header's sum, zero the IPv4 header's.
 * Returns how many frames are ready; at the first that is not, rte_errno
 * says why (af_xdp_tx_csum_check()).
 */
uint16_t af_xdp_tx_prepare(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);

/* What af_xdp_tx_csum_apply() did with a frame's request. */
enum af_xdp_csum_done {
	AF_XDP_CSUM_BY_DRIVER,	/* every checksum asked is computed */
	AF_XDP_CSUM_BY_KERNEL,	/* the L4 checksum is left to the kernel: *meta filled */
	AF_XDP_CSUM_INVALID,	/* a request af_xdp_tx_csum_check() refuses */
};

/*
 * Honour the checksum request of m (af_xdp_tx_csum_check() first): the
 * IPv4 header checksum computed; the L4 checksum left to the kernel when
 * kernel is true and it can take it (metadata room in the headroom, the
 * frame ending with the L4 segment; *meta then says where), else computed
 * from scratch, whatever the field held.
 */
enum af_xdp_csum_done af_xdp_tx_csum_apply(struct rte_mbuf *m, bool kernel,
					   struct af_xdp_tx_meta *meta);

#endif /* AF_XDP_CSUM_H */
