/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_TX_H
#define AF_XDP_TX_H

#include "af_xdp.h"

/* The burst when no Tx checksum offload is configured: flags not looked at. */
uint16_t af_xdp_tx_burst(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
/*
 * The same on a queue whose metadata's flags must be zeroed (meta_clear: a
 * zero-copy socket with Tx metadata, which some kernels read in front of
 * every descriptor: af_xdp_tx.c).
 */
uint16_t af_xdp_tx_burst_meta_clear(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
/* The burst when one is: each frame's checksum request honoured (af_xdp_csum.h). */
uint16_t af_xdp_tx_burst_csum(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);

/*
 * Serve the queue from a socket's Tx and completion rings; umem_pool is the
 * UMEM, registered with tx_meta_len bytes of Tx metadata in front of each
 * frame (af_xdp_umem_tx_meta_len()), the socket bound in zero-copy mode or
 * not.  L4 checksums: the driver's until af_xdp_txq_set_csum().
 */
void af_xdp_txq_bind(struct af_xdp_tx_queue *txq, const struct af_xdp_ring *tx,
		     const struct af_xdp_ring *comp, const struct af_xdp_umem_layout *layout,
		     uint32_t tx_meta_len, bool zero_copy, struct rte_mempool *umem_pool, int fd);

/* Whether the burst leaves L4 checksums to the kernel (af_xdp_tx_csum_by_kernel()). */
void af_xdp_txq_set_csum(struct af_xdp_tx_queue *txq, bool by_kernel);

/*
 * The frames the queue may send: at most max_pkt_len bytes (the interface's
 * MTU with its Ethernet header and a VLAN tag), in at most max_segs
 * descriptors (1: a socket without multi-buffer; at most
 * AF_XDP_TX_MAX_SEGS).  Longer frames are dropped and counted in
 * tx_q<n>_dropped, frames of too many segments in tx_q<n>_too_many_segs.
 * Until set: frames of one chunk, of any length that fits.
 */
void af_xdp_txq_set_frame_limits(struct af_xdp_tx_queue *txq, uint32_t max_pkt_len,
				 uint16_t max_segs);

/* Free the mbufs of every descriptor the kernel has completed; returns how many. */
unsigned int af_xdp_txq_drain(struct af_xdp_tx_queue *txq);

/*
 * Before the socket closes: wait, boundedly, for the kernel to complete what
 * it took from the Tx ring; the mbufs of the descriptors still outstanding
 * (taken and not completed, or never taken) go on the queue's held list:
 * the kernel may still read them until it has let go of the socket.
 * Returns how many mbufs the completions gave back.  In copy mode the kernel
 * takes Tx descriptors only in a sendto() on the socket.
 */
unsigned int af_xdp_txq_release(struct af_xdp_tx_queue *txq);

/* The kernel has let go of the old socket: the held mbufs back to their mempools; how many. */
unsigned int af_xdp_txq_free_held(struct af_xdp_tx_queue *txq);

/* The held list forgotten, its mbufs left out of their mempools (still the kernel's); how many. */
unsigned int af_xdp_txq_drop_held(struct af_xdp_tx_queue *txq);

#endif /* AF_XDP_TX_H */
