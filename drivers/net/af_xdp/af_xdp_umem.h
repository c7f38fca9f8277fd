/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_UMEM_H
#define AF_XDP_UMEM_H

#include "af_xdp.h"

/*
 * Where the UMEM lies in mempool mp and how chunk addresses map to mbufs.
 * Returns 0, or -EINVAL with the reason the pool cannot be a UMEM in err.
 */
int af_xdp_umem_layout(struct rte_mempool *mp, struct af_xdp_umem_layout *layout,
		       char *err, size_t err_len);

/*
 * The UMEM the socket fd is to use for mp: with shared_umem, one already
 * registered for mp by a bound socket (*shared is then true: bind with
 * XDP_SHARED_UMEM on af_xdp_umem_fd()); otherwise mp registered on fd.
 * NULL after logging why.
 */
struct af_xdp_umem *af_xdp_umem_join(const struct af_xdp_port *port, struct rte_mempool *mp,
				     int fd, bool *shared);
/*
 * fd, which registered umem, is bound (multi_buffer: with XDP_USE_SG, which
 * the kernel records in the UMEM for every socket sharing it): other
 * sockets may share it now.
 */
void af_xdp_umem_bound(struct af_xdp_umem *umem, int fd, bool multi_buffer);
/* Whether the sockets of umem take frames of several descriptors. */
bool af_xdp_umem_multi_buffer(const struct af_xdp_umem *umem);
/* The socket fd, about to be closed, leaves umem (freed with its last socket). */
void af_xdp_umem_leave(struct af_xdp_umem *umem, int fd);

const struct af_xdp_umem_layout *af_xdp_umem_layout_of(const struct af_xdp_umem *umem);
struct rte_mempool *af_xdp_umem_pool(const struct af_xdp_umem *umem);
/* The bound socket that registered it: what XDP_SHARED_UMEM names. */
int af_xdp_umem_fd(const struct af_xdp_umem *umem);

#endif /* AF_XDP_UMEM_H */
