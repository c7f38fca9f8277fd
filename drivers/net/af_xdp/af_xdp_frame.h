/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_FRAME_H
#define AF_XDP_FRAME_H

/*
 * The port's frame policy, in one place: how long a frame may be, which MTU
 * the port takes, and whether its sockets are bound for frames of several
 * descriptors (AF_XDP multi-buffer, XDP_USE_SG), which decides the receive
 * burst.  The ethdev ops consult it (configure, dev_info, MTU set, Rx queue
 * setup, start); nothing else decides any of it.
 *
 * A frame of the MTU is the MTU with its Ethernet header.  A chunk holds a
 * frame of its size less the kernel's XDP headroom (at most a page).  The
 * sockets are bound for multi-buffer only when the application asked for
 * chains (the Rx scatter or Tx multi-segment offload), the kernel has
 * multi-buffer, and the longest frame of the MTU (the port's or the
 * interface's, the larger) does not fit one chunk of every Rx queue's
 * mempool.  Otherwise they are bound for frames of one descriptor, which
 * keeps zero-copy where the interface has no zero-copy multi-buffer (veth,
 * many NICs): Open vSwitch asks for scatter from MTU 2500, whose frames fit
 * its mbufs.  A chain handed to such a socket for Tx is copied into one
 * chunk when it fits one, else dropped and counted (af_xdp_tx.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the kernel and the interface take, as read when the policy is computed. */
struct af_xdp_frame_sys {
	uint32_t page_frame;		/* the longest frame a chunk of a page holds */
	uint32_t max_segs;		/* descriptors a frame may take with multi-buffer */
	uint32_t iface_max_frame;	/* the interface's largest MTU with its header; UINT32_MAX: unknown */
	bool multi_buffer;		/* the kernel has AF_XDP multi-buffer */
};

/* Why the sockets are, or are not, bound for multi-buffer (state: frame.multi_buffer.reason). */
enum af_xdp_frame_mb {
	AF_XDP_FRAME_MB_NOT_ASKED,	/* neither Rx scatter nor Tx multi-segment configured */
	AF_XDP_FRAME_MB_NO_KERNEL,	/* the kernel has no multi-buffer */
	AF_XDP_FRAME_MB_FITS,		/* the longest frame fits one chunk */
	AF_XDP_FRAME_MB_NEEDED,		/* it does not: bound with XDP_USE_SG */
};

/* Computed at configure and at each MTU change; the start's decision at start. */
struct af_xdp_frame {
	struct af_xdp_frame_sys sys;
	uint32_t mtu;			/* the port's MTU */
	bool scatter;			/* the Rx scatter offload is configured */
	bool multi_seg_tx;		/* the Tx multi-segment offload is configured */
	uint16_t rx_segs;		/* descriptors a received frame may take: 1, or sys.max_segs */
	/* What the last start decided: */
	uint32_t largest;		/* the longest frame that may arrive */
	uint32_t chunk_frame;		/* the longest frame one chunk of every Rx mempool holds */
	enum af_xdp_frame_mb mb;	/* multi_buffer: mb == AF_XDP_FRAME_MB_NEEDED */
	bool multi_buffer;
};

/* The frame of an MTU: with its Ethernet header. */
static inline uint32_t
af_xdp_frame_of_mtu(uint32_t mtu)
{
	return mtu + 14;
}

/* --- pure policy (tests/unit/test_frame.c) ------------------------------------- */

/*
 * The policy for MTU mtu with (scatter) or without the Rx scatter offload,
 * with (multi_seg_tx) or without the Tx multi-segment offload;
 * -EINVAL, with the reason in err, for an MTU the port cannot take (frames
 * of several chunks without multi-buffer or scatter; beyond the interface).
 */
int af_xdp_frame_compute(struct af_xdp_frame *f, const struct af_xdp_frame_sys *sys,
			 uint32_t mtu, bool scatter, bool multi_seg_tx, char *err,
			 size_t err_len);

/* The longest frame the port takes at all: of one page-sized chunk, or of several. */
uint32_t af_xdp_frame_port_max(const struct af_xdp_frame_sys *sys, bool multi_buffer);

/*
 * The longest frame received into mbufs whose chunk holds chunk_frame, on
 * sockets bound for multi_buffer or not (within the interface's maximum).
 */
uint32_t af_xdp_frame_rx_limit(const struct af_xdp_frame *f, uint32_t chunk_frame,
			       bool multi_buffer);

/* Whether the longest frame, largest, takes several chunks of chunk_frame: why. */
enum af_xdp_frame_mb af_xdp_frame_decide(const struct af_xdp_frame *f, uint32_t largest,
					 uint32_t chunk_frame);

/* What the Tx queues of a socket (bound for multi_buffer or not) send at MTU mtu. */
void af_xdp_frame_tx_limits(const struct af_xdp_frame *f, uint32_t mtu, bool multi_buffer,
			    uint32_t *max_pkt_len, uint16_t *max_segs);

/* The state's word for mb. */
const char *af_xdp_frame_mb_name(enum af_xdp_frame_mb mb);

/* --- the ops' side ------------------------------------------------------------- */

struct af_xdp_port;
struct af_xdp_socket;
struct rte_eth_dev;
struct rte_eth_dev_info;
struct rte_mempool;

/* dev_info's frame limits: max_rx_pktlen, max_mtu, the scatter offload, Tx segments. */
void af_xdp_frame_dev_info(const struct af_xdp_port *port, struct rte_eth_dev_info *info);

/* At configure: the policy for the port's MTU and offloads, or -EINVAL after saying why. */
int af_xdp_frame_configure(struct rte_eth_dev *dev);

/* Whether Rx queue qid's mempool mp holds frames of the port's MTU; says why not. */
int af_xdp_frame_check_mempool(struct rte_eth_dev *dev, uint16_t qid, struct rte_mempool *mp,
			       const char *what);

/*
 * Before MTU mtu reaches the interface: the policy for it in *next, or
 * -EINVAL after saying why.  On a started port the Rx queues' mbufs must
 * hold its frames on the sockets as they are bound: an MTU whose frames
 * take several chunks where the sockets were bound for one is refused
 * (stop, set the MTU, start: Open vSwitch does); one that takes fewer is
 * taken, and the sockets stay multi-buffer until the next start.
 */
int af_xdp_frame_mtu_check(struct rte_eth_dev *dev, uint32_t mtu, struct af_xdp_frame *next);
/* The interface took it: the port's policy is next, the Tx queues' limits follow. */
void af_xdp_frame_mtu_commit(struct rte_eth_dev *dev, const struct af_xdp_frame *next);

/*
 * At start, before the sockets: the Rx mempools checked against the MTU,
 * and whether the sockets are to be bound for multi-buffer (returned).
 * Warns when the interface's MTU lets frames longer than the port takes.
 */
int af_xdp_frame_start(struct rte_eth_dev *dev, bool *multi_buffer);

/* The socket of queue index i as bound: -ENOTSUP after saying why, if not as decided. */
int af_xdp_frame_check_socket(struct rte_eth_dev *dev, uint16_t i,
			      const struct af_xdp_socket *sock);

/* The Tx queues' limits for the interface's MTU mtu, each by its socket's binding. */
void af_xdp_frame_set_tx_limits(struct rte_eth_dev *dev, uint32_t mtu);

#endif /* AF_XDP_FRAME_H */
