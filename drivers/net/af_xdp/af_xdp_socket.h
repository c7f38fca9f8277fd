/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_SOCKET_H
#define AF_XDP_SOCKET_H

#include "af_xdp.h"

/*
 * Open the socket serving queue index idx of the port: its UMEM (mempool
 * mp, registered or shared), rings of rx_size/tx_size descriptors (0: no
 * such ring) with fill and completion rings to match, mapped, bound to the
 * interface queue start_queue + idx; with multi_buffer, for frames of
 * several descriptors where the kernel has them (sock->multi_buffer says);
 * with own_umem, on a UMEM the driver owns (sock->own_pool) instead of mp,
 * with chunks of mp's size.  NULL after logging why.
 */
struct af_xdp_socket *af_xdp_socket_open(struct af_xdp_port *port, uint16_t idx,
					 struct rte_mempool *mp, uint32_t rx_size,
					 uint32_t tx_size, bool multi_buffer, bool own_umem);

/* How long a close waits for a secondary's copy of the descriptor to go. */
#define AF_XDP_CLOSE_WAIT_MS 1000

/*
 * Unmap the rings and close the socket.  If the descriptor was the last, the
 * kernel then destroys the socket - once the Tx skbs built from it in copy
 * mode are freed, each of which holds it - and, in deferred work, its
 * buffer pool: a NIC's zero-copy driver gives back the buffers it had, and
 * the pool leaves the queue.  Another copy of the descriptor may be open
 * (one a started port lent, af_xdp_lend.h, that a secondary or this
 * process's statistics or telemetry still reads counters through; a
 * child's; a pidfd_getfd()): then the socket lives on, still bound to its
 * queue, until that copy closes too.  af_xdp_queue_wait_free() tells when
 * the kernel is done with the UMEM's chunks.
 */
void af_xdp_socket_close(struct af_xdp_socket *sock);
/* (sock->own_pool, the driver's UMEM, is left to the caller: it may still be the kernel's.) */

/*
 * Whether queue of interface ifindex has no AF_XDP socket bound (a probe
 * socket binds there in copy mode): 1 or 0, -errno when the probe fails.
 * Free, the kernel holds no chunk of a UMEM of the sockets that were there
 * (af_xdp_socket.c says why).
 */
int af_xdp_queue_free(int ifindex, uint32_t queue);

/*
 * After a socket's close: whether its queue is free, waiting up to
 * AF_XDP_CLOSE_WAIT_MS while it is not (the kernel's deferred release of the
 * pool; a secondary holds its copy for one read of the counters).  A probe
 * that cannot run counts as free.
 */
bool af_xdp_queue_wait_free(int ifindex, uint32_t queue);

/* The kernel's counters of the socket fd (XDP_STATISTICS); zeros and -errno on failure. */
int af_xdp_socket_kernel_stats(int fd, struct af_xdp_kernel_stats *ks);

/* How long the kernel may busy poll per syscall, in microseconds. */
#define AF_XDP_BUSY_POLL_USECS 20

/*
 * Busy polling on socket fd: the kernel's receive run in our syscalls
 * (SO_PREFER_BUSY_POLL), for up to AF_XDP_BUSY_POLL_USECS a call
 * (SO_BUSY_POLL), at most budget frames (SO_BUSY_POLL_BUDGET, Linux 5.11+).
 * 0, or -errno of the first option the kernel refused.  The options are
 * taken on any socket; they do something only where it has a NAPI id
 * (af_xdp_socket_napi_id).
 */
int af_xdp_socket_busy_poll(int fd, int budget);

/* The socket's busy-poll time (SO_BUSY_POLL, 0 when off) in *usecs: 0, or -errno and -1. */
int af_xdp_socket_busy_poll_usecs(int fd, int *usecs);

/*
 * The NAPI context the socket fd receives from, as the kernel recorded it
 * with the first frame received (a zero-copy socket's also with its first
 * send): 0 until then, and where there is none (generic XDP; veth's XDP
 * path on some kernels: 6.18's has none, 6.12's has one, and so has the
 * patched kernel's zero-copy).
 */
int af_xdp_socket_napi_id(int fd, unsigned int *napi_id);

#endif /* AF_XDP_SOCKET_H */
